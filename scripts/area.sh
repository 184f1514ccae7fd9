#!/usr/bin/env bash
# Area of the SUE NIC blocks (make area): yosys synthesizes sue_tx and sue_rx
# with Profile=0 (SUE) and Profile=1 (SUE Lite), NumPorts=1 and NumXpus=8 (--ports, --xpus) and every other
# parameter the same, to generic gates, and prints one table: logic cells,
# flip-flops and memory bits (memories kept whole: opt_mem, memory_dff, memory_collect, not mapped, so
# an inferred RAM counts as bits, not as millions of flops; `memory -nomap` also runs opt_mem_priority
# and memory_share, SAT-based passes that matter only to a memory mapping and that grew past 15 GB on the
# 1,024-XPU sue_tx; at 8 XPUs the two flows differ by 18 of 61,432 sue_tx cells), per block and
# profile, and the Lite/SUE ratio. The spec (SUE Lite, §2.2/§3.4) claims Lite
# is "up to 50% smaller". techmap applies scripts/area_shiftx.v first: one-bit reads of wide bitmaps
# as multiplexer trees and one-hot masks as decoders (lint.area_shiftx_equiv proves them).
#
# Usage: scripts/area.sh [--full] [--xpus N] [--ports N] [--out DIR]
#   default  QDepth=4, Window=2, RxBufBeats=256, RxFrames=16 (the lint configuration
#            sue_small): the slot, descriptor and buffer arrays that dominate the
#            defaults are not inferred as RAM by yosys and would become flip-flops,
#            which takes yosys far too long; these reduced sizes keep every piece of
#            logic and shrink only the arrays (documented in docs/sue.md "Area").
#   --full   the RTL defaults (QDepth=64, Window=64, RxBufBeats=512); slow.
#   --xpus N NumXpus (default 8; 2..1024). sue_rx keeps its connection state in a memory and
#            synthesizes at 1,024 (AREA_BLOCKS=sue_rx scripts/area.sh --xpus 1024 --ports 4);
#            sue_tx at 1,024 XPUs on 1 port gets through techmap (3.7 million gates, ~12 GB); its abc
#            was finished from a checkpoint with abc -fast (1.25 million gates), the default script had
#            not finished in 40 minutes; on 4 ports techmap needs more than 22 GB (docs/sue.md "Area").
#   --ports N NumPorts (default 1; 1, 2, 4)
# Environment: YOSYS (default yosys), AREA_TIMEOUT seconds per synthesis (default 3600),
#   AREA_BLOCKS (default "sue_tx sue_rx": the blocks to synthesize again; the table reads the
#   results already in the output folder for the others).
# Cost on 2 shared cores (reduced sizes): sue_tx ~2-10 min, sue_rx ~10-35 min and ~9 GB of memory each.
set -uo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT="$SRC/build/area"
FULL=0
XPUS=8
PORTS=1
while [ $# -gt 0 ]; do
  case "$1" in
    --full) FULL=1 ;;
    --out) [ -n "${2:-}" ] || { echo "area.sh: --out needs a folder" >&2; exit 2; }; OUT=$2; shift ;;
    --xpus) XPUS=${2:-}; shift ;;
    --ports) PORTS=${2:-}; shift ;;
    *) echo "area.sh: unknown argument '$1' (allowed: --full, --xpus N, --ports N, --out DIR)" >&2; exit 2 ;;
  esac
  shift
done
if ! [[ "$XPUS" =~ ^[0-9]+$ ]] || [ "$XPUS" -lt 2 ] || [ "$XPUS" -gt 1024 ]; then
  echo "area.sh: --xpus '$XPUS' not allowed (allowed: 2..1024)" >&2; exit 2
fi
case "$PORTS" in 1|2|4) ;; *) echo "area.sh: --ports '$PORTS' not allowed (allowed: 1, 2, 4)" >&2; exit 2 ;; esac
YOSYS=${YOSYS:-yosys}
TMO=${AREA_TIMEOUT:-3600}
if ! command -v "$YOSYS" >/dev/null 2>&1; then
  echo "area.sh: $YOSYS not found (apt-get install yosys, or bash scripts/deps.sh)" >&2
  exit 2
