#!/usr/bin/env bash
# The npm package's WebAssembly builds (pkg/node, pkg/web), before the native build that may
# embed them. scripts/test.d/30-node.sh calls the same script, which is then a no-op.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/build-wasm.sh
