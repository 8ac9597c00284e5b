/* auth.c: passwords (yescrypt via crypt(3)), sessions and CSRF tokens, bearer tokens, sign-in rate limit. */
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

static void cookie(struct req *r, const char *name, const char *value, long max_age)
{
	char line[300];

	snprintf(line, sizeof line, "%s=%s; Path=/; Max-Age=%ld; HttpOnly; SameSite=Strict%s",
	         name, value, max_age, r->https ? "; Secure" : "");
	resp_header(r, "Set-Cookie", line);
}

enum err auth_load(struct req *r)
{
	PGconn *c;
	PGresult *res = NULL;
	const char *tok = NULL, *sql;
	char hex[65];
	enum err rc = OK;

	r->lang = "ko";
	if ((tok = req_cookie(r, "askql_lang")) && (!strcmp(tok, "en") || !strcmp(tok, "ko")))
		r->lang = !strcmp(tok, "en") ? "en" : "ko";
	tok = NULL;
	if (r->authz && !strncasecmp(r->authz, "Bearer ", 7)) {
		tok = r->authz + 7;
		r->via_token = 1;
		sql = "SELECT id, name, role, lang, '' FROM askql.users WHERE token_hash = $1 AND NOT disabled";
	} else if ((tok = req_cookie(r, SID_COOKIE))) {
		sql = "SELECT u.id, u.name, u.role, u.lang, s.csrf FROM askql.sessions s "
		      "JOIN askql.users u ON u.id = s.user_id "
		      "WHERE s.id = $1 AND s.expires_at > now() AND NOT u.disabled";
	} else {
		return OK;
	}
	if (strlen(tok) != 64)
		return OK;      /* not one of ours: treated as signed out */
	sha256_hex(tok, 64, hex);
	if (!(c = db_app()))
		return ERR_DB;
	{
		const char *p[1] = {hex};

		if (!(res = db_query(c, sql, 1, p, NULL, 0))) {
			rc = ERR_DB;
			goto out;
		}
	}
	if (PQntuples(res) == 1) {
		r->signed_in = 1;
		r->user.id = atoll(PQgetvalue(res, 0, 0));
		r->user.name = arena_strdup(r->a, PQgetvalue(res, 0, 1));
		r->user.role = arena_strdup(r->a, PQgetvalue(res, 0, 2));
		r->user.lang = arena_strdup(r->a, PQgetvalue(res, 0, 3));
		r->csrf = arena_strdup(r->a, PQgetvalue(res, 0, 4));
		r->sid = r->via_token ? NULL : arena_strdup(r->a, hex);
		r->lang = !strcmp(r->user.lang, "en") ? "en" : "ko";
	} else {
		r->via_token = 0;
	}
out:
	PQclear(res);
	return rc;
}

/* Failed sign-ins for this name+address in the last 15 minutes. */
static long failures(PGconn *c, const char *name, const char *addr)
{
	const char *p[2] = {name, addr};
	PGresult *res = db_query(c, "SELECT count(*) FROM askql.signin_attempts WHERE username = $1 "
	                            "AND addr = $2 AND NOT ok AND at > now() - interval '15 minutes'",
	                         2, p, NULL, 0);
	long n = res ? atol(PQgetvalue(res, 0, 0)) : 1L << 30;

	PQclear(res);
	return n;
}

enum err auth_signin(struct req *r, const char *name, const char *pw)
{
	PGconn *c = db_app();
	PGresult *res = NULL;
	char tok[65], hex[65], csrf[33], ttl[24];
	const char *p[4];
	enum err rc = ERR_DENIED;
	int ok = 0;
	long long uid = 0;

	if (!c)
		return ERR_DB;
	if (failures(c, name, r->addr) >= conf_get_int("signin_max_failures")) {
		log_warn("sign-in refused for %s from %s: too many failures", name, r->addr);
		return ERR_LIMIT;
	}
	p[0] = name;
	res = db_query(c, "SELECT id, pwhash FROM askql.users WHERE name = $1 AND NOT disabled", 1, p, NULL, 0);
	if (!res) {
		rc = ERR_DB;
		goto out;
	}
	if (PQntuples(res) == 1) {
		ok = auth_check_password(pw, PQgetvalue(res, 0, 1));
		uid = atoll(PQgetvalue(res, 0, 0));
	} else {
		/* spend the same time on unknown names so they cannot be told apart */
		auth_check_password(pw, "$y$j9T$ZEc8mxlHRw2ZS1AGD7uj51$V1rYaVNS8mm.yY1cfu5kNL5hC9bDSlJwCUEiqy8z3E9");
	}
	p[0] = name;
	p[1] = r->addr;
	p[2] = ok ? "t" : "f";
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
		/* housekeeping: expired sessions of this user */
		db_exec(c, "DELETE FROM askql.sessions WHERE user_id = $1 AND expires_at < now()", 1, p + 1, NULL, 0);
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
