/* shape_list.c: question shape "list with filters", the catch-all when no other shape matched: the
 * rows or labels a question names, the first/last one, the time of an event, the value of a named
 * item, one table's measurements over time ("list patients older than 90", "케이스 42의 수술 시작
 * 시간", "show me the vitals of case 8"). */
#include <string.h>
#include "agent/planner_front.h"


/* each_visit: "the discharge location of each of patient 7's hospital stays", "every admission":
 * one row per visit, not each value once (planner_lex: each, every, 각) */
static int each_visit(struct planner *p)
{
	for (int i = 0; i < p->tk.n; i++) {
		const char *w = p->tk.v[i].text;
		if (strcmp(w, "each") && strcmp(w, "every") && strcmp(w, "각"))
			continue;
		for (int k = i + 1; k < p->tk.n && k <= i + 7; k++)
			if (pf_is_visit_word(&p->tk.v[k]))
				return 1;
	}
	return 0;
}

/* place_of_event: the one text column of time column tc's table whose name starts like tc's
 * (discharge_location beside dischtime: at least four letters, more than any other), -1 none */
static int place_of_event(struct planner *p, int tc)
{
	size_t best;
	int pick = pf_prefix_col(p, p->s->c[tc].table, p->s->c[tc].name, PT_TEXT, -1, &best);
	return best >= 4 ? pick : -1;
}

/* first/last: order by time, one row; when: the time column is what is shown; 0 or -1 */
static int list_first_last(struct planner *p, const struct cues *c)
{
	struct frame *f = &p->f;
	int fi = pf_find_role(p, R_FIRST), la = pf_find_role(p, R_LAST);
	/* "each patient's latest HbA1c", "patients with ... and their last value": the first or last of
	 * each one is not built; one row of all (or a grouping that breaks the SQL) never answers it */
	int each = f->entity_group;
	for (int i = 0; i < p->tk.n && (fi >= 0 || la >= 0); i++)
		each |= !strcmp(p->tk.v[i].text, "their") || !strcmp(p->tk.v[i].text, "each") || !strcmp(p->tk.v[i].text, "every") ||
		        !strcmp(p->tk.v[i].text, "각") || !strcmp(p->tk.v[i].text, "각각");
	if ((fi >= 0 || la >= 0) && !f->agg && each && !f->entity_val)
		return pf_decline(p, "the question asks for the %s of each, which the offline planner does not build",
		                  p->tk.v[fi >= 0 && (la < 0 || fi < la) ? fi : la].text);
	if ((fi >= 0 || la >= 0) && !f->agg) {
		f->order = (fi >= 0 && (la < 0 || fi < la)) ? 1 : -1;
		f->order_col = f->time_col;
		f->limit = 1;
		if (f->order_col < 0)
			return pf_decline(p, "first/last was asked, but %s has no time column", p->s->t[f->fact].name);
		/* the first medication given: every name at that first time (one order often holds
		 * several); a measured value keeps one row */
		f->ties = f->nproj > 0;
		for (int k = 0; k < f->nproj; k++)
			f->ties &= p->s->c[f->proj[k]].type == PT_TEXT;
	}
	/* c->when: the time column; also a time column named with nothing else to show ("케이스 42의 수술
	 * 시작 시간": the start of the operation is what is asked) */
	int times_shown = 0;
	for (int k = 0; k < f->nproj; k++)
		times_shown |= p->s->c[f->proj[k]].type == PT_TIME;
	/* "where was patient 7 discharged to": a place, not the time of the event named */
	if (p->tk.n && !strcmp(p->tk.v[0].text, "where") && f->time_named && !f->nproj && f->time_col >= 0 && !f->agg) {
		int pc = place_of_event(p, f->time_col);
		if (pc < 0)
			return pf_decline(p, "the question asks where, and no place of %s could be told", pf_cfq(p, f->time_col));
		f->proj[f->nproj++] = pc;
		pf_decide(p, "where", "projection", pf_cfq(p, pc), "a place asked: the text column named like the event's time", 0.8);
		return 0;
	}
	if ((c->when || (f->time_named && !f->nproj && f->entity_val && !f->exists)) && !f->agg && f->time_col >= 0 &&
	    !times_shown) {
		f->nproj = 0;
		f->proj[f->nproj++] = f->time_col;
	}
	return 0;
}

