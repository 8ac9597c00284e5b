#!/usr/bin/env bash
# eval.sh: `make eval`: load and index the demo and EHRSQL targets, then print both reports of the offline planner.
# Uses the dev stack under var/ when its cluster is running, else a throwaway cluster under build/evalvar
# (stopped again at the end).  Outcome files go to build/eval/.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
export TOP
. "$TOP/scripts/lib.sh"
ASKQL=$TOP/bin/askql
OUT=$TOP/build/eval
mkdir -p "$OUT"

# The benchmark lives beside the repository (CI clones into a fresh dir with shared/ next to it).
SHARED=$TOP/../shared
[ -d "$SHARED/eval/ehrsql2024" ] || SHARED=/work/shared
EHR=$SHARED/eval/ehrsql2024
[ -f "$EHR/load_pg.sql" ] || { echo "eval: EHRSQL benchmark not found (looked in $TOP/../shared and /work/shared)" >&2; exit 1; }

ensure_sysuser
started=0
if [ -f "$TOP/var/env.sh" ] && as_sys "$PGBIN/pg_ctl" -D "$TOP/var/pg" status >/dev/null 2>&1; then
	VAR=$TOP/var
	PGPORT=$(sed -n 's/.*PGPORT=\([0-9]*\).*/\1/p' "$VAR/env.sh")
	echo "eval: using the running dev cluster ($VAR, port $PGPORT)"
else
	VAR=$TOP/build/evalvar
	PGPORT=$(free_port)
	echo "eval: starting a throwaway cluster in $VAR on port $PGPORT"
	pg_init "$VAR" "$PGPORT"
	pg_start "$VAR"
	started=1
	trap 'pg_stop "$VAR"' EXIT
	db_setup "$VAR" "$PGPORT"
	write_conf "$VAR" "$PGPORT"
	ASKQL_CONF="$VAR/askql.conf" "$ASKQL" migrate >/dev/null
fi
export ASKQL_CONF=$VAR/askql.conf PGHOST=$VAR/run PGPORT PGUSER=askql PGPASSFILE=$VAR/pgpass.admin
SOCK="host=$VAR/run port=$PGPORT"

# ---- the demo target ----
ASKQL_CONF="$VAR/askql.conf" "$ASKQL" index --name demo --quiet >/dev/null 2>&1 ||
	ASKQL_CONF="$VAR/askql.conf" "$ASKQL" index --name demo >"$OUT/index_demo.log" 2>&1 ||
	echo "eval: warning: indexing demo failed (see $OUT/index_demo.log); the planner works from its own schema snapshot" >&2

# ---- the EHRSQL target: load once, read-only role, index (no declared FKs: keys are inferred) ----
# (indexed as askql_app, like the demo: no target's conninfo names the superuser)
if ! psql_su "$VAR" "$PGPORT" postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'ehrsql'" | grep -q 1; then
	psql_su "$VAR" "$PGPORT" postgres -c "CREATE DATABASE ehrsql" >/dev/null
fi
if ! psql_su "$VAR" "$PGPORT" ehrsql -tAc "SELECT 1 FROM pg_tables WHERE tablename = 'patients'" | grep -q 1; then
	echo "eval: loading EHRSQL (MIMIC-IV demo) from $EHR"
	(cd "$EHR" && psql_su "$VAR" "$PGPORT" ehrsql -f load_pg.sql >/dev/null 2>"$OUT/load_ehrsql.log")
fi
psql_su "$VAR" "$PGPORT" ehrsql >/dev/null <<'SQL'
REVOKE ALL ON DATABASE ehrsql FROM PUBLIC;
GRANT CONNECT ON DATABASE ehrsql TO askql_reader, askql_app;
GRANT USAGE ON SCHEMA public TO askql_reader, askql_app;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO askql_reader, askql_app;
SQL
"$ASKQL" migrate >/dev/null   # the registry of targets (and the configured demo in it)
# the throwaway cluster gets a new port each time: a registration of an earlier run names another
# host:port, so it is replaced (its catalog is rebuilt)
"$ASKQL" target list 2>/dev/null | grep -q "^ehrsql .*local:$PGPORT/ehrsql" || "$ASKQL" target rm ehrsql >/dev/null 2>&1 || true
"$ASKQL" index --name ehrsql --target "$SOCK dbname=ehrsql user=askql_app" --ro "$SOCK dbname=ehrsql user=askql_reader" \
	>"$OUT/index_ehrsql.log" 2>&1 ||
	echo "eval: warning: indexing ehrsql failed (see $OUT/index_ehrsql.log); the planner works from its own schema snapshot" >&2

