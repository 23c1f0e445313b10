#!/usr/bin/env bash
# Fuzz for SECONDS (default 60) one cargo-fuzz target (default plan_json):
#   plan_json    JSON bytes → parse → validate → plan → simulate.
#   import_onnx  ONNX bytes → the importer → validate → plan → simulate.
#   layout_csv   a knob byte (alignment), then MiniMalloc CSV bytes → parse → every layout
#                method, with and without a capacity → an independent validity check.
#   layout_json  a knob byte (alignment, slack), then graph JSON bytes → parse → validate → a
#                greedy order → every layout method, and the order search → the memory model's
#                own walk of each layout (docs/layout.md).
# Usage: scripts/fuzz.sh [SECONDS] [TARGET]. Crashes land in fuzz/artifacts/TARGET/; copy each
# plan_json one into tests/cases/regressions/ as NAME.json (see its README) so
# core/tests/regressions.rs keeps it fixed (that test reads every .json there and fails if the
# directory is missing), make each import_onnx one a case of native-gpu/tests/cli_import.rs, and
# each layout_csv / layout_json one (drop its first byte, the knob) a case of core/tests/prop_layout.rs.
# The per-input timeout is generous: sanitizer and coverage builds run planners about 10x slower
# than release, and a loaded machine slows them further.
# cargo-fuzz needs nightly features; RUSTC_BOOTSTRAP=1 enables them on the stable toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-60}"
target="${2:-plan_json}"
tools="$PWD/.tools"
if [ ! -x "$tools/bin/cargo-fuzz" ]; then
  cargo install cargo-fuzz --locked --root "$tools"
fi
corpus="fuzz/corpus/$target"
mkdir -p "$corpus"
max_len=65536
case "$target" in
  plan_json)
    # Seed the corpus with every fixture, valid or not, and every regression.
    find tests/cases -name '*.json' -exec cp {} "$corpus/" \;
    ;;
  import_onnx)
    # Seed with the models the onnx wheel ships (in .venv, scripts/setup.d/50-python.sh).
    max_len=262144
    if [ -x .venv/bin/python ]; then
      data="$(.venv/bin/python -c 'import onnx, os; print(os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data"))')"
      i=0
      while IFS= read -r f; do
        cp "$f" "$corpus/seed$i.onnx"
        i=$((i + 1))
      done < <(find "$data" -name '*.onnx' -size -256k | sort)
    fi
    ;;
  layout_csv)
    # Seed with the first 40 buffers of each of MiniMalloc's instances (the target skips
    # problems of more than 64), each after a knob byte.
    for f in tests/minimalloc/*.csv; do
      { printf '\000'; head -n 41 "$f"; } > "$corpus/seed-$(basename "$f")"
    done
    ;;
  layout_json)
    # Seed with every valid fixture, after a knob byte.
    for f in $(find tests/cases -name '*.json' -not -path '*/invalid/*'); do
      { printf '\001'; cat "$f"; } > "$corpus/seed-$(basename "$f")"
    done
    ;;
esac
export RUSTC_BOOTSTRAP=1
"$tools/bin/cargo-fuzz" run --fuzz-dir fuzz "$target" "$corpus" -- \
  -max_total_time="$secs" -max_len="$max_len" -rss_limit_mb=2048 -timeout=60
