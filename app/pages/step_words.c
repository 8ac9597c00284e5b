/* step_words.c: what each step found, in the reader's language: tables and columns with why, value mappings, the join path, EXPLAIN findings, decisions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "pages/decline_words.h"
#include "pages/pages.h"
#include "util/i18n.h"
#include "util/sb.h"

#define MAX_LIST 8        /* a step lists at most this many tables or columns in words */

static const char *js(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double jn(const cJSON *o, const char *k, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* The text of key with {name} placeholders filled from vars (name, value, ..., NULL), added to o
 * as o[field] (plain text: the template escapes it). */
static void add_t(struct req *r, cJSON *o, const char *field, const char *key, const char *const *vars)
{
	struct sb s = SB_INIT;

	i18n_format(&s, r->lang, key, vars);
	cJSON_AddStringToObject(o, field, sb_cstr(&s));
	sb_free(&s);
}

/* One sentence of the step's summary ("say" list). */
static void say(struct req *r, cJSON *s, const char *key, const char *const *vars)
{
	cJSON *l = cJSON_GetObjectItemCaseSensitive(s, "say"), *o = cJSON_CreateObject();

	if (!l)
		l = cJSON_AddArrayToObject(s, "say");
	add_t(r, o, "text", key, vars);
	cJSON_AddItemToArray(l, o);
}

static void num(char *b, size_t n, double v)
{
	if (v == (double)(long long)v)
		snprintf(b, n, "%lld", (long long)v);
	else
		snprintf(b, n, "%.1f", v);
}

/* Why retrieval picked something: its axes ("vector,keyword,prf") in words. */
static void reason_of(struct req *r, const char *sources, struct sb *out)
{
	static const char *const axes[] = {"vector", "keyword", "intent", "prf", "hyde", "fk_path", NULL};
	int any = 0;

	for (const char *const *a = axes; *a; a++) {
		const char *p = sources ? strstr(sources, *a) : NULL;
		char key[48];

		if (!p)
			continue;
		snprintf(key, sizeof key, "steps.why.%s", *a);
		if (any)
			sb_puts(out, view_t(r, "steps.why_sep"));
		sb_puts(out, view_t(r, key));
		any = 1;
	}
	if (!any)
		sb_puts(out, view_t(r, "steps.why.context"));
}

static void add_table(struct req *r, cJSON *list, const char *name, const char *sources)
{
	cJSON *o = cJSON_CreateObject();
	struct sb w = SB_INIT;

	cJSON_AddStringToObject(o, "name", name);
	if (sources) {
		reason_of(r, sources, &w);
		cJSON_AddStringToObject(o, "reason", sb_cstr(&w));
	} else {
		cJSON_AddFalseToObject(o, "reason");
	}
	sb_free(&w);
	cJSON_AddItemToArray(list, o);
}

static void add_column(struct req *r, cJSON *list, const char *table, const char *column, const char *desc,
                       const char *sources)
{
	cJSON *o = cJSON_CreateObject();
	struct sb w = SB_INIT;

	cJSON_AddStringToObject(o, "table", table ? table : "");
	cJSON_AddStringToObject(o, "column", column);
	if (desc && *desc)
		cJSON_AddStringToObject(o, "desc", desc);
	else
		cJSON_AddFalseToObject(o, "desc");
	if (sources) {
		reason_of(r, sources, &w);
		cJSON_AddStringToObject(o, "reason", sb_cstr(&w));
	} else {
		cJSON_AddFalseToObject(o, "reason");
	}
	sb_free(&w);
	cJSON_AddItemToArray(list, o);
}

void step_words_mapping(struct req *r, cJSON *list, const char *phrase, const char *table, const char *column,
                        const char *value, const char *how)
{
	cJSON *o = cJSON_CreateObject();
	char key[48];

	cJSON_AddStringToObject(o, "phrase", phrase && *phrase ? phrase : "");
	cJSON_AddBoolToObject(o, "has_phrase", phrase && *phrase);
	cJSON_AddStringToObject(o, "table", table ? table : "");
	cJSON_AddStringToObject(o, "column", column ? column : "");
	cJSON_AddStringToObject(o, "value", value ? value : "");
	snprintf(key, sizeof key, "steps.how.%s", how && *how ? how : "none");
	cJSON_AddStringToObject(o, "how", strcmp(view_t(r, key), key) ? view_t(r, key) : (how ? how : ""));
	cJSON_AddItemToArray(list, o);
}

void step_words_join(cJSON *list, const char *ft, const char *fc, const char *tt, const char *tc, int inferred)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "from_table", ft ? ft : "");
	cJSON_AddStringToObject(o, "from_col", fc ? fc : "");
	cJSON_AddStringToObject(o, "to_table", tt ? tt : "");
	cJSON_AddStringToObject(o, "to_col", tc ? tc : "");
	cJSON_AddBoolToObject(o, "same_col", fc && tc && !strcmp(fc, tc));
	cJSON_AddBoolToObject(o, "inferred", inferred);
	cJSON_AddItemToArray(list, o);
}

