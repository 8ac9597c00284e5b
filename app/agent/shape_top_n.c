/* shape_top_n.c: question shape "top/bottom N by count": the most frequent labels, ties kept, with their counts ("top 5 drugs of thoracic surgery", "가장 많이 처방된 약"). */
#include <string.h>
#include <strings.h>
#include "agent/planner_front.h"

static int match(struct planner *p, const struct cues *c)
{
	const struct frame *f = &p->f;
	return c->ranking && (f->agg == NULL || !strcmp(f->agg, "COUNT")) && !f->ngroup;
}

/* word_in: stem w begins a word of text (case as written; "test" in "test code dictionary") */
static int word_in(const char *text, const char *w)
{
	size_t n = strlen(w);
	for (const char *h = text ? strcasestr(text, w) : NULL; h; h = strcasestr(h + 1, w))
		if (h == text || h[-1] == ' ' || h[-1] == '(')
			return n > 0;
	return 0;
}

/* asks_codes: the question asks for codes ("the three most recorded diagnosis codes", "코드"), not
 * the names a dictionary gives them */
static int asks_codes(const struct planner *p)
{
	return pf_says_code(p, 0, p->tk.n);
}

/* entity_ranked: the people themselves are ranked, by how many of the fact table's rows each has
 * ("처방이 가장 많은 환자 10명", "patients with the most admissions", "top 5 patients by number of
 * visits"), not the label of those rows: a word for patients is the head of the ranking phrase.
 * A Korean head comes last: the word after the ranking words with nothing after it but a number,
 * 상위 or a list word, and no particle but the topic's ("가장 많은 환자를 본 진료과" ranks the
 * department).  An English head comes first: the word a few linking words (conf/lexicon/
 * phrases.tsv, rank_head_link) before "most" ("which patient had the most"), or right after
 * "top N" and before "by" or "with".  (After "most" the people are what is counted: "the
 * department with the most patients".)  rw: the ranking word.  Returns the patient key's name,
 * else NULL. */
static const char *entity_ranked(struct planner *p, int rw)
{
	for (int e = 0; rw >= 0 && e < p->tk.n; e++) {
		const struct ptok *t = &p->tk.v[e];
		/* (people only: "top 3 operations by number of cases" ranks the operations' names) */
		const char *col = pf_tok_ent(t) == ENT_PATIENT ? planner_ent_column(p->s, ENT_PATIENT) : NULL;
		if (!col)
			continue;
		int head;
		if (t->hangul) {
			head = e > rw && (!strcmp(t->raw ? t->raw : t->text, t->text) || pf_took_particle(t, "은") ||
			                  pf_took_particle(t, "는"));
			for (int j = e + 1; j < p->tk.n && head; j++) {
				enum role r = p->tk.v[j].role;
				head = p->tk.v[j].kind == TK_NUM || r == R_TOP || r == R_LIST || r == R_STOP || r == R_WHICH;
			}
		} else {
			head = e < rw && rw - e <= 4;
			for (int j = e + 1; j < rw && head; j++)
				head = !p->tk.v[j].used && planner_in_list(planner_lex_phrases("rank_head_link"), p->tk.v[j].text);
			head |= p->tk.v[rw].role == R_TOP && e > rw && e <= rw + 2 && e + 1 < p->tk.n &&
			        (!strcmp(p->tk.v[e + 1].text, "by") || !strcmp(p->tk.v[e + 1].text, "with"));
		}
		if (head)
			return col;
	}
	return NULL;
}

/* ranked_key: the column of key name col the fact table's rows are counted under: its own, else
 * that of a table its rows reach (a lab result's case holds the patient); -1 when none */
static int ranked_key(struct planner *p, const char *col)
{
	const struct frame *f = &p->f;
	int rc = pf_col_in(p, f->fact, col);
	for (int ti = 0, e[4]; rc < 0 && ti < p->s->nt; ti++)
		if (ti != f->fact && pf_col_in(p, ti, col) >= 0 && pf_path(p, f->fact, ti, e, 3) >= 0) {
			rc = pf_col_in(p, ti, col);
			pf_need(p, ti);
		}
	return rc;
}


