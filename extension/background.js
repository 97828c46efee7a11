// Gasoline service worker (an ES module worker; the modules are under sw/). It queues what the content
// scripts capture and delivers it to the local Gasoline server in order (sw/delivery.js), follows the
// server's capture settings (sw/settings.js), reports the tracked tab (sw/tabs.js), answers the
// server's on-demand queries pushed over a WebSocket (sw/channel.js, sw/queries.js), lists every request
// of the pages from the browser's webRequest events (sw/requests.js) and holds the
// human's AI Web Pilot switch (sw/pilot-switch.js). See PROTOCOL.md.
//
// This module registers exactly one listener per chrome event, all in the worker's first turn: MV3
// wakes a stopped worker for an event only if a listener for it was added at the top level. The
// worker's stateful parts are objects built here, once, from the chrome APIs, fetch and the clock they
// use (the Node tests build them from fakes); every listener dispatches to the one that owns the state.

import { CaptureSettings } from './sw/settings.js';
import { SessionStore } from './sw/session.js';
import { Link, errorText } from './sw/link.js';
import { Delivery } from './sw/delivery.js';
import { Tabs } from './sw/tabs.js';
import { Channel } from './sw/channel.js';
import { systemClock } from './sw/clock.js';
import { QueryRunner } from './sw/queries.js';
import { makeShooter } from './sw/screenshot.js';
import { Audits } from './sw/a11y.js';
import { Screenshots, shrinkPNG } from './sw/error-screenshots.js';
import { PilotSwitch } from './sw/pilot-switch.js';
import { Pilot } from './sw/pilot-actions.js';
import { ScriptRunner, parkingKey } from './sw/script.js';
import { Actor } from './sw/act.js';
import { Styles } from './sw/styles.js';
import { BROWSER } from './sw/platform.js';
import { Documents } from './sw/documents.js';
import { passHeld, scrubURL, serverTest } from './sw/held.js';
import { Requests, loadTypes } from './sw/requests.js';
import { Picker } from './sw/picker.js';
import { StartupQueue } from './sw/startup.js';
import { StorageReader } from './sw/storage.js';

const ALARM = 'gasoline-poll';

// Events that arrive before the stored state is loaded wait here.
const startup = new StartupQueue();