fi
mkdir -p "$OUT"

COMMON="-set NumPorts $PORTS -set NumXpus $XPUS -set DataW 256 -set MaxData 256 -set CntW 32"
if [ $FULL -eq 1 ]; then
  SIZES="-set QDepth 64 -set Window 64 -set RxBufBeats 512 -set RxFrames 16"
  SIZE_TXT="QDepth=64 Window=64 RxBufBeats=512 RxFrames=16 (RTL defaults)"
else
  SIZES="-set QDepth 4 -set Window 2 -set RxBufBeats 256 -set RxFrames 16"
  SIZE_TXT="QDepth=4 Window=2 RxBufBeats=256 RxFrames=16 (reduced; --full for the defaults)"
fi

synth() {  # module profile -> $OUT/<module>_p<profile>.json or .err
  local mod=$1 prof=$2 base="$OUT/${1}_p${2}"
  # MaxPack follows the profile (4096 SUE, 1024 Lite), as the RTL's default does.
  local mp=4096
  [ "$prof" = 1 ] && mp=1024
  cat >"$base.ys" <<EOF
read_verilog -sv -DSYNTHESIS $SRC/rtl/sue/sue_pkg.sv $SRC/rtl/sue/sue_ff1.sv $SRC/rtl/sue/sue_tx_tlist.sv $SRC/rtl/sue/sue_tx_conn.sv $SRC/rtl/sue/sue_tx_build.sv $SRC/rtl/sue/sue_rx_port.sv $SRC/rtl/sue/sue_rx_unpack.sv $SRC/rtl/sue/$mod.sv
chparam -set Profile $prof -set MaxPack $mp $COMMON $SIZES $mod
hierarchy -check -top $mod
proc
flatten
rename -top $mod
opt -fast
wreduce
opt_mem
memory_dff
opt_clean
memory_collect
opt -fast
techmap -map $SRC/scripts/area_shiftx.v -map +/techmap.v
opt -fast
abc -g AND,NAND,OR,NOR,XOR,XNOR,ANDNOT,ORNOT,MUX
opt_clean
write_json $base.json
EOF
  rm -f "$base.json" "$base.err"
  local t0=$SECONDS
  local rc=0
  timeout "$TMO" "$YOSYS" -q -l "$base.log" -s "$base.ys" >/dev/null 2>&1 || rc=$?
  if [ $rc -eq 0 ] && [ -s "$base.json" ]; then
    echo "$((SECONDS - t0))" >"$base.secs"
  else
    # the reason: yosys' own error, the time limit, or how it stopped (and the pass it was in)
    local why pass
    why=$(grep -m1 -E "ERROR" "$base.log" 2>/dev/null | sed "s|$SRC/||")
    pass=$(grep -E "^[0-9.]+ Executing " "$base.log" 2>/dev/null | tail -1 | sed -E 's/^[0-9.]+ Executing ([A-Z_]+).*/\1/')
    if [ -z "$why" ]; then
      case $rc in
        124) why="no result within ${TMO} s (AREA_TIMEOUT)" ;;
        134|137) why="yosys killed or aborted (exit $rc: out of memory?) after $((SECONDS - t0)) s" ;;
        0) why="yosys wrote no netlist" ;;
        *) why="yosys failed (exit $rc) after $((SECONDS - t0)) s" ;;
      esac
      [ -n "$pass" ] && why="$why, in pass $pass"
    fi
    echo "$why" >"$base.err"
  fi
}

