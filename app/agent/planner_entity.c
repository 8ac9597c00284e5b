/* planner_entity.c: entities and visits in a question: "patient 123", "환자 수", "the last hospital visit". */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/planner_front.h"

/* ---- entities: "patient 10014078", "케이스 12", "환자별" (the words and the identifier columns:
 * conf/lexicon/entities.tsv, planner_entlex.c) ---- */

/* entity_column: the identifier column of the entity a question word names (the metadata's
 * hierarchy key, else the one inferred from names and comments), or NULL */
static const char *entity_column(struct planner *p, const char *word)
{
	int k = planner_ent_word(word);
	return k >= 0 ? planner_ent_column(p->s, k) : NULL;
}

/* pf_value_heads: contract in planner_front.h (docs/coverage.md) */
void pf_value_heads(struct planner *p)
{
	for (int l = 0; l < p->pl.n; l++) {
		struct plink_item *it = &p->pl.v[l];
		if (it->kind != PL_VALUE || !it->ncols || it->t1 >= p->tk.n)
			continue;
		int k = pf_tok_ent(&p->tk.v[it->t1]);
		const char *key = k >= 0 ? planner_ent_column(p->s, k) : NULL;
		int own = -1;   /* the table where that entity's identifier is unique: one row per entity */
		for (int ci = 0; key && ci < p->s->nc && own < 0; ci++)
			if (p->s->c[ci].unique && !strcmp(p->s->c[ci].name, key))
				own = p->s->c[ci].table;
		int in = 0, out = 0;
		for (int c = 0; own >= 0 && c < it->ncols; c++)
			if (p->s->c[it->cols[c]].table == own)
				in++;
			else
				out++;
		/* none there, and none where a row carries the entity's key: the values hold for the
		 * patient, not for each of those rows (a dictionary is reached from rows that may) */
		int keyed = 0;
		for (int c = 0; own >= 0 && !in && c < it->ncols; c++) {
			int t = p->s->c[it->cols[c]].table;
			keyed |= pf_is_dictionary(p, t) || pf_col_in(p, t, key) >= 0;
		}
		if (own >= 0 && !in && !keyed)
			it->apart = own + 1;
		if (!in || !out)
			continue;
		int n = 0;
		for (int c = 0; c < it->ncols; c++)
			if (p->s->c[it->cols[c]].table == own) {
				it->cols[n] = it->cols[c];
				it->vals[n++] = it->vals[c];
			}
		it->ncols = n;
	}
}

int pf_tok_ent(const struct ptok *t)
{
	int k = planner_ent_word(t->stem);
	return k >= 0 ? k : planner_ent_word(t->text);
}

/* is table ti named like the entity word (or one of its synonyms: 환자 -> patient)? */
int pf_entity_names_table(struct planner *p, int ti)
{
	char st[128];
	const char *w = p->f.entity_word;
	if (!w)
		return 0;
	planner_stem(p->s->t[ti].name, st, sizeof st);
	if (!strcmp(st, w))
		return 1;
	int k = planner_ent_word(w);
	return k >= 0 && planner_ent_key_stem(k, st);
}

/* plural_word: an English plural ("patients", "cases"): a number after it is no identifier of one */
static int plural_word(const struct ptok *t)
{
	size_t n = strlen(t->text);
	return !t->hangul && n > 3 && t->text[n - 1] == 's' && strcmp(t->text, t->stem);
}

/* counted_table_word: the token the count word is attached to (입원 건수, 입원 횟수, number of
 * admissions, how many admissions, admission count) when it is linked to a table and names no
 * entity; -1 otherwise */
static int counted_table_word(const struct planner *p)
{
	/* (a ranking of patients by their visits ranks the patients: shape_top_n reads it) */
	if (pf_has_role((struct planner *)p, R_TOP) || pf_has_role((struct planner *)p, R_MOST))
		return -1;
	for (int k = 0; k < p->tk.n; k++) {
		int w = -1;
		if (p->tk.v[k].role == R_COUNT && k > 0 && p->tk.v[k - 1].kind == TK_WORD)
			w = k - 1;   /* 입원 건수, admission count */
		if (p->tk.v[k].role == R_COUNT && k + 2 < p->tk.n && !strcmp(p->tk.v[k + 1].text, "of"))
			w = k + 2;   /* number of admissions */
		if (p->tk.v[k].role == R_MANY && k + 1 < p->tk.n)
			w = k + 1;   /* how many admissions */
		if (w < 0 || p->tk.v[w].kind != TK_WORD || pf_tok_ent(&p->tk.v[w]) >= 0)
			continue;
		/* ("환자의 진료과별 수": 진료과별 says per what, it is not what is counted; the lab results
		 * were counted instead of the patients) */
		if (p->tk.v[w].group || (w > 0 && p->tk.v[w - 1].role == R_PER))
			continue;
		if (pf_is_visit_word(&p->tk.v[w]))
			return w;   /* admissions, visits: the visit table's rows (or, with none known, the rows
			             * of a table the word is linked into) */
		for (int l = 0; l < p->pl.n; l++)
			if (p->pl.v[l].kind == PL_TABLE && p->pl.v[l].t0 <= w && w < p->pl.v[l].t1)
				return w;
	}
	return -1;
}

