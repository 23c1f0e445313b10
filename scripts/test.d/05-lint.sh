#!/usr/bin/env bash
# Lint: formatting, clippy with warnings as errors, and no import circles among the core's
# modules (docs/design.md's rule; scripts/module-cycles.py). Clippy runs in the release profile:
# it then reuses the release build's build scripts and proc-macros (scripts/test.sh built them)
# and only checks the rest, about a third less CPU than the dev profile, which would rebuild them.
set -euo pipefail
cd "$(dirname "$0")/../.."
echo "-- cargo fmt --all -- --check"
cargo fmt --all -- --check
echo "-- cargo clippy --release --workspace --all-targets -- -D warnings"
cargo clippy --release --workspace --all-targets -- -D warnings
echo "-- python3 scripts/module-cycles.py"
python3 scripts/module-cycles.py
