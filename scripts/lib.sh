#!/usr/bin/env bash
# lib.sh: shell functions to create and run askql's PostgreSQL cluster, worker pool and nginx.
# Sourced by run.sh, stop.sh and the test runner. Every function takes its directory explicitly,
# so tests run a throwaway stack beside a running `make run` one.

PGBIN=/usr/lib/postgresql/15/bin
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
SYSUSER=askql   # postgres refuses root; the cluster and the workers run as this user
PGSU=askql      # the cluster's bootstrap superuser: these scripts and the tests only, never askql.conf
PGAPPROLES="askql_app askql_reader"   # the roles askql.conf names (app and indexer, executor)

ensure_sysuser() {
	id -u "$SYSUSER" >/dev/null 2>&1 || useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin "$SYSUSER"
}

# free_port: print a free TCP port on 127.0.0.1.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# as_sys CMD...: run a command as the system user.
as_sys() { runuser -u "$SYSUSER" -- "$@"; }

# Passwords (docs/pg-auth.md).  Every connection, socket or TCP, logs in with scram-sha-256; the
# passwords live in two libpq password files that pg_secrets rewrites on every start, keeping the
# passwords they hold:
#   VAR/pgpass        the app's roles ($PGAPPROLES), one line per database each may reach
#                     ("socketdir:port:DB:role:password", pgpass_databases; never "*": issue 27):
#                     askql.conf pg_passfile, 0600 the service user
#   VAR/pgpass.admin  the superuser and the app's roles, any database ("*"): psql_su, the tests,
#                     env.sh; 0600 root
# pw_of FILE ROLE: the password FILE holds for ROLE (nothing when none).
pw_of() {
	if [ -f "$1" ]; then awk -F: -v r="$2" '$(NF-1) == r { print $NF; exit }' "$1"; fi
}

new_pw() { head -c 24 /dev/urandom | base64 | tr -d '/+=\n'; }

