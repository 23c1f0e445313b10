#!/usr/bin/env bash
# The README's demo command: the seed example, planned and executed.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --quiet --release -p peakorder-gpu --bin peakorder -- demo "$@"
