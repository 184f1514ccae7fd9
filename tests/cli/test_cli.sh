#!/usr/bin/env bash
# The command line as a designer uses it (label `system`): listing, runs,
# reproducibility, JSON, waves, and one-line errors with exit code 2.
# Usage: test_cli.sh <path-to-cosim> <source-dir> <path-to-fst_info>
set -u
COSIM=$1
SRC=$2
FSTINFO=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect_usage "<description>" <regex the one line must match> -- args...
expect_usage() {
  local what=$1 re=$2
  shift 3
  "$COSIM" "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  local lines
  lines=$(wc -l <"$TMP/err")
  if [ $rc -ne 2 ]; then bad "$what: exit $rc, want 2"; return; fi
  if [ "$lines" -ne 1 ]; then bad "$what: $lines lines on stderr, want 1: $(cat "$TMP/err")"; return; fi
  if ! grep -Eq -- "$re" "$TMP/err"; then bad "$what: '$(cat "$TMP/err")' does not match /$re/"; return; fi
  if [ -s "$TMP/out" ] && grep -q "RESULT" "$TMP/out"; then bad "$what: simulated despite bad input"; return; fi
  ok
}

expect_usage "unknown command" "unknown command 'frobnicate'.*list, run, bench.*budget" -- frobnicate
expect_usage "unknown testbench" "unknown testbench 'nope'.*cbfc_link.*cbfc_block" -- run nope
expect_usage "unknown setting" "unknown setting 'bogus'.*allowed:.*rtl_config" -- run cbfc_link --set bogus=1
expect_usage "bad int" "'buffer_bytes'.*'lots' is not an integer.*allowed: 64\.\." -- run cbfc_link --set buffer_bytes=lots
expect_usage "int out of range" "'clock_mhz'.*out of range.*allowed: 100\.\.4000" -- run cbfc_link --set clock_mhz=99999
expect_usage "bad choice" "'tx'.*'vhdl' is not a choice.*allowed: rtl\|model" -- run cbfc_link --set tx=vhdl
expect_usage "bad bool" "'sweep'.*not a boolean.*true\|false" -- run cbfc_link --set sweep=maybe
expect_usage "bad real" "'drain_ratio'.*out of range.*0\.01\.\.1" -- run cbfc_link --set drain_ratio=7
expect_usage "no equals" "bad --set 'buffer_bytes'.*key=value" -- run cbfc_link --set buffer_bytes
expect_usage "bad seed" "--seed 'x1' is not a number" -- run cbfc_link --seed x1
expect_usage "negative cycles" "--cycles '-5' is not a number" -- run cbfc_link --cycles -5
expect_usage "bad time" "--time '3 parsecs' is not a time" -- run cbfc_link --time "3 parsecs"
expect_usage "cycles and time" "excludes" -- run cbfc_link --cycles 10 --time 1us
expect_usage "unknown option" "unexpected argument .--frob. for .cosim run.*allowed options: --seed, --cycles, --time" -- run cbfc_link --frob
expect_usage "inconsistent settings" "'buffer_bytes'=1024 is smaller than one len_max=2048 frame" -- run cbfc_link --set buffer_bytes=1024
expect_usage "mutant needs c4" "'mutant' needs rtl_config=c4" -- run cbfc_block --set rtl_config=c3 --set mutant=true
expect_usage "switch fan_in too big for radix" "'fan_in'=40 needs fan_in\+2=42 ports.*radix=32.*allowed: 2\.\.30" -- \
  run switch_incast --set radix=32 --set fan_in=40
expect_usage "switch bad fc" "'fc'.*'xon' is not a choice.*allowed: cbfc\|pfc" -- run switch_incast --set fc=xon
expect_usage "switch victim class" "'victim_class'=3 is not a class of classes=2 .allowed: 0\.\.1" -- \
  run switch_incast --set victim_class=3
