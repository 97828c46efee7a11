// Asking a tab's current document something within a query's deadline: wait while the tab navigates,
// and when the document goes away under a question, ask the next one once it is ready.
// A job is a query in progress: {deadline, done, cancels}.

import { trackable } from './tracker.js';
import { QueryError, errText } from './errors.js';

// sendMessage/executeScript failures that mean "the document is going or not there yet".
const NO_RECEIVER = /Receiving end does not exist/i;
const DOC_GONE = /Receiving end does not exist|message (port|channel) (is )?closed|back\/forward cache|Frame with ID \d+ was removed|No frame with id|document (was|has been) (removed|unloaded)|frame was removed/i;
/** Failures that mean the extension may not read the page. */
export const NO_ACCESS = /Cannot access|cannot be scripted|showing error page|extensions gallery|chrome:\/\//i;


// The content script (isolated world) but content/start.js, in order. The manifest runs only the
// page-world capture (page/) and start.js, which holds what page/inject.js sends, at document_start:
// no page pays for the rest before its load event (PERFORMANCE.md). The worker runs these in a main-frame document at its load
// (webNavigation.onCompleted), or LOAD_WAIT_MS after its commit if the load takes longer, so a slow
// page's errors still arrive within about a second. Every file runs once per document however often
// it is given. Never start.js: in a page opened before the extension there is no inject.js, and the
// first hello would be the page's.
const CONTENT_SCRIPTS = [
  'generated/constants.js', 'content/scrub.js', 'content/gate.js', 'content.js',
  'content/actions.js', 'content/queries.js', 'content/pilot.js', 'content/quiet.js', 'content/act.js', 'content/perf.js',
];
// The parts only a rare query needs run when it is asked, in the document asked: no page pays for them
// at its load. page/serialize.js turns IndexedDB's records into JSON as the page world's values.
export const ON_DEMAND = {
  styles: ['content/styles.js'],
  storage: ['page/serialize.js', 'content/storage.js'],
};
const LOAD_WAIT_MS = 1000;
const RUN_MAX = 500; // documents remembered as given the content script

// A document's key: its documentId, or in Firefox (no documentIds) its tab.
const docKey = (d) => d.documentId || `tab ${d.tabId}`;
// A tab's top document, also one prerendering (its frameId is not 0 until it is shown); not a
// subframe or a fenced frame. Firefox gives no frameType.
const topDocument = (d) => d.tabId >= 0 && (d.frameType ? d.frameType === 'outermost_frame' : d.frameId === 0) && trackable(d.url);

// A wake-up can be missed (Firefox orders its tab and navigation events otherwise than Chromium): a
// wait ends WAKE_RECHECK_MS later at the latest and the caller looks again.
const WAKE_RECHECK_MS = 1000;

// Resolves at the tab's next wake-up, or WAKE_RECHECK_MS later; rejected when the query ends (its
// deadline).
function nextWake(s, job, clock) {
  return new Promise((resolve, reject) => {
    const woken = () => {
      clock.clearTimeout(timer);
      s.waiters.delete(woken);
      resolve(undefined);
    };
    const timer = clock.setTimeout(woken, WAKE_RECHECK_MS);
    const cancel = () => {
      clock.clearTimeout(timer);
      s.waiters.delete(woken);
      reject(new QueryError('timeout', 'deadline'));
    };
    s.waiters.add(woken);
    job.cancels.push(cancel);
  });
}

// Only content.js heard the query: the parts that answer it run right after it and say 'ready' once
// there.
class PartsPending extends Error {}

// Runs in the content script's world (serialized: nothing from this module).
function seedContent(answer) {
  const G = globalThis.__gasolineContent;
  return G && typeof G.seed === 'function' ? G.seed(answer) : '';
}

/**
 * @typedef {object} DocumentsDeps
 * @property {{get(id: number): Promise<any>, sendMessage: Function, reload(id: number): Promise<void>, update(id: number, p: object): Promise<any>}} tabs chrome.tabs
 * @property {{executeScript(inj: object): Promise<any[]>}} scripting chrome.scripting
 * @property {import('./clock.js').Clock} clock
 * @property {{state(id: number): any, open(id: number): boolean, markNavigating(id: number, url: string): void, documentReady(id: number, url: string): void}} tracked
 *   tabs.js's Tabs: each tab's navigation and wake-ups
 * @property {() => Promise<unknown>} seed the settings handed to a content script (background.js's, once they are loaded)
 * @property {boolean} [loadingFromStart] the tab's status is loading from a navigation's start (Firefox), not its commit
 */

