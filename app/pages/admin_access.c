/* admin_access.c: Admin -> Audit -> Data access: the access_audit log filtered by user, target, column class and date, paged, and exported as CSV (itself audited). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "pages/pages.h"
#include "store/access.h"
#include "store/db.h"
#include "util/i18n.h"
#include "util/log.h"
#include "util/sb.h"

#define ACCESS_PAGE      50       /* entries on one page */
#define ACCESS_CSV_MAX   100000   /* entries in one CSV export (the CSV says when it was cut) */

/* The filters the log is seen through; every link carries them. */
static const char *const keep[] = {"user", "target", "class", "from", "to", NULL};
static const char *const classes[] = {"direct", "quasi", "sensitive", "none", "unclassified", NULL};

/* The class filter when it is one of the classes, else NULL (an unknown word filters nothing). */
static const char *class_param(struct req *r)
{
	const char *v = req_param(r, "class");

	for (const char *const *c = classes; v && *c; c++)
		if (!strcmp(v, *c))
			return *c;
	return NULL;
}

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

/* The page's URL (path) with the current filters and page (0: none), into the arena. */
static char *link(struct req *r, const char *path, long long page)
{
	return view_link(r, path, page, keep);
}

/* The filtered log, newest first: limit rows from offset.  The who column is the user's name, or
 * "cli:" and the OS user for the CLI; the user filter matches it without regard to case. */
static PGresult *query(struct req *r, long long limit, long long offset)
{
	char lim[24], off[24];
	const char *p[7] = {nonempty(req_param(r, "user")), nonempty(req_param(r, "target")), class_param(r),
	                    nonempty(req_param(r, "from")), nonempty(req_param(r, "to")), lim, off};

	snprintf(lim, sizeof lim, "%lld", limit);
	snprintf(off, sizeof off, "%lld", offset);
	return db_query(db_app(),
		"SELECT a.id, to_char(a.at, 'YYYY-MM-DD HH24:MI:SS') AS at, a.kind, a.channel, "
		"coalesce(a.user_name, 'cli:' || a.os_user) AS who, a.user_name IS NULL AS cli, a.target, a.access_level, "
		"a.run_id, a.sql_fingerprint, a.sql_text, a.columns::text AS columns, "
		"array_to_string(a.classes, ',') AS classes, a.row_count, a.format, a.ok, a.detail::text AS detail "
		"FROM askql.access_audit a "
		"WHERE ($1::text IS NULL OR lower(coalesce(a.user_name, 'cli:' || a.os_user)) = lower($1)) "
		"AND ($2::text IS NULL OR a.target = $2) "
		"AND ($3::text IS NULL OR a.classes @> ARRAY[$3::text]) "
		"AND ($4::date IS NULL OR a.at >= $4::date) "
		"AND ($5::date IS NULL OR a.at < $5::date + 1) "
		"ORDER BY a.id DESC LIMIT $6 OFFSET $7", 7, p, NULL, 0);
}

static const char *val(PGresult *res, int i, int c)
{
	return PQgetisnull(res, i, c) ? NULL : PQgetvalue(res, i, c);
}

/* "table.column (class in the reader's language)" for each column read; tables read without a column are "table". */
static void columns_text(struct req *r, const char *json, struct sb *out)
{
	cJSON *a = json ? cJSON_Parse(json) : NULL, *c;
	int n = 0;

	cJSON_ArrayForEach(c, a) {
		const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "table"));
		const char *col = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "column"));
		const char *cls = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "class"));

		if (!col)
			continue;   /* the table is named by its columns */
		sb_printf(out, "%s%s.%s", n++ ? ", " : "", t ? t : "", col);
		if (cls) {
			char key[48];

			snprintf(key, sizeof key, "access.class.%s", cls);
			sb_printf(out, " (%s)", view_t(r, key));
		}
	}
	cJSON_Delete(a);
}

/* release_badge: a download marked for release says so, with k and the rounding base (its detail;
 * rows from before rounding have none, and say k only) */
