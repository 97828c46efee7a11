// Capture settings: the user's (chrome.storage.sync gasoline_settings), the server's overrides and the
// effective merge (chrome.storage.local gasoline_effective, which the popup and options page follow),
// pushed to the content scripts of every tab when it changes. The one place
// the worker defines setting names, values and defaults. Nothing here touches chrome.* at import time.

import { saveSoon } from './session.js';
import { CAPTURE_DEFAULTS, CAPTURE_SETTINGS } from '../generated/constants.mjs';
import { DEFAULT_SERVER_URL } from './address.js';

// Setting names, values and defaults are generated from Go (features/capturectl); only the server
// address is the extension's own.
/** @type {Readonly<Settings>} */
export const DEFAULT_SETTINGS = Object.freeze({ server_url: DEFAULT_SERVER_URL, ...CAPTURE_DEFAULTS });
const SETTINGS = /** @type {readonly CaptureSetting[]} */ (CAPTURE_SETTINGS);
const CHOICES = Object.fromEntries(SETTINGS.filter((s) => !s.bool).map((s) => [s.name, s.values]));
const FLAGS = SETTINGS.filter((s) => s.bool).map((s) => s.name);
const HUMAN = new Set(SETTINGS.filter((s) => s.human).map((s) => s.name)); // never taken from the server
const SERVER_URL_RE = /^http:\/\/(127\.0\.0\.1|localhost):(\d{1,5})\/?$/;

/** Whether u is a loopback http URL with a valid port (the only servers the worker talks to). */
export function validServerURL(u) {
  const m = SERVER_URL_RE.exec(String(u || '').trim());
  return !!m && Number(m[2]) >= 1 && Number(m[2]) <= 65535;
}

export function normalizeServerURL(u) {
  return String(u).trim().replace(/\/+$/, '');
}

/**
 * Keeps only known keys with valid values; server_url and the human's own settings only when withServer
 * (the server may not move itself, nor decide for the human).
 * @returns {Partial<Settings>}
 */
export function sanitize(s, withServer) {
  /** @type {Record<string, unknown>} */
  const out = {};
  if (!s || typeof s !== 'object') return out;
  if (withServer && validServerURL(s.server_url)) out.server_url = normalizeServerURL(s.server_url);
  for (const [k, values] of Object.entries(CHOICES)) if (values.includes(s[k])) out[k] = s[k];
  for (const k of FLAGS) if (typeof s[k] === 'boolean' && (withServer || !HUMAN.has(k))) out[k] = s[k];
  return out;
}

/** The server's capture_overrides as an object ({} when absent or not an object). */
export function overridesOf(body) {
  const co = body && body.capture_overrides;
  return co && typeof co === 'object' && !Array.isArray(co) ? co : {};
}

/**
 * The settings in force: defaults, then the user's, then the server's overrides.
 * @returns {Settings}
 */
export function merge(user, over) {
  return { ...DEFAULT_SETTINGS, ...sanitize(user, true), ...sanitize(over, false) };
}

/** @type {Settings} */
let userSettings = { ...DEFAULT_SETTINGS };
/** @type {Partial<Settings>} */
let overrides = {};
/** @type {Settings} */
let effective = { ...DEFAULT_SETTINGS };
let storedEffective = null; // JSON of gasoline_effective as last read or written; null = unknown
// The revision of the effective settings, increasing over the worker's lives (time-based): a content
// script keeps the newest it was told, whether by a push or by the answer to its start question.
let revision = 0;
// Counts server answers applied (polled or pushed): a poll answer that was in flight while a pushed one
// was applied is older than it and is dropped.
let generation = 0;

export const serverURL = () => effective.server_url || DEFAULT_SERVER_URL;
export const effectiveSettings = () => effective;

/** The answer to a content script's {type: 'effective'}: the settings in force and their revision. */
export const effectiveForTab = () => /** @type {EffectiveAnswer} */ ({ settings: effective, rev: revision });
export const settingsGeneration = () => generation;

/**
 * What the options page and the popup show.
 * @returns {SettingsView}
 */
export function settingsView() {
  return { settings: userSettings, defaults: DEFAULT_SETTINGS, effective, overrides };
}

// Recomputes the effective settings; when they changed, pushes them to the tabs and writes them to
// storage at once (no read first, no debounce: this is how a change reaches the pages). Writes are
// issued in call order, so the last call's settings are what storage ends with. Resolves to whether the
// server address changed.
export async function recomputeEffective() {
  const before = effective.server_url;
  effective = merge(userSettings, overrides);
  const j = JSON.stringify(effective);
  if (j !== storedEffective) {
    storedEffective = j;
    revision = Math.max(revision + 1, Date.now());
    pushToTabs({ type: 'effective', settings: effective, rev: revision });
    try {
      await chrome.storage.local.set({ gasoline_effective: effective });
    } catch (_) {
      storedEffective = null;
    }
  }
  return before !== effective.server_url;
}

// Every tab's top frame; a tab without a live content script (chrome://, not yet loaded) refuses.
/** @param {EffectiveAnswer & {type: 'effective'}} msg */
async function pushToTabs(msg) {
  let all;
  try {
    all = await chrome.tabs.query({});
  } catch (_) {
    return;
  }
  for (const t of all) {
    if (typeof t.id !== 'number' || t.id < 0) continue;
    try {
      chrome.tabs.sendMessage(t.id, msg, { frameId: 0 }).catch(() => {});
    } catch (_) { /* a tab that went away */ }
  }
}

// Applies the server's answer to GET /settings, or the same object pushed on the socket: its overrides
// replace ours; empty or absent means the user's own settings are in force again.
/** @param {ServerSettings} body */
export function applyServerSettings(body) {
  generation++;
  const next = overridesOf(body);
  if (JSON.stringify(next) === JSON.stringify(overrides)) return Promise.resolve(false);
  overrides = next;
  saveSoon('gasoline_overrides', overrides);
  return recomputeEffective();
}

/** The user changed their settings (storage.onChanged); resolves to whether the server address changed. */
export function userSettingsChanged(value) {
  userSettings = { ...DEFAULT_SETTINGS, ...sanitize(value, true) };
  return recomputeEffective();
}

/** Start-up: the overrides kept over a worker restart, the user's settings, what storage holds. */
export async function loadSettings(session) {
  if (session.gasoline_overrides && typeof session.gasoline_overrides === 'object') overrides = session.gasoline_overrides;
  try {
    const r = await chrome.storage.sync.get('gasoline_settings');
    userSettings = { ...DEFAULT_SETTINGS, ...sanitize(r.gasoline_settings, true) };
  } catch (_) {
    // The human's choices cannot be read: what only they may allow stays off until they look.
    userSettings = { ...DEFAULT_SETTINGS, ...Object.fromEntries([...HUMAN].map((k) => [k, false])) };
  }
  try {
    const cur = (await chrome.storage.local.get('gasoline_effective')).gasoline_effective;
    if (cur) storedEffective = JSON.stringify(cur);
  } catch (_) { /* unknown: the next write goes through */ }
  await recomputeEffective();
}