const session = new SessionStore({ storage: chrome.storage.session, clock: systemClock });
const save = (key, value) => session.saveSoon(key, value);
const settings = new CaptureSettings({ storage: chrome.storage, tabs: chrome.tabs, save, clock: systemClock });
const link = new Link({ fetch: (url, init) => fetch(url, init), clock: systemClock, serverURL: () => settings.serverURL(), save });
const pilot = new PilotSwitch({ storage: chrome.storage, runtime: chrome.runtime });
const tabs = new Tabs({
  tabs: chrome.tabs, windows: chrome.windows, clock: systemClock, link, save, pageLeft: (m) => channel.tellPageLeft(m),
});
const documents = new Documents({
  tabs: chrome.tabs, scripting: chrome.scripting, clock: systemClock, tracked: tabs, seed: () => ready.then(() => settings.forTab()),
  loadingFromStart: BROWSER === 'firefox',
});
const script = new ScriptRunner({
  debugger: BROWSER === 'firefox' ? null : chrome.debugger, // Firefox has none: the page's main world instead
  scripting: chrome.scripting,
  clock: systemClock,
  pilot,
  settled: (tabId, job) => documents.settled(tabId, job),
  randomKey: parkingKey,
});
const actor = new Actor({
  debugger: BROWSER === 'firefox' ? null : chrome.debugger, // Firefox: the content script dispatches the events
  tabs: chrome.tabs, windows: chrome.windows, documents, tracked: tabs, pilot, clock: systemClock,
  lock: (tabId, fn) => script.withTabLock(tabId, fn), // one debugger session per tab: the AI's script or its action
  deliverHeld: () => delivery.deliverHeld(),
});
const styles = new Styles({
  debugger: BROWSER === 'firefox' ? null : chrome.debugger, // Firefox: the content script walks the sheets
  documents, clock: systemClock,
  lock: (tabId, fn) => script.withTabLock(tabId, fn), // the AI's scripts and actions hold it too
});
const actions = new Pilot({
  tabs: chrome.tabs, storage: chrome.storage.local, scripting: chrome.scripting, cookies: chrome.cookies, clock: systemClock, pilot, script,
  tracked: tabs, documents, act: actor,
});
const channel = new Channel({
  WebSocket,
  version: chrome.runtime.getManifest().version,
  clock: systemClock,
  settings,
  link,
  pilot,
  trackedPage: () => tabs.trackedPage(),
  onQuery: (q) => queries.run(q),
  onSettings: (m) => ready.then(() => settings.applyServer(m)),
});
const delivery = new Delivery({ storage: chrome.storage, clock: systemClock, link, channel, save });
let serverURLs = { of: '', test: (/** @type {string} */ _u) => false };
const requests = new Requests({
  clock: systemClock,
  scrubURL,
  tabURL: (id) => tabs.url(id),
  // The extension's own traffic to the server never comes with a tab; a page's is left out as the hooks' is.
  ignored: (url) => {
    const s = settings.serverURL();
    if (serverURLs.of !== s) serverURLs = { of: s, test: serverTest(s) };
    return serverURLs.test(url);
  },
  deliver: (tab, page, entries) => startup.run(() => delivery.accept(entries.map((data) => ({ kind: 'network', data })), { tab: { id: tab, url: page } })),
});
const screenshots = new Screenshots({
  tabs: chrome.tabs, settings, clock: systemClock, shrink: shrinkPNG, errorText,
  deliverLogsThrough: (seq) => delivery.deliverLogsThrough(seq),
  postJSON: (path, body) => link.postJSON(path, body),
});
const audits = new Audits({ scripting: chrome.scripting, fetch: (url, init) => fetch(url, init), getURL: (p) => chrome.runtime.getURL(p), documents });
const shots = makeShooter({ chrome, settings: () => settings.effective });
const storage = new StorageReader({ settings: () => settings.effective, cookies: chrome.cookies, documents });
const queries = new QueryRunner({
  send: (m) => channel.sendResult(m), pilot: actions, audits, shots, styles, storage, clock: systemClock,
  deliverHeld: () => {
    requests.handOver();
    return delivery.deliverHeld();
  },
  tracked: tabs, documents,
});
const picker = new Picker({
  scripting: chrome.scripting, resolveTab: (tab) => tabs.resolveTab(tab), shoot: shots.shoot, settings: () => settings.effective,
  postJSON: (path, body) => link.postJSON(path, body), errorText,
});

