/* answer.c: the answer sentence of a run from its question and result, display rounding, column labels,
 * row counts and friendly database errors (answer.h; wording in conf/i18n/<lang>.result.json). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "pages/answer.h"
#include "util/i18n.h"

#define MAX_ITEMS 3   /* values a list sentence names before "and N more" */
#define MAX_TOP 5     /* values a top-N sentence names */
#define MAX_TOP_N 100 /* a LIMIT above this is a cap, not a ranking */

/* ---- numbers ---- */

static int num_of(const cJSON *v, double *x)
{
	char *e;

	if (cJSON_IsNumber(v)) {
		*x = v->valuedouble;
		return 1;
	}
	if (cJSON_IsString(v) && *v->valuestring) {
		*x = strtod(v->valuestring, &e);
		return !*e && isfinite(*x);
	}
	return 0;
}

/* digits: append the printed number s with a comma every three digits of its whole part */
static void digits(struct sb *out, const char *s)
{
	const char *p = s, *dot;
	size_t n;

	if (*p == '-')
		sb_putc(out, *p++);
	dot = strchr(p, '.');
	n = dot ? (size_t)(dot - p) : strlen(p);
	for (size_t i = 0; i < n; i++) {
		sb_putc(out, p[i]);
		if (i + 1 < n && (n - i - 1) % 3 == 0)
			sb_putc(out, ',');
	}
	sb_puts(out, p + n);
}

/* trim: drop trailing zeros of a decimal part ("12.50" -> "12.5", "3.00" -> "3") */
static void trim(char *s)
{
	char *e;

	if (!strchr(s, '.') || strchr(s, 'e'))
		return;
	e = s + strlen(s) - 1;
	while (*e == '0')
		*e-- = '\0';
	if (*e == '.')
		*e = '\0';
}

void answer_number(struct sb *out, double x, enum answer_fmt f)
{
	char b[64];

	if (!isfinite(x) || fabs(x) >= 1e15) {
		snprintf(b, sizeof b, "%.15g", x);
		sb_puts(out, b);
		return;
	}
	switch (f) {
	case FMT_ID:
		snprintf(b, sizeof b, x == floor(x) ? "%.0f" : "%.15g", x);
		sb_puts(out, b);
		return;
	case FMT_COUNT:
		snprintf(b, sizeof b, "%.0f", x);
		break;
	case FMT_AVG:
	case FMT_PCT:
		snprintf(b, sizeof b, "%.1f", x);
		break;
	default:
		if (x == floor(x))
			snprintf(b, sizeof b, "%.0f", x);
		else if (fabs(x) < 0.001)
			snprintf(b, sizeof b, "%.2e", x);
		else if (fabs(x) < 1)
			snprintf(b, sizeof b, "%.3g", x);
		else
			snprintf(b, sizeof b, "%.2f", x);
		trim(b);
	}
	if (!strcmp(b, "-0") || !strcmp(b, "-0.0"))
		memmove(b, b + 1, strlen(b));
	digits(out, b);
	if (f == FMT_PCT)
		sb_putc(out, '%');
}

static int truthy(const cJSON *v, int *yes)
{
	static const char *const y[] = {"t", "true", "yes", "y", "1", NULL}, *const n[] = {"f", "false", "no", "n", "0", NULL};

	if (cJSON_IsBool(v)) {
		*yes = cJSON_IsTrue(v);
		return 1;
	}
	if (cJSON_IsNumber(v) && (v->valuedouble == 0 || v->valuedouble == 1)) {
		*yes = v->valuedouble == 1;
		return 1;
	}
	if (!cJSON_IsString(v))
		return 0;
	for (int i = 0; y[i]; i++)
		if (!strcasecmp(v->valuestring, y[i]) || !strcasecmp(v->valuestring, n[i])) {
			*yes = !strcasecmp(v->valuestring, y[i]);
			return 1;
		}
	return 0;
}

void answer_value(struct sb *out, const cJSON *v, enum answer_fmt f, const char *lang)
{
	double x;
	int yes;

	if (!v || cJSON_IsNull(v))
		return;
	if (f == FMT_BOOL && truthy(v, &yes)) {
		sb_puts(out, i18n_get(lang, yes ? "result.yes" : "result.no"));
		return;
	}
	if (f != FMT_TEXT && f != FMT_BOOL && num_of(v, &x)) {
		answer_number(out, x, f);
		return;
	}
	if (cJSON_IsString(v)) {
		sb_puts(out, v->valuestring);
	} else if (cJSON_IsBool(v)) {
		sb_puts(out, cJSON_IsTrue(v) ? "true" : "false");
	} else if (cJSON_IsNumber(v)) {
		answer_number(out, v->valuedouble, FMT_REAL);
	} else {
		char *s = cJSON_PrintUnformatted(v);

		sb_puts(out, s ? s : "");
		free(s);
	}
}

/* ---- names ---- */

