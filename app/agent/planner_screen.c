/* planner_screen.c: what no question shape builds, declined before any shape is tried: the future,
 * a negation, a number or a content word nothing could place, a reference to an earlier answer, a
 * time difference.  A rate word (사망률) or a duration word (수술 시간) that the measure passes can
 * build is noted instead. */
#include <stdlib.h>
#include <string.h>
#include "agent/planner_front.h"
#include "agent/planner_link.h"

/* a word asking for a share: percentage, proportion, 비율 (사망률 is a rate of a named thing) */
static int share_word(const struct ptok *t)
{
	static const char *const w[] = {"percentage", "percent", "proportion", "share", "fraction", "rate", "rates", "비율",
	                                "백분율", "퍼센트", NULL};
	return planner_in_list(w, t->text);
}

/* the numerator of a share: the last stored value named ("of discharged admissions ended in
 * death", "고혈압 환자 중 사망 비율"), or -1 */
static int share_value(struct planner *p)
{
	int best = pf_rate_part(p);   /* "A 중 B 비율": B, whatever the order of the words */
	if (best >= 0)
		return best;
	/* "thoracic surgery mortality rate": the thing right before "rate" (rate_words in planner.c),
	 * not the last value named (thoracic surgery: the base) */
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		int r = it->t1;
		if (r < p->tk.n && p->tk.v[r].role == R_UNSUP && pf_rate_word(&p->tk.v[r]) && pf_link_holds_or_not(p, it))
			return l;
	}
	/* "what % of robotic cases had icu days > 0": the part is a comparison, not the stored value
	 * named (robotic: the base) */
	int side[PL_MAX] = {0}, lo = 0, hi = 0;
	if (pf_rate_regions(p, side, &lo, &hi))
		for (int i = lo; i < hi && i < p->tk.n; i++) {
			const struct ptok *t = &p->tk.v[i];
			if (pf_comparison_tok(t)) {
				p->f.rate_cmp = i;
				return -1;
			}
		}
	/* "연령대별 ICU 입실 비율, 개복 수술만": the thing named where the part is said (the ICU
	 * admission before the share word), though the base names no value of its own */
	for (int l = 0; l < p->pl.n; l++)
		if (side[l] == 2 && (best < 0 || p->pl.v[l].t0 > p->pl.v[best].t0))
			best = l;
	if (best >= 0)
		return best;
	for (int l = 0; l < p->pl.n; l++)
		if (p->pl.v[l].kind == PL_VALUE && (best < 0 || p->pl.v[l].t0 > p->pl.v[best].t0))
			best = l;
	/* "ICU 입실 비율": else the last concept of the metadata named */
	for (int l = 0; l < p->pl.n && best < 0; l++)
		if (p->pl.v[l].kind == PL_CONCEPT && p->pl.v[l].con >= 0)
			best = l;
	/* "진료과별 당뇨 비율": else the last yes/no attribute named, not said per it */
	for (int l = 0; l < p->pl.n && best < 0; l++)
		if (p->pl.v[l].kind == PL_COLUMN && p->s->c[p->pl.v[l].cols[0]].flag && !pf_link_per(p, &p->pl.v[l]))
			best = l;
	return best;
}

/* coded_numbers: an integer column of at most 20 distinct values (a code: ASA class, a grade) named
 * and then one of its values ("ASA 3 환자", "ASA class 3"; planner_code_number): that value, when the
 * database has rows with it (each asked once, cached).  Stored text codes are linked so already
 * (planner_link.c link_coded_numbers). */
