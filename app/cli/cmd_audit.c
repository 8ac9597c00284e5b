/* cmd_audit.c: `askql audit verify|anchor`: check the hash chains of askql.audit and askql.access_audit (084, 085) and the heads anchored outside the database (docs/privacy.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "cli/cli.h"
#include "store/db.h"
#include "util/conf.h"
#include "util/file.h"
#include "util/pfile.h"
#include "util/sb.h"

#define ANCHOR_FILE_MAX ((size_t)8 << 20)   /* ~60,000 anchors: years of hourly ones */
#define ANCHOR_LINE_MAX 256

/*
 * One chain: its table, the column that says what a row is, and the row's hash built here from the
 * row's fields, the same way its insert trigger's function builds it.  verify does not call that
 * function: one replaced in the database (by a role that could drop and recreate it) would vouch for
 * its own hashes; these expressions use pg_catalog's functions only (search_path is set first).
 */
struct chain {
	const char *table, *label, *want;
};
static const struct chain chains[] = {
	{"askql.audit", "action",
	 "encode(sha256(convert_to(coalesce(prev_hash, '') || '|' || id::text || '|' || "
	 "to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US') || '|' || coalesce(user_id::text, '') || '|' || "
	 "action || '|' || coalesce(detail::text, ''), 'UTF8')), 'hex')"},
	{"askql.access_audit", "kind",
	 "encode(sha256(convert_to(jsonb_build_array(prev_hash, id, "
	 "to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US'), db_role, kind, channel, user_id, user_name, "
	 "os_user, target, access_level, run_id, sql_fingerprint, sql_text, columns, to_jsonb(classes), row_count, "
	 "format, ok, detail)::text, 'UTF8')), 'hex')"},
};
#define NCHAINS (int)(sizeof chains / sizeof chains[0])

/* the state of one chain as verify found it */
struct head {
	char rows[24], last_id[24], last_hash[72];
	int broken;
};

/*
 * check_chain: one query recomputes every hash of ch.  A row is broken when its hash is not the hash of
 * its fields and its prev_hash, or when its prev_hash is not the hash of the row before it (a row
 * deleted, slipped in past the trigger, or edited).  Prints one line; fills h.  -1: no answer.
 */
static int check_chain(PGconn *c, const struct chain *ch, struct head *h)
{
	struct sb q = SB_INIT;
	PGresult *r;
	char err[512];

	memset(h, 0, sizeof *h);
	sb_printf(&q,
	          "WITH c AS (SELECT id, %s AS label, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS at, "
	          "  prev_hash, hash, lag(hash) OVER (ORDER BY id) AS before, lag(id) OVER (ORDER BY id) AS before_id, "
	          "  %s AS want FROM %s) "
	          "SELECT (SELECT count(*) FROM c), b.id, b.label, b.at, b.before_id, "
	          "  CASE WHEN b.hash IS NULL THEN 'no hash' "
	          "       WHEN b.hash <> b.want THEN 'its hash does not match its fields' "
	          "       ELSE 'its prev_hash is not the hash of the row before it' END, "
	          "  (SELECT hash FROM c ORDER BY id DESC LIMIT 1), (SELECT max(id) FROM c) "
	          "FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT * FROM c WHERE hash IS NULL OR hash <> want "
	          "  OR prev_hash IS DISTINCT FROM before ORDER BY id LIMIT 1) b ON true",
	          ch->label, ch->want, ch->table);
	r = sb_ok(&q) ? db_query(c, sb_cstr(&q), 0, NULL, err, sizeof err) : NULL;
	sb_free(&q);
	if (!r || PQntuples(r) != 1) {
		fprintf(stderr, "askql audit verify: %s: %s\n", ch->table, r ? "no answer" : err);
		PQclear(r);
		return -1;
	}
	snprintf(h->rows, sizeof h->rows, "%s", PQgetvalue(r, 0, 0));
	snprintf(h->last_hash, sizeof h->last_hash, "%s", PQgetvalue(r, 0, 6));
	snprintf(h->last_id, sizeof h->last_id, "%s", PQgetisnull(r, 0, 7) ? "0" : PQgetvalue(r, 0, 7));
	if (PQgetisnull(r, 0, 1)) {
		printf("%s: %s rows, chain intact; last row %s, hash %s\n", ch->table, h->rows, h->last_id,
		       PQgetisnull(r, 0, 6) ? "(none)" : h->last_hash);
	} else {
		h->broken = 1;
		printf("%s: chain broken at row %s (%s, %s UTC): %s", ch->table, PQgetvalue(r, 0, 1), PQgetvalue(r, 0, 2),
		       PQgetvalue(r, 0, 3), PQgetvalue(r, 0, 5));
		if (!PQgetisnull(r, 0, 4))
			printf(" (the row before it now is %s)", PQgetvalue(r, 0, 4));
		printf("\n");
	}
	PQclear(r);
	return 0;
}

/* one anchored head: "<time UTC> <table> <id> <hash>" */
struct anchor {
	char at[32], table[32], id[24], hash[72];
};

/* parse_anchor: 1 for a good line, 0 for a comment or blank one, -1 for anything else */
static int parse_anchor(const char *line, struct anchor *a)
{
	char extra[2];
	size_t i;

	while (*line == ' ' || *line == '\t')
		line++;
	if (!*line || *line == '#')
		return 0;
	if (sscanf(line, "%31s %31s %23s %71s %1s", a->at, a->table, a->id, a->hash, extra) != 4)
		return -1;
	for (i = 0; i < (size_t)NCHAINS && strcmp(a->table, chains[i].table); i++)
		;
	if (i == (size_t)NCHAINS || strspn(a->id, "0123456789") != strlen(a->id) || strlen(a->id) > 18 ||
	    strlen(a->hash) != 64 || strspn(a->hash, "0123456789abcdef") != 64 || strlen(a->at) != 20)
		return -1;
	return 1;
}

