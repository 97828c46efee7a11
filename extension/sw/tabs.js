// The chrome side of the tab tracker (tracker.js): feeds it the tab, window and navigation events,
// reports the tracked page to the server (POST /page) and answers which tab a query means.

import { Tracker, primaryFrame } from './tracker.js';
import { QueryError } from './errors.js';

const tracker = new Tracker();

/** A tab's state (navigating, waiters, …), created on first use. */
export const tabState = (id) => tracker.state(id);
export const tabOpen = (id) => tracker.tabs.has(id);
export const tabURL = (id) => (tracker.tabs.get(id) || {}).url || '';
/** The worker itself starts a navigation of the tab (the pilot loading a snapshot's page). */
export const markNavigating = (id, url) => tracker.navigating(id, url);

// ---- listeners (registered by background.js)

export function onActivated({ tabId }) {
  tracker.activated();
  chrome.tabs.get(tabId).then(reportTab, () => {});
}

export function onUpdated(tabId, change, tab) {
  if (tracker.updated(tabId, change)) reportTab(tab);
}

export function onFocusChanged(windowId) {
  if (!tracker.focused(windowId)) return;
  chrome.tabs.query({ active: true, windowId }).then(([tab]) => reportTab(tab), () => {});
}

export function onWindowRemoved(windowId) {
  if (tracker.windowRemoved(windowId)) reportActiveTab();
}

export function onTabRemoved(tabId) {
  tracker.removed(tabId);
  pageLeft(tabId, 'tab_closed', Date.now());
}

/**
 * webNavigation.onCommitted: a new document in a tab's main frame, so the one before it is gone (reloaded,
 * navigated away from, or put in the back/forward cache); at d.timeStamp, before the new one ran a script.
 */
export function onDocumentCommitted(d) {
  if (primaryFrame(d)) pageLeft(d.tabId, d.transitionType === 'reload' ? 'reload' : 'navigation', d.timeStamp);
}

/**
 * @typedef {object} TabsWiring
 * @property {{postJSON(path: string, body: string): Promise<Response>, isConnected(): boolean, setConnected(ok: boolean, err?: unknown): void}} link
 * @property {(key: string, value: unknown) => void} save the session store's saveSoon
 * @property {(m: {tab: number, reason: string, ts: number}) => boolean} pageLeft the channel's tellPageLeft,
 *   which costs less than a POST (false: not sent)
 */

/** @type {TabsWiring} what background.js built; until then nothing is reported */
let wired = {
  link: { postJSON: () => Promise.reject(new Error('not wired')), isConnected: () => false, setConnected: () => {} },
  save: () => {},
  pageLeft: () => false,
};

/** background.js hands the listeners below the objects they report through. @param {TabsWiring} w */
export function wireTabs(w) {
  wired = w;
}

// The server closes what a gone document left open (its WebSockets), which the page cannot report: on the
// socket, else with POST /page-left.
function pageLeft(tab, reason, ts) {
  const m = { tab, reason, ts: Math.round(ts || Date.now()) };
  if (!wired.pageLeft(m)) wired.link.postJSON('/page-left', JSON.stringify(m)).catch(() => {});
}

export function onTabReplaced(added, removed) {
  tracker.replaced(added, removed);
  pageLeft(removed, 'navigation', Date.now()); // the tab now shows another tab's document
}

// tabs.onUpdated says 'loading' only when the new document commits (in Chromium, once the response is
// in), which leaves the old document answering for the whole request. webNavigation says when the
// navigation starts; one that ends without a new document wakes the waiters again.
export function onBeforeNavigate(d) {
  if (primaryFrame(d)) tracker.navigating(d.tabId, d.url);
}

export function onNavigationError(d) {
  if (primaryFrame(d)) tracker.navigationFailed(d.tabId, d.url);
}

/** A content script sent events: remember the tab (the fallback for tab 0). */
export function heardFrom(sender) {
  const tab = sender.tab;
  if (tab && typeof tab.id === 'number' && tab.id >= 0) tracker.heardFrom(tab.id, sender.url || tab.url);
}

/** The id of the tab whose main frame sent a message, or -1 (a subframe, not a tab). */
export function mainFrameTab(sender) {
  const tab = sender.tab;
  return sender.frameId === 0 && tab && typeof tab.id === 'number' && tab.id >= 0 ? tab.id : -1;
}

/** A content script says its document is ready for queries. */
export function onReady(sender) {
  const id = mainFrameTab(sender);
  if (id < 0) return;
  if (sender.documentLifecycle && sender.documentLifecycle !== 'active') return;
  documentReady(id, sender.url || sender.tab.url);
}

/** Tab id's main-frame document, at url, is ready for queries (its content script said so). */
export function documentReady(id, url) {
  tracker.ready(id, url);
}

// ---- the page reported to the server

async function postPage(page) {
  try {
    const res = await wired.link.postJSON('/page', JSON.stringify(page));
    if (res.ok && !wired.link.isConnected()) wired.link.setConnected(true);
  } catch (err) {
    wired.link.setConnected(false, err && err.message);
  }
}

function reportTab(tab) {
  const page = tracker.report(tab, Date.now());
  if (!page) return;
  wired.save('gasoline_page', page);
  postPage(page);
}

/** The page last reported to the server, or null: a server the worker's socket reaches may be a new one. */
export const trackedPage = () => tracker.page;

/** The server came back: it may not know the page. */
export function repostPage() {
  if (tracker.page) postPage(tracker.page);
}

/** The server address changed: the new one knows no page. */
export function forgetPage() {
  tracker.page = null;
}

export function restorePage(session) {
  if (session.gasoline_page && typeof session.gasoline_page === 'object') tracker.page = session.gasoline_page;
}

// The active tab of the focused window (asking Chrome which window that is).
async function activeTab() {
  try {
    const win = await chrome.windows.getLastFocused({ populate: false });
    if (win && typeof win.id === 'number' && win.focused) tracker.focusedWindow = win.id;
  } catch (_) { /* keep what the events said */ }
  const [tab] = await chrome.tabs.query(tracker.activeQuery());
  return tab;
}

export async function reportActiveTab() {
  try {
    reportTab(await activeTab());
  } catch (_) { /* ignore */ }
}

// ---- which tab a query means

// tab 0: the active tab of the focused window if it shows a web page, else the tab that last sent
// events. Cached until a tab or window event says otherwise.
export async function resolveTab(tab) {
  if (tab === undefined || tab === null || tab === 0) {
    const cached = tracker.cached();
    if (cached >= 0) return cached;
    let active;
    try {
      active = await activeTab();
    } catch (_) { /* none */ }
    const id = tracker.choose(active);
    if (id >= 0) return id;
    throw new QueryError('not_found', 'no tab to query: the focused window shows no web page and no page has sent events');
  }
  if (!Number.isInteger(tab) || tab < 0) throw new QueryError('invalid_param', `tab_id must be a tab id or 0, not ${JSON.stringify(tab)}`);
  if (tracker.tabs.has(tab)) return tab; // seen alive, and onRemoved forgets closed tabs
  try {
    const t = await chrome.tabs.get(tab);
    const s = tracker.state(tab);
    if (t.url) s.url = t.url;
    if (t.status === 'loading') s.navigating = true;
  } catch (_) {
    throw new QueryError('not_found', `no tab with id ${tab}`);
  }
  return tab;
}