# pgpass_write FILE OWNER VAR PORT ROLE=PASSWORD...: write FILE (mode 0600, OWNER) in one rename,
# one line per role for VAR's socket directory (":" and "\" escaped as libpq wants), for any
# database; with PGPASS_DBS set (lines "DB ROLE"), one line per database listed for the role instead.
pgpass_write() {
	local file=$1 owner=$2 host=$3/run port=$4 rp db r; shift 4
	host=${host//\\/\\\\}; host=${host//:/\\:}
	(umask 077
	 for rp in "$@"; do
		if [ -z "${PGPASS_DBS:-}" ]; then
			printf '%s:%s:*:%s:%s\n' "$host" "$port" "${rp%%=*}" "${rp#*=}"
			continue
		fi
		while read -r db r; do
			# (not `[ ] && printf`: a last line of another role would fail the loop, and `make run` with it)
			[ "$r" != "${rp%%=*}" ] || printf '%s:%s:%s:%s:%s\n' "$host" "$port" "${db//:/\\:}" "$r" "${rp#*=}"
		done <<<"$PGPASS_DBS"
	 done >"$file.new")
	chown "$owner" "$file.new" && chmod 600 "$file.new" && mv -f "$file.new" "$file"
}

# pgpass_databases VAR: "DB ROLE" lines, the databases the app's roles may log in to with the
# workers' password file: the app's own, the demo target, and what VAR/pgpass.databases adds (an
# operator's list for further targets that use the app's roles; pgpass_allow writes it).  A data
# source naming another database must bring its own credentials.
pgpass_databases() {
	printf '%s\n' "askql askql_app" "demo askql_app" "demo askql_reader"
	[ -f "$1/pgpass.databases" ] && grep -Ev '^[[:space:]]*(#|$)' "$1/pgpass.databases"
	return 0
}

# pgpass_allow VAR PORT DB ROLE...: let the workers log in to DB as each ROLE (one of $PGAPPROLES)
# with their password file: recorded in VAR/pgpass.databases, the files rewritten.
pgpass_allow() {
	local var=$1 port=$2 db=$3 r; shift 3
	for r in "$@"; do
		grep -qx "$db $r" "$var/pgpass.databases" 2>/dev/null || echo "$db $r" >>"$var/pgpass.databases"
	done
	chmod 600 "$var/pgpass.databases"
	pg_secrets "$var" "$port"
}

# pg_secrets VAR PORT [rotate]: both password files for PORT, each role keeping its password unless
# it has none yet or "rotate" is given (then a new random one).  The cluster is not touched:
# pg_passwords sets them there.
pg_secrets() {
	local var=$1 port=$2 rotate=${3:-} r pw all=()
	for r in "$PGSU" $PGAPPROLES; do
		pw=""
		[ -n "$rotate" ] || pw=$(pw_of "$var/pgpass.admin" "$r")
		[ -n "$pw" ] || pw=$(new_pw)
		all+=("$r=$pw")
	done
	pgpass_write "$var/pgpass.admin" root "$var" "$port" "${all[@]}"
	PGPASS_DBS=$(pgpass_databases "$var") pgpass_write "$var/pgpass" "$SYSUSER" "$var" "$port" "${all[@]:1}"
}

# scram_verifier: the SCRAM-SHA-256 verifier of the password on stdin, what PostgreSQL stores
# (RFC 5802/7677, as psql's \password computes it), so that no password reaches the server or its log.
scram_verifier() {
	python3 -c '
import base64, hashlib, hmac, os, sys
pw, salt, it = sys.stdin.readline().rstrip("\n").encode(), os.urandom(16), 4096
salted = hashlib.pbkdf2_hmac("sha256", pw, salt, it)
key = lambda k: hmac.new(salted, k, "sha256").digest()
b64 = lambda b: base64.b64encode(b).decode()
print("SCRAM-SHA-256$%d:%s$%s:%s" % (it, b64(salt), b64(hashlib.sha256(key(b"Client Key")).digest()), b64(key(b"Server Key"))))'
}

# pg_passwords VAR PORT: give every role the password VAR/pgpass.admin holds for it, in one
# transaction (psql_su logs in with the superuser's password as it is before).
pg_passwords() {
	local var=$1 port=$2 r sql="BEGIN;"$'\n'
	for r in "$PGSU" $PGAPPROLES; do
		sql+="ALTER ROLE $r PASSWORD '$(pw_of "$var/pgpass.admin" "$r" | scram_verifier)';"$'\n'
	done
	printf '%sCOMMIT;\n' "$sql" | psql_su "$var" "$port" postgres >/dev/null
}

# pg_rotate VAR PORT: new passwords for the superuser and the app's roles, in the cluster and then
# in both files.  Open connections stay; the workers' next connections read the new file.
pg_rotate() {
	local var=$1 port=$2
	cp -p "$var/pgpass.admin" "$var/pgpass.admin.old"
	pg_secrets "$var" "$port" rotate
	# psql_su must still log in with the old superuser password: the old file until the roles change
	if ! PGSU_PASSFILE=$var/pgpass.admin.old pg_passwords "$var" "$port"; then
		mv -f "$var/pgpass.admin.old" "$var/pgpass.admin"
		pg_secrets "$var" "$port"
		return 1
	fi
	rm -f "$var/pgpass.admin.old"
}

# pg_hba_scram VAR: a cluster made before passwords (trust on the socket) asks for them from now
# on; called once every role has its password.
pg_hba_scram() {
	local hba=$1/pg/pg_hba.conf
	grep -qE '^[^#]*[[:space:]]trust[[:space:]]*$' "$hba" || return 0
	sed -i -E '/^[[:space:]]*#/! s/[[:space:]]trust[[:space:]]*$/ scram-sha-256/' "$hba"
	as_sys "$PGBIN/pg_ctl" -D "$1/pg" reload >/dev/null
}

# pg_init VAR PORT: create the cluster in VAR/pg if absent (superuser $PGSU, scram-sha-256 for
# every connection, the socket in VAR/run where only the service user and root may go).
pg_init() {
	local var=$1 port=$2 pwfile=$1/run/initdb.pw
	mkdir -p "$var/run" "$var/log"
	chown "$SYSUSER" "$var" "$var/run" "$var/log"
	chmod 755 "$var"
	chmod 700 "$var/run"
	# the logs name users, addresses and runs: the service user (and root) only
	chmod 750 "$var/log"
	pg_secrets "$var" "$port"
	if [ ! -f "$var/pg/PG_VERSION" ]; then
		mkdir -p "$var/pg" && chown "$SYSUSER" "$var/pg" && chmod 700 "$var/pg"
		# initdb (the service user) reads the superuser's password from a file of its own, gone at once
		(umask 077; pw_of "$var/pgpass.admin" "$PGSU" >"$pwfile") && chown "$SYSUSER" "$pwfile"
		if ! as_sys "$PGBIN/initdb" -D "$var/pg" -U "$PGSU" -E UTF8 --locale=C.UTF-8 --pwfile="$pwfile" \
			--auth-local=scram-sha-256 --auth-host=scram-sha-256 >"$var/log/initdb.log" 2>&1; then
			rm -f "$pwfile"
			return 1
		fi
		rm -f "$pwfile"
		cat >>"$var/pg/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$var/run'
max_connections = 300
shared_buffers = 128MB
fsync = ${PG_FSYNC:-on}
log_min_messages = warning
CONF
	fi
	# the port may change between starts; the socket's own mode (the directory's is what counts)
	# is set for clusters made before it too
	sed -i "/^port = /d; /^unix_socket_permissions = /d" "$var/pg/postgresql.conf"
	printf 'port = %s\nunix_socket_permissions = 0700\n' "$port" >>"$var/pg/postgresql.conf"
}

pg_start() {
	local var=$1
	if as_sys "$PGBIN/pg_ctl" -D "$var/pg" status >/dev/null 2>&1; then return 0; fi
	as_sys "$PGBIN/pg_ctl" -D "$var/pg" -l "$var/log/postgres.log" -w -t 60 start >/dev/null
}

pg_stop() {
	local var=$1
	[ -f "$var/pg/postmaster.pid" ] || return 0
	as_sys "$PGBIN/pg_ctl" -D "$var/pg" -m fast -w stop >/dev/null 2>&1 || true
}

# psql_su VAR PORT DB [psql args]: psql as the superuser over the socket, its password from
# VAR/pgpass.admin (PGSU_PASSFILE: another file, for pg_rotate); never prompts.
psql_su() {
	local var=$1 port=$2 db=$3; shift 3
	PGPASSFILE=${PGSU_PASSFILE:-$var/pgpass.admin} psql -X -q -w -v ON_ERROR_STOP=1 -h "$var/run" -p "$port" \
		-U "$PGSU" -d "$db" "$@"
}

# conf_kb NAME DEFAULT [VAR]: a kB setting of the conf table as the workers will see it:
# ASKQL_<NAME> from the environment, else VAR/askql.local.conf, else DEFAULT (app/util/conf.c).
conf_kb() {
	local name=$1 def=$2 var=${3:-} env v
	env=ASKQL_$(echo "$name" | tr '[:lower:]' '[:upper:]')
	v=${!env:-}
	if [ -z "$v" ] && [ -n "$var" ] && [ -f "$var/askql.local.conf" ]; then
		v=$(sed -n "s/^[[:space:]]*$name[[:space:]]*=[[:space:]]*\([0-9]*\).*/\1/p" "$var/askql.local.conf" | tail -1)
	fi
	v=${v:-$def}
	[[ "$v" =~ ^[0-9]+$ ]] || v=$def
	echo "$v"
}

# reader_limits VAR PORT: temp files and sort memory of the executor's role (docs/executor-limits.md).
# temp_file_limit is a superuser setting the reader cannot change, so it is the role's default.
reader_limits() {
	local tfl wm
	tfl=$(conf_kb exec_temp_file_limit_kb 262144 "$1")
	wm=$(conf_kb exec_work_mem_kb 8192 "$1")
	[ "$tfl" -gt 0 ] || tfl=-1
	psql_su "$1" "$2" postgres >/dev/null <<SQL
ALTER ROLE askql_reader SET temp_file_limit = '$tfl';
ALTER ROLE askql_reader SET work_mem = '$wm';
SQL
}

# db_setup VAR PORT: roles, databases, migrations, demo data (only when not loaded yet).
db_setup() {
	local var=$1 port=$2 scale=${DEMO_SCALE:-1}
	psql_su "$var" "$port" postgres <<'SQL'
SELECT 'CREATE ROLE askql_app LOGIN' WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname='askql_app')\gexec
SELECT 'CREATE ROLE askql_reader LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE' WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname='askql_reader')\gexec
SELECT 'CREATE DATABASE askql OWNER askql_app' WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname='askql')\gexec
SELECT 'CREATE DATABASE demo' WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname='demo')\gexec
-- askql explain plans as the executor (SET LOCAL ROLE askql_reader) on target_db's connection:
-- askql_app may, as a member of the reader, whose rights are a part of its own
SELECT 'GRANT askql_reader TO askql_app' WHERE NOT pg_has_role('askql_app', 'askql_reader', 'MEMBER')\gexec
SQL
	# every role logs in with its password; a cluster made before that stops trusting the socket
	pg_passwords "$var" "$port"
	pg_hba_scram "$var"
	psql_su "$var" "$port" askql -c "ALTER SCHEMA public OWNER TO askql_app" >/dev/null
	if ! psql_su "$var" "$port" demo -tAc "SELECT 1 FROM pg_tables WHERE tablename='clinical_data_table'" | grep -q 1; then
		if [ -f "$TOP/conf/demo/load.sql" ]; then
			(cd "$TOP/conf/demo" && psql_su "$var" "$port" demo -v scale="$scale" -f load.sql >/dev/null)
		fi
	fi
	# least privilege: the reader may connect and SELECT the demo's tables, nothing else
	psql_su "$var" "$port" demo >/dev/null <<'SQL'
