#!/usr/bin/env bash
# 55_download_abort.sh: a download whose query fails after bytes were sent must reach the client
# as an incomplete transfer (curl exit 18), never as a file that looks complete.
set -uo pipefail
psql_app() { psql -X -q -tA -h "$PGHOST" -p "$PGPORT" -U askql -d askql "$@"; }
tok=$("$ASKQL" user token "$ADMIN_USER" | tail -1)
# A run whose SQL divides by zero at row 50,000: the first ~1.6 MB stream before the error.
id=$(psql_app -c "INSERT INTO askql.runs(user_id, question, status, sql)
	SELECT id, 'mid-stream failure', 'ok', 'SELECT md5(g::text) || 1/(g-50000) AS x FROM generate_series(1,100000) g'
	FROM askql.users WHERE name = '$ADMIN_USER' RETURNING id" | head -1)
for fmt in csv json; do
	out=$(mktemp)
	code=$(curl -s -H "Authorization: Bearer $tok" -o "$out" -w '%{http_code}' "$BASE_URL/api/runs/$id/download?format=$fmt")
	rc=$?
	size=$(stat -c %s "$out")
	if [ "$rc" = 18 ] && [ "$size" -gt 0 ]; then
		echo "ok - $fmt: cut-off stream is an incomplete transfer (curl 18 after $size bytes, status $code)"
	else
		echo "not ok - $fmt: cut-off stream looked complete (curl $rc, $size bytes, status $code)"
	fi
	rm -f "$out"
done
# A failure before the first byte is an error status, not an attachment.
psql_app -c "UPDATE askql.runs SET sql = 'SELECT 1/(g-1) FROM generate_series(1,10) g' WHERE id = $id" >/dev/null
code=$(curl -s -H "Authorization: Bearer $tok" -o /dev/null -w '%{http_code}' "$BASE_URL/api/runs/$id/download?format=csv")
[ "$code" -ge 400 ] && echo "ok - failure before any byte is an error status ($code)" ||
	echo "not ok - failure before any byte gave $code"
# the worker that dropped the connection is still serving
code=$(curl -s -o /dev/null -w '%{http_code}' "$BASE_URL/signin")
[ "$code" = 200 ] && echo "ok - workers still serve after dropped connections" || echo "not ok - sign-in page gave $code"
psql_app -c "DELETE FROM askql.runs WHERE id = $id" >/dev/null
