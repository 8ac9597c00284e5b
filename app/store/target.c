/* target.c: the registry of target databases: identity, masking, add/list/remove/resolve, the privilege test (docs/targets.md). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "store/db.h"
#include "store/target.h"
#include "store/target_conn.h"
#include "store/target_secret.h"
#include "util/conf.h"
#include "util/log.h"

void target_free(struct target *t)
{
	if (!t)
		return;
	free(t->conninfo);
	free(t->ro_conninfo);
	free(t->metadata_file);
	free(t->docs_dir);
	t->conninfo = t->ro_conninfo = t->metadata_file = t->docs_dir = NULL;
}

const char *target_exec_conninfo(const struct target *t)
{
	return t->ro_conninfo && *t->ro_conninfo ? t->ro_conninfo : t->conninfo;
}

int target_is_conninfo(const char *spec)
{
	return spec && (strchr(spec, '=') || strstr(spec, "://"));
}

/* value of keyword in a parsed option list, else libpq's default (environment), else "" */
static const char *opt(PQconninfoOption *given, PQconninfoOption *dflt, const char *kw)
{
	for (PQconninfoOption *p = given; p && p->keyword; p++)
		if (!strcmp(p->keyword, kw) && p->val && *p->val)
			return p->val;
	for (PQconninfoOption *p = dflt; p && p->keyword; p++)
		if (!strcmp(p->keyword, kw) && p->val && *p->val)
			return p->val;
	return "";
}

static int is_local_host(const char *h)
{
	return !*h || *h == '/' || *h == '@' || !strcmp(h, "localhost") || !strncmp(h, "127.", 4) ||
	       !strcmp(h, "::1");
}

enum err target_ident(const char *conninfo, char *out, size_t n, char *err, size_t errlen)
{
	PQconninfoOption *given, *dflt;
	char *e = NULL, host[256], pnum[64];
	const char *h, *port, *db;

	if (!conninfo || strlen(conninfo) > TARGET_CONNINFO_MAX) {
		err_set(err, errlen, "the connection string is missing or longer than %d bytes", TARGET_CONNINFO_MAX);
		return ERR_INPUT;
	}
	if (!(given = PQconninfoParse(conninfo, &e))) {
		err_set(err, errlen, "the connection string does not parse: %s", e ? e : "out of memory");
		PQfreemem(e);
		return ERR_PARSE;
	}
	dflt = PQconndefaults();
	h = opt(given, dflt, "host");
	if (!*h)
		h = opt(given, dflt, "hostaddr");
	/* host may list several hosts: the first names the database */
	snprintf(host, sizeof host, "%.*s", (int)strcspn(h, ","), h);
	for (char *p = host; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	port = opt(given, dflt, "port");
	db = opt(given, dflt, "dbname");
	if (!*db)
		db = opt(given, dflt, "user");
	/* the first port, as a number when it is one: 054391 and 54391 are one port */
	snprintf(pnum, sizeof pnum, "%.*s", (int)strcspn(*port ? port : "5432", ","), *port ? port : "5432");
	if (pnum[0] && strspn(pnum, "0123456789") == strlen(pnum) && strlen(pnum) < 12)
		snprintf(pnum, sizeof pnum, "%ld", strtol(pnum, NULL, 10));
	snprintf(out, n, "%s:%s/%s", is_local_host(host) ? "local" : host, pnum, db);
	PQconninfoFree(given);
	PQconninfoFree(dflt);
	return OK;
}

/* the keywords a target's connection string may set (issue 27) */
static const char *const allowed_kw[] = {
	"host", "hostaddr", "port", "dbname", "user", "password", "sslmode", "sslrootcert", "application_name",
	"connect_timeout",
};

enum err target_check_conninfo(const char *conninfo, char *err, size_t errlen)
{
	PQconninfoOption *given;
	char *e = NULL;
	enum err rc = OK;

	if (!conninfo || !*conninfo)
		return OK;
	if (!(given = PQconninfoParse(conninfo, &e))) {
		err_set(err, errlen, "the connection string does not parse: %s", e ? e : "out of memory");
		PQfreemem(e);
		return ERR_PARSE;
	}
	for (PQconninfoOption *p = given; rc == OK && p->keyword; p++) {
		size_t i, n = sizeof allowed_kw / sizeof allowed_kw[0];

		if (!p->val)
			continue;
		for (i = 0; i < n && strcmp(p->keyword, allowed_kw[i]); i++)
			;
		if (i == n) {
			err_set(err, errlen, "a target's connection string may not set '%s' (allowed: host, hostaddr, port, "
			        "dbname, user, password, sslmode, sslrootcert, application_name, connect_timeout)", p->keyword);
			rc = ERR_INPUT;
		} else if (!strcmp(p->keyword, "connect_timeout")) {
			char *end;
			long s = strtol(p->val, &end, 10);

			if (end == p->val || *end || s < 1 || s > TARGET_CONNECT_TIMEOUT_MAX) {
				err_set(err, errlen, "connect_timeout must be 1 to %d seconds", TARGET_CONNECT_TIMEOUT_MAX);
				rc = ERR_INPUT;
			}
		}
	}
	PQconninfoFree(given);
	return rc;
}

/* the secret keywords target_mask hides (libpq's options marked "*" for display) */
static const char *const secret_kw[] = {"password", "sslpassword"};

/* mask_kv: at s (a keyword's start in a key=value conninfo) a secret keyword with its value:
 * append "kw=****" to *o and return the end of the value; else NULL */
static const char *mask_kv(const char *s, char **o)
{
	for (size_t k = 0; k < sizeof secret_kw / sizeof secret_kw[0]; k++) {
		size_t l = strlen(secret_kw[k]);
		const char *p = s + l;

		if (strncmp(s, secret_kw[k], l))
			continue;
		while (isspace((unsigned char)*p))
			p++;
		if (*p != '=')
			continue;
		p++;
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '\'') {
			for (p++; *p && *p != '\''; p++)
				if (*p == '\\' && p[1])
					p++;
			if (*p)
				p++;
		} else {
			while (*p && !isspace((unsigned char)*p))
				p++;
		}
		*o += sprintf(*o, "%s=****", secret_kw[k]);
		return p;
	}
	return NULL;
}