REVOKE ALL ON DATABASE demo FROM PUBLIC;
GRANT CONNECT ON DATABASE demo TO askql_reader, askql_app;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO askql_reader, askql_app;
-- the demo's own relations, not an extension's (hypopg_list_indexes is no table of the demo; granted,
-- the indexer would list it in the catalog)
DO $$ DECLARE r record; BEGIN
	FOR r IN SELECT c.oid::regclass AS rel, EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
	         AND d.objid = c.oid AND d.deptype = 'e') AS ext
	         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	         WHERE n.nspname = 'public' AND c.relkind IN ('r', 'v', 'm', 'p') LOOP
		EXECUTE format(CASE WHEN r.ext THEN 'REVOKE SELECT ON %s FROM askql_reader, askql_app CASCADE'
		                    ELSE 'GRANT SELECT ON %s TO askql_reader, askql_app' END, r.rel);
	END LOOP;
END $$;
ALTER ROLE askql_reader SET default_transaction_read_only = on;
SQL
	# hypopg is no trusted extension: created here, so askql explain's hypothetical indexes work
	# for target_db's role, which is no superuser
	psql_su "$var" "$port" demo >/dev/null <<'SQL'
SELECT 'CREATE EXTENSION IF NOT EXISTS hypopg' WHERE EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'hypopg')\gexec
SQL
	reader_limits "$var" "$port"
	target_lockdown "$var" "$port" demo
}

