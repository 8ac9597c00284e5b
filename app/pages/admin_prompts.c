/* admin_prompts.c: prompts with their versions, a line diff between two versions, edit (new version), roll back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "llm/prompt.h"
#include "pages/pages.h"
#include "store/db.h"
#include "util/arena.h"
#include "util/log.h"

#define DIFF_MAX_LINES 2000

enum err page_admin_prompts(struct req *r)
{
	PGresult *res;
	cJSON *d, *a;

	prompt_sync(db_app(), NULL);   /* files added since start show up */
	res = db_query(db_app(), "SELECT name, max(version) AS latest, "
	                         "max(version) FILTER (WHERE active) AS active, count(*) AS versions, "
	                         "to_char(max(created_at), 'YYYY-MM-DD HH24:MI') AS changed "
	                         "FROM askql.prompts GROUP BY name ORDER BY name", 0, NULL, NULL, 0);
	if (!res)
		return ERR_DB;
	d = view_data(r, "admin.prompts");
	a = cJSON_AddArrayToObject(d, "prompts");
	for (int i = 0; i < PQntuples(res); i++) {
		cJSON *o = cJSON_CreateObject();

		for (int c = 0; c < PQnfields(res); c++)
			cJSON_AddStringToObject(o, PQfname(res, c), PQgetvalue(res, i, c));
		cJSON_AddItemToArray(a, o);
	}
	PQclear(res);
	return view_render(r, 200, "admin_prompts", d);
}

/* Split s into lines (s is modified); returns the count, at most max. */
static int lines(char *s, char **out, int max)
{
	int n = 0;

	while (*s && n < max) {
		char *nl = strchr(s, '\n');

		out[n++] = s;
		if (!nl)
			break;
		*nl = '\0';
		if (nl > s && nl[-1] == '\r')
			nl[-1] = '\0';
		s = nl + 1;
	}
	return n;
}

/* A line diff (longest common subsequence) of a and b as [{"op":"same|add|del","text":..}]. */
static cJSON *diff(const char *a, const char *b)
{
	char *ca = strdup(a), *cb = strdup(b), **la = calloc(DIFF_MAX_LINES, sizeof *la), **lb = calloc(DIFF_MAX_LINES, sizeof *lb);
	int na, nb, *t = NULL, i, j;
	cJSON *out = cJSON_CreateArray();

	if (!ca || !cb || !la || !lb)
		goto done;
	na = lines(ca, la, DIFF_MAX_LINES);
	nb = lines(cb, lb, DIFF_MAX_LINES);
	if (!(t = calloc((size_t)(na + 1) * (size_t)(nb + 1), sizeof *t)))
		goto done;
#define T(x, y) t[(size_t)(x) * (size_t)(nb + 1) + (size_t)(y)]
	for (i = na - 1; i >= 0; i--)
		for (j = nb - 1; j >= 0; j--)
			T(i, j) = !strcmp(la[i], lb[j]) ? T(i + 1, j + 1) + 1
			          : (T(i + 1, j) > T(i, j + 1) ? T(i + 1, j) : T(i, j + 1));
	for (i = 0, j = 0; i < na || j < nb; ) {
		cJSON *o = cJSON_CreateObject();

		if (i < na && j < nb && !strcmp(la[i], lb[j])) {
			cJSON_AddStringToObject(o, "op", "same");
			cJSON_AddStringToObject(o, "text", la[i]);
			i++, j++;
		} else if (j < nb && (i == na || T(i, j + 1) >= T(i + 1, j))) {
			cJSON_AddStringToObject(o, "op", "add");
			cJSON_AddBoolToObject(o, "add", 1);
			cJSON_AddStringToObject(o, "text", lb[j++]);
		} else {
			cJSON_AddStringToObject(o, "op", "del");
			cJSON_AddBoolToObject(o, "del", 1);
			cJSON_AddStringToObject(o, "text", la[i++]);
		}
		cJSON_AddItemToArray(out, o);
	}
#undef T
done:
	free(t);
	free(ca);
	free(cb);
	free(la);
	free(lb);
	return out;
}

