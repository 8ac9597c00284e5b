#!/usr/bin/env bash
# build_guard.sh: build the SQL guard fuzzer standalone (clang, libFuzzer + ASan + UBSan) into build/fuzz/fuzz_guard.
# Usage: tests/fuzz/build_guard.sh && build/fuzz/fuzz_guard -max_total_time=120 build/fuzz/corpus_guard tests/fuzz/seeds_guard
# Replay regressions: build/fuzz/fuzz_guard -runs=0 tests/fuzz/regress_guard/*
# Refresh seeds from the corpora: tests/fuzz/build_guard.sh --seeds
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$TOP/build/fuzz
mkdir -p "$OUT"
if [ "${1:-}" = --seeds ]; then
	# one seed file per record of the hostile and ordinary corpora
	python3 - "$TOP" <<'PY'
import os, sys, hashlib
top = sys.argv[1]
d = os.path.join(top, "tests/fuzz/seeds_guard")
os.makedirs(d, exist_ok=True)
for name in ("guard_hostile.sql", "guard_ordinary.sql"):
    recs = open(os.path.join(top, "tests/data", name), encoding="utf-8").read().split("\n-- @@\n")[1:]
    for r in recs:
        b = r.encode()
        open(os.path.join(d, hashlib.sha1(b).hexdigest()[:16]), "wb").write(b)
PY
fi
clang -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-I"$TOP/app" -I/usr/include/postgresql \
	"$TOP/tests/fuzz/fuzz_guard.c" "$TOP/app/sql/guard.c" "$TOP/app/util/json.c" "$TOP/app/util/sb.c" "$TOP/app/util/arena.c" \
	"$TOP/app/util/err.c" -lpg_query -lcjson -lm -o "$OUT/fuzz_guard"
echo "$OUT/fuzz_guard"