/* word_in: name contains w as one of its '_'-separated words (or is w) */
static int word_in(const char *name, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = name; (p = strcasestr(p, w)); p++)
		if ((p == name || p[-1] == '_' || p[-1] == ' ') && (!p[n] || p[n] == '_' || p[n] == ' '))
			return 1;
	return 0;
}

static int ends_with(const char *s, const char *t)
{
	size_t a = strlen(s), b = strlen(t);

	return a >= b && !strcasecmp(s + a - b, t);
}

static int idish(const char *name)
{
	return ends_with(name, "id") || word_in(name, "no") || word_in(name, "code") || word_in(name, "year") ||
	       word_in(name, "yr") || !strcasecmp(name, "year") || strstr(name, "연도") || strstr(name, "번호");
}

static int is_temporal(const struct answer_col *c)
{
	return c->type && (!strcmp(c->type, "datetime") || strstr(c->type, "date") || strstr(c->type, "time"));
}

static int is_numeric(const struct answer_col *c)
{
	return c->type && (!strcmp(c->type, "number") || strstr(c->type, "int") || strstr(c->type, "numeric") ||
	                   strstr(c->type, "double") || strstr(c->type, "real") || strstr(c->type, "float"));
}

enum answer_fmt answer_col_fmt(const struct answer_col *col, const cJSON *rows, int c)
{
	const char *n = col->name ? col->name : "";
	const cJSON *row;
	int whole = 1, any = 0;

	if (col->type && !strcmp(col->type, "boolean"))
		return FMT_BOOL;
	if (!is_numeric(col))
		return FMT_TEXT;
	cJSON_ArrayForEach(row, rows) {
		double x;

		if (num_of(cJSON_GetArrayItem(row, c), &x)) {
			any = 1;
			whole &= x == floor(x);
		}
	}
	if (strcasestr(n, "pct") || strcasestr(n, "percent") || strstr(n, "백분율") || strstr(n, "퍼센트") ||
	    strchr(n, '%'))
		return FMT_PCT;
	if (whole && any && idish(n) && !(col->agg && *col->agg))
		return FMT_ID;
	if (whole)
		return FMT_COUNT;
	if ((col->agg && (!strcmp(col->agg, "avg") || !strcmp(col->agg, "sum") || !strcmp(col->agg, "min") ||
	                  !strcmp(col->agg, "max"))) ||
	    strcasestr(n, "avg") || strcasestr(n, "mean") || strcasestr(n, "average") || strstr(n, "평균"))
		return FMT_AVG;
	return FMT_REAL;
}

void answer_label(struct sb *out, const char *lang, const char *name)
{
	char w[64], key[96];
	const char *p = name ? name : "";
	int first = 1;

	while (*p) {
		size_t n = strcspn(p, "_ ");

		if (n && n < sizeof w) {
			const char *t;

			for (size_t i = 0; i < n; i++)
				w[i] = (char)tolower((unsigned char)p[i]);
			w[n] = '\0';
			snprintf(key, sizeof key, "result.word.%s", w);
			t = i18n_get(lang, key);
			if (!first)
				sb_putc(out, ' ');
			if (t == key || !strcmp(t, key)) {
				/* unknown word: as written, capitalised at the start of an English label */
				if (first && strcmp(lang, "ko") && islower((unsigned char)p[0])) {
					sb_putc(out, (char)toupper((unsigned char)p[0]));
					sb_append(out, p + 1, n - 1);
				} else {
					sb_append(out, p, n);
				}
			} else if (!first && strcmp(lang, "ko")) {
				/* "Average age", not "Average Age" */
				sb_putc(out, (char)tolower((unsigned char)t[0]));
				sb_puts(out, t + 1);
			} else {
				sb_puts(out, t);
			}
			first = 0;
		}
		p += n;
		while (*p == '_' || *p == ' ')
			p++;
	}
}

/* ---- where a column comes from (its aggregate and source column) ---- */

static const char *const aggs[] = {"avg", "count", "sum", "min", "max", "stddev", NULL};

static int ident(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_' || (unsigned char)ch >= 0x80;
}

/* open_of: the '(' matching the ')' at s[i], or -1 */
static long open_of(const char *s, long i)
{
	int depth = 0;

	for (; i >= 0; i--) {
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && --depth == 0)
			return i;
	}
	return -1;
}