/* asks_which: a word that asks for rows themselves: list, show, which, what, who, give, ids,
 * 목록, 보여줘, 어떤, 누구, 번호, 뽑아줘 (planner_lex.c R_LIST and R_WHICH, and these) */
static int asks_which(struct planner *p)
{
	static const char *const words[] = {"who", "whom", "give", "id", "ids", "identifiers", "find", "get", "누구",
	                                    "번호", "뽑아줘", "뽑아", "찾아줘", "출력해줘", "출력", "정리해줘"};
	if (pf_has_role(p, R_LIST) || pf_has_role(p, R_WHICH))
		return 1;
	for (int i = 0; i < p->tk.n; i++)
		for (size_t w = 0; w < sizeof words / sizeof *words; w++)
			if (!strcmp(p->tk.v[i].text, words[w]))
				return 1;
	return 0;
}

/* count_or_list: -1, declined: the rows of entity column ec are named and nothing is asked of them */
static int count_or_list(struct planner *p, int ec)
{
	return pf_decline(p, "the question asks neither how many nor which of the rows named by '%s' (a count or a list?)",
	                  p->f.entity_word ? p->f.entity_word : p->s->c[ec].name);
}

/* the value words: the measure; else a list of patients (the patients themselves); 0 or -1 */
static int list_value(struct planner *p, const struct cues *c)
{
	struct frame *f = &p->f;
	int asks_value = 0;
	for (int i = 0; i < p->tk.n; i++)
		if (p->tk.v[i].role == R_VALUE && !p->tk.v[i].used)
			asks_value = 1;
	int numeric_shown = 0;
	for (int k = 0; k < f->nproj; k++)
		numeric_shown |= p->s->c[f->proj[k]].type == PT_NUM;
	/* "the dose of the last ibuprofen prescription": a value asked of a table with no numeric
	 * measure, whatever else is named (the drug), is not answered by the drug's name */
	if (asks_value && !f->agg && !numeric_shown && f->measure < 0 && !f->exists && !c->when)
		return pf_decline(p, "the question asks for an amount or value, but %s has no numeric measure", p->s->t[f->fact].name);
	/* the same with a measure: the value is shown, whatever else is named */
	if (asks_value && !f->agg && !numeric_shown && f->measure >= 0 && f->nproj && f->nproj < NPROJ && !f->exists && !c->when) {
		pf_proj_shift(f);
		f->proj[0] = f->measure;
		f->nproj++;
	}
	if (!f->agg && !f->nproj && f->measure >= 0) {
		int dict_value = 0;
		for (int i = 0; i < f->nin; i++)
			if (p->s->c[f->in[i].col].table != f->fact || p->s->c[f->in[i].col].type == PT_TEXT)
				dict_value = 1;   /* an item is named (lab name, dictionary label): its measured value */
		/* "which patients had an elective admission": the patients are what is asked, not a
		 * measure of the rows the filter keeps */
		int lists_entities = f->entity_col && f->entity_count && !f->entity_val && !f->exists &&
		                     pf_col_in(p, f->fact, f->entity_col) >= 0;
		if ((dict_value && !lists_entities) || asks_value)
			f->proj[f->nproj++] = f->measure;
	}
	if (!f->agg && f->nproj < NPROJ && f->entity_col && f->entity_count && !f->entity_val && !f->exists) {
		/* "list patients older than 90": the patients themselves, first ("with their admission
		 * dates": what is said of them after) */
		int ec = pf_col_in(p, f->fact, f->entity_col);
		/* "compute the patients ...": a list is not computed; a count or something else was
		 * meant */
		for (int i = 0; i < p->tk.n && ec >= 0; i++)
			if (!strncmp(p->tk.v[i].text, "calcul", 6) || !strncmp(p->tk.v[i].text, "comput", 6))
				return pf_decline(p, "the question asks to %s the patients, and a list of patients is not calculated "
				               "(a count?)", p->tk.v[i].text);
		/* "spinal cases in 2024?": the rows named with nothing asked of them, neither a count
		 * word nor a list word; how many, or which? asked back, not guessed */
		if (ec >= 0 && !f->nproj && !asks_which(p))
			return count_or_list(p, ec);
		if (ec >= 0) {
			for (int k = f->nproj; k > 0; k--)   /* not memmove: see pf_proj_shift */
				f->proj[k] = f->proj[k - 1];
			f->proj[0] = ec;
			f->nproj++;
			f->entity_count = 0;
			pf_decide(p, "", "projection", pf_cfq(p, ec), "a list of patients/cases", 1);
		}
	}
	return 0;
}

