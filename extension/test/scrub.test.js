// node --test extension/test/: the content scripts' scrubber answers the same vectors as Go's
// features/redact, so the extension and the server apply one rule.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const fs = require('node:fs');
const scrub = require('../content/scrub.js');

const v = JSON.parse(fs.readFileSync(path.join(__dirname, '../../features/redact/testdata/vectors.json'), 'utf8'));

test('secret names', () => {
  for (const n of v.names.secret) assert.equal(scrub.isSecretName(n), true, n);
  for (const n of v.names.plain) assert.equal(scrub.isSecretName(n), false, n);
});

test('headers keep their names, secret values redacted', () => {
  const h = {};
  for (const n of [...v.headers.secret, ...v.headers.plain]) h[n] = `v-${n}`;
  scrub.headers(h);
  for (const n of v.headers.secret) assert.equal(h[n], '[redacted]', n);
  for (const n of v.headers.plain) assert.equal(h[n], `v-${n}`, n);
});

test('secret fields: passwords, secret names and a card\'s fields', () => {
  assert.ok(v.fields.secret.length > 0);
  for (const f of v.fields.secret) assert.equal(scrub.isSecretField(...f), true, JSON.stringify(f));
  for (const f of v.fields.plain) assert.equal(scrub.isSecretField(...f), false, JSON.stringify(f));
});

test('urls', () => {
  for (const [input, want] of v.urls) assert.equal(scrub.url(input), want, input);
});

test('named: a value stored under a name, as redact.Named', () => {
  assert.ok(v.named.length);
  for (const [name, input, want] of v.named) assert.equal(scrub.named(name, input), want, `${name}=${input}`);
});

test('bodies', () => {
  for (const c of v.bodies) {
    const got = scrub.body(c.in, c.ct);
    assert.equal(got, c.out, c.in);
    assert.equal(scrub.body(got, c.ct), got, `idempotent on ${got}`);
  }
});

test('events: password-like action values are dropped, a request’s URL, headers and bodies scrubbed', () => {
  const a = scrub.event('action', { type: 'input', selector: 'input[name="pass"]', input_type: 'text', value: 'hunter2' });
  assert.equal('value' in a, false);
  const kept = scrub.event('action', { type: 'input', selector: '#q', input_type: 'search', value: 'shoes' });
  assert.equal(kept.value, 'shoes');
  const b = scrub.event('request', {
    url: 'http://a.test/x?token=t1', request_headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'x-forwarded-authorization': 'Bearer b' },
    request_body: 'password=p1', response_body: '{"access_token":"t2"}', content_type: 'application/json',
  });
  assert.deepEqual(b, {
    url: 'http://a.test/x?token=[redacted]', request_headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'x-forwarded-authorization': '[redacted]' },
    request_body: 'password=[redacted]', response_body: '{"access_token":"[redacted]"}', content_type: 'application/json',
  });
});

test('a JSON body cut anywhere keeps its secrets out', () => {
  const body = '{"user":"bob","session":{"id":7,"access_token":"SECRETVALUE1"},"password":"SECRETVALUE2","n":[1,2]}';
  for (let i = body.indexOf('SECRETVALUE1') + 1; i <= body.length; i++) {
    const got = scrub.body(body.slice(0, i), 'application/json');
    assert.ok(!/SECRETVAL|ECRETVALUE/.test(got), `prefix ${i} leaks: ${got}`);
  }
});

test('answers stay right past the remembered names', () => {
  // More distinct names than the scrubber remembers, then the vectors again: nothing stale or lost.
  for (let i = 0; i < 2500; i++) {
    assert.equal(scrub.isSecretName(`field${i}`), false);
    assert.equal(scrub.isSecretName(`field${i}Token`), true);
    assert.equal(scrub.isSecretHeader(`x-custom-${i}`), false);
  }
  for (const n of v.names.secret) assert.equal(scrub.isSecretName(n), true, n);
  for (const n of v.names.plain) assert.equal(scrub.isSecretName(n), false, n);
  for (const n of v.headers.secret) assert.equal(scrub.isSecretHeader(n), true, n);
});

test('remembered: each string asked once, at most max kept, all forgotten on forget()', () => {
  const asked = [];
  const f = scrub.remembered((s) => { asked.push(s); return s.length; }, 2);
  assert.equal(f('ab'), 2);
  assert.equal(f('ab'), 2);
  assert.deepEqual(asked, ['ab'], 'remembered');
  f('c');
  f('d'); // a third string: the two kept are forgotten first
  f('ab');
  assert.deepEqual(asked, ['ab', 'c', 'd', 'ab']);
  f.forget();
  f('ab');
  assert.equal(asked.length, 5, 'forgotten');
});

test('a secret name holding a credential of a known format keeps the mark the server writes', () => {
  const alnum = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const b64 = (s) => Buffer.from(s).toString('base64url');
  const stripe = `sk_${'live_'}${alnum.slice(4, 28)}`;
  const github = `gh${'p_'}${alnum.slice(10, 46)}`;
  const jwt = `${b64('{"alg":"HS256","typ":"JWT"}')}.${b64('{"sub":"fake-user","note":"not a real token"}')}.${b64('fake-signature-not-real')}`;
  const cases = [
    [scrub.url(`https://a.test/v1?api_key=${stripe}&page=2`), 'https://a.test/v1?api_key=sk_live_[redacted]&page=2'],
    [scrub.pairs(`token=${github}&x=1`), 'token=ghp_[redacted]&x=1'],
    [scrub.json(`{"id_token":"${jwt}","n":1}`), '{"id_token":"eyJhbG…[redacted]","n":1}'],
    [scrub.text(`auth: '${stripe}' then`), "auth: 'sk_live_[redacted]' then"],
    [scrub.pairs('password=eyes_only_123'), 'password=[redacted]'], // no format: nothing of it kept
    [scrub.pairs('password=hunter2'), 'password=[redacted]'],
  ];
  for (const [got, want] of cases) {
    assert.equal(got, want);
    assert.equal(scrub.body(got, ''), got, `idempotent on ${got}`);
    assert.equal(scrub.url(got), got, `idempotent on ${got}`);
  }
});

test('a card number typed into any field leaves the page redacted', () => {
  const a = scrub.event('action', { type: 'input', selector: '#note', input_type: 'text', value: `paid with ${'4539 1488'} 0343 6467` });
  assert.equal(a.value, 'paid with [redacted]');
  const kept = scrub.event('action', { type: 'input', selector: '#order', input_type: 'text', value: 'order 4539148803436468' });
  assert.equal(kept.value, 'order 4539148803436468');
});
