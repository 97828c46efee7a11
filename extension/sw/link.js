// HTTP to the Gasoline server, and whether it answers: the connected flag and last error the popup
// shows. Whoever must act when the server comes back registers with onReconnect.

import { serverURL } from './settings.js';
import { saveSoon } from './session.js';

const REQUEST_TIMEOUT_MS = 10000;

let connected = false;
let lastError = '';
const reconnectHooks = [];

/** fetch(serverURL + path) with a time limit. */
export async function request(path, init) {
  const ctrl = new AbortController();
  const t = setTimeout(() => ctrl.abort(), REQUEST_TIMEOUT_MS);
  try {
    return await fetch(serverURL() + path, { cache: 'no-store', ...init, signal: ctrl.signal });
  } finally {
    clearTimeout(t);
  }
}

/** POSTs body (a string: already JSON) to path. */
export const postJSON = (path, body) => request(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });

/** The server's problem ({error, message}) from a 4xx answer (empty strings if none). */
export async function problemOf(res) {
  try {
    const b = await res.json();
    return { error: b && b.error ? String(b.error) : '', message: b && b.message ? String(b.message) : '' };
  } catch (_) {
    return { error: '', message: '' };
  }
}

/** The server's error message from a 4xx answer ('' if none). */
export const errorText = async (res) => (await problemOf(res)).message;

/** A failed request's reason as the popup shows it. */
export const failure = (err) => (err && err.name === 'AbortError' ? 'timeout' : err && err.message);

export const isConnected = () => connected;
export const lastErrorText = () => lastError;

export function setLastError(text) {
  lastError = text;
  save();
}

/** Records whether the server answered; on the way back up the reconnect hooks run. */
export function setConnected(ok, err) {
  const was = connected;
  connected = ok;
  lastError = ok ? '' : String(err || 'unreachable');
  save();
  if (ok && !was) for (const f of reconnectHooks) f();
}

/** The server address changed: nothing is known about the new one. */
export function forgetConnection() {
  connected = false;
  save();
}

export function onReconnect(f) {
  reconnectHooks.push(f);
}

/** Start-up: what the previous life of the worker knew. */
export function restoreConnection(session) {
  const s = session.gasoline_status;
  if (!s) return;
  connected = !!s.connected;
  lastError = s.last_error || '';
}

function save() {
  saveSoon('gasoline_status', () => ({ connected, last_error: lastError }));
}
