/* routes.c: THE dispatch table {method, pattern, handler, flags, declared params} and the router. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "http/http.h"
#include "http/routes.h"
#include "pages/pages.h"
#include "util/arena.h"
#include "util/log.h"

#define PARAMS(...) ((const struct pspec[]){__VA_ARGS__, {0}})
#define NONE ((const struct pspec[]){{0}})
#define CSRF_P {"csrf", P_WORD, 64}
/* what a history page is seen through (history.c keeps them across its actions) */
#define HISTORY_FILTERS {"q", P_TEXT, 200}, {"status", P_WORD, 16}, {"from", P_DATE, 10}, {"to", P_DATE, 10}, \
	{"table", P_WORD, 128}, {"page", P_INT, 6}, {"group", P_WORD, 1}, {"all", P_WORD, 1}, \
	{"noowner", P_WORD, 1}, {"target", P_WORD, 63}
/* what the audit of data access is filtered by (admin_access.c) */
#define ACCESS_FILTERS {"user", P_TEXT, 64}, {"target", P_WORD, 63}, {"class", P_WORD, 16}, \
	{"from", P_DATE, 10}, {"to", P_DATE, 10}

/*
 * Every URL the workers answer.  Order matters only between a literal and a
 * ":name" segment at the same place (first match wins).  To add pages (e.g. the
 * critique engineer's app/pages/report*.c) add rows here and prototypes in pages.h.
 */
