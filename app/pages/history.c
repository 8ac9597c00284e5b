/* history.c: the user's runs (admins: everyone's): search, filters, grouping by fingerprint, paged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "pages/pages.h"
#include "store/db.h"
#include "util/arena.h"
#include "util/log.h"

#define PER_PAGE 25

/* Build a history link keeping the current filters but changing the page. */
static char *link(struct req *r, long long page)
{
	static const char *const keep[] = {"q", "status", "from", "to", "table", "group", "all", "target", NULL};
	struct sb s;

	sb_init_arena(&s, r->a);
	sb_printf(&s, "/history?page=%lld", page);
	for (const char *const *k = keep; *k; k++) {
		const char *v = req_param(r, *k);

		if (v && *v) {
			sb_printf(&s, "&%s=", *k);
			sb_url(&s, v);
		}
	}
	return (char *)sb_cstr(&s);
}

enum err page_history(struct req *r)
{
	const char *q = req_param(r, "q"), *status = req_param(r, "status"), *from = req_param(r, "from");
	const char *to = req_param(r, "to"), *table = req_param(r, "table"), *target = req_param(r, "target");
	int group = req_param(r, "group") && !strcmp(req_param(r, "group"), "1");
	int admin = !strcmp(r->user.role, "admin");
	int all = admin && req_param(r, "all") && !strcmp(req_param(r, "all"), "1");
	long long page = req_param_int(r, "page", 1);
	const char *p[9];
	char uid[24], lim[16], off[24], pat[450];
	int n = 0;
	struct sb w, sql;
	PGresult *res;
	cJSON *d, *runs;
	double t0 = now_ms();