/* agg_in: the first aggregate call in s[a..b): its name into agg and its argument's column into src */
static int agg_in(const char *s, long a, long b, char *agg, size_t agglen, char *src, size_t srclen)
{
	for (long i = a; i < b; i++) {
		if (i > a && ident(s[i - 1]))
			continue;
		for (int k = 0; aggs[k]; k++) {
			size_t n = strlen(aggs[k]);
			long j = i + (long)n, e, depth = 0;
			const char *arg;

			if (strncasecmp(s + i, aggs[k], n))
				continue;
			while (s[j] == ' ')
				j++;
			if (s[j] != '(')
				continue;
			for (e = j; s[e]; e++) {
				if (s[e] == '(')
					depth++;
				else if (s[e] == ')' && --depth == 0)
					break;
			}
			snprintf(agg, agglen, "%s", aggs[k]);
			arg = s + j + 1;
			while (*arg == ' ')
				arg++;
			if (!strncasecmp(arg, "distinct ", 9))
				arg += 9;
			src[0] = '\0';
			if (*arg == '*') {
				snprintf(src, srclen, "*");
			} else {
				/* a plain (qualified) column: its last part */
				const char *p = arg, *last = arg;

				while (ident(*p) || *p == '.' || *p == '"') {
					if (*p == '.')
						last = p + 1;
					p++;
				}
				while (*p == ' ')
					p++;
				if (p > arg && (*p == ')' || *p == ':')) {
					size_t n2 = 0;

					for (const char *q = last; q < p && ident(*q) && n2 + 1 < srclen; q++)
						src[n2++] = *q;
					src[n2] = '\0';
				}
			}
			return 1;
		}
	}
	return 0;
}

int answer_source(const char *sql, const char *name, char *agg, size_t agglen, char *src, size_t srclen)
{
	size_t n;

	agg[0] = src[0] = '\0';
	if (!sql || !name || !(n = strlen(name)))
		return 0;
	/* "expr AS name" or "expr name" where expr ends with a call: the call's aggregate */
	for (const char *p = sql; (p = strcasestr(p, name)); p++) {
		long i = (long)(p - sql) - 1, o;

		if ((i >= 0 && ident(sql[i])) || ident(p[n]) || (i >= 0 && sql[i] == '.'))
			continue;
		if (i >= 0 && sql[i] == '"')
			i--;
		while (i >= 0 && sql[i] == ' ')
			i--;
		if (i >= 1 && !strncasecmp(sql + i - 1, "as", 2) && (i < 2 || !ident(sql[i - 2]))) {
			i -= 2;
			while (i >= 0 && sql[i] == ' ')
				i--;
		}
		/* a cast after the call: ::numeric, ::numeric(10,1) */
		for (;;) {
			long j = i;

			if (j >= 0 && sql[j] == ')') {
				long op = open_of(sql, j);

				if (op > 0) {
					long w = op - 1;

					while (w >= 0 && ident(sql[w]))
						w--;
					if (w >= 1 && sql[w] == ':' && sql[w - 1] == ':' && w < op - 1) {
						i = w - 2;
						continue;
					}
				}
			}
			while (j >= 0 && ident(sql[j]))
				j--;
			if (j < i && j >= 1 && sql[j] == ':' && sql[j - 1] == ':') {
				i = j - 2;
				continue;
			}
			break;
		}
		if (i < 0 || sql[i] != ')' || (o = open_of(sql, i)) < 0)
			continue;
		while (o > 0 && ident(sql[o - 1]))
			o--;
		if (agg_in(sql, o, i + 1, agg, agglen, src, srclen))
			return 1;
	}
	/* unaliased: PostgreSQL names avg(age) "avg" */
	for (int k = 0; aggs[k]; k++)
		if (!strcasecmp(name, aggs[k]))
			for (const char *p = sql; (p = strcasestr(p, name)); p++)
				if ((p == sql || !ident(p[-1])) && agg_in(sql, (long)(p - sql), (long)(p - sql) + 1, agg, agglen,
				                                          src, srclen))
					return 1;
	return 0;
}

/* ---- the sentence ---- */

/* The result as the sentences see it. */
struct shape {
	const struct answer_in *in;
	int nrows;
	int label;     /* the column naming each row (text, else an id, else a time), -1 */
	int measure;   /* the last numeric column that measures something, -1 */
	int time;      /* the first date/time column, -1 */
	int any_agg;   /* some column is an aggregate */
	int nlabels;   /* text columns that name a row together (department / sex: 2) */
	long limit;    /* the SQL's own LIMIT when it ranks (ORDER BY ... LIMIT n), 0 */
	char subject[512], group[128];
};

static const cJSON *cell(const struct shape *s, int r, int c)
{
	return cJSON_GetArrayItem(cJSON_GetArrayItem(s->in->rows, r), c);
}

/* fmt: format with the i18n key, vars NULL-terminated name/value pairs */
static void fmt(struct sb *out, const struct shape *s, const char *key, const char *const *vars)
{
	i18n_format(out, s->in->lang, key, vars);
}

/* unit_key: the i18n key that puts a unit around a value of column c, or NULL */
static const char *unit_key(const struct answer_col *c)
{
	if (c->fmt == FMT_PCT || c->fmt == FMT_ID || c->fmt == FMT_TEXT || c->fmt == FMT_BOOL)
		return NULL;
	if (c->agg && !strcmp(c->agg, "count"))
		return c->patients ? "result.unit.patients" : "result.unit.count";
	if (c->unit && (!strcasecmp(c->unit, "years") || !strcasecmp(c->unit, "year")))
		return "result.unit.years";
	if (c->unit && (!strcasecmp(c->unit, "days") || !strcasecmp(c->unit, "day")))
		return "result.unit.days";
	return NULL;
}