static const struct route routes[] = {
	/* sign-in and session */
	{M_GET,  "/signin", page_signin, R_PUBLIC, PARAMS({"next", P_PATH, 200})},
	{M_POST, "/signin", page_signin_post, R_PUBLIC | R_CSRF,
	 PARAMS(CSRF_P, {"name", P_TEXT, 64}, {"password", P_TEXT, 256}, {"next", P_PATH, 200})},
	{M_POST, "/signout", page_signout, R_AUTH | R_CSRF | R_PWCHANGE, PARAMS(CSRF_P)},
	{M_POST, "/lang", page_lang, R_PUBLIC | R_CSRF, PARAMS(CSRF_P, {"lang", P_WORD, 2}, {"next", P_PATH, 200})},
	/* the user's own password */
	{M_GET,  "/account/password", page_password, R_AUTH | R_PWCHANGE, PARAMS({"notice", P_WORD, 16})},
	{M_POST, "/account/password", page_password_post, R_AUTH | R_CSRF | R_PWCHANGE,
	 PARAMS(CSRF_P, {"current", P_TEXT, 256}, {"new", P_TEXT, 256}, {"again", P_TEXT, 256})},
	/* asking and runs */
	{M_GET,  "/", page_ask, R_AUTH, PARAMS({"q", P_TEXT, 2000}, {"parent", P_INT, 19})},
	{M_POST, "/runs", page_run_start, R_AUTH | R_CSRF,
	 PARAMS(CSRF_P, {"question", P_TEXT, 2000}, {"mode", P_WORD, 8}, {"kind", P_WORD, 8},
	        {"parent", P_INT, 19}, {"target", P_WORD, 63})},
	{M_GET,  "/runs/:id", page_run, R_AUTH,
	 PARAMS({"page", P_INT, 9}, {"sort", P_INT, 4}, {"dir", P_WORD, 4}, {"notice", P_WORD, 16},
	        /* the timeline's patient (the k-th; run_view.c): text, so that a bad value is the default */
	        {"patient", P_TEXT, 100})},
	{M_GET,  "/runs/:id/events", page_run_events, R_AUTH, PARAMS({"after", P_INT, 9})},
	{M_GET,  "/runs/:id/stream", page_run_stream, R_AUTH, NONE},
	{M_POST, "/runs/:id/stream", page_run_stream_start, R_AUTH | R_CSRF,
	 PARAMS(CSRF_P, {"question", P_TEXT, 2000}, {"mode", P_WORD, 8}, {"kind", P_WORD, 8},
	        {"parent", P_INT, 19}, {"target", P_WORD, 63})},
	{M_POST, "/runs/:id/step", page_run_step, R_AUTH | R_CSRF,
	 PARAMS(CSRF_P, {"action", P_WORD, 16}, {"sql", P_TEXT, 20000}, {"comment", P_TEXT, 2000},
	        {"add_table", P_WORD, 128}, {"remove_table", P_WORD, 128},
	        {"add_mapping", P_TEXT, 400}, {"remove_mapping", P_TEXT, 400},
	        /* the plan form ticks what to include (issue 15): ticks=include, then what stays */
	        {"ticks", P_WORD, 8}, {"include_table", P_WORD, 128}, {"include_column", P_WORD, 260},
	        {"include_mapping", P_TEXT, 400})},
	{M_POST, "/runs/:id/action", page_run_action, R_AUTH | R_CSRF,
	 PARAMS(CSRF_P, {"action", P_WORD, 16}, {"next", P_PATH, 200})},
	{M_GET,  "/runs/:id/download", page_download, R_AUTH, PARAMS({"format", P_WORD, 5}, {"release", P_INT, 1})},
	{M_GET,  "/history", page_history, R_AUTH,
	 PARAMS(HISTORY_FILTERS, {"done", P_WORD, 16}, {"id", P_INT, 19})},
	/* action: delete (undoable for a while), undo, verify; the filters come back unchanged */
	{M_POST, "/history", page_history_action, R_AUTH | R_CSRF,
	 PARAMS(CSRF_P, HISTORY_FILTERS, {"action", P_WORD, 16}, {"id", P_INT, 19})},
	/* admin */
	{M_GET,  "/admin", page_admin, R_AUTH | R_ADMIN, NONE},
	{M_GET,  "/admin/prompts", page_admin_prompts, R_AUTH | R_ADMIN, NONE},
	{M_GET,  "/admin/prompts/:name", page_admin_prompt, R_AUTH | R_ADMIN,
	 PARAMS({"a", P_INT, 9}, {"b", P_INT, 9})},
	{M_POST, "/admin/prompts/:name", page_admin_prompt_save, R_AUTH | R_ADMIN | R_CSRF,
	 PARAMS(CSRF_P, {"body", P_TEXT, 200000}, {"note", P_TEXT, 500})},
	{M_POST, "/admin/prompts/:name/rollback", page_admin_prompt_rollback, R_AUTH | R_ADMIN | R_CSRF,
	 PARAMS(CSRF_P, {"version", P_INT, 9})},
	{M_GET,  "/admin/config", page_admin_config, R_AUTH | R_ADMIN, NONE},
	/* the catalog of one target: its tables, a table's columns, a column's values and edits;
	 * table and column names are text (any identifier), looked up in the catalog, never spliced */
	{M_GET,  "/admin/catalog", page_admin_catalog, R_AUTH | R_ADMIN,
	 PARAMS({"table", P_TEXT, 128}, {"column", P_TEXT, 128}, {"notice", P_WORD, 16}, {"target", P_WORD, 63},
	        {"phi", P_WORD, 8})},
	/* action: reindex, syn_add|syn_edit|syn_remove, map_add|map_edit|map_remove, desc_set|desc_remove,
	 * phi_set|phi_clear (a PHI class correction; the reason's 500-byte limit is checked by the page,
	 * so that a longer one gets a notice, not a 400) */
	{M_POST, "/admin/catalog", page_admin_catalog_save, R_AUTH | R_ADMIN | R_CSRF,
	 PARAMS(CSRF_P, {"action", P_WORD, 16}, {"table", P_TEXT, 128}, {"column", P_TEXT, 128},
	        {"phrase", P_TEXT, 200}, {"value", P_TEXT, 200}, {"old_phrase", P_TEXT, 200},
	        {"old_value", P_TEXT, 200}, {"text", P_TEXT, 2000}, {"lang", P_WORD, 2}, {"target", P_WORD, 63},
	        {"class", P_WORD, 16}, {"reason", P_TEXT, 4000})},
	{M_GET,  "/admin/verified", page_admin_verified, R_AUTH | R_ADMIN, NONE},
	{M_POST, "/admin/verified", page_admin_verified_save, R_AUTH | R_ADMIN | R_CSRF,
	 PARAMS(CSRF_P, {"action", P_WORD, 16}, {"id", P_INT, 19})},
	{M_GET,  "/admin/datasources", page_admin_datasources, R_AUTH | R_ADMIN, PARAMS({"notice", P_WORD, 16})},
	{M_POST, "/admin/datasources", page_admin_datasources_save, R_AUTH | R_ADMIN | R_CSRF,
	 PARAMS(CSRF_P, {"action", P_WORD, 16}, {"name", P_WORD, 63}, {"conninfo", P_TEXT, 2048},
	        {"ro_conninfo", P_TEXT, 2048}, {"metadata", P_TEXT, 512}, {"confirm", P_WORD, 63})},
	/* indexing runs in the runs pool (conf/nginx.conf.in) and streams its progress */
	{M_POST, "/admin/datasources/index", page_admin_datasources_index, R_AUTH | R_ADMIN | R_CSRF,
	 PARAMS(CSRF_P, {"name", P_WORD, 63})},
	{M_GET,  "/admin/users", page_admin_users, R_AUTH | R_ADMIN,
	 PARAMS({"notice", P_WORD, 16}, {"id", P_INT, 19})},
	/* action: add, role, disable, enable, reset (a temporary password, shown once), level (an
	 * access level on one target: identified, limited, aggregate; store/level.h), token_revoke (one
	 * API token of user id), tokens_revoke (all of them) */
	{M_POST, "/admin/users", page_admin_user_save, R_AUTH | R_ADMIN | R_CSRF,
	 PARAMS(CSRF_P, {"action", P_WORD, 16}, {"name", P_TEXT, 64}, {"role", P_WORD, 8},
	        {"password", P_TEXT, 256}, {"id", P_INT, 19}, {"target", P_WORD, 63}, {"level", P_WORD, 10},
	        {"token", P_INT, 19})},
	{M_GET,  "/admin/audit", page_admin_audit, R_AUTH | R_ADMIN, PARAMS({"page", P_INT, 6})},
	/* the audit of data access (admin_access.c): filters kept on every link; the CSV is audited too */
	{M_GET,  "/admin/audit/access", page_admin_access, R_AUTH | R_ADMIN, PARAMS(ACCESS_FILTERS, {"page", P_INT, 6})},
	{M_GET,  "/admin/audit/access/export", page_admin_access_export, R_AUTH | R_ADMIN, PARAMS(ACCESS_FILTERS)},
	/* critique reports */
	{M_GET,  "/reports", page_reports, R_AUTH, PARAMS({"page", P_INT, 6})},
	{M_GET,  "/reports/:id", page_report, R_AUTH, PARAMS({"format", P_WORD, 8})},
	{M_POST, "/reports", page_report_post, R_AUTH | R_CSRF,
	 PARAMS(CSRF_P, {"case", P_TEXT, 200}, {"text", P_TEXT, 200000}, {"file", P_FILE, 1000000})},
	/* JSON API (bearer token) */
	{M_POST, "/api/runs", api_runs_start, R_AUTH | R_API,
	 PARAMS({"question", P_TEXT, 2000}, {"mode", P_WORD, 8}, {"kind", P_WORD, 8}, {"parent", P_INT, 19})},
	{M_GET,  "/api/runs/:id", api_run, R_AUTH | R_API, NONE},
	{M_GET,  "/api/runs/:id/steps", api_run_steps, R_AUTH | R_API, PARAMS({"after", P_INT, 9})},
	{M_GET,  "/api/runs/:id/download", api_run_download, R_AUTH | R_API, PARAMS({"format", P_WORD, 5}, {"release", P_INT, 1})},
};
#define NROUTES (sizeof routes / sizeof routes[0])