char *target_mask(const char *conninfo)
{
	size_t n = conninfo ? strlen(conninfo) : 0;
	/* "****" for a value: at most 4 bytes more per secret keyword, each at least 9 bytes long */
	char *out = malloc(2 * n + 24), *o = out;
	const char *s = conninfo, *scheme;

	if (!out)
		return NULL;
	if (!s) {
		*out = 0;
		return out;
	}
	if ((scheme = strstr(s, "://"))) {
		/* URI: scheme://user:secret@host... -> scheme://user:****@host... */
		const char *auth = scheme + 3, *at = strchr(auth, '@'), *slash = strchr(auth, '/');
		const char *colon = strchr(auth, ':');

		if (at && (!slash || at < slash) && colon && colon < at) {
			memcpy(o, s, (size_t)(colon + 1 - s));
			o += colon + 1 - s;
			memcpy(o, "****", 4);
			o += 4;
			s = at;
		}
		/* ...and ?password=secret (or sslpassword) in the query */
		while (*s) {
			const char *kw = NULL;

			if (s > conninfo && (s[-1] == '?' || s[-1] == '&'))
				for (size_t k = 0; k < sizeof secret_kw / sizeof secret_kw[0]; k++)
					if (!strncmp(s, secret_kw[k], strlen(secret_kw[k])) && s[strlen(secret_kw[k])] == '=')
						kw = secret_kw[k];
			if (kw) {
				o += sprintf(o, "%s=****", kw);
				s += strlen(kw) + 1;
				while (*s && *s != '&')
					s++;
				continue;
			}
			*o++ = *s++;
		}
		*o = 0;
		return out;
	}
	/* key=value: password = 'quoted value' or bare, sslpassword likewise */
	while (*s) {
		const char *p;

		if ((s == conninfo || isspace((unsigned char)s[-1])) && (p = mask_kv(s, &o))) {
			s = p;
			continue;
		}
		*o++ = *s++;
	}
	*o = 0;
	return out;
}

