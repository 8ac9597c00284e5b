/* level.c: access levels per user and target: the roles, views and column GRANTs in the target database, and the connection each level's SQL runs on. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "store/db.h"
#include "store/level.h"
#include "store/target.h"
#include "util/sb.h"

static const char *const names[LEVEL__MAX] = {"identified", "limited", "aggregate"};

const char *level_name(enum level lv)
{
	return (unsigned)lv < LEVEL__MAX ? names[lv] : "identified";
}

int level_parse(const char *s, enum level *out)
{
	for (int i = 0; s && i < LEVEL__MAX; i++)
		if (!strcmp(s, names[i])) {
			*out = (enum level)i;
			return 0;
		}
	return -1;
}

void level_role_prefix(const char *target, char *out, size_t n)
{
	size_t k = 0;
	int w = snprintf(out, n, "askql_");

	k = w > 0 && (size_t)w < n ? (size_t)w : 0;
	for (const char *p = target ? target : ""; *p && k + 1 < n && k < 46; p++) {
		unsigned char c = (unsigned char)tolower((unsigned char)*p);

		out[k++] = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ? (char)c : '_';
	}
	out[k] = 0;
}

enum err level_of(PGconn *app, long long user_id, const char *target, enum level *out,
                  char *err, size_t errlen)
{
	char uid[24];
	const char *p[2] = {uid, target};
	PGresult *r;

	*out = LEVEL_IDENTIFIED;
	if (user_id <= 0 || !target)
		return OK;
	snprintf(uid, sizeof uid, "%lld", user_id);
	if (!(r = db_query(app, "SELECT level FROM askql.user_levels WHERE user_id = $1::bigint AND target = $2",
	                   2, p, err, errlen)))
		return ERR_DB;
	if (PQntuples(r) && level_parse(PQgetvalue(r, 0, 0), out) != 0)
		*out = LEVEL_AGGREGATE;   /* a value the CHECK should have refused: the strictest */
	PQclear(r);
	return OK;
}

int level_allows(enum level viewer, enum level held)
{
	/* the enum runs from least to most restrictive */
	return viewer <= held;
}

/* the names in the enum's order: array_position gives 1 for identified ... 3 for aggregate */
#define LEVEL_ARRAY "ARRAY['identified','limited','aggregate']"

/* The viewer's stored levels are read by an uncorrelated subquery (PostgreSQL runs it once, an
 * InitPlan) into a map from target to level, looked up per row: a subquery correlated with each run
 * made every deep history page, search and grouping a lookup per row (bench/web.sh: grouped 56 ms
 * became 364 ms). */
void level_sql_viewer(struct sb *out, const char *run_alias, int uid_param)
{
	/* an unknown stored name becomes 'aggregate', as level_of turns it into the strictest */
	sb_printf(out, "coalesce((SELECT jsonb_object_agg(l.target, CASE WHEN array_position(" LEVEL_ARRAY ", l.level) IS NULL "
	          "THEN 'aggregate' ELSE l.level END) FROM askql.user_levels l WHERE l.user_id = $%d::bigint) ->> %s.target, "
	          "'identified')", uid_param, run_alias);
}

void level_sql_allows(struct sb *out, const char *run_alias, int uid_param)
{
	/* level_allows: viewer <= held, the positions standing for the enum (unknown stored: 3) */
	sb_printf(out, "(coalesce(array_position(" LEVEL_ARRAY ", %s.access_level), 1) >= coalesce(((SELECT "
	          "jsonb_object_agg(l.target, coalesce(array_position(" LEVEL_ARRAY ", l.level), 3)) FROM askql.user_levels l "
	          "WHERE l.user_id = $%d::bigint) ->> %s.target)::int, 1))", run_alias, uid_param, run_alias);
}

enum err level_run_record(PGconn *app, long long run_id, enum level lv, char *err, size_t errlen)
{
	char rid[24];
	const char *p[2] = {rid, level_name(lv)};

