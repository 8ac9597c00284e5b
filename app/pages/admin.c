/* admin.c: the admin index, users and roles (with password resets), the audit log (verified queries: admin_verified.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "http/http.h"
#include "http/pwpolicy.h"
#include "pages/pages.h"
#include "store/level.h"
#include "store/db.h"
#include "util/arena.h"
#include "util/conf.h"
#include "util/i18n.h"
#include "util/log.h"

static enum err list_page(struct req *r, const char *title, const char *tpl, const char *key, const char *sql,
                          int n, const char *const *p)
{
	PGresult *res = db_query(db_app(), sql, n, p, NULL, 0);
	cJSON *d;

	if (!res)
		return ERR_DB;
	d = view_data(r, title);
	cJSON_AddItemToObject(d, key, view_rows(res));
	PQclear(res);
	return view_render(r, 200, tpl, d);
}

enum err page_admin(struct req *r)
{
	cJSON *d = view_data(r, "admin.title");
	PGresult *res = db_query(db_app(), "SELECT (SELECT count(*) FROM askql.users), (SELECT count(*) FROM askql.runs WHERE deleted_at IS NULL), "
	                                   "(SELECT count(*) FROM askql.runs WHERE verified), "
	                                   "(SELECT count(DISTINCT name) FROM askql.prompts), "
	                                   "(SELECT count(*) FROM askql.runs WHERE verify_state = 'proposed')", 0, NULL, NULL, 0);

	if (res && PQntuples(res) == 1) {
		cJSON_AddStringToObject(d, "n_users", PQgetvalue(res, 0, 0));
		cJSON_AddStringToObject(d, "n_runs", PQgetvalue(res, 0, 1));
		cJSON_AddStringToObject(d, "n_verified", PQgetvalue(res, 0, 2));
		cJSON_AddStringToObject(d, "n_prompts", PQgetvalue(res, 0, 3));
		cJSON_AddStringToObject(d, "n_proposed", PQgetvalue(res, 0, 4));
	}
	PQclear(res);
	return view_render(r, 200, "admin", d);
}

/* The users page; after a reset (reset_name set) it shows that user's temporary password, this once.
 * notice_key (with {name}) says what the last action did; error_key (with {name}) why an add was
 * refused, with the form keeping the name and role given (never the password). */
struct users_view {
	const char *reset_name, *reset_pw;
	const char *notice_key, *error_key, *name, *role;
	const char *reason;      /* {reason} of error_key: why a password was refused, in words */
};

/* levels_data: the access levels' table: "level_targets" (each registered target, with whether its
 * levels are set up) and "level_users" (each user with one cell per target: the level, with the
 * three options marked).  A user with no stored level is identified (store/level.h). */
static void levels_data(struct req *r, cJSON *d)
{
	PGresult *t = db_query(db_app(), "SELECT t.name, EXISTS (SELECT 1 FROM askql.target_levels l WHERE l.target = t.name) "
	                       "FROM askql.targets t ORDER BY t.is_default DESC, t.name", 0, NULL, NULL, 0);
	PGresult *u = db_query(db_app(), "SELECT u.id, u.name, t.name, coalesce(l.level, 'identified') FROM askql.users u "
	                       "CROSS JOIN askql.targets t LEFT JOIN askql.user_levels l ON l.user_id = u.id AND l.target = t.name "
	                       "ORDER BY u.name, t.is_default DESC, t.name", 0, NULL, NULL, 0);
	cJSON *ta, *ua, *row = NULL;
	const char *last = "";

	if (!t || !u || !PQntuples(t))
		goto out;
	cJSON_AddBoolToObject(d, "has_levels", 1);
	ta = cJSON_AddArrayToObject(d, "level_targets");
	for (int i = 0; i < PQntuples(t); i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "name", PQgetvalue(t, i, 0));
		cJSON_AddBoolToObject(o, "ready", PQgetvalue(t, i, 1)[0] == 't');
		cJSON_AddItemToArray(ta, o);
	}
	ua = cJSON_AddArrayToObject(d, "level_users");
	for (int i = 0; i < PQntuples(u); i++) {
		cJSON *c = cJSON_CreateObject(), *opts;
		enum level lv = LEVEL_IDENTIFIED;

		if (strcmp(last, PQgetvalue(u, i, 0))) {
			row = cJSON_CreateObject();
			cJSON_AddStringToObject(row, "id", PQgetvalue(u, i, 0));
			cJSON_AddStringToObject(row, "name", PQgetvalue(u, i, 1));
			cJSON_AddArrayToObject(row, "cells");
			cJSON_AddItemToArray(ua, row);
			last = PQgetvalue(u, i, 0);
		}
		level_parse(PQgetvalue(u, i, 3), &lv);
		cJSON_AddStringToObject(c, "target", PQgetvalue(u, i, 2));
		cJSON_AddStringToObject(c, "level", level_name(lv));
		opts = cJSON_AddArrayToObject(c, "options");
		for (int k = 0; k < LEVEL__MAX; k++) {
			cJSON *o = cJSON_CreateObject();
			char key[48];

			snprintf(key, sizeof key, "levels.level.%s", level_name((enum level)k));
			cJSON_AddStringToObject(o, "value", level_name((enum level)k));
			cJSON_AddStringToObject(o, "text", view_t(r, key));
			cJSON_AddBoolToObject(o, "selected", k == (int)lv);
			cJSON_AddItemToArray(opts, o);
		}
		cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(row, "cells"), c);
	}
