/* planner_reading.c: the question's reading for the coverage check: what each linked word, breakdown word, number and rate asks of any SQL, whoever wrote it (issue 26; docs/coverage.md). */
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include "agent/coverage.h"
#include "agent/planner_front.h"

/* share_tok: a word asking for a share or a rate: 비율, percentage, %, 사망률 */
int pf_share_word(const struct ptok *t)
{
	static const char *const w[] = {"percentage", "percent", "proportion", "share", "fraction", "rate", "ratio",
	                                "비율", "백분율", "퍼센트", "%", NULL};
	return planner_in_list(w, t->text) || t->unsup_rate;
}

/* said_per: the link's own words say per it: X별, X마다, by X, per X, X에 따른 */
static int said_per(struct planner *p, const struct plink_item *it)
{
	/* (환자 기본정보 기준: the source; 수술 건 기준, 환자 기준: what is counted, an entity's rows
	 * or key, not a breakdown; 진료과 기준, a dictionary's rows: a breakdown by them) */
	int edge;   /* (a key into a dictionary, 진료과 코드 기준, is its categories) */
	int basis = it->t1 < p->tk.n && !strcmp(p->tk.v[it->t1].text, "기준") &&
	            ((it->kind == PL_TABLE && pf_holds_entity(p, it->table)) || pf_tok_ent(&p->tk.v[it->t1 - 1]) >= 0 ||
	             (it->kind == PL_COLUMN && ((pf_is_keyish(p, it->cols[0]) && pf_dict_label(p, it->cols[0], &edge) < 0) ||
	                                        p->s->c[it->cols[0]].type == PT_TIME)));   /* (입원일시 기준: the
	                                                                                  * time a window is of) */
	/* (외래 처방 기준: a thing qualified by a stored value is the basis of the count, not categories) */
	for (int l = 0; l < p->pl.n && !basis && it->t1 < p->tk.n && !strcmp(p->tk.v[it->t1].text, "기준"); l++)
		basis = (p->pl.v[l].kind == PL_VALUE || p->pl.v[l].kind == PL_CONCEPT) && p->pl.v[l].t1 == it->t0;
	/* (a Korean 기준, 따라, 별로 says per the words before it, not after: "퇴원결과 기준 입원 건수"
	 * counts admissions per result; 각 alone comes first) */
	const struct ptok *before = it->t0 > 0 ? &p->tk.v[it->t0 - 1] : NULL;
	/* ("per patient" as the catalog's synonym of the patient key: the per is inside the span) */
	const struct ptok *first = it->t1 - it->t0 > 1 ? &p->tk.v[it->t0] : NULL;
	if (first && first->role == R_PER && !strcmp(first->text, "per"))   /* (not "by mouth", a route) */
		return 1;
	return (before && before->role == R_PER && (!before->hangul || !strcmp(before->text, "각"))) || p->tk.v[it->t1 - 1].group ||
	       (it->t1 < p->tk.n && p->tk.v[it->t1].role == R_PER && p->tk.v[it->t1].hangul && !basis);
}

int pf_joiner(const struct ptok *t)
{
	static const char *const w[] = {"and", ",", "×", "x", "&", "및", "그리고", NULL};
	return planner_in_list(w, t->text);
}

/* an extreme word right before an average or total ("the longest average operation time", "highest
 * mean bmi"); in Korean an average or total, then 가장/제일 within a few words and the word after it
 * ("평균 BMI가 제일 높은") */
int pf_agg_superlative(const struct planner *p, int *from, int *to)
{
	for (int i = 0; i + 1 < p->tk.n; i++) {
		const struct ptok *t = &p->tk.v[i], *u = &p->tk.v[i + 1];
		if (!t->hangul && (t->role == R_MAX || t->role == R_MIN) && (u->role == R_AVG || u->role == R_SUM)) {
			*from = i;
			*to = i + 2;
			return 1;
		}
		for (int k = i + 1; t->hangul && (t->role == R_AVG || t->role == R_SUM) && k < p->tk.n && k <= i + 4; k++)
			if (p->tk.v[k].role == R_MOST) {
				*from = i;
				*to = k + 2 < p->tk.n ? k + 2 : k + 1;
				return 1;
			}
	}
	return 0;
}

/* pf_took_particle: the tokenizer took the particle part (의, 에서, 는 ...) off the end of a Korean
 * word as written */
int pf_took_particle(const struct ptok *t, const char *part)
{
	const char *raw = t->raw ? t->raw : t->text;
	size_t rl = strlen(raw), pl = strlen(part);
	/* 있는, 없는, 하는: the ending of a verb before a noun, not the topic particle ("당뇨 있는 환자
	 * 중": the base, not a topic naming the part) */
	static const char *const verb_stem[] = {"있", "없", "하", "되", "받", "오", "가", "나", "맞", "쓰", NULL};
	if ((!strcmp(part, "는") || !strcmp(part, "은")) && planner_in_list(verb_stem, t->text))
		return 0;
	return t->hangul && rl > pl && strcmp(t->text, raw) && !strcmp(raw + rl - pl, part);
}

/* korean_and: the word ends in the particle 와/과 (진료과와 성별에 따른) */
static int korean_and(const struct ptok *t)
{
	return pf_took_particle(t, "와") || pf_took_particle(t, "과");
}

static const struct plink_item *link_at(struct planner *p, int t0, int t1)
{
	for (int l = 0; l < p->pl.n; l++)
		if ((t0 < 0 || p->pl.v[l].t0 == t0) && (t1 < 0 || p->pl.v[l].t1 == t1) &&
		    (p->pl.v[l].kind == PL_COLUMN || p->pl.v[l].kind == PL_TABLE))
			return &p->pl.v[l];
	return NULL;
}

/* pf_link_per: the link is a breakdown: said per it (X별, by X, X에 따른), joined by and/와 to a
 * breakdown next to it ("by department and sex", "진료과와 성별에 따른"), or a Korean column word
 * that itself ends in 별 (성별) in a question that counts or averages and names none of its values */
/* own_per: the link's own words make it a breakdown: said per it, or a Korean column word that
 * itself ends in 별 (성별) in a question that counts or averages and names none of its values */
