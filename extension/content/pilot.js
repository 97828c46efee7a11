// Gasoline content script, part 4 (after content/queries.js): the AI Web Pilot's highlighter, the
// 'pilot' query kind. The worker checks the pilot switch before it asks.
(() => {
  'use strict';

  const G = globalThis.__gasolineContent;
  if (!G || G.parts.has('pilot') || !G.natives) return;
  G.parts.add('pilot');
  const { natives, QueryError } = G;

  const HIGHLIGHT_ID = 'gasoline-highlighter';
  const HIGHLIGHT_MAX_MS = 60000;
  /** @type {{div: HTMLDivElement, el: Element, timer: number, onMove: () => void} | null} */
  let hl = null;

  function pilot(p) {
    switch (p.action) {
      case 'highlight': return highlight(p);
      case 'unhighlight':
        unhighlight();
        return { success: true };
      default: throw new QueryError('invalid_param', `unknown pilot action ${JSON.stringify(p.action)}`);
    }
  }

  const box = (r) => ({ x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height) });

  function place(div, r) {
    for (const [k, v] of [['left', r.left], ['top', r.top], ['width', r.width], ['height', r.height]]) {
      div.style.setProperty(k, `${v}px`, 'important');
    }
  }

  function unhighlight() {
    if (!hl) return;
    clearTimeout(hl.timer);
    window.removeEventListener('scroll', hl.onMove, true);
    window.removeEventListener('resize', hl.onMove, true);
    hl.div.remove();
    hl = null;
  }

  // Draws a red frame over the first match for duration_ms; the next highlight replaces it.
  function highlight(p) {
    const N = natives();
    const selector = typeof p.selector === 'string' ? p.selector.trim() : '';
    if (!selector) throw new QueryError('invalid_param', 'selector is required');
    let el;
    try {
      el = N.qs.call(document, selector);
    } catch (err) {
      throw new QueryError('invalid_param', String((err && err.message) || err));
    }
    if (!el) throw new QueryError('not_found', `no element matches ${JSON.stringify(selector)}`);
    let ms = Math.floor(Number(p.duration_ms));
    ms = Number.isFinite(ms) && ms > 0 ? Math.min(ms, HIGHLIGHT_MAX_MS) : 5000;
    unhighlight();
    let r = N.rect.call(el);
    // Entirely out of view: bring it in, so the human sees what the AI points at.
    if (r.bottom < 0 || r.top > window.innerHeight || r.right < 0 || r.left > window.innerWidth) {
      try {
        el.scrollIntoView({ block: 'center', inline: 'nearest', behavior: 'instant' });
      } catch (_) { /* keep where it is */ }
      r = N.rect.call(el);
    }
    const div = document.createElement('div');
    div.id = HIGHLIGHT_ID;
    div.setAttribute('aria-hidden', 'true');
    const css = {
      position: 'fixed', border: '4px solid red', 'box-sizing': 'border-box', 'z-index': '2147483647',
      'pointer-events': 'none', margin: '0', padding: '0', background: 'transparent', display: 'block',
      transform: 'none', opacity: '1', visibility: 'visible', 'border-radius': '0', 'box-shadow': 'none',
      'max-width': 'none', 'max-height': 'none', 'min-width': '0', 'min-height': '0',
    };
    for (const [k, v] of Object.entries(css)) div.style.setProperty(k, v, 'important');
    place(div, r);
    (N.docEl.call(document) || document).appendChild(div);
    let frame = 0;
    const onMove = () => {
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        if (hl && hl.div === div && el.isConnected) place(div, N.rect.call(el));
      });
    };
    window.addEventListener('scroll', onMove, { capture: true, passive: true });
    window.addEventListener('resize', onMove, { capture: true, passive: true });
    hl = { div, el, onMove, timer: setTimeout(() => { if (hl && hl.div === div) unhighlight(); }, ms) };
    return { success: true, selector, bounds: box(r) };
  }

  G.pilot = pilot;
})();
