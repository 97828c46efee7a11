// A clock for the worker's objects in Node (sw/clock.js's shape): time moves only when the test says,
// and each timer due on the way runs at its time, with the promises it starts settled after it.
// Not a test.

const settle = () => new Promise((r) => setImmediate(r));

export class FakeClock {
  constructor(now = 1_000_000) {
    this.t = now;
    this.seq = 0;
    this.timers = new Map(); // id → {at, f}
  }

  now() { return this.t; }

  setTimeout(f, ms) {
    const id = ++this.seq;
    this.timers.set(id, { at: this.t + Math.max(0, ms || 0), f });
    return id;
  }

  clearTimeout(id) { this.timers.delete(id); }

  /** The delays of the timers set now, from now, soonest first. */
  pending() {
    return [...this.timers.values()].map((x) => x.at - this.t).sort((a, b) => a - b);
  }

  /** Lets pending promises run. */
  async settle() {
    for (let i = 0; i < 5; i++) await settle();
  }

  /** Moves time on by ms, running each timer due on the way at its time (oldest first among equals). */
  async advance(ms) {
    const end = this.t + ms;
    await this.settle();
    for (;;) {
      let next = null;
      for (const [id, x] of this.timers) if (x.at <= end && (!next || x.at < next[1].at)) next = [id, x];
      if (!next) break;
      this.timers.delete(next[0]);
      this.t = next[1].at;
      next[1].f();
      await this.settle();
    }
    this.t = end;
  }
}