static int own_per(struct planner *p, const struct plink_item *it)
{
	if (said_per(p, it))
		return 1;
	if (it->kind != PL_COLUMN)
		return 0;
	const struct ptok *t = &p->tk.v[it->t1 - 1];
	const char *raw = t->raw ? t->raw : t->text;
	size_t rl = strlen(raw);
	if (rl <= 3 || strcmp(raw + rl - 3, "별") || !p->s->c[it->cols[0]].nvalues)
		return 0;
	for (int l = 0; l < p->pl.n; l++)
		if (p->pl.v[l].kind == PL_VALUE && p->pl.v[l].ncols && p->pl.v[l].cols[0] == it->cols[0])
			return 0;   /* 성별이 여자인: the column names its value */
	if (pf_has_role(p, R_COUNT) || pf_has_role(p, R_AVG) || pf_has_role(p, R_SUM) || pf_has_role(p, R_MAX) ||
	    pf_has_role(p, R_MIN))
		return 1;
	for (int i = 0; i < p->tk.n; i++)
		if (pf_share_word(&p->tk.v[i]))
			return 1;   /* 성별 당뇨 비율: a share per sex */
	return 0;
}

int pf_link_per(struct planner *p, const struct plink_item *it)
{
	if (own_per(p, it))
		return 1;
	if (it->kind != PL_COLUMN && it->kind != PL_TABLE)
		return 0;
	/* joined to the breakdown after it: X와 Y별, X and Y에 따른, X × Y별 */
	const struct plink_item *nx = NULL;
	if (korean_and(&p->tk.v[it->t1 - 1]))
		nx = link_at(p, it->t1, -1);
	else if (it->t1 + 1 < p->tk.n && pf_joiner(&p->tk.v[it->t1]))
		nx = link_at(p, it->t1 + 1, -1);
	if (nx && own_per(p, nx))
		return 1;
	/* joined to a period said per before it: "by year and approach", "per month and department" */
	if (it->t0 >= 3 && pf_joiner(&p->tk.v[it->t0 - 1]) &&
	    (p->tk.v[it->t0 - 2].role == R_UNIT || p->tk.v[it->t0 - 2].role == R_BUCKET) &&
	    p->tk.v[it->t0 - 3].role == R_PER)
		return 1;
	/* joined to the breakdown before it: by X and Y, "by year x dept x sex" (the one before is a
	 * breakdown by any of these rules; it lies to the left, so this ends) */
	const struct plink_item *pv = NULL;
	if (it->t0 >= 2 && pf_joiner(&p->tk.v[it->t0 - 1]))
		pv = link_at(p, -1, it->t0 - 1);
	return pv && pv->t0 < it->t0 && pf_link_per(p, pv);
}

static struct cov_item *add_item(struct cov_reading *r, enum cov_need need, const char *span)
{
	if (r->n >= COV_MAXITEMS)
		return NULL;
	struct cov_item *it = &r->v[r->n++];
	memset(it, 0, sizeof *it);
	it->need = need;
	it->span = arena_strdup(&r->a, span ? span : "");
	return it;
}

static void add_col(struct cov_reading *r, struct cov_item *it, const char *name)
{
	if (it && name && it->ncolumns < COV_MAXVAL)
		it->columns[it->ncolumns++] = arena_strdup(&r->a, name);
}

/* link_item: one link as an item of need (its columns and values copied) */
static struct cov_item *link_item(struct planner *p, struct cov_reading *r, const struct plink_item *it, enum cov_need need)
{
	struct cov_item *ci = add_item(r, need, pf_span_text(p, it->t0, it->t1));
	if (!ci)
		return NULL;
	for (int k = 0; it->kind == PL_CONCEPT && it->con >= 0 && k < p->s->con[it->con].nc; k++)
		add_col(r, ci, p->s->c[p->s->con[it->con].c[k].col].name);   /* a metadata concept: its conditions' columns */
	for (int k = 0; k < it->ncols && k < COV_MAXVAL; k++) {
		add_col(r, ci, p->s->c[it->cols[k]].name);
		if (it->kind == PL_VALUE && it->vals[k] && ci->nvalues < COV_MAXVAL)
			ci->values[ci->nvalues++] = arena_strdup(&r->a, it->vals[k]);
	}
	ci->contains = it->contains;
	return ci;
}

/* per_word_near: token i is next to a breakdown word ("approach by year", "approach x year",
 * "by approach"): an English word found only in a column's comment, said as a dimension, names
 * that column, and a plan that leaves it out answers another question */
static int per_word_near(const struct planner *p, int i)
{
	for (int k = i - 1; k <= i + 1; k++)
		if (k >= 0 && k < p->tk.n && k != i &&
		    (p->tk.v[k].role == R_PER || !strcmp(p->tk.v[k].text, "x") || !strcmp(p->tk.v[k].text, "×")))
			return 1;
	return 0;
}

/* link_before: some link of the question lies wholly before token s */
static int link_before(struct planner *p, int s)
{
	for (int l = 0; l < p->pl.n; l++)
		if (p->pl.v[l].t1 <= s && p->pl.v[l].t1 > p->pl.v[l].t0)
			return 1;
	return 0;
}

int pf_comparison_tok(const struct ptok *t)
{
	return (t->kind == TK_NUM && t->cmp) || t->role == R_GT || t->role == R_LT || t->role == R_GE ||
	       t->role == R_LE || t->role == R_BETWEEN;
}

/* clause_end: punctuation that closes a clause (",", "?"), not the slash or hyphen inside a stored
 * value ("Biliary/Pancreas") */
static int clause_end(const struct ptok *t)
{
	return t->kind == TK_PUNCT && strchr(",.?!;:", t->text[0]) && t->text[0];
}

/* in_name: token i is a word inside a longer name linked as a value or a column ("rate" of "heart
 * rate"), not a word of its own */
static int in_name(struct planner *p, int i)
{
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		if (it->t0 <= i && i < it->t1 && it->t1 - it->t0 > 1 && (it->kind == PL_VALUE || it->kind == PL_COLUMN))
			return 1;
	}
	return 0;
}

/* link_holds: some link of the question holds token s ("in-hospital death rate for patients over 70":
 * the rate word is part of the thing counted, named before the base) */
static int link_holds(struct planner *p, int s)
{
	for (int l = 0; l < p->pl.n; l++)
		if (p->pl.v[l].t0 <= s && s < p->pl.v[l].t1)
			return 1;
	return 0;
}

/* strongly_linked: token i lies inside a link of the question (not a generic word): "total
 * bilirubin", "heart rate", "patient number" name things, not measures */
