#!/usr/bin/env bash
# RTL code coverage of the block and system tests (`make coverage`).
#
# 1. configures and builds $BUILD (default build-cov) with -DCOSIM_COVERAGE=ON:
#    every verilated model gets Verilator's --coverage (line + toggle + user),
#    and every test process writes $BUILD/coverage/raw/<pid>.dat at exit;
# 2. runs `ctest -L 'block|system'` there;
# 3. merges the data (verilator_coverage --write), writes the annotated RTL
#    ($BUILD/coverage/annotated/, `%000000` marks a point never hit), a summary
#    per RTL file (printed, and $BUILD/coverage/coverage.json) and the line
#    points never hit ($BUILD/coverage/unhit.txt).
# 4. lists every named `cover property` point (c_*, the test plan's events) with its hits
#    ($BUILD/coverage/covers.txt).
# Exits with ctest's status (a failing test still leaves the report), else 1 when a cover point was
# never hit.
#
# Usage: scripts/coverage.sh [BUILD_DIR]      (env: JOBS, CMAKE_FLAGS)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-build-cov}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
CMAKE_FLAGS=${CMAKE_FLAGS:--DCMAKE_BUILD_TYPE=Release}
COV="$BUILD/coverage"

# shellcheck disable=SC2086
cmake -S "$ROOT" -B "$BUILD" $CMAKE_FLAGS -DCOSIM_COVERAGE=ON
cmake --build "$BUILD" -j "$JOBS"

rm -rf "$COV"
mkdir -p "$COV/raw"
ctest_rc=0
(cd "$BUILD" && COSIM_COVERAGE_DIR="$COV/raw" \
   ctest -L 'block|system' -j "$JOBS" --output-on-failure --output-junit junit-coverage.xml) \
  || ctest_rc=$?