/* rank what is asked for: a projected column, else the label of the fact table; 0 or -1 */
/* says_place: a word of the question is a place word, or starts with one (진료과의): the places
 * themselves are asked for ("어느 진료과의 방문 건수가 가장 많아?") */
static int says_place(const struct planner *p)
{
	const char *const *w = planner_lex_phrases("place_word");
	for (int i = 0; i < p->tk.n; i++)
		for (int k = 0; w && w[k]; k++)
			if (!strchr(w[k], ' ') && (!strcasecmp(p->tk.v[i].stem, w[k]) || !strncasecmp(p->tk.v[i].text, w[k], strlen(w[k])) ||
			                           (p->tk.v[i].raw && !strncasecmp(p->tk.v[i].raw, w[k], strlen(w[k])))))
				return 1;   /* (진료과의: the word as written; its stem may be cut to 진료) */
	return 0;
}

/* place_dict: dictionary d says where or by whom rows happen: a place word (conf/lexicon/phrases.tsv,
 * place_word) is its name, a part of its name, or a word of its comment ("부서 코드(진료과 및
 * 병동)", "Departments, clinics and wards ..."), so its labels are not what the rows are */
static int place_dict(const struct planner *p, int d)
{
	const char *const *w = planner_lex_phrases("place_word");
	char buf[512];
	snprintf(buf, sizeof buf, "%s %s", p->s->t[d].name, p->s->t[d].comment ? p->s->t[d].comment : "");
	for (char *save = NULL, *x = strtok_r(buf, " _()[]:;,./-", &save); x; x = strtok_r(NULL, " _()[]:;,./-", &save))
		for (int k = 0; w && w[k]; k++)
			if (!strcasecmp(x, w[k]) || (strchr(w[k], ' ') && p->s->t[d].comment && strcasestr(p->s->t[d].comment, w[k])))
				return 1;
	return 0;
}

