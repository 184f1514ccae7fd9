#!/usr/bin/env bash
# lint.area_shiftx_equiv: scripts/area_shiftx.v, the techmap rules `make area` uses for one-bit
# reads of wide bitmaps ($shiftx) and one-hot masks (a constant 1 shifted left, $shl), are proven
# equivalent to yosys' own mapping by SAT on a miter (bits the original leaves x are don't-care)
# for every branch of each rule: unsigned and signed selects, a select narrower or wider than the
# bitmap needs, widths that are and are not powers of 2. Each case also checks that the rule was
# used (a read of several bits and a shift of a variable must not use one), and a planted mutant
# of each rule must fail the same proof, so the check can fail.
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
cat > "$work/d.sv" <<'SV'
module t #(parameter W = 1024, BW = 10, YW = 1, S = 0) (input [BW-1:0] b, input [W-1:0] v, output [W-1:0] y);
  // S 0: W'(1) << b; 1: a two-bit constant 1 shifted; 2: a variable shifted (not a decoder)
  assign y = (S == 0) ? W'(1) << b : (S == 1) ? {{(W - 2){1'b0}}, 2'b01} << b : v << b;
endmodule
SV
# the mutants: every tree node picks the wrong child; the decoder's low half is off by one
sed "s/? t\[2 \* j + 1\] : t\[2 \* j\];/? t[2 * j] : t[2 * j + 1];/" "$MAP" > "$work/mutant.v"
sed "s/assign dl\[i\] = bk\[KL-1:0\] == i;/assign dl[i] = bk[KL-1:0] == ((i + 1) \& ((1 << KL) - 1));/" "$MAP" > "$work/mutant2.v"
cmp -s "$MAP" "$work/mutant.v" && { echo "FAIL: could not plant the tree mutant in $MAP"; exit 1; }
cmp -s "$MAP" "$work/mutant2.v" && { echo "FAIL: could not plant the decoder mutant in $MAP"; exit 1; }

prove() {  # map src rule W BW YW S -> 0 when proven and the rule was used (rule "-": must not be)
  local map=$1 src=$2 rule=$3 w=$4 bw=$5 yw=$6 s=$7
  cat > "$work/e.ys" <<YS
read_verilog -sv $work/$src
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
  if [ "$rule" = - ]; then
    if grep -q "_80_sue_[a-z_]* for cells of type" "$work/log"; then echo "a rule was used"; return 2; fi
  elif ! grep -q "_80_sue_${rule} for cells of type" "$work/log"; then
    echo "rule $rule not used"; return 2
  fi
  return $rc
}

fails=0
# W BW YW S: a 1,024-bit bitmap read by a full select; signed; a select one bit short; a width
# not a power of 2 (x past the end), unsigned and signed; a narrow select of a non-power-of-2
# bitmap; reads of three and two bits keep yosys' own shifter (rule "-": still proven equivalent)
for c in "1024 10 1 0" "1024 10 1 1" "1024 9 1 0" "520 12 1 0" "520 12 1 1" "200 6 1 0" "300 9 3 0" "130 4 2 1"; do
  set -- $c
  rule=shiftx_tree; [ "$3" != 1 ] && rule=-
  if prove "$MAP" t.sv $rule "$@"; then echo "read proven: W=$1 BW=$2 YW=$3 signed=$4"
  else echo "FAIL: read W=$1 BW=$2 YW=$3 signed=$4 not proven equivalent or not mapped:"; tail -5 "$work/log"; fails=1; fi
done
# W BW S: one-hot masks of 1,024 bits by a full, a wider and a narrower select, a two-bit constant
# 1, a width of 128 bits by a 14-bit select; S 2: a shifted variable keeps yosys' own mapping
for c in "1024 10 0" "1024 12 0" "1024 8 0" "256 9 1" "128 14 0" "256 8 2"; do
  set -- $c
  rule=onehot_dec; [ "$3" = 2 ] && rule=-
  if prove "$MAP" d.sv $rule "$1" "$2" 1 "$3"; then echo "mask proven: W=$1 BW=$2 kind=$3 (rule: $rule)"
  else echo "FAIL: mask W=$1 BW=$2 kind=$3 not proven equivalent or mapped wrongly:"; tail -5 "$work/log"; fails=1; fi
done
if prove "$work/mutant.v" t.sv shiftx_tree 1024 10 1 0; then
  echo "FAIL: the tree mutant (children swapped) was proven equivalent: the proof cannot fail"; fails=1
else
  echo "mutant caught: tree with children swapped is not equivalent"
fi
if prove "$work/mutant2.v" d.sv onehot_dec 1024 10 1 0; then
  echo "FAIL: the decoder mutant (low half off by one) was proven equivalent: the proof cannot fail"; fails=1
else
  echo "mutant caught: decoder with its low half off by one is not equivalent"
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
