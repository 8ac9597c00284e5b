-- 070_shared_memory.sql: what one analyst's run may give others (docs/shared-memory.md).  The query cache
-- and the verified few-shot examples hold only SQL the system generated for a question nobody edited,
-- or SQL an admin accepted; an analyst's "verified" mark is a proposal an admin reviews.

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

-- The review of a verified mark: NULL (none), proposed (by an analyst), accepted or rejected (by an
-- admin).  runs.verified stays the flag everything else reads, and is true exactly when accepted.
ALTER TABLE askql.runs ADD COLUMN IF NOT EXISTS verify_state text
	CHECK (verify_state IN ('proposed', 'accepted', 'rejected'));
ALTER TABLE askql.runs ADD COLUMN IF NOT EXISTS verify_proposed_by bigint REFERENCES askql.users(id) ON DELETE SET NULL;
ALTER TABLE askql.runs ADD COLUMN IF NOT EXISTS verify_proposed_at timestamptz;
ALTER TABLE askql.runs ADD COLUMN IF NOT EXISTS verify_reviewed_by bigint REFERENCES askql.users(id) ON DELETE SET NULL;
ALTER TABLE askql.runs ADD COLUMN IF NOT EXISTS verify_reviewed_at timestamptz;
CREATE INDEX IF NOT EXISTS runs_verify_state ON askql.runs(verify_state, created_at DESC)
	WHERE verify_state IS NOT NULL;

-- Marks made before this migration: an admin's own run counts as accepted by that admin; every
-- other one was never reviewed and goes back to the admins as a proposal.  Its few-shot example
-- is removed unless an accepted run holds the same pair (it comes back when an admin accepts).
UPDATE askql.runs r SET verify_state = 'accepted', verify_reviewed_by = r.user_id, verify_reviewed_at = now()
	WHERE r.verified AND EXISTS (SELECT 1 FROM askql.users u WHERE u.id = r.user_id AND u.role = 'admin');
WITH gone AS (
	DELETE FROM askql.cat_verified v
	WHERE EXISTS (SELECT 1 FROM askql.runs r WHERE r.verified AND r.verify_state IS NULL
	              AND r.target = v.target AND r.question = v.question AND r.sql = v.sql)
	  AND NOT EXISTS (SELECT 1 FROM askql.runs a WHERE a.verify_state = 'accepted'
	                  AND a.target = v.target AND a.question = v.question AND a.sql = v.sql)
	RETURNING v.target
)
UPDATE askql.cat_targets SET verified_version = verified_version + 1 WHERE name IN (SELECT target FROM gone);
UPDATE askql.runs SET verified = false, verify_state = 'proposed', verify_proposed_by = user_id,
	verify_proposed_at = now()
	WHERE verified AND verify_state IS NULL;
ALTER TABLE askql.runs ADD CONSTRAINT runs_verified_is_accepted
	CHECK (verified = (verify_state IS NOT DISTINCT FROM 'accepted'));

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
