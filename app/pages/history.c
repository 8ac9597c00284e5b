/* history.c: the user's runs (admins: everyone's): search, filters, grouping by fingerprint, paged; delete with undo and verify from the list, keeping the filters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "pages/answer.h"
#include "pages/pages.h"
#include "store/db.h"
#include "store/level.h"
#include "store/run.h"
#include "util/arena.h"
#include "util/conf.h"
#include "util/i18n.h"
#include "util/log.h"

#define PER_PAGE 25

/* The filters a history page is seen through: every link and every action form carries them
 * back, so re-running, verifying, deleting, undoing and paging never lose the view. */
static const char *const keep[] = {"q", "status", "from", "to", "table", "group", "all", "noowner", "target", NULL};

static int flag(struct req *r, const char *name)
{
	const char *v = req_param(r, name);

	return v && !strcmp(v, "1");
}

/* The history URL with the current filters and page (0: none), into the arena. */
static char *link(struct req *r, long long page)
{
	return view_link(r, "/history", page, keep);
}

/* d.keep: the filters (and page) as hidden inputs for the action forms. */
static void add_keep(struct req *r, cJSON *d)
{
	cJSON *a = cJSON_AddArrayToObject(d, "keep");
	const char *page = req_param(r, "page");

	for (const char *const *k = keep; *k; k++) {
		const char *v = req_param(r, *k);

		if (v && *v) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "name", *k);
			cJSON_AddStringToObject(o, "value", v);
			cJSON_AddItemToArray(a, o);
		}
	}
	if (page && *page && strcmp(page, "1")) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "name", "page");
		cJSON_AddStringToObject(o, "value", page);
		cJSON_AddItemToArray(a, o);
	}
}

static long undo_window(void)
{
	return conf_get_int("history_undo_s");
}

/* The notice after an action (?done=..&id=N), and for a delete the undo button. */
static void add_notice(struct req *r, cJSON *d)
{
	const char *done = req_param(r, "done");
	long long id = req_param_int(r, "id", 0);
	char ids[24], mins[24];
	const char *key = NULL;
	struct sb m;

	if (!done || id <= 0)
		return;
	snprintf(ids, sizeof ids, "%lld", id);
	snprintf(mins, sizeof mins, "%ld", (undo_window() + 59) / 60);
	if (!strcmp(done, "deleted"))
		key = "hist.notice_deleted";
	else if (!strcmp(done, "restored"))
		key = "hist.notice_restored";
	else if (!strcmp(done, "proposed"))
		key = "hist.notice_proposed";
	else if (!strcmp(done, "verified"))
		key = "hist.notice_verified";
	else if (!strcmp(done, "gone"))
		key = "hist.notice_gone";
	if (!key)
		return;
	sb_init_arena(&m, r->a);
	i18n_format(&m, r->lang, key, (const char *const[]){"id", ids, "minutes", mins, NULL});
	{
		cJSON *o = cJSON_AddObjectToObject(d, "notice");

		cJSON_AddStringToObject(o, "text", sb_cstr(&m));
		cJSON_AddNumberToObject(o, "id", (double)id);
		cJSON_AddBoolToObject(o, "undo", !strcmp(done, "deleted"));
		cJSON_AddBoolToObject(o, "bad", !strcmp(done, "gone"));
	}
}

/* A run the viewer may not see at her current level (issue 27): its number, the two levels and a
 * mark, never its question, SQL or rows (o.question is the sentence saying so). */
static void hidden_line(struct req *r, cJSON *o, const char *id, const char *held, const char *now)
{
	char kh[40], kv[40];
	struct sb m;

	snprintf(kh, sizeof kh, "levels.level.%s", held);
	snprintf(kv, sizeof kv, "levels.level.%s", now);
	sb_init_arena(&m, r->a);
	i18n_format(&m, r->lang, "hist.hidden_run",
	            (const char *const[]){"id", id, "held", view_t(r, kh), "now", view_t(r, kv), NULL});
	cJSON_AddStringToObject(o, "question", sb_cstr(&m));
	cJSON_AddBoolToObject(o, "hidden", 1);
}

