#!/usr/bin/env bash
# PyTorch integration (python/peakorder/torch, issue 16): torch and torchvision, pinned, into the
# repository's .venv (made by 50-python.sh), plus hypothesis for the property tests of
# python/tests/test_torch_reorder.py. PyPI's Linux torch wheel brings its CUDA libraries (a few
# GB); CI uses only the CPU. Installed with uv (from PyPI, pinned): on the shared development
# machine it unpacks the large wheels in parallel, minutes faster than pip. torch 2.9.1 (the
# other supported version) lives in .venv-thunder (56-thunder.sh).
# Idempotent: a stamp records what was installed, so a second run does nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=.venv
if [ ! -x "$VENV/bin/python" ]; then
  echo "no .venv: run scripts/setup.d/50-python.sh first" >&2
  exit 1
fi
# Pins keep CI reproducible; bump them together (peakorder/torch/_versions.py names what each
# entry point needs). torchvision's own dependencies are pinned at the versions tested.
REQS="torch==2.15.0 torchvision==0.29.2 pillow==13.0.0 hypothesis==6.170.15 sortedcontainers==2.4.0"
UV="uv==0.13.8"
STAMP="$VENV/.peakorder-torch"
want="$UV $REQS"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
  echo "torch in $VENV up to date"
  exit 0
fi
export PIP_DISABLE_PIP_VERSION_CHECK=1
"$VENV/bin/python" -m pip install --no-cache-dir -q "$UV"
# uv's cache sits inside the venv (hardlinked into it, same file system) and is removed after.
export UV_CACHE_DIR="$PWD/$VENV/.uv-cache" UV_LINK_MODE=hardlink
# shellcheck disable=SC2086
"$VENV/bin/uv" pip install -q --python "$VENV/bin/python" $REQS
rm -rf "$UV_CACHE_DIR"
"$VENV/bin/python" -c 'import torch, torchvision, hypothesis; print("torch", torch.__version__, "torchvision", torchvision.__version__)'
echo "$want" > "$STAMP"
