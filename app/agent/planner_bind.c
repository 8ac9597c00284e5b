/* planner_bind.c: links and numbers of a question bound to the frame: comparisons, concepts, filters, groups. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/planner_front.h"

/* "times", "번", "회": what is counted, not measured ("admitted 4 or more times") */
static int times_word(const struct ptok *t)
{
	return !strcmp(t->text, "times") || !strcmp(t->text, "번") || !strcmp(t->text, "회") || !strcmp(t->text, "번이상") ||
	       !strcmp(t->text, "회이상");
}

/* op_sql: a comparison role as SQL */
static const char *op_sql(enum role op)
{
	return op == R_GT ? ">" : op == R_LT ? "<" : op == R_GE ? ">=" : op == R_LE ? "<=" : "BETWEEN";
}

/* having: "N or more times" (number at token num, the times word at tw): the rows counted per
 * patient or stay are compared with N (shape_having.c) */
static void having(struct planner *p, enum role op, int num, int tw)
{
	p->f.having_op = op == R_NONE ? "=" : op_sql(op);   /* (R_NONE: "prescribed two times", exactly) */
	p->f.having_n = pf_numtext(p, p->tk.v[num].num);
	p->tk.v[num].used = p->tk.v[tw].used = 1;
	pf_decide(p, pf_span_text(p, num, tw + 1), "filter", arena_printf(&p->a, "COUNT(*) %s %s", p->f.having_op, p->f.having_n),
	          "a number of times per patient or stay", 1);
}

/* a number written with a times counter: 3번, 4회 (the tokenizer's unit 't') */
static int times_num(const struct ptok *t)
{
	return t->kind == TK_NUM && t->unit == 't';
}

/* after_or_more: the token after the number at num and its "or more" (read with the number) */
static int after_or_more(struct planner *p, int num)
{
	int k = num + 1;
	while (k < p->tk.n && k <= num + 2 && !p->tk.v[k].hangul &&
	       (!strcmp(p->tk.v[k].text, "or") || p->tk.v[k].role == R_GT || p->tk.v[k].role == R_LT))
		k++;
	return k;
}

/* "2 or more admissions", "at least 3 visits": the word after the number (and its "or more")
 * names an entity (admissions, visits, cases) or a table, whose rows are what is counted */
static int rows_named_after(struct planner *p, int num)
{
	int k = after_or_more(p, num);
	if (k >= p->tk.n || p->tk.v[k].hangul)
		return 0;   /* 90 미만인 환자: the patients are who is counted, not what */
	int kind = pf_tok_ent(&p->tk.v[k]);
	if ((kind >= 0 && kind != ENT_PATIENT) || pf_is_visit_word(&p->tk.v[k]))
		return 1;   /* admissions, visits, stays, cases */
	for (int l = 0; l < p->pl.n; l++)
		if (p->pl.v[l].kind == PL_TABLE && p->pl.v[l].t0 == k)
			return 1;
	return 0;
}

/* counted_after: what the number at num counts when a noun for rows follows it within a few
 * words ("more than one ICU stay", "at least 10 packed red blood cells input events", "45 different
 * patients"): 1 stays, visits, cases or events (conf/lexicon/phrases.tsv, role counted_rows), 2
 * patients, 0 none.  The words between may be modifiers (different, separate: role
 * count_modifier) or words a link took (the item counted).  English only: Korean counts are read
 * by their counters (3번, 2명). */
static int counted_after(struct planner *p, int num)
{
	const char *const *rows = planner_lex_phrases("counted_rows"), *const *mods = planner_lex_phrases("count_modifier");
	int k = after_or_more(p, num);
	for (int steps = 0; k < p->tk.n && steps < 6; k++, steps++) {
		const struct ptok *t = &p->tk.v[k];
		int in_link = 0;
		if (t->hangul || t->kind != TK_WORD)
			return 0;
		int ent = pf_tok_ent(t), kind = ent == ENT_PATIENT ? 2 : 0;
		if (!kind && (ent >= 0 || pf_is_visit_word(t) || planner_in_list(rows, t->stem) || planner_in_list(rows, t->text)))
			kind = 1;
		if (kind) {
			for (int x = num + 1; x < k; x++)   /* the modifiers were read with the number */
				if (planner_in_list(mods, p->tk.v[x].text))
					p->tk.v[x].used = 1;
			return kind;
		}
		for (int l = 0; l < p->pl.n && !in_link; l++)
			in_link = p->pl.v[l].t0 <= k && k < p->pl.v[l].t1;
		if (!in_link && !planner_in_list(mods, t->text))
			return 0;
	}
	return 0;
}

/* link_distance: tokens between link it and a comparison (its word at i, its number at num) */
static int link_distance(const struct plink_item *it, int i, int num)
{
	int d = it->t1 <= i ? i - it->t1 : it->t0 - num;
	return d < 0 ? -d : d;
}

/* a unit written after a number (g/dL, mg, mmHg, %) */
static int unit_tok(const struct ptok *t)
{
	static const char *const u[] = {"g", "dl", "mg", "mmhg", "mmol", "l", "ml", "meq", "iu", "u", "kg", "cm", "bpm",
	                                "ng", "pg", "ug", "mcg", "mm", "ul", "/", "%", NULL};
	if (t->hangul || (t->kind != TK_WORD && t->kind != TK_PUNCT))
		return 0;
	for (int k = 0; u[k]; k++)
		if (!strcmp(t->text, u[k]))
			return 1;
	return 0;
}

/* unit_start: the token before the units that end just before token i (i - 1 when none) */
static int unit_start(struct planner *p, int i)
{
	int k = i - 1;
	while (k > 0 && i - k <= 4 && unit_tok(&p->tk.v[k]))
		k--;
	return k;
}

/* units_used: tokens [from, to) are a number's unit: read with it, and no link of theirs (a unit
 * column's stored 'g/dL') filters the answer */
static void units_used(struct planner *p, int from, int to)
{
	for (int x = from; x < to; x++) {
		p->tk.v[x].used = 1;
		for (int l = 0; l < p->pl.n; l++)
			if (p->pl.v[l].t0 <= x && x < p->pl.v[l].t1)
				p->pl.v[l].role = PL_ROLE_IGNORED;
	}
}

/* particle_off: word t ends in particle part as written in the question ("BMI가": the tokenizer
 * keeps the Latin word alone, with no Hangul mark, so pf_took_particle does not see it) */
static int particle_off(const struct planner *p, const struct ptok *t, const char *part)
{
	size_t pl = strlen(part);
	return t->len > (int)pl && strcmp(t->text, part) && p->question && (size_t)(t->off + t->len) <= strlen(p->question) &&
	       !strncmp(p->question + t->off + t->len - pl, part, pl);
}

/* ref_link: a numeric column named right after an English comparison word at token i ("above the
 * upper limit of the reference range") or right before a Korean one (참고치 상한 넘은): the other
 * side of a comparison between two columns; the link's index, or -1 */
static int ref_link(struct planner *p, int i)
{
	const struct ptok *t = &p->tk.v[i];
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		if (it->kind != PL_COLUMN || p->s->c[it->cols[0]].type != PT_NUM || pf_is_keyish(p, it->cols[0]))
			continue;
		if (t->hangul) {
			/* (a subject or topic is what is compared, not what it is compared with: "BMI가 초과
			 * 환자" would be a BMI over something, not an age above the BMI) */
			const struct ptok *w = it->t1 > 0 ? &p->tk.v[it->t1 - 1] : NULL;
			int subject = w && (particle_off(p, w, "이") || particle_off(p, w, "가") || particle_off(p, w, "은") ||
			                    particle_off(p, w, "는"));
			/* (높은, 낮았던 say a thing is high; only with 보다 do they compare it with another:
			 * "BMI 높은 환자" is a high BMI too) */
			subject |= (!strncmp(t->text, "높", strlen("높")) || !strncmp(t->text, "낮", strlen("낮"))) &&
			           !(w && particle_off(p, w, "보다"));   /* ("하한보다 낮았던": than the lower limit) */
			if ((it->t1 == i && !subject) || (it->t1 == i - 1 && !strcmp(p->tk.v[i - 1].text, "보다")))
				return l;
			continue;
		}
		int k = i + 1;   /* "above the", "below the lower" */
		while (k < it->t0 && k <= i + 3 && (p->tk.v[k].role == R_STOP || !strcmp(p->tk.v[k].text, "the") ||
		                                    p->tk.v[k].role == R_LT || p->tk.v[k].role == R_GT))
			k++;
		if (k == it->t0 && k > i)
			return l;
	}
	return -1;
}

/* side_word: +1 a word for a range's upper limit (upper, high, max, 상한), -1 its lower one, else 0 */
static int side_word(const struct ptok *t)
{
	static const char *const hi[] = {"upper", "high", "higher", "max", "maximum", "상한", "상한치", "최대", "최고", NULL};
	static const char *const lo[] = {"lower", "low", "min", "minimum", "하한", "하한치", "최소", "최저", NULL};
	for (int k = 0; hi[k]; k++)
		if (!strcmp(t->text, hi[k]) || !strcmp(t->stem, hi[k]))
			return 1;
	for (int k = 0; lo[k]; k++)
		if (!strcmp(t->text, lo[k]) || !strcmp(t->stem, lo[k]))
			return -1;
	return 0;
}

/* the words naming the two limits of a range in column names (range_low, range_high) */
static const char *const limit_words[][2] = {{"low", "high"}, {"lower", "upper"}, {"min", "max"}};

/* limit_sibling: the numeric column of c's table named as c is with `from` (its first occurrence)
 * put as `to` (range_low -> range_high), or -1 */
static int limit_sibling(struct planner *p, int c, const char *from, const char *to)
{
	const char *name = p->s->c[c].name, *at = strstr(name, from);
	char buf[128];
	if (!at || snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - name), name, to, at + strlen(from)) >= (int)sizeof buf)
		return -1;
	int sib = pf_col_in(p, p->s->c[c].table, buf);
	return sib >= 0 && p->s->c[sib].type == PT_NUM ? sib : -1;
}

/* limit_pair: column c is one of a low/high pair of its table (ref_low, ref_high) */
static int limit_pair(struct planner *p, int c)
{
	for (int k = 0; k < 3 && p->s->c[c].type == PT_NUM; k++)
		for (int side = 0; side < 2; side++)
			if (limit_sibling(p, c, limit_words[k][side], limit_words[k][!side]) >= 0)
				return 1;
	return 0;
}

/* range_side: the limit a comparison means when the column linked is one of a low/high pair of
 * one table (range_low, range_high): the side the phrase's words name, else the side its
 * direction implies ("above the reference range": the upper limit) */
static int range_side(struct planner *p, int c2, enum role op, int from, int to)
{
	int side = 0;
	for (int x = from; x < to && !side; x++)
		side = side_word(&p->tk.v[x]);
	if (!side)
		side = op == R_GT || op == R_GE ? 1 : -1;
	for (int k = 0; k < 3; k++) {
		int sib = limit_sibling(p, c2, limit_words[k][side < 0], limit_words[k][side > 0]);
		if (sib >= 0)
			return sib;
	}
	return c2;
}

/* col_link_at: a column link of table ti starts at token k */
static int col_link_at(const struct planner *p, int k, int ti)
{
	for (int m = 0; m < p->pl.n; m++)
		if (p->pl.v[m].kind == PL_COLUMN && p->pl.v[m].t0 == k && p->s->c[p->pl.v[m].cols[0]].table == ti)
			return 1;
	return 0;
}

/* ref_compare: the comparison at token i is with the column of link l ("potassium above the
 * upper limit of the reference range": value_as_number > range_high); the measure compared is
 * the fact table's, resolved with the table (pf_bind_rest). The words of the limit's phrase and
 * the links inside it are read here, so no other rule takes "reference range" for a column shown */
static void ref_compare(struct planner *p, int i, int l)
{
	struct frame *f = &p->f;
	struct plink_item *it = &p->pl.v[l];
	int c2 = it->cols[0], from = it->t0 < i ? it->t0 : i, to = it->t1 > i ? it->t1 : i + 1;
	while (!p->tk.v[i].hangul && to < p->tk.n) {   /* "... of the reference range" */
		int at = to, ti = p->s->c[c2].table;
		while (!col_link_at(p, at, ti) && at < p->tk.n && at < to + 2 &&
		       (p->tk.v[at].role == R_STOP || !strcmp(p->tk.v[at].text, "of") || !strcmp(p->tk.v[at].text, "the")))
			at++;   /* "of the" before the next column's words */
		if (!col_link_at(p, at, ti))
			break;
		for (int m = 0; m < p->pl.n; m++)   /* at least one link starts at 'at', so 'to' grows */
			if (p->pl.v[m].kind == PL_COLUMN && p->pl.v[m].t0 == at)
				to = p->pl.v[m].t1 > to ? p->pl.v[m].t1 : to;
	}
	c2 = range_side(p, c2, p->tk.v[i].role, from, to);
	for (int x = from; x < to; x++)
		p->tk.v[x].used = 1;
	for (int m = 0; m < p->pl.n; m++)
		if (p->pl.v[m].kind == PL_COLUMN && p->pl.v[m].t0 >= from && p->pl.v[m].t1 <= to)
			p->pl.v[m].role = 1;   /* read by the comparison, not a column shown or a measure */
	f->cond[f->ncond].col = -1;
	f->cond[f->ncond].op = op_sql(p->tk.v[i].role);
	f->cond[f->ncond].lit = p->s->c[c2].name;
	f->cond[f->ncond].num = 5;
	f->cond[f->ncond].lit2 = NULL;
	f->cond[f->ncond++].col2 = c2;
	pf_decide(p, pf_span_text(p, from, to), "filter", arena_printf(&p->a, "%s %s", op_sql(p->tk.v[i].role), pf_cfq(p, c2)),
	          "a comparison with another column", 0.9);
}