/* one table's measurements over time: its measured columns, or its label and value */
static void list_table_timeline(struct planner *p, const struct cues *c)
{
	struct frame *f = &p->f;
	/* a window alone makes a timeline of a case's or a patient's rows ("vitals in the last 24 hours",
	 * "환자별"), not of a breakdown by a category: "admissions per department in 2025" asks for counts */
	int by_category = 0;
	for (int g = 0; g < f->ngroup; g++)
		by_category |= !pf_is_keyish(p, f->group[g]);
	if (!f->agg && !f->nproj &&
	    (f->entity_val || pf_has_role(p, R_TIMELINE) || c->over_time || (f->has_win && !by_category)) &&
	    f->time_col >= 0 && !f->exists) {
		/* "show me the vitals of case 8", "바이탈 타임라인": every measured column of the table named, over time */
		int named = 0, nm = 0;
		for (int l = 0; l < p->pl.n; l++)
			named |= p->pl.v[l].kind == PL_TABLE && p->pl.v[l].table == f->fact;
		for (int ci = p->s->t[f->fact].c0; named && ci < p->s->t[f->fact].c0 + p->s->t[f->fact].nc; ci++)
			if (p->s->c[ci].type == PT_NUM && !pf_is_keyish(p, ci) && !p->s->c[ci].flag && !p->s->c[ci].numtext &&
			    f->nproj < NPROJ - 1) {
				f->proj[f->nproj++] = ci;
				nm++;
			}
		if (nm >= 2) {
			f->timeline = 1;
			pf_decide(p, "", "intent", "timeline", "the measurements of the table named, over time", 1);
		} else {
			/* a long table (labs: name + result) over time: its label and its value ("list the
			 * drugs of case 5" stays a list of labels) */
			int via, lc = pf_label_col(p, f->fact, &via);
			f->nproj = 0;
			if (named && lc >= 0 && f->measure >= 0 && via < 0 && (pf_has_role(p, R_TIMELINE) || c->over_time)) {
				f->proj[f->nproj++] = lc;
				f->proj[f->nproj++] = f->measure;
				f->timeline = 1;
				pf_decide(p, "", "intent", "timeline", "the labels and values of the table named, over time", 1);
			}
		}
	}
}

/* a timeline: several measurements of one case ordered by time ("over time", "추이"), the
 * grouped entity leading; 0 or -1 declined */
static int list_timeline_order(struct planner *p, const struct cues *c)
{
	struct frame *f = &p->f;
	if (!f->agg && (pf_has_role(p, R_TIMELINE) || c->over_time || f->timeline)) {
		if (f->time_col < 0)
			return pf_decline(p, "%s", "a timeline needs a time column");
		int have = 0;
		for (int i = 0; i < f->nproj; i++)
			have |= f->proj[i] == f->time_col;
		if (!have && f->nproj < NPROJ) {
			pf_proj_shift(f);
			f->proj[0] = f->time_col;
			f->nproj++;
		}
		/* "환자별 ... 타임라인": the grouped entity leads the rows and the order, no GROUP BY */
		for (int g = f->ngroup - 1; g >= 0 && f->nproj < NPROJ; g--) {
			pf_proj_shift(f);
			f->proj[0] = f->group[g];
			f->nproj++;
			f->lead[f->nlead++] = f->group[g];
		}
		f->ngroup = 0;
		f->order = 1;
		f->order_col = f->time_col;
		f->limit = 0;
		f->timeline = 1;
		pf_decide(p, "", "intent", "timeline", "measurements of one case ordered by time", 1);
	}
	return 0;
}