void step_words_join_text(cJSON *list, const char *text)
{
	/* "a.x = b.y" as the plan states it */
	char buf[512], *eq, *d1, *d2;

	snprintf(buf, sizeof buf, "%s", text ? text : "");
	if (!(eq = strstr(buf, " = ")))
		return;
	*eq = '\0';
	eq += 3;
	d1 = strrchr(buf, '.');
	d2 = strrchr(eq, '.');
	if (!d1 || !d2)
		return;
	*d1++ = '\0';
	*d2++ = '\0';
	step_words_join(list, buf, d1, eq, d2, 0);
}

/* The guard's reason, classified into a sentence of the reader's language. */
void step_words_refusal(struct req *r, const char *reason, struct sb *out)
{
	const char *key = "steps.refused.other";
	char what[64] = "";

	if (!reason)
		reason = "";
	if (strstr(reason, "only a single SELECT") || strstr(reason, "only SELECT may run") ||
	    strstr(reason, "data-modifying") || strstr(reason, "SELECT INTO") || strstr(reason, "FOR UPDATE")) {
		const char *sp = strchr(reason, ' ');
		size_t n = sp ? (size_t)(sp - reason) : 0;

		key = "steps.refused.write";
		if (strstr(reason, "data-modifying") && strchr(reason, '(')) {
			const char *b = strrchr(reason, '(') + 1, *e = strchr(b, ')');

			if (e && (size_t)(e - b) < sizeof what)
				snprintf(what, sizeof what, "%.*s", (int)(e - b), b);
		} else if (n && n < sizeof what) {
			snprintf(what, sizeof what, "%.*s", (int)n, reason);
		}
	} else if (strstr(reason, "function")) {
		const char *f = strstr(reason, "function ");

		key = "steps.refused.function";
		if (f) {
			f += 9;
			snprintf(what, sizeof what, "%.*s", (int)strcspn(f, " :(,"), f);
		}
	} else if (strstr(reason, "more than one statement")) {
		key = "steps.refused.multi";
	} else if (strstr(reason, "syntax error")) {
		key = "steps.refused.syntax";
	} else if (strstr(reason, "relation ")) {
		const char *f = strstr(reason, "relation ") + 9;

		key = "steps.refused.relation";
		snprintf(what, sizeof what, "%.*s", (int)strcspn(f, " :(,"), f);
	}
	i18n_format(out, r->lang, key, (const char *const[]){"what", what, NULL});
}

