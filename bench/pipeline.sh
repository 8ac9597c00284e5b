#!/usr/bin/env bash
# pipeline.sh: agent pipeline overhead per run with a fake LLM answering at once (goal: < 20 ms median
# for a 5-step ReAct run on the demo db).  Overhead = run wall time minus time waiting for the LLM.
# Needs the env bench/run.sh gives (ASKQL_CONF, PGHOST, PGPORT, PGUSER); N overrides 200 runs.
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
FAKE_LLM=${FAKE_LLM:-$TOP/tests/lib/fake_llm.py}
N=${N:-200}
B=$(mktemp -d "${TMPDIR:-/tmp}/askql_bench_pipeline.XXXXXX")
FAKE_PID=
trap '[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$B"' EXIT

cc -O2 -g -std=c11 -D_GNU_SOURCE -I"$TOP/app" -I/usr/include/postgresql -I/usr/include/libxml2 \
	-o "$B/bench_pipeline" "$TOP/bench/bench_pipeline.c" "${ASKQL_LIB:-$TOP/build/libaskql.a}" \
	-lfcgi -lpq -lcurl -lcjson -lxml2 -lpg_query -lxlsxwriter -lz -lcrypt -lpthread -lm ||
	{ echo "bench_pipeline: build failed"; exit 1; }

# The ReAct script: 5 tool calls per run (search_tables, search_columns, explain, preview, submit).
SQL="SELECT dt, name, result FROM lab_data_table WHERE caseid = 1 ORDER BY dt"
python3 - "$SQL" "$((N + 3))" >"$B/react.json" <<'PY'
import json, sys
sql, n = sys.argv[1], int(sys.argv[2])
def call(tool, p, v):
    return {"text": "<reasoning>step</reasoning><tool_call><name>%s</name><parameters><%s><![CDATA[%s]]></%s>"
            "</parameters></tool_call>" % (tool, p, v, p), "usage": {"prompt_tokens": 900, "completion_tokens": 40}}
one = [call("search_tables", "query", "potassium lab results"), call("search_columns", "query", "potassium"),
       call("explain", "sql", sql), call("execute_sql_preview", "sql", sql), call("submit_sql", "sql", sql)]
print(json.dumps(one * n))
PY
python3 - "$SQL" "$((N + 3))" >"$B/extract.json" <<'PY'
import json, sys
print(json.dumps([{"text": json.dumps({"reasoning": "r", "sql": sys.argv[1]})}] * int(sys.argv[2])))
PY
python3 "$FAKE_LLM" --port-file "$B/port" &
FAKE_PID=$!
for _ in $(seq 50); do [ -s "$B/port" ] && break; sleep 0.1; done
FAKE=http://127.0.0.1:$(cat "$B/port")
export ASKQL_LLM_BASE_URL=$FAKE/v1 ASKQL_LLM_API_KEY=sk-bench ASKQL_LLM_STREAM=0

echo "runs of one question; overhead = wall time - LLM wait (ms); steps = persisted steps per run"
echo "| run                          |    N | steps | ovh p50  | ovh p99  | wall p50 | wall p99 | llm ms | ok      |"
echo "|------------------------------|------|-------|----------|----------|----------|----------|--------|---------|"
curl -s -XPOST --data-binary @"$B/react.json" "$FAKE/__script" >/dev/null
"$B/bench_pipeline" "$N" react openai "lab results of case 1" "react, fake LLM, 5 tools"
curl -s -XPOST --data-binary @"$B/extract.json" "$FAKE/__script" >/dev/null
"$B/bench_pipeline" "$N" extract openai "lab results of case 1" "extract, fake LLM"
"$B/bench_pipeline" "$N" react builtin "average age by sex" "react, builtin (5 tools)"
"$B/bench_pipeline" "$N" extract builtin "average age by sex" "extract, builtin"
echo "goal: react 5-tool overhead p50 < 20 ms"
