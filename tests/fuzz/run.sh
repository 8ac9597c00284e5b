#!/usr/bin/env bash
# run.sh: build every tests/fuzz/fuzz_*.c as a libFuzzer target (clang, ASan+UBSan) against an
# instrumented copy of libaskql, replay its regression inputs, then fuzz for a while.
# `quick` (make test): 20 s per target; `long` (make fuzz): FUZZ_SECONDS (default 600) per target.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
MODE=${1:-quick}
SECS=20; [ "$MODE" = long ] && SECS=${FUZZ_SECONDS:-600}
OUT=$TOP/build/fuzz
mkdir -p "$OUT/obj"
CFL="-g -O1 -fsanitize=fuzzer-no-link,address,undefined -std=c11 -D_GNU_SOURCE -I$TOP/app -I/usr/include/postgresql -I/usr/include/libxml2"
LIBS="-lfcgi -lpq -lcurl -lcjson -lxml2 -lpg_query -lxlsxwriter -lz -lcrypt -lpthread -lm"

# instrumented library: every app source except the program entry points
objs=()
for src in $(ls "$TOP"/app/*/*.c | grep -v -e '/app/cli/' -e '/app/http/main.c'); do
	o=$OUT/obj/$(echo "${src#$TOP/}" | tr / _).o
	if [ ! -f "$o" ] || [ "$src" -nt "$o" ]; then
		clang $CFL -c "$src" -o "$o" || { echo "not ok - fuzz build: $src"; exit 1; }
	fi
	objs+=("$o")
done

for f in "$TOP"/tests/fuzz/fuzz_*.c; do
	[ -f "$f" ] || continue
	name=$(basename "$f" .c)
	bin=$OUT/$name
	if ! clang $CFL -fsanitize=fuzzer "$f" "${objs[@]}" $LIBS -o "$bin" 2>"$OUT/$name.build.log"; then
		echo "not ok - $name builds (see $OUT/$name.build.log)"; continue
	fi
	reg=$TOP/tests/fuzz/regress_${name#fuzz_}
	corpus=$OUT/corpus_$name; mkdir -p "$corpus"
	seeds=$TOP/tests/fuzz/seeds_${name#fuzz_}
	if [ -d "$reg" ] && [ -n "$(ls -A "$reg" 2>/dev/null)" ]; then
		if "$bin" -runs=0 "$reg"/* >"$OUT/$name.regress.log" 2>&1; then echo "ok - $name regression inputs"
		else echo "not ok - $name regression inputs (see $OUT/$name.regress.log)"; fi
	fi
	dirs=("$corpus"); [ -d "$seeds" ] && dirs+=("$seeds")
	if (cd "$OUT" && "$bin" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$OUT/$name-" "${dirs[@]}") >"$OUT/$name.log" 2>&1; then
		echo "ok - $name fuzzed ${SECS}s ($(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$OUT/$name.log" | grep -oE '[0-9]+$') execs)"
	else
		echo "not ok - $name found a crash (see $OUT/$name.log; artifacts $OUT/$name-*)"
	fi
done
