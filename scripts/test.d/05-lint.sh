#!/usr/bin/env bash
# Lint: formatting, clippy with warnings as errors, and no import circles among the modules of
# every crate (core, native-gpu's library and CLI, wasm, report, python's extension) and of the
# Python package (scripts/module-cycles.py; with no argument it reads all of them). Clippy runs
# in the release profile: it then reuses the release build's build scripts and proc-macros
# (scripts/test.sh built them) and only checks the rest, about a third less CPU than the dev
# profile, which would rebuild them.
set -euo pipefail
cd "$(dirname "$0")/../.."
echo "-- cargo fmt --all -- --check"
cargo fmt --all -- --check
echo "-- cargo clippy --release --workspace --all-targets -- -D warnings"
cargo clippy --release --workspace --all-targets -- -D warnings
echo "-- python3 scripts/module-cycles.py (every crate and the Python package)"
python3 scripts/module-cycles.py