/* n_fraction: the number is written with a fraction (5.5): never a number of rows */
static int n_fraction(const struct ptok *t)
{
	return t->kind == TK_NUM && t->num != (double)(long)t->num;
}

/* numeric comparisons: a number next to a comparison word, bound to the nearest numeric column */
int pf_comparisons(struct planner *p)
{
	struct frame *f = &p->f;
	for (int i = 0; i < p->tk.n; i++) {
		struct ptok *t = &p->tk.v[i];
		enum role op = R_NONE;
		int num = -1, num2 = -1, rl;
		if (t->kind == TK_NUM && t->unit == 'D' && !t->used && t->num >= 200)
			return pf_decline(p, "'%s' is a decade of years, which the offline planner does not build", t->text);
		if (t->kind == TK_NUM && t->unit == 'D' && !t->used) {
			op = R_BETWEEN;   /* "patients in their 20s": a decade of age ("the 1960s": declined above) */
			num = i;
		} else if (t->kind == TK_NUM && !t->used && i > 0 && i + 2 < p->tk.n && pf_age_word(&p->tk.v[i - 1]) &&
		           !strcmp(p->tk.v[i + 1].text, "to") && p->tk.v[i + 2].kind == TK_NUM) {
			op = R_BETWEEN;   /* "aged 40 to 49" */
			num = i;
			num2 = i + 2;
		} else if (t->kind == TK_NUM && !t->used && i + 2 < p->tk.n &&
		           (!strcmp(p->tk.v[i + 1].text, "or") || !strcmp(p->tk.v[i + 1].text, "and")) &&
		           (p->tk.v[i + 2].role == R_GT || p->tk.v[i + 2].role == R_LT)) {
			op = p->tk.v[i + 2].role == R_GT ? R_GE : R_LE;   /* "60 or above", "65 and over" */
			num = i;
			p->tk.v[i + 1].used = p->tk.v[i + 2].used = 1;
		} else if (t->kind == TK_NUM && t->cmp && !t->used) {
			op = t->cmp;
			num = i;
		} else if (t->kind == TK_NUM && !t->used && !t->unit && i + 1 < p->tk.n && times_word(&p->tk.v[i + 1]) &&
		           !p->tk.v[i + 1].hangul && !(i > 0 && p->tk.v[i - 1].role != R_NONE && p->tk.v[i - 1].role != R_STOP) &&
		           f->entity_val && !f->having_op) {
			/* "the drug patient 7 was prescribed two times": exactly that many, of one patient's rows */
			having(p, R_NONE, i, i + 1);
			continue;
		} else if ((t->role == R_GT || t->role == R_LT || t->role == R_GE || t->role == R_LE || t->role == R_BETWEEN) &&
		           !t->used) {
			/* "greater than or equal to", "at least", "more than" */
			int j = i + 1;
			while (j < p->tk.n && p->tk.v[j].kind == TK_WORD && (p->tk.v[j].role == R_STOP || planner_lex_generic(p->tk.v[j].stem) ||
			                                                     p->tk.v[j].role == R_GE) && j < i + 4)
				j++;
			/* (a Korean comparison word follows its number: "1.5 초과 70세 이상" is 1.5 exceeded,
			 * then 70 or more, never "more than 70") */
			int behind = t->hangul && i > 0 && p->tk.v[unit_start(p, i)].kind == TK_NUM && !p->tk.v[unit_start(p, i)].used;
			if (j < p->tk.n && p->tk.v[j].kind == TK_NUM && !behind) {
				op = t->role;
				num = j;
				if (op == R_BETWEEN && j + 2 < p->tk.n && p->tk.v[j + 1].role == R_AND && p->tk.v[j + 2].kind == TK_NUM)
					num2 = j + 2;
			} else if (i > 1 && p->tk.v[i - 1].kind == TK_WORD && times_word(&p->tk.v[i - 1]) &&
			           p->tk.v[i - 2].kind == TK_NUM && p->tk.v[i].hangul) {
				having(p, t->role, i - 2, i - 1);   /* 4번 이상 */
				t->used = 1;
				continue;
			} else if (i > 0 && p->tk.v[unit_start(p, i)].kind == TK_NUM && !p->tk.v[unit_start(p, i)].used &&
			           (p->tk.v[i].hangul ||
			            /* ("3+ admissions": how many rows, not an attribute of 3 or more) */
			            (!strcmp(p->tk.v[i].text, "+") &&
			             !(i + 1 < p->tk.n && p->tk.v[i + 1].kind == TK_WORD && pf_is_visit_word(&p->tk.v[i + 1]))))) {
				op = t->role;   /* 65 이상, 10 g/dL 미만, ASA 3+ */
				num = unit_start(p, i);
				units_used(p, num + 1, i);
			} else if (t->role != R_BETWEEN && f->ncond < MAXF && (rl = ref_link(p, i)) >= 0) {
				ref_compare(p, i, rl);
				continue;
			} else if (op == R_NONE && (t->role == R_GT || t->role == R_LT) && !t->hangul) {
				/* "greater than that first measured": a comparison between two values */
				int k = i + 1;
				while (k < p->tk.n && (p->tk.v[k].role == R_STOP || !strcmp(p->tk.v[k].text, "than")))
					k++;
				if (k + 1 < p->tk.n && p->tk.v[k + 1].used)
					continue;   /* "over the last 7 days": part of a time window already read */
				if (k < p->tk.n && (!strcmp(p->tk.v[k].text, "that") || !strcmp(p->tk.v[k].text, "the")))
					return pf_decline(p, "%s", "comparing two measurements with each other is not a shape the offline planner builds");
				continue;
			} else {
				continue;
			}
		} else {
			continue;
		}
		/* "hemoglobin under 8 cases": a measure named right before the comparison (or a fraction,
		 * 5.5) is a threshold of that measure, not a number of rows ("cases with fewer than 8 tests") */
		int lead = num > i ? i - 1 : num - 1, measured = n_fraction(&p->tk.v[num]);
		for (int l = 0; l < p->pl.n && lead >= 0 && !measured; l++)
			measured = p->pl.v[l].t1 == lead + 1 && p->pl.v[l].role != PL_ROLE_IGNORED &&
			           (p->pl.v[l].kind == PL_VALUE || (p->pl.v[l].kind == PL_COLUMN && p->s->c[p->pl.v[l].cols[0]].type == PT_NUM &&
			                                            !pf_is_keyish(p, p->pl.v[l].cols[0])));
		/* "admitted 4 or more times", "more than 3 times", 3번 이상, "at least 3 visits" */
		int tw = after_or_more(p, num);
		if (((tw < p->tk.n && times_word(&p->tk.v[tw])) || times_num(&p->tk.v[num]) || (!measured && rows_named_after(p, num))) &&
		    op != R_BETWEEN) {
			having(p, op, num, times_num(&p->tk.v[num]) ? num : tw < p->tk.n && times_word(&p->tk.v[tw]) ? tw : num + 1);
			t->used = 1;
			continue;
		}
		/* "more than one ICU stay", "at least 10 ... input events": rows counted per patient; "at
		 * least 45 different patients": patients counted per something else, not built */
		int counted = op != R_BETWEEN && !measured ? counted_after(p, num) : 0;
		if (counted == 1) {
			having(p, op, num, num);
			t->used = 1;
			continue;
		}
		if (counted == 2)
			return pf_decline(p, "the number '%s' counts patients per something else, a shape the offline planner does "
			                     "not build", p->tk.v[num].text);
		/* the column: "age" for ages and older/younger; else the nearest linked numeric column */
		int col = -1, from_birth = 0;
		struct ptok *n = &p->tk.v[num];
		if (n->unit == 'a' || n->unit == 'D' || !strcmp(t->text, "older") ||
		    (num == i && i + 2 < p->tk.n && (!strcmp(p->tk.v[i + 2].text, "older") || !strcmp(p->tk.v[i + 2].text, "younger"))) ||
		    (num > 0 && (!strcmp(p->tk.v[num - 1].text, "aged") || !strcmp(p->tk.v[num - 1].text, "age"))) || !strcmp(t->text, "younger") || !strcmp(t->stem, "ag") ||
		    (num > i && i > 0 && pf_age_word(&p->tk.v[i - 1])) ||   /* "aged over 70", "age above 65" */
		    /* "patients over 80 with a lactate above 4": over a bare number, said of the patients, is
		     * their age (the number went to the lactate, the nearest measure) */
		    ((num == i + 1 || (num == i && t->kind == TK_NUM)) && i > 0 && !n->unit &&   /* (or "patients 65 and over") */
		     ((pf_tok_ent(&p->tk.v[i - 1]) >= 0 && pf_tok_ent(&p->tk.v[i - 1]) == planner_ent_word("patient")) ||
		      planner_in_list(planner_lex_phrases("people"), p->tk.v[i - 1].text)) &&   /* "women over 60" */
		     !(num + 1 < p->tk.n && (unit_tok(&p->tk.v[num + 1]) || p->tk.v[num + 1].role == R_UNIT))))
			col = pf_age_col(p, &from_birth);
		int bestd = 99, aged = col >= 0;
		for (int l = 0; l < p->pl.n && col >= 0; l++)
			if (p->pl.v[l].kind == PL_COLUMN && p->pl.v[l].cols[0] == col)
				p->pl.v[l].role = 1;   /* "aged": the age column of the comparison */
		/* (every link is weighed: "average age of patients with bmi over 30" compared the age, the
		 * first numeric column named, and averaged the bmi) */
		for (int l = 0; l < p->pl.n && !aged; l++) {
			struct plink_item *it = &p->pl.v[l];
			if (it->kind != PL_COLUMN || p->s->c[it->cols[0]].type != PT_NUM || pf_is_keyish(p, it->cols[0]))
				continue;   /* a number is not compared with an identifier or a code's key */
			if (p->s->c[it->cols[0]].flag && n->num != 0 && n->num != 1)
				continue;   /* nor a threshold (1.5) with a yes/no attribute (0/1): 당뇨 is a filter */
			int d = link_distance(it, i, num);
			if (d < bestd) {
				bestd = d;
				col = it->cols[0];
			}
		}
		/* "ASA 3 patients had a hemoglobin under 10": a stored value (a lab test) named nearer the
		 * number than that column is what is compared: its table's measure, resolved later (the
		 * number went to asa, the nearest numeric column) */
		for (int l = 0; l < p->pl.n && col >= 0 && bestd < 99; l++) {
			const struct plink_item *it = &p->pl.v[l];
			if (it->kind != PL_VALUE || !it->ncols || p->s->c[it->cols[0]].table == p->s->c[col].table)
				continue;
			if (link_distance(it, i, num) < bestd)
				col = -1;
		}
		for (int l = 0; l < p->pl.n && col >= 0; l++)
			if (p->pl.v[l].kind == PL_COLUMN && p->pl.v[l].cols[0] == col)
				p->pl.v[l].role = 1;
		/* no column named: the fact table's measure ("potassium over 5.5"), resolved once the
		 * table is chosen (col -1 until then) */
		if (f->ncond >= MAXF)
			continue;
		{
			int e = num + 1;   /* "below 8 g/dL": the unit after the number */
			while (e < p->tk.n && e - num <= 4 && unit_tok(&p->tk.v[e]))
				e++;
			if (num > i)
				units_used(p, num + 1, e);
		}
		const char *ops = op_sql(op);
		/* "ICU stay over 48 hr": a span of time compared with a column counted in another unit (ICU
		 * days) or in none (an age) is not that column's number */
		int u = n->unit ? n->unit : (num + 1 < p->tk.n && p->tk.v[num + 1].role == R_UNIT ? p->tk.v[num + 1].unitv : 0);
		if (col >= 0 && u && strchr("hdwm", u) && p->s->c[col].type != PT_TIME) {
			const char *w = u == 'h' ? "hour" : u == 'd' ? "day" : u == 'w' ? "week" : "month";
			if (!strstr(p->s->c[col].name, w) && !(u == 'h' && strstr(p->s->c[col].name, "hr")))
				return pf_decline(p, "the number '%s' is a span of time, and the column it is compared with is not "
				                     "counted in that unit", n->text);
		}
		f->cond[f->ncond].at = num + 1;
		f->cond[f->ncond].col = col;
		f->cond[f->ncond].op = ops;
		f->cond[f->ncond].lit = pf_numtext(p, n->num);
		f->cond[f->ncond].num = from_birth ? 4 : 1;
		f->cond[f->ncond].lit2 = num2 >= 0 ? pf_numtext(p, p->tk.v[num2].num) : NULL;
		if (n->unit == 'D')
			f->cond[f->ncond].lit2 = pf_numtext(p, n->num + 9);
		f->ncond++;
		t->used = 1;
		n->used = 1;
		if (num2 >= 0) {
			p->tk.v[num2].used = 1;
			p->tk.v[num2 - 1].used = 1;
		}
		if (col >= 0)
			pf_decide(p, pf_span_text(p, i < num ? i : num, (num2 >= 0 ? num2 : (num > i ? num : i)) + 1), "filter",
			       arena_printf(&p->a, "%s %s %s", pf_cfq(p, col), ops, n->text), "numeric comparison", 1);
		else
			f->cond[f->ncond - 1].lit2 = f->cond[f->ncond - 1].lit2 ? f->cond[f->ncond - 1].lit2 : NULL;
	}
	/* "robotic cases with an ICU stay", "w/ ICU stay": a count of days or times said after with and
	 * compared with nothing is the rows where it is more than zero (the cases were listed with
	 * their ICU days, the with dropped) */
	for (int l = 0; l < p->pl.n && f->ncond < MAXF; l++) {
		struct plink_item *it = &p->pl.v[l];
		if (it->kind != PL_COLUMN || it->role || p->s->c[it->cols[0]].type != PT_NUM || pf_is_keyish(p, it->cols[0]) ||
		    p->s->c[it->cols[0]].flag)
			continue;
		const char *nm = p->s->c[it->cols[0]].name;
		if (!strstr(nm, "day") && !strstr(nm, "cnt") && !strstr(nm, "count") && !strstr(nm, "times"))
			continue;
		int k = it->t0 - 1;
		while (k > 0 && (!strcmp(p->tk.v[k].text, "a") || !strcmp(p->tk.v[k].text, "an") || !strcmp(p->tk.v[k].text, "any") ||
		                 !strcmp(p->tk.v[k].text, "/")))
			k--;   /* ("w/ ICU stay": the w read as with) */
		if (k < 0 || strcmp(p->tk.v[k].stem, "with"))
			continue;
		int e = it->t1;
		if (e < p->tk.n && (p->tk.v[e].kind == TK_NUM || p->tk.v[e].role == R_GT || p->tk.v[e].role == R_LT ||
		                    p->tk.v[e].role == R_GE || p->tk.v[e].role == R_LE || p->tk.v[e].role == R_BETWEEN))
			continue;   /* "with ICU days over 3": the comparison said */
		f->cond[f->ncond].at = 0;
		f->cond[f->ncond].col = it->cols[0];
		f->cond[f->ncond].op = ">";
		f->cond[f->ncond].lit = "0";
		f->cond[f->ncond].num = 1;
		f->cond[f->ncond].lit2 = NULL;
		f->ncond++;
		it->role = 1;
		p->tk.v[k].used = 1;
		pf_decide(p, pf_span_text(p, k, it->t1), "filter", arena_printf(&p->a, "%s > 0", pf_cfq(p, it->cols[0])),
		          "a count said after with: the rows where there is one", 1);
	}
	/* two numbers compared the same way with one measure ("women over 60 with a potassium above
	 * 5" read as potassium > 60 and > 5): one of them belongs to something else; the stricter
	 * alone would answer another question, so the question is declined, naming the number */
	for (int a = 0; a < f->ncond; a++)
		for (int b = a + 1; b < f->ncond; b++) {
			const char *x = f->cond[a].op, *y = f->cond[b].op;
			if (f->cond[a].num != 1 || f->cond[b].num != 1 || f->cond[a].col != f->cond[b].col || !x || !y ||
			    f->cond[a].lit2 || f->cond[b].lit2 || x[0] != y[0] || (x[0] != '>' && x[0] != '<'))
				continue;
			return pf_decline(p, "two numbers ('%s' and another) are compared the same way with one measure; which "
			                     "thing each is of could not be told", f->cond[b].lit);
		}
	return 0;
}

