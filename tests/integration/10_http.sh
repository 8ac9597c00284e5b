#!/usr/bin/env bash
# 10_http.sh: the HTTP core through nginx: redirects, sign-in, 404/405/413/400, headers, static files, sessions.
set -uo pipefail
: "${BASE_URL:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && echo "# $2"; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//; s/"$//'; }

# the start page sends a stranger to sign-in, remembering where they were going
curl -s -D "$T/h" -o /dev/null "$BASE_URL/"
check "start page redirects to sign-in (303)" "grep -q '^HTTP/1.1 303' '$T/h' && grep -qi '^location: /signin?next=%2F' '$T/h'" "$(head -1 "$T/h")"

curl -s -c "$T/cj" -b "$T/cj" -D "$T/h" "$BASE_URL/signin" >"$T/signin.html"
check "sign-in page renders" "grep -q 'action=\"/signin\"' '$T/signin.html'"
for h in "content-security-policy: default-src 'self'" "x-content-type-options: nosniff" "frame-ancestors 'none'" \
         "referrer-policy:" "cache-control: no-store" "content-type: text/html; charset=utf-8"; do
	check "header present: $h" "grep -qi \"$h\" '$T/h'"
done
pre=$(field csrf <"$T/signin.html")

# wrong password: 401 and the form again, no session cookie
# an unknown name (a wrong password for the admin would count towards its sign-in limit)
c=$(code -c "$T/cj" -b "$T/cj" --data-urlencode "csrf=$pre" --data-urlencode "name=nobody$RANDOM" \
	--data-urlencode "password=wrong-$RANDOM" "$BASE_URL/signin")
check "wrong name or password refused (401)" "[ $c = 401 ]" "got $c"
check "no session after a failed sign-in" "! grep -q askql_sid '$T/cj'"

curl -s -c "$T/cj" -b "$T/cj" -D "$T/h" -o /dev/null --data-urlencode "csrf=$pre" --data-urlencode "name=$ADMIN_USER" \
	--data-urlencode "password=$ADMIN_PASS" --data-urlencode "next=/history" "$BASE_URL/signin"
check "sign-in works and goes to next (303 /history)" "grep -qi '^location: /history' '$T/h'" "$(grep -i location "$T/h")"
check "session cookie is HttpOnly and SameSite=Strict" "grep -i '^set-cookie: askql_sid=' '$T/h' | grep -qi 'httponly' && grep -i '^set-cookie: askql_sid=' '$T/h' | grep -qi 'samesite=strict'"
c=$(code -b "$T/cj" "$BASE_URL/")
check "signed-in start page (200)" "[ $c = 200 ]" "got $c"
curl -s -b "$T/cj" "$BASE_URL/" >"$T/ask.html"
check "start page has the question box" "grep -q 'name=\"question\"' '$T/ask.html' && grep -q 'name=\"mode\"' '$T/ask.html'"

# 404 from one place, leaking nothing of the request
curl -s -b "$T/cj" -D "$T/h" "$BASE_URL/no/such/page%3Cscript%3E" >"$T/404.html"
check "unknown path is 404" "grep -q '^HTTP/1.1 404' '$T/h'"
check "404 page does not echo the path" "! grep -qi 'no/such\\|script' '$T/404.html'"
check "404 page has the security headers" "grep -qi 'x-content-type-options: nosniff' '$T/h'"
c=$(code -b "$T/cj" "$BASE_URL/runs/999999999")
check "a run that does not exist is 404" "[ $c = 404 ]" "got $c"

# methods
c=$(code -X DELETE -b "$T/cj" "$BASE_URL/history"); check "DELETE is 405" "[ $c = 405 ]" "got $c"
c=$(code -X PUT -b "$T/cj" "$BASE_URL/"); check "PUT is 405" "[ $c = 405 ]" "got $c"
c=$(code -X PATCH -b "$T/cj" "$BASE_URL/nowhere"); check "PATCH anywhere is 405" "[ $c = 405 ]" "got $c"
c=$(code -I -b "$T/cj" "$BASE_URL/"); check "HEAD of a page is 200" "[ $c = 200 ]" "got $c"