out:
	PQclear(t);
	PQclear(u);
}

/* tokens_data: "api_tokens", every user's API tokens (never the token: only its hash is stored), each
 * with its user for the revoke forms; "tokens_by_user", one row per user who has any (revoke all). */
static enum err tokens_data(struct req *r, cJSON *d)
{
	PGresult *res = db_query(db_app(), "SELECT t.id, t.user_id, u.name, t.label, "
	                         "to_char(t.created_at, 'YYYY-MM-DD HH24:MI'), to_char(t.last_used_at, 'YYYY-MM-DD HH24:MI'), "
	                         "count(*) OVER (PARTITION BY t.user_id), row_number() OVER (PARTITION BY t.user_id ORDER BY t.id) "
	                         "FROM askql.api_tokens t JOIN askql.users u ON u.id = t.user_id ORDER BY u.name, t.id",
	                         0, NULL, NULL, 0);
	cJSON *a;

	if (!res)
		return ERR_DB;
	a = cJSON_AddArrayToObject(d, "api_tokens");
	for (int i = 0; i < PQntuples(res); i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "id", PQgetvalue(res, i, 0));
		cJSON_AddStringToObject(o, "user_id", PQgetvalue(res, i, 1));
		cJSON_AddStringToObject(o, "user", PQgetvalue(res, i, 2));
		cJSON_AddStringToObject(o, "label", PQgetvalue(res, i, 3));
		cJSON_AddStringToObject(o, "created", PQgetvalue(res, i, 4));
		cJSON_AddStringToObject(o, "last_used", PQgetisnull(res, i, 5) ? view_t(r, "tokens.never")
		                                                               : PQgetvalue(res, i, 5));
		/* "revoke all" is offered on a user's first row when they have more than one */
		cJSON_AddBoolToObject(o, "first_of_many", atoll(PQgetvalue(res, i, 7)) == 1 && atoll(PQgetvalue(res, i, 6)) > 1);
		cJSON_AddItemToArray(a, o);
	}
	cJSON_AddBoolToObject(d, "has_tokens", PQntuples(res) > 0);
	PQclear(res);
	return OK;
}

static enum err users_page(struct req *r, int status, const struct users_view *v)
{
	PGresult *res = db_query(db_app(), "SELECT id, name, role, lang, disabled, "
	                         "CASE WHEN must_change_password THEN 'yes' END AS must_change, to_char(created_at, 'YYYY-MM-DD') AS created, "
	                         "(SELECT count(*) FROM askql.runs WHERE user_id = u.id AND deleted_at IS NULL) AS runs, "
	                         "(SELECT count(*) FROM askql.api_tokens WHERE user_id = u.id) AS tokens "
	                         "FROM askql.users u ORDER BY name", 0, NULL, NULL, 0);
	cJSON *d, *a;

