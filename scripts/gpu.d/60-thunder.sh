#!/usr/bin/env bash
# GPU check for peakorder.thunder (issue 18): both seed functions of
# shared/seeds/thunder-horizontal-fusion-memory.md on CUDA through Thunder + nvFuser, with and
# without peakorder (and Thunder's "dataflow" fusion, the seed's horizontal merging), measured
# with torch.cuda.max_memory_allocated; prints the table of docs/thunder.md for CUDA.
#
# Expected: eager PyTorch 0.75 MiB above inputs for the efficient function; the seed report
# measured 2.25 MiB for Thunder + nvFuser; peakorder.thunder.jit should give 0.75 for both
# functions, outputs equal.
#
# Needs the .venv-thunder of scripts/setup.d/56-thunder.sh (it adds nvFuser when nvidia-smi is
# present), or a python3 with lightning-thunder 0.2.6, torch 2.9 and nvFuser; the GPU machine
# may be offline, so nothing is installed here. gpu-check.sh gives each step 180 s.
set -uo pipefail
cd "$(dirname "$0")/../.."
PY=.venv-thunder/bin/python
[ -x "$PY" ] || PY=python3
if ! "$PY" -c 'import torch, thunder, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  echo "thunder check skipped: $PY has no lightning-thunder with a CUDA torch"
  exit 0
fi
if ! "$PY" -c 'from thunder.executors.nvfuserex import nvfuserex; assert nvfuserex is not None' 2>/dev/null; then
  echo "thunder check skipped: nvFuser is not installed for $PY (pip install nvfuser-cu128-torch29)"
  exit 0
fi
if ! "$PY" -c 'import peakorder._native' 2>/dev/null; then
  echo "thunder check skipped: the peakorder package is not installed for $PY (scripts/build.d/60-python.sh)"
  exit 0
fi
echo "== thunder + nvFuser, seed functions (CUDA)"
timeout 170 "$PY" python/bench/thunder_figures.py --device cuda --only seed