/* pass 0: numbered entities ("patient 123"), before linking; pass 1: entity words left after
 * linking (so "general surgery" stays a value), including single-word links to the key column */
/* head_of: token m is an entity word naming another entity than the key column col, and it set
 * the plan's entity (the word before a head noun: "surgery" of "surgery patients") */
static int head_of(struct planner *p, int m, const char *col)
{
	const struct ptok *t = &p->tk.v[m];
	const char *ec = t->kind == TK_WORD ? entity_column(p, t->text) : NULL;
	if (!ec && t->kind == TK_WORD)
		ec = entity_column(p, t->stem);
	return ec && strcmp(ec, col) && p->f.entity_col && !strcmp(p->f.entity_col, ec) && p->f.entity_word &&
	       !strcmp(p->f.entity_word, t->stem);
}

void pf_find_entities(struct planner *p, int pass)
{
	struct frame *f = &p->f;
	for (int i = 0; i < p->tk.n; i++) {
		struct ptok *t = &p->tk.v[i];
		if (t->kind != TK_WORD || (pass == 1 && pf_event_token(p, i)))
			continue;   /* "after surgery" is when, not what is counted (planner_event.c) */
		if (pass == 1 && t->used && i + 1 < p->tk.n && p->tk.v[i + 1].role == R_COUNT &&
		    (entity_column(p, t->text) || entity_column(p, t->stem))) {
			/* "당뇨 환자 수": the entity word closing a yes/no attribute's words ("당뇨 환자" names
			 * preop_dm) right before the count word is still what is counted; the link keeps the rest */
			for (int l = 0; l < p->pl.n; l++) {
				struct plink_item *it = &p->pl.v[l];
				if (it->t1 == i + 1 && it->t0 < i &&
				    (it->kind == PL_CONCEPT || (it->kind == PL_COLUMN && p->s->c[it->cols[0]].flag))) {
					it->t1 = i;
					t->used = 0;
				}
			}
		}
		if (pass == 1 && t->used) {
			/* a one-word link to an entity key column (or to the entity's own table): the entity */
			int l, hit = -1;
			for (l = 0; l < p->pl.n; l++)
				if (p->pl.v[l].t0 == i && p->pl.v[l].t1 == i + 1 &&
				    (p->pl.v[l].kind == PL_COLUMN || p->pl.v[l].kind == PL_TABLE))
					hit = l;
			const char *ec = entity_column(p, t->text);
			if (!ec)
				ec = entity_column(p, t->stem);
			if (hit < 0 || !ec)
				continue;
			if (p->pl.v[hit].kind == PL_COLUMN && strcmp(p->s->c[p->pl.v[hit].cols[0]].name, ec))
				continue;
			if (p->pl.v[hit].kind == PL_TABLE && p->pl.v[hit].score < 0.9 &&
			    !(pf_col_in(p, p->pl.v[hit].table, ec) >= 0 && p->s->c[pf_col_in(p, p->pl.v[hit].table, ec)].unique))
				continue;   /* a weak link to a table that is not the entity's home stays */
			if (p->pl.v[hit].kind == PL_TABLE && f->nent_tab < 4) {
				f->ent_tab[f->nent_tab] = p->pl.v[hit].table;
				f->ent_tok[f->nent_tab++] = i;
			}
			p->pl.v[hit] = p->pl.v[--p->pl.n];
			t->used = 0;
		}
		if (pass == 0 && !t->used && i + 1 < p->tk.n && p->tk.v[i + 1].kind == TK_NUM && !p->tk.v[i + 1].unit &&
		    p->tk.v[i + 1].num == (long)p->tk.v[i + 1].num && !f->entity_val && !entity_column(p, t->text) &&
		    !entity_column(p, t->stem)) {
			/* "encounter 5", "order 12": the row of a table named by the word, by its key */
			for (int ti = 0; ti < p->s->nt; ti++) {
				char nm[128];
				snprintf(nm, sizeof nm, "%s", p->s->t[ti].name);
				char st[128];
				planner_stem(nm, st, sizeof st);
				if (strcmp(st, t->stem) && strcmp(nm, t->text))
					continue;
				for (int ci = p->s->t[ti].c0; ci < p->s->t[ti].c0 + p->s->t[ti].nc; ci++) {
					if (!p->s->c[ci].unique || !p->s->c[ci].is_int || !strcmp(p->s->c[ci].name, "row_id"))
						continue;
					f->entity_key = ci;
					f->entity_val = arena_printf(&p->a, "%ld", (long)p->tk.v[i + 1].num);
					t->used = p->tk.v[i + 1].used = 1;
					pf_decide(p, pf_span_text(p, i, i + 2), "entity", pf_cfq(p, ci), "a numbered row of the table the word names", 1);
					break;
				}
				break;
			}
			if (f->entity_key >= 0)
				continue;
		}
		const char *col = entity_column(p, t->text);
		if (!col)
			col = entity_column(p, t->stem);
		if (!col)
			continue;
		/* "patient 123", "patient id 123", "환자 123번" */
		int j = i + 1;
		if (j < p->tk.n && p->tk.v[j].kind == TK_WORD && (!strcmp(p->tk.v[j].text, "id") || !strcmp(p->tk.v[j].text, "no") ||
		                                                 !strcmp(p->tk.v[j].text, "number") || !strcmp(p->tk.v[j].text, "번호")))
			j++;
		if (pass == 0 && j < p->tk.n && p->tk.v[j].kind == TK_NUM && p->tk.v[j].num == (long)p->tk.v[j].num &&
		    !f->entity_val && !p->tk.v[j].unit && !strchr(p->tk.v[j].text, '.') &&
		    !(j + 2 < p->tk.n && !strcmp(p->tk.v[j + 1].text, "or") &&
		      (p->tk.v[j + 2].role == R_GT || p->tk.v[j + 2].role == R_LT)) &&   /* "patients 65 or older" */
		    /* "patients 65 and over", "patients 70+": a plural word for them, then an age */
		    !(plural_word(t) && j + 1 < p->tk.n &&
		      (!strcmp(p->tk.v[j + 1].text, "+") ||
		       (j + 2 < p->tk.n && !strcmp(p->tk.v[j + 1].text, "and") &&
		        (p->tk.v[j + 2].role == R_GT || p->tk.v[j + 2].role == R_LT))))) {
			f->entity_col = col;
			f->entity_val = arena_printf(&p->a, "%ld", (long)p->tk.v[j].num);
			for (int k = i; k <= j; k++)
				p->tk.v[k].used = 1;
			pf_decide(p, pf_span_text(p, i, j + 1), "entity", col, "a numbered patient/case is a filter on the shared key column", 1);
			i = j;
			continue;
		}
		if (pass == 0 || t->used)
			continue;
		t->used = 1;
		/* the entity without a number: counted ("how many patients"), grouped ("환자별", "per patient") or listed */
		/* (X에 따른 환자 수: 따른 belongs to X, the patients are counted) */
		/* "top 3 departments by case count": by the count of cases, not per case */
		int by_count = i > 0 && p->tk.v[i - 1].role == R_PER && !p->tk.v[i - 1].hangul && strcmp(p->tk.v[i - 1].text, "per") &&
		               i + 1 < p->tk.n && p->tk.v[i + 1].role == R_COUNT;
		if (by_count)
			p->tk.v[i - 1].used = 1;
		if (!by_count && (t->group || (i > 0 && p->tk.v[i - 1].role == R_PER && (!p->tk.v[i - 1].hangul || !strcmp(p->tk.v[i - 1].text, "각"))))) {   /* per patient, 각 환자 */
			f->entity_group = 1;
			if (i > 0 && p->tk.v[i - 1].role == R_PER)
				p->tk.v[i - 1].used = 1;
		} else {
			f->entity_count = 1;
		}
		/* the counted entity is the one the count word is attached to ("수술 중 ... 환자 수":
		 * patients, not the surgery named first), else the first one named */
		/* ("수술한 환자 목록", "수술받은 환자 보여줘": the word before the Korean list word is
		 * the head of what is listed, the surgery before it says which patients) */
		int counted = (i + 1 < p->tk.n && (p->tk.v[i + 1].role == R_COUNT ||
		                                   (p->tk.v[i + 1].role == R_LIST && p->tk.v[i + 1].hangul && t->hangul))) ||
		              (i > 0 && (p->tk.v[i - 1].role == R_MANY || p->tk.v[i - 1].role == R_COUNT)) ||
		              /* "남자 환자가 가장 많은 진료과": the patients are what is counted */
		              (t->hangul && i + 1 < p->tk.n &&
		               (p->tk.v[i + 1].role == R_FREQ ||
		                (p->tk.v[i + 1].role == R_MOST && i + 2 < p->tk.n && p->tk.v[i + 2].role == R_FREQ)));
		/* "환자 기준", "per-patient basis": the entity the counting is based on, said outright,
		 * wins over the one next to the count word (진료과별 수술 건수, 환자 기준) */
		int basis = i + 1 < p->tk.n && (!strcmp(p->tk.v[i + 1].text, "기준") || !strcmp(p->tk.v[i + 1].stem, "basi"));
		if (basis) {
			p->tk.v[i + 1].used = 1;
			p->tk.v[i + 1].role = R_STOP;   /* not "per" the next word */
			counted = 2;
		}
		/* "thyroid surgery patients under 40 count", "수술 환자": two entity words side by side
		 * name one thing, the last (the head noun); the first only says which */
		int head = !counted && !f->entity_counted && f->entity_col && i > 0 && head_of(p, i - 1, col);
		if (!f->entity_col || (counted && counted > f->entity_counted) || head) {
			f->entity_col = col;
			f->entity_word = p->tk.v[i].stem;
			f->entity_counted = counted;
		}
	}
	/* "남자 환자 입원 건수", "number of admissions of male patients": the count word is attached to a
	 * word naming a table's rows, not to the patients named beside it: those rows are counted */
	int w = pass == 1 && !f->entity_counted ? counted_table_word(p) : -1;
	if (w >= 0) {
		/* which table's rows the count word names: the check in planner.c holds the plan to them */
		f->rows_tab = !pf_is_visit_word(&p->tk.v[w]) ? -1 : f->visit_mention >= 0 ? f->visit_mention : pf_visit_table(p, 0);
		for (int l = 0; l < p->pl.n && f->rows_tab < 0; l++)
			if (p->pl.v[l].kind == PL_TABLE && p->pl.v[l].t0 <= w && w < p->pl.v[l].t1)
				f->rows_tab = p->pl.v[l].table;
		/* (a visit word linked to a column of the stays, "admissions" -> the admission time: those
		 * rows) */
		for (int l = 0; l < p->pl.n && f->rows_tab < 0 && pf_is_visit_word(&p->tk.v[w]); l++)
			if (p->pl.v[l].kind == PL_COLUMN && p->pl.v[l].t0 <= w && w < p->pl.v[l].t1)
				f->rows_tab = p->s->c[p->pl.v[l].cols[0]].table;
	}
	int rows = f->entity_count ? w : -1;
	if (rows >= 0) {
		f->entity_count = 0;
		pf_decide(p, p->tk.v[rows].text, "entity", "rows", "the count word is attached to this word, not to the people", 1);
	}
}