static int strongly_linked(const struct planner *p, int i)
{
	for (int l = 0; l < p->pl.n; l++)
		if (p->pl.v[l].role != PL_ROLE_IGNORED && p->pl.v[l].t0 <= i && i < p->pl.v[l].t1 && p->pl.v[l].score >= 0.75)
			return 1;
	return 0;
}

/* leading_part: the link that opens the question (after "the", "what is the") and names a thing
 * that holds or not (a concept, a stored value, a yes/no column), followed by for, of, in or
 * among, with the share word s after the base ("mortality for open cases ..., as a percent");
 * -1 none */
static int leading_part(struct planner *p, int s)
{
	static const char *const open[] = {"the", "what", "is", "was", "show", "give", "me", NULL};
	static const char *const prep[] = {"for", "of", "in", "among", NULL};
	int first = 0;
	while (first < p->tk.n && planner_in_list(open, p->tk.v[first].text))
		first++;
	/* ("in-hospital death for ...": the link may begin after the "in-" or "in-hospital" of its name) */
	int hyph = first + 2 < p->tk.n && !strcmp(p->tk.v[first].text, "in") && !strcmp(p->tk.v[first + 1].text, "-");
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		if ((it->t0 != first && !(hyph && (it->t0 == first + 2 || it->t0 == first + 3))) || it->t1 >= s ||
		    !planner_in_list(prep, p->tk.v[it->t1].text) || it->t1 + 1 >= s || link_holds(p, it->t1) ||
		    (it->t1 + 1 < p->tk.n && !strcmp(p->tk.v[it->t1 + 1].text, "-")))   /* (not "urology in-hospital ...") */
			continue;
		if (pf_link_holds_or_not(p, it))
			return l;
	}
	return -1;
}

/* rate_sides: for a share question, which links are the base (the denominator's group) and which
 * the part: side[l] 1 base, 2 part, 0 neither.  "A 중 B 비율", "B 비율 (A 중)", "share / percentage /
 * proportion of A with (who, that, had) B", "among A, ... B".  0 when the question has no share
 * word or one side is empty. */
static int rate_sides(struct planner *p, int *side)
{
	int lo, hi;
	return pf_rate_regions(p, side, &lo, &hi) == 2;
}

