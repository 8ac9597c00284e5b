-- 081_access_audit.sql: issue 16 item 5: every access to a target's rows (a run's SQL executed, a
-- result page shown, a download or CLI export, the audit log's own CSV) is one row of an
-- append-only log (app/store/access.c; README "Privacy").
-- Append-only is PostgreSQL's doing, twice: UPDATE, DELETE and TRUNCATE are revoked from everyone,
-- the owner included, and triggers raise on them whoever runs them (a superuser, or an owner that
-- granted itself the right back, still meets the trigger).  `make run` then gives the table to the
-- NOLOGIN role askql_audit (scripts/lib.sh audit_lockdown), so the app role keeps INSERT and SELECT
-- only and can neither drop the triggers nor grant itself more.
CREATE TABLE IF NOT EXISTS askql.access_audit (
	id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	at           timestamptz NOT NULL DEFAULT clock_timestamp(),
	kind         text NOT NULL CHECK (kind IN ('run', 'view', 'download', 'export', 'audit_export')),
	channel      text NOT NULL CHECK (channel IN ('web', 'api', 'cli')),
	-- who: the askql user (id and name as they were; no foreign key, so no later change of
	-- askql.users ever has to touch this table), or none for the CLI, with the OS user
	user_id      bigint,
	user_name    text,
	os_user      text,
	target       text,
	-- the access level the rows were read under; every user is 'identified' until access levels
	-- (issue 16 item 2) exist
	access_level text NOT NULL DEFAULT 'identified' CHECK (access_level IN ('identified', 'limited', 'aggregate')),
	run_id       bigint,
	sql_fingerprint text,
	sql_text     text,
	-- the target's columns the SQL reads, [{"table":..,"column":..,"class":..}], class from
	-- phi_column_class() where the catalog knows the column; classes: the distinct classes, to filter
	columns      jsonb NOT NULL DEFAULT '[]',
	classes      text[] NOT NULL DEFAULT '{}',
	row_count    bigint,
	format       text CHECK (format IN ('page', 'csv', 'zip', 'json', 'ndjson', 'xlsx')),
	ok           boolean NOT NULL DEFAULT true,
	detail       jsonb
);
CREATE INDEX IF NOT EXISTS access_audit_at ON askql.access_audit (at DESC);
CREATE INDEX IF NOT EXISTS access_audit_user ON askql.access_audit (user_name, at DESC);
CREATE INDEX IF NOT EXISTS access_audit_target ON askql.access_audit (target, at DESC);
CREATE INDEX IF NOT EXISTS access_audit_classes ON askql.access_audit USING gin (classes);

CREATE OR REPLACE FUNCTION askql.access_audit_append_only() RETURNS trigger
	LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'askql.access_audit is append-only: % refused', TG_OP
		USING ERRCODE = 'insufficient_privilege';
END $$;
DROP TRIGGER IF EXISTS access_audit_no_change ON askql.access_audit;
CREATE TRIGGER access_audit_no_change BEFORE UPDATE OR DELETE ON askql.access_audit
	FOR EACH ROW EXECUTE FUNCTION askql.access_audit_append_only();
DROP TRIGGER IF EXISTS access_audit_no_truncate ON askql.access_audit;
CREATE TRIGGER access_audit_no_truncate BEFORE TRUNCATE ON askql.access_audit
	FOR EACH STATEMENT EXECUTE FUNCTION askql.access_audit_append_only();

REVOKE ALL ON askql.access_audit FROM PUBLIC;
REVOKE UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON askql.access_audit FROM CURRENT_USER;
