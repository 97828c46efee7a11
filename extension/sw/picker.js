// "Point at an element": the popup's button and the manifest's command start a picker in a tab; the
// human hovers (the element under the pointer is outlined) and clicks one (Esc cancels); what they
// picked goes to the server (POST /point) with its selector, text, box, layout styles and, when the
// human allows AI screenshots, a small picture of it. The picker covers the page while it runs, so
// the page's own handlers never see the pointer: the click that picks clicks nothing.

/** Layout-relevant computed style properties sent with a picked element. */
export const LAYOUT_STYLES = [
  'display', 'position', 'top', 'right', 'bottom', 'left', 'float', 'box-sizing',
  'width', 'height', 'min-width', 'max-width', 'min-height', 'max-height',
  'margin-top', 'margin-right', 'margin-bottom', 'margin-left',
  'padding-top', 'padding-right', 'padding-bottom', 'padding-left',
  'border-top-width', 'border-right-width', 'border-bottom-width', 'border-left-width',
  'flex-direction', 'flex-wrap', 'flex-grow', 'flex-shrink', 'flex-basis', 'order',
  'justify-content', 'align-items', 'align-content', 'align-self', 'gap',
  'grid-template-columns', 'grid-template-rows', 'grid-column', 'grid-row',
  'visibility', 'opacity', 'z-index', 'overflow-x', 'overflow-y', 'transform', 'font-size', 'line-height',
];

/** The longest text, selector and note the worker passes on (the server bounds them again). */
export const MAX_TEXT = 200;
export const MAX_SELECTOR = 1000;
export const MAX_NOTE = 500;

/**
 * In the page (the extension's isolated world, top frame): runs the picker until a click picks an
 * element or Esc cancels, then tells the worker ({type: 'picked'} or {type: 'pickCancelled'}).
 * Self-contained: executeScript sends its source, not its closure.
 * @param {string} note the human's note, handed back with what they pick
 * @param {string[]} props the computed style properties to read
 * @param {number} maxText
 */
export function pickInPage(note, props, maxText) {
  const w = /** @type {any} */ (globalThis).window || globalThis;
  const d = w.document;
  const KEY = '__gasolinePicker';
  if (w[KEY]) w[KEY]();
  const host = d.createElement('gasoline-picker');
  const root = host.attachShadow({ mode: 'closed' });
  const cover = d.createElement('div');
  cover.style.cssText = 'position:fixed;inset:0;z-index:2147483647;cursor:crosshair;background:transparent';
  const box = d.createElement('div');
  box.style.cssText = 'position:fixed;pointer-events:none;z-index:2147483647;display:none;' +
    'outline:2px solid #e8590c;background:rgba(232,89,12,.15)';
  const label = d.createElement('div');
  label.style.cssText = 'position:fixed;pointer-events:none;z-index:2147483647;display:none;font:12px/1.4 monospace;' +
    'background:#e8590c;color:#fff;padding:1px 4px;max-width:60vw;overflow:hidden;white-space:nowrap;text-overflow:ellipsis';
  root.append(cover, box, label);
  (d.body || d.documentElement).append(host);

  const under = (x, y) => {
    for (const el of d.elementsFromPoint(x, y)) if (el !== host && el !== d.documentElement) return el;
    return d.body;
  };
  const esc = (s) => (w.CSS && w.CSS.escape ? w.CSS.escape(s) : String(s).replace(/[^\w-]/g, (c) => `\\${c}`));
  const only = (sel, el) => {
    try {
      const all = d.querySelectorAll(sel);
      return all.length === 1 && all[0] === el;
    } catch (_) {
      return false;
    }
  };
  const selectorOf = (el) => {
    if (el.id && only(`#${esc(el.id)}`, el)) return `#${esc(el.id)}`;
    const parts = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      if (n !== el && n.id && only(`#${esc(n.id)}`, n)) {
        parts.unshift(`#${esc(n.id)}`);
      } else {
        let part = n.localName;
        const parent = n.parentElement;
        if (parent) {
          const same = Array.from(parent.children).filter((c) => c.localName === n.localName);
          if (same.length > 1) part += `:nth-of-type(${same.indexOf(n) + 1})`;
        }
        parts.unshift(part);
      }
      const sel = parts.join(' > ');
      if (only(sel, el)) return sel;
    }
    return parts.join(' > ');
  };
  let current = null;
  const show = (el) => {
    current = el;
    const r = el.getBoundingClientRect();
    Object.assign(box.style, { display: 'block', left: `${r.left}px`, top: `${r.top}px`, width: `${r.width}px`, height: `${r.height}px` });
    label.textContent = `${selectorOf(el)}  ${Math.round(r.width)}×${Math.round(r.height)}`;
    Object.assign(label.style, { display: 'block', left: `${Math.max(0, r.left)}px`, top: `${r.top >= 20 ? r.top - 20 : r.bottom + 2}px` });
  };
  const round = (n) => Math.round(n * 10) / 10;
  const describe = (el) => {
    const r = el.getBoundingClientRect();
    const cs = w.getComputedStyle(el);
    const styles = {};
    for (const p of props) {
      const v = cs.getPropertyValue(p);
      if (v) styles[p] = v;
    }
    const text = String(el.innerText || el.textContent || '').replace(/\s+/g, ' ').trim();
    return {
      selector: selectorOf(el), tag: el.localName, text: text.slice(0, maxText),
      box: { x: round(r.x), y: round(r.y), width: round(r.width), height: round(r.height) }, styles,
    };
  };
  const BLOCK = ['pointerdown', 'pointerup', 'mousedown', 'mouseup', 'click', 'dblclick', 'auxclick', 'contextmenu',
    'touchstart', 'touchend', 'pointermove', 'mousemove', 'mouseover', 'mouseout', 'keydown', 'keyup', 'keypress'];
  const stop = () => {
    for (const t of BLOCK) w.removeEventListener(t, on, true);
    host.remove();
    delete w[KEY];
  };
  // The extension's API is a global of the content script's world (in Firefox not the page's window).
  const api = /** @type {any} */ (globalThis).chrome || /** @type {any} */ (globalThis).browser;
  const send = (msg) => { try { api.runtime.sendMessage(msg); } catch (_) { /* the extension was reloaded */ } };
  function on(e) {
    // The page sees the overlay come and can dispatch events at any point it likes (isTrusted false):
    // only a person's pointer and keys (and CDP's input) drive the picker.
    if (!e.isTrusted) return;
    if (e.type.startsWith('key')) {
      if (e.key !== 'Escape') return; // typing elsewhere is not the picker's
      e.preventDefault();
      e.stopImmediatePropagation();
      if (e.type === 'keydown') {
        stop();
        send({ type: 'pickCancelled' });
      }
      return;
    }
    e.preventDefault();
    e.stopImmediatePropagation();
    if (e.type === 'pointermove' || e.type === 'mousemove' || e.type === 'mouseover') {
      const el = under(e.clientX, e.clientY);
      if (el && el !== current) show(el);
    } else if (e.type === 'click') {
      const el = under(e.clientX, e.clientY) || current;
      stop();
      if (el) send({ type: 'picked', element: describe(el), note });
    }
  }
  for (const t of BLOCK) w.addEventListener(t, on, { capture: true });
  w[KEY] = stop;
  return true;
}

