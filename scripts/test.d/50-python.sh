#!/usr/bin/env bash
# Python package tests (python/tests): ONNX import through the CLI, JAX and PyTorch exporters,
# plan/show. Uses the venv made by scripts/setup.d/50-python.sh and the release binary that
# scripts/test.sh built. Tests whose framework is missing (torch in CI) are reported as skipped;
# any failure or error makes this step fail.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=.venv/bin/python
if [ ! -x "$PY" ]; then
  echo "no .venv: run scripts/setup.d/50-python.sh first" >&2
  exit 1
fi
if [ ! -x target/release/peakorder ]; then
  cargo build --release -p peakorder-gpu
fi
export PEAKORDER_BIN="$PWD/target/release/peakorder"
export JAX_PLATFORMS=cpu
export PYTHONDONTWRITEBYTECODE=1
# -rs lists skip reasons (e.g. torch not installed); pytest's own summary line closes the output.
set +e
"$PY" -m pytest python/tests -q -rs -p no:cacheprovider
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests" >&2
  exit 1
fi
exit "$rc"
