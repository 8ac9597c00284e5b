/* access.c: the audit of data access: one append-only askql.access_audit row per run execution, result page, download or export (access.h). */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "catalog/catalog.h"
#include "catalog/phi.h"
#include "sql/guard.h"
#include "store/access.h"
#include "store/db.h"
#include "util/log.h"

#define ACCESS_REFS_MAX 256      /* catalog references of one statement looked at */

const char *access_kind_name(enum access_kind k)
{
	static const char *const n[] = {"run", "view", "download", "export", "audit_export"};

	return (unsigned)k < sizeof n / sizeof *n ? n[k] : "run";
}

const char *access_channel_name(enum access_channel c)
{
	static const char *const n[] = {"web", "api", "cli"};

	return (unsigned)c < sizeof n / sizeof *n ? n[c] : "web";
}

int access_ready(PGconn *app)
{
	PGresult *r;
	int ok;

	if (!app)
		return 0;
	r = db_query(app, "SELECT has_table_privilege('askql.access_audit', 'INSERT')", 0, NULL, NULL, 0);
	ok = r && PQntuples(r) == 1 && PQgetvalue(r, 0, 0)[0] == 't';
	PQclear(r);
	return ok;
}

/* the login name of the process's real user ("uid:N" when it has none) */
static const char *os_user(char *buf, size_t n)
{
	struct passwd *pw = getpwuid(getuid());

	if (pw && pw->pw_name)
		snprintf(buf, n, "%s", pw->pw_name);
	else
		snprintf(buf, n, "uid:%u", (unsigned)getuid());
	return buf;
}

/* every column of table appended to refs[0..n) unless already there; the new count */
static int add_table(struct catalog *cat, const char *table, struct cat_ref *refs, int n)
{
	struct cat_ref all[ACCESS_REFS_MAX];
	int m = catalog_table_columns(cat, table, all, ACCESS_REFS_MAX);

	for (int i = 0; i < m && n < ACCESS_REFS_MAX; i++) {
		int dup = 0;

		for (int k = 0; k < n && !dup; k++)
			dup = refs[k].column && !strcmp(refs[k].table, all[i].table) && !strcmp(refs[k].column, all[i].column);
		if (!dup)
			refs[n++] = all[i];
	}
	return n;
}

/* The catalog columns sql reads with their class into cols ([{"table","column","class"}]) and the
 * distinct classes into classes.  Tables the SQL names without a column of theirs are listed with
 * column null. */
static void columns_read(struct catalog *cat, const char *sql, const struct guard_result *g, cJSON *cols,
                         cJSON *classes)
{
	struct cat_ref refs[ACCESS_REFS_MAX];
	int parsed, n = catalog_sql_refs(cat, sql, refs, ACCESS_REFS_MAX, &parsed);

	/* a star reads every column of its table ("t.*", alias resolved by the guard) or of every
	 * table of the statement ("*"); catalog_sql_refs names only the table */
	for (int i = 0; i < g->ncolumns && n < ACCESS_REFS_MAX; i++) {
		const char *c = g->columns[i];
		size_t l = strlen(c);

		if (!strcmp(c, "*")) {
			for (int k = 0; k < g->ntables && n < ACCESS_REFS_MAX; k++)
				n = add_table(cat, g->tables[k], refs, n);
		} else if (l > 2 && !strcmp(c + l - 2, ".*")) {
			char t[300];

			snprintf(t, sizeof t, "%.*s", (int)(l - 2), c);
			n = add_table(cat, t, refs, n);
		}
	}

	for (int i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();
		struct phi_info pi;
		char name[600];

		cJSON_AddStringToObject(o, "table", refs[i].table ? refs[i].table : "");
		if (!refs[i].column) {
			cJSON_AddNullToObject(o, "column");
			cJSON_AddItemToArray(cols, o);
			continue;
		}
		cJSON_AddStringToObject(o, "column", refs[i].column);
		snprintf(name, sizeof name, "%s.%s", refs[i].table ? refs[i].table : "", refs[i].column);
		if (phi_column_class(cat, name, &pi) == OK) {
			const char *cn = phi_class_name(pi.cls);
			int seen = 0;
			cJSON *c;

			cJSON_AddStringToObject(o, "class", cn);
			cJSON_ArrayForEach(c, classes)
				seen |= !strcmp(c->valuestring, cn);
			if (!seen)
				cJSON_AddItemToArray(classes, cJSON_CreateString(cn));
		}
		cJSON_AddItemToArray(cols, o);
	}
}

/* classes as a PostgreSQL text[] literal: the class names are plain words */
static void array_literal(const cJSON *classes, char *buf, size_t n)
{
	size_t o = 0;
	const cJSON *c;

	o += (size_t)snprintf(buf, n, "{");
	cJSON_ArrayForEach(c, classes)
		if (o < n)
			o += (size_t)snprintf(buf + o, n - o, "%s%s", o > 1 ? "," : "", c->valuestring);
	if (o < n)
		snprintf(buf + o, n - o, "}");
}

