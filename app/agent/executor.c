/* executor.c: the executor node: guard, then run the SQL read-only for a preview; errors become history. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/agent_int.h"
#include "sql/guard.h"
#include "store/access.h"
#include "util/conf.h"
#include "util/log.h"
#include "util/sb.h"

void exec_out_free(struct exec_out *o)
{
	free(o->sql);
	free(o->fingerprint);
	free(o->normalized);
	free(o->tables_json);
	free(o->error);
	free(o->missing_column);
	free(o->missing_relation);
	free(o->suggested);
	exec_result_free(&o->r);
	memset(o, 0, sizeof *o);
}

int executor_guard(struct agent *a, const char *sql, long limit, struct guard_result *g)
{
	struct guard_opts go = {0};

	memset(g, 0, sizeof *g);
	go.limit = limit;
	go.allow_system_catalogs = conf_get_int("allow_system_catalogs") != 0;
	go.relation_ok = inspector_relation_ok;
	go.relation_ctx = a;
	if (guard_check(sql, &go, g) != OK)
		return 0;
	return g->allowed;
}

static char *dupn(const char *s)
{
	return s ? strdup(s) : NULL;
}

void executor_run(struct agent *a, const char *name, const char *sql, long max_rows,
                  struct exec_out *o)
{
	long long t0 = agent_now_us();
	struct guard_result g;
	struct exec_opts eo = {0};
	struct exec_error de = {0};
	struct step s = {.kind = "node", .name = name, .status = "ok"};
	cJSON *inj = cJSON_CreateObject(), *outj = cJSON_CreateObject();
	char *in, *out;
	enum err rc;

	memset(o, 0, sizeof *o);
	cJSON_AddStringToObject(inj, "sql", sql ? sql : "");
	cJSON_AddNumberToObject(inj, "attempt", a->state.attempt);
	if (!sql || !*sql) {
		o->error = strdup("no SQL to run");
		goto record;
	}
	if (!executor_guard(a, sql, 0, &g)) {
		struct sb m = SB_INIT;

		sb_printf(&m, "refused by the SQL guard: %s", g.reason ? g.reason : "guard failed");
		o->error = sb_steal(&m);
		o->refused = 1;
		cJSON_AddStringToObject(outj, "guard", "refused");
		guard_free(&g);
		goto record;
	}
	o->sql = dupn(g.sql);
	o->fingerprint = dupn(g.fingerprint);
	o->normalized = dupn(g.normalized);
	{
		cJSON *t = cJSON_CreateArray();

		for (int i = 0; i < g.ntables; i++)
			cJSON_AddItemToArray(t, cJSON_CreateString(g.tables[i]));
		o->tables_json = json_text(t);
		cJSON_AddItemToObject(outj, "tables", t);
	}
	for (int i = 0; i < g.nwarnings; i++) {
		cJSON *w = cJSON_GetObjectItemCaseSensitive(outj, "warnings");

		if (!w)
			w = cJSON_AddArrayToObject(outj, "warnings");
		cJSON_AddItemToArray(w, cJSON_CreateString(g.warnings[i]));
	}
	guard_free(&g);
	eo.conninfo = a->conninfo;
	eo.max_rows = max_rows > 0 ? max_rows : 1000;
	eo.max_bytes = (size_t)conf_get_int("max_page_bytes");
	eo.relation_ok = inspector_relation_ok;
	eo.relation_ctx = a;
	eo.suppress_k = &o->suppress_k;
	rc = exec_fetch(o->sql, &eo, &o->r, &de);
	{
		/* every statement that reached the target is audited (README "Privacy"); the rows stay in
		 * the run, and showing them is audited again (fail-closed there), so a lost row here is
		 * logged loudly by access_record and the run goes on */
		struct access_rec ar = {.kind = ACCESS_RUN, .channel = ACCESS_WEB, .user_from_run = 1,
		                        .target = a->state.target, .run_id = a->run_id, .sql = o->sql,
		                        .rows = rc == OK ? o->r.nrows : -1, .failed = rc != OK, .cat = a->cat};
		char ae[256];

		access_record(a->app, &ar, ae, sizeof ae);
	}
	if (rc == OK) {
		o->ok = 1;
		if (o->suppress_k)
			cJSON_AddNumberToObject(outj, "suppress_k", (double)o->suppress_k);
		cJSON_AddNumberToObject(outj, "row_count", (double)o->r.nrows);
		cJSON_AddBoolToObject(outj, "truncated", o->r.truncated);
		cJSON_AddNumberToObject(outj, "db_ms", o->r.ms);
	} else {
		char *t = exec_error_text(&de);

		o->error = t ? t : strdup(err_str(rc));
		/* the catalog's guess at what a missing column meant goes into the retry prompt */
		if (a->cat && de.missing_column) {
			const char *sug[3];
			int ns = catalog_suggest_columns(a->cat, de.missing_column, sug, 3);
			struct sb m = SB_INIT;

			if (ns > 0) {
				cJSON *arr = cJSON_AddArrayToObject(outj, "did_you_mean");

				sb_printf(&m, "%s; did you mean:", o->error);
				for (int i = 0; i < ns; i++) {
					sb_printf(&m, "%s %s", i ? "," : "", sug[i]);
					cJSON_AddItemToArray(arr, cJSON_CreateString(sug[i]));
				}
				free(o->error);
				o->error = sb_steal(&m);
			}
		}
		o->missing_column = dupn(de.missing_column);
		o->missing_relation = dupn(de.missing_relation);
		o->suggested = dupn(de.suggested);
		memcpy(o->sqlstate, de.sqlstate, sizeof o->sqlstate);
		o->position = de.position;
		if (de.sqlstate[0])
			cJSON_AddStringToObject(outj, "sqlstate", de.sqlstate);
		if (de.missing_column)
			cJSON_AddStringToObject(outj, "missing_column", de.missing_column);
		if (de.missing_relation)
			cJSON_AddStringToObject(outj, "missing_relation", de.missing_relation);
		if (de.suggested)
			cJSON_AddStringToObject(outj, "suggested", de.suggested);
		exec_error_free(&de);
	}
record:
	if (o->error) {
		s.status = "error";
		s.error = o->error;
	}
	if (name) {
		in = json_text(inj);
		out = json_text(outj);
		s.input = in;
		s.output = out;
		s.ms = agent_ms_since(t0);
		agent_step(a, &s);
		free(in);
		free(out);
	}
	cJSON_Delete(inj);
	cJSON_Delete(outj);
}
