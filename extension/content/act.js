// Gasoline content script, part 5 (after content/pilot.js): the AI's actions in the page — the 'act'
// query kind. It finds a target (a CSS selector, visible text or accessible name, or a ref from the
// interactive list), checks it may be acted on, brings it into view and says where to press; the
// worker then sends real input through chrome.debugger (Chromium) or asks this file to dispatch the
// events itself (Firefox, and select/scroll everywhere). Then it waits for the page to settle and
// reports the target's state. The worker checks the pilot switch before every step.
(() => {
  'use strict';

  const G = globalThis.__gasolineContent;
  if (!G || G.parts.has('act') || !G.natives || !G.quiet) return;
  G.parts.add('act');
  const { QueryError } = G;
  const scrub = globalThis.__gasolineScrub;

  const LIST_MAX = 200;
  const NAME_MAX = 100;
  const VALUE_MAX = 100;
  const CANDIDATES_MAX = 5;
  const REFS_MAX = 5000; // refs remembered in this document; the oldest are forgotten past it
  const SETTLE_MAX_MS = 2000;
  const WAIT_MAX_MS = 30000;
  const AI_MARK_MS = 5000; // the AI's mark on recorded actions outlives a lost 'settle' no longer
  const ACTIONABLE = 'a[href],button,input:not([type=hidden]),select,textarea,summary,[contenteditable=""],' +
    '[contenteditable=true],[role=button],[role=link],[role=checkbox],[role=radio],[role=tab],[role=menuitem],' +
    '[role=menuitemcheckbox],[role=menuitemradio],[role=option],[role=switch],[role=combobox],[role=textbox],' +
    '[role=searchbox],[role=slider],[role=spinbutton],[role=treeitem],[tabindex]:not([tabindex="-1"])';

  // A ref names one element of this document: its key, then a number. A ref of another document (the
  // page reloaded or navigated) is refused as such, never matched to a new element by chance.
  const DOC = Math.random().toString(36).slice(2, 6);
  let nextRef = 0;
  const refs = new Map(); // number → WeakRef(element), oldest first
  const refOf = new WeakMap(); // element → ref

  function refFor(el) {
    let r = refOf.get(el);
    if (r) return r;
    nextRef++;
    r = `${DOC}${nextRef}`;
    refOf.set(el, r);
    refs.set(nextRef, new WeakRef(el));
    if (refs.size > REFS_MAX) refs.delete(refs.keys().next().value);
    return r;
  }

  const clean = (s, n) => String(s || '').replace(/\s+/g, ' ').trim().slice(0, n);
  const tagOf = (el) => el.tagName.toLowerCase();
  const attr = (el, a) => el.getAttribute(a) || '';

  const IMPLICIT = {
    a: 'link', button: 'button', select: 'combobox', textarea: 'textbox', summary: 'button', option: 'option',
  };
  const INPUT_ROLES = {
    checkbox: 'checkbox', radio: 'radio', submit: 'button', button: 'button', reset: 'button', image: 'button',
    range: 'slider', number: 'spinbutton', search: 'searchbox',
  };

  function roleOf(el) {
    const explicit = attr(el, 'role').trim().split(/\s+/)[0];
    if (explicit) return explicit;
    const tag = tagOf(el);
    if (tag === 'input') return INPUT_ROLES[String(el.type || '').toLowerCase()] || 'textbox';
    if (tag === 'select' && (el.multiple || el.size > 1)) return 'listbox';
    if (IMPLICIT[tag]) return IMPLICIT[tag];
    if (el.isContentEditable) return 'textbox';
    return tag;
  }

  // The accessible name, as far as a page's usual markup goes: aria-labelledby, aria-label, a label,
  // a button's value, the element's text, an image's alt, placeholder, title.
  function nameOf(el) {
    const ids = attr(el, 'aria-labelledby').trim();
    if (ids) {
      const t = ids.split(/\s+/).map((id) => { const n = document.getElementById(id); return n ? n.textContent : ''; }).join(' ');
      if (clean(t, NAME_MAX)) return clean(t, NAME_MAX);
    }
    const label = attr(el, 'aria-label');
    if (clean(label, NAME_MAX)) return clean(label, NAME_MAX);
    const tag = tagOf(el);
    if (tag === 'input' || tag === 'select' || tag === 'textarea') {
      const type = String(el.type || '').toLowerCase();
      if (tag === 'input' && ['submit', 'button', 'reset'].includes(type)) return clean(el.value || (type === 'submit' ? 'Submit' : ''), NAME_MAX);
      if (tag === 'input' && type === 'image') return clean(attr(el, 'alt'), NAME_MAX);
      const labels = el.labels ? Array.from(el.labels, (l) => l.innerText || l.textContent).join(' ') : '';
      return clean(labels, NAME_MAX) || clean(attr(el, 'placeholder'), NAME_MAX) || clean(attr(el, 'title'), NAME_MAX);
    }
    const text = clean(el.innerText || el.textContent, NAME_MAX);
    if (text) return text;
    const img = el.querySelector && el.querySelector('img[alt]');
    return clean(img ? attr(img, 'alt') : '', NAME_MAX) || clean(attr(el, 'title'), NAME_MAX);
  }

  const secret = (el) => scrub.isSecretField(el.type, attr(el, 'name'), attr(el, 'id'), attr(el, 'autocomplete'));

  // What the element holds now, never a secret field's value.
  function stateOf(el) {
    const out = {};
    const tag = tagOf(el);
    const type = String(el.type || '').toLowerCase();
    if (tag === 'input' && (type === 'checkbox' || type === 'radio')) out.checked = !!el.checked;
    else if (tag === 'select') {
      const o = el.selectedOptions && el.selectedOptions[0];
      if (o) out.value = clean(o.label || o.text, VALUE_MAX);
    } else if (tag === 'input' || tag === 'textarea' || el.isContentEditable) {
      if (secret(el)) out.value_hidden = true;
      else {
        const v = String(tag === 'input' || tag === 'textarea' ? el.value : el.innerText || '');
        out.value = v.length > VALUE_MAX ? `${v.slice(0, VALUE_MAX)}…` : v;
      }
    }
    return out;
  }

  function visible(el, r) {
    if (typeof el.checkVisibility === 'function') {
      if (!el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return false;
    }
    return r.width > 0 && r.height > 0;
  }

  const inViewport = (r) => r.bottom > 0 && r.right > 0 && r.top < window.innerHeight && r.left < window.innerWidth;
  const disabled = (el) => el.disabled === true || attr(el, 'aria-disabled') === 'true';

  function describe(el) {
    const d = { ref: refFor(el), role: roleOf(el) };
    const name = nameOf(el);
    if (name) d.name = name;
    const sel = G.selectorFor ? G.selectorFor(el) : '';
    if (sel) d.selector = sel;
    return d;
  }

  // analyze{target:"interactive"}: the actionable elements in document order, at most LIST_MAX from
  // `after` (the index the last page ended at).
  function interactive(p) {
    const all = document.querySelectorAll(ACTIONABLE);
    const from = Math.max(0, Math.floor(Number(p.after) || 0));
    const elements = [];
    let i = from;
    for (; i < all.length && elements.length < LIST_MAX; i++) {
      const el = all[i];
      const r = el.getBoundingClientRect();
      const d = describe(el);
      Object.assign(d, stateOf(el));
      if (!visible(el, r)) d.visible = false;
      else if (!inViewport(r)) d.in_viewport = false;
      if (disabled(el)) d.disabled = true;
      elements.push(d);
    }
    const out = { url: location.href, title: document.title, count: all.length, elements };
    if (i < all.length) out.next = i;
    return out;
  }

  function byRef(ref) {
    const m = /^([a-z0-9]{4})(\d+)$/.exec(ref);
    const el = m && m[1] === DOC ? refs.get(Number(m[2]))?.deref() : undefined;
    if (!el || !el.isConnected) {
      throw new QueryError('not_found', `ref ${ref} is not on the page: the page changed since it was listed; call analyze{target:"interactive"} again`);
    }
    return el;
  }

  function bySelector(sel) {
    let list;
    try {
      list = document.querySelectorAll(sel);
    } catch (err) {
      throw new QueryError('invalid_param', `selector ${JSON.stringify(sel)} is not valid CSS: ${String((err && err.message) || err)}`);
    }
    if (!list.length) throw new QueryError('not_found', `no element matches selector ${JSON.stringify(sel)}`);
    for (const el of list) if (visible(el, el.getBoundingClientRect())) return el;
    return list[0];
  }

  // Visible text or accessible name: exact (case and spacing aside) among actionable elements, then
  // among any elements by their own text, then contained. Several → the AI must choose.
  function byText(text) {
    const want = clean(text, 10000).toLowerCase();
    const actionable = Array.from(document.querySelectorAll(ACTIONABLE));
    const norm = (s) => clean(s, 10000).toLowerCase();
    let found = actionable.filter((el) => norm(nameOf(el)) === want || norm(/** @type {HTMLElement} */ (el).innerText) === want);
    if (!found.length) {
      // Innermost elements whose own text is the text: a label, a heading, a div with an onclick.
      const body = document.body || document.documentElement;
      const w = document.createTreeWalker(body, NodeFilter.SHOW_ELEMENT);
      for (let n = w.nextNode(); n && found.length < 50; n = w.nextNode()) {
        const el = /** @type {HTMLElement} */ (n);
        if (norm(el.innerText) !== want) continue;
        found = found.filter((f) => !f.contains(el));
        found.push(el);
      }
    }
    if (!found.length) found = actionable.filter((el) => norm(nameOf(el)).includes(want));
    if (!found.length) throw new QueryError('not_found', `no element shows the text ${JSON.stringify(text)}`);
    const shown = found.filter((el) => visible(el, el.getBoundingClientRect()));
    if (shown.length) found = shown;
    if (found.length > 1) {
      const c = found.slice(0, CANDIDATES_MAX).map((el) => describe(el));
      throw new QueryError('invalid_param', `text ${JSON.stringify(text)} matches ${found.length} elements; pass one's ref (or a selector): ${JSON.stringify(c)}`);
    }
    return found[0];
  }

  function target(p) {
    if (typeof p.ref === 'string' && p.ref) return byRef(p.ref);
    if (typeof p.selector === 'string' && p.selector.trim()) return bySelector(p.selector.trim());
    if (typeof p.text === 'string' && p.text.trim()) return byText(p.text);
    throw new QueryError('invalid_param', 'give a target: selector, text or ref');
  }

  // What covers the target's centre, if it is not the target itself (or inside it, or its label).
  function covering(el, x, y) {
    const top = document.elementFromPoint(x, y);
    if (!top || top === el || el.contains(top) || top.contains(el)) return null;
    if (el.labels && Array.from(el.labels).some((l) => l === top || l.contains(top))) return null;
    return top;
  }

  function nameForError(el) {
    const d = describe(el);
    return `${d.role}${d.name ? ` ${JSON.stringify(d.name)}` : ''}${d.selector ? ` (${d.selector})` : ''}`;
  }

  // ---- the AI's mark on what the listeners record ----------------------------------------
  let aiUntil = 0;
  G.aiActing = () => Date.now() < aiUntil;
  const markAI = () => { aiUntil = Date.now() + AI_MARK_MS; };

  // ---- prepare: the target found, checked, in view; where to press --------------------------
  function prepare(p) {
    const action = p.action;
    const el = target(p);
    const tag = tagOf(el);
    if (action === 'type' || action === 'select') {
      if (tag === 'input' && String(el.type || '').toLowerCase() === 'file') {
        throw new QueryError('forbidden', `${nameForError(el)} is a file picker: the AI never picks a file`);
      }
      if (secret(el)) {
        const field = attr(el, 'name') || attr(el, 'id') || attr(el, 'autocomplete') || String(el.type);
        throw new QueryError('forbidden', `${nameForError(el)} is a secret field (${field}): the AI never types a secret; ask the human to fill it`);
      }
    }
    if (action === 'type' && !(tag === 'input' || tag === 'textarea' || el.isContentEditable)) {
      throw new QueryError('not_actionable', `${nameForError(el)} is not a text field`);
    }
    if (action === 'select' && tag !== 'select') throw new QueryError('not_actionable', `${nameForError(el)} is not a select`);
    if (action !== 'hover' && action !== 'scroll' && disabled(el)) throw new QueryError('not_actionable', `${nameForError(el)} is disabled`);
    if (p.dry) return { target: describe(el) }; // for the human's approval: nothing moved yet
    let r = el.getBoundingClientRect();
    if (!inViewport(r) || action === 'scroll') {
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      r = el.getBoundingClientRect();
    }
    const out = { target: describe(el), x: Math.round(r.left + r.width / 2), y: Math.round(r.top + r.height / 2) };
    if (action === 'scroll') return out;
    if (!visible(el, r)) throw new QueryError('not_actionable', `${nameForError(el)} is not visible`);
    const top = action === 'select' ? null : covering(el, out.x, out.y);
    if (top) throw new QueryError('not_actionable', `${nameForError(el)} is covered by ${nameForError(top)}`);
    markAI();
    watchChanges();
    if (action === 'type' || action === 'press_key') {
      el.focus({ preventScroll: true });
      if (action === 'type' && p.clear !== false) selectAll(el);
      else if (action === 'type') caretToEnd(el);
    }
    return out;
  }

  function selectAll(el) {
    if (typeof el.select === 'function') el.select();
    else {
      const range = document.createRange();
      range.selectNodeContents(el);
      const s = getSelection();
      if (s) { s.removeAllRanges(); s.addRange(range); }
    }
  }

  function caretToEnd(el) {
    if (typeof el.setSelectionRange === 'function' && typeof el.value === 'string') {
      try { el.setSelectionRange(el.value.length, el.value.length); } catch (_) { /* not a text type */ }
    }
  }

  // ---- perform: the events dispatched from here (Firefox; select and scroll everywhere) ------------
  const mouse = (el, type, x, y) => el.dispatchEvent(new MouseEvent(type, {
    bubbles: true, cancelable: true, composed: true, view: window, clientX: x, clientY: y, button: 0,
  }));

  function key(el, type, k) {
    return el.dispatchEvent(new KeyboardEvent(type, {
      key: k.key, code: k.code, bubbles: true, cancelable: true, composed: true,
      ctrlKey: k.ctrl, shiftKey: k.shift, altKey: k.alt, metaKey: k.meta,
    }));
  }

  function pressHere(el, k) {
    if (!key(el, 'keydown', k)) return key(el, 'keyup', k);
    if (k.key === 'Enter' && tagOf(el) === 'input' && el.form) {
      if (typeof el.form.requestSubmit === 'function') el.form.requestSubmit();
      else el.form.submit();
    } else if (k.key === 'Enter' && (tagOf(el) === 'button' || tagOf(el) === 'a')) el.click();
    else if (k.key === 'Tab') focusNext(el, k.shift ? -1 : 1);
    else if (k.key === 'a' && (k.ctrl || k.meta)) selectAll(el);
    return key(el, 'keyup', k);
  }

  function focusNext(el, dir) {
    const list = Array.from(document.querySelectorAll(ACTIONABLE)).filter((e) => !disabled(e) && visible(e, e.getBoundingClientRect()));
    const i = list.indexOf(el);
    const next = list[(i + dir + list.length) % list.length];
    if (next) /** @type {HTMLElement} */ (next).focus();
  }

  function perform(p) {
    const action = p.action;
    if (action === 'scroll' && p.to) {
      window.scrollTo({ top: p.to === 'top' ? 0 : document.documentElement.scrollHeight, behavior: 'instant' });
      return { scroll: { x: Math.round(scrollX), y: Math.round(scrollY) } };
    }
    if (action === 'press_key' && !p.selector && !p.text && !p.ref) {
      markAI();
      const el = document.activeElement || document.body;
      dispatching(() => pressHere(el, p.k));
      return {};
    }
    const el = target(p);
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    markAI();
    switch (action) {
      case 'scroll':
        el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
        return { scroll: { x: Math.round(scrollX), y: Math.round(scrollY) } };
      case 'select': {
        const want = String(p.value);
        const opts = Array.from(el.options);
        const o = opts.find((x) => x.value === want) || opts.find((x) => clean(x.label || x.text, 1000) === clean(want, 1000)) ||
          opts.find((x) => clean(x.label || x.text, 1000).toLowerCase() === clean(want, 1000).toLowerCase());
        if (!o) {
          const have = opts.slice(0, 10).map((x) => (x.value === (x.label || x.text) ? x.value : `${x.value} (${clean(x.label || x.text, 40)})`));
          throw new QueryError('invalid_param', `${nameForError(el)} has no option ${JSON.stringify(want)}; it has ${have.join(', ')}${opts.length > 10 ? ', …' : ''}`);
        }
        el.focus({ preventScroll: true });
        o.selected = true;
        dispatching(() => {
          el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
          el.dispatchEvent(new Event('change', { bubbles: true }));
        });
        return {};
      }
      case 'hover':
        for (const t of ['pointerover', 'pointerenter', 'mouseover', 'mouseenter', 'pointermove', 'mousemove']) mouse(el, t, x, y);
        return {};
      case 'click':
        el.focus({ preventScroll: true });
        dispatching(() => {
          for (const t of ['pointerdown', 'mousedown', 'pointerup', 'mouseup']) mouse(el, t, x, y);
          el.click();
        });
        return {};
      case 'type': {
        if (p.clear !== false) selectAll(el);
        el.focus({ preventScroll: true });
        const text = String(p.text);
        dispatching(() => {
          // insertText is the browser's own editing: input events, undo, frameworks' value tracking.
          if (!document.execCommand('insertText', false, text)) {
            if (typeof el.value === 'string') el.value = (p.clear !== false ? '' : el.value) + text;
            el.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, data: text, inputType: 'insertText' }));
          }
          if (p.submit) pressHere(el, { key: 'Enter', code: 'Enter' });
        });
        return {};
      }
      case 'press_key':
        el.focus({ preventScroll: true });
        dispatching(() => pressHere(el, p.k));
        return {};
      default:
        throw new QueryError('invalid_param', `unknown action ${JSON.stringify(action)}`);
    }
  }

  // Events dispatched from here are not trusted: content/actions.js records them (as the AI's) only
  // while this flag is up, which is only during these synchronous dispatches.
  function dispatching(fn) {
    G.aiDispatching = true;
    try {
      fn();
    } finally {
      G.aiDispatching = false;
    }
  }

  // ---- settle: the page quiet (content/quiet.js), then the target's state --------------------------
  const { watch: watchChanges, stop: stopWatching, quiet } = G.quiet;

  async function settle(p) {
    const max = Math.min(SETTLE_MAX_MS, Math.max(0, Number(p.max_ms) || SETTLE_MAX_MS));
    const waited = max > 0 ? await quiet(max, !!p.reacted) : (stopWatching(), 0);
    if (G.flushInputs) G.flushInputs();
    aiUntil = 0;
    const out = { url: location.href, title: document.title, quiet_ms: waited };
    if (p.ref) {
      try {
        const el = byRef(p.ref);
        const st = stateOf(el);
        st.visible = visible(el, el.getBoundingClientRect());
        out.after = st;
      } catch (_) { /* gone: the page changed */ }
    }
    await G.flushPage(); // what the action caused reaches the worker before this answer
    return out;
  }

  // ---- wait_for: text or a selector, visible (or hidden), within timeout_ms ------------------------
  function present(p) {
    let els;
    if (p.selector) {
      try {
        els = Array.from(document.querySelectorAll(p.selector));
      } catch (err) {
        throw new QueryError('invalid_param', `selector ${JSON.stringify(p.selector)} is not valid CSS: ${String((err && err.message) || err)}`);
      }
    } else {
      const want = clean(p.text, 10000).toLowerCase();
      const body = document.body;
      els = body && clean(body.innerText, 1e7).toLowerCase().includes(want) ? [body] : [];
    }
    return els.some((el) => visible(el, el.getBoundingClientRect()));
  }

  function waitFor(p) {
    const ms = Math.min(WAIT_MAX_MS, Math.max(1, Number(p.timeout_ms) || 5000));
    const want = p.state !== 'hidden';
    const t0 = performance.now();
    if (present(p) === want) return Promise.resolve({ waited_ms: 0, url: location.href, title: document.title });
    return new Promise((resolve, reject) => {
      let timer = 0;
      const done = (fn) => { mo.disconnect(); clearTimeout(timer); clearInterval(poll); fn(); };
      const check = () => {
        if (present(p) === want) done(() => resolve({ waited_ms: Math.round(performance.now() - t0), url: location.href, title: document.title }));
      };
      const mo = new MutationObserver(check);
      mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      const poll = setInterval(check, 100); // visibility also changes through styles and layout
      timer = setTimeout(() => done(() => reject(new QueryError('timeout',
        `${p.selector ? `selector ${JSON.stringify(p.selector)}` : `text ${JSON.stringify(p.text)}`} was not ${want ? 'visible' : 'hidden'} within ${ms} ms`))), ms);
    });
  }

  G.act = (p) => {
    switch (p.step) {
      case 'interactive': return interactive(p);
      case 'prepare': return prepare(p);
      case 'perform': return perform(p);
      case 'settle': return settle(p);
      case 'wait_for': return waitFor(p);
      case 'mark':
        markAI();
        watchChanges();
        return {};
      default: throw new QueryError('invalid_param', `unknown step ${JSON.stringify(p.step)}`);
    }
  };
})();
