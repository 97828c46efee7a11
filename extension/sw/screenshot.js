// analyze{target:"screenshot"}: the viewport of a tab that is showing in its window, one element's
// box, or the whole page scrolled through, as JPEG or PNG no wider than max_width. Password and card fields are
// made transparent (a user stylesheet the page cannot see) for as long as the capture lasts. The
// browser paints only the tab on screen, so any other tab is refused at once (tab_not_visible).

import { QueryError, errText } from './errors.js';

// Chrome allows two captureVisibleTab calls a second, counted from when the browser got the first;
// the shooter spaces its calls to stay under, with a slack for the message's way there, and tries once
// more after a full second if the browser refuses all the same.
const CAPTURE_WINDOW_MS = 1000;
const CAPTURE_SLACK_MS = 60;
const QUOTA_RE = /MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND/;
const CAPTURES_PER_WINDOW = 2;
const JPEG_QUALITY = 0.8;
// The fields blanked: passwords, and a payment card's (its number, expiry and security code) by their
// autocomplete or a name or id with a card's word (features/redact's FieldWords, matched loosely: a field
// blanked for nothing costs a screenshot less than a card number shown).
const MASKED = 'input[type=password],input[autocomplete$=password],input[autocomplete^="cc-" i],' +
  ['card', 'cvv', 'cvc', 'csc', 'expiry'].flatMap((w) => [`input[name*=${w} i]`, `input[id*=${w} i]`]).join(',') + ',' +
  ['cc', 'pan'].flatMap((w) => [`input[name=${w} i]`, `input[id=${w} i]`, `input[name^="${w}-" i]`, `input[name^="${w}_" i]`,
    `input[id^="${w}-" i]`, `input[id^="${w}_" i]`]).join(',');
const MASK_CSS = MASKED + '{color:transparent!important;' +
  '-webkit-text-fill-color:transparent!important;text-shadow:none!important;caret-color:transparent!important}';

/**
 * In the page (every frame): how many password and card fields (masked) it has; in the top frame also the viewport and,
 * for a selector, the first match's box (scrolled into view when outside it). Self-contained: it runs
 * in the page's isolated world, where the page's named elements may shadow document's methods.
 */
function probe(selector, masked) {
  // The page's window: in a Firefox content script globalThis is a sandbox around it.
  const w = /** @type {any} */ (globalThis).window || globalThis;
  const document = w.document;
  const qsa = w.Document.prototype.querySelectorAll;
  const out = { pw: qsa.call(document, masked).length };
  if (w.top !== w) return out;
  Object.assign(out, {
    url: w.location.href, vw: w.innerWidth, vh: w.innerHeight, dpr: w.devicePixelRatio || 1, sy: Math.round(w.scrollY),
    docH: Math.max(document.documentElement ? document.documentElement.scrollHeight : 0, document.body ? document.body.scrollHeight : 0),
  });
  if (!selector) return out;
  let list;
  try {
    list = qsa.call(document, selector);
  } catch (err) {
    out.bad = String((err && err.message) || err);
    return out;
  }
  out.count = list.length;
  if (!list.length) return out;
  const el = list[0];
  let r = el.getBoundingClientRect();
  if (r.top < 0 || r.left < 0 || r.bottom > w.innerHeight || r.right > w.innerWidth) {
    el.scrollIntoView({ block: r.height > w.innerHeight ? 'start' : 'center', inline: 'nearest' });
    r = el.getBoundingClientRect();
  }
  out.box = { x: r.x, y: r.y, w: r.width, h: r.height };
  const tag = String(el.tagName).toLowerCase();
  const id = el.id ? `#${el.id}` : '';
  const cls = typeof el.className === 'string' && el.className.trim() ? `.${el.className.trim().split(/\s+/).slice(0, 3).join('.')}` : '';
  out.matched = `${tag}${id}${cls} ${Math.round(r.width)}x${Math.round(r.height)} at ${Math.round(r.x)},${Math.round(r.y)}`;
  return out;
}

/**
 * In the page (every frame): resolves once a frame has been drawn since the call, so that the capture
 * shows the stylesheet just inserted (or after 300 ms, if the page draws no frames).
 */
function painted() {
  const w = /** @type {any} */ (globalThis).window || globalThis;
  return new Promise((resolve) => {
    const t = setTimeout(resolve, 300);
    w.requestAnimationFrame(() => w.requestAnimationFrame(() => setTimeout(() => { clearTimeout(t); resolve(true); }, 0)));
  });
}