# audit_lockdown VAR PORT: the audit of data access (081_access_audit.sql) belongs to the NOLOGIN
# role askql_audit; the app role may INSERT and SELECT only, so it can neither drop the triggers
# that refuse UPDATE, DELETE and TRUNCATE nor grant itself those rights back. Idempotent.
audit_lockdown() {
	psql_su "$1" "$2" askql >/dev/null <<'SQL'
SELECT 'CREATE ROLE askql_audit NOLOGIN' WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname='askql_audit')\gexec
ALTER TABLE askql.access_audit OWNER TO askql_audit;
ALTER FUNCTION askql.access_audit_append_only() OWNER TO askql_audit;
REVOKE ALL ON askql.access_audit FROM PUBLIC, askql_app;
REVOKE UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON askql.access_audit FROM askql_audit;
GRANT SELECT, INSERT ON askql.access_audit TO askql_app;
-- the admin audit log likewise (084_audit_chain.sql, issue 27): append-only, chained by hash; the
-- chain's trigger runs as the inserter, which takes the next id itself when it must
ALTER TABLE askql.audit OWNER TO askql_audit;
ALTER FUNCTION askql.audit_append_only() OWNER TO askql_audit;
ALTER FUNCTION askql.audit_chain() OWNER TO askql_audit;
ALTER FUNCTION askql.audit_row_hash(text, bigint, timestamptz, bigint, text, jsonb) OWNER TO askql_audit;
-- the access log's chain (085_access_chain.sql); every function the chains use resolves names in
-- pg_catalog first, whatever search_path the inserting role gave itself
ALTER FUNCTION askql.access_audit_chain() OWNER TO askql_audit;
ALTER FUNCTION askql.access_row_hash(askql.access_audit) OWNER TO askql_audit;
ALTER FUNCTION askql.audit_chain() SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION askql.audit_row_hash(text, bigint, timestamptz, bigint, text, jsonb) SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON askql.audit FROM PUBLIC, askql_app;
REVOKE UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON askql.audit FROM askql_audit;
GRANT SELECT, INSERT ON askql.audit TO askql_app;
GRANT USAGE, SELECT ON SEQUENCE askql.audit_id_seq TO askql_app;
-- askql_app owns the schema, and a schema's owner may drop what is in it: an event trigger (only a
-- superuser can make or disable one) refuses dropping the log, its triggers or this guard
CREATE SCHEMA IF NOT EXISTS askql_audit AUTHORIZATION askql_audit;
CREATE OR REPLACE FUNCTION askql_audit.refuse_drop() RETURNS event_trigger LANGUAGE plpgsql AS $$
DECLARE o record;
BEGIN
	FOR o IN SELECT * FROM pg_event_trigger_dropped_objects() LOOP
		-- functions by name: their identity spells argument types as the catalog does (pg_catalog.text)
		IF o.object_identity IN ('askql.access_audit', 'askql.access_audit_append_only()', 'askql.audit',
		                         'askql.audit_append_only()', 'askql.audit_chain()', 'askql.access_audit_chain()')
		   OR o.object_identity LIKE 'askql.audit\_row\_hash(%' OR o.object_identity LIKE 'askql.access\_row\_hash(%'
		   OR o.object_identity LIKE 'access_audit_no_%on askql.access_audit'
		   OR o.object_identity LIKE 'access_audit_chain on askql.access_audit'
		   OR o.object_identity LIKE 'audit_no_%on askql.audit' OR o.object_identity LIKE 'audit_chain on askql.audit'
		   OR o.schema_name = 'askql_audit' THEN
			RAISE EXCEPTION 'the audit logs are append-only: dropping % refused', o.object_identity
				USING ERRCODE = 'insufficient_privilege';
		END IF;
	END LOOP;
