#!/usr/bin/env bash
# Tools for the WebAssembly build and the npm package (docs/wasm.md). Idempotent and fast when
# everything is already there. The wasm-bindgen CLI must match the wasm-bindgen crate in Cargo.lock
# exactly (its custom-section schema changes between releases), so it is installed into the repo
# (.tools/, gitignored) at that version; nothing is cached outside the repo.
set -euo pipefail
cd "$(dirname "$0")/../.."

# 1. The Rust target.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi

# 2. wasm-bindgen CLI at the locked version.
want=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/[^0-9.]/, ""); print; exit}' Cargo.lock)
if [ -z "$want" ]; then
  echo "20-wasm: wasm-bindgen not found in Cargo.lock" >&2
  exit 1
fi
have=$(.tools/bin/wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  echo "20-wasm: installing wasm-bindgen-cli $want into .tools (a few minutes, once)"
  # --locked first (the CLI's own tested dependency set); if a pin in its lock file is missing
  # from the registry (it happens), resolve afresh within its semver ranges.
  cargo install wasm-bindgen-cli --version "=$want" --locked --root .tools \
    || cargo install wasm-bindgen-cli --version "=$want" --root .tools
fi

# 3. Node dev dependencies: typescript (the type check) and binaryen (wasm-opt; Debian's
#    binaryen 108 is too old for what rustc and wasm-bindgen emit now), pinned by package-lock.json.
if command -v npm >/dev/null 2>&1; then
  if [ ! -x node_modules/.bin/tsc ] || [ ! -x node_modules/.bin/wasm-opt ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund --loglevel=error
  fi
else
  echo "20-wasm: npm not found; install Node.js 20 or newer" >&2
  exit 1
fi