	if (run_id <= 0)
		return OK;
	snprintf(rid, sizeof rid, "%lld", run_id);
	/* array_position orders the names as the enum does; NULL (not recorded yet) takes the new one */
	return db_exec(app, "UPDATE askql.runs SET access_level = CASE WHEN access_level IS NULL OR "
	               "array_position(ARRAY['identified','limited','aggregate'], $2) < "
	               "array_position(ARRAY['identified','limited','aggregate'], access_level) "
	               "THEN $2 ELSE access_level END WHERE id = $1::bigint", 2, p, err, errlen);
}

enum err level_set(PGconn *app, long long user_id, const char *target, enum level lv, long long by,
                   char *err, size_t errlen)
{
	char uid[24], bid[24];
	const char *p[4] = {uid, target, level_name(lv), by > 0 ? bid : NULL};
	PGresult *r;
	enum err rc;

	snprintf(uid, sizeof uid, "%lld", user_id);
	snprintf(bid, sizeof bid, "%lld", by);
	if ((rc = db_exec(app, "BEGIN", 0, NULL, err, errlen)) != OK)
		return rc;
	/* the previous level is read under the row lock, so the audit row says what it really replaced */
	r = db_query(app, "SELECT u.name, (SELECT level FROM askql.user_levels l WHERE l.user_id = u.id AND l.target = $2 FOR UPDATE), "
	                  "EXISTS (SELECT 1 FROM askql.targets WHERE name = $2) FROM askql.users u WHERE u.id = $1::bigint",
	             2, p, err, errlen);
	if (!r) {
		rc = ERR_DB;
		goto fail;
	}
	if (!PQntuples(r) || PQgetvalue(r, 0, 2)[0] != 't') {
		snprintf(err, errlen, PQntuples(r) ? "no target named %s" : "no user with id %s", PQntuples(r) ? target : uid);
		PQclear(r);
		rc = ERR_NOTFOUND;
		goto fail;
	}
	{
		struct sb det = SB_INIT;
		const char *prev = PQgetisnull(r, 0, 1) ? "identified" : PQgetvalue(r, 0, 1);
		const char *a[3];

		sb_puts(&det, "{\"user\":");
		sb_json_str(&det, PQgetvalue(r, 0, 0));
		sb_printf(&det, ",\"user_id\":%lld,\"target\":", user_id);
		sb_json_str(&det, target);
		sb_puts(&det, ",\"level\":");
		sb_json_str(&det, level_name(lv));
		sb_puts(&det, ",\"previous\":");
		sb_json_str(&det, prev);
		sb_puts(&det, "}");
		PQclear(r);
		a[0] = p[3];
		a[1] = "level.set";
		a[2] = sb_cstr(&det);
		rc = db_exec(app, "INSERT INTO askql.user_levels (user_id, target, level, set_by) VALUES ($1::bigint, $2, $3, $4::bigint) "
		                  "ON CONFLICT (user_id, target) DO UPDATE SET level = EXCLUDED.level, set_by = EXCLUDED.set_by, set_at = now()",
		             4, p, err, errlen);
		if (rc == OK)
			rc = db_exec(app, "INSERT INTO askql.audit (user_id, action, detail) VALUES ($1::bigint, $2, $3::jsonb)",
			             3, a, err, errlen);
		sb_free(&det);
		if (rc != OK)
			goto fail;
	}
	return db_exec(app, "COMMIT", 0, NULL, err, errlen);
fail:
	db_exec(app, "ROLLBACK", 0, NULL, NULL, 0);
	return rc;
}

/* quote: a single-quoted conninfo value (backslash and quote escaped) */
static void quote(struct sb *s, const char *v)
{
	sb_putc(s, '\'');
	for (; *v; v++) {
		if (*v == '\'' || *v == '\\')
			sb_putc(s, '\\');
		sb_putc(s, *v);
	}
	sb_putc(s, '\'');
}

