-- 080_history_trash.sql: a deleted run is first only hidden (deleted_at), so its owner can undo the
-- delete for conf history_undo_s seconds; run_purge (app/store/run.c) removes it for good afterwards.
ALTER TABLE askql.runs ADD COLUMN IF NOT EXISTS deleted_at timestamptz;
ALTER TABLE askql.runs ADD COLUMN IF NOT EXISTS deleted_by bigint REFERENCES askql.users(id) ON DELETE SET NULL;
CREATE INDEX IF NOT EXISTS runs_deleted_at ON askql.runs(deleted_at) WHERE deleted_at IS NOT NULL;