	if (!res)
		return ERR_DB;
	d = view_data(r, "users_title");
	a = cJSON_AddArrayToObject(d, "users");
	for (int i = 0; i < PQntuples(res); i++) {
		cJSON *o = cJSON_CreateObject();
		const char *role = PQgetvalue(res, i, 2);
		int admin = !strcmp(role, "admin"), off = PQgetvalue(res, i, 4)[0] == 't';

		cJSON_AddStringToObject(o, "id", PQgetvalue(res, i, 0));
		cJSON_AddStringToObject(o, "name", PQgetvalue(res, i, 1));
		cJSON_AddStringToObject(o, "role", role);
		/* the role in words, and which option the dropdown opens on: saving untouched changes nothing */
		cJSON_AddStringToObject(o, "role_text", view_t(r, admin ? "admin.role_admin" : "admin.role_analyst"));
		cJSON_AddBoolToObject(o, "is_admin", admin);
		cJSON_AddStringToObject(o, "lang", PQgetvalue(res, i, 3));
		cJSON_AddBoolToObject(o, "disabled", off);
		cJSON_AddStringToObject(o, "state_text", view_t(r, off ? "users.state_disabled" : "users.state_active"));
		if (!PQgetisnull(res, i, 5))
			cJSON_AddBoolToObject(o, "must_change", 1);
		cJSON_AddStringToObject(o, "created", PQgetvalue(res, i, 6));
		cJSON_AddStringToObject(o, "runs", PQgetvalue(res, i, 7));
		cJSON_AddStringToObject(o, "tokens", PQgetvalue(res, i, 8));
		/* an admin cannot demote, disable or reset themselves here (the server refuses too) */
		cJSON_AddBoolToObject(o, "self", atoll(PQgetvalue(res, i, 0)) == r->user.id);
		cJSON_AddItemToArray(a, o);
	}
	PQclear(res);
	if (tokens_data(r, d) != OK)
		return ERR_DB;
	levels_data(r, d);
	cJSON_AddNumberToObject(d, "min_password", (double)conf_get_int("password_min_length"));
	if (v && v->reset_name) {
		cJSON *o = cJSON_AddObjectToObject(d, "reset");
		struct sb m;

		sb_init_arena(&m, r->a);
		i18n_format(&m, r->lang, "admin.temp_password", (const char *const[]){"name", v->reset_name, NULL});
		cJSON_AddStringToObject(o, "text", sb_cstr(&m));
		cJSON_AddStringToObject(o, "password", v->reset_pw);
	}
	if (v && (v->notice_key || v->error_key)) {
		struct sb m;

		sb_init_arena(&m, r->a);
		i18n_format(&m, r->lang, v->error_key ? v->error_key : v->notice_key,
		            (const char *const[]){"name", v->name ? v->name : "", "reason", v->reason ? v->reason : "", NULL});
		cJSON_AddStringToObject(d, v->error_key ? "error" : "notice", sb_cstr(&m));
	}
	{
		/* the add form: what was given again after a refusal, analyst otherwise */
		cJSON *f = cJSON_AddObjectToObject(d, "add");

		cJSON_AddStringToObject(f, "name", v && v->error_key && v->name ? v->name : "");
		cJSON_AddBoolToObject(f, "is_admin", v && v->error_key && v->role && !strcmp(v->role, "admin"));
	}
	return view_render(r, status, "admin_users", d);
}

/* The notices a redirect after an action asks for (?notice=..&id=N); the name is looked up. */
static const struct {
	const char *notice, *key;
} notices[] = {
	{"added", "users.notice_added"},
	{"role", "users.notice_role"},
	{"same", "users.notice_same"},
	{"disabled", "users.notice_disabled"},
	{"enabled", "users.notice_enabled"},
	{"level", "levels.notice.saved"},
	{"token", "users.notice_token_revoked"},
	{"tokens", "users.notice_tokens_revoked"},
};

enum err page_admin_users(struct req *r)
{
	const char *notice = req_param(r, "notice");
	long long id = req_param_int(r, "id", 0);
	struct users_view v = {0};

	for (size_t i = 0; notice && id > 0 && i < sizeof notices / sizeof notices[0]; i++) {
		if (strcmp(notice, notices[i].notice))
			continue;
		char ids[24];
		const char *p[1] = {ids};
		PGresult *res;

		snprintf(ids, sizeof ids, "%lld", id);
		res = db_query(db_app(), "SELECT name, role FROM askql.users WHERE id = $1", 1, p, NULL, 0);
		if (res && PQntuples(res) == 1) {
			v.notice_key = notices[i].key;
			v.name = arena_strdup(r->a, PQgetvalue(res, 0, 0));
			/* the role's words go into the notice for a role change */
			if (!strcmp(notice, "role"))
				v.notice_key = !strcmp(PQgetvalue(res, 0, 1), "admin") ? "users.notice_role_admin"
				                                                      : "users.notice_role_analyst";
		}
		PQclear(res);
	}
	return users_page(r, 200, &v);
}

/*
 * A temporary password for user id: the user must change it at the next sign-in, every session of
 * theirs ends, and their name's throttle counter starts again (docs/auth.md, "Passwords").  The page
 * answers with the password itself, once; only its hash is stored and the audit names the user only.
 */
