/* cmd_target.c: `askql target add|list|test|rm|default|policy|levels`: the registry of target databases (docs/targets.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/llm_policy.h"
#include "cli/cli.h"
#include "store/db.h"
#include "store/level.h"
#include "store/target.h"
#include "util/sb.h"

static void usage(void)
{
	fprintf(stderr, "usage: askql target add NAME CONNINFO [--ro CONNINFO] [--metadata FILE] [--docs DIR]\n"
	                "       askql target list\n"
	                "       askql target test NAME|CONNINFO\n"
	                "       askql target default NAME\n"
	                "       askql target rm NAME\n"
	                "       askql target policy NAME [schema|values|rows|default]\n"
	                "       askql target levels NAME [--as CONNINFO]   (roles, views and grants of the access levels)\n");
}

static int list(PGconn *app)
{
	struct target *t;
	char err[512];
	int n;

	if (target_list(app, &t, &n, err, sizeof err) != OK) {
		fprintf(stderr, "askql target list: %s\n", err);
		return 1;
	}
	printf("%-16s %-7s %-8s %-20s %-26s %s\n", "name", "default", "catalog", "indexed at", "database", "connection");
	for (int i = 0; i < n; i++) {
		char *m = target_mask(t[i].conninfo), *rm = target_mask(t[i].ro_conninfo);
		char ver[24];

		snprintf(ver, sizeof ver, t[i].catalog_version ? "v%ld" : "-", t[i].catalog_version);
		printf("%-16s %-7s %-8s %-20s %-26s %s%s%s%s\n", t[i].name, t[i].is_default ? "yes" : "",
		       ver, *t[i].indexed_at ? t[i].indexed_at : "not indexed", t[i].ident, m ? m : "",
		       t[i].ro_conninfo ? " (read-only: " : "", t[i].ro_conninfo && rm ? rm : "",
		       t[i].ro_conninfo ? ")" : "");
		free(m);
		free(rm);
		target_free(&t[i]);
	}
	free(t);
	return 0;
}

/* policy: set (word given) or show the target's llm_data_policy, then print the effective one */
static int policy(PGconn *app, const char *name, const char *word)
{
	struct target t;
	char err[512];
	const char *why;
	enum llm_policy p;
	enum err rc;

	if (word && (rc = target_set_policy(app, name, word, err, sizeof err)) != OK) {
		fprintf(stderr, "askql target policy: %s\n", err);
		return rc == ERR_INPUT ? 2 : 1;
	}
	if (target_get(app, name, &t, err, sizeof err) != OK) {
		fprintf(stderr, "askql target policy: %s\n", err);
		return 1;
	}
	p = llm_policy_resolve(t.llm_data_policy, &why);
	printf("%s: llm_data_policy %s (%s)\n", t.name, llm_policy_name(p), why);
	target_free(&t);
	return 0;
}

static int test(PGconn *app, const char *spec)
{
	struct target t;
	struct target_check c;
	char err[512];
	enum err rc;

	if (target_resolve(app, spec, &t, err, sizeof err) != OK) {
		fprintf(stderr, "askql target test: %s\n", err);
		return 1;
	}
	rc = target_test(&t, &c);
	printf("target %s (%s)\n", t.name, t.ident);
	printf("  indexing connection:  %s\n", c.index_ok ? "ok" : c.index_error);
	printf("  read-only connection: %s\n", c.ro_ok ? "ok" : c.ro_error);
	if (c.ro_ok) {
		printf("  server version:       %s\n", c.server_version);
		printf("  read-only role:       %s (reads %ld tables; writes %ld; creates objects: %s; reads secrets: %s%s)\n",
		       c.ro_user, c.ro_readable_tables, c.ro_writable_tables, c.ro_can_create ? "yes" : "no",
		       c.ro_reads_secrets ? "yes" : "no", c.ro_superuser ? "; SUPERUSER" : "");
		printf("  read-only limits:     temp_file_limit %s, work_mem %s at login\n",
		       !strcmp(c.ro_temp_file_limit, "-1") ? "none" : c.ro_temp_file_limit, c.ro_work_mem);
	}
	{
		const char *why;
		enum llm_policy p = llm_policy_resolve(t.llm_data_policy, &why);

		printf("  llm data policy:      %s (%s)\n", llm_policy_name(p), why);
	}
	if (c.nwarnings)
		fputs(c.warnings, stdout);
	if (c.ro_ok) {
		/* the access levels' roles, views and grants, as each level's session sees them */
		struct sb out = SB_INIT;
		int nwarn = 0;

		if (level_test(app, &t, &out, &nwarn, err, sizeof err) != OK)
			printf("WARNING: access levels could not be checked: %s\n", err);
		fputs(sb_cstr(&out), stdout);
		sb_free(&out);
	}
	target_free(&t);
	return rc == OK && c.index_ok ? 0 : 1;
}

