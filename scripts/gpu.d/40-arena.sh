#!/usr/bin/env bash
# GPU check for `peakorder run --arena` (issue 19, docs/layout.md): the seed graph and every
# fixture in tests/cases run on CUDA in one cudaMalloc'd arena of their layout's size, program and
# planned order. For each graph: measured high-water mark = the layout's arena to the byte, and
# the outputs' checksum equals that of the same CUDA run with one allocation per tensor.
#
# Expected: "ok" on every line (the seed: arena 3.50 MiB planned, 5.50 MiB program order, with
# 2.75 MiB of inputs; on CUDA the arena's offsets are multiples of 256, so a fixture's arena may
# be a little above its CPU figure). Exits 1 on any mismatch.
#
# Uses PEAKORDER_BIN or target/release/peakorder (gpu-check.sh builds it); gpu-check.sh gives
# each step 180 s.
set -uo pipefail
cd "$(dirname "$0")/../.."
bin="${PEAKORDER_BIN:-target/release/peakorder}"
if [ ! -x "$bin" ]; then
  echo "arena check: no peakorder binary ($bin)" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" demo --graph > "$tmp/seed.json"

status=0
checksum() { grep -o 'checksum [0-9a-f]*' "$1" | head -n 1; }
echo "== peakorder run --device cuda --arena --compare (seed and tests/cases)"
for g in "$tmp/seed.json" tests/cases/*.json; do
  name=$(basename "$g")
  if ! timeout 60 "$bin" run "$g" --device cuda --arena --compare --json > "$tmp/a.json" 2> "$tmp/err"; then
    echo "$name: run --arena failed: $(head -c 300 "$tmp/err")"
    status=1
    continue
  fi
  timeout 60 "$bin" run "$g" --device cuda --arena --compare > "$tmp/a.txt" 2>&1 || status=1
  timeout 60 "$bin" run "$g" --device cuda --compare > "$tmp/s.txt" 2>&1 || status=1
  a=$(checksum "$tmp/a.txt")
  s=$(checksum "$tmp/s.txt")
  python3 - "$tmp/a.json" "$name" "$a" "$s" <<'PY' || status=1
import json, sys
data = json.load(open(sys.argv[1]))
name, a, s = sys.argv[2:5]
ok = bool(a) and a == s
for r in data["runs"]:
    same = r["measured_peak_bytes"] == r["arena_bytes"]
    ok = ok and same
    print(f"{name:<40} {r['order']:<8} arena {r['arena_bytes']} measured {r['measured_peak_bytes']}"
          f" (planned peak {r['planned_peak_bytes']}, align {r['align']}): {'ok' if same else 'MISMATCH'}")
print(f"{name:<40} outputs: arena {a or '?'} vs separate {s or '?'}: {'ok' if a and a == s else 'MISMATCH'}")
sys.exit(0 if ok else 1)
PY
done
exit $status
