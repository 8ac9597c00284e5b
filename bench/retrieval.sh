#!/usr/bin/env bash
# retrieval.sh: catalog benchmark: retrieval latency/memory on a synthetic 10,000-column catalog, and
# `askql index` time on a generated 500-table / 10,000-column database. Prints tables.
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
B=$(mktemp -d)
DB=catalog_bench_$$
trap 'rm -rf "$B"; psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1;
      psql -X -q -d askql -c "DELETE FROM askql.cat_targets WHERE name = '"'$DB'"'" >/dev/null 2>&1' EXIT

# the benchmark program links against the same library as the workers
cc -O2 -g -std=c11 -D_GNU_SOURCE -I"$TOP/app" -I/usr/include/postgresql -o "$B/bench_retrieval" \
	"$TOP/bench/bench_retrieval.c" "${ASKQL_LIB:-$TOP/build/libaskql.a}" -lfcgi -lpq -lcurl -lcjson -lxml2 -lpg_query \
	-lxlsxwriter -lz -lcrypt -lpthread -lm || { echo "bench_retrieval: build failed"; exit 1; }
taskset -c 0 "$B/bench_retrieval" "${ITERS:-2000}" 2>/dev/null || "$B/bench_retrieval" "${ITERS:-2000}"

# indexing: 500 tables x 20 columns (3 text columns with values, an id and a parent key), no declared FKs
[ -n "${PGHOST:-}" ] || { echo "(no PostgreSQL in the environment: index benchmark skipped)"; exit 0; }
psql -X -q -d postgres -c "CREATE DATABASE $DB" >/dev/null || exit 1
psql -X -q -d "$DB" -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
DO $$
DECLARE cols text;
BEGIN
	FOR t IN 1..500 LOOP
		SELECT string_agg(format('c%s_%s %s', t, k, CASE k % 4 WHEN 0 THEN 'integer' WHEN 1 THEN 'text'
			WHEN 2 THEN 'timestamp' ELSE 'numeric' END), ', ') INTO cols FROM generate_series(3, 20) k;
		EXECUTE format('CREATE TABLE bench_t%s (id integer PRIMARY KEY, parent_id integer, %s)', t, cols);
		EXECUTE format('COMMENT ON TABLE bench_t%s IS %L', t, 'synthetic table number ' || t);
		EXECUTE format('INSERT INTO bench_t%s (id, parent_id, c%s_5, c%s_9) SELECT g, g %% 7 + 1, ''v'' || g %% 9, ''w'' || g %% 5 FROM generate_series(1, 20) g', t, t, t);
	END LOOP;
END $$;
ANALYZE;
SQL
conn="host=$PGHOST port=$PGPORT dbname=$DB user=${PGUSER:-askql}"
t0=$(date +%s.%N); out1=$("$ASKQL" index --quiet --target "$conn" --name "$DB" 2>&1); rc1=$?; t1=$(date +%s.%N)
out2=$("$ASKQL" index --target "$conn" --name "$DB" 2>&1); t2=$(date +%s.%N)
psql -X -q -d "$DB" -c "COMMENT ON COLUMN bench_t7.c7_5 IS 'changed'" >/dev/null
t3=$(date +%s.%N); out3=$("$ASKQL" index --target "$conn" --name "$DB" 2>&1); t4=$(date +%s.%N)
cols=$(psql -X -tA -d askql -c "SELECT count(*) FROM askql.cat_columns WHERE target = '$DB'")
echo
echo "| askql index (500 tables, $cols columns) | seconds | result |"
echo "|---|---|---|"
printf "| first run | %.2f | %s |\n" "$(echo "$t1 - $t0" | bc)" "$([ $rc1 = 0 ] && echo ok || echo "FAILED: $out1")"
printf "| re-run, nothing changed | %.2f | %s |\n" "$(echo "$t2 - $t1" | bc)" "$(grep -o '([a-z]*changed)' <<<"$out2")"
printf "| re-run, one comment changed | %.2f | %s |\n" "$(echo "$t4 - $t3" | bc)" "$(grep -o '[0-9]* tables re-indexed' <<<"$out3")"