int pf_rate_regions(struct planner *p, int *side, int *part_lo_out, int *part_hi_out)
{
	int s = -1, m = -1, among = 0;
	for (int i = 0; i < p->tk.n; i++) {
		const struct ptok *t = &p->tk.v[i];
		if (s < 0 && pf_share_word(t) && !in_name(p, i))
			s = i;
		/* the base marked: A 중 (가운데), A 대비 B, B 비율 (A 기준), among A */
		if (m < 0 && (!strcmp(t->text, "중") || !strcmp(t->text, "가운데") || !strcmp(t->text, "대비") ||
		              !strcmp(t->text, "기준") || !strcmp(t->text, "among")))
			m = i, among = !strcmp(t->text, "among");
	}
	if (s < 0)
		return 0;
	int base_lo = 0, base_hi = 0, part_lo = 0, part_hi = 0, of = -1, lead;
	/* "여자 환자의 당뇨 비율": the words before a possessive 의 are the base, those after it the part */
	for (int i = 0; m < 0 && i < s; i++) {
		const struct ptok *t = &p->tk.v[i];
		if (pf_took_particle(t, "의"))
			of = i;
		/* "women's mortality rate", "robotic cases' death rate" (the ' a token of its own): the English
		 * possessive likewise */
		size_t tl = strlen(t->text);
		if (!t->hangul && tl > 2 && !strcmp(t->text + tl - 2, "'s"))
			of = i;
		else if (!t->hangul && tl > 1 && t->text[tl - 1] == 's' && i + 1 < s && !strcmp(p->tk.v[i + 1].text, "'"))
			of = i + 1;
	}
	/* "여자 환자에서 당뇨 비율", "당뇨 비율은 여자 환자에서": the word that ends in 에서 (in, among) closes
	 * the base, before or after the share word */
	int loc = -1;
	for (int i = 0; m < 0 && of < 0 && loc < 0 && i < p->tk.n; i++)
		if (i != s && pf_took_particle(&p->tk.v[i], "에서"))
			loc = i;
	if (of < 0 && loc >= 0 && loc < s)
		of = loc;
	if (of >= 0) {
		base_lo = 0, base_hi = of + 1, part_lo = of + 1, part_hi = s;
	} else if (loc > s) {
		base_lo = s + 1, base_hi = loc + 1, part_lo = 0, part_hi = s;
	} else if (m < 0 && s > 2 && (!strcmp(p->tk.v[0].text, "in") || !strcmp(p->tk.v[0].text, "for") ||
	                              !strcmp(p->tk.v[0].text, "within") || !strcmp(p->tk.v[0].text, "of")) &&
	           p->tk.v[0].kind == TK_WORD && !link_holds(p, 0) &&
	           !(p->tk.n > 1 && !strcmp(p->tk.v[1].text, "-"))) {   /* (not "In-hospital mortality ...") */
		/* "in women, what is the diabetes rate", "of the cases that ended in death, what percentage
		 * were 70 or older": the base said first, closed by a comma */
		int c = 1;   /* (not the hyphen of "in-hospital death rate") */
		while (c < s && !(p->tk.v[c].kind == TK_PUNCT && !strcmp(p->tk.v[c].text, ",")))
			c++;
		if (c >= s || c == 1)
			return 0;
		base_lo = 1, base_hi = c, part_lo = c + 1, part_hi = p->tk.n;
	} else if (m < 0 && s + 1 < p->tk.n && p->tk.v[s].hangul && p->tk.v[s + 1].hangul) {
		/* "로봇 수술 비율 비뇨의학과": Korean words after the share word, with no marker, say where */
		base_lo = s + 1, base_hi = p->tk.n, part_lo = 0, part_hi = s;
	} else if (m < 0 && p->tk.v[s].hangul && s >= 2) {
		/* "여자 당뇨 비율": no marker; the thing named right before the share word is the part, what is
		 * named before it the group (as 여자의 당뇨 비율) */
		int last = -1;
		for (int l = 0; l < p->pl.n; l++)
			if (p->pl.v[l].t1 <= s && (last < 0 || p->pl.v[l].t0 > p->pl.v[last].t0))
				last = l;
		if (link_holds(p, s))   /* "2024년 흉부외과 사망률": the share word names the part itself */
			base_lo = 0, base_hi = s, part_lo = s, part_hi = s + 1;
		else if (last < 0 || p->pl.v[last].t0 == 0)
			return 0;
		else
			base_lo = 0, base_hi = p->pl.v[last].t0, part_lo = p->pl.v[last].t0, part_hi = s;
	} else if (m >= 0 && among) {
		int end = m + 1;
		while (end < p->tk.n && !clause_end(&p->tk.v[end]) && end != s)
			end++;
		base_lo = m + 1, base_hi = end, part_lo = end, part_hi = p->tk.n;
		if (s + 1 < m)   /* "proportion of B among A": the part between the share word and among */
			part_lo = s + 1, part_hi = m;
		else if (s < m)  /* "B rate among A": the part before the share word */
			part_lo = 0, part_hi = s;
	} else if (m >= 0 && m < s) {
		base_lo = 0, base_hi = m, part_lo = m + 1, part_hi = s;
	} else if (m > s) {
		base_lo = s + 1, base_hi = m, part_lo = 0, part_hi = s;
	} else if (s + 1 < p->tk.n && (!strcmp(p->tk.v[s + 1].text, "of") || !strcmp(p->tk.v[s + 1].text, "for") ||
	                               !strcmp(p->tk.v[s + 1].text, "in") || !strcmp(p->tk.v[s + 1].text, "among"))) {
		static const char *const rel[] = {"that", "who", "which", "with", "had", "have", "has", "having", "were", "was",
		                                  "did", "got", "received", "whose", "done", "performed", "underwent", "using",
		                                  "via", "ended", NULL};
		int k = s + 2, ent = -1;
		while (k < p->tk.n && !planner_in_list(rel, p->tk.v[k].text))
			k++;
		/* "percentage of liver transplant cases died in hospital": the word for the rows counted
		 * closes A, and what follows it is B */
		for (int x = s + 2; x < p->tk.n && k == p->tk.n && ent < 0; x++)
			if (pf_tok_ent(&p->tk.v[x]) >= 0 && x + 1 < p->tk.n)
				ent = x;
		if (k < p->tk.n)   /* "percentage of A who had B" */
			base_lo = s + 2, base_hi = k, part_lo = k + 1, part_hi = p->tk.n;
		else if (ent >= 0 && !link_before(p, s) && !link_holds(p, s) &&
		         (!strcmp(p->tk.v[ent + 1].text, "in") || !strcmp(p->tk.v[ent + 1].text, "within") ||
		          !strcmp(p->tk.v[ent + 1].text, "among")))
			/* "percentage of laparoscopic cases in general surgery": B named first, A after "in" */
			base_lo = ent + 2, base_hi = p->tk.n, part_lo = s + 2, part_hi = ent + 1;
		else if (ent >= 0 && !link_before(p, s) && !link_holds(p, s))
			base_lo = s + 2, base_hi = ent + 1, part_lo = ent + 1, part_hi = p->tk.n;
		else               /* "mortality rate of (for, in, among) A": B named before the rate word */
			base_lo = s + 2, base_hi = p->tk.n, part_lo = 0, part_hi = s;
	} else if (m < 0 && !p->tk.v[s].hangul && (lead = leading_part(p, s)) >= 0) {
		/* "in-hospital mortality for open GS cases aged 65+, as a percent": the thing that opens
		 * the question is the part, what follows its "for" (of, in, among) the base */
		base_lo = p->pl.v[lead].t1 + 1, base_hi = s, part_lo = p->pl.v[lead].t0, part_hi = p->pl.v[lead].t1;
	} else if (m < 0 && !p->tk.v[s].hangul && s >= 2 && pf_rate_word(&p->tk.v[s])) {
		/* "thoracic surgery mortality rate": no marker; the thing named right before "rate" is
		 * the part (planner.c rate_words), what is named before it the base */
		int last = -1;
		for (int l = 0; l < p->pl.n; l++)
			if (p->pl.v[l].t1 == s)
				last = l;
		if (last < 0 || p->pl.v[last].t0 == 0)
			return 0;
		base_lo = 0, base_hi = p->pl.v[last].t0, part_lo = p->pl.v[last].t0, part_hi = s;
	} else {
		return 0;
	}
	/* "ICU 입실 케이스는 일반외과에서 몇 %", "복강경 수술은 전체 수술 중 몇 %": a topic (은/는) said before the
	 * base names the part, not more of the base (the share of general surgery among ICU cases was
	 * computed) */
	if (part_lo >= base_hi && base_lo == 0 && (of >= 0 || (m >= 0 && m < s && !among)))
		for (int i = base_hi - 2; i >= 0; i--) {
			int topic = pf_took_particle(&p->tk.v[i], "는") || pf_took_particle(&p->tk.v[i], "은"), named = 0;
			for (int l = 0; topic && l < p->pl.n; l++)
				named |= p->pl.v[l].t1 <= i + 1 && p->pl.v[l].role != PL_ROLE_IGNORED &&
				         (p->pl.v[l].kind == PL_VALUE || p->pl.v[l].kind == PL_CONCEPT ||
				          (p->pl.v[l].kind == PL_COLUMN && p->s->c[p->pl.v[l].cols[0]].flag));
			if (topic && named) {
				part_lo = 0, part_hi = i + 1, base_lo = i + 1;
				break;
			}
		}
	int nb = 0, np = 0;
again:
	nb = np = 0;
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		side[l] = 0;
		int value = it->kind == PL_VALUE || (it->kind == PL_COLUMN && p->s->c[it->cols[0]].flag) ||
		            (it->kind == PL_CONCEPT && it->con >= 0);
		if (!value || it->role == PL_ROLE_IGNORED || pf_link_per(p, it))
			continue;
		if (it->t0 >= base_lo && it->t1 <= base_hi)
			side[l] = 1, nb++;
		else if (it->t0 >= part_lo && it->t1 <= part_hi)
			side[l] = 2, np++;
	}
	/* "in-hospital mortality among ICU admits, as a %": nothing named after the base, so the part
	 * is what was named before among */
	int cmp = 0;   /* "among A, what % had an age over 70": the part is a comparison */
	for (int i = part_lo; i < part_hi && i < p->tk.n; i++)
		cmp |= pf_comparison_tok(&p->tk.v[i]);
	if (m >= 0 && among && nb && !np && part_lo > m && !cmp) {
		part_lo = 0, part_hi = m;
		goto again;
	}
	*part_lo_out = part_lo;
	*part_hi_out = part_hi;
	return nb && np ? 2 : 1;
}