expect_usage "switch bad fer" "'fer'.*'2' is out of range .allowed: 0\.\.1" -- run switch_incast --set llr=true --set fer=2
# LLR on the switch's host links (docs/switch.md "LLR on links"): FER 1 % on every wire, lossless with LLR
# (replays counted in the JSON), packets lost without it (exit 1, the losses named)
"$COSIM" run switch_incast --cycles 5000 --set compare=false --set llr=true --set fer=0.01 --json llr_on.json >llr_on.txt
rc=$?
[ $rc -eq 0 ] && grep -q "RESULT: PASS" llr_on.txt && python3 -c "
import json; m=json.load(open('llr_on.json'))['modes']['cbfc']
assert m['links']['replays'] > 0 and m['links']['wire_losses'] == 0 and m['scoreboard']['lost'] == 0, m['links']" \
  && ok || bad "switch_incast llr=true fer=0.01: exit $rc: $(tail -3 llr_on.txt)"
"$COSIM" run switch_incast --cycles 5000 --set compare=false --set fer=0.01 >llr_off.txt
rc=$?
[ $rc -eq 1 ] && grep -Eq "CBFC: [0-9]+ packets lost on the host links \(fer=0.01, llr=false\)" llr_off.txt \
  && ok || bad "switch_incast fer=0.01 without llr: exit $rc, want 1: $(tail -2 llr_off.txt)"
# sue_system (built with the SUE RTL): bad settings are one line, exit 2, nothing simulated
if "$COSIM" list | grep -q "^ sue_system"; then
  expect_usage "sue bad sue_config" "'sue_config'.*'s3' is not a choice .allowed: s1\|s2\|s4\|lite" -- \
    run sue_system --set sue_config=s3
  expect_usage "sue strict + fail_port" "'fail_port'=1@2000 needs mode=unordered" -- \
    run sue_system --set sue_config=s2 --set fail_port=1@2000
  expect_usage "sue bad fail_port" "'fail_port'.*'x@3' is not of an allowed form .allowed: none\|P@cycle" -- \
    run sue_system --set fail_port=x@3
  expect_usage "sue fail_port on one port" "'fail_port'=0@2000 needs a second port" -- \
    run sue_system --set mode=unordered --set fail_port=0@2000
  expect_usage "sue bad load" "'load'.*'1.5' is out of range .allowed: 0\.01\.\.1" -- run sue_system --set load=1.5
  expect_usage "sue too many nodes for the RTL" "'nodes'=9 with RTL blocks: sue_config=s1 addresses NumXpus=8 XPU ids .allowed: nodes 2\.\.8" -- \
    run sue_system --set nodes=9
  expect_usage "sue nodes range" "'nodes' of testbench sue_system: '17' is out of range .allowed: 2\.\.16" -- \
    run sue_system --set nodes=17 --set tx=model --set rx=model
  expect_usage "sue lite rcrc" "'rcrc_corrupt'=0.01 needs the R-CRC" -- run sue_system --set sue_config=lite --set rcrc_corrupt=0.01
  expect_usage "sue cable needs 2 nodes" "'topology'=cable joins exactly 2 nodes" -- \
    run sue_system --set topology=cable --set nodes=3
  expect_usage "sue switch drop on a cable" "'switch_drop'=0.1 needs a switch .allowed: 0 with topology=cable" -- \
    run sue_system --set topology=cable --set nodes=2 --set switch_drop=0.1
  expect_usage "sue switch drop range" "'switch_drop'.*'0.7' is out of range .allowed: 0\.\.0\.5" -- run sue_system --set switch_drop=0.7
  expect_usage "sue bad llr" "'llr'.*'maybe' is not a boolean" -- run sue_system --set llr=maybe
  expect_usage "sue dlen above MaxData" "'dlen_max'=300 exceeds MaxData=256" -- run sue_system --set dlen_max=300
  # a short run passes and reproduces bit for bit
  "$COSIM" run sue_system --seed 5 --cycles 3000 --set drop_prob=0.01 --json sue_a.json >sue_a.txt
  rc=$?
  [ $rc -eq 0 ] && grep -q "RESULT: PASS" sue_a.txt && ok || bad "sue_system run exit $rc: $(tail -3 sue_a.txt)"
  "$COSIM" run sue_system --seed 5 --cycles 3000 --set drop_prob=0.01 --json sue_b.json >sue_b.txt
  cmp -s sue_a.json sue_b.json && cmp -s sue_a.txt sue_b.txt && ok || bad "sue_system: same seed, different run"
  python3 -c "import json; j=json.load(open('sue_a.json')); assert j['pass'] and j['scoreboard']['lost']==0 and j['scoreboard']['matched']>0" \
    && ok || bad "sue_system json content"
  "$COSIM" bench sue --cycles 4000 >sue_bench.txt && tail -1 sue_bench.txt | grep -Eq "^systemc_overhead [0-9]+\.[0-9]+$" \
    && ok || bad "bench sue: $(tail -2 sue_bench.txt)"
