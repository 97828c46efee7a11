// analyze styles (the 'styles' query kind): the CSS declarations that apply to an element and its
// ancestors, for the server to order by the cascade (features/styles). In Chromium through the debugger's
// CSS domain (CSS.getMatchedStylesForNode: every origin, user-agent rules included, cross-origin sheets
// too, each declaration's line), attached for the one query and detached after it, holding the tab's
// debugger lock that the AI's scripts and actions hold (sw/script.js), so the two never both attach. In
// Firefox, which has no chrome.debugger, and when another debugger holds the tab (DevTools), the content
// script walks the document's style sheets (content/styles.js).

import { QueryError, errText } from './errors.js';

const DETACH_WAIT_MS = 1000;
const ANCESTORS_MAX = 32;
const DECLS_MAX = 1000;
const VALUE_MAX = 300;
const INLINE_ORDER = 1e9;
const IMPORTANT = /\s*!\s*important\s*$/i;
// CDP's rule origins as the cascade names them.
const ORIGINS = { regular: 'author', inspector: 'author', 'user-agent': 'user-agent', injected: 'user' };

/**
 * @typedef {object} StylesDeps
 * @property {{attach: Function, detach: Function, sendCommand: Function} | null} debugger chrome.debugger; null in Firefox
 * @property {{askContent: Function, settled(tabId: number, job: object): Promise<void>}} documents documents.js's Documents
 * @property {(tabId: number, fn: () => Promise<any>) => Promise<any>} lock one debugger session per tab at a time (sw/script.js's)
 * @property {import('./clock.js').Clock} clock
 */

/**
 * @typedef {object} Header a CSS.styleSheetAdded header, the fields read here
 * @property {string} sourceURL
 * @property {boolean} [isInline]
 * @property {number} [startLine]
 * @property {number} [startColumn]
 */

export class Styles {
  /** @param {StylesDeps} deps */
  constructor(deps) {
    this.d = deps;
    /** @type {Map<number, Map<string, Header>>} tabId → the sheets the attached CSS domain announced */
    this.sessions = new Map();
  }

  /** chrome.debugger.onEvent, registered by background.js: the sheets' headers while a query holds the tab. */
  onDebuggerEvent(source, method, params) {
    const headers = source && this.sessions.get(source.tabId);
    if (headers && method === 'CSS.styleSheetAdded' && params && params.header) headers.set(params.header.styleSheetId, params.header);
  }

  /** Answers query q ({selector, properties}) for tab tabId. */
  async run(tabId, q, p, job) {
    const ask = async (params) => {
      const ans = await this.d.documents.askContent(tabId, { id: q.id, kind: 'styles', params }, job);
      if (!ans) return null; // the query ended meanwhile
      if (ans.error) throw new QueryError(ans.error.code, ans.error.message);
      return ans.result;
    };
    const asked = { selector: p.selector, properties: p.properties };
    await this.d.documents.settled(tabId, job);
    const dbg = this.d.debugger;
    if (!dbg) return wrap(await ask(asked));
    // Bad input (no such element, an unknown property) is found before the debugger is attached.
    const el = await ask({ ...asked, step: 'target' });
    if (!el) return null;
    return this.d.lock(tabId, async () => {
      if (job.done) return null;
      const target = { tabId };
      try {
        await dbg.attach(target, '1.3');
      } catch (err) {
        if (/No tab with/i.test(errText(err))) throw new QueryError('not_found', `tab ${tabId} was closed`);
        return wrap(await ask(asked)); // DevTools or another debugger holds the tab: the sheets, walked
      }
      /** @type {Map<string, Header>} */
      const headers = new Map();
      this.sessions.set(tabId, headers);
      let raw;
      try {
        raw = await this.matched((method, params) => dbg.sendCommand(target, method, params || {}), p, headers, el);
      } finally {
        this.sessions.delete(tabId);
        const { clock } = this.d;
        let timer;
        const wait = new Promise((resolve) => { timer = clock.setTimeout(() => resolve(undefined), DETACH_WAIT_MS); });
        await Promise.race([dbg.detach(target).catch(() => {}), wait]);
        clock.clearTimeout(timer);
      }
      if (!(Array.isArray(p.properties) && p.properties.length)) {
        const c = await ask({ selector: p.selector, properties: raw.props, step: 'computed' });
        if (!c) return null;
        raw.computed = c.computed;
      }
      return { result: raw };
    });
  }

