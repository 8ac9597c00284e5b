#!/usr/bin/env bash
# run.sh: `make test`: unit tests under valgrind, then integration and browser tests against a
# throwaway stack (PostgreSQL, worker pool, nginx on free ports), then brief fuzzing.
# Ends with "N passed, N failed" and exits non-zero on any failure.
# Tests run under `set -o pipefail`: `producer | grep -q X` then fails at random when the producer
# writes after grep has found X and exited (SIGPIPE; unzip writes its listing in small pieces), and a
# negated `! producer | grep -q X` passes wrongly.  Let grep read everything (`grep -c X >/dev/null`)
# or grep a here-string when the producer is not one small buffered write.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
export TOP
. "$TOP/scripts/lib.sh"
ONLY=${1:-all}
# ONLY=pick: run only the integration/browser tests whose file name contains $PICK (e.g.
# `PICK=20_catalog bash tests/run.sh pick`), after the unit tests; for working on one area.
PICK=${PICK:-}
PASS=0 FAIL=0 SKIP=0
FAILED_NAMES=()
# Per-run directories, so that two `make test` runs on one machine never share a stack.
RUNID=${TEST_RUNID:-$$}
LOGDIR=$TOP/build/test-logs-$RUNID
rm -rf "$LOGDIR"; mkdir -p "$LOGDIR" "$TOP/build/screenshots"
ln -sfn "$LOGDIR" "$TOP/build/test-logs"

T0=$(date +%s)
section() { echo "== $1 (at $(( $(date +%s) - T0 )) s)"; }
pass() { PASS=$((PASS + 1)); }
fail() { FAIL=$((FAIL + 1)); FAILED_NAMES+=("$1"); echo "FAIL: $1"; }

# count_tap NAME LOGFILE RC: add the ok/not ok lines of a TAP-ish log to the totals.
count_tap() {
	local name=$1 log=$2 rc=$3 ok nok skip
	ok=$(grep -E '^ok( [0-9]+)?( -|$)' "$log" | grep -vc '# SKIP')
	skip=$(grep -E '^ok( [0-9]+)?( -|$)' "$log" | grep -c '# SKIP')
	nok=$(grep -cE '^not ok' "$log")
	PASS=$((PASS + ok)); SKIP=$((SKIP + skip))
	[ "$skip" -gt 0 ] && grep -E '^ok.*# SKIP' "$log" | sed "s|^|SKIP: $name: |"
	if [ "$nok" -gt 0 ]; then
		FAIL=$((FAIL + nok))
		while IFS= read -r l; do FAILED_NAMES+=("$name: $l"); echo "FAIL: $name: $l"; done < <(grep -E '^not ok' "$log")
	fi
	if [ "$rc" -ne 0 ] && [ "$nok" -eq 0 ]; then fail "$name (exit $rc, see $log)"; fi
	echo "  $name: $ok ok, $nok not ok, $skip skipped (exit $rc)"
}

# ---- the throwaway stack ----
VAR=$TOP/build/testvar-$RUNID
stack_started=0
start_stack() {
	ensure_sysuser
	pool_stop "$VAR" 2>/dev/null; nginx_stop "$VAR" 2>/dev/null; pg_stop "$VAR" 2>/dev/null
	rm -rf "$VAR"; mkdir -p "$VAR"
	PGPORT=$(free_port) PORT=$(free_port)
	export PG_FSYNC=off
	echo "test stack: postgres on $PGPORT, nginx on $PORT, var $VAR"
	if ! stack_up "$VAR" "$PORT" "$PGPORT" "${WORKERS:-4}" >"$LOGDIR/stack.log" 2>&1; then
		cat "$LOGDIR/stack.log"
		fail "stack start"
		return 1
	fi
	stack_started=1
	export ASKQL_CONF=$VAR/askql.conf PGHOST=$VAR/run PGPORT PGUSER=askql PGPASSFILE=$VAR/pgpass.admin
	export ASKQL=$TOP/bin/askql BASE_URL=http://127.0.0.1:$PORT VAR
	export ADMIN_USER=admin ADMIN_PASS=$(cat "$VAR/admin.password")
	export FAKE_LLM=$TOP/tests/lib/fake_llm.py
	# wait for nginx + a worker
	for _ in $(seq 50); do curl -s -o /dev/null "$BASE_URL/" && break; sleep 0.2; done
}
stop_stack() {
	[ $stack_started = 1 ] && stack_down "$VAR"
	stack_started=0
	# keep the cluster only when asked (KEEP_TESTVAR=1), it is large
	[ "${KEEP_TESTVAR:-0}" = 1 ] || rm -rf "$VAR"
}
trap stop_stack EXIT