/* d.deleted: the runs this user hid within the undo window (newest first), each restorable. */
static void add_recently_deleted(struct req *r, cJSON *d)
{
	char uid[24], w[24];
	const char *p[2] = {uid, w};
	struct sb q, vis, lvl;
	PGresult *res;

	snprintf(uid, sizeof uid, "%lld", r->user.id);
	snprintf(w, sizeof w, "%ld", undo_window());
	sb_init_arena(&q, r->a);
	sb_init_arena(&vis, r->a);
	sb_init_arena(&lvl, r->a);
	level_sql_allows(&vis, "r", 1);
	level_sql_viewer(&lvl, "r", 1);
	/* a run hidden at the viewer's level is listed by its number only, as in the list above */
	sb_printf(&q, "SELECT r.id, CASE WHEN %s THEN r.question END, to_char(r.deleted_at, 'HH24:MI') AS at, "
	          "coalesce(r.access_level, 'identified'), %s FROM askql.runs r "
	          "WHERE r.deleted_by = $1 AND r.deleted_at >= now() - make_interval(secs => $2::int) "
	          "ORDER BY r.deleted_at DESC LIMIT 5", sb_cstr(&vis), sb_cstr(&lvl));
	res = db_query(db_app(), sb_cstr(&q), 2, p, NULL, 0);
	if (res && PQntuples(res) > 0) {
		char mins[24];
		struct sb m;
		cJSON *arr = cJSON_AddArrayToObject(d, "deleted");

		snprintf(mins, sizeof mins, "%ld", (undo_window() + 59) / 60);
		sb_init_arena(&m, r->a);
		i18n_format(&m, r->lang, "hist.recent_deleted", (const char *const[]){"minutes", mins, NULL});
		cJSON_AddStringToObject(d, "deleted_title", sb_cstr(&m));
		for (int i = 0; i < PQntuples(res); i++) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "id", PQgetvalue(res, i, 0));
			cJSON_AddStringToObject(o, "at", PQgetvalue(res, i, 2));
			if (!PQgetisnull(res, i, 1))
				cJSON_AddStringToObject(o, "question", PQgetvalue(res, i, 1));
			else
				hidden_line(r, o, PQgetvalue(res, i, 0), PQgetvalue(res, i, 3), PQgetvalue(res, i, 4));
			cJSON_AddItemToArray(arr, o);
		}
	}
	PQclear(res);
}

enum err page_history(struct req *r)
{
	const char *q = req_param(r, "q"), *status = req_param(r, "status"), *from = req_param(r, "from");
	const char *to = req_param(r, "to"), *table = req_param(r, "table"), *target = req_param(r, "target");
	int group = flag(r, "group");
	int admin = !strcmp(r->user.role, "admin");
	int all = admin && flag(r, "all");
	int noowner = all && flag(r, "noowner");
	long long page = req_param_int(r, "page", 1);
	const char *p[9];
	char uid[24], lim[16], off[24], pat[450], tpat[300];
	int n = 0;
	struct sb w, sql, vis, lvl;
	PGresult *res;
	cJSON *d, *runs;
	double t0 = now_ms();

