/* admin_datasources.c: Admin -> Data sources: the registered targets; add, test, index with live progress, set default, remove (docs/targets.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "catalog/catalog.h"
#include "catalog/llm_policy.h"
#include "pages/pages.h"
#include "store/db.h"
#include "store/target.h"
#include "store/target_conn.h"
#include "util/i18n.h"
#include "util/log.h"
#include "util/sb.h"

/* the page's data: every target, masked; error and notice when given */
static cJSON *page_data(struct req *r, const char *error, const char *notice)
{
	cJSON *d = view_data(r, "admin.datasources"), *ts = cJSON_AddArrayToObject(d, "targets");
	struct target *t = NULL;
	char err[512];
	int n = 0;

	if (target_list(db_app(), &t, &n, err, sizeof err) != OK)
		error = err;
	for (int i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();
		char *m = target_mask(t[i].conninfo), *rm = target_mask(t[i].ro_conninfo);

		cJSON_AddStringToObject(o, "name", t[i].name);
		cJSON_AddStringToObject(o, "ident", t[i].ident);
		cJSON_AddStringToObject(o, "conninfo", m ? m : "");
		if (t[i].ro_conninfo && rm)
			cJSON_AddStringToObject(o, "ro_conninfo", rm);
		if (t[i].metadata_file)
			cJSON_AddStringToObject(o, "metadata", t[i].metadata_file);
		cJSON_AddBoolToObject(o, "is_default", t[i].is_default);
		cJSON_AddBoolToObject(o, "from_conf", t[i].from_conf);
		cJSON_AddBoolToObject(o, "indexed", t[i].catalog_version > 0);
		cJSON_AddNumberToObject(o, "version", (double)t[i].catalog_version);
		cJSON_AddStringToObject(o, "indexed_at", t[i].indexed_at);
		cJSON_AddNumberToObject(o, "tables", t[i].tables);
		cJSON_AddNumberToObject(o, "columns", t[i].columns);
		{
			/* what the model sees of this target's data (docs/llm-policy.md) */
			enum llm_policy p = llm_policy_resolve(t[i].llm_data_policy, NULL);
			char key[32];

			snprintf(key, sizeof key, "llmpolicy.%s", llm_policy_name(p));
			cJSON_AddStringToObject(o, "llm_policy", llm_policy_name(p));
			cJSON_AddStringToObject(o, "llm_policy_text", view_t(r, key));
			cJSON_AddBoolToObject(o, "llm_policy_own", t[i].llm_data_policy[0] != '\0');
		}
		cJSON_AddItemToArray(ts, o);
		free(m);
		free(rm);
		target_free(&t[i]);
	}
	free(t);
	if (error)
		cJSON_AddStringToObject(d, "error", error);
	if (notice)
		cJSON_AddStringToObject(d, "notice", notice);
	return d;
}

enum err page_admin_datasources(struct req *r)
{
	const char *n = req_param(r, "notice");
	char key[48];

	if (n && *n)
		snprintf(key, sizeof key, "datasources.notice_%s", n);
	return view_render(r, 200, "admin_datasources", page_data(r, NULL, n && *n ? view_t(r, key) : NULL));
}

/* why a connection failed, in the reader's language: from the code, never libpq's or the peer's words */
static const char *conn_words(struct req *r, const struct target_conn_out *f)
{
	struct sb sb;
	char secs[24];

	sb_init_arena(&sb, r->a);
	snprintf(secs, sizeof secs, "%ld", target_conn_seconds());
	i18n_format(&sb, r->lang, target_conn_key(f->fail),
	            (const char *const[]){"seconds", secs, "sqlstate", f->sqlstate, NULL});
	return sb_ok(&sb) ? sb_cstr(&sb) : "";
}

/* the test's findings as the page shows them */
static void add_check(struct req *r, cJSON *d, const char *name, const struct target_check *c)
{
	cJSON *o = cJSON_AddObjectToObject(d, "check"), *w = cJSON_AddArrayToObject(o, "warnings");
	const char *p = c->warnings;

	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddBoolToObject(o, "index_ok", c->index_ok);
	cJSON_AddBoolToObject(o, "ro_ok", c->ro_ok);
	cJSON_AddStringToObject(o, "index_error", c->index_ok ? "" : conn_words(r, &c->index_fail));
	cJSON_AddStringToObject(o, "ro_error", c->ro_ok ? "" : conn_words(r, &c->ro_fail));
	cJSON_AddStringToObject(o, "version", c->server_version);
	cJSON_AddStringToObject(o, "ro_user", c->ro_user);
	cJSON_AddNumberToObject(o, "readable", (double)c->ro_readable_tables);
	cJSON_AddNumberToObject(o, "writable", (double)c->ro_writable_tables);
	while (*p) {
		size_t l = strcspn(p, "\n");
		char line[300];

		snprintf(line, sizeof line, "%.*s", (int)(l < sizeof line - 1 ? l : sizeof line - 1), p);
		cJSON_AddItemToArray(w, cJSON_CreateString(line));
		p += l + (p[l] == '\n');
	}
	cJSON_AddBoolToObject(o, "has_warnings", cJSON_GetArraySize(w) > 0);
	cJSON_AddBoolToObject(o, "loud", c->ro_can_write || c->ro_can_create || c->ro_reads_secrets);
}

/* an audit entry naming the target (never its connection) */
static void audit(struct req *r, const char *action, const char *name)
{
	cJSON *o = cJSON_CreateObject();
	char *s;

	cJSON_AddStringToObject(o, "target", name);
	s = cJSON_PrintUnformatted(o);
	view_audit(r, action, s);
	free(s);
	cJSON_Delete(o);
}

