#!/usr/bin/env bash
# bench.sh - the benchmark command: install dependencies, build and install
# nvm_am (scripts/setup.sh), then run the side-by-side benchmark of nvm_am
# against heap (bench/run_bench.py) on throwaway clusters: heap on tmpfs and
# on disk, nvm_am (redirect and copy reads), nvm_am with in-page logging off.
# Prints a table; writes bench/results/results.csv, throughput.png,
# bytes_per_txn.png and latency.png.  Usage: bash scripts/bench.sh [--quick]
# (--quick: < 5 minutes; full: < 30 minutes).  Run as root on Debian 12.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Debian's python3 (python3-matplotlib is installed for it), not one
# earlier in PATH such as a pyenv shim
exec /usr/bin/python3 bench/run_bench.py "$@"