/** The tabs' documents: the content script each is given, and the questions asked of the one there now. */
export class Documents {
  /** @param {DocumentsDeps} deps */
  constructor(deps) {
    this.d = deps;
    this.waiting = new Map(); // docKey → timer
    this.given = new Set(); // docKeys, oldest first
  }

  // A tab that has no content script while not navigating: a page opened before the extension was
  // installed or reloaded (no page-world capture either), or one whose load the worker missed. Give it
  // one (once per wake-up); pages the extension may not read are not_found.
  async adoptTab(tabId, s, job) {
    let t;
    try {
      t = await this.d.tabs.get(tabId);
    } catch (_) {
      throw new QueryError('not_found', `no tab with id ${tabId}`);
    }
    if (t.url) s.url = t.url;
    if (t.status === 'loading') {
      s.navigating = true;
      return false;
    }
    if (!trackable(t.url)) throw new QueryError('not_found', `tab ${tabId} shows ${t.url || 'a page'} which the extension cannot read`);
    if (s.injectedGen === s.gen) return false;
    s.injectedGen = s.gen;
    try {
      await this.giveContent({ tabId, frameIds: [0] });
    } catch (err) {
      if (job.done) return false;
      if (NO_ACCESS.test(errText(err))) throw new QueryError('not_found', `tab ${tabId} cannot be read: ${errText(err)}`);
      return false;
    }
    return true;
  }

  /**
   * Runs attempt() against the tab's current document: waits while the tab is navigating, and when the
   * document goes away under it waits for the next one's 'ready', all within the job's deadline.
   * Resolves to null if the job ended meanwhile.
   */
  async onDocument(tabId, job, attempt) {
    const { tracked } = this.d;
    const s = tracked.state(tabId);
    for (;;) { // every turn but the first waits for an event from the tab
      while (s.navigating && !job.done && tracked.open(tabId)) await this.waitNavigation(tabId, s, job);
      if (job.done) return null;
      if (!tracked.open(tabId)) throw new QueryError('not_found', `tab ${tabId} was closed`);
      const gen = s.gen;
      const navSeq = s.navSeq;
      try {
        const out = await attempt();
        // A navigation started while the old document was answering: that answer is about a page that
        // is going away; ask the next one.
        if (s.navSeq === navSeq || job.done) return out;
        continue;
      } catch (err) {
        if (job.done || err instanceof QueryError) throw err;
        const partsPending = err instanceof PartsPending;
        const m = errText(err);
        if (!partsPending) {
          if (/No tab with id/i.test(m)) throw new QueryError('not_found', `no tab with id ${tabId}`);
          if (NO_ACCESS.test(m) && !DOC_GONE.test(m)) throw new QueryError('not_found', `tab ${tabId} cannot be read: ${m}`);
          if (!DOC_GONE.test(m)) throw new QueryError('internal', m);
        }
        if (s.gen !== gen) continue; // the next document is already there
        if (partsPending) await this.givePartsAgain(tabId, s);
        else if (!s.navigating && NO_RECEIVER.test(m) && (await this.adoptTab(tabId, s, job))) continue;
        if (job.done) return null;
        if (s.gen === gen) await nextWake(s, job, this.d.clock);
      }
    }
  }

  // One wait for the tab's navigation to end. A tab that says complete is past a navigation it
  // committed, whatever events were missed; in Chromium, not past one it has not committed yet (the
  // tab shows the old page, complete, until the commit), in Firefox past any (its tab says loading from
  // a navigation's start).
  async waitNavigation(tabId, s, job) {
    await nextWake(s, job, this.d.clock);
    const over = () => s.navigating && (!s.uncommitted || this.d.loadingFromStart);
    if (job.done || !over()) return;
    let t;
    try {
      t = await this.d.tabs.get(tabId);
    } catch (_) {
      return; // closed: the caller finds it so
    }
    if (t.status === 'complete' && over()) {
      s.navigating = false;
      s.uncommitted = false;
      if (t.url) s.url = t.url;
    }
  }

