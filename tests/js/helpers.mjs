// Shared by the Node tests: paths, the native CLI, and error checks.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Shared fixtures; PEAKORDER_CASES overrides (e.g. to try another checkout's). */
export const CASES = process.env.PEAKORDER_CASES || join(ROOT, 'tests', 'cases');
/** The native CLI from the release build that scripts/test.sh makes, if there. */
export const CLI = join(process.env.CARGO_TARGET_DIR || join(ROOT, 'target'), 'release', 'peakorder');
export const haveCli = existsSync(CLI);

/** Runs the native CLI and parses its JSON output, with the field names the npm API gives
 * (camelCase: docs/wasm.md "Names"), so that its objects compare with the package's as they are. */
export function cliJson(args, input) {
  const out = execFileSync(CLI, args, { input, maxBuffer: 1 << 30 });
  return camelFields(JSON.parse(out.toString()));
}

/** Fields whose values are maps keyed by op or tensor ids, which keep their keys. */
const ID_MAPS = new Set(['runs', 'offsets', 'workspace_offsets']);

/** The CLI's snake_case field names as camelCase (`least_limit_bytes` -> `leastLimitBytes`),
 * nested objects and arrays of them included. Written apart from js/names.cjs on purpose: the
 * tests check the package's renaming against this one. */
export function camelFields(v) {
  if (Array.isArray(v)) return v.map(camelFields);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [
    k.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase()),
    ID_MAPS.has(k) ? x : camelFields(x),
  ]));
}

/** Every code the package may throw (wasm/src/types.rs ErrorCode). */
export const CODES = new Set([
  'bad_json', 'bad_format', 'invalid_tensor', 'invalid_op', 'duplicate_id', 'unknown_tensor',
  'produced_twice', 'cycle', 'alias_cycle', 'size_overflow', 'unknown_output', 'unknown_op',
  'repeated_op', 'missing_op', 'not_topological', 'unknown_method', 'not_applicable',
  'too_large', 'invalid_argument', 'bad_region', 'region_cycle', 'peak_limit', 'bad_layout',
  'bad_csv', 'infeasible', 'not_recomputable', 'stale_view', 'bad_limit',
]);

/** Asserts `f` throws a PeakorderError with `code` (and, if given, a message containing `mentions`). */
export function assertThrowsCode(f, code, mentions) {
  let thrown;
  try {
    f();
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown !== undefined, `expected an error with code ${code}, got none`);
  assert.ok(thrown instanceof Error, `expected an Error, got ${String(thrown)}`);
  assert.equal(thrown.name, 'PeakorderError');
  assert.equal(thrown.code, code, `wrong code; message: ${thrown.message}`);
  if (mentions !== undefined) {
    assert.ok(thrown.message.includes(mentions), `message ${JSON.stringify(thrown.message)} should mention ${mentions}`);
  }
  return thrown;
}
