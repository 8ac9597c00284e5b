#!/usr/bin/env bash
# run.sh: `make bench`: run every bench/*.sh against a throwaway stack and print their tables.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
export TOP
. "$TOP/scripts/lib.sh"
VAR=$TOP/build/benchvar
ensure_sysuser
stack_down "$VAR" 2>/dev/null; rm -rf "$VAR"; mkdir -p "$VAR"
PGPORT=$(free_port) PORT=$(free_port)
export PG_FSYNC=off
# one address (this machine) drives hundreds of requests at once: above nginx's per-address limit
export NGINX_CONN_PER_ADDR=${NGINX_CONN_PER_ADDR:-4096}
stack_up "$VAR" "$PORT" "$PGPORT" "${WORKERS:-4}" >"$VAR/stack.log" 2>&1 || { cat "$VAR/stack.log"; exit 1; }
trap 'stack_down "$VAR"' EXIT
export ASKQL_CONF=$VAR/askql.conf PGHOST=$VAR/run PGPORT PGUSER=askql PGPASSFILE=$VAR/pgpass.admin ASKQL=$TOP/bin/askql
export BASE_URL=http://127.0.0.1:$PORT VAR ADMIN_USER=admin ADMIN_PASS=$(cat "$VAR/admin.password")
export FAKE_LLM=$TOP/tests/lib/fake_llm.py
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -m), $(. /etc/os-release; echo "$PRETTY_NAME")"
for b in "$TOP"/bench/*.sh; do
	[ "$(basename "$b")" = run.sh ] && continue
	echo; echo "== $(basename "$b" .sh)"
	bash "$b"
done