# limits and encodings
head -c 1500000 /dev/zero | tr '\0' a >"$T/big"
c=$(code -b "$T/cj" --data-binary @"$T/big" -H 'Content-Type: application/x-www-form-urlencoded' "$BASE_URL/runs")
check "oversized body is 413" "[ $c = 413 ]" "got $c"
c=$(code -b "$T/cj" "$BASE_URL/history?q=%C3%28")
check "invalid UTF-8 in the query string is 400" "[ $c = 400 ]" "got $c"
c=$(code -b "$T/cj" "$BASE_URL/history?q=%ED%A0%80")
check "a UTF-16 surrogate in UTF-8 is 400" "[ $c = 400 ]" "got $c"
csrf=$(field csrf <"$T/ask.html")
c=$(code -b "$T/cj" --data-binary "csrf=$csrf&question=%FF%FE" -H 'Content-Type: application/x-www-form-urlencoded' "$BASE_URL/runs")
check "invalid UTF-8 in a form is 400" "[ $c = 400 ]" "got $c"
c=$(code -b "$T/cj" "$BASE_URL/history?q=%zz")
check "a broken percent escape is 400" "[ $c = 400 ]" "got $c"
# (no cookie here: curl itself refuses to send cookies with a request line this long)
c=$(code "$BASE_URL/history?q=$(head -c 9000 /dev/zero | tr '\0' a)")
check "an over-long query string is refused (413/414)" "[ $c = 413 ] || [ $c = 414 ]" "got $c"
c=$(code -b "$T/cj" "$BASE_URL/history?page=abc")
check "a parameter failing its declaration is 400" "[ $c = 400 ]" "got $c"
c=$(code -b "$T/cj" "$BASE_URL/history?q=%ED%95%9C%EA%B8%80")
check "Korean in the query string is fine (200)" "[ $c = 200 ]" "got $c"

# multipart forms parse like urlencoded ones
c=$(code -b "$T/cj" -F "csrf=$csrf" -F "lang=en" -F "next=/" "$BASE_URL/lang")
check "multipart/form-data POST accepted (303)" "[ $c = 303 ]" "got $c"
curl -s -b "$T/cj" "$BASE_URL/" >"$T/ask_en.html"
check "language switch is remembered (English page)" "grep -q '<html lang=\"en\">' '$T/ask_en.html'"
curl -s -o /dev/null -b "$T/cj" -F "csrf=$csrf" -F "lang=ko" -F "next=/" "$BASE_URL/lang"
curl -s -b "$T/cj" "$BASE_URL/" >"$T/ask_ko.html"
check "and back to Korean" "grep -q '<html lang=\"ko\">' '$T/ask_ko.html' && grep -q '질문' '$T/ask_ko.html'"

# static files come from nginx with a cache lifetime
curl -s -D "$T/h" -o "$T/css" "$BASE_URL/static/app.css"
check "static stylesheet served" "grep -q '^HTTP/1.1 200' '$T/h' && grep -qi 'content-type: text/css' '$T/h' && grep -q 'table-wrap' '$T/css'"
check "static files are cacheable" "grep -qi 'cache-control: max-age' '$T/h' || grep -qi '^expires:' '$T/h'"
c=$(code "$BASE_URL/static/app.js"); check "static script served" "[ $c = 200 ]" "got $c"

# sign-out ends the session on the server
curl -s -o /dev/null -b "$T/cj" -c "$T/cj2" --data-urlencode "csrf=$csrf" "$BASE_URL/signout"
sid=$(grep askql_sid "$T/cj" | awk '{print $7}')
c=$(code -b "askql_sid=$sid" "$BASE_URL/history")
check "after sign-out the old cookie no longer works (303 to sign-in)" "[ $c = 303 ]" "got $c"

echo "1..$n"
