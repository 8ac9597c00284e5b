/* planner.c: the offline planner: tokens and links -> intent and structure -> SQL tree -> one SELECT. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/coverage.h"
#include "agent/planner.h"
#include "agent/planner_front.h"
#include "catalog/catalog.h"
#include "util/conf.h"


/* planner_open: p set up for question: the target's snapshot, the reference time, the tokens, the
 * tables the analyst removed or an earlier attempt found missing; OK, or ERR_DB / ERR_INPUT /
 * ERR_NOMEM with out->reason set where there is one */
static enum err planner_open(struct planner *p, struct catalog *cat, const struct retrieval *r, const char *question,
                             const struct planner_ctx *ctx, struct planner_out *out)
{
	char err[512] = "";
	const char *conninfo;

	sb_init_arena(&p->dec, &p->a);
	sb_init_arena(&p->expl, &p->a);
	sb_putc(&p->dec, '[');
	p->r = r;
	p->question = question;
	p->aggregate_form = ctx && ctx->aggregate_form;
	p->f.measure = p->f.time_col = p->f.order_col = p->f.rank_col = -1;
	p->f.dur_start = p->f.dur_end = -1;
	p->f.rate_link = -1;
	p->f.rate_cmp = -1;
	p->f.count_col = -1;
	p->f.entity_total = -1;
	p->f.rows_tab = -1;
	p->f.band_col = -1;
	p->f.episode = -1;
	p->f.rank_key = -1;
	p->f.pivot = -1;
	p->f.rank_entity_col = -1;
	p->f.entity_key = -1;
	conninfo = ctx && ctx->conninfo ? ctx->conninfo : NULL;
	if (!conninfo || !*conninfo)
		conninfo = *conf_get("target_ro_db") ? conf_get("target_ro_db") : conf_get("target_db");
	p->s = planner_snap_get(cat, conninfo, err, sizeof err);
	if (!p->s) {
		out->reason = strdup(err);
		return ERR_DB;
	}
	/* the reference time: the caller's, else conf now, else the target's own (metadata
	 * reference_time of an archived snapshot), else the clock */
	const char *now = ctx && ctx->now && *ctx->now ? ctx->now : *conf_get("now") ? conf_get("now") : p->s->reference_time;
	if (!planner_time_now(now, &p->now)) {
		out->reason = strdup("bad reference time");
		return ERR_INPUT;
	}
	p->banned = arena_alloc(&p->a, (size_t)(p->s->nt + 1) * sizeof *p->banned);
	p->via = arena_alloc(&p->a, (size_t)(p->s->nt + 1) * sizeof *p->via);
	for (int i = 0; p->via && i <= p->s->nt; i++)
		p->via[i] = -1;
	if (!p->banned || !p->via || planner_tokenize(&p->a, question, &p->tk) != OK) {
		return ERR_NOMEM;
	}
	/* "# of patients", "no. of cases": the number of (a list of patients answered a count; "no"
	 * was a negation) */
	for (int i = 0; i + 1 < p->tk.n; i++) {
		struct ptok *t = &p->tk.v[i];
		int of = i + 1 < p->tk.n && !strcmp(p->tk.v[i + 1].text, "of");
		int no_dot = !strcmp(t->text, "no") && i + 2 < p->tk.n && !strcmp(p->tk.v[i + 1].text, ".") &&
		             !strcmp(p->tk.v[i + 2].text, "of");
		if ((!strcmp(t->text, "#") && of) || no_dot) {
			t->kind = TK_WORD;
			t->text = t->stem = t->norm = "number";
			t->role = R_COUNT;
			if (no_dot)
				p->tk.v[i + 1].used = 1;
		}
	}
	/* "HR went above 110": a unit's abbreviation written in capitals and not after a number is a
	 * name (heart rate), not hours */
	for (int i = 0; i < p->tk.n; i++) {
		struct ptok *t = &p->tk.v[i];
		int caps = t->role == R_UNIT && t->len >= 2 && !t->hangul;
		for (int k = 0; caps && k < t->len; k++)
			caps = question[t->off + k] >= 'A' && question[t->off + k] <= 'Z';
		if (caps && !(i > 0 && p->tk.v[i - 1].kind == TK_NUM)) {
			t->role = R_NONE;
			t->unitv = 0;
		}
	}
	/* analyst edits and earlier attempts: tables removed, columns that did not exist */
	for (int i = 0; ctx && i < ctx->nedits; i++) {
		const struct planner_edit *e = &ctx->edits[i];
		int ti = e->table ? planner_snap_table(p->s, e->table) : -1;
		if (e->op == PLAN_REMOVE_TABLE && ti >= 0)
			p->banned[ti] = 1;
	}
	for (int i = 0; ctx && i < ctx->nattempts; i++) {
		const struct planner_attempt *at = &ctx->attempts[i];
		int ti = at->missing_relation ? planner_snap_table(p->s, at->missing_relation) : -1;
		if (ti >= 0)
			p->banned[ti] = 1;
	}

	return OK;
}

/* held_before: a link ends right before token i and names a thing that holds or not */
static int held_before(const struct planner *p, int i)
{
	for (int m = 0; m < p->pl.n; m++)
		if (p->pl.v[m].t1 == i && pf_link_holds_or_not(p, &p->pl.v[m]))
			return 1;
	return 0;
}

/* rate_words: "mortality rate", "ICU admission rate": an English "rate" right after a thing that
 * holds or not (a stored value, a yes/no attribute, a concept) asks for its share, not for a
 * measure named rate (heart rate is linked as one phrase before this) */
static void rate_words(struct planner *p)
{
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		struct ptok *t = &p->tk.v[it->t0];
		if (it->kind != PL_COLUMN || it->t1 != it->t0 + 1 || it->t0 == 0 || !pf_rate_word(t))
			continue;
		if (!held_before(p, it->t0))
			continue;
		t->role = R_UNSUP;
		t->used = 0;
		pf_decide(p, t->text, "rate", "share", "a rate of the thing named before it, not a measure", 1);
		p->pl.v[l--] = p->pl.v[--p->pl.n];
	}
	/* ... and where no column is named rate ("urology death rate" on a database without a heart
	 * rate): the same share */
	for (int i = 1; i < p->tk.n; i++) {
		struct ptok *t = &p->tk.v[i];
		if (t->used || t->role == R_UNSUP || !pf_rate_word(t) || !held_before(p, i))
			continue;
		int linked = 0;
		for (int l = 0; l < p->pl.n; l++)
			linked |= p->pl.v[l].t0 <= i && i < p->pl.v[l].t1;
		if (linked)
			continue;
		t->role = R_UNSUP;
		pf_decide(p, t->text, "rate", "share", "a rate of the thing named before it, not a measure", 1);
	}
}

/* value_measure_words: "heart rate values", "potassium results": a word for a measurement right
 * after a stored value is that value's measure, not a column of its own in another table (values
 * linked outputevents' value column and read the output table for heart rate).  The words:
 * conf/lexicon/phrases.tsv, role measure_word */
static void value_measure_words(struct planner *p)
{
	const char *const *words = planner_lex_phrases("measure_word");
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		struct ptok *t = &p->tk.v[it->t0];
		if (it->kind != PL_COLUMN || it->t1 != it->t0 + 1 || it->t0 == 0 ||
		    (!planner_in_list(words, t->text) && !planner_in_list(words, t->stem)))
			continue;
		int after = 0;
		for (int m = 0; m < p->pl.n; m++) {
			const struct plink_item *o = &p->pl.v[m];
			after |= o->kind == PL_VALUE && o->t1 == it->t0 && o->ncols &&
			         p->s->c[o->cols[0]].table != p->s->c[it->cols[0]].table;
		}
		if (!after)
			continue;
		t->used = 1;
		pf_decide(p, t->text, "measure", "the named value's own", "a word for the measurement of the value before it", 1);
		p->pl.v[l--] = p->pl.v[--p->pl.n];
	}
}

