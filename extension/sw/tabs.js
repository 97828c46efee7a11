// The chrome side of the tab tracker (tracker.js): feeds it the tab, window and navigation events,
// reports the tracked page to the server (POST /page) and answers which tab a query means.

import { Tracker, primaryFrame } from './tracker.js';
import { QueryError } from './errors.js';

/** The id of the tab whose main frame sent a message, or -1 (a subframe, not a tab). */
export function mainFrameTab(sender) {
  const tab = sender.tab;
  return sender.frameId === 0 && tab && typeof tab.id === 'number' && tab.id >= 0 ? tab.id : -1;
}

/**
 * @typedef {object} TabsDeps
 * @property {{get(id: number): Promise<any>, query(q: object): Promise<any[]>}} tabs chrome.tabs
 * @property {{getLastFocused(o: object): Promise<any>} | undefined} windows chrome.windows (none: the events' focus)
 * @property {import('./clock.js').Clock} clock
 * @property {{postJSON(path: string, body: string): Promise<Response>, isConnected(): boolean, setConnected(ok: boolean, err?: unknown): void}} link
 * @property {(key: string, value: unknown) => void} save the session store's saveSoon
 * @property {(m: {tab: number, reason: string, ts: number}) => boolean} pageLeft the channel's tellPageLeft,
 *   which costs less than a POST (false: not sent)
 */

/** The tabs the worker follows: background.js registers its methods as the chrome listeners. */
export class Tabs {
  /** @param {TabsDeps} deps */
  constructor(deps) {
    this.d = deps;
    this.tracker = new Tracker();
  }

  /** A tab's state (navigating, waiters, …), created on first use. @param {number} id */
  state(id) { return this.tracker.state(id); }

  /** @param {number} id */
  open(id) { return this.tracker.tabs.has(id); }

  /** @param {number} id */
  url(id) { return (this.tracker.tabs.get(id) || {}).url || ''; }

  /** The worker itself starts a navigation of the tab (the pilot loading a snapshot's page). */
  markNavigating(id, url) { this.tracker.navigating(id, url); }

  // ---- listeners (registered by background.js)

  /**
   * A window the pilot opened for an AI session's own tab (new_tab): its focus and tabs never become
   * the human's tracked tab.
   * @param {number} windowId
   */
  aiWindow(windowId) {
    if (!this.aiWindows) this.aiWindows = new Set();
    this.aiWindows.add(windowId);
    if (this.tracker.notHumans(windowId)) this.reportActiveTab();
  }

  /** @param {number} windowId */
  isAIWindow(windowId) { return !!this.aiWindows && this.aiWindows.has(windowId); }

  onActivated({ tabId, windowId }) {
    if (this.isAIWindow(windowId)) return;
    this.tracker.activated();
    this.d.tabs.get(tabId).then((tab) => this.reportTab(tab), () => {});
  }

  onUpdated(tabId, change, tab) {
    if (this.tracker.updated(tabId, change)) this.reportTab(tab);
  }

  onFocusChanged(windowId) {
    if (this.isAIWindow(windowId) || !this.tracker.focused(windowId)) return;
    this.d.tabs.query({ active: true, windowId }).then(([tab]) => this.reportTab(tab), () => {});
  }

  onWindowRemoved(windowId) {
    if (this.aiWindows) this.aiWindows.delete(windowId);
    if (this.tracker.windowRemoved(windowId)) this.reportActiveTab();
  }

  onTabRemoved(tabId) {
    this.tracker.removed(tabId);
    this.pageLeft(tabId, 'tab_closed', this.d.clock.now());
  }

  /**
   * webNavigation.onCommitted: a new document in a tab's main frame, so the one before it is gone (reloaded,
   * navigated away from, or put in the back/forward cache); at d.timeStamp, before the new one ran a script.
   */
  onDocumentCommitted(d) {
    if (primaryFrame(d)) this.pageLeft(d.tabId, d.transitionType === 'reload' ? 'reload' : 'navigation', d.timeStamp);
  }

  // The server closes what a gone document left open (its WebSockets), which the page cannot report: on the
  // socket, else with POST /page-left.
  pageLeft(tab, reason, ts) {
    const m = { tab, reason, ts: Math.round(ts || this.d.clock.now()) };
    if (!this.d.pageLeft(m)) this.d.link.postJSON('/page-left', JSON.stringify(m)).catch(() => {});
  }

