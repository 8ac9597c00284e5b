-- 060_targets.sql: the registry of target databases (docs/targets.md).
-- One row per database askql may answer questions about.  conninfo is the indexing
-- connection (the owner or a role that can read the catalog); ro_conninfo the least-privilege
-- read-only role the executor uses (NULL: conninfo).  Both may hold a password: they are shown
-- back only masked and never logged.  ident is "host:port/dbname" as resolved from conninfo
-- (loopback and unix sockets count as "local"): a conninfo given on the command line resolves
-- to the target with the same ident, so one database never gets two catalogs.
CREATE TABLE IF NOT EXISTS askql.targets (
	name          text PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,62}$'),
	conninfo      text NOT NULL CHECK (length(conninfo) <= 2048),
	ro_conninfo   text CHECK (length(ro_conninfo) <= 2048),
	metadata_file text,
	docs_dir      text,
	ident         text NOT NULL UNIQUE,
	is_default    boolean NOT NULL DEFAULT false,
	from_conf     boolean NOT NULL DEFAULT false,   -- the configured target (askql.conf target_db)
	created_at    timestamptz NOT NULL DEFAULT now(),
	created_by    bigint
);
CREATE UNIQUE INDEX IF NOT EXISTS targets_one_default ON askql.targets ((true)) WHERE is_default;
CREATE INDEX IF NOT EXISTS runs_target ON askql.runs(target, created_at DESC);
