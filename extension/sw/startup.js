// @ts-check

/**
 * What arrives before the worker has read its stored state waits here, in the order it came, and runs
 * when the state is in; from then on it runs at once. A `ready.then` per message would not do: the
 * stored state is in before the rest of start-up is over, and events must not wait for that.
 */
export class StartupQueue {
  constructor() {
    /** @type {Array<() => void>} */
    this.waiting = [];
    this.started = false;
  }

  /** Runs fn now once started, else at start. @param {() => void} fn */
  run(fn) {
    if (this.started) fn();
    else this.waiting.push(fn);
  }

  /** The stored state is in: what waited runs, in order, before anything that comes next. */
  start() {
    this.started = true;
    for (const fn of this.waiting.splice(0)) fn();
  }
}
