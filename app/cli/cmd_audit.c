/* cmd_audit.c: `askql audit verify`: walk the hash chain of askql.audit (084_audit_chain.sql) and report the first broken link. */
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"
#include "store/db.h"

/*
 * The check is one query in the database that holds the rows, with the same askql.audit_row_hash the
 * insert trigger used: a row is broken when its hash is not the hash of its fields and its prev_hash,
 * or when its prev_hash is not the hash of the row before it (a row deleted, inserted out of the
 * trigger, or edited).  Exit 0: intact; 1: broken (the first such row named) or no database; 2: usage.
 */
static const char verify_sql[] =
	"WITH c AS (SELECT id, action, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS at, prev_hash, hash, "
	"  lag(hash) OVER (ORDER BY id) AS before, lag(id) OVER (ORDER BY id) AS before_id, "
	"  askql.audit_row_hash(prev_hash, id, at, user_id, action, detail) AS want FROM askql.audit) "
	"SELECT (SELECT count(*) FROM c), b.id, b.action, b.at, b.before_id, "
	"  CASE WHEN b.hash IS NULL THEN 'no hash' "
	"       WHEN b.hash <> b.want THEN 'its hash does not match its fields' "
	"       ELSE 'its prev_hash is not the hash of the row before it' END, "
	"  (SELECT hash FROM c ORDER BY id DESC LIMIT 1) "
	"FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT * FROM c WHERE hash IS NULL OR hash <> want "
	"  OR prev_hash IS DISTINCT FROM before ORDER BY id LIMIT 1) b ON true";

int cmd_audit(int argc, char **argv)
{
	PGconn *c;
	PGresult *r;
	char err[512];
	int rc;

	if (argc != 2 || strcmp(argv[1], "verify")) {
		fprintf(stderr, "usage: askql audit verify\n");
		return 2;
	}
	if (!(c = db_app())) {
		fprintf(stderr, "askql audit: cannot connect to the app database\n");
		return 1;
	}
	if (!(r = db_query(c, verify_sql, 0, NULL, err, sizeof err)) || PQntuples(r) != 1) {
		fprintf(stderr, "askql audit verify: %s\n", r ? "no answer" : err);
		PQclear(r);
		return 1;
	}
	if (PQgetisnull(r, 0, 1)) {
		/* the last hash is worth keeping elsewhere: the chain cannot show rows cut from its end */
		printf("askql.audit: %s rows, chain intact; last hash %s\n", PQgetvalue(r, 0, 0),
		       PQgetisnull(r, 0, 6) ? "(none)" : PQgetvalue(r, 0, 6));
		rc = 0;
	} else {
		printf("askql.audit: chain broken at row %s (%s, %s UTC): %s", PQgetvalue(r, 0, 1), PQgetvalue(r, 0, 2),
		       PQgetvalue(r, 0, 3), PQgetvalue(r, 0, 5));
		if (!PQgetisnull(r, 0, 4))
			printf(" (the row before it now is %s)", PQgetvalue(r, 0, 4));
		printf("\n");
		rc = 1;
	}
	PQclear(r);
	return rc;
}
