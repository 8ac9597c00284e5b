#!/usr/bin/env bash
# 27_access_chain.sh: issue 27: the audit of data access (askql.access_audit) is chained by hash like askql.audit
# (085_access_chain.sql); the trigger sets id, time, database role and hashes whatever the app role writes; the
# app role cannot change or remove rows; `askql audit verify` names the first broken link of each chain (a row
# deleted by the superuser past the triggers, a row edited in place) and a head anchored by `askql audit anchor`
# that was cut from the end; `askql audit anchor` writes a 0600 file and refuses to anchor a broken chain.
set -uo pipefail
: "${ASKQL:?}" "${VAR:?}"
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2" | head -20; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
q() { psql -X -q -tA -d askql -v ON_ERROR_STOP=1 "$@"; }
# as the superuser past every trigger (what the triggers cannot stop)
su_replica() { psql -X -q -tA -d askql -v ON_ERROR_STOP=1 -c "SET session_replication_role = replica; $1" 2>&1; }
app() { PGPASSFILE=$VAR/pgpass psql -X -q -tA -U askql_app -d askql -v ON_ERROR_STOP=1 "$@" 2>&1; }
ANCHOR=$(awk -F' = ' '$1 == "audit_anchor_file" { print $2 }' "$VAR/askql.conf")
: "${ANCHOR:=$VAR/audit.anchor}"