/* say: append the value of row r, column c with its unit ("59.3세", "59.3 years", "80.2 bpm") */
static void say(struct sb *out, const struct shape *s, int r, int c)
{
	const struct answer_col *col = &s->in->cols[c];
	struct sb v = SB_INIT;
	const char *k = unit_key(col);

	answer_value(&v, cell(s, r, c), col->fmt, s->in->lang);
	if (!v.len)
		sb_puts(&v, "NULL");
	if (k) {
		fmt(out, s, k, (const char *[]){"v", sb_cstr(&v), NULL});
	} else {
		sb_puts(out, sb_cstr(&v));
		if (col->unit && *col->unit && col->fmt != FMT_TEXT && col->fmt != FMT_ID && col->fmt != FMT_PCT &&
		    !(col->agg && !strcmp(col->agg, "count")))
			sb_printf(out, strcmp(col->unit, "%") ? " %s" : "%s", col->unit);
	}
	sb_free(&v);
}

/* name_of: the label cells of row r ("General surgery / F") */
static void name_of(struct sb *out, const struct shape *s, int r)
{
	int first = 1;

	for (int c = 0; c < s->in->ncols; c++) {
		const struct answer_col *col = &s->in->cols[c];

		if (c == s->measure || (c != s->label && (col->fmt != FMT_TEXT || is_temporal(col))))
			continue;
		if (!first)
			sb_puts(out, " / ");
		if (cJSON_IsNull(cell(s, r, c)) || !cell(s, r, c))
			sb_puts(out, "NULL");
		else
			answer_value(out, cell(s, r, c), col->fmt, s->in->lang);
		first = 0;
	}
}

/* ro: the Korean particle 로/으로 after text t (으로 after a final consonant other than ㄹ, and after
 * digits read with one: 0 영, 3 삼, 6 육, and 10, 100, ... read 십, 백, 천, 만) */
static const char *ro(const char *t)
{
	size_t n = strlen(t);
	const unsigned char *u = (const unsigned char *)t;

	if (!n)
		return "로";
	if (n >= 3 && (u[n - 3] & 0xF0) == 0xE0) {
		unsigned cp = ((u[n - 3] & 0x0Fu) << 12) | ((u[n - 2] & 0x3Fu) << 6) | (u[n - 1] & 0x3Fu);

		if (cp >= 0xAC00 && cp <= 0xD7A3) {
			unsigned jong = (cp - 0xAC00) % 28;

			return jong == 0 || jong == 8 ? "로" : "으로";
		}
	}
	if (isdigit(u[n - 1]))
		return strchr("036", u[n - 1]) ? "으로" : "로";
	return "로";
}

/* count_text: "3,867행" / "1,000행 이상" with the keys stem.exact / stem.more */
static void count_text(struct sb *out, const struct shape *s, const char *stem)
{
	struct sb n = SB_INIT;
	char key[64];

	answer_number(&n, (double)s->in->total, FMT_COUNT);
	snprintf(key, sizeof key, "%s%s", stem, s->in->truncated ? "_more" : s->in->total == 1 ? "_one" : "");
	fmt(out, s, key, (const char *[]){"n", sb_cstr(&n), NULL});
	sb_free(&n);
}

static int fits_empty(const struct shape *s) { return s->nrows == 0; }

static int fits_yesno(const struct shape *s)
{
	int yes;

	return s->nrows == 1 && s->in->ncols == 1 &&
	       (s->in->cols[0].fmt == FMT_BOOL || (cJSON_IsString(cell(s, 0, 0)) && truthy(cell(s, 0, 0), &yes) &&
	                                            !isdigit((unsigned char)cell(s, 0, 0)->valuestring[0])));
}

static int fits_value(const struct shape *s) { return s->nrows == 1; }

static int fits_top_n(const struct shape *s)
{
	/* ties (DENSE_RANK) may give a few more rows than n */
	return s->nrows >= 2 && s->label >= 0 && s->measure >= 0 && s->limit > 0 && s->nrows <= 2 * s->limit &&
	       !s->in->truncated;
}

static int fits_timeline(const struct shape *s) { return s->nrows >= 2 && s->time >= 0 && !s->any_agg; }

static int fits_group(const struct shape *s)
{
	return s->nrows >= 2 && s->label >= 0 && s->measure >= 0 && !s->in->truncated;
}

static int fits_list(const struct shape *s) { return 1; }

static void say_empty(struct sb *out, const struct shape *s)
{
	fmt(out, s, "result.answer.empty", (const char *[]){"subject", s->subject, NULL});
}

static void say_yesno(struct sb *out, const struct shape *s)
{
	int yes = 0;

	truthy(cell(s, 0, 0), &yes);
	fmt(out, s, "result.answer.yesno",
	    (const char *[]){"subject", s->subject, "yesno", i18n_get(s->in->lang, yes ? "result.yes" : "result.no"), NULL});
}

/* col_named: the index of the result column called name, -1 */
static int col_named(const struct shape *s, const char *name)
{
	for (int c = 0; c < s->in->ncols; c++)
		if (s->in->cols[c].name && !strcmp(s->in->cols[c].name, name))
			return c;
	return -1;
}

