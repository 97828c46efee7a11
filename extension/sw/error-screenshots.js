// Screenshots on error (screenshot_on_error). An error captured from a tab that is the active tab of
// its window: capture the window's visible tab, deliver the queued logs (so the server holds the error
// the screenshot names), then POST /screenshots. At most one every SHOT_INTERVAL_MS; failures are
// counted, never thrown.

import { errText } from './errors.js';
import { base64Of, blobBase64, imageBlob } from './screenshot.js';

const SHOT_INTERVAL_MS = 5000;
export const SHOT_MAX_CHARS = 4.5 * 1024 * 1024; // the data URL must fit the server's 5 MiB body cap

/**
 * @typedef {object} ScreenshotDeps
 * @property {{get: Function, captureVisibleTab: Function}} tabs chrome.tabs
 * @property {{effective: Settings}} settings what is in force (screenshot_on_error)
 * @property {(seq: number) => Promise<void>} deliverLogsThrough delivery.js's: the logs up to the error reach the server first
 * @property {(path: string, body: string) => Promise<Response>} postJSON
 * @property {(res: Response) => Promise<string>} errorText the server's message in a 4xx answer
 * @property {(dataURL: string) => Promise<string>} shrink a PNG data URL scaled down to fit one POST
 * @property {import('./clock.js').Clock} clock
 */

export class Screenshots {
  /** @param {ScreenshotDeps} deps */
  constructor(deps) {
    this.d = deps;
    this.shots = { sent: 0, attached: 0, skipped: 0, failed: 0, last_error: '', last_file: '' };
    this.busy = false;
    this.lastShotAt = 0;
  }

  /** What the popup shows. */
  stats() {
    return { ...this.shots };
  }

  /** An error log from tab was queued as event seq. */
  onErrorLog(tab, data, seq) {
    if (this.d.settings.effective.screenshot_on_error !== true || this.busy) return;
    if (!tab || typeof tab.id !== 'number' || tab.id < 0) return;
    if (this.d.clock.now() - this.lastShotAt < SHOT_INTERVAL_MS) return;
    this.busy = true;
    this.screenshot(tab.id, data.ts, seq).catch((err) => {
      this.shots.failed++;
      this.shots.last_error = errText(err);
    }).finally(() => { this.busy = false; });
  }

  async screenshot(tabId, ts, seq) {
    const { tabs, shrink } = this.d;
    const tab = await tabs.get(tabId);
    if (!tab.active) {
      this.shots.skipped++; // another tab is showing in that window: not this error's page
      return;
    }
    this.lastShotAt = this.d.clock.now();
    let image = await tabs.captureVisibleTab(tab.windowId, { format: 'png' });
    if (image.length > SHOT_MAX_CHARS) image = await shrink(image);
    await this.d.deliverLogsThrough(seq);
    const res = await this.d.postJSON('/screenshots', JSON.stringify({ tab: tabId, ts, image }));
    if (!res.ok) throw new Error(`POST /screenshots: HTTP ${res.status} ${await this.d.errorText(res)}`);
    this.shots.sent++;
    try {
      const b = await res.json();
      if (b && b.attached) this.shots.attached++;
      if (b && typeof b.file === 'string') this.shots.last_file = b.file;
    } catch (_) { /* stored all the same */ }
  }
}

// A screenshot too large for one POST (a huge, busy screen): scale it down until it fits.
export async function shrinkPNG(dataURL) {
  const bitmap = await createImageBitmap(imageBlob(base64Of(dataURL), 'png'));
  let scale = Math.sqrt(SHOT_MAX_CHARS / dataURL.length) * 0.9;
  for (let i = 0; i < 4; i++) {
    const w = Math.max(1, Math.round(bitmap.width * scale));
    const h = Math.max(1, Math.round(bitmap.height * scale));
    const canvas = new OffscreenCanvas(w, h);
    // A new canvas always has its 2d context.
    /** @type {OffscreenCanvasRenderingContext2D} */ (canvas.getContext('2d')).drawImage(bitmap, 0, 0, w, h);
    const blob = await canvas.convertToBlob({ type: 'image/png' });
    const out = `data:${blob.type || 'image/png'};base64,${await blobBase64(blob)}`;
    if (out.length <= SHOT_MAX_CHARS) return out;
    scale *= 0.7;
  }
  throw new Error('screenshot too large even scaled down');
}
