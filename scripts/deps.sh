#!/usr/bin/env bash
# Installs the Debian packages the build needs, when they are missing.
# Root: installs them with apt-get. Not root: prints the exact command and fails.
# Usage: scripts/deps.sh            (required packages)
set -euo pipefail

REQUIRED=(
  cmake make g++            # build
  verilator                 # RTL -> C++ (5.006 on Debian bookworm)
  libsystemc-dev            # SystemC 2.3.4
  libboost-dev              # Boost (random, crc, ...), header-only parts
  libfmt-dev                # fmt
  libgtest-dev googletest   # GoogleTest
  libcli11-dev              # CLI11 command-line parser
  nlohmann-json3-dev        # JSON
  gnuplot-nox               # plots of `cosim reproduce ordering`
  yosys                     # `make area`: synthesis of the SUE NIC RTL (scripts/area.sh)
)
OPTIONAL=(gtkwave)          # to look at the waves; never needed by the build or tests

missing=()
for p in "${REQUIRED[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
opt_missing=()
for p in "${OPTIONAL[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || opt_missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ] && [ ${#opt_missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  if [ ${#missing[@]} -eq 0 ]; then
    [ -n "${COSIM_DEPS_QUIET:-}" ] || \
      echo "deps: optional ${opt_missing[*]} not installed (to view waves: apt-get install ${opt_missing[*]})"
    exit 0
  fi
  echo "deps: missing Debian packages: ${missing[*]}" >&2
  echo "deps: run as root:  apt-get update && apt-get install -y ${missing[*]} ${opt_missing[*]}" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
if [ ${#missing[@]} -ne 0 ]; then
  echo "deps: installing ${missing[*]}"
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The wave viewer is a convenience (and gives the wave tests fst2vcd): try it,
# never fail the build on it.
if [ ${#opt_missing[@]} -ne 0 ]; then
  echo "deps: installing optional ${opt_missing[*]}"
  apt-get install -y -qq --no-install-recommends "${opt_missing[@]}" >/dev/null 2>&1 || \
    echo "deps: optional ${opt_missing[*]} could not be installed (waves are still written)"
fi
echo "deps: done"
