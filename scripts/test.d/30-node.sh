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
if (p.peakBytes !== 3670016) throw new Error("seed peak " + p.peakBytes);
let code;
try { plan(cyclicGraph()); } catch (e) { code = e.code; }
if (code !== "cycle") throw new Error("cycle code " + code);
if (plan(seedGraph()).peakBytes !== 3670016) throw new Error("unusable after an error");
console.log("seed graph: " + p.peakBytes + " bytes (3.5 MiB); cycle -> code " + code + "; next call ok");
'
echo "-- the packed package, installed in a scratch project (files, exports, node -e)"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
npm pack --silent --pack-destination "$scratch" >/dev/null
node --input-type=module -e '
import { writeFileSync } from "node:fs";
import { seedGraph, cyclicGraph } from "./tests/js/graphs.mjs";
writeFileSync(process.argv[1] + "/seed.json", JSON.stringify(seedGraph()));
writeFileSync(process.argv[1] + "/cycle.json", JSON.stringify(cyclicGraph()));
' "$scratch"
(
  cd "$scratch"
  echo '{"name": "scratch", "private": true}' > package.json
  npm install --silent --no-audit --no-fund --offline ./peakorder-*.tgz
  node -e '
const { plan } = require("peakorder");
const fs = require("fs");
const p = plan(fs.readFileSync("seed.json", "utf8"));
if (p.peakBytes !== 3670016) throw new Error("seed peak " + p.peakBytes);
try { plan(fs.readFileSync("cycle.json", "utf8")); throw new Error("no error"); }
catch (e) { if (e.code !== "cycle") throw e; }
console.log("require: seed graph " + p.peakBytes + " bytes; cycle -> " + "cycle");
'
  node --input-type=module -e '
import init, { plan } from "peakorder";
import { readFileSync } from "node:fs";
await init();
const p = plan(JSON.parse(readFileSync("seed.json", "utf8")));
if (p.peakBytes !== 3670016) throw new Error("seed peak " + p.peakBytes);
console.log("import: seed graph " + p.peakBytes + " bytes");
'
)
echo "-- node --test"
node --test tests/js/*.test.mjs
echo "-- bench (informational; scripts/bench-wasm.mjs)"
if [ -x "${CARGO_TARGET_DIR:-target}/release/peakorder" ]; then
  node scripts/bench-wasm.mjs --reps 7 || echo "bench-wasm failed (not a test)"
fi
