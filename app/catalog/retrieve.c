/* retrieve.c: multi-axis schema retrieval (vector, HyDE, keyword, intent, PRF) fused by RRF, with joins, values and a prompt block. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "catalog/catalog_int.h"
#include "catalog/llm_policy.h"
#include "catalog/embed.h"
#include "catalog/text.h"
#include "util/log.h"
#include "util/sb.h"

enum { AX_VEC, AX_HYDE, AX_KEY, AX_INTENT, AX_PRF, NAX };
static const char *const axis_names[NAX] = {"vector", "hyde", "keyword", "intent", "prf"};
#define AXN 50          /* length of each axis list */
#define RRF_K 60
/* weighted RRF: an exact keyword/synonym/value hit is stronger evidence than one more
 * vector-style axis (vector, HyDE, intent and PRF are correlated) */
static const double axis_weight[NAX] = {1.0, 1.0, 2.0, 1.0, 1.0};
#define MAXTOK 96
#define MAXVAL 24
#define MAXCHOSEN 4
#define TERM_VALS 4     /* best value mappings whose tables the block must hold */
#define TERM_COLS 5     /* best retrieved columns whose tables the block must hold */
#define STEINER_HOPS 2  /* longest join path attaching one more table to the tree */
#define PT_MAX 24       /* most tables the prompt block names (reached + connecting) */

static const char *const intent_names[] = {"detail", "aggregation", "filter", "comparison",
	"trend", "ranking"};

const char *intent_name(enum intent i)
{
	return (unsigned)i < sizeof intent_names / sizeof *intent_names ? intent_names[i] : "detail";
}

/* cue substrings of the lower-cased question, checked in priority order */
static const char *const cues_ranking[] = {"top ", "top-", "top1", "top3", "top5", "top10", "순위",
	"가장", "상위", "하위", "highest", "lowest", "most ", "least ", "best", "worst", "rank",
	"최고", "최저", "largest", "smallest", "제일", NULL};
static const char *const cues_trend[] = {"추이", "추세", "변화", "증감", "월별", "연도별", "년도별",
	"일별", "주별", "시간별", "trend", "over time", "monthly", "daily", "weekly", "yearly",
	"per month", "by month", "by year", "time series", "per day", "by day", NULL};
static const char *const cues_comparison[] = {"비교", "대비", "차이", "versus", " vs", "compare",
	"comparison", "difference", "between", NULL};
static const char *const cues_aggregation[] = {"평균", "합계", "총 ", "총합", "건수", "몇 명", "몇명",
	"몇 건", "몇건", "개수", "최대", "최소", "중앙값", "분포", "count", "average", "mean", "sum",
	"total", "how many", "number of", "maximum", "minimum", "median", "max ", "min ", "avg",
	"별 ", "per ", "환자수", "환자 수", "명 수", "인원", " 수는", " 수를", " 수가", "비율", "ratio",
	"percent", "proportion", NULL};
static const char *const cues_filter[] = {"이상", "이하", "초과", "미만", "환자 중", "인 환자",
	"where", "above", "below", "greater", "less than", "more than", "over ", "under ", "with ",
	">", "<", "=", "있는", "없는", "받은", "된 ", "only", "last ", "지난", "최근", NULL};
static const char *const cues_detail[] = {"목록", "리스트", "상세", "list", "show", "detail", NULL};

static int has_cue(const char *q, const char *const *cues)
{
	for (int i = 0; cues[i]; i++)
		if (strstr(q, cues[i]))
			return 1;
	return 0;
}

static enum intent classify(const char *lowq)
{
	size_t n = strlen(lowq);

	/* "... 수" at the end: a count ("고칼륨혈증 환자 수") */
	if (n > 4 && !strcmp(lowq + n - 4, " \xec\x88\x98") && !has_cue(lowq, cues_ranking) &&
	    !has_cue(lowq, cues_trend) && !has_cue(lowq, cues_comparison))
		return INTENT_AGGREGATION;
	if (has_cue(lowq, cues_ranking))
		return INTENT_RANKING;
	if (has_cue(lowq, cues_trend))
		return INTENT_TREND;
	if (has_cue(lowq, cues_comparison))
		return INTENT_COMPARISON;
	if (has_cue(lowq, cues_aggregation))
		return INTENT_AGGREGATION;
	if (has_cue(lowq, cues_filter))
		return INTENT_FILTER;
	if (has_cue(lowq, cues_detail))
		return INTENT_DETAIL;
	return INTENT_DETAIL;
}

/* how well a column's kind fits the question's intent (added to its similarity) */
static double affinity(enum intent it, const struct cat_column *c)
{
	switch (it) {
	case INTENT_AGGREGATION: return c->numeric && !c->idlike ? 0.3 : c->idlike ? 0.15 : 0;
	case INTENT_TREND:       return c->temporal ? 0.4 : c->numeric && !c->idlike ? 0.15 : 0;
	case INTENT_RANKING:     return c->numeric && !c->idlike ? 0.3 : c->idlike ? 0.1 : 0;
	case INTENT_FILTER:      return c->nvalues ? 0.3 : c->numeric ? 0.1 : c->temporal ? 0.1 : 0;
	case INTENT_COMPARISON:  return c->nvalues ? 0.25 : c->numeric && !c->idlike ? 0.2 : 0;
	case INTENT_DETAIL:      return c->idlike ? 0.2 : c->textual ? 0.1 : 0;
	}
	return 0;
}

/* top n indexes of score[0..len) (score > floor) into out, best first; returns the count */
static int topn(const double *score, int len, int n, double floor, int *out)
{
	int k = 0;

	for (int i = 0; i < len; i++) {
		double s = score[i];
		int j;

		if (s <= floor)
			continue;
		if (k < n)
			j = k++;
		else if (s > score[out[n - 1]])
			j = n - 1;
		else
			continue;
		for (; j > 0 && score[out[j - 1]] < s; j--)
			out[j] = out[j - 1];
		out[j] = i;
	}
	return k;
}

struct vmatch { int value; const char *phrase; const char *how; double score; int start, len; };

struct ctx {
	struct catalog *c;
	struct retrieval *r;
	struct arena *a;
	const struct retrieval_opts *o;
	char lowq[2048];
	char tokbuf[4096], *toks[MAXTOK];
	char rawbuf[4096], *raws[MAXTOK];
	int ntok, nraw;
	const char *q;                    /* the question as asked */
	int tstart[MAXTOK], tend[MAXTOK]; /* where each canonical token's word lies in q */
	unsigned char *listed;            /* per column: a dictionary label list in the whole schema */
	unsigned char *covered;           /* per canonical token: matched by a term */
	float *qvec, *hvec;
	double *kw_col, *kw_tab;
	unsigned char *kw_primary;        /* column was the best target of some matched term */
	unsigned char *strong;            /* table named explicitly (name, synonym, value, concept) */
	int kw_any;
	struct vmatch vals[MAXVAL]; int nvals;
	int *concepts; int nconcepts;
	const char *concept_phrase[16];   /* the words of the question that named each concept */
	int lists[NAX][AXN], nlists[NAX];     /* column axes */
	int tlists[NAX][AXN], ntlists[NAX];   /* table axes */
	double best_cos;
};

/*
 * Bare numbers and single letters (docs/context.md, "Numbers and letters"): "top 3", "3 months",
 * "3.0 g/dL" and the "s" of "patient's" must not become stored codes '3' and 'S'.  A phrase of
 * digits maps to a stored value only when nothing marks it as a quantity, and a short one (at
 * most SHORT_NUMBER digits) only when the question ties it to the value's column; a single
 * letter only when it stands as a code: quoted, right after the column's name, or a capital
 * letter standing alone inside a sentence.
 */
#define SHORT_NUMBER 4
/* a number right after one of these counts or bounds something ("top 3", "more than 3") */
static const char *const qty_before[] = {"top", "bottom", "than", "least", "most", "over", "under",
	"above", "below", "within", "last", "past", "first", "next", "about", "around", "approximately",
	"nearly", "exceeding", "exceed", "상위", "하위", "최근", "지난", "약", "최소", "최대", "처음", NULL};
/* units, time and counting words after a number ("3 months", "5.5 mmol/L", "65세", "3개월"),
 * and comparisons that follow it in Korean ("3 이상") */
static const char *const qty_after[] = {"g", "mg", "kg", "mcg", "ug", "ng", "ml", "l", "dl", "cc",
	"mmol", "umol", "meq", "iu", "u", "unit", "mmhg", "bpm", "cm", "mm", "m", "percent", "x",
	"time", "dose", "tablet", "tab", "second", "sec", "minute", "min", "hour", "hr", "h", "day", "d",
	"week", "wk", "w", "month", "mo", "year", "yr", "y", "decade",
	"초", "분", "시간", "일", "주", "개월", "달", "년", "세", "살", "회", "명", "건", "개", "배", "퍼센트",
	"이상", "이하", "미만", "초과", NULL};
/* "3 or more" */
static const char *const qty_or[] = {"more", "less", "fewer", "greater", "higher", "lower", "above",
	"below", "over", "under", NULL};

static int in_words(const char *w, const char *const *words)
{
	for (int i = 0; words[i]; i++)
		if (!strcmp(w, words[i]))
			return 1;
	return 0;
}

static int all_digits(const char *w)
{
	if (!*w)
		return 0;
	for (; *w; w++)
		if (!isdigit((unsigned char)*w))
			return 0;
	return 1;
}

/* is byte offset at of q a quote mark (ASCII or a typographic one)? */
static int quote_at(const char *q, int at, int before)
{
	const unsigned char *u = (const unsigned char *)q;

	if (at < 0)
		return 0;
	if (u[at] == '\'' || u[at] == '"' || u[at] == '`')
		return 1;
	/* U+2018/2019/201C/201D are E2 80 98/99/9C/9D: before the word the last byte is at */
	if (before)
		return at >= 2 && u[at - 2] == 0xE2 && u[at - 1] == 0x80 && u[at] >= 0x98 && u[at] <= 0x9D;
	return u[at] == 0xE2 && u[at + 1] == 0x80 && u[at + 2] >= 0x98 && u[at + 2] <= 0x9D;
}