/* pf_unread_comparison: a comparison word ("above", 초과, "older") that nothing read (no number,
 * no limit column, no pair of values) leaves a condition of the question out of the answer:
 * declined, naming the word; "가장 높은" and "higher first" are orders, not conditions; 0 or -1 */
int pf_unread_comparison(struct planner *p)
{
	/* "퇴원 결과에 따른 평균 재원일수": a Korean breakdown word (따른, 따라, 마다, 별로) after a word the
	 * plan read otherwise (the discharge of the length of stay), and nothing grouped: one number
	 * for every group */
	for (int i = 1; i < p->tk.n && !p->f.ngroup && !p->f.bucket && !p->f.entity_group; i++) {
		const struct ptok *t = &p->tk.v[i];
		if (pf_korean_breakdown_word(t) && p->tk.v[i - 1].kind == TK_WORD && !p->tk.v[i - 1].group)
			return pf_decline(p, "'%s' asks for a breakdown, and the plan groups by nothing",
			                  pf_span_text(p, i - 1, i + 1));
	}
	/* "patients with high potassium": 'high' names the reference range's upper limit column, and
	 * no comparison read it; shown as a column, the list held every potassium result.  A limit of
	 * a low/high pair named by one side word and left unread is a condition not built */
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		if (it->kind != PL_COLUMN || it->role != 0 || it->t1 - it->t0 != 1 || !side_word(&p->tk.v[it->t0]) ||
		    !limit_pair(p, it->cols[0]))
			continue;
		return pf_decline(p, "'%s' names a limit of a range; a comparison with it (above or below it) was not read",
		                  p->tk.v[it->t0].text);
	}
	for (int i = 0; i < p->tk.n && !p->decline; i++) {
		const struct ptok *t = &p->tk.v[i];
		if (t->used || t->kind != TK_WORD || (t->role != R_GT && t->role != R_LT && t->role != R_GE && t->role != R_LE))
			continue;
		/* "over the past year", "under which", "one more", "60 and older" read otherwise */
		static const char *const cond_words[] = {"above", "below", "exceed", "exceeding", "exceeded", "exceeds", "greater",
		                                         "higher", "lower", "초과", "미만", "넘은", "넘는", "넘게", "높은", "낮은",
		                                         "높았던", "낮았던", "높게", "낮게",
		                                         NULL};   /* not 이상: alone it also means "abnormal" */
		if (!strcmp(t->text, "이상"))
			/* 이상 that no number or limit read is "abnormal" ("이상 결과"): a filter to link, not a
			 * word to skip */
			return pf_decline(p, "could not link '%s' to any table, column or stored value", t->text);
		if (!planner_in_list(cond_words, t->text))
			continue;
		if (i > 0 && (!strcmp(p->tk.v[i - 1].text, "가장") || !strcmp(p->tk.v[i - 1].text, "제일") ||
		              !strcmp(p->tk.v[i - 1].text, "most")))
			continue;   /* 가장 높은: the top, read by the ranking */
		if (i + 1 < p->tk.n && !strncmp(p->tk.v[i + 1].text, "순", strlen("순")))
			continue;   /* 높은 순으로: an order */
		return pf_decline(p, "'%s' compares with something the offline planner could not find (no number or limit "
		                     "column after it)", t->text);
	}
	return 0;
}

int pf_age_word(const struct ptok *t)
{
	int age = t->kind == TK_WORD && (!strcmp(t->stem, "age") || !strcmp(t->text, "aged"));
	for (const char *const *sy = planner_lex_syn(t->text); t->kind == TK_WORD && sy && *sy && !age; sy++)
		age = !strcmp(*sy, "age");
	return age;
}

static void age_words_used(struct planner *p)
{
	for (int i = 0; i < p->tk.n; i++)
		if (pf_age_word(&p->tk.v[i]))
			p->tk.v[i].used = 1;   /* "aged 65 or older", "나이는": read by the age comparison */
}

/* pf_age_col: the column an age is read from: a column named age, else a birth date (생년월일,
 * birth_datetime), whose age at the question's "now" is computed (*from_birth 1); -1 none */
int pf_age_col(struct planner *p, int *from_birth)
{
	double sc;
	int col = planner_link_term(&p->a, p->s, "age", p->r, p->banned, 0.9, &sc);
	*from_birth = 0;
	if (col >= 0) {
		age_words_used(p);
		return col;
	}
	static const char *const birth[] = {"birth", "생년월일", "출생일", NULL};
	for (int k = 0; birth[k]; k++) {
		col = planner_link_term_type(&p->a, p->s, birth[k], p->r, p->banned, 0.7, PT_TIME, &sc);
		if (col >= 0) {
			*from_birth = 1;
			age_words_used(p);
			return col;
		}
	}
	return -1;
}

/* the normal range of a measure: the catalog's metadata first, the lexicon's default otherwise */
void pf_concept_range(struct planner *p, int col, const char *value, double *lo, double *hi, const char **src)
{
	*src = "textbook default range";
	if (!value && p->s->c[col].has_range) {
		*lo = p->s->c[col].lo;
		*hi = p->s->c[col].hi;
		*src = "normal range from the catalog metadata";
	}
	for (int k = 0; value && k < p->s->nvr; k++)
		if (!strcmp(p->s->vr[k].value, value)) {
			*lo = p->s->vr[k].lo;
			*hi = p->s->vr[k].hi;
			*src = "normal range of the value from the catalog metadata";
		}
	for (int k = 0; p->r && k < p->r->ncolumns; k++) {
		const struct ret_column *rc = &p->r->columns[k];
		if (rc->has_range && !strcmp(rc->name, p->s->c[col].name) && !strcmp(rc->table, pf_tname(p, col)) && !value) {
			*lo = rc->range_lo;
			*hi = rc->range_hi;
			*src = "normal range from the catalog metadata";
		}
	}
}

/* ---- links -> filters, projections, groups ---- */

/* semi_value: candidate c of a value link, a dictionary's value that another event table of the
 * same patient or stay reaches through its key ("patients ever given insulin glargine" asked of
 * measurements): recorded as a semi-join (frame.semi); 0 done, -1 no such table */
static int semi_value(struct planner *p, struct plink_item *it, int c, const char *sp)
{
	struct frame *f = &p->f;
	int ev = -1, edge = -1, dt = p->s->c[it->cols[c]].table;
	if (f->nsemi < 4 && dt != f->fact && pf_shared_key(p, dt, NULL, NULL))
		ev = dt;   /* a value of that event table itself (주상병: main_sick_yn = 'Y') */
	for (int ti = 0; ti < p->s->nt && ev < 0 && f->nsemi < 4; ti++)
		if (ti != f->fact && ti != dt && pf_semi_keys(p, ti, NULL, NULL) &&
		    pf_dict_reaches(p, it->cols[c], it->vals[c], it->contains, ti, &edge))
			ev = ti;
	if (ev < 0)
		return -1;
	/* the event table is a part of the question's rows (orders during visits): its rows, not
	 * the visits of patients who had one, are what is asked about (the patients' own table is no
	 * such whole: "number of women with pneumonia" asks which of them had a diagnosis row) */
	if (pf_key_into(p, ev, f->fact) >= 0 && (pf_shared_key(p, ev, NULL, NULL) || !pf_semi_keys(p, ev, NULL, NULL)))
		return -1;   /* (keyed into the fact and sharing a parent with it, or the fact not the patients' own table) */
	/* "ER/inpatient visits": two values of one column are alternatives or two different rows; one
	 * subquery row holding both is neither */
	for (int k = 0; k < f->nsemi; k++)
		if (f->semi[k].event == ev && f->semi[k].col == it->cols[c] && strcmp(f->semi[k].val, it->vals[c])) {
			pf_decline(p, "%s", arena_printf(&p->a, "'%s' and '%s' are two values of %s; whether one or both is meant "
			                               "could not be told", f->semi[k].val, it->vals[c], pf_cfq(p, it->cols[c])));
			return 0;
		}
	f->semi[f->nsemi].event = ev;
	f->semi[f->nsemi].edge = edge;
	f->semi[f->nsemi].col = it->cols[c];
	f->semi[f->nsemi].val = it->vals[c];
	f->semi[f->nsemi++].contains = it->contains;
	pf_decide(p, sp, "value", arena_printf(&p->a, "through %s: %s %s '%s'", p->s->t[ev].name, pf_cfq(p, it->cols[c]),
	                                      it->contains ? "ILIKE" : "=", it->vals[c]),
	          "a stored value of another event table of the same patient or stay", it->score);
	return 0;
}