/* keys_on_named_table: "ICD codes recorded as diagnoses": a dictionary's key column named beside
 * a table that holds the same key (the diagnoses table's icd_code) is read from that table; joined
 * to the dictionary, a code the dictionary lacks would drop out of the answer */
static void keys_on_named_table(struct planner *p)
{
	for (int l = 0; l < p->pl.n; l++) {
		struct plink_item *it = &p->pl.v[l];
		if (it->kind != PL_COLUMN || it->ncols != 1 || !p->s->c[it->cols[0]].unique)
			continue;
		int d = p->s->c[it->cols[0]].table;
		for (int m = 0; m < p->pl.n; m++) {
			const struct plink_item *o = &p->pl.v[m];
			int fc = o->kind == PL_TABLE && o->table != d ? planner_snap_col(p->s, o->table, p->s->c[it->cols[0]].name) : -1;
			if (fc < 0 || p->s->c[fc].unique)
				continue;
			pf_decide(p, pf_span_text(p, it->t0, it->t1), "column", pf_cfq(p, fc),
			          "a dictionary's key, read where the named table holds it", 1);
			it->cols[0] = fc;
			break;
		}
	}
}

/* answer_units: "avg op time in min", "(minutes, 1 decimal)": a unit the answer is given in, not a
 * word to link ("minutes" found 'beats per minute' in a comment) nor a minimum; a number before it
 * ("within 30 minutes") makes it a time span, read by the time parser; so does any other place
 * ("how many hours since").  The words: conf/lexicon/phrases.tsv, role answer_unit ("min" only
 * after "in") */
static void answer_units(struct planner *p)
{
	const char *const *units = planner_lex_phrases("answer_unit");
	for (int i = 0; i < p->tk.n; i++) {
		struct ptok *t = &p->tk.v[i];
		if (t->used || t->kind != TK_WORD || (i > 0 && p->tk.v[i - 1].kind == TK_NUM))
			continue;
		/* said as the answer's unit: after "in", or set apart ("(minutes, 1 decimal)"); not "how
		 * many hours since", "hours after", which ask for the span itself */
		const char *pv = i > 0 ? p->tk.v[i - 1].text : "";
		int in = !strcmp(pv, "in"), apart = !strcmp(pv, "(") || !strcmp(pv, ",");
		if ((in || apart) && (planner_in_list(units, t->text) || (in && !strcmp(t->text, "min")))) {
			t->used = 1;
			t->role = R_STOP;
			/* a duration is given in it (the first said) */
			if (!p->f.dur_unit)
				p->f.dur_unit = t->text[0] == 'h' ? 'h' : t->text[0] == 'd' ? 'd' : t->text[0] == 's' ? 's' : 'i';
		}
	}
}

/* quantity_words: "during a single hospital visit": a word for how many (conf/lexicon/phrases.tsv,
 * role quantity) that is also a stored value, between "a" (one, each) and a word for visits or
 * entities, says how many, not which (marital status 'single' filtered the patients): its link is
 * dropped and the word read as said.  Any other value there is a value ("a thyroid operation": the
 * operation type; it was dropped, and every patient counted) */
static void quantity_words(struct planner *p)
{
	const char *const *quantity = planner_lex_phrases("quantity");
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		if (it->kind != PL_VALUE || it->t1 != it->t0 + 1 || it->t0 == 0 || it->t1 >= p->tk.n ||
		    !planner_in_list(quantity, p->tk.v[it->t0].text))
			continue;
		const char *pv = p->tk.v[it->t0 - 1].text;
		if (strcmp(pv, "a") && strcmp(pv, "one") && strcmp(pv, "each") && strcmp(pv, "per"))
			continue;
		int noun = 0;
		for (int k = it->t1; !noun && k < p->tk.n && k <= it->t1 + 2; k++)   /* "a single (hospital) visit" */
			noun = pf_is_visit_word(&p->tk.v[k]) || pf_tok_ent(&p->tk.v[k]) >= 0;
		if (!noun)
			continue;
		pf_decide(p, pf_span_text(p, it->t0, it->t1), "ignored", pf_cfq(p, it->cols[0]),
		          "a word for how many, not a value: 'a single visit'", 0);
		p->pl.v[l--] = p->pl.v[--p->pl.n];
	}
}

/* lexicon_units: the words of one thing the lexicon names ("blood type", "day surgery unit",
 * "operating room") are one unit: a column that one of them names alone is not it ("blood" named
 * the blood pressure; "unit" the dose unit, and counting every patient dropped the ward).  Such a
 * link is dropped and its words left unread, to be declined by name, and so is any link of a class
 * word inside it ("medicine" of "laboratory medicine" is not the drugs); a link of the whole
 * phrase, a value a part names ("복강경" of "복강경 수술") or a table ("output" of "urine output":
 * the output events) stays */
static void lexicon_units(struct planner *p)
{
	for (int i = 0; i + 1 < p->tk.n; i++) {
		int end = -1;
		for (int j = (i + 4 < p->tk.n ? i + 4 : p->tk.n); j > i + 1 && end < 0; j--) {
			char buf[256];
			size_t n = 0;
			int words = 1;
			for (int k = i; k < j && words; k++) {
				words = p->tk.v[k].kind == TK_WORD || p->tk.v[k].kind == TK_NUM;
				n += (size_t)snprintf(buf + n, n < sizeof buf ? sizeof buf - n : 0, "%s%s", k > i ? " " : "",
				                      p->tk.v[k].raw ? p->tk.v[k].raw : p->tk.v[k].text);
			}
			if (words && n < sizeof buf && planner_lex_named_thing(buf))
				end = j;
		}
		if (end < 0)
			continue;
		for (int l = 0; l < p->pl.n; l++) {
			const struct plink_item *it = &p->pl.v[l];
			int inside = it->t0 >= i && it->t1 <= end && it->t1 - it->t0 < end - i;
			/* a class word inside it ("medicine" of "laboratory medicine") is not the class */
			int cls = it->t1 == it->t0 + 1 && planner_in_list(planner_lex_phrases("class_word"), p->tk.v[it->t0].text);
			if (!inside || (it->kind != PL_COLUMN && !cls) || it->t1 <= it->t0)
				continue;
			pf_decide(p, pf_span_text(p, it->t0, it->t1), "ignored",
			          it->kind == PL_TABLE ? p->s->t[it->table].name : it->kind == PL_CONCEPT ? it->measure : pf_cfq(p, it->cols[0]),
			          arena_printf(&p->a, "a part of '%s', which names one thing", pf_span_text(p, i, end)), 0);
			for (int k = it->t0; k < it->t1; k++)
				p->tk.v[k].used = 0;
			p->pl.v[l--] = p->pl.v[--p->pl.n];
		}
		i = end - 1;
	}
}

/* entity_tables: a word for the patient or the case ("케이스 수", "cases per month") that linked
 * to a table by its name (case_lab: the lab results of each case) names the table where each row
 * is one of them (the table whose key it is), when the schema has one: counting the lab rows of
 * each case answered another question */
