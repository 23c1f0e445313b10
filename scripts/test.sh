#!/usr/bin/env bash
# The README's test command: installs what the tests need, builds once, runs every test.
# Each area adds its own steps as scripts/setup.d/NN-*.sh (installs), scripts/build.d/NN-*.sh
# (builds other steps consume) and scripts/test.d/NN-*.sh (tests); each stage runs in name order. Everything installed lives in the repo or in the system's
# package manager; nothing is cached outside the repo.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
for step in scripts/setup.d/*.sh; do
  [ -e "$step" ] || continue
  echo "== setup: $step"
  bash "$step"
done
# Builds that the native build or the tests consume (wasm package, web bundle), in name order.
for step in scripts/build.d/*.sh; do
  [ -e "$step" ] || continue
  echo "== build: $step"
  bash "$step"
done
# Build once in release; every test step reuses target/release.
echo "== build"
cargo build --release --workspace --all-targets
failed=()
for step in scripts/test.d/*.sh; do
  [ -e "$step" ] || continue
  echo "== test: $step"
  if ! bash "$step"; then
    failed+=("$step")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all test steps passed"