static int frame(struct planner *p, struct cues *c)
{
	struct frame *f = &p->f;
	/* rank what is asked for: a column of categories named, a projected column, else the label of
	 * the fact table */
	int rc = -1;
	int rw = c->most >= 0 ? c->most : c->top >= 0 ? c->top : c->freq;   /* the ranking word */
	const char *head = entity_ranked(p, rw);
	if (head) {
		rc = ranked_key(p, head);
		if (rc < 0)
			return pf_decline(p, "the people or cases named by %s are ranked, but the rows counted reach no such key", head);
		if (p->s->c[rc].unique && p->s->c[rc].table == f->fact)
			return pf_decline(p, "what %s names is ranked by its number of rows, but each row of the table counted is one of them",
			                  head);
		f->count_entity = f->rank_entity = 0;
		goto ranked;
	}
	/* a column of categories of the fact table named by the question ("the three most common
	 * prescription routes": the route, not the drug that labels the table's rows), when one is */
	int named_col = -1, ncand = 0;
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		if (it->kind == PL_COLUMN && it->role != 2 && it->score >= 0.75 && p->s->c[it->cols[0]].table == f->fact &&
		    p->s->c[it->cols[0]].type == PT_TEXT && p->s->c[it->cols[0]].nvalues && !pf_is_keyish(p, it->cols[0]) &&
		    it->cols[0] != named_col && it->t1 == it->t0 + 1 &&
		    planner_term_table_score(p->s, f->fact, p->tk.v[it->t0].stem) < 0.5 &&
		    planner_term_table_score(p->s, f->fact, p->tk.v[it->t0].text) < 0.5) {   /* (not a word for the rows) */
			named_col = it->cols[0];
			ncand++;
		}
	}
	if (rc < 0 && ncand == 1)
		rc = named_col;
	for (int i = 0; i < f->nproj && rc < 0; i++)
		if (p->s->c[f->proj[i]].type == PT_TEXT)
			rc = f->proj[i];
	/* a dictionary the question names that the fact table's key points into ("top 2 units" of
	 * admissions, the unit dictionary named): its label, through that key */
	for (int l = 0; l < p->pl.n && rc < 0; l++) {
		const struct plink_item *it = &p->pl.v[l];
		if (it->kind != PL_TABLE || it->table == f->fact)
			continue;
		for (int k = 0, edge, lc; k < p->s->nfk && rc < 0; k++)
			if (p->s->c[p->s->fk[k].from].table == f->fact && p->s->c[p->s->fk[k].to].table == it->table &&
			    (lc = pf_dict_label(p, p->s->fk[k].from, &edge)) >= 0 && p->s->c[lc].table == it->table)
				rc = p->s->fk[k].from;   /* the key; its label is taken below */
	}
	/* a code column that a dictionary labels ("top 3 wards": ward_cd -> the ward's name): the
	 * name is ranked, as a breakdown by that column shows it, unless codes are asked for */
	int code_edge, code_label;
	if (rc >= 0 && !asks_codes(p) && (code_label = pf_dict_label(p, rc, &code_edge)) >= 0) {
		if (pf_set_via(p, p->s->c[code_label].table, code_edge, p->s->c[rc].name) < 0)
			return -1;
		f->rank_key = rc;
		rc = code_label;
	}
	/* a key named ("diagnoses": condition_concept_id): the label of the dictionary it points to */
	for (int i = 0, edge; i < f->nproj && rc < 0; i++)
		if ((rc = pf_dict_label(p, f->proj[i], &edge)) >= 0) {
			/* (through that key: a dictionary joined through another key for a value named is
			 * not this one's labels) */
			if (pf_set_via(p, p->s->c[rc].table, edge, p->s->c[f->proj[i]].name) < 0)
				return -1;
			f->rank_key = f->proj[i];
		}
	/* else the label of the table the question names ("top 5 diagnoses", or the dictionary that
	 * labels it: "the 2 tests"); a table only inferred from values has no label the question asked
	 * for ("the patient with the highest potassium") */
	if (rc < 0) {
		int via, named = 0;
		int lc = pf_label_col_sure(p, f->fact, &via, 1);   /* (a guess ranks the wrong thing) */
		for (int l = 0; l < p->pl.n; l++) {
			const struct plink_item *it = &p->pl.v[l];
			int t = it->kind == PL_TABLE ? it->table : it->kind == PL_COLUMN ? p->s->c[it->cols[0]].table : -1;
			named |= t >= 0 && (t == f->fact || t == via);   /* a table or one of its columns, not a value */
		}
		for (int i = 0; i < p->tk.n && !named; i++)   /* "the 2 tests": a word of its comment */
			named = p->tk.v[i].kind == TK_WORD && strlen(p->tk.v[i].stem) >= 3 && p->tk.v[i].role != R_ENTITY &&
			        (word_in(p->s->t[f->fact].comment, p->tk.v[i].stem) ||
			         (via >= 0 && word_in(p->s->t[via].comment, p->tk.v[i].stem)));
		if (named)
			rc = lc;
		/* "top 3 operations" ranked the departments the operations' key points into: a dictionary
		 * of places labels where the rows happened, not what they are (docs/coverage.md) */
		if (rc >= 0 && via >= 0 && place_dict(p, via) && !says_place(p))
			return pf_decline(p, "the rows of %s are ranked, and the dictionary their key points into names something "
			                     "else about them (where or by whom), not what they are", p->s->t[f->fact].name);
		/* "top 5 conditions" ranked the codes as recorded: the concepts' names, through their key
		 * (the key said, so no other key into the concepts is asked about below) */
		int ck, ce, cl = rc >= 0 && via < 0 && !asks_codes(p) ? pf_concept_of_codes(p, rc, &ck, &ce) : -1;
		if (cl >= 0) {
			if (pf_set_via(p, p->s->c[cl].table, ce, p->s->c[rc].name) < 0)
				return -1;
			f->rank_key = ck;
			rc = cl;
		}
		/* one rank per item through the key the join takes: of two keys into the labels (an
		 * admission's department and ward), the one the question's words tell, as the join does */
		for (int k = 0, other = -1, pk; rc >= 0 && via >= 0 && f->rank_key < 0 && k < p->s->nfk; k++)
			if (p->s->c[p->s->fk[k].from].table == f->fact && p->s->c[p->s->fk[k].to].table == via) {
				if ((pk = pf_pick_key(p, k, &other)) < 0)
					return pf_decline(p, "%s: two keys of one table lead to the same table, and the question does not "
					                     "say which to join by",
					                  arena_printf(&p->a, "%s / %s", pf_cfq(p, p->s->fk[k].from), pf_cfq(p, other)));
				if (pf_set_via(p, via, pk, p->s->t[via].name) < 0)
					return -1;
				f->rank_key = p->s->fk[pk].from;
			}
	}
	if (rc < 0)
		return pf_decline(p, "%s", "a ranking was asked for, but of what could not be told");
	/* "가장 많이 측정된 검사 3개" read the test dictionary: each of its entries once, every count 1;
	 * the rows that point into it (the results) were meant */
	if (pf_is_dictionary(p, f->fact) && !f->rank_entity && p->s->c[rc].table == f->fact)
		return pf_decline(p, "a ranking by count over %s, a dictionary, counts each of its entries once; the rows that "
		                     "point into it could not be told", p->s->t[f->fact].name);
	/* "the most (distinct) patients", "가장 많은 환자": the entity right after the ranking word is
	 * what is counted */
	for (int i = rw + 1; rw >= 0 && f->entity_col && i < p->tk.n && i <= rw + 3; i++) {
		if (p->tk.v[i].role == R_FREQ || !strcmp(p->tk.v[i].text, "for"))
			break;   /* "ordered most often for patients in their 30s": orders are ranked */
		if (planner_ent_word(p->tk.v[i].stem) >= 0 && f->entity_word && !strcmp(p->tk.v[i].stem, f->entity_word) &&
		    pf_col_in(p, f->fact, f->entity_col) >= 0)
			f->rank_entity = 1;
	}
	/* "by number of patients", "환자 수가 가장 많은": the entity a count word is attached to */
	if ((f->entity_counted || f->count_entity) && f->entity_col && pf_col_in(p, f->fact, f->entity_col) >= 0)
		f->rank_entity = 1;
	/* ... kept in another table the rows reach (a drug's rows hold the case, the case its
	 * patient): counted there, never the rows instead */
	for (int ti = 0, e[4]; (f->entity_counted || f->count_entity) && f->entity_col && !f->rank_entity && ti < p->s->nt; ti++)
		if (pf_col_in(p, ti, f->entity_col) >= 0 && pf_path(p, f->fact, ti, e, 3) >= 0) {
			f->rank_entity = 1;
			f->rank_entity_col = pf_col_in(p, ti, f->entity_col);
			pf_need(p, ti);
		}
	if ((f->entity_counted || f->count_entity) && f->entity_col && !f->rank_entity)
		return pf_decline(p, "the ranking is by the number of %s, which no table the question's rows reach holds",
		                  f->entity_col);
	/* "top 5 main diagnoses" ranked the main-diagnosis flag (Y, N): a column of two values or a
	 * yes/no has no top 5; the word said which rows, not what is ranked */
	/* ("the most common main diagnoses" is no top 1 of a yes/no either) */
	if (pf_yes_no(p, rc) || (c->n >= 2 && p->s->c[rc].nvalues > 0 && p->s->c[rc].nvalues <= 2))
		return pf_decline(p, "a top N was asked, but '%s' holds only two values (yes/no); what is ranked could not be told",
		                  p->s->c[rc].name);
ranked:
	/* "top 5 patients by admissions with their names": the patients ranked by their numbers */
	if (pf_name_unshown(p, &rc, 1) < 0)
		return -1;
	/* "top 5 condition names" ranked the diagnosis codes (the table's first text column) */
	if (pf_says_name(p, 0, p->tk.n) && pf_holds_codes(&p->s->c[rc]))
		return pf_decline(p, "'%s' asks for names, and the plan would show a column of codes",
		                  arena_printf(&p->a, "names (%s)", pf_cfq(p, rc)));
	f->rank_col = rc;
	f->rank_n = c->n;
	f->rank_asc = c->asc;
	f->agg = NULL;
	pf_decide(p, "", "ranking", arena_printf(&p->a, "top %ld %s by %s", c->n, pf_cfq(p, rc),
	          f->rank_entity ? arena_printf(&p->a, "number of distinct %s", f->entity_col) : "count"), "ranking words", 1);
	return 0;
}

const struct shape shape_top_n = {"top_n", STAGE_MEASURE, match, frame, 0.9};
