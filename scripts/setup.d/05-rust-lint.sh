#!/usr/bin/env bash
# rustfmt and clippy for scripts/test.d/05-lint.sh (rustup's default profile has them; a minimal
# toolchain does not). Idempotent.
set -euo pipefail
for c in rustfmt clippy; do
  if ! rustup component list --installed | grep -q "^$c"; then
    rustup component add "$c"
  fi
done
