/* target.h: the registry of target databases (askql.targets): add, list, test, resolve, remove (docs/targets.md). */
#ifndef ASKQL_TARGET_H
#define ASKQL_TARGET_H

#include <stddef.h>
#include <libpq-fe.h>
#include "store/target_conn.h"
#include "util/err.h"

#define TARGET_NAME_MAX 64
#define TARGET_CONNINFO_MAX 2048

/* One registered target.  Heap strings (NULL when absent) freed by target_free. */
struct target {
	char name[TARGET_NAME_MAX];
	char *conninfo;        /* indexing connection; may hold a password: never print, use target_mask */
	char *ro_conninfo;     /* the executor's read-only connection; NULL: conninfo */
	char *metadata_file;   /* optional metadata file (conf/metadata/README.md) */
	char *docs_dir;        /* optional Markdown table documents */
	char ident[512];       /* "host:port/dbname" (target_ident) */
	int is_default;
	int from_conf;         /* the target configured in askql.conf (kept in step by target_sync_conf) */
	long catalog_version;  /* 0: not indexed yet */
	char indexed_at[40];   /* "" when not indexed */
	int tables, columns;   /* of the current catalog (0 when not indexed) */
	char llm_data_policy[8]; /* its own llm_data_policy ("schema", "values", "rows"); "": the
	                          * global default (llm_policy_resolve, catalog/llm_policy.h) */
};
void target_free(struct target *t);
/* target_exec_conninfo: the conninfo the executor uses for t (ro_conninfo, else conninfo). */
const char *target_exec_conninfo(const struct target *t);

/*
 * target_conn_is_app: 1 when c (a connection made for a target) is to askql's own database: the same
 * database name on the same cluster (pg_control_system()'s system identifier; the postmaster's start
 * time and port when a role may not read it); 0 when it is elsewhere; -1 when it cannot tell (a query
 * failed).  app is the app database's connection (its place is read once per process).
 */
int target_conn_is_app(PGconn *app, PGconn *c);

/*
 * target_ident: "host:port/dbname" for a key=value or URI conninfo, with libpq's environment
 * defaults (PGHOST, PGPORT, PGDATABASE, PGUSER) filled in; a unix-socket directory, localhost,
 * 127.0.0.0/8 and ::1 are all "local"; the host is lower-cased and a port written as a number is
 * written as one (port=054391 is 54391), so one database has one identity however it is spelled.  ERR_PARSE (message in err) when conninfo does not parse.
 */
enum err target_ident(const char *conninfo, char *out, size_t n, char *err, size_t errlen);
/*
 * target_check_conninfo: OK when every keyword conninfo (key=value or URI) sets is one a target
 * may use: host, hostaddr, port, dbname, user, password, sslmode, sslrootcert, application_name,
 * connect_timeout (a whole number of seconds, 1 to TARGET_CONNECT_TIMEOUT_MAX).  Any other keyword
 * (options, passfile, service, sslkey, sslpassword, target_session_attrs, ...) is ERR_INPUT with
 * err naming it; a conninfo that does not parse ERR_PARSE.  Issue 27: a connection string is
 * not a way to pass server options, read local files or hold a worker on a slow peer.
 */
#define TARGET_CONNECT_TIMEOUT_MAX 10
enum err target_check_conninfo(const char *conninfo, char *err, size_t errlen);
/* target_is_conninfo: 1 when spec looks like a conninfo or URL rather than a target name. */
int target_is_conninfo(const char *spec);
/* target_mask: conninfo with every secret (password=..., sslpassword=..., user:pass@, and the
 * same keywords in a URI's query) replaced by "****".  Heap. */
char *target_mask(const char *conninfo);

/*
 * target_add: register name for conninfo; the table keeps conninfo and ro_conninfo without their
 * secrets (password, sslpassword), the secrets file (target_secret.h) keeps those by name, and
 * target_get/list/resolve give them back in memory (never to display: use target_mask) (ro_conninfo, metadata_file, docs_dir may be NULL).
 * ERR_INPUT for a bad name (letters, digits, _ . -, at most 63) or a conninfo that does not
 * parse or is too long; ERR_DENIED when the name or the same database (ident) is already
 * registered (err names which), or when conninfo or ro_conninfo connects to askql's own database
 * (target_conn_is_app; a connection that fails now is let through and checked when used).  The first target registered becomes the default.
 */
enum err target_add(PGconn *app, const char *name, const char *conninfo, const char *ro_conninfo,
                    const char *metadata_file, const char *docs_dir, char *err, size_t errlen);
