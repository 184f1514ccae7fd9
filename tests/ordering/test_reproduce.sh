#!/usr/bin/env bash
# `cosim reproduce ordering` (docs/ordering.md "Reproducing the paper").
#   quick (label system):  --exp all --quick: files written, measured quantities in their
#                          bands, the key verdicts PASS, no checker error, reproducible, and
#                          a missing gnuplot is one line with exit 1.
#   full  (label nightly): --exp all on the paper's Dragonfly: no checker error, the key
#                          verdicts PASS.
# Usage: test_reproduce.sh <path-to-cosim> quick|full
set -u
COSIM=$1
MODE=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

OUT=$TMP/out
args=(reproduce ordering --exp all --out "$OUT" --seed 1)
[ "$MODE" = quick ] && args+=(--quick)
"$COSIM" "${args[@]}" >"$TMP/log" 2>&1
rc=$?
[ $rc -eq 0 ] && ok || bad "cosim ${args[*]}: exit $rc: $(tail -5 "$TMP/log")"
grep -q "^RESULT: PASS" "$TMP/log" && ok || bad "no RESULT: PASS line"

for e in 8a 8b 9 10 11 12; do
  [ -s "$OUT/$e.csv" ] && ok || bad "no $e.csv"
  [ -s "$OUT/$e.gp" ] && ok || bad "no $e.gp"
  # a PNG: the signature's first bytes
  [ -s "$OUT/$e.png" ] && [ "$(head -c 4 "$OUT/$e.png" | tail -c 3)" = "PNG" ] && ok || bad "no PNG $e.png"
  grep -q "^## $e " "$OUT/report.md" && ok || bad "report has no section $e"
done
grep -q "^| exp | claim (paper's text) | paper | ours | tolerance | verdict |" "$OUT/report.md" && ok || bad "report table header"
grep -Eq "^[0-9]+ of [0-9]+ claims PASS, [0-9]+ DIFF\. Checker errors: 0\.$" "$OUT/report.md" && ok || bad "report summary line"

# Measured quantities and verdicts (summary.json).
python3 - "$OUT/summary.json" "$MODE" <<'EOF' && ok || bad "summary.json checks"
import json, sys
j = json.load(open(sys.argv[1]))
mode = sys.argv[2]
E = j["experiments"]
errs = []
def check(cond, what):
    if not cond:
        errs.append(what)
def f(e, k):
    return E[e]["figures"][k]
def verdict(e, c):
    return E[e]["claims"][c]["pass"]
check(j["ok"], "checker errors: %s" % {e: E[e]["errors"][:3] for e in E if E[e]["errors"]})
check(j.get("routing") == "par" and j.get("par_signal") == "credits" and j.get("par_threshold") == 192,
      "default routing %s / %s / %s, expected par / credits / 192" % (j.get("routing"), j.get("par_signal"),
                                                                     j.get("par_threshold")))
for e in E:
    check(not E[e]["errors"], "%s: checker errors %s" % (e, E[e]["errors"][:3]))
# 8a: target-side ordering runs near link rate, like no ordering; source-side is a small fraction
check(f("8a", "fast_min") >= 0.90, "8a fast min %.3f < 0.90" % f("8a", "fast_min"))
check(f("8a", "fast_over_none_min") >= 0.90, "8a fast/none %.3f" % f("8a", "fast_over_none_min"))
check(f("8a", "fast_over_slow_min") >= 20, "8a fast/slow %.1f < 20" % f("8a", "fast_over_slow_min"))
check(f("8a", "slow_max") <= 0.10, "8a slow max %.3f" % f("8a", "slow_max"))
# 8b: slow mode costs one round trip per packet; fast mode is as fast as no ordering
rtt = f("8b", "rtt")
check(1000 <= rtt <= 1400, "8b zero-load RTT %.0f" % rtt)
check(0.95 * rtt <= f("8b", "slow_slope") <= 1.25 * rtt, "8b slow slope %.0f vs RTT %.0f" % (f("8b", "slow_slope"), rtt))
check(f("8b", "fast_over_none_max") <= 1.15, "8b fast/none %.3f" % f("8b", "fast_over_none_max"))
# 9: longer streams, more packets out of order; shares in a band
o16, o128 = f("9", "ooo_16"), f("9", "ooo_128")
check(o128 > o16, "9 out of order 128/stream %.3f <= 16/stream %.3f" % (o128, o16))
check(0.02 <= o16 <= 0.90 and 0.30 <= o128 <= 0.95, "9 out-of-order shares %.3f %.3f out of band" % (o16, o128))
# 10: the flush costs at least ~one round trip; target-side sync as fast as ordering
check(f("10", "min_gap_rtts") >= 0.9, "10 flush gap %.2f RTT" % f("10", "min_gap_rtts"))
for l in (10, 40):
    s, o = f("10", "tgt_sync_%d" % l), f("10", "tgt_order_%d" % l)
    check(abs(s - o) <= 0.1 * o, "10 sync %.0f vs order %.0f at %d" % (s, o, l))
