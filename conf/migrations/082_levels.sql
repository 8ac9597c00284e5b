-- 082_levels.sql: access levels per user and target (issue 16 item 2).  A user's level decides the
-- PostgreSQL role their SQL runs as: identified (every column), limited (no direct identifiers,
-- quasi-identifiers only through generalising views), aggregate (as limited; aggregates only).
-- A user without a row here is identified (the behaviour before levels existed).
CREATE TABLE IF NOT EXISTS askql.user_levels (
	user_id     bigint NOT NULL REFERENCES askql.users(id) ON DELETE CASCADE,
	target      text NOT NULL,
	level       text NOT NULL CHECK (level IN ('identified', 'limited', 'aggregate')),
	set_by      bigint REFERENCES askql.users(id) ON DELETE SET NULL,
	set_at      timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (user_id, target)
);
-- What `askql target levels` made in a target database: one role per level, the views' schema, the
-- executor's login role that was made a member of the three, and when the views were last refreshed.
CREATE TABLE IF NOT EXISTS askql.target_levels (
	target      text PRIMARY KEY,
	role_prefix text NOT NULL,
	view_schema text NOT NULL,
	ro_user     text NOT NULL,
	applied_at  timestamptz NOT NULL DEFAULT now(),
	catalog_version bigint NOT NULL DEFAULT 0
);
