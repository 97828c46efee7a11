// The AI's actions in a tab (pilot actions navigate … wait_for; PROTOCOL.md, "Actions"): one at a time per
// tab. The content script (content/act.js) finds and checks the target and says where it is; in Chromium
// the input is real, through chrome.debugger (Input.*), so the page sees trusted events as from a
// person; in Firefox, or when another debugger holds the tab, the content script dispatches the events.
// Then the page settles: no request in flight (Chromium: the debugger's Network events) and the DOM
// quiet for 300 ms after its last change (150 ms when nothing changed; content/act.js), at most SETTLE_MAX_MS; the answer says what the page shows then. What the action
// caused in requests and errors the server reads from what was captured meanwhile: this delivers it
// before answering.

import { QueryError, errText } from './errors.js';

export const ACTIONS = new Set(['navigate', 'reload', 'back', 'forward', 'click', 'type', 'press_key', 'select', 'hover', 'scroll', 'wait_for',
  'new_tab', 'close_tab']);
const SETTLE_MAX_MS = 2000;
const REQUESTS_MAX = 20;
const DETACH_WAIT_MS = 1000;
// Actions the content script performs in every browser: a native select's options and scrolling have no
// input that chrome.debugger could send better.
const CONTENT_ONLY = new Set(['select', 'scroll']);
// CDP's modifier bits.
const MODS = { alt: 1, ctrl: 2, meta: 4, shift: 8 };

/**
 * @typedef {object} ActDeps
 * @property {{attach: Function, detach: Function, sendCommand: Function} | null} debugger chrome.debugger; null in Firefox
 * @property {{get(id: number): Promise<any>, reload(id: number): Promise<void>, goBack(id: number): Promise<void>,
 *   goForward(id: number): Promise<void>, remove(id: number): Promise<void>}} tabs chrome.tabs
 * @property {{create(p: object): Promise<any>}} windows chrome.windows: an AI session's own tab opens in a window of its own
 * @property {{askContent: Function, settled(tabId: number, job: object): Promise<void>, navigateTab(tabId: number, url: string): Promise<void>}} documents
 * @property {{markNavigating(id: number, url: string): void, state(id: number): any, aiWindow(windowId: number): void}} tracked tabs.js's Tabs
 * @property {{assert(): void}} pilot the human's switch, checked before every step that touches the page
 * @property {(tabId: number, fn: () => Promise<any>) => Promise<any>} lock one debugger session (and action) per tab at a time
 * @property {() => Promise<unknown>} deliverHeld delivery.js's: what the worker holds goes to the server now
 * @property {import('./clock.js').Clock} clock
 */

/** The debugger's events while an action holds a tab: requests in flight, dialogs. */
class Watch {
  constructor() {
    this.inflight = new Set();
    /** @type {Map<string, {method: string, url: string, status?: number, error?: string}>} the requests the action caused, in order */
    this.requests = new Map();
    this.dropped = 0;
    this.dialogs = [];
    /** @type {(() => void)[]} */
    this.idleWaiters = [];
  }

  /** @param {string} method @param {any} params */
  event(method, params) {
    switch (method) {
      case 'Network.requestWillBeSent': {
        this.inflight.add(params.requestId);
        const req = params.request || {};
        if (!/^https?:/i.test(req.url || '') || this.requests.has(params.requestId)) break;
        if (this.requests.size < REQUESTS_MAX) this.requests.set(params.requestId, { method: req.method, url: req.url });
        else this.dropped++;
        break;
      }
      case 'Network.responseReceived': {
        const r = this.requests.get(params.requestId);
        if (r && params.response) r.status = params.response.status;
        break;
      }
      case 'Network.loadingFailed': {
        const r = this.requests.get(params.requestId);
        if (r) r.error = params.canceled ? 'aborted' : String(params.blockedReason || params.errorText || 'failed');
      }
      // falls through
      case 'Network.loadingFinished':
        this.inflight.delete(params.requestId);
        if (!this.inflight.size) for (const w of this.idleWaiters.splice(0)) w();
        break;
      case 'Page.javascriptDialogOpening':
        if (this.dialogs.length < 5) this.dialogs.push({ type: params.type, message: String(params.message || '').slice(0, 200) });
        break;
      default:
    }
  }
}

