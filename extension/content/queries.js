// Gasoline content script, part 3: answers the worker's on-demand queries (PROTOCOL.md, "On-demand
// queries": dom, page_info, pilot through content/pilot.js, storage through content/storage.js), and tells the worker when the DOM
// is parsed ('ready'), the moment from which it may ask. The worker runs it with the rest of the
// content script after the page's load (content.js).
(() => {
  'use strict';

  const G = globalThis.__gasolineContent;
  if (!G || G.parts.has('queries')) return;
  G.parts.add('queries');
  const { listen, shutdown, invalidated } = G;
  const dead = () => G.dead();

  const MATCH_MAX = 50;
  const DOM_TEXT_MAX = 500;
  const ATTR_MAX = 500;
  const DEPTH_DEFAULT = 3;
  const DEPTH_MAX = 5;
  const NODE_BUDGET = 1000; // elements described in one dom answer, matches and children together
  const HEADINGS_MAX = 50;
  const HEADING_TEXT_MAX = 200;
  const FORMS_MAX = 50;
  const FIELDS_MAX = 200;
  const PROPS_MAX = 100;
  const DEFAULT_STYLES = ['display', 'position', 'width', 'height', 'margin', 'padding', 'flex', 'grid',
    'visibility', 'opacity', 'overflow', 'z-index', 'color', 'background-color', 'font-size'];
  const INTERACTIVE_COUNT = 'a[href],button,input:not([type=hidden]),select,textarea,[tabindex],[contenteditable=true],summary';
  const NOT_FIELDS = new Set(['submit', 'button', 'reset', 'image', 'fieldset', 'output', 'object']);

  // Native DOM accessors: a page can shadow document.* and form.* with named elements
  // (<img name="querySelectorAll">, <input name="elements">), in this world too; not their prototypes,
  // which are this world's own. Taken at the first query: the isolated world builds each interface
  // the first time it is touched, and these would cost every load that time (PERFORMANCE.md).
  // Each name below is an accessor of its prototype.
  const getter = (proto, name) => /** @type {NonNullable<PropertyDescriptor['get']>} */ (/** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(proto, name)).get);
  /**
   * @typedef {object} Natives
   * @property {(this: Document, selectors: string) => NodeListOf<Element>} qsa
   * @property {(this: Document, selectors: string) => Element | null} qs
   * @property {Document['createTreeWalker']} walker
   * @property {(this: Document) => string} title
   * @property {(this: Document) => HTMLElement | null} docEl
   * @property {(this: Document) => HTMLElement | null} body
   * @property {(this: Document) => HTMLCollectionOf<HTMLFormElement>} forms
   * @property {(this: HTMLFormElement) => HTMLFormControlsCollection} formElements
   * @property {(this: Element) => string} tagName
   * @property {(this: Element) => NamedNodeMap} attrs
   * @property {(this: Element) => HTMLCollection} children
   * @property {Element['getAttribute']} getAttr
   * @property {Element['getBoundingClientRect']} rect
   * @property {Element['checkVisibility'] | undefined} checkVisibility absent in older browsers
   * @property {Element['getClientRects']} clientRects
   * @property {(this: Element) => number} scrollHeight
   */
  /** @type {Natives} undefined until natives(), which every query calls before the helpers below read N */
  let N;
  const natives = () => N || (N = {
    qsa: Document.prototype.querySelectorAll,
    qs: Document.prototype.querySelector,
    walker: Document.prototype.createTreeWalker,
    title: getter(Document.prototype, 'title'),
    docEl: getter(Document.prototype, 'documentElement'),
    body: getter(Document.prototype, 'body'),
    forms: getter(Document.prototype, 'forms'),
    formElements: getter(HTMLFormElement.prototype, 'elements'),
    tagName: getter(Element.prototype, 'tagName'),
    attrs: getter(Element.prototype, 'attributes'),
    children: getter(Element.prototype, 'children'),
    getAttr: Element.prototype.getAttribute,
    rect: Element.prototype.getBoundingClientRect,
    checkVisibility: Element.prototype.checkVisibility,
    clientRects: Element.prototype.getClientRects,
    scrollHeight: getter(Element.prototype, 'scrollHeight'),
  });
  const all = (sel) => N.qsa.call(document, sel);
  const tagOf = (el) => String(N.tagName.call(el)).toLowerCase();
  const attr = (el, name) => N.getAttr.call(el, name);

  class QueryError extends Error {
    constructor(code, message) {
      super(message);
      this.code = code;
    }
  }

  // Drops keys whose value is empty: undefined, null, '', [] or {}. Keeps 0 and false.
  function prune(o) {
    for (const k of Object.keys(o)) {
      const v = o[k];
      if (v === undefined || v === null || v === '' ||
          (Array.isArray(v) && !v.length) ||
          (typeof v === 'object' && !Array.isArray(v) && !Object.keys(v).length)) delete o[k];
    }
    return o;
  }

  // Resolves once the DOM is parsed; 'ready' goes to the worker then.
  let domParsed = document.readyState !== 'loading';
  const parsedWaiters = [];
  const whenParsed = () => (domParsed ? Promise.resolve() : new Promise((r) => parsedWaiters.push(r)));

  // Document.prerendering is newer than the DOM types tsc knows.
  const prerendering = () => !!(/** @type {{prerendering?: boolean}} */ (/** @type {unknown} */ (document)).prerendering);

  function sendReady() {
    if (dead()) return;
    if (prerendering()) return; // sent on activation (prerenderingchange)
    try {
      if (!chrome.runtime || !chrome.runtime.id) return shutdown();
      chrome.runtime.sendMessage({ type: 'ready' }).catch((err) => {
        if (invalidated(err)) shutdown();
      });
    } catch (_) {
      shutdown();
    }
  }

  function onParsed() {
    if (domParsed || document.readyState === 'loading') return;
    domParsed = true;
    for (const r of parsedWaiters.splice(0)) r();
    sendReady();
  }

  // Ready now: the worker learns it from its handing-over of the settings (content.js's seed), or
  // content.js's question says it.
  G.readyURL = () => (domParsed && !prerendering() && !dead() ? location.href : '');
  if (!domParsed) {
    // Here when the worker ran this before the parse ended (a load slower than 1 s).
    listen(window, 'DOMContentLoaded', onParsed);
    listen(document, 'readystatechange', onParsed);
  }
  listen(document, 'prerenderingchange', () => { if (domParsed) sendReady(); });
  // Back/forward cache: the tab navigated (the worker saw 'loading') to this same document.
  listen(window, 'pageshow', (e) => { if (e.persisted && domParsed) sendReady(); });

  function onRuntimeMessage(msg, sender, sendResponse) {
    if (dead() || !msg || typeof msg !== 'object' || msg.type !== 'query' || sender.id !== chrome.runtime.id) return false;
    whenParsed().then(() => answer(msg)).then(sendResponse, (err) => {
      sendResponse({ error: { code: 'internal', message: String((err && err.message) || err) } });
    });
    return true;
  }
  chrome.runtime.onMessage.addListener(onRuntimeMessage);
  G.onShutdown(() => chrome.runtime.onMessage.removeListener(onRuntimeMessage));

  function answer(msg) {
    natives(); // every helper below reads N
    const params = msg.params && typeof msg.params === 'object' && !Array.isArray(msg.params) ? msg.params : {};
    try {
      switch (msg.kind) {
        case 'dom': return { result: domQuery(params) };
        case 'page_info': return { result: pageInfo() };
        case 'pilot':
          if (!G.pilot) throw new QueryError('internal', 'the pilot part of the content script is not loaded');
          return { result: G.pilot(params) };
        case 'storage':
          if (!G.storage) throw new QueryError('internal', 'the storage part of the content script is not loaded');
          return G.storage(params).then((result) => ({ result }), errorAnswer);
        case 'act': {
          if (!G.act) throw new QueryError('internal', 'the acting part of the content script is not loaded');
          // Some steps wait (settle, wait_for): their errors come back as the others' do.
          return Promise.resolve(G.act(params)).then((result) => ({ result }), errorAnswer);
        }
        case 'styles':
          if (!G.styles) throw new QueryError('internal', 'the styles part of the content script is not loaded');
          return { result: G.styles(params) };
        default: throw new QueryError('invalid_param', `unknown query kind ${JSON.stringify(msg.kind)}`);
      }
    } catch (err) {
      return errorAnswer(err);
    }
  }

  function errorAnswer(err) {
    if (err instanceof QueryError || (err && typeof err.code === 'string')) return { error: { code: err.code, message: err.message } };
    return { error: { code: 'internal', message: String((err && err.message) || err) } };
  }

  // The element's trimmed textContent cut at `max`, reading only as much of the subtree as that needs
  // (textContent of <body> on a big page is megabytes). → [text, truncated]
  function textOf(el, max) {
    const w = N.walker.call(document, el, NodeFilter.SHOW_TEXT);
    let s = '';
    for (let n = w.nextNode(); n; n = w.nextNode()) {
      s = s ? s + n.data : n.data.trimStart();
      if (s.length > max && s.trimEnd().length > max) return [s.slice(0, max), true];
    }
    return [s.trimEnd(), false];
  }

  const kebab = (p) => (p.startsWith('--') ? p : p.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`));

  function domQuery(p) {
    const selector = typeof p.selector === 'string' ? p.selector.trim() : '';
    if (!selector) throw new QueryError('invalid_param', 'selector is required');
    let list;
    try {
      list = all(selector);
    } catch (err) {
      throw new QueryError('invalid_param', String((err && err.message) || err));
    }
    /** @type {string[] | null} */
    let props = null;
    if (p.include_styles === true) {
      props = DEFAULT_STYLES;
      if (Array.isArray(p.properties) && p.properties.length) {
        props = p.properties.filter((x) => typeof x === 'string' && x.trim()).slice(0, PROPS_MAX).map((x) => x.trim());
      }
    }
    let depth = Math.floor(Number(p.max_depth));
    depth = depth >= 1 ? Math.min(depth, DEPTH_MAX) : DEPTH_DEFAULT; // 0 / absent → the default
    const ctx = { props, depth: p.include_children === true ? depth : 0, budget: NODE_BUDGET, memo: { anchors: new Map(), nth: new Map() } };
    const n = Math.min(list.length, MATCH_MAX);
    const matches = [];
    for (let i = 0; i < n; i++) matches.push(describe(list[i], ctx, 0));
    return prune({
      url: location.href,
      title: N.title.call(document),
      matchCount: list.length,
      returnedCount: n,
      matches,
    });
  }

  function attributesOf(el) {
    const out = {};
    const sensitive = tagOf(el) === 'input' && String(attr(el, 'type') || '').toLowerCase() === 'password';
    for (const a of N.attrs.call(el)) {
      if (sensitive && a.name === 'value') continue;
      out[a.name] = a.value.length > ATTR_MAX ? a.value.slice(0, ATTR_MAX) : a.value;
    }
    return out;
  }

  function stylesOf(el, props) {
    const cs = getComputedStyle(el);
    const out = {};
    for (const p of props) {
      const v = cs.getPropertyValue(kebab(p));
      if (v) out[p] = v;
    }
    return out;
  }

  function isVisible(el, r) {
    if (!(r.width > 0 && r.height > 0)) return false;
    if (typeof N.checkVisibility === 'function') {
      return N.checkVisibility.call(el, {
        checkOpacity: true, checkVisibilityCSS: true, opacityProperty: true, visibilityProperty: true,
      });
    }
    const cs = getComputedStyle(el);
    return cs.display !== 'none' && cs.visibility !== 'hidden' && Number(cs.opacity) !== 0 && N.clientRects.call(el).length > 0;
  }

  // A match (depth 0) or one of its child elements.
  function describe(el, ctx, level) {
    ctx.budget--;
    const out = {};
    if (level === 0) {
      try { out.selector = G.selectorFor(el, ctx.memo); } catch (_) { /* clobbered beyond repair: leave it out */ }
    }
    out.tag = tagOf(el);
    out.attributes = attributesOf(el);
    const [text, truncated] = textOf(el, DOM_TEXT_MAX);
    out.text = text;
    if (truncated) out.textTruncated = true;
    if (level === 0) {
      const r = N.rect.call(el);
      out.boundingBox = { x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height) };
      out.visible = isVisible(el, r);
    }
    if (ctx.props) out.styles = stylesOf(el, ctx.props);
    if (level < ctx.depth) {
      const kids = [];
      for (const c of N.children.call(el)) {
        if (ctx.budget <= 0) {
          out.childrenTruncated = true;
          break;
        }
        kids.push(describe(c, ctx, level + 1));
      }
      out.children = kids;
    }
    return prune(out);
  }

  function pageInfo() {
    const de = N.docEl.call(document);
    const body = N.body.call(document);
    const forms = [];
    for (const f of N.forms.call(document)) {
      if (forms.length >= FORMS_MAX) break;
      const fields = [];
      const seen = new Set();
      for (const c of N.formElements.call(f)) {
        const tag = tagOf(c);
        const type = tag === 'input' || tag === 'button' ? String(attr(c, 'type') || (tag === 'button' ? 'submit' : 'text')).toLowerCase() : tag;
        if (NOT_FIELDS.has(type) || NOT_FIELDS.has(tag)) continue;
        const name = attr(c, 'name') || attr(c, 'id');
        if (!name || seen.has(name)) continue;
        seen.add(name);
        fields.push(name);
        if (fields.length >= FIELDS_MAX) break;
      }
      forms.push(prune({
        id: attr(f, 'id'),
        name: attr(f, 'name'),
        action: attr(f, 'action'),
        method: (attr(f, 'method') || '').toLowerCase(),
        fields,
      }));
    }
    const headings = [];
    for (const h of all('h1,h2,h3,h4,h5,h6')) {
      if (headings.length >= HEADINGS_MAX) break;
      headings.push(prune({ level: Number(tagOf(h).slice(1)), text: G.clean(textOf(h, 4 * HEADING_TEXT_MAX)[0], HEADING_TEXT_MAX) }));
    }
    return prune({
      url: location.href,
      title: N.title.call(document),
      viewport: { width: window.innerWidth, height: window.innerHeight },
      scroll: { x: Math.round(window.scrollX), y: Math.round(window.scrollY) },
      documentHeight: Math.max(de ? N.scrollHeight.call(de) : 0, body ? N.scrollHeight.call(body) : 0),
      forms,
      headings,
      links: all('a[href]').length,
      images: all('img').length,
      interactiveElements: all(INTERACTIVE_COUNT).length,
    });
  }

  G.natives = natives;
  G.QueryError = QueryError;
})();
