// The messages between the page, the content script, the worker and the server (PROTOCOL.md is the
// contract; these are its shapes for `tsc --checkJs`, make lint). A script file, not a module: every
// type here is global, so JSDoc names it directly (`@param {ServerQuery} q`). Not part of the
// extension (embed.go ships *.js only).

// ---- capture settings (generated/constants.mjs names them; sw/settings.js merges them)

type LogLevel = 'error' | 'warn' | 'all';
type WSMode = 'off' | 'lifecycle' | 'messages';

/** The settings in force: defaults, the user's, then the server's overrides. */
interface Settings {
  server_url: string;
  log_level: LogLevel;
  ws_mode: WSMode;
  network_bodies: boolean;
  screenshot_on_error: boolean;
  action_replay: boolean;
  ai_screenshots: boolean;
  storage_reads: boolean;
}

/** One capture setting as generated/constants.mjs describes it (CAPTURE_SETTINGS). */
interface CaptureSetting {
  readonly name: keyof Settings;
  readonly values: readonly string[];
  readonly default: string | boolean;
  readonly bool?: true;
  readonly human?: true;
}

// ---- page (inject*.js) → content script, on the private link (an EventTarget handed over in the
// FocusEvent `gasoline-hello`)

/** One captured event: its kind names the route it is delivered to. */
interface PageEvent {
  kind: 'log' | 'network' | 'body' | 'request' | 'ws' | 'action' | 'performance';
  data: Record<string, unknown>;
}

/** A `gasoline` CustomEvent's detail: n events as one JSON string, or as an array; or inject.js's
 * word that no content script came. leaving: sent from beforeunload on. */
type LinkMessage =
  | { n: number; json: string; leaving?: boolean }
  | { events: PageEvent[]; leaving?: boolean }
  | { type: 'missed' };

// ---- content script, popup and options → worker (chrome.runtime.sendMessage)

type RuntimeMessage =
  | { type: 'events'; events: PageEvent[] }
  | { type: 'held'; events: PageEvent[] }
  | { type: 'missed' }
  | { type: 'ready' }
  | { type: 'status' }
  | { type: 'effective'; ready?: string }
  | { type: 'settings' }
  | { type: 'setAiWebPilotEnabled'; enabled: boolean }
  | { type: 'pick'; note?: string }
  | { type: 'picked'; element: unknown; note?: string }
  | { type: 'pickCancelled' };

/** The worker's answer to {type: 'effective'}, and what it pushes to the tabs on a change. */
interface EffectiveAnswer {
  settings: Settings;
  rev: number;
}

/** The worker's answer to {type: 'settings'} (the options page). */
interface SettingsView {
  settings: Settings;
  defaults: Settings;
  effective: Settings;
  overrides: Partial<Settings>;
  /** The origins besides development ones the human lets the server read source maps from. */
  sourcemap_origins: string[];
}

// ---- server ↔ worker (the socket /ws/extension, or GET /pending-queries and POST /query-results)

type QueryKind = 'dom' | 'page_info' | 'a11y' | 'pilot' | 'flush' | 'screenshot' | 'interactive' | 'styles' | 'storage';

/** A question from the server: tab 0 is the tracked tab; deadline in epoch ms. */
interface ServerQuery {
  type: 'query';
  id: string;
  kind: QueryKind;
  tab: number;
  deadline?: number;
  params?: any;
}

/** The server's capture overrides, polled (POST /settings) or pushed. */
interface ServerSettings {
  type?: 'settings';
  connected?: boolean;
  capture_overrides?: Partial<Settings>;
}

/** A capture batch's answer on the socket: status as the POST's HTTP status. */
interface BatchAck {
  type: 'ack';
  id: number;
  status: number;
  accepted?: number;
  rejected?: unknown[];
  error?: string;
  message?: string;
}

/** Every JSON frame the server sends on the socket. */
type ServerFrame = ServerQuery | (ServerSettings & { type: 'settings' }) | BatchAck | { type: 'ping' } | { type: 'hello'; batches?: boolean };

/** A query's answer, on the socket or POSTed. */
interface QueryResult {
  type: 'result';
  id: string;
  tab?: number;
  url?: string;
  result?: unknown;
  error?: { code: string; message: string };
}

/** Every JSON frame the worker sends on the socket (capture batches are `events` text frames). */
type WorkerFrame = QueryResult
  | { type: 'hello'; version: string; pilot?: boolean; page?: unknown; sourcemap_origins?: string[] }
  | { type: 'pong' } | { type: 'holding' } | { type: 'pilot'; pilot: boolean }
  | { type: 'sourcemap_origins'; sourcemap_origins: string[] }
  | { type: 'page_left'; tab: number; reason: PageLeftReason; ts: number };

/** Why a tab's document went away (POST /page-left, the page_left frame). */
type PageLeftReason = 'reload' | 'navigation' | 'tab_closed';

// ---- globals

/** generated/constants.js, for the content scripts (classic scripts) and sw/scrub-constants.js. */
declare var GASOLINE_CONSTANTS: any;
/** content/scrub.js and content/gate.js, run in the worker too (sw/held.js). */
declare var __gasolineScrub: any;
declare var __gasolineGate: any;

// The functions the worker runs in a page (scripting.executeScript's func: sw/a11y.js, sw/pilot.js)
// read the page's globals, which a worker has not.
declare var document: any;
declare var localStorage: any;
declare var sessionStorage: any;
declare var axe: any;

declare namespace chrome.scripting {
  interface InjectionResult<T> {
    /** Firefox reports an injection that threw here. */
    error?: unknown;
  }
}
