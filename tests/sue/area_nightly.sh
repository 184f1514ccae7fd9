#!/usr/bin/env bash
# nightly.area: `make area` at its defaults (scripts/area.sh, both blocks, both profiles; ~30-40 min and
# ~9 GB for sue_rx) must synthesize every block, keep the flip-flops and memory bits of
# tests/sue/area_ref.json exactly and the logic cells within its tolerance, and keep SUE Lite smaller
# than SUE in each block. A change to the RTL or the flow that moves a figure on purpose updates the
# reference with the reviewed run (docs/sue.md "Area").
# Usage: area_nightly.sh <source dir> [<area.json of a finished run>]  (the second: check only)
set -uo pipefail
SRC=${1:?source dir}
REF="$SRC/tests/sue/area_ref.json"
if [ -n "${2:-}" ]; then
  RES=$2
else
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
  AREA_BLOCKS="sue_tx sue_rx" bash "$SRC/scripts/area.sh" --out "$out" || { echo "FAIL: scripts/area.sh exited $?"; exit 1; }
  RES="$out/area.json"
fi
python3 - "$REF" "$RES" <<'PY'
import json, sys
ref, res = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
tol, fails = ref["logic_tol"], []
for k in ("sue_tx_p0", "sue_tx_p1", "sue_rx_p0", "sue_rx_p1"):
    r, e = res.get(k, {"error": "missing"}), ref[k]
    if "error" in r:
        fails.append(f"{k}: not synthesized: {r['error']}")
        continue
    for f in ("ff", "mem_bits"):
        if r[f] != e[f]:
            fails.append(f"{k}: {f} {r[f]}, reference {e[f]} (exact)")
    d = (r["logic"] - e["logic"]) / e["logic"]
    if abs(d) > tol:
        fails.append(f"{k}: logic cells {r['logic']}, reference {e['logic']} ({d:+.1%}, allowed ±{tol:.0%})")
    print(f"{k}: logic {r['logic']} ({d:+.1%}), flip-flops {r['ff']}, memory bits {r['mem_bits']}, yosys {r.get('secs', '?')} s")
for m in ("sue_tx", "sue_rx"):
    a, b = res.get(f"{m}_p0", {}), res.get(f"{m}_p1", {})
    if "logic" in a and "logic" in b and not (b["logic"] + b["ff"] < a["logic"] + a["ff"]):
        fails.append(f"{m}: SUE Lite ({b['logic'] + b['ff']} cells) is not smaller than SUE ({a['logic'] + a['ff']})")
for f in fails:
    print("FAIL:", f)
print("FAIL" if fails else "PASS")
sys.exit(1 if fails else 0)
PY