static void say_value(struct sb *out, const struct shape *s)
{
	struct sb v = SB_INIT;
	int nmeasure = 0;
	int pc = col_named(s, "rate_percent"), nc = col_named(s, "numerator"), dc = col_named(s, "denominator");

	if (pc >= 0 && nc >= 0 && dc >= 0) {
		/* a share with how many of how many: "15.5% (3,555건 중 551건)" */
		struct sb p = SB_INIT, n = SB_INIT, d = SB_INIT;
		say(&p, s, 0, pc);
		answer_value(&n, cJSON_GetArrayItem(cJSON_GetArrayItem(s->in->rows, 0), nc), FMT_COUNT, s->in->lang);
		answer_value(&d, cJSON_GetArrayItem(cJSON_GetArrayItem(s->in->rows, 0), dc), FMT_COUNT, s->in->lang);
		fmt(&v, s, "result.answer.rate_counts", (const char *[]){"value", sb_cstr(&p), "num", sb_cstr(&n), "den", sb_cstr(&d), NULL});
		fmt(out, s, "result.answer.value", (const char *[]){"subject", s->subject, "value", sb_cstr(&v), NULL});
		sb_free(&p);
		sb_free(&n);
		sb_free(&d);
		sb_free(&v);
		return;
	}

	for (int c = 0; c < s->in->ncols; c++)
		nmeasure += s->in->cols[c].fmt != FMT_TEXT && s->in->cols[c].fmt != FMT_ID;
	for (int c = 0, first = 1; c < s->in->ncols; c++) {
		const struct answer_col *col = &s->in->cols[c];

		if (!first)
			sb_puts(&v, ", ");
		/* one value stands alone; several are named by their headers */
		if (s->in->ncols > 1 && nmeasure > 0 && col->fmt != FMT_TEXT && col->fmt != FMT_ID)
			sb_printf(&v, "%s ", col->label ? col->label : col->name);
		say(&v, s, 0, c);
		first = 0;
	}
	fmt(out, s, "result.answer.value", (const char *[]){"subject", s->subject, "value", sb_cstr(&v), NULL});
	sb_free(&v);
}

static void say_top_n(struct sb *out, const struct shape *s)
{
	struct sb items = SB_INIT, n = SB_INIT, more = SB_INIT;

	for (int r = 0; r < s->nrows && r < MAX_TOP; r++) {
		if (r)
			sb_puts(&items, ", ");
		name_of(&items, s, r);
		sb_putc(&items, ' ');
		say(&items, s, r, s->measure);
	}
	if (s->nrows > MAX_TOP) {
		sb_printf(&more, "%d", s->nrows - MAX_TOP);
		sb_puts(&items, ", ");
		fmt(&items, s, "result.and_more", (const char *[]){"n", sb_cstr(&more), NULL});
	}
	sb_printf(&n, "%ld", s->limit);
	if (s->nrows > s->limit) {
		/* ties at the cut-off are kept: N rows and the ones tied with the last */
		struct sb k = SB_INIT;
		sb_printf(&k, "%ld", (long)s->nrows - s->limit);
		fmt(out, s, "result.answer.top_n_ties", (const char *[]){"subject", s->subject, "items", sb_cstr(&items),
		                                                         "n", sb_cstr(&n), "k", sb_cstr(&k), NULL});
		sb_free(&k);
	} else {
		fmt(out, s, "result.answer.top_n", (const char *[]){"subject", s->subject, "items", sb_cstr(&items), "n", sb_cstr(&n), NULL});
	}
	sb_free(&items);
	sb_free(&n);
	sb_free(&more);
}

/* when: seconds since the epoch of "YYYY-MM-DD[ T]HH:MM[:SS]" (or a date), -1 when not one */
static double when(const cJSON *v)
{
	struct tm tm = {0};
	int y, mo, d, h = 0, mi = 0;
	double sec = 0;

	if (!cJSON_IsString(v) || sscanf(v->valuestring, "%d-%d-%d%*[ T]%d:%d:%lf", &y, &mo, &d, &h, &mi, &sec) < 3)
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	return (double)timegm(&tm) + sec;
}

/* span: "2.5시간" / "2.5 hours" for secs */
static void span(struct sb *out, const struct shape *s, double secs)
{
	static const struct { double secs, limit; const char *key; } units[] = {
		{60, 120 * 60, "result.span.minutes"}, {3600, 48 * 3600, "result.span.hours"},
		{86400, 60 * 86400, "result.span.days"}, {30.44 * 86400, 24 * 30.44 * 86400, "result.span.months"},
		{365.25 * 86400, INFINITY, "result.span.years"},
	};
	char b[32];

	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (secs < units[i].limit) {
			double v = secs / units[i].secs;

			snprintf(b, sizeof b, v < 10 && v != floor(v) ? "%.1f" : "%.0f", v);
			trim(b);
			fmt(out, s, units[i].key, (const char *[]){"n", b, NULL});
			return;
		}
}

