// Capture settings: the user's (chrome.storage.sync gasoline_settings), the server's overrides and the
// effective merge (chrome.storage.local gasoline_effective, which the popup and options page follow),
// pushed to the content scripts of every tab when it changes. The one place
// the worker defines setting names, values and defaults. Nothing here touches chrome.* at import time.

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

// The origins besides loopback and private ones the human allows the server to read source maps from
// (the options page). Only the user's settings carry them; the server's overrides never do.
export const MAX_MAP_ORIGINS = 50;
const ORIGIN_RE = /^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$|^https?:\/\/\[[0-9a-f:.]+\](:\d{1,5})?$/;

/** The valid origins of a list, lowercased, without a trailing slash, at most MAX_MAP_ORIGINS. */
export function mapOriginsOf(list) {
  if (!Array.isArray(list)) return [];
  const out = [];
  for (const o of list) {
    const v = typeof o === 'string' ? o.trim().toLowerCase().replace(/\/$/, '') : '';
    if (ORIGIN_RE.test(v) && !out.includes(v)) out.push(v);
  }
  return out.slice(0, MAX_MAP_ORIGINS);
}

/**
 * @typedef {object} SettingsDeps
 * @property {{sync: chrome.storage.StorageArea, local: chrome.storage.StorageArea}} storage
 * @property {{query: typeof chrome.tabs.query, sendMessage: typeof chrome.tabs.sendMessage}} tabs
 * @property {(key: string, value: unknown) => void} save session.js's saveSoon: what a stopped worker starts from
 * @property {import('./clock.js').Clock} clock
 */

export class CaptureSettings {
  /** @param {SettingsDeps} deps */
  constructor(deps) {
    this.d = deps;
    /** @type {Settings} */
    this.user = { ...DEFAULT_SETTINGS };
    /** @type {Partial<Settings>} */
    this.overrides = {};
    /** @type {Settings} */
    this.effective = { ...DEFAULT_SETTINGS };
    /** @type {string[]} the human's source map origins (mapOriginsOf) */
    this.mapOrigins = [];
    this.storedEffective = null; // JSON of gasoline_effective as last read or written; null = unknown
    // The revision of the effective settings, increasing over the worker's lives (time-based): a content
    // script keeps the newest it was told, whether by a push or by the answer to its start question.
    this.revision = 0;
    // Counts server answers applied (polled or pushed): a poll answer that was in flight while a pushed one
    // was applied is older than it and is dropped.
    this.gen = 0;
    // Counts the user's changes (storage.onChanged): one that comes while load() reads storage is newer
    // than what that read returns, which must not overwrite it.
    this.userGen = 0;
  }

  serverURL() {
    return this.effective.server_url || DEFAULT_SERVER_URL;
  }

  generation() {
    return this.gen;
  }

  sourcemapOrigins() {
    return this.mapOrigins;
  }

  /**
   * The answer to a content script's {type: 'effective'}: the settings in force and their revision.
   * @returns {EffectiveAnswer}
   */
  forTab() {
    return { settings: this.effective, rev: this.revision };
  }

  /**
   * What the options page and the popup show.
   * @returns {SettingsView}
   */
  view() {
    return { settings: this.user, defaults: DEFAULT_SETTINGS, effective: this.effective, overrides: this.overrides, sourcemap_origins: this.mapOrigins };
  }

  // Recomputes the effective settings; when they changed, pushes them to the tabs and writes them to
  // storage at once (no read first, no debounce: this is how a change reaches the pages). Writes are
  // issued in call order, so the last call's settings are what storage ends with. Resolves to whether the
  // server address changed.
  async recompute() {
    const before = this.effective.server_url;
    this.effective = merge(this.user, this.overrides);
    const j = JSON.stringify(this.effective);
    if (j !== this.storedEffective) {
      this.storedEffective = j;
      this.revision = Math.max(this.revision + 1, this.d.clock.now());
      this.pushToTabs({ type: 'effective', settings: this.effective, rev: this.revision });
      try {
        await this.d.storage.local.set({ gasoline_effective: this.effective });
      } catch (_) {
        this.storedEffective = null;
      }
    }
    return before !== this.effective.server_url;
  }

  // Every tab's top frame; a tab without a live content script (chrome://, not yet loaded) refuses.
  async pushToTabs(msg) {
    let all;
    try {
      all = await this.d.tabs.query({});
    } catch (_) {
      return;
    }
    for (const t of all) {
      if (typeof t.id !== 'number' || t.id < 0) continue;
      try {
        this.d.tabs.sendMessage(t.id, msg, { frameId: 0 }).catch(() => {});
      } catch (_) { /* a tab that went away */ }
    }
  }

  /**
   * Applies the server's answer to POST /settings, or the same object pushed on the socket: its overrides
   * replace ours; empty or absent means the user's own settings are in force again.
   * @param {ServerSettings} body
   * @returns {Promise<boolean>}
   */
  applyServer(body) {
    this.gen++;
    const next = overridesOf(body);
    if (JSON.stringify(next) === JSON.stringify(this.overrides)) return Promise.resolve(false);
    this.overrides = next;
    this.d.save('gasoline_overrides', this.overrides);
    return this.recompute();
  }

  /** The user changed their settings (storage.onChanged); resolves to whether the server address changed. */
  userChanged(value) {
    this.userGen++;
    this.user = { ...DEFAULT_SETTINGS, ...sanitize(value, true) };
    this.mapOrigins = mapOriginsOf(value && value.sourcemap_origins);
    return this.recompute();
  }

  /** Start-up: the overrides kept over a worker restart, the user's settings, what storage holds. */
  async load(session) {
    if (session.gasoline_overrides && typeof session.gasoline_overrides === 'object') this.overrides = session.gasoline_overrides;
    const gen = this.userGen;
    try {
      const r = await this.d.storage.sync.get('gasoline_settings');
      if (this.userGen === gen) {
        this.user = { ...DEFAULT_SETTINGS, ...sanitize(r.gasoline_settings, true) };
        const stored = /** @type {{sourcemap_origins?: unknown} | undefined} */ (r.gasoline_settings);
        this.mapOrigins = mapOriginsOf(stored && stored.sourcemap_origins);
      }
    } catch (_) {
      // The human's choices cannot be read: what only they may allow stays off until they look.
      if (this.userGen === gen) this.user = { ...DEFAULT_SETTINGS, ...Object.fromEntries([...HUMAN].map((k) => [k, false])) };
    }
    try {
      const cur = (await this.d.storage.local.get('gasoline_effective')).gasoline_effective;
      if (cur) this.storedEffective = JSON.stringify(cur);
    } catch (_) { /* unknown: the next write goes through */ }
    await this.recompute();
  }
}