# ---- the sets built for issue 12 (tests/data/eval/SET/{schema.sql,questions.jsonl}): each its own
# database, loaded fresh, read by askql_reader, registered and indexed like a user's database ----
SETS=()
for d in "$TOP"/tests/data/eval/*/; do
	[ -f "$d/schema.sql" ] && [ -f "$d/questions.jsonl" ] || continue
	set=$(basename "$d"); db=eval_$set
	psql_su "$VAR" "$PGPORT" postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
	"$ASKQL" target rm "$set" >/dev/null 2>&1 || true
	psql_su "$VAR" "$PGPORT" postgres -c "CREATE DATABASE $db" >/dev/null
	if ! psql_su "$VAR" "$PGPORT" "$db" -f "$d/schema.sql" >"$OUT/load_$set.log" 2>&1; then
		echo "eval: warning: loading $set failed (see $OUT/load_$set.log)" >&2
		continue
	fi
	psql_su "$VAR" "$PGPORT" "$db" >/dev/null <<SQL
REVOKE ALL ON DATABASE $db FROM PUBLIC;
GRANT CONNECT ON DATABASE $db TO askql_reader, askql_app;
GRANT USAGE ON SCHEMA public TO askql_reader, askql_app;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO askql_reader, askql_app;
SQL
	if "$ASKQL" index --name "$set" --target "$SOCK dbname=$db user=askql_app" --ro "$SOCK dbname=$db user=askql_reader" \
		>"$OUT/index_$set.log" 2>&1; then
		SETS+=("$set")
	else
		echo "eval: warning: indexing $set failed (see $OUT/index_$set.log)" >&2
	fi
done

half_name() { [ "$1" = 1 ] && echo 'development: odd lines' || echo 'held out: even lines, not tuned on'; }

# ---- context recall: does the block an LLM gets name every table and column the gold SQL uses? ----
echo
echo "== context recall (the schema block handed to an LLM vs the gold SQL) =="
"$ASKQL" eval --target demo --context "$TOP/tests/data/demo_dev.jsonl" | sed 's/^/  /'
for h in 1 2; do
	"$ASKQL" eval --target ehrsql --context "$EHR/valid.jsonl" --half $h | sed 's/^/  /'
done
# EHRSQL's schema fits the whole-schema budget; the retrieval path alone, for comparison
for h in 1 2; do
	echo "  (retrieval only, whole schema off)"
	ASKQL_CONTEXT_WHOLE_SCHEMA_TOKENS=0 "$ASKQL" eval --target ehrsql --context "$EHR/valid.jsonl" --half $h | sed 's/^/  /'
done
for set in "${SETS[@]}"; do
	for qf in questions questions_b questions_c questions_d questions_e questions_f questions_g questions_h questions_i questions_j questions_k questions_l questions_m; do
		[ -f "$TOP/tests/data/eval/$set/$qf.jsonl" ] || continue
		for h in 1 2; do
			"$ASKQL" eval --target "$set" --context "$TOP/tests/data/eval/$set/$qf.jsonl" --half $h | sed 's/^/  /'
		done
	done
done
mkdir -p "$TOP/build/bench"
if cc -O2 -std=c11 -D_GNU_SOURCE -I"$TOP/app" -I/usr/include/postgresql -o "$TOP/build/bench/bench_retrieval" \
	"$TOP/bench/bench_retrieval.c" "$TOP/build/libaskql.a" -lfcgi -lpq -lcurl -lcjson -lxml2 -lpg_query \
	-lxlsxwriter -lz -lcrypt -lpthread -lm 2>"$OUT/bench_build.log"; then
	"$TOP/build/bench/bench_retrieval" --tokens-only | sed 's/^/  /'
else
	echo "eval: warning: bench_retrieval did not build (see $OUT/bench_build.log)" >&2
fi
[ "${EVAL_ONLY:-}" = context ] && exit 0

# ---- the reports ----
echo
echo "== offline planner accuracy =="
"$ASKQL" eval --target demo --now '2025-12-31 23:59:00' \
	--out "$OUT/demo_outcomes.jsonl" "$TOP/tests/data/demo_dev.jsonl"
# EHRSQL: the development half (odd lines) and the held-out half (even lines), reported apart
for h in 1 2; do
	echo
	echo "-- EHRSQL valid, half $h ($(half_name $h))"
	"$ASKQL" eval --target ehrsql --now '2100-12-31 23:59:00' --half $h \
		--out "$OUT/ehrsql_outcomes_half$h.jsonl" "$EHR/valid.jsonl"
	python3 "$TOP/scripts/eval_diag.py" "$OUT/ehrsql_outcomes_half$h.jsonl" "$EHR/valid.jsonl"
done
# EHRSQL test split (tests/data/eval/ehrsql_test): questions of the same database from another split,
# halved the same way; half 1 may be tuned on, half 2 is reported untouched
EHT=$TOP/tests/data/eval/ehrsql_test/test.jsonl
for h in 1 2; do
	echo
	echo "-- EHRSQL test, half $h ($(half_name $h))"
	"$ASKQL" eval --target ehrsql --now '2100-12-31 23:59:00' --half $h \
		--out "$OUT/ehrsql_test_outcomes_half$h.jsonl" "$EHT"
	python3 "$TOP/scripts/eval_diag.py" "$OUT/ehrsql_test_outcomes_half$h.jsonl" "$EHT"
done
# paraphrases of the development half, and its templates with other values (tests/data/eval_probe):
# how much of it survives rewording
for PROBE in "$TOP"/tests/data/eval_probe/ehrsql_dev_*.jsonl; do
	[ -f "$PROBE" ] || continue
	tag=$(basename "$PROBE" .jsonl)
	echo
	echo "-- EHRSQL valid, half 1 probe: $tag (tests/data/eval_probe: a development probe, tuned on)"
	"$ASKQL" eval --target ehrsql --now '2100-12-31 23:59:00' --out "$OUT/${tag}_outcomes.jsonl" "$PROBE"
done
# each set's first questions (questions.jsonl) and, where written, a second set by other authors
# (questions_b/c/d.jsonl, docs/eval/brief_second_questions.md): all split into halves the same way
for set in "${SETS[@]}"; do
	for qf in questions questions_b questions_c questions_d questions_e questions_f questions_g questions_h questions_i questions_j questions_k questions_l questions_m; do
		[ -f "$TOP/tests/data/eval/$set/$qf.jsonl" ] || continue
		tag=$set; [ "$qf" != questions ] && tag=${set}_${qf#questions_}
		for h in 1 2; do
			echo
			echo "-- $tag, half $h ($(half_name $h))"
			"$ASKQL" eval --target "$set" --half $h --out "$OUT/${tag}_outcomes_half$h.jsonl" \
				"$TOP/tests/data/eval/$set/$qf.jsonl"
		done
	done
done
# the blind everyday sets on the demo database (tests/data/eval_demo, issue 26: written from
# docs/eval/brief_demo_everyday.md by engineers who had read neither the planner nor other sets;
# follow-ups carry their parent question): halves as always
for SETF in "$TOP"/tests/data/eval_demo/everyday_*.jsonl; do
	[ -f "$SETF" ] || continue
	tag=$(basename "$SETF" .jsonl)
	for h in 1 2; do
		echo
		echo "-- demo $tag, half $h ($(half_name $h))"
		"$ASKQL" eval --target demo --half $h --out "$OUT/demo_${tag}_outcomes_half$h.jsonl" "$SETF"
	done
done
# paraphrases of those sets' development halves (tests/data/eval_probe/SET_dev_paraphrases.jsonl)
for set in "${SETS[@]}"; do
	PROBE=$TOP/tests/data/eval_probe/${set}_dev_paraphrases.jsonl
	[ -f "$PROBE" ] || continue
	echo
	echo "-- $set, half 1 paraphrased (tests/data/eval_probe: a development probe, tuned on)"
	"$ASKQL" eval --target "$set" --out "$OUT/${set}_dev_paraphrases_outcomes.jsonl" "$PROBE"
done
echo
echo "outcome files: $OUT/*_outcomes*.jsonl"