export class Actor {
  /** @param {ActDeps} deps */
  constructor(deps) {
    this.d = deps;
    this.check = () => deps.pilot.assert();
    /** @type {Map<number, Watch>} tabId → the watch of the action that holds it */
    this.watches = new Map();
  }

  /** chrome.debugger.onEvent, registered by background.js. */
  onDebuggerEvent(source, method, params) {
    const w = source && this.watches.get(source.tabId);
    if (!w) return;
    w.event(method, params || {});
    if (method === 'Page.javascriptDialogOpening') {
      // A dialog blocks the page (and the input being sent): an alert is accepted, anything that asks
      // (confirm, prompt, beforeunload) is dismissed — the AI never says yes on the human's behalf.
      const accept = params && params.type === 'alert';
      this.d.debugger?.sendCommand({ tabId: source.tabId }, 'Page.handleJavaScriptDialog', { accept }).catch(() => {});
    }
  }

  /**
   * new_tab: a tab of the AI session's own, in a window of its own and not focused, so the human's
   * window is left as it was and the tab can still be painted (screenshots). Answers once it loaded.
   */
  async newTab(q, p, job) {
    this.check();
    const win = await this.d.windows.create({ url: p.url, focused: false });
    if (win && typeof win.id === 'number') this.d.tracked.aiWindow(win.id); // never the human's tracked tab
    const tab = win && win.tabs && win.tabs[0];
    if (!tab || typeof tab.id !== 'number') throw new QueryError('internal', 'the browser opened no tab');
    job.tab = tab.id;
    this.d.tracked.markNavigating(tab.id, p.url);
    await this.d.documents.settled(tab.id, job);
    const ans = await this.d.documents.askContent(tab.id, { id: q.id, kind: 'act', params: { step: 'settle', max_ms: 0 } }, job, this.check);
    if (!ans) return null;
    const r = ans.result || {};
    return { result: { action: 'new_tab', tab_id: tab.id, url: r.url || p.url, title: r.title } };
  }

  /** close_tab: the server checked the session owns it. */
  async closeTab(tabId) {
    this.check();
    try {
      await this.d.tabs.remove(tabId);
    } catch (err) {
      throw new QueryError('not_found', `tab ${tabId} was closed already: ${errText(err)}`);
    }
    return { result: { action: 'close_tab', tab_id: tabId } };
  }

  /** Runs action p (checked by the server) in tab tabId for query q. */
  async run(tabId, q, p, job) {
    if (p.action === 'close_tab') return this.closeTab(tabId);
    const ask = async (params) => {
      const ans = await this.d.documents.askContent(tabId, { id: q.id, kind: 'act', params }, job, this.check);
      if (!ans) return null; // the query ended meanwhile
      if (ans.error) throw new QueryError(ans.error.code, ans.error.message);
      return ans.result;
    };
    if (p.action === 'wait_for') return this.waitFor(tabId, p, job, ask);
    if (p.describe) {
      // Before the human is asked: the target as the page names it, and the refusals that need no input.
      const d = await ask({ step: 'prepare', dry: true, action: p.action, selector: p.selector, text: p.action === 'type' ? undefined : p.text, ref: p.ref });
      return d && { result: { action: p.action, target: d.target } };
    }
    await this.d.documents.settled(tabId, job);
    return this.d.lock(tabId, async () => {
      if (job.done) return null; // never act late, after the query ended
      this.check();
      const before = await this.tabURL(tabId);
      const gen = this.d.tracked.state(tabId).gen;
      let out;
      switch (p.action) {
        case 'navigate':
        case 'reload':
        case 'back':
        case 'forward':
          out = await this.go(tabId, p, job, ask);
          break;
        default:
          out = await this.act(tabId, p, job, ask);
      }
      if (!out) return null;
      const navigated = this.d.tracked.state(tabId).gen !== gen || (out.url && out.url !== before);
      const result = { action: p.action };
      if (out.target) result.target = out.target;
      if (navigated || ['navigate', 'reload', 'back', 'forward'].includes(p.action)) result.navigation = { url: out.url, title: out.title };
      if (out.after) result.after = out.after;
      if (out.scroll) result.scroll = out.scroll;
      if (out.dialogs && out.dialogs.length) result.dialogs = out.dialogs;
      if (out.requests) Object.assign(result, { requests: out.requests, requests_more: out.requests_more });
      result.settle_ms = out.settle_ms;
      result.url = out.url;
      await this.d.deliverHeld().catch(() => {});
      return { result };
    });
  }