/* ident_col: a column that names a dictionary's rows one by one (its key, or a label with about one
 * value per row), not a category of them */
static int ident_col(struct planner *p, int c)
{
	const struct pcol *pc = &p->s->c[c];
	double rows = p->s->t[pc->table].rows > 0 ? p->s->t[pc->table].rows : pc->nvalues;
	return pc->unique || (pc->type == PT_TEXT && pc->nvalues > 0 && pc->nvalues * 2 >= rows);
}

static int dict_beside(struct planner *p, int col, int dt, int *key, int *edge);

/* code_of_dict: column col (not of dictionary dt) holds codes as recorded beside a key of its own
 * table into dt for the same thing (sex_source_value beside sex_concept_id) */
static int code_of_dict(struct planner *p, int col, int dt)
{
	int key, edge;
	return p->s->c[col].table != dt && pf_is_dictionary(p, dt) && dict_beside(p, col, dt, &key, &edge) >= 0;
}

/* next_to_dict: on the join path from table `from` to dictionary dt (two hops at most), the table
 * other than `from` that holds a key into dt, or -1 */
static int next_to_dict(struct planner *p, int from, int dt)
{
	int e[4], n = pf_path(p, from, dt, e, 2), mid = -1;
	for (int h = 0; h < n; h++) {
		int a = p->s->c[p->s->fk[e[h]].from].table, b = p->s->c[p->s->fk[e[h]].to].table;
		if (b == dt && a != dt)
			mid = a;
	}
	return mid != from && mid >= 0 && pf_key_into(p, mid, dt) >= 0 ? mid : -1;
}

/* cause_key: key column k says it holds a cause (its comment holds a word of role cause_word of
 * conf/lexicon/phrases.tsv: "Cause of death (concept)") */
static int cause_key(const struct planner *p, int k)
{
	const char *const *w = planner_lex_phrases("cause_word");
	const char *cm = p->s->c[k].comment;
	for (int i = 0; cm && w && w[i]; i++)
		if (strcasestr(cm, w[i]))
			return 1;
	return 0;
}

/* value_pick: which candidate column of a value link the plan filters: one a neighbouring word
 * names, one already filtered, one of the fact table, else one reachable from it; *unreached when
 * the fact table references that dictionary but no key of its reaches the value.  The candidate
 * index, -1 none, or -2 declined (two values of one dictionary through different keys) */
static int value_pick(struct planner *p, struct plink_item *it, const char *sp, int *unreached)
{
	struct frame *f = &p->f;
	int pick = -1;
	for (int l2 = 0; l2 < p->pl.n && it->ncols > 1; l2++) {
		struct plink_item *o = &p->pl.v[l2];
		if (o->kind != PL_COLUMN || (o->t0 > it->t1 + 1) || (o->t1 < it->t0 - 1))
			continue;
		for (int c = 0; c < it->ncols; c++)
			if (it->cols[c] == o->cols[0]) {
				pick = c;
				o->role = 2;   /* consumed: names the value's column */
			}
	}
	for (int c = 0; c < it->ncols && pick < 0 && it->ncols > 1; c++)
		for (int k = 0; k < f->nin; k++)
			if (f->in[k].col == it->cols[c])
				pick = c;
	for (int c = 0; c < it->ncols && pick < 0; c++)
		if (p->s->c[it->cols[c]].table == f->fact)
			pick = c;
	/* "average creatinine of women": 'F' both a concept's code (FEMALE) and the sex code as recorded
	 * beside a key into those concepts; one thing, filtered where it is recorded */
	for (int c = 0; c < it->ncols && pick < 0; c++)
		for (int d = 0; d < it->ncols && pick < 0; d++)
			if (d != c && code_of_dict(p, it->cols[d], p->s->c[it->cols[c]].table))
				pick = d;
	*unreached = 0;
	int by_path = pick < 0;
	for (int c = 0; c < it->ncols; c++) {
		int e[4];
		int dt = p->s->c[it->cols[c]].table, via = -1;
		if (pick >= 0 && pick != c)
			continue;
		if (pick < 0 && pf_path(p, f->fact, dt, e, 2) >= 0)
			pick = c;
		if (pick == c && dt != f->fact) {
			/* a dictionary the fact table references directly: the value must be found through
			 * one of those keys (a drug's name is not reached through a visit's admitted-from
			 * concept, nor through a diagnosis's concept) */
			int direct = pf_key_into(p, f->fact, dt) >= 0;
			*unreached = direct && !pf_dict_reaches(p, it->cols[c], it->vals[c], it->contains, f->fact, &via);
			/* ... and one reached through another table (operations -> patients -> concepts) through
			 * that table's keys: a diagnosis is not found through the patient's sex concept */
			int mid = direct ? -1 : next_to_dict(p, f->fact, dt);
			if (mid >= 0)
				*unreached = !pf_dict_reaches(p, it->cols[c], it->vals[c], it->contains, mid, &via);
		}
		/* two things of one dictionary reached through different keys (a diagnosis and its
		 * status, both concept names): one join cannot filter both */
		if (pick == c && via >= 0 && pf_set_via(p, dt, via, sp) < 0)
			return -2;
	}
	/* the same stored text in two tables the question's table reaches just as directly ("ER": a
	 * care site's code and the emergency visit type's code), with no word saying which: either
	 * reading answers another question, so it is asked, naming the word (docs/coverage.md) */
	for (int c = 0, e[4]; by_path && pick >= 0 && c < it->ncols; c++) {
		int dt = p->s->c[it->cols[c]].table, dp = p->s->c[it->cols[pick]].table;
		if (c == pick || dt == dp || dt == f->fact || dp == f->fact)
			continue;
		int np = pf_path(p, f->fact, dp, e, 2), nc = pf_path(p, f->fact, dt, e, 2);
		if (nc >= 0 && nc <= np) {
			pf_decline(p, "'%s' is stored as the value of two different things the question's table reaches; say which "
			              "one is meant", sp);
			return -2;
		}
	}
	return pick;
}

/* same_letters: a and b hold the same letters and digits, case aside ('albumin' and '<albumin>',
 * 'kcl (bolus)' and 'kcl bolus)': one label written twice, not two things) */
static int same_letters(const char *a, const char *b)
{
	for (;;) {
		while (*a && !isalnum((unsigned char)*a) && !((unsigned char)*a & 0x80))
			a++;
		while (*b && !isalnum((unsigned char)*b) && !((unsigned char)*b & 0x80))
			b++;
		if (!*a || !*b)
			return !*a && !*b;
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return 0;
		a++, b++;
	}
}

/* bind_value: a stored value: a filter on its column (several values of one column: IN), a group
 * when it is said per value; a value another event table of the same patient holds: a semi-join;
 * a one-word value of no joinable table is ignored; 0 or -1 declined */
static int bind_value(struct planner *p, struct plink_item *it, const char *sp, int per)
{
	struct frame *f = &p->f;
	int unreached;
	if (it->role == PL_ROLE_IGNORED)
		return 0;   /* a number's unit */
	/* "응급실 내원 건수" of a visit table: 내원 (visit) names the visits counted, not a dictionary's
	 * 'Visit' that its synonym happens to match */
	if (it->t1 - it->t0 == 1 && pf_is_visit_word(&p->tk.v[it->t0]) && f->fact >= 0 && f->fact == pf_visit_table(p, 0)) {
		int other = 1;
		for (int c = 0; c < it->ncols; c++)
			other &= p->s->c[it->cols[c]].table != f->fact && strcasecmp(it->vals[c], p->tk.v[it->t0].text) != 0;
		if (other) {
			pf_decide(p, sp, "ignored", pf_cfq(p, it->cols[0]), "a visit word names the visits themselves, not a stored value", 0);
			return 0;
		}
	}
	/* "담석 수술 건수": gallstones are on the patient's diagnosis list, no operation carries them */
	if (it->apart)
		return pf_decline(p, "'%s' qualifies the rows named after it, and its stored values are kept for the patient, "
		                     "not for each of those rows", sp);
	/* "전원 온 환자": a transfer out (discharge result 전원) or in (admission route 타병원 전원) */
	if (it->rival && !per)
		return pf_decline(p, "'%s' is the name of a code of one column and part of a code's name of another; which one "
		                     "is meant could not be told", sp);
	int pick = value_pick(p, it, sp, &unreached);
	if (pick == -2)
		return -1;
	/* "패혈증 환자 중 사망자 수", "sepsis patients who died": a value right before a word for
	 * patients is what the patients had, not the cause their death row records; another event
	 * table holding it (their diagnoses) says which patients, else declined */
	int dt0 = pick >= 0 ? p->s->c[it->cols[pick]].table : -1;
	if (pick >= 0 && !unreached && p->via && p->via[dt0] >= 0 && cause_key(p, p->s->fk[p->via[dt0]].from) &&
	    it->t1 < p->tk.n && pf_tok_ent(&p->tk.v[it->t1]) == ENT_PATIENT) {
		p->via[dt0] = -1;
		if (semi_value(p, it, pick, sp) == 0)
			return 0;
		return pf_decline(p, "'%s' right before a word for patients is what they had, and the plan would read it as a "
		                     "cause of death", sp);
	}
	if (pick >= 0 && unreached) {
		if (semi_value(p, it, pick, sp) == 0)
			return 0;
		return pf_decline(p, "'%s' is a stored value that no row of the question's table reaches through its keys", sp);
	}
	for (int c = 0; pick < 0 && c < it->ncols; c++)
		if (semi_value(p, it, c, sp) == 0)
			return 0;   /* a dictionary the question's table does not reach, another event table does */
	if (pick < 0 && it->t1 - it->t0 == 1) {
		double fs;
		int fc = planner_link_term(&p->a, p->s, p->tk.v[it->t0].text, p->r, p->banned, 0.85, &fs);
		int e[4];
		if (fc >= 0 && p->s->c[fc].flag && (p->s->c[fc].table == f->fact || pf_path(p, f->fact, p->s->c[fc].table, e, 3) >= 0)) {
			f->cond[f->ncond].col = fc;
			f->cond[f->ncond].op = "=";
			f->cond[f->ncond].lit = "1";
			f->cond[f->ncond].num = 1;
			f->cond[f->ncond++].lit2 = NULL;
			pf_decide(p, sp, "filter", arena_printf(&p->a, "%s = 1", pf_cfq(p, fc)), "a yes/no attribute named by the word", fs);
			return 0;
		}
	}
	if (pick < 0 && it->contains)
		return pf_decline(p, "'%s' is part of stored names, but not of anything joinable to the question's table", sp);
	if (pick < 0 && it->t1 - it->t0 == 1 && it->ncols) {
		pf_decide(p, sp, "ignored", pf_cfq(p, it->cols[0]), "a stored value of a table not joinable to the question's table", 0);
		return 0;
	}
	if (pick < 0)
		return pf_decline(p, "'%s' is a stored value, but not of anything joinable to the question's table", sp);
	int col = it->cols[pick];
	/* two names of one dictionary's rows (heart failure's label and hypertension's code): both
	 * never hold on one row, and "both" or "either" is not built */
	for (int k = 0; k < f->nin && p->s->c[col].table != f->fact; k++)
		if (f->in[k].col != col && p->s->c[f->in[k].col].table == p->s->c[col].table && ident_col(p, col) &&
		    ident_col(p, f->in[k].col))
			return pf_decline(p, "'%s' and another name of the same kind: both on one row never hold, and 'either' or "
			                     "'both' is not a shape the offline planner builds", sp);
	if (per) {
		/* "Gender별": the word is a stored value of the column ('Gender' in a class column), so a
		 * breakdown by that column answers another question */
		return pf_decline(p, "'%s' is a stored value, not a category to break the answer down by", sp);
	}
	if (it - p->pl.v == f->rate_link && p->s->c[col].table != f->fact)
		return pf_decline(p, "a share of '%s' over rows of another table (each row counted as often as it joins) is not "
		                     "a shape the offline planner builds", sp);
	if (it - p->pl.v == f->rate_link && f->ncond < MAXF) {
		/* the numerator of a share: a condition counted, not a filter */
		f->rate_from = f->ncond;
		f->rate_n = 1;
		f->cond[f->ncond].col = col;
		f->cond[f->ncond].op = it->contains ? "ILIKE" : "=";
		f->cond[f->ncond].lit = it->contains ? arena_printf(&p->a, "%%%s%%", it->vals[pick]) : it->vals[pick];
		f->cond[f->ncond].num = 0;
		f->cond[f->ncond++].lit2 = NULL;
		pf_need(p, p->s->c[col].table);
		pf_decide(p, sp, "rate", arena_printf(&p->a, "share of rows where %s %s '%s'", pf_cfq(p, col),
		                                      f->cond[f->ncond - 1].op, f->cond[f->ncond - 1].lit), it->why, it->score);
		return 0;
	}
	if (it->contains) {
		/* a part of stored labels: its own ILIKE filter; two of one column (patients with diabetes
		 * and hypertension: on one row, never both) cannot be told apart from "either" */
		if (f->nin >= 4)
			return pf_decline(p, "%s", "too many named values to filter by");
		for (int k = 0; k < f->nin; k++)
			if (f->in[k].col == col)
				return pf_decline(p, "'%s' and another name of the same kind: both on one row never hold, and 'either' "
				                     "or 'both' is not a shape the offline planner builds", sp);
		f->in[f->nin].col = col;
		f->in[f->nin].n = 1;
		f->in[f->nin].vals[0] = it->vals[pick];
		f->in[f->nin++].contains = 1;
		it->bound = col + 1;
		pf_decide(p, sp, "value", arena_printf(&p->a, "%s ILIKE '%%%s%%'", pf_cfq(p, col), it->vals[pick]), it->why,
		          it->score);
		return 0;
	}
	int k;
	for (k = 0; k < f->nin; k++)
		if (f->in[k].col == col && !f->in[k].contains)
			break;
	if (k == f->nin && f->nin < 4)
		f->in[f->nin++].col = col;
	int dup = 0;
	for (int x = 0; k < 4 && x < f->in[k].n; x++)
		dup |= !strcmp(f->in[k].vals[x], it->vals[pick]);   /* named twice ("HbA1c ... HbA1c 검사") */
	/* "liver transplant": two values of one column written side by side, with no and/or between,
	 * name one thing (a liver transplantation), not either of two (optype IN (Hepatic,
	 * Transplantation) counted every liver operation) */
	for (int m = 0; k < f->nin && !dup && m < p->pl.n; m++) {
		const struct plink_item *o = &p->pl.v[m];
		if (o != it && o->kind == PL_VALUE && o->ncols && o->cols[0] == col && (o->t1 == it->t0 || it->t1 == o->t0))
			return pf_decline(p, "%s names two values of one column side by side; which one is meant could not be told",
			                  arena_printf(&p->a, "'%s' (%s)",
			                               pf_span_text(p, o->t0 < it->t0 ? o->t0 : it->t0, o->t1 > it->t1 ? o->t1 : it->t1),
			                               pf_cfq(p, col)));
	}
	if (k < 4 && f->in[k].n < 8 && !dup)
		f->in[k].vals[f->in[k].n++] = it->vals[pick];
	/* one word for several stored values of that column (대장암: colon C18.9 and rectum C20): each
	 * of them, never the first alone */
	for (int c = 0; k < 4 && c < it->ncols; c++) {
		int have = c == pick || it->cols[c] != col || same_letters(it->vals[c], it->vals[pick]);
		for (int x = 0; !have && x < f->in[k].n; x++)
			have = !strcmp(f->in[k].vals[x], it->vals[c]);
		if (!have && f->in[k].n < 8) {
			f->in[k].vals[f->in[k].n++] = it->vals[c];
			pf_decide(p, sp, "value", arena_printf(&p->a, "%s = '%s'", pf_cfq(p, col), it->vals[c]),
			          "another stored value the same word names", it->score);
		}
	}
	it->bound = col + 1;
	pf_decide(p, sp, "value", arena_printf(&p->a, "%s = '%s'", pf_cfq(p, col), it->vals[pick]), it->why, it->score);
	return 0;
}

