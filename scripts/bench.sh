#!/usr/bin/env bash
# bench.sh - the benchmark command: install dependencies, build and install
# nvm_am (scripts/setup.sh), then run the side-by-side benchmark of nvm_am
# against heap (bench/run_bench.py): heap on tmpfs and on disk, nvm_am
# (redirect and copy reads), nvm_am with in-page logging off, each pgbench
# row run 3 times per set-up with the set-ups alternated in rounds, on
# throwaway clusters that run side by side.  Prints a table (machine,
# median tps with min-max, ratio to heap with its range, space after load);
# writes bench/results/results.csv, runs.csv, table.txt, throughput.png,
# bytes_per_txn.png and latency.png.
# Usage: bash scripts/bench.sh [--no-setup] [--quick] [run_bench.py options]
# (--quick: about 7.5 minutes; full: about 30-35 minutes on 2 cores;
# --no-setup: skip scripts/setup.sh and measure the nvm_am already
# installed).  Run as root on Debian 12.
set -euo pipefail
cd "$(dirname "$0")/.."
setup=1
args=()
for a in "$@"; do
    if [ "$a" = "--no-setup" ]; then setup=0; else args+=("$a"); fi
done
if [ "$setup" = 1 ]; then bash scripts/setup.sh; fi
# Debian's python3 (python3-matplotlib is installed for it), not one
# earlier in PATH such as a pyenv shim
exec /usr/bin/python3 bench/run_bench.py ${args[@]+"${args[@]}"}
