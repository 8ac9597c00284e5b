/* cmd_user.c: askql user add NAME analyst|admin --password-file F [--if-missing] | user token NAME [--label L] |
 * user tokens NAME | user token-revoke NAME ID|all | user level NAME TARGET LEVEL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "http/http.h"
#include "http/pwpolicy.h"
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
	switch (auth_password_check(pw)) {
	case PW_OK:
		break;
	case PW_SHORT:
		fprintf(stderr, "askql user: the password must have at least %ld characters (password_min_length)\n",
		        conf_get_int("password_min_length"));
		return 1;
	case PW_REPETITIVE:
		fprintf(stderr, "askql user: the password must have at least %d different characters\n", PW_MIN_DISTINCT);
		return 1;
	case PW_COMMON:
		fprintf(stderr, "askql user: the password is on the list of common passwords (%s)\n",
		        conf_get("common_passwords_file"));
		return 1;
	default:
		fprintf(stderr, "askql user: the list of common passwords (%s) cannot be read\n",
		        conf_get("common_passwords_file"));
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

/* A user's live tokens are capped: each is a standing credential, and a script that mints one per
 * run would otherwise pile up credentials nobody revokes. */
#define TOKENS_MAX 20
#define LABEL_MAX 64    /* characters, as askql.api_tokens checks */

/* 1 when the label is at most LABEL_MAX characters without control characters. */
static int label_ok(const char *s)
{
	long n = 0;

	for (const unsigned char *q = (const unsigned char *)s; *q; q++) {
		if (*q < 0x20 || *q == 0x7f)
			return 0;
		n += (*q & 0xC0) != 0x80;
	}
	return n <= LABEL_MAX;
}

/* askql user token NAME [--label TEXT]: a new API token for NAME, printed once (only its hash is stored) */
static int token(int argc, char **argv, PGconn *c)
{
	const char *label = cli_opt(&argc, argv, "--label");
	char tok[65], hex[65], err[512], maxs[16];
	const char *p[4] = {hex, NULL, label ? label : "", maxs};
	PGresult *res;

	if (argc != 3) {
		fprintf(stderr, "usage: askql user token NAME [--label TEXT]\n");
		return 2;
	}
	p[1] = argv[2];
	if (!label_ok(p[2])) {
		fprintf(stderr, "askql user token: a label has at most %d characters and no control characters\n", LABEL_MAX);
		return 1;
	}
	if (auth_random_hex(tok, 32) != OK)
		return 1;
	sha256_hex(tok, 64, hex);
	snprintf(maxs, sizeof maxs, "%d", TOKENS_MAX);
	/* the cap is checked in the statement that inserts, under a lock on the user's row, so two
	 * concurrent calls cannot both pass it */
	res = db_query(c, "WITH u AS (SELECT id FROM askql.users WHERE name = $2 AND NOT disabled FOR UPDATE), "
	                  "n AS (SELECT count(*) AS n FROM askql.api_tokens WHERE user_id = (SELECT id FROM u)) "
	                  "INSERT INTO askql.api_tokens(user_id, hash, label) SELECT u.id, $1, $3 FROM u, n "
	                  "WHERE n.n < $4::int RETURNING id", 4, p, err, sizeof err);
	if (!res) {
		fprintf(stderr, "askql user token: %s\n", err);
		return 1;
	}
	if (PQntuples(res) != 1) {
		PQclear(res);
		res = db_query(c, "SELECT disabled FROM askql.users WHERE name = $1", 1, p + 1, err, sizeof err);
		if (!res || PQntuples(res) != 1)
			fprintf(stderr, "askql user token: no such user %s\n", argv[2]);
		else if (PQgetvalue(res, 0, 0)[0] == 't')
			fprintf(stderr, "askql user token: %s is disabled\n", argv[2]);
		else
			fprintf(stderr, "askql user token: %s already has %d tokens; revoke one first "
			        "(askql user token-revoke NAME ID, or Admin -> Users)\n", argv[2], TOKENS_MAX);
		PQclear(res);
		return 1;
	}
	PQclear(res);
	/* only the hash is stored: this is the one time the token is shown */
	printf("%s\n", tok);
	return 0;
}

/* askql user tokens NAME: the user's tokens, one a line: id, created, last used, label */
static int tokens(int argc, char **argv, PGconn *c)
{
	char err[512];
	const char *p[1];
	PGresult *res;

	if (argc != 3) {
		fprintf(stderr, "usage: askql user tokens NAME\n");
		return 2;
	}
	p[0] = argv[2];
	res = db_query(c, "SELECT t.id, to_char(t.created_at, 'YYYY-MM-DD HH24:MI'), "
	                  "coalesce(to_char(t.last_used_at, 'YYYY-MM-DD HH24:MI'), 'never'), t.label "
	                  "FROM askql.api_tokens t JOIN askql.users u ON u.id = t.user_id WHERE u.name = $1 ORDER BY t.id",
	               1, p, err, sizeof err);
	if (!res) {
		fprintf(stderr, "askql user tokens: %s\n", err);
		return 1;
	}
	for (int i = 0; i < PQntuples(res); i++)
		printf("%s\t%s\t%s\t%s\n", PQgetvalue(res, i, 0), PQgetvalue(res, i, 1), PQgetvalue(res, i, 2),
		       PQgetvalue(res, i, 3));
	PQclear(res);
	return 0;
}

/* askql user token-revoke NAME ID|all: delete one token of NAME's, or all (audited as the admin page does) */
static int token_revoke(int argc, char **argv, PGconn *c)
{
	char err[512];
	const char *p[2];
	PGresult *res;
	char *end;
	long long id = 0;

	if (argc != 4 || (strcmp(argv[3], "all") && ((id = strtoll(argv[3], &end, 10)) <= 0 || *end))) {
		fprintf(stderr, "usage: askql user token-revoke NAME ID|all\n");
		return 2;
	}
	p[0] = argv[2];
	p[1] = id ? argv[3] : "0";
	res = db_query(c, "WITH d AS (DELETE FROM askql.api_tokens t USING askql.users u WHERE u.id = t.user_id "
	                  "AND u.name = $1 AND ($2::bigint = 0 OR t.id = $2) RETURNING u.id AS uid, t.id, t.label), "
	                  "a AS (INSERT INTO askql.audit(user_id, action, detail) SELECT NULL, "
	                  "CASE WHEN $2::bigint = 0 THEN 'user.tokens_revoke' ELSE 'user.token_revoke' END, "
	                  "jsonb_build_object('id', min(uid), 'tokens', jsonb_agg(jsonb_build_object('id', id, 'label', label) "
	                  "ORDER BY id), 'via', 'cli') FROM d HAVING count(*) > 0) "
	                  "SELECT count(*) FROM d", 2, p, err, sizeof err);
	if (!res) {
		fprintf(stderr, "askql user token-revoke: %s\n", err);
		return 1;
	}
	printf("%s token(s) revoked\n", PQgetvalue(res, 0, 0));
	PQclear(res);
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
		fprintf(stderr, "usage: askql user add NAME ROLE --password-file F | user token NAME [--label L] | "
		        "user tokens NAME | user token-revoke NAME ID|all | user level NAME TARGET LEVEL\n");
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
	else if (!strcmp(argv[1], "tokens"))
		rc = tokens(argc, argv, c);
	else if (!strcmp(argv[1], "token-revoke"))
		rc = token_revoke(argc, argv, c);
	else if (!strcmp(argv[1], "level"))
		rc = level(argc, argv, c);
	else {
		fprintf(stderr, "askql user: unknown action '%s'\n", argv[1]);
		rc = 2;
	}
	PQfinish(c);
	return rc;
}