echo "scripts/area.sh: yosys $("$YOSYS" -V | awk '{print $2}'), generic gates (abc -g), $SIZE_TXT"
for mod in ${AREA_BLOCKS:-sue_tx sue_rx}; do
  case "$mod" in sue_tx|sue_rx) ;; *) echo "area.sh: AREA_BLOCKS: unknown block '$mod' (allowed: sue_tx, sue_rx)" >&2; exit 2 ;; esac
  for prof in 0 1; do
    echo "  synthesizing $mod Profile=$prof ..."
    synth $mod $prof
  done
done

python3 - "$OUT" "$SIZE_TXT" "$XPUS" "$PORTS" <<'EOF'
import json, os, sys
out, sizes, xpus, ports = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
def count(mod, prof):
    base = os.path.join(out, f"{mod}_p{prof}")
    if not os.path.exists(base + ".json") and not os.path.exists(base + ".err"):
        return {"error": "not synthesized (AREA_BLOCKS)"}
    if os.path.exists(base + ".err"):
        return {"error": open(base + ".err").read().strip()}
    j = json.load(open(base + ".json"))
    m = j["modules"][mod]
    logic = ff = mem_bits = mems = 0
    for c in m["cells"].values():
        t = c["type"]
        if t.startswith("$mem"):
            p = c["parameters"]
            mems += 1
            mem_bits += int(p["WIDTH"], 2) * int(p["SIZE"], 2)
        elif "DFF" in t or "DLATCH" in t or "SR_" in t:
            ff += 1
        else:
            logic += 1
    secs = open(base + ".secs").read().strip() if os.path.exists(base + ".secs") else "?"
    return {"logic": logic, "ff": ff, "mem_bits": mem_bits, "mems": mems, "secs": secs}
res = {(m, p): count(m, p) for m in ("sue_tx", "sue_rx") for p in (0, 1)}
print()
print(f"SUE NIC area, NumPorts={ports}, NumXpus={xpus}, DataW=256, MaxData=256, {sizes}")
print(f" {'block':<8} {'profile':<9} {'logic cells':>12} {'flip-flops':>11} {'memory bits':>12} {'cells':>9}  yosys")
print(" " + "-" * 74)
tot = {0: [0, 0, 0], 1: [0, 0, 0]}
ok = {0: True, 1: True}
for m in ("sue_tx", "sue_rx"):
    for p in (0, 1):
        r = res[(m, p)]
        name = "SUE" if p == 0 else "SUE Lite"
        if "error" in r:
            ok[p] = False
            print(f" {m:<8} {name:<9} {'n/a':>12} {'n/a':>11} {'n/a':>12} {'n/a':>9}  {r['error']}")
            continue
        for i, k in enumerate(("logic", "ff", "mem_bits")):
            tot[p][i] += r[k]
        print(f" {m:<8} {name:<9} {r['logic']:>12} {r['ff']:>11} {r['mem_bits']:>12} {r['logic'] + r['ff']:>9}  {r['secs']} s")
for m in ("sue_tx", "sue_rx"):
    a, b = res[(m, 0)], res[(m, 1)]
    if "error" not in a and "error" not in b and a["logic"] + a["ff"]:
        ratio = (b["logic"] + b["ff"]) / (a["logic"] + a["ff"])
        print(f" {m}: Lite/SUE cells (logic + flip-flops) = {ratio:.2f} ({(1 - ratio) * 100:.0f}% smaller)")
if ok[0] and ok[1]:
    s, l = tot[0][0] + tot[0][1], tot[1][0] + tot[1][1]
    print(f" sue_tx + sue_rx: SUE {s} cells, SUE Lite {l} cells: Lite/SUE = {l / s:.2f} ({(1 - l / s) * 100:.0f}% smaller); "
          f"memory bits {tot[0][2]} vs {tot[1][2]}")
else:
    print(" sue_tx + sue_rx: no total (a block did not synthesize, see above)")
print(" The spec says SUE Lite is 'up to 50% smaller' than SUE (§2.2, §3.4).")
json.dump({f"{m}_p{p}": r for (m, p), r in res.items()}, open(os.path.join(out, "area.json"), "w"), indent=1)
EOF
