/* cmd_guard.c: `askql guard [--target NAME|URL] [--json] [--limit N] "SQL"|-`: check one SQL text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libpq-fe.h>
#include "cli/cli.h"
#include "store/target.h"
#include "catalog/catalog.h"
#include "sql/guard.h"
#include "store/db.h"
#include "util/conf.h"
#include "util/file.h"
#include "util/sb.h"

/* The fallback relation list: the target's own tables and views (information_schema). */
struct rels {
	char **schema, **name;
	int *visible;               /* schema on the search path: reachable unqualified */
	int n;
};

static int rels_ok(void *ctx, const char *schema, const char *name)
{
	const struct rels *r = ctx;

	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->name[i], name) &&
		    (schema ? !strcmp(r->schema[i], schema) : r->visible[i]))
			return 1;
	return 0;
}

static void rels_free(struct rels *r)
{
	for (int i = 0; i < r->n; i++) {
		free(r->schema[i]);
		free(r->name[i]);
	}
	free(r->schema);
	free(r->name);
	free(r->visible);
	memset(r, 0, sizeof *r);
}

/* rels_load: read the table list of the target at conninfo. */
static enum err rels_load(const char *conninfo, struct rels *r, char *err, size_t errlen)
{
	PGconn *c = db_connect(conninfo, err, errlen);
	PGresult *res = NULL;
	enum err rc = ERR_DB;
	int n;

	memset(r, 0, sizeof *r);
	if (!c)
		return ERR_DB;
	res = db_query(c, "SELECT table_schema, table_name, table_schema = ANY(current_schemas(false)) "
	                  "FROM information_schema.tables "
	                  "WHERE table_schema NOT IN ('pg_catalog', 'information_schema')",
	               0, NULL, err, errlen);
	if (!res)
		goto out;
	n = PQntuples(res);
	r->schema = calloc((size_t)n + 1, sizeof *r->schema);
	r->name = calloc((size_t)n + 1, sizeof *r->name);
	r->visible = calloc((size_t)n + 1, sizeof *r->visible);
	if (!r->schema || !r->name || !r->visible) {
		rc = ERR_NOMEM;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		r->schema[i] = strdup(PQgetvalue(res, i, 0));
		r->name[i] = strdup(PQgetvalue(res, i, 1));
		r->visible[i] = PQgetvalue(res, i, 2)[0] == 't';
		r->n = i + 1;
		if (!r->schema[i] || !r->name[i]) {
			rc = ERR_NOMEM;
			goto out;
		}
	}
	rc = OK;
out:
	PQclear(res);
	PQfinish(c);
	return rc;
}

int cmd_guard(int argc, char **argv)
{
	const char *target = cli_opt(&argc, argv, "--target");
	const char *limit = cli_opt(&argc, argv, "--limit");
	int json = cli_flag(&argc, argv, "--json");
	struct guard_opts o = {0};
	struct target t = {0};
	struct guard_result r;
	struct rels rels = {0};
	char err[512] = "", *sql = NULL, *js;
	int status = 2;
	enum err rc;

	if (argc != 2) {
		fprintf(stderr, "usage: askql guard [--target NAME|URL] [--json] [--limit N] \"SQL\" (or - for stdin)\n");
		return 2;
	}
	sql = !strcmp(argv[1], "-") ? file_read("-", 0, NULL) : strdup(argv[1]);
	if (!sql) {
		fprintf(stderr, "askql guard: out of memory\n");
		return 2;
	}
	o.limit = limit ? atol(limit) : conf_get_int("preview_limit");
	o.allow_system_catalogs = conf_get_int("allow_system_catalogs") != 0;
	/* The indexed catalog of the target (--target NAME|URL, registered; else the configured
	 * one) when there is one; a registered target not indexed yet: its own table list
	 * (information_schema). */
	if (target) {
		if (cli_target("guard", target, NULL, &t)) {
			status = 1;
			goto out;
		}
		cli_use_catalog(t.name, &o.relation_ok, &o.relation_ctx);
	} else {
		cli_use_catalog(conf_get("target_name"), &o.relation_ok, &o.relation_ctx);
	}
	if (target && !o.relation_ok) {
		if (rels_load(target_exec_conninfo(&t), &rels, err, sizeof err) != OK) {
			fprintf(stderr, "askql guard: cannot read the tables of the target: %s\n", err);
			goto out;
		}
		o.relation_ok = rels_ok;
		o.relation_ctx = &rels;
	}
	rc = guard_check(sql, &o, &r);
	if (rc != OK) {
		fprintf(stderr, "askql guard: %s\n", rc == ERR_LIMIT ? "SQL longer than 100 KB" : err_str(rc));
		goto out;
	}
	if (json) {
		if (!(js = guard_result_json(&r))) {
			guard_free(&r);
			goto out;
		}
		printf("%s\n", js);
		free(js);
	} else if (r.allowed) {
		printf("%s\n", r.sql);
		for (int i = 0; i < r.nwarnings; i++)
			fprintf(stderr, "warning: %s\n", r.warnings[i]);
	} else {
		printf("refused: %s", r.reason);
		if (r.position)
			printf(" (at position %d)", r.position);
		printf("\n");
	}
	status = r.allowed ? 0 : 1;
	guard_free(&r);
out:
	rels_free(&rels);
	target_free(&t);
	free(sql);
	db_app_close();
	return status;
}