/* bind_concept_meta: a concept defined in the metadata: its conditions as written there (the
 * numerator of a rate when the rate word names it) */
static int bind_concept_meta(struct planner *p, struct plink_item *it, const char *sp)
{
	struct frame *f = &p->f;
	/* a concept defined in the metadata: its conditions as written there */
	const struct pconcept *pc = &p->s->con[it->con];
	if (f->agg && !strcmp(f->agg, "RATE") && !f->rate_n) {
		int rl = f->rate_link;   /* "70세 이상 중 ICU 입실 비율": the concept named as the part */
		for (int k = it->t0; k < it->t1 && rl < 0; k++)
			if (p->tk.v[k].unsup_rate)
				rl = pf_rate_link(p, k);
		if (rl >= 0 && &p->pl.v[rl] == it) {
			f->rate_from = f->ncond;
			f->rate_n = pc->nc < MAXF - f->ncond ? pc->nc : MAXF - f->ncond;
		}
	}
	for (int k = 0; k < pc->nc && f->ncond < MAXF; k++) {
		f->cond[f->ncond].col = pc->c[k].col;
		f->cond[f->ncond].op = pc->c[k].op;
		f->cond[f->ncond].lit = pc->c[k].lit;
		f->cond[f->ncond].num = 3;   /* literal SQL text from the metadata */
		f->cond[f->ncond++].lit2 = NULL;
		if (p->s->c[pc->c[k].col].table != f->fact)
			pf_need(p, p->s->c[pc->c[k].col].table);
	}
	pf_decide(p, sp, "concept", pc->name, it->why, 1);
	return 0;
}

/* bind_concept_measure: a lexicon concept (hypotension): its measure, a column named so or a
 * stored value (lab name) with the table's measure, below or above the normal range; 0 or -1 */
static int bind_concept_measure(struct planner *p, struct plink_item *it, const char *sp)
{
	struct frame *f = &p->f;
	/* the measure: a column named so, or a stored value (lab name) with the table's measure */
	double sc, lo = it->lo, hi = it->hi;
	const char *src;
	int col = planner_link_term(&p->a, p->s, it->measure, p->r, p->banned, 0.75, &sc);
	if (col >= 0) {
		pf_concept_range(p, col, NULL, &lo, &hi, &src);
	} else {
		int n, v = planner_snap_values(p->s, it->measure, &n);
		const char *const *syn = planner_lex_syn(it->measure);
		for (; v < 0 && syn && *syn; syn++)
			v = planner_snap_values(p->s, *syn, &n);
		if (v < 0)
			return pf_decline(p, "the concept '%s' needs a measure the catalog does not have", sp);
		int vc = p->s->v[v].col, mt = -1;
		for (int ti = 0; ti < p->s->nt && mt < 0; ti++)
			if (p->s->c[vc].table == ti || pf_dict_reaches(p, vc, p->s->v[v].value, 0, ti, NULL))
				if (pf_measure_col(p, ti) >= 0)
					mt = ti;
		if (mt < 0)
			return pf_decline(p, "the concept '%s' has no measured value", sp);
		col = pf_measure_col(p, mt);
		pf_concept_range(p, col, p->s->v[v].value, &lo, &hi, &src);
		if (f->nin < 4) {
			f->in[f->nin].col = vc;
			f->in[f->nin].vals[0] = p->s->v[v].value;
			f->in[f->nin++].n = 1;
		}
	}
	if (f->ncond < MAXF) {
		f->cond[f->ncond].col = col;
		f->cond[f->ncond].op = it->dir < 0 ? "<" : ">";
		f->cond[f->ncond].lit = pf_numtext(p, it->dir < 0 ? lo : hi);
		f->cond[f->ncond].num = 1;
		f->cond[f->ncond].lit2 = NULL;
		f->ncond++;
	}
	pf_decide(p, sp, "concept", arena_printf(&p->a, "%s %s %s", pf_cfq(p, col), it->dir < 0 ? "<" : ">",
	                                      pf_numtext(p, it->dir < 0 ? lo : hi)),
	       arena_printf(&p->a, "%s (%s)", it->why, src), 1);
	if (p->s->c[col].table != f->fact)
		pf_need(p, p->s->c[col].table);
	return 0;
}

/* same_subject: two comments that begin with the same three words (what the columns are about) */
static int same_subject(const char *a, const char *b)
{
	int words = 0;
	if (!a || !b || !*a)
		return 0;
	for (; *a && *a == *b; a++, b++)
		if (*a == ' ' && ++words == 3)
			return 1;
	return 0;
}

/* same_thing: column ci of col's table is about what col is: their comments begin alike, or col
 * holds codes as recorded and both names begin with the same word (gender_source_value beside
 * gender_concept_id: the concept is the breakdown, docs/schema-model.md, "Codes beside concepts") */
static int same_thing(const struct planner *p, int ci, int col)
{
	const struct pcol *a = &p->s->c[ci], *b = &p->s->c[col];
	if (same_subject(a->comment, b->comment))
		return 1;
	size_t n = strcspn(b->name, "_");
	return b->type == PT_TEXT && pf_holds_codes(b) && n >= 3 && b->name[n] == '_' && !strncmp(a->name, b->name, n + 1);
}

/* dict_beside: the first column of col's table other than col that is about the same thing
 * (same_thing) and a key into a dictionary (into dt when dt >= 0): that dictionary's label column,
 * *key the key column and *edge its foreign key; else -1 */
static int dict_beside(struct planner *p, int col, int dt, int *key, int *edge)
{
	const struct ptab *t = &p->s->t[p->s->c[col].table];
	for (int ci = t->c0; ci < t->c0 + t->nc; ci++) {
		int dl;
		if (ci != col && same_thing(p, ci, col) && (dl = pf_dict_label(p, ci, edge)) >= 0 &&
		    (dt < 0 || p->s->c[dl].table == dt)) {
			*key = ci;
			return dl;
		}
	}
	return -1;
}

/* pf_concept_of_codes: contract in planner_front.h */
int pf_concept_of_codes(struct planner *p, int col, int *key, int *edge)
{
	return pf_holds_codes(&p->s->c[col]) ? dict_beside(p, col, -1, key, edge) : -1;
}

int pf_group_alternatives(struct planner *p, int col, int *out, int max)
{
	int n = 0, edge, lc;
	if (n < max)
		out[n++] = col;
	if ((lc = pf_dict_label(p, col, &edge)) >= 0 && n < max)
		out[n++] = lc;
	const struct ptab *t = &p->s->t[p->s->c[col].table];
	int via;   /* a table's own key (병동별 -> care_site_id): its rows told apart by their label */
	if (p->s->c[col].unique && pf_is_keyish(p, col) && (lc = pf_label_col(p, p->s->c[col].table, &via)) >= 0 && n < max)
		out[n++] = lc;
	for (int ci = t->c0; ci < t->c0 + t->nc && n < max; ci++)
		if (ci != col && same_thing(p, ci, col) && (lc = pf_dict_label(p, ci, &edge)) >= 0) {
			out[n++] = ci;
			if (n < max)
				out[n++] = lc;
		}
	return n;
}

/* recorded_words: "a recorded date of death", "a discharge time on record", "사망일 기록이 있는":
 * words saying that a column has a value (conf/lexicon/phrases.tsv, role recorded) right before
 * the span [t0, t1) (over "a", "any") or right after it, or "an organism found" (role found after
 * a span "a", "an" or "any" begins); they are marked read.  1 when found */
static int recorded_words(struct planner *p, int t0, int t1)
{
	const char *const *w = planner_lex_phrases("recorded");
	int b = t0 - 1;
	while (b >= 0 && (!strcmp(p->tk.v[b].text, "a") || !strcmp(p->tk.v[b].text, "any") || !strcmp(p->tk.v[b].text, "an")))
		b--;
	if (b >= 0 && planner_in_list(w, p->tk.v[b].text)) {
		p->tk.v[b].used = 1;
		return 1;
	}
	static const char *const time_nouns[] = {"시간", "시각", "일시", "날짜", "time", "date", NULL};
	if (t1 + 1 < p->tk.n && planner_in_list(time_nouns, p->tk.v[t1].text) &&
	    (planner_in_list(w, p->tk.v[t1 + 1].text) || (p->tk.v[t1 + 1].raw && planner_in_list(w, p->tk.v[t1 + 1].raw)))) {
		p->tk.v[t1].used = p->tk.v[t1 + 1].used = 1;   /* "마취 종료 시간 기록이": the time's own noun between */
		return 1;
	}
	if (t1 < p->tk.n && (planner_in_list(w, p->tk.v[t1].text) || (p->tk.v[t1].raw && planner_in_list(w, p->tk.v[t1].raw)))) {
		p->tk.v[t1].used = 1;
		return 1;
	}
	if (t1 + 1 < p->tk.n) {
		const char *two = arena_printf(&p->a, "%s %s", p->tk.v[t1].text, p->tk.v[t1 + 1].text);
		if (planner_in_list(w, two)) {
			p->tk.v[t1].used = p->tk.v[t1 + 1].used = 1;
			return 1;
		}
	}
	/* "had an organism found": a thing found, said of any one (role found); "the organism found"
	 * asks which */
	if (t0 > 0 && t1 < p->tk.n && (!strcmp(p->tk.v[t0 - 1].text, "a") || !strcmp(p->tk.v[t0 - 1].text, "an") ||
	                               !strcmp(p->tk.v[t0 - 1].text, "any")) &&
	    planner_in_list(planner_lex_phrases("found"), p->tk.v[t1].text)) {
		p->tk.v[t1].used = 1;
		return 1;
	}
	return 0;
}