static void coded_numbers(struct planner *p)
{
	for (int l = 0; l < p->pl.n; l++) {
		struct plink_item *it = &p->pl.v[l];
		int x = planner_code_number(&p->tk, it);
		if (x < 0)
			continue;
		const struct pcol *c = &p->s->c[it->cols[0]];
		double num = p->tk.v[x].num;
		if (!c->is_int || c->unique || c->flag || pf_is_keyish(p, it->cols[0]) || num != (double)(long)num ||
		    num < 0 || num > 1000)
			continue;
		/* a code has few values (ASA 1-6, a grade): an age or a count is no code */
		struct sb q = SB_INIT;
		sb_init_arena(&q, &p->a);
		sb_printf(&q, "SELECT 1 FROM (SELECT DISTINCT \"%s\" FROM \"%s\" LIMIT 21) AS d HAVING count(*) <= 20",
		          c->name, p->s->t[c->table].name);
		if (!sb_ok(&q) || !planner_snap_probe(p->s, sb_cstr(&q)))
			continue;
		sb_reset(&q);
		sb_printf(&q, "SELECT 1 FROM \"%s\" WHERE \"%s\" = %ld LIMIT 1", p->s->t[c->table].name, c->name, (long)num);
		if (!sb_ok(&q) || !planner_snap_probe(p->s, sb_cstr(&q)))
			continue;
		it->why = arena_printf(&p->a, "'%s' is a value of %s.%s", pf_span_text(p, it->t0, x + 1),
		                       p->s->t[c->table].name, c->name);
		planner_code_link(&p->tk, it, x, arena_printf(&p->a, "%ld", (long)num));
	}
}

/* stay_length: the length of stay asked: of the stay chosen ("the first ICU stay": its own start
 * and end, days with their fraction) when that is not the hospital stay, else the hospital stay's
 * admission and discharge dates; 1 found, 0 none */
static int stay_length(struct planner *p)
{
	if (!pf_find_stay(p))
		return 0;
	if (p->f.episode >= 0 && p->f.episode != p->s->c[p->f.dur_start].table) {
		int s0 = p->f.dur_start, e0 = p->f.dur_end;
		p->f.dur_start = p->f.dur_end = -1;
		p->f.dur_days = 0;
		if (pf_episode_duration(p))
			return 1;
		p->f.dur_start = s0, p->f.dur_end = e0, p->f.dur_days = 1;
	}
	return 1;
}

/* missing_left_out: "leave out cases with no ASA", "skip cases without BMI", "BMI 없는 건 제외": the
 * rows where that column has a value (IS NOT NULL); the words are conf/lexicon/phrases.tsv,
 * leave_out and missing_word.  An attribute that holds or not (without diabetes) is a negation,
 * left to the screen below */
static void missing_left_out(struct planner *p)
{
	const char *const *verbs = planner_lex_phrases("leave_out"), *const *miss = planner_lex_phrases("missing_word");
	for (int k = 0; k < p->tk.n; k++) {
		struct ptok *t = &p->tk.v[k];
		if (t->used || !(planner_in_list(miss, t->text) || (!strcmp(t->text, "with") && k + 1 < p->tk.n &&
		                                                    !strcmp(p->tk.v[k + 1].text, "no"))))
			continue;
		int x = k + (!strcmp(t->text, "with") ? 2 : 1), verb = -1, kor = t->hangul;
		if (kor) {
			/* "BMI 없는 건 제외", "ASA 없는 케이스 빼고": the column before, the verb after */
			x = -1;
			for (int l = 0; l < p->pl.n; l++)
				if (p->pl.v[l].t1 == k)
					x = p->pl.v[l].t0;
			for (int j = k + 1; j < p->tk.n && j <= k + 3 && verb < 0; j++)
				if (planner_in_list(verbs, p->tk.v[j].text))
					verb = j;
		} else {
			while (x < p->tk.n && (!strcmp(p->tk.v[x].text, "a") || !strcmp(p->tk.v[x].text, "an") ||
			                       !strcmp(p->tk.v[x].text, "any") || !strcmp(p->tk.v[x].text, "recorded")))
				x++;
			for (int j = k - 1; j >= 0 && j >= k - 5 && verb < 0; j--)
				if (planner_in_list(verbs, p->tk.v[j].text) || planner_in_list(verbs, p->tk.v[j].stem))
					verb = j;
		}
		if (x < 0 || x >= p->tk.n || verb < 0)
			continue;
		for (int l = 0; l < p->pl.n; l++) {
			const struct plink_item *it = &p->pl.v[l];
			int ci = it->ncols ? it->cols[0] : -1;
			if (it->kind != PL_COLUMN || it->t0 != x || ci < 0 || p->s->c[ci].flag || pf_is_keyish(p, ci) ||
			    p->f.ncond >= MAXF)
				continue;
			pf_cond_not_null(&p->f, ci);
			t->used = p->tk.v[verb].used = 1;
			for (int m = 0; m < p->pl.n; m++)   /* ("leave" is no discharge here) */
				if (p->pl.v[m].t0 <= verb + 1 && verb < p->pl.v[m].t1)
					p->pl.v[m].role = PL_ROLE_IGNORED;
			if (!kor && !strcmp(t->text, "with"))
				p->tk.v[k + 1].used = 1;
			if (!kor && verb + 1 < p->tk.n && !strcmp(p->tk.v[verb + 1].text, "out"))
				p->tk.v[verb + 1].used = 1;
			pf_decide(p, pf_span_text(p, kor ? x : verb, kor ? verb + 1 : it->t1), "filter",
			          arena_printf(&p->a, "%s IS NOT NULL", pf_cfq(p, ci)), "the rows with no value are left out", 1);
			break;
		}
	}
}

