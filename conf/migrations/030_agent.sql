-- 030_agent.sql: the agent's shared state: query cache (LRU + TTL, shared by all workers) and the prompt lookup index.
CREATE TABLE IF NOT EXISTS askql.query_cache (
	key          text PRIMARY KEY,          -- md5(target | catalog version | mode | normalised question)
	target       text NOT NULL,
	catalog_version text NOT NULL DEFAULT '',
	mode         text NOT NULL,
	question     text NOT NULL,             -- normalised question
	sql          text NOT NULL,
	run_id       bigint REFERENCES askql.runs(id) ON DELETE SET NULL,
	hits         int NOT NULL DEFAULT 0,
	created_at   timestamptz NOT NULL DEFAULT now(),
	last_used_at timestamptz NOT NULL DEFAULT now(),
	expires_at   timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS query_cache_lru ON askql.query_cache(last_used_at);

-- prompt_get reads the highest active version of a name.
CREATE INDEX IF NOT EXISTS prompts_name_active ON askql.prompts(name, version DESC) WHERE active;