  /**
   * The element's matched styles through the CSS domain, in the shape content/styles.js reports.
   * @param {(method: string, params?: object) => Promise<any>} send
   * @param {{selector: string, properties?: string[]}} p
   * @param {Map<string, Header>} headers
   * @param {{url: string, element: string, ancestors: string[], computed: Record<string, string>}} el
   */
  async matched(send, p, headers, el) {
    await send('DOM.enable');
    await send('CSS.enable'); // announces every sheet (CSS.styleSheetAdded) before it answers
    const doc = await send('DOM.getDocument', { depth: 0 });
    const { nodeId } = await send('DOM.querySelector', { nodeId: doc.root.nodeId, selector: p.selector });
    if (!nodeId) throw new QueryError('not_found', `no element matches ${JSON.stringify(p.selector)}`);
    const m = await send('CSS.getMatchedStylesForNode', { nodeId });
    let layers = [];
    try {
      layers = layerNames((await send('CSS.getLayersForNode', { nodeId })).rootLayer);
    } catch (_) { /* an older Chromium: rules' layers still named, ordered as first seen */ }
    return fromCDP(m, headers, layers, el, p.properties || []);
  }
}

// An answer from the content script's walk.
function wrap(result) {
  return result ? { result } : null;
}

/**
 * The layers' full names in cascade order (a layer's sublayers before it), from CSS.getLayersForNode.
 * @param {{name: string, order: number, subLayers?: any[]}} root
 */
export function layerNames(root) {
  const out = [];
  const visit = (l, prefix) => {
    for (const s of [...(l.subLayers || [])].sort((a, b) => a.order - b.order)) {
      const name = prefix ? `${prefix}.${s.name}` : s.name;
      out.push(name);
      visit(s, name);
    }
  };
  if (root) visit(root, '');
  return out;
}

/**
 * CSS.getMatchedStylesForNode's answer as the server reads it: one declaration per rule and property,
 * the element's node 0, its ancestors 1… (CDP's inherited entries, parent first).
 * @param {any} m
 * @param {Map<string, Header>} headers
 * @param {string[]} layers
 * @param {{url: string, element: string, ancestors: string[], computed: Record<string, string>}} el
 * @param {string[]} asked
 */