/* Guard warnings ("4 JOINs (more than 3)...", "subquery depth 3...") in the reader's language. */
static void add_finding(struct req *r, cJSON *f, const char *text)
{
	int n = 0;
	struct sb s = SB_INIT;
	char nb[16];

	if (sscanf(text, "%d JOINs", &n) == 1) {
		snprintf(nb, sizeof nb, "%d", n);
		i18n_format(&s, r->lang, "steps.warn.joins", (const char *const[]){"n", nb, NULL});
	} else if (sscanf(text, "subquery depth %d", &n) == 1) {
		snprintf(nb, sizeof nb, "%d", n);
		i18n_format(&s, r->lang, "steps.warn.depth", (const char *const[]){"n", nb, NULL});
	} else {
		sb_puts(&s, text);
	}
	cJSON_AddItemToArray(f, cJSON_CreateString(sb_cstr(&s)));
	sb_free(&s);
}

/* EXPLAIN's analysis object ({"total_cost","rows","efficient","findings":[{kind,node,rows,index}]}). */
static void explain_words(struct req *r, cJSON *s, const cJSON *an)
{
	cJSON *l = cJSON_AddArrayToObject(s, "w_explain"), *f;
	char cost[32], rows[32];

	num(cost, sizeof cost, jn(an, "total_cost", 0));
	num(rows, sizeof rows, jn(an, "rows", 0));
	say(r, s, "steps.explain.summary", (const char *const[]){"cost", cost, "rows", rows, NULL});
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(an, "efficient")) ||
	    !cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(an, "findings")))
		say(r, s, "steps.explain.fine", NULL);
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(an, "findings")) {
		cJSON *o = cJSON_CreateObject(), *ix = cJSON_GetObjectItemCaseSensitive(f, "index");
		char key[64], fr[32];
		const char *kind = js(f, "kind") ? js(f, "kind") : "unknown";

		num(fr, sizeof fr, jn(f, "rows", 0));
		snprintf(key, sizeof key, "steps.explain.%s", kind);
		if (!strcmp(view_t(r, key), key))
			snprintf(key, sizeof key, "steps.explain.other");
		add_t(r, o, "text", key, (const char *const[]){"node", js(f, "node") ? js(f, "node") : "", "rows", fr, NULL});
		cJSON_AddBoolToObject(o, "warning", js(f, "severity") && !strcmp(js(f, "severity"), "warning"));
		if (cJSON_IsObject(ix) && js(ix, "table"))
			add_t(r, o, "suggestion", "steps.explain.index",
			      (const char *const[]){"table", js(ix, "table"), "columns", js(ix, "columns") ? js(ix, "columns") : "", NULL});
		else
			cJSON_AddFalseToObject(o, "suggestion");
		cJSON_AddItemToArray(l, o);
	}
}

