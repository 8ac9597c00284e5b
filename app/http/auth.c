/* auth.c: passwords (yescrypt via crypt(3)), sessions and CSRF tokens, bearer tokens, the sign-in throttle (docs/auth.md). */
#include <crypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>
#include "http/http.h"
#include "store/db.h"
#include "util/arena.h"
#include "util/conf.h"
#include "util/log.h"
#include "util/sha256.h"

#define SID_COOKIE "askql_sid"
#define PRE_COOKIE "askql_pre"

double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

enum err auth_random_hex(char *out, size_t nbytes)
{
	static const char dig[] = "0123456789abcdef";
	unsigned char buf[64];

	if (nbytes > sizeof buf || getrandom(buf, nbytes, 0) != (ssize_t)nbytes)
		return ERR_IO;
	for (size_t i = 0; i < nbytes; i++) {
		out[2 * i] = dig[buf[i] >> 4];
		out[2 * i + 1] = dig[buf[i] & 15];
	}
	out[2 * nbytes] = '\0';
	return OK;
}

int auth_token_eq(const char *a, const char *b)
{
	size_t la, lb;
	unsigned char d = 0;

	if (!a || !b)
		return 0;
	la = strlen(a);
	lb = strlen(b);
	if (la != lb || la == 0)
		return 0;
	for (size_t i = 0; i < la; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

char *auth_hash_password(const char *pw)
{
	char salt[CRYPT_GENSALT_OUTPUT_SIZE];
	struct crypt_data *cd;
	char *h, *out = NULL;

	/* NULL random bytes: libxcrypt draws them from the kernel itself */
	if (!crypt_gensalt_rn("$y$", 0, NULL, 0, salt, sizeof salt))
		return NULL;
	if (!(cd = calloc(1, sizeof *cd)))
		return NULL;
	h = crypt_r(pw, salt, cd);
	if (h && h[0] == '$')
		out = strdup(h);
	free(cd);
	return out;
}

int auth_check_password(const char *pw, const char *hash)
{
	struct crypt_data *cd;
	char *h;
	int ok = 0;

	if (!pw || !hash || hash[0] != '$')
		return 0;
	if (!(cd = calloc(1, sizeof *cd)))
		return 0;
	h = crypt_r(pw, hash, cd);
	ok = h && h[0] == '$' && auth_token_eq(h, hash);
	free(cd);
	return ok;
}

int auth_secure(const struct req *r)
{
	/* TLS may end at a proxy in front of nginx: then only public_url says the users' side is https */
	return r->https || !strncasecmp(conf_get("public_url"), "https://", 8);
}

void auth_cookie(struct req *r, const char *name, const char *value, long max_age, int http_only)
{
	char line[300];

	snprintf(line, sizeof line, "%s=%s; Path=/; Max-Age=%ld%s; SameSite=Strict%s", name, value, max_age,
	         http_only ? "; HttpOnly" : "", auth_secure(r) ? "; Secure" : "");
	resp_header(r, "Set-Cookie", line);
}

static void cookie(struct req *r, const char *name, const char *value, long max_age)
{
	auth_cookie(r, name, value, max_age, 1);
}

/*
 * A session lives until expires_at (sign-in + session_ttl_s, however active) and while it is used at
 * least every session_idle_s (docs/auth.md, "Sessions").  last_seen is written only when it is older
 * than a quarter of the idle limit or a minute, so most requests add no write.
 */
enum err auth_load(struct req *r)
{
	PGconn *c;
	PGresult *res = NULL;
	const char *tok = NULL, *sql;
	char hex[65], idle[24];
	const char *p[2] = {hex, idle};
	int np = 1;
	enum err rc = OK;

	r->lang = "ko";
	if ((tok = req_cookie(r, "askql_lang")) && (!strcmp(tok, "en") || !strcmp(tok, "ko")))
		r->lang = !strcmp(tok, "en") ? "en" : "ko";
	tok = NULL;
	if (r->authz && !strncasecmp(r->authz, "Bearer ", 7)) {
		tok = r->authz + 7;
		r->via_token = 1;
		/* the token's idle age stands in the session's: last_used_at is written as last_seen is */
		sql = "SELECT u.id, u.name, u.role, u.lang, '', "
		      "coalesce(extract(epoch FROM now() - t.last_used_at)::bigint, 1000000), u.must_change_password "
		      "FROM askql.api_tokens t JOIN askql.users u ON u.id = t.user_id WHERE t.hash = $1 AND NOT u.disabled";
	} else if ((tok = req_cookie(r, SID_COOKIE))) {
		sql = "SELECT u.id, u.name, u.role, u.lang, s.csrf, extract(epoch FROM now() - s.last_seen)::bigint, "
		      "u.must_change_password "
		      "FROM askql.sessions s JOIN askql.users u ON u.id = s.user_id "
		      "WHERE s.id = $1 AND s.expires_at > now() AND s.last_seen > now() - make_interval(secs => $2::int) "
		      "AND NOT u.disabled";
		snprintf(idle, sizeof idle, "%ld", conf_get_int("session_idle_s"));
		np = 2;
	} else {
		return OK;
	}
	if (strlen(tok) != 64)
		return OK;      /* not one of ours: treated as signed out */
	sha256_hex(tok, 64, hex);
	if (!(c = db_app()))
		return ERR_DB;
	if (!(res = db_query(c, sql, np, p, NULL, 0))) {
		rc = ERR_DB;
		goto out;
	}
	if (PQntuples(res) == 1) {
		long age = atol(PQgetvalue(res, 0, 5));

		r->signed_in = 1;
		r->user.id = atoll(PQgetvalue(res, 0, 0));
		r->user.name = arena_strdup(r->a, PQgetvalue(res, 0, 1));
		r->user.role = arena_strdup(r->a, PQgetvalue(res, 0, 2));
		r->user.lang = arena_strdup(r->a, PQgetvalue(res, 0, 3));
		r->csrf = arena_strdup(r->a, PQgetvalue(res, 0, 4));
		r->sid = r->via_token ? NULL : arena_strdup(r->a, hex);
		r->lang = !strcmp(r->user.lang, "en") ? "en" : "ko";
		r->user.must_change = !strcmp(PQgetvalue(res, 0, 6), "t");
		if (r->via_token && age >= 60)
			db_exec(c, "UPDATE askql.api_tokens SET last_used_at = now() WHERE hash = $1", 1, p, NULL, 0);
		else if (!r->via_token && (age >= 60 || age * 4 >= conf_get_int("session_idle_s")))
			db_exec(c, "UPDATE askql.sessions SET last_seen = now() WHERE id = $1", 1, p, NULL, 0);
	} else {
		r->via_token = 0;
	}
out:
	PQclear(res);
	return rc;
}

/*
 * The sign-in throttle (docs/auth.md, "The sign-in throttle").  Each attempt has two counters: the
 * name as typed and the client address.  It is let through only when neither is waiting, and letting
 * it through counts it as a failure on both, in the same statement: the rows are locked in one order
 * (account, addr, pair), so concurrent attempts queue on them and each sees the counts of the ones
 * before it.  Once a counter has used its free failures, every further one makes the next attempt
 * wait signin_delay_s, doubled each time, up to signin_delay_max_s.  A third row, the pair of address
 * and name, counts how many of the name's failures came from this address and gates nothing: the
 * right password takes back only those (throttle_settle), so a user signing in from one address does
 * not wipe out what someone else tried from another (issue 27).
 * $1 name, $2 address, $3/$4 free failures (account/address), $5 first wait, $6 longest, $7 forget.
 */
#define PAIR_KEY "$2 || ' ' || $1"     /* an address has no space: the pair's key is never ambiguous */
static const char admit_sql[] =
	"WITH k AS ("
	" SELECT scope, key, CASE WHEN forgot THEN 0 ELSE failures END AS f,"
	"  CASE WHEN forgot THEN '-infinity' ELSE next_at END AS nx,"
	"  CASE scope WHEN 'account' THEN $3::int ELSE $4::int END AS free"
	" FROM (SELECT *, updated_at < now() - make_interval(secs => $7::int) AS forgot FROM askql.signin_throttle"
	"  WHERE (scope = 'account' AND key = $1) OR (scope = 'addr' AND key = $2) OR (scope = 'pair' AND key = " PAIR_KEY ")) t"
	" ORDER BY scope FOR UPDATE OF t),"
	"v AS (SELECT count(*) FILTER (WHERE scope <> 'pair') = 2 AND count(*) FILTER (WHERE scope = 'pair') = 1"
	" AND coalesce(max(nx) FILTER (WHERE scope <> 'pair') <= now(), false) AS ok,"
	" greatest(1, ceil(extract(epoch FROM max(nx) FILTER (WHERE nx > now() AND scope <> 'pair') - now())))::bigint AS wait FROM k),"
	"up AS (UPDATE askql.signin_throttle t SET failures = k.f + 1, updated_at = now(),"
	" next_at = CASE WHEN k.scope = 'pair' THEN '-infinity'::timestamptz WHEN k.f + 1 < k.free THEN now()"
	"  ELSE now() + make_interval(secs => least($6::float8, $5::float8 * power(2, least(k.f + 1 - k.free, 30)))) END"
	" FROM k, v WHERE v.ok AND t.scope = k.scope AND t.key = k.key)"
	"SELECT ok, wait FROM v";

/* OK: the attempt may check its password (and is counted); ERR_LIMIT: wait *retry_s seconds. */
static enum err throttle_admit(PGconn *c, const char *name, const char *addr, long *retry_s)
{
	char fa[24], fd[24], d0[24], dmax[24], forget[24];
	const char *p[7] = {name, addr, fa, fd, d0, dmax, forget};
	PGresult *res;
	enum err rc;

	*retry_s = 0;
	/* the rows must exist to be locked: a missing one would let a burst through uncounted */
	if (db_exec(c, "INSERT INTO askql.signin_throttle(scope, key) VALUES ('account', $1), ('addr', $2), "
	               "('pair', " PAIR_KEY ") ON CONFLICT DO NOTHING", 2, p, NULL, 0) != OK)
		return ERR_DB;
	snprintf(fa, sizeof fa, "%ld", conf_get_int("signin_max_failures"));
	snprintf(fd, sizeof fd, "%ld", conf_get_int("signin_addr_max_failures"));
	snprintf(d0, sizeof d0, "%ld", conf_get_int("signin_delay_s"));
	snprintf(dmax, sizeof dmax, "%ld", conf_get_int("signin_delay_max_s"));
	snprintf(forget, sizeof forget, "%ld", conf_get_int("signin_forget_s"));
	if (!(res = db_query(c, admit_sql, 7, p, NULL, 0)) || PQntuples(res) != 1) {
		PQclear(res);
		return ERR_DB;
	}
	rc = !strcmp(PQgetvalue(res, 0, 0), "t") ? OK : ERR_LIMIT;
	if (rc == ERR_LIMIT)
		*retry_s = atol(PQgetvalue(res, 0, 1));
	PQclear(res);
	return rc;
}

/*
 * The right password: the account gives back the failures counted from this address (the pair's,
 * this attempt included) and keeps those from any other; the address gets this attempt back; the
 * pair starts again from zero.  A wait is lifted only where what is left is under the free failures.
 * With a single address this is the old "the account starts again from zero".
 */
static void throttle_settle(PGconn *c, const char *name, const char *addr)
{
	char fa[24], fd[24], forget[24];
	const char *p[4] = {name, addr, fd, fa};

	snprintf(fa, sizeof fa, "%ld", conf_get_int("signin_max_failures"));
	snprintf(fd, sizeof fd, "%ld", conf_get_int("signin_addr_max_failures"));
	db_exec(c, "WITH pr AS (SELECT coalesce(max(failures), 0) AS n FROM askql.signin_throttle "
	           "WHERE scope = 'pair' AND key = " PAIR_KEY "), "
	           "nf AS (SELECT t.scope, t.key, CASE t.scope WHEN 'account' THEN greatest(t.failures - pr.n, 0) "
	           "WHEN 'pair' THEN 0 ELSE greatest(t.failures - 1, 0) END AS f FROM askql.signin_throttle t, pr "
	           "WHERE (t.scope = 'account' AND t.key = $1) OR (t.scope = 'addr' AND t.key = $2) "
	           "OR (t.scope = 'pair' AND t.key = " PAIR_KEY ")) "
	           "UPDATE askql.signin_throttle t SET failures = nf.f, "
	           "next_at = CASE WHEN t.scope = 'pair' THEN '-infinity'::timestamptz "
	           "WHEN nf.f < CASE t.scope WHEN 'account' THEN $4::int ELSE $3::int END THEN now() ELSE t.next_at END "
	           "FROM nf WHERE t.scope = nf.scope AND t.key = nf.key", 4, p, NULL, 0);
	/* housekeeping: names, addresses and pairs not seen for signin_forget_s */
	snprintf(forget, sizeof forget, "%ld", conf_get_int("signin_forget_s"));
	p[0] = forget;
	db_exec(c, "DELETE FROM askql.signin_throttle WHERE updated_at < now() - make_interval(secs => $1::int)",
	        1, p, NULL, 0);
}

enum err auth_signin(struct req *r, const char *name, const char *pw, long *retry_s)
{
	PGconn *c = db_app();
	PGresult *res = NULL;
	char tok[65], hex[65], csrf[33], ttl[24], idle[24];
	const char *p[4];
	enum err rc;
	int ok = 0;
	long long uid = 0;

	*retry_s = 0;
	if (!c)
		return ERR_DB;
	if ((rc = throttle_admit(c, name, r->addr, retry_s)) != OK) {
		if (rc == ERR_LIMIT)
			log_warn("sign-in for %s from %s must wait %ld s", name, r->addr, *retry_s);
		return rc;
	}
	rc = ERR_DENIED;
	p[0] = name;
	res = db_query(c, "SELECT id, pwhash, must_change_password FROM askql.users WHERE name = $1 AND NOT disabled",
	               1, p, NULL, 0);
	if (!res) {
		rc = ERR_DB;
		goto out;
	}
	if (PQntuples(res) == 1) {
		ok = auth_check_password(pw, PQgetvalue(res, 0, 1));
		uid = atoll(PQgetvalue(res, 0, 0));
		r->user.must_change = !strcmp(PQgetvalue(res, 0, 2), "t");
	} else {
		/* spend the same time on unknown names so they cannot be told apart */
		auth_check_password(pw, "$y$j9T$ZEc8mxlHRw2ZS1AGD7uj51$V1rYaVNS8mm.yY1cfu5kNL5hC9bDSlJwCUEiqy8z3E9");
	}
	if (ok)
		throttle_settle(c, name, r->addr);
	p[0] = name;
	p[1] = r->addr;
	p[2] = ok ? "t" : "f";
	/* the log of attempts that reached a password check (the throttle no longer reads it) */
	db_exec(c, "INSERT INTO askql.signin_attempts(username, addr, ok) VALUES ($1, $2, $3)", 3, p, NULL, 0);
	if (!ok)
		goto out;
	if (auth_random_hex(tok, 32) != OK || auth_random_hex(csrf, 16) != OK) {
		rc = ERR_IO;
		goto out;
	}
	sha256_hex(tok, 64, hex);
	snprintf(ttl, sizeof ttl, "%ld", conf_get_int("session_ttl_s"));
	{
		char uids[24];

		snprintf(uids, sizeof uids, "%lld", uid);
		p[0] = hex;
		p[1] = uids;
		p[2] = csrf;
		p[3] = ttl;
		if (db_exec(c, "INSERT INTO askql.sessions(id, user_id, csrf, expires_at) "
		               "VALUES ($1, $2, $3, now() + make_interval(secs => $4::int))",
		            4, p, NULL, 0) != OK) {
			rc = ERR_DB;
			goto out;
		}
		/* housekeeping: this user's sessions that ended (absolute or idle) */
		snprintf(idle, sizeof idle, "%ld", conf_get_int("session_idle_s"));
		db_exec(c, "DELETE FROM askql.sessions WHERE user_id = $1 AND (expires_at < now() "
		           "OR last_seen < now() - make_interval(secs => $2::int))", 2, (const char *[]){uids, idle}, NULL, 0);
	}
	cookie(r, SID_COOKIE, tok, conf_get_int("session_ttl_s"));
	cookie(r, PRE_COOKIE, "", 0);
	r->signed_in = 1;
	r->user.id = uid;
	rc = OK;
out:
	PQclear(res);
	return rc;
}

enum err auth_change_password(struct req *r, const char *cur, const char *pw, long *retry_s)
{
	PGconn *c = db_app();
	PGresult *res = NULL;
	char uid[24], *h = NULL;
	const char *p[3] = {uid, NULL, r->sid ? r->sid : ""};
	enum err rc;
	int ok;

	*retry_s = 0;
	if (!c)
		return ERR_DB;
	/* the current password is a password guess like any other: a stolen session may not try many */
	if ((rc = throttle_admit(c, r->user.name, r->addr, retry_s)) != OK)
		return rc;
	snprintf(uid, sizeof uid, "%lld", r->user.id);
	if (!(res = db_query(c, "SELECT pwhash FROM askql.users WHERE id = $1 AND NOT disabled", 1, p, NULL, 0)) ||
	    PQntuples(res) != 1) {
		rc = ERR_DB;
		goto out;
	}
	ok = auth_check_password(cur, PQgetvalue(res, 0, 0));
	if (!ok) {
		rc = ERR_DENIED;
		goto out;
	}
	throttle_settle(c, r->user.name, r->addr);
	if (!(h = auth_hash_password(pw))) {
		rc = ERR_INTERNAL;
		goto out;
	}
	p[1] = h;
	/* one statement: the new hash, the flag cleared, every other session of the user ended */
	rc = db_exec(c, "WITH u AS (UPDATE askql.users SET pwhash = $2, must_change_password = false, "
	                "password_changed_at = now() WHERE id = $1 RETURNING id) "
	                "DELETE FROM askql.sessions WHERE user_id IN (SELECT id FROM u) AND id <> $3",
	             3, p, NULL, 0);
	if (rc == OK)
		r->user.must_change = 0;
out:
	free(h);
	PQclear(res);
	return rc;
}

enum err auth_temp_password(char *out, size_t n)
{
	/* no 0/O, 1/l/I: it is read off a screen and typed */
	static const char set[] = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
	const size_t ns = sizeof set - 1, limit = 256 - 256 % ns;
	unsigned char b[64];
	size_t k = 0;

	while (k < n) {
		if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
			return ERR_IO;
		/* bytes at or above the last whole multiple of the set's size are dropped: no bias */
		for (size_t i = 0; i < sizeof b && k < n; i++)
			if (b[i] < limit)
				out[k++] = set[b[i] % ns];
	}
	out[n] = '\0';
	return OK;
}

enum err auth_signout(struct req *r)
{
	if (r->sid) {
		const char *p[1] = {r->sid};

		db_exec(db_app(), "DELETE FROM askql.sessions WHERE id = $1", 1, p, NULL, 0);
	}
	cookie(r, SID_COOKIE, "", 0);
	r->signed_in = 0;
	return OK;
}

const char *auth_pre_token(struct req *r)
{
	const char *t = req_cookie(r, PRE_COOKIE);
	char *nt;

	if (t && strlen(t) == 32)
		return t;
	if (!(nt = arena_alloc(r->a, 33)) || auth_random_hex(nt, 16) != OK)
		return "";
	cookie(r, PRE_COOKIE, nt, 3600);
	return nt;
}