/* levels: create or bring up to date the access levels' roles, views and grants of spec */
static int levels(PGconn *app, const char *spec, const char *as)
{
	struct target t;
	char err[1024], prefix[64];
	enum err rc;

	if (target_resolve(app, spec, &t, err, sizeof err) != OK) {
		fprintf(stderr, "askql target levels: %s\n", err);
		return 1;
	}
	rc = level_setup(app, &t, as, err, sizeof err);
	if (rc != OK) {
		fprintf(stderr, "askql target levels: %s\n", err);
		target_free(&t);
		return 1;
	}
	level_role_prefix(t.name, prefix, sizeof prefix);
	printf("access levels of %s: roles %s_identified, %s_limited, %s_aggregate; views in %s; "
	       "next: askql target test %s\n", t.name, prefix, prefix, prefix, LEVEL_VIEW_SCHEMA, t.name);
	target_free(&t);
	return 0;
}

int cmd_target(int argc, char **argv)
{
	const char *ro = cli_opt(&argc, argv, "--ro"), *meta = cli_opt(&argc, argv, "--metadata");
	const char *docs = cli_opt(&argc, argv, "--docs");
	const char *as = cli_opt(&argc, argv, "--as");
	const char *sub = argc > 1 ? argv[1] : "";
	char err[1024];
	PGconn *app;
	enum err rc;

	if (!*sub || (!strcmp(sub, "add") && argc != 4) || (!strcmp(sub, "list") && argc != 2) ||
	    ((!strcmp(sub, "test") || !strcmp(sub, "rm") || !strcmp(sub, "levels") || !strcmp(sub, "default")) && argc != 3) ||
	    (!strcmp(sub, "policy") && argc != 3 && argc != 4)) {
		usage();
		return 2;
	}
	if (!(app = db_app())) {
		fprintf(stderr, "askql target: cannot connect to app_db\n");
		return 1;
	}
	if (!strcmp(sub, "list"))
		return list(app);
	if (!strcmp(sub, "test"))
		return test(app, argv[2]);
	if (!strcmp(sub, "policy"))
		return policy(app, argv[2], argc == 4 ? argv[3] : NULL);
	if (!strcmp(sub, "levels"))
		return levels(app, argv[2], as);
	if (!strcmp(sub, "add"))
		rc = target_add(app, argv[2], argv[3], ro, meta, docs, err, sizeof err);
	else if (!strcmp(sub, "rm"))
		rc = target_remove(app, argv[2], err, sizeof err);
	else if (!strcmp(sub, "default"))
		rc = target_set_default(app, argv[2], err, sizeof err);
	else {
		usage();
		return 2;
	}
	if (rc != OK) {
		fprintf(stderr, "askql target %s: %s\n", sub, err);
		return rc == ERR_INPUT || rc == ERR_PARSE ? 2 : 1;
	}
	if (!strcmp(sub, "add"))
		printf("added %s; next: askql target test %s, then askql index --target %s\n", argv[2], argv[2], argv[2]);
	else
		printf("%s %s\n", !strcmp(sub, "rm") ? "removed" : "default target is now", argv[2]);
	return 0;
}