fi

# system (N XPUs x M SUE instances over switch planes or a mesh; docs/system.md): bad settings are one line, exit 2
if "$COSIM" list | grep -q "^ system "; then
  expect_usage "system mesh needs instances" "'instances'=1 with topology=mesh.*allowed: instances=7 for xpus=8" -- \
    run system --set topology=mesh
  expect_usage "system xpus range" "'xpus'.*out of range.*allowed: 2\.\.1024" -- run system --set xpus=1025
  expect_usage "system bad pattern" "'pattern'.*'ring' is not a choice .allowed: uniform\|permutation\|incast\|alltoall\|allreduce" -- \
    run system --set pattern=ring
  expect_usage "system rtl names no XPU" "'rtl'=x9.tx names XPU 9 but xpus=8 .allowed: x0\.\.x7" -- run system --set rtl=x9.tx
  expect_usage "system bad rtl form" "'rtl'.*'x0.dma' is not of an allowed form" -- run system --set rtl=x0.dma
  expect_usage "system bad burst form" "'burst'.*'abc' is not of an allowed form .allowed: none.FIRST.COUNT" -- run system --set burst=abc
  expect_usage "system empty burst" "'burst'=200.0: a burst of 0 frames" -- run system --set burst=200+0
  expect_usage "system fail_plane form" "'fail_plane'.*'2' is not of an allowed form .allowed: none.P@cycle" -- \
    run system --set fail_plane=2
  expect_usage "system fail_plane range" "'fail_plane'=7@100 names plane 7 but there are 4 planes .allowed: 0\.\.3" -- \
    run system --set fail_plane=7@100
  expect_usage "system fail_plane one port" "'fail_plane'=0@100 needs a second port" -- \
    run system --set sue_config=s1 --set fail_plane=0@100
  expect_usage "system no peers setting" "unknown setting 'peers' for testbench system .allowed: xpus, " -- run system --set peers=8
  expect_usage "system xpus above the RTL's NumXpus" "'xpus'=9 with RTL blocks: the compiled sue_config=s4 addresses NumXpus=8 XPU ids .allowed: xpus 2\.\.8" -- \
    run system --set rtl=x0.tx --set xpus=9
  expect_usage "system qdepth not a power of 2" "'qdepth'=48 is not a power of 2" -- run system --set qdepth=48
  expect_usage "system qcap not a power of 2" "'qcap'=48 .allowed: 0 or a power of 2, 64\.\.1024" -- run system --set qcap=48
  expect_usage "system qcap below qdepth" "'qcap'=64 .allowed: 0 or a power of 2, 128\.\.1024" -- run system --set qdepth=128 --set qcap=64
  expect_usage "system qcap above its range" "'qcap' of testbench system: '2048' is out of range" -- run system --set qcap=2048
  expect_usage "system qcap with RTL blocks" "'qcap'=64 with RTL blocks: the compiled sue_config=s4 has 256" -- run system --set qcap=64 --set rtl=x0.tx
  expect_usage "system ack_count out of range" "'ack_count' of testbench system: '256' is out of range .allowed: 0..255" -- run system --set ack_count=256
  expect_usage "sue_system ack_count out of range" "'ack_count' of testbench sue_system: '-1' is out of range .allowed: 0..255" -- run sue_system --set ack_count=-1
  expect_usage "system data_w not a width" "'data_w'=300 .allowed: 0, 128, 256, 512, 1024" -- run system --set data_w=300
  expect_usage "system data_w with RTL" "'data_w'=512 with RTL blocks.*allowed: 0 or 1024" -- run system --set data_w=512 --set rtl=x0.tx
  expect_usage "system rtl llr plane" "'rtl'=sw9.p3.llr names plane 9 but there are 4 planes .allowed: sw0\.\.sw3" -- \
    run system --set llr=true --set rtl=sw9.p3.llr
  expect_usage "system rtl llr without llr" "'rtl'=sw0.p3.llr names the LLR partner sw0.p3.llr but llr=false .allowed" -- \
    run system --set rtl=sw0.p3.llr
  expect_usage "system fer range" "'fer'.*'2' is out of range .allowed: 0\.\.1" -- run system --set fer=2
  expect_usage "system llr mesh" "'llr'=true with topology=mesh.*allowed" -- \
    run system --set llr=true --set topology=mesh --set xpus=6 --set instances=5
  expect_usage "system bench bad fer" "'fer'.*out of range" -- bench system --set fer=-1
  "$COSIM" run system --seed 3 --cycles 2000 --set xpus=4 --json sys_a.json >sys_a.txt
  rc=$?
  [ $rc -eq 0 ] && grep -q "RESULT: PASS" sys_a.txt && ok || bad "system run exit $rc: $(tail -3 sys_a.txt)"
  python3 -c "import json; j=json.load(open('sys_a.json')); assert j['pass'] and j['scoreboard']['lost']==0 and j['scoreboard']['matched']>0 and j['drops']['lossless']==0" \
    && ok || bad "system json content"
  "$COSIM" run system --seed 3 --cycles 2000 --set xpus=4 --set llr=true --set fer=0.01 --json sys_l.json >sys_l.txt
  rc=$?
  [ $rc -eq 0 ] && grep -q "RESULT: PASS" sys_l.txt && ok || bad "system llr run exit $rc: $(tail -3 sys_l.txt)"
  python3 -c "import json; j=json.load(open('sys_l.json')); l=j['links']; assert j['pass'] and l['llr'] and l['llr_links']==16 and l['bad_frames']>0 and l['replays']>0 and l['frames_lost']==0 and j['tx']['pdus_rtx']==0" \
    && ok || bad "system llr json content"
