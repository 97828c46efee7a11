// observe{what:"storage"} (query kind "storage"): what the tab's origin keeps. The content script reads
// localStorage, sessionStorage, IndexedDB and Cache Storage in the page's own origin
// (content/storage.js); the worker adds the cookies the page's URL is sent, HttpOnly ones too, which
// only chrome.cookies can read. Nothing is read while the human has storage_reads off (an option only
// they can change). Every value leaves the extension scrubbed by the one secret rule (content/scrub.js)
// and cut at VALUE_WINDOW characters, a little past the server's 2 KB: the server redacts again, then
// cuts, so that a secret across its cut is found whole (features/storage).

import './scrub-constants.js'; // first: content/scrub.js reads GASOLINE_CONSTANTS
import '../content/scrub.js';
import { QueryError } from './errors.js';

/** Characters of a value sent; the server shows 2,048 bytes of it. */
export const VALUE_WINDOW = 2048 + 256;
/** Cookies sent at most; the rest are counted. */
export const COOKIES_MAX = 200;

const SAME_SITE = { no_restriction: 'None', lax: 'Lax', strict: 'Strict' };

/** The cookie store of a tab (an incognito tab, a Firefox container has its own); undefined: the default. */
export async function cookieStoreOf(cookies, tabId) {
  try {
    for (const store of await cookies.getAllCookieStores()) if (store.tabIds.includes(tabId)) return store.id;
  } catch (_) { /* the default store */ }
  return undefined;
}

/**
 * One browser cookie as the AI reads it: its value scrubbed and cut, its flags, its expiry.
 * @param {chrome.cookies.Cookie} c
 */
export function cookieEntry(c) {
  const scrub = globalThis.__gasolineScrub;
  const name = String(c.name || '');
  const value = String(c.value || '');
  const out = {
    name,
    value: scrub.named(name, value.length > VALUE_WINDOW ? value.slice(0, VALUE_WINDOW) : value),
    domain: c.domain,
    path: c.path,
    size: name.length + value.length,
  };
  if (c.secure) out.secure = true;
  if (c.httpOnly) out.httpOnly = true;
  if (SAME_SITE[c.sameSite]) out.sameSite = SAME_SITE[c.sameSite];
  if (!c.session && typeof c.expirationDate === 'number') out.expires = new Date(c.expirationDate * 1000).toISOString();
  if (value.length > VALUE_WINDOW) out.cut = true;
  return out;
}

const webURL = (u) => /^https?:\/\//i.test(String(u || ''));

/**
 * @typedef {object} StorageDeps
 * @property {() => Partial<Settings>} settings the settings in force (storage_reads is the human's)
 * @property {{getAll(d: object): Promise<chrome.cookies.Cookie[]>, getAllCookieStores(): Promise<any[]>}} cookies chrome.cookies
 * @property {{askContent(tabId: number, q: object, job: object, check?: () => void): Promise<any>}} documents documents.js's Documents
 */

export class StorageReader {
  /** @param {StorageDeps} deps */
  constructor(deps) {
    this.d = deps;
    // Before the page is asked and again before its answer is sent on: the human's word holds at once.
    this.check = () => {
      if (this.d.settings().storage_reads === false) {
        throw new QueryError('storage_reads_off', 'The human turned storage reads off in the Gasoline options; ask them, do not retry.');
      }
    };
  }

  /** Reads tab tabId's origin for query q (params p); null if the job ended meanwhile. */
  async read(tabId, q, p, job) {
    this.check();
    const ans = await this.d.documents.askContent(tabId, { id: q.id, kind: 'storage', params: { include_values: p.include_values === true } }, job, this.check);
    if (!ans || ans.error) return ans;
    const r = ans.result;
    if (!r || typeof r !== 'object') throw new QueryError('internal', 'the page gave no storage answer');
    if (webURL(r.url)) {
      try {
        r.cookies = await this.cookies(tabId, r.url);
      } catch (err) {
        r.unreadable = { ...r.unreadable, cookies: String((err && err.message) || err) };
      }
    }
    this.check();
    return { result: r };
  }

  /** The cookies sent to url from the tab's cookie store: the first COOKIES_MAX, all counted. */
  async cookies(tabId, url) {
    const storeId = await cookieStoreOf(this.d.cookies, tabId);
    const all = await this.d.cookies.getAll(storeId ? { url, storeId } : { url });
    return { count: all.length, entries: all.slice(0, COOKIES_MAX).map(cookieEntry) };
  }
}