static void entity_tables(struct planner *p)
{
	for (int l = 0; l < p->pl.n; l++) {
		struct plink_item *it = &p->pl.v[l];
		if (it->kind != PL_TABLE || it->t1 != it->t0 + 1)
			continue;
		const struct ptok *t = &p->tk.v[it->t0];
		int kind = planner_ent_word(t->text) >= 0 ? planner_ent_word(t->text) : planner_ent_word(t->stem);
		const char *key = kind == planner_ent_word("case") ? p->s->entity_case
		                : kind == planner_ent_word("patient") ? p->s->entity_patient : NULL;
		if (kind < 0 || !key)
			continue;
		int home = -1;
		for (int ti = 0; ti < p->s->nt && home < 0; ti++) {
			int kc = pf_col_in(p, ti, key);
			if (kc >= 0 && p->s->c[kc].unique)
				home = ti;
		}
		int kc = pf_col_in(p, it->table, key);
		if (home < 0 || home == it->table || (kc >= 0 && p->s->c[kc].unique))
			continue;
		pf_decide(p, t->text, "table", p->s->t[home].name,
		          arena_printf(&p->a, "a word for the %s names the table where each row is one (not %s)", key,
		                       p->s->t[it->table].name), 0.9);
		it->table = home;
	}
}

/* identifier_numbers: "patient number and discharge date", "case number", "patient ids": a word after an
 * entity names its identifier, not a count (a list of patients came back as their count); "the
 * number of patients" keeps its count */
static void identifier_numbers(struct planner *p)
{
	for (int i = 1; i < p->tk.n; i++) {
		struct ptok *t = &p->tk.v[i];
		if (t->role != R_COUNT || (strcmp(t->text, "number") && strcmp(t->text, "no")) || pf_tok_ent(&p->tk.v[i - 1]) < 0)
			continue;
		if (i + 1 < p->tk.n && (!strcmp(p->tk.v[i + 1].text, "of") || p->tk.v[i + 1].kind == TK_NUM))
			continue;   /* "patient number of ...", "patient number 12": the count, or the patient named */
		t->role = R_STOP;
		t->used = 1;
	}
	/* "give the patient ids", "the ids of male patients": the entity's identifier, which a list
	 * of the entity shows; not a stored value ('id', an intradermal route) nor a word to link */
	static const char *const idw[] = {"id", "ids", "identifier", "identifiers", NULL};
	for (int i = 0; i < p->tk.n; i++) {
		struct ptok *t = &p->tk.v[i];
		if (!planner_in_list(idw, t->text) || (i + 1 < p->tk.n && p->tk.v[i + 1].kind == TK_NUM))
			continue;   /* "patient id 123": the patient named */
		int ent = i > 0 && pf_tok_ent(&p->tk.v[i - 1]) >= 0;
		for (int k = i + 2; !ent && i + 1 < p->tk.n && !strcmp(p->tk.v[i + 1].text, "of") && k < p->tk.n && k <= i + 4; k++)
			ent = pf_tok_ent(&p->tk.v[k]) >= 0;
		if (ent) {
			t->role = R_STOP;
			t->used = 1;
		}
	}
}

/* cols_within: every candidate column of link a is one of link b's */
static int cols_within(const struct plink_item *a, const struct plink_item *b)
{
	for (int x = 0; x < a->ncols; x++) {
		int found = 0;
		for (int y = 0; y < b->ncols; y++)
			found |= a->cols[x] == b->cols[y];
		if (!found)
			return 0;
	}
	return 1;
}

/* replace_followed_values: in a follow-up read with its parent ("남자 환자 수" + "여자만"), a stored
 * value the follow-up names replaces the parent's value of the same column: women replace men */
static void replace_followed_values(struct planner *p)
{
	if (!p->follow_off)
		return;
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		if (it->kind != PL_VALUE || it->t1 <= it->t0 || p->tk.v[it->t0].off >= p->follow_off)
			continue;
		int newer = 0;
		for (int m = 0; m < p->pl.n; m++) {
			const struct plink_item *o = &p->pl.v[m];
			/* (the columns of one within the other's: IMC and MICU share the department
			 * dictionary's code column, but one is the admission's department and the other its
			 * ward; 'M' may also be another column's code, 'F' only the sex) */
			int same = cols_within(o, it) || cols_within(it, o);
			newer |= o->kind == PL_VALUE && o->t1 > o->t0 && p->tk.v[o->t0].off >= p->follow_off && o->ncols && same;
		}
		if (newer) {
			pf_decide(p, pf_span_text(p, it->t0, it->t1), "replaced", pf_cfq(p, it->cols[0]),
			          "the follow-up names another value of this column", 1);
			p->pl.v[l--] = p->pl.v[--p->pl.n];
		}
	}
}

/* what_about: the follow-up asks "and what about X" ("고혈압 환자는?", "what about women?", "how about
 * ..."): its last word ends in the topic particle before a question mark, or it opens so */
static int what_about(const struct planner *p)
{
	const char *f = p->question + p->follow_off;
	f += strspn(f, " ");
	if (!strncasecmp(f, "what about ", 11) || !strncasecmp(f, "how about ", 10))
		return 1;
	size_t n = strlen(f);
	while (n && (f[n - 1] == ' ' || f[n - 1] == '?'))
		n--;
	return n < strlen(f) && strchr(f + n, '?') && n >= 3 &&
	       (!memcmp(f + n - 3, "는", 3) || !memcmp(f + n - 3, "은", 3));
}

/* filter_link: link l is a condition on rows: a stored value, or a yes/no column named */
static int filter_link(const struct planner *p, const struct plink_item *it)
{
	return it->ncols && it->t1 > it->t0 &&
	       (it->kind == PL_VALUE || (it->kind == PL_COLUMN && p->s->c[it->cols[0]].flag));
}

/* what_about_other: "당뇨 환자 중 사망률" then "고혈압 환자는?": the follow-up names a condition on
 * another column than the previous question's condition; in place of it, or as well, only the
 * analyst can say (the same column is replaced: replace_followed_values).  0, or -1 declined */
static int what_about_other(struct planner *p)
{
	if (!p->follow_off || !what_about(p))
		return 0;
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *o = &p->pl.v[l];
		if (!filter_link(p, o) || p->tk.v[o->t0].off < p->follow_off)
			continue;
		for (int m = 0; m < p->pl.n; m++) {
			const struct plink_item *it = &p->pl.v[m];
			if (filter_link(p, it) && p->tk.v[it->t0].off < p->follow_off && !cols_within(o, it) && !cols_within(it, o))
				return pf_decline(p, "%s: in place of the previous question's condition, or as well, could not be told",
				                  arena_printf(&p->a, "'%s' after '%s'", pf_span_text(p, o->t0, o->t1),
				                               pf_span_text(p, it->t0, it->t1)));
		}
	}
	return 0;
}

/* link_question: the question linked to the catalog, with the analyst's added and removed
 * mappings, entities found after linking, comparisons, then the structure pass */