fi

expect_usage "unknown bench" "unknown benchmark 'warp'.*allowed: cbfc" -- bench warp
expect_usage "dragonfly bad routing" "'routing'.*'ugal-g' is not a choice.*allowed: minimal\|valiant\|ugal\|par" -- \
  run dragonfly --set routing=ugal-g
expect_usage "dragonfly bad PAR signal" "'par_signal'.*'depth' is not a choice.*allowed: queue\|credits" -- \
  run dragonfly --set par_signal=depth
expect_usage "dragonfly bench bad routing" "'routing'.*'nope' is not a choice" -- bench dragonfly --set routing=nope
expect_usage "dragonfly bad topology" "setting g=20 not allowed with a\*h=32 global links per group" -- \
  run dragonfly --set g=20
expect_usage "missing testbench" "testbench is required|required" -- run

# --help everywhere, exit 0
for args in "--help" "run --help" "list --help" "bench --help"; do
  if "$COSIM" $args >"$TMP/out" 2>&1 && grep -q "Usage" "$TMP/out"; then ok; else bad "cosim $args"; fi
done

# list and per-testbench settings
"$COSIM" list >"$TMP/out" && grep -q "cbfc_link" "$TMP/out" && grep -q "cbfc_block" "$TMP/out" && ok || bad "list"
"$COSIM" list cbfc_link >"$TMP/out" && grep -q "buffer_bytes" "$TMP/out" && grep -q "drain_ratio" "$TMP/out" && ok || bad "list cbfc_link"

# a run: first line names testbench, seed and settings; JSON; exit 0
"$COSIM" run cbfc_link --seed 7 --cycles 3000 --set drain_ratio=0.3 --set sweep=false --json a.json >run1.txt
rc=$?
[ $rc -eq 0 ] && ok || bad "run exit $rc"
head -1 run1.txt | grep -Eq "^testbench cbfc_link +seed 7 +settings: drain_ratio=0.3 sweep=false$" && ok || bad "first line: $(head -1 run1.txt)"
grep -q "RESULT: PASS" run1.txt && ok || bad "no PASS"
python3 -c "import json; j=json.load(open('a.json')); assert j['testbench']=='cbfc_link' and j['seed']==7 and j['pass'] and j['settings']['drain_ratio']==0.3 and j['scoreboard']['lost']==0" && ok || bad "json content"

