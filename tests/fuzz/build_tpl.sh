#!/usr/bin/env bash
# build_tpl.sh: build the template fuzzer standalone (clang, libFuzzer + ASan + UBSan) into build/fuzz/fuzz_tpl.
# Usage: tests/fuzz/build_tpl.sh && build/fuzz/fuzz_tpl -max_total_time=180 build/fuzz/corpus_tpl tests/fuzz/seeds_tpl
# Replay regressions: build/fuzz/fuzz_tpl -runs=0 tests/fuzz/regress_tpl/*
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$TOP/build/fuzz
mkdir -p "$OUT"
clang -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-I"$TOP/app" \
	"$TOP/tests/fuzz/fuzz_tpl.c" "$TOP/app/util/tpl.c" "$TOP/app/util/sb.c" "$TOP/app/util/arena.c" \
	"$TOP/app/util/err.c" -lcjson -lm -o "$OUT/fuzz_tpl"
echo "$OUT/fuzz_tpl"
