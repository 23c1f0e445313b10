#!/usr/bin/env bash
# Fuzz for SECONDS (default 60) one cargo-fuzz target (default plan_json):
#   plan_json    JSON bytes → parse → validate → plan → simulate.
#   import_onnx  ONNX bytes → the importer → validate → plan → simulate.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET]. Crashes land in fuzz/artifacts/TARGET/; copy each
# plan_json one into tests/cases/regressions/ as NAME.json (see its README) so
# core/tests/regressions.rs keeps it fixed (that test reads every .json there and fails if the
# directory is missing), and make each import_onnx one a case of native-gpu/tests/cli_import.rs.
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
esac
export RUSTC_BOOTSTRAP=1
"$tools/bin/cargo-fuzz" run --fuzz-dir fuzz "$target" "$corpus" -- \
  -max_total_time="$secs" -max_len="$max_len" -rss_limit_mb=2048 -timeout=60