/* linked: token i lies in a link of a stored value, a yes/no attribute or a concept */
static int linked(const struct planner *p, int i)
{
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		if (it->t0 <= i && i < it->t1 && (it->kind == PL_VALUE || it->kind == PL_CONCEPT ||
		                                  (it->kind == PL_COLUMN && p->s->c[it->cols[0]].flag)))
			return 1;
	}
	return 0;
}

/* count_patients: the patients (key column col) are what is counted, said by token i */
static void count_patients(struct planner *p, const char *col, int i, const char *why)
{
	struct frame *f = &p->f;
	f->entity_col = col;
	f->entity_word = "patient";
	f->entity_count = 1;
	f->entity_counted = 1;
	pf_decide(p, p->tk.v[i].text, "entity", col, why, 1);
}

/* pf_person_count: "how many women received propofol": a word for people that is a value (women,
 * men) right after "how many" (or after linked words: "how many diabetic women") counts patients, with the value kept as a filter; pass 1 only, when
 * no entity word was found.  The words: conf/lexicon/phrases.tsv, role people */
void pf_person_count(struct planner *p)
{
	const char *const *people = planner_lex_phrases("people"), *const *verbs = planner_lex_phrases("event_verb");
	struct frame *f = &p->f;
	const char *col = entity_column(p, "patient");
	if ((f->entity_col && f->entity_counted) || !col)
		return;   /* (an entity word the count is not attached to, "had surgery", does not count) */
	for (int i = 0; i < p->tk.n; i++) {
		if (!planner_in_list(people, p->tk.v[i].text))
			continue;
		/* right after "how many", or after words linked there ("how many diabetic women") */
		int m = i > 0 ? i - 1 : 0;
		while (m > 0 && m >= i - 3 && p->tk.v[m].role != R_MANY && linked(p, m))
			m--;
		/* ... or "how many" after them and their conditions ("diabetic women over 65 how many") */
		int k = i + 1;
		while (k < p->tk.n && k <= i + 6 && p->tk.v[k].role != R_MANY && p->tk.v[k].role != R_COUNT &&
		       (linked(p, k) || p->tk.v[k].kind == TK_NUM || p->tk.v[k].role == R_HOW || p->tk.v[k].role == R_GT ||
		        ((p->tk.v[k].role == R_STOP || planner_lex_generic(p->tk.v[k].text) ||
		          planner_in_list(verbs, p->tk.v[k].text)) && !p->tk.v[k].hangul) ||   /* ("women with potassium over
		                                                                                  * 5.5 count", "women prescribed X count") */
		        p->tk.v[k].role == R_GE || p->tk.v[k].role == R_LT || p->tk.v[k].role == R_LE))
			k++;
		int end = k + 1;   /* ("how many" last, a question mark after it) */
		while (end < p->tk.n && p->tk.v[end].kind == TK_PUNCT)
			end++;
		/* ... or a count word right after them ("obese women count", "여자 수", "65세 미만 남자 수") or
		 * before them ("number of women") */
		int counted = (i + 1 < p->tk.n && p->tk.v[i + 1].role == R_COUNT) ||
		              (i >= 2 && !strcmp(p->tk.v[i - 1].text, "of") && p->tk.v[i - 2].role == R_COUNT);
		/* ("diabetic men over 60 count": a count word last, after them and their conditions) */
		if ((i == 0 || p->tk.v[m].role != R_MANY) && !counted &&
		    !(k < p->tk.n && (p->tk.v[k].role == R_MANY || (p->tk.v[k].role == R_COUNT && k > i + 1)) && end == p->tk.n))
			continue;
		count_patients(p, col, i, "people counted: each is a patient");
		return;
	}
	/* "GS 여자 75세 이상 몇명": 몇명 (how many people) with no word for who: the patients, not the
	 * rows (the cases) */
	for (int i = 0; i < p->tk.n; i++)
		if (!strcmp(p->tk.v[i].text, "몇명") || (!strcmp(p->tk.v[i].text, "몇") && i + 1 < p->tk.n && !strcmp(p->tk.v[i + 1].text, "명"))) {
			count_patients(p, col, i, "몇명 counts people: each is a patient");
			return;
		}
}

