/* password.c: /account/password, where a signed-in user changes their own password (the only page open after an admin reset). */
#include <stdio.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "http/pwpolicy.h"
#include "pages/pages.h"
#include "util/conf.h"
#include "util/i18n.h"
#include "util/log.h"

/* The text of key with {n} (the minimum length) and {seconds} filled in; arena memory. */
static const char *text(struct req *r, const char *key, const char *n, const char *secs)
{
	struct sb m;

	sb_init_arena(&m, r->a);
	i18n_format(&m, r->lang, key, (const char *const[]){"n", n, "seconds", secs ? secs : "", NULL});
	return sb_cstr(&m);
}

/* The form, with an error (err_key) or a notice (notice_key), either may be NULL. */
static enum err form(struct req *r, int status, const char *err_key, const char *notice_key, const char *secs)
{
	cJSON *d = view_data(r, "account.password_title");
	char n[24];

	if (!d)
		return ERR_NOMEM;
	snprintf(n, sizeof n, "%ld", conf_get_int("password_min_length"));
	cJSON_AddStringToObject(d, "min", n);
	cJSON_AddStringToObject(d, "min_help", text(r, "account.password_min", n, NULL));
	cJSON_AddBoolToObject(d, "must_change", r->user.must_change);
	if (err_key)
		cJSON_AddStringToObject(d, "error", text(r, err_key, n, secs));
	if (notice_key)
		cJSON_AddStringToObject(d, "notice", text(r, notice_key, n, NULL));
	return view_render(r, status, "password", d);
}

enum err page_password(struct req *r)
{
	const char *notice = req_param(r, "notice");

	return form(r, 200, NULL, notice && !strcmp(notice, "changed") ? "account.password_changed" : NULL, NULL);
}

enum err page_password_post(struct req *r)
{
	const char *cur = req_param(r, "current"), *pw = req_param(r, "new"), *again = req_param(r, "again");
	char secs[24], detail[48];
	long wait = 0;
	enum err e;

	/* checks that need no password check come first: a typo costs no throttle failure */
	if (!cur || !*cur || !pw || !*pw || !again)
		return form(r, 400, "account.password_missing", NULL, NULL);
	if (strcmp(pw, again))
		return form(r, 400, "account.password_mismatch", NULL, NULL);
	{
		enum pw_verdict v = auth_password_check(pw);

		if (v != PW_OK) {
			log_info("password change refused for %s: rule %d", r->user.name, (int)v);
			return form(r, v == PW_NO_LIST ? 503 : 400, pw_verdict_key(v), NULL, NULL);
		}
	}
	if (!strcmp(pw, cur))
		return form(r, 400, "account.password_same", NULL, NULL);
	e = auth_change_password(r, cur, pw, &wait);
	if (e == ERR_LIMIT) {
		snprintf(secs, sizeof secs, "%ld", wait);
		resp_header(r, "Retry-After", secs);
		return form(r, 429, "signin.retry_after", NULL, secs);
	}
	if (e == ERR_DENIED) {
		log_info("password change refused for %s: wrong current password", r->user.name);
		return form(r, 403, "account.password_wrong", NULL, NULL);
	}
	if (e != OK)
		return e;
	log_info("password changed: %s", r->user.name);
	snprintf(detail, sizeof detail, "{\"id\":%lld}", r->user.id);
	view_audit(r, "account.password", detail);
	return resp_redirect(r, "/account/password?notice=changed");
}
