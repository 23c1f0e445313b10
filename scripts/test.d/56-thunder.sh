#!/usr/bin/env bash
# Thunder integration tests (python/tests/test_thunder*.py): the seed functions and a
# checkpointed training step through lightning-thunder 0.2.6 on the CPU, measured with PyTorch's
# profiler. Runs in .venv-thunder (scripts/setup.d/56-thunder.sh); nothing is skipped: a missing
# Thunder is a failure here, not a skip.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=.venv-thunder/bin/python
if [ ! -x "$PY" ]; then
  echo "no .venv-thunder: run scripts/setup.d/56-thunder.sh first" >&2
  exit 1
fi
export PYTHONDONTWRITEBYTECODE=1
export PEAKORDER_REQUIRE_THUNDER=1
# The package (with its native extension) is installed into this venv by
# scripts/build.d/60-python.sh; rerun it (quick when nothing changed) so the tests never see a
# stale copy of python/peakorder.
bash scripts/build.d/60-python.sh
if ! "$PY" -c 'import peakorder' 2>/dev/null; then
  echo "peakorder is not installed in .venv-thunder: run scripts/build.d/60-python.sh first" >&2
  exit 1
fi
# Inductor's compile cache stays inside the repo's target/ (gitignored), not in /tmp.
export TORCHINDUCTOR_CACHE_DIR="$PWD/target/torchinductor-thunder"
set +e
"$PY" -m pytest python/tests/test_thunder*.py -q -rs -p no:cacheprovider -W ignore::DeprecationWarning -W ignore::UserWarning
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests" >&2
  exit 1
fi
exit "$rc"
