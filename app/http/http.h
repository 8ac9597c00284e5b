/* http.h: the request the accept loop owns and passes down: arena, parsed input, session, output sink. */
#ifndef ASKQL_HTTP_H
#define ASKQL_HTTP_H

#include <stddef.h>
#include "util/err.h"
#include "util/sb.h"

struct arena;
struct route;

enum method { M_GET, M_HEAD, M_POST, M_OTHER };

/* One decoded name=value pair (query, form field, multipart part or cookie); arena memory. */
struct kv {
	const char *key, *val;
	size_t len;              /* bytes in val (values are NUL-terminated too) */
	const char *filename;    /* multipart file parts only */
};

/* Where the response goes: FCGX_PutStr in the worker, a struct sb in tests. */
struct out {
	enum err (*write)(void *ctx, const char *p, size_t n);
	enum err (*flush)(void *ctx);   /* may be NULL */
	void *ctx;
	int (*gone)(void *ctx);         /* 1 when the reader has hung up (nginx closed the connection
	                                 * because its client did); never blocks; may be NULL */
};

struct user {
	long long id;
	const char *name, *role, *lang;   /* arena strings */
	int must_change;                  /* 1: an admin reset the password; only the change page is open */
};

/* Hard limits of request parsing (413/400 beyond them). */
#define REQ_MAX_QUERY    8192     /* bytes of QUERY_STRING */
#define REQ_MAX_FIELDS   256      /* name=value pairs in query + body */
#define REQ_MAX_COOKIE   4096     /* bytes of HTTP_COOKIE */
#define REQ_MAX_COOKIES  32
#define REQ_MAX_HEADER   8192     /* any single header we read */
#define REQ_MAX_PARTS    32       /* multipart parts */

struct req {
	struct arena *a;            /* reset by the accept loop before each request */
	char id[17];                /* request id, also in every log line */
	enum method method;
	const char *method_name, *path, *query;
	const char *ctype, *addr, *authz, *host;
	int https;
	const char *body; size_t body_len;
	struct kv *in; int nin;               /* every parsed field (query then body) */
	struct kv *params; int nparams;       /* only those the route declared, validated */
	struct kv *cookies; int ncookies;
	const struct route *route;
	long long arg_id;                     /* the ":id" segment of the path, 0: none */
	const char *arg_name;                 /* the ":name" segment, NULL: none */
	/* session (auth.c) */
	struct user user;
	int signed_in, via_token;
	const char *sid;                      /* session id (sha256 hex of the cookie) */
	const char *csrf;                     /* the session's CSRF token */
	const char *lang;                     /* "ko" or "en" */
	/* response (resp.c) */
	struct out out;
	int status, began, head_only;
	int abort_conn;                       /* 1: output broke off mid-body; drop the connection so
	                                       * the client sees an incomplete transfer, not a whole file */
	struct sb hdr;                        /* extra header lines added before resp_begin */
	double t0;                            /* monotonic ms at accept */
	char **env;                           /* FastCGI environment */
};

/* ---- req.c: parsing ---- */

/* req_env: the value of a FastCGI/CGI variable, NULL when absent. */
const char *req_env(const struct req *r, const char *name);
/* req_parse: fill method/path/query/headers, cookies and fields from env and, for POST,
 * the body read through rd (max_body bytes).  ERR_LIMIT (413) over a limit, ERR_INPUT (400)
 * for malformed input or invalid UTF-8.  Everything lives in r->a. */
typedef long (*req_read_fn)(void *ctx, char *buf, size_t n);
enum err req_parse(struct req *r, req_read_fn rd, void *rdctx, size_t max_body);
/* Pure parsers (also used by unit tests and the fuzzer): append to *kv (arena), ERR_INPUT/ERR_LIMIT. */
enum err req_parse_urlencoded(struct arena *a, const char *s, size_t n, struct kv **kv, int *nkv, int max);
enum err req_parse_cookies(struct arena *a, const char *s, struct kv **kv, int *nkv);
enum err req_parse_multipart(struct arena *a, const char *ctype, const char *body, size_t n,
                             struct kv **kv, int *nkv, int max);
/* req_utf8_ok: 1 when s[0..n) is well-formed UTF-8 without NUL bytes. */
int req_utf8_ok(const char *s, size_t n);
/* req_param: a declared, validated parameter of the current route; NULL when absent. */
const char *req_param(const struct req *r, const char *name);
/* req_param_int: the parameter as an integer, def when absent (validation already ran). */
long long req_param_int(const struct req *r, const char *name, long long def);
/* req_params_all: every value of a repeated declared parameter (e.g. checkboxes); arena array. */
int req_params_all(const struct req *r, const char *name, const char ***vals);
/* req_cookie: a cookie value, NULL when absent. */
const char *req_cookie(const struct req *r, const char *name);

/* ---- resp.c: responses (status, headers, body) into r->out ---- */