static void say_timeline(struct sb *out, const struct shape *s)
{
	double lo = INFINITY, hi = -INFINITY;
	int rlo = 0, rhi = 0;
	struct sb a = SB_INIT, b = SB_INIT, sp = SB_INIT, n = SB_INIT;

	for (int r = 0; r < s->nrows; r++) {
		double t = when(cell(s, r, s->time));

		if (t < 0)
			continue;
		if (t < lo)
			lo = t, rlo = r;
		if (t > hi)
			hi = t, rhi = r;
	}
	answer_value(&a, cell(s, rlo, s->time), FMT_TEXT, s->in->lang);
	answer_value(&b, cell(s, rhi, s->time), FMT_TEXT, s->in->lang);
	if (isfinite(lo))
		span(&sp, s, hi - lo);
	count_text(&n, s, "result.count_events");
	fmt(out, s, isfinite(lo) ? "result.answer.timeline" : "result.answer.timeline_nospan",
	    (const char *[]){"subject", s->subject, "n", sb_cstr(&n), "start", sb_cstr(&a), "end", sb_cstr(&b),
	                     "span", sb_cstr(&sp), NULL});
	sb_free(&a);
	sb_free(&b);
	sb_free(&sp);
	sb_free(&n);
}

static void say_list(struct sb *out, const struct shape *s);

static void say_group(struct sb *out, const struct shape *s)
{
	int top = -1, bottom = -1, ko = !strcmp(s->in->lang, "ko");
	double tv = 0, bv = 0;
	struct sb tn = SB_INIT, tval = SB_INIT, bn = SB_INIT, bval = SB_INIT, n = SB_INIT;

	for (int r = 0; r < s->nrows; r++) {
		double x;

		if (!num_of(cell(s, r, s->measure), &x))
			continue;
		if (top < 0 || x > tv)
			top = r, tv = x;
		if (bottom < 0 || x < bv)
			bottom = r, bv = x;
	}
	if (top < 0) {
		say_list(out, s);
		return;
	}
	name_of(&tn, s, top);
	name_of(&bn, s, bottom);
	say(&tval, s, top, s->measure);
	say(&bval, s, bottom, s->measure);
	sb_printf(&n, "%d", s->nrows);
	/* {ro1}/{ro2}: Korean's particle after each value, empty in other languages (every language's
	 * template names the same placeholders: tests/unit/test_i18n.c) */
	fmt(out, s, tv == bv ? "result.answer.group_same" : "result.answer.group",
	    (const char *[]){"subject", s->subject, "top", sb_cstr(&tn), "top_value", sb_cstr(&tval),
	                     "ro1", ko ? ro(sb_cstr(&tval)) : "", "bottom", sb_cstr(&bn), "bottom_value", sb_cstr(&bval),
	                     "ro2", ko ? ro(sb_cstr(&bval)) : "", "n", sb_cstr(&n), "groups", s->group, NULL});
	sb_free(&tn);
	sb_free(&tval);
	sb_free(&bn);
	sb_free(&bval);
	sb_free(&n);
}

static void say_list(struct sb *out, const struct shape *s)
{
	struct sb items = SB_INIT, n = SB_INIT;
	int c = s->label >= 0 ? s->label : 0;

	for (int r = 0; r < s->nrows && r < MAX_ITEMS; r++) {
		if (r)
			sb_puts(&items, ", ");
		answer_value(&items, cell(s, r, c), s->in->cols[c].fmt, s->in->lang);
	}
	if (s->in->total > MAX_ITEMS)
		sb_puts(&items, ", …");
	count_text(&n, s, "result.count_rows");
	fmt(out, s, "result.answer.list", (const char *[]){"subject", s->subject, "n", sb_cstr(&n), "items", sb_cstr(&items), NULL});
	sb_free(&items);
	sb_free(&n);
}

/* The shapes, in the order they are tried: the first whose fits() holds says the sentence, worded
 * by result.answer.<name> in conf/i18n/<lang>.result.json. */
static const struct kind {
	enum answer_kind kind;
	const char *name;
	int (*fits)(const struct shape *s);
	void (*say)(struct sb *out, const struct shape *s);
} kinds[] = {
	{ANSWER_EMPTY, "empty", fits_empty, say_empty},          /* no row */
	{ANSWER_YESNO, "yesno", fits_yesno, say_yesno},          /* one true/false value */
	{ANSWER_VALUE, "value", fits_value, say_value},          /* one row: a count, an average, ... */
	{ANSWER_TOP_N, "top_n", fits_top_n, say_top_n},          /* ORDER BY measure LIMIT n */
	{ANSWER_TIMELINE, "timeline", fits_timeline, say_timeline}, /* events in time, not aggregated */
	{ANSWER_GROUP, "group", fits_group, say_group},          /* a measure per group: highest, lowest */
	{ANSWER_LIST, "list", fits_list, say_list},              /* anything else: how many, the first few */
};

const char *answer_kind_name(enum answer_kind k)
{
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (kinds[i].kind == k)
			return kinds[i].name;
	return "?";
}