static enum err reset_password(struct req *r, const char *id)
{
	char tmp[17], *h = NULL, detail[48];
	const char *p[2] = {id, NULL};
	PGresult *res = NULL;
	enum err e;

	if (atoll(id) == r->user.id)
		return ERR_INPUT;      /* one's own password is changed on /account/password */
	if ((e = auth_temp_password(tmp, 16)) != OK)
		return e;
	if (!(h = auth_hash_password(tmp)))
		return ERR_INTERNAL;
	p[1] = h;
	res = db_query(db_app(), "WITH u AS (UPDATE askql.users SET pwhash = $2, must_change_password = true, "
	                         "password_changed_at = now() WHERE id = $1 RETURNING id, name), "
	                         "s AS (DELETE FROM askql.sessions WHERE user_id IN (SELECT id FROM u)), "
	                         "t AS (DELETE FROM askql.signin_throttle WHERE scope = 'account' "
	                         "AND key IN (SELECT name FROM u)) SELECT name FROM u", 2, p, NULL, 0);
	free(h);
	if (!res) {
		e = ERR_DB;
		goto out;
	}
	if (PQntuples(res) != 1) {
		e = ERR_INPUT;         /* no such user */
		goto out;
	}
	snprintf(detail, sizeof detail, "{\"id\":%lld}", atoll(id));
	view_audit(r, "user.reset", detail);
	log_info("password of user %s reset by %s", PQgetvalue(res, 0, 0), r->user.name);
	{
		struct users_view v = {.reset_name = arena_strdup(r->a, PQgetvalue(res, 0, 0)), .reset_pw = tmp};

		e = users_page(r, 200, &v);
	}
out:
	PQclear(res);
	return e;
}

/*
 * Revoke API tokens of user id: the one numbered tok (> 0), or all of them (tok 0).  *n is how many
 * were deleted (0: nothing of that user's to revoke).  The audit names the user and the tokens' ids
 * and labels, never a hash.
 */
static enum err revoke_tokens(struct req *r, long long id, long long tok, int *n)
{
	char ids[24], toks[24];
	const char *p[2] = {ids, toks};
	PGresult *res;
	struct sb det;

	*n = 0;
	snprintf(ids, sizeof ids, "%lld", id);
	snprintf(toks, sizeof toks, "%lld", tok);
	res = db_query(db_app(), "WITH d AS (DELETE FROM askql.api_tokens WHERE user_id = $1 AND ($2::bigint = 0 OR id = $2) "
	                         "RETURNING id, label) SELECT coalesce(jsonb_agg(jsonb_build_object('id', id, 'label', label) "
	                         "ORDER BY id), '[]'), count(*) FROM d", 2, p, NULL, 0);
	if (!res || PQntuples(res) != 1) {
		PQclear(res);
		return ERR_DB;
	}
	*n = atoi(PQgetvalue(res, 0, 1));
	if (*n > 0) {
		sb_init_arena(&det, r->a);
		sb_printf(&det, "{\"id\":%lld,\"tokens\":%s}", id, PQgetvalue(res, 0, 0));
		view_audit(r, tok ? "user.token_revoke" : "user.tokens_revoke", sb_cstr(&det));
		log_info("%d API token(s) of user %lld revoked by %s", *n, id, r->user.name);
	}
	PQclear(res);
	return OK;
}

/* Add a user: OK with the new id in *id, or OK with *taken set when the name is already taken
 * (nothing written: the caller shows the refusal and records no audit entry). */
static enum err add_user(const char *name, const char *role, const char *pw, long long *id, int *taken)
{
	const char *p[3] = {name, NULL, role};
	char *h;
	PGresult *res;

	if (!name || !*name || !role || !pw || auth_password_check(pw) != PW_OK)
		return ERR_INPUT;
	if (!(h = auth_hash_password(pw)))
		return ERR_INTERNAL;
	p[1] = h;
	res = db_query(db_app(), "INSERT INTO askql.users(name, pwhash, role) VALUES ($1, $2, $3) "
	                         "ON CONFLICT (name) DO NOTHING RETURNING id", 3, p, NULL, 0);
	free(h);
	if (!res)
		return ERR_DB;
	*taken = PQntuples(res) != 1;
	if (!*taken)
		*id = atoll(PQgetvalue(res, 0, 0));
	PQclear(res);
	return OK;
}

