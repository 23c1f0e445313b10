#!/usr/bin/env bash
# Python package tests (python/tests): the in-process API against the CLI, every error code,
# Ctrl-C during a long search, `pip install ./python` into a fresh venv, the ONNX import and the
# JAX and PyTorch exporters. Uses the venv made by scripts/setup.d/50-python.sh with the package
# that scripts/build.d/60-python.sh installed (rerun here: it does nothing when the wheel is
# current), and the release CLI that scripts/test.sh built (the tests compare with it).
# Any failure or error makes this step fail; skips are listed with their reasons.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=.venv/bin/python
if [ ! -x "$PY" ]; then
  echo "no .venv: run scripts/setup.d/50-python.sh first" >&2
  exit 1
fi
bash scripts/build.d/60-python.sh
if [ ! -x target/release/peakorder ]; then
  cargo build --release -p peakorder-gpu
fi
export JAX_PLATFORMS=cpu
export PYTHONDONTWRITEBYTECODE=1
# -rs lists skip reasons; pytest's own summary line closes the output.
set +e
# test_thunder.py needs torch 2.9 + lightning-thunder: scripts/test.d/56-thunder.sh runs it in
# .venv-thunder, so it is left out here rather than reported as skipped.
"$PY" -m pytest python/tests -q -rs -p no:cacheprovider --ignore=python/tests/test_thunder.py
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests" >&2
  exit 1
fi
exit "$rc"
