// Accessibility audits (query kind "a11y"): axe-core, bundled with the extension, run in the page's
// isolated world.

import { QueryError, errText } from './errors.js';

// Runs in the page (isolated world). Returns {missing:true} if axe is not loaded in this document.
async function auditInPage(p) {
  /* global axe, document */
  if (typeof axe === 'undefined' || !axe || typeof axe.run !== 'function') return { missing: true };
  const fail = (code, message) => ({ error: { code, message } });
  let context = document;
  if (p.scope !== undefined && p.scope !== null && p.scope !== '') {
    if (typeof p.scope !== 'string') return fail('invalid_param', 'scope must be a CSS selector');
    try {
      if (!document.querySelector(p.scope)) return fail('invalid_param', `scope ${JSON.stringify(p.scope)} matches no element`);
    } catch (e) {
      return fail('invalid_param', String((e && e.message) || e));
    }
    context = { include: [p.scope] };
  }
  const options = {
    resultTypes: p.include_passes === true ? ['violations', 'incomplete', 'passes'] : ['violations', 'incomplete'],
    iframes: false, // axe lives in the top frame only: never wait on frames that cannot answer
  };
  if (p.tags !== undefined && p.tags !== null) {
    if (!Array.isArray(p.tags) || p.tags.some((t) => typeof t !== 'string')) return fail('invalid_param', 'tags must be a list of strings');
    if (p.tags.length) options.runOnly = { type: 'tag', values: p.tags };
  }
  // axe refuses to run twice at once in a document: queue audits.
  const prev = globalThis.__gasolineAxeRun || Promise.resolve();
  const run = prev.then(() => axe.run(context, options));
  globalThis.__gasolineAxeRun = run.catch(() => {});
  let r;
  try {
    r = await run;
  } catch (e) {
    const m = String((e && e.message) || e);
    return fail(/unknown|no rules|not find|invalid/i.test(m) ? 'invalid_param' : 'internal', m);
  }
  if (options.runOnly && !(r.violations.length + r.passes.length + r.incomplete.length + r.inapplicable.length)) {
    return fail('invalid_param', `no axe-core rule has the tag(s) ${p.tags.join(', ')}`);
  }
  const selectorOf = (target) => (Array.isArray(target) ? target.map((t) => (Array.isArray(t) ? t.join(' >>> ') : String(t))).join(' ') : String(target || ''));
  const node = (n) => {
    const o = { selector: selectorOf(n.target), html: String(n.html || '').slice(0, 200) };
    if (n.failureSummary) o.failureSummary = n.failureSummary;
    return o;
  };
  const rule = (x) => {
    const o = {
      id: x.id, impact: x.impact, description: x.description, help: x.help, helpUrl: x.helpUrl, tags: x.tags,
      nodeCount: x.nodes.length, nodes: x.nodes.slice(0, 10).map(node),
    };
    if (!o.impact) delete o.impact;
    return o;
  };
  const result = {
    url: r.url,
    timestamp: r.timestamp,
    summary: { violations: r.violations.length, passes: r.passes.length, incomplete: r.incomplete.length, inapplicable: r.inapplicable.length },
    violations: r.violations.map(rule),
    incomplete: r.incomplete.map(rule),
  };
  if (p.include_passes === true) result.passes = r.passes.map((x) => ({ id: x.id, description: x.description, nodeCount: x.nodes.length }));
  return { result };
}

/**
 * @typedef {object} AuditDeps
 * @property {{executeScript: Function}} scripting chrome.scripting
 * @property {(url: string, init: RequestInit) => Promise<Response>} fetch
 * @property {(path: string) => string} getURL chrome.runtime.getURL: the extension's own files
 * @property {{onDocument(tabId: number, job: object, attempt: () => Promise<any>): Promise<any>}} documents documents.js's
 *   Documents: the audit runs in the tab's current document
 */

export class Audits {
  /** @param {AuditDeps} deps */
  constructor(deps) {
    this.d = deps;
    this.axeBundled = null; // Promise<boolean>, once per worker life
  }

  axeInBuild() {
    if (!this.axeBundled) {
      this.axeBundled = this.d.fetch(this.d.getURL('lib/axe.min.js'), { method: 'HEAD' })
        .then((r) => r.ok, () => false);
    }
    return this.axeBundled;
  }

  /** Runs audit query q in the tab's current document for job. */
  async audit(tabId, q, job) {
    if (!(await this.axeInBuild())) throw new QueryError('internal', 'axe-core is not in this build of the extension (run make)');
    const { scripting } = this.d;
    const target = { tabId, frameIds: [0] };
    const exec = async () => {
      const [res] = await scripting.executeScript({ target, world: 'ISOLATED', func: auditInPage, args: [q.params] });
      if (res && res.error) throw new Error(errText(res.error));
      return res && res.result;
    };
    return this.d.documents.onDocument(tabId, job, async () => {
      let r = await exec();
      if (r && r.missing) {
        await scripting.executeScript({ target, world: 'ISOLATED', files: ['lib/axe.min.js'] });
        if (job.done) return null;
        r = await exec();
        if (r && r.missing) throw new QueryError('internal', 'axe-core did not load in the page');
      }
      if (!r || typeof r !== 'object') throw new QueryError('internal', 'the audit returned nothing');
      return r;
    });
  }
}