start_stack || true

# ---- unit tests (cmocka) under valgrind ----
run_units() {
	local t name log rc p f s
	for t in "$TOP"/build/tests/test_*; do
		[ -x "$t" ] || continue
		name=unit/$(basename "$t")
		log=$LOGDIR/$(basename "$t").log
		(cd "$TOP" && timeout 300 valgrind -q --leak-check=full --show-leak-kinds=definite,indirect \
			--errors-for-leak-kinds=definite,indirect --error-exitcode=99 "$t") >"$log" 2>&1
		rc=$?
		p=$(grep -oE '\[  PASSED  \] [0-9]+' "$log" | awk '{s+=$NF} END {print s+0}')
		f=$(grep -oE '\[  FAILED  \] [0-9]+' "$log" | awk '{s+=$NF} END {print s+0}')
		# (a test that skipped itself, e.g. with no database reachable, is counted as skipped, not left out)
		s=$(grep -oE '^\[  SKIPPED \] [0-9]+ test' "$log" | awk '{s+=$4} END {print s+0}')
		PASS=$((PASS + p)); FAIL=$((FAIL + f)); SKIP=$((SKIP + s))
		[ "$f" -gt 0 ] && { FAILED_NAMES+=("$name"); grep -E '^\[  FAILED  \] [a-z_]' "$log" | sed "s|^|FAIL: $name |"; }
		if [ $rc -eq 99 ]; then fail "$name: valgrind errors/leaks (see $log)"; grep -m5 -E '==[0-9]+==' "$log";
		elif [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then fail "$name (exit $rc, see $log)"; fi
		echo "  $name: $p passed, $f failed$([ "$s" -gt 0 ] && echo ", $s skipped")"
	done
}
section "unit tests (valgrind)"
run_units

if [ "$ONLY" != unit ]; then
	section "integration tests"
	for t in "$TOP"/tests/integration/*.sh; do
		[ -f "$t" ] || continue
		[ -n "$PICK" ] && [[ "$(basename "$t")" != *"$PICK"* ]] && continue
		log=$LOGDIR/$(basename "$t").log
		(cd "$TOP" && timeout 600 bash "$t") >"$log" 2>&1
		rc=$?   # taken at once: a command substitution in count_tap's arguments would reset $?
		count_tap "integration/$(basename "$t")" "$log" $rc
		echo "    (at $(( $(date +%s) - T0 )) s)"
	done

	section "browser tests"
	if [ -d "$TOP/tests/browser/node_modules/playwright-core" ]; then
		for t in "$TOP"/tests/browser/*.mjs; do
			[ -f "$t" ] || continue
			[ "$(basename "$t")" = lib.mjs ] && continue  # shared code, not a test
			[ -n "$PICK" ] && [[ "$(basename "$t")" != *"$PICK"* ]] && continue
			log=$LOGDIR/$(basename "$t").log
			(cd "$TOP/tests/browser" && timeout 600 node "$t") >"$log" 2>&1
			rc=$?
			count_tap "browser/$(basename "$t")" "$log" $rc
		done
	else
		fail "browser tests: playwright-core not installed (npm install in tests/browser failed)"
	fi

	if [ -x "$TOP/tests/fuzz/run.sh" ] && [ -z "$PICK" ]; then
		section "fuzz (brief)"
		log=$LOGDIR/fuzz.log
		(cd "$TOP" && timeout 600 bash tests/fuzz/run.sh quick) >"$log" 2>&1
		count_tap "fuzz" "$log" $?
	fi
fi

stop_stack
echo
if [ $FAIL -gt 0 ]; then
	echo "failures:"; printf '  %s\n' "${FAILED_NAMES[@]}"
fi
echo "make test took $(( $(date +%s) - T0 )) s"
echo "$PASS passed, $FAIL failed, $SKIP skipped"
[ $FAIL -eq 0 ]