# same (testbench, seed, settings): bit-for-bit the same JSON and summary
"$COSIM" run cbfc_link --seed 7 --cycles 3000 --set drain_ratio=0.3 --set sweep=false --json b.json >run2.txt
cmp -s a.json b.json && ok || bad "same seed, different JSON"
cmp -s run1.txt run2.txt && ok || bad "same seed, different summary"
# another seed: different traffic
"$COSIM" run cbfc_link --seed 8 --cycles 3000 --set drain_ratio=0.3 --set sweep=false --json c.json >/dev/null
cmp -s a.json c.json && bad "seed has no effect" || ok

# --time is converted with the clock: 2us at 500 MHz = 1000 cycles
"$COSIM" run cbfc_link --time 2us --set clock_mhz=500 --set sweep=false --json t.json >/dev/null
python3 -c "import json; j=json.load(open('t.json')); assert j['traffic_cycles']==1000, j['traffic_cycles']" && ok || bad "--time"

# --waves with the default name lands in waves/<testbench>-<seed>.fst
"$COSIM" run cbfc_block --seed 3 --cycles 2000 --waves >/dev/null
[ -s waves/cbfc_block-3.fst ] && ok || bad "default wave path"

# a failing run exits 1 and says why, with the reproduce line
"$COSIM" run cbfc_block --set mutant=true --cycles 50000 >mut.txt
rc=$?
[ $rc -eq 1 ] && ok || bad "mutant run exit $rc, want 1"
grep -Eq "lockstep mismatch at cycle [0-9]+ .* in rx: (pend_o|cu_limit_o)" mut.txt && ok || bad "mutant report: $(tail -3 mut.txt)"
grep -q "reproduce: cosim run cbfc_block --seed 1 --cycles 50000 --set mutant=true --waves" mut.txt && ok || bad "reproduce line"
# ... and leaves the wave of the 200 cycles before the mismatch
grep -q "wave of the mismatch window: waves/cbfc_block-1-mismatch.fst" mut.txt && [ -s waves/cbfc_block-1-mismatch.fst ] && ok || bad "mismatch wave"
mcyc=$(grep -Eo "lockstep mismatch at cycle [0-9]+" mut.txt | grep -Eo "[0-9]+$")
first=$("$FSTINFO" waves/cbfc_block-1-mismatch.fst | awk '/^start/{print $2}')
# the window starts about 200 cycles (1 ns each) before the mismatch, not at 0
[ -n "$first" ] && [ -n "$mcyc" ] && [ "$first" -gt $(( (mcyc - 202) * 1000 )) ] && [ "$first" -le $(( mcyc * 1000 )) ] && ok || bad "window start $first for mismatch cycle $mcyc"
"$FSTINFO" waves/cbfc_block-1-mismatch.fst | grep -qx "timescale -12" && ok || bad "mismatch wave timescale"
expect_usage "waves-from without waves" "--waves-from needs --waves" -- run cbfc_link --waves-from 10us

# bench prints the overhead as its last line
"$COSIM" bench cbfc --cycles 20000 >bench.txt && tail -1 bench.txt | grep -Eq "^systemc_overhead [0-9]+\.[0-9]+$" && ok || bad "bench: $(tail -2 bench.txt)"

# system: a quick bench (16 XPUs); it states the targets and whether this run met them (text and JSON)
"$COSIM" bench system --cycles 1000 --set xpus=16 --set warmup_cycles=500 --json sysb.json >sysb.txt
rc=$?
[ $rc -eq 0 ] && grep -Eq "^ targets .* speed (met|NOT met) \([0-9.]+x of it\), memory (met|NOT met)$" sysb.txt && ok || bad "bench system: exit $rc, $(grep targets sysb.txt)"
python3 -c "import json; j=json.load(open('sysb.json')); assert j['clean'] and j['flit_hops']>0 and j['nic']=='flit' and j['speed_target_met']==(j['flit_hops_per_s']>=j['target_flit_hops_per_s']) and j['memory_target_met']==(j['peak_rss_mib']<1024)" \
  && ok || bad "bench system json"

