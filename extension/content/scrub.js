// Gasoline: the secret-name rule in the content scripts (isolated world), applied to every event
// before it leaves the page. The same rule as features/redact (the server applies it again on
// ingest), from the same data: generated/constants.js, written from Go. Both implementations answer
// the same test vectors (features/redact/testdata/vectors.json; extension/test/scrub.test.js).
// A classic script: the content scripts read it as globalThis.__gasolineScrub, node with require().
(function (root, C) {
  'use strict';

  const REDACTED = C.REDACTED;
  const byFirst = (list) => {
    const t = new Map();
    for (const s of list) t.set(s[0], (t.get(s[0]) || []).concat(s));
    return t;
  };
  const WORDS = new Set(C.SECRET_WORDS);
  const ALLOW = new Set(C.SECRET_ALLOW);
  const SUBS = byFirst(C.SECRET_SUBSTRINGS);
  const HEADER_SUBS = byFirst(C.SECRET_HEADER_SUBSTRINGS);

  const isAlnum = (c) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  const isUpper = (c) => c >= 'A' && c <= 'Z';

  function containsAny(s, table) {
    for (let i = 0; i < s.length; i++) {
      const cands = table.get(s[i]);
      if (cands) for (const n of cands) if (s.startsWith(n, i)) return true;
    }
    return false;
  }

  // A name is split into words at non-alphanumerics and at lower→Upper; secret when a word is in
  // SECRET_WORDS or the words not in SECRET_ALLOW, joined, are not in SECRET_ALLOW either and
  // contain one of SECRET_SUBSTRINGS.
  // fn(string) with its answers remembered, up to max strings, then forgotten all at once (also by
  // .forget()). The same few names (headers, JSON keys, URL parameters) come again and again.
  function remembered(fn, max) {
    const memo = new Map();
    const f = (name) => {
      const key = String(name == null ? '' : name);
      let v = memo.get(key);
      if (v === undefined) {
        if (memo.size >= max) memo.clear();
        v = fn(key);
        memo.set(key, v);
      }
      return v;
    };
    f.forget = () => memo.clear();
    return f;
  }
  const MEMO_MAX = 1000;

  const isSecretName = remembered((name) => {
    let joined = '';
    let start = 0;
    for (let i = 0; i <= name.length; i++) {
      const end = i === name.length || !isAlnum(name[i]);
      const camel = !end && i > start && isUpper(name[i]) && !isUpper(name[i - 1]);
      if (!end && !camel) continue;
      if (i > start) {
        const w = name.slice(start, i).toLowerCase();
        if (WORDS.has(w)) return true;
        if (!ALLOW.has(w)) joined += w;
      }
      start = end ? i + 1 : i;
    }
    return !ALLOW.has(joined) && containsAny(joined, SUBS);
  }, MEMO_MAX);

  // What a secret name's value becomes: the mark the server writes for a credential of a known format
  // when the whole value is one ("sk_live_[redacted]": redact.markOf, from redact.MarkFormats), else
  // [redacted]. The expressions are compiled on the first secret value, not when a page loads.
  /** @typedef {{re: string, flags?: string, keep: string, keep_flags?: string, group: number, entropy?: number, ellipsis?: string}} FormatMark */
  /** @type {(FormatMark & {rx: RegExp, kx: RegExp})[] | null} */
  let formats = null;
  function entropy(v) {
    const n = new Map();
    for (const c of v) n.set(c, (n.get(c) || 0) + 1);
    let h = 0;
    for (const k of n.values()) h -= (k / v.length) * Math.log2(k / v.length);
    return h;
  }
  const isMark = (v) => typeof v === 'string' && v.endsWith(REDACTED);
  function markOf(v) {
    if (!formats) {
      formats = (/** @type {FormatMark[]} */ (C.SECRET_FORMAT_MARKS || [])).map((f) => ({ ...f, rx: new RegExp(f.re, f.flags || ''), kx: new RegExp(`^(?:${f.keep})`, f.keep_flags || '') }));
    }
    for (const f of formats) {
      const m = f.rx.exec(v);
      if (!m || m[f.group] !== v || (f.entropy && entropy(v) < f.entropy)) continue;
      const k = f.kx.exec(v);
      return (k ? k[0] + (f.ellipsis || '') : '') + REDACTED;
    }
    return REDACTED;
  }

  const asciiLower = (s) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const isSecretHeader = remembered((name) => containsAny(asciiLower(name), HEADER_SUBS) || isSecretName(name), MEMO_MAX);

  // A password input, or one whose name, id, autocomplete or selector is a secret name or has a word
  // of SECRET_FIELD_WORDS (a card's fields: name="card", autocomplete="cc-number", id="pan").
  const FIELD_WORDS = new Set(C.SECRET_FIELD_WORDS);
  const fieldWord = remembered((name) => {
    const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(/[^A-Za-z0-9]+/);
    return words.some((w) => FIELD_WORDS.has(w.toLowerCase()));
  }, MEMO_MAX);
  function isSecretField(inputType, ...names) {
    if (String(inputType || '').toLowerCase() === 'password') return true;
    return names.some((n) => n && (isSecretName(n) || fieldWord(n)));
  }

  function unescapeName(name) {
    if (!/[%+]/.test(name)) return name;
    try {
      return decodeURIComponent(name.replace(/\+/g, ' '));
    } catch (_) {
      return name;
    }
  }

  // name=value pairs separated by & or ; (a form body, a query string, a fragment).
  function pairs(s) {
    let out = '';
    let last = 0;
    for (let start = 0; start <= s.length;) {
      let end = s.slice(start).search(/[&;]/);
      end = end < 0 ? s.length : end + start;
      const eq = s.slice(start, end).indexOf('=');
      if (eq > 0) {
        const vs = start + eq + 1;
        if (vs < end && !isMark(s.slice(vs, end)) && isSecretName(unescapeName(s.slice(start, start + eq)))) {
          out += s.slice(last, vs) + markOf(s.slice(vs, end));
          last = end;
        }
      }
      start = end + 1;
    }
    return last === 0 ? s : out + s.slice(last);
  }

  function url(u) {
    if (typeof u !== 'string' || !/[?#@]/.test(u)) return u;
    const i = u.indexOf('://');
    if (i >= 0) {
      const rest = u.slice(i + 3);
      const j = rest.search(/[/?#]/);
      const host = j >= 0 ? rest.slice(0, j) : rest;
      const at = host.lastIndexOf('@');
      if (at >= 0) {
        const c = host.slice(0, at).indexOf(':');
        if (c >= 0) u = u.slice(0, i + 3 + c + 1) + REDACTED + u.slice(i + 3 + at);
      }
    }
    const q = u.indexOf('?');
    let h = u.indexOf('#');
    if (q >= 0 && (h < 0 || q < h)) {
      const end = h > q ? h : u.length;
      const s = pairs(u.slice(q + 1, end));
      if (s !== u.slice(q + 1, end)) {
        u = u.slice(0, q + 1) + s + u.slice(end);
        h = u.indexOf('#');
      }
    }
    if (h >= 0 && u.indexOf('=', h) >= 0) {
      const s = pairs(u.slice(h + 1));
      if (s !== u.slice(h + 1)) u = u.slice(0, h + 1) + s;
    }
    return u;
  }

  function headers(h) {
    if (!h || typeof h !== 'object') return h;
    for (const k of Object.keys(h)) if (h[k] !== '' && isSecretHeader(k)) h[k] = REDACTED;
    return h;
  }

  const isNameChar = (c) => isAlnum(c) || c === '_' || c === '-' || c === '.' || c === '[' || c === ']';
  const VALUE_END = new Set([' ', '\t', '\r', '\n', '&', ',', ';', '}', ']', '"', "'", '\\']);

  // The value at vs: a string in ", ' or \" quotes, else a run up to a space or one of &,;}]"'\.
  function valueEnd(s, vs) {
    if (vs >= s.length) return ['', vs];
    const q = s[vs];
    if (q === '"' || q === "'") return [q, stringEnd(s, vs)];
    if (q === '\\' && s[vs + 1] === '"') {
      const k = s.indexOf('\\"', vs + 2);
      return ['\\"', k >= 0 ? k + 2 : s.length];
    }
    let k = vs;
    while (k < s.length && !VALUE_END.has(s[k])) k++;
    return ['', k];
  }

  // name=value and name: value pairs anywhere in free text: see redact.Text. quotedOnly: a GraphQL
  // document's, where only a quoted value is one (an unquoted one is a type or a $variable).
  function text(s, quotedOnly) {
    if (!/[=:]/.test(s)) return s;
    let out = '';
    let last = 0;
    for (let i = 0; i < s.length; i++) {
      if (s[i] !== '=' && s[i] !== ':') continue;
      let j = i;
      while (j > 0 && (s[j - 1] === ' ' || s[j - 1] === '\t')) j--;
      if (j > 0 && (s[j - 1] === '"' || s[j - 1] === "'")) {
        j--;
        if (j > 0 && s[j - 1] === '\\') j--;
      }
      const e = j;
      while (j > 0 && isNameChar(s[j - 1])) j--;
      if (j === e || !isSecretName(s.slice(j, e))) continue;
      let vs = i + 1;
      while (vs < s.length && (s[vs] === ' ' || s[vs] === '\t')) vs++;
      const [open, ve] = valueEnd(s, vs);
      const inner = s.slice(vs + open.length, ve - (open && s.endsWith(open, ve) && ve - vs > open.length ? open.length : 0));
      // A mark read as a bare value stops at its own ']' ("sk_live_[redacted" then "]").
      const cutMark = !open && s[ve] === ']' && inner.endsWith('[redacted');
      if (ve === vs || isMark(inner) || cutMark || s.startsWith(REDACTED, vs) || (quotedOnly && !open)) continue;
      out += s.slice(last, vs) + open + markOf(inner) + open;
      last = ve;
      i = ve - 1;
    }
    return last === 0 ? s : out + s.slice(last);
  }

  function stringEnd(s, i) {
    const q = s[i];
    for (let j = i + 1; j < s.length; j++) {
      if (s[j] === '\\') j++;
      else if (s[j] === q) return j + 1;
    }
    return s.length;
  }

  function isKey(s, end) {
    for (; end < s.length; end++) {
      const c = s[end];
      if (c === ':') return true;
      if (c !== ' ' && c !== '\t' && c !== '\r' && c !== '\n') return false;
    }
    return false;
  }

  function unquote(q) {
    if (q.length < 2 || q[q.length - 1] !== q[0]) return q.replace(/^["']+|["']+$/g, '');
    if (q.indexOf('\\') < 0 || q[0] !== '"') return q.slice(1, -1);
    try {
      return JSON.parse(q);
    } catch (_) {
      return q.slice(1, -1);
    }
  }

  const BARE_END = new Set([',', ':', '}', ']', ' ', '\t', '\r', '\n', '{', '[', '"', "'"]);

  // JSON (also cut short, or a JavaScript object literal), scanned, not parsed: see redact.JSON.
  function json(s) {
    let out = '';
    let last = 0;
    const replace = (from, to, w) => { out += s.slice(last, from) + w; last = to; };
    const stack = [];
    const top = () => stack[stack.length - 1];
    const valueSecret = () => {
      const f = top();
      if (!f) return false;
      return f.object ? f.key || f.secret : f.secret;
    };
    for (let i = 0; i < s.length;) {
      const c = s[i];
      if (c === '{' || c === '[') {
        stack.push({ object: c === '{', secret: valueSecret(), key: false, query: false });
        i++;
      } else if (c === '}' || c === ']') {
        stack.pop();
        i++;
      } else if (c === '"' || c === "'") {
        const end = stringEnd(s, i);
        const f = top();
        if (f && f.object && isKey(s, end)) {
          const k = unquote(s.slice(i, end));
          f.key = isSecretName(k);
          f.query = k === 'query';
        } else if (valueSecret()) {
          const v = s.slice(i + 1, Math.max(end - 1, i + 1));
          if (!isMark(v)) replace(i, end, `"${markOf(v)}"`);
        } else {
          const inner = s.slice(i + 1, Math.max(end - 1, i + 1));
          if (/[=:]/.test(inner)) {
            const t = text(inner, !!(f && f.query && graphQL(inner)));
            if (t !== inner) replace(i + 1, i + 1 + inner.length, t);
          }
        }
        i = end;
      } else if (c === ',' || c === ':' || c === ' ' || c === '\t' || c === '\r' || c === '\n') {
        i++;
      } else {
        let end = i + 1;
        while (end < s.length && !BARE_END.has(s[end])) end++;
        const word = s.slice(i, end);
        const f = top();
        if (f && f.object && isKey(s, end)) {
          f.key = isSecretName(word);
          f.query = word === 'query';
        }
        else if (valueSecret() && word !== 'true' && word !== 'false' && word !== 'null') replace(i, end, `"${REDACTED}"`);
        i = end;
      }
    }
    return last === 0 ? s : out + s.slice(last);
  }

  // A "query" value that reads as a GraphQL document (an operation, a fragment, a selection set),
  // also after spaces written as JSON escapes: see redact.graphQL.
  function graphQL(q) {
    const t = q.replace(/^(?:[ \t\r\n]|\\[nrt])+/, '');
    return t[0] === '{' || /^(?:query|mutation|subscription|fragment)[ \t\r\n{(\\]/.test(t);
  }

  function partName(line) {
    const re = /name=/gi;
    for (let m = re.exec(line); m; m = re.exec(line)) {
      if (m.index > 0 && isAlnum(line[m.index - 1])) continue; // filename=
      const v = line.slice(m.index + 5);
      if (v[0] === '"') {
        const j = v.indexOf('"', 1);
        return j >= 0 ? v.slice(1, j) : v.slice(1);
      }
      const j = v.search(/[; \r]/);
      return j >= 0 ? v.slice(0, j) : v;
    }
    return '';
  }

  function multipart(s) {
    let out = '';
    let last = 0;
    const lower = asciiLower(s);
    for (let i = 0; ;) {
      const d = lower.indexOf('content-disposition:', i);
      if (d < 0) break;
      const lineEnd = s.indexOf('\n', d);
      if (lineEnd < 0) break;
      let hdrEnd = s.indexOf('\r\n\r\n', d);
      let sep = 4;
      if (hdrEnd < 0) { hdrEnd = s.indexOf('\n\n', d); sep = 2; }
      if (hdrEnd < 0) break;
      const vs = hdrEnd + sep;
      let ve = s.indexOf('\n--', vs);
      if (ve < 0) ve = s.length;
      else if (ve > vs && s[ve - 1] === '\r') ve--;
      const name = partName(s.slice(d, lineEnd));
      if (name && ve > vs && !isMark(s.slice(vs, ve)) && isSecretName(name)) {
        out += s.slice(last, vs) + markOf(s.slice(vs, ve));
        last = ve;
      }
      i = ve > d ? ve : d + 1;
    }
    return last === 0 ? s : out + s.slice(last);
  }

  // Payment card numbers anywhere in a body or a typed value: redact's card format (features/redact/card.go),
  // the same rule in the page so that no buffer of the extension holds one either.
  const CARD_RE = /(^|[^0-9A-Za-z_.])([2-6](?:[ -]?[0-9]){12,18})(?=[^0-9A-Za-z_]|$)/g;
  function cardNumber(v) {
    const d = [];
    let group = 0;
    let sep = '';
    for (const c of v) {
      if (c === ' ' || c === '-') {
        if ((sep && c !== sep) || group < 3 || group > 6) return false;
        sep = c;
        group = 0;
      } else {
        d.push(c.charCodeAt(0) - 48);
        group++;
      }
    }
    const n = d.length;
    if (n < 13 || n > 19 || (sep && group > 6)) return false;
    const two = d[0] * 10 + d[1];
    const four = two * 100 + d[2] * 10 + d[3];
    let ok;
    if (d[0] === 4) ok = n === 13 || n === 16 || n === 19; // Visa
    else if (two === 34 || two === 37) ok = n === 15; // American Express
    else if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) ok = n === 16; // Mastercard
    else if (two === 36) ok = n >= 14; // Diners Club
    else if (two === 30 || two === 35 || two === 38 || two === 39) ok = n >= 16; // Diners Club, JCB
    else if (d[0] === 6 || two === 50 || (two >= 56 && two <= 58)) ok = n >= 16 || two === 50 || (two >= 56 && two <= 58) || two === 67 || two === 63;
    if (!ok) return false;
    let sum = 0;
    for (let i = 0; i < n; i++) {
      let x = d[n - 1 - i];
      if (i % 2 === 1) {
        x *= 2;
        if (x > 9) x -= 9;
      }
      sum += x;
    }
    return sum % 10 === 0;
  }
  function cards(s) {
    if (typeof s !== 'string' || !/[2-6][0-9 -]{12}/.test(s)) return s;
    return s.replace(CARD_RE, (m, pre, num, off) => {
      // The card alone when the run goes on with another number grouped otherwise (redact.cardLen).
      let n = num.length;
      while (n > 0 && !cardNumber(num.slice(0, n))) n = Math.max(num.lastIndexOf(' ', n - 1), num.lastIndexOf('-', n - 1));
      if (n <= 0) return m;
      // Quoted where the number stood as a JSON value, so the JSON stays valid (redact.cardMark).
      const before = s.slice(0, off + pre.length).replace(/[ \t]+$/, '');
      const after = s.slice(off + pre.length + n).replace(/^[ \t\r\n]+/, '');
      const json = /[:[,]$/.test(before) && (after === '' || /^[,}\]]/.test(after));
      return pre + (json ? `"${REDACTED}"` : REDACTED) + num.slice(n);
    });
  }

  function body(b, contentType) {
    if (typeof b !== 'string' || b === '' || b.startsWith('[Binary:')) return b;
    b = cards(b);
    const ct = String(contentType || '').toLowerCase();
    const t = b.replace(/^[ \t\r\n]+/, '');
    if (ct.includes('json') || t[0] === '{' || t[0] === '[') return json(b);
    if (ct.includes('multipart/') || (t.startsWith('--') && b.includes('name='))) return multipart(b);
    if (ct.includes('x-www-form-urlencoded')) return pairs(b);
    return text(b);
  }

  function headerValue(h, name) {
    if (!h || typeof h !== 'object') return '';
    for (const k of Object.keys(h)) if (k.toLowerCase() === name) return h[k];
    return '';
  }

  // Scrubs one event on its way to the worker, in place: {kind, data} as PROTOCOL.md describes them.
  const URL_FIELDS = ['url', 'page', 'source'];

  function event(kind, d) {
    if (!d || typeof d !== 'object') return d;
    for (const k of URL_FIELDS) if (typeof d[k] === 'string') d[k] = url(d[k]);
    switch (kind) {
      case 'request':
        headers(d.request_headers);
        headers(d.response_headers);
        d.request_body = body(d.request_body, headerValue(d.request_headers, 'content-type'));
        d.response_body = body(d.response_body, d.content_type);
        break;
      case 'ws':
        if (typeof d.data === 'string') d.data = body(d.data, '');
        break;
      case 'log': // the rest of a message's secrets are the server's (redact.Message): a card is nobody's to hold
        for (const k of ['message', 'stack']) if (typeof d[k] === 'string') d[k] = cards(d[k]);
        if (Array.isArray(d.args)) d.args = d.args.map((a) => (typeof a === 'string' ? cards(a) : a));
        break;
      case 'action':
        if ('value' in d && isSecretField(d.input_type, d.selector)) delete d.value;
        else if (typeof d.value === 'string') d.value = cards(d.value);
        break;
      case 'performance':
        if (Array.isArray(d.resources)) for (const r of d.resources) if (r && typeof r.url === 'string') r.url = url(r.url);
        break;
      default:
    }
    return d;
  }

  // A value stored under a name (a storage key, a cookie, an IndexedDB store): all of it when the name
  // is secret, as markOf writes it, else its secrets as a body's; see redact.Named.
  function named(name, v) {
    if (typeof v !== 'string' || v === '') return v;
    if (isSecretName(name)) return isMark(v) ? v : markOf(v);
    return body(v, '');
  }

  const api = Object.freeze({ isSecretName, isSecretHeader, isSecretField, markOf, cards, url, pairs, headers, text, json, multipart, body, named, event, remembered });
  if (typeof module === 'object' && module.exports) module.exports = api;
  else root.__gasolineScrub = api;
})(globalThis, typeof GASOLINE_CONSTANTS !== 'undefined' ? GASOLINE_CONSTANTS : require('../generated/constants.js'));