	if (page < 1)
		page = 1;
	sb_init_arena(&w, r->a);
	sb_init_arena(&sql, r->a);
	sb_init_arena(&vis, r->a);
	sb_init_arena(&lvl, r->a);
	snprintf(uid, sizeof uid, "%lld", r->user.id);
	/* $1, the viewer: her runs, and her current level on each run's target (issue 27) */
	p[n++] = uid;
	level_sql_allows(&vis, "r", 1);
	level_sql_viewer(&lvl, "r", 1);
	/* a deleted run waits for its undo window out of sight */
	sb_puts(&w, " AND r.deleted_at IS NULL");
	if (!all) {
		sb_puts(&w, " AND r.user_id = $1");
	} else if (!noowner) {
		/* runs with no owner (the CLI, make eval) would bury the analysts' runs: shown on request */
		sb_puts(&w, " AND r.user_id IS NOT NULL");
	}
	if (q && *q) {
		/* LIKE metacharacters in the search are literal */
		char *o = pat;

		*o++ = '%';
		for (const char *s = q; *s && o < pat + sizeof pat - 3; s++) {
			if (*s == '%' || *s == '_' || *s == '\\')
				*o++ = '\\';
			*o++ = *s;
		}
		*o++ = '%';
		*o = '\0';
		p[n++] = pat;
		/* only the words of runs the viewer may see now: a hidden run's question or SQL may name a
		 * patient, and a search that found it would say so (docs/privacy.md) */
		sb_printf(&w, " AND (r.question ILIKE $%d OR r.sql ILIKE $%d) AND %s", n, n, sb_cstr(&vis));
	}
	if (status && *status) {
		p[n++] = status;
		sb_printf(&w, " AND r.status = $%d", n);
	}
	if (from && *from) {
		p[n++] = from;
		sb_printf(&w, " AND r.created_at >= $%d::date", n);
	}
	if (to && *to) {
		p[n++] = to;
		sb_printf(&w, " AND r.created_at < $%d::date + 1", n);
	}
	if (table && *table) {
		/* a prefix of a table's name, any case, with or without its schema: "lab" finds
		 * lab_data_table and public.Lab_results.  The first test is the trigram-indexed candidate
		 * search (080_history_trash.sql), the second the exact one. */
		p[n++] = run_like_prefix(table, tpat, sizeof tpat);
		sb_printf(&w, " AND askql.run_tables_text(r.tables) LIKE '%%' || lower($%d)"
		          " AND EXISTS (SELECT 1 FROM unnest(r.tables) t(name) WHERE t.name ILIKE $%d"
		          " OR t.name ILIKE '%%.' || $%d)", n, n, n);
	}
	if (target && *target) {
		p[n++] = target;
		sb_printf(&w, " AND r.target = $%d", n);
	}
	snprintf(lim, sizeof lim, "%d", PER_PAGE + 1);
	snprintf(off, sizeof off, "%lld", (page - 1) * PER_PAGE);
	p[n++] = lim;
	p[n++] = off;
	/* columns 12-15: whether the viewer may see the run now, whether it is hers, the level it holds and
	 * hers on its target; a hidden run's question and SQL are left out of the result in SQL already */
	if (group)
		/* one line per fingerprint: the newest run of each (ids grow with time), with how many share it;
		 * grouping first and joining 25 rows back keeps this one hash aggregate over the filter.  A run
		 * hidden at the viewer's level is a line of its own: grouped with a visible one it would say
		 * that its SQL was that one's */
		sb_printf(&sql, "SELECT r.id, CASE WHEN %s THEN r.question END, r.status, CASE WHEN %s THEN r.sql END, r.verified, "
		          "to_char(r.created_at, 'YYYY-MM-DD HH24:MI') AS created, array_to_string(r.tables, ', ') AS tables, "
		          "u.name AS owner, r.row_count, g.n, coalesce(r.verify_state, ''), r.truncated, %s, r.user_id = $1::bigint, "
		          "coalesce(r.access_level, 'identified'), %s FROM (SELECT max(r.id) AS id, count(*) AS n, max(r.created_at) AS last "
		          "FROM askql.runs r WHERE r.kind <> 'critique'%s GROUP BY CASE WHEN %s THEN coalesce(r.fingerprint, r.id::text) "
		          "ELSE r.id::text END ORDER BY last DESC LIMIT $%d OFFSET $%d) g JOIN askql.runs r ON r.id = g.id "
		          "LEFT JOIN askql.users u ON u.id = r.user_id ORDER BY g.last DESC", sb_cstr(&vis), sb_cstr(&vis),
		          sb_cstr(&vis), sb_cstr(&lvl), sb_cstr(&w), sb_cstr(&vis), n - 1, n);
	else
		sb_printf(&sql, "SELECT r.id, CASE WHEN %s THEN r.question END, r.status, CASE WHEN %s THEN r.sql END, r.verified, "
		          "to_char(r.created_at, 'YYYY-MM-DD HH24:MI') AS created, array_to_string(r.tables, ', ') AS tables, "
		          "u.name AS owner, r.row_count, 1 AS n, coalesce(r.verify_state, ''), r.truncated, %s, r.user_id = $1::bigint, "
		          "coalesce(r.access_level, 'identified'), %s FROM askql.runs r LEFT JOIN askql.users u ON u.id = r.user_id "
		          "WHERE r.kind <> 'critique'%s ORDER BY r.created_at DESC LIMIT $%d OFFSET $%d",
		          sb_cstr(&vis), sb_cstr(&vis), sb_cstr(&vis), sb_cstr(&lvl), sb_cstr(&w), n - 1, n);
	if (!(res = db_query(db_app(), sb_cstr(&sql), n, p, NULL, 0)))
		return ERR_DB;
	d = view_data(r, "history.title");
	runs = cJSON_AddArrayToObject(d, "runs");
	for (int i = 0; i < PQntuples(res) && i < PER_PAGE; i++) {
		cJSON *o = cJSON_CreateObject();
		char key[32];
		int shown = PQgetvalue(res, i, 12)[0] == 't';

		cJSON_AddNumberToObject(o, "id", atof(PQgetvalue(res, i, 0)));
		if (shown)
			cJSON_AddStringToObject(o, "question", PQgetvalue(res, i, 1));
		else
			hidden_line(r, o, PQgetvalue(res, i, 0), PQgetvalue(res, i, 14), PQgetvalue(res, i, 15));
		/* a re-run of a hidden run asks its words again: the owner's own, never shown to another
		 * (run_action.c refuses it too) */
		cJSON_AddBoolToObject(o, "can_rerun", shown || PQgetvalue(res, i, 13)[0] == 't');
		cJSON_AddStringToObject(o, "status", PQgetvalue(res, i, 2));
		snprintf(key, sizeof key, "run.status.%s", PQgetvalue(res, i, 2));
		cJSON_AddStringToObject(o, "status_text", view_t(r, key));
		if (!PQgetisnull(res, i, 3))
			cJSON_AddStringToObject(o, "sql", PQgetvalue(res, i, 3));
		cJSON_AddBoolToObject(o, "verified", PQgetvalue(res, i, 4)[0] == 't');
		/* the mark can be given while there is none (a rejected one stays, a proposal waits) */
		cJSON_AddBoolToObject(o, "can_verify", shown && !strcmp(PQgetvalue(res, i, 2), "ok") && !*PQgetvalue(res, i, 10));
		cJSON_AddBoolToObject(o, "verify_proposed", !strcmp(PQgetvalue(res, i, 10), "proposed"));
		cJSON_AddBoolToObject(o, "verify_rejected", !strcmp(PQgetvalue(res, i, 10), "rejected"));
		cJSON_AddStringToObject(o, "created", PQgetvalue(res, i, 5));
		cJSON_AddStringToObject(o, "tables", PQgetvalue(res, i, 6));
		if (PQgetisnull(res, i, 7)) {
			/* no owner: asked through bin/askql (ask, eval) or by a user since removed */
			cJSON_AddStringToObject(o, "owner", view_t(r, "hist.no_owner"));
			cJSON_AddBoolToObject(o, "no_owner", 1);
		} else {
			cJSON_AddStringToObject(o, "owner", PQgetvalue(res, i, 7));
		}
		if (shown && !PQgetisnull(res, i, 8)) {
			/* as the run page says it: the whole count, or the preview's size with "+" (issue 15) */
			struct sb rc = SB_INIT;

			answer_rows(&rc, r->lang, atoll(PQgetvalue(res, i, 8)), PQgetvalue(res, i, 11)[0] == 't');
			if (sb_ok(&rc))
				cJSON_AddStringToObject(o, "rows_text", sb_cstr(&rc));
			sb_free(&rc);
		}
		if (atoi(PQgetvalue(res, i, 9)) > 1)
			cJSON_AddNumberToObject(o, "same", atof(PQgetvalue(res, i, 9)));
		cJSON_AddItemToArray(runs, o);
	}
	{
		cJSON *f = cJSON_AddObjectToObject(d, "filter"), *st = cJSON_AddArrayToObject(d, "statuses");
		static const char *const sts[] = {"ok", "error", "unanswerable", "paused", "running", "stopped", NULL};

		cJSON_AddStringToObject(f, "q", q ? q : "");
		cJSON_AddStringToObject(f, "from", from ? from : "");
		cJSON_AddStringToObject(f, "to", to ? to : "");
		cJSON_AddStringToObject(f, "table", table ? table : "");
		cJSON_AddStringToObject(f, "target", target ? target : "");
		/* the databases runs were asked of, for the filter (shown when there is more than one);
		 * nothing chosen means all of them */
		view_targets(d, target);
		if (!(target && *target))
			for (cJSON *o = cJSON_GetObjectItem(d, "targets")->child; o; o = o->next)
				cJSON_ReplaceItemInObject(o, "selected", cJSON_CreateFalse());
		cJSON_AddBoolToObject(f, "group", group);
		cJSON_AddBoolToObject(f, "all", all);
		cJSON_AddBoolToObject(f, "noowner", noowner);
		for (const char *const *s = sts; *s; s++) {
			cJSON *o = cJSON_CreateObject();
			char key[32];

			snprintf(key, sizeof key, "run.status.%s", *s);
			cJSON_AddStringToObject(o, "value", *s);
			cJSON_AddStringToObject(o, "text", view_t(r, key));
			cJSON_AddBoolToObject(o, "selected", status && !strcmp(status, *s));
			cJSON_AddItemToArray(st, o);
		}
		cJSON_AddBoolToObject(d, "admin", admin);
	}
	{
		char mins[24];
		struct sb m;

		snprintf(mins, sizeof mins, "%ld", (undo_window() + 59) / 60);
		sb_init_arena(&m, r->a);
		i18n_format(&m, r->lang, "hist.delete_question", (const char *const[]){"minutes", mins, NULL});
		cJSON_AddStringToObject(d, "delete_question", sb_cstr(&m));
	}
	add_keep(r, d);
	add_notice(r, d);
	add_recently_deleted(r, d);
	cJSON_AddNumberToObject(d, "page", (double)page);
	if (page > 1)
		cJSON_AddStringToObject(d, "prev", link(r, page - 1));
	if (PQntuples(res) > PER_PAGE)
		cJSON_AddStringToObject(d, "next", link(r, page + 1));
	PQclear(res);
	log_debug("history query+build %.2f ms", now_ms() - t0);
	return view_render(r, 200, "history", d);
}

