// One on-demand query, from the server's frame to its answer: dom and page_info asked of the content
// script, a11y audits, pilot actions, screenshots (sw/shot.js), a flush of what the worker holds; each
// bounded by its deadline.

import { resolveTab, tabURL } from './tabs.js';
import { askContent, settled } from './documents.js';
import { audit } from './a11y.js';
import { runPilot } from './pilot.js';
import { scriptTimeout } from './serialize.js';
import { sendResult } from './channel.js';
import { QueryError, errText } from './errors.js';
import { deliverHeld } from './delivery.js';
import { makeShooter } from './shot.js';
import { effectiveSettings } from './settings.js';

const QUERY_KINDS = new Set(['dom', 'page_info', 'a11y', 'pilot', 'flush', 'screenshot']);
const QUERY_DEFAULT_MS = { dom: 10000, page_info: 10000, a11y: 30000, pilot: 10000, screenshot: 10000 };
const QUERY_MAX_MS = 120000;

const inflight = new Map(); // id → job
let shooter = null; // made at the first screenshot: nothing touches chrome.* at import time

/** A query's time limit when the server set none: execute_js gets its script's own plus a margin. */
function defaultQueryMS(q) {
  if (q.kind === 'pilot' && q.params && q.params.action === 'execute_js') return scriptTimeout(q.params) + 3000;
  return QUERY_DEFAULT_MS[q.kind] || 10000;
}

/**
 * Runs query q (a frame from the server) and sends its answer; a repeated id is ignored.
 * @param {ServerQuery} q
 */
export async function runQuery(q) {
  if (!q || typeof q !== 'object' || typeof q.id !== 'string' || !q.id || inflight.has(q.id)) return;
  const now = Date.now();
  let deadline = Number(q.deadline);
  if (!Number.isFinite(deadline) || deadline <= 0) deadline = now + defaultQueryMS(q);
  deadline = Math.min(deadline, now + QUERY_MAX_MS);
  const job = { id: q.id, tab: typeof q.tab === 'number' ? q.tab : 0, deadline, done: false, cancels: [], timer: 0 };
  inflight.set(q.id, job);
  job.timer = setTimeout(() => finishQuery(job, {
    error: { code: 'timeout', message: `the page did not answer within ${Math.max(0, deadline - now)} ms` },
  }), Math.max(0, deadline - now));
  try {
    if (!QUERY_KINDS.has(q.kind)) throw new QueryError('invalid_param', `unknown query kind ${JSON.stringify(q.kind)}`);
    const params = q.params && typeof q.params === 'object' && !Array.isArray(q.params) ? q.params : {};
    let out;
    if (q.kind === 'flush') {
      out = { result: await deliverHeld() }; // no tab: the server reads next
    } else if (q.kind === 'pilot') {
      out = await runPilot(q, params, job);
    } else if (q.kind === 'screenshot') {
      job.tab = await resolveTab(q.tab);
      await settled(job.tab, job);
      shooter ||= makeShooter({ chrome, settings: effectiveSettings });
      out = { result: await shooter.shoot(job.tab, params) };
    } else {
      job.tab = await resolveTab(q.tab);
      const query = { id: q.id, kind: q.kind, params };
      out = q.kind === 'a11y' ? await audit(job.tab, query, job) : await askContent(job.tab, query, job);
    }
    if (out) finishQuery(job, out);
  } catch (err) {
    if (!job.done) finishQuery(job, { error: { code: err instanceof QueryError ? err.code : 'internal', message: errText(err) } });
  }
}

function finishQuery(job, out) {
  if (job.done) return;
  job.done = true;
  clearTimeout(job.timer);
  inflight.delete(job.id);
  for (const cancel of job.cancels) cancel();
  /** @type {QueryResult} */
  const msg = { type: 'result', id: job.id, tab: job.tab };
  const url = (out.result && typeof out.result.url === 'string' && out.result.url) || tabURL(job.tab);
  if (url) msg.url = url;
  if (out.error) {
    msg.error = { code: String(out.error.code || 'internal'), message: String(out.error.message || '') };
  } else if (out.result && typeof out.result === 'object') {
    msg.result = out.result;
  } else {
    msg.error = { code: 'internal', message: 'the page gave an empty answer' };
  }
  sendResult(msg);
}
