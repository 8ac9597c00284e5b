/* signin.c: the sign-in form, sign-in, sign-out and the language switch. */
#include <stdio.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "pages/pages.h"
#include "store/db.h"
#include "util/i18n.h"
#include "util/log.h"

/* next= is declared P_PATH: the router has already made it a local path or "/" (docs/auth.md). */
static const char *next_path(const struct req *r)
{
	const char *n = req_param(r, "next");

	return n && *n ? n : "/";
}

/* The form again, with the message msg_key (vars fill its {placeholders}; NULL: none). */
static enum err form(struct req *r, int status, const char *msg_key, const char *const *vars, const char *name)
{
	cJSON *d = view_data(r, "signin.title");

	if (!d)
		return ERR_NOMEM;
	cJSON_AddStringToObject(d, "next", next_path(r));
	cJSON_AddStringToObject(d, "name", name ? name : "");
	if (msg_key) {
		struct sb m;

		sb_init_arena(&m, r->a);
		i18n_format(&m, r->lang, msg_key, vars ? vars : (const char *const[]){NULL});
		cJSON_AddStringToObject(d, "error", sb_cstr(&m));
	}
	return view_render(r, status, "signin", d);
}

enum err page_signin(struct req *r)
{
	if (r->signed_in)
		return resp_redirect(r, next_path(r));
	return form(r, 200, NULL, NULL, NULL);
}

enum err page_signin_post(struct req *r)
{
	const char *name = req_param(r, "name"), *pw = req_param(r, "password");
	enum err e;
	long wait = 0;

	if (!name || !*name || !pw || !*pw)
		return form(r, 400, "web.signin_missing", NULL, name);
	e = auth_signin(r, name, pw, &wait);
	if (e == ERR_LIMIT) {
		char secs[24];

		/* a wait, not a lockout: after it the right password signs in (docs/auth.md) */
		snprintf(secs, sizeof secs, "%ld", wait);
		resp_header(r, "Retry-After", secs);
		return form(r, 429, "signin.retry_after", (const char *const[]){"seconds", secs, NULL}, name);
	}
	if (e == ERR_DENIED) {
		log_info("sign-in failed for %s", name);
		return form(r, 401, "signin.failed", NULL, name);
	}
	if (e != OK)
		return e;
	log_info("signed in: %s", name);
	/* a reset password opens nothing but the change page (docs/auth.md) */
	return resp_redirect(r, r->user.must_change ? "/account/password" : next_path(r));
}

enum err page_signout(struct req *r)
{
	auth_signout(r);
	return resp_redirect(r, "/signin");
}

/* The header switch: remembered per user (users.lang), and in a cookie before sign-in. */
enum err page_lang(struct req *r)
{
	const char *lang = req_param(r, "lang");

	if (!lang || (strcmp(lang, "ko") && strcmp(lang, "en")))
		return ERR_INPUT;
	if (r->signed_in) {
		char uid[24];
		const char *p[2] = {lang, uid};

		snprintf(uid, sizeof uid, "%lld", r->user.id);
		db_exec(db_app(), "UPDATE askql.users SET lang = $1 WHERE id = $2", 2, p, NULL, 0);
	}
	auth_cookie(r, "askql_lang", !strcmp(lang, "en") ? "en" : "ko", 31536000, 0);
	return resp_redirect(r, next_path(r));
}
