#!/usr/bin/env bash
# The dynamo exporter of torch.onnx needs onnxscript (python/tests/test_onnx_torch.py exports
# torchvision models with both exporters). Installed into the repository's .venv only where torch
# is there (scripts/setup.d/55-torch.sh); pinned, and idempotent through a marker file.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=.venv/bin/python
REQS="onnxscript==0.7.2 onnx-ir==1.1.0"
STAMP=.venv/.peakorder-onnx-setup
if [ ! -x "$PY" ] || ! "$PY" -c 'import torch' 2>/dev/null; then
  echo "onnx export extras: no torch in .venv, nothing to do"
  exit 0
fi
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$REQS" ]; then
  echo "onnx export extras up to date"
  exit 0
fi
export PIP_DISABLE_PIP_VERSION_CHECK=1
# shellcheck disable=SC2086
"$PY" -m pip install --no-cache-dir -q $REQS
echo "$REQS" > "$STAMP"
echo "onnx export extras ready: $REQS"
