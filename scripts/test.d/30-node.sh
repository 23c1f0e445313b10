#!/usr/bin/env bash
# The npm package: build the wasm (a no-op when scripts/build.d already did), type-check the
# TypeScript example, run the Node tests over tests/cases, the issue's `node -e` acceptance
# check, and print the speed ratio against the native CLI (docs/wasm.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/build-wasm.sh
echo "-- tsc --noEmit (tests/js/types-check.mts)"
node_modules/.bin/tsc -p tests/js/tsconfig.json
echo "-- node -e: plan the seed graph, then a cycle"
node --input-type=module -e '
import { plan } from "peakorder";
import { seedGraph, cyclicGraph } from "./tests/js/graphs.mjs";
const p = plan(seedGraph());
if (p.peak_bytes !== 3670016) throw new Error("seed peak " + p.peak_bytes);
let code;
try { plan(cyclicGraph()); } catch (e) { code = e.code; }
if (code !== "cycle") throw new Error("cycle code " + code);
if (plan(seedGraph()).peak_bytes !== 3670016) throw new Error("unusable after an error");
console.log("seed graph: " + p.peak_bytes + " bytes (3.5 MiB); cycle -> code " + code + "; next call ok");
'
echo "-- node --test"
node --test tests/js/
echo "-- bench (informational; scripts/bench-wasm.mjs)"
if [ -x target/release/peakorder ]; then
  node scripts/bench-wasm.mjs --reps 7 || echo "bench-wasm failed (not a test)"
fi