static int valid_name(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n >= TARGET_NAME_MAX || !(isalnum((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.-", *s))
			return 0;
	return 1;
}

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

/* with_secrets: t's connections with their passwords from the secrets file (target_secret.h), in
 * memory only; what the table holds has none.  An unreadable file leaves them without (the connection
 * then fails asking for a password) and says so in the log, never what the file holds. */
static void with_secrets(struct target *t)
{
	struct tsecret sec[TSECRET_MAX];
	char err[512];
	int n = 0;

	if (tsecret_load(conf_get("target_secrets_file"), t->name, sec, &n, TSECRET_MAX, err, sizeof err) != OK) {
		log_warn("target %s: %s", t->name, err);
		return;
	}
	if (n) {
		char *c = tsecret_merge(t->conninfo, "conn", sec, n), *ro = tsecret_merge(t->ro_conninfo, "ro", sec, n);

		if (c) {
			free(t->conninfo);
			t->conninfo = c;
		}
		if (ro) {
			free(t->ro_conninfo);
			t->ro_conninfo = ro;
		}
	}
	memset(sec, 0, sizeof sec);
}

/* split_both: conninfo and ro_conninfo without their secrets into *c and *ro (heap; ro NULL when
 * there is none), the secrets into sec[*n] */
static enum err split_both(const char *conninfo, const char *ro_conninfo, char **c, char **ro,
                           struct tsecret *sec, int *n, char *err, size_t errlen)
{
	int nc = 0, nr = 0;
	enum err rc;

	*c = *ro = NULL;
	*n = 0;
	if ((rc = tsecret_split(conninfo, "conn", c, sec, &nc, TSECRET_MAX, err, errlen)) != OK)
		return rc;
	if ((rc = tsecret_split(ro_conninfo, "ro", ro, sec + nc, &nr, TSECRET_MAX - nc, err, errlen)) != OK) {
		free(*c);
		*c = NULL;
		memset(sec, 0, sizeof *sec * (size_t)nc);
		return rc;
	}
	*n = nc + nr;
	return OK;
}

/* forget_secrets: the secrets file keeps nothing for name (written only when it held something) */
static enum err forget_secrets(const char *name, char *err, size_t errlen)
{
	struct tsecret sec[TSECRET_MAX];
	const char *path = conf_get("target_secrets_file");
	int n = 0;
	enum err rc = tsecret_load(path, name, sec, &n, TSECRET_MAX, err, errlen);

	memset(sec, 0, sizeof sec);
	if (rc == OK && n)
		rc = tsecret_store(path, name, NULL, 0, err, errlen);
	return rc;
}

#define TARGET_COLS \
	"t.name, t.conninfo, t.ro_conninfo, t.metadata_file, t.docs_dir, t.ident, t.is_default, t.from_conf, " \
	"coalesce(c.version, 0), coalesce(to_char(c.indexed_at, 'YYYY-MM-DD HH24:MI:SS'), ''), " \
	"(SELECT count(*) FROM askql.cat_tables x WHERE x.target = t.name), " \
	"(SELECT count(*) FROM askql.cat_columns x WHERE x.target = t.name), " \
	"coalesce(t.llm_data_policy, '') " \
	"FROM askql.targets t LEFT JOIN askql.cat_targets c ON c.name = t.name "

static void from_row(PGresult *r, int i, struct target *t)
{
	memset(t, 0, sizeof *t);
	snprintf(t->name, sizeof t->name, "%s", PQgetvalue(r, i, 0));
	t->conninfo = strdup(PQgetvalue(r, i, 1));
	t->ro_conninfo = PQgetisnull(r, i, 2) ? NULL : dup_or_null(PQgetvalue(r, i, 2));
	t->metadata_file = PQgetisnull(r, i, 3) ? NULL : dup_or_null(PQgetvalue(r, i, 3));
	t->docs_dir = PQgetisnull(r, i, 4) ? NULL : dup_or_null(PQgetvalue(r, i, 4));
	snprintf(t->ident, sizeof t->ident, "%s", PQgetvalue(r, i, 5));
	t->is_default = PQgetvalue(r, i, 6)[0] == 't';
	t->from_conf = PQgetvalue(r, i, 7)[0] == 't';
	t->catalog_version = atol(PQgetvalue(r, i, 8));
	snprintf(t->indexed_at, sizeof t->indexed_at, "%s", PQgetvalue(r, i, 9));
	t->tables = atoi(PQgetvalue(r, i, 10));
	t->columns = atoi(PQgetvalue(r, i, 11));
	snprintf(t->llm_data_policy, sizeof t->llm_data_policy, "%s", PQgetvalue(r, i, 12));
	/* the configured target's connections are the configuration's as it is now (a worker
	 * started with another target_ro_db, a replica, sees that one), not as last synced */
	if (t->from_conf && !strcmp(t->name, conf_get("target_name")) && *conf_get("target_db")) {
		free(t->conninfo);
		free(t->ro_conninfo);
		t->conninfo = strdup(conf_get("target_db"));
		t->ro_conninfo = dup_or_null(conf_get("target_ro_db"));
		return;
	}
	with_secrets(t);
}

/* the one target matching "WHERE <where>" with parameter p; ERR_NOTFOUND when none */
static enum err get_one(PGconn *app, const char *where, const char *p, struct target *out,
                        char *err, size_t errlen)
{
	char sql[1024];
	const char *params[1] = {p};
	PGresult *r;

	snprintf(sql, sizeof sql, "SELECT " TARGET_COLS "WHERE %s LIMIT 1", where);
	if (!(r = db_query(app, sql, p ? 1 : 0, params, err, errlen)))
		return ERR_DB;
	if (PQntuples(r) == 0) {
		PQclear(r);
		return ERR_NOTFOUND;
	}
	from_row(r, 0, out);
	PQclear(r);
	return out->conninfo ? OK : ERR_NOMEM;
}

enum err target_set_policy(PGconn *app, const char *name, const char *policy, char *err, size_t errlen)
{
	const char *p[2] = {name, NULL};
	PGresult *r;
	enum err rc = OK;

	if (policy && *policy && strcmp(policy, "default")) {
		if (strcmp(policy, "schema") && strcmp(policy, "values") && strcmp(policy, "rows")) {
			err_set(err, errlen, "llm_data_policy must be schema, values, rows or default, not '%.40s'", policy);
			return ERR_INPUT;
		}
		p[1] = policy;
	}
	if (!(r = db_query(app, "UPDATE askql.targets SET llm_data_policy = $2 WHERE name = $1 RETURNING name",
	                   2, p, err, errlen)))
		return ERR_DB;
	if (PQntuples(r) == 0) {
		err_set(err, errlen, "no target named '%s' (askql target list shows the registered ones)", name);
		rc = ERR_NOTFOUND;
	}
	PQclear(r);
	return rc;
}

enum err target_get(PGconn *app, const char *name, struct target *out, char *err, size_t errlen)
{
	enum err rc = get_one(app, "t.name = $1", name, out, err, errlen);

	if (rc == ERR_NOTFOUND)
		err_set(err, errlen, "no target named '%s' (askql target list shows the registered ones)", name);
	return rc;
}

enum err target_list(PGconn *app, struct target **out, int *n, char *err, size_t errlen)
{
	PGresult *r = db_query(app, "SELECT " TARGET_COLS "ORDER BY t.is_default DESC, t.name", 0, NULL, err, errlen);

	*out = NULL;
	*n = 0;
	if (!r)
		return ERR_DB;
	if (PQntuples(r) && !(*out = calloc((size_t)PQntuples(r), sizeof **out))) {
		PQclear(r);
		return ERR_NOMEM;
	}
	for (int i = 0; i < PQntuples(r); i++)
		from_row(r, i, &(*out)[(*n)++]);
	PQclear(r);
	return OK;
}

/*
 * Where a connection lands: the cluster's system identifier (pg_control_system(), executable by
 * every role unless revoked) and, since a cluster may be restarted but not copied with the same
 * start time, the postmaster's start time and port; then the database's name.  A role that may
 * not run pg_control_system() leaves sysid empty.  "" on any error.
 */
struct place {
	char sysid[32], start[64], db[128];
};

static void place_of(PGconn *c, struct place *p)
{
	/* bounded: a peer that logs anyone in and then stalls must not hold the worker (issue 27) */
	double end = target_conn_deadline();
	PGresult *r;

	memset(p, 0, sizeof *p);
	r = target_conn_query(c, "SELECT has_function_privilege('pg_catalog.pg_control_system()', 'EXECUTE'), "
	              "pg_postmaster_start_time()::text || ' ' || current_setting('port'), current_database()", end);
	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) {
		int can = PQgetvalue(r, 0, 0)[0] == 't';

		snprintf(p->start, sizeof p->start, "%s", PQgetvalue(r, 0, 1));
		snprintf(p->db, sizeof p->db, "%s", PQgetvalue(r, 0, 2));
		PQclear(r);
		if (!can)
			return;
		r = target_conn_query(c, "SELECT system_identifier::text FROM pg_catalog.pg_control_system()", end);
		if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
			snprintf(p->sysid, sizeof p->sysid, "%s", PQgetvalue(r, 0, 0));
	}
	PQclear(r);
}

int target_conn_is_app(PGconn *app, PGconn *c)
{
	/* the app database's place, once per process: it does not move under a running worker */
	static struct place mine;
	static int known;
	struct place theirs;

	if (!known && app) {
		place_of(app, &mine);
		known = *mine.db != '\0';
	}
	if (!known || !c)
		return -1;
	place_of(c, &theirs);
	if (!*theirs.db)
		return -1;
	if (strcmp(theirs.db, mine.db))
		return 0;
	/* the same name on the same server: by system identifier when both sides could read it (a
	 * replica of the app's cluster shares it and is the app's data too), else by start and port */
	if (*theirs.sysid && *mine.sysid)
		return !strcmp(theirs.sysid, mine.sysid);
	return !strcmp(theirs.start, mine.start);
}

/* not_app_db: ERR_DENIED when conninfo connects to the app's own database; OK when it connects
 * elsewhere or cannot connect now (the executor and the indexer check again when they connect). */
static enum err not_app_db(PGconn *app, const char *conninfo, double end, char *err, size_t errlen)
{
	struct target_conn_out why;
	PGconn *c;
	int same;

	/* by askql's deadline, not libpq's connect_timeout per host (issue 27: a tarpit) */
	if (!conninfo || !*conninfo || !(c = target_conn_open(conninfo, end, &why)))
		return OK;
	same = target_conn_is_app(app, c);
	PQfinish(c);
	if (same == 1) {
		err_set(err, errlen, "that connection leads to askql's own database (its users, sessions and audit): "
		        "it can never be a target");
		return ERR_DENIED;
	}
	return OK;
}

enum err target_add(PGconn *app, const char *name, const char *conninfo, const char *ro_conninfo,
                    const char *metadata_file, const char *docs_dir, char *err, size_t errlen)
{
	char ident[512], ro_ident[512];
	struct target old;
	enum err rc;
	PGresult *r;
	double end = target_conn_deadline();   /* both app-database checks together */

	if (!valid_name(name)) {
		err_set(err, errlen, "a target name is 1-63 letters, digits, '_', '.' or '-', starting with a letter, digit or '_'");
		return ERR_INPUT;
	}
	if ((rc = target_ident(conninfo, ident, sizeof ident, err, errlen)) != OK ||
	    (rc = target_check_conninfo(conninfo, err, errlen)) != OK ||
	    (rc = target_check_conninfo(ro_conninfo, err, errlen)) != OK)
		return rc;
	if (ro_conninfo && *ro_conninfo) {
		if ((rc = target_ident(ro_conninfo, ro_ident, sizeof ro_ident, err, errlen)) != OK)
			return rc;
		if (strcmp(ident, ro_ident)) {
			err_set(err, errlen, "the read-only connection names another database (%s) than the connection (%s)",
			        ro_ident, ident);
			return ERR_INPUT;
		}
	}
	if (get_one(app, "t.name = $1", name, &old, NULL, 0) == OK) {
		target_free(&old);
		err_set(err, errlen, "a target named '%s' is already registered (askql target rm %s first)", name, name);
		return ERR_DENIED;
	}
	/* issue 27: asked by where the connection lands, not by how the conninfo is spelled */
	if ((rc = not_app_db(app, conninfo, end, err, errlen)) != OK ||
	    (rc = not_app_db(app, ro_conninfo, end, err, errlen)) != OK)
		return rc;
	if (get_one(app, "t.ident = $1", ident, &old, NULL, 0) == OK) {
		err_set(err, errlen, "that database (%s) is already registered as '%s'", ident, old.name);
		target_free(&old);
		return ERR_DENIED;
	}
	{
		/* the table gets the connections without their secrets; the secrets file gets those, in the
		 * same transaction's span: a failure of either leaves neither */
		struct tsecret sec[2 * TSECRET_MAX];
		char *c = NULL, *ro = NULL;
		int ns = 0;
		const char *p[6];

		if ((rc = split_both(conninfo, ro_conninfo, &c, &ro, sec, &ns, err, errlen)) != OK)
			return rc;
		p[0] = name;
		p[1] = c;
		p[2] = ro && *ro ? ro : NULL;
		p[3] = metadata_file && *metadata_file ? metadata_file : NULL;
		p[4] = docs_dir && *docs_dir ? docs_dir : NULL;
		p[5] = ident;
		if ((rc = db_exec(app, "BEGIN", 0, NULL, err, errlen)) == OK) {
			r = db_query(app,
			             "INSERT INTO askql.targets (name, conninfo, ro_conninfo, metadata_file, docs_dir, ident, is_default) "
			             "VALUES ($1, $2, $3, $4, $5, $6, NOT EXISTS (SELECT 1 FROM askql.targets WHERE is_default))",
			             6, p, err, errlen);
			if (!r)
				rc = ERR_DB;
			PQclear(r);
			if (rc == OK) {
				char serr[512];

				rc = ns ? tsecret_store(conf_get("target_secrets_file"), name, sec, ns, serr, sizeof serr)
				        : forget_secrets(name, serr, sizeof serr);
				if (rc != OK)
					err_set(err, errlen, "the connection's password could not be kept apart: %s", serr);
			}
			if (rc == OK && (rc = db_exec(app, "COMMIT", 0, NULL, err, errlen)) != OK)
				forget_secrets(name, NULL, 0);
			if (rc != OK)
				db_exec(app, "ROLLBACK", 0, NULL, NULL, 0);
		}
		memset(sec, 0, sizeof sec);
		free(c);
		free(ro);
	}
	return rc;
}

enum err target_remove(PGconn *app, const char *name, char *err, size_t errlen)
{
	struct target t;
	const char *p[1] = {name};
	enum err rc;
	PGresult *r;
	long others;

	if ((rc = target_get(app, name, &t, err, errlen)) != OK)
		return rc;
	if (t.from_conf) {
		target_free(&t);
		err_set(err, errlen, "'%s' is the target configured in askql.conf (target_db); change the configuration instead", name);
		return ERR_DENIED;
	}
	if (!(r = db_query(app, "SELECT count(*) FROM askql.targets WHERE name <> $1", 1, p, err, errlen))) {
		target_free(&t);
		return ERR_DB;
	}
	others = atol(PQgetvalue(r, 0, 0));
	PQclear(r);
	if (t.is_default && others > 0) {
		target_free(&t);
		err_set(err, errlen, "'%s' is the default target; make another one the default first", name);
		return ERR_DENIED;
	}
	target_free(&t);
	if (db_exec(app, "BEGIN", 0, NULL, err, errlen) != OK)
		return ERR_DB;
	if (db_exec(app, "DELETE FROM askql.cat_targets WHERE name = $1", 1, p, err, errlen) != OK ||
	    db_exec(app, "DELETE FROM askql.targets WHERE name = $1", 1, p, err, errlen) != OK) {
		db_exec(app, "ROLLBACK", 0, NULL, NULL, 0);
		return ERR_DB;
	}
	if (db_exec(app, "COMMIT", 0, NULL, err, errlen) != OK)
		return ERR_DB;
	/* its password goes with it */
	{
		char serr[512];

		if (forget_secrets(name, serr, sizeof serr) != OK) {
			err_set(err, errlen, "'%s' is removed, but its password is still in the secrets file: %s", name, serr);
			return ERR_IO;
		}
	}
	return OK;
}

enum err target_set_default(PGconn *app, const char *name, char *err, size_t errlen)
{
	const char *p[1] = {name};
	PGresult *r;
	int n;

	if (db_exec(app, "BEGIN", 0, NULL, err, errlen) != OK)
		return ERR_DB;
	if (db_exec(app, "UPDATE askql.targets SET is_default = false WHERE is_default AND name <> $1", 1, p,
	            err, errlen) != OK ||
	    !(r = db_query(app, "UPDATE askql.targets SET is_default = true WHERE name = $1", 1, p, err, errlen))) {
		db_exec(app, "ROLLBACK", 0, NULL, NULL, 0);
		return ERR_DB;
	}
	n = atoi(PQcmdTuples(r));
	PQclear(r);
	if (n == 0) {
		db_exec(app, "ROLLBACK", 0, NULL, NULL, 0);
		err_set(err, errlen, "no target named '%s'", name);
		return ERR_NOTFOUND;
	}
	return db_exec(app, "COMMIT", 0, NULL, err, errlen) == OK ? OK : ERR_DB;
}

enum err target_resolve(PGconn *app, const char *spec, struct target *out, char *err, size_t errlen)
{
	char ident[512];
	char *masked;
	enum err rc;

	memset(out, 0, sizeof *out);
	if (!spec || !*spec) {
		rc = get_one(app, "t.is_default", NULL, out, err, errlen);
		if (rc == ERR_NOTFOUND)
			err_set(err, errlen, "no default target is registered: run askql migrate (registers the configured "
			                     "target_db) or askql target add NAME CONNINFO");
		return rc;
	}
	if (!target_is_conninfo(spec))
		return target_get(app, spec, out, err, errlen);
	if ((rc = target_ident(spec, ident, sizeof ident, err, errlen)) != OK)
		return rc;
	rc = get_one(app, "t.ident = $1", ident, out, err, errlen);
	if (rc == ERR_NOTFOUND) {
		masked = target_mask(spec);
		err_set(err, errlen, "the database %s is neither registered nor indexed: run askql index --target '%s' "
		                     "(or askql target add NAME '%s') first", ident, masked ? masked : "", masked ? masked : "");
		free(masked);
	}
	return rc;
}

enum err target_sync_conf(PGconn *app, char *err, size_t errlen)
{
	const char *name = conf_get("target_name"), *ci = conf_get("target_db"), *ro = conf_get("target_ro_db");
	const char *meta = conf_get("metadata_file"), *docs = conf_get("docs_dir");
	char ident[512];
	struct target other;
	enum err rc;
	PGresult *r;

	if (!*name || !*ci)
		return OK;
	if ((rc = target_ident(ci, ident, sizeof ident, err, errlen)) != OK)
		return rc;
	if ((rc = not_app_db(app, ci, target_conn_deadline(), err, errlen)) != OK ||
	    (rc = not_app_db(app, ro, target_conn_deadline(), err, errlen)) != OK)
		return rc;
	if (get_one(app, "t.ident = $1", ident, &other, NULL, 0) == OK) {
		int same = !strcmp(other.name, name);

		if (!same) {
			err_set(err, errlen, "the configured target_db (%s) is registered as '%s', not as target_name '%s'",
			        ident, other.name, name);
			target_free(&other);
			return ERR_DENIED;
		}
		target_free(&other);
	}
	{
		/* the configuration stays the source of its secrets: the table's copy has none */
		struct tsecret sec[2 * TSECRET_MAX];
		char *c = NULL, *rc_ro = NULL;
		int ns = 0;

		if ((rc = split_both(ci, ro, &c, &rc_ro, sec, &ns, err, errlen)) != OK)
			return rc;
		memset(sec, 0, sizeof sec);
		const char *p[6] = {name, c, rc_ro && *rc_ro ? rc_ro : NULL, *meta ? meta : NULL, *docs ? docs : NULL, ident};

		r = db_query(app,
		             "INSERT INTO askql.targets AS t (name, conninfo, ro_conninfo, metadata_file, docs_dir, ident, "
		             "from_conf, is_default) VALUES ($1, $2, $3, $4, $5, $6, true, "
		             "NOT EXISTS (SELECT 1 FROM askql.targets WHERE is_default)) "
		             "ON CONFLICT (name) DO UPDATE SET conninfo = $2, ro_conninfo = $3, metadata_file = $4, "
		             "docs_dir = $5, ident = $6, from_conf = true",
		             6, p, err, errlen);
		free(c);
		free(rc_ro);
	}
	if (!r)
		return ERR_DB;
	PQclear(r);
	return OK;
}

/* one value of a probe query on c into buf ("" on error or after end) */
static void probe(PGconn *c, const char *sql, char *buf, size_t n, double end)
{
	PGresult *r = target_conn_query(c, sql, end);

	snprintf(buf, n, "%s", PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) ? PQgetvalue(r, 0, 0) : "");
	PQclear(r);
}

static void warn(struct target_check *c, const char *msg)
{
	size_t used = strlen(c->warnings);

	snprintf(c->warnings + used, sizeof c->warnings - used, "%s\n", msg);
	c->nwarnings++;
}

void target_conn_error_scrub(char *msg)
{
	/* libpq's phrases followed by what the peer sent (fe-connect.c), each with the words that take
	 * their place: never longer than the phrase, so the message shrinks in its own buffer, ending
	 * there (what followed on the line was the peer's; later lines rarely matter) */
	static const char *const echo[][2] = {
		{"negotiation: ", "negotiation"},
		{"but received ", "but got other"},
	};
	char *p;

	for (size_t k = 0; msg && k < sizeof echo / sizeof echo[0]; k++)
		if ((p = strstr(msg, echo[k][0]))) {
			size_t l = strlen(echo[k][1]);

			memcpy(p, echo[k][1], l);
			p[l] = '\0';
		}
}

enum err target_test(const struct target *t, struct target_check *c)
{
	/* one deadline for the whole test (issue 27): a tarpit holds the worker that long at most */
	double end = target_conn_deadline();
	PGconn *ix, *ro;
	char v[256];

	memset(c, 0, sizeof *c);
	c->ro_same_as_index = !(t->ro_conninfo && *t->ro_conninfo);
	if ((ix = target_conn_open(t->conninfo, end, &c->index_fail))) {
		c->index_ok = 1;
		probe(ix, "SHOW server_version", c->server_version, sizeof c->server_version, end);
		PQfinish(ix);
		if (!*c->server_version && target_conn_now_ms() >= end) {
			c->index_ok = 0;
			c->index_fail.fail = TCONN_STALLED;
		}
	}
	if (!c->index_ok)
		target_conn_text(&c->index_fail, c->index_error, sizeof c->index_error);
	/* the same connection string again would fail the same way, after as long */
	if (c->ro_same_as_index && !c->index_ok)
		ro = NULL, c->ro_fail = c->index_fail;
	else
		ro = target_conn_open(target_exec_conninfo(t), end, &c->ro_fail);
	if (!ro) {
		target_conn_text(&c->ro_fail, c->ro_error, sizeof c->ro_error);
		return ERR_DB;
	}
	c->ro_ok = 1;
	if (!*c->server_version)
		probe(ro, "SHOW server_version", c->server_version, sizeof c->server_version, end);
	probe(ro, "SELECT current_user", c->ro_user, sizeof c->ro_user, end);
	probe(ro, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user", v, sizeof v, end);
	c->ro_superuser = v[0] == 't';
	probe(ro, "SELECT has_database_privilege(current_database(), 'CREATE') OR "
	          "EXISTS (SELECT 1 FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema' "
	          "AND has_schema_privilege(oid, 'CREATE')) OR "
	          "(SELECT rolcreatedb OR rolcreaterole FROM pg_roles WHERE rolname = current_user)", v, sizeof v, end);
	c->ro_can_create = v[0] == 't';
	probe(ro, "SELECT count(*) FROM pg_class k JOIN pg_namespace n ON n.oid = k.relnamespace "
	          "WHERE k.relkind IN ('r','v','m','p','f') AND n.nspname NOT IN ('pg_catalog','information_schema') "
	          "AND n.nspname NOT LIKE 'pg\\_toast%' AND has_table_privilege(k.oid, 'SELECT')", v, sizeof v, end);
	c->ro_readable_tables = atol(v);
	probe(ro, "SELECT count(*) FROM pg_class k JOIN pg_namespace n ON n.oid = k.relnamespace "
	          "WHERE k.relkind IN ('r','p','f') AND n.nspname NOT IN ('pg_catalog','information_schema') "
	          "AND n.nspname NOT LIKE 'pg\\_toast%' "
	          "AND has_table_privilege(k.oid, 'INSERT, UPDATE, DELETE, TRUNCATE')", v, sizeof v, end);
	c->ro_writable_tables = atol(v);
	c->ro_can_write = c->ro_superuser || c->ro_writable_tables > 0;
	probe(ro, "SELECT pg_has_role(current_user, 'pg_read_server_files', 'USAGE') OR "
	          "pg_has_role(current_user, 'pg_read_all_settings', 'USAGE') OR "
	          "pg_has_role(current_user, 'pg_execute_server_program', 'USAGE') OR "
	          "has_table_privilege('pg_catalog.pg_authid', 'SELECT')", v, sizeof v, end);
	c->ro_reads_secrets = c->ro_superuser || v[0] == 't';
	/* what a login of the role gets; the executor sets work_mem itself, temp_file_limit
	 * only when the role may (docs/executor-limits.md) */
	probe(ro, "SHOW temp_file_limit", c->ro_temp_file_limit, sizeof c->ro_temp_file_limit, end);
	probe(ro, "SHOW work_mem", c->ro_work_mem, sizeof c->ro_work_mem, end);
	PQfinish(ro);
	if (!*c->ro_work_mem && target_conn_now_ms() >= end) {
		/* logged in, then stalled: what the probes found is incomplete, so no warnings from it */
		c->ro_ok = 0;
		c->ro_fail.fail = TCONN_STALLED;
		target_conn_text(&c->ro_fail, c->ro_error, sizeof c->ro_error);
		return ERR_DB;
	}
	if (c->ro_superuser)
		warn(c, "WARNING: the read-only connection is a SUPERUSER: it can do anything; register a least-privilege role with --ro");
	if (c->ro_writable_tables > 0) {
		snprintf(v, sizeof v, "WARNING: the read-only role can write %ld table(s) (INSERT/UPDATE/DELETE/TRUNCATE)",
		         c->ro_writable_tables);
		warn(c, v);
	}
	if (c->ro_can_create)
		warn(c, "WARNING: the read-only role can create objects (a schema, a database or roles)");
	if (c->ro_reads_secrets)
		warn(c, "WARNING: the read-only role can read server files, all settings or password hashes");
	if (!strcmp(c->ro_temp_file_limit, "-1") && !c->ro_superuser) {
		snprintf(v, sizeof v, "WARNING: the read-only role has no temp_file_limit: one query may fill the "
		         "server's disk with temporary files; as a superuser: ALTER ROLE %s SET temp_file_limit = '256MB'",
		         c->ro_user);
		warn(c, v);
	}
	if (c->ro_same_as_index)
		warn(c, "note: no separate read-only connection is registered; the executor uses the indexing connection");
	if (c->ro_readable_tables == 0)
		warn(c, "WARNING: the read-only role can read no table; grant SELECT on the tables to ask about");
	return OK;
}

/* move_row: the secrets of one row of askql.targets (name, conninfo, ro_conninfo, from_conf) into the
 * file, then the row without them; 1 when it held any */
static int move_row(PGconn *app, PGresult *r, int i, char *err, size_t errlen, enum err *rc)
{
	const char *name = PQgetvalue(r, i, 0), *ci = PQgetvalue(r, i, 1);
	const char *ro = PQgetisnull(r, i, 2) ? NULL : PQgetvalue(r, i, 2);
	int from_conf = PQgetvalue(r, i, 3)[0] == 't', ns = 0, no = 0, k;
	struct tsecret sec[TSECRET_MAX], old[TSECRET_MAX], all[2 * TSECRET_MAX];
	char *c = NULL, *cro = NULL;
	const char *path = conf_get("target_secrets_file");

	if ((*rc = split_both(ci, ro, &c, &cro, sec, &ns, err, errlen)) != OK || ns == 0) {
		/* a row that does not parse connects to nothing; it does not stop the others */
		if (*rc == ERR_PARSE) {
			log_warn("target %s: its connection string does not parse; left as it is", name);
			*rc = OK;
		}
		free(c);
		free(cro);
		return 0;
	}
	/* the configured target's secrets stay in the configuration; others join what the file has for the
	 * name, replacing those of the same connection */
	if (!from_conf) {
		if ((*rc = tsecret_load(path, name, old, &no, TSECRET_MAX, err, errlen)) != OK)
			goto out;
		k = 0;
		for (int j = 0; j < no; j++) {
			int replaced = 0;

			for (int m = 0; m < ns; m++)
				replaced |= !strcmp(old[j].which, sec[m].which);
			if (!replaced)
				all[k++] = old[j];
		}
		for (int m = 0; m < ns; m++)
			all[k++] = sec[m];
		if ((*rc = tsecret_store(path, name, all, k, err, errlen)) != OK)
			goto out;
	}
	{
		const char *p[5] = {name, c, cro, ci, ro};

		*rc = db_exec(app, "UPDATE askql.targets SET conninfo = $2, ro_conninfo = $3 WHERE name = $1 "
		              "AND conninfo = $4 AND ro_conninfo IS NOT DISTINCT FROM $5", 5, p, err, errlen);
	}
out:
	memset(sec, 0, sizeof sec);
	memset(old, 0, sizeof old);
	memset(all, 0, sizeof all);
	free(c);
	free(cro);
	return *rc == OK;
}

enum err target_secrets_move(PGconn *app, int *moved, char *err, size_t errlen)
{
	PGresult *r;
	enum err rc = OK;

	*moved = 0;
	if (!(r = db_query(app, "SELECT name, conninfo, ro_conninfo, from_conf FROM askql.targets ORDER BY name", 0, NULL,
	                   err, errlen)))
		return ERR_DB;
	for (int i = 0; i < PQntuples(r) && rc == OK; i++)
		*moved += move_row(app, r, i, err, errlen, &rc);
	PQclear(r);
	if (rc != OK)
		return rc;
	/* the catalog's copy of the indexing connection (catalog/index.c keeps it without its password)
	 * loses any other secret too */
	if (!(r = db_query(app, "SELECT name, conninfo FROM askql.cat_targets WHERE conninfo ~ 'password'", 0, NULL,
	                   err, errlen)))
		return ERR_DB;
	for (int i = 0; i < PQntuples(r) && rc == OK; i++) {
		struct tsecret sec[TSECRET_MAX];
		char *c = NULL;
		int ns = 0;

		if (tsecret_split(PQgetvalue(r, i, 1), "conn", &c, sec, &ns, TSECRET_MAX, err, errlen) == OK && ns) {
			const char *p[3] = {PQgetvalue(r, i, 0), c, PQgetvalue(r, i, 1)};

			rc = db_exec(app, "UPDATE askql.cat_targets SET conninfo = $2 WHERE name = $1 AND conninfo = $3", 3, p,
			             err, errlen);
		}
		memset(sec, 0, sizeof sec);
		free(c);
	}
	PQclear(r);
	return rc;
}
