/* cmd_migrate.c: `askql migrate`: apply the numbered SQL migrations to the app database. */
#include <stdio.h>
#include "cli/cli.h"
#include "store/db.h"
#include "store/target.h"
#include "util/conf.h"

int cmd_migrate(int argc, char **argv)
{
	const char *dir = cli_opt(&argc, argv, "--dir");
	char err[1024];
	PGconn *c = db_app();

	if (!c) {
		fprintf(stderr, "askql migrate: cannot connect to app_db (%s)\n", conf_get("app_db"));
		return 1;
	}
	if (db_migrate(c, dir ? dir : "conf/migrations", err, sizeof err) != OK) {
		fprintf(stderr, "askql migrate: %s\n", err);
		return 1;
	}
	/* the configured target_db is a registered target (the default when there is none) */
	if (target_sync_conf(c, err, sizeof err) != OK)
		fprintf(stderr, "askql migrate: warning: %s\n", err);
	/* issue 27: targets' passwords out of askql.targets, into the secrets file (docs/privacy.md);
	 * done here, not in SQL, because the file is outside the database */
	{
		int moved = 0;

		if (target_secrets_move(c, &moved, err, sizeof err) != OK) {
			fprintf(stderr, "askql migrate: moving targets' passwords to %s: %s\n", conf_get("target_secrets_file"), err);
			return 1;
		}
		if (moved)
			printf("askql migrate: the passwords of %d target(s) moved to %s\n", moved, conf_get("target_secrets_file"));
	}
	return 0;
}