/* asked_noun_unshown: "what is the name of the facility ...", "which hospital was she transferred
 * from": the noun asked for must be what the rows show; a name answered with a time, or a hospital
 * (the visits' own word) answered with a column of another table, is another question.  0 or -1 */
static int asked_noun_unshown(struct planner *p)
{
	struct frame *f = &p->f;
	if (f->agg || !f->nproj)
		return 0;
	int text = 0, visit_col = 0, vt = pf_visit_table(p, 0);
	for (int i = 0; i < f->nproj; i++) {
		text |= p->s->c[f->proj[i]].type == PT_TEXT;
		visit_col |= p->s->c[f->proj[i]].table == vt && p->s->c[f->proj[i]].type == PT_TEXT;
	}
	/* "patient number and name", "with their names": a name asked beside rows the plan shows only
	 * by their identifiers is not shown (name is a word the linker skips) */
	if (pf_name_unshown(p, f->proj, f->nproj) < 0)
		return -1;
	/* "list of ICU admissions": a yes/no named before the rows says which rows, never a column of
	 * Y/N shown beside them (the ICU filter was dropped); shown only when asked whether (여부) */
	int whether = 0;
	for (int i = 0; i < p->tk.n; i++)
		whether |= !strcmp(p->tk.v[i].text, "여부") || !strcmp(p->tk.v[i].text, "whether") ||
		           !strcmp(p->tk.v[i].text, "flag");
	for (int i = 0; i < f->nproj && !whether; i++)
		if (pf_yes_no(p, f->proj[i]))
			return pf_decline(p, "'%s' is a yes/no: the rows where it is yes, or the flag shown beside every row, could "
			                     "not be told", p->s->c[f->proj[i]].name);
	/* "HbA1c over 9: patient number, result, date": a value named in the list of what to show
	 * after ':' is shown, or the question is declined (not the numbers and dates alone) */
	int colon = -1, value_shown = 0;
	for (int i = 0; i < p->tk.n && colon < 0; i++)
		if (p->tk.v[i].kind == TK_PUNCT && !strcmp(p->tk.v[i].text, ":"))
			colon = i;
	for (int i = 0; i < f->nproj; i++)
		value_shown |= p->s->c[f->proj[i]].type == PT_NUM && !pf_is_keyish(p, f->proj[i]);
	for (int i = colon + 1; colon >= 0 && !value_shown && i < p->tk.n; i++)
		if (p->tk.v[i].role == R_VALUE)
			return pf_decline(p, "the question asks to show '%s', and the plan shows no value", p->tk.v[i].text);
	/* "환자 ID, 사망일, 사망원인": a time column named in a list of what to show (after ':' or ',', or
	 * before ',') with no window it sets is shown, not dropped */
	int tt = f->time_tok, shown = 0;
	for (int i = 0; i < f->nproj; i++)
		shown |= f->proj[i] == f->time_col;
	if (f->time_named && !f->has_win && f->time_col >= 0 && !shown && tt >= 1 && tt < p->tk.n && f->nproj < NPROJ &&
	    !f->order && !f->timeline &&
	    (!strcmp(p->tk.v[tt - 1].text, ",") || !strcmp(p->tk.v[tt - 1].text, ":") ||
	     (tt + 1 < p->tk.n && !strcmp(p->tk.v[tt + 1].text, ",")))) {
		f->proj[f->nproj++] = f->time_col;
		pf_decide(p, pf_span_text(p, tt, tt + 1), "projection", pf_cfq(p, f->time_col), "a time named among what to show", 1);
	}
	for (int i = 0; i + 1 < p->tk.n; i++) {
		const struct ptok *t = &p->tk.v[i], *n = &p->tk.v[i + 1];
		/* "the name of", "이름" as the thing asked */
		if (!text && (!strcmp(t->text, "name") || !strcmp(t->text, "names")) && !strcmp(n->text, "of"))
			return pf_decline(p, "the question asks for the %s of something, but what the plan shows is not a name", t->text);
		/* "which hospital", "what hospital": the hospital itself, which only a text column of the
		 * visits may name (never their times) */
		if (t->role == R_WHICH && (!strcmp(n->text, "hospital") || !strcmp(n->text, "hospitals") || !strcmp(n->text, "병원")) &&
		    !(i + 2 < p->tk.n && pf_is_visit_word(&p->tk.v[i + 2])) && !visit_col)
			return pf_decline(p, "the question asks which %s, and no column names hospitals", n->text);
	}
	return 0;
}