/* with_options: base (key=value or URI) rebuilt as key=value with extra appended to options */
static enum err with_options(const char *base, const char *extra, char **out, char *err, size_t errlen)
{
	char *perr = NULL;
	PQconninfoOption *o = PQconninfoParse(base ? base : "", &perr), *x;
	struct sb s = SB_INIT;
	int had = 0;

	if (!o) {
		snprintf(err, errlen, "the read-only connection does not parse: %s", perr ? perr : "?");
		PQfreemem(perr);
		return ERR_PARSE;
	}
	for (x = o; x->keyword; x++) {
		int opt = !strcmp(x->keyword, "options");

		if (!x->val && !opt)
			continue;
		if (opt) {
			struct sb v = SB_INIT;

			had = 1;
			if (x->val && *x->val)
				sb_printf(&v, "%s ", x->val);
			sb_puts(&v, extra);
			sb_printf(&s, "%soptions=", sb_cstr(&s)[0] ? " " : "");
			quote(&s, sb_cstr(&v));
			sb_free(&v);
			continue;
		}
		sb_printf(&s, "%s%s=", sb_cstr(&s)[0] ? " " : "", x->keyword);
		quote(&s, x->val);
	}
	if (!had) {
		sb_puts(&s, " options=");
		quote(&s, extra);
	}
	PQconninfoFree(o);
	if (!sb_ok(&s)) {
		sb_free(&s);
		return ERR_NOMEM;
	}
	*out = sb_steal(&s);
	return OK;
}

/* setup_prefix: the role prefix of t's levels ("" when t is not set up) */
static enum err setup_prefix(PGconn *app, const char *target, char *out, size_t n, char *err, size_t errlen)
{
	const char *p[1] = {target};
	PGresult *r = db_query(app, "SELECT role_prefix FROM askql.target_levels WHERE target = $1", 1, p, err, errlen);

	if (!r)
		return ERR_DB;
	snprintf(out, n, "%s", PQntuples(r) ? PQgetvalue(r, 0, 0) : "");
	PQclear(r);
	return OK;
}

int level_ready(PGconn *app, const char *target)
{
	char prefix[64], err[128];

	return target && setup_prefix(app, target, prefix, sizeof prefix, err, sizeof err) == OK && *prefix;
}

/* level_extra: the startup options of a level's sessions */
static void level_extra(const char *prefix, enum level lv, char *buf, size_t n)
{
	snprintf(buf, n, "-c role=%s_%s%s", prefix, level_name(lv),
	         lv == LEVEL_IDENTIFIED ? "" : " -c search_path=" LEVEL_VIEW_SCHEMA ",public");
}

/* conninfo_at_least: level_conninfo with user_id's level raised to at least floor (an export for
 * release asks for LEVEL_LIMITED; level_conninfo for none, LEVEL_IDENTIFIED) */
static enum err conninfo_at_least(PGconn *app, const struct target *t, long long user_id, enum level floor,
                                  char **out, enum level *lv_out, char *err, size_t errlen)
{
	enum level lv;
	char prefix[64], extra[256];
	enum err rc;

	*out = NULL;
	if ((rc = level_of(app, user_id, t->name, &lv, err, errlen)) != OK)
		return rc;
	if (lv < floor)
		lv = floor;
	if (lv_out)
		*lv_out = lv;
	if ((rc = setup_prefix(app, t->name, prefix, sizeof prefix, err, errlen)) != OK)
		return rc;
	if (!*prefix) {
		if (floor > LEVEL_IDENTIFIED) {
			snprintf(err, errlen, "an export for release is read through the de-identified views of the limited "
			         "level, and access levels are not set up for %s yet (an administrator runs: askql target "
			         "levels %s)", t->name, t->name);
			return ERR_DENIED;
		}
		if (lv != LEVEL_IDENTIFIED) {
			snprintf(err, errlen, "your access level on %s is %s, but access levels are not set up for this "
			         "database yet (an administrator runs: askql target levels %s)", t->name, level_name(lv), t->name);
			return ERR_DENIED;
		}
		*out = strdup(target_exec_conninfo(t));
		return *out ? OK : ERR_NOMEM;
	}
	level_extra(prefix, lv, extra, sizeof extra);
	return with_options(target_exec_conninfo(t), extra, out, err, errlen);
}