export function fromCDP(m, headers, layers, el, asked) {
  /** @type {{url: string, inline?: boolean}[]} */
  const sheets = [];
  const sheetIndex = new Map();
  const sheetOf = (id) => {
    const h = id && headers.get(id);
    if (!h) return undefined;
    if (!sheetIndex.has(id)) {
      sheetIndex.set(id, sheets.length);
      sheets.push(h.isInline ? { url: h.sourceURL || el.url, inline: true } : { url: h.sourceURL });
    }
    return sheetIndex.get(id);
  };
  // Each node's styles: [origin, selector, style, rule] lowest first, as CDP orders them.
  const nodes = [styleList(m.attributesStyle, m.inlineStyle, m.matchedCSSRules)];
  for (const inh of (m.inherited || []).slice(0, ANCESTORS_MAX)) nodes.push(styleList(null, inh.inlineStyle, inh.matchedCSSRules));
  let props = asked;
  if (!props.length) {
    const own = new Set();
    for (const s of nodes[0]) {
      if (s.origin === 'user-agent') continue;
      for (const c of s.style.cssProperties || []) if (c.range && !c.disabled && c.parsedOk !== false) own.add(c.name);
    }
    props = [...own];
  }
  const want = new Set(props);
  const decls = [];
  nodes.forEach((list, node) => {
    list.forEach((s, i) => {
      const sh = sheetOf(s.style.styleSheetId);
      const h = s.style.styleSheetId && headers.get(s.style.styleSheetId);
      for (const [name, c] of effective(s.style, want, s.origin === 'user-agent')) {
        if (decls.length >= DECLS_MAX) return;
        // A written value keeps its '!important' in CDP's answer: the flag says it.
        const important = c.important || IMPORTANT.test(String(c.value));
        const d = { node, p: name, v: String(c.value).replace(IMPORTANT, '').slice(0, VALUE_MAX), o: s.origin, n: s.origin === 'inline' ? INLINE_ORDER : i };
        if (important) d.imp = true;
        if (s.selector) d.sel = s.selector;
        if (s.layer) d.layer = s.layer;
        if (sh !== undefined) {
          d.sh = sh;
          const r = c.range || s.range;
          if (r && h) {
            d.ln = (h.startLine || 0) + r.startLine + 1;
            d.col = (r.startLine === 0 ? h.startColumn || 0 : 0) + r.startColumn + 1;
          }
        }
        decls.push(d);
      }
    });
  });
  return { url: el.url, via: 'cdp', element: el.element, ancestors: el.ancestors, sheets, layers, props, computed: el.computed, decls };
}

// A node's styles, lowest in CDP's order first: presentational attributes, the rules, the style attribute.
function styleList(attrs, inline, rules) {
  const out = [];
  if (attrs) out.push({ origin: 'attribute', style: attrs });
  for (const rm of rules || []) {
    const r = rm.rule;
    const sels = (r.selectorList && r.selectorList.selectors) || [];
    const hit = (rm.matchingSelectors || []).map((i) => sels[i]).filter(Boolean);
    out.push({
      origin: ORIGINS[r.origin] || 'author',
      selector: hit.map((s) => s.text).join(', ') || (r.selectorList && r.selectorList.text) || '',
      // CDP lists a rule's layers innermost first.
      layer: (r.layers || []).map((l) => l.text).reverse().join('.'),
      range: (hit[0] && hit[0].range) || r.style.range,
      style: r.style,
    });
  }
  if (inline) out.push({ origin: 'inline', style: inline });
  return out;
}

/**
 * The declaration of each wanted property that counts within one block: the last, an !important one
 * over any other.
 * @param {any} style
 * @param {Set<string>} want
 * @param {boolean} ua the user agent's block
 * @returns {Map<string, any>}
 */
function effective(style, want, ua) {
  const out = new Map();
  // CDP lists the declarations as written (with a range) and then as parsed (without, the value
  // serialised again): the written one is the declaration; a parsed one counts only alone (a
  // user-agent rule has no text). The user agent's longhands of a system font (a button's
  // `font: -webkit-small-control`) come with an empty value: declared still, their value unknown
  // here (the server shows the computed one when such a declaration wins).
  for (const written of [true, false]) {
    const seen = new Set(out.keys());
    for (const c of style.cssProperties || []) {
      if (!want.has(c.name) || !!c.range !== written || seen.has(c.name) || c.disabled) continue;
      const systemUA = ua && c.value === '';
      if (!systemUA && (c.parsedOk === false || c.value === undefined || c.value === '')) continue;
      const prev = out.get(c.name);
      if (prev && prev.important && !c.important) continue;
      out.set(c.name, c);
    }
  }
  // A longhand asked for that the block sets through its shorthand: at the shorthand's place.
  for (const c of style.cssProperties || []) {
    if (c.disabled || c.parsedOk === false || !Array.isArray(c.longhandProperties)) continue;
    for (const lh of c.longhandProperties) {
      if (want.has(lh.name) && !out.has(lh.name)) out.set(lh.name, { value: lh.value, important: c.important, range: c.range });
    }
  }
  return out;
}
