#!/usr/bin/env bash
# The Python package (python/): builds its wheel once (the native extension over the core, with
# the report page of www/dist/, so after scripts/build.d/50-web.sh) and installs it into every
# in-repo venv that exists (.venv from scripts/setup.d/50-python.sh, .venv-* from other setup
# steps). `pip wheel ./python` is what a user's `pip install ./python` runs too; here maturin
# comes from .venv (--no-build-isolation) so nothing is downloaded.
# Idempotent and quick when nothing changed: a stamp holds the hash of every input.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=.venv/bin/python
if [ ! -x "$PY" ]; then
  echo "no .venv: run scripts/setup.d/50-python.sh first" >&2
  exit 1
fi
# Not target/wheels: maturin writes every wheel it builds there (a fresh-venv install too).
WHEELS=target/python-wheel
STAMP="$WHEELS/.peakorder-inputs"
# Everything the wheel is made of: the Rust sources it compiles, the package's Python files and
# metadata, and the embedded report template.
inputs() {
  {
    git ls-files -co --exclude-standard -- Cargo.toml Cargo.lock core report onnx python/Cargo.toml \
      python/pyproject.toml python/README.md python/src python/peakorder
    if [ -f www/dist/report.html ]; then echo www/dist/report.html; fi
  } | grep -v -e '/tests/' -e '/benches/' | sort -u | while read -r f; do
    if [ -f "$f" ]; then sha1sum "$f"; fi
  done | sha1sum | cut -c1-40
}
want="$(inputs)"
wheel=""
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
  wheel="$(ls "$WHEELS"/peakorder-*.whl 2>/dev/null | head -n1)"
fi
if [ -z "$wheel" ]; then
  rm -f "$WHEELS"/peakorder-*.whl "$STAMP"
  mkdir -p "$WHEELS"
  [ -f www/dist/report.html ] || echo "warning: www/dist/report.html is missing (scripts/build.d/50-web.sh); peakorder.report_html will say so" >&2
  # maturin's build hook runs the `maturin` command: the venv's, on PATH.
  PATH="$PWD/.venv/bin:$PATH" PIP_DISABLE_PIP_VERSION_CHECK=1 "$PY" -m pip wheel -q --no-deps --no-build-isolation ./python -w "$WHEELS"
  wheel="$(ls "$WHEELS"/peakorder-*.whl | head -n1)"
  echo "$want" > "$STAMP"
  echo "built $wheel"
else
  echo "python wheel up to date ($wheel)"
fi
whash="$(sha1sum "$wheel" | cut -c1-40)"
for venv in .venv .venv-*; do
  [ -x "$venv/bin/python" ] || continue
  mark="$venv/.peakorder-wheel"
  if [ -f "$mark" ] && [ "$(cat "$mark")" = "$whash" ]; then
    continue
  fi
  PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/python" -m pip install -q --no-deps --force-reinstall "$wheel"
  echo "$whash" > "$mark"
  echo "installed $(basename "$wheel") into $venv"
done
