// The ES module copy of names.cjs (browsers and bundlers; keep the two the same).
// Result field names of the JS API (docs/wasm.md "Names"): camelCase, as JavaScript's are. The
// wasm functions return the core's objects, whose fields are snake_case as the CLI's --json
// writes them (docs/design.md §3); every entry point (node.cjs, node.mjs, web.mjs) passes what
// they return through `result` and what they throw through `error`. names.mjs is the ES module
// copy for browsers: keep the two the same (tests/js/names.test.mjs checks it).
//
// For one release the old snake_case names still read (and write) the same values: each is a
// non-enumerable accessor of the camelCase field that warns once per name, so that JSON.stringify,
// Object.keys, spreads, structuredClone (postMessage) and assert.deepStrictEqual see only the
// camelCase fields. Own accessors rather than a shared prototype: a prototype would make every
// result fail deepStrictEqual against a plain object literal.

/** Fields whose value is a map keyed by op or tensor ids (either spelling): the ids are never
 * renamed. */
const ID_MAPS = new Set(['runs', 'offsets', 'workspace_offsets', 'workspaceOffsets']);

const camelOf = new Map();
const snakeOf = new Map();

/** `least_limit_bytes` -> `leastLimitBytes` (the option names follow the same rule). */
export function camel(name) {
  let c = camelOf.get(name);
  if (c === undefined) {
    c = name.replace(/_([a-z0-9])/g, (_, x) => x.toUpperCase());
    camelOf.set(name, c);
  }
  return c;
}

/** `leastLimitBytes` -> `least_limit_bytes`: the old name of a camelCase field. */
export function snake(name) {
  let s = snakeOf.get(name);
  if (s === undefined) {
    s = name.replace(/[A-Z]/g, (x) => `_${x.toLowerCase()}`);
    snakeOf.set(name, s);
  }
  return s;
}

const warned = new Set();

function deprecated(old, now) {
  if (warned.has(old)) return;
  warned.add(old);
  console.warn(`peakorder: result field ${old} is deprecated, use ${now} (snake_case result `
    + 'fields are removed in the next release)');
}

// One descriptor per old name, shared by every object that has it (defining a shared accessor is
// several times cheaper than a fresh one, which matters for the 200,000 steps of a simulation).
const aliasOf = new Map();

function alias(old, now) {
  let d = aliasOf.get(old);
  if (d === undefined) {
    d = {
      get() {
        deprecated(old, now);
        return this[now];
      },
      set(v) {
        deprecated(old, now);
        this[now] = v;
      },
      enumerable: false,
      configurable: true,
    };
    aliasOf.set(old, d);
  }
  return d;
}

/** Whether `v` is an object whose keys are field names (not an array, typed array or null). */
function isRecord(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v);
}

/** How to convert a record with these keys: the new names, which keep their values (id maps),
 * and the accessors to define. One per array of records (their keys are the same but for optional
 * fields): looking names up once per array, not per element, took a third off converting a
 * 200,000-step simulation (132 to 93 ms). */
function shape(keys, rename, aliases) {
  const names = new Array(keys.length);
  const keep = new Array(keys.length);
  let old = null;
  for (let j = 0; j < keys.length; j++) {
    const c = rename(keys[j]);
    names[j] = c;
    keep[j] = ID_MAPS.has(keys[j]);
    const s = snake(c);
    if (aliases && s !== c) (old || (old = [])).push(s, alias(s, c));
  }
  return { keys, names, keep, old };
}

function sameKeys(a, b) {
  if (a.length !== b.length) return false;
  for (let j = 0; j < a.length; j++) if (a[j] !== b[j]) return false;
  return true;
}

function record(x, t, rename, aliases) {
  const out = {};
  const { keys, names, keep, old } = t;
  for (let j = 0; j < keys.length; j++) {
    const v = x[keys[j]];
    out[names[j]] = keep[j] || v === null || typeof v !== 'object' ? v : convert(v, rename, aliases);
  }
  if (old) for (let j = 0; j < old.length; j += 2) Object.defineProperty(out, old[j], old[j + 1]);
  return out;
}

/**
 * The value with every field name renamed (`camel`), nested objects and arrays of objects included;
 * `aliases`: also the deprecated snake_case accessors (of camelCase fields given as such too, as
 * the page's worker sends them). Arrays of the results are homogeneous: one whose first element
 * is not an object (op ids, regions, numbers) is returned as it is.
 */
function convert(v, rename, aliases) {
  if (Array.isArray(v)) {
    if (v.length === 0 || !isRecord(v[0])) return v;
    const out = new Array(v.length);
    let t = null;
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (!isRecord(x)) {
        out[i] = convert(x, rename, aliases);
        continue;
      }
      const keys = Object.keys(x);
      if (t === null || !sameKeys(keys, t.keys)) t = shape(keys, rename, aliases);
      out[i] = record(x, t, rename, aliases);
    }
    return out;
  }
  if (!isRecord(v)) return v;
  return record(v, shape(Object.keys(v), rename, aliases), rename, aliases);
}

/** A result of the API, camelCase, with the deprecated snake_case accessors. */
export function result(v) {
  return convert(v, camel, true);
}

/** The CLI's JSON (a plan, a simulation, ...) as the JS API's camelCase object, without the
 * deprecated names: the page reads plans given as `peakorder plan --json` wrote them. */
export function fromCli(v) {
  return convert(v, camel, false);
}

/** A result in the CLI's JSON names (snake_case), as files are written (docs/design.md §3: the
 * page's plan download reads back into the CLI and Python as `peakorder plan --json` does). */
export function toCli(v) {
  return convert(v, snake, false);
}

/** A thrown error's detail fields (`limit_bytes`, `alias_of`, ...) renamed in place, the old
 * names kept as deprecated accessors. Anything that is not an object is left as it is. */
export function error(e) {
  if (e === null || typeof e !== 'object') return e;
  for (const k of Object.keys(e)) {
    const c = camel(k);
    if (c === k) continue;
    const v = e[k];
    delete e[k];
    e[c] = v;
    Object.defineProperty(e, k, alias(k, c));
  }
  return e;
}

/** `f` with its result converted and its errors' fields renamed. */
export function wrap(f) {
  const w = (...args) => {
    let r;
    try {
      r = f(...args);
    } catch (e) {
      throw error(e);
    }
    return result(r);
  };
  Object.defineProperty(w, 'name', { value: f.name });
  return w;
}
