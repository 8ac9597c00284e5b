/* cmd_index.c: `askql index`: index a target database into the catalog (see catalog.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "catalog/catalog.h"
#include "cli/cli.h"
#include "store/db.h"
#include "util/conf.h"

int cmd_index(int argc, char **argv)
{
	const char *target = cli_opt(&argc, argv, "--target"), *name = cli_opt(&argc, argv, "--name");
	const char *docs = cli_opt(&argc, argv, "--docs"), *meta = cli_opt(&argc, argv, "--metadata");
	const char *fkc = cli_opt(&argc, argv, "--fk-confirm"), *fkr = cli_opt(&argc, argv, "--fk-remove");
	int quiet = cli_flag(&argc, argv, "--quiet"), force = cli_flag(&argc, argv, "--force");
	int deflt = !target || !strcmp(target, conf_get("target_db"));
	struct index_result res = {0};
	struct index_opts o = {0};
	char err[2048], nm[256];
	PGconn *app;

	if (argc > 1) {
		fprintf(stderr, "usage: askql index [--target URL] [--name N] [--docs DIR] [--metadata FILE] [--force] [--quiet]\n"
		        "       askql index [--name N] --fk-confirm|--fk-remove TABLE.COL=TABLE.COL\n");
		return 2;
	}
	catalog_target_name(target, nm, sizeof nm);
	/* the configured target (by URL or by catalog name) gets the configured docs and
	 * metadata unless told otherwise */
	deflt = deflt || !strcmp(name ? name : nm, conf_get("target_name"));
	if (deflt && !docs && access(conf_get("docs_dir"), R_OK) == 0)
		docs = conf_get("docs_dir");
	if (deflt && !meta && access(conf_get("metadata_file"), R_OK) == 0)
		meta = conf_get("metadata_file");
	o.target_name = name ? name : nm;
	o.conninfo = target ? target : conf_get("target_db");
	o.docs_dir = docs && *docs ? docs : NULL;
	o.metadata_file = meta && *meta ? meta : NULL;
	o.verbose = !quiet;
	o.force = force;
	o.result = &res;
	if (!(app = db_app())) {
		fprintf(stderr, "askql index: cannot connect to app_db (%s)\n", conf_get("app_db"));
		return 1;
	}
	/* an admin decision on a join edge instead of an index run */
	if (fkc || fkr) {
		char from[512];
		const char *eq = strchr(fkc ? fkc : fkr, '=');

		if (!eq || (size_t)(eq - (fkc ? fkc : fkr)) >= sizeof from) {
			fprintf(stderr, "askql index: --fk-confirm/--fk-remove take TABLE.COL=TABLE.COL\n");
			return 2;
		}
		snprintf(from, sizeof from, "%.*s", (int)(eq - (fkc ? fkc : fkr)), fkc ? fkc : fkr);
		if (catalog_fk_decide(app, o.target_name, from, eq + 1, fkc ? "confirmed" : "removed", err, sizeof err) != OK) {
			fprintf(stderr, "askql index: %s\n", err);
			return 1;
		}
		if (!quiet)
			printf("%s %s -> %s in %s\n", fkc ? "confirmed" : "removed", from, eq + 1, o.target_name);
		return 0;
	}
	if (catalog_index(app, &o, err, sizeof err) != OK) {
		fprintf(stderr, "askql index: %s\n", err);
		return 1;
	}
	if (!quiet)
		printf("indexed %s: version %ld (%s), %d tables, %d columns, %d values, %d join edges "
		       "(%d inferred), %d concepts, %d docs, %d tables re-indexed, %d warnings, %.2f s\n",
		       o.target_name, res.version, res.changed ? "changed" : "unchanged", res.tables, res.columns,
		       res.values, res.fks, res.inferred_fks, res.concepts, res.docs, res.tables_reindexed,
		       res.warnings, res.seconds);
	return 0;
}
