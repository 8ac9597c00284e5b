#!/usr/bin/env bash
# deps.sh: install the Debian packages (and npm packages) askql needs; quiet and quick when present.
set -euo pipefail
PKGS="build-essential pkg-config libfcgi-dev spawn-fcgi multiwatch nginx-light
 libpq-dev libcurl4-openssl-dev libcjson-dev libxml2-dev libpg-query-dev libxlsxwriter-dev zlib1g-dev
 libcmocka-dev postgresql-15 postgresql-15-hypopg valgrind curl
 clang libclang-rt-14-dev chromium fonts-nanum wrk python3 python3-openpyxl"
# `make bench` compares against Python peers (pandas, openpyxl, Flask under gunicorn), run with
# Debian's /usr/bin/python3; `make test` does not need them.
[ "${1:-}" = bench ] && PKGS="$PKGS python3-pandas python3-psycopg2 python3-flask gunicorn"
# node/npm may come from another repository (nodesource); install Debian's only when absent
command -v npm >/dev/null 2>&1 || PKGS="$PKGS nodejs npm"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
# Debian's postgresql package starts its own cluster on 5432; askql runs its own under var/.
# playwright-core drives Debian's chromium for the browser tests (never a downloaded browser).
top=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -d "$top/tests/browser/node_modules/playwright-core" ]; then
	(cd "$top/tests/browser" && npm install --no-audit --no-fund --silent >/dev/null 2>&1) ||
		echo "deps: npm install failed (browser tests will report it)"
fi