/* tokens [i, i+n) written in quotes: 'S', "3" */
static int quoted(const struct ctx *x, int i, int n)
{
	int s = x->tstart[i], e = x->tend[i + n - 1];

	return s > 0 && quote_at(x->q, s - 1, 1) && x->q[e] && quote_at(x->q, e, 0);
}

/* does the term t occur in the question at token s? */
static int term_at(const struct ctx *x, const struct cat_term *t, int s)
{
	if (s + t->ntoks > x->ntok)
		return 0;
	for (int k = 0; k < t->ntoks; k++)
		if (strcmp(t->toks[k], x->toks[s + k]))
			return 0;
	return 1;
}

/* does text (a column's name, full name or comment) name the question word w: the same word,
 * or for a Korean word two syllables in a row of it (결과코드 and 퇴원결과) */
static int text_names(const char *text, const char *w)
{
	char buf[2048], *toks[64];
	int n;

	if (!text)
		return 0;
	if (text_is_hangul_word(w)) {
		int nc = utf8_nchars(w);

		for (int k = 0; k + 2 <= nc; k++) {
			char two[16];
			size_t b = utf8_prefix_bytes(w, k), l = utf8_prefix_bytes(w + b, 2);

			if (l >= sizeof two)
				continue;
			memcpy(two, w + b, l);
			two[l] = '\0';
			if (text_is_hangul_word(two) && strstr(text, two))
				return 1;
		}
		return 0;
	}
	n = text_tokens(text, 0, buf, sizeof buf, toks, 64);
	for (int k = 0; k < n; k++)
		if (!strcmp(toks[k], w))
			return 1;
	return 0;
}

/* does question token p name column ci: a term over p refers to it (its name, a synonym, a word
 * of its comment), or its own texts name the word */
static int token_names_column(const struct ctx *x, int p, int ci)
{
	const struct catalog *c = x->c;
	const struct cat_column *col = &c->columns[ci];
	const char *w = x->toks[p];

	if (text_is_stop(w) || all_digits(w) || utf8_nchars(w) < 2)
		return 0;
	for (int s = p; s >= 0 && s > p - 6; s--)
		for (int ti = strmap_get(&c->term_first, x->toks[s]); ti >= 0; ti = c->term_next[ti]) {
			const struct cat_term *t = &c->terms[ti];

			if (s + t->ntoks <= p || !term_at(x, t, s))
				continue;
			for (int k = 0; k < t->nrefs; k++)
				if (t->refs[k].kind == TK_COLUMN && t->refs[k].id == ci)
					return 1;
		}
	return text_names(col->name, w) || text_names(col->full_name, w) || text_names(col->comment, w);
}

/* the question ties tokens starting at i to column ci: one of the two words before names it
 * ("route code 2", "결과코드 4", "gender m"); a stop word or a number in between breaks the tie */
static int tied_to_column(const struct ctx *x, int i, int ci)
{
	for (int p = i - 1; p >= 0 && p >= i - 2; p--) {
		if (text_is_stop(x->toks[p]) || all_digits(x->toks[p]))
			return 0;
		if (token_names_column(x, p, ci))
			return 1;
	}
	return 0;
}

/* the number at tokens [i, i+n) is a quantity: a decimal, part of a date, time or range, a
 * percentage, a bound ("more than 3", "< 5"), or followed by a unit, time or counting word */
static int is_quantity(const struct ctx *x, int i, int n)
{
	const char *q = x->q;
	int s = x->tstart[i], e = x->tend[i + n - 1], b;

	for (int k = 1; k < n; k++)   /* "3.0", "1,000" */
		for (int j = x->tend[i + k - 1]; j < x->tstart[i + k]; j++)
			if (q[j] == '.' || q[j] == ',')
				return 1;
	if (q[e] && strchr(".,/:-", q[e]) && isdigit((unsigned char)q[e + 1]))
		return 1;
	if (s >= 2 && strchr(".,/:-", q[s - 1]) && isdigit((unsigned char)q[s - 2]))
		return 1;
	for (b = e; q[b] == ' '; b++)
		;
	if (q[b] == '%')
		return 1;
	for (b = s - 1; b >= 0 && q[b] == ' '; b--)
		;
	if (b >= 0 && (q[b] == '<' || q[b] == '>' || q[b] == '~' ||
	               (b >= 2 && (unsigned char)q[b - 2] == 0xE2 && (unsigned char)q[b - 1] == 0x89 &&
	                ((unsigned char)q[b] == 0xA4 || (unsigned char)q[b] == 0xA5))))   /* ≤ ≥ */
		return 1;
	if (i > 0 && in_words(x->toks[i - 1], qty_before))
		return 1;
	if (i > 1 && !strcmp(x->toks[i - 1], "to") && !strcmp(x->toks[i - 2], "up"))
		return 1;
	if (i + n < x->ntok) {
		const char *next = x->toks[i + n];
		int gap = 1;

		for (b = e; b < x->tstart[i + n]; b++)
			gap &= q[b] == ' ';
		if (gap && in_words(next, qty_after))
			return 1;
		if (!strcmp(next, "or") && i + n + 1 < x->ntok && in_words(x->toks[i + n + 1], qty_or))
			return 1;
	}
	return 0;
}

/* may question tokens [i, i+n) map to stored value v?  Words always; numbers and single letters
 * by the rules above */
static int value_allowed(const struct ctx *x, int i, int n, int v)
{
	const char *q = x->q;
	int digits = 1, ndig = 0, coded = 0;

	if (i < 0 || n < 1 || !q)
		return 1;
	for (int k = 0; k < n && digits; k++) {
		digits = all_digits(x->toks[i + k]);
		ndig += (int)strlen(x->toks[i + k]);
	}
	if (digits) {
		/* digits joined by hyphens or slashes and matched whole are a code ("2160-0") */
		for (int k = 1; k < n; k++)
			for (int j = x->tend[i + k - 1]; j < x->tstart[i + k]; j++)
				coded |= q[j] == '-' || q[j] == '/';
		if (quoted(x, i, n))
			return 1;
		if (is_quantity(x, i, n))
			return 0;
		return ndig > SHORT_NUMBER || coded || tied_to_column(x, i, x->c->values[v].col);
	}
	if (n == 1 && strlen(x->toks[i]) == 1 && isalpha((unsigned char)x->toks[i][0])) {
		int s = x->tstart[i], b;

		if (quoted(x, i, 1))
			return 1;
		/* the s of "patient's", the t of "don't" */
		if (s > 0 && (q[s - 1] == '\'' || quote_at(q, s - 1, 1)))
			return 0;
		if (tied_to_column(x, i, x->c->values[v].col))
			return 1;
		/* a capital standing alone inside a sentence ("K가 높은", "gender M"), not the pronoun I */
		for (b = s - 1; b >= 0 && q[b] == ' '; b--)
			;
		return isupper((unsigned char)q[s]) && q[s] != 'I' && b >= 0 && !strchr(".?!", q[b]);
	}
	return 1;
}

/* how many of the question's words outside match m the mapped column's texts (name, full name,
 * comment) and its table's (name, comment) name: which of one phrase's columns fits the question */
static int column_fit(const struct ctx *x, const struct vmatch *m)
{
	const struct cat_column *col = &x->c->columns[x->c->values[m->value].col];
	const struct cat_table *t = &x->c->tables[col->table];
	int n = 0;

	for (int i = 0; i < x->ntok; i++) {
		const char *w = x->toks[i];

		if ((m->start >= 0 && i >= m->start && i < m->start + m->len) || text_is_stop(w) ||
		    all_digits(w) || utf8_nchars(w) < 2)
			continue;
		n += text_names(col->name, w) || text_names(col->full_name, w) || text_names(col->comment, w) ||
		     text_names(t->name, w) || text_names(t->comment, w);
	}
	return n;
}

/* a value matched by question tokens [start, start+len) */
static void add_value(struct ctx *x, int v, const char *phrase, const char *how, double score,
                      int start, int len)
{
	for (int i = 0; i < x->nvals; i++)
		if (x->vals[i].value == v) {
			if (score > x->vals[i].score) {
				x->vals[i].score = score;
				x->vals[i].how = how;
				x->vals[i].phrase = arena_strdup(x->a, phrase);
				x->vals[i].start = start;
				x->vals[i].len = len;
			}
			return;
		}
	if (x->nvals == MAXVAL)
		return;
	x->vals[x->nvals++] = (struct vmatch){v, arena_strdup(x->a, phrase), how, score, start, len};
}

/* ontology terms that stand for a coded value (고칼륨혈증 => lab_data_table.name = 'k' AND ...)
 * bring that value mapping along */
static void concept_values(struct ctx *x)
{
	struct catalog *c = x->c;

	for (int i = 0; i < x->nconcepts; i++) {
		const struct cat_concept *q = &c->concepts[x->concepts[i]];
		const char *p = q->sql;

		while (p && (p = strstr(p, " = '"))) {
			const char *b = p, *v = p + 4, *e = strchr(v, '\'');
			char col[300], val[300];
			int ci;

			while (b > q->sql && (isalnum((unsigned char)b[-1]) || b[-1] == '_' || b[-1] == '.'))
				b--;
			if (!e || (size_t)(p - b) >= sizeof col || (size_t)(e - v) >= sizeof val)
				break;
			snprintf(col, sizeof col, "%.*s", (int)(p - b), b);
			snprintf(val, sizeof val, "%.*s", (int)(e - v), v);
			if ((ci = cat_find_column(c, col)) >= 0) {
				text_lower(val, val, sizeof val);
				for (int k = strmap_get(&c->value_norm, val); k >= 0; k = c->value_next[k])
					if (c->values[k].col == ci)
						add_value(x, k, x->concept_phrase[i] ? x->concept_phrase[i] : q->name,
						          "concept", 0.9, -1, 0);
			}
			p = e + 1;
		}
	}
}