# what is given on the command line wins over the bench's own defaults, also when it is the setting's default
"$COSIM" bench system --cycles 1000 --set xpus=8 --set nic=cycle --set load=0.5 --set warmup_cycles=0 --json sysc.json >sysc.txt
python3 -c "import json; j=json.load(open('sysc.json')); assert j['nic']=='cycle' and j['xpus']==8 and j['load']==0.5 and j['warmup_cycles']==0, j" \
  && ok || bad "bench system: --set nic=cycle load=0.5 warmup_cycles=0 not honoured: $(head -1 sysc.txt)"

# dragonfly: a quick bench (reduced fabric) and a PAR run; the full-size figures are in docs/switch.md
DF="--set g=9 --set a=4 --set p=2 --set h=2 --set warmup_cycles=500"
"$COSIM" bench dragonfly --cycles 1000 $DF --json dfb.json >dfb.txt
rc=$?
[ $rc -eq 0 ] && tail -1 dfb.txt | grep -Eq "^systemc_overhead [0-9]+\.[0-9]+$" && ok || bad "bench dragonfly: exit $rc, $(tail -2 dfb.txt)"
for r in minimal ugal-l par; do grep -Eq "^ $r +[0-9]+ +[0-9]+ +[0-9.e+]+ +[0-9.]+ +0\.[0-9]{4} / 0\.[0-9]{4}" dfb.txt && ok || bad "bench dragonfly: no $r row"; done
python3 -c "import json; j=json.load(open('dfb.json')); r=j['routings']; assert set(r)=={'minimal','ugal-l','par'} and all(x['cycles_per_s']>0 and x['drops']==0 for x in r.values()) and j['identical_results']" \
  && ok || bad "bench dragonfly json"
"$COSIM" run dragonfly --cycles 2000 $DF --set routing=par --set traffic=shift --set load=0.2 --json df.json >df.txt
rc=$?
[ $rc -eq 0 ] && grep -q "RESULT: PASS" df.txt && ok || bad "run dragonfly par: exit $rc, $(tail -3 df.txt)"
python3 -c "import json; j=json.load(open('df.json')); assert j['routing']=='par' and j['scoreboard']['lost']==0 and j['drained'] and j['hops']['max']<=6" \
  && ok || bad "run dragonfly json"

# cosim pdu: SUE frames. Bad input is one line naming it and the allowed values, exit 2.
expect_usage "pdu no command" "cosim pdu needs a command .allowed: encode, decode" -- pdu
expect_usage "pdu unknown command" "unknown pdu command 'frob' .allowed: encode, decode" -- pdu frob
expect_usage "pdu unknown profile" "unknown profile 'lite' .allowed: sue, sue_lite" -- pdu encode --profile lite
expect_usage "pdu unknown encap" "unknown encap 'afh3' .allowed: std, afh1, afh2_6, afh2_12" -- pdu encode --encap afh3
expect_usage "pdu unknown field" "unknown field 'bogus' for sue/std .allowed: dmac, smac" -- pdu encode --field bogus=1
expect_usage "pdu field of another profile" "field 'npsn' does not apply to sue_lite/afh2_6" -- \
  pdu encode --profile sue_lite --encap afh2_6 --field npsn=1
expect_usage "pdu bad value" "field 'xpuid': '1024' is out of range .allowed: 0..1023" -- pdu encode --field xpuid=1024
expect_usage "pdu bad cmd hex" "field 'cmd': '0x123' is not hex" -- pdu encode --field cmd=0x123
expect_usage "pdu packing limit" "packing_limit: .*sue_lite limit .allowed: up to 1024" -- \
  pdu encode --profile sue_lite --field cmd=$(printf '%02x' $(seq 1 1100 | sed 's/.*/0/'))
expect_usage "pdu unknown option" "unexpected argument '--frob' for 'cosim pdu encode'.*--profile, --encap, --field" -- \
  pdu encode --frob
