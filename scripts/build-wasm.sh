#!/usr/bin/env bash
# Builds the npm package's WebAssembly (docs/wasm.md): the `peakorder-wasm` crate in the
# `wasm-release` profile, then the pinned wasm-bindgen CLI (scripts/setup.d/20-wasm.sh) makes
#   pkg/node/  CommonJS for Node (loads the .wasm synchronously)
#   pkg/web/   an ES module for browsers and bundlers (`await init()` first)
# and wasm-opt (Debian's binaryen), when present, shrinks each .wasm. Skips the bindgen and
# wasm-opt steps when their outputs are newer than cargo's .wasm, so calling it twice is cheap.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

want=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/[^0-9.]/, ""); print; exit}' Cargo.lock)
bindgen=.tools/bin/wasm-bindgen
if [ "$("$bindgen" --version 2>/dev/null | awk '{print $2}')" != "$want" ]; then
  if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" = "$want" ]; then
    bindgen=wasm-bindgen
  else
    echo "build-wasm: wasm-bindgen $want not found; run scripts/setup.d/20-wasm.sh" >&2
    exit 1
  fi
fi

# Two modules: the planner (peakorder-wasm -> peakorder_bg.wasm) and the ONNX importer
# (peakorder-onnx-wasm -> peakorder_onnx_bg.wasm), kept apart so that the planner stays small and
# a page that never opens a model never loads the importer (docs/wasm.md "ONNX").
# Speed (docs/wasm.md "Speed"): at opt-level "z" LLVM inlines a call only when the callee costs
# under 5, so even `Vec` indexing and iterator steps stay calls, and the proof path ran 5-14x
# slower than native. An explicit -inline-threshold replaces that cap: 50 inlines the small
# helpers (about native speed) for 12% more gzipped bytes ("s" costs 30%, opt-level 3 70%).
# The size test (tests/js/size.test.mjs) holds both modules to their budgets with it.
inline="-C llvm-args=-inline-threshold=50"
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="${CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS:-} $inline"
# Cargo ignores the target's flags when RUSTFLAGS (or its encoded form) is set, which would
# silently drop the threshold: add it there too. With --target they reach only the wasm
# artifacts, not build scripts.
if [ -n "${CARGO_ENCODED_RUSTFLAGS:-}" ]; then
  export CARGO_ENCODED_RUSTFLAGS="$CARGO_ENCODED_RUSTFLAGS"$'\x1f'"-Cllvm-args=-inline-threshold=50"
elif [ -n "${RUSTFLAGS:-}" ]; then
  export RUSTFLAGS="$RUSTFLAGS $inline"
fi
cargo build --profile wasm-release --target wasm32-unknown-unknown -p peakorder-wasm -p peakorder-onnx-wasm
target_dir=${CARGO_TARGET_DIR:-target}

# wasm-opt: the one pinned in package-lock.json (npm's binaryen) first. Debian's binaryen 108
# cannot parse what rustc 1.8x+/wasm-bindgen 0.2.1xx emit (table.fill), so a system wasm-opt is
# only a fallback, and a failing wasm-opt leaves the (larger, still valid) unoptimised file.
wasm_opt=
for w in node_modules/.bin/wasm-opt "$(command -v wasm-opt || true)"; do
  if [ -n "$w" ] && [ -x "$w" ]; then wasm_opt=$w; break; fi
done
# The features rustc enables by default for wasm32-unknown-unknown; wasm-opt must accept them.
opt_features=(--enable-mutable-globals --enable-sign-ext --enable-nontrapping-float-to-int
  --enable-bulk-memory --enable-reference-types --enable-multivalue)

for module in peakorder peakorder_onnx; do
for target in nodejs web; do
  case $module in
    peakorder) input=$target_dir/wasm32-unknown-unknown/wasm-release/peakorder_wasm.wasm ;;
    peakorder_onnx) input=$target_dir/wasm32-unknown-unknown/wasm-release/peakorder_onnx_wasm.wasm ;;
  esac
  case $target in
    nodejs) out=pkg/node; type=commonjs ;;
    web) out=pkg/web; type=module ;;
  esac
  wasm=$out/${module}_bg.wasm
  stamp=$target_dir/wasm-bindgen-$module-$target.stamp
  if [ -f "$wasm" ] && [ "$wasm" -nt "$input" ] && [ "$stamp" -nt "$input" ]; then
    echo "build-wasm: $wasm is up to date"
    continue
  fi
  mkdir -p "$out"
  rm -f "$out/$module.js" "$out/$module.d.ts" "$out/${module}_bg.wasm" "$out/${module}_bg.wasm.d.ts"
  "$bindgen" --target "$target" --out-dir "$out" --out-name "$module" "$input"
  if [ -z "$wasm_opt" ]; then
    echo "build-wasm: wasm-opt not found (npm ci installs it); $wasm is not size-optimised"
  elif "$wasm_opt" -Os --converge --strip-producers --strip-target-features "${opt_features[@]}" \
      "$wasm" -o "$wasm.opt"; then
    mv "$wasm.opt" "$wasm"
  else
    rm -f "$wasm.opt"
    echo "build-wasm: $wasm_opt failed; $wasm is not size-optimised"
  fi
  # The package root has no "type"; say which module system each folder's .js files use, so
  # Node, bundlers and the tests read them right whatever the importer is.
  printf '{"type": "%s"}\n' "$type" > "$out/package.json"
  touch "$stamp"
  raw=$(wc -c < "$wasm")
  gz=$(gzip -9 -c "$wasm" | wc -c)
  echo "build-wasm: $wasm: $raw bytes, $gz gzipped"
done
done