  /** Asks the tab's content script query q; check, if given, runs before every attempt. */
  askContent(tabId, q, job, check) {
    const msg = { type: 'query', id: q.id, kind: q.kind, params: q.params, deadline: job.deadline };
    const files = ON_DEMAND[q.kind];
    return this.onDocument(tabId, job, async () => {
      if (check) check();
      if (files) await this.d.scripting.executeScript({ target: { tabId, frameIds: [0] }, files });
      const ans = await this.d.tabs.sendMessage(tabId, msg, { frameId: 0 });
      if (ans === undefined) throw new PartsPending();
      if (!ans || typeof ans !== 'object') throw new QueryError('internal', 'the content script did not answer the query');
      return ans;
    });
  }

  /** Waits until the tab is not navigating: a script runs once, in the page that is there. */
  async settled(tabId, job) {
    const s = this.d.tracked.state(tabId);
    while (s.navigating && !job.done && this.d.tracked.open(tabId)) await this.waitNavigation(tabId, s, job);
    if (!this.d.tracked.open(tabId)) throw new QueryError('not_found', `tab ${tabId} was closed`);
  }

  /** Starts a navigation of the tab and marks it navigating, so whatever asks next waits for the new page. */
  async navigateTab(tabId, url) {
    const { tabs } = this.d;
    const t = await tabs.get(tabId);
    const cur = t.url || '';
    const sameDoc = cur !== url && cur.split('#')[0] === url.split('#')[0] && url.includes('#');
    if (!sameDoc) this.d.tracked.markNavigating(tabId, url);
    if (cur === url) await tabs.reload(tabId);
    else await tabs.update(tabId, { url });
  }

  /** webNavigation.onCommitted: a main-frame document begins; its content script comes at its load at the latest LOAD_WAIT_MS from now. */
  onCommitted(d) {
    if (!topDocument(d)) return;
    const key = docKey(d);
    if (!d.documentId) this.given.delete(key); // Firefox: the tab's next document
    if (this.given.has(key)) return; // back from the back/forward cache
    const { clock } = this.d;
    clock.clearTimeout(this.waiting.get(key));
    this.waiting.set(key, clock.setTimeout(() => this.runContentScript(d), LOAD_WAIT_MS));
  }

  /** webNavigation.onCompleted: a main-frame document's load event is over. */
  onCompleted(d) {
    if (!topDocument(d)) return;
    this.runContentScript(d);
  }

  /** A document's start.js says the content script never came (the worker missed its load): run it now. */
  runMissed(sender) {
    const d = { tabId: sender.tab.id, documentId: sender.documentId, frameId: 0, url: sender.url };
    if (!trackable(d.url)) return;
    this.given.delete(docKey(d));
    this.runContentScript(d);
  }

  runContentScript(d) {
    const key = docKey(d);
    this.d.clock.clearTimeout(this.waiting.get(key));
    this.waiting.delete(key);
    if (this.given.has(key)) return;
    this.given.add(key);
    if (this.given.size > RUN_MAX) this.given.delete(this.given.values().next().value);
    const target = d.documentId ? { tabId: d.tabId, documentIds: [d.documentId] } : { tabId: d.tabId, frameIds: [0] };
    this.giveContent(target).catch(() => {
      // The document went away first, or is one the extension may not script.
    });
  }

  // Runs the content script in target's main-frame document, then hands it the settings in force in an
  // injection of their own: the page then sends no question for them (a new document's first messages
  // cost script time each; PERFORMANCE.md). That injection answers
  // whether the document is ready for queries (its DOM parsed, its parts there, not prerendering), as
  // its URL, which is the 'ready' the content script would otherwise send. Rejects if the files could
  // not run; a failed handing-over is the content script's to notice (it asks the worker itself).
  async giveContent(target) {
    const { scripting } = this.d;
    await scripting.executeScript({ target, files: CONTENT_SCRIPTS });
    try {
      const answer = await this.d.seed();
      const [r] = await scripting.executeScript({ target, func: seedContent, args: [answer] });
      const url = r && typeof r.result === 'string' ? r.result : '';
      if (url) this.d.tracked.documentReady(target.tabId, url);
    } catch (_) { /* the document went away */ }
  }

  // content.js answers but its parts are not there (the injection failed part way, or the document went
  // away under it): run the content script in the tab's main frame, once per wake-up.
  // If that is the page being left, its 'ready' ends no wait (tracker.ready) and the next page is asked.
  async givePartsAgain(tabId, s) {
    if (s.partsGen === s.gen) return;
    s.partsGen = s.gen;
    try {
      await this.giveContent({ tabId, frameIds: [0] });
    } catch (_) { /* the wait below ends at the deadline */ }
  }
}
