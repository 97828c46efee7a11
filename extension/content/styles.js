// Gasoline content script, part 6 (after content/act.js): the 'styles' query kind — the CSS declarations
// that apply to an element and to its ancestors, for analyze styles. The server orders the cascade
// (features/styles); this reports what applies. In Chromium the worker reads them through the debugger's
// CSS domain (sw/styles.js) and asks here only for the element (step 'target') and its computed values
// (step 'computed'); in Firefox, and when another debugger holds the tab, this walks the document's style
// sheets itself: the rules that match, with the layer, !important and order of each; user-agent rules
// and cross-origin sheets the page may not read are out of its sight (the latter named as unreadable).
(() => {
  'use strict';

  const G = globalThis.__gasolineContent;
  if (!G || G.parts.has('styles') || !G.natives) return;
  G.parts.add('styles');
  const { natives, QueryError } = G;

  const ANCESTORS_MAX = 32;
  const PROPS_MAX = 20;
  const DECLS_MAX = 1000;
  const RULES_MAX = 20000; // rules looked at in one walk: a page's sheets are its to make huge
  const NAME_MAX = 100;
  const VALUE_MAX = 300;
  const INLINE_ORDER = 1e9; // the style attribute is element-attached: after every rule

  /**
   * @param {{step?: string, selector?: string, properties?: unknown[]}} p
   * @returns {object}
   */
  function styles(p) {
    const el = target(p.selector);
    const props = checkProps(p.properties);
    const chain = ancestorsOf(el);
    const named = { url: location.href, element: nameOf(el), ancestors: chain.slice(1).map(nameOf) };
    if (p.step === 'target') return { ...named, computed: computed(el, props) };
    if (p.step === 'computed') return { computed: computed(el, props) };
    return { ...named, ...walk(chain, props), via: 'sheets' };
  }

  function target(selector) {
    const sel = typeof selector === 'string' ? selector.trim() : '';
    if (!sel) throw new QueryError('invalid_param', 'selector is required');
    let el;
    try {
      el = natives().qs.call(document, sel);
    } catch (err) {
      throw new QueryError('invalid_param', String((err && err.message) || err));
    }
    if (!el) throw new QueryError('not_found', `no element matches ${JSON.stringify(sel)}`);
    return el;
  }

  // The properties asked for, each one the browser knows (every property accepts 'inherit').
  function checkProps(list) {
    const out = [];
    for (const x of Array.isArray(list) ? list.slice(0, PROPS_MAX) : []) {
      const name = typeof x === 'string' ? x.trim() : '';
      if (!name || !CSS.supports(name, 'inherit')) throw new QueryError('invalid_param', `${JSON.stringify(name)} is not a CSS property this browser knows`);
      out.push(name);
    }
    return out;
  }

  // The element, then its ancestors nearest first (across shadow roots to their hosts).
  function ancestorsOf(el) {
    const out = [el];
    for (let n = el; out.length <= ANCESTORS_MAX;) {
      const root = n.parentNode;
      n = n.parentElement || (root && root.nodeType === 11 ? /** @type {ShadowRoot} */ (root).host : null);
      if (!n) break;
      out.push(n);
    }
    return out;
  }

  // Read with Element's own methods (queries.js's natives): a form's field named "id" is what form.id
  // reads in Chromium's worlds.
  function nameOf(el) {
    const N = natives();
    let s = String(N.tagName.call(el)).toLowerCase();
    const id = N.getAttr.call(el, 'id');
    if (id) s += `#${id}`;
    for (const c of Array.from(el.classList).slice(0, 3)) s += `.${c}`;
    return s.slice(0, NAME_MAX);
  }

  function computed(el, props) {
    const cs = getComputedStyle(el);
    /** @type {Record<string, string>} */
    const out = {};
    for (const p of props) out[p] = cs.getPropertyValue(p).slice(0, VALUE_MAX);
    return out;
  }

  // The walk: every rule of every sheet in document order (imports where they are imported), the
  // ones that match the element or an ancestor kept, then their declarations of the properties.
  function walk(chain, asked) {
    /** @type {{url: string, inline?: boolean}[]} */
    const sheets = [];
    /** @type {string[]} */
    const unreadable = [];
    /** @type {string[]} */
    const layers = [];
    const matched = []; // {style, node, sel, st, nth, sheet, layer, order}
    let order = 0;
    let looked = 0;
    let anon = 0;
    const inLayer = (outer, name) => {
      const full = outer ? `${outer}.${name || `(anonymous ${++anon})`}` : (name || `(anonymous ${++anon})`);
      if (!layers.includes(full)) layers.push(full);
      return full;
    };
    const mediaOK = (m) => !m || !m.mediaText || matchMedia(m.mediaText).matches;

    function visitSheet(sheet, layer) {
      if (sheet.disabled || !mediaOK(sheet.media)) return;
      let rules;
      try {
        rules = sheet.cssRules;
      } catch (_) {
        if (sheet.href && !unreadable.includes(sheet.href)) unreadable.push(sheet.href);
        return;
      }
      const idx = sheets.length;
      sheets.push(sheet.href ? { url: sheet.href } : { url: location.href, inline: true });
      visitRules(rules, idx, layer, new Map());
    }

    function visitRules(rules, idx, layer, seen) {
      for (const rule of Array.from(rules)) {
        if (++looked > RULES_MAX) return;
        const r = /** @type {any} */ (rule);
        if (r.type === 1) { // a style rule
          const st = r.selectorText;
          const nth = seen.get(st) || 0;
          seen.set(st, nth + 1);
          order++;
          const parts = splitList(st);
          for (let node = 0; node < chain.length; node++) {
            const hit = parts.filter((s) => matches(chain[node], s));
            if (hit.length) matched.push({ style: r.style, node, sel: hit.join(', '), st, nth, sheet: idx, layer, order });
          }
        } else if (r.type === 3) { // @import, perhaps into a layer
          if (r.styleSheet) visitSheet(r.styleSheet, typeof r.layerName === 'string' ? inLayer(layer, r.layerName) : layer);
        } else if (r.type === 4) { // @media
          if (mediaOK(r.media)) visitRules(r.cssRules, idx, layer, seen);
        } else if (r.type === 12) { // @supports
          if (CSS.supports(r.conditionText)) visitRules(r.cssRules, idx, layer, seen);
        } else if (Array.isArray(r.nameList) || (r.nameList && typeof r.nameList.length === 'number')) { // @layer a, b;
          for (const n of Array.from(r.nameList)) inLayer(layer, String(n));
        } else if (r.type === 0 && typeof r.name === 'string' && r.cssRules && !('conditionText' in r)) { // @layer a { … }
          visitRules(r.cssRules, idx, inLayer(layer, r.name), seen);
        }
        // @container is not evaluated here (nothing says whether it applies), nor nested style rules.
      }
    }

    for (const s of Array.from(document.styleSheets)) visitSheet(s, '');
    let adopted = [];
    try {
      adopted = Array.from(document.adoptedStyleSheets || []); // after the document's own, as they cascade
    } catch (_) { /* a browser that keeps them from content scripts */ }
    for (const s of adopted) visitSheet(s, '');

    // Without properties asked: the ones the element's own rules and style attribute declare.
    let props = asked;
    if (!props.length) {
      const own = new Set();
      for (const m of matched) if (m.node === 0) for (const n of declared(m.style)) own.add(n);
      for (const n of declared(chain[0].style)) own.add(n);
      props = [...own];
    }
    const decls = [];
    const add = (d) => { if (decls.length < DECLS_MAX) decls.push(d); };
    for (const m of matched) {
      for (const p of props) {
        const v = m.style.getPropertyValue(p);
        if (!v) continue;
        const d = { node: m.node, p, v: v.slice(0, VALUE_MAX), o: 'author', sel: m.sel, st: m.st, k: m.nth, sh: m.sheet, n: m.order };
        if (m.style.getPropertyPriority(p) === 'important') d.imp = true;
        if (m.layer) d.layer = m.layer;
        add(d);
      }
    }
    chain.forEach((el, node) => {
      for (const p of props) {
        const v = el.style && el.style.getPropertyValue(p);
        if (v) add({ node, p, v: v.slice(0, VALUE_MAX), o: 'inline', n: INLINE_ORDER, ...(el.style.getPropertyPriority(p) === 'important' ? { imp: true } : {}) });
      }
    });
    const out = { sheets, layers, props, computed: computed(chain[0], props), decls };
    if (unreadable.length) out.unreadable = unreadable;
    return out;
  }

  // The names a declaration block declares, as written back by the browser (shorthands kept whole).
  function declared(style) {
    const out = [];
    for (const part of String((style && style.cssText) || '').split(';')) {
      const name = part.split(':')[0].trim().toLowerCase();
      if (/^(--[\w-]+|-?[a-z][a-z0-9-]*)$/.test(name) && part.includes(':')) out.push(name);
    }
    return out;
  }

  function matches(el, sel) {
    try {
      return el.matches(sel);
    } catch (_) {
      return false; // a pseudo-element, or what this browser cannot match
    }
  }

  // A selector list split at its top-level commas.
  function splitList(list) {
    const out = [];
    let depth = 0;
    let start = 0;
    let quote = '';
    for (let i = 0; i < list.length; i++) {
      const c = list[i];
      if (c === '\\') i++;
      else if (quote) { if (c === quote) quote = ''; } else if (c === '"' || c === "'") quote = c;
      else if (c === '(' || c === '[') depth++;
      else if (c === ')' || c === ']') depth--;
      else if (c === ',' && depth === 0) {
        out.push(list.slice(start, i).trim());
        start = i + 1;
      }
    }
    out.push(list.slice(start).trim());
    return out.filter(Boolean);
  }

  G.styles = styles;
})();