static void link_question(struct planner *p, const struct planner_ctx *ctx)
{
	const struct retrieval *r = p->r;
	answer_units(p);
	identifier_numbers(p);
	planner_link(&p->a, p->s, &p->tk, r, p->banned, &p->pl);
	pf_event_words(p);
	/* analyst-added mappings are links of their own */
	for (int i = 0; ctx && i < ctx->nedits && p->pl.n < PL_MAX; i++) {
		const struct planner_edit *e = &ctx->edits[i];
		if (e->op != PLAN_ADD_MAPPING)
			continue;
		int ci = planner_snap_col(p->s, planner_snap_table(p->s, e->table), e->column);
		if (ci < 0)
			continue;
		struct plink_item it = {.kind = PL_VALUE, .t0 = 0, .t1 = 0, .ncols = 1, .score = 1,
		                        .why = "added by the analyst"};
		it.cols[0] = ci;
		it.vals[0] = arena_strdup(&p->a, e->value);
		p->pl.v[p->pl.n++] = it;
		for (int k = 0; e->phrase && k < p->tk.n; k++)
			if (strstr(e->phrase, p->tk.v[k].text))
				p->tk.v[k].used = 1;
	}
	for (int i = 0; ctx && i < ctx->nedits; i++) {
		const struct planner_edit *e = &ctx->edits[i];
		if (e->op != PLAN_REMOVE_MAPPING && e->op != PLAN_REMOVE_COLUMN)
			continue;
		for (int l = 0; l < p->pl.n; l++) {
			struct plink_item *it = &p->pl.v[l];
			if (it->kind != PL_VALUE && it->kind != PL_COLUMN)
				continue;
			int ci = it->cols[0];
			if (!strcmp(pf_tname(p, ci), e->table ? e->table : "") && e->column && !strcmp(p->s->c[ci].name, e->column) &&
			    (e->op == PLAN_REMOVE_COLUMN || !e->value || (it->vals[0] && !strcmp(it->vals[0], e->value))))
				p->pl.v[l--] = p->pl.v[--p->pl.n];
		}
	}
	rate_words(p);
	value_measure_words(p);
	keys_on_named_table(p);
	quantity_words(p);
	lexicon_units(p);
	entity_tables(p);
	replace_followed_values(p);
	if (what_about_other(p) < 0)
		return;
	pf_find_entities(p, 1);
	pf_value_heads(p);
	pf_person_count(p);
	pf_pair_words(p);
	pf_band_words(p);
	pf_precision_words(p);
	if (getenv("ASKQL_PLANNER_DEBUG"))
		for (int l = 0; l < p->pl.n; l++)
			for (int c = 0; c < (p->pl.v[l].ncols ? p->pl.v[l].ncols : 1); c++)
				fprintf(stderr, "planner: link %d kind %d [%d,%d) col %s.%s role %d\n", l, p->pl.v[l].kind, p->pl.v[l].t0,
				        p->pl.v[l].t1, p->pl.v[l].ncols ? pf_tname(p, p->pl.v[l].cols[c]) : "-",
				        p->pl.v[l].ncols ? p->s->c[p->pl.v[l].cols[c]].name : "-", p->pl.v[l].role);
	if (pf_comparisons(p) == 0 && pf_structure(p) == 0)
		pf_unread_comparison(p);
}

/* plan_confidence: the shape's prior (its precision on the development halves) times how surely
 * the question's words were linked (0.5 + the weakest link's score / 2) */
static double plan_confidence(const struct planner *p)
{
	double link = 0.5;
	for (int l = 0; l < p->pl.n; l++)
		if (p->pl.v[l].score < link)
			link = p->pl.v[l].score;
	link = p->pl.n ? 0.5 + link / 2 : 0.5;
	return (p->shape ? p->shape->confidence : 1) * link;
}

/* abstain: calibrated abstention (docs/architecture.md, "Abstention"): a plan resting on a weakly
 * linked word, or whose confidence is below planner_min_confidence, is declined; both thresholds
 * are chosen on the development halves */
static void abstain(struct planner *p)
{
	double min_link = atof(conf_get("planner_min_link_score")), min_conf = atof(conf_get("planner_min_confidence"));
	for (int l = 0; l < p->pl.n && min_link > 0; l++)
		if (p->pl.v[l].score < min_link) {
			pf_decline(p, "%s", arena_printf(&p->a, "the planner is not sure what '%s' means here (link score %.2f "
			                               "below %.2f)", pf_span_text(p, p->pl.v[l].t0, p->pl.v[l].t1),
			                               p->pl.v[l].score, min_link));
			return;
		}
	double conf = min_conf > 0 ? plan_confidence(p) : 1;
	if (conf < min_conf)
		pf_decline(p, "%s", arena_printf(&p->a, "the planner is not sure enough of a '%s' answer here (confidence %.2f "
		                               "below %.2f)", p->shape ? p->shape->name : "?", conf, min_conf));
}

/* key_used: the SQL uses a column that references table ti's key ("drug codes": cheobang.drug_cd
 * names the drug table's rows without joining it) */
static int key_used(struct planner *p, const char *sql, int ti)
{
	for (int k = 0; k < p->s->nfk; k++) {
		int from = p->s->fk[k].from;
		if (p->s->c[p->s->fk[k].to].table == ti && planner_sql_names(sql, p->s->c[from].name, 0) &&
		    planner_sql_names(sql, p->s->t[p->s->c[from].table].name, 0))
			return 1;
	}
	return 0;
}

/* parts_of_visits: the fact table's rows belong to the visits the question names (it holds their
 * key) and the answer is their sum or a count of patients, the same over the visits as over their
 * parts; a count of the rows themselves would not be of visits */
static int parts_of_visits(struct planner *p)
{
	const struct frame *f = &p->f;
	int child = pf_key_into(p, f->fact, f->visit_mention) >= 0;
	/* ("how many ICU stays had a total output of ...": the stays are counted, not the output summed) */
	int counts = pf_has_role(p, R_MANY) || pf_has_role(p, R_COUNT);
	return child && f->episode < 0 && f->agg && !f->ngroup && !f->rank_n &&
	       ((!strcmp(f->agg, "SUM") && !counts) || (!strcmp(f->agg, "COUNT") && f->entity_count && f->entity_col));
}

/* span_measure: the plan's measure is itself a span of time (icu_days, "ICU stay (days)", los_hours) */
static int span_measure(const struct planner *p)
{
	static const char *const w[] = {"day", "hour", "minute", "min", "time", "dur", "los", "일수", "시간", "분", NULL};
	const struct pcol *c = p->f.measure >= 0 ? &p->s->c[p->f.measure] : NULL;
	for (int k = 0; c && w[k]; k++)
		if (strstr(c->name, w[k]) || (c->comment && strcasestr(c->comment, w[k])))
			return 1;
	return 0;
}

/* shown_instead: a text column other than col, of col's table and no key, that the plan shows (a
 * grouping, a projected column or the ranked one); -1 none */
static int shown_instead(const struct planner *p, int col)
{
	const struct frame *f = &p->f;
	int cand[24], n = 0;
	for (int i = 0; i < f->ngroup && n < 24; i++)
		cand[n++] = f->group[i];
	for (int i = 0; i < f->nproj && n < 24; i++)
		cand[n++] = f->proj[i];
	if (f->rank_col >= 0 && n < 24)
		cand[n++] = f->rank_col;
	for (int i = 0; i < n; i++)
		if (cand[i] != col && p->s->c[cand[i]].table == p->s->c[col].table && p->s->c[cand[i]].type == PT_TEXT &&
		    !pf_is_keyish((struct planner *)p, cand[i]))
			return cand[i];
	return -1;
}

/* drop_sql: the printed SQL thrown away after a decline (out->sql NULL) */
static void drop_sql(struct planner_out *out)
{
	free(out->sql);
	out->sql = NULL;
}

/* emit_sql: the SQL tree printed into out->sql, unless the plan leaves out a table the question
 * names or repeats SQL that already failed (then declined, out->sql NULL); OK or ERR_NOMEM */