/*
 * check_anchors: every head in the anchor file must still be in its chain with the hash it had; a head
 * that is gone means rows were cut from the end (or the chain was rebuilt without it), one with another
 * hash means the chain was rewritten up to it.  Prints the first failing anchor of each chain and how
 * many failed.  Returns the number of failing anchors, -1 when the file cannot be read or has a bad line.
 */
static int check_anchors(PGconn *c, const char *path, const struct head *heads)
{
	size_t len;
	char *text, *line, *save = NULL, err[512];
	int lineno = 0, failed[NCHAINS] = {0}, checked[NCHAINS] = {0}, total = 0;
	struct stat st;

	if (!path || !*path) {
		printf("anchors: no audit_anchor_file set\n");
		return 0;
	}
	if (!(text = file_read(path, ANCHOR_FILE_MAX, &len))) {
		if (errno == ENOENT) {
			printf("anchors: none yet (%s does not exist; askql audit anchor writes it)\n", path);
			return 0;
		}
		fprintf(stderr, "askql audit verify: %s: %s\n", path,
		        errno == EFBIG ? "larger than 8 MiB (keep older anchors elsewhere)" : strerror(errno));
		return -1;
	}
	if (stat(path, &st) == 0 && (st.st_mode & 077))
		printf("anchors: warning: %s is mode %03o, not 0600\n", path, (unsigned)(st.st_mode & 0777));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct anchor a;
		const char *p[2];
		PGresult *r;
		char q[256];
		int k, got;

		lineno++;
		if (strlen(line) > ANCHOR_LINE_MAX || (got = parse_anchor(line, &a)) < 0) {
			fprintf(stderr, "askql audit verify: %s line %d is not \"<time> <table> <id> <hash>\"\n", path, lineno);
			free(text);
			return -1;
		}
		if (!got)
			continue;
		for (k = 0; strcmp(chains[k].table, a.table); k++)
			;
		checked[k]++;
		snprintf(q, sizeof q, "SELECT hash FROM %s WHERE id = $1::bigint", chains[k].table);
		p[0] = a.id;
		if (!(r = db_query(c, q, 1, p, err, sizeof err))) {
			fprintf(stderr, "askql audit verify: %s\n", err);
			free(text);
			return -1;
		}
		if (PQntuples(r) == 1 && !strcmp(PQgetvalue(r, 0, 0), a.hash)) {
			PQclear(r);
			continue;
		}
		if (!failed[k]++) {
			if (PQntuples(r) == 0)
				printf("%s: anchored head row %s (anchored %s) is gone: rows were cut from the end of the chain "
				       "(it now ends at row %s)\n", a.table, a.id, a.at, heads[k].last_id);
			else
				printf("%s: anchored head row %s (anchored %s) no longer has the anchored hash: the chain was "
				       "rewritten\n", a.table, a.id, a.at);
		}
		total++;
		PQclear(r);
	}
	free(text);
	for (int k = 0; k < NCHAINS; k++)
		if (checked[k])
			printf("%s: %d anchor(s) checked, %d failed\n", chains[k].table, checked[k], failed[k]);
	return total;
}

/* verify: both chains, then the anchors; 0 intact, 1 anything broken or unreadable */
static int verify(PGconn *c, int anchor_after)
{
	struct head heads[NCHAINS];
	int broken = 0, bad;

	for (int k = 0; k < NCHAINS; k++) {
		if (check_chain(c, &chains[k], &heads[k]) < 0)
			return 1;
		broken |= heads[k].broken;
	}
	bad = check_anchors(c, conf_get("audit_anchor_file"), heads);
	if (bad != 0 || broken)
		return 1;
	if (anchor_after) {
		/* a head is anchored only on an intact chain: anchoring a forged one would vouch for it */
		struct sb s = SB_INIT;
		char when[32], err[512];
		time_t now = time(NULL);
		struct tm tm;

		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
		for (int k = 0; k < NCHAINS; k++)
			if (strcmp(heads[k].last_id, "0"))
				sb_printf(&s, "%s %s %s %s\n", when, chains[k].table, heads[k].last_id, heads[k].last_hash);
		if (!sb_ok(&s) || pfile_append(conf_get("audit_anchor_file"), sb_cstr(&s), s.len, err, sizeof err) != OK) {
			fprintf(stderr, "askql audit anchor: %s\n", sb_ok(&s) ? err : "out of memory");
			sb_free(&s);
			return 1;
		}
		printf("anchored %s in %s:\n%s", when, conf_get("audit_anchor_file"), sb_cstr(&s));
		sb_free(&s);
	}
	return 0;
}

int cmd_audit(int argc, char **argv)
{
	PGconn *c;

	if (argc != 2 || (strcmp(argv[1], "verify") && strcmp(argv[1], "anchor"))) {
		fprintf(stderr, "usage: askql audit verify   check both hash chains and the anchored heads\n"
		                "       askql audit anchor   verify, then append each chain's head to audit_anchor_file\n");
		return 2;
	}
	if (!(c = db_app())) {
		fprintf(stderr, "askql audit: cannot connect to the app database\n");
		return 1;
	}
	/* built-in functions are pg_catalog's here, whatever search_path the app role gave itself */
	if (db_exec(c, "SET search_path = pg_catalog, pg_temp", 0, NULL, NULL, 0) != OK) {
		fprintf(stderr, "askql audit: cannot set search_path\n");
		return 1;
	}
	return verify(c, !strcmp(argv[1], "anchor"));
}
