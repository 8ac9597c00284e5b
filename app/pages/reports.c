/* reports.c: the list of critique reports and the form that starts a new critique. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"
#include "pages/pages.h"
#include "pages/report.h"
#include "store/db.h"
#include "store/level.h"
#include "util/conf.h"
#include "util/log.h"

#define PER_PAGE 25

/* list_status: the reports page, with error (NULL: none) shown above the form, answered with status */
static enum err list_status(struct req *r, const char *error, int status)
{
	long long page = req_param_int(r, "page", 1);
	char uid[24], lim[16], off[24], err[256], nb[24];
	const char *p[5] = { uid, !strcmp(r->user.role, "admin") ? "t" : "f", lim, off,
	                     r->lang && !strcmp(r->lang, "ko") ? "ko" : "en" };
	PGresult *res;
	cJSON *d, *rows;

	if (page < 1)
		page = 1;
	snprintf(uid, sizeof uid, "%lld", r->user.id);
	snprintf(lim, sizeof lim, "%d", PER_PAGE + 1);
	snprintf(off, sizeof off, "%lld", (page - 1) * PER_PAGE);
	res = db_query(db_app(),
	               "SELECT rep.id, rep.case_ref, CASE WHEN $5 = 'ko' THEN coalesce(rep.body->>'summary_ko', rep.body->>'summary') "
	               "ELSE rep.body->>'summary' END, to_char(rep.created_at, 'YYYY-MM-DD HH24:MI'), "
	               "ru.target, coalesce(ru.access_level, 'identified') "
	               "FROM askql.reports rep JOIN askql.runs ru ON ru.id = rep.run_id "
	               "WHERE ru.user_id = $1 OR $2::boolean ORDER BY rep.id DESC LIMIT $3 OFFSET $4",
	               5, p, err, sizeof err);
	if (!res) {
		log_error("reports: %s", err);
		return ERR_DB;
	}
	d = view_data(r, "reports.title");
	cJSON *lb = report_labels(r->lang);
	cJSON_DeleteItemFromObject(d, "title");
	cJSON_AddStringToObject(d, "title", crit_str(lb, "reports"));
	cJSON_AddItemToObject(d, "L", lb);
	rows = cJSON_AddArrayToObject(d, "reports");
	for (int i = 0; i < PQntuples(res) && i < PER_PAGE; i++) {
		cJSON *o = cJSON_CreateObject();
		enum level viewer, held;
		/* a summary quotes the chart: shown only at a level the viewer has now (issue 27); the
		 * viewer's level unreadable counts as the strictest */
		int shown = level_of(db_app(), r->user.id, PQgetvalue(res, i, 4), &viewer, err, sizeof err) == OK &&
		            level_parse(PQgetvalue(res, i, 5), &held) == 0 && level_allows(viewer, held);

		cJSON_AddNumberToObject(o, "id", atof(PQgetvalue(res, i, 0)));
		cJSON_AddStringToObject(o, "case_ref", PQgetvalue(res, i, 1));
		cJSON_AddStringToObject(o, "summary", shown ? PQgetvalue(res, i, 2) : view_t(r, "levels.withheld_short"));
		cJSON_AddStringToObject(o, "created", PQgetvalue(res, i, 3));
		cJSON_AddItemToArray(rows, o);
	}
	if (page > 1) {
		snprintf(nb, sizeof nb, "%lld", page - 1);
		cJSON_AddStringToObject(d, "prev", nb);
	}
	if (PQntuples(res) > PER_PAGE) {
		snprintf(nb, sizeof nb, "%lld", page + 1);
		cJSON_AddStringToObject(d, "next", nb);
	}
	PQclear(res);
	if (error)
		cJSON_AddStringToObject(d, "error", error);
	return view_render(r, status, "reports", d);
}

/* list: the page, 400 with error when there is one */
static enum err list(struct req *r, const char *error)
{
	return list_status(r, error, error ? 400 : 200);
}

enum err page_reports(struct req *r)
{
	return list(r, NULL);
}

/* POST /reports: case id, or chart text (field or uploaded file); runs the graph and shows the report. */
enum err page_report_post(struct req *r)
{
	const char *cas = req_param(r, "case"), *text = req_param(r, "text"), *file = req_param(r, "file");
	struct crit_request rq = { .user_id = r->user.id, .use_llm = 1 };
	char err[512] = "", *out = NULL, to[64];
	long long run_id = 0, report_id = 0;
	enum err e;

	while (cas && *cas == ' ')
		cas++;
	if (cas && *cas) {
		char *end;
		rq.caseid = strtoll(cas, &end, 10);
		while (*end == ' ')
			end++;
		if (rq.caseid <= 0 || *end)
			return list(r, "The case id must be a positive number.");
	} else if (text && *text) {
		rq.text = text;
	} else if (file && *file) {
		rq.text = file;
	} else {
		return list(r, "Give a case id or paste the chart text.");
	}
	if ((e = crit_critique(db_app(), &rq, &out, &run_id, &report_id, err, sizeof err)) != OK) {
		free(out);
		/* a level below identified is refused, with the level named (critique/graph.c) */
		return list_status(r, err[0] ? err : "The critique failed.", e == ERR_DENIED ? 403 : 400);
	}
	free(out);
	if (report_id <= 0)
		return ERR_DB;
	snprintf(to, sizeof to, "/reports/%lld", report_id);
	return resp_redirect(r, to);
}