/* paired_times: "the ICU intime and outtime", "the admission and discharge times": two times named
 * with one time noun, each the time column its word names; both are shown, or declined when a
 * visit's time is one of them and it is not found.  0 or -1 */
static int paired_times(struct planner *p)
{
	struct frame *f = &p->f;
	static const char *const nouns[] = {"time", "date", NULL};
	int ntimes = 0;
	for (int k = 0; k < f->nproj; k++)
		ntimes += p->s->c[f->proj[k]].type == PT_TIME;
	for (int i = 0; i + 3 < p->tk.n && !f->agg && f->nproj < NPROJ - 1 && ntimes < 2; i++) {
		if (strcmp(p->tk.v[i + 1].text, "and") || !planner_in_list(nouns, p->tk.v[i + 3].stem))
			continue;
		int cols[2];
		for (int k = 0; k < 2; k++) {
			double sc;   /* the word alone among the time columns ("admission": admittime) */
			cols[k] = planner_link_term_type(&p->a, p->s, p->tk.v[i + 2 * k].stem, p->r, p->banned, 0.5, PT_TIME, &sc);
		}
		if (cols[0] < 0 || cols[1] < 0 || cols[0] == cols[1] || p->s->c[cols[0]].table != p->s->c[cols[1]].table ||
		    p->s->c[cols[0]].table != f->fact) {
			/* "the admission and discharge times" with one of them not found: one time shown
			 * for two asked is another answer */
			if (pf_is_visit_word(&p->tk.v[i]) || pf_is_visit_word(&p->tk.v[i + 2]))
				return pf_decline(p, "the question asks for two times ('%s' and another), and the plan cannot show both",
				                  p->tk.v[i].text);
			continue;
		}
		f->nproj = 0;
		for (int k = 0; k < 2; k++) {
			f->proj[f->nproj++] = cols[k];
			pf_decide(p, p->tk.v[i + 2 * k].text, "projection", pf_cfq(p, cols[k]), "two times named with one time noun", 0.9);
		}
		p->tk.v[i].used = p->tk.v[i + 2].used = p->tk.v[i + 3].used = 1;
		return 0;
	}
	return 0;
}

/* price_of_kind: "the cost of a potassium test", "the price of vitamin e": a number of a row that a
 * typed link ties to the fact's rows (a charge of each event, docs/schema-model.md "Typed links"), asked
 * of a kind of thing (no patient, no period): the values it takes, each once, not every event's */
static int price_of_kind(struct planner *p, int col)
{
	const struct frame *f = &p->f;
	int t = p->s->c[col].table;
	if (f->entity_val || f->has_win || t == f->fact)
		return 0;
	for (int k = 0; k < p->s->ntl; k++) {
		const struct ptlink *l = &p->s->tl[k];
		int from = p->s->c[l->id_col].table;
		if ((from == t && l->table == f->fact) || (from == f->fact && l->table == t))
			return 1;
	}
	return 0;
}

