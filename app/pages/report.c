/* report.c: one critique report: the HTML page, and its downloads (standalone HTML, JSON). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "pages/pages.h"
#include "critique/critique.h"
#include "pages/report.h"
#include "store/access.h"
#include "store/db.h"
#include "util/arena.h"
#include "util/log.h"

/* report_load: the stored report id when the user owns its run or is an admin; caller
 * cJSON_Delete()s.  ERR_NOTFOUND otherwise (never says whether it exists). */
static enum err report_load(struct req *r, long long id, cJSON **out, cJSON **run)
{
	char sid[24], uid[24], err[256];
	const char *p[3] = { sid, uid, !strcmp(r->user.role, "admin") ? "t" : "f" };
	PGresult *res;

	*out = *run = NULL;
	snprintf(sid, sizeof sid, "%lld", id);
	snprintf(uid, sizeof uid, "%lld", r->user.id);
	res = db_query(db_app(),
	               "SELECT rep.body::text, rep.id, ru.id, ru.target, ru.question, "
	               "coalesce(ru.access_level, 'identified') FROM askql.reports rep JOIN askql.runs ru ON ru.id = rep.run_id "
	               "WHERE rep.id = $1 AND (ru.user_id = $2 OR $3::boolean)", 3, p, err, sizeof err);
	if (!res) {
		log_error("report %lld: %s", id, err);
		return ERR_DB;
	}
	if (PQntuples(res) == 1 && (*out = cJSON_Parse(PQgetvalue(res, 0, 0)))) {
		/* the report's run as run_level_check and run_withheld read it */
		*run = cJSON_CreateObject();
		cJSON_AddNumberToObject(*run, "id", atof(PQgetvalue(res, 0, 2)));
		cJSON_AddStringToObject(*run, "target", PQgetvalue(res, 0, 3));
		cJSON_AddStringToObject(*run, "question", PQgetvalue(res, 0, 4));
		cJSON_AddStringToObject(*run, "held_level", PQgetvalue(res, 0, 5));
		cJSON_AddStringToObject(*run, "sql", "");
	}
	PQclear(res);
	if (!*out)
		return ERR_NOTFOUND;
	/* the stored body predates its id */
	cJSON_DeleteItemFromObject(*out, "report_id");
	cJSON_AddNumberToObject(*out, "report_id", (double)id);
	return OK;
}

enum err page_report(struct req *r)
{
	const char *fmt = req_param(r, "format");
	cJSON *rep = NULL, *run = NULL;
	enum err e;
	char disp[128];
	enum level lv;

	if ((e = report_load(r, r->arg_id, &rep, &run)) != OK)
		return e;
	/* a report quotes the chart it read: only at a level the viewer has now (issue 27) */
	if ((e = run_level_check(r, run, &lv)) != OK) {
		if (e == ERR_DENIED)
			e = run_withheld(r, run, lv);
		cJSON_Delete(rep);
		cJSON_Delete(run);
		return e;
	}
	/* a report quotes the rows it read: viewing or downloading it is an access, audited before a
	 * byte is sent and refused when that fails (issue 27) */
	if (!fmt || !*fmt || !strcmp(fmt, "json") || !strcmp(fmt, "html")) {
		char detail[96];
		int page = !fmt || !*fmt;

		snprintf(detail, sizeof detail, "{\"via\":\"report\",\"report_id\":%lld,\"format\":\"%s\"}",
		         r->arg_id, page ? "page" : fmt);
		if (view_access_detail(r, run, page ? ACCESS_VIEW : ACCESS_DOWNLOAD,
		                       page ? "page" : !strcmp(fmt, "json") ? "json" : NULL, -1, 0, detail, NULL) != OK) {
			cJSON_Delete(rep);
			cJSON_Delete(run);
			return page_notice(r, 503, "audit.unavailable", NULL, 0);
		}
	}
	if (fmt && !strcmp(fmt, "json")) {
		snprintf(disp, sizeof disp, "attachment; filename=\"critique-report-%lld.json\"", r->arg_id);
		resp_header(r, "Content-Disposition", disp);
		e = resp_json(r, 200, rep);
	} else if (fmt && !strcmp(fmt, "html")) {
		struct sb out;
		sb_init_arena(&out, r->a);
		e = report_render(&out, rep, 1, r->lang);
		if (e == OK) {
			snprintf(disp, sizeof disp, "attachment; filename=\"critique-report-%lld.html\"", r->arg_id);
			resp_header(r, "Content-Disposition", disp);
			resp_begin(r, 200, "text/html; charset=utf-8", 0);
			e = resp_write(r, out.buf, out.len);
		}
	} else if (fmt && *fmt) {
		e = ERR_INPUT;
	} else {
		cJSON *d = view_data(r, "report.title");
		cJSON *v = report_view(rep, r->lang);
		cJSON_AddItemToObject(d, "report", v);
		cJSON_AddItemToObject(d, "L", report_labels(r->lang));
		cJSON_DeleteItemFromObject(d, "title");
		cJSON_AddStringToObject(d, "title", crit_str(cJSON_GetObjectItem(v, "L"), "report_title"));
		e = view_render(r, 200, "report", d);
	}
	cJSON_Delete(rep);
	cJSON_Delete(run);
	return e;
}