/** In the page: scrolls to y and waits for it to be drawn; → the scroll reached. */
function scrollTo(y) {
  const w = /** @type {any} */ (globalThis).window || globalThis;
  w.scrollTo(0, y);
  return new Promise((resolve) => {
    const done = () => resolve(Math.round(w.scrollY));
    const t = setTimeout(done, 300);
    w.requestAnimationFrame(() => w.requestAnimationFrame(() => { clearTimeout(t); done(); }));
  });
}

/**
 * The shooter, with what it uses passed in (chrome, the settings, the clock) so node tests can drive it.
 * @param {{ chrome: any, settings: () => any, now?: () => number, sleep?: (ms: number) => Promise<void> }} deps
 */
export function makeShooter({ chrome, settings, now = Date.now, sleep = (ms) => new Promise((r) => setTimeout(r, ms)) }) {
  const recent = []; // when the last captures were taken
  /** @type {Promise<unknown>} */
  let last = Promise.resolve(); // the screenshot being taken

  async function capture(windowId, fmt, quality = 92) {
    if (recent.length >= CAPTURES_PER_WINDOW) {
      const wait = recent[recent.length - CAPTURES_PER_WINDOW] + CAPTURE_WINDOW_MS - now();
      if (wait + CAPTURE_SLACK_MS > 0) await sleep(wait + CAPTURE_SLACK_MS);
    }
    recent.push(now());
    if (recent.length > CAPTURES_PER_WINDOW) recent.shift();
    const opts = fmt === 'png' ? { format: 'png' } : { format: 'jpeg', quality };
    try {
      return await chrome.tabs.captureVisibleTab(windowId, opts);
    } catch (err) {
      if (!QUOTA_RE.test(errText(err))) throw err;
      await sleep(CAPTURE_WINDOW_MS);
      recent.push(now());
      recent.shift();
      return chrome.tabs.captureVisibleTab(windowId, opts);
    }
  }

  const run = async (tabId, func, args, allFrames) => chrome.scripting.executeScript({
    target: allFrames ? { tabId, allFrames: true } : { tabId }, func, args,
  });

  /**
   * Takes the screenshot params p asks for of tab tabId. → { url, data (base64), matched?, count?, capped? }
   * @param {number} tabId
   * @param {{ selector?: string, full_page?: boolean, format?: string, max_width?: number, margin?: number, max_page_height?: number }} p
   */
  function shoot(tabId, p) {
    // One at a time: each one's stylesheet and scrolling must not overlap another's.
    const next = last.then(() => shootNow(tabId, p));
    last = next.catch(() => {});
    return next;
  }

  async function shootNow(tabId, p) {
    if (settings().ai_screenshots === false) {
      throw new QueryError('ai_screenshots_off', 'The human turned AI screenshots off in the Gasoline options; ask them, do not retry.');
    }
    const tab = await chrome.tabs.get(tabId);
    const win = await chrome.windows.get(tab.windowId);
    if (!tab.active || win.state === 'minimized') {
      throw new QueryError('tab_not_visible', `tab ${tabId} is not the one showing in its window, and a browser paints only that one: ` +
        'ask the human to bring it to the front, or call without tab_id for the tracked tab');
    }
    const fmt = p.format === 'png' ? 'png' : 'jpeg';
    const maxW = Number(p.max_width) > 0 ? Number(p.max_width) : 1024;
    const selector = typeof p.selector === 'string' ? p.selector : '';
    let frames;
    try {
      frames = await run(tabId, probe, [selector, MASKED], true);
    } catch (err) {
      // Without a script in the page its password fields cannot be hidden: refuse rather than show them.
      throw new QueryError('internal', `the page cannot be scripted, so it is not captured: ${errText(err)}`);
    }
    const top = (frames.find((f) => f.frameId === 0) || {}).result;
    if (!top || !top.vw) throw new QueryError('internal', 'the page did not describe its viewport');
    if (top.bad) throw new QueryError('invalid_param', `selector: ${top.bad}`);
    if (selector && !top.box) throw new QueryError('not_found', `selector ${JSON.stringify(selector)} matched no element`);
    const masked = frames.some((f) => f.result && f.result.pw > 0);
    if (masked) {
      await chrome.scripting.insertCSS({ target: { tabId, allFrames: true }, css: MASK_CSS, origin: 'USER' });
    }
    try {
      if (masked) await run(tabId, painted, [], true);
      const out = { url: top.url, data: '' };
      if (selector) Object.assign(out, { matched: top.matched, count: top.count });
      if (p.full_page) {
        const { data, capped } = await fullPage(tab.windowId, tabId, top, fmt, maxW, Number(p.max_page_height) || 8000);
        out.data = data;
        if (capped) out.capped = capped;
        return out;
      }
      // The capture's own size says how many of its pixels a CSS pixel is: a zoomed tab, a HiDPI screen
      // or an emulated viewport (DevTools' device mode) each make it other than the page's
      // devicePixelRatio says.
      const direct = !selector && top.vw * top.dpr <= maxW; // the capture is the answer, unless its size says otherwise
      const shot = await capture(tab.windowId, fmt, direct ? Math.round(JPEG_QUALITY * 100) : undefined);
      const b64 = base64Of(shot);
      const size = imageSize(b64);
      if (!selector && (size ? size.w <= maxW : direct)) {
        // Already no wider than asked: the browser's own encoding is the answer.
        out.data = b64;
        return out;
      }
      const crop = selector ? cropBox(top, Number(p.margin) || 0) : null;
      out.data = await reencode(b64, size || { w: Math.round(top.vw * top.dpr), h: Math.round(top.vh * top.dpr) }, top, crop, fmt, maxW);
      return out;
    } finally {
      // Awaited: removing a stylesheet removes the same text inserted by a later capture too.
      if (masked) await chrome.scripting.removeCSS({ target: { tabId, allFrames: true }, css: MASK_CSS, origin: 'USER' }).catch(() => {});
    }
  }

  // The whole page, one viewport at a time from the top, stitched; the scroll is put back after.
  async function fullPage(windowId, tabId, top, fmt, maxW, maxH) {
    const height = Math.min(top.docH || top.vh, maxH);
    const scale = Math.min(1, maxW / top.vw);
    const canvas = new OffscreenCanvas(Math.round(top.vw * scale), Math.max(1, Math.round(height * scale)));
    const ctx = /** @type {OffscreenCanvasRenderingContext2D} */ (canvas.getContext('2d')); // a new canvas has one
    try {
      for (let y = 0; y < height; y += top.vh) {
        const [{ result: at }] = await run(tabId, scrollTo, [y], false);
        const bitmap = await createImageBitmap(imageBlob(base64Of(await capture(windowId, fmt)), fmt));
        const k = bitmap.width / top.vw; // device pixels per CSS pixel
        const rows = Math.min(top.vh, height - at);
        const skip = y - at; // the last screen scrolls less than asked
        ctx.drawImage(bitmap, 0, skip * k, bitmap.width, (rows - skip) * k, 0, y * scale, canvas.width, (rows - skip) * scale);
        bitmap.close();
        if (at + top.vh >= height) break;
      }
    } finally {
      await run(tabId, scrollTo, [top.sy], false).catch(() => {});
    }
    const data = await blobBase64(await canvas.convertToBlob(encoding(fmt)));
    return { data, capped: top.docH > maxH ? top.docH : 0 };
  }

  return { shoot };
}

