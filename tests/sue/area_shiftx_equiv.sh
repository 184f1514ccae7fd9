#!/usr/bin/env bash
# lint.area_shiftx_equiv: scripts/area_shiftx.v, the techmap rule `make area` uses for wide
# variable-index reads ($shiftx), is proven equivalent to yosys' own mapping by SAT on a miter
# (bits the original leaves x are don't-care) for every branch of the rule: unsigned and signed
# selects, one and several output bits, a select narrower than the bitmap needs, widths that are
# and are not powers of 2. Each case also checks that the rule was used, and a planted mutant of
# the rule (every node picks the wrong child) must fail the same proof, so the check can fail.
# Usage: area_shiftx_equiv.sh <yosys> <scripts/area_shiftx.v>
set -uo pipefail
YOSYS=${1:?yosys} MAP=${2:?map}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/t.sv" <<'SV'
module t #(parameter W = 1024, BW = 10, YW = 1, S = 0) (input [W-1:0] a, input [BW-1:0] b, output [YW-1:0] y);
  wire [YW-1:0] ys = a[$signed(b) +: YW];
  wire [YW-1:0] yu = a[b +: YW];
  assign y = S ? ys : yu;
endmodule
SV
# the mutant: every node picks the wrong child
sed "s/? t\[2 \* j + 1\] : t\[2 \* j\];/? t[2 * j] : t[2 * j + 1];/" "$MAP" > "$work/mutant.v"
cmp -s "$MAP" "$work/mutant.v" && { echo "FAIL: could not plant the mutant in $MAP"; exit 1; }

prove() {  # map W BW YW S -> 0 when proven and the rule was used
  local map=$1 w=$2 bw=$3 yw=$4 s=$5
  cat > "$work/e.ys" <<YS
read_verilog -sv $work/t.sv
chparam -set W $w -set BW $bw -set YW $yw -set S $s t
hierarchy -top t
proc; opt -fast; wreduce; opt_clean
copy t gold
rename t gate
techmap -map $map -map +/techmap.v gate
techmap gold
opt -fast
miter -equiv -flatten -ignore_gold_x gold gate m
hierarchy -top m
sat -verify -prove trigger 0 -enable_undef -set-def-inputs m
YS
  "$YOSYS" -p "script $work/e.ys" > "$work/log" 2>&1
  local rc=$?
  if ! grep -q "_80_sue_shiftx_tree for cells of type" "$work/log"; then
    echo "rule not used"; return 2
  fi
  return $rc
}

fails=0
# W BW YW S: a 1,024-bit bitmap read by a full select; signed; a select one bit short; a width
# not a power of 2 (x past the end); three output bits, unsigned and signed; a narrow select
# of a non-power-of-2 bitmap; 16,384 bits as in the 1,024-XPU sue_tx (too slow to prove: mapped only)
for c in "1024 10 1 0" "1024 10 1 1" "1024 9 1 0" "520 12 1 0" "520 12 1 1" "300 9 3 0" "300 9 3 1" \
         "130 4 2 1" "200 6 1 0"; do
  set -- $c
  if prove "$MAP" "$@"; then echo "proven: W=$1 BW=$2 YW=$3 signed=$4"
  else echo "FAIL: W=$1 BW=$2 YW=$3 signed=$4 not proven equivalent ($work/log):"; tail -5 "$work/log"; fails=1; fi
done
if prove "$work/mutant.v" 1024 10 1 0; then
  echo "FAIL: the mutant (children swapped) was proven equivalent: the proof cannot fail"; fails=1
else
  echo "mutant caught: children swapped is not equivalent"
fi
# the size that matters: one read of a 16,384-bit bitmap maps to a tree of 16,383 multiplexers
cat > "$work/n.ys" <<YS
read_verilog -sv $work/t.sv
chparam -set W 16384 -set BW 14 -set YW 1 -set S 0 t
hierarchy -top t
proc; opt -fast; wreduce; opt_clean
techmap -map $MAP -map +/techmap.v
opt -fast
stat
YS
n=$("$YOSYS" -p "script $work/n.ys" 2>&1 | awk '/Number of cells:/ {v=$4} END {print v}')
if [ "$n" = "16383" ]; then echo "16,384-bit read: $n cells"
else echo "FAIL: a 16,384-bit read maps to '$n' cells, expected 16383"; fails=1; fi
[ $fails -eq 0 ] && echo "PASS" || echo "FAIL"
exit $fails
