import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Styles, fromCDP, layerNames } from '../sw/styles.js';
import { ScriptRunner } from '../sw/script.js';
import { FakeClock } from './fake-clock.mjs';

// analyze styles in the worker (sw/styles.js) with a fake chrome.debugger and content script: the CSS
// domain's answer in the content script's shape, one debugger session per query under the tab's lock,
// the content script's walk in Firefox and when another debugger holds the tab.

const EL = { url: 'http://app.test/', element: 'button#buy.btn', ancestors: ['div.card', 'body'], computed: { color: 'rgb(204, 0, 0)' } };
const SITE = { styleSheetId: 's1', sourceURL: 'http://app.test/site.css', startLine: 0, startColumn: 0 };
const INLINE = { styleSheetId: 's2', sourceURL: 'http://app.test/', isInline: true, startLine: 10, startColumn: 7 };

const rule = (origin, selectors, matching, props, sheet, extra = {}) => ({
  rule: {
    origin,
    selectorList: { selectors: selectors.map((text, i) => ({ text, range: sheet ? { startLine: i, startColumn: 0 } : undefined })), text: selectors.join(', ') },
    style: { styleSheetId: sheet, cssProperties: props, range: sheet ? { startLine: 0, startColumn: 5 } : undefined },
    ...extra,
  },
  matchingSelectors: matching,
});
const prop = (name, value, line, extra = {}) => ({ name, value, range: line === undefined ? undefined : { startLine: line, startColumn: 7 }, ...extra });

const MATCHED = {
  inlineStyle: { cssProperties: [prop('margin-top', '0', 0)] },
  matchedCSSRules: [
    rule('user-agent', ['button'], [0], [prop('color', 'buttontext'), prop('display', 'inline-block')]),
    rule('regular', ['.btn', '.nope'], [0], [prop('color', 'blue', 1), prop('color', 'navy', 1), prop('color', 'rgb(0, 0, 128)'), prop('padding', '4px', 1,
      { longhandProperties: [{ name: 'padding-top', value: '4px' }] })], 's1'),
    rule('regular', ['#buy'], [0], [prop('color', '#c00', 2), prop('color', 'green', 2, { disabled: true }),
      prop('margin-top', '2px !important', 2, { important: true }), prop('margin-top', '3px', 2)], 's1', { layers: [{ text: 'reset' }, { text: 'base' }] }),
  ],
  inherited: [
    { matchedCSSRules: [rule('regular', ['.card'], [0], [prop('font-family', 'Georgia', 1)], 's2')] },
    { inlineStyle: { cssProperties: [prop('font-family', 'serif', 0)] }, matchedCSSRules: [] },
  ],
};

test('the CSS domain\'s matched styles become the declarations the server orders', () => {
  const headers = new Map([['s1', SITE], ['s2', INLINE]]);
  const r = fromCDP(MATCHED, headers, ['base', 'base.reset'], EL, ['color', 'margin-top', 'font-family', 'padding-top']);
  assert.equal(r.via, 'cdp');
  assert.deepEqual(r.sheets, [{ url: 'http://app.test/site.css' }, { url: 'http://app.test/', inline: true }]);
  const of = (node, p) => r.decls.filter((d) => d.node === node && d.p === p);
  assert.deepEqual(of(0, 'color'), [
    { node: 0, p: 'color', v: 'buttontext', o: 'user-agent', n: 0, sel: 'button' },
    { node: 0, p: 'color', v: 'navy', o: 'author', n: 1, sel: '.btn', sh: 0, ln: 2, col: 8 },
    { node: 0, p: 'color', v: '#c00', o: 'author', n: 2, sel: '#buy', layer: 'base.reset', sh: 0, ln: 3, col: 8 },
  ], 'the last declaration of a block counts, as written, a disabled one never; only the selectors that matched');
  assert.deepEqual(of(0, 'margin-top').map((d) => [d.v, d.o, d.imp]), [['2px', 'author', true], ['0', 'inline', undefined]],
    '!important over a later declaration of the same block');
  assert.deepEqual(of(0, 'padding-top').map((d) => [d.v, d.ln]), [['4px', 2]], 'a longhand set by its shorthand, at the shorthand');
  assert.deepEqual(of(1, 'font-family'), [{ node: 1, p: 'font-family', v: 'Georgia', o: 'author', n: 0, sel: '.card', sh: 1, ln: 12, col: 8 }],
    'an inline <style>: lines of the page');
  assert.deepEqual(of(2, 'font-family').map((d) => d.o), ['inline']);
  assert.deepEqual(r.layers, ['base', 'base.reset']);
});