static enum err emit_sql(struct planner *p, const struct planner_ctx *ctx, struct planner_out *out)
{
	struct squery q;
	memset(&q, 0, sizeof q);
	if (pf_build(p, &q) == 0 && !p->decline && (!p->aggregate_form || pf_form_finish(p, &q) == 0)) {
		struct sb sql = SB_INIT;
		planner_sql_print(&sql, &q);
		if (!sb_ok(&sql)) {
			sb_free(&sql);
			return ERR_NOMEM;
		}
		out->sql = sb_steal(&sql);
		/* every table the question names (itself or through one of its columns) must be in
		 * the answer: one the SQL does not use means the plan answers another question */
		for (int l = 0; l < p->pl.n && !p->decline; l++) {
			const struct plink_item *it = &p->pl.v[l];
			const char *nm = it->kind == PL_TABLE ? p->s->t[it->table].name
			               : it->kind == PL_COLUMN && it->role != PL_ROLE_IGNORED ? pf_tname(p, it->cols[0]) : NULL;
			if (nm && !planner_sql_names(out->sql, nm, 0) && !(it->kind == PL_TABLE && key_used(p, out->sql, it->table))) {
				pf_decline(p, "the question names %s, which the plan does not use",
				        arena_printf(&p->a, "'%s' (%s)", pf_span_text(p, it->t0, it->t1),
				                     it->kind == PL_TABLE ? nm : pf_cfq(p, it->cols[0])));
				drop_sql(out);
			}
		}
		/* "병동 영문명 포함": a column of a table the question names, left out while the
		 * answer shows another text column of that table (the Korean name) instead */
		for (int l = 0; l < p->pl.n && !p->decline && out->sql; l++) {
			const struct plink_item *it = &p->pl.v[l];
			if (it->kind != PL_COLUMN || it->role == PL_ROLE_IGNORED || p->s->c[it->cols[0]].type != PT_TEXT ||
			    planner_sql_names(out->sql, p->s->c[it->cols[0]].name, 0))
				continue;
			int rows_word = 0;   /* ("prescription routes": a word for the table's rows, not its drug column) */
			for (int x = it->t0; x < it->t1; x++)
				rows_word |= planner_term_table_score(p->s, p->s->c[it->cols[0]].table, p->tk.v[x].stem) >= 0.5;
			if (rows_word)
				continue;
			int other = shown_instead(p, it->cols[0]);
			if (other >= 0) {
				pf_decline(p, "the question names %s, which the plan does not use",
				           arena_printf(&p->a, "'%s' (%s; the answer would show %s)", pf_span_text(p, it->t0, it->t1),
				                        pf_cfq(p, it->cols[0]), p->s->c[other].name));
				drop_sql(out);
			}
		}
		/* "약품명", "drug name" linked to a column of codes (condition_source_value, 'Diagnosis
		 * code as recorded'): names were asked, the answer would show codes */
		for (int l = 0; l < p->pl.n && !p->decline && out->sql; l++) {
			const struct plink_item *it = &p->pl.v[l];
			if (it->kind == PL_COLUMN && it->role != PL_ROLE_IGNORED && pf_says_name(p, it->t0, it->t1) &&
			    pf_holds_codes(&p->s->c[it->cols[0]]) && planner_sql_names(out->sql, p->s->c[it->cols[0]].name, 0)) {
				pf_decline(p, "'%s' asks for names, and the plan would show a column of codes",
				           arena_printf(&p->a, "%s (%s)", pf_span_text(p, it->t0, it->t1), pf_cfq(p, it->cols[0])));
				drop_sql(out);
			}
		}
		/* a key column into a dictionary that a word names strongly ("coded as primary": the
		 * diagnosis status) must be in the answer too: unused, the word it stands for is lost
		 * (a weak link, a comment's example word such as "serum", is not held to this) */
		for (int l = 0; l < p->pl.n && !p->decline && out->sql; l++) {
			const struct plink_item *it = &p->pl.v[l];
			int edge;
			if (it->kind == PL_COLUMN && it->role != PL_ROLE_IGNORED && it->score >= 0.75 &&
			    pf_dict_label(p, it->cols[0], &edge) >= 0 && !planner_sql_names(out->sql, p->s->c[it->cols[0]].name, 0)) {
				pf_decline(p, "the question names %s, which the plan does not use",
				        arena_printf(&p->a, "'%s' (%s)", pf_span_text(p, it->t0, it->t1), pf_cfq(p, it->cols[0])));
				drop_sql(out);
			}
		}
		/* "LOINC 코드별 결과 건수", "검사별 건수", "number of results by lab" counted the test
		 * dictionary's entries: a count over a dictionary counts its entries only when the counted
		 * noun (the word before 건수, after "number of") names the dictionary itself ("부서구분별
		 * 부서 수"); otherwise it names the rows of a table that points into it */
		if (!p->decline && out->sql && p->f.agg && !strcmp(p->f.agg, "COUNT") && !p->f.entity_count &&
		    p->f.count_col < 0 && pf_is_dictionary(p, p->f.fact)) {
			for (int i = 0; i < p->tk.n && out->sql; i++) {
				const struct ptok *t = &p->tk.v[i];
				if (t->role != R_COUNT)
					continue;
				int w = t->hangul ? i - 1 : i + 2 < p->tk.n && !strcmp(p->tk.v[i + 1].text, "of") ? i + 2 : -1;
				if (w >= 0 && (p->tk.v[w].kind != TK_WORD || p->tk.v[w].group))
					w = -1;   /* "검사별 건수": no noun counted */
				int names_fact = 0;
				for (int l = 0; w >= 0 && l < p->pl.n; l++) {
					const struct plink_item *it = &p->pl.v[l];
					int tab = it->kind == PL_TABLE ? it->table : it->ncols ? p->s->c[it->cols[0]].table : -1;
					names_fact |= it->t0 <= w && w < it->t1 && tab == p->f.fact;
				}
				if (!names_fact) {
					pf_decline(p, "'%s' counts, and the plan would count the entries of a dictionary instead",
					           w >= 0 ? pf_span_text(p, w, i + 1 > w ? i + 1 : w + 1) : t->text);
					drop_sql(out);
				}
			}
		}
		/* "how many admissions per department had a potassium above 5.5": the admissions are what is
		 * counted; rows of another table (the lab results, joined to the admissions for their
		 * department) counted one by one are not them */
		if (!p->decline && out->sql && p->f.rows_tab >= 0 && p->f.rows_tab != p->f.fact && p->f.agg &&
		    !strcmp(p->f.agg, "COUNT") && !p->f.entity_count && p->f.count_col < 0) {
			pf_decline(p, "the question counts %s, and the plan would count the rows of another table joined to them",
			           p->s->t[p->f.rows_tab].name);
			drop_sql(out);
		}
		/* "propofol 투여한 케이스의 평균 수술시간" averaged the propofol doses: a word for a duration
		 * right after an average (or a total, a maximum) that no start and end time was found for
		 * leaves the measure asked out of the answer */
		int no_span = !p->decline && out->sql && p->f.dur_start < 0 && p->f.agg && strcmp(p->f.agg, "COUNT") &&
		              strcmp(p->f.agg, "RATE") && !span_measure(p);   /* (once, not per word) */
		for (int i = 1; no_span && out->sql && i < p->tk.n; i++) {
			const struct ptok *t = &p->tk.v[i];
			int after_agg = 0;
			for (int k = i - 1; k >= 0 && k >= i - 3; k--)
				after_agg |= p->tk.v[k].role == R_AVG || p->tk.v[k].role == R_SUM || p->tk.v[k].role == R_MAX ||
				             p->tk.v[k].role == R_MIN;
			if (after_agg && !t->used && pf_duration_word(t) && strcmp(t->text, "long")) {
				pf_decline(p, "the question asks for a duration (%s), and the plan measures no time between a start and an end",
				           arena_printf(&p->a, "'%s'", t->text));
				drop_sql(out);
			}
		}
		/* visits named (입원 횟수, admissions) must be what the answer reads, unless the rows read
		 * are parts of visits and the answer adds them up or counts patients ("the total cost of
		 * their hospital visit", "patients who stayed in the discharge lounge") */
		if (!p->decline && out->sql && p->f.visit_mention >= 0 && !planner_sql_names(out->sql, p->s->t[p->f.visit_mention].name, 0) &&
		    !key_used(p, out->sql, p->f.visit_mention) && !parts_of_visits(p)) {
			pf_decline(p, "the question names visits or stays (%s), which the plan does not use", p->s->t[p->f.visit_mention].name);
			drop_sql(out);
		}
		/* "number of visits per visit type": a word for kinds (type, category) said per or by and
		 * left unused; such words are too generic to link, so the kinds were never grouped */
		for (int i = 1; !p->decline && out->sql && i < p->tk.n; i++) {
			static const char *const kinds[] = {"type", "types", "kind", "kinds", "category", "categories", "class",
			                                    "classes", NULL};
			const struct ptok *t = &p->tk.v[i];
			int per = -1;
			for (int k = i - 1; k >= 0 && k >= i - 3 && per < 0; k--)
				if (p->tk.v[k].role == R_PER && !p->tk.v[k].hangul)
					per = k;
			if (per >= 0 && !t->used && planner_in_list(kinds, t->text)) {
				pf_decline(p, "the question asks per %s, which the plan does not group by",
				           arena_printf(&p->a, "'%s'", pf_span_text(p, per + 1, i + 1)));
				drop_sql(out);
			}
		}
		/* an earlier attempt with exactly this SQL failed: do not repeat it */
		for (int i = 0; ctx && out->sql && i < ctx->nattempts; i++)   /* (NULL: declined above) */
			if (ctx->attempts[i].sql && (ctx->attempts[i].error || ctx->attempts[i].empty_result) &&
			    !strcmp(ctx->attempts[i].sql, out->sql)) {
				drop_sql(out);
				pf_decline(p, "the same SQL already failed: %s",
				        ctx->attempts[i].error ? ctx->attempts[i].error : "it returned no rows");
				break;
			}
	}
	return OK;
}

