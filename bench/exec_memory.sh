#!/usr/bin/env bash
# exec_memory.sh: peak memory of the executor against the byte budget (exec_fetch_bytes): narrow and wide results
# exported by the CLI under three budgets, and the same through a web worker (docs/executor-limits.md).
# Needs the env bench/run.sh gives (ASKQL_CONF, PGHOST, PGPORT, VAR, BASE_URL, ADMIN_USER).
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
DB=${BENCH_DB:-demo}
work=$(mktemp -d "${TMPDIR:-/tmp}/askql_bench_mem.XXXXXX")
trap 'rm -rf "$work"' EXIT

declare -a NAMES SQLS
add() { NAMES+=("$1"); SQLS+=("$2"); }
add "1,000,000 narrow rows (export bench)" "SELECT g, g*1.5, md5(g::text), timestamp '2024-01-01' + g * interval '1 second' FROM generate_series(1,1000000) g"
add "2,000 rows x 100 KB" "SELECT g, repeat('y', 100000) AS y FROM generate_series(1,2000) g"
add "20 rows x 3 MB" "SELECT g, repeat('y', 3000000) AS y FROM generate_series(1,20) g"
add "5 rows x 40 MB" "SELECT repeat('x', 40000000) AS x FROM generate_series(1,5)"
add "5 rows x 60 MB (review)" "SELECT repeat('x', 60000000) FROM generate_series(1,5)"

tb() { psql -XAtq -d "$DB" -c "SELECT temp_bytes FROM pg_stat_database WHERE datname = '$DB'"; }
# cli NAME-INDEX BUDGET: "seconds peakMB rows truncated tempMB"
cli() {
	local i=$1 budget=$2 b0 b1 s r line
	b0=$(tb)
	ASKQL_EXEC_FETCH_BYTES=$budget /usr/bin/time -v -o "$work/t" "$ASKQL" export --sql "${SQLS[$i]}" --format csv \
		--max-rows 1000000 -o "$work/out.csv" >"$work/log" 2>&1
	sleep 0.5; b1=$(tb)
	s=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; printf "%.2f", s}' "$work/t")
	r=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$work/t")
	line=$(grep -E $'\t[0-9]+ rows' "$work/log" | head -1)
	printf "%s %s %s %s %s" "$s" "$r" "$(echo "$line" | awk -F'\t' '{print $2}' | awk '{print $1}')" \
		"$([[ "$line" == *truncated* ]] && echo yes || echo no)" "$(( (b1 - b0) / 1048576 ))"
}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); CSV through askql export (client process) and one web worker"
printf "%-38s %10s %8s %9s %9s %10s %8s\n" "result" "budget" "seconds" "peak MB" "rows" "truncated" "temp MB"
for i in "${!NAMES[@]}"; do
	for budget in 2097152 8388608 33554432; do
		read -r s r rows tr tmp < <(cli "$i" "$budget")
		printf "%-38s %9sM %8s %9s %9s %10s %8s\n" "${NAMES[$i]}" $((budget / 1048576)) "$s" "$r" "${rows:-err}" "$tr" "$tmp"
	done
done

# the same results downloaded through a web worker (default budget): its peak RSS from /proc (VmHWM, reset first)
workers() { local f; for f in "$VAR"/run/pool.pid "$VAR"/run/pool-runs.pid "$VAR"/run/pool-downloads.pid; do [ -f "$f" ] && pgrep -P "$(cat "$f")"; done; }
if [ -n "${VAR:-}" ] && [ -n "$(workers)" ] && echo 5 >"/proc/$(workers | head -1)/clear_refs" 2>/dev/null; then
	tok=$("$ASKQL" user token "$ADMIN_USER" 2>/dev/null | tail -1)
	echo
	printf "%-38s %12s %12s %10s\n" "web download (CSV, budget 8M)" "worker MB" "bytes" "seconds"
	for i in "${!NAMES[@]}"; do
		id=$(psql -XAtq -d askql -v sql="${SQLS[$i]}" -v user="$ADMIN_USER" <<'SQL' | head -1
INSERT INTO askql.runs(user_id, question, status, sql)
SELECT id, 'bench exec_memory', 'ok', :'sql' FROM askql.users WHERE name = :'user' RETURNING id
SQL
)
		for p in $(workers); do echo 5 >"/proc/$p/clear_refs"; done
		t0=$(date +%s%N)
		curl -s -m 300 -H "Authorization: Bearer $tok" -o "$work/web.csv" "$BASE_URL/api/runs/$id/download?format=csv"
		ms=$(( ($(date +%s%N) - t0) / 1000000 ))
		pk=$(for p in $(workers); do awk '/^VmHWM/ {print $2}' "/proc/$p/status"; done | sort -n | tail -1)
		printf "%-38s %12s %12s %10s\n" "${NAMES[$i]}" "$((pk / 1024))" "$(stat -c %s "$work/web.csv")" \
			"$(awk -v m=$ms 'BEGIN { printf "%.2f", m / 1000 }')"
	done
	psql -XAtq -d askql -c "DELETE FROM askql.runs WHERE question = 'bench exec_memory'" >/dev/null
else
	echo "(web worker peaks skipped: needs the stack's pool pids and root)"
fi