expect_usage "pdu decode no hex" "pdu decode needs a frame in hex" -- pdu decode
expect_usage "pdu decode bad hex" "bad hex: 'z' at position 2 is not a hex digit" -- pdu decode 00zz
expect_usage "pdu decode runt" "truncated: runt frame of 2 bytes .allowed: at least 64" -- pdu decode 0102
expect_usage "pdu decode bad encap" "unknown encap 'x' .allowed: auto, std" -- pdu decode --encap x 00

# encode -> decode round trip: every field comes back, one name = value per line
for encap in std afh1 afh2_6 afh2_12; do
  hex=$("$COSIM" pdu encode --profile sue --encap $encap --field npsn=0x1234 --field op=ack --field apsn=7 \
    --field vc=2 --field cmd=0x0102a0ff --field cmd=beef)
  rc=$?
  [ $rc -eq 0 ] && echo "$hex" | grep -Eq '^[0-9a-f]{128,}$' && ok || bad "pdu encode $encap: exit $rc, '$hex'"
  "$COSIM" pdu decode "$hex" >pdu.txt
  rc=$?
  [ $rc -eq 0 ] && ok || bad "pdu decode $encap: exit $rc"
  for line in "profile = sue" "encap = $encap" "npsn = 4660 (0x1234)" "op = 1 (ack)" "apsn = 7 (0x0007)" "vc = 2" \
    "cmds = 2" "cmd = 0x0102a0ff" "cmd = 0xbeef"; do
    grep -qxF "$line" pdu.txt && ok || bad "pdu decode $encap: no line '$line'"
  done
done
hex=$("$COSIM" pdu encode --profile sue_lite --encap afh2_6 --field dst_xpu=0x0102 --field src_xpu=0x0304 \
  --field tc=5 --field cmd=deadbeef)
[ "$hex" = "228004de010252adbeef0304$(printf '0%.0s' $(seq 1 96))a38ed040" ] && ok || bad "pdu afh2_6 golden: $hex"
"$COSIM" pdu decode --profile sue_lite "$hex" | grep -qxF "dst_xpu = 258 (0x0102)" && ok || bad "pdu decode afh2_6"
# a damaged frame names what is wrong, one line, exit 2
expect_usage "pdu decode bad fcs" "pdu decode: bad_fcs: FCS 0x[0-9a-f]{8} on the wire" -- pdu decode "${hex%??}00"

# cosim budget: latency against the SUE spec's budget (docs/latency-budget.md). Bad input: one line, exit 2.
expect_usage "budget bad cable" "--cable 'copper' is not a cable .allowed: smf\|hcf\|twinax" -- budget --cable copper
expect_usage "budget length above 10 m" "--length 12 is out of range .allowed: 0\.\.10 m" -- budget --length 12
expect_usage "budget bad fec" "--fec 'rs528' is not a FEC mode .allowed: rs544\|rs544_ni\|rs272\|rs272_ni" -- budget --fec rs528
expect_usage "budget bad port rate" "--port-gbps 300 is not a port rate .allowed: 800\|400\|200\|100" -- budget --port-gbps 300
expect_usage "budget bad load" "--load 2 is out of range .allowed: 0\.\.1" -- budget --load 2
expect_usage "budget bad pattern" "--pattern 'mesh' is not a pattern .allowed: uniform\|incast" -- budget --pattern mesh
expect_usage "budget unknown parameter" "--set: unknown parameter 'bogus' .allowed: sue_clock_mhz" -- budget --set bogus=1
expect_usage "budget unknown option" "unexpected argument '--frob' for 'cosim budget'.*--cable, --length, --fec" -- budget --frob

# cosim report throughput (docs/system.md "Throughput report"): bad input refused before any run.
expect_usage "report unknown setting" "unknown setting 'bogus'" -- report throughput --set bogus=1
expect_usage "report bad combination" "'direction'=uni with xpus=5" -- report throughput --set xpus=5 --set direction=uni
expect_usage "report no window" "--warmup 5000 leaves no measurement window in --cycles 1000" -- report throughput --warmup 5000 --cycles 1000
expect_usage "report bad pass" "--pass '150' is not a number in 0\.\.100" -- report throughput --pass 150
expect_usage "report without kind" "report" -- report
# A small report: one line per row, exit 1 when a row misses the pass line (every row does at 100 %).
"$COSIM" report throughput --quick --no-plot --set xpus=4 --set nic=flit --cycles 2000 --warmup 500 --pass 100 --out rep >rep.txt 2>rep.err
rc=$?
if [ $rc -eq 1 ] && grep -q "RESULT: FAIL" rep.txt && [ "$(awk -F, 'NR > 1 && $13 != 0' rep/throughput.csv | wc -l)" -eq 0 ] &&
   [ "$(wc -l <rep/throughput.csv)" -eq 9 ] && python3 -c "