/* entity_asked: the question asks per patient, case or stay, or about one of them, or for rows
 * of each (a timeline, a having count): an identifier may then be grouped */
static int entity_asked(struct planner *p)
{
	const struct frame *f = &p->f;
	if (f->entity_val || f->having_op || f->timeline || f->multi || f->pair || f->rank_n)
		return 1;
	for (int i = 0; i < p->tk.n; i++) {
		const struct ptok *t = &p->tk.v[i];
		if (pf_tok_ent(t) < 0)
			continue;
		if (i > 0 && p->tk.v[i - 1].role == R_PER && i + 1 < p->tk.n && p->tk.v[i + 1].role == R_COUNT &&
		    strcmp(p->tk.v[i - 1].text, "per"))
			continue;   /* "by case count": by the count of cases, not per case */
		if (t->group || (i > 0 && (!strcmp(p->tk.v[i - 1].text, "each") || !strcmp(p->tk.v[i - 1].text, "각") ||
		                           !strcmp(p->tk.v[i - 1].text, "every") ||
		                           (p->tk.v[i - 1].role == R_PER && !p->tk.v[i - 1].hangul))))
			return 1;
	}
	return 0;
}

int pf_rate_part(struct planner *p)
{
	int side[PL_MAX] = {0}, part = -1;
	if (!rate_sides(p, side))
		return -1;
	for (int l = 0; l < p->pl.n; l++)
		if (side[l] == 2 && (part < 0 || p->pl.v[l].t0 > p->pl.v[part].t0))
			part = l;
	return part;
}

/* date_part: number token i is the day or the year of a date written with a month's name next to
 * it ("December 6, 2100", "6 Dec 2100": the time parser made the month a date and took them); the
 * window's literal holds it as 2100-12-06, not as a 6 of its own */
static int date_part(const struct planner *p, int i)
{
	long v = (long)p->tk.v[i].num;
	/* a clock time's hour, minute or second (14:00:00) */
	if ((i + 1 < p->tk.n && !strcmp(p->tk.v[i + 1].text, ":")) || (i > 0 && !strcmp(p->tk.v[i - 1].text, ":")))
		return 1;
	for (int k = i - 3; k <= i + 1; k++) {
		const struct ptok *d = k >= 0 && k < p->tk.n && k != i ? &p->tk.v[k] : NULL;
		if (d && d->kind == TK_DATE && (v == d->d || v == d->y))
			return 1;
	}
	return 0;
}

/* measure_word: token i asks for a measure: a count (건수, 환자수, number, how many), an average,
 * a maximum or minimum, a total, or a share */
static int measure_word(const struct planner *p, int i)
{
	const struct ptok *t = &p->tk.v[i];
	if (strongly_linked(p, i))
		return 0;
	if (t->role == R_COUNT || t->role == R_AVG || t->role == R_MAX || t->role == R_MIN || pf_share_word(t))
		return 1;
	if (t->role == R_SUM && strcmp(t->text, "총"))   /* (총 수술 건수: one count, 총 qualifies it) */
		return 1;
	if (t->role == R_HOW && i + 1 < p->tk.n && (!strcmp(p->tk.v[i + 1].text, "many") || !strcmp(p->tk.v[i + 1].text, "much")))
		return 1;
	/* 환자수, 수술건수: a thing counted and 수 written as one word */
	size_t n = strlen(t->text);
	if (t->hangul && n > 3 && !strcmp(t->text + n - 3, "수")) {
		char head[64];
		snprintf(head, sizeof head, "%.*s", (int)(n - 3), t->text);
		size_t hn = strlen(head);
		return planner_ent_word(head) >= 0 || (hn >= 3 && !strcmp(head + hn - 3, "건")) ||
		       (hn >= 3 && !strcmp(head + hn - 3, "횟"));
	}
	return 0;
}

/* value_split: the words before measure word m0 and those between it and m1 name two stored values
 * of one column ("남자 환자 수와 여자 환자 수"): one count split by that column, which the
 * value links hold the SQL to */
static int value_split(const struct planner *p, int m0, int m1)
{
	for (int a = 0; a < p->pl.n; a++)
		for (int b = 0; p->pl.v[a].kind == PL_VALUE && p->pl.v[a].t1 <= m0 && b < p->pl.n; b++)
			if (p->pl.v[b].kind == PL_VALUE && p->pl.v[b].t0 > m0 && p->pl.v[b].t1 <= m1 &&
			    p->pl.v[b].cols[0] == p->pl.v[a].cols[0])
				return 1;
	return 0;
}

/* sentence_break: a mark that ends a sentence or opens an aside ("?", ".", "(", "—"): the output
 * columns said after it ("... by ward? Ward name and number of patients") name the same measure */
static int sentence_break(const struct ptok *t)
{
	return t->kind == TK_PUNCT && t->text[0] && (strchr(".?!;:()[]", t->text[0]) || !strcmp(t->text, "—") ||
	                                             !strcmp(t->text, "-") || !strcmp(t->text, "–"));
}

/* counted_near: the entity kind a count word at i is of: the word before it (환자 수) or after
 * "of" (number of patients); -1 when none */
static int counted_near(const struct planner *p, int i)
{
	int k = i > 0 ? planner_ent_word(p->tk.v[i - 1].text) : -1;
	if (k < 0 && i + 2 < p->tk.n && !strcmp(p->tk.v[i + 1].text, "of"))
		k = planner_ent_word(p->tk.v[i + 2].text);
	return k;
}

/* thing_word: token i names something counted or kept: a word of a link, or an entity word */
static int thing_word(const struct planner *p, int i)
{
	if (i < 0 || i >= p->tk.n)
		return 0;
	for (int l = 0; l < p->pl.n; l++)
		if (p->pl.v[l].role != PL_ROLE_IGNORED && p->pl.v[l].t0 <= i && i < p->pl.v[l].t1)
			return 1;
	return planner_ent_word(p->tk.v[i].text) >= 0;
}

/* same_measure: the word at m1 says again the measure of m0 ("건수 top 5 수술명, 건수랑 같이":
 * the count shown beside the names): the same word, and nothing of its own named with it (사망
 * 건수, number of deaths) other than what m0 counts */