enum err access_record(PGconn *app, const struct access_rec *a, char *err, size_t errlen)
{
	struct guard_result g;
	struct guard_opts go = {0};
	cJSON *cols = cJSON_CreateArray(), *classes = cJSON_CreateArray(), *lost = NULL;
	char *cols_s = NULL, *lost_s = NULL, cls_s[128], uid[24], run[24], rows[24], osu[64], e[512] = "";
	char *user_name = NULL;
	const char *p[16];
	long long user_id;
	enum err rc = OK;

	memset(&g, 0, sizeof g);
	if (!a) {
		snprintf(err, errlen, "no access to record");
		rc = ERR_INPUT;
		goto out;
	}
	user_id = a->user_id;
	user_name = a->user_name ? strdup(a->user_name) : NULL;
	if (a->user_from_run && a->run_id > 0 && app) {
		/* a run executing records its owner (none for a run of the CLI) */
		PGresult *r;

		snprintf(run, sizeof run, "%lld", a->run_id);
		r = db_query(app, "SELECT r.user_id, u.name FROM askql.runs r LEFT JOIN askql.users u ON u.id = r.user_id "
		             "WHERE r.id = $1", 1, (const char *const[]){run}, NULL, 0);
		if (r && PQntuples(r) == 1 && !PQgetisnull(r, 0, 0)) {
			user_id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
			free(user_name);
			user_name = PQgetisnull(r, 0, 1) ? NULL : strdup(PQgetvalue(r, 0, 1));
		}
		PQclear(r);
	}
	/* the fingerprint history keeps (pg_query_fingerprint through the guard's parse) */
	if (a->sql && *a->sql)
		guard_check(a->sql, &go, &g);
	if (a->sql && *a->sql) {
		struct catalog *cat = a->cat;
		char ce[256];

		if (!cat && a->target && app)
			cat = catalog_get(app, a->target, ce, sizeof ce);
		if (cat)
			columns_read(cat, a->sql, &g, cols, classes);
	}
	cols_s = cJSON_PrintUnformatted(cols);
	array_literal(classes, cls_s, sizeof cls_s);
	snprintf(uid, sizeof uid, "%lld", user_id);
	snprintf(run, sizeof run, "%lld", a->run_id);
	snprintf(rows, sizeof rows, "%lld", a->rows);
	p[0] = access_kind_name(a->kind);
	/* a run with no owner was started by the CLI */
	p[1] = access_channel_name(a->user_from_run && user_id <= 0 ? ACCESS_CLI : a->channel);
	p[2] = user_id > 0 ? uid : NULL;
	p[3] = user_id > 0 ? user_name : NULL;
	p[4] = user_id > 0 ? NULL : os_user(osu, sizeof osu);
	p[5] = a->target;
	p[6] = a->run_id > 0 ? run : NULL;
	p[7] = g.fingerprint;
	p[8] = a->sql;
	p[9] = cols_s ? cols_s : "[]";
	p[10] = cls_s;
	p[11] = a->rows >= 0 ? rows : NULL;
	p[12] = a->format;
	p[13] = a->failed ? "f" : "t";
	p[14] = a->detail_json;
	p[15] = a->level;
	if (!app) {
		snprintf(e, sizeof e, "no connection to the app database");
		rc = ERR_DB;
	} else {
		/* the level the caller says the rows were read at; else the user's on that target now
		 * (askql.user_levels, store/level.h): what the executor ran under, as it reads the same
		 * row when it connects */
		rc = db_exec(app, "INSERT INTO askql.access_audit (kind, channel, user_id, user_name, os_user, target, run_id, "
		             "sql_fingerprint, sql_text, columns, classes, row_count, format, ok, detail, access_level) "
		             "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11::text[], $12, $13, $14, $15::jsonb, "
		             "coalesce($16, (SELECT level FROM askql.user_levels WHERE user_id = $3::bigint AND target = $6), 'identified'))",
		             16, p, e, sizeof e);
	}
	if (rc != OK) {
		/* never silently: the whole record goes to the error log, where it can be replayed */
		static const char *const keys[16] = {"kind", "channel", "user_id", "user_name", "os_user", "target", "run_id",
		                                     "sql_fingerprint", "sql_text", "columns", "classes", "row_count",
		                                     "format", "ok", "detail", "access_level"};

		lost = cJSON_CreateObject();
		for (int i = 0; i < 16; i++)
			if (i == 9)
				cJSON_AddItemReferenceToObject(lost, keys[i], cols);
			else if (i == 10)
				cJSON_AddItemReferenceToObject(lost, keys[i], classes);
			else if (p[i])
				cJSON_AddStringToObject(lost, keys[i], p[i]);
		lost_s = cJSON_PrintUnformatted(lost);
		log_error("access audit NOT WRITTEN (%s): %s", e, lost_s ? lost_s : "(no memory for the record)");
		snprintf(err, errlen, "the access could not be audited: %s", e);
		rc = ERR_DB;
	}
out:
	guard_free(&g);
	free(user_name);
	free(cols_s);
	free(lost_s);
	cJSON_Delete(lost);
	cJSON_Delete(cols);
	cJSON_Delete(classes);
	return rc;
}
