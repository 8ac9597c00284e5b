-- 070_shared_memory.sql: what one analyst's run may give others (docs/shared-memory.md).  The query cache
-- holds only SQL the system generated for a question nobody edited.

-- A run an analyst shaped (edited SQL, edited plan, rejection, or a follow-up of such a run).
ALTER TABLE askql.runs ADD COLUMN IF NOT EXISTS edited boolean NOT NULL DEFAULT false;
UPDATE askql.runs r SET edited = true
	WHERE EXISTS (SELECT 1 FROM askql.steps s WHERE s.run_id = r.id AND s.kind = 'human'
	              AND s.name IN ('edit', 'plan_edit', 'reject'));
WITH RECURSIVE tainted AS (
	SELECT id FROM askql.runs WHERE edited
	UNION
	SELECT c.id FROM askql.runs c JOIN tainted t ON c.parent_id = t.id
)
UPDATE askql.runs SET edited = true WHERE id IN (SELECT id FROM tainted) AND NOT edited;

-- The query cache: the key now also has the asker's role scope and the model (agent/query_cache.c),
-- so every old key is dead; old entries may also hold edited SQL.  Start empty.
DELETE FROM askql.query_cache;
ALTER TABLE askql.query_cache ADD COLUMN IF NOT EXISTS scope text NOT NULL DEFAULT '';
ALTER TABLE askql.query_cache ADD COLUMN IF NOT EXISTS provider text NOT NULL DEFAULT '';
ALTER TABLE askql.query_cache ADD COLUMN IF NOT EXISTS model text NOT NULL DEFAULT '';
-- generated: an unedited run's SQL; accepted: an admin accepted the run's verified mark
ALTER TABLE askql.query_cache ADD COLUMN IF NOT EXISTS origin text NOT NULL DEFAULT 'generated'
	CHECK (origin IN ('generated', 'accepted'));
CREATE INDEX IF NOT EXISTS query_cache_run ON askql.query_cache(run_id);