/* resp_header: add one "Name: value" header before resp_begin (value must not contain CR/LF). */
void resp_header(struct req *r, const char *name, const char *value);
/* resp_begin: write status, content type, cache policy, security headers and the extra headers.
 * cache: 0 no-store (pages), >0 public max-age seconds.  Idempotent after the first call. */
enum err resp_begin(struct req *r, int status, const char *ctype, int cache);
/* resp_write / resp_puts: body bytes (dropped for HEAD); resp_flush pushes them to nginx. */
enum err resp_write(struct req *r, const char *p, size_t n);
enum err resp_puts(struct req *r, const char *s);
enum err resp_flush(struct req *r);
/* resp_gone: 1 when the client is known to have hung up (a write would fail), else 0; costs one
 * non-blocking system call.  For work that writes nothing for a long time (a download's query). */
int resp_gone(struct req *r);
/* resp_local_path: 1 when p may be a redirect target on this site: "/" alone, or "/" then a path
 * character (not '/', '\\', '?', '#'), then printable ASCII without space or backslash, every %XX
 * a real escape whose byte is no control character, space or backslash (docs/auth.md); else 0. */
int resp_local_path(const char *p);
/* resp_redirect: 303 See Other to path when resp_local_path(path), else to "/". */
enum err resp_redirect(struct req *r, const char *path);
/* resp_error: the one error page (404, 403, 400, 405, 413, 500...): a fixed text, no detail leaked. */
enum err resp_error(struct req *r, int status);
/* resp_json: send a cJSON document (status given); the caller keeps ownership of j. */
struct cJSON;
enum err resp_json(struct req *r, int status, const struct cJSON *j);
/* resp_status_text: the reason phrase of status ("Not Found" for 404); a code without one gets its
 * class's ("Client Error" for a 4xx, "Server Error" for a 5xx), so a 4xx never reads as a server fault. */
const char *resp_status_text(int status);
/* err_status: the HTTP status for an error value returned by a handler. */
int resp_err_status(enum err e);

/* ---- routes.c: the one dispatch table ---- */
/* http_dispatch: authenticate, match the route, check role/CSRF, validate declared
 * params, call the handler and turn its error into an error page.  Never fails. */
void http_dispatch(struct req *r);

/* ---- auth.c: sessions, passwords, tokens ---- */
/* auth_load: fill r->user/signed_in from the session cookie or a bearer token. */
enum err auth_load(struct req *r);
/* auth_hash_password: a yescrypt hash of pw into out (heap, caller frees); NULL on failure. */
char *auth_hash_password(const char *pw);
/* auth_check_password: 1 when pw matches the stored crypt(3) hash. */
int auth_check_password(const char *pw, const char *hash);
/* auth_random_hex: nbytes random bytes (getrandom) as hex into out[2*nbytes+1]. */
enum err auth_random_hex(char *out, size_t nbytes);
/* auth_signin: pass the throttle (docs/auth.md), check the password; on success create a session
 * and set the cookie.  ERR_DENIED wrong name/password, ERR_LIMIT the name or this address must wait
 * *retry_s seconds first (the password was not checked), ERR_DB.  *retry_s is 0 unless ERR_LIMIT. */
enum err auth_signin(struct req *r, const char *name, const char *pw, long *retry_s);
/* auth_secure: 1 when the users' side is https (HTTPS from nginx, or conf public_url https://...). */
int auth_secure(const struct req *r);
/* auth_cookie: add a Set-Cookie header (Path=/, SameSite=Strict, Secure when auth_secure, HttpOnly
 * when http_only); value must be a cookie-safe token; max_age 0 deletes the cookie. */
void auth_cookie(struct req *r, const char *name, const char *value, long max_age, int http_only);
/* (what a new password must be: http/pwpolicy.h, auth_password_check) */
/* auth_change_password: the signed-in user's password from cur to pw (the caller has checked pw
 * with auth_password_check and that it differs).  cur is checked through the throttle like a sign-in.  On success the
 * user's other sessions end and must_change is cleared.  ERR_DENIED cur is wrong, ERR_LIMIT wait
 * *retry_s seconds (cur not checked), ERR_INTERNAL/ERR_DB. */
enum err auth_change_password(struct req *r, const char *cur, const char *pw, long *retry_s);
/* auth_temp_password: a random password of n characters (letters and digits without look-alikes)
 * into out[n + 1]; ERR_IO when the kernel gives no random bytes. */
enum err auth_temp_password(char *out, size_t n);
/* auth_signout: delete the session and clear the cookie. */
enum err auth_signout(struct req *r);
/* auth_pre_token: the sign-in form's CSRF token (double-submit cookie), setting it if new. */
const char *auth_pre_token(struct req *r);
/* auth_token_eq: constant-time comparison of two NUL-terminated tokens. */
int auth_token_eq(const char *a, const char *b);

/* now_ms: monotonic milliseconds (request timing). */
double now_ms(void);

#endif
