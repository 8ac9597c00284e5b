/* cmd_export.c: `askql export`: stream a guarded query to a CSV/JSON/NDJSON/XLSX file (temp file + rename). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "catalog/catalog.h"
#include "cli/cli.h"
#include "store/target.h"
#include "export/export.h"
#include "store/access.h"
#include "store/db.h"
#include "store/level.h"
#include "util/conf.h"

static int usage(void)
{
	fprintf(stderr, "usage: askql export [--target CONNINFO] --sql \"SELECT ...\" "
	                "--format csv|json|ndjson|xlsx [--question Q] [--bom] [--escape-formulas] [--max-rows N] "
	                "[--user NAME] [--release] [-o FILE|DIR|-]\n"
	                "  --release: for release: the safe aggregate form only, groups of fewer than suppress_k\n"
	                "             patients left out by the database, counts rounded to release_round\n");
	return 2;
}

int cmd_export(int argc, char **argv)
{
	const char *target = cli_opt(&argc, argv, "--target");
	const char *sql = cli_opt(&argc, argv, "--sql");
	const char *user = cli_opt(&argc, argv, "--user");
	char *level_ci = NULL;
	long long uid = 0;          /* --user: that user's id (their level, and the audit row's user) */
	const char *fmt = cli_opt(&argc, argv, "--format");
	const char *question = cli_opt(&argc, argv, "--question");
	const char *maxr = cli_opt(&argc, argv, "--max-rows");
	const char *outp = cli_opt(&argc, argv, "-o");
	int bom = cli_flag(&argc, argv, "--bom");
	/* raw values by default: a pipeline reading the CSV gets what the database holds */
	int escape = cli_flag(&argc, argv, "--escape-formulas");
	int release = cli_flag(&argc, argv, "--release");
	char detail[160] = "";
	struct export_opts o = {0};
	struct target t = {0};
	struct export_stats st = {0};
	struct exec_error dberr = {0};
	char path[4096], name[64], err[1024];
	struct stat sb;
	enum err rc;
	const char *tname;

	if (!outp)
		outp = cli_opt(&argc, argv, "--output");
	if (!sql || argc != 1)
		return usage();
	if (export_format_parse(fmt ? fmt : "csv", &o.format) != OK) {
		fprintf(stderr, "askql export: unknown format '%s' (csv, json, ndjson, xlsx)\n", fmt);
		return 2;
	}
	o.question = question;
	if (target) {
		/* a registered target: its read-only connection and its catalog */
		if (cli_target("export", target, NULL, &t))
			return 1;
		o.conninfo = target_exec_conninfo(&t);
		cli_use_catalog(t.name, &o.relation_ok, &o.relation_ctx);
	}
	if (user) {
		/* as that user's access level would read it (store/level.h) */
		if (!target && cli_target("export", NULL, NULL, &t))
			return 1;
		if ((uid = cli_user_id("export", user)) <= 0) {
			target_free(&t);
			return 1;
		}
		if (level_conninfo(db_app(), &t, uid, &level_ci, NULL, err, sizeof err) != OK) {
			fprintf(stderr, "askql export: %s\n", err);
			target_free(&t);
			return 1;
		}
		o.conninfo = level_ci;
		if (!target)
			cli_use_catalog(t.name, &o.relation_ok, &o.relation_ctx);
	} else {
		cli_use_catalog(conf_get("target_name"), &o.relation_ok, &o.relation_ctx);
	}
	if (release) {
		/* a file for release reads at least through the limited level's views (store/level.h) */
		if (!target && !user && cli_target("export", NULL, NULL, &t))
			return 1;
		free(level_ci);
		level_ci = NULL;
		if (level_conninfo_release(db_app(), &t, uid, &level_ci, NULL, err, sizeof err) != OK) {
			fprintf(stderr, "askql export: refused: %s\n", err);
			target_free(&t);
			return 1;
		}
		o.conninfo = level_ci;
	}
	tname = target || user || release ? t.name : conf_get("target_name");
	/* no rows leave unless their audit row can be written (fail closed, like the web) */
	if (!access_ready(db_app())) {
		fprintf(stderr, "askql export: refused: the access audit (askql.access_audit in app_db) cannot be written\n");
		return 1;
	}
	o.bom = bom;
	o.escape_formulas = escape;
	o.release = release;
	if (maxr)
		o.max_rows = strtol(maxr, NULL, 10);
	/* an XLSX's rows on disk are capped here as on the web; they go to $TMPDIR (the caller's choice) */
	o.tmp_max_bytes = conf_get_int("export_tmp_max_bytes");

	if (outp && !strcmp(outp, "-")) {
		/* to stdout: streamed as it comes; the caller sees a failure in the exit status */
		struct export_out out;

		export_out_stdio(&out, stdout);
		rc = export_run(sql, &o, &out, &st, &dberr);
		if (fflush(stdout) != 0 && rc == OK)
			rc = ERR_IO;
		if (rc == OK && st.suppress_k > 0)
			fprintf(stderr, "askql export: groups of fewer than %ld patients left out (%s)\n", st.suppress_k,
			        release ? "for release" : "aggregate level");
		if (rc == OK && st.suppress_k > 0 && exec_release_round() > 1)
			fprintf(stderr, "askql export: counts rounded to a multiple of %ld (%s), sums too\n", exec_release_round(),
			        release ? "for release" : "aggregate level");
		if (rc != OK) {
			char *t = dberr.message ? exec_error_text(&dberr) : NULL;

			fprintf(stderr, "askql export: %s\n", t ? t : err_str(rc));
			free(t);
		}
		goto out;
	}
	/* no -o or a directory: the seed's file name in it */
	export_filename(o.format, time(NULL), name, sizeof name);
	if (!outp)
		snprintf(path, sizeof path, "%s/%s", conf_get("export_dir"), name);
	else if (stat(outp, &sb) == 0 && S_ISDIR(sb.st_mode))
		snprintf(path, sizeof path, "%s/%s", outp, name);
	else
		snprintf(path, sizeof path, "%s", outp);

	rc = export_file(sql, &o, path, &st, &dberr, err, sizeof err);
	if (rc != OK) {
		fprintf(stderr, "askql export: %s%s\n", rc == ERR_DENIED && !release ? "refused by the guard: " : "", err);
		if (dberr.position)
			fprintf(stderr, "askql export: at character %d\n", dberr.position);
		goto out;
	}
	printf("%s\t%lld rows\t%.0f ms%s", path, st.rows, st.ms, st.truncated ? "\ttruncated" : "");
	if (st.suppress_k > 0)
		printf("\tgroups under %ld patients left out (%s)", st.suppress_k, release ? "for release" : "aggregate level");
	if (st.suppress_k > 0 && exec_release_round() > 1)
		printf("\tcounts and sums rounded to %ld", exec_release_round());
	putchar('\n');
out:
	if (rc != ERR_DENIED && rc != ERR_LIMIT) {
		/* one audit row per export: no user, the OS user; a lost row is logged in full on stderr
		 * and the exit status says so */
		struct access_rec ar = {.kind = ACCESS_EXPORT, .channel = ACCESS_CLI, .target = tname, .sql = sql,
		                        .rows = rc == OK ? st.rows : -1, .format = export_ext(o.format),
		                        .failed = rc != OK, .cat = o.relation_ctx,
		                        .user_id = uid, .user_name = uid > 0 ? user : NULL,
		                        .detail_json = export_release_detail(&o, &st, detail, sizeof detail)};

		if (access_record(db_app(), &ar, err, sizeof err) != OK) {
			fprintf(stderr, "askql export: %s\n", err);
			rc = ERR_DB;
		}
	}
	exec_error_free(&dberr);
	free(level_ci);
	target_free(&t);
	return rc == OK ? 0 : 1;
}
