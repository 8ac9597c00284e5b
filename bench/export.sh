#!/usr/bin/env bash
# export.sh: export speed and peak memory: askql CSV/XLSX against psql COPY, pandas, openpyxl and libxlsxwriter alone.
# Needs the env bench/run.sh gives (ASKQL_CONF, PGHOST, PGPORT, PGUSER); ROWS overrides 1,000,000.
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
ROWS=${ROWS:-1000000}
DB=${BENCH_DB:-demo}
PY=/usr/bin/python3     # Debian's python3 with pandas/psycopg2/openpyxl (not the one first on PATH)
SQL="SELECT g, g*1.5, md5(g::text), timestamp '2024-01-01' + g * interval '1 second' FROM generate_series(1,$ROWS) g"
work=$(mktemp -d "${TMPDIR:-/tmp}/askql_bench_export.XXXXXX")
trap 'rm -rf "$work"' EXIT

mkdir -p "$TOP/build/bench"
cc -O2 -o "$TOP/build/bench/xlsx_alone" "$TOP/bench/xlsx_alone.c" -lxlsxwriter || exit 1

declare -A SEC RSS CPU
RUNS=${RUNS:-1}   # RUNS=3: best wall time of three (a shared machine is noisy), largest RSS
# measure NAME CMD...: wall seconds and peak RSS (MB) of CMD via /usr/bin/time -v
measure() {
	local name=$1 i s r c; shift
	SEC[$name]=; RSS[$name]=0; CPU[$name]=
	if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then   # ONLY="psql_copy askql_csv"
		SEC[$name]=n/a; RSS[$name]=n/a; CPU[$name]=n/a
		return
	fi
	for ((i = 0; i < RUNS; i++)); do
		if ! /usr/bin/time -v -o "$work/$name.time" "$@" >"$work/$name.out" 2>"$work/$name.err"; then
			echo "  $name failed: $(tail -3 "$work/$name.err")" >&2
			SEC[$name]=NaN; RSS[$name]=NaN; CPU[$name]=NaN
			return
		fi
		s=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; printf "%.2f", s}' "$work/$name.time")
		r=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$work/$name.time")
		c=$(awk -F': ' '/User time|System time/ {s+=$2} END {printf "%.2f", s}' "$work/$name.time")
		if [ -z "${SEC[$name]}" ] || awk -v a="$s" -v b="${SEC[$name]}" 'BEGIN { exit !(a < b) }'; then
			SEC[$name]=$s; CPU[$name]=$c
		fi
		[ "$r" -gt "${RSS[$name]}" ] && RSS[$name]=$r
	done
}

have_py() { $PY -c "import $1" 2>/dev/null; }

# warm the server's caches and the page cache once, untimed
psql -XAtq -d "$DB" -c "\\copy ($SQL) TO '/dev/null' CSV" >/dev/null 2>&1

measure psql_copy psql -XAtq -d "$DB" -c "\\copy ($SQL) TO '$work/psql.csv' CSV"
measure askql_csv "$ASKQL" export --sql "$SQL" --format csv --max-rows "$ROWS" -o "$work/askql.csv"
if have_py pandas && have_py psycopg2; then
	measure pandas_csv $PY -W ignore -c "
import sys, pandas, psycopg2
c = psycopg2.connect(dbname='$DB')
pandas.read_sql(sys.argv[1], c).to_csv(sys.argv[2], index=False)" "$SQL" "$work/pandas.csv"
else
	SEC[pandas_csv]=n/a; RSS[pandas_csv]=n/a; CPU[pandas_csv]=n/a
fi
measure askql_xlsx "$ASKQL" export --sql "$SQL" --format xlsx --max-rows "$ROWS" -o "$work/askql.xlsx"
measure xlsxwriter_alone "$TOP/build/bench/xlsx_alone" "$work/alone.xlsx" "$ROWS"
if have_py openpyxl && have_py psycopg2; then
	# write-only workbook fed by a server-side cursor: openpyxl's own low-memory path
	measure openpyxl_xlsx $PY -W ignore -c "
import sys, openpyxl, psycopg2
c = psycopg2.connect(dbname='$DB')
cur = c.cursor(name='bench'); cur.itersize = 5000
cur.execute(sys.argv[1])
wb = openpyxl.Workbook(write_only=True); ws = wb.create_sheet('data')
ws.append([d[0] for d in cur.description] if cur.description else [])
for row in cur:
    ws.append(row)
wb.save(sys.argv[2])" "$SQL" "$work/openpyxl.xlsx"
else
	SEC[openpyxl_xlsx]=n/a; RSS[openpyxl_xlsx]=n/a; CPU[openpyxl_xlsx]=n/a
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a+0 > 0 && b+0 > 0) printf "%.2f", a / b; else print "n/a" }'; }
goal() { awk -v v="$1" -v op="$2" -v g="$3" 'BEGIN { if (v !~ /^[0-9.]+$/) print "n/a"; else if ((op == "<=" && v+0 <= g) || (op == ">=" && v+0 >= g)) print "met"; else print "MISSED" }'; }

echo "rows: $ROWS; runs: $RUNS (best wall time); query: $SQL"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) (CPU = user+sys of the client process, not the server)"
printf "%-22s %9s %9s %13s\n" "program" "seconds" "CPU s" "peak RSS MB"
for n in psql_copy askql_csv pandas_csv askql_xlsx xlsxwriter_alone openpyxl_xlsx; do
	printf "%-22s %9s %9s %13s\n" "$n" "${SEC[$n]}" "${CPU[$n]}" "${RSS[$n]}"
done
r1=$(ratio "${SEC[askql_csv]}" "${SEC[psql_copy]}")
r2=$(ratio "${SEC[openpyxl_xlsx]}" "${SEC[askql_xlsx]}")
r3=$(ratio "${SEC[askql_xlsx]}" "${SEC[xlsxwriter_alone]}")
rss=${RSS[askql_csv]}
[[ "$rss" =~ ^[0-9]+$ ]] || rss=${RSS[askql_xlsx]}
[[ "${RSS[askql_xlsx]}" =~ ^[0-9]+$ ]] && [ "${RSS[askql_xlsx]}" -gt "$rss" ] && rss=${RSS[askql_xlsx]}
echo
printf "%-48s %8s  %s\n" "askql CSV / psql COPY (goal <= 1.2)" "$r1" "$(goal "$r1" '<=' 1.2)"
printf "%-48s %8s  %s\n" "openpyxl / askql XLSX (goal >= 4)" "$r2" "$(goal "$r2" '>=' 4)"
printf "%-48s %8s  %s\n" "askql XLSX / libxlsxwriter alone (goal <= 1.2)" "$r3" "$(goal "$r3" '<=' 1.2)"
printf "%-48s %8s  %s\n" "askql peak RSS MB (goal < 64)" "$rss" "$(goal "$rss" '<=' 63.99)"
# sanity: the exports hold every row
if [ -f "$work/askql.csv" ]; then
	lines=$(wc -l <"$work/askql.csv")
	[ "$lines" -eq $((ROWS + 1)) ] || echo "WARNING: askql.csv has $lines lines, expected $((ROWS + 1))"
fi