/*
 * POST /history: action delete (hide the run, undoable for conf history_undo_s), undo, or verify
 * (an analyst's proposal, an admin's acceptance) on run id, then back to the same filters and
 * page with a notice saying what happened.  Owner or admin only (others' runs are not found).
 */
enum err page_history_action(struct req *r)
{
	const char *action = req_param(r, "action");
	long long id = req_param_int(r, "id", 0);
	int admin = r->user.role && !strcmp(r->user.role, "admin");
	const char *done = NULL;
	struct sb to;
	enum err e;

	if (!action || id <= 0)
		return ERR_INPUT;
	if (!strcmp(action, "delete")) {
		e = run_trash(db_app(), id, r->user.id, admin, undo_window());
		if (e != OK)
			return e;
		done = "deleted";
	} else if (!strcmp(action, "undo")) {
		e = run_restore(db_app(), id, r->user.id, admin, undo_window());
		if (e == ERR_NOTFOUND)
			done = "gone";      /* the window has passed (or it was never deleted): say so */
		else if (e != OK)
			return e;
		else
			done = "restored";
	} else if (!strcmp(action, "verify")) {
		cJSON *run = NULL;

		enum level lv;

		if ((e = run_load(r, id, &run)) != OK)
			return e;
		/* nobody marks as verified what her current level withholds (issue 27) */
		if ((e = run_level_check(r, run, &lv)) != OK) {
			if (e == ERR_DENIED)
				e = run_level_refuse(r, run, lv, "levels.withheld");
			cJSON_Delete(run);
			return e;
		}
		cJSON_Delete(run);
		e = page_verify_apply(r, id, admin ? VERIFY_ACCEPT : VERIFY_PROPOSE,
		                      admin ? "verified.accept" : "verified.propose");
		if (e == ERR_NOTFOUND)
			e = ERR_INPUT;     /* nothing verifiable: a bad request, not a missing run */
		if (e != OK)
			return e;
		done = admin ? "verified" : "proposed";
	} else {
		return ERR_INPUT;
	}
	log_info("history: run %lld %s by %s", id, action, r->user.name);
	sb_init_arena(&to, r->a);
	{
		const char *page = req_param(r, "page");
		long long pg = page ? atoll(page) : 0;

		sb_puts(&to, link(r, pg > 1 ? pg : 0));
	}
	sb_printf(&to, "%cdone=%s&id=%lld", strchr(sb_cstr(&to), '?') ? '&' : '?', done, id);
	return resp_redirect(r, sb_cstr(&to));
}