/* Retrieval's finds (inspector output, search tools): tables, columns, mappings, join paths. */
static void retrieval_words(struct req *r, cJSON *s, const cJSON *out)
{
	const cJSON *it, *l;
	cJSON *wt = NULL, *wc = NULL, *wm = NULL, *wj = NULL;
	int n;
	char a[16], b[16];

	if (cJSON_IsArray(l = cJSON_GetObjectItemCaseSensitive(out, "tables")) && cJSON_GetArraySize(l)) {
		wt = cJSON_AddArrayToObject(s, "w_tables");
		n = 0;
		cJSON_ArrayForEach(it, l) {
			const char *name = cJSON_IsString(it) ? it->valuestring : js(it, "name");

			if (name && n++ < MAX_LIST)
				add_table(r, wt, name, js(it, "sources") ? js(it, "sources") : js(it, "matched_by"));
		}
	}
	if (cJSON_IsArray(l = cJSON_GetObjectItemCaseSensitive(out, "columns")) && cJSON_GetArraySize(l)) {
		wc = cJSON_AddArrayToObject(s, "w_columns");
		n = 0;
		cJSON_ArrayForEach(it, l) {
			const char *col = js(it, "column") ? js(it, "column") : js(it, "name");

			if (col && n++ < MAX_LIST)
				add_column(r, wc, js(it, "table"), col, js(it, "full_name") ? js(it, "full_name") : js(it, "meaning"),
				           js(it, "sources") ? js(it, "sources") : js(it, "matched_by"));
		}
	}
	if (cJSON_IsArray(l = cJSON_GetObjectItemCaseSensitive(out, "value_mappings")) && cJSON_GetArraySize(l)) {
		wm = cJSON_AddArrayToObject(s, "w_mappings");
		cJSON_ArrayForEach(it, l)
			step_words_mapping(r, wm, js(it, "phrase"), js(it, "table"), js(it, "column"), js(it, "value"), js(it, "how"));
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(out, "join_paths")) {
		const cJSON *j;

		cJSON_ArrayForEach(j, cJSON_GetObjectItemCaseSensitive(it, "joins")) {
			if (!wj)
				wj = cJSON_AddArrayToObject(s, "w_joins");
			step_words_join(wj, js(j, "from_table"), js(j, "from_col"), js(j, "to_table"), js(j, "to_col"),
			                cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "inferred")));
		}
	}
	snprintf(a, sizeof a, "%d", wt ? cJSON_GetArraySize(wt) : 0);
	snprintf(b, sizeof b, "%d", wc ? cJSON_GetArraySize(wc) : 0);
	if (wt && wc)
		say(r, s, "steps.found", (const char *const[]){"tables", a, "columns", b, NULL});
	else if (wt || wc)
		say(r, s, wt ? "steps.found_tables" : "steps.found_columns", (const char *const[]){"tables", a, "columns", b, NULL});
}

/* The planner's decisions ({kind, span, target, why}) as "“span” → what it became". */
static void decision_words(struct req *r, cJSON *s, const cJSON *decs)
{
	cJSON *l = cJSON_AddArrayToObject(s, "w_decisions");
	const cJSON *d;

	cJSON_ArrayForEach(d, decs) {
		cJSON *o = cJSON_CreateObject();
		char key[64];
		const char *kind = js(d, "kind") ? js(d, "kind") : "other", *span = js(d, "span");

		snprintf(key, sizeof key, "steps.decision.%s", kind);
		if (!strcmp(view_t(r, key), key))
			snprintf(key, sizeof key, "steps.decision.other");
		{
			const char *target = js(d, "target") ? js(d, "target") : "";
			char sk[64];

			/* a question shape has a name in words */
			snprintf(sk, sizeof sk, "steps.shape.%s", target);
			if (!strcmp(kind, "shape") && strcmp(view_t(r, sk), sk))
				target = view_t(r, sk);
			add_t(r, o, "text", key, (const char *const[]){"target", target, NULL});
		}
		cJSON_AddStringToObject(o, "span", span && *span ? span : "");
		cJSON_AddBoolToObject(o, "has_span", span && *span);
		cJSON_AddItemToArray(l, o);
	}
}