/* ---- visits: "the last hospital visit", "first ICU stay", "this hospital encounter" ---- */
int pf_is_visit_word(const struct ptok *t)
{
	static const char *const w[] = {"visit", "encount", "encounter", "stay", "admission", "adm", "hospitalization",
	                                "hospitaliz", "입원", "방문", "내원", "재원", NULL};
	for (int i = 0; w[i]; i++)
		if (!strcmp(t->stem, w[i]) || !strcmp(t->text, w[i]))
			return 1;
	return 0;
}

/* "come to the hospital", "discharged from the hospital": the hospital stands for its visits */
static int is_hospital(const struct planner *p, int i)
{
	if (strcmp(p->tk.v[i].text, "hospital") && strcmp(p->tk.v[i].text, "병원"))
		return 0;
	return !(i + 1 < p->tk.n && pf_is_visit_word(&p->tk.v[i + 1]));
}

/* icu_tok: token k says the ICU: "icu", "중환자실", or the first or last word of "intensive care
 * (unit)", whose words are then marked read (they name the stay, not a column: "care unit") */
static int icu_tok(struct planner *p, int k)
{
	struct ptok *v = p->tk.v;
	if (k < 0 || k >= p->tk.n)
		return 0;
	if (!strcmp(v[k].text, "icu") || !strcmp(v[k].text, "중환자실"))
		return 1;
	int s0 = -1, s1 = -1;
	if (!strcmp(v[k].text, "intensive") && k + 1 < p->tk.n && !strcmp(v[k + 1].text, "care"))
		s0 = k, s1 = k + 2 < p->tk.n && !strcmp(v[k + 2].stem, "unit") ? k + 3 : k + 2;
	else if (!strcmp(v[k].stem, "unit") && k >= 2 && !strcmp(v[k - 1].text, "care") && !strcmp(v[k - 2].text, "intensive"))
		s0 = k - 2, s1 = k + 1;
	for (int x = s0; x >= 0 && x < s1; x++)
		v[x].used = 1;
	return s0 >= 0;
}