# ---- the trigger writes id, time, role and hashes; the app role's values for them are ignored
LAST=$(q -c "SELECT coalesce(max(id), 0) FROM askql.access_audit")
out=$(app -c "INSERT INTO askql.access_audit (id, at, db_role, prev_hash, hash, kind, channel, target)
	OVERRIDING SYSTEM VALUE VALUES (9000000000, '2001-01-01', 'postgres', 'forged-prev', 'forged-hash', 'view', 'web', 'chain27-a')")
row=$(q -F'|' -c "SELECT id = $LAST + 1, at > now() - interval '5 minutes', db_role, prev_hash IS NOT DISTINCT FROM
	(SELECT hash FROM askql.access_audit WHERE id = $LAST), length(hash) FROM askql.access_audit WHERE target = 'chain27-a'")
check "the app role's id, time, role, prev_hash and hash are replaced by the trigger's (next id, now, askql_app, the last row's hash)" \
	"[ '$row' = 't|t|askql_app|t|64' ]" "got '$row'; $out"
app -c "INSERT INTO askql.access_audit (kind, channel, target, detail) VALUES ('view', 'web', 'chain27-b', '{\"n\":1}'),
	('view', 'web', 'chain27-b', '{\"n\":2}'), ('view', 'web', 'chain27-b', '{\"n\":3}'), ('view', 'web', 'chain27-b', '{\"n\":4}')" >/dev/null
check "new rows are chained: each holds the hash of the row before it, ids follow one another" \
	"[ \"\$(q -c \"SELECT count(*) FROM (SELECT id, prev_hash, lag(hash) OVER (ORDER BY id) AS b, lag(id) OVER (ORDER BY id) AS bi FROM askql.access_audit) x WHERE id > $LAST AND (prev_hash IS DISTINCT FROM b OR id <> bi + 1)\")\" = 0 ] && [ \"\$(q -c \"SELECT count(*) FROM askql.access_audit WHERE hash IS NULL\")\" = 0 ]"
check "rows made before the migration are chained too (no row without a hash)" \
	"[ \"\$(q -c \"SELECT count(*) FROM askql.access_audit WHERE hash IS NULL OR hash !~ '^[0-9a-f]{64}\$'\")\" = 0 ]"

# ---- the app role cannot change or remove rows, nor the chain's machinery
ID=$(q -c "SELECT max(id) FROM askql.access_audit")
for stmt in "UPDATE askql.access_audit SET hash = 'x' WHERE id = $ID" "DELETE FROM askql.access_audit WHERE id = $ID" \
	"TRUNCATE askql.access_audit"; do
	out=$(app -c "$stmt")
	check "app role: ${stmt%% *} refused" "grep -qiE 'permission denied|append-only' <<<\"\$out\"" "$out"
done
out=$(app -c "ALTER TABLE askql.access_audit DISABLE TRIGGER access_audit_chain")
check "app role: disabling the chain's trigger refused" "grep -qiE 'permission denied|must be owner' <<<\"\$out\"" "$out"
out=$(app -c "DROP FUNCTION askql.access_row_hash(askql.access_audit) CASCADE")
check "app role: dropping the hash function refused" "grep -qiE 'permission denied|must be owner|append-only' <<<\"\$out\"" "$out"
out=$(app -c "CREATE OR REPLACE FUNCTION askql.access_row_hash(r askql.access_audit) RETURNS text LANGUAGE sql AS 'SELECT r.hash'")
check "app role: replacing the hash function refused" "grep -qiE 'permission denied|must be owner' <<<\"\$out\"" "$out"
out=$(app -c "DROP FUNCTION askql.audit_row_hash(text, bigint, timestamptz, bigint, text, jsonb) CASCADE")
check "app role: dropping askql.audit's hash function refused" "grep -qiE 'permission denied|must be owner|append-only' <<<\"\$out\"" "$out"

# ---- verify: intact
out=$("$ASKQL" audit verify 2>&1); rc=$?
check "askql audit verify: both chains intact (exit 0)" \
	"[ $rc = 0 ] && grep -q '^askql.audit: .*chain intact' <<<\"\$out\" && grep -q '^askql.access_audit: .*chain intact' <<<\"\$out\"" "$out"

# ---- a row deleted by the superuser past the triggers: the next row is named
B1=$(q -c "SELECT id FROM askql.access_audit WHERE target = 'chain27-b' AND detail->>'n' = '2'")
B2=$(q -c "SELECT id FROM askql.access_audit WHERE target = 'chain27-b' AND detail->>'n' = '3'")
B3=$(q -c "SELECT id FROM askql.access_audit WHERE target = 'chain27-b' AND detail->>'n' = '4'")
SAVED=$(q -c "SELECT row_to_json(a)::text FROM askql.access_audit a WHERE id = $B2")
out=$(su_replica "DELETE FROM askql.access_audit WHERE id = $B2")
check "the superuser deletes row $B2 with session_replication_role = replica" \
	"[ \"\$(q -c 'SELECT count(*) FROM askql.access_audit WHERE id = $B2')\" = 0 ]" "$out"
out=$("$ASKQL" audit verify 2>&1); rc=$?
check "verify exits 1 naming the row after the deleted one ($B3) in askql.access_audit" \
	"[ $rc = 1 ] && grep -q '^askql.access_audit: chain broken at row $B3 .*prev_hash is not the hash of the row before it (the row before it now is $B1)' <<<\"\$out\" && grep -q '^askql.audit: .*chain intact' <<<\"\$out\"" "$out"
su_replica "INSERT INTO askql.access_audit OVERRIDING SYSTEM VALUE SELECT * FROM json_populate_record(NULL::askql.access_audit, '$SAVED')" >/dev/null
out=$("$ASKQL" audit verify 2>&1); rc=$?
check "the row put back as it was: intact again" "[ $rc = 0 ]" "$out"

# ---- a row edited in place: that row is named
su_replica "UPDATE askql.access_audit SET row_count = 999 WHERE id = $B1" >/dev/null
out=$("$ASKQL" audit verify 2>&1); rc=$?
check "an in-place edit of row $B1: verify exits 1 naming it" \
	"[ $rc = 1 ] && grep -q '^askql.access_audit: chain broken at row $B1 .*does not match its fields' <<<\"\$out\"" "$out"
# ...even with a hash the superuser recomputed with the database's own function: the next link breaks
su_replica "UPDATE askql.access_audit a SET hash = askql.access_row_hash(a) WHERE id = $B1" >/dev/null
out=$("$ASKQL" audit verify 2>&1); rc=$?
check "the edit with its hash recomputed: verify names the next row ($B2)" \
	"[ $rc = 1 ] && grep -q '^askql.access_audit: chain broken at row $B2 ' <<<\"\$out\"" "$out"
su_replica "UPDATE askql.access_audit a SET row_count = NULL WHERE id = $B1; UPDATE askql.access_audit a SET hash = askql.access_row_hash(a) WHERE id = $B1" >/dev/null
out=$("$ASKQL" audit verify 2>&1); rc=$?
check "put back: intact again" "[ $rc = 0 ]" "$out"

# ---- a replaced hash function (the superuser's, say) does not vouch for itself: verify computes its own
su_replica "ALTER FUNCTION askql.access_row_hash(askql.access_audit) RENAME TO access_row_hash_saved;
	CREATE FUNCTION askql.access_row_hash(r askql.access_audit) RETURNS text LANGUAGE sql AS 'SELECT r.hash';" >/dev/null
su_replica "UPDATE askql.access_audit SET row_count = 7 WHERE id = $B1" >/dev/null
out=$("$ASKQL" audit verify 2>&1); rc=$?
check "with the database's hash function replaced by one that returns the stored hash, the edit is still named" \
	"[ $rc = 1 ] && grep -q '^askql.access_audit: chain broken at row $B1 ' <<<\"\$out\"" "$out"
su_replica "UPDATE askql.access_audit SET row_count = NULL WHERE id = $B1; DROP FUNCTION askql.access_row_hash(askql.access_audit);
	ALTER FUNCTION askql.access_row_hash_saved(askql.access_audit) RENAME TO access_row_hash;" >/dev/null
out=$("$ASKQL" audit verify 2>&1); rc=$?
check "function back: intact again" "[ $rc = 0 ]" "$out"

# ---- anchors: tail truncation
out=$("$ASKQL" audit anchor 2>&1); rc=$?
HEAD=$(q -c "SELECT max(id) FROM askql.access_audit")
check "askql audit anchor exits 0 and appends both heads (access_audit's is row $HEAD)" \
	"[ $rc = 0 ] && tail -2 '$ANCHOR' | grep -q ' askql.access_audit $HEAD [0-9a-f]\{64\}\$' && tail -2 '$ANCHOR' | grep -q ' askql.audit [0-9]* [0-9a-f]\{64\}\$'" "$out"
check "the anchor file is mode 0600" "[ \"\$(stat -c %a '$ANCHOR')\" = 600 ]" "$(stat -c %a "$ANCHOR")"
out=$("$ASKQL" audit verify 2>&1); rc=$?
check "verify checks the anchors: intact" "[ $rc = 0 ] && grep -q '^askql.access_audit: [0-9]* anchor(s) checked, 0 failed' <<<\"\$out\"" "$out"
SAVED=$(q -c "SELECT row_to_json(a)::text FROM askql.access_audit a WHERE id = $HEAD")
su_replica "DELETE FROM askql.access_audit WHERE id = $HEAD" >/dev/null
out=$("$ASKQL" audit verify 2>&1); rc=$?
check "the anchored head cut from the end: the chain alone is intact, but verify exits 1 naming the head" \
	"[ $rc = 1 ] && grep -q '^askql.access_audit: .*chain intact' <<<\"\$out\" && grep -q '^askql.access_audit: anchored head row $HEAD .* is gone' <<<\"\$out\"" "$out"
out=$("$ASKQL" audit anchor 2>&1); rc=$?
check "anchor refuses while verify fails, and writes nothing" "[ $rc = 1 ] && ! tail -2 '$ANCHOR' | grep -q ' askql.access_audit $((HEAD - 1)) '" "$out"
su_replica "INSERT INTO askql.access_audit OVERRIDING SYSTEM VALUE SELECT * FROM json_populate_record(NULL::askql.access_audit, '$SAVED')" >/dev/null
out=$("$ASKQL" audit verify 2>&1); rc=$?
check "the head put back: intact again" "[ $rc = 0 ]" "$out"

# ---- a malformed anchor file is an error, not a pass
cp -p "$ANCHOR" "$VAR/anchor.saved"
echo "garbage line" >>"$ANCHOR"
out=$("$ASKQL" audit verify 2>&1); rc=$?
check "a bad line in the anchor file: verify exits 1 naming the line" "[ $rc = 1 ] && grep -q 'line [0-9]* is not' <<<\"\$out\"" "$out"
mv -f "$VAR/anchor.saved" "$ANCHOR"
out=$("$ASKQL" audit verify 2>&1); rc=$?
check "and intact once it is gone" "[ $rc = 0 ]" "$out"
echo "1..$n"
