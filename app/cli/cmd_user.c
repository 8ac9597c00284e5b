/* cmd_user.c: askql user add NAME analyst|admin --password-file F [--if-missing] | user token NAME | user level NAME TARGET LEVEL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "http/http.h"
#include "store/db.h"
#include "store/level.h"
#include "util/conf.h"
#include "util/sha256.h"

/* The first line of path (without newline) into buf; 0 on failure or an empty password. */
static int read_password(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	size_t len;

	if (!f)
		return 0;
	if (!fgets(buf, (int)n, f)) {
		fclose(f);
		return 0;
	}
	fclose(f);
	len = strcspn(buf, "\r\n");
	buf[len] = '\0';
	return len > 0;
}

static int add(int argc, char **argv, PGconn *c)
{
	const char *pwfile = cli_opt(&argc, argv, "--password-file");
	int if_missing = cli_flag(&argc, argv, "--if-missing");
	char pw[512], err[512];
	char *hash;
	const char *p[3];
	PGresult *res;
	int rc = 1;

	if (argc != 4 || (strcmp(argv[3], "analyst") && strcmp(argv[3], "admin")) || !pwfile) {
		fprintf(stderr, "usage: askql user add NAME analyst|admin --password-file FILE [--if-missing]\n");
		return 2;
	}
	if (!read_password(pwfile, pw, sizeof pw)) {
		fprintf(stderr, "askql user: cannot read a password from %s\n", pwfile);
		return 1;
	}
	if (!auth_password_long_enough(pw)) {
		fprintf(stderr, "askql user: the password must have at least %ld characters (password_min_length)\n",
		        conf_get_int("password_min_length"));
		return 1;
	}
	p[0] = argv[2];
	res = db_query(c, "SELECT 1 FROM askql.users WHERE name = $1", 1, p, err, sizeof err);
	if (!res) {
		fprintf(stderr, "askql user: %s\n", err);
		return 1;
	}
	if (PQntuples(res) > 0 && if_missing) {
		PQclear(res);
		return 0;
	}
	PQclear(res);
	if (!(hash = auth_hash_password(pw))) {
		fprintf(stderr, "askql user: hashing the password failed\n");
		return 1;
	}
	p[1] = hash;
	p[2] = argv[3];
	/* an existing user gets the new password and role */
	if (db_exec(c, "INSERT INTO askql.users(name, pwhash, role) VALUES ($1, $2, $3) "
	               "ON CONFLICT (name) DO UPDATE SET pwhash = EXCLUDED.pwhash, role = EXCLUDED.role",
	            3, p, err, sizeof err) != OK)
		fprintf(stderr, "askql user: %s\n", err);
	else
		rc = 0;
	free(hash);
	return rc;
}

static int token(int argc, char **argv, PGconn *c)
{
	char tok[65], hex[65], err[512];
	const char *p[2] = {hex, argv[2]};
	PGresult *res;

	if (argc != 3) {
		fprintf(stderr, "usage: askql user token NAME\n");
		return 2;
	}
	if (auth_random_hex(tok, 32) != OK)
		return 1;
	sha256_hex(tok, 64, hex);
	res = db_query(c, "UPDATE askql.users SET token_hash = $1 WHERE name = $2 RETURNING id", 2, p, err, sizeof err);
	if (!res || PQntuples(res) != 1) {
		fprintf(stderr, "askql user: %s\n", res ? "no such user" : err);
		PQclear(res);
		return 1;
	}
	PQclear(res);
	/* only the hash is stored: this is the one time the token is shown */
	printf("%s\n", tok);
	return 0;
}

/* askql user level NAME TARGET identified|limited|aggregate: set NAME's access level (audited) */
static int level(int argc, char **argv, PGconn *c)
{
	char err[512];
	const char *p[1];
	PGresult *res;
	enum level lv;
	long long uid;

	if (argc != 5 || level_parse(argv[4], &lv) != 0) {
		fprintf(stderr, "usage: askql user level NAME TARGET identified|limited|aggregate\n");
		return 2;
	}
	p[0] = argv[2];
	if (!(res = db_query(c, "SELECT id FROM askql.users WHERE name = $1", 1, p, err, sizeof err))) {
		fprintf(stderr, "askql user: %s\n", err);
		return 1;
	}
	if (!PQntuples(res)) {
		PQclear(res);
		fprintf(stderr, "askql user level: no user named %s\n", argv[2]);
		return 1;
	}
	uid = atoll(PQgetvalue(res, 0, 0));
	PQclear(res);
	if (level_set(c, uid, argv[3], lv, 0, err, sizeof err) != OK) {
		fprintf(stderr, "askql user level: %s\n", err);
		return 1;
	}
	printf("%s reads %s at level %s\n", argv[2], argv[3], level_name(lv));
	return 0;
}

int cmd_user(int argc, char **argv)
{
	char err[512];
	PGconn *c;
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: askql user add NAME ROLE --password-file F | user token NAME\n");
		return 2;
	}
	if (!(c = db_connect(conf_get("app_db"), err, sizeof err))) {
		fprintf(stderr, "askql user: %s\n", err);
		return 1;
	}
	if (!strcmp(argv[1], "add"))
		rc = add(argc, argv, c);
	else if (!strcmp(argv[1], "token"))
		rc = token(argc, argv, c);
	else if (!strcmp(argv[1], "level"))
		rc = level(argc, argv, c);
	else {
		fprintf(stderr, "askql user: unknown action '%s'\n", argv[1]);
		rc = 2;
	}
	PQfinish(c);
	return rc;
}
