-- 040_reliability.sql: the stale-run sweep (store/run.c run_sweep) looks only at running runs.
CREATE INDEX IF NOT EXISTS runs_running ON askql.runs(id) WHERE status = 'running';
