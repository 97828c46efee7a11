// Gasoline: the one serialiser for values the page hands over, loaded into the page world first (before
// inject.js, which takes it and removes it from window before any page script runs) and imported by the
// worker (sw/serialize.js), which runs the same function in the page for execute_js. A console
// argument in `observe logs` and an `execute_js` result are therefore the same JSON text for the same
// value; only the limits differ (PROTOCOL.md, "Values as JSON").
//
// The function is self-contained (no outer names): the worker hands its source to the page.
(() => {
  'use strict';

  /**
   * With a string key: serializes the value parked at globalThis[key] (and removes it) into
   * {json, cut} of at most `max` characters, execute_js's limits. Otherwise: returns
   * serialize(value, limits) → {json, cut}, bound to the built-ins as they are now.
   * @param {string | null} key
   * @param {number} [max]
   */
  function gasolineSerializer(key, max) {
    'use strict';
    const G = globalThis;
    const apply = Reflect.apply;
    const jsonStringify = JSON.stringify;
    const objectKeys = Object.keys;
    const isArray = Array.isArray;
    const isView = ArrayBuffer.isView;
    // These built-ins' accessors, which every engine defines.
    const getter = (C, name) => /** @type {() => unknown} */ (/** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(C.prototype, name)).get);
    const mapSize = getter(Map, 'size');
    const setSize = getter(Set, 'size');
    const bufferLength = getter(ArrayBuffer, 'byteLength');
    const regexpSource = getter(RegExp, 'source');
    const regexpFlags = getter(RegExp, 'flags');
    const dateTime = Date.prototype.getTime;
    const dateISO = Date.prototype.toISOString;
    const mapEntries = Map.prototype.entries;
    const setValues = Set.prototype.values;
    const mapNext = Object.getPrototypeOf(new Map().entries()).next;
    const setNext = Object.getPrototypeOf(new Set().values()).next;
    const symbolText = Symbol.prototype.toString;
    const objectTag = Object.prototype.toString;
    const ErrorCtor = Error;
    const PromiseCtor = Promise;
    // Element's own id: a form's field named "id" is what form.id reads. None in the worker's tests.
    const elementId = typeof G.Element === 'function' ? getter(G.Element, 'id') : null;

    // A brand check: f applied to v works only on the built-in it belongs to (a page's Symbol.toStringTag
    // or instanceof tricks do not fool it).
    const is = (f, v) => {
      try {
        apply(f, v, []);
        return true;
      } catch (_) {
        return false;
      }
    };
    const errorLike = (v) => v instanceof ErrorCtor || (typeof v.message === 'string' && typeof v.stack === 'string');
    const isNode = (v) => typeof v.nodeType === 'number' && typeof v.nodeName === 'string';
    const clip = (s, n) => (s.length > n ? `${s.slice(0, n)}…` : s);
    const idOf = (n) => {
      if (elementId) {
        try {
          return String(apply(elementId, n, []));
        } catch (_) { /* not an element */ }
      }
      return typeof n.id === 'string' ? n.id : '';
    };
    const describeNode = (n) => {
      if (n.nodeType === 1) {
        let s = `<${String(n.nodeName).toLowerCase()}`;
        const id = idOf(n);
        if (id) s += `#${id}`;
        const cls = typeof n.className === 'string' ? n.className.trim().split(/\s+/).filter(Boolean).slice(0, 3) : [];
        if (cls.length) s += `.${cls.join('.')}`;
        return `${s}>`;
      }
      if (n.nodeType === 3) return `#text "${clip(String(n.data), 80)}"`;
      return String(n.nodeName);
    };
    // The values of a built-in iterator, read with our own next (a page's replacement is never called).
    const drain = (it, next, n) => {
      const out = [];
      for (let r = apply(next, it, []); !r.done && out.length < n; r = apply(next, it, [])) out.push(r.value);
      return out;
    };

    /**
     * @param {unknown} root
     * @param {{max: number, depth?: number, items?: number, str?: number}} lim characters in all; objects
     *   nested deeper than depth read "[Object]"/"[Array]"; at most items entries each; strings clipped at str
     */
    function serialize(root, lim) {
      const maxChars = lim.max;
      const maxDepth = lim.depth || 100;
      const maxItems = lim.items || Infinity;
      const maxStr = lim.str || maxChars;
      const parts = [];
      const path = [];
      let size = 0;
      let cut = false;
      const put = (s) => {
        if (cut) return;
        parts.push(s);
        size += s.length;
        if (size > maxChars) cut = true;
      };
      const str = (s) => put(jsonStringify(clip(s, maxStr)));
      const list = (arr, total, depth) => {
        put('[');
        for (let i = 0; i < arr.length && !cut; i++) {
          if (i) put(',');
          walk(arr[i], depth + 1);
        }
        if (total > arr.length) {
          if (arr.length) put(',');
          str(`… ${total - arr.length} more`);
        }
        put(']');
      };
      const walk = (v, depth) => {
        if (cut) return;
        switch (typeof v) {
          case 'string': return str(v);
          case 'number': return Number.isFinite(v) ? put(String(v)) : str(String(v));
          case 'boolean': return put(v ? 'true' : 'false');
          case 'undefined': return put('null');
          case 'bigint': return str(`${v}n`);
          case 'symbol': return str(apply(symbolText, v, []));
          case 'function': return str(`[Function: ${v.name || 'anonymous'}]`);
          default: break;
        }
        if (v === null) return put('null');
        if (path.includes(v)) return str('[Circular]');
        if (v === G) return str('[Window]'); // the page's window
        const arr = isArray(v);
        // A built-in is looked for only where the tag names it (a brand check that fails throws, which
        // costs), and believed only if its slots say so (a tag is the page's to claim).
        let tag = '';
        if (!arr) {
          try { tag = apply(objectTag, v, []); } catch (_) { /* a revoked proxy: an object */ }
        }
        if (tag === '[object Date]' && is(dateTime, v)) return str(Number.isNaN(apply(dateTime, v, [])) ? 'Invalid Date' : apply(dateISO, v, []));
        if (tag === '[object RegExp]' && is(regexpSource, v)) return str(`/${apply(regexpSource, v, [])}/${apply(regexpFlags, v, [])}`);
        if (tag === '[object ArrayBuffer]' && is(bufferLength, v)) return str(`[ArrayBuffer(${apply(bufferLength, v, [])})]`);
        if (tag === '[object Promise]' && v instanceof PromiseCtor) return str('[Promise]');
        if (!arr && isNode(v)) return str(describeNode(v));
        const map = tag === '[object Map]' && is(mapSize, v);
        const set = tag === '[object Set]' && is(setSize, v);
        const typed = !arr && isView(v) && typeof (/** @type {Uint8Array} */ (v)).length === 'number';
        if (depth >= maxDepth) return str(arr || map || set || typed ? '[Array]' : '[Object]');
        path.push(v);
        try {
          if (errorLike(v)) {
            const e = /** @type {Error} */ (v);
            put('{"name":');
            str(String(e.name));
            put(',"message":');
            str(String(e.message));
            put(',"stack":');
            str(String(e.stack || ''));
            return put('}');
          }
          if (map) return list(drain(apply(mapEntries, v, []), mapNext, maxItems).map((e) => [e[0], e[1]]), apply(mapSize, v, []), depth);
          if (set) return list(drain(apply(setValues, v, []), setNext, maxItems), apply(setSize, v, []), depth);
          if (typed || arr) {
            const a = /** @type {unknown[]} */ (v);
            const n = Math.min(a.length, maxItems);
            const items = [];
            for (let i = 0; i < n; i++) items.push(a[i]);
            return list(items, a.length, depth);
          }
          if (isView(v)) return str(`[DataView(${/** @type {DataView} */ (v).byteLength})]`);
          put('{');
          const keys = objectKeys(v);
          let first = true;
          let shown = 0;
          for (let i = 0; i < keys.length && !cut && shown < maxItems; i++) {
            let val;
            try {
              val = v[keys[i]];
            } catch (e) {
              let why = '';
              try { why = String((e && e.message) || e); } catch (_) { /* nothing to say */ }
              val = `[Threw: ${why}]`;
            }
            if (val === undefined) continue;
            if (!first) put(',');
            first = false;
            shown++;
            put(`${jsonStringify(keys[i])}:`);
            walk(val, depth + 1);
          }
          if (shown >= maxItems && keys.length > shown) put(`${first ? '' : ','}"…":${jsonStringify(`${keys.length - shown} more`)}`);
          return put('}');
        } finally {
          path.pop();
        }
      };
      walk(root, 0);
      return { json: parts.join(''), cut };
    }

    if (typeof key !== 'string') return serialize;
    const root = G[key];
    try { delete G[key]; } catch (_) { /* ignore */ }
    return serialize(root, { max: max || 65536 });
  }

  try {
    Object.defineProperty(globalThis, '__gasolineSerializer', { value: gasolineSerializer, configurable: true, enumerable: false, writable: false });
  } catch (_) { /* inject.js then has none and previews with String() */ }
})();
//# sourceURL=gasoline-serialize.js