/* lookup_other_column: "what label corresponds to X" where X is stored both in the column asked
 * and in another column of the same table (an abbreviation): the row is found by the other column,
 * not by the column asked, which would only say X back */
static void lookup_other_column(struct planner *p)
{
	struct frame *f = &p->f;
	if (f->nproj != 1 || f->agg)
		return;
	for (int i = 0; i < f->nin; i++) {
		if (f->in[i].col != f->proj[0] || f->in[i].n != 1 || f->in[i].contains)
			continue;
		const char *key = planner_norm(&p->a, f->in[i].vals[0]);
		int n, lo = key ? planner_snap_values(p->s, key, &n) : -1, other = -1;
		for (int k = lo; lo >= 0 && k < lo + n; k++) {
			int c = p->s->v[k].col;
			if (c != f->in[i].col && p->s->c[c].table == p->s->c[f->in[i].col].table && !strcmp(p->s->v[k].value, f->in[i].vals[0]))
				other = c;
		}
		if (other < 0)
			continue;
		f->in[i].col = other;
		pf_decide(p, "", "filter", arena_printf(&p->a, "%s = '%s'", pf_cfq(p, other), f->in[i].vals[0]),
		          "the value is found by the other column that holds it; the column asked is shown", 1);
	}
}

/* fixed_to_one: column col is equal to one text value in every row (a WHERE col = 'v') */
static int fixed_to_one(const struct frame *f, int col)
{
	for (int i = 0; i < f->ncond; i++)
		if (f->cond[i].col == col && f->cond[i].num == 0 && f->cond[i].op && !strcmp(f->cond[i].op, "="))
			return 1;
	for (int i = 0; i < f->nin; i++)
		if (f->in[i].col == col && f->in[i].n == 1 && !f->in[i].contains)
			return 1;
	return 0;
}

/* untimed_act: "when was the culture result reported": the time of an act on the record after the
 * event (conf/lexicon/phrases.tsv, role untimed_act) that no linked column holds; 0 or -1 */
static int untimed_act(struct planner *p, const struct cues *c)
{
	const char *const *w = planner_lex_phrases("untimed_act");
	for (int i = 0; c->when && w && i < p->tk.n; i++) {
		if (!planner_in_list(w, p->tk.v[i].text))
			continue;
		int linked = 0;
		for (int l = 0; l < p->pl.n; l++)
			linked |= p->pl.v[l].t0 <= i && i < p->pl.v[l].t1;
		if (!linked)
			return pf_decline(p, "the question asks when something was %s, a time no column of the database holds",
			                  p->tk.v[i].text);
	}
	return 0;
}