enum err page_admin_prompt(struct req *r)
{
	const char *p[1] = {r->arg_name};
	PGresult *res = db_query(db_app(), "SELECT version, body, coalesce(author, '') AS author, coalesce(note, '') AS note, "
	                                   "active::text, to_char(created_at, 'YYYY-MM-DD HH24:MI') AS created "
	                                   "FROM askql.prompts WHERE name = $1 ORDER BY version DESC", 1, p, NULL, 0);
	long long va = req_param_int(r, "a", 0), vb = req_param_int(r, "b", 0);
	const char *ba = NULL, *bb = NULL, *current = NULL;
	cJSON *d, *vs;
	int active = 0;

	if (!res)
		return ERR_DB;
	if (PQntuples(res) == 0) {
		PQclear(res);
		return ERR_NOTFOUND;
	}
	d = view_data(r, "admin.prompts");
	cJSON_AddStringToObject(d, "name", r->arg_name);
	vs = cJSON_AddArrayToObject(d, "versions");
	for (int i = 0; i < PQntuples(res); i++) {
		cJSON *o = cJSON_CreateObject();
		int v = atoi(PQgetvalue(res, i, 0)), act = PQgetvalue(res, i, 4)[0] == 't';

		cJSON_AddNumberToObject(o, "version", v);
		cJSON_AddStringToObject(o, "author", PQgetvalue(res, i, 2));
		cJSON_AddStringToObject(o, "note", PQgetvalue(res, i, 3));
		cJSON_AddStringToObject(o, "created", PQgetvalue(res, i, 5));
		cJSON_AddBoolToObject(o, "active", act);
		if (i + 1 < PQntuples(res))
			cJSON_AddNumberToObject(o, "prev", atoi(PQgetvalue(res, i + 1, 0)));
		cJSON_AddItemToArray(vs, o);
		if (act && !active) {
			active = v;
			current = PQgetvalue(res, i, 1);
		}
		if (v == va)
			ba = PQgetvalue(res, i, 1);
		if (v == vb)
			bb = PQgetvalue(res, i, 1);
	}
	if (!current)
		current = PQgetvalue(res, 0, 1);
	cJSON_AddNumberToObject(d, "active", active);
	cJSON_AddStringToObject(d, "body", current);
	if (ba && bb) {
		cJSON_AddNumberToObject(d, "a", (double)va);
		cJSON_AddNumberToObject(d, "b", (double)vb);
		cJSON_AddItemToObject(d, "diff", diff(ba, bb));
	}
	PQclear(res);
	return view_render(r, 200, "admin_prompt", d);
}

enum err page_admin_prompt_save(struct req *r)
{
	const char *body = req_param(r, "body");
	int v = 0;
	enum err e;
	char to[200];

	if (!body || !*body)
		return ERR_INPUT;
	/* browsers send textarea lines as CRLF; the files and earlier versions use LF */
	{
		char *lf = arena_strdup(r->a, body), *o = lf;

		if (!lf)
			return ERR_NOMEM;
		for (const char *p = body; *p; p++)
			if (!(p[0] == '\r' && p[1] == '\n'))
				*o++ = *p;
		*o = '\0';
		body = lf;
	}
	e = prompt_add(db_app(), r->arg_name, body, r->user.name, req_param(r, "note"), &v);
	if (e != OK)
		return e;
	{
		struct sb det = SB_INIT;

		sb_puts(&det, "{\"prompt\":");
		sb_json_str(&det, r->arg_name);
		sb_printf(&det, ",\"version\":%d}", v);
		view_audit(r, "prompt.edit", sb_cstr(&det));
		sb_free(&det);
	}
	snprintf(to, sizeof to, "/admin/prompts/%s", r->arg_name);
	return resp_redirect(r, to);
}

enum err page_admin_prompt_rollback(struct req *r)
{
	long long v = req_param_int(r, "version", 0);
	enum err e;
	char to[200];

	if (v <= 0)
		return ERR_INPUT;
	if ((e = prompt_set_version(db_app(), r->arg_name, (int)v)) != OK)
		return e;
	{
		struct sb det = SB_INIT;

		sb_puts(&det, "{\"prompt\":");
		sb_json_str(&det, r->arg_name);
		sb_printf(&det, ",\"version\":%lld}", v);
		view_audit(r, "prompt.rollback", sb_cstr(&det));
		sb_free(&det);
	}
	snprintf(to, sizeof to, "/admin/prompts/%s", r->arg_name);
	return resp_redirect(r, to);
}
