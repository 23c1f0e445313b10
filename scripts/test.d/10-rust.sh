#!/usr/bin/env bash
# Rust unit, property and CLI tests (release profile: reuses the build from scripts/test.sh).
set -euo pipefail
cargo test --release --workspace
