-- 001_core.sql: the app schema: users, sessions, runs and steps, prompts, config audit, reports.
-- Numbering: 001-009 core/web, 010-019 catalog, 020-029 sql/export, 030-039 agent, 050-059 critique.
CREATE SCHEMA IF NOT EXISTS askql;

CREATE TABLE IF NOT EXISTS askql.users (
	id          bigserial PRIMARY KEY,
	name        text NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 64),
	pwhash      text NOT NULL,
	role        text NOT NULL CHECK (role IN ('analyst', 'admin')),
	lang        text NOT NULL DEFAULT 'ko' CHECK (lang IN ('ko', 'en')),
	token_hash  text UNIQUE,               -- sha256 hex of the API bearer token
	disabled    boolean NOT NULL DEFAULT false,
	created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS askql.sessions (
	id          text PRIMARY KEY,          -- sha256 hex of the cookie value
	user_id     bigint NOT NULL REFERENCES askql.users(id) ON DELETE CASCADE,
	csrf        text NOT NULL,
	created_at  timestamptz NOT NULL DEFAULT now(),
	expires_at  timestamptz NOT NULL,
	last_seen   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS sessions_user ON askql.sessions(user_id);

CREATE TABLE IF NOT EXISTS askql.signin_attempts (
	id          bigserial PRIMARY KEY,
	username    text NOT NULL,
	addr        text NOT NULL,
	ok          boolean NOT NULL,
	at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS signin_attempts_key ON askql.signin_attempts(username, addr, at);

-- A run is one question (or critique) and everything done for it.
CREATE TABLE IF NOT EXISTS askql.runs (
	id           bigserial PRIMARY KEY,
	user_id      bigint REFERENCES askql.users(id) ON DELETE SET NULL,
	parent_id    bigint REFERENCES askql.runs(id) ON DELETE SET NULL, -- follow-up of
	target       text NOT NULL DEFAULT 'demo',
	kind         text NOT NULL DEFAULT 'extract' CHECK (kind IN ('extract', 'react', 'critique')),
	step_mode    boolean NOT NULL DEFAULT false,
	provider     text NOT NULL DEFAULT 'builtin',
	question     text NOT NULL,
	status       text NOT NULL DEFAULT 'running'
	             CHECK (status IN ('running', 'paused', 'ok', 'error', 'unanswerable', 'stopped')),
	sql          text,                     -- the final SQL (guarded)
	fingerprint  text,
	normalized   text,
	tables       text[] NOT NULL DEFAULT '{}',
	columns      jsonb,                    -- [{"name":..,"type":..}]
	preview      jsonb,                    -- rows (arrays) of the first page
	row_count    bigint,
	truncated    boolean NOT NULL DEFAULT false,
	attempts     int NOT NULL DEFAULT 0,
	answer       text,                     -- one paragraph in words
	error        text,
	state        jsonb,                    -- what a paused run needs to resume
	verified     boolean NOT NULL DEFAULT false,
	worker_pid   int,
	heartbeat_at timestamptz,
	created_at   timestamptz NOT NULL DEFAULT now(),
	updated_at   timestamptz NOT NULL DEFAULT now(),
	finished_at  timestamptz
);
CREATE INDEX IF NOT EXISTS runs_user_created ON askql.runs(user_id, created_at DESC);
CREATE INDEX IF NOT EXISTS runs_created ON askql.runs(created_at DESC);
CREATE INDEX IF NOT EXISTS runs_fingerprint ON askql.runs(fingerprint);
CREATE INDEX IF NOT EXISTS runs_status ON askql.runs(status);

-- A step is one node, tool call, policy rewrite or human decision of a run.
CREATE TABLE IF NOT EXISTS askql.steps (
	id          bigserial PRIMARY KEY,
	run_id      bigint NOT NULL REFERENCES askql.runs(id) ON DELETE CASCADE,
	seq         int NOT NULL,
	kind        text NOT NULL CHECK (kind IN ('node', 'tool', 'policy', 'human', 'llm', 'info')),
	name        text NOT NULL,
	status      text NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'error', 'skipped', 'degraded', 'pending')),
	input       jsonb,
	output      jsonb,
	prompt      text,
	raw         text,                      -- raw LLM text
	rewrite     text,                      -- policy rewrite applied, if any
	error       text,
	ms          double precision,
	tokens_in   int,
	tokens_out  int,
	created_at  timestamptz NOT NULL DEFAULT now(),
	UNIQUE (run_id, seq)
);

-- History is the runs table seen by the history page.
CREATE OR REPLACE VIEW askql.history AS
	SELECT id, user_id, target, kind, question, status, sql, fingerprint, tables,
	       row_count, attempts, verified, created_at, finished_at
	FROM askql.runs;

CREATE TABLE IF NOT EXISTS askql.prompts (
	id          bigserial PRIMARY KEY,
	name        text NOT NULL,             -- file name without .xml
	version     int NOT NULL,
	body        text NOT NULL,
	author      text,
	note        text,
	active      boolean NOT NULL DEFAULT true,
	created_at  timestamptz NOT NULL DEFAULT now(),
	UNIQUE (name, version)
);

CREATE TABLE IF NOT EXISTS askql.config (
	name        text PRIMARY KEY,
	value       text NOT NULL,
	updated_by  text,
	updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS askql.audit (
	id          bigserial PRIMARY KEY,
	user_id     bigint,
	action      text NOT NULL,
	detail      jsonb,
	at          timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS askql.reports (
	id          bigserial PRIMARY KEY,
	run_id      bigint NOT NULL REFERENCES askql.runs(id) ON DELETE CASCADE,
	case_ref    text,
	body        jsonb NOT NULL,
	created_at  timestamptz NOT NULL DEFAULT now()
);
