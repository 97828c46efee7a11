// Screenshots on error (screenshot_on_error). An error captured from a tab that is the active tab of
// its window: capture the window's visible tab, deliver the queued logs (so the server holds the error
// the screenshot names), then POST /screenshots. At most one every SHOT_INTERVAL_MS; failures are
// counted, never thrown.

import { effectiveSettings } from './settings.js';
import { deliverLogsThrough } from './delivery.js';
import { postJSON, errorText } from './link.js';
import { errText } from './errors.js';

const SHOT_INTERVAL_MS = 5000;
const SHOT_MAX_CHARS = 4.5 * 1024 * 1024; // the data URL must fit the server's 5 MiB body cap

const shots = { sent: 0, attached: 0, skipped: 0, failed: 0, last_error: '', last_file: '' };
let busy = false;
let lastShotAt = 0;

export const screenshotStats = () => ({ ...shots });

/** An error log from tab was queued as event seq. */
export function onErrorLog(tab, data, seq) {
  if (effectiveSettings().screenshot_on_error !== true || busy) return;
  if (!tab || typeof tab.id !== 'number' || tab.id < 0) return;
  if (Date.now() - lastShotAt < SHOT_INTERVAL_MS) return;
  busy = true;
  screenshot(tab.id, data.ts, seq).catch((err) => {
    shots.failed++;
    shots.last_error = errText(err);
  }).finally(() => { busy = false; });
}

async function screenshot(tabId, ts, seq) {
  const tab = await chrome.tabs.get(tabId);
  if (!tab.active) {
    shots.skipped++; // another tab is showing in that window: not this error's page
    return;
  }
  lastShotAt = Date.now();
  let image = await chrome.tabs.captureVisibleTab(tab.windowId, { format: 'png' });
  if (image.length > SHOT_MAX_CHARS) image = await shrinkPNG(image);
  await deliverLogsThrough(seq);
  const res = await postJSON('/screenshots', JSON.stringify({ tab: tabId, ts, image }));
  if (!res.ok) throw new Error(`POST /screenshots: HTTP ${res.status} ${await errorText(res)}`);
  shots.sent++;
  try {
    const b = await res.json();
    if (b && b.attached) shots.attached++;
    if (b && typeof b.file === 'string') shots.last_file = b.file;
  } catch (_) { /* stored all the same */ }
}

// A screenshot too large for one POST (a huge, busy screen): scale it down until it fits.
async function shrinkPNG(dataURL) {
  const bitmap = await createImageBitmap(await (await fetch(dataURL)).blob());
  let scale = Math.sqrt(SHOT_MAX_CHARS / dataURL.length) * 0.9;
  for (let i = 0; i < 4; i++) {
    const w = Math.max(1, Math.round(bitmap.width * scale));
    const h = Math.max(1, Math.round(bitmap.height * scale));
    const canvas = new OffscreenCanvas(w, h);
    canvas.getContext('2d').drawImage(bitmap, 0, 0, w, h);
    const blob = await canvas.convertToBlob({ type: 'image/png' });
    const out = await blobToDataURL(blob);
    if (out.length <= SHOT_MAX_CHARS) return out;
    scale *= 0.7;
  }
  throw new Error('screenshot too large even scaled down');
}

async function blobToDataURL(blob) {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return `data:${blob.type || 'image/png'};base64,${btoa(bin)}`;
}