END $$;
SELECT 'CREATE EVENT TRIGGER askql_audit_refuse_drop ON sql_drop EXECUTE FUNCTION askql_audit.refuse_drop()'
	WHERE NOT EXISTS (SELECT 1 FROM pg_event_trigger WHERE evtname = 'askql_audit_refuse_drop')\gexec
SQL
}

# audit_migrate VAR PORT: the migrations that alter the audit logs (AUDIT_MIGRATIONS) need the tables'
# owner; once audit_lockdown gave them to askql_audit the app role running `askql migrate` is not, so
# a pending one is applied here as the superuser and marked applied, in one transaction (audit_lockdown
# then gives what it created to askql_audit).  On a fresh database askql migrate applies them itself.
AUDIT_MIGRATIONS="085_access_chain.sql"
audit_migrate() {
	local var=$1 port=$2 m locked
	locked=$(psql_su "$var" "$port" askql -tA -c "SELECT 1 FROM pg_tables WHERE schemaname = 'askql'
		AND tablename = 'access_audit' AND tableowner = 'askql_audit'" 2>/dev/null)
	[ "$locked" = 1 ] || return 0
	for m in $AUDIT_MIGRATIONS; do
		[ "$(psql_su "$var" "$port" askql -tA -c "SELECT 1 FROM askql.schema_migrations WHERE name = '$m'")" = 1 ] &&
			continue
		{ echo "BEGIN;"; cat "$TOP/conf/migrations/$m"
		  echo "INSERT INTO askql.schema_migrations (name) VALUES ('$m'); COMMIT;"; } |
			psql_su "$var" "$port" askql >/dev/null || return 1
	done
}

# target_lockdown VAR PORT DB: large objects are writable even inside READ ONLY transactions;
# take the lo_* writers away from PUBLIC in every target the executor reads.
target_lockdown() {
	psql_su "$1" "$2" "$3" >/dev/null <<'SQL'
REVOKE EXECUTE ON FUNCTION lo_create(oid), lo_creat(integer), lo_from_bytea(oid, bytea),
	lo_put(oid, bigint, bytea), lowrite(integer, bytea), lo_truncate(integer, integer),
	lo_truncate64(integer, bigint), lo_unlink(oid), lo_import(text), lo_import(text, oid),
	lo_export(oid, text) FROM PUBLIC;
SQL
}

# write_conf VAR PORT: the config file the workers and bin/askql read.
write_conf() {
	local var=$1 port=$2
	# 0600 from the first byte: it may hold llm_api_key, embed_api_key (askql.local.conf) and conninfos
	rm -f "$var/askql.conf"
	# the seed of the release noise (conf release_noise_key): made once, kept across restarts so a
	# group's noise stays the same (docs/privacy.md "Differencing")
	[ -s "$var/noise.key" ] || (umask 077; od -An -N7 -tu8 /dev/urandom | tr -d ' ' >"$var/noise.key")
	(umask 077; : >"$var/askql.conf")
	cat >"$var/askql.conf" <<CONF
# generated by scripts/lib.sh; edit conf/askql.conf.example instead
app_db = host=$var/run port=$port dbname=askql user=askql_app
target_db = host=$var/run port=$port dbname=demo user=askql_app
target_ro_db = host=$var/run port=$port dbname=demo user=askql_reader
pg_passfile = $var/pgpass
template_dir = $TOP/templates
prompt_dir = $TOP/conf/prompts
docs_dir = $TOP/conf/docs
metadata_file = $TOP/conf/metadata/demo.json
lexicon_file = $TOP/conf/lexicon/clinical_ko_en.tsv
followup_file = $TOP/conf/lexicon/followup.txt
function_words_file = $TOP/conf/lexicon/function_words.txt
phrases_file = $TOP/conf/lexicon/phrases.tsv
entities_file = $TOP/conf/lexicon/entities.tsv
event_windows_file = $TOP/conf/lexicon/event_windows.tsv
phi_rules_file = $TOP/conf/phi/rules.tsv
drug_classes_file = $TOP/conf/critique/drug_classes.tsv
common_passwords_file = $TOP/conf/passwords/common.txt
export_dir = $var/exports
export_tmp_dir = $var/tmp
target_secrets_file = $var/target-secrets
audit_anchor_file = $var/audit.anchor
release_noise_key = $(cat "$var/noise.key")
log_path = $var/log/askql.log
CONF
	[ -f "$var/askql.local.conf" ] && cat "$var/askql.local.conf" >>"$var/askql.conf"
	mkdir -p "$var/exports" && chown "$SYSUSER" "$var/exports" "$var/askql.conf" && chmod 600 "$var/askql.conf"
	chmod 700 "$var/exports"
	# XLSX downloads are built here (conf export_tmp_dir), not in the machine's /tmp
	mkdir -p "$var/tmp" && chown "$SYSUSER" "$var/tmp" && chmod 700 "$var/tmp"
	touch "$var/log/askql.log" && chown "$SYSUSER" "$var/log/askql.log"
	cat >"$var/env.sh" <<ENV
export PGHOST=$var/run PGPORT=$port PGUSER=$PGSU PGDATABASE=askql PGPASSFILE=$var/pgpass.admin
export ASKQL_CONF=$var/askql.conf
ENV
}

# pool_start VAR WORKERS [NAME]: spawn-fcgi binds the pool's socket and runs multiwatch, which
# keeps WORKERS copies of bin/askql-fcgi alive (a worker that dies is restarted).  NAME "askql"
# (default) is the page pool: VAR/run/askql.sock, pool.pid; NAME "runs" is the pool that executes
# runs inside requests (agent, critique, SSE): VAR/run/askql-runs.sock, pool-runs.pid; NAME
# "downloads" serves the downloads (CSV, JSON, XLSX): VAR/run/askql-downloads.sock, pool-downloads.pid.
pool_files() {   # pool_files VAR NAME -> "sock pidfile stampfile"
	if [ "${2:-askql}" = askql ]; then echo "$1/run/askql.sock $1/run/pool.pid $1/run/pool.stamp"
	else echo "$1/run/askql-$2.sock $1/run/pool-$2.pid $1/run/pool-$2.stamp"; fi
}

pool_start() {
	local var=$1 workers=$2 name=${3:-askql} sock pidf stampf stamp
	read -r sock pidf stampf < <(pool_files "$var" "$name")
	# restart a running pool only when its config, binary or size changed (make run again)
	stamp=$(cat "$var/askql.conf" "$TOP/bin/askql-fcgi" | md5sum | cut -c1-32)-$workers
	if [ -f "$pidf" ] && kill -0 "$(cat "$pidf")" 2>/dev/null; then
		[ "$(cat "$stampf" 2>/dev/null)" = "$stamp" ] && return 0
		pool_stop "$var" "$name"
	fi
	echo "$stamp" >"$stampf"
	rm -f "$sock"
	# the workers read their passwords from askql.conf's pg_passfile, never from a caller's PGPASSFILE
	(cd "$TOP" && env -u PGPASSFILE -u PGPASSWORD ASKQL_CONF="$var/askql.conf" spawn-fcgi -s "$sock" -M 0660 -u "$SYSUSER" -g "$SYSUSER" \
		-P "$pidf" -- /usr/bin/multiwatch -f "$workers" -- "$TOP/bin/askql-fcgi" >/dev/null)
}

pool_stop() {
	local var=$1 name=${2:-askql} sock pidf stampf pid
	read -r sock pidf stampf < <(pool_files "$var" "$name")
	[ -f "$pidf" ] || return 0
	pid=$(cat "$pidf")
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid"
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null || true
	fi
	rm -f "$pidf" "$sock"
}

# nginx_start VAR PORT: render conf/nginx.conf.in and start nginx (master as root, workers as askql).
# Run routes go to the runs pool when one is running in VAR, downloads to the downloads pool when
# one is running, else either to the page pool.
nginx_start() {
	local var=$1 port=$2 runsock=$1/run/askql-runs.sock dlsock=$1/run/askql-downloads.sock
	# without a runs pool (RUN_WORKERS=0, or a test's single pool) runs share the page pool
	[ -f "$var/run/pool-runs.pid" ] || runsock=$var/run/askql.sock
	[ -f "$var/run/pool-downloads.pid" ] || dlsock=$var/run/askql.sock
	mkdir -p "$var/nginx"
	# nginx (root) opens its logs 0644 when it creates them: made beforehand, they keep 0640
	for f in "$var/log/nginx-access.log" "$var/log/nginx-error.log"; do
		[ -e "$f" ] || (umask 027; : >"$f")
		chmod 640 "$f"
	done
	sed -e "s|@VAR@|$var|g" -e "s|@TOP@|$TOP|g" -e "s|@PORT@|$port|g" -e "s|@SOCK@|$var/run/askql.sock|g" \
		-e "s|@RUNSOCK@|$runsock|g" -e "s|@DLSOCK@|$dlsock|g" \
		"$TOP/conf/nginx.conf.in" >"$var/nginx.conf"
	# a load generator is one address with hundreds of requests in flight (bench, soak): they raise
	# the per-address limit with NGINX_CONN_PER_ADDR; everything else keeps the template's
	if [ -n "${NGINX_CONN_PER_ADDR:-}" ]; then
		sed -i "s|limit_conn askql_addr 64;|limit_conn askql_addr $NGINX_CONN_PER_ADDR;|" "$var/nginx.conf"
	fi
	if [ -f "$var/run/nginx.pid" ] && kill -0 "$(cat "$var/run/nginx.pid")" 2>/dev/null; then
		nginx -c "$var/nginx.conf" -p "$var/nginx" -s reload 2>/dev/null
		return 0
	fi
	nginx -c "$var/nginx.conf" -p "$var/nginx"
}

nginx_stop() {
	local var=$1 pid
	[ -f "$var/run/nginx.pid" ] || return 0
	pid=$(cat "$var/run/nginx.pid")
	if kill -0 "$pid" 2>/dev/null; then
		kill -QUIT "$pid"
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null || true
	fi
	rm -f "$var/run/nginx.pid"
}

# admin_ensure VAR: the first admin with a random password in VAR/admin.password (mode 0600, root).
admin_ensure() {
	local var=$1
	if [ ! -s "$var/admin.password" ]; then
		(umask 077; head -c 18 /dev/urandom | base64 | tr -d '/+=' >"$var/admin.password")
	fi
	chmod 600 "$var/admin.password"
	ASKQL_CONF="$var/askql.conf" "$TOP/bin/askql" user add admin admin --password-file "$var/admin.password" \
		--if-missing >/dev/null 2>&1 || true
}

# stack_up VAR PORT PGPORT WORKERS: everything `make run` and the tests need, idempotent.
stack_up() {
	local var=$1 port=$2 pgport=$3 workers=$4
	ensure_sysuser
	pg_init "$var" "$pgport"
	pg_start "$var"
	db_setup "$var" "$pgport"
	write_conf "$var" "$pgport"
	audit_migrate "$var" "$pgport"
	ASKQL_CONF="$var/askql.conf" "$TOP/bin/askql" migrate
	audit_lockdown "$var" "$pgport"
	# the chains' heads, outside the database, at every start (docs/privacy.md: take one on a schedule too)
	ASKQL_CONF="$var/askql.conf" "$TOP/bin/askql" audit anchor >>"$var/log/audit-anchor.log" 2>&1 ||
		echo "warning: askql audit anchor failed (see $var/log/audit-anchor.log)" >&2
	admin_ensure "$var"
	ASKQL_CONF="$var/askql.conf" "$TOP/bin/askql" index --name demo >"$var/log/index.log" 2>&1 ||
		echo "warning: indexing the demo database failed (see $var/log/index.log)" >&2
	pool_start "$var" "$workers"
	# runs execute inside their request and may wait minutes on an LLM: a pool of their own
	# keeps them from starving the pages (README, "How the pool handles long LLM waits")
	if [ "${RUN_WORKERS:-16}" -gt 0 ]; then pool_start "$var" "${RUN_WORKERS:-16}" runs; else pool_stop "$var" runs; fi
	# a download holds its worker until its last row (export_timeout_ms at most): its own pool,
	# so downloads never starve the pages (docs/export-deadline.md)
	if [ "${DOWNLOAD_WORKERS:-4}" -gt 0 ]; then pool_start "$var" "${DOWNLOAD_WORKERS:-4}" downloads; else pool_stop "$var" downloads; fi
	nginx_start "$var" "$port"
}

# demo_levels VAR PORT: access levels on the demo target (roles, generalising views; README "Privacy"),
# so that limited, aggregate and release work out of the box.  The views are built as the demo's
# indexing role (askql_app), which gets a schema of its own and the right to pass SELECT on; the roles
# are made by the superuser.  A failure is a warning: every user stays identified.
demo_levels() {
	local var=$1 port=$2
	# (the demo's own relations only: an extension's views, hypopg_list_indexes, are no table of the demo
	# and would be indexed into its catalog)
	if psql_su "$var" "$port" demo -c "GRANT CREATE ON DATABASE demo TO askql_app" -c "DO \$\$ DECLARE r record; BEGIN
		FOR r IN SELECT c.oid::regclass AS rel FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		         WHERE n.nspname = 'public' AND c.relkind IN ('r', 'v', 'm', 'p') AND NOT EXISTS (SELECT 1
		         FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
		LOOP EXECUTE format('GRANT SELECT ON %s TO askql_app WITH GRANT OPTION', r.rel); END LOOP; END \$\$" \
		>/dev/null 2>>"$var/log/levels.log" &&
	   PGPASSFILE=$var/pgpass.admin ASKQL_CONF="$var/askql.conf" "$TOP/bin/askql" target levels demo \
		--as "host=$var/run port=$port dbname=demo user=$PGSU" >>"$var/log/levels.log" 2>&1; then
		return 0
	fi
	echo "warning: access levels on the demo were not set up (see $var/log/levels.log)" >&2
}

stack_down() {
	local var=$1
	nginx_stop "$var"
	pool_stop "$var" downloads
	pool_stop "$var" runs
	pool_stop "$var"
	pg_stop "$var"
}