/* bind_column: a column: a group (per X), the time the question is about, a yes/no filter, or a
 * projected column */
/* add_group: column col as a breakdown said by span sp through column src (the key a dictionary's
 * label is reached by, or col itself); 0, or -1 declined when another breakdown groups by that
 * very column said through another key ("by department and ward": both the name in one table of
 * departments and wards, joined through two keys; one join cannot hold both, and one grouping would
 * answer neither).  The same breakdown said twice is kept once; a fourth is left out as before */
static int add_group(struct planner *p, int col, int src, const char *sp)
{
	struct frame *f = &p->f;
	for (int g = 0; g < f->ngroup; g++) {
		if (f->group[g] != col)
			continue;
		if (f->group_src[g] && f->group_src[g] != src + 1)
			return pf_decline(p, "'%s' is told apart by the same column as another breakdown of the question, "
			                     "reached through another key; one join cannot hold both", sp);
		return 0;
	}
	if (f->ngroup < 3) {
		f->group_src[f->ngroup] = src + 1;
		f->group[f->ngroup++] = col;
	}
	return 0;
}

/* zero_side: link it names yes/no column col only by words its comment gives the 0 ("In-hospital
 * death: 1 died, 0 discharged alive": 생존 -> alive), not the 1: the rows where it is 0 */
static int zero_side(struct planner *p, int col, const struct plink_item *it)
{
	const char *cm = p->s->c[col].comment;
	const char *z = cm ? strstr(cm, " 0 ") : NULL, *o = cm ? strstr(cm, " 1 ") : NULL;
	if (!z || !o)
		return 0;
	size_t zl = strcspn(z + 3, ",;)"), ol = strcspn(o + 3, ",;)");
	int in_zero = 0, in_one = 0;
	for (int i = it->t0; i < it->t1; i++) {
		const struct ptok *t = &p->tk.v[i];
		const char *terms[12];
		int n = pf_tok_terms(t, terms, 12);
		for (int k = 0; k < n; k++) {
			size_t tl = strlen(terms[k]);
			if (tl < 3)
				continue;
			const char *h = strcasestr(z + 3, terms[k]);
			in_zero |= h && (size_t)(h - (z + 3)) + tl <= zl;
			h = strcasestr(o + 3, terms[k]);
			in_one |= h && (size_t)(h - (o + 3)) + tl <= ol;
		}
	}
	return in_zero && !in_one;
}

static int bind_column(struct planner *p, struct plink_item *it, const char *sp, int per)
{
	struct frame *f = &p->f;
	int col = it->cols[0];
	if (it->role == 1 || it->role == 2 || it->role == PL_ROLE_IGNORED)
		return 0;   /* bound to a comparison, a value or a length of stay already */
	if (p->tk.v[it->t0].role == R_VALUE && p->s->c[col].table != f->fact && pf_measure_col(p, f->fact) >= 0) {
		it->role = PL_ROLE_IGNORED;   /* the plan need not use its table */
		pf_decide(p, sp, "ignored", pf_cfq(p, col), "a generic measure word; the question's table has its own measure", 0);
		return 0;
	}
	/* "약물 이름별 처방 건수" grouped by the care site's name: a breakdown said only with a word for
	 * names (이름, name) is by the names of what the word before it names; a column of another
	 * table is some other thing's name ("가장 많이 처방된 약 이름 top 5" ranked the care sites:
	 * shown or ranked, the same; with no word before it, only a breakdown is held to it) */
	if (it->t1 - it->t0 == 1 && pf_name_word(&p->tk.v[it->t0], 0)) {
		int before = -1;
		for (int l = 0; l < p->pl.n && it->t0 > 0; l++) {
			const struct plink_item *o = &p->pl.v[l];
			if (o != it && o->t0 <= it->t0 - 1 && it->t0 - 1 < o->t1)
				before = o->kind == PL_TABLE ? o->table : o->ncols ? p->s->c[o->cols[0]].table : -1;
		}
		int e[4], ct = p->s->c[col].table;   /* (its own, or its dictionary's: 진단 이름 -> the concept name) */
		if ((before < 0 && per) ||
		    (before >= 0 && before != ct && !(pf_path(p, before, ct, e, 1) == 1 && pf_is_dictionary(p, ct))))
			return pf_decline(p, "'%s': whose names could not be told", sp);
	}
	if (per && pf_says_code(p, it->t0, it->t1) && pf_is_keyish(p, col)) {
		/* "약품코드별 처방 건수": per code, said so: the codes themselves, not their labels */
		if (add_group(p, col, col, sp) < 0)
			return -1;
		pf_decide(p, sp, "group", pf_cfq(p, col), "a breakdown by codes, said so", it->score);
		return 0;
	}
	if (per) {
		/* a code that points into a dictionary (gender_concept_id): its label is the breakdown,
		 * joined through that key; a raw code whose table has such a key for the same thing
		 * ("Cause of death code as recorded" beside "Cause of death (concept)"): that key */
		int edge, key, lc = pf_dict_label(p, col, &edge);
		if (lc < 0 && (lc = dict_beside(p, col, -1, &key, &edge)) >= 0)
			col = key;
		if (lc >= 0 && pf_set_via(p, p->s->c[lc].table, edge, sp) < 0)
			return -1;
		/* a table's own key (병동별 -> care_site_id): its rows are told apart by their label */
		int via;
		if (lc < 0 && p->s->c[col].unique && pf_is_keyish(p, col) &&
		    (lc = pf_label_col(p, p->s->c[col].table, &via)) >= 0 && via >= 0)
			lc = -1;   /* a label in yet another table: keep the key */
		if (add_group(p, lc >= 0 ? lc : col, col, sp) < 0)
			return -1;
		pf_decide(p, sp, "group", pf_cfq(p, lc >= 0 ? lc : col), it->why, it->score);
		return 0;
	}
	if (f->ncond < MAXF && recorded_words(p, it->t0, it->t1) && !p->s->c[col].flag) {
		/* (any column: "ASA recorded only", "a recorded date of death"; not a yes/no: "with
		 * diabetes recorded" is diabetes, = 1 below, not a flag that holds 0 or 1) */
		/* "patients with a recorded date of death": the rows where it has a value */
		pf_cond_not_null(f, col);
		pf_need(p, p->s->c[col].table);
		pf_decide(p, sp, "filter", arena_printf(&p->a, "%s IS NOT NULL", pf_cfq(p, col)),
		          "a column said to be recorded: the rows where it has a value", it->score);
		return 0;
	}
	if (p->s->c[col].type == PT_TIME) {
		/* "discharged", "admitted": the time column the question is about; a second one named
		 * ("admission and discharge dates"): both are shown, the first keeps the window */
		if (f->time_named && f->time_col >= 0 && f->time_col != col && f->nproj + 2 <= NPROJ) {
			int have = 0;
			for (int k = 0; k < f->nproj; k++)
				have |= f->proj[k] == f->time_col;
			if (!have)
				f->proj[f->nproj++] = f->time_col;
			f->proj[f->nproj++] = col;
			pf_decide(p, sp, "projection", pf_cfq(p, col), "a second time named: shown beside the first", it->score);
			return 0;
		}
		f->time_col = col;
		f->time_named = 1;
		f->time_tok = it->t0;
		pf_decide(p, sp, "time_column", pf_cfq(p, col), it->why, it->score);
		return 0;
	}
	if (p->s->c[col].flag && f->ncond < MAXF && it - p->pl.v == f->rate_link && !f->rate_n) {
		/* "여자 중 당뇨 있는 환자 비율": a yes/no attribute as the numerator of a share (생존 비율:
		 * the rows where it is 0, as below) */
		f->rate_from = f->ncond;
		f->rate_n = 1;
		f->cond[f->ncond].col = col;
		f->cond[f->ncond].op = "=";
		f->cond[f->ncond].lit = zero_side(p, col, it) ? "0" : "1";
		f->cond[f->ncond].num = 1;
		f->cond[f->ncond++].lit2 = NULL;
		pf_need(p, p->s->c[col].table);
		pf_decide(p, sp, "rate", arena_printf(&p->a, "share of rows where %s = %s", pf_cfq(p, col), f->cond[f->ncond - 1].lit),
		          it->why, it->score);
		return 0;
	}
	if (p->s->c[col].flag && f->ncond < MAXF) {
		/* "사망한 환자", "patients with diabetes": a yes/no attribute is a filter; "생존 환자" found
		 * the column through the words of its 0 ("1 died, 0 discharged alive"): those rows */
		int zero = zero_side(p, col, it);
		f->cond[f->ncond].col = col;
		f->cond[f->ncond].op = "=";
		f->cond[f->ncond].lit = zero ? "0" : "1";
		f->cond[f->ncond].num = 1;
		f->cond[f->ncond++].lit2 = NULL;
		pf_decide(p, sp, "filter", arena_printf(&p->a, "%s = %s", pf_cfq(p, col), zero ? "0" : "1"),
		          zero ? "a yes/no attribute, named by the words its description gives the 0" : "a yes/no attribute",
		          it->score);
		return 0;
	}
	if (f->nproj < NPROJ)
		f->proj[f->nproj++] = col;
	pf_decide(p, sp, "column", pf_cfq(p, col), it->why, it->score);
	return 0;
}

/* bind_table: a table named: a group by its label when said per table */
static int bind_table(struct planner *p, struct plink_item *it, const char *sp, int per)
{
	pf_decide(p, sp, "table", p->s->t[it->table].name, it->why, it->score);
	if (per) {
		/* the label of a dictionary (its name column) or the one text column that tells the
		 * table's rows apart; "약물별 처방 건수" over drug orders whose text columns are why the
		 * order stopped, its route, its lot: a guess groups by the wrong one; none, no group */
		int via, lc = pf_label_col_sure(p, it->table, &via, !pf_is_dictionary(p, it->table));
		/* "prescriptions per admission by department": an admission is not told apart by the name
		 * of its department (a dictionary its key points into); per admission, of rows that are not
		 * a dictionary's, is no breakdown by another table's label */
		if (lc >= 0 && via >= 0 && !pf_is_dictionary(p, it->table))
			lc = -1;
		/* a column of the table's own, not a dictionary's: one the word also names (약물 ->
		 * drug) or one that holds names; the only other text column (a lot number) is a guess */
		if (lc >= 0 && via < 0 && !pf_is_dictionary(p, it->table) && !strstr(p->s->c[lc].name, "name") &&
		    !strstr(p->s->c[lc].name, "_nm") && !strstr(p->s->c[lc].name, "label") && !strstr(p->s->c[lc].name, "title")) {
			double best = 0;
			for (int x = it->t0; x < it->t1; x++) {
				double sc = planner_term_col_score(&p->a, p->s, lc, p->tk.v[x].stem, NULL);
				best = sc > best ? sc : best;
			}
			if (best < 0.5)
				lc = -1;
		}
		if (lc < 0)
			return pf_decline(p, "'%s' asks for a breakdown by a table, and which of its columns tells its rows apart "
			                     "could not be told", sp);
		/* "number of patients per condition": codes as recorded (condition_source_value) beside a
		 * key of the same thing into a dictionary: the dictionary's label, as in bind_column */
		int key, edge, dl = via < 0 ? pf_concept_of_codes(p, lc, &key, &edge) : -1;
		if (dl >= 0) {
			if (pf_set_via(p, p->s->c[dl].table, edge, sp) < 0)
				return -1;
			return add_group(p, dl, key, sp) < 0 ? -1 : 0;
		}
		if (add_group(p, lc, lc, sp) < 0)
			return -1;
	}
	return 0;
}

/* pf_bind_links: every link of the question bound to the frame; 0 or -1 declined */
/* noun_tail: value link l is one word right after another stored value of another table ("the
 * med/surg/gyn unit": 'unit' is a dose unit's stored value, but here it ends the unit's name).
 * Every table either value may be in counts ("IMC SICU": a department code and a ward code, both
 * of the admissions table, are two filters, whichever column each link lists first) */
static int noun_tail(struct planner *p, const struct plink_item *it)
{
	/* (or a word naming a text column of another table: 'unit' of dose_unit_rx) */
	if ((it->kind != PL_VALUE && !(it->kind == PL_COLUMN && p->s->c[it->cols[0]].type == PT_TEXT)) ||
	    it->t1 - it->t0 != 1 || it->contains || p->tk.v[it->t0].hangul)
		return 0;   /* Korean writes two filters side by side (폐렴 주상병): not a name's tail */
	for (int m = 0; m < p->pl.n; m++) {
		const struct plink_item *o = &p->pl.v[m];
		if (o == it || o->kind != PL_VALUE || o->t1 != it->t0)
			continue;
		int shared = 0;
		for (int a = 0; a < o->ncols; a++)
			for (int b = 0; b < it->ncols; b++)
				shared |= p->s->c[o->cols[a]].table == p->s->c[it->cols[b]].table;
		if (!shared)
			return 1;
	}
	return 0;
}

