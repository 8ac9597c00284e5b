-- 050_critique.sql: critique reports: lookups by run and the newest-first report list.
CREATE INDEX IF NOT EXISTS reports_run ON askql.reports(run_id);
CREATE INDEX IF NOT EXISTS reports_created ON askql.reports(created_at DESC, id DESC);
