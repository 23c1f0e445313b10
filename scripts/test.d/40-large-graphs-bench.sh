#!/usr/bin/env bash
# Smoke run of the large-graph benchmark on smaller graphs (reuses the release build): every
# method's order is re-checked and the fallback portfolio must not be above min(inductor, xla)
# on any family (the bench asserts both). Numbers are for docs/large-graphs.md, not checked here.
set -euo pipefail
cargo bench -p peakorder --bench families --profile release -- --quick
