-- 002_web.sql: what the web pages add: history search indexes and catalog edits made on the admin page.
-- History filters: per user and status, newest first; table filter through the tables array.
CREATE INDEX IF NOT EXISTS runs_user_status_created ON askql.runs(user_id, status, created_at DESC);
CREATE INDEX IF NOT EXISTS runs_tables ON askql.runs USING gin (tables);
CREATE INDEX IF NOT EXISTS runs_verified ON askql.runs(created_at DESC) WHERE verified;
CREATE INDEX IF NOT EXISTS audit_at ON askql.audit(at DESC);

-- Synonyms and value mappings added by an admin; the indexer merges them into the catalog.
CREATE TABLE IF NOT EXISTS askql.catalog_edits (
	id          bigserial PRIMARY KEY,
	kind        text NOT NULL CHECK (kind IN ('synonym', 'mapping')),
	tbl         text NOT NULL,
	col         text NOT NULL DEFAULT '',
	phrase      text NOT NULL,
	value       text NOT NULL DEFAULT '',
	created_at  timestamptz NOT NULL DEFAULT now()
);
