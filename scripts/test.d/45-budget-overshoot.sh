#!/usr/bin/env bash
# Budgets are promises (issue 17): auto, exact and local with budgets of 1, 10 and 100 ms on
# every fixture and the generated ~5,000-op families, then on the two 100,000-op families, must
# end within 1.1 x budget + 5 ms (elapsed_ms on the thread's CPU clock). The full measurement,
# with the real-graph corpus and 1,000 ms, is `cargo bench -p peakorder --bench budget --
# --overshoot` (docs/benchmarks.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
PEAKORDER_CORPUS=/nonexistent cargo bench -q -p peakorder --bench budget --profile release -- \
  --overshoot --quick --check
PEAKORDER_CORPUS=/nonexistent cargo bench -q -p peakorder --bench budget --profile release -- \
  --overshoot --quick --only sp-100k,layered-1000x100 --check
