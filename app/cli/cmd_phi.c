/* cmd_phi.c: `askql phi list|set|clear|check`: review and correct the PHI class of a target's columns (catalog/phi.h). */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "catalog/phi.h"
#include "cli/cli.h"
#include "store/db.h"
#include "store/target.h"
#include "util/conf.h"

static void usage(void)
{
	fprintf(stderr, "usage: askql phi list [--target NAME|URL] [--table TABLE] [--json]\n"
	                "       askql phi set [--target NAME|URL] TABLE.COLUMN direct|quasi|sensitive|none --reason TEXT [--by ADMIN]\n"
	                "       askql phi clear [--target NAME|URL] TABLE.COLUMN --reason TEXT [--by ADMIN]\n"
	                "       askql phi check [FILE]   (default: conf phi_rules_file)\n");
}

struct listctx { int json, n; cJSON *arr; };

static void print_row(void *arg, const struct phi_row *w)
{
	struct listctx *l = arg;
	char q[800];

	l->n++;
	snprintf(q, sizeof q, "%s%s%s.%s", strcmp(w->schema, "public") ? w->schema : "",
	         strcmp(w->schema, "public") ? "." : "", w->table, w->column);
	if (l->json) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "column", q);
		cJSON_AddStringToObject(o, "type", w->type);
		cJSON_AddStringToObject(o, "class", phi_class_name(w->cls));
		cJSON_AddStringToObject(o, "classified", phi_class_name(w->classified));
		cJSON_AddBoolToObject(o, "corrected", w->corrected);
		if (w->rule)
			cJSON_AddStringToObject(o, "rule", w->rule);
		else
			cJSON_AddNullToObject(o, "rule");
		if (w->evidence)
			cJSON_AddStringToObject(o, "evidence", w->evidence);
		else
			cJSON_AddNullToObject(o, "evidence");
		if (w->corrected) {
			cJSON_AddStringToObject(o, "reason", w->reason ? w->reason : "");
			cJSON_AddStringToObject(o, "set_by", w->set_by ? w->set_by : "");
			cJSON_AddStringToObject(o, "set_at", w->set_at ? w->set_at : "");
		}
		cJSON_AddItemToArray(l->arr, o);
		return;
	}
	printf("%-36s %-12s %-16s %s\n", q, phi_class_name(w->cls), w->rule ? w->rule : "-",
	       w->evidence ? w->evidence : "(not classified yet: re-index)");
	if (w->corrected)
		printf("%-36s %-12s %-16s corrected by %s at %s (classifier: %s): %s\n", "", "", "",
		       w->set_by ? w->set_by : "?", w->set_at ? w->set_at : "?", phi_class_name(w->classified),
		       w->reason ? w->reason : "");
}

static int list(PGconn *app, const char *target, const char *table, int json)
{
	struct listctx l = {json, 0, json ? cJSON_CreateArray() : NULL};
	char err[512];

	if (!json)
		printf("%-36s %-12s %-16s %s\n", "column", "class", "rule", "evidence");
	if (phi_list(app, target, table, print_row, &l, err, sizeof err) != OK) {
		fprintf(stderr, "askql phi list: %s\n", err);
		cJSON_Delete(l.arr);
		return 1;
	}
	if (json) {
		char *s = cJSON_Print(l.arr);

		puts(s ? s : "[]");
		free(s);
		cJSON_Delete(l.arr);
	} else if (!l.n) {
		fprintf(stderr, "askql phi list: no columns%s%s\n", table ? " in table " : "", table ? table : "");
	}
	return table && !l.n ? 1 : 0;
}

/* the admin named by --by (role admin) into *id; 0 ok */
static int admin_id(PGconn *app, const char *name, long long *id)
{
	const char *p[1] = {name};
	char err[256];
	PGresult *r = db_query(app, "SELECT id FROM askql.users WHERE name = $1 AND role = 'admin'", 1, p, err, sizeof err);

	if (!r || PQntuples(r) != 1) {
		fprintf(stderr, "askql phi: --by names no admin account ('%s')%s%s\n", name, r ? "" : ": ", r ? "" : err);
		PQclear(r);
		return 1;
	}
	*id = atoll(PQgetvalue(r, 0, 0));
	PQclear(r);
	return 0;
}

static int correct(PGconn *app, const char *target, int argc, char **argv, const char *reason, const char *by)
{
	int clear = !strcmp(argv[1], "clear");
	enum phi_class cls = PHI_UNCLASSIFIED;
	struct passwd *pw = getpwuid(getuid());
	char label[300], err[1024];
	long long uid = 0;

	if ((clear && argc != 3) || (!clear && argc != 4)) {
		usage();
		return 2;
	}
	if (!clear && phi_class_parse(argv[3], &cls)) {
		fprintf(stderr, "askql phi set: the class is one of direct, quasi, sensitive, none (not '%.40s')\n", argv[3]);
		return 2;
	}
	if (!reason) {
		fprintf(stderr, "askql phi %s: --reason TEXT is required (it is kept with the correction and audited)\n", argv[1]);
		return 2;
	}
	if (by && admin_id(app, by, &uid))
		return 1;
	/* who: the admin named, else the operating-system account that ran the command */
	snprintf(label, sizeof label, "cli:%s", by ? by : pw && pw->pw_name ? pw->pw_name : "?");
	if (phi_correct(app, target, argv[2], cls, reason, uid, label, err, sizeof err) != OK) {
		fprintf(stderr, "askql phi %s: %s\n", argv[1], err);
		return 1;
	}
	if (clear)
		printf("cleared the correction of %s in %s: the classifier decides again\n", argv[2], target);
	else
		printf("%s in %s is now %s (a correction: kept across re-indexing)\n", argv[2], target, phi_class_name(cls));
	return 0;
}

static int check(const char *path)
{
	struct phi_rules *r;
	char err[1024];

	if (!path)
		path = conf_get("phi_rules_file");
	if (phi_rules_load(path, &r, err, sizeof err) != OK) {
		fprintf(stderr, "askql phi check: %s\n", err);
		return 1;
	}
	printf("%s: ok\n", path);
	phi_rules_free(r);
	return 0;
}

int cmd_phi(int argc, char **argv)
{
	const char *spec = cli_opt(&argc, argv, "--target"), *table = cli_opt(&argc, argv, "--table");
	const char *reason = cli_opt(&argc, argv, "--reason"), *by = cli_opt(&argc, argv, "--by");
	int json = cli_flag(&argc, argv, "--json"), rc;
	const char *sub = argc > 1 ? argv[1] : "";
	struct target t;
	PGconn *app;

	if (!strcmp(sub, "check") && argc <= 3)
		return check(argc == 3 ? argv[2] : NULL);
	if (strcmp(sub, "list") && strcmp(sub, "set") && strcmp(sub, "clear")) {
		usage();
		return 2;
	}
	if (!strcmp(sub, "list") && argc != 2) {
		usage();
		return 2;
	}
	if (cli_target("phi", spec, NULL, &t))
		return 1;
	if (!(app = db_app())) {
		fprintf(stderr, "askql phi: cannot connect to app_db\n");
		target_free(&t);
		return 1;
	}
	rc = !strcmp(sub, "list") ? list(app, t.name, table, json) : correct(app, t.name, argc, argv, reason, by);
	target_free(&t);
	return rc;
}
