/* view.c: the page chrome: data every template gets (strings, user, CSRF, nav) and rendering into the response. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "pages/pages.h"
#include "store/access.h"
#include "store/db.h"
#include "util/arena.h"
#include "util/conf.h"
#include "util/log.h"
#include "util/tpl.h"
#include "util/i18n.h"

const char *view_t(struct req *r, const char *key)
{
	return i18n_get(r->lang, key);
}

cJSON *view_data(struct req *r, const char *title_key)
{
	cJSON *d = cJSON_CreateObject(), *u;

	if (!d)
		return NULL;
	cJSON_AddItemReferenceToObject(d, "t", (cJSON *)i18n_table(r->lang));
	cJSON_AddStringToObject(d, "lang", r->lang);
	cJSON_AddBoolToObject(d, "lang_ko", !strcmp(r->lang, "ko"));
	cJSON_AddBoolToObject(d, "lang_en", !strcmp(r->lang, "en"));
	cJSON_AddStringToObject(d, "path", r->path);
	cJSON_AddStringToObject(d, "title", title_key ? view_t(r, title_key) : "askql");
	cJSON_AddStringToObject(d, "app_name", "askql");
	cJSON_AddStringToObject(d, "reqid", r->id);
	if (r->signed_in) {
		u = cJSON_AddObjectToObject(d, "user");
		cJSON_AddStringToObject(u, "name", r->user.name ? r->user.name : "");
		cJSON_AddStringToObject(u, "role", r->user.role ? r->user.role : "");
		cJSON_AddBoolToObject(u, "admin", r->user.role && !strcmp(r->user.role, "admin"));
		cJSON_AddStringToObject(d, "csrf", r->csrf ? r->csrf : "");
	} else {
		cJSON_AddStringToObject(d, "csrf", auth_pre_token(r));
	}
	return d;
}

char *view_string(struct req *r, const char *name, const cJSON *data)
{
	struct sb out = SB_INIT;
	char err[256];

	if (tpl_render_file(conf_get("template_dir"), name, data, &out, err, sizeof err) != OK) {
		log_error("template %s: %s", name, err);
		sb_free(&out);
		return NULL;
	}
	return sb_steal(&out);
}

char *view_fragment(struct req *r, const char *name, const cJSON *item)
{
	cJSON *w = view_data(r, NULL);
	char tname[64], *html;

	if (!w)
		return NULL;
	cJSON_AddItemReferenceToObject(w, "item", (cJSON *)item);
	snprintf(tname, sizeof tname, "%s_one", name);
	html = view_string(r, tname, w);
	cJSON_Delete(w);
	return html;
}

enum err view_render(struct req *r, int status, const char *name, cJSON *data)
{
	struct sb out;
	char err[256];
	double t0 = now_ms();
	enum err e;

	sb_init_arena(&out, r->a);
	if (!data)
		return ERR_NOMEM;
	e = tpl_render_file(conf_get("template_dir"), name, data, &out, err, sizeof err);
	cJSON_Delete(data);
	if (e != OK) {
		log_error("template %s: %s", name, err);
		return ERR_INTERNAL;
	}
	log_debug("rendered %s in %.3f ms", name, now_ms() - t0);
	resp_begin(r, status, "text/html; charset=utf-8", 0);
	return resp_write(r, out.buf, out.len);
}

void view_audit(struct req *r, const char *action, const char *detail_json)
{
	char uid[24];
	const char *p[3] = {uid, action, detail_json};

	snprintf(uid, sizeof uid, "%lld", r->user.id);
	db_exec(db_app(), "INSERT INTO askql.audit(user_id, action, detail) VALUES ($1, $2, $3::jsonb)",
	        3, p, NULL, 0);
}

enum err view_access(struct req *r, const cJSON *run, int kind, const char *format,
                     long long rows, int failed)
{
	return view_access_detail(r, run, kind, format, rows, failed, NULL, NULL);
}

enum err view_access_detail(struct req *r, const cJSON *run, int kind, const char *format,
                            long long rows, int failed, const char *detail_json, const char *level)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(run, "id");
	struct access_rec a = {
		.kind = (enum access_kind)kind, .channel = r->via_token ? ACCESS_API : ACCESS_WEB,
		.user_id = r->user.id, .user_name = r->user.name,
		.target = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "target")),
		.run_id = cJSON_IsNumber(id) ? (long long)id->valuedouble : 0,
		.sql = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "sql")),
		.rows = rows, .format = format, .failed = failed, .detail_json = detail_json,
		/* stored rows were read at the run's level (run_view.c run_level_check let them through) */
		.level = level ? level : cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "held_level")),
	};
	char err[256];

	return access_record(db_app(), &a, err, sizeof err);
}

void view_targets(cJSON *d, const char *chosen)
{
	PGresult *tr = db_query(db_app(), "SELECT name, is_default FROM askql.targets ORDER BY is_default DESC, name",
	                        0, NULL, NULL, 0);
	cJSON *ta;
	int n = tr ? PQntuples(tr) : 0, any = 0;

	for (int i = 0; chosen && *chosen && i < n; i++)
		any |= !strcmp(chosen, PQgetvalue(tr, i, 0));
	if (n) {
		cJSON_DeleteItemFromObjectCaseSensitive(d, "target");
		cJSON_AddStringToObject(d, "target", any ? chosen : PQgetvalue(tr, 0, 0));
	}
	cJSON_AddBoolToObject(d, "many_targets", n > 1);
	ta = cJSON_AddArrayToObject(d, "targets");
	for (int i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "name", PQgetvalue(tr, i, 0));
		cJSON_AddBoolToObject(o, "selected", any ? !strcmp(chosen, PQgetvalue(tr, i, 0)) : PQgetvalue(tr, i, 1)[0] == 't');
		cJSON_AddItemToArray(ta, o);
	}
	PQclear(tr);
}

struct cJSON *view_rows(struct pg_result *res)
{
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; res && i < PQntuples(res); i++) {
		cJSON *o = cJSON_CreateObject();

		for (int c = 0; c < PQnfields(res); c++)
			if (!PQgetisnull(res, i, c))
				cJSON_AddStringToObject(o, PQfname(res, c), PQgetvalue(res, i, c));
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

char *view_link(struct req *r, const char *path, long long page, const char *const *keep)
{
	struct sb s;

	sb_init_arena(&s, r->a);
	sb_puts(&s, path);
	if (page > 0)
		sb_printf(&s, "?page=%lld", page);
	for (const char *const *k = keep; *k; k++) {
		const char *v = req_param(r, *k);

		if (v && *v) {
			sb_printf(&s, "%c%s=", strchr(sb_cstr(&s), '?') ? '&' : '?', *k);
			sb_url(&s, v);
		}
	}
	return (char *)sb_cstr(&s);
}
