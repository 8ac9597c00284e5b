/* pages.h: every page handler the dispatch table (app/http/routes.c) can call, one file each. */
#ifndef ASKQL_PAGES_H
#define ASKQL_PAGES_H

#include "http/http.h"
#include "agent/agent.h"
#include "store/slot.h"
#include "store/level.h"

struct cJSON;
struct pg_result;

/* Handlers: answer r fully (page, redirect or stream) and return OK, or return an error
 * value for the router's error page (ERR_NOTFOUND 404, ERR_DENIED 403, ERR_INPUT 400). */
#define PAGE(name) enum err name(struct req *r)
PAGE(page_signin);          /* signin.c */
PAGE(page_signin_post);
PAGE(page_signout);
PAGE(page_lang);
PAGE(page_password);        /* password.c */
PAGE(page_password_post);
PAGE(page_ask);             /* ask.c */
PAGE(page_run_start);       /* run_start.c */
PAGE(page_run);             /* run.c */
PAGE(page_run_events);      /* run_events.c: SSE */
PAGE(page_run_stream);      /* run.c: GET, back to the run page */
PAGE(page_run_stream_start);  /* run_start.c: POST /runs/0/stream */
PAGE(page_run_step);        /* run_step.c */
PAGE(page_run_action);      /* run_action.c: rerun, verify, delete */
PAGE(page_download);        /* download.c */
PAGE(page_history);         /* history.c */
PAGE(page_history_action);  /* history.c: delete, undo, verify */
PAGE(page_admin);           /* admin.c */
PAGE(page_admin_prompts);   /* admin_prompts.c */
PAGE(page_admin_prompt);
PAGE(page_admin_prompt_save);
PAGE(page_admin_prompt_rollback);
PAGE(page_admin_config);    /* admin_config.c */
PAGE(page_admin_catalog);   /* admin_catalog.c */
PAGE(page_admin_catalog_save);
PAGE(page_admin_users);     /* admin.c */
PAGE(page_admin_user_save);
PAGE(page_admin_audit);     /* admin_audit.c */
PAGE(page_admin_verified);  /* admin_verified.c: proposals, accept, reject, withdraw */
PAGE(page_admin_verified_save);
PAGE(page_admin_datasources);       /* admin_datasources.c */
PAGE(page_admin_datasources_save);
PAGE(page_admin_datasources_index);
PAGE(api_runs_start);       /* api.c */
PAGE(api_run);
PAGE(api_run_steps);
PAGE(api_run_download);
/* Critique pages (app/pages/report*.c). */
enum err page_reports(struct req *r);       /* reports.c: list + new-critique form */
enum err page_report(struct req *r);        /* report.c: page, ?format=html|json downloads */
enum err page_report_post(struct req *r);   /* reports.c: run a critique, redirect to it */
#undef PAGE

/* ---- view.c: the page chrome shared by every page ---- */

/* view_data: a new cJSON object with what every template gets: t (strings in r->lang),
 * lang, user {name, role, admin}, csrf, nav, path.  Caller owns it (pass to view_render). */
struct cJSON *view_data(struct req *r, const char *title_key);
/* view_render: render templates/<name>.mustache with data (taken: freed here) into the
 * response with the given status.  Without the template layer, a minimal escaped page. */
enum err view_render(struct req *r, int status, const char *name, struct cJSON *data);
/* view_string: render a template into a heap string (caller frees); NULL on failure. */
char *view_string(struct req *r, const char *name, const struct cJSON *data);
/* view_fragment: render templates/<name>_one.mustache ("{{#item}}{{>name}}{{/item}}") with the
 * page data as root and item on top, so fragments (a step for SSE) see t, csrf and lang.
 * Heap string (caller frees) or NULL.  item is borrowed. */
char *view_fragment(struct req *r, const char *name, const struct cJSON *item);
/* view_t: the string for key in r->lang (static/loaded storage; the key itself if missing). */
const char *view_t(struct req *r, const char *key);
/* view_targets: the registered databases for a selector: d.targets [{name, selected}] (selected:
 * the one named chosen, or the default when chosen is NULL or empty), d.many_targets when there
 * is more than one, and d.target the chosen or default name.  Nothing added when none is registered. */
void view_targets(struct cJSON *d, const char *chosen);
/* view_rows: the rows of res as a new list of objects keyed by column name (all text; NULL
 * columns left out, so a template section on them is false); an empty list for a NULL res. */
struct cJSON *view_rows(struct pg_result *res);
/* view_link: path with the request's non-empty parameters named in keep (NULL-ended) and the page
 * (0: none) as its query, URL-encoded, in the request's arena: a list page's links that keep its
 * filters. */
char *view_link(struct req *r, const char *path, long long page, const char *const *keep);
/* view_audit: record an admin or security action in askql.audit (detail JSON text or NULL). */
void view_audit(struct req *r, const char *action, const char *detail_json);
/* view_access: record that the signed-in user read rows of run (as run_load returns it: its target
 * and SQL) as kind (ACCESS_VIEW, ACCESS_DOWNLOAD) in format ("page", "csv", ...), rows of them
 * (-1 unknown), failed 1 when the access broke off; web or API from the request (store/access.h).
 * The level recorded is the one the stored rows were read at (run's "held_level").
 * OK, or ERR_DB when the row could not be written (already logged in full by access_record). */
enum err view_access(struct req *r, const struct cJSON *run, int kind, const char *format,
                     long long rows, int failed);
