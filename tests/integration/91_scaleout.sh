#!/usr/bin/env bash
# 91_scaleout.sh: two worker pools on two sockets behind one nginx upstream; one pool killed under load loses no request beyond those in flight.
set -uo pipefail
: "${TOP:?}" "${VAR:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}" "${ASKQL_CONF:?}"
. "$TOP/scripts/lib.sh"

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && echo "# $2"; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//; s/"$//'; }

W=$(mktemp -d /tmp/askql-91.XXXXXX)
chmod 755 "$W"
for p in a b; do mkdir -p "$W/$p/run" "$W/$p/log"; done
mkdir -p "$W/run" "$W/log"
cleanup() { nginx_stop "$W"; pool_stop "$W/a"; pool_stop "$W/b"; rm -rf "$W"; }
trap cleanup EXIT

# two pools, each with its own socket, pid file and log (same app database: no state in a worker)
for p in a b; do
	{ grep -v '^log_path' "$ASKQL_CONF"; echo "log_path = $W/$p/log/askql.log"; } >"$W/$p/askql.conf"
done
chown -R "$SYSUSER" "$W"
pool_start "$W/a" 2
pool_start "$W/b" 2
check "pool a and pool b run on their own sockets" "[ -S '$W/a/run/askql.sock' ] && [ -S '$W/b/run/askql.sock' ] && kill -0 \$(cat '$W/a/run/pool.pid') && kill -0 \$(cat '$W/b/run/pool.pid')"

# one nginx, the upstream holding both sockets (conf/nginx.conf.in with a second server line)
PORT=$(free_port)
mkdir -p "$W/nginx"
sed -e "s|@VAR@|$W|g" -e "s|@TOP@|$TOP|g" -e "s|@PORT@|$PORT|g" \
	-e "s|server unix:@[A-Z]*SOCK@;|server unix:$W/a/run/askql.sock max_fails=1 fail_timeout=10s;\n\t\tserver unix:$W/b/run/askql.sock max_fails=1 fail_timeout=10s;|" \
	"$TOP/conf/nginx.conf.in" >"$W/nginx.conf"
check "every upstream (pages, runs, downloads) lists both pools" "[ \$(grep -c 'server unix:$W/[ab]/run/askql.sock' '$W/nginx.conf') = 6 ]" "$(grep -n 'server unix' "$W/nginx.conf")"
nginx -c "$W/nginx.conf" -p "$W/nginx"
B=http://127.0.0.1:$PORT
for _ in $(seq 50); do [ "$(curl -s -o /dev/null -w '%{http_code}' "$B/signin")" = 200 ] && break; sleep 0.1; done

# a session made through the shared nginx works on either pool (sessions live in PostgreSQL)
pre=$(curl -s -c "$W/cj" -b "$W/cj" "$B/signin" | field csrf)
curl -s -o /dev/null -c "$W/cj" -b "$W/cj" --data-urlencode "csrf=$pre" --data-urlencode "name=$ADMIN_USER" \
	--data-urlencode "password=$ADMIN_PASS" "$B/signin"
for _ in $(seq 20); do curl -s -o /dev/null -b "$W/cj" "$B/history"; done
na=$(grep -c 'GET /history 200' "$W/a/log/askql.log"); nb=$(grep -c 'GET /history 200' "$W/b/log/askql.log")
check "requests are spread over both pools, one session ($na on a, $nb on b)" "[ $na -gt 0 ] && [ $nb -gt 0 ]"

# load: 8 clients looping over pages for a bounded time; pool a is killed (supervisor and workers) mid-way
LOAD_S=${LOAD_S:-6}
client() { # client N: requests until the deadline; one status per line
	local end=$(( $(date +%s) + LOAD_S )) i=0 u
	while [ "$(date +%s)" -lt "$end" ]; do
		case $((i % 3)) in 0) u=/history;; 1) u=/;; 2) u=/history?page=2;; esac
		curl -s -o /dev/null -m 10 -w '%{http_code}\n' -b "$W/cj" "$B$u"
		i=$((i + 1))
	done >"$W/client.$1"
}
for c in $(seq 8); do client "$c" & done
sleep $((LOAD_S / 2))
apid=$(cat "$W/a/run/pool.pid")
aw=$(pgrep -P "$apid" -d ' ')
kill -KILL "$apid" $aw 2>/dev/null
ok "killed pool a (multiwatch $apid and workers $aw) under load"
wait
total=$(cat "$W"/client.* | wc -l)
bad=$(grep -vc '^200$' <(cat "$W"/client.*))
# in flight when the pool died: at most one request per worker of pool a
check "no request lost beyond those in flight: $bad of $total failed (at most 2 allowed)" "[ $total -gt 50 ] && [ $bad -le 2 ]" \
	"$(cat "$W"/client.* | sort | uniq -c | tr '\n' ' ')"
c=$(curl -s -o /dev/null -w '%{http_code}' -b "$W/cj" "$B/history")
check "after the kill, pool b serves everything (200)" "[ $c = 200 ]" "got $c"
after=$(grep -c 'GET' "$W/b/log/askql.log")
for _ in $(seq 10); do curl -s -o /dev/null -b "$W/cj" "$B/"; done
check "pool b took the new requests" "[ \$(grep -c 'GET' '$W/b/log/askql.log') -ge $((after + 10)) ]"

# pool a comes back: nginx uses it again after fail_timeout
pool_start "$W/a" 2
sleep 11
before=$(grep -c 'GET' "$W/a/log/askql.log")
for _ in $(seq 20); do curl -s -o /dev/null -b "$W/cj" "$B/history"; done
check "a restarted pool rejoins the upstream" "[ \$(grep -c 'GET' '$W/a/log/askql.log') -gt $before ]"
echo "1..$n"