test('the user agent\'s system font: its longhands, empty, are declared there; an author\'s invalid or empty value is not', () => {
  const m = {
    matchedCSSRules: [
      rule('user-agent', ['input, textarea, select, button'], [0], [prop('font-size', '')]),
      rule('regular', ['.btn'], [0], [prop('font-size', 'huge', 1, { parsedOk: false }), prop('font-family', '', 1)], 's1'),
    ],
  };
  const r = fromCDP(m, new Map([['s1', SITE]]), [], EL, ['font-size', 'font-family']);
  assert.deepEqual(r.decls, [{ node: 0, p: 'font-size', v: '', o: 'user-agent', n: 0, sel: 'input, textarea, select, button' }]);
});

test('without properties asked: those the element\'s author rules and style attribute write, not the user agent\'s', () => {
  const r = fromCDP(MATCHED, new Map([['s1', SITE]]), [], EL, []);
  assert.deepEqual(r.props.sort(), ['color', 'margin-top', 'padding'].sort());
  assert.ok(r.decls.some((d) => d.o === 'user-agent' && d.p === 'color'), 'the UA\'s color still shows, as beaten');
  assert.ok(!r.decls.some((d) => d.p === 'display'));
});

test('layers in cascade order: siblings by their order, a layer\'s sublayers listed after it', () => {
  const root = { name: 'implicit outer layer', order: 9, subLayers: [
    { name: 'theme', order: 5 }, { name: 'base', order: 3, subLayers: [{ name: 'reset', order: 1 }] }] };
  assert.deepEqual(layerNames(root), ['base', 'base.reset', 'theme']);
});

function harness({ debuggerless = false } = {}) {
  const clock = new FakeClock();
  const h = { calls: [], asked: [], attachError: null, hold: null };
  h.dbg = {
    attach: async (target) => {
      h.calls.push(['attach', target.tabId]);
      if (h.attachError) throw new Error(h.attachError);
    },
    detach: async (target) => { h.calls.push(['detach', target.tabId]); },
    sendCommand: async (target, method) => {
      h.calls.push([method]);
      switch (method) {
        case 'CSS.enable':
          h.styles.onDebuggerEvent({ tabId: target.tabId }, 'CSS.styleSheetAdded', { header: SITE });
          return {};
        case 'DOM.getDocument': return { root: { nodeId: 1 } };
        case 'DOM.querySelector': return { nodeId: h.nodeId ?? 5 };
        case 'CSS.getMatchedStylesForNode': return MATCHED;
        case 'CSS.getLayersForNode': throw new Error("'CSS.getLayersForNode' wasn't found");
        default: return {};
      }
    },
  };
  const script = new ScriptRunner({ debugger: null, scripting: null, clock, pilot: null, settled: async () => {}, randomKey: () => 'k' });
  h.script = script;
  h.styles = new Styles({
    debugger: debuggerless ? null : h.dbg,
    clock,
    lock: (tabId, fn) => script.withTabLock(tabId, fn),
    documents: {
      settled: async () => {},
      askContent: async (tabId, q) => {
        h.asked.push(q.params);
        if (h.contentError) return { error: h.contentError };
        if (q.params.step === 'computed') return { result: { computed: { color: 'red' } } };
        if (q.params.step === 'target') return { result: EL };
        return { result: { via: 'sheets', element: 'button#buy.btn', unreadable: ['http://cdn.test/x.css'] } };
      },
    },
  });
  h.run = (p, job = { done: false }) => h.styles.run(7, { id: 'q1' }, p, job);
  return h;
}