/* "general surgery" -> department = 'General surgery' makes "general" -> ane_type =
 * 'General' moot: drop matches whose tokens lie inside a longer match */
static void drop_nested_values(struct ctx *x)
{
	int k = 0;

	for (int i = 0; i < x->nvals; i++) {
		const struct vmatch *a = &x->vals[i];
		int inside = 0;

		for (int j = 0; j < x->nvals && !inside; j++) {
			const struct vmatch *b = &x->vals[j];

			inside = j != i && b->len > a->len && a->start >= b->start &&
			         a->start + a->len <= b->start + b->len;
		}
		if (!inside)
			x->vals[k++] = x->vals[i];
	}
	x->nvals = k;
}

static void add_concept(struct ctx *x, int k, const char *phrase)
{
	for (int i = 0; i < x->nconcepts; i++)
		if (x->concepts[i] == k)
			return;
	if (x->nconcepts < 16) {
		x->concept_phrase[x->nconcepts] = arena_strdup(x->a, phrase);
		x->concepts[x->nconcepts++] = k;
	}
}

/* keyword/synonym axis: every term whose tokens occur in sequence in the question */
static void keyword_axis(struct ctx *x)
{
	struct catalog *c = x->c;

	for (int i = 0; i < x->ntok; i++) {
		int head = strmap_get(&c->term_first, x->toks[i]);

		for (int ti = head; ti >= 0; ti = c->term_next[ti]) {
			const struct cat_term *t = &c->terms[ti];
			int ok = i + t->ntoks <= x->ntok;
			char phrase[512];
			size_t pl = 0;

			for (int k = 1; ok && k < t->ntoks; k++)
				ok = !strcmp(t->toks[k], x->toks[i + k]);
			if (!ok)
				continue;
			for (int k = 0; k < t->ntoks; k++) {
				x->covered[i + k] = 1;
				pl += (size_t)snprintf(phrase + pl, sizeof phrase - (pl < sizeof phrase ? pl : sizeof phrase),
				                       "%s%s", k ? " " : "", x->toks[i + k]);
				if (pl >= sizeof phrase)
					pl = sizeof phrase - 1;
			}
			/* longer phrases count more; terms shared by many things count less */
			double len = 1.0 + 0.5 * (t->ntoks - 1), idf = 1.0 / sqrt((double)t->nrefs);
			int bestcol = -1;
			double bestw = -1;

			/* the column a term names most strongly (ties: the more important table) */
			for (int k = 0; k < t->nrefs; k++)
				if (t->refs[k].kind == TK_COLUMN) {
					double w = t->refs[k].weight + 0.01 * c->tables[c->columns[t->refs[k].id].table].importance;

					if (w > bestw) {
						bestw = w;
						bestcol = t->refs[k].id;
					}
				}
			if (bestcol >= 0)
				x->kw_primary[bestcol] = 1;
			/* the strongest full-phrase reference of the term names a table to join */
			{
				int st = -1;
				double sw = 1.49;

				for (int k = 0; k < t->nrefs; k++) {
					const struct term_ref *ref = &t->refs[k];
					int tb = ref->kind == TK_TABLE ? ref->id : ref->kind == TK_COLUMN ?
					         c->columns[ref->id].table : -1;
					double w = ref->weight + 0.01 * (tb >= 0 ? c->tables[tb].importance : 0);

					if (tb >= 0 && w > sw) {
						sw = w;
						st = tb;
					}
				}
				if (st >= 0)
					x->strong[st] = 1;
			}

			for (int k = 0; k < t->nrefs; k++) {
				const struct term_ref *ref = &t->refs[k];
				double s = ref->weight * len * idf;

				if (ref->kind == TK_VALUE && !value_allowed(x, i, t->ntoks, ref->id))
					continue;
				x->kw_any = 1;
				switch (ref->kind) {
				case TK_TABLE:
					x->kw_tab[ref->id] += s;
					break;
				case TK_COLUMN:
					x->kw_col[ref->id] += s;
					x->kw_tab[c->columns[ref->id].table] += 0.3 * s;
					break;
				case TK_VALUE: {
					const struct cat_value *v = &c->values[ref->id];
					int exact = !strcmp(v->norm, phrase);

					add_value(x, ref->id, phrase, exact ? "exact" : "synonym", exact ? 1.0 : 0.95, i, t->ntoks);
					x->kw_col[v->col] += 0.8 * s;
					x->kw_tab[c->columns[v->col].table] += 0.8 * s;
					break;
				}
				case TK_CONCEPT: {
					const struct cat_concept *q = &c->concepts[ref->id];

					add_concept(x, ref->id, phrase);
					if (q->ncols) {
						x->kw_primary[q->cols[0]] = 1;
						x->strong[c->columns[q->cols[0]].table] = 1;
					}
					for (int j = 0; j < q->ncols; j++) {
						x->kw_col[q->cols[j]] += (j == 0 ? 0.9 : 0.5) * s;
						x->kw_tab[c->columns[q->cols[j]].table] += 0.4 * s;
					}
					break;
				}
				}
			}
		}
	}
}

/* values for words no term matched: progressive prefix shortening, then trigram similarity */
static void value_axis(struct ctx *x)
{
	struct catalog *c = x->c;
	uint32_t qt[128], vt[256];

	for (int i = 0; i < x->ntok; i++) {
		const char *w = i < x->nraw ? x->raws[i] : x->toks[i];
		int nc = utf8_nchars(w), hangul = text_is_hangul_word(w), found = 0;
		char buf[TEXT_MAXTOK];

		if (x->covered[i] || text_is_stop(w) || text_is_stop(x->toks[i]) || nc < 2)
			continue;
		/* 1. the whole word (raw or canonical) is a stored value */
		const char *forms[2] = {w, x->toks[i]};
		int number = all_digits(x->toks[i]);
		for (int f = 0; f < 2 && !found; f++)
			for (int v = strmap_get(&c->value_norm, forms[f]); v >= 0; v = c->value_next[v]) {
				if (!value_allowed(x, i, 1, v))
					continue;
				add_value(x, v, forms[f], "exact", 1.0, i, 1);
				found = 1;
			}
		/* a number matches exactly or not at all: 20231 is not the code 2023 */
		if (number)
			continue;
		/* 2. react-framework 5.2: drop the last character until a value matches
		 * (서울특별시 -> 서울); Latin words keep at least 4 characters */
		for (int keep = nc - 1; !found && keep >= (hangul ? 2 : 4); keep--) {
			size_t b = utf8_prefix_bytes(w, keep);

			if (b >= sizeof buf)
				continue;
			memcpy(buf, w, b);
			buf[b] = '\0';
			for (int v = strmap_get(&c->value_norm, buf); v >= 0; v = c->value_next[v]) {
				add_value(x, v, w, "prefix", 0.6 + 0.3 * keep / nc, i, 1);
				found = 1;
			}
		}
		if (found || nc < 3 || !c->ntri)
			continue;
		/* 3. trigram similarity >= 0.8 against the value index */
		int nq = text_trigrams(w, qt, 128), cand[64], ncand = 0, cnt[64];

		for (int j = 0; j < nq; j++) {
			char key[16];
			int p;

			snprintf(key, sizeof key, "%08x", qt[j]);
			if ((p = strmap_get(&c->tri, key)) < 0)
				continue;
			for (int k = 0; k < c->tri_npost[p] && k < 512; k++) {
				int v = c->tri_posts[p][k], m;

				for (m = 0; m < ncand && cand[m] != v; m++)
					;
				if (m == ncand) {
					if (ncand == 64)
						continue;
					cand[ncand] = v;
					cnt[ncand++] = 0;
				}
				cnt[m]++;
			}
		}
		for (int m = 0; m < ncand; m++) {
			if (cnt[m] < 0.8 * nq)
				continue;
			int nv = text_trigrams(c->values[cand[m]].norm, vt, 256);
			double sim = text_trgm_sim(qt, nq, vt, nv);

			if (sim >= 0.8)
				add_value(x, cand[m], w, "trigram", sim * 0.9, i, 1);
		}
	}
	for (int i = 0; i < x->nvals; i++) {
		const struct cat_value *v = &c->values[x->vals[i].value];

		if (strcmp(x->vals[i].how, "exact") && strcmp(x->vals[i].how, "synonym")) {
			x->kw_any = 1;
			x->kw_col[v->col] += 1.0 * x->vals[i].score;
			x->kw_tab[c->columns[v->col].table] += 0.8 * x->vals[i].score;
		}
	}
}

static void vector_axis(struct ctx *x, const float *q, int ax, double *tmp_col, double *tmp_tab)
{
	struct catalog *c = x->c;

	for (int i = 0; i < c->ncolumns; i++)
		tmp_col[i] = cat_col_dot(&c->columns[i], q, c->dim);
	for (int i = 0; i < c->ntables; i++)
		tmp_tab[i] = c->tables[i].vec ? vec_dot(q, c->tables[i].vec, c->dim) : -1;
	x->nlists[ax] = topn(tmp_col, c->ncolumns, AXN, 0.0, x->lists[ax]);
	x->ntlists[ax] = topn(tmp_tab, c->ntables, AXN, 0.0, x->tlists[ax]);
	if (ax == AX_VEC && x->nlists[ax])
		x->best_cos = tmp_col[x->lists[ax][0]];
	/* only what is near the best counts: a small catalog must not put every column
	 * into every vector list */
	if (x->nlists[ax]) {
		double cut = 0.4 * tmp_col[x->lists[ax][0]];
		int n = 0;

		while (n < x->nlists[ax] && tmp_col[x->lists[ax][n]] >= cut && tmp_col[x->lists[ax][n]] > 0.05)
			n++;
		x->nlists[ax] = n;
	}
	if (x->ntlists[ax]) {
		double cut = 0.4 * tmp_tab[x->tlists[ax][0]];
		int n = 0;

		while (n < x->ntlists[ax] && tmp_tab[x->tlists[ax][n]] >= cut && tmp_tab[x->tlists[ax][n]] > 0.05)
			n++;
		x->ntlists[ax] = n;
	}
}

