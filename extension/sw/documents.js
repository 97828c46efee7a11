// Asking a tab's current document something within a query's deadline: wait while the tab navigates,
// and when the document goes away under a question, ask the next one once it is ready.
// A job is a query in progress: {deadline, done, cancels}.

import { tabState, tabOpen, markNavigating, mainFrameTab } from './tabs.js';
import { trackable } from './tracker.js';
import { QueryError, errText } from './errors.js';

// sendMessage/executeScript failures that mean "the document is going or not there yet".
const NO_RECEIVER = /Receiving end does not exist/i;
const DOC_GONE = /Receiving end does not exist|message (port|channel) (is )?closed|back\/forward cache|Frame with ID \d+ was removed|No frame with id|document (was|has been) (removed|unloaded)|frame was removed/i;
/** Failures that mean the extension may not read the page. */
export const NO_ACCESS = /Cannot access|cannot be scripted|showing error page|extensions gallery|chrome:\/\//i;

// Resolves at the tab's next wake-up; rejected when the query ends (its deadline).
function nextWake(s, job) {
  return new Promise((resolve, reject) => {
    const cancel = () => {
      s.waiters.delete(resolve);
      reject(new QueryError('timeout', 'deadline'));
    };
    s.waiters.add(resolve);
    job.cancels.push(cancel);
  });
}

// A tab that has no content script while not navigating: a page opened before the extension was
// installed or reloaded. Give it one (once per wake-up); pages the extension may not read are not_found.
async function adoptTab(tabId, s, job) {
  let t;
  try {
    t = await chrome.tabs.get(tabId);
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
    await chrome.scripting.executeScript({ target: { tabId, frameIds: [0] }, files: isolatedContentScripts() });
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
export async function onDocument(tabId, job, attempt) {
  const s = tabState(tabId);
  for (;;) { // every turn but the first waits for an event from the tab
    if (s.navigating) await nextWake(s, job);
    if (job.done) return null;
    if (!tabOpen(tabId)) throw new QueryError('not_found', `tab ${tabId} was closed`);
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
      if (partsPending) await givePartsAgain(tabId, s);
      else if (!s.navigating && NO_RECEIVER.test(m) && (await adoptTab(tabId, s, job))) continue;
      if (job.done) return null;
      if (s.gen === gen) await nextWake(s, job);
    }
  }
}

// Only content.js heard the query: the parts that answer it are on their way (givePartsTo) and say
// 'ready' once there.
class PartsPending extends Error {}

/** Asks the tab's content script query q; check, if given, runs before every attempt. */
export function askContent(tabId, q, job, check) {
  const msg = { type: 'query', id: q.id, kind: q.kind, params: q.params, deadline: job.deadline };
  return onDocument(tabId, job, async () => {
    if (check) check();
    const ans = await chrome.tabs.sendMessage(tabId, msg, { frameId: 0 });
    if (ans === undefined) throw new PartsPending();
    if (!ans || typeof ans !== 'object') throw new QueryError('internal', 'the content script did not answer the query');
    return ans;
  });
}

/** Waits until the tab is not navigating: a script runs once, in the page that is there. */
export async function settled(tabId, job) {
  const s = tabState(tabId);
  while (s.navigating && !job.done) await nextWake(s, job);
  if (!tabOpen(tabId)) throw new QueryError('not_found', `tab ${tabId} was closed`);
}

/** Starts a navigation of the tab and marks it navigating, so whatever asks next waits for the new page. */
export async function navigateTab(tabId, url) {
  const t = await chrome.tabs.get(tabId);
  const cur = t.url || '';
  const sameDoc = cur !== url && cur.split('#')[0] === url.split('#')[0] && url.includes('#');
  if (!sameDoc) markNavigating(tabId, url);
  if (cur === url) await chrome.tabs.reload(tabId);
  else await chrome.tabs.update(tabId, { url });
}

// The content scripts' parts that answer queries (queries.js, and pilot.js on it) and sample the page
// load (perf.js). No page pays for them before its load event (issue 12): content.js asks for the
// settings at the load, and the answer brings these.
const CONTENT_PARTS = ['content/queries.js', 'content/pilot.js', 'content/perf.js'];

/**
 * Runs the parts in the document whose content.js asked for the settings (sender). A part already
 * running there stops at once, so asking twice costs nothing. Firefox's senders carry no documentId:
 * the tab's main frame is then whatever document is there, which runs its own parts only once too.
 */
export function givePartsTo(sender) {
  const tabId = mainFrameTab(sender);
  if (tabId < 0) return;
  const target = sender.documentId ? { tabId, documentIds: [sender.documentId] } : { tabId, frameIds: [0] };
  chrome.scripting.executeScript({ target, files: CONTENT_PARTS }).catch(() => {
    // The document went away first: its successor's content.js asks for them itself.
  });
}

// content.js answers but its parts are not there and did not come (the document was prerendering when
// it asked, or it went away under the injection): run them in the tab's main frame, once per wake-up.
// If that is the page being left, its 'ready' ends no wait (tracker.ready) and the next page is asked.
async function givePartsAgain(tabId, s) {
  if (s.partsGen === s.gen) return;
  s.partsGen = s.gen;
  try {
    await chrome.scripting.executeScript({ target: { tabId, frameIds: [0] }, files: CONTENT_PARTS });
  } catch (_) { /* the wait below ends at the deadline */ }
}

// The isolated-world content scripts in manifest order (constants, scrubber, core, actions): a tab
// opened before the extension loaded gets what a new page gets, the parts included (content.js asks).
function isolatedContentScripts() {
  return chrome.runtime.getManifest().content_scripts.filter((c) => c.world !== 'MAIN').flatMap((c) => c.js);
}