/* cover: every word accounted for (docs/coverage.md): a plan that leaves a linked word, a
 * breakdown or a number unused, or reads a rate's denominator the wrong way round, answers
 * another question; it is declined naming the word */
static void cover(struct planner *p, struct planner_out *out)
{
	struct cov_finding f[8];
	int n = 0;
	if (coverage_check(out->reading, out->sql, f, 8, &n) != OK || !n)
		return;
	/* the first finding, named in words the Korean table reads (conf/i18n/ko.decline.tsv) */
	const struct cov_item *it = f[0].item >= 0 ? &out->reading->v[f[0].item] : NULL;
	const char *col = it && it->ncolumns ? it->columns[0] : f[0].column ? f[0].column : it && it->table ? it->table : "?";
	const char *word = it && it->span ? it->span : "";
	switch (f[0].drop) {
	case DROP_VALUE:
		pf_decline(p, "the plan does not filter on %s, which the question names",
		           arena_printf(&p->a, "'%s' (%s = '%s')", word, col, it && it->nvalues ? it->values[0] : "1"));
		break;
	case DROP_COLUMN:
		pf_decline(p, "the question names %s, which the plan does not use", arena_printf(&p->a, "'%s' (%s)", word, col));
		break;
	case DROP_GROUP:
		pf_decline(p, "the question asks per %s, which the plan does not group by", arena_printf(&p->a, "'%s' (%s)", word, col));
		break;
	case DROP_NUMBER:
		pf_decline(p, "the plan does not use the number %s of the question", arena_printf(&p->a, "'%s'", word));
		break;
	case DROP_DENOMINATOR:
		pf_decline(p, "a share among %s was asked, but the plan counts it as the part, not the base",
		           *word ? arena_printf(&p->a, "'%s' (%s)", word, col) : col);
		break;
	case DROP_ENTITY_GROUPED:
		pf_decline(p, "the plan groups by the identifier %s, which the question does not ask per", col);
		break;
	case DROP_WINDOW:
		pf_decline(p, "the question asks for what happened %s, which the plan cannot place in time", word);
		break;
	case DROP_SHARE:
		pf_decline(p, "the question asks for a share (%s), which the plan does not compute", arena_printf(&p->a, "'%s'", word));
		break;
	case DROP_COUNT_ONE:
		pf_decline(p, "the plan counts distinct %s within each of its own values: every count would be 1",
		           arena_printf(&p->a, "%s", f[0].counted));
		break;
	case DROP_BUCKET:
		pf_decline(p, "the question asks per %s, which the plan does not group by", arena_printf(&p->a, "'%s' (a period of time)", word));
		break;
	case DROP_NUMBER_COLUMN:
		pf_decline(p, "the question compares %s, and the plan compares another column with that number",
		           arena_printf(&p->a, "%s with '%s'", col, word));
		break;
	case DROP_MEASURES:
		pf_decline(p, "the question asks for several measures (%s), and the plan computes one at a time",
		           arena_printf(&p->a, "'%s'", word));
		break;
	case DROP_RANK:
		pf_decline(p, "the question asks for %s, a ranking of groups, and the plan ranks nothing",
		           arena_printf(&p->a, "'%s'", word));
		break;
	case DROP_NONE:
		break;
	}
	free(out->sql);
	out->sql = NULL;
}

/* decline_reason: out->reason (the decline and what was found) and out->confidence */
static void decline_reason(struct planner *p, struct planner_out *out)
{
	out->shape = p->shape ? p->shape->name : NULL;
	if (!p->decline) {
		out->confidence = plan_confidence(p);
		return;
	}
	out->unanswerable = 1;
	struct sb why = SB_INIT;
	sb_puts(&why, p->decline);
	/* show what was found, so the analyst can fix the question or the plan */
	int nf = 0;
	for (int l = 0; l < p->pl.n; l++) {
		struct plink_item *it = &p->pl.v[l];
		const char *tg = it->kind == PL_TABLE ? p->s->t[it->table].name
		               : it->kind == PL_CONCEPT ? it->measure : pf_cfq(p, it->cols[0]);
		sb_printf(&why, "%s'%s' -> %s", nf++ ? ", " : ". Found: ", pf_span_text(p, it->t0, it->t1), tg);
	}
	out->reason = sb_steal(&why);
	out->confidence = 0;
}