enum err page_admin_user_save(struct req *r)
{
	const char *action = req_param(r, "action"), *name = req_param(r, "name"), *role = req_param(r, "role");
	const char *pw = req_param(r, "password"), *id = req_param(r, "id");
	struct sb det = SB_INIT;
	const char *notice = NULL;
	long long who = id ? atoll(id) : 0;
	enum err e = ERR_INPUT;

	if (!action)
		return ERR_INPUT;
	if (role && strcmp(role, "analyst") && strcmp(role, "admin"))
		return ERR_INPUT;
	if (!strcmp(action, "reset"))
		return id ? reset_password(r, id) : ERR_INPUT;
	if (!strcmp(action, "token_revoke") || !strcmp(action, "tokens_revoke")) {
		long long tok = req_param_int(r, "token", 0);
		int all = !strcmp(action, "tokens_revoke"), n;
		char to[80];

		/* one token needs its number; "all" takes none, so that a lost field never widens the act */
		if (who <= 0 || (all ? req_param(r, "token") != NULL : tok <= 0))
			return ERR_INPUT;
		if ((e = revoke_tokens(r, who, tok, &n)) != OK)
			return e;
		snprintf(to, sizeof to, "/admin/users?notice=%s&id=%lld", n == 0 ? "same" : all ? "tokens" : "token", who);
		return resp_redirect(r, to);
	}
	if (!strcmp(action, "level")) {
		/* level_set writes the audit row (level.set, with the previous level) in its transaction */
		const char *tg = req_param(r, "target");
		enum level lv;
		char err[256];

		if (!id || !tg || level_parse(req_param(r, "level"), &lv) != 0)
			return ERR_INPUT;
		if ((e = level_set(db_app(), who, tg, lv, r->user.id, err, sizeof err)) != OK) {
			log_info("level of user %lld on %s not set: %s", who, tg, err);
			return e == ERR_NOTFOUND ? ERR_INPUT : e;
		}
		{
			char to[80];

			snprintf(to, sizeof to, "/admin/users?notice=level&id=%lld", who);
			return resp_redirect(r, to);
		}
	}
	if (!strcmp(action, "add")) {
		int taken = 0;
		enum pw_verdict pv = pw ? auth_password_check(pw) : PW_SHORT;

		if (name && *name && role && pv != PW_OK) {
			/* the form again with the reason; the name and role kept, never the password */
			struct users_view v = {.error_key = "users.error_password", .name = name, .role = role};
			struct sb why;
			char n[24];

			sb_init_arena(&why, r->a);
			snprintf(n, sizeof n, "%ld", conf_get_int("password_min_length"));
			i18n_format(&why, r->lang, pw_verdict_key(pv), (const char *const[]){"n", n, NULL});
			v.reason = sb_cstr(&why);
			log_info("user %s not added: password rule %d", name, (int)pv);
			return users_page(r, pv == PW_NO_LIST ? 503 : 400, &v);
		}
		e = add_user(name, role, pw, &who, &taken);
		if (e == OK && taken) {
			struct users_view v = {.error_key = "users.error_exists", .name = name, .role = role};

			log_info("user %s not added: the name is taken", name);
			return users_page(r, 409, &v);
		}
		notice = "added";
		sb_puts(&det, "{\"name\":");
		sb_json_str(&det, name);
		sb_puts(&det, ",\"role\":");
		sb_json_str(&det, role);
		sb_puts(&det, "}");
	} else if (id && (!strcmp(action, "role") || !strcmp(action, "disable") || !strcmp(action, "enable"))) {
		const char *p[2] = {id, role};
		PGresult *res;

		/* an admin cannot lock themselves out */
		if (who == r->user.id || (!strcmp(action, "role") && !role)) {
			sb_free(&det);
			return ERR_INPUT;
		}
		/* only a change is written and audited: saving an untouched row changes nothing */
		if (!strcmp(action, "role"))
			res = db_query(db_app(), "UPDATE askql.users SET role = $2 WHERE id = $1 AND role <> $2 RETURNING id",
			               2, p, NULL, 0);
		else
			res = db_query(db_app(), !strcmp(action, "disable")
			               ? "WITH u AS (UPDATE askql.users SET disabled = true WHERE id = $1 AND NOT disabled "
			                 "RETURNING id), s AS (DELETE FROM askql.sessions WHERE user_id IN (SELECT id FROM u)) "
			                 "SELECT id FROM u"
			               : "UPDATE askql.users SET disabled = false WHERE id = $1 AND disabled RETURNING id",
			               1, p, NULL, 0);
		e = res ? OK : ERR_DB;
		if (e == OK && PQntuples(res) == 0)
			notice = "same";       /* already so (or no such user): nothing to record */
		else if (e == OK)
			notice = !strcmp(action, "role") ? "role" : !strcmp(action, "disable") ? "disabled" : "enabled";
		PQclear(res);
		sb_printf(&det, "{\"id\":%lld,\"role\":", who);
		sb_json_str(&det, role ? role : "");
		sb_puts(&det, "}");
	}
	if (e == OK && notice && strcmp(notice, "same")) {
		char act[40];

		snprintf(act, sizeof act, "user.%s", action);
		view_audit(r, act, sb_cstr(&det));
	}
	sb_free(&det);
	if (e != OK)
		return e;
	{
		char to[80];

		snprintf(to, sizeof to, "/admin/users?notice=%s&id=%lld", notice ? notice : "same", who);
		return resp_redirect(r, to);
	}
}