  async tabURL(tabId) {
    try {
      return (await this.d.tabs.get(tabId)).url || '';
    } catch (err) {
      throw new QueryError('not_found', `tab ${tabId} was closed`);
    }
  }

  async waitFor(tabId, p, job, ask) {
    this.check();
    const r = await ask({ step: 'wait_for', selector: p.selector, text: p.text, state: p.state, timeout_ms: p.timeout_ms });
    if (!r) return null;
    await this.d.deliverHeld().catch(() => {});
    return { result: { action: 'wait_for', waited_ms: r.waited_ms, url: r.url, title: r.title } };
  }

  // navigate, reload, back, forward: the tab's own navigation, then the new document settled.
  async go(tabId, p, job, ask) {
    const { tabs, documents, tracked, clock } = this.d;
    const t0 = clock.now();
    try {
      if (p.action === 'navigate') await documents.navigateTab(tabId, p.url);
      else {
        tracked.markNavigating(tabId, '');
        if (p.action === 'reload') await tabs.reload(tabId);
        else if (p.action === 'back') await tabs.goBack(tabId);
        else await tabs.goForward(tabId);
      }
    } catch (err) {
      tracked.state(tabId).navigating = false;
      const m = errText(err);
      if (/history|next page|previous page/i.test(m)) throw new QueryError('not_found', `there is no page to go ${p.action} to in this tab`);
      if (/No tab with/i.test(m)) throw new QueryError('not_found', `tab ${tabId} was closed`);
      throw new QueryError('internal', m);
    }
    await documents.settled(tabId, job);
    const s = await ask({ step: 'settle', max_ms: SETTLE_MAX_MS });
    if (!s) return null;
    return { url: s.url, title: s.title, settle_ms: clock.now() - t0 };
  }

  // The element actions: prepare (content), input (debugger or content), settle.
  async act(tabId, p, job, ask) {
    const { clock } = this.d;
    // scroll {to} and press_key without a target act on the page and what has the focus.
    const targeted = !(p.action === 'scroll' && p.to) && !(p.action === 'press_key' && !p.selector && !p.text && !p.ref);
    // For type, text is what to type: the target is a selector or a ref.
    const prep = !targeted ? await ask({ step: 'mark' }) && { x: 0, y: 0 } : await ask({ step: 'prepare', action: p.action, selector: p.selector, text: p.action === 'type' ? undefined : p.text, ref: p.ref, clear: p.clear });
    if (!prep) return null;
    const ref = prep.target && prep.target.ref;
    const dbg = CONTENT_ONLY.has(p.action) ? null : this.d.debugger;
    const target = { tabId };
    /** @type {ActDeps['debugger']} dbg once it holds the tab */
    let attached = null;
    if (dbg) {
      try {
        await dbg.attach(target, '1.3');
        attached = dbg;
      } catch (_) { /* DevTools or another debugger holds the tab: the content script dispatches */ }
    }
    const watch = new Watch();
    let t0;
    try {
      if (attached) {
        this.watches.set(tabId, watch);
        const send = (method, params) => attached.sendCommand(target, method, params);
        await send('Network.enable', { maxTotalBufferSize: 0, maxResourceBufferSize: 0 }).catch(() => {});
        await send('Page.enable', {}).catch(() => {});
        this.check();
        t0 = clock.now();
        await this.input(send, p, prep);
      } else {
        this.check();
        const r = await ask({ step: 'perform', action: p.action, ref, selector: ref ? undefined : p.selector,
          text: p.action === 'type' || !ref ? p.text : undefined, clear: p.clear, submit: p.submit, value: p.value, to: p.to, key: p.key, k: p.k });
        if (!r) return null;
        if (r.scroll) prep.scroll = r.scroll;
        t0 = clock.now();
      }
      const deadline = t0 + SETTLE_MAX_MS;
      if (attached) await this.networkIdle(watch, deadline);
      let s = await ask({ step: 'settle', ref, max_ms: Math.max(0, deadline - clock.now()), reacted: watch.requests.size > 0 || watch.dialogs.length > 0 });
      if (!s) return null;
      if (attached && watch.inflight.size && clock.now() < deadline) {
        // The quiet DOM started requests of its own: wait for them too, then look again.
        await this.networkIdle(watch, deadline);
        s = (await ask({ step: 'settle', ref, max_ms: 0 })) || s;
      }
      const out = { target: prep.target, url: s.url, title: s.title, after: s.after, scroll: prep.scroll, dialogs: watch.dialogs, settle_ms: clock.now() - t0 };
      // The debugger saw every request of the tab (documents, images, fetches): the server need not wait
      // for the page's capture of them.
      if (attached) Object.assign(out, { requests: [...watch.requests.values()], requests_more: watch.dropped });
      return out;
    } finally {
      if (attached) {
        this.watches.delete(tabId);
        let timer;
        const wait = new Promise((resolve) => { timer = clock.setTimeout(() => resolve(undefined), DETACH_WAIT_MS); });
        await Promise.race([attached.detach(target).catch(() => {}), wait]);
        clock.clearTimeout(timer);
      }
    }
  }

