#!/usr/bin/env bash
# 05_render.sh: `askql render` end to end: partials from the template's directory, escaping of hostile values, errors.
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
T=$(mktemp -d /tmp/askql_render.XXXXXX)
trap 'rm -rf "$T"' EXIT
check() { if [ "$2" = "$3" ]; then echo "ok - $1"; else echo "not ok - $1"; printf '  want: %q\n  got:  %q\n' "$2" "$3"; fi; }

printf '<ul>\n  {{>row}}\n</ul>\n{{^rows}}none{{/rows}}' > "$T/page.mustache"
printf '{{#rows}}\n<li title="{{name}}">{{name}} {{n}}</li>\n{{/rows}}\n' > "$T/row.mustache"
cat > "$T/data.json" <<'JSON'
{"rows": [{"name": "<script>alert(1)</script>", "n": 1.210}, {"name": "\"><img src=x onerror=alert(1)>", "n": 85}]}
JSON
want=$'<ul>\n  <li title="&lt;script&gt;alert(1)&lt;/script&gt;">&lt;script&gt;alert(1)&lt;/script&gt; 1.21</li>\n  <li title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;">&quot;&gt;&lt;img src=x onerror=alert(1)&gt; 85</li>\n</ul>'
got=$("$ASKQL" render "$T/page.mustache" "$T/data.json")
check "render with a partial, hostile values escaped (exit $?)" "$want" "$got"

got=$(echo '{"rows": []}' | "$ASKQL" render "$T/page.mustache" -)
check "data from stdin, inverted section (exit $?)" $'<ul>\n</ul>\nnone' "$got"

printf 'a\n{{#open}}\n' > "$T/bad.mustache"
err=$("$ASKQL" render "$T/bad.mustache" "$T/data.json" 2>&1 >/dev/null; echo "rc=$?")
check "unclosed section is an error with its line" $'askql render: '"$T"$'/bad.mustache: parse error: line 2: unclosed section \'open\'\nrc=1' "$err"

printf '{' > "$T/broken.json"
"$ASKQL" render "$T/page.mustache" "$T/broken.json" >/dev/null 2>&1
check "invalid JSON data exits 1" 1 $?
"$ASKQL" render "$T/page.mustache" >/dev/null 2>&1
check "missing argument is a usage error" 2 $?