/* target_remove: unregister name, drop its catalog and its secrets.  ERR_NOTFOUND; ERR_IO when the
 * row is gone but the secrets file could not be rewritten (err says so); ERR_DENIED for the
 * configured target (askql.conf) or the default while others exist (set another default first). */
enum err target_remove(PGconn *app, const char *name, char *err, size_t errlen);
/* target_set_default: make name the default target.  ERR_NOTFOUND. */
enum err target_set_default(PGconn *app, const char *name, char *err, size_t errlen);
/* target_list: every registered target, default first then by name; *out heap array of *n
 * (free each with target_free, then free(*out)).  ERR_DB. */
enum err target_list(PGconn *app, struct target **out, int *n, char *err, size_t errlen);
/*
 * target_set_policy: set name's own llm_data_policy to policy ("schema", "values" or "rows"), or
 * clear it (NULL or "default": the global default applies).  ERR_INPUT another word (err names
 * the allowed ones), ERR_NOTFOUND no such target, ERR_DB.
 */
enum err target_set_policy(PGconn *app, const char *name, const char *policy, char *err, size_t errlen);
/* target_get: the registered target called name.  ERR_NOTFOUND. */
enum err target_get(PGconn *app, const char *name, struct target *out, char *err, size_t errlen);

/*
 * target_resolve: the target a command or page means by spec:
 *   NULL or ""           the default target;
 *   a name               that registered target;
 *   a conninfo or URL    the registered target for the same database (same ident).
 * ERR_NOTFOUND with a message naming the command to run (askql target add / askql index)
 * when there is no such target; ERR_PARSE for a conninfo that does not parse.
 */
enum err target_resolve(PGconn *app, const char *spec, struct target *out, char *err, size_t errlen);

/*
 * target_sync_conf: register (or bring up to date) the target configured in askql.conf
 * (target_name, target_db, target_ro_db, metadata_file, docs_dir) as from_conf, the default
 * when there is none.  Called by askql migrate.  A registered target of another name for the
 * same database wins (ERR_DENIED, message in err; nothing changed).
 */
enum err target_sync_conf(PGconn *app, char *err, size_t errlen);

/*
 * target_secrets_move: every secret (password, sslpassword) still in askql.targets goes to the
 * secrets file (conf target_secrets_file, target_secret.h) and the row keeps its connections without
 * it; the configured target's row just loses them (askql.conf stays their source); askql.cat_targets'
 * copies lose theirs.  The file is written before the row, so a failure half-way loses nothing.
 * Run by askql migrate; idempotent.  *moved: the rows changed.  ERR_DB, ERR_IO (err says which).
 */
enum err target_secrets_move(PGconn *app, int *moved, char *err, size_t errlen);

/* What target_test found.  Strings are fixed buffers; warnings are one per line. */
struct target_check {
	int index_ok, ro_ok;                 /* each connection worked */
	char index_error[256], ro_error[256]; /* why not, in English (target_conn_text), never the peer's bytes */
	struct target_conn_out index_fail, ro_fail; /* ... as codes, for the page's words (store/target_conn.h) */
	char server_version[64];
	char ro_user[64];
	int ro_superuser, ro_can_write, ro_can_create, ro_reads_secrets;
	long ro_readable_tables;             /* tables/views the read-only role may SELECT */
	long ro_writable_tables;             /* ... and may INSERT/UPDATE/DELETE/TRUNCATE */
	int ro_same_as_index;                /* no separate read-only connection registered */
	char ro_temp_file_limit[32];         /* the role's temp_file_limit as SHOW prints it ("-1": none) */
	char ro_work_mem[32];
	char warnings[1536];
	int nwarnings;
};
/*
 * target_test: connect with both of t's connections; fill c with the server version, the
 * read-only role's privileges and a warning for each way that role can write, create objects
 * or read secrets (superuser, pg_read_server_files, pg_read_all_settings, pg_authid ...).
 * Returns OK when both connections worked (warnings or not), ERR_DB otherwise.  The whole test,
 * connections and queries, ends by one deadline (conf target_connect_ms, store/target_conn.h);
 * a failure is a code and its English words, nothing the peer sent.
 */
enum err target_test(const struct target *t, struct target_check *c);
/*
 * target_conn_error_scrub: msg (a libpq connection error, changed in place) without the bytes the
 * peer sent: libpq quotes the first byte of a reply it did not expect ("received invalid response
 * to SSL negotiation: H", "expected authentication request from server, but received H"), which
 * makes a connection test a probe of what listens on a port (issue 27).  The message ends before
 * them ("... SSL negotiation", "... but got other"); other messages are left as they are.
 */
void target_conn_error_scrub(char *msg);

#endif