/* explain: the plan in one sentence for the analyst (a heap string, or NULL) */
static char *explain(struct planner *p, const struct planner_out *out, const char *tdesc)
{
	struct sb ex = SB_INIT;
	struct frame *f = &p->f;
	if (out->sql && f->multi) {
		sb_puts(&ex, "A timeline of");
		for (int i = 0; i < f->tl.nsrc; i++) {
			const struct ptl_source *src = &f->tl.src[i];
			sb_printf(&ex, "%s %s", i ? (i + 1 == f->tl.nsrc ? " and" : ",") : "", p->s->t[src->table].name);
			if (src->ncols)
				sb_printf(&ex, " (%d measured column%s)", src->ncols, src->ncols > 1 ? "s" : "");
			else if (src->nvals)
				sb_printf(&ex, " (%s '%s'%s)", p->s->c[src->label].name, src->vals[0], src->nvals > 1 ? " and others" : "");
		}
		sb_printf(&ex, " as rows of %s%s%s, time, source, measure and value", f->tl.key, f->tl.key2 ? ", " : "",
		          f->tl.key2 ? f->tl.key2 : "");
		if (f->tl.key_val)
			sb_printf(&ex, ", for %s %s", f->tl.key, f->tl.key_val);
		for (int i = 0; i < f->tl.nflt; i++)
			sb_printf(&ex, ", where %s %s %s", p->s->c[f->tl.flt[i].col].name, f->tl.flt[i].nvals ? "=" : f->tl.flt[i].op,
			          f->tl.flt[i].nvals ? f->tl.flt[i].vals[0] : f->tl.flt[i].lit);
		if (f->has_win && f->win.at2_from[0])
			sb_printf(&ex, ", the value at %s %s the value at %s", f->win.from,
			          f->pair == 'd' ? "minus" : f->pair == '<' ? "compared (less than) with" : "compared (greater than) with",
			          f->win.at2_from);
		else if (f->has_win)
			sb_printf(&ex, ", in the window %s", tdesc);
		sb_printf(&ex, ", ordered by %s and time.", f->tl.key);
	} else if (out->sql) {
		sb_printf(&ex, "From %s", p->s->t[f->fact].name);
		if (f->rank_n)
			sb_printf(&ex, ", the top %ld %s by number of rows (ties kept)", f->rank_n, p->s->c[f->rank_col].name);
		else if (f->exists)
			sb_puts(&ex, ", whether any row matches");
		else if (f->agg && f->entity_total >= 0)
			sb_printf(&ex, ", %s of the %s per %s", f->agg,
			          f->total_rows ? "number of rows" : arena_printf(&p->a, "total %s", p->s->c[f->measure].name),
			          p->s->c[f->entity_total].name);
		else if (f->agg)
			sb_printf(&ex, ", %s of %s", f->agg,
			          f->count_entity ? f->entity_col : (f->measure >= 0 && strcmp(f->agg, "COUNT")) ? p->s->c[f->measure].name : "rows");
		if (f->ngroup)
			sb_printf(&ex, " per %s", p->s->c[f->group[0]].name);
		if (f->entity_val)
			sb_printf(&ex, ", for %s %s", f->entity_col, f->entity_val);
		for (int i = 0; i < f->nin; i++)
			if (i == f->pivot) {   /* one column (or group) per value */
				sb_printf(&ex, ", apart for each %s:", p->s->c[f->in[i].col].name);
				for (int v = 0; v < f->in[i].n; v++)
					sb_printf(&ex, "%s '%s'", v ? "," : "", f->in[i].vals[v]);
			} else
				sb_printf(&ex, ", where %s is '%s'%s", p->s->c[f->in[i].col].name, f->in[i].vals[0], f->in[i].n > 1 ? " (or others listed)" : "");
		for (int i = 0; i < f->ncond; i++)
			if (f->cond[i].num == 2)
				sb_printf(&ex, ", where %s %s", p->s->c[f->cond[i].col].name,
				          strcmp(f->cond[i].op, "IS NOT NULL") ? "is empty" : "has a value");
			else
				sb_printf(&ex, ", where %s %s %s", p->s->c[f->cond[i].col].name, f->cond[i].op, f->cond[i].lit);
		for (int i = 0; i < f->nsemi; i++)
			sb_printf(&ex, ", where the same patient or stay has %s %s '%s' in %s", p->s->c[f->semi[i].col].name,
			          f->semi[i].contains ? "containing" : "=", f->semi[i].val, p->s->t[f->semi[i].event].name);
		if (f->has_win && f->win.at2_from[0])
			sb_printf(&ex, ", the value at %s %s the value at %s", f->win.from,
			          f->pair == 'd' ? "minus" : f->pair == '<' ? "compared (less than) with" : "compared (greater than) with",
			          f->win.at2_from);
		else if (f->has_win)
			sb_printf(&ex, ", in the window %s", tdesc);
		if (f->episode >= 0)
			sb_printf(&ex, ", during the %s %s", f->episode_which == 2 ? "current" : f->episode_which > 0 ? "first" : "last",
			          p->s->t[f->episode].name);
		if (f->order && f->limit == 1 && !f->win.at2_from[0] && f->order_col >= 0)
			sb_printf(&ex, ", the %s by %s", f->order > 0 ? "first" : "last", p->s->c[f->order_col].name);
		else if (f->order && f->limit > 0 && f->ngroup)   /* groups ordered by their aggregate */
			sb_printf(&ex, ", the %ld group%s with the %s", (long)f->limit, f->limit == 1 ? "" : "s", f->order > 0 ? "lowest" : "highest");
		else if (f->timeline)
			sb_puts(&ex, ", ordered by time");
		sb_putc(&ex, '.');
	} else {
		sb_puts(&ex, out->reason ? out->reason : "declined");
	}
	return sb_steal(&ex);
}

static enum err plan_once(struct catalog *cat, const struct retrieval *r, const char *question,
                          const struct planner_ctx *ctx, struct planner_out *out, int follow_off)
{
	struct planner *p;
	enum err rc;
	char tdesc[256] = "";

	memset(out, 0, sizeof *out);
	if (!question || !*question)
		return ERR_INPUT;
	p = calloc(1, sizeof *p);
	if (!p)
		return ERR_NOMEM;
	rc = planner_open(p, cat, r, question, ctx, out);
	if (rc != OK)
		goto out;
	pf_find_entities(p, 0);
	pf_find_visits(p);
	int tw = planner_time(&p->tk, &p->now, &p->f.win, tdesc, sizeof tdesc);
	if (tw == -2) {
		pf_decline(p, "%s", "the question's time expressions do not overlap: no period is both");
	} else if (tw < 0) {
		pf_decline(p, "%s", "a date without a year could not be placed in time");
	} else if (tw > 0) {
		p->f.has_win = 1;
		pf_decide(p, tdesc, "time", arena_printf(&p->a, "[%s, %s)", p->f.win.from[0] ? p->f.win.from : "-inf",
		                                      p->f.win.to[0] ? p->f.win.to : "+inf"),
		       "relative to the reference time", 1);
	}
	p->follow_off = follow_off;
	if (!p->decline)
		link_question(p, ctx);
	/* two instants kept apart by planner_time are only read as the two sides of a comparison or
	 * a change (shape_pair.c); anything else would silently use the first alone */
	if (!p->decline && p->f.win.at2_from[0] && (p->f.pair == 0 || p->f.pair == 'e'))
		pf_decline(p, "two points in time are named (the second %s) but not as two values compared",
		           p->f.win.at2_from);
	if (!p->decline)
		pf_stay_kind_check(p);
	if (!p->decline)
		abstain(p);
	if (!p->decline && (rc = emit_sql(p, ctx, out)) != OK)
		goto out;
	if (p->tk.n)
		out->reading = pf_reading(p);
	if (!p->decline && out->sql && out->reading)
		cover(p, out);
	sb_putc(&p->dec, ']');
	decline_reason(p, out);
	out->explanation = explain(p, out, tdesc);
	out->decisions_json = strdup(sb_ok(&p->dec) ? sb_cstr(&p->dec) : "[]");
	{
		const char *in = p->f.exists ? "filter" : p->f.rank_n ? "ranking" : p->f.timeline ? "trend"
		               : p->f.agg ? "aggregation" : p->f.nin || p->f.ncond ? "filter" : "detail";
		out->intent = strdup(in);
	}
	if (!out->explanation || !out->decisions_json || !out->intent || (out->unanswerable && !out->reason))
		rc = ERR_NOMEM;
out:
	planner_snap_put(p->s);
	arena_free(&p->a);
	free(p);
	return rc;
}

/* follow_off: where the follow-up's words start in merged (the previous question's text then
 * the follow-up's, pf_follow_up), or 0 when merged does not start with prev */
static int follow_off(const char *prev, const char *merged)
{
	size_t n = prev ? strlen(prev) : 0;
	return n && merged && !strncmp(prev, merged, n) ? (int)n : 0;
}

/* one_total: o is one number (an aggregate with no breakdown) */
static int one_total(const struct planner_out *o)
{
	return !o->unanswerable && o->sql && o->shape && !strcmp(o->shape, "aggregate") && !strstr(o->sql, " GROUP BY ");
}

/* one_list: o lists the distinct values of one column; *cols set to its select list */
static int one_list(const struct planner_out *o, const char **cols, size_t *n)
{
	const char *s = o->sql, *from = s ? strstr(s, " FROM ") : NULL;
	if (o->unanswerable || !s || strncmp(s, "SELECT DISTINCT ", 16) || !from || strstr(s, " GROUP BY ") || strstr(s, " LIMIT "))
		return 0;
	*cols = s + 16;
	*n = (size_t)(from - *cols);
	return !memchr(*cols, ',', *n);
}