enum err page_admin_audit(struct req *r)
{
	char off[24];
	const char *p[1] = {off};
	long long page = req_param_int(r, "page", 1);

	snprintf(off, sizeof off, "%lld", (page < 1 ? 0 : page - 1) * 100);
	return list_page(r, "audit_title", "admin_audit", "entries",
	                 "SELECT a.id, to_char(a.at, 'YYYY-MM-DD HH24:MI:SS') AS at, u.name AS who, a.action, "
	                 "a.detail::text AS detail FROM askql.audit a LEFT JOIN askql.users u ON u.id = a.user_id "
	                 "ORDER BY a.id DESC LIMIT 100 OFFSET $1", 1, p);
}

/* mask_conninfo: v with the value of password=... and the password of a URL
 * (scheme://user:secret@host) replaced by bullets, into buf. */
static const char *mask_conninfo(const char *v, char *buf, size_t n)
{
	size_t o = 0;

	for (const char *p = v; *p && o + 16 < n; ) {
		if (!strncmp(p, "password=", 9)) {
			o += (size_t)snprintf(buf + o, n - o, "password=••••");
			p += 9;
			if (*p == '\'') {
				for (p++; *p && *p != '\''; p++)
					if (*p == '\\' && p[1])
						p++;
				if (*p)
					p++;
			} else {
				while (*p && *p != ' ')
					p++;
			}
			continue;
		}
		if (!strncmp(p, "://", 3)) {
			const char *at = strchr(p + 3, '@'), *colon = strchr(p + 3, ':');

			if (at && colon && colon < at) {
				o += (size_t)snprintf(buf + o, n - o, "%.*s:••••", (int)(colon - p), p);
				p = at;
				continue;
			}
		}
		buf[o++] = *p++;
	}
	buf[o] = '\0';
	return buf;
}

enum err page_admin_config(struct req *r)
{
	char tmp[2048];
	int n;
	const struct conf_item *it = conf_items(&n);
	cJSON *d = view_data(r, "admin.configuration"), *a = cJSON_AddArrayToObject(d, "items");

	for (int i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();
		const char *v = it[i].value ? it[i].value : "";

		cJSON_AddStringToObject(o, "name", it[i].name);
		/* secrets: only whether one is set; a password inside a conninfo is masked too */
		if (it[i].secret) {
			cJSON_AddStringToObject(o, "value", *v ? "••••••••" : "");
		} else if (strstr(v, "password=") || strstr(v, "://")) {
			cJSON_AddStringToObject(o, "value", mask_conninfo(v, tmp, sizeof tmp));
		} else {
			cJSON_AddStringToObject(o, "value", v);
		}
		cJSON_AddBoolToObject(o, "secret", it[i].secret);
		cJSON_AddStringToObject(o, "source", it[i].source ? it[i].source : "default");
		cJSON_AddBoolToObject(o, "changed", it[i].source && strcmp(it[i].source, "default"));
		{
			/* the description in the reader's language (conf/i18n/<lang>.history.json, confhelp.NAME);
			 * a setting without one shows conf.c's English line */
			char key[96];
			const char *h;

			snprintf(key, sizeof key, "confhelp.%s", it[i].name);
			h = view_t(r, key);
			cJSON_AddStringToObject(o, "help", strcmp(h, key) ? h : it[i].help ? it[i].help : "");
		}
		cJSON_AddItemToArray(a, o);
	}
	cJSON_AddStringToObject(d, "conf_path", conf_path() ? conf_path() : "");
	return view_render(r, 200, "admin_config", d);
}
