-- 003_web_search.sql: trigram indexes so history search (ILIKE on question and SQL) stays fast with 100k runs.
-- pg_trgm is a trusted extension: the database owner may create it.  Without it search still works (seq scan).
DO $$
BEGIN
	CREATE EXTENSION IF NOT EXISTS pg_trgm;
EXCEPTION WHEN others THEN
	RAISE NOTICE 'pg_trgm not available (%): history search uses sequential scans', SQLERRM;
END $$;

DO $$
BEGIN
	IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
		EXECUTE 'CREATE INDEX IF NOT EXISTS runs_question_trgm ON askql.runs USING gin (question gin_trgm_ops)';
		EXECUTE 'CREATE INDEX IF NOT EXISTS runs_sql_trgm ON askql.runs USING gin (sql gin_trgm_ops)';
	END IF;
END $$;
