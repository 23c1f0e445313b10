#!/usr/bin/env bash
# One short check for a GPU machine (well under 5 minutes): builds peakorder, runs the seed graph
# on CUDA in program order and in planned order, and, where PyTorch with CUDA is installed, the
# seed report's own eager PyTorch function; prints every measured peak above inputs.
#
# Expected (docs/design.md §1, the seed report): planned 0.75 MiB above inputs (eager PyTorch's
# figure), program order 2.75 MiB, each within the CUDA pool's rounding of the plan.
#
# The machine may be offline: set PEAKORDER_BIN to a prebuilt binary, or keep cargo's registry
# cache; when the build fails, an existing target/release/peakorder is used.
set -uo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
fi

bin="${PEAKORDER_BIN:-}"
if [ -z "$bin" ]; then
  bin=target/release/peakorder
  if command -v cargo >/dev/null 2>&1; then
    echo "== build"
    if ! timeout 240 cargo build --release -p peakorder-gpu --bin peakorder; then
      echo "build failed; using the existing $bin if there is one" >&2
    fi
  fi
fi
if [ ! -x "$bin" ]; then
  echo "no peakorder binary ($bin); build it or set PEAKORDER_BIN" >&2
  exit 1
fi

# NVRTC and cuBLAS may come only with PyTorch's pip wheels (site-packages/nvidia/*/lib), which
# are not on the loader's path; add them so the CUDA backend can load them.
if extra=$(python3 -c "import glob, os, nvidia; print(':'.join(sorted(glob.glob(os.path.join(list(nvidia.__path__)[0], '*', 'lib')))))" 2>/dev/null) && [ -n "$extra" ]; then
  export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$extra"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" demo --graph > "$tmp/seed.json"

status=0
echo "== peakorder run seed --device cuda --compare"
timeout 120 "$bin" run "$tmp/seed.json" --device cuda --compare || status=1
timeout 120 "$bin" run "$tmp/seed.json" --device cuda --compare --json > "$tmp/cuda.json" || status=1
echo "== CPU reference"
timeout 120 "$bin" run "$tmp/seed.json" --device cpu --compare --json > "$tmp/cpu.json" || status=1

python3 - "$tmp/cuda.json" "$tmp/cpu.json" <<'PY' || status=1
import json, sys
MiB = 1024 * 1024
for path in sys.argv[1:]:
    try:
        data = json.load(open(path))
    except Exception as e:  # the run above already printed why
        print(f"{path}: no result ({e})")
        continue
    for r in data["runs"]:
        above = r["measured_peak_bytes"] - r["inputs_bytes"]
        planned = r["planned_peak_bytes"] - r["inputs_bytes"]
        print(f"peakorder {data['device']:<4} {r['order']:<8} measured {above / MiB:.2f} MiB above inputs"
              f" (planned {planned / MiB:.2f} MiB, {r['measured_peak_bytes'] - r['planned_peak_bytes']:+d} bytes)")
PY

echo "== eager PyTorch (the seed report's function)"
timeout 120 python3 - <<'PY' || echo "PyTorch check skipped or failed"
try:
    import torch
except ImportError:
    print("PyTorch is not installed: skipped")
    raise SystemExit(0)
if not torch.cuda.is_available():
    print("PyTorch has no CUDA device: skipped")
    raise SystemExit(0)
import gc

N_PARALLEL_PATHS = 10
t0s = [torch.randn(256, 256, device="cuda") for _ in range(N_PARALLEL_PATHS)]
a = torch.randn(256, 256, device="cuda")

# As in the seed report (nvFuser issue, "memory inefficient order with multiple parallel paths").
def eager_func(t0s, a):
    for t0 in t0s:
        t1 = torch.nn.functional.relu(t0); del t0
        t2 = torch.matmul(t1, t1); del t1
        t3 = torch.nn.functional.relu(t2); del t2
        a = torch.matmul(t3, a); del t3
    return a

eager_func(t0s, a)
gc.collect(0)
torch.cuda.empty_cache()
torch.cuda.reset_peak_memory_stats()
before = torch.cuda.max_memory_allocated() / (1024 * 1024)
eager_func(t0s, a)
peak = torch.cuda.max_memory_allocated() / (1024 * 1024) - before
print(f"eager PyTorch cuda  path-by-path measured {peak:.2f} MiB above inputs")
PY

# Each area's own CUDA check (scripts/gpu.d/NN-*.sh, in name order): the arena executor,
# PyTorch through peakorder.torch, Thunder + nvFuser through peakorder.thunder. Each gets the
# binary in PEAKORDER_BIN and prints its own measured figures; a failing one fails the check.
export PEAKORDER_BIN="$bin"
for step in scripts/gpu.d/*.sh; do
  [ -e "$step" ] || continue
  echo "== $step"
  timeout 180 bash "$step" || { echo "$step failed" >&2; status=1; }
done

exit $status
