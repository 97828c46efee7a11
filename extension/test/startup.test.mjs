import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StartupQueue } from '../sw/startup.js';

// sw/startup.js's StartupQueue: events that come before the stored state is loaded are not lost and
// keep their order; once started, nothing waits.

test('what came before the start runs at the start, in order; what comes after runs at once', () => {
  const q = new StartupQueue();
  const ran = [];
  q.run(() => ran.push(1));
  q.run(() => ran.push(2));
  assert.deepEqual(ran, []);
  q.start();
  assert.deepEqual(ran, [1, 2]);
  q.run(() => ran.push(3));
  assert.deepEqual(ran, [1, 2, 3]);
  q.start(); // a second start runs nothing twice
  assert.deepEqual(ran, [1, 2, 3]);
});