enum err level_conninfo(PGconn *app, const struct target *t, long long user_id, char **out,
                        enum level *lv_out, char *err, size_t errlen)
{
	return conninfo_at_least(app, t, user_id, LEVEL_IDENTIFIED, out, lv_out, err, errlen);
}

enum err level_conninfo_release(PGconn *app, const struct target *t, long long user_id, char **out,
                                enum level *lv_out, char *err, size_t errlen)
{
	return conninfo_at_least(app, t, user_id, LEVEL_LIMITED, out, lv_out, err, errlen);
}

int level_conninfo_is_aggregate(const char *conninfo)
{
	char *perr = NULL;
	PQconninfoOption *o, *x;
	int yes = 0;

	if (!conninfo || !strstr(conninfo, "_aggregate"))
		return 0;   /* the common case, without parsing */
	if (!(o = PQconninfoParse(conninfo, &perr))) {
		PQfreemem(perr);
		return 0;
	}
	for (x = o; x->keyword; x++) {
		const char *r;

		if (strcmp(x->keyword, "options") || !x->val || !(r = strstr(x->val, "-c role=askql_")))
			continue;
		r += strlen("-c role=");
		size_t n = strcspn(r, " ");
		yes = n > strlen("_aggregate") && !strncmp(r + n - strlen("_aggregate"), "_aggregate", strlen("_aggregate"));
	}
	PQconninfoFree(o);
	return yes;
}

/* ---- setting up a target ------------------------------------------------------------ */

/* run: one statement on c; its error into err */
static enum err run(PGconn *c, const char *sql, char *err, size_t errlen)
{
	PGresult *r = PQexec(c, sql);
	enum err rc = OK;

	if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) {
		snprintf(err, errlen, "%s", PQresultErrorMessage(r));
		for (size_t k = strlen(err); k > 0 && (err[k - 1] == '\n' || err[k - 1] == ' '); k--)
			err[k - 1] = 0;
		rc = ERR_DB;
	}
	PQclear(r);
	return rc;
}

/* ident: PQescapeIdentifier into s */
static void ident(struct sb *s, PGconn *c, const char *name)
{
	char *q = PQescapeIdentifier(c, name, strlen(name));

	sb_puts(s, q ? q : "\"\"");
	PQfreemem(q);
}

/* generalised: the view expression of a quasi-identifier, or NULL when it has none */
static const char *generalised(const char *type, const char *rule)
{
	if (!strcmp(type, "date"))
		return "date_trunc('month', %s)::date";
	if (!strncmp(type, "timestamp", 9))
		return "date_trunc('month', %s)";
	if (rule && !strcmp(rule, "age") &&
	    (!strcmp(type, "integer") || !strcmp(type, "smallint") || !strcmp(type, "bigint") ||
	     !strncmp(type, "numeric", 7) || !strcmp(type, "real") || !strcmp(type, "double precision")))
		return "CASE WHEN %s > 89 THEN 90 ELSE %s END";
	/* a postcode keeps its first three characters: the district (docs/privacy.md) */
	if (rule && !strcmp(rule, "postcode") &&
	    (!strcmp(type, "text") || !strncmp(type, "character", 9) || !strncmp(type, "varchar", 7)))
		return "left(%s, 3)";
	return NULL;
}

/* readable: may limited and aggregate read this column (through its view)? */
static int readable(const char *cls, const char *type, const char *rule)
{
	if (!strcmp(cls, "none") || !strcmp(cls, "sensitive"))
		return 1;
	if (!strcmp(cls, "quasi"))
		return generalised(type, rule) != NULL;
	return 0;   /* direct, or not classified yet: treated as direct */
}