static void release_badge(struct req *r, cJSON *o, const char *detail)
{
	cJSON *d = detail ? cJSON_Parse(detail) : NULL;

	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "for_release"))) {
		char k[24], rr[24];
		struct sb m = SB_INIT;
		const cJSON *round = cJSON_GetObjectItemCaseSensitive(d, "release_round");

		snprintf(k, sizeof k, "%.0f", cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(d, "suppress_k")));
		snprintf(rr, sizeof rr, "%.0f", cJSON_GetNumberValue(round));
		i18n_format(&m, r->lang, cJSON_IsNumber(round) ? "release.audit_badge" : "release.audit_badge_k",
		            (const char *const[]){"k", k, "r", rr, NULL});
		if (sb_ok(&m))
			cJSON_AddStringToObject(o, "release", sb_cstr(&m));
		sb_free(&m);
	}
	cJSON_Delete(d);
}

enum err page_admin_access(struct req *r)
{
	long long page = req_param_int(r, "page", 1);
	PGresult *res;
	cJSON *d, *list, *f, *cl;
	int n;

	if (page < 1)
		page = 1;
	if (!(res = query(r, ACCESS_PAGE + 1, (page - 1) * ACCESS_PAGE)))
		return ERR_DB;
	d = view_data(r, "access.title");
	list = cJSON_AddArrayToObject(d, "entries");
	n = PQntuples(res);
	for (int i = 0; i < n && i < ACCESS_PAGE; i++) {
		cJSON *o = cJSON_CreateObject();
		struct sb cols = SB_INIT;
		const char *v;
		char key[48];

		cJSON_AddStringToObject(o, "id", val(res, i, 0));
		cJSON_AddStringToObject(o, "at", val(res, i, 1));
		snprintf(key, sizeof key, "access.kind.%s", val(res, i, 2));
		cJSON_AddStringToObject(o, "kind", view_t(r, key));
		cJSON_AddStringToObject(o, "channel", val(res, i, 3));
		cJSON_AddStringToObject(o, "who", (v = val(res, i, 4)) ? v : "");
		cJSON_AddBoolToObject(o, "cli", !strcmp(val(res, i, 5), "t"));
		if ((v = val(res, i, 6)))
			cJSON_AddStringToObject(o, "target", v);
		snprintf(key, sizeof key, "access.level.%s", val(res, i, 7));
		cJSON_AddStringToObject(o, "level", view_t(r, key));
		if ((v = val(res, i, 8)))
			cJSON_AddStringToObject(o, "run_id", v);
		if ((v = val(res, i, 9)))
			cJSON_AddStringToObject(o, "fingerprint", v);
		if ((v = val(res, i, 10)))
			cJSON_AddStringToObject(o, "sql", v);
		columns_text(r, val(res, i, 11), &cols);
		if (sb_ok(&cols) && *sb_cstr(&cols))
			cJSON_AddStringToObject(o, "columns", sb_cstr(&cols));
		sb_free(&cols);
		if ((v = val(res, i, 12)) && *v) {
			cJSON *ca = cJSON_AddArrayToObject(o, "classes");
			char buf[128], *save = NULL;

			cJSON_AddBoolToObject(o, "has_classes", 1);
			snprintf(buf, sizeof buf, "%s", v);
			for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
				cJSON *x = cJSON_CreateObject();

				cJSON_AddStringToObject(x, "class", w);
				snprintf(key, sizeof key, "access.class.%s", w);
				cJSON_AddStringToObject(x, "text", view_t(r, key));
				cJSON_AddItemToArray(ca, x);
			}
		}
		if ((v = val(res, i, 13)))
			cJSON_AddStringToObject(o, "rows", v);
		if ((v = val(res, i, 14)))
			cJSON_AddStringToObject(o, "format", v);
		cJSON_AddBoolToObject(o, "failed", strcmp(val(res, i, 15), "t") != 0);
		release_badge(r, o, val(res, i, 16));
		cJSON_AddItemToArray(list, o);
	}
	PQclear(res);
	f = cJSON_AddObjectToObject(d, "filter");
	for (const char *const *k = keep; *k; k++) {
		const char *v = req_param(r, *k);

		cJSON_AddStringToObject(f, *k, v ? v : "");
	}
	cl = cJSON_AddArrayToObject(d, "classes");
	for (const char *const *c = classes; *c; c++) {
		cJSON *o = cJSON_CreateObject();
		char key[48];

		snprintf(key, sizeof key, "access.class.%s", *c);
		cJSON_AddStringToObject(o, "value", *c);
		cJSON_AddStringToObject(o, "text", view_t(r, key));
		cJSON_AddBoolToObject(o, "selected", class_param(r) == *c);
		cJSON_AddItemToArray(cl, o);
	}
	view_targets(d, req_param(r, "target"));
	if (!nonempty(req_param(r, "target"))) {
		/* no target filter: "all databases" stays chosen, not the default target */
		cJSON *t;

		cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(d, "targets"))
			cJSON_ReplaceItemInObjectCaseSensitive(t, "selected", cJSON_CreateFalse());
	}
	cJSON_AddNumberToObject(d, "page", (double)page);
	if (page > 1)
		cJSON_AddStringToObject(d, "prev", link(r, "/admin/audit/access", page - 1));
	if (n > ACCESS_PAGE)
		cJSON_AddStringToObject(d, "next", link(r, "/admin/audit/access", page + 1));
	cJSON_AddStringToObject(d, "csv", link(r, "/admin/audit/access/export", 0));
	return view_render(r, 200, "admin_audit_access", d);
}

