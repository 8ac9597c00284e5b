/* admin_catalog.c: the catalog as stored (askql.cat_* tables): browse, add synonyms and value mappings, re-index. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "catalog/catalog.h"
#include "pages/pages.h"
#include "store/db.h"
#include "store/target.h"
#include "util/conf.h"
#include "util/log.h"

/* the target the page is about: ?target= when registered, else the default; written to out */
static void pick_target(struct req *r, char *out, size_t n)
{
	const char *want = req_param(r, "target");
	struct target t;

	if (target_resolve(db_app(), want && *want ? want : NULL, &t, NULL, 0) == OK) {
		snprintf(out, n, "%s", t.name);
		target_free(&t);
	} else {
		snprintf(out, n, "%s", conf_get("target_name"));
	}
}

enum err page_admin_catalog(struct req *r)
{
	const char *table = req_param(r, "table");
	cJSON *d = view_data(r, "admin.catalog"), *ts;
	PGresult *res;
	char tname[TARGET_NAME_MAX];

	pick_target(r, tname, sizeof tname);
	/* one target at a time: a selector of the registered ones */
	view_targets(d, tname);
	if (!cJSON_GetObjectItemCaseSensitive(d, "target"))
		cJSON_AddStringToObject(d, "target", tname);

	/* the catalog's own tables, whatever its migrations created */
	res = db_query(db_app(), "SELECT c.relname, c.reltuples::bigint FROM pg_class c JOIN pg_namespace n "
	                         "ON n.oid = c.relnamespace WHERE n.nspname = 'askql' AND c.relkind = 'r' "
	                         "AND c.relname LIKE 'cat\\_%' ORDER BY 1", 0, NULL, NULL, 0);
	ts = cJSON_AddArrayToObject(d, "tables");
	for (int i = 0; res && i < PQntuples(res); i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "name", PQgetvalue(res, i, 0));
		cJSON_AddStringToObject(o, "rows", atoll(PQgetvalue(res, i, 1)) < 0 ? "?" : PQgetvalue(res, i, 1));
		cJSON_AddBoolToObject(o, "current", table && !strcmp(table, PQgetvalue(res, i, 0)));
		cJSON_AddItemToArray(ts, o);
	}
	cJSON_AddBoolToObject(d, "available", res && PQntuples(res) > 0);
	cJSON_AddBoolToObject(d, "can_index", 1);
	{
		const char *n = req_param(r, "notice");

		if (n && (!strcmp(n, "reindexed") || !strcmp(n, "reindex_failed"))) {
			char key[40];

			snprintf(key, sizeof key, "web.%s", n);
			cJSON_AddStringToObject(d, "notice", view_t(r, key));
			cJSON_AddBoolToObject(d, "notice_bad", !strcmp(n, "reindex_failed"));
		}
	}
	{
		const char *p[1] = {tname};
		PGresult *v = db_query(db_app(), "SELECT version, to_char(indexed_at, 'YYYY-MM-DD HH24:MI:SS') "
		                                 "FROM askql.cat_targets WHERE name = $1", 1, p, NULL, 0);

		if (v && PQntuples(v) == 1) {
			cJSON_AddStringToObject(d, "cat_version", PQgetvalue(v, 0, 0));
			cJSON_AddStringToObject(d, "indexed_at", PQgetvalue(v, 0, 1));
		}
		PQclear(v);
	}
	/* one table's rows: the name was checked against the list above, so it can be quoted safely */
	for (int i = 0; table && res && i < PQntuples(res); i++) {
		PGresult *rows;
		struct sb sql = SB_INIT;
		cJSON *cols, *data;

		if (strcmp(table, PQgetvalue(res, i, 0)))
			continue;
		/* every column but the embeddings (long vectors nobody reads) */
		{
			const char *p[1] = {table};
			PGresult *cl = db_query(db_app(), "SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) "
			                                  "FROM pg_attribute WHERE attrelid = ('askql.' || quote_ident($1))::regclass "
			                                  "AND attnum > 0 AND NOT attisdropped AND attname NOT IN ('embedding', 'hash')",
			                        1, p, NULL, 0);

			const char *cols = cl && PQntuples(cl) == 1 && !PQgetisnull(cl, 0, 0) ? PQgetvalue(cl, 0, 0) : "*";

			/* only the chosen target's rows (keyed by "target", or "name" in cat_targets) */
			int keyed = strstr(cols, ", target,") || !strncmp(cols, "target,", 7) || strstr(cols, ", target") == cols + strlen(cols) - 8;

			sb_printf(&sql, "SELECT %s FROM askql.\"%s\" WHERE %s = $1::text LIMIT 300", cols, table,
			          keyed ? "target" : !strcmp(table, "cat_targets") ? "name" : "$1::text");
			PQclear(cl);
		}
		{
			const char *tp[1] = {tname};

			rows = db_query(db_app(), sb_cstr(&sql), 1, tp, NULL, 0);
		}
		sb_free(&sql);
		cJSON_AddStringToObject(d, "table", table);
		cols = cJSON_AddArrayToObject(d, "columns");
		data = cJSON_AddArrayToObject(d, "rows");
		for (int c = 0; rows && c < PQnfields(rows); c++)
			cJSON_AddItemToArray(cols, cJSON_CreateString(PQfname(rows, c)));
		for (int k = 0; rows && k < PQntuples(rows); k++) {
			cJSON *cells = cJSON_CreateArray(), *ro = cJSON_CreateObject();

			for (int c = 0; c < PQnfields(rows); c++) {
				cJSON *cell = cJSON_CreateObject();
				const char *v = PQgetvalue(rows, k, c);

				if (PQgetisnull(rows, k, c))
					cJSON_AddBoolToObject(cell, "null", 1);
				else if (strlen(v) > 300) {
					char cut[304];

					snprintf(cut, sizeof cut, "%.297s…", v);
					cJSON_AddStringToObject(cell, "v", cut);
				} else
					cJSON_AddStringToObject(cell, "v", v);
				cJSON_AddItemToArray(cells, cell);
			}
			cJSON_AddItemToObject(ro, "cells", cells);
			cJSON_AddItemToArray(data, ro);
		}
		PQclear(rows);
	}
	PQclear(res);
	return view_render(r, 200, "admin_catalog", d);
}