enum err level_refresh(PGconn *app, const struct target *t, int *done, char *err, size_t errlen)
{
	char prefix[64];
	const char *p[1] = {t->name};
	PGresult *r = NULL;
	PGconn *c = NULL;
	struct sb s = SB_INIT, cols = SB_INIT, grants = SB_INIT;
	enum err rc;
	int n;

	if (done)
		*done = 0;
	if ((rc = setup_prefix(app, t->name, prefix, sizeof prefix, err, errlen)) != OK || !*prefix)
		return rc;
	if (!(r = db_query(app, "SELECT schema_name, table_name, column_name, type, coalesce(class, 'unclassified'), "
	                        "coalesce(rule, '') FROM askql.phi_columns c WHERE target = $1 AND schema_name <> '" LEVEL_VIEW_SCHEMA "' ORDER BY schema_name, table_name, "
	                        "(SELECT ordinal FROM askql.cat_columns k WHERE k.target = c.target AND k.schema_name = c.schema_name "
	                        "AND k.table_name = c.table_name AND k.name = c.column_name)", 1, p, err, errlen)))
		return ERR_DB;
	if (!(n = PQntuples(r))) {
		snprintf(err, errlen, "%s is not indexed: run askql index --target %s first", t->name, t->name);
		rc = ERR_NOTFOUND;
		goto out;
	}
	if (!(c = db_connect(t->conninfo, err, errlen))) {
		rc = ERR_NET;
		goto out;
	}
	/* one transaction: the views and grants change together, or not at all */
	sb_printf(&s, "BEGIN;\nDROP SCHEMA IF EXISTS %s CASCADE;\nCREATE SCHEMA %s;\n"
	              "REVOKE ALL ON SCHEMA %s FROM PUBLIC;\nGRANT USAGE ON SCHEMA %s TO %s_limited, %s_aggregate;\n",
	          LEVEL_VIEW_SCHEMA, LEVEL_VIEW_SCHEMA, LEVEL_VIEW_SCHEMA, LEVEL_VIEW_SCHEMA, prefix, prefix);
	for (int i = 0; i < n;) {
		const char *sch = PQgetvalue(r, i, 0), *tab = PQgetvalue(r, i, 1);
		int pub = !strcmp(sch, "public"), ngrant = 0;

		sb_reset(&cols);
		sb_reset(&grants);
		sb_puts(&s, "GRANT USAGE ON SCHEMA ");
		ident(&s, c, sch);
		sb_printf(&s, " TO %s_identified;\nGRANT SELECT ON ", prefix);
		ident(&s, c, sch);
		sb_putc(&s, '.');
		ident(&s, c, tab);
		sb_printf(&s, " TO %s_identified;\n", prefix);
		for (; i < n && !strcmp(PQgetvalue(r, i, 0), sch) && !strcmp(PQgetvalue(r, i, 1), tab); i++) {
			const char *col = PQgetvalue(r, i, 2), *type = PQgetvalue(r, i, 3), *cls = PQgetvalue(r, i, 4),
			           *rule = PQgetvalue(r, i, 5), *g = !strcmp(cls, "quasi") ? generalised(type, rule) : NULL;
			char *q = PQescapeIdentifier(c, col, strlen(col));

			if (!q)
				continue;
			if (sb_cstr(&cols)[0])
				sb_puts(&cols, ", ");
			/* every column stays in the view, so selecting one the level may not read is
			 * "permission denied", not "does not exist" */
			if (g) {
				sb_printf(&cols, g, q, q);
				sb_printf(&cols, " AS %s", q);
			} else {
				sb_puts(&cols, q);
			}
			if (readable(cls, type, rule)) {
				sb_printf(&grants, "%s%s", ngrant ? ", " : "", q);
				ngrant++;
			}
			PQfreemem(q);
		}
		if (!pub)
			continue;   /* views shadow the tables of public only (search_path askql_limited, public) */
		sb_printf(&s, "CREATE VIEW %s.", LEVEL_VIEW_SCHEMA);
		ident(&s, c, tab);
		sb_printf(&s, " AS SELECT %s FROM public.", sb_cstr(&cols));
		ident(&s, c, tab);
		sb_printf(&s, ";\nREVOKE ALL ON %s.", LEVEL_VIEW_SCHEMA);
		ident(&s, c, tab);
		sb_puts(&s, " FROM PUBLIC;\n");
		if (ngrant) {
			sb_printf(&s, "GRANT SELECT (%s) ON %s.", sb_cstr(&grants), LEVEL_VIEW_SCHEMA);
			ident(&s, c, tab);
			sb_printf(&s, " TO %s_limited, %s_aggregate;\n", prefix, prefix);
		}
	}
	sb_puts(&s, "COMMIT;");
	if (!sb_ok(&s)) {
		rc = ERR_NOMEM;
		goto out;
	}
	if ((rc = run(c, sb_cstr(&s), err, errlen)) != OK) {
		run(c, "ROLLBACK", NULL, 0);
		goto out;
	}
	rc = db_exec(app, "UPDATE askql.target_levels SET applied_at = now(), catalog_version = "
	                  "coalesce((SELECT version FROM askql.cat_targets WHERE name = $1), 0) WHERE target = $1",
	             1, p, err, errlen);
	if (rc == OK && done)
		*done = 1;
out:
	if (c)
		PQfinish(c);
	PQclear(r);
	sb_free(&s);
	sb_free(&cols);
	sb_free(&grants);
	return rc;
}

