#!/usr/bin/env bash
# Exports the real-graph corpus (docs/real-graphs.md) into DIR (default target/corpus/):
# PyTorch training steps and inference graphs, JAX training steps, Keras application models on
# JAX, ONNX models, WfCommons workflows and sparse-Cholesky elimination trees. Existing graphs
# are kept (delete DIR to redo).
#
#   scripts/corpus/build.sh [DIR]     PY=python with torch, torchvision, onnx and the peakorder
#                                     wheel (default /work/venvs/torch/bin/python, else
#                                     .venv/bin/python, which scripts/test.sh makes); PY_JAX=
#                                     one with jax too (default PY; JAX steps skipped without);
#                                     PY_KERAS= one with keras, jax and the wheel (default
#                                     /work/venvs/keras/bin/python, else PY_JAX; skipped without)
#   WFINSTANCES=path to a checkout (or bare git dir) of github.com/wfcommons/WfInstances; cloned
#                into target/WfInstances when unset and git can reach GitHub.
set -euo pipefail
cd "$(dirname "$0")/../.."
DIR="${1:-target/corpus}"
PY="${PY:-}"
if [ -z "$PY" ]; then
  for p in /work/venvs/torch/bin/python .venv/bin/python; do
    if [ -x "$p" ]; then PY=$p; break; fi
  done
fi
BIN="${PEAKORDER_BIN:-target/release/peakorder}"
[ -x "$BIN" ] || cargo build --release -p peakorder-gpu
mkdir -p "$DIR"
echo "-- elimination trees"
"$PY" scripts/corpus/etrees.py "$DIR"
echo "-- workflows"
WF="${WFINSTANCES:-}"
if [ -z "$WF" ]; then
  WF=target/WfInstances
  [ -d "$WF" ] || git clone --depth 1 https://github.com/wfcommons/WfInstances "$WF" || WF=
fi
if [ -n "$WF" ]; then "$PY" scripts/corpus/wfcommons.py "$WF" "$DIR"; else echo "no WfInstances: skipped"; fi
echo "-- ONNX models"
PEAKORDER_BIN="$BIN" "$PY" scripts/corpus/onnx_models.py "$DIR" --bin "$BIN"
echo "-- JAX training steps"
# JAX is not a test dependency: PY_JAX (default PY) is a Python with jax and the peakorder wheel.
PY_JAX="${PY_JAX:-$PY}"
if "$PY_JAX" -c "import jax, peakorder" 2>/dev/null; then
  "$PY_JAX" scripts/corpus/jax_train.py "$DIR"
else
  echo "no jax (or no peakorder) in $PY_JAX: skipped (set PY_JAX to a venv with both)"
fi
echo "-- Keras application models (JAX backend)"
# Keras is not a test dependency either: PY_KERAS is a Python with keras 3, jax and the wheel.
PY_KERAS="${PY_KERAS:-}"
if [ -z "$PY_KERAS" ]; then
  PY_KERAS=$PY_JAX
  if [ -x /work/venvs/keras/bin/python ]; then PY_KERAS=/work/venvs/keras/bin/python; fi
fi
if KERAS_BACKEND=jax "$PY_KERAS" -c "import jax, keras, peakorder" 2>/dev/null; then
  KERAS_BACKEND=jax "$PY_KERAS" scripts/corpus/keras_jax.py "$DIR"
else
  echo "no keras (or jax, or peakorder) in $PY_KERAS: skipped (set PY_KERAS to a venv with all three)"
fi
echo "-- PyTorch training steps"
"$PY" scripts/corpus/torch_train.py "$DIR"
echo "-- PyTorch inference graphs"
"$PY" scripts/corpus/torch_infer.py "$DIR"
echo "-- validating"
n=0
for g in "$DIR"/*.json; do
  "$BIN" plan "$g" --method greedy --json >/dev/null || { echo "invalid: $g" >&2; exit 1; }
  n=$((n + 1))
done
echo "$n graphs in $DIR"