/* one_list_any: o lists the distinct values of one column */
static int one_list_any(const struct planner_out *o)
{
	const char *c;
	size_t n;
	return one_list(o, &c, &n);
}

/* same_list: o1 and o2 list the same column */
static int same_list(const struct planner_out *o1, const struct planner_out *o2)
{
	const char *c1, *c2;
	size_t n1, n2;
	return one_list(o1, &c1, &n1) && one_list(o2, &c2, &n2) && n1 == n2 && !memcmp(c1, c2, n1);
}

/* How two parts of a question are put together (planner_compose.c splits the words). */
struct combination {
	int (*part)(const struct planner_out *);   /* each part must be this (one number, one list) */
	int (*pair)(const struct planner_out *, const struct planner_out *);   /* and both this, or NULL */
	const char *sql;                           /* printf format of the two parts' SQL */
	const char *ex;                            /* of the two questions and their explanations */
};
static const struct combination difference_of = {one_total, NULL, "SELECT (%s) - (%s) AS difference",
                                                 "The difference of two answers: (\"%s\") %s minus (\"%s\") %s"};
static const struct combination new_since_of = {one_list_any, same_list, "(%s) EXCEPT (%s)",
                                                "What is new: (\"%s\") %s except (\"%s\") %s"};

/* combine: a question declined whole, split into q1 and q2 (freed here): each part planned alone
 * and, when they are as `how` requires, out replaced by their combination; else out unchanged */
static void combine(struct catalog *cat, const struct retrieval *r, const struct planner_ctx *ctx, char *q1, char *q2,
                    const struct combination *how, struct planner_out *out)
{
	char *sql = NULL, *ex = NULL;
	struct planner_out o1, o2;
	memset(&o1, 0, sizeof o1);
	memset(&o2, 0, sizeof o2);
	if (plan_once(cat, r, q1, ctx, &o1, 0) == OK && how->part(&o1) && plan_once(cat, r, q2, ctx, &o2, 0) == OK &&
	    how->part(&o2) && (!how->pair || how->pair(&o1, &o2)) && asprintf(&sql, how->sql, o1.sql, o2.sql) >= 0 &&
	    asprintf(&ex, how->ex, q1, o1.explanation ? o1.explanation : "", q2, o2.explanation ? o2.explanation : "") >= 0) {
		planner_out_free(out);
		*out = o1;          /* the first part's decisions and confidence; its reading covers it only */
		memset(&o1, 0, sizeof o1);
		free(out->sql);
		out->sql = sql;
		free(out->explanation);
		out->explanation = ex;
		sql = ex = NULL;
		if (o2.confidence < out->confidence)
			out->confidence = o2.confidence;
	}
	free(sql);
	free(ex);
	planner_out_free(&o1);
	planner_out_free(&o2);
	free(q1);
	free(q2);
}

enum err planner_plan(struct catalog *cat, const struct retrieval *r, const char *question,
                      const struct planner_ctx *ctx, struct planner_out *out)
{
	if (ctx && ctx->prev_question && *ctx->prev_question && question && *question &&
	    (ctx->amend || pf_reads_as_change(question))) {
		/* an analyst's change to the question, or a follow-up that says it is one ("only patients
		 * over 65" after a rate by department): read with it first ("케이스 3의 랩 추이" + 칼륨만) */
		char *merged = pf_follow_up(ctx->prev_question, question);
		if (merged && plan_once(cat, NULL, merged, ctx, out, follow_off(ctx->prev_question, merged)) == OK && !out->unanswerable && out->sql) {
			char *ex = NULL;
			if (asprintf(&ex, "Read with the change: \"%s\". %s", merged, out->explanation ? out->explanation : "") >= 0) {
				free(out->explanation);
				out->explanation = ex;
			}
			free(merged);
			return OK;
		}
		/* a follow-up that says it changes the previous question ("only emergency room") and cannot
		 * be read with it is declined so: alone it answers another question (a list of every
		 * emergency admission, after a count the planner had declined) */
		if (merged && out->unanswerable && !ctx->amend) {
			free(merged);
			return OK;
		}
		if (merged)
			planner_out_free(out);
		free(merged);
	}
	enum err rc = plan_once(cat, r, question, ctx, out, 0);
	/* a question of two questions: "the difference between A and B ...", "what is new today
	 * compared to yesterday" (planner_compose.c) */
	char *q1, *q2;
	if (rc == OK && out->unanswerable && planner_split_difference(question, &q1, &q2))
		combine(cat, r, ctx, q1, q2, &difference_of, out);
	if (rc == OK && out->unanswerable && planner_split_new_since(question, &q1, &q2))
		combine(cat, r, ctx, q1, q2, &new_since_of, out);
	if (rc == OK && out->unanswerable && ctx && ctx->nattempts && out->reason &&
	    !strncmp(out->reason, "the same SQL already failed", 27)) {
		/* self-correction: the next candidate, without the table the failed plan was built on */
		const char *last = ctx->attempts[ctx->nattempts - 1].sql, *from = last ? strstr(last, " FROM ") : NULL;
		char table[128] = "";
		if (from && sscanf(from + 6, "%127[A-Za-z0-9_]", table) == 1 && ctx->nedits < 32) {
			struct planner_edit ed[33];
			struct planner_ctx c2 = *ctx;
			struct planner_out o2;
			memcpy(ed, ctx->edits, (size_t)ctx->nedits * sizeof *ed);
			ed[ctx->nedits] = (struct planner_edit){.op = PLAN_REMOVE_TABLE, .table = table};
			c2.edits = ed;
			c2.nedits = ctx->nedits + 1;
			if (plan_once(cat, r, question, &c2, &o2, 0) == OK && !o2.unanswerable && o2.sql) {
				char *ex = NULL;
				if (asprintf(&ex, "The previous plan on %s failed; next candidate: %s", table,
				             o2.explanation ? o2.explanation : "") < 0)
					ex = NULL;
				planner_out_free(out);
				*out = o2;
				if (ex) {
					free(out->explanation);
					out->explanation = ex;
				}
				return OK;
			}
			planner_out_free(&o2);
		}
	}
	if (rc != OK || !out->unanswerable || !ctx || !ctx->prev_question || !*ctx->prev_question)
		return rc;
	/* a follow-up that does not stand on its own: read it with the previous question */
	char *merged = pf_follow_up(ctx->prev_question, question);
	struct planner_out o2;
	if (getenv("ASKQL_PLANNER_DEBUG"))
		fprintf(stderr, "planner: follow-up read as [%s]\n", merged ? merged : "");
	if (merged && plan_once(cat, NULL, merged, ctx, &o2, follow_off(ctx->prev_question, merged)) == OK && !o2.unanswerable && o2.sql) {
		char *ex = NULL;
		if (asprintf(&ex, "Follow-up read as: \"%s\". %s", merged, o2.explanation ? o2.explanation : "") < 0)
			ex = NULL;
		planner_out_free(out);
		*out = o2;
		if (ex) {
			free(out->explanation);
			out->explanation = ex;
		}
	} else if (merged) {
		planner_out_free(&o2);
	}
	free(merged);
	return OK;
}

void planner_out_free(struct planner_out *out)
{
	if (!out)
		return;
	free(out->sql);
	free(out->reason);
	free(out->explanation);
	free(out->decisions_json);
	free(out->intent);
	coverage_reading_free(out->reading);
	memset(out, 0, sizeof *out);
}

void planner_reset(void)
{
	planner_snap_free_all();
}