const encoding = (fmt) => (fmt === 'png' ? { type: 'image/png' } : { type: 'image/jpeg', quality: JPEG_QUALITY });

/** The element's box with margin around it, inside the viewport, in CSS pixels. */
export function cropBox(top, margin) {
  const x0 = Math.max(0, Math.floor(top.box.x - margin));
  const y0 = Math.max(0, Math.floor(top.box.y - margin));
  const x1 = Math.min(top.vw, Math.ceil(top.box.x + top.box.w + margin));
  const y1 = Math.min(top.vh, Math.ceil(top.box.y + top.box.h + margin));
  if (x1 - x0 < 1 || y1 - y0 < 1) throw new QueryError('not_found', 'the element has no visible area in the viewport');
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
}

// The capture (base64, size pixels) cropped (CSS pixels) and scaled to maxW, re-encoded. Its bytes are
// decoded from base64 once, straight into a Blob (a fetch of its data URL cost 12-21 ms for a 1280x800
// JPEG on the 2-core test machine, fromBase64 and the Blob 8-16 ms), and the scaled bitmap becomes the
// canvas's image as it is (bitmaprenderer: no drawing onto a 2d canvas).
async function reencode(b64, size, top, crop, fmt, maxW) {
  const kx = size.w / top.vw; // the capture's pixels per CSS pixel, measured
  const ky = size.h / top.vh;
  const c = crop || { x: 0, y: 0, w: top.vw, h: top.vh };
  const src = { x: Math.round(c.x * kx), y: Math.round(c.y * ky), w: Math.max(1, Math.round(c.w * kx)), h: Math.max(1, Math.round(c.h * ky)) };
  src.w = Math.min(src.w, size.w - src.x);
  src.h = Math.min(src.h, size.h - src.y);
  const scale = Math.min(1, maxW / src.w);
  const w = Math.max(1, Math.round(src.w * scale));
  const h = Math.max(1, Math.round(src.h * scale));
  const blob = imageBlob(b64, fmt);
  // Cropped and scaled while decoding, which costs less than drawing the whole capture scaled.
  const bitmap = await createImageBitmap(blob, src.x, src.y, src.w, src.h, { resizeWidth: w, resizeHeight: h, resizeQuality: 'medium' });
  const canvas = new OffscreenCanvas(w, h);
  // A new canvas always has its bitmaprenderer context; the bitmap is handed over (closed by it).
  /** @type {ImageBitmapRenderingContext} */ (canvas.getContext('bitmaprenderer')).transferFromImageBitmap(bitmap);
  return blobBase64(await canvas.convertToBlob(encoding(fmt)));
}

