// One on-demand query, from the server's frame to its answer: dom and page_info asked of the content
// script, the origin's storage (sw/storage.js), a11y audits, pilot actions, screenshots (sw/screenshot.js), styles
// (sw/styles.js), a flush of what the worker holds; each
// bounded by its deadline.

import { scriptTimeout } from './script-result.js';
import { QueryError, errText } from './errors.js';

const QUERY_KINDS = new Set(['dom', 'page_info', 'a11y', 'pilot', 'flush', 'screenshot', 'interactive', 'styles', 'storage']);
const QUERY_DEFAULT_MS = { dom: 10000, page_info: 10000, a11y: 30000, pilot: 10000, screenshot: 10000, interactive: 10000, styles: 10000, storage: 10000 };
const QUERY_MAX_MS = 120000;

/** A query's time limit when the server set none: execute_js gets its script's own plus a margin. */
function defaultQueryMS(q) {
  if (q.kind === 'pilot' && q.params && q.params.action === 'execute_js') return scriptTimeout(q.params) + 3000;
  return QUERY_DEFAULT_MS[q.kind] || 10000;
}

/**
 * @typedef {object} QueryDeps
 * @property {(msg: QueryResult) => void} send the channel's: the answer to the server
 * @property {{run(q: ServerQuery, p: object, job: object): Promise<any>}} pilot pilot-actions.js's Pilot, for the pilot actions
 * @property {{audit(tabId: number, q: object, job: object): Promise<any>}} audits a11y.js's Audits
 * @property {{shoot(tabId: number, p: object): Promise<any>}} shots screenshot.js's shooter, for screenshots
 * @property {{run(tabId: number, q: ServerQuery, p: object, job: object): Promise<any>}} styles styles.js's Styles, for analyze styles
 * @property {{read(tabId: number, q: ServerQuery, p: object, job: object): Promise<any>}} storage storage.js's StorageReader
 * @property {() => Promise<{queued: number}>} deliverHeld delivery.js's: what the worker holds, delivered now
 * @property {{resolveTab(tab: unknown): Promise<number>, url(id: number): string}} tracked tabs.js's Tabs: which tab a query
 *   means, and the URL it last showed
 * @property {{askContent: Function, settled(tabId: number, job: object): Promise<void>}} documents documents.js's Documents
 * @property {import('./clock.js').Clock} clock
 */

export class QueryRunner {
  /** @param {QueryDeps} deps */
  constructor(deps) {
    this.d = deps;
    this.inflight = new Map(); // id → job
  }

  /**
   * Runs query q (a frame from the server) and sends its answer; a repeated id is ignored.
   * @param {ServerQuery} q
   */
  async run(q) {
    if (!q || typeof q !== 'object' || typeof q.id !== 'string' || !q.id || this.inflight.has(q.id)) return;
    const { clock } = this.d;
    const now = clock.now();
    let deadline = Number(q.deadline);
    if (!Number.isFinite(deadline) || deadline <= 0) deadline = now + defaultQueryMS(q);
    deadline = Math.min(deadline, now + QUERY_MAX_MS);
    const job = { id: q.id, tab: typeof q.tab === 'number' ? q.tab : 0, deadline, done: false, cancels: [], timer: 0 };
    this.inflight.set(q.id, job);
    // The server's timer races this one to the same deadline: either answer names it as the server does
    // (in tenths of a second, so a deadline that lost milliseconds in transit reads the same).
    const left = Math.max(0, deadline - now);
    job.timer = clock.setTimeout(() => this.finish(job, {
      error: { code: 'timeout', message: `the page did not answer within ${Math.round(left / 100) / 10}s` },
    }), left);
    try {
      if (!QUERY_KINDS.has(q.kind)) throw new QueryError('invalid_param', `unknown query kind ${JSON.stringify(q.kind)}`);
      const params = q.params && typeof q.params === 'object' && !Array.isArray(q.params) ? q.params : {};
      let out;
      if (q.kind === 'flush') {
        out = { result: await this.d.deliverHeld() }; // no tab: the server reads next
      } else if (q.kind === 'pilot') {
        out = await this.d.pilot.run(q, params, job);
      } else if (q.kind === 'screenshot') {
        job.tab = await this.d.tracked.resolveTab(q.tab);
        await this.d.documents.settled(job.tab, job);
        out = { result: await this.d.shots.shoot(job.tab, params) };
      } else if (q.kind === 'styles') {
        job.tab = await this.d.tracked.resolveTab(q.tab);
        out = await this.d.styles.run(job.tab, q, params, job);
      } else if (q.kind === 'storage') {
        job.tab = await this.d.tracked.resolveTab(q.tab);
        out = await this.d.storage.read(job.tab, q, params, job);
      } else {
        job.tab = await this.d.tracked.resolveTab(q.tab);
        // The interactive list is content/act.js's: asked as its step, outside the pilot's actions.
        const query = q.kind === 'interactive' ? { id: q.id, kind: 'act', params: { step: 'interactive', after: params.after } } : { id: q.id, kind: q.kind, params };
        out = q.kind === 'a11y' ? await this.d.audits.audit(job.tab, query, job) : await this.d.documents.askContent(job.tab, query, job);
      }
      if (out) this.finish(job, out);
    } catch (err) {
      if (!job.done) this.finish(job, { error: { code: err instanceof QueryError ? err.code : 'internal', message: errText(err) } });
    }
  }

  finish(job, out) {
    if (job.done) return;
    job.done = true;
    this.d.clock.clearTimeout(job.timer);
    this.inflight.delete(job.id);
    for (const cancel of job.cancels) cancel();
    /** @type {QueryResult} */
    const msg = { type: 'result', id: job.id, tab: job.tab };
    const url = (out.result && typeof out.result.url === 'string' && out.result.url) || this.d.tracked.url(job.tab);
    if (url) msg.url = url;
    if (out.error) {
      msg.error = { code: String(out.error.code || 'internal'), message: String(out.error.message || '') };
    } else if (out.result && typeof out.result === 'object') {
      msg.result = out.result;
    } else {
      msg.error = { code: 'internal', message: 'the page gave an empty answer' };
    }
    this.d.send(msg);
  }
}