static int in_list(const int *l, int n, int id)
{
	for (int i = 0; i < n; i++)
		if (l[i] == id)
			return 1;
	return 0;
}

static const char *sources_of(struct ctx *x, int id, int tables, const char *extra)
{
	struct sb sb;

	sb_init_arena(&sb, x->a);
	for (int ax = 0; ax < NAX; ax++) {
		const int *l = tables ? x->tlists[ax] : x->lists[ax];
		int n = tables ? x->ntlists[ax] : x->nlists[ax];

		if (in_list(l, n, id))
			sb_printf(&sb, "%s%s", sb.len ? "," : "", axis_names[ax]);
	}
	if (extra)
		sb_printf(&sb, "%s%s", sb.len ? "," : "", extra);
	return sb_ok(&sb) ? sb_cstr(&sb) : "";
}

/* rough tokens of text for the budget: 4 ASCII bytes or one other character per token */
static int est_tokens(const char *s)
{
	int ascii = 0, other = 0;

	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch < 0x80)
			ascii++;
		else if ((ch & 0xC0) != 0x80)
			other++;
	}
	return (ascii + 3) / 4 + other;
}

struct pline { int section, prio, seq; char *text; };
enum { S_SCHEMA, S_ONTO, S_VALUES, S_REL, S_META, S_HIER, S_SIMILAR, NSEC };
static const char *const sec_names[NSEC] = {"[DATABASE SCHEMA]", "[ONTOLOGY DEFINITIONS]",
	"[VALUE MAPPINGS]", "[TABLE RELATIONSHIPS]", "[COLUMN METADATA]", "[CONCEPT HIERARCHY]",
	"[SIMILAR VERIFIED QUERIES]"};

struct plines { struct pline *l; int n, cap; struct arena *a; };