/** What the worker sends to the server of what the page said it picked: known fields, bounded. */
export function pickedElement(raw, tab) {
  const el = raw && typeof raw === 'object' ? raw : {};
  const str = (v, n) => (typeof v === 'string' ? v.slice(0, n) : '');
  const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const b = el.box && typeof el.box === 'object' ? el.box : {};
  const styles = {};
  const given = el.styles && typeof el.styles === 'object' ? el.styles : {};
  for (const p of LAYOUT_STYLES) if (typeof given[p] === 'string' && given[p]) styles[p] = given[p].slice(0, 200);
  return {
    selector: str(el.selector, MAX_SELECTOR), tag: str(el.tag, 50), text: str(el.text, MAX_TEXT),
    box: { x: num(b.x), y: num(b.y), width: num(b.width), height: num(b.height) }, styles,
    page: str(tab && tab.url, 2048), tab: tab && typeof tab.id === 'number' ? tab.id : 0,
  };
}

/** The picker's worker side, with what it uses passed in (node tests pass fakes). */
export class Picker {
  /**
   * @param {{ scripting: any, resolveTab: (tab: number) => Promise<number>, shoot: (tab: number, p: any) => Promise<any>,
   *   settings: () => any, postJSON: (path: string, body: string) => Promise<Response>, errorText: (res: Response) => Promise<string> }} deps
   */
  constructor({ scripting, resolveTab, shoot, settings, postJSON, errorText }) {
    this.scripting = scripting;
    this.resolveTab = resolveTab;
    this.shoot = shoot;
    this.settings = settings;
    this.postJSON = postJSON;
    this.errorText = errorText;
  }

  /** Starts the picker in the tab (0: the active web page, else the tracked one). → { tab } */
  async start(tab, note) {
    const id = await this.resolveTab(tab || 0);
    const n = typeof note === 'string' ? note.slice(0, MAX_NOTE) : '';
    await this.scripting.executeScript({ target: { tabId: id }, func: pickInPage, args: [n, LAYOUT_STYLES, MAX_TEXT] });
    return { tab: id };
  }

  /** The page picked an element: its picture when allowed, then the server. → { ok } or { error } */
  async picked(sender, raw, note) {
    if (!sender.tab || sender.frameId !== 0) return { error: 'a pick comes from a tab\'s top frame' };
    const el = pickedElement(raw, sender.tab);
    if (!el.selector) return { error: 'no selector' };
    if (this.settings().ai_screenshots === false) {
      el.screenshot_skipped = 'the human turned AI screenshots off';
    } else if (el.box.width >= 1 && el.box.height >= 1) {
      try {
        const shot = await this.shoot(el.tab, { selector: el.selector, format: 'png', max_width: 400, margin: 4 });
        el.screenshot = `data:image/png;base64,${shot.data}`;
      } catch (err) {
        el.screenshot_skipped = String((err && err.message) || err).slice(0, 200);
      }
    }
    const res = await this.postJSON('/point', JSON.stringify({ element: el, note: typeof note === 'string' ? note.slice(0, MAX_NOTE) : '' }));
    if (!res.ok) return { error: (await this.errorText(res)) || `HTTP ${res.status}` };
    return { ok: true };
  }
}