chrome.runtime.onMessage.addListener(onMessage);
if (BROWSER !== 'firefox' && chrome.debugger) {
  chrome.debugger.onEvent.addListener((src, method, params) => {
    actor.onDebuggerEvent(src, method, params);
    styles.onDebuggerEvent(src, method, params);
  });
}
chrome.storage.sync.onChanged.addListener(onSettingsChanged);
chrome.runtime.onInstalled.addListener(() => { ready.then(() => settings.recompute()); });
chrome.runtime.onStartup.addListener(() => { ready.then(() => settings.recompute()); });
chrome.alarms.onAlarm.addListener(onAlarm);
// The manifest's "point-at-element" shortcut: the picker in the active page.
if (chrome.commands) {
  chrome.commands.onCommand.addListener((name) => {
    if (name === 'point-at-element') ready.then(() => picker.start(0, '')).catch(() => {});
  });
}
// An update clears chrome.storage.session (the journal, the stored queue): what is held goes to the
// server first, what it cannot take waits in chrome.storage.local for the new version.
chrome.runtime.onUpdateAvailable.addListener(() => {
  ready.then(() => delivery.handOverForUpdate()).finally(() => chrome.runtime.reload());
});
chrome.tabs.onActivated.addListener((info) => tabs.onActivated(info));
chrome.tabs.onUpdated.addListener((id, change, tab) => tabs.onUpdated(id, change, tab));
chrome.tabs.onRemoved.addListener((id) => {
  tabs.onTabRemoved(id);
  requests.removed(id);
});
chrome.tabs.onReplaced.addListener((added, removed) => tabs.onTabReplaced(added, removed));
if (chrome.windows) {
  chrome.windows.onFocusChanged.addListener((id) => tabs.onFocusChanged(id));
  chrome.windows.onRemoved.addListener((id) => tabs.onWindowRemoved(id));
}
if (chrome.webNavigation) {
  chrome.webNavigation.onBeforeNavigate.addListener((d) => tabs.onBeforeNavigate(d));
  chrome.webNavigation.onErrorOccurred.addListener((d) => tabs.onNavigationError(d));
  chrome.webNavigation.onCommitted.addListener((d) => documents.onCommitted(d)); // the content script, after the load
  chrome.webNavigation.onCommitted.addListener((d) => {
    tabs.onDocumentCommitted(d); // the server closes the old one's sockets
    requests.committed(d); // the page the tab's requests belong to from now on
  });
  chrome.webNavigation.onCompleted.addListener((d) => documents.onCompleted(d));
}
// Every request of the pages, observed (sw/requests.js): nothing is blocked or changed. Its start, its
// answer's headers (and status: a request can fail after them) and end; the size is the answer's
// content-length (Chrome says no size of its own). Fetch and XHR ('xmlhttprequest') are the page-world
// hooks': of them the worker hears only failures, which add the network's own error. Any listener that
// matches a request costs it a hop through the browser and the extension's process, whatever the event:
// a fetch-heavy page's largest cost (PERFORMANCE.md).
if (chrome.webRequest) {
  const all = { urls: ['<all_urls>'] };
  const loads = { urls: ['<all_urls>'], types: /** @type {chrome.webRequest.RequestFilter['types']} */ (loadTypes(chrome.webRequest.ResourceType)) };
  chrome.webRequest.onBeforeRequest.addListener((d) => { requests.started(d); return undefined; }, loads);
  chrome.webRequest.onBeforeRedirect.addListener((d) => requests.redirected(d), loads);
  chrome.webRequest.onHeadersReceived.addListener((d) => { requests.responded(d); return undefined; }, loads);
  chrome.webRequest.onCompleted.addListener((d) => requests.completed(d), loads, ['responseHeaders']);
  chrome.webRequest.onErrorOccurred.addListener((d) => requests.failed(d), all);
}

// The server answers again: deliver at once, and tell it which page is tracked.
link.onReconnect(() => {
  delivery.retryNow();
  tabs.repostPage();
});

// What the popup shows (and DevTools or a test can read: status() in the worker's console).
function status() {
  const d = delivery.stats();
  const v = settings.view();
  return {
    connected: link.isConnected(),
    server_url: settings.serverURL(),
    last_error: link.lastErrorText(),
    counts: d.counts,
    queued: d.queued,
    stored: d.stored,
    overrides: v.overrides,
    settings: v.settings,
    effective: v.effective,
    queries: channel.mode(),
    screenshots: screenshots.stats(),
    requests: requests.stats(),
    pilot: pilot.on(),
  };
}
globalThis.status = status;

function onEvents(events, sender) {
  requests.fromPage(events, sender.tab.id); // a fetch the hooks saw is listed once, theirs
  for (const e of delivery.accept(events, sender)) screenshots.onErrorLog(sender.tab, e.data, e.seq);
}