/* breakdown_head: token i is what a breakdown is by ("병원별", "by visit type": a word otherwise
 * too generic to link): left unread, the breakdown would be dropped and every row counted as one
 * group, so it must be linked like any content word */
static int breakdown_head(const struct planner *p, int i)
{
	const struct ptok *t = &p->tk.v[i];
	static const char *const det[] = {"the", "a", "an", "all", "each", "every", "its", "their", "his", "her", "any", NULL};
	if (t->group)
		return 1;
	if (planner_in_list(det, t->text))
		return 0;
	if (i + 1 < p->tk.n && pf_korean_breakdown_word(&p->tk.v[i + 1]))
		return 1;   /* "퇴원 결과에 따른": the word before 따른, 따라, 마다 */
	/* (English: the last word of the phrase after by/per; "per hospital admission": hospital
	 * says which admissions) */
	if (i + 1 < p->tk.n && p->tk.v[i + 1].kind == TK_WORD && !p->tk.v[i + 1].hangul &&
	    (p->tk.v[i + 1].role == R_NONE || p->tk.v[i + 1].role == R_DISTINCT))
		return 0;
	for (int k = i - 1; k >= 0 && k >= i - 2; k--) {
		const struct ptok *b = &p->tk.v[k];
		if (b->role == R_PER && !b->hangul)
			return strcmp(b->text, "per") != 0 || k == i - 1 ? 1 : 0;
		if (b->kind != TK_WORD || (b->role != R_NONE && b->role != R_DISTINCT))
			return 0;
		for (int l = 0; l < p->pl.n; l++)
			if (p->pl.v[l].kind != PL_TABLE && p->pl.v[l].t0 <= k && k < p->pl.v[l].t1)
				return 0;   /* "by race type": the column said, 'type' its filler */
	}
	return 0;
}