/* subject: the question as the sentence's subject: no question mark, no "show me"/"보여줘" */
static void subject_of(char *out, size_t len, const char *q, const char *lang)
{
	static const char *const heads[] = {"show me the ", "show me ", "show the ", "show ", "what is the ", "what are the ",
	                                    "what was the ", "what were the ", "what is ", "what are ", "list the ", "list ",
	                                    "give me the ", "give me ", "tell me the ", "tell me ", "find the ", "find ", NULL};
	static const char *const tails[] = {"보여 주세요", "보여주세요", "알려 주세요", "알려주세요", "보여 줘", "보여줘",
	                                    "알려 줘", "알려줘", "구해 줘", "구해줘", "뽑아 줘", "뽑아줘", "찾아 줘", "찾아줘",
	                                    "는", "은", NULL};
	char *e;
	int asked;

	while (q && isspace((unsigned char)*q))
		q++;
	for (int i = 0; q && heads[i]; i++)
		if (!strncasecmp(q, heads[i], strlen(heads[i])) && strlen(q) > strlen(heads[i]) + 2) {
			q += strlen(heads[i]);
			break;
		}
	snprintf(out, len, "%s", q ? q : "");
	e = out + strlen(out);
	while (e > out && (isspace((unsigned char)e[-1]) || strchr("?.!", e[-1])))
		*--e = '\0';
	asked = q && strchr(q, '?');
	for (int i = 0; tails[i]; i++) {
		size_t n = strlen(tails[i]);

		/* 은/는 only closes a question ("나이는?"), never a word (나이) */
		if ((i >= 14 && !asked) || (size_t)(e - out) <= n + 2 || strcmp(e - n, tails[i]))
			continue;
		e -= n;
		*e = '\0';
		while (e > out && isspace((unsigned char)e[-1]))
			*--e = '\0';
		break;
	}
	if (strcmp(lang, "ko") && islower((unsigned char)out[0]))
		out[0] = (char)toupper((unsigned char)out[0]);
}

/* group_of: the grouping noun of the question ("진료과별" -> 진료과, "by department" -> departments), else
 * the label column's header */
static void group_of(struct shape *s)
{
	const char *q = s->in->question ? s->in->question : "", *p;
	int ko = !strcmp(s->in->lang, "ko");
	char w[96] = "";

	/* rows named by two columns (department and sex) are groups of both, not departments */
	if (s->nlabels > 1) {
		snprintf(s->group, sizeof s->group, "%s", i18n_get(s->in->lang, "result.groups"));
		return;
	}
	if (ko && (p = strstr(q, "별"))) {
		const char *b = p;

		while (b > q && b[-1] != ' ')
			b--;
		if (p - b > 0 && (size_t)(p - b) < sizeof w)
			snprintf(w, sizeof w, "%.*s", (int)(p - b), b);
	}
	if (!ko) {
		static const char *const by[] = {"by ", "per ", "for each ", "each ", NULL};

		for (int i = 0; by[i] && !w[0]; i++)
			for (p = q; (p = strcasestr(p, by[i])); p++)
				if (p == q || p[-1] == ' ') {
					size_t n = 0;

					p += strlen(by[i]);
					while (ident(p[n]) && n + 1 < sizeof w)
						n++;
					snprintf(w, sizeof w, "%.*s", (int)n, p);
					break;
				}
	}
	if (!w[0] && s->label >= 0) {
		const struct answer_col *c = &s->in->cols[s->label];

		snprintf(w, sizeof w, "%s", c->label ? c->label : c->name);
		if (!ko)
			for (char *t = w; *t; t++)
				*t = (char)tolower((unsigned char)*t);
	}
	if (!w[0])
		snprintf(w, sizeof w, "%s", i18n_get(s->in->lang, "result.groups"));
	else if (!ko && !ends_with(w, "s")) {
		/* English plural of the noun: departments, categories */
		size_t n = strlen(w);

		if (n > 1 && w[n - 1] == 'y' && !strchr("aeiou", w[n - 2]))
			snprintf(w + n - 1, sizeof w - n + 1, "ies");
		else if (ends_with(w, "sex") || ends_with(w, "x") || ends_with(w, "ch") || ends_with(w, "sh"))
			snprintf(w + n, sizeof w - n, "es");
		else
			snprintf(w + n, sizeof w - n, "s");
	}
	snprintf(s->group, sizeof s->group, "%s", w);
}

/* limit_of: n when the question asks for the top n ("top 5", "상위 5") or the SQL ranks with
 * "ORDER BY ... LIMIT n", n a ranking size; else 0 */