test('Chromium: the element is checked by the content script, then one debugger session under the tab\'s lock', async () => {
  const h = harness();
  const out = await h.run({ selector: '#buy', properties: ['color'] });
  assert.equal(out.result.via, 'cdp');
  assert.equal(out.result.sheets[0].url, 'http://app.test/site.css', 'the header announced during CSS.enable names the sheet');
  assert.deepEqual(h.asked, [{ selector: '#buy', properties: ['color'], step: 'target' }]);
  assert.deepEqual(h.calls.map((c) => c[0]), ['attach', 'DOM.enable', 'CSS.enable', 'DOM.getDocument', 'DOM.querySelector',
    'CSS.getMatchedStylesForNode', 'CSS.getLayersForNode', 'detach']);
  assert.equal(h.styles.sessions.size, 0);
  // Without properties, the computed values of the ones found are asked after.
  h.asked.length = 0;
  const all = await h.run({ selector: '#buy' });
  assert.deepEqual(all.result.computed, { color: 'red' });
  assert.equal(h.asked[1].step, 'computed');
  assert.deepEqual(h.asked[1].properties.sort(), ['color', 'margin-top', 'padding']);
});

test('a styles query waits for the AI\'s action or script that holds the tab\'s debugger', async () => {
  const h = harness();
  let release;
  const held = h.script.withTabLock(7, () => new Promise((r) => { release = r; }));
  const q = h.run({ selector: '#buy', properties: ['color'] });
  await new Promise((r) => setImmediate(r));
  assert.ok(!h.calls.some((c) => c[0] === 'attach'), 'not attached while an action holds the tab');
  release();
  await held;
  assert.equal((await q).result.via, 'cdp');
  // And an action asked meanwhile waits for the styles query's detach.
  h.calls.length = 0;
  const q2 = h.run({ selector: '#buy', properties: ['color'] });
  await new Promise((r) => setImmediate(r));
  let seen;
  await h.script.withTabLock(7, async () => { seen = h.calls.map((c) => c[0]); });
  await q2;
  assert.equal(seen[0], 'attach');
  assert.equal(seen.at(-1), 'detach', 'the action ran once the styles query let the debugger go');
});

test('another debugger on the tab: the content script walks the sheets; bad input never attaches', async () => {
  const h = harness();
  h.attachError = 'Another debugger is already attached to the tab with id: 7.';
  const out = await h.run({ selector: '#buy', properties: ['color'] });
  assert.equal(out.result.via, 'sheets');
  assert.deepEqual(out.result.unreadable, ['http://cdn.test/x.css']);
  assert.deepEqual(h.asked.at(-1), { selector: '#buy', properties: ['color'] });
  assert.ok(!h.calls.some((c) => c[0] === 'detach'), 'never attached, never detached');
  h.attachError = 'No tab with id: 7.';
  await assert.rejects(h.run({ selector: '#buy' }), (e) => e.code === 'not_found');

  h.attachError = null;
  h.calls.length = 0;
  h.contentError = { code: 'invalid_param', message: '"colour" is not a CSS property this browser knows' };
  await assert.rejects(h.run({ selector: '#buy', properties: ['colour'] }), (e) => e.code === 'invalid_param');
  h.contentError = { code: 'not_found', message: 'no element matches "#nope"' };
  await assert.rejects(h.run({ selector: '#nope' }), (e) => e.code === 'not_found');
  assert.deepEqual(h.calls, [], 'the debugger is not attached for bad input');
});

test('an element gone between the content script\'s look and the debugger\'s is not_found, and the debugger detached', async () => {
  const h = harness();
  h.nodeId = 0;
  await assert.rejects(h.run({ selector: '#buy', properties: ['color'] }), (e) => e.code === 'not_found');
  assert.deepEqual(h.calls.at(-1), ['detach', 7]);
});

test('Firefox: no debugger, the content script\'s walk is the answer', async () => {
  const h = harness({ debuggerless: true });
  const out = await h.run({ selector: '#buy', properties: ['color'] });
  assert.equal(out.result.via, 'sheets');
  assert.deepEqual(h.asked, [{ selector: '#buy', properties: ['color'] }]);
});