/* Synonyms and value mappings go into the metadata the indexer reads; re-index applies them. */
enum err page_admin_catalog_save(struct req *r)
{
	const char *action = req_param(r, "action");
	char err[512] = "";
	enum err e = ERR_INPUT;

	if (!action)
		return ERR_INPUT;
	if (!strcmp(action, "reindex")) {
		struct index_opts o = {0};
		PGconn *c;

		char tname[TARGET_NAME_MAX];
		struct target t;

		pick_target(r, tname, sizeof tname);
		if (target_get(db_app(), tname, &t, err, sizeof err) != OK)
			return ERR_NOTFOUND;
		o.target_name = t.name;
		o.conninfo = t.conninfo;
		o.docs_dir = t.docs_dir && (!t.from_conf || access(t.docs_dir, R_OK) == 0) ? t.docs_dir : NULL;
		o.metadata_file = t.metadata_file && (!t.from_conf || access(t.metadata_file, R_OK) == 0) ? t.metadata_file : NULL;
		/* its own connection: indexing commits in steps and must not share the request's */
		if (!(c = db_connect(conf_get("app_db"), err, sizeof err))) {
			target_free(&t);
			return ERR_DB;
		}
		e = catalog_index(c, &o, err, sizeof err);
		PQfinish(c);
		target_free(&t);
		if (e != OK)
			log_error("re-index: %s", err);
		view_audit(r, "catalog.reindex", e == OK ? "{\"ok\":true}" : "{\"ok\":false}");
		/* the outcome is shown on the catalog page; a failure leaves the previous catalog */
		return resp_redirect(r, e == OK ? "/admin/catalog?notice=reindexed" : "/admin/catalog?notice=reindex_failed");
	} else if (!strcmp(action, "synonym") || !strcmp(action, "mapping")) {
		const char *t = req_param(r, "table"), *col = req_param(r, "column");
		const char *ph = req_param(r, "phrase"), *v = req_param(r, "value");
		struct sb det = SB_INIT;
		const char *p[5] = {action, t, col ? col : "", ph, v ? v : ""};

		if (!t || !*t || !ph || !*ph)
			return ERR_INPUT;
		char tname[TARGET_NAME_MAX];

		pick_target(r, tname, sizeof tname);
		const char *q[5] = {tname, t, col ? col : "", ph, v ? v : ""};
		PGresult *res;
		const char *upd;

		/* applied to the catalog now (every worker reloads it: the target's version moves), and
		 * kept in askql.catalog_edits so that a re-index can apply it again */
		if (!strcmp(action, "mapping"))
			upd = "UPDATE askql.cat_values SET synonyms = array_append(synonyms, $4) WHERE target = $1 "
			      "AND table_name = $2 AND column_name = $3 AND value = $5 AND NOT $4 = ANY(synonyms) RETURNING 1";
		else if (col && *col)
			upd = "UPDATE askql.cat_columns SET synonyms = array_append(synonyms, $4) WHERE target = $1 "
			      "AND table_name = $2 AND name = $3 AND $5 = $5 AND NOT $4 = ANY(synonyms) RETURNING 1";
		else
			upd = "UPDATE askql.cat_tables SET synonyms = array_append(synonyms, $4) WHERE target = $1 "
			      "AND name = $2 AND $3 = $3 AND $5 = $5 AND NOT $4 = ANY(synonyms) RETURNING 1";
		res = db_query(db_app(), upd, 5, q, err, sizeof err);
		if (!res) {
			log_error("catalog edit: %s", err);
			return ERR_DB;
		}
		if (PQntuples(res) == 0) {
			PQclear(res);
			return ERR_INPUT;    /* no such table/column/value, or the phrase is already there */
		}
		PQclear(res);
		db_exec(db_app(), "UPDATE askql.cat_targets SET version = version + 1, changed_at = now() WHERE name = $1",
		        1, q, NULL, 0);
		e = db_exec(db_app(), "INSERT INTO askql.catalog_edits(kind, tbl, col, phrase, value) VALUES ($1,$2,$3,$4,$5)",
		            5, p, NULL, 0);
		sb_puts(&det, "{\"table\":");
		sb_json_str(&det, t);
		sb_puts(&det, ",\"phrase\":");
		sb_json_str(&det, ph);
		sb_puts(&det, "}");
		if (e == OK)
			view_audit(r, !strcmp(action, "synonym") ? "catalog.synonym" : "catalog.mapping", sb_cstr(&det));
		sb_free(&det);
	}
	if (e != OK)
		return e;
	return resp_redirect(r, "/admin/catalog");
}