/* One CSV field: always quoted, quotes doubled; text a spreadsheet would take for a formula
 * (= + - @ tab CR first) gets a leading ' as the downloads do. */
static void csv_field(struct sb *s, const char *v, int last)
{
	sb_putc(s, '"');
	if (v && (*v == '=' || *v == '+' || *v == '-' || *v == '@' || *v == '\t' || *v == '\r'))
		sb_putc(s, '\'');
	for (; v && *v; v++) {
		if (*v == '"')
			sb_putc(s, '"');
		sb_putc(s, *v);
	}
	sb_putc(s, '"');
	sb_puts(s, last ? "\r\n" : ",");
}

enum err page_admin_access_export(struct req *r)
{
	static const char *const head[] = {"id", "at", "kind", "channel", "who", "target", "access_level", "run_id",
	                                   "sql_fingerprint", "sql_text", "columns", "classes", "row_count", "format",
	                                   "ok", "detail", NULL};
	PGresult *res;
	struct sb out = SB_INIT, det = SB_INIT;
	int n, cols = 0;
	enum err e;

	if (!(res = query(r, ACCESS_CSV_MAX, 0)))
		return ERR_DB;
	n = PQntuples(res);
	/* the export is an access too: recorded before any byte leaves, and refused if it cannot be */
	sb_puts(&det, "{");
	for (const char *const *k = keep; *k; k++) {
		const char *v = req_param(r, *k);

		if (v && *v) {
			sb_printf(&det, "%s\"%s\":", cols++ ? "," : "", *k);
			sb_json_str(&det, v);
		}
	}
	sb_printf(&det, "%s\"cut\":%s}", cols ? "," : "", n >= ACCESS_CSV_MAX ? "true" : "false");
	{
		struct access_rec a = {.kind = ACCESS_AUDIT_EXPORT, .channel = r->via_token ? ACCESS_API : ACCESS_WEB,
		                       .user_id = r->user.id, .user_name = r->user.name, .rows = n, .format = "csv",
		                       .detail_json = sb_ok(&det) ? sb_cstr(&det) : NULL};
		char err[256];

		if (access_record(db_app(), &a, err, sizeof err) != OK) {
			PQclear(res);
			sb_free(&det);
			return page_notice(r, 503, "audit.unavailable", NULL, 0);
		}
	}
	sb_free(&det);
	resp_header(r, "Content-Disposition", "attachment; filename=\"access_audit.csv\"");
	if ((e = resp_begin(r, 200, "text/csv; charset=utf-8", 0)) != OK)
		goto out;
	/* a BOM, as the CSV downloads have: spreadsheets then read Korean text as UTF-8 */
	sb_puts(&out, "\xEF\xBB\xBF");
	for (int c = 0; head[c]; c++)
		csv_field(&out, head[c], !head[c + 1]);
	for (int i = 0; i < n && e == OK; i++) {
		/* the query's columns in the header's order: who (4), then 6.. skipping cli (5) */
		static const int pick[] = {0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
		const int npick = (int)(sizeof pick / sizeof pick[0]);

		for (int c = 0; c < npick; c++)
			csv_field(&out, val(res, i, pick[c]), c == npick - 1);
		if (!sb_ok(&out)) {
			e = ERR_NOMEM;
			break;
		}
		e = resp_write(r, sb_cstr(&out), strlen(sb_cstr(&out)));
		sb_reset(&out);
	}
	if (e == OK && n == 0 && sb_ok(&out))   /* the header alone */
		e = resp_write(r, sb_cstr(&out), strlen(sb_cstr(&out)));
out:
	PQclear(res);
	log_info("access audit exported as CSV: %d entries", n);
	sb_free(&out);
	return e;
}
