#!/usr/bin/env bash
# lib.sh: shell functions to create and run askql's PostgreSQL cluster, worker pool and nginx.
# Sourced by run.sh, stop.sh and the test runner. Every function takes its directory explicitly,
# so tests run a throwaway stack beside a running `make run` one.

PGBIN=/usr/lib/postgresql/15/bin
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
SYSUSER=askql   # postgres refuses root; the cluster and the workers run as this user

ensure_sysuser() {
	id -u "$SYSUSER" >/dev/null 2>&1 || useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin "$SYSUSER"
}

# free_port: print a free TCP port on 127.0.0.1.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# as_sys CMD...: run a command as the system user.
as_sys() { runuser -u "$SYSUSER" -- "$@"; }

# pg_init VAR PORT: create the cluster in VAR/pg if absent (superuser "askql", trust on the socket).
pg_init() {
	local var=$1 port=$2
	mkdir -p "$var/run" "$var/log"
	chown "$SYSUSER" "$var" "$var/run" "$var/log"
	chmod 755 "$var"
	if [ ! -f "$var/pg/PG_VERSION" ]; then
		mkdir -p "$var/pg" && chown "$SYSUSER" "$var/pg" && chmod 700 "$var/pg"
		as_sys "$PGBIN/initdb" -D "$var/pg" -U askql -E UTF8 --locale=C.UTF-8 \
			--auth-local=trust --auth-host=scram-sha-256 >"$var/log/initdb.log" 2>&1
		cat >>"$var/pg/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$var/run'
max_connections = 300
shared_buffers = 128MB
fsync = ${PG_FSYNC:-on}
log_min_messages = warning
CONF
	fi
	# the port may change between starts
	sed -i "/^port = /d" "$var/pg/postgresql.conf"
	echo "port = $port" >>"$var/pg/postgresql.conf"
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

# psql_su VAR PORT DB [psql args]: psql as the superuser over the socket.
psql_su() {
	local var=$1 port=$2 db=$3; shift 3
	psql -X -q -v ON_ERROR_STOP=1 -h "$var/run" -p "$port" -U askql -d "$db" "$@"
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
SQL
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
GRANT SELECT ON ALL TABLES IN SCHEMA public TO askql_reader, askql_app;
ALTER ROLE askql_reader SET default_transaction_read_only = on;
SQL
	reader_limits "$var" "$port"
	target_lockdown "$var" "$port" demo
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
	cat >"$var/askql.conf" <<CONF
# generated by scripts/lib.sh; edit conf/askql.conf.example instead
app_db = host=$var/run port=$port dbname=askql user=askql_app
target_db = host=$var/run port=$port dbname=demo user=askql
target_ro_db = host=$var/run port=$port dbname=demo user=askql_reader
template_dir = $TOP/templates
prompt_dir = $TOP/conf/prompts
docs_dir = $TOP/conf/docs
metadata_file = $TOP/conf/metadata/demo.json
export_dir = $var/exports
log_path = $var/log/askql.log
CONF
	[ -f "$var/askql.local.conf" ] && cat "$var/askql.local.conf" >>"$var/askql.conf"
	mkdir -p "$var/exports" && chown "$SYSUSER" "$var/exports" "$var/askql.conf"
	touch "$var/log/askql.log" && chown "$SYSUSER" "$var/log/askql.log"
	cat >"$var/env.sh" <<ENV
export PGHOST=$var/run PGPORT=$port PGUSER=askql PGDATABASE=askql
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
	(cd "$TOP" && ASKQL_CONF="$var/askql.conf" spawn-fcgi -s "$sock" -M 0660 -u "$SYSUSER" -g "$SYSUSER" \
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
	sed -e "s|@VAR@|$var|g" -e "s|@TOP@|$TOP|g" -e "s|@PORT@|$port|g" -e "s|@SOCK@|$var/run/askql.sock|g" \
		-e "s|@RUNSOCK@|$runsock|g" -e "s|@DLSOCK@|$dlsock|g" \
		"$TOP/conf/nginx.conf.in" >"$var/nginx.conf"
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
	ASKQL_CONF="$var/askql.conf" "$TOP/bin/askql" migrate
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

stack_down() {
	local var=$1
	nginx_stop "$var"
	pool_stop "$var" downloads
	pool_stop "$var" runs
	pool_stop "$var"
	pg_stop "$var"
}
