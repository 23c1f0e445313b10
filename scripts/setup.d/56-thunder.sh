#!/usr/bin/env bash
# Thunder integration (python/peakorder/thunder, issue 18): a venv inside the repo
# (.venv-thunder, gitignored) with lightning-thunder 0.2.6 and the torch it runs with. 0.2.6 does
# not import with newer torch (torch.Tensor.align_as is gone in 2.15), so torch is pinned to
# 2.9.1 here, apart from the main .venv. PyPI's Linux torch wheel brings its CUDA libraries
# (about 4 GB in all); only the CPU is used in CI. They are installed with uv (from PyPI, pinned):
# measured on the shared development machine, 2 minutes where pip took 10 (it unpacks the large
# wheels in parallel). When nvidia-smi is present, nvFuser for this torch is added (for
# scripts/gpu.d/60-thunder.sh). The peakorder package itself is installed into this venv by
# scripts/build.d/60-python.sh (every .venv-*).
# Idempotent: a stamp records what was installed, so a second run does nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY="${PYTHON:-python3}"
VENV=.venv-thunder
# Pins keep CI reproducible; bump them together (peakorder/thunder/_versions.py names the
# supported Thunder and torch versions). The transitive dependencies of lightning-thunder are
# pinned too, at the versions tested.
REQS="torch==2.9.1 torchvision==0.24.1 lightning-thunder==0.2.6 pytest==9.2.0 numpy==2.4.6 \
lightning-utilities==0.15.3 looseversion==1.3.0 optree==0.20.0 dill==0.4.1 opt-einsum==3.4.0"
UV="uv==0.13.8"
NVFUSER="nvfuser-cu128-torch29==0.2.35.dev20260115"
command -v nvidia-smi >/dev/null 2>&1 && REQS="$REQS $NVFUSER"
STAMP="$VENV/.peakorder-setup"
want="$UV $REQS"
if [ -x "$VENV/bin/python" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
  echo "thunder venv up to date ($VENV)"
  exit 0
fi
if ! "$PY" -c 'import venv, ensurepip' 2>/dev/null; then
  # Debian's python3 splits venv/ensurepip into a separate package.
  if command -v apt-get >/dev/null; then
    apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
  fi
fi
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
export PIP_DISABLE_PIP_VERSION_CHECK=1
"$VENV/bin/python" -m pip install --no-cache-dir -q "$UV"
# uv's cache sits inside the venv (hardlinked into it, same file system) and is removed after.
export UV_CACHE_DIR="$PWD/$VENV/.uv-cache" UV_LINK_MODE=hardlink
# shellcheck disable=SC2086
"$VENV/bin/uv" pip install -q --python "$VENV/bin/python" $REQS
rm -rf "$UV_CACHE_DIR"
"$VENV/bin/python" -c 'import thunder, torch; print("thunder", thunder.__version__, "torch", torch.__version__)'
echo "$want" > "$STAMP"
echo "thunder venv ready ($VENV)"
