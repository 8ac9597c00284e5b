/* cmd_index.c: `askql index`: index a registered target (registering a new conninfo first) into the catalog (see catalog.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "catalog/catalog.h"
#include "cli/cli.h"
#include "store/db.h"
#include "store/level.h"
#include "store/target.h"
#include "util/conf.h"

/* dbname of a conninfo ("" when it names none): the name a target registered by index gets */
static void dbname_of(const char *conninfo, char *out, size_t n)
{
	PQconninfoOption *o = PQconninfoParse(conninfo, NULL);

	*out = 0;
	for (PQconninfoOption *p = o; p && p->keyword; p++)
		if (!strcmp(p->keyword, "dbname") && p->val)
			snprintf(out, n, "%s", p->val);
	PQconninfoFree(o);
}

/*
 * resolve --target/--name into t.  An unregistered conninfo becomes a new target (named --name
 * or its dbname) that is registered only once it has been indexed (*fresh = 1), so a failed
 * first run leaves nothing behind.
 */
static int resolve(PGconn *app, const char *spec, const char *name, struct target *t, int *fresh)
{
	char err[1024], ident[512];
	struct target other;

	*fresh = 0;
	if (target_resolve(app, spec && *spec ? spec : name, t, err, sizeof err) == OK) {
		if (spec && name && strcmp(name, t->name)) {
			fprintf(stderr, "askql index: --target names the database of target '%s', not '%s'\n", t->name, name);
			target_free(t);
			return 1;
		}
		return 0;
	}
	if (!spec || !target_is_conninfo(spec)) {
		fprintf(stderr, "askql index: %s\n", err);
		return 1;
	}
	memset(t, 0, sizeof *t);
	if (name)
		snprintf(t->name, sizeof t->name, "%s", name);
	else
		dbname_of(spec, t->name, sizeof t->name);
	if (target_ident(spec, ident, sizeof ident, err, sizeof err) != OK) {
		fprintf(stderr, "askql index: %s\n", err);
		return 1;
	}
	if (target_get(app, t->name, &other, NULL, 0) == OK) {
		fprintf(stderr, "askql index: the name '%s' is registered for another database (%s); choose another "
		        "with --name\n", t->name, other.ident);
		target_free(&other);
		return 1;
	}
	snprintf(t->ident, sizeof t->ident, "%s", ident);
	t->conninfo = strdup(spec);
	*fresh = 1;
	return t->conninfo ? 0 : 1;
}

int cmd_index(int argc, char **argv)
{
	const char *target = cli_opt(&argc, argv, "--target"), *name = cli_opt(&argc, argv, "--name");
	const char *docs = cli_opt(&argc, argv, "--docs"), *meta = cli_opt(&argc, argv, "--metadata");
	const char *ro = cli_opt(&argc, argv, "--ro");
	const char *fkc = cli_opt(&argc, argv, "--fk-confirm"), *fkr = cli_opt(&argc, argv, "--fk-remove");
	int quiet = cli_flag(&argc, argv, "--quiet"), force = cli_flag(&argc, argv, "--force");
	struct index_result res = {0};
	struct index_opts o = {0};
	struct target t;
	char err[2048];
	PGconn *app;
	int status = 0, fresh;

	if (argc > 1) {
		fprintf(stderr, "usage: askql index [--target NAME|URL] [--name N] [--ro URL] [--docs DIR] [--metadata FILE] [--force] [--quiet]\n"
		        "       askql index [--target NAME|URL] --fk-confirm|--fk-remove TABLE.COL=TABLE.COL\n");
		return 2;
	}
	if (!(app = db_app())) {
		fprintf(stderr, "askql index: cannot connect to app_db (%s)\n", conf_get("app_db"));
		return 1;
	}
	if (resolve(app, target, name, &t, &fresh))
		return 1;
	if (fresh && (fkc || fkr)) {
		fprintf(stderr, "askql index: %s is not indexed yet; index it first\n", t.name);
		target_free(&t);
		return 1;
	}
	/* the registered metadata and documents unless told otherwise; the configured target's
	 * defaults only when they exist (a fresh configuration names the demo's files) */
	if (!docs && t.docs_dir && (!t.from_conf || access(t.docs_dir, R_OK) == 0))
		docs = t.docs_dir;
	if (!meta && t.metadata_file && (!t.from_conf || access(t.metadata_file, R_OK) == 0))
		meta = t.metadata_file;
	o.target_name = t.name;
	/* a conninfo given here is the same database (resolve checked its ident) with the
	 * credentials the caller chose for indexing; otherwise the registered one */
	o.conninfo = target && target_is_conninfo(target) ? target : t.conninfo;
	o.docs_dir = docs && *docs ? docs : NULL;
	o.metadata_file = meta && *meta ? meta : NULL;
	o.verbose = !quiet;
	o.force = force;
	o.result = &res;
	/* an admin decision on a join edge instead of an index run */
	if (fkc || fkr) {
		char from[512];
		const char *eq = strchr(fkc ? fkc : fkr, '=');

		if (!eq || (size_t)(eq - (fkc ? fkc : fkr)) >= sizeof from) {
			fprintf(stderr, "askql index: --fk-confirm/--fk-remove take TABLE.COL=TABLE.COL\n");
			target_free(&t);
			return 2;
		}
		snprintf(from, sizeof from, "%.*s", (int)(eq - (fkc ? fkc : fkr)), fkc ? fkc : fkr);
		if (catalog_fk_decide(app, o.target_name, from, eq + 1, fkc ? "confirmed" : "removed", err, sizeof err) != OK) {
			fprintf(stderr, "askql index: %s\n", err);
			status = 1;
		} else if (!quiet) {
			printf("%s %s -> %s in %s\n", fkc ? "confirmed" : "removed", from, eq + 1, o.target_name);
		}
		target_free(&t);
		return status;
	}
	if (catalog_index(app, &o, err, sizeof err) != OK) {
		fprintf(stderr, "askql index: %s\n", err);
		target_free(&t);
		return 1;
	}
	if (fresh) {
		if (target_add(app, t.name, t.conninfo, ro, meta, docs, err, sizeof err) != OK) {
			fprintf(stderr, "askql index: indexed, but cannot register the target: %s\n", err);
			target_free(&t);
			return 1;
		}
		fprintf(stderr, "askql index: registered target '%s' (%s)%s\n", t.name, t.ident,
		        ro ? "" : "; no separate read-only connection (see askql target test)");
	} else if (ro) {
		fprintf(stderr, "askql index: --ro is only used when registering; %s is already registered "
		        "(askql target rm and add to change it)\n", t.name);
	}
	{
		/* the levels' views follow the new catalog and its PHI classes (store/level.h) */
		int done = 0;

		if (!fresh && level_refresh(app, &t, &done, err, sizeof err) != OK) {
			fprintf(stderr, "askql index: indexed, but the access levels' views were not refreshed: %s\n", err);
			target_free(&t);
			return 1;
		}
		if (done && !quiet)
			printf("access levels of %s: views and grants refreshed\n", t.name);
	}
	if (!quiet)
		printf("indexed %s: version %ld (%s), %d tables, %d columns, %d values, %d join edges "
		       "(%d inferred), %d concepts, %d docs, %d tables re-indexed, %d warnings, %.2f s\n",
		       o.target_name, res.version, res.changed ? "changed" : "unchanged", res.tables, res.columns,
		       res.values, res.fks, res.inferred_fks, res.concepts, res.docs, res.tables_reindexed,
		       res.warnings, res.seconds);
	target_free(&t);
	return 0;
}
