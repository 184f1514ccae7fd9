#!/usr/bin/env bash
# nightly.area.sue_tx_x1024: `make area`'s flow (scripts/area.sh) synthesizes sue_tx compiled for
# 1,024 XPUs on 4 ports, SUE and SUE Lite (reduced QDepth/Window, as `make area` does by default), and
# the result keeps the connection and queue state in memories: the test fails when yosys does not
# finish within AREA_TIMEOUT (default 7200 s per profile), when a profile has no cells, or when the
# per-connection / per-queue state falls back into flip-flops (more flip-flops than the bound below).
#
# Usage: tests/sue/test_area_x1024.sh OUT_DIR
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${1:?usage: test_area_x1024.sh OUT_DIR}
if ! command -v "${YOSYS:-yosys}" >/dev/null 2>&1; then
  echo "test_area_x1024: yosys not found (make area installs it: apt-get install yosys)" >&2
  exit 1
fi
rm -rf "$OUT"
AREA_BLOCKS=sue_tx AREA_TIMEOUT=${AREA_TIMEOUT:-7200} bash "$ROOT/scripts/area.sh" --xpus 1024 --ports 4 --out "$OUT"
python3 - "$OUT/area.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
bad = []
# Flip-flop bound: the per-connection bitmaps (13 of NC = 16,384 bits), the per-queue bits
# (pc 3 + credit 2 + 5 bitmaps, NQ = 4,096) and the datapath registers (< 40,000) stay below 300,000;
# the connection words (16,384 x 120 bits) or the queue words (4,096 x 107 bits) in flip-flops would
# add 1.9 M or 0.4 M.
for key, name, min_mem in (("sue_tx_p0", "SUE", 2_000_000), ("sue_tx_p1", "SUE Lite", 1_000_000)):
    a = r.get(key, {"error": "missing"})
    if "error" in a:
        bad.append(f"{name}: not synthesized: {a['error']}")
        continue
    print(f"{name}: {a['logic']} logic cells, {a['ff']} flip-flops, {a['mem_bits']} memory bits in {a['mems']} memories, {a['secs']} s")
    if a["logic"] <= 0:
        bad.append(f"{name}: no logic cells")
    if a["ff"] > 300_000:
        bad.append(f"{name}: {a['ff']} flip-flops > 300,000 (state left the memories)")
    if a["mem_bits"] < min_mem:
        bad.append(f"{name}: {a['mem_bits']} memory bits < {min_mem}")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
EOF