static int frame(struct planner *p, struct cues *c)
{
	struct frame *f = &p->f;
	if (untimed_act(p, c) < 0)
		return -1;
	if (list_first_last(p, c) < 0 || list_value(p, c) < 0)
		return -1;
	/* "the first heart rate and the first respiratory rate": the first row of either is one value,
	 * not the first of each (two given at the same time: the first time both were, planner_together.c) */
	int via, label = pf_label_col(p, f->fact, &via), either = 0;
	for (int i = 0; i < p->tk.n; i++)
		either |= !strcmp(p->tk.v[i].text, "or") || !strcmp(p->tk.v[i].text, "either") || !strcmp(p->tk.v[i].text, "또는");
	for (int k = 0; k < f->nin && f->limit == 1 && label >= 0 && !either && f->together != TOG_SAME_TIME; k++)
		if (f->in[k].col == label && f->in[k].n >= 2)
			return pf_decline(p, "the first or last of each of several named things ('%s' and others) is not a shape the "
			                     "offline planner builds", f->in[k].vals[0]);
	/* "emergency visits in 2024": 'emergency' found only in the description of a code column
	 * ("Kind of care site (...: Emergency Room - Hospital)") names one of its values, not the
	 * column; a list of the codes would drop the filter */
	for (int l = 0; l < p->pl.n && !f->agg; l++) {
		const struct plink_item *it = &p->pl.v[l];
		int shown = 0;
		for (int i = 0; i < f->nproj && it->kind == PL_COLUMN; i++)
			shown |= f->proj[i] == it->cols[0];
		if (shown && it->role == 0 && it->score < 0.75 && it->t1 - it->t0 == 1 && pf_is_keyish(p, it->cols[0]) &&
		    p->s->c[it->cols[0]].type != PT_TEXT)
			return pf_decline(p, "'%s' was found only in the description of a code column; which of its values is "
			                     "meant could not be told", pf_span_text(p, it->t0, it->t1));
	}
	list_table_timeline(p, c);
	/* "with their cause of death": a key into a dictionary, named to be shown, is shown by the
	 * dictionary's label, joined through that key, unless codes or ids were asked for */
	for (int i = 0; i < f->nproj && !f->agg && !f->ngroup; i++) {
		int edge, lc = -1, named = 0;
		for (int l = 0; l < p->pl.n; l++) {
			const struct plink_item *it = &p->pl.v[l];
			if (it->kind == PL_COLUMN && it->cols[0] == f->proj[i] && it->role == 0 && it->score >= 0.75 &&
			    !pf_says_code(p, it->t0, it->t1))
				named = 1;
		}
		if (named && (lc = pf_dict_label(p, f->proj[i], &edge)) >= 0 && p->s->c[lc].table != f->fact) {
			if (pf_set_via(p, p->s->c[lc].table, edge, p->s->c[f->proj[i]].name) < 0)
				return -1;
			pf_need(p, p->s->c[lc].table);
			pf_decide(p, p->s->c[f->proj[i]].name, "projection", pf_cfq(p, lc), "a key shown by its dictionary's label", 1);
			f->proj[i] = lc;
		}
	}
	/* "list of December admissions with ward": the rows named right before "with" are what is
	 * listed, each with what follows; their own key leads each row (never the distinct wards) */
	for (int l = 0; l < p->pl.n && !f->agg && !f->limit && !f->exists && f->nproj > 0 && f->nproj < NPROJ; l++) {
		const struct plink_item *it = &p->pl.v[l];
		const char *w = p->tk.v[it->t1 - 1].text;
		size_t wl = strlen(w);
		if (it->kind != PL_TABLE || it->table != f->fact || it->t1 >= p->tk.n || strcmp(p->tk.v[it->t1].text, "with") ||
		    (wl > 2 && !strcmp(w + wl - 2, "ed")))
			continue;   /* ("admitted with the urgent type": a verb, the rows are not listed by it) */
		int key = -1, have = 0;
		for (int ci = p->s->t[f->fact].c0; key < 0 && ci < p->s->t[f->fact].c0 + p->s->t[f->fact].nc; ci++)
			if (p->s->c[ci].unique && pf_is_keyish(p, ci))
				key = ci;
		for (int i = 0; i < f->nproj; i++)
			have |= f->proj[i] == key;
		if (key >= 0 && !have) {
			pf_proj_shift(f);
			f->proj[0] = key;
			f->nproj++;
			pf_decide(p, pf_span_text(p, it->t0, it->t1), "projection", pf_cfq(p, key), "the rows listed, each by its key", 1);
		}
		break;
	}
	if (!f->agg && !f->nproj) {
		/* "what lab test ...", "which drug": the label of the fact table's rows */
		int via, lc = pf_label_col(p, f->fact, &via);
		if (lc >= 0 && (pf_has_role(p, R_WHICH) || pf_has_role(p, R_LIST) || pf_has_role(p, R_DISTINCT))) {
			f->proj[f->nproj++] = lc;
			pf_decide(p, "", "projection", pf_cfq(p, lc), "what the question asks to name", 1);
			/* ... of the first or last rows: every name at that time, as list_first_last keeps */
			if (f->limit == 1 && f->order && !f->offset && p->s->c[lc].type == PT_TEXT)
				f->ties = 1;
		}
	}
	if (list_timeline_order(p, c) < 0)
		return -1;
	if (!f->agg && !f->order && !f->timeline && f->ngroup && !f->rank_n)
		return pf_decline(p, "%s", "a breakdown was asked for, but not of what (a count or an aggregate)");
	/* "gender breakdown of heart failure patients": a breakdown said in words, answered with a list
	 * of the rows, is another question */
	for (int i = 0; i < p->tk.n && !f->agg && !f->timeline; i++) {
		static const char *const bw[] = {"breakdown", "breakdowns", "distribution", "분포", NULL};
		if (planner_in_list(bw, p->tk.v[i].text) || planner_in_list(bw, p->tk.v[i].stem))
			return pf_decline(p, "%s", "a breakdown was asked for, but not of what (a count or an aggregate)");
	}
	int numeric = 0;
	for (int i = 0; i < f->nproj; i++)
		numeric |= p->s->c[f->proj[i]].type == PT_NUM && !pf_is_keyish(p, f->proj[i]) && !p->s->c[f->proj[i]].flag &&
		           !price_of_kind(p, f->proj[i]);
	if (!f->agg && !f->order && !f->timeline && numeric && f->time_col >= 0 && !f->exists && f->nproj < NPROJ) {
		/* a list of measurements: each with its time, in time order (duplicates are real) */
		pf_proj_shift(f);
		f->proj[0] = f->time_col;
		f->nproj++;
		f->order = 1;
		f->order_col = f->time_col;
		f->limit = 0;
		f->timeline = 1;
		/* "환자의 칼륨", "patients' potassium": whose measurement it is leads each row */
		int ec = f->entity_col && !f->entity_val && f->entity_count ? pf_col_in(p, f->fact, f->entity_col) : -1;
		for (int ti = 0; ec < 0 && f->entity_col && !f->entity_val && f->entity_count && ti < p->s->nt; ti++) {
			int e[4];
			if (pf_col_in(p, ti, f->entity_col) >= 0 && pf_path(p, f->fact, ti, e, 3) >= 0) {
				ec = pf_col_in(p, ti, f->entity_col);   /* the patient key of the case the row belongs to */
				pf_need(p, ti);
			}
		}
		/* "ASA 3+ pts with albumin under 3": patients named with a threshold on the measure and
		 * nothing asked of them: how many, or which (with their values)? asked back */
		int threshold = 0;
		for (int k = 0; k < f->ncond; k++)
			threshold |= f->cond[k].col == f->measure && f->cond[k].num == 1;
		if (ec >= 0 && threshold && !asks_which(p))
			return count_or_list(p, ec);
		if (ec >= 0 && f->nproj < NPROJ && f->nlead < 3) {
			pf_proj_shift(f);
			f->proj[0] = ec;
			f->nproj++;
			f->lead[f->nlead++] = ec;
			pf_decide(p, "", "projection", pf_cfq(p, ec), "whose measurements: the entity leads each row", 1);
		}
	}
	if (asked_noun_unshown(p) < 0 || (!f->timeline && paired_times(p) < 0))
		return -1;
	lookup_other_column(p);
	if (!f->agg && !f->order && !f->timeline && !each_visit(p)) {
		f->distinct = 1;   /* a list of things: each once */
		/* "organisms identified in the abscess specimen": the column the value named is fixed
		 * to one value, a constant beside the things listed */
		for (int i = 0; f->nproj > 1 && i < f->nproj; i++)
			if (fixed_to_one(f, f->proj[i]))
				f->proj[i--] = f->proj[--f->nproj];
		/* "which organisms were found": an empty name is not one of the things found */
		int one = f->nproj == 1 ? f->proj[0] : -1;
		if (one >= 0 && p->s->c[one].type == PT_TEXT && !pf_is_keyish(p, one) && f->ncond < MAXF)
			pf_cond_not_null(f, one);
	}
	return 0;
}

const struct shape shape_list = {"list", STAGE_MEASURE, NULL, frame, 0.9};
