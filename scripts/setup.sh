#!/usr/bin/env bash
# setup.sh [--assert] - install what nvm_am needs from Debian's packages,
# then build and install the extension (with its Assert()s enabled when
# --assert is given).  Run as root on Debian 12.  Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS="postgresql-15 postgresql-server-dev-15 postgresql-contrib
      libpmem-dev libpmemobj-dev pmdk-tools
      postgresql-15-pgtap libtap-parser-sourcehandler-pgtap-perl
      libipc-run-perl python3 python3-matplotlib make gcc rsync procps"

missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "setup.sh: missing packages:$missing; run as root to install them" >&2
        exit 1
    fi
    echo "== installing Debian packages:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

export PATH=/usr/lib/postgresql/15/bin:$PATH
MAKEVARS="PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config"
if [ "${1:-}" = "--assert" ]; then MAKEVARS="$MAKEVARS NVM_ASSERTS=1"; fi
echo "== building nvm_am ($MAKEVARS)"
make -s clean >/dev/null
make -s $MAKEVARS
echo "== installing nvm_am"
make -s install $MAKEVARS >/dev/null