enum err page_admin_datasources_save(struct req *r)
{
	const char *action = req_param(r, "action"), *name = req_param(r, "name");
	char err[1024] = "", to[96];
	enum err e;

	if (!action || !name || !*name)
		return ERR_INPUT;
	if (!strcmp(action, "add")) {
		const char *ci = req_param(r, "conninfo"), *ro = req_param(r, "ro_conninfo"), *meta = req_param(r, "metadata");

		e = target_add(db_app(), name, ci ? ci : "", ro, meta, NULL, err, sizeof err);
		if (e != OK) {
			cJSON *d = page_data(r, err, NULL);

			cJSON_AddStringToObject(d, "form_name", name);
			return view_render(r, e == ERR_DB ? 500 : 400, "admin_datasources", d);
		}
		audit(r, "target.add", name);
	} else if (!strcmp(action, "test")) {
		struct target t;
		struct target_check c;
		cJSON *d;

		if (target_get(db_app(), name, &t, err, sizeof err) != OK)
			return view_render(r, 404, "admin_datasources", page_data(r, err, NULL));
		/* bounded by conf target_connect_ms, in the runs pool (POST /admin/datasources goes there:
		 * conf/nginx.conf.in), so a tarpit never holds a page worker (docs/privacy.md) */
		target_test(&t, &c);
		target_free(&t);
		if (!c.index_ok || !c.ro_ok)
			log_info("data source %s: test failed: %s%s%s", name, c.index_ok ? "" : c.index_error,
			         c.index_ok ? "" : "; ", c.ro_ok ? "" : c.ro_error);
		d = page_data(r, NULL, NULL);
		add_check(r, d, name, &c);
		return view_render(r, 200, "admin_datasources", d);
	} else if (!strcmp(action, "default")) {
		if (target_set_default(db_app(), name, err, sizeof err) != OK)
			return view_render(r, 400, "admin_datasources", page_data(r, err, NULL));
		audit(r, "target.default", name);
	} else if (!strcmp(action, "remove")) {
		const char *confirm = req_param(r, "confirm");

		if (!confirm || strcmp(confirm, name))
			return view_render(r, 400, "admin_datasources",
			                   page_data(r, view_t(r, "datasources.confirm_needed"), NULL));
		if (target_remove(db_app(), name, err, sizeof err) != OK)
			return view_render(r, 400, "admin_datasources", page_data(r, err, NULL));
		audit(r, "target.remove", name);
	} else {
		return ERR_INPUT;
	}
	snprintf(to, sizeof to, "/admin/datasources?notice=%s", action);
	return resp_redirect(r, to);
}

/* one progress line onto the page, escaped and flushed at once */
struct progress { struct req *r; int alive; };
static void on_progress(void *ctx, const char *msg)
{
	struct progress *p = ctx;
	struct sb sb = SB_INIT;

	if (!p->alive)
		return;
	sb_puts(&sb, "<li class=\"step\">");
	sb_html(&sb, msg);
	sb_puts(&sb, "</li>\n");
	if (!sb_ok(&sb) || resp_puts(p->r, sb_cstr(&sb)) != OK || resp_flush(p->r) != OK)
		p->alive = 0;
	sb_free(&sb);
}

/* POST /admin/datasources/index (runs pool): index one target, its progress streamed line by
 * line onto a progressive page (as a run's steps are), then the outcome.  Works without JavaScript. */
enum err page_admin_datasources_index(struct req *r)
{
	const char *name = req_param(r, "name");
	struct progress pg = {r, 1};
	struct index_result res = {0};
	struct index_opts o = {0};
	struct target t;
	char err[1024] = "";
	cJSON *d;
	char *top, *bottom;
	enum err e;

	if (!name || target_get(db_app(), name, &t, err, sizeof err) != OK)
		return ERR_NOTFOUND;
	d = view_data(r, "datasources.indexing");
	cJSON_AddStringToObject(d, "name", name);
	top = view_string(r, "datasource_index_top", d);
	resp_begin(r, 200, "text/html; charset=utf-8", 0);
	if (top) {
		resp_puts(r, top);
		resp_puts(r, "<!--                                                                                  -->\n");
		resp_flush(r);
	}
	o.target_name = t.name;
	o.conninfo = t.conninfo;
	o.metadata_file = t.metadata_file;
	o.docs_dir = t.docs_dir;
	o.result = &res;
	o.on_progress = on_progress;
	o.progress_ctx = &pg;
	e = catalog_index(db_app(), &o, err, sizeof err);
	audit(r, e == OK ? "target.index" : "target.index_failed", name);
	log_info("index %s from the data sources page: %s", name, e == OK ? "ok" : err);
	if (e != OK)
		cJSON_AddStringToObject(d, "error", err);
	else {
		cJSON *out = cJSON_AddObjectToObject(d, "outcome");

		cJSON_AddNumberToObject(out, "version", (double)res.version);
		cJSON_AddBoolToObject(out, "changed", res.changed);
		cJSON_AddNumberToObject(out, "tables", res.tables);
		cJSON_AddNumberToObject(out, "columns", res.columns);
		cJSON_AddNumberToObject(out, "values", res.values);
		cJSON_AddNumberToObject(out, "joins", res.fks);
		cJSON_AddNumberToObject(out, "inferred", res.inferred_fks);
		cJSON_AddNumberToObject(out, "warnings", res.warnings);
		cJSON_AddNumberToObject(out, "seconds", (double)(long)(res.seconds * 100) / 100);
	}
	bottom = view_string(r, "datasource_index_bottom", d);
	if (bottom && pg.alive)
		resp_puts(r, bottom);
	target_free(&t);
	free(top);
	free(bottom);
	cJSON_Delete(d);
	return OK;
}