enum err level_setup(PGconn *app, const struct target *t, const char *admin_conninfo,
                     char *err, size_t errlen)
{
	char prefix[64], ro_user[128] = "";
	const char *p[3];
	PGconn *ro = NULL, *adm = NULL;
	PGresult *r;
	struct sb s = SB_INIT;
	enum err rc;

	level_role_prefix(t->name, prefix, sizeof prefix);
	p[0] = prefix;
	p[1] = t->name;
	if (!(r = db_query(app, "SELECT target FROM askql.target_levels WHERE role_prefix = $1 AND target <> $2", 2, p, err, errlen)))
		return ERR_DB;
	if (PQntuples(r)) {
		snprintf(err, errlen, "the roles %s_* already belong to target %s", prefix, PQgetvalue(r, 0, 0));
		PQclear(r);
		return ERR_DENIED;
	}
	PQclear(r);
	if (!(r = db_query(app, "SELECT 1 FROM askql.cat_columns WHERE target = $1 LIMIT 1", 1, p + 1, err, errlen)))
		return ERR_DB;
	rc = PQntuples(r) ? OK : ERR_NOTFOUND;
	PQclear(r);
	if (rc != OK) {
		snprintf(err, errlen, "%s is not indexed: run askql index --target %s first", t->name, t->name);
		return rc;
	}
	/* the executor's login: the role every level's session logs in as, then becomes the level's */
	if (!(ro = db_connect(target_exec_conninfo(t), err, errlen)))
		return ERR_NET;
	if ((r = PQexec(ro, "SELECT session_user")) && PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r))
		snprintf(ro_user, sizeof ro_user, "%s", PQgetvalue(r, 0, 0));
	PQclear(r);
	PQfinish(ro);
	if (!*ro_user) {
		snprintf(err, errlen, "cannot learn the read-only connection's role");
		return ERR_DB;
	}
	if (!(adm = db_connect(admin_conninfo && *admin_conninfo ? admin_conninfo : t->conninfo, err, errlen)))
		return ERR_NET;
	/* CREATE ROLE has no IF NOT EXISTS: ask which are missing, then create those.  NOLOGIN: a
	 * level is reached only through the read-only login's startup option role=... */
	for (int i = 0; i < LEVEL__MAX; i++) {
		char role[96];
		const char *rp[1] = {role};

		snprintf(role, sizeof role, "%s_%s", prefix, names[i]);
		if (!(r = PQexecParams(adm, "SELECT 1 FROM pg_roles WHERE rolname = $1", 1, NULL, rp, NULL, NULL, 0)) ||
		    PQresultStatus(r) != PGRES_TUPLES_OK) {
			snprintf(err, errlen, "%s", PQerrorMessage(adm));
			PQclear(r);
			rc = ERR_DB;
			goto out;
		}
		if (!PQntuples(r))
			sb_printf(&s, "CREATE ROLE %s NOLOGIN NOINHERIT;\n", role);
		PQclear(r);
		sb_printf(&s, "ALTER ROLE %s NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;\nGRANT %s TO ", role, role);
		ident(&s, adm, ro_user);
		sb_puts(&s, ";\n");
	}
	{
		char *body = sb_steal(&s);

		sb_printf(&s, "BEGIN;\n%sCOMMIT;", body ? body : "");
		free(body);
	}
	if ((rc = run(adm, sb_cstr(&s), err, errlen)) != OK) {
		run(adm, "ROLLBACK", NULL, 0);
		goto out;
	}
	{
		const char *q[4] = {t->name, prefix, LEVEL_VIEW_SCHEMA, ro_user};

		if ((rc = db_exec(app, "INSERT INTO askql.target_levels (target, role_prefix, view_schema, ro_user) VALUES ($1, $2, $3, $4) "
		                       "ON CONFLICT (target) DO UPDATE SET role_prefix = EXCLUDED.role_prefix, "
		                       "view_schema = EXCLUDED.view_schema, ro_user = EXCLUDED.ro_user", 4, q, err, errlen)) != OK)
			goto out;
	}
	rc = level_refresh(app, t, NULL, err, errlen);