static void pl_add(struct plines *p, int section, int prio, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void pl_add(struct plines *p, int section, int prio, const char *fmt, ...)
{
	va_list ap;
	struct sb sb;

	if (p->n == p->cap) {
		int nc = p->cap ? p->cap * 2 : 64;
		struct pline *nl = arena_realloc(p->a, p->l, (size_t)p->cap * sizeof *nl, (size_t)nc * sizeof *nl);

		if (!nl)
			return;
		p->l = nl;
		p->cap = nc;
	}
	sb_init_arena(&sb, p->a);
	va_start(ap, fmt);
	sb_vprintf(&sb, fmt, ap);
	va_end(ap);
	if (!sb_ok(&sb))
		return;
	p->l[p->n] = (struct pline){section, prio, p->n, (char *)sb_cstr(&sb)};
	p->n++;
}

static int by_prio(const void *a, const void *b)
{
	const struct pline *x = a, *y = b;

	return x->prio != y->prio ? x->prio - y->prio : x->seq - y->seq;
}

static int by_seq(const void *a, const void *b)
{
	const struct pline *x = a, *y = b;

	return x->section != y->section ? x->section - y->section : x->seq - y->seq;
}

static void fmt_num(char *b, size_t n, double v)
{
	snprintf(b, n, "%g", v);
}

/* The tables and joins the prompt block must hold (docs/context.md): tabs[0..nmust) are
 * mandatory with their relevant columns and join keys, the rest fill the budget; edges are
 * the joins connecting them (a Steiner-style tree over the join graph). */
struct pblock {
	const int *tabs; int ntabs, nmust;
	const unsigned char *col_rel;    /* per column: 2 retrieved/mapped, 1 join key, 3 a measure or
	                                  * time column of a table with a mapped code */
	const int *edges; int nedges;
	int whole;                       /* the whole schema fits: every column in full */
	const unsigned char *named;      /* per table: named by the question (its other columns are
	                                  * mandatory too); NULL: none */
};

/* the model the block is for may see column ci's stored values (retrieval_opts.llm_policy) */
static int block_values_ok(const struct ctx *x, int ci)
{
	int p = x->o ? x->o->llm_policy : 0;

	return llm_policy_values_ok(p, x->c, x->c->columns[ci].qname);
}

/* a text column's stored values as "A | B | C" when it has few (a code or category), or when
 * it is a dictionary label listed in a whole schema (x->listed) */
#define CAT_MAX_VALUES 12
static const char *category_values(struct ctx *x, int ci)
{
	const struct catalog *c = x->c;
	const struct cat_column *col = &c->columns[ci];
	struct sb sb;
	int n = 0;

	if (!(x->listed && x->listed[ci]) &&
	    (!col->textual || col->nvalues == 0 || col->nvalues > CAT_MAX_VALUES || col->idlike))
		return NULL;
	if (!block_values_ok(x, ci))
		return NULL;
	sb_init_arena(&sb, x->a);
	for (int i = 0; i < c->nvalues && n < col->nvalues; i++)
		if (c->values[i].col == ci)
			sb_printf(&sb, "%s%s", n++ ? " | " : "", c->values[i].value);
	return n && sb_ok(&sb) ? sb_cstr(&sb) : NULL;
}

/* mandatory lines have priority < 0 (kept whatever the budget); others by priority */
#define MUST(p) ((p) - 1000)

/* build the prompt block: mandatory lines always, then the most important others that fit */
static void prompt_block(struct ctx *x, const struct pblock *b)
{
	struct catalog *c = x->c;
	struct retrieval *r = x->r;
	struct plines p = {0};
	int budget = x->o && x->o->token_budget > 0 ? x->o->token_budget : 1500, used = 0;
	const int *tabs = b->tabs;
	int ntabs = b->ntabs;
	const unsigned char *col_rel = b->col_rel;
	struct sb out;

	p.a = x->a;
	for (int i = 0; i < ntabs; i++) {
		const struct cat_table *t = &c->tables[tabs[i]];
		int must = i < b->nmust || b->whole;
		int base = must ? MUST(10 + i) : 30 + i;

		if (t->rows >= 0)
			pl_add(&p, S_SCHEMA, base, "Table: %s (~%ld rows)%s%s", t->name, t->rows,
			       t->comment ? " -- " : "", t->comment ? t->comment : "");
		else
			pl_add(&p, S_SCHEMA, base, "Table: %s%s%s", t->name, t->comment ? " -- " : "",
			       t->comment ? t->comment : "");
		struct sb other;

		sb_init_arena(&other, x->a);
		for (int k = 0; k < t->ncols; k++) {
			int ci = t->first_col + k;
			const struct cat_column *col = &c->columns[ci];
			/* retrieved and mapped columns, join keys and the key are mandatory with their
			 * table; the measure and time columns of a long-format table only fill the budget */
			int prio = col_rel[ci] == 3 && !b->whole ? 40 + i : col_rel[ci] == 2 ? base + 1 : base + 2;
			const char *desc = col->full_name ? col->full_name : col->comment;
			const char *vals;

			/* relevant columns and keys in full, the rest by name only */
			if (!b->whole && !col_rel[ci] && !col->is_pk) {
				if (other.len < 600)
					sb_printf(&other, "%s%s", other.len ? ", " : "", col->name);
				continue;
			}
			vals = category_values(x, ci);
			pl_add(&p, S_SCHEMA, prio, "  - %s: %s%s%s%s%s%s%s", col->name, col->type,
			       col->is_pk ? " PK" : "", col->nullable ? "" : " NOT NULL",
			       desc ? " -- " : "", desc ? desc : "", vals ? "; values: " : "", vals ? vals : "");
		}
		if (other.len && sb_ok(&other))
			pl_add(&p, S_SCHEMA, must && b->named && b->named[tabs[i]] ? MUST(60 + i) : 60 + i,
			       "  (other columns: %s)", sb_cstr(&other));
	}
	for (int i = 0; i < r->nconcepts; i++) {
		const struct ret_concept *q = &r->concepts[i];

		pl_add(&p, S_ONTO, MUST(5), "- %s%s%s%s: %s%s%s", q->name, q->ko ? " (" : "", q->ko ? q->ko : "",
		       q->ko ? ")" : "", q->definition ? q->definition : "", q->sql ? " => " : "",
		       q->sql ? q->sql : "");
	}
	for (int i = 0; i < r->ncolumns && !b->whole; i++) {
		const struct ret_column *rc = &r->columns[i];
		char q[600];
		int tci;

		snprintf(q, sizeof q, "%s.%s", rc->table, rc->name);
		tci = cat_find_column(c, q);
		if (tci >= 0 && c->columns[tci].comment && i < 6 && in_list(tabs, ntabs, c->columns[tci].table))
			pl_add(&p, S_ONTO, 40 + i, "- %s.%s: %s", rc->table, rc->name, c->columns[tci].comment);
	}
	for (int i = 0; i < r->nvalues; i++) {
		const struct ret_value *v = &r->values[i];

		if (!llm_policy_values_ok2(x->o ? x->o->llm_policy : 0, c, v->table, v->column))
			continue;
		pl_add(&p, S_VALUES, i < TERM_VALS ? MUST(4) : 40 + i, "- \"%s\" -> %s.%s = '%s' (%s)", v->phrase, v->table, v->column,
		       v->value, v->how);
	}
	for (int i = 0; i < b->nedges; i++) {
		const struct cat_edge *e = &c->edges[b->edges[i]];

		pl_add(&p, S_REL, MUST(3), "- %s.%s -> %s.%s%s", c->tables[e->from_t].name, c->columns[e->from_c].name,
		       c->tables[e->to_t].name, c->columns[e->to_c].name,
		       e->inferred && !e->confirmed ? " (inferred, not declared)" : "");
	}
	for (int i = 0; i < r->ncolumns; i++) {
		const struct ret_column *rc = &r->columns[i];
		char lo[32], hi[32];

		int rt = cat_find_table(c, rc->table);

		if ((!rc->full_name && !rc->unit && !rc->has_range) || !in_list(tabs, ntabs, rt))
			continue;
		fmt_num(lo, sizeof lo, rc->range_lo);
		fmt_num(hi, sizeof hi, rc->range_hi);
		pl_add(&p, S_META, 20 + i, "- %s.%s -> %s%s%s%s%s%s%s%s%s", rc->table, rc->name,
		       rc->full_name ? rc->full_name : rc->name, rc->unit ? " [" : "", rc->unit ? rc->unit : "",
		       rc->unit ? "]" : "", rc->has_range ? " (normal: " : "", rc->has_range ? lo : "",
		       rc->has_range ? "-" : "", rc->has_range ? hi : "", rc->has_range ? ")" : "");
	}
	for (int i = 0; i < x->nvals; i++) {
		const struct cat_value *v = &c->values[x->vals[i].value];
		const struct cat_column *col = &c->columns[v->col];
		char lo[32], hi[32];

		if (!v->full_name || !block_values_ok(x, v->col))
			continue;
		fmt_num(lo, sizeof lo, v->lo);
		fmt_num(hi, sizeof hi, v->hi);
		pl_add(&p, S_META, 6, "- %s.%s = '%s' -> %s%s%s%s%s%s%s%s%s", c->tables[col->table].name,
		       col->name, v->value, v->full_name, v->unit && *v->unit ? " [" : "",
		       v->unit && *v->unit ? v->unit : "", v->unit && *v->unit ? "]" : "",
		       v->has_range ? " (normal: " : "", v->has_range ? lo : "", v->has_range ? "-" : "",
		       v->has_range ? hi : "", v->has_range ? ")" : "");
	}
	if (c->hierarchy)
		pl_add(&p, S_HIER, 50, "%s", c->hierarchy);
	for (int i = 0; i < r->nsimilar; i++) {
		/* a verified query's literals are values of its columns (WHERE name = '...') */
		char *sql = llm_policy_scrub_sql(x->o ? x->o->llm_policy : 0, c, r->similar[i].sql);
		char *q = llm_policy_scrub_text(x->o ? x->o->llm_policy : 0, r->similar[i].question);

		if (sql && q)
			pl_add(&p, S_SIMILAR, 8, "- Q: %s\n  SQL: %s", q, sql);
		free(sql);
		free(q);
	}

	/* keep the mandatory lines, then the most important others that fit; print them in
	 * section order */
	qsort(p.l, (size_t)p.n, sizeof *p.l, by_prio);
	int keep = 0, sec_used[NSEC] = {0};
	for (int i = 0; i < p.n; i++) {
		int t = est_tokens(p.l[i].text) + 1;
		int h = sec_used[p.l[i].section] ? 0 : est_tokens(sec_names[p.l[i].section]) + 2;

		if (p.l[i].prio >= 0 && used + t + h > budget)
			continue;
		used += t + h;
		sec_used[p.l[i].section] = 1;
		p.l[keep++] = p.l[i];
	}
	qsort(p.l, (size_t)keep, sizeof *p.l, by_seq);
	sb_init_arena(&out, x->a);
	for (int i = 0; i < keep; i++) {
		if (i == 0 || p.l[i].section != p.l[i - 1].section)
			sb_printf(&out, "%s%s\n", i ? "\n" : "", sec_names[p.l[i].section]);
		sb_printf(&out, "%s\n", p.l[i].text);
	}
	r->prompt_block = sb_ok(&out) ? (char *)sb_cstr(&out) : arena_strdup(x->a, "");
	r->prompt_tokens = used;
}

/*
 * Dictionary labels (docs/context.md): a model handed the whole schema should pick a label of a
 * small dictionary (a concept table's names, a diagnosis table's Korean and English names) from
 * the list, not guess it with ILIKE.  A label column is a text column, not a key or code, of a
 * table that another table's key points at and that has at most DICT_MAX_VALUES rows, with more
 * stored values than a category shows (CAT_MAX_VALUES) and at most DICT_MAX_VALUES.
 */
#define DICT_MAX_VALUES 120
static int dict_label(const struct catalog *c, int ci)
{
	const struct cat_column *col = &c->columns[ci];
	const struct cat_table *t = &c->tables[col->table];

	if (!col->textual || col->idlike || col->nvalues <= CAT_MAX_VALUES || col->nvalues > DICT_MAX_VALUES ||
	    t->rows > DICT_MAX_VALUES)
		return 0;
	for (int i = 0; i < c->nedges; i++)
		if (c->edges[i].to_t == col->table && c->edges[i].from_t != col->table)
			return 1;
	return 0;
}

/* estimated tokens of "; values: A | B | ..." for column ci (est_tokens of the text) */
static int list_tokens(const struct catalog *c, int ci)
{
	int ascii = 10, other = 0, n = 0;

	for (int i = 0; i < c->nvalues && n < c->columns[ci].nvalues; i++) {
		if (c->values[i].col != ci)
			continue;
		ascii += n++ ? 3 : 0;
		for (const unsigned char *s = (const unsigned char *)c->values[i].value; *s; s++)
			if (*s < 0x80)
				ascii++;
			else if ((*s & 0xC0) != 0x80)
				other++;
	}
	return (ascii + 3) / 4 + other;
}

/* estimated tokens of the whole schema in full (tables, columns with comments and category values;
 * the dictionary lists are counted by pick_lists against the rest of the budget) */
static int whole_schema_tokens(const struct catalog *c, int stop_at)
{
	int n = 0;

	for (int t = 0; t < c->ntables && n <= stop_at; t++) {
		const struct cat_table *tb = &c->tables[t];

		n += 8 + (tb->comment ? est_tokens(tb->comment) : 0) + est_tokens(tb->name);
		for (int k = 0; k < tb->ncols && n <= stop_at; k++) {
			const struct cat_column *col = &c->columns[tb->first_col + k];
			const char *d = col->full_name ? col->full_name : col->comment;

			n += 6 + est_tokens(col->name) + est_tokens(col->type) + (d ? est_tokens(d) : 0) +
			     (col->textual && col->nvalues <= CAT_MAX_VALUES ? 3 * col->nvalues : 0);
		}
	}
	return n + 10 * c->nedges;   /* "- a.x -> b.y" per join */
}

/* the whole-schema budget (retrieval_opts.whole_schema_tokens; <= 0: off) */
static int whole_budget(const struct ctx *x)
{
	return x->o && x->o->whole_schema_tokens ? x->o->whole_schema_tokens : 5000;
}

/* does the whole schema, without dictionary lists, fit the whole-schema budget? */
static int whole_fits(struct ctx *x)
{
	int w = whole_budget(x);

	return w > 0 && whole_schema_tokens(x->c, w) <= w;
}

/* mark in x->listed the dictionary labels whose lists fit the rest of the whole-schema budget,
 * those of tables early in order[0..norder) first (the reached tables come first) */
static void pick_lists(struct ctx *x, const int *order, int norder)
{
	const struct catalog *c = x->c;
	int w = whole_budget(x), n = whole_schema_tokens(c, w);

	if (!(x->listed = arena_alloc(x->a, (size_t)c->ncolumns + 1)))
		return;   /* no memory for the lists: the schema goes without them */
	for (int i = 0; i < norder; i++) {
		const struct cat_table *t = &c->tables[order[i]];

		for (int k = 0; k < t->ncols; k++) {
			int ci = t->first_col + k, cost;

			if (!dict_label(c, ci) || n + (cost = list_tokens(c, ci)) > w)
				continue;
			x->listed[ci] = 1;
			n += cost;
		}
	}
}

/*
 * steiner: connect the terminal tables term[0..nterm) over the join graph (shortest-path
 * heuristic: grow one tree from term[0], each time attaching the nearest terminal not yet in
 * it by a breadth-first search from the whole tree, declared edges before inferred ones at
 * equal length, at most STEINER_HOPS joins away).  Appends the tables it passes through to tabs (*ntabs, at most cap) and
 * the edges used to edges (*nedges, at most ecap).  Terminals it cannot reach stay unjoined.
 */
static void steiner(struct ctx *x, const int *term, int nterm, int *tabs, int *ntabs, int cap,
                    int *edges, int *nedges, int ecap)
{
	const struct catalog *c = x->c;
	int n = c->ntables;
	int *dist = arena_alloc(x->a, (size_t)(n + 1) * sizeof *dist);
	int *inf = arena_alloc(x->a, (size_t)(n + 1) * sizeof *inf);
	int *via = arena_alloc(x->a, (size_t)(n + 1) * sizeof *via);
	int *queue = arena_alloc(x->a, (size_t)(n + 1) * sizeof *queue);
	unsigned char *intree = arena_alloc(x->a, (size_t)(n + 1));

	if (!dist || !inf || !via || !queue || !intree || nterm == 0 || !c->adj)
		return;
	intree[term[0]] = 1;
	for (;;) {
		int qh = 0, qt = 0, hit = -1;

		for (int i = 0; i < n; i++) {
			dist[i] = intree[i] ? 0 : -1;
			inf[i] = 0;
			via[i] = -1;
			if (intree[i])
				queue[qt++] = i;
		}
		/* layer by layer, so a terminal is found at its shortest distance; within a layer the
		 * route with fewer inferred edges wins */
		while (qh < qt && hit < 0 && dist[queue[qh]] < STEINER_HOPS) {
			int layer_end = qt;

			for (; qh < layer_end; qh++) {
				int t = queue[qh];

				for (int k = 0; k < c->nadj[t]; k++) {
					const struct cat_edge *e = &c->edges[c->adj[t][k]];
					int o = e->from_t == t ? e->to_t : e->from_t;
					int ni = inf[t] + (e->inferred && !e->confirmed);

					if (dist[o] < 0) {
						dist[o] = dist[t] + 1;
						inf[o] = ni;
						via[o] = c->adj[t][k];
						queue[qt++] = o;
					} else if (dist[o] == dist[t] + 1 && ni < inf[o]) {
						inf[o] = ni;
						via[o] = c->adj[t][k];
					}
				}
			}
			for (int i = 0; i < nterm; i++)
				if (!intree[term[i]] && dist[term[i]] > 0 &&
				    (hit < 0 || inf[term[i]] < inf[hit]))
					hit = term[i];
		}
		if (hit < 0)
			break;
		/* walk back to the tree, adding the tables and edges of the path */
		for (int t = hit; !intree[t];) {
			const struct cat_edge *e = &c->edges[via[t]];
			int o = e->from_t == t ? e->to_t : e->from_t;

			intree[t] = 1;
			if (!in_list(tabs, *ntabs, t) && *ntabs < cap)
				tabs[(*ntabs)++] = t;
			if (*nedges < ecap)
				edges[(*nedges)++] = via[t];
			t = o;
		}
	}
}

static void suggest(struct ctx *x)
{
	struct catalog *c = x->c;
	struct retrieval *r = x->r;
	int order[8], n;
	double *imp = arena_alloc(x->a, (size_t)(c->ntables ? c->ntables : 1) * sizeof *imp);

	r->suggestions = arena_alloc(x->a, 10 * sizeof *r->suggestions);
	if (!r->suggestions || !imp)
		return;
	r->suggestions[r->nsuggestions++] = arena_strdup(x->a,
		"No table or column matched the question; name a measurement, table or value, for example:");
	for (int i = 0; i < c->ntables; i++)
		imp[i] = c->tables[i].importance + 1e-3 * c->tables[i].ncols;
	n = topn(imp, c->ntables, 5, -1, order);
	for (int i = 0; i < n; i++) {
		const struct cat_table *t = &c->tables[order[i]];
		struct sb sb;

		sb_init_arena(&sb, x->a);
		sb_printf(&sb, "%s%s%s: ", t->name, t->full_name ? " - " : "", t->full_name ? t->full_name : "");
		for (int k = 0; k < t->ncols && k < 6; k++) {
			const struct cat_column *col = &c->columns[t->first_col + k];

			sb_printf(&sb, "%s%s", k ? ", " : "", col->full_name ? col->full_name : col->name);
		}
		if (sb_ok(&sb))
			r->suggestions[r->nsuggestions++] = (char *)sb_cstr(&sb);
	}
	for (int i = 0; i < c->nconcepts && i < 3; i++)
		r->suggestions[r->nsuggestions++] = arena_printf(x->a, "terms such as %s%s%s%s",
			c->concepts[i].name, c->concepts[i].ko ? " (" : "", c->concepts[i].ko ? c->concepts[i].ko : "",
			c->concepts[i].ko ? ")" : "");
}

static float *embed_q(struct ctx *x, const char *text)
{
	float *v = arena_alloc(x->a, (size_t)x->c->dim * sizeof *v);
	char err[256];

	if (!v)
		return NULL;
	if (!strcmp(x->c->embed_provider, "builtin")) {
		embed_builtin(text, x->c->dim, v);
		return v;
	}
	if (embed_texts(x->c->embed_provider, x->c->dim, &text, 1, v, err, sizeof err) != OK) {
		log_warn("retrieval: embedding failed, vector axes off: %s", err);
		return NULL;
	}
	return v;
}

enum err catalog_retrieve(struct catalog *c, const char *question, const struct retrieval_opts *o,
                          struct retrieval *r)
{
	struct ctx *x;
	struct arena *a;
	int k = o && o->k > 0 ? o->k : 10, nc = c ? c->ncolumns : 0, nt = c ? c->ntables : 0;
	double *tmp_col, *tmp_tab, *fc, *ft, *fused_tab;
	int top_c[AXN], ntop_c, top_t[AXN], ntop_t;

	memset(r, 0, sizeof *r);
	if (!c || !question)
		return ERR_INPUT;
	if (strlen(question) > 4000)
		return ERR_LIMIT;
	if (k > 10)
		k = 10;
	if (!(a = calloc(1, sizeof *a)))
		return ERR_NOMEM;
	r->_mem = a;
	x = arena_alloc(a, sizeof *x);
	tmp_col = arena_alloc(a, (size_t)(nc + 1) * sizeof *tmp_col);
	tmp_tab = arena_alloc(a, (size_t)(nt + 1) * sizeof *tmp_tab);
	fc = arena_alloc(a, (size_t)(nc + 1) * sizeof *fc);
	ft = arena_alloc(a, (size_t)(nt + 1) * sizeof *ft);
	fused_tab = arena_alloc(a, (size_t)(nt + 1) * sizeof *fused_tab);
	if (!x || !tmp_col || !tmp_tab || !fc || !ft || !fused_tab)
		goto nomem;
	x->c = c;
	x->r = r;
	x->a = a;
	x->o = o;
	x->kw_col = arena_alloc(a, (size_t)(nc + 1) * sizeof *x->kw_col);
	x->kw_tab = arena_alloc(a, (size_t)(nt + 1) * sizeof *x->kw_tab);
	x->concepts = arena_alloc(a, 16 * sizeof *x->concepts);
	x->covered = arena_alloc(a, MAXTOK);
	x->kw_primary = arena_alloc(a, (size_t)(nc + 1));
	x->strong = arena_alloc(a, (size_t)(nt + 1));
	if (!x->strong || !x->kw_primary || !x->kw_col || !x->kw_tab || !x->concepts || !x->covered)
		goto nomem;
	text_lower(question, x->lowq, sizeof x->lowq);
	x->q = question;
	x->ntok = text_tokens_at(question, 0, x->tokbuf, sizeof x->tokbuf, x->toks, x->tstart, x->tend, MAXTOK);
	x->nraw = text_tokens(question, 1, x->rawbuf, sizeof x->rawbuf, x->raws, MAXTOK);
	if (x->nraw != x->ntok)   /* standalone particles were dropped: align by canonical only */
		x->nraw = 0;
	r->intent = classify(x->lowq);

	/* axis 1 and 2: question vector, HyDE vector */
	if ((x->qvec = embed_q(x, question)))
		vector_axis(x, x->qvec, AX_VEC, tmp_col, tmp_tab);
	if (o && o->hyde_text && *o->hyde_text && (x->hvec = embed_q(x, o->hyde_text)))
		vector_axis(x, x->hvec, AX_HYDE, tmp_col, tmp_tab);
	/* axis 3: keywords, synonyms, values, ontology terms */
	keyword_axis(x);
	value_axis(x);
	concept_values(x);
	drop_nested_values(x);
	x->nlists[AX_KEY] = topn(x->kw_col, nc, AXN, 0.0, x->lists[AX_KEY]);
	x->ntlists[AX_KEY] = topn(x->kw_tab, nt, AXN, 0.0, x->tlists[AX_KEY]);

	/* the builtin embedding is lexical: without a single known word beginning its
	 * similarities are hash collisions */
	int lexical = strcmp(c->embed_provider, "builtin") != 0;
	for (int i = 0; i < x->ntok && !lexical; i++) {
		char key[32];

		if (text_is_stop(x->toks[i]) || utf8_nchars(x->toks[i]) < 2)
			continue;
		cat_word_prefix(x->toks[i], key, sizeof key);
		lexical = strmap_get(&c->prefixes, key) >= 0;
	}
	if (!x->kw_any && (x->best_cos < 0.35 || !lexical)) {
		/* nothing matched: suggestions, and the whole schema when it is small, so a model
		 * still sees what the database holds (the caller decides whether to decline) */
		suggest(x);
		r->prompt_block = arena_strdup(a, "");
		if (whole_fits(x)) {
			int *all = arena_alloc(a, (size_t)(nt + 1) * sizeof *all);
			unsigned char *rel = arena_alloc(a, (size_t)(nc + 1));

			if (!all || !rel)
				goto nomem;
			for (int i = 0; i < nt; i++)
				all[i] = i;
			pick_lists(x, all, nt);
			struct pblock pb = {all, nt, nt, rel, NULL, 0, 1, NULL};
			prompt_block(x, &pb);
		}
		return OK;
	}
	/* axis 4: intent, re-ranking the candidates of axes 1 and 3 by column kind */
	memset(tmp_col, 0, (size_t)nc * sizeof *tmp_col);
	for (int ax = AX_VEC; ax <= AX_KEY; ax++)
		for (int i = 0; i < x->nlists[ax] && (ax == AX_KEY || i < 10); i++) {
			int ci = x->lists[ax][i];

			tmp_col[ci] = 1.0 + (x->qvec ? cat_col_dot(&c->columns[ci], x->qvec, c->dim) : 0) +
			              affinity(r->intent, &c->columns[ci]) + (x->kw_col[ci] > 0 ? 0.2 : 0);
		}
	x->nlists[AX_INTENT] = topn(tmp_col, nc, AXN, 0.0, x->lists[AX_INTENT]);

	/* axis 5: pseudo-relevance feedback (Rocchio): 0.7 q + 0.3 mean(top-5 fused columns) */
	memset(fc, 0, (size_t)nc * sizeof *fc);
	for (int ax = 0; ax < AX_PRF; ax++)
		rrf_addw(fc, x->lists[ax], x->nlists[ax], RRF_K, axis_weight[ax]);
	ntop_c = topn(fc, nc, 5, 0.0, top_c);
	if (x->qvec && ntop_c) {
		float *prf = arena_alloc(a, (size_t)c->dim * sizeof *prf);
		double norm = 0;

		if (!prf)
			goto nomem;
		for (int d = 0; d < c->dim; d++) {
			double m = 0;

			for (int i = 0; i < ntop_c; i++)
				m += c->columns[top_c[i]].vec[d];
			prf[d] = (float)(0.7 * x->qvec[d] + 0.3 * m / ntop_c);
			norm += (double)prf[d] * prf[d];
		}
		for (int d = 0; d < c->dim && norm > 0; d++)
			prf[d] = (float)(prf[d] / sqrt(norm));
		vector_axis(x, prf, AX_PRF, tmp_col, tmp_tab);
	}

	/* RRF over the five axes */
	memset(fc, 0, (size_t)nc * sizeof *fc);
	for (int ax = 0; ax < NAX; ax++)
		rrf_addw(fc, x->lists[ax], x->nlists[ax], RRF_K, axis_weight[ax]);
	ntop_c = topn(fc, nc, AXN, 0.0, top_c);
	/* tables: their own axes plus the ranking implied by their best columns */
	memset(ft, 0, (size_t)nt * sizeof *ft);
	for (int ax = 0; ax < NAX; ax++)
		rrf_addw(ft, x->tlists[ax], x->ntlists[ax], RRF_K, axis_weight[ax]);
	{
		int seen[AXN], ns = 0;

		for (int i = 0; i < ntop_c; i++) {
			int t = c->columns[top_c[i]].table;

			if (!in_list(seen, ns, t))
				seen[ns++] = t;
		}
		rrf_add(ft, seen, ns, RRF_K);
	}
	/* similarity x importance (FK degree), harmonic mean; importance floored at 0.5 so
	 * databases without foreign keys still rank by similarity */
	{
		double maxs = 0;

		for (int i = 0; i < nt; i++)
			if (ft[i] > maxs)
				maxs = ft[i];
		for (int i = 0; i < nt; i++) {
			double sim = maxs > 0 ? ft[i] / maxs : 0;
			double imp = c->max_importance > 0 ? 0.5 + 0.5 * c->tables[i].importance / c->max_importance : 1.0;

			fused_tab[i] = sim > 0 ? 2 * sim * imp / (sim + imp) : 0;
		}
	}
	ntop_t = topn(fused_tab, nt, AXN, 0.0, top_t);

	/* tables that must be joined: those the question names (table or column names and
	 * synonyms, values, ontology terms), in score order */
	int chosen[MAXCHOSEN + 8], nchosen = 0;
	for (int i = 0; i < x->nvals; i++)
		x->strong[c->columns[c->values[x->vals[i].value].col].table] = 1;
	for (int i = 0; i < ntop_t && nchosen < MAXCHOSEN; i++)
		if (x->strong[top_t[i]])
			chosen[nchosen++] = top_t[i];
	if (!nchosen)
		for (int i = 0; i < ntop_t && i < 1; i++)
			chosen[nchosen++] = top_t[i];

	/* FK paths: connect every chosen table to the ones before it (shortest, declared first) */
	int conn[MAXCHOSEN * 4], nconn = 0, via[MAXCHOSEN * 4], nvia = 0;
	r->paths = arena_alloc(a, MAXCHOSEN * sizeof *r->paths);
	if (!r->paths)
		goto nomem;
	if (nchosen)
		conn[nconn++] = chosen[0];
	for (int i = 1; i < nchosen; i++) {
		int best[3], nbest = -1, path[3];

		if (in_list(conn, nconn, chosen[i]))
			continue;
		for (int j = 0; j < nconn; j++) {
			int h = cat_fk_path(c, conn[j], chosen[i], 3, path);

			if (h > 0 && (nbest < 0 || h < nbest)) {
				nbest = h;
				memcpy(best, path, sizeof path);
			}
		}
		conn[nconn++] = chosen[i];
		if (nbest <= 0)
			continue;
		struct ret_path *rp = &r->paths[r->npaths++];
		rp->joins = arena_alloc(a, (size_t)nbest * sizeof *rp->joins);
		if (!rp->joins)
			goto nomem;
		rp->njoins = nbest;
		for (int h = 0; h < nbest; h++) {
			const struct cat_edge *e = &c->edges[best[h]];

			rp->joins[h] = (struct ret_join){c->tables[e->from_t].name, c->columns[e->from_c].name,
				c->tables[e->to_t].name, c->columns[e->to_c].name, e->inferred && !e->confirmed};
			int ends[2] = {e->from_t, e->to_t};
			for (int q = 0; q < 2; q++)
				if (!in_list(chosen, nchosen, ends[q]) && !in_list(via, nvia, ends[q]) &&
				    nvia < MAXCHOSEN * 4) {
					via[nvia++] = ends[q];
					if (nconn < MAXCHOSEN * 4)
						conn[nconn++] = ends[q];
				}
		}
	}

	/* result tables: chosen first, then path tables, then the rest by score */
	int rt[16], nrt = 0;
	for (int i = 0; i < nchosen && nrt < k; i++)
		rt[nrt++] = chosen[i];
	for (int i = 0; i < nvia && nrt < k; i++)
		rt[nrt++] = via[i];
	for (int i = 0; i < ntop_t && nrt < k; i++)
		if (!in_list(rt, nrt, top_t[i]))
			rt[nrt++] = top_t[i];
	r->tables = arena_alloc(a, (size_t)(nrt ? nrt : 1) * sizeof *r->tables);
	if (!r->tables)
		goto nomem;
	for (int i = 0; i < nrt; i++) {
		int t = rt[i];

		r->tables[r->ntables++] = (struct ret_table){c->tables[t].name, fused_tab[t],
			sources_of(x, t, 1, in_list(via, nvia, t) ? "fk_path" : x->kw_tab[t] > 0 && !in_list(x->tlists[AX_KEY], x->ntlists[AX_KEY], t) ? "keyword" : NULL)};
	}
	/* result columns */
	r->columns = arena_alloc(a, (size_t)k * sizeof *r->columns);
	if (!r->columns)
		goto nomem;
	for (int i = 0; i < ntop_c && r->ncolumns < k; i++) {
		const struct cat_column *col = &c->columns[top_c[i]];

		r->columns[r->ncolumns++] = (struct ret_column){c->tables[col->table].name, col->name,
			col->type, fc[top_c[i]], sources_of(x, top_c[i], 0, NULL), col->full_name, col->unit,
			col->has_range, col->lo, col->hi};
	}
	/* value mappings, best first; at equal scores ("er" -> a care site's code and a concept's
	 * code) the column whose texts name more of the question's other words first */
	r->values = arena_alloc(a, (size_t)(x->nvals ? x->nvals : 1) * sizeof *r->values);
	int fit[MAXVAL];
	if (!r->values)
		goto nomem;
	for (int i = 0; i < x->nvals; i++) {
		const struct cat_value *v = &c->values[x->vals[i].value];
		const struct cat_column *col = &c->columns[v->col];
		int j = r->nvalues++, f = column_fit(x, &x->vals[i]);

		for (; j > 0 && (r->values[j - 1].score < x->vals[i].score ||
		                 (r->values[j - 1].score == x->vals[i].score && fit[j - 1] < f)); j--) {
			r->values[j] = r->values[j - 1];
			fit[j] = fit[j - 1];
		}
		r->values[j] = (struct ret_value){x->vals[i].phrase, c->tables[col->table].name, col->name,
			v->value, x->vals[i].how, x->vals[i].score};
		fit[j] = f;
	}
	/* ontology */
	r->concepts = arena_alloc(a, (size_t)(x->nconcepts ? x->nconcepts : 1) * sizeof *r->concepts);
	if (!r->concepts)
		goto nomem;
	for (int i = 0; i < x->nconcepts; i++) {
		const struct cat_concept *q = &c->concepts[x->concepts[i]];

		r->concepts[r->nconcepts++] = (struct ret_concept){q->name, q->ko, q->definition, q->sql};
	}
	/* verified similar questions */
	r->similar = arena_alloc(a, 3 * sizeof *r->similar);
	if (!r->similar)
		goto nomem;
	if (x->qvec)
		for (int i = 0; i < c->nverified; i++) {
			double s = vec_dot(x->qvec, c->verified[i].vec, c->dim);
			int j;

			if (s < 0.75)
				continue;
			if (r->nsimilar < 3)
				j = r->nsimilar++;
			else if (s > r->similar[2].score)
				j = 2;
			else
				continue;
			for (; j > 0 && r->similar[j - 1].score < s; j--)
				r->similar[j] = r->similar[j - 1];
			r->similar[j] = (struct ret_similar){c->verified[i].question, c->verified[i].sql, s};
		}

	/* prompt block over the result tables; columns marked 2 = retrieved, 1 = join keys,
	 * 3 = measures of a long-format table */
	unsigned char *col_rel = arena_alloc(a, (size_t)(nc + 1));
	if (!col_rel)
		goto nomem;
	for (int i = 0; i < ntop_c && i < k; i++)
		col_rel[top_c[i]] = 2;
	for (int i = 0; i < x->nconcepts; i++)
		for (int j = 0; j < c->concepts[x->concepts[i]].ncols; j++)
			col_rel[c->concepts[x->concepts[i]].cols[j]] = 2;
	for (int i = 0; i < x->nvals; i++)
		col_rel[c->values[x->vals[i].value].col] = 2;
	for (int i = 0; i < c->nedges; i++)
		if (in_list(rt, nrt, c->edges[i].from_t) && in_list(rt, nrt, c->edges[i].to_t)) {
			if (!col_rel[c->edges[i].from_c])
				col_rel[c->edges[i].from_c] = 1;
			if (!col_rel[c->edges[i].to_c])
				col_rel[c->edges[i].to_c] = 1;
		}
	/* the measured quantity of a long-format table: a mapped code (name = 'k') means its
	 * numeric and time columns matter too */
	for (int i = 0; i < x->nvals; i++) {
		const struct cat_table *t = &c->tables[c->columns[c->values[x->vals[i].value].col].table];

		for (int k = 0; k < t->ncols; k++) {
			const struct cat_column *col = &c->columns[t->first_col + k];

			if (((col->numeric && !col->idlike) || col->temporal) && !col_rel[t->first_col + k])
				col_rel[t->first_col + k] = 3;
		}
	}
	/* the prompt's tables (docs/context.md): every table the question reaches (named ones,
	 * those holding a retrieved column, a mapped value or a concept's column, and the event
	 * table of a matched dictionary label), connected over the join graph */
	int term[PT_MAX], nterm = 0, pt[PT_MAX], npt = 0, pe[PT_MAX * 2], npe = 0;
#define ADD_TERM(t) do { if (!in_list(term, nterm, (t)) && nterm < PT_MAX) term[nterm++] = (t); } while (0)
	unsigned char *named = arena_alloc(a, (size_t)(nt + 1));   /* terminals the question names */
	if (!named)
		goto nomem;
	for (int i = 0; i < nchosen; i++)
		ADD_TERM(chosen[i]);
	for (int i = 0; i < r->nvalues && i < TERM_VALS; i++)
		ADD_TERM(cat_find_table(c, r->values[i].table));
	for (int i = 0; i < x->nconcepts; i++)
		for (int j = 0; j < c->concepts[x->concepts[i]].ncols; j++)
			ADD_TERM(c->columns[c->concepts[x->concepts[i]].cols[j]].table);
	for (int i = 0; i < nterm; i++)
		named[term[i]] = 1;
	for (int i = 0; i < ntop_c && i < TERM_COLS; i++)
		ADD_TERM(c->columns[top_c[i]].table);
	/* a label found in a dictionary table (other tables' keys point at it) needs the event
	 * table that references it: one already in the prompt, else the best-ranked referrer */
	for (int i = 0; i < r->nvalues && i < TERM_VALS; i++) {
		int d = cat_find_table(c, r->values[i].table), best = -1, have = 0;

		for (int e = 0; e < c->nedges && !have; e++) {
			const struct cat_edge *ed = &c->edges[e];

			if (ed->to_t != d || ed->from_t == d)
				continue;
			if (in_list(term, nterm, ed->from_t))
				have = 1;
			else if (best < 0 || fused_tab[ed->from_t] > fused_tab[best] ||
			         (fused_tab[ed->from_t] == fused_tab[best] && c->tables[ed->from_t].rows > c->tables[best].rows))
				best = ed->from_t;
		}
		if (!have && best >= 0) {
			ADD_TERM(best);
			named[best] = 1;
		}
	}
#undef ADD_TERM
	memcpy(pt, term, (size_t)nterm * sizeof *pt);
	npt = nterm;
	steiner(x, term, nterm, pt, &npt, PT_MAX, pe, &npe, PT_MAX * 2);
	for (int i = 0; i < npe; i++) {
		if (!col_rel[c->edges[pe[i]].from_c])
			col_rel[c->edges[pe[i]].from_c] = 1;
		if (!col_rel[c->edges[pe[i]].to_c])
			col_rel[c->edges[pe[i]].to_c] = 1;
	}
	struct pblock pb = {pt, npt, npt, col_rel, pe, npe, 0, named};
	/* small schemas go whole, the reached tables first, then the rest by score */
	pb.whole = whole_fits(x);
	if (pb.whole) {
		int *all = arena_alloc(a, (size_t)(nt + 1) * sizeof *all), nall = npt;

		if (!all)
			goto nomem;
		memcpy(all, pt, (size_t)npt * sizeof *all);
		for (int i = 0; i < ntop_t; i++)
			if (!in_list(all, nall, top_t[i]))
				all[nall++] = top_t[i];
		for (int i = 0; i < nt; i++)
			if (!in_list(all, nall, i))
				all[nall++] = i;
		pick_lists(x, all, nall);
		pb.tabs = all;
		pb.ntabs = nall;
		/* every join of the schema, the question's path first: a model given the whole schema
		 * needs every way its tables connect, not only the path to the tables retrieval chose */
		int *alle = arena_alloc(a, (size_t)(c->nedges + npe + 1) * sizeof *alle), nalle = npe;
		if (!alle)
			goto nomem;
		memcpy(alle, pe, (size_t)npe * sizeof *alle);
		for (int i = 0; i < c->nedges; i++)
			if (!in_list(alle, nalle, i))
				alle[nalle++] = i;
		pb.edges = alle;
		pb.nedges = nalle;
	} else {
		/* otherwise others only to make two */
		for (int i = 0; i < nrt && npt < 2; i++)
			if (!in_list(pt, npt, rt[i]))
				pt[npt++] = rt[i];
		pb.ntabs = npt;
	}
	prompt_block(x, &pb);
	return OK;
nomem:
	retrieval_free(r);
	return ERR_NOMEM;
}

void retrieval_free(struct retrieval *r)
{
	if (!r)
		return;
	if (r->_mem) {
		arena_free(r->_mem);
		free(r->_mem);
	}
	memset(r, 0, sizeof *r);
}

cJSON *retrieval_json(const struct retrieval *r)
{
	cJSON *j = cJSON_CreateObject(), *arr;

	if (!j)
		return NULL;
	cJSON_AddStringToObject(j, "intent", intent_name(r->intent));
	arr = cJSON_AddArrayToObject(j, "tables");
	for (int i = 0; i < r->ntables; i++) {
		cJSON *t = cJSON_CreateObject();

		cJSON_AddStringToObject(t, "name", r->tables[i].name);
		cJSON_AddNumberToObject(t, "score", round(r->tables[i].score * 10000) / 10000);
		cJSON_AddStringToObject(t, "sources", r->tables[i].sources ? r->tables[i].sources : "");
		cJSON_AddItemToArray(arr, t);
	}
	arr = cJSON_AddArrayToObject(j, "columns");
	for (int i = 0; i < r->ncolumns; i++) {
		const struct ret_column *c = &r->columns[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "table", c->table);
		cJSON_AddStringToObject(o, "name", c->name);
		cJSON_AddStringToObject(o, "type", c->type);
		cJSON_AddNumberToObject(o, "score", round(c->score * 10000) / 10000);
		cJSON_AddStringToObject(o, "sources", c->sources ? c->sources : "");
		if (c->full_name)
			cJSON_AddStringToObject(o, "full_name", c->full_name);
		if (c->unit)
			cJSON_AddStringToObject(o, "unit", c->unit);
		if (c->has_range) {
			cJSON *rg = cJSON_AddArrayToObject(o, "normal_range");

			cJSON_AddItemToArray(rg, cJSON_CreateNumber(c->range_lo));
			cJSON_AddItemToArray(rg, cJSON_CreateNumber(c->range_hi));
		}
		cJSON_AddItemToArray(arr, o);
	}
	arr = cJSON_AddArrayToObject(j, "join_paths");
	for (int i = 0; i < r->npaths; i++) {
		const struct ret_path *p = &r->paths[i];
		cJSON *o = cJSON_CreateObject(), *js = cJSON_AddArrayToObject(o, "joins");

		cJSON_AddNumberToObject(o, "hops", p->njoins);
		for (int k = 0; k < p->njoins; k++) {
			cJSON *e = cJSON_CreateObject();

			cJSON_AddStringToObject(e, "from_table", p->joins[k].from_table);
			cJSON_AddStringToObject(e, "from_col", p->joins[k].from_col);
			cJSON_AddStringToObject(e, "to_table", p->joins[k].to_table);
			cJSON_AddStringToObject(e, "to_col", p->joins[k].to_col);
			cJSON_AddBoolToObject(e, "inferred", p->joins[k].inferred);
			cJSON_AddItemToArray(js, e);
		}
		cJSON_AddItemToArray(arr, o);
	}
	arr = cJSON_AddArrayToObject(j, "value_mappings");
	for (int i = 0; i < r->nvalues; i++) {
		const struct ret_value *v = &r->values[i];
		cJSON *o = cJSON_CreateObject();
		struct sb sql = SB_INIT;

		cJSON_AddStringToObject(o, "phrase", v->phrase);
		cJSON_AddStringToObject(o, "table", v->table);
		cJSON_AddStringToObject(o, "column", v->column);
		cJSON_AddStringToObject(o, "value", v->value);
		cJSON_AddStringToObject(o, "how", v->how);
		cJSON_AddNumberToObject(o, "score", round(v->score * 1000) / 1000);
		/* a ready predicate, the value quoted as an SQL literal */
		sb_printf(&sql, "%s.%s = '", v->table, v->column);
		for (const char *s = v->value; *s; s++) {
			if (*s == '\'')
				sb_putc(&sql, '\'');
			sb_putc(&sql, *s);
		}
		sb_putc(&sql, '\'');
		cJSON_AddStringToObject(o, "sql", sb_cstr(&sql));
		sb_free(&sql);
		cJSON_AddItemToArray(arr, o);
	}
	arr = cJSON_AddArrayToObject(j, "concepts");
	for (int i = 0; i < r->nconcepts; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "name", r->concepts[i].name);
		if (r->concepts[i].ko)
			cJSON_AddStringToObject(o, "ko", r->concepts[i].ko);
		if (r->concepts[i].definition)
			cJSON_AddStringToObject(o, "definition", r->concepts[i].definition);
		if (r->concepts[i].sql)
			cJSON_AddStringToObject(o, "sql", r->concepts[i].sql);
		cJSON_AddItemToArray(arr, o);
	}
	arr = cJSON_AddArrayToObject(j, "similar");
	for (int i = 0; i < r->nsimilar; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "question", r->similar[i].question);
		cJSON_AddStringToObject(o, "sql", r->similar[i].sql);
		cJSON_AddNumberToObject(o, "score", round(r->similar[i].score * 1000) / 1000);
		cJSON_AddItemToArray(arr, o);
	}
	arr = cJSON_AddArrayToObject(j, "suggestions");
	for (int i = 0; i < r->nsuggestions; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(r->suggestions[i]));
	cJSON_AddStringToObject(j, "prompt_block", r->prompt_block ? r->prompt_block : "");
	cJSON_AddNumberToObject(j, "prompt_tokens", r->prompt_tokens);
	return j;
}