static long limit_of(const char *q, const char *sql)
{
	static const char *const tops[] = {"top ", "상위 ", "상위", NULL};
	const char *l = NULL, *o;
	long n = 0;

	for (int i = 0; q && tops[i] && n <= 0; i++)
		for (const char *p = q; (p = strcasestr(p, tops[i])) && n <= 0; p++)
			if (p == q || !ident(p[-1]))
				n = strtol(p + strlen(tops[i]), NULL, 10);
	if (n > 0 && n <= MAX_TOP_N)
		return n;
	if (!sql || !(o = strcasestr(sql, "order by")))
		return 0;
	for (const char *p = o; (p = strcasestr(p, "limit")); p++)
		l = p;
	if (!l || (n = strtol(l + 5, NULL, 10)) <= 0 || n > MAX_TOP_N)
		return 0;
	return n;
}

enum answer_kind answer_sentence(struct sb *out, const struct answer_in *in)
{
	struct shape s = {.in = in, .label = -1, .measure = -1, .time = -1};
	int idl = -1;

	s.nrows = cJSON_IsArray(in->rows) ? cJSON_GetArraySize(in->rows) : 0;
	for (int c = 0; c < in->ncols; c++) {
		const struct answer_col *col = &in->cols[c];

		s.any_agg |= col->agg && *col->agg;
		if (is_temporal(col) && s.time < 0)
			s.time = c;
		if (col->fmt == FMT_TEXT && !is_temporal(col) && s.label < 0)
			s.label = c;
		if (col->fmt == FMT_TEXT && !is_temporal(col))
			s.nlabels++;
		if (col->fmt == FMT_ID && idl < 0)
			idl = c;
		if (col->fmt == FMT_COUNT || col->fmt == FMT_AVG || col->fmt == FMT_PCT || col->fmt == FMT_REAL)
			s.measure = c;
	}
	if (s.label < 0)
		s.label = idl >= 0 ? idl : s.time;
	if (s.label == s.measure)
		s.label = -1;
	s.limit = limit_of(in->question, in->sql);
	if (in->subject && *in->subject)
		snprintf(s.subject, sizeof s.subject, "%s", in->subject);   /* the SQL's reading said back */
	else
		subject_of(s.subject, sizeof s.subject, in->question, in->lang);
	group_of(&s);
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (kinds[i].fits(&s)) {
			kinds[i].say(out, &s);
			return kinds[i].kind;
		}
	return ANSWER_LIST;
}

/* ---- friendly database errors ---- */

/* SQLSTATE (a class when it ends in "*") -> the i18n stem result.err.<name> (.title, .help) */
static const struct { const char *code, *key; } errs[] = {
	{"57014", "result.err.timeout"},    /* query_canceled: statement_timeout */
	{"55P03", "result.err.lock"},       /* lock_not_available: lock_timeout */
	{"42501", "result.err.permission"}, /* insufficient_privilege */
	{"42703", "result.err.column"},     /* undefined_column */
	{"42P01", "result.err.table"},      /* undefined_table */
	{"42883", "result.err.function"},   /* undefined_function (or operator for these types) */
	{"22012", "result.err.divzero"},    /* division_by_zero */
	{"42601", "result.err.syntax"},     /* syntax_error */
	{"22P02", "result.err.value"},      /* invalid_text_representation */
	{"22007", "result.err.value"},      /* invalid_datetime_format */
	{"22008", "result.err.value"},      /* datetime_field_overflow */
	{"25006", "result.err.readonly"},   /* read_only_sql_transaction */
	{"53*", "result.err.resources"},    /* insufficient resources: disk, memory, connections */
	{"08*", "result.err.connection"},   /* connection exception */
};

const char *answer_error_key(const char *error)
{
	if (!error)
		return NULL;
	/* a column of a view of askql_limited the user's access level withholds (store/level.h);
	 * the step's text may carry the SQLSTATE or not */
	if (strstr(error, "permission denied for view"))
		return "levels.err.permission";
	/* the first "XXXXX: " token (the agent writes "...; last error: 57014: canceling ...") */
	for (const char *p = error; *p; p++) {
		if ((p != error && p[-1] != ' ') || strlen(p) < 7 || p[5] != ':' || p[6] != ' ')
			continue;
		int ok = 1;

		for (int i = 0; i < 5; i++)
			ok &= isdigit((unsigned char)p[i]) || isupper((unsigned char)p[i]);
		if (!ok || !isdigit((unsigned char)p[0]))
			continue;
		for (size_t i = 0; i < sizeof errs / sizeof errs[0]; i++) {
			const char *c = errs[i].code;
			size_t n = strcspn(c, "*");

			if (!strncmp(p, c, n) && (c[n] == '*' || n == 5))
				return errs[i].key;
		}
		return NULL;
	}
	/* errors that carry no code */
	if (strcasestr(error, "statement timeout") || strcasestr(error, "timed out"))
		return "result.err.timeout";
	if (strcasestr(error, "permission denied"))
		return "result.err.permission";
	return NULL;
}

void answer_rows(struct sb *out, const char *lang, long long total, int truncated)
{
	struct sb n = SB_INIT;

	answer_number(&n, (double)total, FMT_COUNT);
	i18n_format(out, lang, truncated ? "result.rows_preview" : total == 1 ? "result.rows_one" : "result.rows_exact",
	            (const char *[]){"n", sb_cstr(&n), NULL});
	sb_free(&n);
}