void step_words(struct req *r, cJSON *s, const char *kind, const char *name, const char *status,
                const cJSON *in, const cJSON *out)
{
	char key[64], a[32], b[32];
	const cJSON *v;

	kind = kind ? kind : "";
	name = name ? name : "";
	status = status ? status : "";
	/* the label: every step has one in both languages; an unknown name says so in words */
	snprintf(key, sizeof key, "run.step_%s", name);
	if (!strcmp(view_t(r, key), key)) {
		cJSON_DeleteItemFromObjectCaseSensitive(s, "label");
		add_t(r, s, "label", "steps.step_other", (const char *const[]){"name", name, NULL});
	}
	snprintf(key, sizeof key, "steps.status.%s", status);
	cJSON_AddStringToObject(s, "status_text", strcmp(view_t(r, key), key) ? view_t(r, key) : status);
	snprintf(key, sizeof key, "steps.kind.%s", kind);
	cJSON_AddStringToObject(s, "kind_text", strcmp(view_t(r, key), key) ? view_t(r, key) : kind);

	/* findings: guard warnings translated (replaces run_view's English list) */
	v = cJSON_GetObjectItemCaseSensitive(out, "warnings");
	if (cJSON_IsArray(v) && cJSON_GetArraySize(v)) {
		cJSON *f = cJSON_CreateArray(), *it;

		cJSON_ArrayForEach(it, v)
			if (cJSON_IsString(it))
				add_finding(r, f, it->valuestring);
		cJSON_DeleteItemFromObjectCaseSensitive(s, "findings");
		cJSON_AddItemToObject(s, "findings", f);
	}

	if (!strcmp(kind, "human")) {
		const char *stage = js(in, "stage"), *comment = js(in, "comment");
		char sk[48];

		snprintf(sk, sizeof sk, "steps.stage.%s", stage ? stage : "none");
		if (!strcmp(name, "edit") && js(out, "guard") && !strcmp(js(out, "guard"), "refused")) {
			struct sb t = SB_INIT;

			step_words_refusal(r, js(out, "guard_reason"), &t);
			cJSON_AddStringToObject(s, "refused_text", sb_cstr(&t));
			cJSON_AddStringToObject(s, "refused_reason", js(out, "guard_reason") ? js(out, "guard_reason") : "");
			if (js(in, "sql"))
				cJSON_AddStringToObject(s, "refused_sql", js(in, "sql"));
			sb_free(&t);
			num(a, sizeof a, jn(out, "attempt", 0));
			num(b, sizeof b, jn(out, "max_attempts", 0));
			say(r, s, "steps.human.edit_refused", (const char *const[]){"attempt", a, "of", b, NULL});
			cJSON_DeleteItemFromObjectCaseSensitive(s, "error");
		} else {
			snprintf(key, sizeof key, "steps.human.%s", name);
			if (strcmp(view_t(r, key), key))
				say(r, s, key, (const char *const[]){"stage", view_t(r, sk), NULL});
			if (!strcmp(name, "plan_edit")) {
				num(a, sizeof a, jn(in, "edits", 0));
				say(r, s, "steps.human.plan_edits", (const char *const[]){"n", a, NULL});
			}
			if (comment && *comment)
				say(r, s, "steps.human.comment", (const char *const[]){"comment", comment, NULL});
		}
	} else if (!strcmp(name, "inspector") || !strcmp(name, "search_tables") || !strcmp(name, "search_columns")) {
		retrieval_words(r, s, out);
	} else if (!strcmp(name, "planner")) {
		const char *shape = js(out, "shape"), *missing = js(out, "missing");

		if (missing) {
			struct sb t = SB_INIT;
			const char *why = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "reasoning"));

			/* the planner's reason is stored in English (decline_words.c) */
			decline_words(r->lang, missing, &t);
			say(r, s, "steps.planner.missing", (const char *const[]){"missing", sb_cstr(&t), NULL});
			/* its explanation of a decline is the same reason */
			if (why) {
				sb_reset(&t);
				decline_words(r->lang, why, &t);
				cJSON_ReplaceItemInObjectCaseSensitive(s, "reasoning", cJSON_CreateString(sb_cstr(&t)));
			}
			sb_free(&t);
		}
		if (shape) {
			snprintf(key, sizeof key, "steps.shape.%s", shape);
			say(r, s, "steps.planner.shape", (const char *const[]){"shape", strcmp(view_t(r, key), key) ?
			    view_t(r, key) : shape, NULL});
		}
		if (cJSON_IsArray(v = cJSON_GetObjectItemCaseSensitive(out, "decisions")) && cJSON_GetArraySize(v)) {
			decision_words(r, s, v);
			/* the built-in planner explains itself in English only; its decisions above say the
			 * same in the reader's language */
			if (strcmp(r->lang, "en") && js(in, "provider") && !strcmp(js(in, "provider"), "builtin")) {
				cJSON_DeleteItemFromObjectCaseSensitive(s, "reasoning");
				cJSON_AddFalseToObject(s, "reasoning");
			}
		}
		if (js(out, "fallback"))
			say(r, s, "steps.planner.fallback", NULL);
	} else if (!strcmp(name, "executor") || !strcmp(name, "submit_sql") || !strcmp(name, "execute_sql_preview")) {
		if (js(out, "guard") && !strcmp(js(out, "guard"), "refused")) {
			say(r, s, "steps.exec.refused", NULL);
		} else if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(out, "row_count"))) {
			num(a, sizeof a, jn(out, "row_count", 0));
			if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(out, "db_ms"))) {
				snprintf(b, sizeof b, "%.1f", jn(out, "db_ms", 0));
				say(r, s, "steps.exec.rows_ms", (const char *const[]){"rows", a, "ms", b, NULL});
			} else {
				say(r, s, "steps.exec.rows", (const char *const[]){"rows", a, NULL});
			}
			if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(out, "truncated")))
				say(r, s, "steps.exec.truncated", NULL);
		}
		if (cJSON_IsArray(v = cJSON_GetObjectItemCaseSensitive(out, "tables")) && cJSON_GetArraySize(v) &&
		    cJSON_IsString(cJSON_GetArrayItem(v, 0))) {
			struct sb t = SB_INIT;
			const cJSON *it;

			cJSON_ArrayForEach(it, v)
				if (cJSON_IsString(it))
					sb_printf(&t, "%s%s", t.len ? ", " : "", it->valuestring);
			say(r, s, "steps.exec.tables", (const char *const[]){"tables", sb_cstr(&t), NULL});
			sb_free(&t);
		}
	} else if (!strcmp(name, "explain")) {
		if (cJSON_IsObject(v = cJSON_GetObjectItemCaseSensitive(out, "analysis")))
			explain_words(r, s, v);
	} else if (!strcmp(name, "packager")) {
		num(a, sizeof a, jn(out, "row_count", 0));
		say(r, s, "steps.packager", (const char *const[]){"rows", a, NULL});
	} else if (!strcmp(name, "cache")) {
		say(r, s, "steps.cache", NULL);
	} else if (!strcmp(name, "find_similar_query")) {
		v = cJSON_GetObjectItemCaseSensitive(out, "similar");
		num(a, sizeof a, cJSON_GetArraySize(v));
		say(r, s, cJSON_GetArraySize(v) ? "steps.similar.some" : "steps.similar.none",
		    (const char *const[]){"n", a, NULL});
	} else if (!strcmp(name, "cannot_answer")) {
		const char *m = js(out, "missing") ? js(out, "missing") : js(in, "missing");
		struct sb t = SB_INIT;

		decline_words(r->lang, m ? m : "", &t);
		say(r, s, "steps.cannot_answer", (const char *const[]){"missing", sb_cstr(&t), NULL});
		sb_free(&t);
	} else if (!strcmp(name, "result_check")) {
		say(r, s, "steps.result_check", NULL);
	}
	/* a heading only over a list that has items */
	{
		static const char *const lists[][2] = {{"w_tables", "has_tables"}, {"w_columns", "has_columns"},
		                                       {"w_mappings", "has_mappings"}, {"w_joins", "has_joins"},
		                                       {"w_explain", "has_explain"}, {"w_decisions", "has_decisions"}};

		for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
			cJSON_AddBoolToObject(s, lists[i][1], cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s, lists[i][0])) > 0);
	}
	/* Mustache looks a missing name up in the enclosing contexts: set every name the template uses */
	{
		static const char *const keys[] = {"say", "w_tables", "w_columns", "w_mappings", "w_joins", "w_explain",
		                                   "w_decisions", "refused_text", "refused_reason", "refused_sql", NULL};

		for (const char *const *k = keys; *k; k++)
			if (!cJSON_GetObjectItemCaseSensitive(s, *k))
				cJSON_AddFalseToObject(s, *k);
	}
}