/* icu_after: "icu" follows token j within three tokens, with only words of skip between ("admission
 * to the ICU", "her last stay in the ICU", "stay in the intensive care unit") */
static int icu_after(struct planner *p, int j, const char *const *skip)
{
	for (int k = j + 1; k < p->tk.n && k <= j + 3; k++) {
		if (icu_tok(p, k))
			return 1;
		if (!planner_in_list(skip, p->tk.v[k].text))
			return 0;
	}
	return 0;
}

/* the visit table: has a unique key shared with other tables and two time columns; "icu" picks by name */
/* stay_comment: a table comment whose first word is a word for a stay in hospital ("입원 내역":
 * conf/lexicon/phrases.tsv, inpatient_word), the way a Korean data mart names its admissions */
static int stay_comment(const char *comment)
{
	const char *const *stay = planner_lex_phrases("inpatient_word");
	size_t n = strcspn(comment, " (");
	for (int i = 0; stay && stay[i] && n; i++)
		if (strlen(stay[i]) == n && !strncmp(comment, stay[i], n))
			return 1;
	return 0;
}

int pf_visit_table(struct planner *p, int icu)
{
	int best = -1;
	double bs = 0;
	for (int ti = 0; ti < p->s->nt; ti++) {
		const struct ptab *t = &p->s->t[ti];
		int ntime = 0, key = 0;
		for (int ci = t->c0; ci < t->c0 + t->nc; ci++) {
			ntime += p->s->c[ci].type == PT_TIME;
			for (int k = 0; k < p->s->nfk; k++)
				if (p->s->fk[k].to == ci)
					key = 1;
		}
		if (ntime < 2 || !key)
			continue;
		double sc = 1;
		int has_icu = strstr(t->name, "icu") || strstr(t->comment, "ICU") || strstr(t->comment, "intensive");
		if (icu && has_icu)
			sc += 3;
		if (!icu && has_icu)
			sc -= 2;
		if (!icu && (strstr(t->name, "admission") || strstr(t->name, "admit") || strstr(t->name, "encounter") ||
		             strstr(t->name, "visit") || strstr(t->comment, "admission") || strstr(t->name, "stay") ||
		             strstr(t->comment, "hospital stay")))
			sc += 2;
		if (sc > bs) {
			bs = sc;
			best = ti;
		}
	}
	return bs > 1.5 ? best : -1;
}