// Messages from content scripts, the popup and the options page.
function onMessage(msg, sender, sendResponse) {
  if (!msg || typeof msg !== 'object' || sender.id !== chrome.runtime.id) return false;
  switch (msg.type) {
    case 'events':
      if (!Array.isArray(msg.events) || !sender.tab) return false;
      tabs.heardFrom(sender);
      startup.run(() => onEvents(msg.events, sender));
      return false;
    case 'held':
      // A page left before its content script came (content/start.js): gated and scrubbed here.
      if (!Array.isArray(msg.events) || !sender.tab) return false;
      ready.then(() => onEvents(passHeld(msg.events, settings.effective), sender));
      return false;
    case 'missed':
      // content/start.js: the rest of the content script never came to this document.
      if (sender.tab && sender.frameId === 0) documents.runMissed(sender);
      return false;
    case 'ready':
      tabs.onReady(sender);
      return false;
    case 'status':
      ready.then(() => sendResponse(status()));
      return true;
    case 'effective':
      if (msg.ready === true) tabs.onReady(sender); // a content script not handed its settings asks, and says it
      ready.then(() => sendResponse(settings.forTab()));
      return true;
    case 'settings':
      // For the options page: the user's settings, the defaults and what is in force.
      ready.then(() => sendResponse(settings.view()));
      return true;
    case 'pick':
      // "Point at an element": only the extension's own pages (the popup) start the picker.
      if (!extensionPage(sender)) return false;
      ready.then(() => picker.start(0, msg.note)).then(sendResponse, (err) => sendResponse({ error: String((err && err.message) || err) }));
      return true;
    case 'picked':
      ready.then(() => picker.picked(sender, msg.element, msg.note)).then(sendResponse, (err) => sendResponse({ error: String((err && err.message) || err) }));
      return true;
    case 'pickCancelled':
      return false;
    case 'setAiWebPilotEnabled':
      // Only the extension's own pages (the popup) may flip the switch; never a content script.
      if (typeof msg.enabled !== 'boolean' || !extensionPage(sender)) return false;
      flipPilot(msg.enabled).then(sendResponse, () => sendResponse({ type: 'pilotStatusChanged', enabled: pilot.on() }));
      return true;
    default:
      return false;
  }
}

function extensionPage(sender) {
  const base = chrome.runtime.getURL('');
  return typeof sender.url === 'string' && sender.url.startsWith(base) && (!sender.origin || `${sender.origin}/` === base);
}

function flipPilot(enabled) {
  const done = pilot.set(enabled); // in force before set's first await
  if (!enabled) actions.clearHighlights();
  ready.then(() => {
    if (pilot.on() === enabled) channel.tellPilot(enabled);
  });
  return done;
}

function onSettingsChanged(changes) {
  if (!changes.gasoline_settings) return;
  const origins = JSON.stringify(settings.sourcemapOrigins());
  settings.userChanged(changes.gasoline_settings.newValue).then((serverChanged) => {
    if (!serverChanged) {
      if (JSON.stringify(settings.sourcemapOrigins()) !== origins) channel.tellSourcemapOrigins();
      return;
    }
    link.forget();
    tabs.forgetPage();
    delivery.retryNow();
    channel.pollSettings();
    tabs.reportActiveTab();
    channel.resetSocket();
  });
}

function onAlarm(alarm) {
  if (alarm.name !== ALARM) return;
  ready.then(() => {
    channel.pollSettings();
    delivery.scheduleFlush(0);
    channel.ensureSocket();
  });
}

async function init() {
  const stored = await session.read();
  delivery.restore(stored, await delivery.takeUpdateQueue());
  link.restore(stored);
  tabs.restorePage(stored);
  await settings.load(stored);
  await pilot.load(); // the hello and every poll carry the switch as reconciled from storage
  channel.start();
  session.startSaving();
  delivery.start();
  startup.start();
  try {
    if (!(await chrome.alarms.get(ALARM))) await chrome.alarms.create(ALARM, { periodInMinutes: 0.5 });
  } catch (_) { /* ignore */ }
  channel.pollSettings();
  tabs.reportActiveTab();
}

pilot.load();
const ready = init();