/**
 * The base64 text of a data URL.
 * @param {string} dataURL
 */
export const base64Of = (dataURL) => dataURL.slice(dataURL.indexOf(',') + 1);

/**
 * The image base64 stands for, as a Blob.
 * @param {string} b64
 * @param {string} fmt 'png' or 'jpeg'
 */
export const imageBlob = (b64, fmt) => new Blob([base64Bytes(b64)], { type: fmt === 'png' ? 'image/png' : 'image/jpeg' });

/**
 * A Blob's bytes as base64.
 * @param {Blob} blob
 */
export const blobBase64 = async (blob) => bytesBase64(new Uint8Array(await blob.arrayBuffer()));

/**
 * The width and height of a base64 PNG or JPEG, read from its header (no decoding of the image; of the
 * base64 only its start, more only when a JPEG's segments before its frame header are long); null if unknown.
 * @param {string} b64
 * @returns {{w: number, h: number} | null}
 */
export function imageSize(b64) {
  for (let n = 1024; ; n *= 16) {
    const end = Math.min(b64.length, n);
    const size = headerSize(base64Bytes(b64.slice(0, end - (end % 4))));
    if (size !== undefined) return size;
    if (end === b64.length || n >= 1 << 20) return null;
  }
}

/**
 * The size a PNG's or JPEG's header gives: null if bytes are neither, undefined if they end before it.
 * @param {Uint8Array} bytes the file's first bytes
 * @returns {{w: number, h: number} | null | undefined}
 */
export function headerSize(bytes) {
  const u16 = (i) => (bytes[i] << 8) | bytes[i + 1];
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) {
    return bytes.length < 24 ? undefined : { w: u16(16) * 65536 + u16(18), h: u16(20) * 65536 + u16(22) };
  }
  if (bytes.length < 2) return undefined;
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  // A JPEG: walk its segments to the frame header (SOF0–SOF15 but DHT, JPG and DAC).
  for (let i = 2; ;) {
    if (i + 9 > bytes.length) return undefined;
    if (bytes[i] !== 0xff) return null;
    const marker = bytes[i + 1];
    if (marker === 0xff) { i++; continue; }
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return { w: u16(i + 7), h: u16(i + 5) };
    i += 2 + u16(i + 2);
  }
}

/**
 * The bytes base64 text stands for: the engine's own decoder where it has one (Chrome 140, Firefox 133), else atob.
 * @param {string} b64
 * @returns {Uint8Array<ArrayBuffer>}
 */
export function base64Bytes(b64) {
  const U8 = /** @type {any} */ (Uint8Array);
  if (typeof U8.fromBase64 === 'function') return U8.fromBase64(b64);
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * Bytes as base64: the engine's own encoder where it has one, else btoa over 32 KB pieces.
 * @param {Uint8Array} bytes
 * @returns {string}
 */
export function bytesBase64(bytes) {
  const b = /** @type {any} */ (bytes);
  if (typeof b.toBase64 === 'function') return b.toBase64();
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}