/* either_columns: two stored values written as alternatives ("ER/inpatient", "ER or inpatient")
 * that the binder did not put in one column's list: either of them is an OR across two columns,
 * which is not built (both were ANDed); 1 when found (declined) */
static int either_columns(struct planner *p)
{
	for (int l = 0; l < p->pl.n; l++)
		for (int m = 0; m < p->pl.n; m++) {
			const struct plink_item *a = &p->pl.v[l], *b = &p->pl.v[m];
			if (a->kind != PL_VALUE || b->kind != PL_VALUE || a->t1 + 1 != b->t0 || a->t1 <= a->t0 ||
			    a->role == PL_ROLE_IGNORED || b->role == PL_ROLE_IGNORED ||
			    (strcmp(p->tk.v[a->t1].text, "/") && strcmp(p->tk.v[a->t1].text, "or")))
				continue;
			if (!a->bound || a->bound != b->bound) {
				pf_decline(p, "%s names either of two values of different columns, which the offline planner does not "
				              "build", arena_printf(&p->a, "'%s'", pf_span_text(p, a->t0, b->t1)));
				return 1;
			}
		}
	/* "patients with diabetes or hypertension": two flags (or a flag and a value) said as
	 * alternatives were ANDed, the patients with both */
	static const char *const or_words[] = {"or", "또는", "혹은", NULL};
	for (int l = 0; l < p->pl.n; l++)
		for (int m = 0; m < p->pl.n; m++) {
			const struct plink_item *a = &p->pl.v[l], *b = &p->pl.v[m];
			if (a->t1 + 1 != b->t0 || a->t1 <= a->t0 || b->t1 <= b->t0 || a->role == PL_ROLE_IGNORED ||
			    b->role == PL_ROLE_IGNORED || !planner_in_list(or_words, p->tk.v[a->t1].text) ||
			    (a->kind != PL_VALUE && a->kind != PL_COLUMN && a->kind != PL_CONCEPT) ||
			    (b->kind != PL_VALUE && b->kind != PL_COLUMN && b->kind != PL_CONCEPT) ||
			    (a->kind == PL_VALUE && b->kind == PL_VALUE) || (a->ncols && b->ncols && a->cols[0] == b->cols[0]))
				continue;
			pf_decline(p, "%s names either of two things, which the offline planner does not build",
			           arena_printf(&p->a, "'%s'", pf_span_text(p, a->t0, b->t1)));
			return 1;
		}
	return 0;
}

/* event_time_of_value: "which patients died (discharge_location) since October": a window with no
 * time named is of the event a filtered value belongs to: the one time column of the fact table
 * whose name starts like the value's column (dischtime beside discharge_location), at least four
 * characters and more than the default time column shares; otherwise the default stays */
static void event_time_of_value(struct planner *p)
{
	struct frame *f = &p->f;
	if (!f->has_win || f->time_named || f->time_col < 0)
		return;
	int cols[MAXF + 4], n = 0;
	for (int i = 0; i < f->ncond; i++)
		if (f->cond[i].col >= 0 && f->cond[i].num == 0 && p->s->c[f->cond[i].col].table == f->fact)
			cols[n++] = f->cond[i].col;
	for (int i = 0; i < f->nin; i++)
		if (p->s->c[f->in[i].col].table == f->fact)
			cols[n++] = f->in[i].col;
	for (int k = 0; k < n; k++) {
		const char *vn = p->s->c[cols[k]].name;
		size_t base = pf_name_prefix(vn, p->s->c[f->time_col].name), best;
		int pick = pf_prefix_col(p, f->fact, vn, PT_TIME, f->time_col, &best);
		if (pick >= 0 && best >= 4 && best > base) {
			pf_decide(p, "", "time_column", pf_cfq(p, pick),
			          arena_printf(&p->a, "the window is of the event %s belongs to", pf_cfq(p, cols[k])), 0.8);
			f->time_col = pick;
			return;
		}
	}
}

/* category_word: value link it is one word stored as a dictionary's category ('Gender', a domain
 * of the concepts) that also begins the name of a column of the question's table (gender_concept_id):
 * "their gender" asks for that column, so the link becomes a link to it (a key into the
 * dictionary is shown by its label) */
static void category_word(struct planner *p, struct plink_item *it)
{
	if (it->kind != PL_VALUE || it->ncols < 1 || it->t1 - it->t0 != 1 || it->contains)
		return;
	int dt = p->s->c[it->cols[0]].table, fact = p->f.fact;
	const char *w = p->tk.v[it->t0].text;
	size_t wl = strlen(w);
	for (int k = 0; k < it->ncols; k++)   /* (every reading a category of the one dictionary) */
		if (p->s->c[it->cols[k]].table != dt || strcasecmp(it->vals[k], w))
			return;
	if (dt == fact || !pf_is_dictionary(p, dt) || wl < 3)
		return;
	for (int ci = p->s->t[fact].c0; ci < p->s->t[fact].c0 + p->s->t[fact].nc; ci++) {
		int edge;
		if (!strncasecmp(p->s->c[ci].name, w, wl) && p->s->c[ci].name[wl] == '_' && pf_dict_label(p, ci, &edge) >= 0) {
			it->kind = PL_COLUMN;
			it->cols[0] = ci;
			it->score = 0.9;
			it->why = arena_printf(&p->a, "'%s' begins the name of %s, a key into %s", w, pf_cfq(p, ci), p->s->t[dt].name);
			return;
		}
	}
}

int pf_bind_links(struct planner *p)
{
	for (int l = 0; l < p->pl.n; l++)
		if (noun_tail(p, &p->pl.v[l]))
			p->pl.v[l].role = PL_ROLE_IGNORED;
	for (int l = 0; l < p->pl.n; l++)
		category_word(p, &p->pl.v[l]);
	/* where in the question each grouping was named, so that they are grouped in that order
	 * ("by department and sex": department first); groups made before keep their place first */
	int at[3] = {-1, -1, -1};
	for (int l = 0; l < p->pl.n; l++) {
		struct plink_item *it = &p->pl.v[l];
		const char *sp = pf_span_text(p, it->t0, it->t1);
		/* (환자 기본정보 기준): "based on the patients' table" names the source, not a breakdown */
		int per = pf_link_per(p, it);
		int rc = 0, ng = p->f.ngroup;
		if (it->kind == PL_VALUE)
			rc = bind_value(p, it, sp, per);
		else if (it->kind == PL_CONCEPT && it->con >= 0)
			rc = bind_concept_meta(p, it, sp);
		else if (it->kind == PL_CONCEPT)
			rc = bind_concept_measure(p, it, sp);
		else if (it->kind == PL_COLUMN)
			rc = bind_column(p, it, sp, per);
		else if (it->kind == PL_TABLE)
			rc = bind_table(p, it, sp, per);
		if (rc < 0)
			return -1;
		for (int g = ng; g < p->f.ngroup && g < 3; g++)
			at[g] = it->t0;
	}
	if (either_columns(p))
		return -1;
	/* "the visits that had the drug named cyanocobalamin", asked of another table: the column word
	 * names the value's column, which the condition on the same patient or stay reads; it is no
	 * column to show */
	struct frame *f = &p->f;
	for (int i = 0; i < f->nproj; i++)
		for (int k = 0; k < f->nsemi; k++)
			if (f->semi[k].col == f->proj[i] && p->s->c[f->proj[i]].table != f->fact) {
				pf_decide(p, "", "ignored", pf_cfq(p, f->proj[i]), "the column of a value the condition on another table reads", 0);
				f->proj[i--] = f->proj[--f->nproj];
				break;
			}
	event_time_of_value(p);
	for (int g = 1; g < p->f.ngroup && g < 3; g++)   /* insertion sort: stable, at most three */
		for (int k = g; k > 0 && at[k - 1] > at[k]; k--) {
			int c = p->f.group[k], t = at[k];
			p->f.group[k] = p->f.group[k - 1], at[k] = at[k - 1];
			p->f.group[k - 1] = c, at[k - 1] = t;
		}
	return 0;
}

void pf_band_words(struct planner *p)
{
	static const char *const ko[] = {"연령대", "나이대", "연령층", "연령군", NULL};
	static const char *const band[] = {"band", "bands", "bracket", "brackets", "구간", NULL};
	static const char *const grp[] = {"group", "groups", "decade", "decades", NULL};
	static const char *const wide[] = {"단위", "wide", "year", "years", "간격", NULL};
	for (int i = 0; i < p->tk.n; i++) {
		struct ptok *t = &p->tk.v[i];
		if (planner_in_list(ko, t->text)) {
			p->f.age_band = 1;
			t->used = 1;
		} else if (i > 0 && (planner_in_list(band, t->text) || (planner_in_list(grp, t->text) && pf_age_word(&p->tk.v[i - 1])))) {
			/* "age group", "BMI band", "체중 구간": the number named just before, in bands */
			for (int l = 0; l < p->pl.n; l++) {
				const struct plink_item *it = &p->pl.v[l];
				if (it->kind == PL_COLUMN && it->t1 == i && p->s->c[it->cols[0]].type == PT_NUM) {
					p->f.age_band = 1;
					p->f.band_col = pf_age_word(&p->tk.v[i - 1]) ? -1 : it->cols[0];
					t->used = 1;
				}
			}
			if (!p->f.age_band && pf_age_word(&p->tk.v[i - 1])) {
				p->f.age_band = 1;
				t->used = 1;
			}
		}
	}
	/* "BMI대별", "age대별": a number's word with 대 (a band of it) written on */
	for (int l = 0; l < p->pl.n && !p->f.age_band; l++) {
		const struct plink_item *it = &p->pl.v[l];
		const struct ptok *t = &p->tk.v[it->t0];
		size_t tl = strlen(t->text), dl = strlen("대");
		if (it->kind != PL_COLUMN || it->t1 != it->t0 + 1 || p->s->c[it->cols[0]].type != PT_NUM || tl <= dl ||
		    strcmp(t->text + tl - dl, "대"))
			continue;
		p->f.age_band = 1;
		p->f.band_col = pf_age_word(t) ? -1 : it->cols[0];
	}
	/* the width: "10세 단위", "5 kg/m2 wide", "5-year bands", "간격 5" */
	for (int i = 0; p->f.age_band && i < p->tk.n; i++) {
		struct ptok *t = &p->tk.v[i];
		if (t->kind != TK_NUM || t->used || t->num < 1 || t->num > 100)
			continue;
		int k = i + 1;
		while (k < p->tk.n && k <= i + 5 && !planner_in_list(wide, p->tk.v[k].text) && p->tk.v[k].kind != TK_NUM &&
		       (p->tk.v[k].role != R_NONE || p->tk.v[k].used || p->tk.v[k].kind == TK_PUNCT))
			k++;   /* units between (kg/m2, linked to the column they measure) */
		int said = (k < p->tk.n && k <= i + 5 && planner_in_list(wide, p->tk.v[k].text)) || (t->unit == 'a' && i + 1 < p->tk.n &&
		           planner_in_list(wide, p->tk.v[i + 1].text)) || (i > 0 && !strcmp(p->tk.v[i - 1].text, "간격"));
		if (!said)
			continue;
		p->f.band_width = (int)t->num;
		for (int x = i; x <= k && x < p->tk.n; x++)
			if (x == i || planner_in_list(wide, p->tk.v[x].text) || p->tk.v[x].role != R_NONE || x < k)
				p->tk.v[x].used = 1;
		break;
	}
}

void pf_precision_words(struct planner *p)
{
	static const char *const en[] = {"decimal", "decimals", "dp", NULL};   /* dp: decimal places */
	static const char *const ko[][2] = {{"첫째자리", "1"}, {"둘째자리", "2"}, {"셋째자리", "3"}, {NULL, NULL}};
	for (int i = 0; i < p->tk.n; i++) {
		struct ptok *t = &p->tk.v[i];
		if (planner_in_list(en, t->text) && i > 0 && p->tk.v[i - 1].kind == TK_NUM && p->tk.v[i - 1].num >= 0 &&
		    p->tk.v[i - 1].num <= 4) {
			p->f.decimals = 1 + (int)p->tk.v[i - 1].num;   /* "1 decimal", "to 2 decimals" */
			p->tk.v[i - 1].used = t->used = 1;
		}
		for (int k = 0; ko[k][0]; k++)
			if (!strcmp(t->text, ko[k][0]) || (planner_ends_with(t->text, ko[k][0]) && !strncmp(t->text, "소수", 6))) {
				p->f.decimals = 1 + atoi(ko[k][1]);   /* 소수 첫째자리(까지) */
				t->used = 1;
			}
		/* "소수 1자리", "소수점 2자리": the number of places */
		if (!strncmp(t->text, "소수", 6) && i + 2 < p->tk.n && p->tk.v[i + 1].kind == TK_NUM &&
		    p->tk.v[i + 1].num >= 0 && p->tk.v[i + 1].num <= 4 && !strncmp(p->tk.v[i + 2].text, "자리", 6)) {
			p->f.decimals = 1 + (int)p->tk.v[i + 1].num;
			t->used = p->tk.v[i + 1].used = p->tk.v[i + 2].used = 1;
		}
		/* ... spaced: "소수 첫째 자리": the ordinal is the place ("첫째" + "자리" = "첫째자리") */
		static const char *const ord[] = {"첫째", "둘째", "셋째", NULL};
		int o = planner_in_list_at(ord, t->text);
		if (o >= 0 && i + 1 < p->tk.n && !strncmp(p->tk.v[i + 1].text, "자리", 6) && i > 0 &&
		    !strncmp(p->tk.v[i - 1].text, "소수", 6)) {
			p->f.decimals = 2 + o;
			t->used = p->tk.v[i + 1].used = p->tk.v[i - 1].used = 1;
		}
	}
}