/* view_access_detail: view_access with a JSON object kept in the row's detail (a download for
 * release: {"for_release":true,"suppress_k":K,"release_round":R}; the event stream:
 * {"via":"events"}); NULL: none.  level: the level the rows were read at now (a download reads
 * again); NULL: the run's stored "held_level". */
enum err view_access_detail(struct req *r, const struct cJSON *run, int kind, const char *format,
                            long long rows, int failed, const char *detail_json, const char *level);

/* ---- admin_access.c: Admin -> Audit -> Data access (askql.access_audit) ---- */
/* page_admin_access: the log filtered by user, target, class, from, to; 50 a page (page). */
enum err page_admin_access(struct req *r);
/* page_admin_access_export: the same filtered log as CSV (at most 100,000 entries), recorded in
 * the log itself before any byte is sent; 503 when that record cannot be written. */
enum err page_admin_access_export(struct req *r);

/* ---- admin_verified.c ---- */
/* page_verify_apply: agent_verify(act) on run_id for the signed-in user and, when it succeeded,
 * an audit entry named audit ({"run","question","state","edited"}).  The caller has checked that
 * the user may see the run; agent_verify checks the admin part.  Its errors as they are. */
enum err page_verify_apply(struct req *r, long long run_id, enum agent_verify_action act, const char *audit);

/* ---- fair_use.c: per-user limits on concurrent runs and downloads ---- */
/* page_limited: fn(r) while holding one of the signed-in user's slots of kind (conf
 * user_max_runs / user_max_downloads; store/slot.h), given back whatever fn returns.  When all
 * are held, fn does not run: a 429 with Retry-After (conf user_limit_retry_s) and the reason in
 * r->lang is written (web: the ask page with the question kept; API: JSON) and OK returned.
 * fn's error as it is; ERR_DB when the slots could not be checked. */
enum err page_limited(struct req *r, enum slot_kind kind, enum err (*fn)(struct req *));
/* page_notice: a refusal with status and the text of i18n key (vars as for i18n_format) in
 * r->lang: the ask page with the reason above it (question kept) for a browser, JSON
 * {"error","status","message"[,"retry_after"]} for the API; Retry-After when retry_s > 0.
 * Returns what writing it returned. */
enum err page_notice(struct req *r, int status, const char *key, const char *const *vars, long retry_s);
/* page_busy: page_notice 429 with {max} and Retry-After conf user_limit_retry_s ({seconds}). */
enum err page_busy(struct req *r, const char *key, long max);

/* ---- run_view.c: a run as template data, shared by run.c, run_stream.c and api.c ---- */
/* run_load: the run r->arg_id if the current user may see it (owner or admin), as cJSON;
 * ERR_NOTFOUND otherwise (never says whether it exists). Caller owns *out. */
enum err run_load(struct req *r, long long id, struct cJSON **out);
/*
 * run_level_check: OK when the signed-in user's CURRENT access level on run's target (run as
 * run_load made it, with "held_level": the least restrictive level its SQL read at, identified when
 * not recorded) allows what the run holds (level_allows); ERR_DENIED when it does not, ERR_DB when
 * the level cannot be read (callers show nothing then).  *viewer (may be NULL): the viewer's level.
 * Every reader of a run's stored rows calls it: page, events, steps, API, downloads, reports.
 */
enum err run_level_check(struct req *r, const struct cJSON *run, enum level *viewer);
/* run_withheld: the answer when run_level_check said ERR_DENIED: status 403 with the levels in
 * words (levels.withheld) and, on a page, a button to re-run the question at the viewer's level;
 * JSON for the API.  No row of the run is in it.  Returns what writing it returned. */
enum err run_withheld(struct req *r, const struct cJSON *run, enum level viewer);
/* run_level_refuse: a 403 (page_notice: the ask page for a browser, JSON for the API) with i18n key
 * ({id}, {held}, {now}: the run's number and the two levels in words) for an action on a run that
 * run_level_check withheld from a viewer now at viewer: a follow-up of it (levels.followup_withheld),
 * another user's re-run (levels.rerun_withheld).  Nothing of the run but its number is in it.
 * Returns what writing it returned. */
enum err run_level_refuse(struct req *r, const struct cJSON *run, enum level viewer, const char *key);
/* run_withhold: 0 when the caller's current level allows run's rows (run_level_check); otherwise 1,
 * the 403 (run_withheld) or the error answered through *e and run freed, so the handler returns *e
 * at once */
int run_withhold(struct req *r, struct cJSON *run, enum err *e);
/* run_release_offer: for the run page only (a SQL parse and a query of the app database, which the
 * other users of run_load need not pay): when run (as run_load made it) ended ok with SQL that
 * aggregates (sql/suppress.h), adds release_help (the help text with k) and release_ready (the
 * target is set up for access levels, so files for release can be read through its limited views). */
void run_release_offer(struct req *r, struct cJSON *run);
/* run_view_restate: append what sql computes, said back in r->lang with target's catalog names
 * (pages/restate.h; docs/coverage.md): the answer's subject and the reading shown at the SQL pause. */
struct sb;
void run_view_restate(struct req *r, const char *target, const char *sql, struct sb *out);
/* run_steps_json: the steps of a run with seq > after, formatted for templates/SSE. */
enum err run_steps_json(struct req *r, long long id, int after, struct cJSON **out);

#endif
