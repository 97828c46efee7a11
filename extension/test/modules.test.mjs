import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';

// Every worker module imports without chrome.*: state is created when the worker starts, never as a side
// effect of an import (the entry, background.js, is the only module that registers listeners).
test('worker modules touch no chrome API at import time', async () => {
  assert.equal(typeof globalThis.chrome, 'undefined');
  const dir = new URL('../sw/', import.meta.url);
  const files = readdirSync(dir).filter((f) => f.endsWith('.js'));
  assert.ok(files.length >= 10, files.join());
  for (const f of files) await import(new URL(f, dir));
});