shopt -s nullglob
raw=("$COV"/raw/*.dat)
if [ ${#raw[@]} -eq 0 ]; then
  echo "coverage: no coverage data in $COV/raw (was $BUILD configured with -DCOSIM_COVERAGE=ON?)" >&2
  exit 1
fi
verilator_coverage --write "$COV/merged.dat" "${raw[@]}"
verilator_coverage --annotate "$COV/annotated" --annotate-all --annotate-min 1 "$COV/merged.dat" >/dev/null

# merged.dat: one point a line, C '<\001key\002value...>' <count>. Keys used:
# f file, l line, page v_line/<module> | v_branch/... | v_toggle/... | v_user/...,
# o comment, S the source lines a line/branch point stands for (e.g. 12-14,17).
# A source line counts as hit when every line/branch point covering it was hit.
awk -v sq="'" -v root="$ROOT/" -v json="$COV/coverage.json" -v unhit="$COV/unhit.txt" -v covers="$COV/covers.txt" \
    -v nraw="${#raw[@]}" '
function kv(s,   n, i, a, p) {
  delete K
  n = split(s, a, "\001")
  for (i = 1; i <= n; i++) {
    if (a[i] == "") continue
    p = index(a[i], "\002")
    K[substr(a[i], 1, p - 1)] = substr(a[i], p + 1)
  }
}
function pct(h, t) { return t ? sprintf("%5.1f%%", 100.0 * h / t) : "    -" }
function jnum(h, t) { return sprintf("{\"hit\": %d, \"total\": %d}", h, t) }
/^C / {
  q1 = index($0, sq); rest = substr($0, q1 + 1)
  q2 = 0; for (i = length(rest); i > 0; i--) if (substr(rest, i, 1) == sq) { q2 = i; break }
  count = substr(rest, q2 + 2) + 0
  kv(substr(rest, 1, q2 - 1))
  f = K["f"]; if (index(f, root) == 1) f = substr(f, length(root) + 1)
  type = K["page"]; sub(/\/.*/, "", type); sub(/^v_/, "", type)
  if (type == "branch") type = "line"
  # The same point exists once per model instance and per compiled variant
  # (h = hierarchy): it is hit when any of them hit it.
  key = f SUBSEP type SUBSEP K["l"] SUBSEP K["n"] SUBSEP K["o"] SUBSEP (type == "toggle" ? K["page"] : "")
  if (!(key in agg)) { agg[key] = 0; aggf[key] = f; aggt[key] = type; aggs[key] = ("S" in K) ? K["S"] : K["l"]
                       aggl[key] = K["l"]; aggn[key] = K["n"]; aggo[key] = K["o"] }
  if (count > agg[key]) agg[key] = count
}
END {
  for (key in agg) {
    f = aggf[key]; type = aggt[key]; count = agg[key]
    if (!(f in files)) { files[f] = 1; order[++nf] = f }
    pts[f, type]++; if (count > 0) hits[f, type]++
    # named `cover property` points (c_*): one line each, hits the most of any instance
    if (type == "user" && aggo[key] ~ /c_/) { cn = aggo[key]; sub(/.*\./, "", cn); print f ":" aggl[key] ": " cn " " count > covers }
    if (type != "line") continue
    nr = split(aggs[key], r, ",")
    for (j = 1; j <= nr; j++) {
      if (split(r[j], be, "-") == 2) { lo = be[1] + 0; hi = be[2] + 0 } else { lo = hi = r[j] + 0 }
      for (ln = lo; ln <= hi; ln++) {
        if (!((f, ln) in lines)) { lines[f, ln] = 1; nlines[f]++ }
        if (count == 0) lmiss[f, ln] = 1
      }
    }
    if (count == 0) print f ":" aggl[key] ":" aggn[key] ": " aggo[key] > unhit
  }
  printf "\nRTL coverage: %d processes merged (a point counts as hit when any instance or variant hit it)\n\n", nraw
  printf "%-18s %19s %19s %19s %19s\n", "RTL file", "lines", "line/branch pts", "toggle pts", "user pts"
  n = 0
  # files in a stable order
  for (i = 1; i <= nf; i++) for (j = i + 1; j <= nf; j++) if (order[j] < order[i]) { t = order[i]; order[i] = order[j]; order[j] = t }
  print "{\n  \"files\": {" > json
  for (i = 1; i <= nf; i++) {
    f = order[i]; lt = nlines[f] + 0; lm = 0
    for (k in lmiss) { split(k, kk, SUBSEP); if (kk[1] == f) lm++ }
    lh = lt - lm
    name = f; sub(/^rtl\//, "", name)
    printf "%-18s %7d/%-5d%s %7d/%-5d%s %7d/%-5d%s %7d/%-5d%s\n", name,
      lh, lt, pct(lh, lt), hits[f, "line"], pts[f, "line"], pct(hits[f, "line"], pts[f, "line"]),
      hits[f, "toggle"], pts[f, "toggle"], pct(hits[f, "toggle"], pts[f, "toggle"]),
      hits[f, "user"], pts[f, "user"], pct(hits[f, "user"], pts[f, "user"])
    printf "    \"%s\": {\"lines\": %s, \"line_points\": %s, \"toggle_points\": %s, \"user_points\": %s}%s\n", f,
      jnum(lh, lt), jnum(hits[f, "line"], pts[f, "line"]), jnum(hits[f, "toggle"], pts[f, "toggle"]),
      jnum(hits[f, "user"], pts[f, "user"]), (i < nf ? "," : "") > json
  }
  printf "  },\n  \"processes\": %d\n}\n", nraw > json
}' "$COV/merged.dat"
touch "$COV/unhit.txt" "$COV/covers.txt"
sort -t: -k1,1 -k2,2n "$COV/covers.txt" -o "$COV/covers.txt"
# file:line:column: kind | source text, in file order
sort -t: -k1,1 -k2,2n -k3,3n "$COV/unhit.txt" | uniq | while IFS=: read -r f l c kind; do
  printf '%s:%s:%s:%s | %s\n' "$f" "$l" "$c" "$kind" "$(sed -n "${l}{s/^[[:space:]]*//;p;}" "$ROOT/$f")"
done >"$COV/unhit.tmp"
mv "$COV/unhit.tmp" "$COV/unhit.txt"

echo
echo "line/branch points never hit: $(wc -l <"$COV/unhit.txt") ($COV/unhit.txt)"
head -n 40 "$COV/unhit.txt" | sed 's/^/  /'
echo
echo "cover property points (the test plan's events; hits, most of any instance): $(wc -l <"$COV/covers.txt") ($COV/covers.txt)"
sed 's/^/  /' "$COV/covers.txt"
cover_rc=0
if awk '$NF == 0 { bad = 1 } END { exit !bad }' "$COV/covers.txt"; then
  echo "coverage: cover points never hit: $(awk '$NF == 0 { printf "%s ", $(NF-1) }' "$COV/covers.txt")" >&2
  cover_rc=1
fi
echo "annotated RTL: $COV/annotated/  (%000000 = never hit)"
echo "merged data:   $COV/merged.dat  summary: $COV/coverage.json"
[ "$ctest_rc" -eq 0 ] || echo "coverage: some tests FAILED (ctest exit $ctest_rc)" >&2
[ "$ctest_rc" -ne 0 ] && exit "$ctest_rc"
exit "$cover_rc"