static int same_measure(const struct planner *p, int m0, int m1)
{
	if (strcmp(p->tk.v[m0].stem, p->tk.v[m1].stem))
		return 0;
	/* the words m1 counts: before it in Korean (back to m0 or a comma), after "of" in English */
	int lo, hi;
	if (p->tk.v[m1].hangul) {
		lo = m1;
		while (lo > m0 + 1 && !clause_end(&p->tk.v[lo - 1]))
			lo--;
		hi = m1;
	} else {
		if (!(m1 + 2 < p->tk.n && !strcmp(p->tk.v[m1 + 1].text, "of")))
			return 1;
		lo = hi = m1 + 2;
		while (hi < p->tk.n && p->tk.v[hi].kind == TK_WORD && !pf_joiner(&p->tk.v[hi]) && p->tk.v[hi].role != R_PER)
			hi++;
	}
	int a = counted_near(p, m0);
	for (int k = lo; k < hi && k > m0; k++) {
		if (!thing_word(p, k) || clause_end(&p->tk.v[k]))
			continue;
		int e = planner_ent_word(p->tk.v[k].text);
		if (e < 0 || e != a)
			return 0;   /* a thing of its own: 사망 건수, number of deaths */
	}
	return 1;
}

/* measures_asked: how many measures the question joins with and/와 ("수술 건수와 사망 건수",
 * "number of cases and number of deaths", "min, max and average"): 1 + each join between two
 * measure words where the joiner sits right after the first (Korean order: A 건수와 B 건수) or
 * right before the second (English order: number of A and number of B).  *first and *last receive
 * the first join's two words */
static int measures_asked(struct planner *p, int *first, int *last)
{
	int n = 1, prev = -1;
	for (int i = 0; i < p->tk.n; i++) {
		if (sentence_break(&p->tk.v[i]))
			prev = -1;   /* (a measure said again after a break is the same one) */
		if (!measure_word(p, i))
			continue;
		/* "highest first", "많은 순": an order, not a measure */
		if (i + 1 < p->tk.n && (p->tk.v[i].role == R_MAX || p->tk.v[i].role == R_MIN) &&
		    (!strcmp(p->tk.v[i + 1].text, "first") || !strcmp(p->tk.v[i + 1].text, "순") ||
		     !strcmp(p->tk.v[i + 1].text, "순으로")))
			continue;
		if (prev >= 0 && i > prev + (p->tk.v[prev].role == R_HOW) && !same_measure(p, prev, i)) {
			const struct ptok *after = prev + 1 < p->tk.n ? &p->tk.v[prev + 1] : NULL;
			int joined = korean_and(&p->tk.v[prev]) || (after && pf_joiner(after)) ||
			             pf_joiner(&p->tk.v[i - 1]) || korean_and(&p->tk.v[i - 1]);
			if (joined && !value_split(p, prev, i)) {
				if (n == 1) {
					*first = prev;
					*last = i;
				}
				n++;
			}
		}
		if (p->tk.v[i].role == R_HOW)
			i++;   /* (how many: one measure of two words) */
		prev = i;
	}
	return n;
}

/* column_before: the link of a numeric column named right before the number at i, over comparison
 * and linking words ("bmi over 30", "ASA of 3 or higher", "BMI가 30 이상"), or -1 */
static int column_before(struct planner *p, int i)
{
	static const char *const glue[] = {"of", "is", "was", "were", "a", "an", "value", NULL};
	int k = i - 1, cmp = p->tk.v[i].cmp != 0;
	while (k >= 0 && k > i - 4 && (pf_comparison_tok(&p->tk.v[k]) || planner_in_list(glue, p->tk.v[k].text) ||
	                               !strcmp(p->tk.v[k].text, "than") || !strcmp(p->tk.v[k].text, "to") ||
	                               !strcmp(p->tk.v[k].text, "equal"))) {
		cmp |= pf_comparison_tok(&p->tk.v[k]);
		k--;
	}
	/* a threshold only: a comparison word before the number or right after it ("30 이상", "3 or
	 * higher"); a number said with no comparison may be a code or an identifier */
	for (int j = i + 1; j < p->tk.n && j <= i + 2 && !cmp; j++)
		cmp = pf_comparison_tok(&p->tk.v[j]);
	if (!cmp)
		return -1;
	for (int l = 0; k >= 0 && l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		if (it->kind == PL_COLUMN && it->t1 == k + 1 && it->role != PL_ROLE_IGNORED && it->score >= 0.75 &&
		    p->s->c[it->cols[0]].type == PT_NUM && !pf_is_keyish(p, it->cols[0]) && !p->s->c[it->cols[0]].flag)
			return l;
	}
	return -1;
}