int pf_screen(struct planner *p)
{
	coded_numbers(p);
	missing_left_out(p);
	/* a length of stay (재원일수): the admission and discharge times, in days */
	for (int i = 0, n; i < p->tk.n; i++)
		if (pf_stay_word(p, i, &n) && (p->f.dur_days || (p->f.dur_start < 0 && stay_length(p))))
			for (int k = i; k < i + n; k++) {
				p->tk.v[k].used = 1;   /* every mention ("재원일수 = 퇴원일자 - 입원일자"), and LOS
				                        * is the stay even where a stored value spelled it */
				for (int l = 0; l < p->pl.n; l++)
					if (p->pl.v[l].t0 <= k && k < p->pl.v[l].t1)
						p->pl.v[l].role = PL_ROLE_IGNORED;
			}
	/* an age asked of a database that keeps birth dates (평균 나이): the age at "now" is the measure */
	for (int i = 0, fb; i < p->tk.n && p->f.measure < 0; i++) {
		struct ptok *t = &p->tk.v[i];
		int col = !t->used && pf_age_word(t) ? pf_age_col(p, &fb) : -1;
		if (col >= 0 && fb) {
			p->f.measure = col;
			p->f.measure_age = 1;
			t->used = 1;
		}
	}
	pf_together_words(p);
	pf_percentile_words(p);
	/* shapes it does not build */
	for (int i = 0; i < p->tk.n; i++) {
		if (p->tk.v[i].role == R_UNSUP && p->tk.v[i].unsup_rate && pf_rate_link(p, i) >= 0) {
			p->f.agg = "RATE";   /* the share of rows where the yes/no thing holds, in percent */
			continue;
		}
		/* "사망률" where 사망 is a stored code (퇴원결과 4 사망): the share of rows holding it */
		for (int l = 0; l < p->pl.n && p->tk.v[i].role == R_UNSUP && p->tk.v[i].unsup_rate && p->f.rate_link < 0; l++)
			if (p->pl.v[l].kind == PL_VALUE && p->pl.v[l].t0 <= i && i < p->pl.v[l].t1 && p->pl.v[l].ncols == 1) {
				p->f.rate_link = l;
				p->f.agg = "RATE";
				p->tk.v[i].used = 1;
			}
		if (p->f.rate_link >= 0 && p->tk.v[i].used && p->tk.v[i].unsup_rate)
			continue;
		/* "What % of ER visits ...": a percent sign after no number asks for a share */
		int pct = !strcmp(p->tk.v[i].text, "%") && (i == 0 || p->tk.v[i - 1].kind != TK_NUM);
		if (((p->tk.v[i].role == R_UNSUP && share_word(&p->tk.v[i])) || pct) &&
		    ((p->f.rate_link = share_value(p)) >= 0 || p->f.rate_cmp >= 0)) {
			/* "일반외과 환자의 성별 비율": the share of each sex among the cases named (a make-up of
			 * them), not the share of those cases within each sex, which the SQL would be */
			for (int l = 0; l < p->pl.n && p->f.rate_link >= 0 && i > 0; l++) {
				const struct plink_item *g = &p->pl.v[l];
				const struct ptok *w = &p->tk.v[i - 1];
				size_t wl = strlen(w->text);
				if (g->kind == PL_COLUMN && g->t1 == i && p->pl.v[p->f.rate_link].t1 <= g->t0 &&
				    (pf_link_per(p, g) || (w->hangul && wl > 3 && !strcmp(w->text + wl - 3, "별"))))
					return pf_decline(p, "%s asks for the make-up of the rows named by each of its values, a shape the "
					                     "offline planner does not build", arena_printf(&p->a, "'%s'", pf_span_text(p, g->t0, i + 1)));
			}
			p->f.agg = "RATE";   /* the share of rows that hold the last value named */
			for (int k = 0; k < p->f.ncond && p->f.rate_cmp >= 0 && !p->f.rate_n; k++)
				if (p->f.cond[k].at && abs(p->f.cond[k].at - 1 - p->f.rate_cmp) <= 4) {
					p->f.rate_from = k;   /* the comparison is the part: counted, not a filter */
					p->f.rate_n = 1;
				}
			p->tk.v[i].used = 1;
			continue;
		}
		if (p->tk.v[i].role == R_UNSUP && pf_duration_word(&p->tk.v[i]) && (pf_find_duration(p) || pf_episode_duration(p))) {
			p->tk.v[i].used = 1;   /* "average duration of surgery": a duration measure */
			continue;
		}
		if (p->tk.v[i].role == R_UNSUP && (!p->tk.v[i].used || p->tk.v[i].hangul))
			return pf_decline(p, "the question asks for '%s', a shape the offline planner does not build", p->tk.v[i].text);
		if (p->tk.v[i].role == R_NEG && !p->tk.v[i].used)
			return pf_decline(p, "the question has a negation ('%s'), which the offline planner does not build", p->tk.v[i].text);
		if (p->tk.v[i].role == R_NEXT)
			return pf_decline(p, "%s", "questions about the future cannot be answered from recorded data");
	}
	/* a number nobody could place (a row id, a limit, a threshold...): say so */
	for (int i = 0; i < p->tk.n; i++)
		if ((p->tk.v[i].kind == TK_NUM || p->tk.v[i].kind == TK_DATE) && !p->tk.v[i].used &&
		    (p->tk.v[i].num != 1 || p->tk.v[i].unit == 't') &&   /* ("한 번만", once: a count of times) */
		    !(p->tk.v[i].kind == TK_NUM && (pf_find_role(p, R_TOP) >= 0 || pf_find_role(p, R_MOST) >= 0 || pf_find_role(p, R_FREQ) >= 0)))
			return pf_decline(p, "could not tell what '%s' refers to", p->tk.v[i].text);
	/* "which label was that?": refers to something said before */
	for (int i = p->tk.n - 1; i >= 0; i--) {
		const struct ptok *t = &p->tk.v[i];
		if (t->kind == TK_PUNCT)
			continue;
		if (!strcmp(t->text, "that") || !strcmp(t->text, "it") || !strcmp(t->text, "those") || !strcmp(t->text, "them") ||
		    !strcmp(t->text, "this") || !strcmp(t->text, "these") || !strcmp(t->text, "그것") || !strcmp(t->text, "그거"))
			return pf_decline(p, "the question refers to '%s' without saying what it is", t->text);
		break;
	}
	/* "I'm reviewing patient X's chart for a meeting; could you tell me ...": the words of a
	 * first-person preamble before its ; : or . say why, not what (its patient was read already) */
	if (p->tk.n && (!strcmp(p->tk.v[0].text, "i") || !strcmp(p->tk.v[0].text, "we") ||
	                !strcmp(p->tk.v[0].text, "hello") || !strcmp(p->tk.v[0].text, "hi"))) {
		int end = -1;
		for (int i = 1; i < p->tk.n && end < 0; i++)
			if (p->tk.v[i].kind == TK_PUNCT && (!strcmp(p->tk.v[i].text, ";") || !strcmp(p->tk.v[i].text, ":") ||
			                                    !strcmp(p->tk.v[i].text, ".") || !strcmp(p->tk.v[i].text, ",")))
				end = i;
		if (end + 4 > p->tk.n)
			end = -1;   /* a whole question that ends with its full stop is no preamble */
		for (int i = 0; i < end; i++)
			if (p->tk.v[i].kind == TK_WORD && p->tk.v[i].role == R_NONE)
				p->tk.v[i].used = 1;
	}
	/* an unlinked content word: say what was not understood instead of guessing */
	{
		struct sb u = SB_INIT;
		sb_init_arena(&u, &p->a);
		for (int i = 0; i < p->tk.n; i++) {
			struct ptok *t = &p->tk.v[i];
			if (t->used || t->kind != TK_WORD)
				continue;
			int head = breakdown_head(p, i);   /* ("by visit type": 'type' is no count of kinds) */
			if ((t->role != R_NONE && !(t->role == R_DISTINCT && head)) ||
			    ((planner_lex_generic(t->stem) || planner_lex_generic(t->text)) && !head))
				continue;
			/* (a short word is no exception: "dx", "hr" are abbreviations that must be linked or
			 * said; the short function words, of, in, u, are in conf/lexicon/function_words.txt) */
			if (u.len)
				sb_puts(&u, "', '");
			sb_puts(&u, t->text);
		}
		if (u.len)
			return pf_decline(p, "could not link '%s' to any table, column or stored value", sb_cstr(&u));
	}

	/* "how many days since ...": a time difference */
	for (int i = 0; i + 2 < p->tk.n && p->f.pair != 'e'; i++)
		if (p->tk.v[i].role == R_HOW && p->tk.v[i + 1].role == R_MANY && p->tk.v[i + 2].role == R_UNIT)
			return pf_decline(p, "%s", "a time difference ('how many days/hours since') is not a shape the offline planner builds");
	return 0;
}