  networkIdle(watch, deadline) {
    if (!watch.inflight.size) return Promise.resolve();
    const { clock } = this.d;
    return new Promise((resolve) => {
      const timer = clock.setTimeout(done, Math.max(0, deadline - clock.now()));
      function done() {
        clock.clearTimeout(timer);
        resolve(undefined);
      }
      watch.idleWaiters.push(done);
    });
  }

  // Real input through the debugger, at the point the content script gave.
  async input(send, p, prep) {
    const { x, y } = prep;
    const mouse = (type, extra) => send('Input.dispatchMouseEvent', { type, x, y, ...extra });
    switch (p.action) {
      case 'hover':
        await mouse('mouseMoved', {});
        return;
      case 'click':
        await mouse('mouseMoved', {});
        await mouse('mousePressed', { button: 'left', buttons: 1, clickCount: 1 });
        await mouse('mouseReleased', { button: 'left', buttons: 0, clickCount: 1 });
        return;
      case 'type':
        // content/act.js focused the field and selected what it held (clear) or put the caret at its end.
        await send('Input.insertText', { text: p.text });
        if (p.submit) await key(send, ENTER);
        return;
      case 'press_key':
        await key(send, p.k);
        return;
      default:
        throw new QueryError('invalid_param', `unknown action ${JSON.stringify(p.action)}`);
    }
  }
}

const ENTER = { key: 'Enter', code: 'Enter', keyCode: 13, text: '\r' };

/**
 * One key pressed and released through the debugger.
 * @param {(method: string, params: object) => Promise<any>} send
 * @param {{key: string, code?: string, keyCode?: number, text?: string, ctrl?: boolean, shift?: boolean, alt?: boolean, meta?: boolean}} k
 */
export async function key(send, k) {
  const modifiers = (k.alt ? MODS.alt : 0) | (k.ctrl ? MODS.ctrl : 0) | (k.meta ? MODS.meta : 0) | (k.shift ? MODS.shift : 0);
  const base = { key: k.key, code: k.code || '', windowsVirtualKeyCode: k.keyCode || 0, nativeVirtualKeyCode: k.keyCode || 0, modifiers };
  const text = k.text && !(k.ctrl || k.alt || k.meta) ? k.text : undefined;
  const commands = k.ctrl && k.key.length === 1 && /[a-z]/i.test(k.key) ? { commands: editCommand(k.key) } : {};
  await send('Input.dispatchKeyEvent', { type: text ? 'keyDown' : 'rawKeyDown', ...base, ...(text ? { text, unmodifiedText: text } : {}), ...commands });
  await send('Input.dispatchKeyEvent', { type: 'keyUp', ...base });
}

// Headless Chromium runs no platform shortcuts for synthesized keys: Control+a etc. name their editing
// command.
function editCommand(letter) {
  const c = { a: 'selectAll', c: 'copy', x: 'cut', v: 'paste', z: 'undo', y: 'redo' }[letter.toLowerCase()];
  return c ? [c] : [];
}