/* in_by_list: token i follows a joiner (and, ',', x) in a list of breakdowns that a by/per began a
 * few words before ("by department and year", "per ward, sex and month") */
static int in_by_list(const struct planner *p, int i)
{
	if (!pf_joiner(&p->tk.v[i - 1]))
		return 0;
	for (int j = i - 2; j >= 0 && j >= i - 6; j--) {
		if (p->tk.v[j].role == R_PER && !p->tk.v[j].hangul)
			return 1;
		if (p->tk.v[j].kind == TK_NUM || p->tk.v[j].kind == TK_DATE)
			return 0;
	}
	return 0;
}

/* pf_bind_rest: what the links leave: comparisons without a named column (the measure, else the
 * patients' age), the entity grouped (환자별), time buckets (월별); 0 or -1 declined */
int pf_bind_rest(struct planner *p)
{
	struct frame *f = &p->f;
	/* comparisons without a named column: the measure, else (patients) their age */
	for (int i = 0; i < f->ncond; i++) {
		if (f->cond[i].col >= 0)
			continue;
		int col = f->measure, item = 0;
		for (int k = 0; k < f->nin; k++)
			item |= p->s->c[f->in[k].col].table != f->fact || f->in[k].col >= 0;
		for (int l = 0; l < p->pl.n; l++)   /* "hemoglobin below 10": a thing is named, not an age */
			item |= p->pl.v[l].kind == PL_COLUMN && p->pl.v[l].role == 0;
		if (!item && (f->entity_count || f->entity_group))
			col = -1;   /* "patients in their 60 or above": their age, not a measurement */
		int from_birth = 0;
		if (col < 0 && (f->entity_count || f->entity_group || f->entity_col))
			col = pf_age_col(p, &from_birth);
		if (f->cond[i].num == 5 && (col == f->cond[i].col2 || from_birth))
			col = -1;   /* a limit is compared with the measure, never with itself or an age */
		if (from_birth)
			f->cond[i].num = 4;
		if (col < 0 && f->cond[i].num == 5)
			return pf_decline(p, "%s is a limit compared with, but what is measured could not be told",
			                  pf_cfq(p, f->cond[i].col2));
		if (col < 0)
			return pf_decline(p, "a number '%s' is compared, but with what column could not be told", f->cond[i].lit);
		/* "cases over 4 hours of operation time": a span of time is compared with a duration, never
		 * with an age or another measure (a column counted in days, ICU days, with days) */
		int nt = f->cond[i].at - 1;
		int span = nt >= 0 && nt < p->tk.n && (strchr("hdwm", p->tk.v[nt].unit ? p->tk.v[nt].unit : 'x') ||
		                                      (nt + 1 < p->tk.n && p->tk.v[nt + 1].role == R_UNIT));
		int days = span && strstr(p->s->c[col].name, "day") && !from_birth &&
		           (p->tk.v[nt].unit == 'd' || (nt + 1 < p->tk.n && p->tk.v[nt + 1].unitv == 'd'));
		if (span && !days)
			return pf_decline(p, "a span of time '%s' is compared, but with what duration could not be told", f->cond[i].lit);
		/* "at least three different organisms": the number counts the thing named after it, per
		 * patient or stay; compared with a measure or an age it would answer another question */
		for (int k = nt + 1; nt >= 0 && k < p->tk.n && k <= nt + 3; k++) {
			static const char *const between[] = {"different", "distinct", "unique", "separate", "more", "or",
			                                      "other", "서로", "다른", NULL};
			if (planner_in_list(between, p->tk.v[k].text))
				continue;
			for (int l = 0; l < p->pl.n; l++)
				if ((p->pl.v[l].kind == PL_COLUMN || p->pl.v[l].kind == PL_TABLE) && p->pl.v[l].t0 == k)
					return pf_decline(p, "the number '%s' counts the thing named after it for each patient or stay, which "
					                     "the offline planner does not build", f->cond[i].lit);
			break;
		}
		f->cond[i].col = col;
		pf_decide(p, "", "filter", arena_printf(&p->a, "%s %s %s", pf_cfq(p, col), f->cond[i].op, f->cond[i].lit),
		       "numeric comparison with the measured value", 0.8);
	}
	/* age bands: the age column grouped in 10-year bands (a birth date is not banded here) */
	if (f->age_band) {
		int fb = 0, col = f->band_col >= 0 ? f->band_col : pf_age_col(p, &fb);
		if (col < 0 || fb)
			return pf_decline(p, "%s", "age bands need an age column, which the question's table does not have");
		if (!f->band_width)
			f->band_width = 10;
		int have = 0;
		for (int i = 0; i < f->ngroup; i++)
			have |= f->group[i] == col;
		if (!have && f->ngroup < 3)
			f->group[f->ngroup++] = col;
		f->band_col = col;
		pf_decide(p, "", "group", arena_printf(&p->a, "floor(%s / %d) * %d", pf_cfq(p, col), f->band_width, f->band_width),
		          "bands of a number", 1);
	}
	/* the entity grouped: "환자별", "per patient" */
	if (f->entity_group && f->entity_col) {
		int ec = pf_col_in(p, f->fact, f->entity_col);
		for (int ti = 0; ti < p->s->nt && ec < 0; ti++)
			ec = pf_col_in(p, ti, f->entity_col);
		/* "average operation time per case by op type and sex": where each row is one case (the
		 * key is unique in the fact table) and other breakdowns are named, per case is the unit
		 * averaged over, not a breakdown into groups of one row each */
		int unit = ec >= 0 && p->s->c[ec].table == f->fact && p->s->c[ec].unique && f->ngroup > 0;
		/* "avg pt age per case by year": the entity said after per is not the one the key came
		 * from (the patient): grouping by patients was never asked */
		/* (per X in English, X별 / X당 in Korean) */
		int per_kind = -1, per_tok = -1;
		for (int i = 0; i < p->tk.n && per_kind < 0 && f->entity_word; i++) {
			int t = p->tk.v[i].role == R_PER && !p->tk.v[i].hangul && i + 1 < p->tk.n ? i + 1
			      : p->tk.v[i].group && p->tk.v[i].hangul ? i : -1;
			if (t >= 0 && pf_tok_ent(&p->tk.v[t]) >= 0 && strcmp(p->tk.v[t].stem, f->entity_word) &&
			    pf_tok_ent(&p->tk.v[t]) != planner_ent_word(f->entity_word)) {
				per_kind = pf_tok_ent(&p->tk.v[t]);
				per_tok = t;
			}
		}
		if (per_kind >= 0)
			unit = 1;
		/* "number of operations per patient", "환자별 수술 건수": nothing else broken down, the
		 * entity said per (the patient) is the breakdown, by its key in the rows counted; without
		 * one, declined (it was one total of every operation); "진료과별 환자당 수술 건수" beside
		 * another breakdown is a count per patient of each department, not built: declined */
		int counted = (pf_has_role(p, R_COUNT) || pf_has_role(p, R_MANY)) && !pf_has_role(p, R_AVG) &&
		              !pf_has_role(p, R_MAX) && !pf_has_role(p, R_MIN) && !pf_has_role(p, R_SUM);   /* (환자당 평균 수술
		                                                                                        * 건수: a total per patient, averaged) */
		if (per_kind >= 0 && counted && f->ngroup)
			return pf_decline(p, "the question asks per %s, which the plan does not group by",
			                  arena_printf(&p->a, "'%s'", p->tk.v[per_tok].text));
		if (per_kind >= 0 && counted) {
			const char *pk = planner_ent_column(p->s, per_kind);
			int pc = pk ? pf_col_in(p, f->fact, pk) : -1;
			if (pc < 0)
				return pf_decline(p, "the question asks per %s, which the plan does not group by",
				                  arena_printf(&p->a, "'%s'", p->tk.v[per_tok].text));
			f->group[f->ngroup++] = pc;
			pf_decide(p, p->tk.v[per_tok].text, "group", pf_cfq(p, pc), "the entity said after per, counted in", 1);
			unit = 0;
			ec = -1;
		}
		if (unit)
			pf_decide(p, "", "ignored", pf_cfq(p, ec), "per case where each row is one case: the unit, not a breakdown", 1);
		else if (ec >= 0 && f->ngroup < 3)
			f->group[f->ngroup++] = ec;
	}

	/* time buckets: "daily average", "월별 건수", "per month", "by year" */
	for (int i = 0; i < p->tk.n && !f->bucket; i++) {
		struct ptok *t = &p->tk.v[i];
		if (t->used)
			continue;
		/* "지난 분기", "이번 분기", "last quarter": one period, not a breakdown by every one */
		if ((t->role == R_BUCKET || t->role == R_UNIT) && !t->group && i > 0 &&
		    (p->tk.v[i - 1].role == R_PAST || p->tk.v[i - 1].role == R_THIS || p->tk.v[i - 1].role == R_LAST) &&
		    (t->unitv == 'q' || t->role == R_BUCKET))
			return pf_decline(p, "'%s' names one period, which the offline planner cannot place in time",
			                  pf_span_text(p, i - 1, i + 1));
		if (t->role == R_BUCKET)
			f->bucket = t->unitv;
		else if (t->role == R_UNIT && (t->group || (i > 0 && p->tk.v[i - 1].role == R_PER)))
			f->bucket = t->unitv;
		else if (t->role == R_UNIT && i > 1 && in_by_list(p, i))
			f->bucket = t->unitv;   /* "by department and year": the last of a list after by */
		else if (t->role == R_WHEN && t->group)
			f->bucket = 'd';   /* 날짜별 */
		if (f->bucket) {
			t->used = 1;
			if (i > 0 && p->tk.v[i - 1].role == R_PER)
				p->tk.v[i - 1].used = 1;
			/* "연도별 월별 입원 건수", "by year and month": the finer period, which holds the
			 * coarser (a month of date_trunc is a month of one year) */
			for (int j = i + 1; j < p->tk.n && j <= i + 3; j++) {
				struct ptok *u = &p->tk.v[j];
				if (u->used || !((u->role == R_BUCKET) || (u->role == R_UNIT && (u->group || p->tk.v[j - 1].role == R_PER ||
				                                                                 p->tk.v[j - 1].role == R_AND))))
					continue;
				static const char order[] = "hdwmqy";
				const char *fa = strchr(order, f->bucket), *fb = strchr(order, u->unitv);
				if (fa && fb && u->unitv && fb < fa)
					f->bucket = u->unitv;
				u->used = 1;
				if (p->tk.v[j - 1].role == R_PER || p->tk.v[j - 1].role == R_AND)
					p->tk.v[j - 1].used = 1;
			}
			if (f->time_col < 0)
				return pf_decline(p, "a breakdown by time was asked, but %s has no time column", p->s->t[f->fact].name);
			pf_decide(p, pf_span_text(p, i, i + 1), "group", arena_printf(&p->a, "date_trunc('%s', %s)",
			       f->bucket == 'h' ? "hour" : f->bucket == 'd' ? "day" : f->bucket == 'w' ? "week" : f->bucket == 'm' ? "month" : f->bucket == 'q' ? "quarter" : "year",
			       pf_cfq(p, f->time_col)), "a breakdown by time bucket", 1);
		}
	}
	/* "by sample month": the time column named beside its bucket is the bucket's, not a breakdown
	 * by every instant of it */
	for (int g = 0; f->bucket && g < f->ngroup; g++)
		if (f->group[g] == f->time_col) {
			for (int k = g; k + 1 < f->ngroup; k++)
				f->group[k] = f->group[k + 1];
			f->ngroup--;
			g--;
		}
	return 0;
}

/* pf_korean_breakdown_word: a Korean word that makes the word before it a breakdown (따른, 따라,
 * 마다, 별로); not 기준, which also says what a count or an average is based on ("결과 건 기준",
 * "오늘 기준"), nor 각, which comes before */
int pf_korean_breakdown_word(const struct ptok *t)
{
	static const char *const w[] = {"따른", "따라", "마다", "별로", NULL};
	return t->role == R_PER && t->hangul && planner_in_list(w, t->text);
}
