#!/usr/bin/env bash
# Python package (python/) and its tests: a venv inside the repo (.venv, gitignored) with
# pytest, onnx, onnxruntime (reorder_onnx: same outputs, python/tests/test_onnx_surfaces.py), numpy and
# jax[cpu], and maturin, the build backend of the package's native
# extension. The package itself is built and installed by scripts/build.d/60-python.sh (it
# embeds the web bundle's report page, built by scripts/build.d/50-web.sh).
# Idempotent: a marker records what was installed, so a second run does nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY="${PYTHON:-python3}"
VENV=.venv
# Pins keep CI reproducible; bump them together. maturin is also the build backend that
# `pip install ./python` fetches (python/pyproject.toml: maturin>=1.9.4,<2).
MATURIN="maturin==1.16.0"
REQS="pytest==9.2.0 numpy==2.4.6 onnx==1.23.2 onnxruntime==1.32.0 jax[cpu]==0.10.2 $MATURIN"
# The build backend's wheel, kept for the test that installs the package into a fresh venv as a
# user would (python/tests/test_install.py): its isolated build env gets maturin from here, so
# the test runs offline.
WHEELHOUSE="$VENV/wheelhouse"
STAMP="$VENV/.peakorder-setup"
want="$REQS|wheelhouse:$MATURIN"
if [ -x "$VENV/bin/python" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
  echo "python venv up to date ($VENV)"
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
# shellcheck disable=SC2086
"$VENV/bin/python" -m pip install --no-cache-dir -q $REQS
rm -rf "$WHEELHOUSE"
"$VENV/bin/python" -m pip download --no-cache-dir -q --only-binary=:all: "$MATURIN" -d "$WHEELHOUSE"
echo "$want" > "$STAMP"
echo "python venv ready ($VENV): $("$VENV/bin/python" --version)"