import json; j=json.load(open('rep/throughput.json')); assert not j['pass'] and len(j['rows']) == 8 and len(j['latency_ns']) == 4, j"; then
  ok
else
  bad "report throughput --pass 100: exit $rc, want 1 with 8 rows: $(tail -3 rep.txt) $(cat rep.err | tail -2)"
fi
# a good run: every component PASS, exit 0, JSON and Markdown report
"$COSIM" budget --json budget.json --report budget.md >budget.txt 2>&1
rc=$?
[ $rc -eq 0 ] && ok || bad "budget exit $rc"
for re in '^ SUE TX \(sender NIC\) +28\.26 +100\.00 +PASS +parameter, not measured' \
  '^ link NIC -> switch +9\.20 +9\.20 +PASS +measured' '^ switch \(port to port\) +250\.00 +250\.00 +PASS +measured' \
  '^ SUE RX \(receiver NIC\) +63\.12 +100\.00 +PASS' '^ total one way +359\.78 +468\.40 +PASS' \
  '^ round trip +717\.65 +2000\.00 +PASS' '^ 10 m smf +49\.60 +549\.20 +549\.20 +yes' '^ 5 m twinax +23\.00 +496\.00 +unreadable' \
  '^RESULT: PASS'; do
  grep -Eq -- "$re" budget.txt && ok || bad "budget: no line /$re/"
done
python3 -c "import json; j=json.load(open('budget.json')); assert j['pass'] and j['request']['components'][2]['ns']==250 and len(j['appendix_a'])==6" \
  && ok || bad "budget json content"
grep -q "^# Latency budget" budget.md && ok || bad "budget report"
# over budget (10 m smf, a slower switch PHY): FAIL on the switch line, exit 1
"$COSIM" budget --cable smf --length 10 --set switch.tx_phy_ns=90 >budget_fail.txt 2>&1
rc=$?
[ $rc -eq 1 ] && ok || bad "budget over budget exit $rc, want 1"
grep -Eq '^ switch \(port to port\) +270\.00 +250\.00 +FAIL' budget_fail.txt && grep -q "^RESULT: FAIL" budget_fail.txt \
  && ok || bad "budget over budget: no FAIL line"

# cosim reproduce ordering: bad options are one line naming the value and the allowed ones, exit 2.
expect_usage "reproduce bad experiment" "--exp '13' is not an experiment .allowed: 8a\|8b\|9\|10\|11\|12\|all" -- \
  reproduce ordering --exp 13
expect_usage "reproduce bad experiment in a list" "--exp '7' is not an experiment" -- reproduce ordering --exp 8a,7
expect_usage "reproduce unknown paper" "unknown reproduction 'paper' .allowed: ordering" -- reproduce paper
expect_usage "reproduce bad routing" "--routing 'adaptive' is not a routing .allowed: minimal\|valiant\|ugal-l" -- \
  reproduce ordering --routing adaptive
expect_usage "reproduce bad seed" "--seed 'x' is not a number" -- reproduce ordering --seed x
expect_usage "reproduce bad PAR signal" "--par-signal 'depth' is not a signal .allowed: queue\|credits" -- \
  reproduce ordering --par-signal depth
expect_usage "reproduce bad PAR threshold" "--par-threshold '-5' is not a number of flits .allowed: 0..1000000" -- \
  reproduce ordering --par-threshold -5
expect_usage "reproduce unknown option" "unexpected argument '--frob' for 'cosim reproduce'.*--exp, --quick, --out" -- \
  reproduce ordering --frob
expect_usage "reproduce what missing" "reproduction is required" -- reproduce

echo "cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