struct cov_reading *pf_reading(struct planner *p)
{
	struct cov_reading *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	int side[PL_MAX] = {0}, lo = 0, hi = 0;
	int regions = pf_rate_regions(p, side, &lo, &hi), rate = regions == 2;
	/* "share of laparoscopic cases with an ASA of 3 or higher": the part is a comparison, and the
	 * base's value must still be a filter, not what is counted */
	/* "연령대별 ICU 입실 비율, 개복 수술만": a part named and no base value: the part is still what
	 * is counted, not a filter */
	for (int l = 0; regions == 1 && l < p->pl.n; l++)
		rate |= side[l] == 2;
	for (int i = lo; regions == 1 && i < hi && i < p->tk.n; i++)
		if (pf_comparison_tok(&p->tk.v[i])) {
			for (int l = 0; l < p->pl.n; l++)
				if (side[l] == 2)
					side[l] = 0;
			rate = 1;
		}
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		if (it->role == PL_ROLE_IGNORED || it->t1 <= it->t0)
			continue;   /* a generic word, or a mapping the analyst added (no words of its own) */
		if (rate && side[l]) {
			link_item(p, r, it, side[l] == 1 ? COV_RATE_BASE : COV_RATE_PART);
			continue;
		}
		int per = pf_link_per(p, it);
		if (it->kind == PL_VALUE && !per) {
			struct cov_item *ci = link_item(p, r, it, COV_VALUE);
			/* "prescriptions" is a stored value (domain 'Drug') and the name of a table: reading
			 * that table uses the word */
			for (int ti = 0; ci && ti < p->s->nt && it->t1 == it->t0 + 1; ti++)
				if (p->s->c[it->cols[0]].table != ti && (planner_term_table_score(p->s, ti, p->tk.v[it->t0].stem) >= 0.5 ||
				                                          planner_term_table_score(p->s, ti, p->tk.v[it->t0].text) >= 0.5))
					ci->table = arena_strdup(&r->a, p->s->t[ti].name);
		} else if (it->kind == PL_CONCEPT && it->con >= 0 && !per) {
			/* a metadata concept (ICU 입실: icu_days > 0): its conditions' columns must be read */
			link_item(p, r, it, COV_COLUMN);
		} else if ((it->kind == PL_TABLE || it->kind == PL_VALUE) && per) {
			/* "병동별" naming a table, "남녀별" naming values: a breakdown all the same, by the
			 * table's label (or its key) or by the values' column */
			struct cov_item *ci = add_item(r, COV_GROUP, pf_span_text(p, it->t0, it->t1));
			if (it->kind == PL_VALUE) {
				for (int k = 0; ci && k < it->ncols && k < COV_MAXVAL; k++)
					add_col(r, ci, p->s->c[it->cols[k]].name);
			} else {
				int via, lc = pf_label_col(p, it->table, &via), alt[COV_MAXVAL];
				/* (and what stands for the label: a dictionary's label beside codes as recorded) */
				int na = lc >= 0 ? pf_group_alternatives(p, lc, alt, COV_MAXVAL) : 0;
				for (int k = 0; ci && k < na; k++)
					add_col(r, ci, p->s->c[alt[k]].name);
				for (int c = p->s->t[it->table].c0; ci && c < p->s->t[it->table].c0 + p->s->t[it->table].nc; c++)
					if (p->s->c[c].unique && pf_is_keyish(p, c))
						add_col(r, ci, p->s->c[c].name);
			}
			if (ci && !ci->ncolumns)
				r->n--;   /* nothing to check it by */
		} else if (it->kind == PL_COLUMN && per) {
			struct cov_item *ci = link_item(p, r, it, COV_GROUP);
			int alt[COV_MAXVAL], na = pf_group_alternatives(p, it->cols[0], alt, COV_MAXVAL);
			for (int k = 1; ci && k < na; k++)
				add_col(r, ci, p->s->c[alt[k]].name);
		} else if (it->kind == PL_COLUMN && it->role != 2 && it->t1 - it->t0 > 1 && it->score >= 0.75 &&
		           !pf_is_keyish(p, it->cols[0])) {
			/* several words naming one column ("date of death", "수술 전 고혈압") are used only by
			 * using that column: reading its table leaves them out.  A time may be read through
			 * another time of the same rows ("before the case started": the operation's start) */
			struct cov_item *ci = link_item(p, r, it, COV_COLUMN);
			const struct ptab *t = &p->s->t[p->s->c[it->cols[0]].table];
			for (int c = t->c0; ci && p->s->c[it->cols[0]].type == PT_TIME && c < t->c0 + t->nc; c++)
				if (c != it->cols[0] && p->s->c[c].type == PT_TIME)
					add_col(r, ci, p->s->c[c].name);
		} else if (it->kind == PL_COLUMN && it->role != 2 && p->s->c[it->cols[0]].type != PT_TIME && it->score >= 0.75) {
			/* (a weak link, a word found in a comment, is no requirement: "rate" is not the dose unit) */
			struct cov_item *ci = link_item(p, r, it, COV_COLUMN);
			/* a word for a table's rows ("drugs", the label of its rows) is used by reading the
			 * table; a word for another column of categories (남녀: sex; routes) is not: a count of
			 * everyone, or a ranking of the drugs, leaves it out */
			/* ("drugs", "medication": a word for a class of things names the rows that record them,
			 * as does the label of those rows) */
			/* (the label of a dictionary the rows point into; not a column that is the label only
			 * because the question named it: "department x year case counts" dropped the
			 * department and counted everything) */
			int via, label = (pf_label_col(p, p->s->c[it->cols[0]].table, &via) == it->cols[0] && via >= 0) ||
			                 planner_in_list(planner_lex_phrases("class_word"), p->tk.v[it->t0].text) ||
			                 planner_in_list(planner_lex_phrases("class_word"), p->tk.v[it->t0].stem);
			int categories = p->s->c[it->cols[0]].nvalues > 0 && it->t1 == it->t0 + 1 &&
			                 (p->tk.v[it->t0].hangul || !label) &&
			                 planner_term_table_score(p->s, p->s->c[it->cols[0]].table, p->tk.v[it->t0].stem) < 0.5 &&
			                 planner_term_table_score(p->s, p->s->c[it->cols[0]].table, p->tk.v[it->t0].text) < 0.5 &&
			                 pf_tok_ent(&p->tk.v[it->t0]) < 0;
			/* a word for a numeric measure (ICU days, age) is used only by using the column: "mortality
			 * among ICU admits" read the table and dropped the ICU */
			int measure = p->s->c[it->cols[0]].type == PT_NUM && !pf_is_keyish(p, it->cols[0]) &&
			              !p->s->c[it->cols[0]].flag && it->role != 1;   /* (role 1: read by a comparison's span,
			                                                              * "the upper limit of the reference range") */
			/* a word for one thing of the lexicon (a department, a drug) is no word for a table's
			 * rows: "anesthesiology" linked the anaesthesia type and a count of all read its table */
			char *w = arena_strdup(&p->a, pf_span_text(p, it->t0, it->t1));
			for (char *c = w; c && *c; c++)
				*c = (char)tolower((unsigned char)*c);
			int thing = planner_lex_named_thing(w) && !planner_lex_own_syn(w);
			if (ci && !categories && !measure && !thing)
				ci->table = arena_strdup(&r->a, pf_tname(p, it->cols[0]));
		} else if (it->kind == PL_COLUMN && it->role != 2 && it->t1 == it->t0 + 1 && p->s->c[it->cols[0]].nvalues > 0 &&
		           p->s->c[it->cols[0]].type == PT_TEXT && !pf_is_keyish(p, it->cols[0]) &&
		           p->tk.v[it->t0].role == R_NONE && pf_tok_ent(&p->tk.v[it->t0]) < 0 &&
		           (p->tk.v[it->t0].hangul || (strlen(p->tk.v[it->t0].text) >= 5 && per_word_near(p, it->t0)))) {
			/* a Korean word found only in the comment of a column of categories ("남자" in "성별 (M
			 * 남자, F 여자)"): it says one of them, so the column must be used; a count of everyone
			 * drops it.  (An English word found in a comment is weaker still: "written" is no
			 * dosing instruction) */
			link_item(p, r, it, COV_COLUMN);
		}
	}
	/* "patients who had an operation", "수술한 환자 목록": an entity word naming a table's rows
	 * ("수술" -> operation) beside another entity that is counted or listed (the patients) says
	 * those rows exist; a list of every patient does not read them */
	for (int k = 0; k < p->f.nent_tab; k++) {
		const struct ptok *t = &p->tk.v[p->f.ent_tok[k]];
		int kind = pf_tok_ent(t);
		const char *col = kind >= 0 ? planner_ent_column(p->s, kind) : NULL;
		if (kind == ENT_PATIENT || !p->f.entity_col || (col && !strcmp(col, p->f.entity_col)))
			continue;
		struct cov_item *ci = add_item(r, COV_COLUMN, t->text);
		if (ci)
			ci->table = arena_strdup(&r->a, p->s->t[p->f.ent_tab[k]].name);
	}
	/* a share word that no link took ("heart rate" names a column; "rate" alone asks for a share) */
	for (int i = 0; i < p->tk.n; i++) {
		if (!pf_share_word(&p->tk.v[i]) || (!strcmp(p->tk.v[i].text, "%") && i > 0 && p->tk.v[i - 1].kind == TK_NUM))
			continue;   /* (dextrose 5%: a strength, part of a name) */
		if ((!strcmp(p->tk.v[i].text, "rate") || !strcmp(p->tk.v[i].text, "rates")) && p->tk.v[i].role != R_UNSUP)
			continue;   /* an English "rate" is a share only after a thing that holds or not ("mortality
			             * rate": rate_words); "infusion rate", "rate limited" are not */
		if (!strongly_linked(p, i)) {
			add_item(r, COV_SHARE, pf_span_text(p, i, i + 1));
			break;
		}
	}
	/* a period said per (월별, per month, monthly, each year): the answer is grouped by it ("hemoglobin
	 * under 8 cases per month" counted once for the year) */
	for (int i = 0; i < p->tk.n; i++) {
		const struct ptok *t = &p->tk.v[i];
		int per = i > 0 && p->tk.v[i - 1].role == R_PER && !p->tk.v[i - 1].hangul &&
		          !(i > 1 && (p->tk.v[i - 2].kind == TK_NUM || p->tk.v[i - 2].kind == TK_PUNCT ||
		                      strlen(p->tk.v[i - 2].text) <= 2));   /* (mg per day, 2 per day: a rate) */
		/* (not a word of a name linked: "daily weight"; nor which period: "3분기", "quarter 3") */
		int which = (i > 0 && p->tk.v[i - 1].kind == TK_NUM) || (i + 1 < p->tk.n && p->tk.v[i + 1].kind == TK_NUM);
		/* ("수술 건수 추이", "trend of deaths": a series over time, never one total) */
		int trend = t->role == R_TIMELINE && (!strcmp(t->text, "추이") || !strcmp(t->text, "추세") || !strcmp(t->stem, "trend"));
		if ((t->role == R_BUCKET || trend || (t->role == R_UNIT && (t->group || per))) && !strongly_linked(p, i) && !which) {
			add_item(r, COV_BUCKET, pf_span_text(p, per ? i - 1 : i, i + 1));
			break;
		}
	}
	/* a superlative of an aggregate: groups ranked, never one figure of all rows */
	int s0, s1;
	if (pf_agg_superlative(p, &s0, &s1))
		add_item(r, COV_RANK, pf_span_text(p, s0, s1));
	/* two measures joined ("진료과별 수술 건수와 사망 건수" counted the deaths alone) */
	int m0 = -1, m1 = -1, nm = measures_asked(p, &m0, &m1);
	if (nm > 1) {
		struct cov_item *ci = add_item(r, COV_MEASURES, pf_span_text(p, m0, m1 + 1));
		if (ci)
			ci->num = nm;
	}
	/* numbers: a threshold, a count, a limit; not a time span (3개월), a date or an ordinal */
	for (int i = 0; i < p->tk.n; i++) {
		const struct ptok *t = &p->tk.v[i];
		if (t->kind != TK_NUM || t->num == 1 || (t->unit && strchr("hdwmy", t->unit)))
			continue;
		if (i + 1 < p->tk.n && (!strcmp(p->tk.v[i + 1].text, "번째") || !strcmp(p->tk.v[i + 1].text, "째") ||
		                        p->tk.v[i + 1].role == R_UNIT ||
		                        /* 3분기, "quarter 3": which quarter, placed in time */
		                        (p->tk.v[i + 1].used && (!strcmp(p->tk.v[i + 1].text, "분기") ||
		                                                 !strcmp(p->tk.v[i + 1].stem, "quarter")))))
			continue;
		if (date_part(p, i))
			continue;
		struct cov_item *ci = add_item(r, COV_NUMBER, pf_span_text(p, i, i + 1));
		if (ci)
			ci->num = t->num;
		int cl = column_before(p, i);
		for (int k = 0; ci && cl >= 0 && k < p->pl.v[cl].ncols && k < COV_MAXVAL; k++)
			add_col(r, ci, p->s->c[p->pl.v[cl].cols[k]].name);   /* (any column the words name) */
	}
	/* event windows (수술 전 크레아티닌): a time compared with the event's start or end */
	for (int e = 0; e < p->f.nev; e++) {
		int start, end;
		if (pf_event_columns(p, e, &start, &end) <= 0)
			continue;
		struct cov_item *ci = add_item(r, COV_WINDOW, pf_span_text(p, p->f.ev[e].t0, p->f.ev[e].t1));
		add_col(r, ci, p->s->c[p->f.ev[e].rel == EV_AFTER ? end : start].name);
		add_col(r, ci, p->s->c[p->f.ev[e].rel == EV_AFTER ? start : end].name);
	}
	const char *keys[3] = {p->s->entity_patient, p->s->entity_case, p->s->entity_encounter};
	for (int k = 0; k < 3; k++)
		if (keys[k] && r->nkeys < COV_MAXKEYS)
			r->entity_keys[r->nkeys++] = arena_strdup(&r->a, keys[k]);
	r->entity_grouping_asked = entity_asked(p);
	return r;
}