/* Match path against pattern; fills r->arg_id / r->arg_name.  1 on match. */
static int match(struct req *r, const char *pat, const char *path)
{
	while (*pat && *path) {
		if (*pat == ':') {
			const char *pe = strchr(pat, '/'), *se = strchr(path, '/');
			size_t pl = pe ? (size_t)(pe - pat) : strlen(pat);
			size_t sl = se ? (size_t)(se - path) : strlen(path);

			if (sl == 0 || sl > 128)
				return 0;
			if (pl == 3 && !strncmp(pat, ":id", 3)) {
				long long v = 0;

				if (sl > 18)
					return 0;
				for (size_t i = 0; i < sl; i++) {
					if (path[i] < '0' || path[i] > '9')
						return 0;
					v = v * 10 + (path[i] - '0');
				}
				r->arg_id = v;
			} else {
				for (size_t i = 0; i < sl; i++) {
					char c = path[i];

					if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
					      (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'))
						return 0;
				}
				r->arg_name = arena_strndup(r->a, path, sl);
			}
			pat += pl;
			path += sl;
			continue;
		}
		if (*pat != *path)
			return 0;
		pat++;
		path++;
	}
	/* a trailing slash is tolerated ("/history/") */
	return !*pat && (!*path || (path[0] == '/' && !path[1] && path[-1] != '/'));
}

static int valid(const struct pspec *s, const struct kv *kv)
{
	const unsigned char *v = (const unsigned char *)kv->val;
	size_t i, n = kv->len;

	if ((int)n > s->max)
		return 0;
	if (kv->filename && s->type != P_FILE)
		return 0;
	switch (s->type) {
	case P_INT:
		i = (n > 0 && v[0] == '-') ? 1 : 0;
		if (n == 0)
			return 1;            /* empty means absent */
		if (n - i == 0 || n - i > 18)
			return 0;
		for (; i < n; i++)
			if (v[i] < '0' || v[i] > '9')
				return 0;
		return 1;
	case P_WORD:
		for (i = 0; i < n; i++)
			if (!((v[i] >= 'a' && v[i] <= 'z') || (v[i] >= 'A' && v[i] <= 'Z') ||
			      (v[i] >= '0' && v[i] <= '9') || strchr("_.:-", v[i])))
				return 0;
		return 1;
	case P_DATE:
		if (n == 0)
			return 1;
		if (n != 10 || v[4] != '-' || v[7] != '-')
			return 0;
		for (i = 0; i < n; i++)
			if (i != 4 && i != 7 && (v[i] < '0' || v[i] > '9'))
				return 0;
		return 1;
	case P_TEXT:
		for (i = 0; i < n; i++)
			if (v[i] < 0x20 && v[i] != '\t' && v[i] != '\r' && v[i] != '\n')
				return 0;
		return 1;
	case P_FILE:
		return 1;
	case P_PATH:
		return resp_local_path(kv->val);
	}
	return 0;
}

/* Keep only the declared parameters, each validated; ERR_INPUT on the first bad one. */
static enum err declare(struct req *r, const struct pspec *ps)
{
	r->params = arena_alloc(r->a, sizeof *r->params * (size_t)(r->nin + 1));
	if (!r->params)
		return ERR_NOMEM;
	for (int i = 0; i < r->nin; i++) {
		for (const struct pspec *s = ps; s && s->name; s++) {
			if (strcmp(s->name, r->in[i].key))
				continue;
			r->params[r->nparams] = r->in[i];
			if (!valid(s, &r->in[i])) {
				if (s->type != P_PATH) {
					log_info("parameter %s refused", s->name);
					return ERR_INPUT;
				}
				/* a next= that is not a local path is not an error: it leads home */
				log_info("parameter %s is no local path: /", s->name);
				r->params[r->nparams].val = "/";
				r->params[r->nparams].len = 1;
			}
			r->nparams++;
			break;
		}
	}
	return OK;
}

/* The CSRF check for every POST route, in one place. */
static int csrf_ok(struct req *r)
{
	const char *sent = NULL;

	if (r->via_token)
		return 1;                /* bearer-token API calls carry no cookies */
	for (int i = 0; i < r->nin; i++)
		if (!strcmp(r->in[i].key, "csrf"))
			sent = r->in[i].val;
	if (!sent)
		return 0;
	if (r->signed_in)
		return auth_token_eq(sent, r->csrf);
	/* before sign-in: the double-submit cookie set by the sign-in form */
	return auth_token_eq(sent, req_cookie(r, "askql_pre"));
}

static enum err api_error(struct req *r, int status)
{
	char body[160];

	snprintf(body, sizeof body, "{\"error\":\"%s\",\"status\":%d}\n", resp_status_text(status), status);
	resp_begin(r, status, "application/json", 0);
	return resp_puts(r, body);
}

void http_dispatch(struct req *r)
{
	const struct route *rt = NULL;
	int path_known = 0, status = 0;
	enum err e;

	if (auth_load(r) != OK) {
		resp_error(r, 503);
		return;
	}
	for (size_t i = 0; i < NROUTES; i++) {
		r->arg_id = 0;
		r->arg_name = NULL;
		if (!match(r, routes[i].pattern, r->path))
			continue;
		path_known = 1;
		if (routes[i].method == r->method ||
		    (r->method == M_HEAD && routes[i].method == M_GET)) {
			rt = &routes[i];
			break;
		}
	}
	if (!rt) {
		if (path_known || r->method == M_OTHER) {
			resp_header(r, "Allow", "GET, HEAD, POST");
			status = 405;
		} else {
			status = 404;
		}
		goto out;
	}
	r->route = rt;
	if (r->via_token != !!(rt->flags & R_API) && (r->via_token || r->signed_in)) {
		/* tokens open the API only, and the API only takes tokens: a cookie riding along on a
		 * cross-site request can never start a run there (the API has no CSRF token) */
		status = 401;
		goto out;
	}
	if ((rt->flags & R_AUTH) && !r->signed_in) {
		if (rt->flags & R_API || r->method != M_GET) {
			status = 401;
			goto out;
		}
		{
			struct sb to;

			sb_init_arena(&to, r->a);
			sb_puts(&to, "/signin?next=");
			sb_url(&to, r->path);
			resp_redirect(r, sb_cstr(&to));
		}
		return;
	}
	if (r->signed_in && r->user.must_change && !(rt->flags & (R_PWCHANGE | R_PUBLIC))) {
		/* after an admin reset, the temporary password opens the change page and nothing else; a
		 * token issued since then opens nothing either: the API has no change page, so it says why */
		if (r->via_token) {
			page_notice(r, 403, "api.must_change_password", NULL, 0);
			return;
		}
		if (r->method == M_GET || r->method == M_HEAD) {
			resp_redirect(r, "/account/password");
			return;
		}
		status = 403;
		goto out;
	}
	if ((rt->flags & R_ADMIN) && strcmp(r->user.role, "admin")) {
		status = 403;
		goto out;
	}
	if ((rt->flags & R_CSRF) && !csrf_ok(r)) {
		log_warn("csrf token missing or wrong for %s", r->path);
		status = 403;
		goto out;
	}
	if ((e = declare(r, rt->params)) != OK) {
		status = resp_err_status(e);
		goto out;
	}
	e = rt->fn(r);
	if (e != OK) {
		if (r->began) {
			log_error("%s failed after output began: %s", r->path, err_str(e));
			return;
		}
		status = resp_err_status(e);
	}
out:
	if (status) {
		if ((r->route && (r->route->flags & R_API)) || !strncmp(r->path, "/api/", 5))
			api_error(r, status);
		else
			resp_error(r, status);
	}
}
