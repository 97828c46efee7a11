// Gasoline content script, the part after content.js: records the user's actions — clicks, typing
// (debounced; never the value of a password-like field), submits and navigations — with stable
// CSS selectors, and hands them to content.js's batch.
(() => {
  'use strict';

  const G = globalThis.__gasolineContent;
  if (!G || G.parts.has('actions')) return;
  G.parts.add('actions');
  const { listen, accept } = G;
  const scrub = globalThis.__gasolineScrub;
  const INPUT_DEBOUNCE_MS = 500;
  const TEXT_MAX = 100;
  const VALUE_MAX = 200;
  const INTERACTIVE = 'a,button,input,select,textarea,label,summary,option,[role="button"],[role="link"],[role="menuitem"],[role="tab"],[role="checkbox"],[onclick]';

  const actionsOff = () => G.settings() && G.settings().action_replay !== true;
  // content/start.js holds the actions until content.js takes what it held (G.replay below): until
  // then, these listeners leave them to it, so each is recorded once and in order.
  const start = globalThis.__gasolineStart || null;
  const early = () => !!start && !start.taken;
  const clean = (s, n) => String(s || '').replace(/\s+/g, ' ').trim().slice(0, n);

  function looksGenerated(id) {
    return /^\d|:|\d{4,}|[0-9a-f]{8,}|^(ember|react|radix|mui|headlessui|rc-|:r)/i.test(id) ||
      (/\d/.test(id) && /[a-z]/i.test(id) && id.length >= 12 && !/[-_]/.test(id));
  }

  function unique(sel) {
    try {
      return document.querySelectorAll(sel).length === 1;
    } catch (_) {
      return false;
    }
  }

  // Element.prototype's id: a form's field named "id" shadows form.id.
  function idSelector(el) {
    const id = elementAccessors().id.call(el);
    if (!id || looksGenerated(id)) return '';
    const sel = `#${CSS.escape(id)}`;
    return unique(sel) ? sel : '';
  }

  // A stable CSS selector: #id, a test/name attribute, or a short nth-of-type path. memo (a DOM
  // query's, shared by its matches) remembers each ancestor's #id answer and each parent's nth-of-type
  // answers: fifty matches in one list ask the document about their list once, and walk it once.
  /** @param {Element} el @param {SelectorMemo} [memo] */
  function selectorFor(el, memo = { anchors: new Map(), nth: new Map() }) {
    if (!el || el.nodeType !== 1) return '';
    const byId = idSelector(el);
    if (byId) return byId;
    const tag = el.tagName.toLowerCase();
    for (const attr of ['data-testid', 'data-test', 'data-cy', 'name']) {
      const v = el.getAttribute(attr);
      if (!v) continue;
      const sel = `${attr === 'name' ? tag : ''}[${attr}="${CSS.escape(v)}"]`;
      if (unique(sel)) return sel;
    }
    const parts = [];
    /** @type {Element | null} */
    let cur = el;
    while (cur && cur.nodeType === 1) {
      const t = cur.tagName.toLowerCase();
      if (t === 'body' || t === 'html') { parts.unshift(t); break; }
      if (cur !== el) {
        let anchor = memo.anchors.get(cur);
        if (anchor === undefined) {
          anchor = idSelector(cur);
          memo.anchors.set(cur, anchor);
        }
        if (anchor) { parts.unshift(anchor); break; }
      }
      let part = t;
      const parent = cur.parentElement;
      if (parent) part += nthAmong(parent, memo).get(cur) || '';
      parts.unshift(part);
      cur = parent;
    }
    return parts.join(' > ');
  }

  // ':nth-of-type(n)' for each of parent's children that shares its tag with a sibling, else '': one
  // walk of them (kept in memo.nth), with Element.prototype's accessors: a form's named fields shadow its own.
  /** @param {Element} parent @param {SelectorMemo} memo */
  function nthAmong(parent, memo) {
    let out = memo.nth.get(parent);
    if (out) return out;
    const seen = new Map(); // tag → how many of the children so far
    const kids = [];
    const E = elementAccessors();
    for (let c = E.first.call(parent); c; c = E.next.call(c)) {
      const tag = E.tag.call(c);
      const n = (seen.get(tag) || 0) + 1;
      seen.set(tag, n);
      kids.push(c, tag, n);
    }
    out = new Map();
    for (let i = 0; i < kids.length; i += 3) out.set(kids[i], seen.get(kids[i + 1]) > 1 ? `:nth-of-type(${kids[i + 2]})` : '');
    memo.nth.set(parent, out);
    return out;
  }
  /** @typedef {{anchors: Map<Element, string>, nth: Map<Element, Map<Element, string>>}} SelectorMemo */
  // Taken at first use, as content/queries.js takes its own (a load pays for no interface built early).
  /** @type {{first: () => Element | null, next: () => Element | null, tag: () => string, id: () => string} | null} */
  let accessors = null;
  const elementAccessors = () => accessors || (accessors = {
    first: elementGetter('firstElementChild'),
    next: elementGetter('nextElementSibling'),
    tag: elementGetter('tagName'),
    id: elementGetter('id'),
  });
  const elementGetter = (name) => /** @type {NonNullable<PropertyDescriptor['get']>} */ (/** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(Element.prototype, name)).get);

  // What a generated test needs to locate a clicked button or link uniquely (features/testgen): its
  // role, its accessible name where it differs from its text, how many elements of the page share
  // both (matches) and, when more than one, the nearest container in which they are unique and which
  // a locator finds by itself (within). Worked out at a click only: over at most CANDIDATES_MAX
  // elements of the page and SCOPE_DEPTH ancestors.
  const CANDIDATES_MAX = 3000;
  const SCOPE_DEPTH = 12;
  const NAMED_BY_CONTENT = new Set(['button', 'link', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'treeitem', 'checkbox', 'radio', 'switch']);
  const IMPLICIT = { NAV: 'navigation', MAIN: 'main', ASIDE: 'complementary', FORM: 'form', SECTION: 'region', ARTICLE: 'article', DIALOG: 'dialog', UL: 'list', OL: 'list', LI: 'listitem', TR: 'row', TABLE: 'table', FIELDSET: 'group' };
  const CONTAINERS = `${Object.keys(IMPLICIT).join(',')},[role]`;
  const BY_TEXT = new Set(['listitem', 'row', 'article']); // containers a test tells apart by a text they hold
  const norm = (s) => String(s || '').replace(/\s+/g, ' ').trim();
  const explicitRole = (el) => norm(el.getAttribute('role')).split(' ')[0];

  function widgetRole(el) {
    const r = explicitRole(el);
    if (r) return NAMED_BY_CONTENT.has(r) ? r : '';
    const tag = el.tagName;
    if (tag === 'BUTTON') return 'button';
    if (tag === 'INPUT') return ['button', 'submit', 'reset', 'image'].includes(el.type) ? 'button' : '';
    return (tag === 'A' || tag === 'AREA') && el.hasAttribute('href') ? 'link' : '';
  }

  function labelOf(el) {
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      const t = norm(by.split(/\s+/).map((id) => { const r = document.getElementById(id); return r ? r.textContent : ''; }).join(' '));
      if (t) return t;
    }
    return norm(el.getAttribute('aria-label'));
  }

  // The accessible name as a locator compares it: a label, a button input's value, else its text.
  // from: 'label' when it does not come from the element's text.
  function nameOf(el) {
    const label = labelOf(el);
    if (label) return { name: label, from: 'label' };
    if (el.tagName === 'INPUT') {
      const v = norm(el.type === 'image' ? el.getAttribute('alt') : el.value);
      return { name: v || (el.type === 'submit' ? 'Submit' : el.type === 'reset' ? 'Reset' : ''), from: 'label' };
    }
    return { name: norm(el.textContent) || norm(el.getAttribute('title')), from: 'text' };
  }

  function containerRole(el) {
    return explicitRole(el) || IMPLICIT[el.tagName] || '';
  }

  // The container el as a locator finds it on its own, or null: by its role and name, an id or test
  // id, or its role and a text it holds (not the clicked target's), each unique on the page.
  function scopeOf(el, target) {
    const role = containerRole(el);
    let kin = null; // the page's containers of that role, read once
    const all = () => kin || (kin = Array.prototype.filter.call(document.querySelectorAll(CONTAINERS), (c) => containerRole(c) === role));
    const name = role ? labelOf(el) : '';
    if (name && all().filter((c) => labelOf(c) === name).length === 1) return { role, name: clean(name, TEXT_MAX) };
    const sel = selectorFor(el);
    if (sel && !sel.includes(' ')) return { selector: sel };
    if (!BY_TEXT.has(role)) return null;
    const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(), tries = 0; n && tries < 5; n = walk.nextNode()) {
      const t = clean(/** @type {Text} */ (n).data, 60);
      if (!t || target.contains(n)) continue;
      tries++;
      const low = t.toLowerCase();
      let hits = 0;
      for (const c of all()) if (norm(c.textContent).toLowerCase().includes(low) && ++hits > 1) break;
      if (hits === 1) return { role, text: t };
    }
    return null;
  }

  function locating(el, text) {
    const role = widgetRole(el);
    if (!role) return null;
    const { name, from } = nameOf(el);
    if (!name) return null;
    const out = { role, matches: 1 };
    if (from === 'label' && clean(name, TEXT_MAX) !== text) out.name = clean(name, TEXT_MAX);
    const candidates = document.querySelectorAll('button,input,a[href],area[href],[role]');
    if (candidates.length > CANDIDATES_MAX) {
      out.matches = CANDIDATES_MAX; // not counted: the recorded selector locates it
      return out;
    }
    const same = Array.prototype.filter.call(candidates, (c) => c !== el && widgetRole(c) === role && nameOf(c).name === name);
    out.matches += same.length;
    if (!same.length) return out;
    let cur = el.parentElement;
    for (let d = 0; cur && d < SCOPE_DEPTH && cur !== document.body; cur = cur.parentElement, d++) {
      if (same.some((c) => cur.contains(c))) break; // here and above, the name is not unique
      const within = scopeOf(cur, el);
      if (within) {
        out.within = within;
        break;
      }
    }
    return out;
  }

  // The one rule (generated from Go): a password input, or a secret name, id or autocomplete.
  function isSensitive(el) {
    const attr = (a) => (el.getAttribute && el.getAttribute(a)) || '';
    return scrub.isSecretField(el.type, attr('name'), attr('id'), attr('autocomplete'));
  }

  function visibleText(el) {
    const tag = el.tagName.toLowerCase();
    if (tag === 'input') {
      const type = String(el.type || '').toLowerCase();
      if (['button', 'submit', 'reset'].includes(type)) return clean(el.value, TEXT_MAX);
      return clean(el.getAttribute('aria-label') || '', TEXT_MAX);
    }
    if (tag === 'textarea' || tag === 'select' || tag === 'body' || tag === 'html') {
      return clean(el.getAttribute('aria-label') || '', TEXT_MAX);
    }
    return clean(el.innerText || el.textContent || el.getAttribute('aria-label') || el.getAttribute('title') || '', TEXT_MAX);
  }

  // The AI's actions (content/act.js) are recorded as the human's are, marked as the AI's. Events it
  // dispatches itself (Firefox) are not trusted: they count only while it dispatches them.
  const aiActing = () => !!G.aiActing && G.aiActing();
  const person = (e) => e.isTrusted || G.aiDispatching === true;

  function record(data, quiet) {
    data.ts = data.ts || Date.now();
    if (data.type !== 'navigation' && aiActing()) data.source = 'ai';
    accept('action', data, quiet);
  }

  function click(t, ts) {
    if (t && t.nodeType !== 1) t = t.parentElement;
    if (!t || !t.closest) return;
    const el = t.closest(INTERACTIVE) || t;
    // A value typed before this click is recorded before it, at its last keystroke's time, whether
    // or not the click takes the focus (a 'change'): the test fills, then clicks.
    flushInputs();
    const data = { type: 'click', selector: selectorFor(el), ts };
    const text = visibleText(el);
    if (text) data.text = text;
    Object.assign(data, locating(el, text));
    record(data);
  }

  listen(document, 'click', (e) => {
    try {
      if (!person(e) || actionsOff() || early()) return;
      click(e.target);
    } catch (_) { /* ignore */ }
  });

  // Input: debounced per element, flushed at once on 'change' and before a click, a key or a submit;
  // recorded with the time of its last keystroke.
  const inputTimers = new Map(); // element → {timer, ts: the last keystroke's time}
  const lastRecorded = new WeakMap(); // element → fingerprint of the last recorded value

  function fieldOf(t) {
    if (!t || t.nodeType !== 1) return null;
    const tag = t.tagName.toLowerCase();
    if (tag === 'input' || tag === 'textarea' || tag === 'select') return t;
    if (t.isContentEditable) return t;
    return null;
  }

  function inputType(el) {
    const tag = el.tagName.toLowerCase();
    if (tag === 'input' || tag === 'select') return String(el.type || tag).toLowerCase();
    if (tag === 'textarea') return 'textarea';
    return 'contenteditable';
  }

  function rawValue(el) {
    const type = inputType(el);
    if (type === 'checkbox' || type === 'radio') return el.checked ? 'true' : 'false';
    if (type === 'contenteditable') return el.innerText || '';
    if (type === 'file') return Array.from(el.files || [], (f) => f.name).join(', ');
    return String(el.value == null ? '' : el.value);
  }

  function fingerprint(s) {
    let h = 2166136261;
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
    return `${s.length}:${h >>> 0}`;
  }

  // held: the value content/start.js read at the event (undefined: read it now), ts its time.
  function recordInput(el, ts, held) {
    const t = inputTimers.get(el);
    if (t) clearTimeout(t.timer);
    inputTimers.delete(el);
    if (t && !ts) ts = t.ts;
    if (actionsOff() || (held === undefined && !el.isConnected)) return;
    const raw = typeof held === 'string' ? held : rawValue(el);
    const fp = fingerprint(raw);
    if (lastRecorded.get(el) === fp) return;
    lastRecorded.set(el, fp);
    const data = { type: 'input', selector: selectorFor(el), input_type: inputType(el), ts };
    if (!isSensitive(el)) data.value = raw.length > VALUE_MAX ? `${raw.slice(0, VALUE_MAX)}…` : raw;
    record(data);
  }

  function flushInputs() {
    for (const el of Array.from(inputTimers.keys())) recordInput(el);
  }

  function typed(t, ts) {
    const el = fieldOf(t);
    if (!el) return;
    const type = inputType(el);
    if (type === 'checkbox' || type === 'radio' || type.startsWith('select')) return; // 'change' records these
    const prev = inputTimers.get(el);
    if (prev) clearTimeout(prev.timer);
    inputTimers.set(el, { timer: setTimeout(() => { try { recordInput(el); } catch (_) { /* ignore */ } }, INPUT_DEBOUNCE_MS), ts: ts || Date.now() });
  }

  function changed(t, ts, held) {
    const el = fieldOf(t);
    if (el) recordInput(el, ts, held);
  }

  function submitted(form, ts) {
    flushInputs();
    if (!form || form.nodeType !== 1) return;
    const data = { type: 'submit', selector: selectorFor(form), ts };
    const text = clean(form.getAttribute('aria-label') || form.getAttribute('name') || '', TEXT_MAX);
    if (text) data.text = text;
    record(data);
  }

  // Enter in a one-line field (a form's submit follows it, which the generated test leaves to the
  // press) and Escape anywhere; Enter on a button or a link is its click.
  function pressed(t, key, ts) {
    if (key !== 'Escape' && !(key === 'Enter' && t && t.nodeType === 1 && t.tagName === 'INPUT')) return;
    flushInputs();
    const data = { type: 'keypress', text: key, ts };
    if (t && t.nodeType === 1) data.selector = selectorFor(t);
    record(data);
  }

  listen(document, 'input', (e) => {
    try {
      if (!person(e) || actionsOff() || early()) return;
      typed(e.target);
    } catch (_) { /* ignore */ }
  });

  listen(document, 'change', (e) => {
    try {
      if (!person(e) || actionsOff() || early()) return;
      changed(e.target);
    } catch (_) { /* ignore */ }
  });

  listen(document, 'submit', (e) => {
    try {
      // A page's own dispatchEvent is not the human's, nor its requestSubmit() with no click or key just
      // before; the AI's own dispatch (content/act.js) is the AI's.
      const activated = !navigator.userActivation || navigator.userActivation.isActive;
      if (!(G.aiDispatching === true || (e.isTrusted && activated)) || actionsOff() || early()) return;
      submitted(e.target);
    } catch (_) { /* ignore */ }
  });

  listen(document, 'keydown', (e) => {
    try {
      if (!person(e) || (e.key !== 'Enter' && e.key !== 'Escape') || actionsOff() || early()) return;
      pressed(e.target, e.key);
    } catch (_) { /* ignore */ }
  });

  // An action content/start.js held ({act, el, ts, v, key}), as the listeners above would have
  // recorded it then; content.js hands them over in their order.
  G.replay = (a) => {
    try {
      if (actionsOff()) return;
      if (a.act === 'click') click(a.el, a.ts);
      else if (a.act === 'input') typed(a.el, a.ts);
      else if (a.act === 'change') changed(a.el, a.ts, a.v);
      else if (a.act === 'submit') submitted(a.el, a.ts);
      else if (a.act === 'keydown') pressed(a.el, a.key, a.ts);
    } catch (_) { /* ignore */ }
  };

  // Navigation: the initial load, popstate/hashchange here, push/replaceState via inject.js.
  let lastNavURL = '';
  function navigation(url, ts, quiet, load) {
    if (typeof url !== 'string' || !url || url === lastNavURL) return;
    lastNavURL = url;
    const data = { type: 'navigation', url, ts: typeof ts === 'number' ? ts : Date.now() };
    if (load) data.load = true; // the document's own load, not a pushState or a hash change
    record(data, quiet);
  }
  G.navigation = navigation;
  // content.js calls this when it takes inject.js's link (a page opened before the extension has no
  // inject.js and was not navigated under our watch): the document's own URL and start, before the
  // pushState calls start.js held since then. It goes with the next event (content.js's accept).
  G.firstNavigation = () => {
    const nav = performance.getEntriesByType('navigation')[0];
    navigation(nav && nav.name ? nav.name : location.href, Math.round(performance.timeOrigin), true, true);
  };
  listen(window, 'popstate', () => navigation(location.href));
  listen(window, 'hashchange', () => navigation(location.href));

  // Leaving the page: send what is buffered now rather than in 50 ms.
  listen(window, 'pagehide', () => {
    try {
      flushInputs();
      G.flush();
    } catch (_) { /* ignore */ }
  });

  G.selectorFor = selectorFor;
  G.clean = clean;
  G.flushInputs = flushInputs;
})();