out:
	PQfinish(adm);
	sb_free(&s);
	return rc;
}

/* ---- checking a target -------------------------------------------------------------- */

/* yes: the first value of a one-row query with parameters is 't' */
static int yes(PGconn *c, const char *sql, int n, const char *const *p)
{
	PGresult *r = PQexecParams(c, sql, n, NULL, p, NULL, NULL, 0);
	int y = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) && PQgetvalue(r, 0, 0)[0] == 't';

	PQclear(r);
	return y;
}

enum err level_test(PGconn *app, const struct target *t, struct sb *out, int *nwarn,
                    char *err, size_t errlen)
{
	char prefix[64];
	const char *p[1] = {t->name};
	PGresult *cols = NULL;
	enum err rc;

	*nwarn = 0;
	if ((rc = setup_prefix(app, t->name, prefix, sizeof prefix, err, errlen)) != OK)
		return rc;
	if (!*prefix) {
		sb_printf(out, "access levels: not set up (every user reads as the read-only role; askql target levels %s)\n", t->name);
		return OK;
	}
	if (!(cols = db_query(app, "SELECT schema_name, table_name, column_name, type, coalesce(class, 'unclassified'), "
	                           "coalesce(rule, '') FROM askql.phi_columns WHERE target = $1 AND schema_name <> '" LEVEL_VIEW_SCHEMA "' ORDER BY 1, 2, 3", 1, p, err, errlen)))
		return ERR_DB;
	for (int lv = 0; lv < LEVEL__MAX; lv++) {
		char extra[256], role[96], *ci = NULL, v[256];
		PGconn *c;
		PGresult *r;
		long bad_tables = 0, bad_cols = 0, ok_cols = 0, missing = 0;

		snprintf(role, sizeof role, "%s_%s", prefix, names[lv]);
		level_extra(prefix, (enum level)lv, extra, sizeof extra);
		if ((rc = with_options(target_exec_conninfo(t), extra, &ci, err, errlen)) != OK)
			goto out;
		c = db_connect(ci, err, errlen);
		free(ci);
		if (!c) {
			sb_printf(out, "WARNING: level %s: cannot connect as %s: %s\n", names[lv], role, err);
			(*nwarn)++;
			continue;
		}
		r = PQexec(c, "SELECT current_user, (SELECT rolcanlogin OR rolsuper FROM pg_roles WHERE rolname = current_user)");
		snprintf(v, sizeof v, "%s", PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) ? PQgetvalue(r, 0, 0) : "");
		if (strcmp(v, role)) {
			sb_printf(out, "WARNING: level %s: the session runs as %s, not %s\n", names[lv], *v ? v : "?", role);
			(*nwarn)++;
		} else if (PQgetvalue(r, 0, 1)[0] == 't') {
			sb_printf(out, "WARNING: level %s: the role %s can log in or is a superuser\n", names[lv], role);
			(*nwarn)++;
		}
		PQclear(r);
		for (int i = 0; i < PQntuples(cols); i++) {
			const char *sch = PQgetvalue(cols, i, 0), *tab = PQgetvalue(cols, i, 1), *col = PQgetvalue(cols, i, 2);
			int may = readable(PQgetvalue(cols, i, 4), PQgetvalue(cols, i, 3), PQgetvalue(cols, i, 5));
			struct sb q = SB_INIT, vq = SB_INIT;
			const char *a[2];

			sb_printf(&q, "%s.%s", sch, tab);
			sb_printf(&vq, "%s.%s", LEVEL_VIEW_SCHEMA, tab);
			a[0] = sb_cstr(&q);
			a[1] = col;
			if (lv == LEVEL_IDENTIFIED) {
				/* quote_ident keeps mixed-case names as the catalog spells them */
				if (!yes(c, "SELECT has_column_privilege(format('%I.%I', split_part($1, '.', 1), split_part($1, '.', 2)), $2, 'SELECT')", 2, a))
					missing++;
			} else {
				if (yes(c, "SELECT has_column_privilege(format('%I.%I', split_part($1, '.', 1), split_part($1, '.', 2)), $2, 'SELECT')", 2, a))
					bad_tables++;
				if (!strcmp(sch, "public")) {
					a[0] = sb_cstr(&vq);
					if (yes(c, "SELECT has_column_privilege(format('%I.%I', split_part($1, '.', 1), split_part($1, '.', 2)), $2, 'SELECT')", 2, a)) {
						if (may)
							ok_cols++;
						else
							bad_cols++;
					}
				}
			}
			sb_free(&q);
			sb_free(&vq);
		}
		PQfinish(c);
		if (lv == LEVEL_IDENTIFIED) {
			if (missing) {
				sb_printf(out, "WARNING: level identified: %ld column(s) of the catalog are not readable as %s "
				               "(re-run askql target levels %s)\n", missing, role, t->name);
				(*nwarn)++;
			} else {
				sb_printf(out, "ok level identified (%s): every catalog column readable\n", role);
			}
			continue;
		}
		if (bad_tables) {
			sb_printf(out, "WARNING: level %s: %ld column(s) of base tables are readable as %s: a grant to PUBLIC "
			               "or to the role lets it past the views (REVOKE SELECT ... FROM PUBLIC)\n", names[lv], bad_tables, role);
			(*nwarn)++;
		}
		if (bad_cols) {
			sb_printf(out, "WARNING: level %s: %ld identifier column(s) of the views are readable as %s\n",
			          names[lv], bad_cols, role);
			(*nwarn)++;
		}
		if (!bad_tables && !bad_cols)
			sb_printf(out, "ok level %s (%s): %ld column(s) readable through %s views, no identifier, no base table\n",
			          names[lv], role, ok_cols, LEVEL_VIEW_SCHEMA);
	}
	rc = OK;
out:
	PQclear(cols);
	return rc;
}
