-- 083_run_level.sql: issue 27: the access level a run's rows were read at, so a stored result is shown only
-- to a viewer whose CURRENT level on the run's target allows it (app/pages/run_view.c run_level_check).
-- Set by the executor each time the run's SQL runs (agent_start, agent_resume, the critique graph) to the
-- least restrictive level it ever read at: a run that read rows at identified and was later resumed at
-- limited still holds identified rows.  NULL (runs made before this column, or runs that never reached
-- the database) counts as identified, the most revealing, so an old run is never shown below it.
ALTER TABLE askql.runs ADD COLUMN IF NOT EXISTS access_level text
	CHECK (access_level IN ('identified', 'limited', 'aggregate'));