	if (page < 1)
		page = 1;
	sb_init_arena(&w, r->a);
	sb_init_arena(&sql, r->a);
	snprintf(uid, sizeof uid, "%lld", r->user.id);
	if (!all) {
		p[n++] = uid;
		sb_printf(&w, " AND r.user_id = $%d", n);
	}
	if (q && *q) {
		/* LIKE metacharacters in the search are literal */
		char *o = pat;

		*o++ = '%';
		for (const char *s = q; *s && o < pat + sizeof pat - 3; s++) {
			if (*s == '%' || *s == '_' || *s == '\\')
				*o++ = '\\';
			*o++ = *s;
		}
		*o++ = '%';
		*o = '\0';
		p[n++] = pat;
		sb_printf(&w, " AND (r.question ILIKE $%d OR r.sql ILIKE $%d)", n, n);
	}
	if (status && *status) {
		p[n++] = status;
		sb_printf(&w, " AND r.status = $%d", n);
	}
	if (from && *from) {
		p[n++] = from;
		sb_printf(&w, " AND r.created_at >= $%d::date", n);
	}
	if (to && *to) {
		p[n++] = to;
		sb_printf(&w, " AND r.created_at < $%d::date + 1", n);
	}
	if (table && *table) {
		p[n++] = table;
		sb_printf(&w, " AND $%d = ANY(r.tables)", n);
	}
	if (target && *target) {
		p[n++] = target;
		sb_printf(&w, " AND r.target = $%d", n);
	}
	snprintf(lim, sizeof lim, "%d", PER_PAGE + 1);
	snprintf(off, sizeof off, "%lld", (page - 1) * PER_PAGE);
	p[n++] = lim;
	p[n++] = off;
	if (group)
		/* one line per fingerprint: the newest run of each (ids grow with time), with how many share it;
		 * grouping first and joining 25 rows back keeps this one hash aggregate over the filter */
		sb_printf(&sql, "SELECT r.id, r.question, r.status, r.sql, r.verified, "
		          "to_char(r.created_at, 'YYYY-MM-DD HH24:MI') AS created, array_to_string(r.tables, ', ') AS tables, "
		          "u.name AS owner, r.row_count, g.n, coalesce(r.verify_state, '') FROM (SELECT max(r.id) AS id, count(*) AS n, max(r.created_at) AS last "
		          "FROM askql.runs r WHERE r.kind <> 'critique'%s GROUP BY coalesce(r.fingerprint, r.id::text) "
		          "ORDER BY last DESC LIMIT $%d OFFSET $%d) g JOIN askql.runs r ON r.id = g.id "
		          "LEFT JOIN askql.users u ON u.id = r.user_id ORDER BY g.last DESC", sb_cstr(&w), n - 1, n);
	else
		sb_printf(&sql, "SELECT r.id, r.question, r.status, r.sql, r.verified, "
		          "to_char(r.created_at, 'YYYY-MM-DD HH24:MI') AS created, array_to_string(r.tables, ', ') AS tables, "
		          "u.name AS owner, r.row_count, 1 AS n, coalesce(r.verify_state, '') FROM askql.runs r LEFT JOIN askql.users u ON u.id = r.user_id "
		          "WHERE r.kind <> 'critique'%s ORDER BY r.created_at DESC LIMIT $%d OFFSET $%d",
		          sb_cstr(&w), n - 1, n);
	if (!(res = db_query(db_app(), sb_cstr(&sql), n, p, NULL, 0)))
		return ERR_DB;
	d = view_data(r, "history.title");
	runs = cJSON_AddArrayToObject(d, "runs");
	for (int i = 0; i < PQntuples(res) && i < PER_PAGE; i++) {
		cJSON *o = cJSON_CreateObject();
		char key[32];

		cJSON_AddNumberToObject(o, "id", atof(PQgetvalue(res, i, 0)));
		cJSON_AddStringToObject(o, "question", PQgetvalue(res, i, 1));
		cJSON_AddStringToObject(o, "status", PQgetvalue(res, i, 2));
		snprintf(key, sizeof key, "run.status.%s", PQgetvalue(res, i, 2));
		cJSON_AddStringToObject(o, "status_text", view_t(r, key));
		if (!PQgetisnull(res, i, 3))
			cJSON_AddStringToObject(o, "sql", PQgetvalue(res, i, 3));
		cJSON_AddBoolToObject(o, "verified", PQgetvalue(res, i, 4)[0] == 't');
		/* the mark can be given while there is none (a rejected one stays, a proposal waits) */
		cJSON_AddBoolToObject(o, "can_verify", !strcmp(PQgetvalue(res, i, 2), "ok") && !*PQgetvalue(res, i, 10));
		cJSON_AddBoolToObject(o, "verify_proposed", !strcmp(PQgetvalue(res, i, 10), "proposed"));
		cJSON_AddBoolToObject(o, "verify_rejected", !strcmp(PQgetvalue(res, i, 10), "rejected"));
		cJSON_AddStringToObject(o, "created", PQgetvalue(res, i, 5));
		cJSON_AddStringToObject(o, "tables", PQgetvalue(res, i, 6));
		cJSON_AddStringToObject(o, "owner", PQgetvalue(res, i, 7));
		if (!PQgetisnull(res, i, 8))
			cJSON_AddNumberToObject(o, "row_count", atof(PQgetvalue(res, i, 8)));
		if (atoi(PQgetvalue(res, i, 9)) > 1)
			cJSON_AddNumberToObject(o, "same", atof(PQgetvalue(res, i, 9)));
		cJSON_AddItemToArray(runs, o);
	}
	{
		cJSON *f = cJSON_AddObjectToObject(d, "filter"), *st = cJSON_AddArrayToObject(d, "statuses");
		static const char *const sts[] = {"ok", "error", "unanswerable", "paused", "running", "stopped", NULL};

		cJSON_AddStringToObject(f, "q", q ? q : "");
		cJSON_AddStringToObject(f, "from", from ? from : "");
		cJSON_AddStringToObject(f, "to", to ? to : "");
		cJSON_AddStringToObject(f, "table", table ? table : "");
		cJSON_AddStringToObject(f, "target", target ? target : "");
		/* the databases runs were asked of, for the filter (shown when there is more than one);
		 * nothing chosen means all of them */
		view_targets(d, target);
		if (!(target && *target))
			for (cJSON *o = cJSON_GetObjectItem(d, "targets")->child; o; o = o->next)
				cJSON_ReplaceItemInObject(o, "selected", cJSON_CreateFalse());
		cJSON_AddBoolToObject(f, "group", group);
		cJSON_AddBoolToObject(f, "all", all);
		for (const char *const *s = sts; *s; s++) {
			cJSON *o = cJSON_CreateObject();
			char key[32];

			snprintf(key, sizeof key, "run.status.%s", *s);
			cJSON_AddStringToObject(o, "value", *s);
			cJSON_AddStringToObject(o, "text", view_t(r, key));
			cJSON_AddBoolToObject(o, "selected", status && !strcmp(status, *s));
			cJSON_AddItemToArray(st, o);
		}
		cJSON_AddBoolToObject(d, "admin", admin);
	}
	cJSON_AddNumberToObject(d, "page", (double)page);
	if (page > 1)
		cJSON_AddStringToObject(d, "prev", link(r, page - 1));
	if (PQntuples(res) > PER_PAGE)
		cJSON_AddStringToObject(d, "next", link(r, page + 1));
	PQclear(res);
	log_debug("history query+build %.2f ms", now_ms() - t0);
	return view_render(r, 200, "history", d);
}