# 11: the reorder buffer stays within its 50 packets, some packets out of order
check(f("11", "ur_occ_max") <= 50 and f("11", "burst_occ_max") <= 50, "11 ROB occupancy above 50")
for k in ("ur4x32", "ur16x32"):
    check(0.05 <= f("11", k + "_ooo") <= 0.80, "11 %s out of order %.3f out of band" % (k, f("11", k + "_ooo")))
    check(f("11", k + "_conn_max") >= 2, "11 %s connections %.0f" % (k, f("11", k + "_conn_max")))
# 12: the outstanding limit of 25 never lets the buffer fill
for k in ("lim4x32", "lim4x128", "lim16x32", "lim16x128"):
    check(f("12", k + "_overflow_full") == 0, "12 %s full-buffer NACKs" % k)
    check(f("12", k + "_occ_max") <= 50, "12 %s occupancy" % k)
# key verdicts
for e, c in (("8a", "8a.fast_like_none"), ("8a", "8a.fast_near_link_rate"), ("8a", "8a.slow_small_fraction"),
             ("8b", "8b.slow_per_rtt"), ("8b", "8b.fast_like_none"), ("10", "10.flush_costs_rtt"),
             ("10", "10.sync_like_order"), ("11", "11.occupancy_small"), ("12", "12.limit_fixes")):
    check(verdict(e, c), "verdict %s is DIFF" % c)
if mode == "full":
    # full-run verdicts that PASS with the default routing (PAR-6/2, credits signal, threshold 192;
    # docs/ordering.md); 9.total_same / 9.req_same are DIFF there (reorder-buffer overflow in 2 x 64)
    for e, c in (("8a", "8a.length_no_impact"), ("8a", "8a.ooo_third"), ("9", "9.ooo_grows"),
                 ("9", "9.ooo_128"), ("11", "11.occupancy_flat"), ("11", "11.connections")):
        check(verdict(e, c), "verdict %s is DIFF" % c)
for e in errs:
    print("  " + e)
sys.exit(1 if errs else 0)
EOF

if [ "$MODE" = quick ]; then
  # the same seed again: the same numbers
  "$COSIM" reproduce ordering --exp 11 --quick --out "$TMP/again" --seed 1 >/dev/null 2>&1
  cmp -s "$OUT/11.csv" "$TMP/again/11.csv" && ok || bad "same seed, different 11.csv"
  # another seed: other traffic
  "$COSIM" reproduce ordering --exp 11 --quick --out "$TMP/seed2" --seed 2 >/dev/null 2>&1
  cmp -s "$OUT/11.csv" "$TMP/seed2/11.csv" && bad "seed has no effect" || ok
  # gnuplot missing: one line naming it, exit 1
  PATH=/nonexistent "$COSIM" reproduce ordering --exp 8a --quick --out "$TMP/nognuplot" >"$TMP/o" 2>"$TMP/e"
  rc=$?
  [ $rc -eq 1 ] && [ "$(wc -l <"$TMP/e")" -eq 1 ] && grep -q "gnuplot" "$TMP/e" && ok ||
    bad "no gnuplot: exit $rc, stderr '$(cat "$TMP/e")'"
fi

echo "reproduce ordering ($MODE): $pass passed, $fail failed"
[ $fail -eq 0 ]
