-- 085_access_chain.sql: issue 27: the audit of data access (askql.access_audit) is chained by hash as the admin
-- audit log is (084_audit_chain.sql): each row holds the hash of the row before it (prev_hash) and its own (hash).
-- A BEFORE INSERT trigger sets, whatever the inserter wrote: the id (one more than the last row's), the time
-- (clock_timestamp()), the database role that inserted it (session_user), prev_hash and hash.  So the app role,
-- which writes these rows, cannot back-date a row, pass it off as another role's, slip it between two rows or
-- choose its hash; UPDATE, DELETE and TRUNCATE stay refused (081).  `askql audit verify` recomputes the chain and
-- checks it still reaches the heads `askql audit anchor` wrote outside the database (docs/privacy.md).
-- On a stack whose log already belongs to askql_audit, scripts/lib.sh (audit_migrate) applies this file as the
-- superuser, since only the table's owner may alter it.
ALTER TABLE askql.access_audit ADD COLUMN IF NOT EXISTS db_role text;
ALTER TABLE askql.access_audit ADD COLUMN IF NOT EXISTS prev_hash text;
ALTER TABLE askql.access_audit ADD COLUMN IF NOT EXISTS hash text;

-- the row in one canonical text form: a JSON array of its fields in a fixed order (jsonb's output is
-- canonical and tells null from '' and a field's end from a '|' inside it), time in UTC to the microsecond.
-- `askql audit verify` builds the same array itself (app/cli/cmd_audit.c), so a replaced function is caught.
CREATE OR REPLACE FUNCTION askql.access_row_hash(r askql.access_audit) RETURNS text
	LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
	SELECT encode(sha256(convert_to(jsonb_build_array(r.prev_hash, r.id,
		to_char(r.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), r.db_role, r.kind, r.channel, r.user_id,
		r.user_name, r.os_user, r.target, r.access_level, r.run_id, r.sql_fingerprint, r.sql_text, r.columns,
		to_jsonb(r.classes), r.row_count, r.format, r.ok, r.detail)::text, 'UTF8')), 'hex')
$$;

-- the owner gave up UPDATE and TRIGGER in 081; it takes them back inside this transaction only, to chain
-- the rows already there and to add the chain's trigger
GRANT UPDATE, TRIGGER ON askql.access_audit TO CURRENT_USER;

-- rows written before this migration are chained once, in id order, as they are (db_role unknown), with
-- the append-only trigger set aside inside this transaction
ALTER TABLE askql.access_audit DISABLE TRIGGER access_audit_no_change;
DO $$
DECLARE r askql.access_audit; p text := NULL;
BEGIN
	FOR r IN SELECT * FROM askql.access_audit ORDER BY id LOOP
		r.prev_hash := p;
		p := askql.access_row_hash(r);
		UPDATE askql.access_audit SET prev_hash = r.prev_hash, hash = p WHERE id = r.id;
	END LOOP;
END $$;
ALTER TABLE askql.access_audit ENABLE TRIGGER access_audit_no_change;

-- a new row follows the last one; the advisory lock (any role may take it) makes writers take turns until
-- they commit, so two rows never share a predecessor and ids follow the chain
CREATE OR REPLACE FUNCTION askql.access_audit_chain() RETURNS trigger
	LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE last_id bigint; last_hash text;
BEGIN
	PERFORM pg_advisory_xact_lock(hashtext('askql.access_audit chain'));
	SELECT a.id, a.hash INTO last_id, last_hash FROM askql.access_audit a ORDER BY a.id DESC LIMIT 1;
	NEW.id := coalesce(last_id, 0) + 1;
	NEW.at := clock_timestamp();
	NEW.db_role := session_user;
	NEW.prev_hash := last_hash;
	NEW.hash := askql.access_row_hash(NEW);
	RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS access_audit_chain ON askql.access_audit;
CREATE TRIGGER access_audit_chain BEFORE INSERT ON askql.access_audit
	FOR EACH ROW EXECUTE FUNCTION askql.access_audit_chain();

REVOKE UPDATE, TRIGGER ON askql.access_audit FROM CURRENT_USER;