  onTabReplaced(added, removed) {
    this.tracker.replaced(added, removed);
    this.pageLeft(removed, 'navigation', this.d.clock.now()); // the tab now shows another tab's document
  }

  // tabs.onUpdated says 'loading' only when the new document commits (in Chromium, once the response is
  // in), which leaves the old document answering for the whole request. webNavigation says when the
  // navigation starts; one that ends without a new document wakes the waiters again.
  onBeforeNavigate(d) {
    if (primaryFrame(d)) this.tracker.navigating(d.tabId, d.url);
  }

  onNavigationError(d) {
    if (primaryFrame(d)) this.tracker.navigationFailed(d.tabId, d.url);
  }

  /** A content script sent events: remember the tab (the fallback for tab 0). */
  heardFrom(sender) {
    const tab = sender.tab;
    if (tab && typeof tab.id === 'number' && tab.id >= 0) this.tracker.heardFrom(tab.id, sender.url || tab.url);
  }

  /** A content script says its document is ready for queries. */
  onReady(sender) {
    const id = mainFrameTab(sender);
    if (id < 0) return;
    if (sender.documentLifecycle && sender.documentLifecycle !== 'active') return;
    this.documentReady(id, sender.url || sender.tab.url);
  }

  /** Tab id's main-frame document, at url, is ready for queries (its content script said so). */
  documentReady(id, url) {
    this.tracker.ready(id, url);
  }

  // ---- the page reported to the server

  async postPage(page) {
    const { link } = this.d;
    try {
      const res = await link.postJSON('/page', JSON.stringify(page));
      if (res.ok && !link.isConnected()) link.setConnected(true);
    } catch (err) {
      link.setConnected(false, err && err.message);
    }
  }

  reportTab(tab) {
    const page = this.tracker.report(tab, this.d.clock.now());
    if (!page) return;
    this.d.save('gasoline_page', page);
    this.postPage(page);
  }

  /** The page last reported to the server, or null: a server the worker's socket reaches may be a new one. */
  trackedPage() { return this.tracker.page; }

  /** The server came back: it may not know the page. */
  repostPage() {
    if (this.tracker.page) this.postPage(this.tracker.page);
  }

  /** The server address changed: the new one knows no page. */
  forgetPage() {
    this.tracker.page = null;
  }

  restorePage(session) {
    if (session.gasoline_page && typeof session.gasoline_page === 'object') this.tracker.page = session.gasoline_page;
  }

  // The active tab of the focused window (asking Chrome which window that is).
  async activeTab() {
    try {
      const win = await this.d.windows?.getLastFocused({ populate: false });
      if (win && typeof win.id === 'number' && win.focused) this.tracker.focusedWindow = win.id;
    } catch (_) { /* keep what the events said */ }
    const [tab] = await this.d.tabs.query(this.tracker.activeQuery());
    return tab;
  }

  async reportActiveTab() {
    try {
      this.reportTab(await this.activeTab());
    } catch (_) { /* ignore */ }
  }

  // ---- which tab a query means

  // tab 0: the active tab of the focused window if it shows a web page, else the tab that last sent
  // events. Cached until a tab or window event says otherwise.
  async resolveTab(tab) {
    const { tracker } = this;
    if (tab === undefined || tab === null || tab === 0) {
      const cached = tracker.cached();
      if (cached >= 0) return cached;
      let active;
      try {
        active = await this.activeTab();
      } catch (_) { /* none */ }
      const id = tracker.choose(active);
      if (id >= 0) return id;
      throw new QueryError('not_found', 'no tab to query: the focused window shows no web page and no page has sent events');
    }
    if (!Number.isInteger(tab) || tab < 0) throw new QueryError('invalid_param', `tab_id must be a tab id or 0, not ${JSON.stringify(tab)}`);
    if (tracker.tabs.has(tab)) return tab; // seen alive, and onRemoved forgets closed tabs
    try {
      const t = await this.d.tabs.get(tab);
      const s = tracker.state(tab);
      if (t.url) s.url = t.url;
      if (t.status === 'loading') s.navigating = true;
    } catch (_) {
      throw new QueryError('not_found', `no tab with id ${tab}`);
    }
    return tab;
  }
}
