#!/usr/bin/env bash
# Fuzz the parse → validate → plan → simulate path for SECONDS (default 60).
# Usage: scripts/fuzz.sh [SECONDS]. Crashes land in fuzz/artifacts/plan_json/; copy each one into
# tests/cases/regressions/ as NAME.json (see its README) so core/tests/regressions.rs keeps it
# fixed: that test reads every .json there and fails if the directory is missing.
# The per-input timeout is generous: sanitizer and coverage builds run planners about 10x slower
# than release, and a loaded machine slows them further.
# cargo-fuzz needs nightly features; RUSTC_BOOTSTRAP=1 enables them on the stable toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-60}"
tools="$PWD/.tools"
if [ ! -x "$tools/bin/cargo-fuzz" ]; then
  cargo install cargo-fuzz --locked --root "$tools"
fi
corpus=fuzz/corpus/plan_json
mkdir -p "$corpus"
# Seed the corpus with every fixture, valid or not, and every regression.
find tests/cases -name '*.json' -exec cp {} "$corpus/" \;
export RUSTC_BOOTSTRAP=1
"$tools/bin/cargo-fuzz" run --fuzz-dir fuzz plan_json "$corpus" -- \
  -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 -timeout=60