int pf_stay_table(struct planner *p)
{
	int vt = pf_visit_table(p, 0), pick = -1, n = 0;
	for (int ti = 0; vt < 0 && ti < p->s->nt; ti++) {
		int ntime = 0;
		for (int ci = p->s->t[ti].c0; ci < p->s->t[ti].c0 + p->s->t[ti].nc; ci++)
			ntime += p->s->c[ci].type == PT_TIME;
		if (ntime >= 2 && stay_comment(p->s->t[ti].comment) && ++n)
			pick = ti;
	}
	return vt >= 0 ? vt : n == 1 ? pick : -1;
}

/* names_something: a table or column of the target is named by t or a lexicon synonym of it
 * (admissions -> 입원 in a Korean comment): the word has a home here even without a visit table */
static int names_something(struct planner *p, const struct ptok *t)
{
	const char *terms[12];
	int n = pf_tok_terms(t, terms, 12);
	for (int k = 0; k < n; k++) {
		double sc;
		for (int ti = 0; ti < p->s->nt; ti++)
			if (planner_term_table_score(p->s, ti, terms[k]) >= 0.5)
				return 1;
		if (planner_link_term(&p->a, p->s, terms[k], NULL, NULL, 0.75, &sc) >= 0)
			return 1;
	}
	return 0;
}

/* inpatient_word: t is a word for a stay in hospital (입원, admission; conf/lexicon/phrases.tsv) */
static int inpatient_word(const struct ptok *t)
{
	const char *const *stay = planner_lex_phrases("inpatient_word");
	return planner_in_list(stay, t->text) || planner_in_list(stay, t->stem);
}

/* stays_among_visits: t is a word for a stay in hospital and the visit table vt says in its
 * description that it records another kind of visit too (outpatient): the word is then one kind
 * of its rows, not all of them (conf/lexicon/phrases.tsv, inpatient_word and other_visit_kind) */
static int stays_among_visits(const struct planner *p, int vt, const struct ptok *t)
{
	const char *const *other = planner_lex_phrases("other_visit_kind");
	const char *d = p->s->t[vt].comment;
	if (!d || !inpatient_word(t))
		return 0;
	for (int k = 0; other && other[k]; k++)
		if (strcasestr(d, other[k]))
			return 1;
	return 0;
}

