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

/** Runs the native CLI and parses its JSON output. */
export function cliJson(args, input) {
  const out = execFileSync(CLI, args, { input, maxBuffer: 1 << 30 });
  return JSON.parse(out.toString());
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
