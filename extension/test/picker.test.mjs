import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Picker, pickInPage, LAYOUT_STYLES, MAX_TEXT } from '../sw/picker.js';

function fakes({ screenshots = true, status = 200, shootFails = false } = {}) {
  const calls = { scripts: [], shots: [], posts: [] };
  const picker = new Picker({
    scripting: { executeScript: async (o) => { calls.scripts.push(o); return [{ result: true }]; } },
    resolveTab: async (tab) => (tab === 0 ? 7 : tab),
    shoot: async (tab, p) => {
      calls.shots.push([tab, p]);
      if (shootFails) throw new Error('tab 7 is not the one showing in its window');
      return { data: 'UE5H' };
    },
    settings: () => (screenshots ? {} : { ai_screenshots: false }),
    postJSON: async (path, body) => { calls.posts.push([path, JSON.parse(body)]); return /** @type {any} */ ({ ok: status < 300, status }); },
    errorText: async () => 'element: want a selector',
  });
  return { picker, calls };
}

const tab = { id: 7, url: 'http://localhost:3000/cart' };
const picked = {
  selector: '#buy', tag: 'button', text: 'Buy now', box: { x: 10, y: 20, width: 80, height: 30 },
  styles: { display: 'flex', 'margin-top': '4px', cookie: 'not a style' }, extra: 'dropped',
};

test('start runs the picker in the page the popup means, with the note', async () => {
  const { picker, calls } = fakes();
  assert.deepEqual(await picker.start(0, 'this one is off'), { tab: 7 });
  assert.equal(calls.scripts.length, 1);
  const s = calls.scripts[0];
  assert.deepEqual(s.target, { tabId: 7 });
  assert.equal(s.func, pickInPage);
  assert.deepEqual(s.args, ['this one is off', LAYOUT_STYLES, MAX_TEXT]);
});

test('a pick goes to the server with its selector, box, layout styles and picture', async () => {
  const { picker, calls } = fakes();
  assert.deepEqual(await picker.picked({ tab, frameId: 0 }, picked, 'misaligned'), { ok: true });
  assert.deepEqual(calls.shots, [[7, { selector: '#buy', format: 'png', max_width: 400, margin: 4 }]]);
  assert.deepEqual(calls.posts, [['/point', {
    element: {
      selector: '#buy', tag: 'button', text: 'Buy now', box: { x: 10, y: 20, width: 80, height: 30 },
      styles: { display: 'flex', 'margin-top': '4px' }, page: 'http://localhost:3000/cart', tab: 7,
      screenshot: 'data:image/png;base64,UE5H',
    },
    note: 'misaligned',
  }]]);
});

test('no picture when the human turned AI screenshots off, and the AI is told why', async () => {
  const { picker, calls } = fakes({ screenshots: false });
  await picker.picked({ tab, frameId: 0 }, picked, '');
  assert.equal(calls.shots.length, 0);
  const el = calls.posts[0][1].element;
  assert.equal(el.screenshot, undefined);
  assert.match(el.screenshot_skipped, /screenshots off/);
});

test('a picture that cannot be taken is said, and the pick still goes', async () => {
  const { picker, calls } = fakes({ shootFails: true });
  assert.deepEqual(await picker.picked({ tab, frameId: 0 }, picked, ''), { ok: true });
  assert.match(calls.posts[0][1].element.screenshot_skipped, /not the one showing/);
});

test('bounded, from a top frame only, and the server\'s refusal is answered', async () => {
  const { picker, calls } = fakes({ status: 400 });
  const long = { ...picked, text: 'x'.repeat(5000), selector: 's'.repeat(5000) };
  assert.deepEqual(await picker.picked({ tab, frameId: 0 }, long, 'n'.repeat(2000)), { error: 'element: want a selector' });
  const body = calls.posts[0][1];
  assert.equal(body.element.text.length, MAX_TEXT);
  assert.equal(body.element.selector.length, 1000);
  assert.equal(body.note.length, 500);
  assert.ok((await picker.picked({ tab, frameId: 3 }, picked, '')).error);
  assert.ok((await picker.picked({ frameId: 0 }, picked, '')).error);
  assert.equal(calls.posts.length, 1);
});
