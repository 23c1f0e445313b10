#!/usr/bin/env bash
# The seed through peakorder's PyTorch integration on CUDA (issue 16): torch.compile with
# peakorder.torch.inductor_options() and with peakorder.torch.backend() must peak 0.75 MiB above
# the inputs (torch.cuda.max_memory_allocated) with eager's output bits, for the seed written
# breadth-first and for the memory-efficient eager function; Inductor's default is printed beside.
# Uses .venv (scripts/setup.d/50-python.sh, 55-torch.sh; the package from build.d/60-python.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
.venv/bin/python python/bench/torch_steps.py seed --device cuda --check