int pf_stay_kind_check(struct planner *p)
{
	int vt = p->f.visit_mention;
	if (!p->f.stay_tok || vt < 0)
		return 0;
	/* a stored value on the visits, or in a dictionary they point into, says the kind already
	 * ("inpatient admissions": concept_code 'IP') */
	for (int l = 0; l < p->pl.n; l++) {
		if (p->pl.v[l].kind != PL_VALUE || !p->pl.v[l].ncols || p->pl.v[l].role == PL_ROLE_IGNORED)
			continue;
		int ct = p->s->c[p->pl.v[l].cols[0]].table, beside = 0;
		/* (said right beside a word for stays: "inpatient admissions", "입원 (IP)") */
		for (int w = 0; w < p->tk.n && !beside; w++)
			beside = inpatient_word(&p->tk.v[w]) && (p->pl.v[l].t1 == w || p->pl.v[l].t0 == w + 1);
		if (beside && (ct == vt || pf_key_into(p, vt, ct) >= 0))
			return 0;
	}
	/* "2025년 입원 건수" on a table of every kind of visit counted the outpatient visits too */
	return pf_decline(p, "'%s' says stays in hospital, and the visits table also records other kinds of visits (outpatient); "
	                     "name the kind of visit as it is stored", p->tk.v[p->f.stay_tok - 1].text);
}

