-- 084_audit_chain.sql: issue 27: the admin audit log (askql.audit) is append-only as askql.access_audit is,
-- and its rows are chained by hash: each row holds the hash of the row before it (prev_hash) and its own
-- (hash = sha256 of prev_hash and the row's fields, askql.audit_row_hash).  Triggers stop UPDATE, DELETE
-- and TRUNCATE for everyone; what they cannot stop (a superuser with session_replication_role = replica,
-- or one who drops the triggers) `askql audit verify` finds as the first row whose hash or link is wrong.
ALTER TABLE askql.audit ADD COLUMN IF NOT EXISTS prev_hash text;
ALTER TABLE askql.audit ADD COLUMN IF NOT EXISTS hash text;

-- the row's fields in one fixed text form: time in UTC to the microsecond, jsonb in its canonical output
CREATE OR REPLACE FUNCTION askql.audit_row_hash(prev text, id bigint, at timestamptz, user_id bigint,
                                                action text, detail jsonb) RETURNS text
	LANGUAGE sql IMMUTABLE AS $$
	SELECT encode(sha256(convert_to(coalesce(prev, '') || '|' || id::text || '|' ||
		to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') || '|' || coalesce(user_id::text, '') || '|' ||
		action || '|' || coalesce(detail::text, ''), 'UTF8')), 'hex')
$$;

-- rows written before this migration are chained once, in id order
DO $$
DECLARE r record; p text := NULL;
BEGIN
	IF EXISTS (SELECT 1 FROM askql.audit WHERE hash IS NULL) THEN
		FOR r IN SELECT * FROM askql.audit ORDER BY id LOOP
			UPDATE askql.audit SET prev_hash = p,
				hash = askql.audit_row_hash(p, r.id, r.at, r.user_id, r.action, r.detail) WHERE id = r.id;
			p := askql.audit_row_hash(p, r.id, r.at, r.user_id, r.action, r.detail);
		END LOOP;
	END IF;
END $$;

-- a new row links to the last one; the advisory lock makes writers take turns, so two rows never
-- share a predecessor (any role may take it; LOCK TABLE would need more than INSERT)
CREATE OR REPLACE FUNCTION askql.audit_chain() RETURNS trigger
	LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_advisory_xact_lock(hashtext('askql.audit chain'));
	SELECT a.hash INTO NEW.prev_hash FROM askql.audit a ORDER BY a.id DESC LIMIT 1;
	-- ids are given out before commit order: a row is chained after the last row committed, and
	-- its id must follow that row's, so a later id is taken when needed
	IF NEW.id <= coalesce((SELECT max(a.id) FROM askql.audit a), 0) THEN
		NEW.id := nextval(pg_get_serial_sequence('askql.audit', 'id'));
	END IF;
	NEW.hash := askql.audit_row_hash(NEW.prev_hash, NEW.id, NEW.at, NEW.user_id, NEW.action, NEW.detail);
	RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS audit_chain ON askql.audit;
CREATE TRIGGER audit_chain BEFORE INSERT ON askql.audit FOR EACH ROW EXECUTE FUNCTION askql.audit_chain();

CREATE OR REPLACE FUNCTION askql.audit_append_only() RETURNS trigger
	LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'askql.audit is append-only: % refused', TG_OP
		USING ERRCODE = 'insufficient_privilege';
END $$;
DROP TRIGGER IF EXISTS audit_no_change ON askql.audit;
CREATE TRIGGER audit_no_change BEFORE UPDATE OR DELETE ON askql.audit
	FOR EACH ROW EXECUTE FUNCTION askql.audit_append_only();
DROP TRIGGER IF EXISTS audit_no_truncate ON askql.audit;
CREATE TRIGGER audit_no_truncate BEFORE TRUNCATE ON askql.audit
	FOR EACH STATEMENT EXECUTE FUNCTION askql.audit_append_only();
