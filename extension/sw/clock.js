// The clock the worker's objects take (timers and the time): the real one in the worker, a fake in
// the Node tests, which then run a state machine's timers in the order and at the times they choose.

/** @typedef {{setTimeout(f: () => void, ms: number): any, clearTimeout(t: any): void, now(): number}} Clock */

/** @type {Clock} */
export const systemClock = {
  setTimeout: (f, ms) => setTimeout(f, ms),
  clearTimeout: (t) => clearTimeout(t),
  now: () => Date.now(),
};
