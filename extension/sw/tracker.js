// The one tab tracker: which window is focused, which tab a query for "tab 0" means, the page last
// reported to the server, and per tab whether its document is navigating (so queries wait for the next
// one). Pure decisions on the events tabs.js feeds it; no chrome.*, so Node tests import it.

export const WINDOW_NONE = -1; // chrome.windows.WINDOW_ID_NONE

/** Pages the extension captures and queries: web pages and files, never chrome:// or the extension's own. */
export const trackable = (url) => /^(https?|file):/i.test(url || '');

/** A webNavigation event of a tab's main document (not a subframe, fenced frame or prerender). */
export const primaryFrame = (d) => d.tabId >= 0 && d.frameId === 0 && d.frameType !== 'fenced_frame' && d.documentLifecycle !== 'prerender';

export class Tracker {
  constructor() {
    this.focusedWindow = WINDOW_NONE;
    this.humanWindow = WINDOW_NONE; // the focused window before the one focused now
    this.tracked = -1; // cached answer for tab 0; -1 = ask Chrome
    this.fallback = false; // tracked is the tab that last sent events, not the active one
    this.lastEventTab = -1; // the tab that last sent events or 'ready'
    this.page = null; // the Page last reported to the server
    // tabId → {url, navigating, uncommitted, navURL, navSeq, gen, waiters, injectedGen, partsGen}. gen counts
    // wake-ups ('ready' from the content script, or the load completing); waiters run on the next one.
    // uncommitted: a navigation started and its document has not committed, so a 'ready' now is
    // the old document's (its parts can arrive late) and must not end the wait.
    this.tabs = new Map();
  }

  state(id) {
    let s = this.tabs.get(id);
    if (!s) {
      s = { url: '', navigating: false, uncommitted: false, navURL: '', navSeq: 0, gen: 0, waiters: new Set(), injectedGen: -1, partsGen: -1 };
      this.tabs.set(id, s);
    }
    return s;
  }

  /** Runs the tab's waiters: its document may have changed. */
  wake(id) {
    const s = this.tabs.get(id);
    if (!s) return;
    s.gen++;
    const waiters = Array.from(s.waiters);
    s.waiters.clear();
    for (const f of waiters) f();
  }

  // ---- which tab: focus and activation

  /** Another tab was activated: tab 0 must be asked again. */
  activated() {
    this.tracked = -1;
  }

  /** A window got the focus; returns false for "no window" (focus left the browser), which changes nothing. */
  focused(windowId) {
    if (windowId === WINDOW_NONE) return false;
    if (this.focusedWindow >= 0) this.humanWindow = this.focusedWindow;
    this.focusedWindow = windowId;
    this.tracked = -1;
    return true;
  }

  /**
   * A window closed. Returns true if it was the focused one: Chromium headless fires no onFocusChanged
   * for the window focused next, so the caller must ask which one it is.
   */
  windowRemoved(windowId) {
    if (windowId !== this.focusedWindow) return false;
    this.focusedWindow = WINDOW_NONE;
    this.tracked = -1;
    return true;
  }

  /** Where the active tab is to be looked for (a chrome.tabs.query filter). */
  /**
   * The window an AI session's tab opened in took the focus before the worker knew it was the AI's:
   * the human's window before it is the focused one again. Returns whether anything changed.
   * @param {number} windowId
   */
  notHumans(windowId) {
    if (this.focusedWindow !== windowId) return false;
    this.focusedWindow = this.humanWindow;
    this.tracked = -1;
    return true;
  }

  activeQuery() {
    return this.focusedWindow >= 0 ? { active: true, windowId: this.focusedWindow } : { active: true, lastFocusedWindow: true };
  }

  // ---- tab 0 for queries

  /** The cached tab 0 if it is still open, else -1. */
  cached() {
    return this.tracked >= 0 && this.tabs.has(this.tracked) ? this.tracked : -1;
  }

  /**
   * Tab 0 given the active tab of the focused window: that tab if it shows a web page, else the tab that
   * last sent events; -1 if neither.
   */
  choose(active) {
    if (active && typeof active.id === 'number' && trackable(active.url || active.pendingUrl)) {
      const s = this.state(active.id);
      if (active.url) s.url = active.url;
      this.tracked = active.id;
      this.fallback = false;
      return active.id;
    }
    if (this.lastEventTab >= 0) {
      this.tracked = this.lastEventTab;
      this.fallback = true;
      return this.lastEventTab;
    }
    return -1;
  }

  /** A content script of tab id (at url) sent events or 'ready'. */
  heardFrom(id, url) {
    const s = this.state(id);
    if (url) s.url = url;
    if (trackable(url) && this.lastEventTab !== id) {
      this.lastEventTab = id;
      if (this.fallback) this.tracked = -1;
    }
  }

  // ---- the page reported to the server

  /**
   * The Page to report for tab (a chrome.tabs.Tab), or null when it is not the active web page of the
   * focused window or was reported already.
   */
  report(tab, now) {
    if (!tab || !tab.active || typeof tab.id !== 'number' || !trackable(tab.url)) return null;
    if (this.focusedWindow >= 0 && tab.windowId !== this.focusedWindow) return null;
    const page = { tab: tab.id, url: tab.url, title: tab.title || '', active: true, ts: now };
    const last = this.page;
    if (last && last.tab === page.tab && last.url === page.url && last.title === page.title) return null;
    this.page = page;
    return page;
  }

  // ---- a tab's document

  /** tabs.onUpdated: returns whether the tab's page should be reported again. */
  updated(id, change) {
    if (change.status === 'loading') {
      const s = this.state(id);
      s.navigating = true;
      s.uncommitted = false; // 'loading' comes when the new document commits
    } else if (change.status === 'complete') {
      // Normally 'ready' came first. If not (a same-document navigation, a page the content script
      // cannot run in), waiters try once more and learn what is there.
      const s = this.tabs.get(id);
      if (s) {
        s.navigating = false;
        s.uncommitted = false; // a document loaded, whatever the events said before
        this.wake(id);
      }
    }
    if (change.url) {
      const s = this.tabs.get(id);
      if (s) s.url = change.url;
      if (id === this.tracked ? !trackable(change.url) : this.fallback) this.tracked = -1;
    }
    return !!(change.url || change.title || change.status === 'complete');
  }

  /** The content script of the tab's main document says it is ready. */
  ready(id, url) {
    this.heardFrom(id, url);
    const s = this.state(id);
    if (s.uncommitted) return; // the page being left
    s.navigating = false;
    this.wake(id);
  }

  /** A navigation starts (webNavigation.onBeforeNavigate of the main frame). */
  navigating(id, url) {
    const s = this.state(id);
    s.navigating = true;
    s.uncommitted = true;
    s.navURL = url;
    s.navSeq++;
  }

  /** A navigation ended without a new document (download, 204, aborted, net error). */
  navigationFailed(id, url) {
    const s = this.tabs.get(id);
    if (!s || !s.navigating || s.navURL !== url) return; // an older navigation, superseded
    s.navigating = false;
    s.uncommitted = false;
    this.wake(id);
  }

  removed(id) {
    const s = this.tabs.get(id);
    this.tabs.delete(id);
    if (this.tracked === id) this.tracked = -1;
    if (this.lastEventTab === id) this.lastEventTab = -1;
    if (s) for (const f of s.waiters) f(); // they find the tab gone
  }

  replaced(added, removed) {
    this.tabs.delete(removed);
    if (this.tracked === removed) this.tracked = -1;
    if (this.lastEventTab === removed) this.lastEventTab = added;
  }
}
