-- guard_hostile.sql: statements the SQL guard must refuse, one record each, records separated by a line "-- @@".
-- An optional "-- expect: TEXT" line in a record names a part of the reason the guard must give.
-- @@
-- expect: more than one statement
SELECT 1; DELETE FROM lab_data_table
-- @@
-- expect: more than one statement
SELECT caseid FROM clinical_data_table; DROP TABLE clinical_data_table;
-- @@
-- expect: more than one statement
SELECT 1;
UPDATE vital_data_table SET hr = 0
-- @@
-- expect: more than one statement
SELECT 1 /* ; */ ; INSERT INTO diagnosis_table VALUES (1, 'x', 'y')
-- @@
-- expect: more than one statement
SELECT '--' ; TRUNCATE lab_data_table
-- @@
-- expect: more than one statement
SELECT $$;$$; DELETE FROM vital_data_table
-- @@
-- expect: more than one statement
SELECT 1 -- comment
; CREATE TABLE x (a int)
-- @@
-- expect: more than one statement
SELECT 'a'';DROP TABLE lab_data_table;--'; DROP TABLE lab_data_table
-- @@
-- expect: more than one statement
select 1;select 2
-- @@
-- expect: more than one statement
SELECT 1;;;; COMMIT
-- @@
-- expect: more than one statement
BEGIN; SELECT 1; COMMIT
-- @@
-- expect: more than one statement
SELECT E'\';DELETE FROM lab_data_table;--'; DELETE FROM lab_data_table
-- @@
-- expect: more than one statement
SELECT U&'\0027'; DELETE FROM lab_data_table
-- @@
-- expect: more than one statement
SELECT 1 /* nested /* comment */ still */; VACUUM
-- @@
-- expect: more than one statement
WITH a AS (SELECT 1) SELECT * FROM a; SET ROLE askql
-- @@
-- expect: INSERT
INSERT INTO diagnosis_table (subject_id, code, name) VALUES (1, 'x', 'y')
-- @@
-- expect: INSERT
INSERT INTO lab_data_table SELECT * FROM lab_data_table
-- @@
-- expect: UPDATE
UPDATE vital_data_table SET sbp = 0 WHERE caseid = 1
-- @@
-- expect: DELETE
DELETE FROM clinical_data_table
-- @@
-- expect: DELETE
DELETE FROM lab_data_table USING clinical_data_table c WHERE c.caseid = lab_data_table.caseid
-- @@
-- expect: MERGE
MERGE INTO diagnosis_table d USING clinical_data_table c ON d.subject_id = c.subjectid WHEN MATCHED THEN DELETE
-- @@
-- expect: TRUNCATE
TRUNCATE vital_data_table
-- @@
-- expect: DROP
DROP TABLE clinical_data_table
-- @@
-- expect: CREATE TABLE
CREATE TABLE stolen AS SELECT * FROM clinical_data_table
-- @@
-- expect: CREATE TABLE
CREATE TABLE t (a int)
-- @@
-- expect: ALTER TABLE
ALTER TABLE lab_data_table ADD COLUMN x int
-- @@
-- expect: CREATE VIEW
CREATE VIEW v AS SELECT 1
-- @@
-- expect: CREATE FUNCTION
CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ DELETE FROM lab_data_table RETURNING 1 $$
-- @@
-- expect: CREATE INDEX
CREATE INDEX ON lab_data_table (name)
-- @@
-- expect: GRANT
GRANT ALL ON lab_data_table TO PUBLIC
-- @@
-- expect: GRANT
REVOKE SELECT ON lab_data_table FROM askql_reader
-- @@
-- expect: COPY
COPY lab_data_table TO '/tmp/x.csv'
-- @@
-- expect: COPY
COPY (SELECT * FROM clinical_data_table) TO PROGRAM 'cat > /tmp/x'
-- @@
-- expect: COPY
COPY lab_data_table FROM STDIN
-- @@
-- expect: CALL
CALL some_procedure()
-- @@
-- expect: DO
DO $$ BEGIN DELETE FROM lab_data_table; END $$
-- @@
-- expect: DO
DO LANGUAGE plpgsql $body$ BEGIN PERFORM pg_sleep(10); END $body$
-- @@
-- expect: SET
SET statement_timeout = 0
-- @@
-- expect: SET
SET ROLE askql
-- @@
-- expect: SET
SET SESSION AUTHORIZATION askql
-- @@
-- expect: SET
RESET ALL
-- @@
-- expect: SET
SET search_path TO evil, public
-- @@
-- expect: SHOW
SHOW data_directory
-- @@
-- expect: LOCK
LOCK TABLE lab_data_table IN ACCESS EXCLUSIVE MODE
-- @@
-- expect: PREPARE
PREPARE p AS DELETE FROM lab_data_table
-- @@
-- expect: EXECUTE
EXECUTE p
-- @@
-- expect: LISTEN
LISTEN channel
-- @@
-- expect: NOTIFY
NOTIFY channel, 'payload'
-- @@
-- expect: VACUUM
VACUUM FULL lab_data_table
-- @@
-- expect: VACUUM
ANALYZE lab_data_table
-- @@
-- expect: EXPLAIN
EXPLAIN ANALYZE SELECT * FROM clinical_data_table
-- @@
-- expect: EXPLAIN
EXPLAIN (ANALYZE, BUFFERS) DELETE FROM lab_data_table
-- @@
-- expect: EXPLAIN
EXPLAIN SELECT 1
-- @@
-- expect: transaction control
BEGIN
-- @@
-- expect: transaction control
COMMIT
-- @@
-- expect: transaction control
START TRANSACTION READ WRITE
-- @@
-- expect: transaction control
SAVEPOINT s
-- @@
-- expect: transaction control
ROLLBACK
-- @@
-- expect: DECLARE CURSOR
DECLARE c CURSOR FOR SELECT 1
-- @@
-- expect: CHECKPOINT
CHECKPOINT
-- @@
-- expect: DISCARD
DISCARD ALL
-- @@
-- expect: LOAD
LOAD 'auto_explain'
-- @@
-- expect: ALTER SYSTEM
ALTER SYSTEM SET log_statement = 'none'
-- @@
-- expect: CREATE ROLE
CREATE ROLE evil SUPERUSER
-- @@
-- expect: CREATE EXTENSION
CREATE EXTENSION dblink
-- @@
-- expect: REFRESH
REFRESH MATERIALIZED VIEW mv
-- @@
-- expect: REINDEX
REINDEX TABLE lab_data_table
-- @@
-- expect: COMMENT
COMMENT ON TABLE lab_data_table IS 'owned'
-- @@
-- expect: data-modifying
WITH d AS (DELETE FROM lab_data_table RETURNING *) SELECT count(*) FROM d
-- @@
-- expect: data-modifying
WITH u AS (UPDATE vital_data_table SET hr = 0 RETURNING caseid) SELECT * FROM u
-- @@
-- expect: data-modifying
WITH i AS (INSERT INTO diagnosis_table VALUES (1, 'a', 'b') RETURNING *) SELECT 1
-- @@
-- expect: data-modifying
WITH a AS (SELECT 1), d AS (DELETE FROM lab_data_table RETURNING 1) SELECT * FROM a
-- @@
-- expect: data-modifying
SELECT * FROM (WITH d AS (DELETE FROM lab_data_table RETURNING *) SELECT * FROM d) s
-- @@
-- expect: data-modifying
SELECT caseid FROM clinical_data_table WHERE caseid IN (WITH d AS (DELETE FROM lab_data_table RETURNING caseid) SELECT caseid FROM d)
-- @@
-- expect: data-modifying
WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3), x AS (UPDATE vital_data_table SET hr = hr RETURNING 1) SELECT * FROM r
-- @@
-- expect: data-modifying
WITH a AS (WITH b AS (DELETE FROM lab_data_table RETURNING 1) SELECT * FROM b) SELECT * FROM a
-- @@
-- expect: data-modifying
SELECT (WITH d AS (DELETE FROM lab_data_table RETURNING 1) SELECT count(*) FROM d)
-- @@
-- expect: data-modifying
SELECT 1 UNION ALL (WITH m AS (INSERT INTO diagnosis_table VALUES (1,'a','b') RETURNING 1) SELECT * FROM m)
-- @@
-- expect: data-modifying
SELECT * FROM clinical_data_table c, LATERAL (WITH d AS (DELETE FROM lab_data_table l WHERE l.caseid = 1 RETURNING 1) SELECT * FROM d) x
-- @@
-- expect: data-modifying
WITH "Delete" AS (DELETE FROM lab_data_table RETURNING *) SELECT 1
-- @@
-- expect: data-modifying
WITH m AS (MERGE INTO diagnosis_table d USING clinical_data_table c ON false WHEN NOT MATCHED THEN DO NOTHING) SELECT 1
-- @@
-- expect: SELECT INTO
SELECT * INTO stolen FROM clinical_data_table
-- @@
-- expect: SELECT INTO
SELECT caseid INTO TEMP t FROM lab_data_table
-- @@
-- expect: SELECT INTO
SELECT 1 INTO UNLOGGED TABLE t
-- @@
-- expect: FOR UPDATE
SELECT * FROM clinical_data_table FOR UPDATE
-- @@
-- expect: FOR UPDATE
SELECT * FROM clinical_data_table FOR SHARE NOWAIT
-- @@
-- expect: FOR UPDATE
SELECT * FROM lab_data_table FOR NO KEY UPDATE SKIP LOCKED
-- @@
-- expect: FOR UPDATE
SELECT * FROM lab_data_table FOR KEY SHARE
-- @@
-- expect: FOR UPDATE
SELECT * FROM (SELECT * FROM lab_data_table FOR UPDATE) s
-- @@
-- expect: FOR UPDATE
WITH l AS (SELECT * FROM lab_data_table FOR UPDATE) SELECT * FROM l
-- @@
-- expect: FOR UPDATE
SELECT caseid FROM clinical_data_table WHERE EXISTS (SELECT 1 FROM lab_data_table FOR SHARE)
-- @@
-- expect: pg_sleep
SELECT pg_sleep(10)
-- @@
-- expect: pg_sleep
SELECT PG_SLEEP(10)
-- @@
-- expect: pg_sleep
SELECT pg_catalog.pg_sleep(10)
-- @@
-- expect: pg_sleep
SELECT "pg_sleep"(10)
-- @@
-- expect: pg_sleep
SELECT pg_catalog."pg_sleep"(10)
-- @@
-- expect: pg_sleep
SELECT U&"pg\005fsleep"(10)
-- @@
-- expect: pg_sleep
SELECT U&"pg!005fsleep" UESCAPE '!'(10)
-- @@
-- expect: pg_sleep
SELECT pg_sleep/**/(10)
-- @@
-- expect: pg_sleep
SELECT pg_sleep -- comment
(10)
-- @@
-- expect: pg_sleep
SELECT pg_sleep_for('10 seconds')
-- @@
-- expect: pg_sleep
SELECT pg_sleep_until(now() + interval '1 minute')
-- @@
-- expect: pg_sleep
SELECT caseid FROM clinical_data_table WHERE pg_sleep(1) IS NOT NULL
-- @@
-- expect: pg_sleep
SELECT caseid FROM clinical_data_table ORDER BY pg_sleep(1)
-- @@
-- expect: pg_sleep
SELECT department, count(*) FROM clinical_data_table GROUP BY department HAVING count(*) > 0 AND pg_sleep(1) IS NULL
-- @@
-- expect: pg_sleep
SELECT department FROM clinical_data_table GROUP BY department, pg_sleep(1)
-- @@
-- expect: pg_sleep
SELECT * FROM clinical_data_table c, LATERAL (SELECT pg_sleep(1)) s
-- @@
-- expect: pg_sleep
SELECT * FROM (VALUES (pg_sleep(1))) v(x)
-- @@
-- expect: pg_sleep
VALUES (1), (pg_sleep(1)::int)
-- @@
-- expect: pg_sleep
SELECT CAST(pg_sleep(1) AS text)
-- @@
-- expect: pg_sleep
SELECT pg_sleep(1)::text
-- @@
-- expect: pg_sleep
SELECT CASE WHEN true THEN pg_sleep(1) END
-- @@
-- expect: pg_sleep
SELECT coalesce(NULL, pg_sleep(1))
-- @@
-- expect: pg_sleep
SELECT count(*) FILTER (WHERE pg_sleep(1) IS NULL) FROM lab_data_table
-- @@
-- expect: pg_sleep
SELECT row_number() OVER (ORDER BY pg_sleep(1)) FROM lab_data_table
-- @@
-- expect: pg_sleep
SELECT * FROM lab_data_table LIMIT (SELECT 1 FROM pg_sleep(1))
-- @@
-- expect: pg_sleep
SELECT * FROM lab_data_table OFFSET (SELECT pg_sleep(1))::int
-- @@
-- expect: pg_sleep
SELECT * FROM pg_sleep(1)
-- @@
-- expect: pg_sleep
SELECT * FROM ROWS FROM (generate_series(1, 2), pg_sleep(1)) AS r(a, b)
-- @@
-- expect: pg_sleep
SELECT * FROM clinical_data_table c JOIN lab_data_table l ON l.caseid = c.caseid AND pg_sleep(1) IS NULL
-- @@
-- expect: pg_sleep
SELECT ARRAY[pg_sleep(1)]
-- @@
-- expect: pg_sleep
SELECT ROW(1, pg_sleep(1))
-- @@
-- expect: pg_sleep
SELECT greatest(1, (pg_sleep(1))::text::int)
-- @@
-- expect: pg_sleep
SELECT string_agg(name, ',' ORDER BY pg_sleep(0.1)::text) FROM lab_data_table
-- @@
-- expect: pg_sleep
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY pg_sleep(1)::text::float) FROM lab_data_table
-- @@
-- expect: pg_sleep
SELECT 1 WHERE EXISTS (SELECT 1 WHERE EXISTS (SELECT pg_sleep(1)))
-- @@
-- expect: pg_sleep
SELECT 1 UNION SELECT 2 FROM pg_sleep(1)
-- @@
-- expect: pg_sleep
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r, pg_sleep(0.01) WHERE n < 1000) SELECT * FROM r
-- @@
-- expect: pg_sleep
SELECT * FROM lab_data_table TABLESAMPLE SYSTEM ((SELECT 10 FROM pg_sleep(1)))
-- @@
-- expect: pg_sleep
SELECT format('%s', pg_sleep(1))
-- @@
-- expect: pg_sleep
SELECT generate_series(1, 3) WHERE 1 = ANY(SELECT 1 FROM pg_sleep(1))
-- @@
-- expect: pg_sleep
SELECT (SELECT pg_sleep(1)) IS DISTINCT FROM NULL
-- @@
-- expect: pg_sleep
SELECT x FROM generate_series(1, 2) x WINDOW w AS (ORDER BY pg_sleep(1))
-- @@
-- expect: pg_sleep
SELECT jsonb_build_object('a', pg_sleep(1))
-- @@
-- expect: pg_sleep
SELECT 1 FROM lab_data_table GROUP BY GROUPING SETS ((name), (pg_sleep(1)))
-- @@
-- expect: pg_sleep
SELECT concat_ws(',', VARIADIC ARRAY[pg_sleep(1)::text])
-- @@
-- expect: pg_sleep
SELECT make_interval(secs => (SELECT 1 FROM pg_sleep(1)))
-- @@
-- expect: pg_sleep
SELECT * FROM XMLTABLE('/a' PASSING xmlparse(document '<a/>') COLUMNS x text PATH pg_sleep(1)::text)
-- @@
-- expect: pg_read_file
SELECT pg_read_file('/etc/passwd')
-- @@
-- expect: pg_read_binary_file
SELECT pg_read_binary_file('postgresql.conf')
-- @@
-- expect: pg_ls_dir
SELECT * FROM pg_ls_dir('.')
-- @@
-- expect: pg_stat_file
SELECT (pg_stat_file('PG_VERSION')).size
-- @@
-- expect: pg_ls_logdir
SELECT * FROM pg_ls_logdir()
-- @@
-- expect: pg_current_logfile
SELECT pg_current_logfile()
-- @@
-- expect: lo_import
SELECT lo_import('/etc/passwd')
-- @@
-- expect: lo_export
SELECT lo_export(16385, '/tmp/owned')
-- @@
-- expect: lo_get
SELECT lo_get(16385)
-- @@
-- expect: lo_create
SELECT lo_create(0)
-- @@
-- expect: lowrite
SELECT lowrite(0, 'x')
-- @@
-- expect: dblink
SELECT * FROM dblink('dbname=demo', 'DELETE FROM lab_data_table') AS t(x text)
-- @@
-- expect: dblink_exec
SELECT dblink_exec('dbname=demo user=askql', 'DROP TABLE lab_data_table')
-- @@
-- expect: dblink_connect
SELECT public.dblink_connect('c', 'dbname=demo')
-- @@
-- expect: set_config
SELECT set_config('statement_timeout', '0', false)
-- @@
-- expect: set_config
SELECT set_config('default_transaction_read_only', 'off', false)
-- @@
-- expect: set_config
SELECT caseid FROM clinical_data_table WHERE set_config('role', 'askql', true) IS NOT NULL
-- @@
-- expect: current_setting
SELECT current_setting('askql.llm_api_key')
-- @@
-- expect: current_setting
SELECT current_setting('data_directory')
-- @@
-- expect: current_setting
SELECT current_setting('ssl_key_file')
-- @@
-- expect: current_setting
SELECT current_setting(name) FROM lab_data_table
-- @@
-- expect: current_setting
SELECT current_setting('time' || 'zone')
-- @@
-- expect: pg_terminate_backend
SELECT pg_terminate_backend(pid) FROM generate_series(1, 100) pid
-- @@
-- expect: pg_cancel_backend
SELECT pg_cancel_backend(12345)
-- @@
-- expect: nextval
SELECT nextval('some_seq')
-- @@
-- expect: setval
SELECT setval('some_seq', 1)
-- @@
-- expect: nextval
SELECT caseid, nextval('s'::regclass) FROM clinical_data_table
-- @@
-- expect: pg_advisory_lock
SELECT pg_advisory_lock(1)
-- @@
-- expect: pg_try_advisory_xact_lock
SELECT pg_try_advisory_xact_lock(42)
-- @@
-- expect: txid_current
SELECT txid_current()
-- @@
-- expect: pg_current_xact_id
SELECT pg_current_xact_id()
-- @@
-- expect: pg_notify
SELECT pg_notify('ch', 'payload')
-- @@
-- expect: query_to_xml
SELECT query_to_xml('DELETE FROM lab_data_table RETURNING 1', true, false, '')
-- @@
-- expect: query_to_xml
SELECT query_to_xml_and_xmlschema('SELECT 1', true, false, '')
-- @@
-- expect: table_to_xml
SELECT table_to_xml('pg_authid', true, false, '')
-- @@
-- expect: cursor_to_xml
SELECT cursor_to_xml('c', 10, true, false, '')
-- @@
-- expect: database_to_xml
SELECT database_to_xml(true, false, '')
-- @@
-- expect: schema_to_xml
SELECT schema_to_xml('public', true, false, '')
-- @@
-- expect: ts_stat
SELECT * FROM ts_stat('SELECT to_tsvector(name) FROM lab_data_table')
-- @@
-- expect: pg_reload_conf
SELECT pg_reload_conf()
-- @@
-- expect: pg_rotate_logfile
SELECT pg_rotate_logfile()
-- @@
-- expect: pg_switch_wal
SELECT pg_switch_wal()
-- @@
-- expect: pg_create_restore_point
SELECT pg_create_restore_point('x')
-- @@
-- expect: pg_logical_emit_message
SELECT pg_logical_emit_message(true, 'p', 'x')
-- @@
-- expect: pg_file_write
SELECT pg_file_write('x', 'y', false)
-- @@
-- expect: pg_promote
SELECT pg_promote()
-- @@
-- expect: pg_create_logical_replication_slot
SELECT pg_create_logical_replication_slot('s', 'test_decoding')
-- @@
-- expect: pg_stat_reset
SELECT pg_stat_reset()
-- @@
-- expect: setseed
SELECT setseed(0.5)
-- @@
-- expect: crosstab
SELECT * FROM crosstab('DELETE FROM lab_data_table RETURNING 1, 2, 3') AS ct(a int, b int, c int)
-- @@
-- expect: schema-qualified
SELECT evil.f()
-- @@
-- expect: schema-qualified
SELECT public.my_function(caseid) FROM clinical_data_table
-- @@
-- expect: denied function name
SELECT s.nextval FROM (SELECT 'some_seq'::regclass) s
-- @@
-- expect: denied function name
SELECT c.pg_sleep FROM clinical_data_table c
-- @@
-- expect: operator in schema
SELECT 1 OPERATOR(evil.+) 2
-- @@
-- expect: parameters
SELECT * FROM clinical_data_table WHERE caseid = $1
-- @@
-- expect: cross-database
SELECT * FROM otherdb.public.clinical_data_table
-- @@
-- expect: system catalog
SELECT * FROM pg_class
-- @@
-- expect: system catalog
SELECT * FROM pg_catalog.pg_roles
-- @@
-- expect: system catalog
SELECT * FROM information_schema.tables
-- @@
-- expect: password hashes
SELECT rolname, rolpassword FROM pg_authid
-- @@
-- expect: password hashes
SELECT * FROM pg_catalog.pg_shadow
-- @@
-- expect: password hashes
SELECT * FROM "pg_authid"
-- @@
-- expect: other sessions
SELECT query FROM pg_stat_activity
-- @@
-- expect: server settings
SELECT * FROM pg_settings WHERE name = 'data_directory'
-- @@
-- expect: system catalog
SELECT caseid FROM clinical_data_table WHERE caseid IN (SELECT oid::int FROM pg_proc)
-- @@
-- expect: system catalog
WITH x AS (SELECT * FROM pg_namespace) SELECT * FROM x
-- @@
-- expect: password hashes
WITH pg_authid AS (SELECT * FROM pg_authid) SELECT * FROM pg_authid
-- @@
-- expect: system catalog
SELECT * FROM pg_toast.pg_toast_2619
-- @@
-- expect: system catalog
SELECT * FROM pg_temp.scratch
-- @@
-- expect: system catalog
SELECT * FROM clinical_data_table c JOIN LATERAL (SELECT * FROM pg_user) u ON true
-- @@
-- expect: indexed catalog
SELECT * FROM secret_table
-- @@
-- expect: indexed catalog
SELECT * FROM clinical_data_table c JOIN hidden.patients p ON p.id = c.subjectid
-- @@
-- expect: indexed catalog
SELECT * FROM clinical_data_table WHERE caseid IN (SELECT caseid FROM audit_log)
-- @@
-- expect: indexed catalog
WITH t AS (SELECT * FROM t) SELECT * FROM t
-- @@
-- expect: syntax error
SELECT * FROM clinical_data_table /* unterminated comment
-- @@
-- expect: syntax error
SELECT 'unterminated
-- @@
-- expect: syntax error
SELECT $tag$ unterminated dollar quote $tagx$
-- @@
-- expect: syntax error
SELECT 1 FROM clinical_data_table WHERE caseid = 1' OR '1'='1
-- @@
-- expect: syntax error
'; DROP TABLE lab_data_table; --
-- @@
-- expect: more than one statement
SELECT * FROM lab_data_table WHERE name = '' OR 1=1 /*' AND 1=0 */; DELETE FROM lab_data_table; --'
-- @@
-- expect: more than one statement
SELECT $a$ $b$ ; $b$ $a$; DELETE FROM lab_data_table
-- @@
-- expect: pg_sleep
SELECT $$ DROP TABLE x $$, pg_sleep(1)
-- @@
-- expect: pg_sleep
SELECT /* comment with 'quote */ pg_sleep(1) /* and ; */
-- @@
-- expect: pg_sleep
SELECT E'\x27', pg_sleep(1)
-- @@
-- expect: pg_sleep
SELECT U&'d\0061t\+000061', pg_sleep(1)
-- @@
-- expect: empty statement
-- nothing but a comment
-- @@
-- expect: empty statement
;;;
-- @@
-- expect: pg_sleep
(SELECT 1) UNION ALL (SELECT pg_sleep(1)::text::int)
-- @@
-- expect: pg_sleep
TABLE clinical_data_table UNION ALL SELECT * FROM clinical_data_table WHERE pg_sleep(1) IS NULL
-- @@
-- expect: SELECT INTO
SELECT 1 AS a INTO x UNION SELECT 2
-- @@
-- expect: pg_advisory_xact_lock_shared
SELECT * FROM lab_data_table ORDER BY CASE WHEN pg_advisory_xact_lock_shared(1) IS NULL THEN 1 END
-- @@
-- expect: lo_from_bytea
SELECT lo_from_bytea(0, 'x'::bytea)
-- @@
-- expect: pg_sleep
SELECT * FROM lab_data_table WHERE result > ALL (SELECT pg_sleep(1)::text::float)
-- @@
-- expect: pg_sleep
SELECT xmlelement(name a, pg_sleep(1))
-- @@
-- expect: pg_sleep
SELECT (pg_sleep(1)) COLLATE "C"
-- @@
-- expect: pg_sleep
SELECT 1 FROM lab_data_table WHERE name LIKE pg_sleep(1)::text
-- @@
-- expect: pg_sleep
SELECT 1 FROM lab_data_table WHERE (name, result) IN (SELECT 'k', pg_sleep(1)::text::float)
-- @@
-- expect: pg_sleep
SELECT json_agg(x) FROM (SELECT pg_sleep(1) AS x) s
-- @@
-- expect: pg_sleep
SELECT 1 FROM lab_data_table l WHERE l.dt BETWEEN now() AND now() + (pg_sleep(1)::text || ' days')::interval
-- @@
-- expect: pg_sleep
SELECT * FROM lab_data_table FETCH FIRST (SELECT 1 FROM pg_sleep(1)) ROWS ONLY
-- @@
-- expect: backslash
SELECT '\', ' , pg_sleep(1), ' AS c -- '
, 1 AS d
-- @@
-- expect: backslash
SELECT N'\', ' , lo_create(0), ' AS c /* ' */
-- @@
-- expect: pg_sleep
SELECT caseid FROM clinical_data_table WHERE dx = '\' OR pg_sleep(1) IS NULL OR dx = '\'