void pf_find_visits(struct planner *p)
{
	struct frame *f = &p->f;
	f->episode = -1;
	f->visit_mention = -1;
	int ep_tok = -1;   /* the ordinal of the visit chosen so far */
	for (int i = 0; i < p->tk.n; i++) {
		struct ptok *t = &p->tk.v[i];
		int colname = 0;
		/* "pre-admission": the second part of a hyphenated word is no visit of its own */
		if (i >= 2 && !strcmp(p->tk.v[i - 1].text, "-") && p->tk.v[i - 2].kind == TK_WORD && pf_is_visit_word(t))
			continue;
		if (pf_is_visit_word(t) && !t->used && i + 1 < p->tk.n && p->tk.v[i + 1].kind == TK_WORD) {
			char st[256];
			const char *two = arena_printf(&p->a, "%s %s", t->text, p->tk.v[i + 1].text);
			double sc;
			planner_stem(two, st, sizeof st);
			colname = planner_link_term(&p->a, p->s, st, p->r, p->banned, 0.9, &sc) >= 0;
			/* "admission date(s)", "admission and discharge dates": the time of the visit, a column */
			int k = !strcmp(p->tk.v[i + 1].text, "and") && i + 3 < p->tk.n ? i + 3 : i + 1;
			colname |= !strcmp(p->tk.v[k].stem, "date") || !strcmp(p->tk.v[k].stem, "time");
		}
		/* "재원 중 환자", "입원 중인 환자": patients in hospital now, whose stay has not ended (not
		 * "입원 중 사망한", during the stay) */
		if (inpatient_word(t) && !t->used && i + 2 < p->tk.n &&
		    p->tk.v[i + 1].hangul && p->tk.v[i + 2].kind == TK_WORD &&
		    (!strcmp(p->tk.v[i + 1].text, "중") || (p->tk.v[i + 1].raw && !strcmp(p->tk.v[i + 1].raw, "중인"))) &&
		    entity_column(p, p->tk.v[i + 2].stem)) {
			int vt = pf_stay_table(p);
			if (vt >= 0) {
				f->visit_mention = vt;
				f->current_all = 1;
				t->used = p->tk.v[i + 1].used = 1;
				pf_decide(p, pf_span_text(p, i, i + 2), "filter", p->s->t[vt].name, "in hospital now: the stay has not ended", 0.8);
				continue;
			}
		}
		/* "length of stay": a measure of the stay, said by pf_screen; not a mention of the visits */
		int los = i >= 2 && !strcmp(p->tk.v[i - 2].text, "length") && !strcmp(p->tk.v[i - 1].text, "of");
		if ((pf_is_visit_word(t) || is_hospital(p, i)) && !t->used && !colname && !los) {
			/* "hospital visits", "admission": the visit table itself */
			int icu = icu_tok(p, i - 1);
			/* "admission to (in) the ICU": the ICU stay too */
			static const char *const to_the[] = {"to", "into", "in", "the", NULL};
			icu = icu || icu_after(p, i, to_the);
			/* "ICU stays began ...; the number of stays": the same word again names the same stays */
			for (int k = 1; !icu && k < i; k++)
				icu = !strcmp(p->tk.v[k].stem, t->stem) && (!strcmp(p->tk.v[k - 1].text, "icu") ||
				                                             !strcmp(p->tk.v[k - 1].text, "중환자실"));
			int vt = pf_visit_table(p, icu);
			int prevwhich = i > 0 && (p->tk.v[i - 1].role == R_FIRST || p->tk.v[i - 1].role == R_LAST ||
			                          p->tk.v[i - 1].role == R_THIS || p->tk.v[i - 1].role == R_CURRENT);
			if (vt < 0 && !icu && !p->s->entity_encounter && pf_is_visit_word(t) && !names_something(p, t)) {
				/* "입원 건수" on a database of operations: its cases are not admissions */
				pf_decline(p, "the question asks about hospital admissions or visits ('%s'), which this database does not record",
				           t->text);
				return;
			}
			if (vt >= 0 && !icu && !f->stay_tok && stays_among_visits(p, vt, t))
				f->stay_tok = i + 1;   /* held to a stored kind once the words are linked (pf_stay_kind_check) */
			if (vt >= 0 && !prevwhich && !(i > 1 && (p->tk.v[i - 2].role == R_FIRST || p->tk.v[i - 2].role == R_LAST ||
			                                         p->tk.v[i - 2].role == R_THIS || p->tk.v[i - 2].role == R_CURRENT))) {
				f->visit_mention = vt;
				t->used = 1;
				if (icu && i > 0 && !strcmp(p->tk.v[i - 1].text, "icu"))
					p->tk.v[i - 1].used = 1;
				pf_decide(p, pf_span_text(p, icu ? i - 1 : i, i + 1), "table", p->s->t[vt].name, "a visit/stay word names the visit table", 0.8);
				continue;
			}
		}
		/* "current patients": patients whose visit has not ended */
		int ent_near = 0;
		for (int k = i + 1; k < p->tk.n && k <= i + 3; k++)
			if (entity_column(p, p->tk.v[k].stem))
				ent_near = 1;
		if (t->role == R_CURRENT && ent_near) {
			int vt = pf_stay_table(p);
			if (vt >= 0) {
				f->visit_mention = vt;
				f->current_all = 1;
				t->used = 1;
				pf_decide(p, pf_span_text(p, i, i + 2), "filter", p->s->t[vt].name, "current: the visit has not ended", 0.8);
				continue;
			}
		}
		int which = t->role == R_FIRST ? 1 : t->role == R_LAST ? -1 : (t->role == R_THIS || t->role == R_CURRENT) ? 2 : 0;
		if (!which)
			continue;
		for (int j = i + 1; j < p->tk.n && j <= i + 3; j++) {
			if (!pf_is_visit_word(&p->tk.v[j]))
				continue;
			int icu = 0;
			for (int k = i; k <= j; k++)
				icu |= icu_tok(p, k);
			/* "her last stay in the ICU" */
			static const char *const in_the[] = {"in", "at", "the", NULL};
			icu = icu || icu_after(p, j, in_the);
			int vt = pf_visit_table(p, icu);
			if (vt < 0)
				break;
			/* "the current number of hospitalized patients": no one patient named, the patients
			 * counted or listed are those whose visit has not ended */
			int patients = 0;
			for (int k = 0; k < p->tk.n && which == 2 && !f->entity_val && t->role == R_CURRENT; k++)
				patients |= entity_column(p, p->tk.v[k].stem) && p->tk.v[k].kind == TK_WORD;
			if (patients) {
				f->visit_mention = vt;
				f->current_all = 1;
				p->tk.v[i].used = p->tk.v[j].used = 1;   /* ("number of" between them is the count) */
				pf_decide(p, pf_span_text(p, i, j + 1), "filter", p->s->t[vt].name, "current: the visit has not ended", 0.8);
				break;
			}
			/* "current hospital visit. ... since their first stay in careunit X": the current
			 * visit stays chosen; this ordinal is left to what else the question says */
			if (f->episode == vt && f->episode_which == 2 && which != 2) {
				p->tk.v[j].used = 1;
				i = j;
				break;
			}
			/* "her first stay in the careunit medicine during this hospital visit": the later visit
			 * phrase chooses the visit; the earlier ordinal is left to what else the question says
			 * (the first transfer of that visit) */
			if (f->episode == vt && ep_tok >= 0 && f->episode_which != which)
				p->tk.v[ep_tok].used = 0;
			f->episode = vt;
			f->episode_which = which;
			ep_tok = i;
			for (int k = i; k <= j; k++)
				p->tk.v[k].used = 1;
			pf_decide(p, pf_span_text(p, i, j + 1), "visit", p->s->t[vt].name,
			       which == 2 ? "the current (not yet ended) visit" : which > 0 ? "the first ended visit" : "the last ended visit", 1);
			i = j;
			break;
		}
	}
}

/* the entity's home table (the key unique there, or the metadata's) has an event time (casestart) */
int pf_entity_home_timed(struct planner *p)
{
	for (int ti = 0; ti < p->s->nt; ti++) {
		int ec = pf_col_in(p, ti, p->f.entity_col), tc = pf_time_col(p, ti);
		if (ec >= 0 && tc >= 0 && pf_time_col_quality(p, tc) >= 3 &&
		    (p->s->c[ec].unique || (p->s->entity_case && pf_col_in(p, ti, p->s->entity_case) >= 0 &&
		                            p->s->c[pf_col_in(p, ti, p->s->entity_case)].unique)))
			return 1;
	}
	return 0;
}
