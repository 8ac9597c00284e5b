/* planner_time.c: time expressions of a question -> a [from, to) window relative to the reference time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "agent/planner_time.h"

static void tm_norm(struct tm *t)
{
	time_t x;
	t->tm_isdst = 0;
	x = timegm(t);
	gmtime_r(&x, t);
}

/* planner_time_parse_now: "YYYY-MM-DD[ HH:MM[:SS]]" or NULL (the current local time). */
int planner_time_now(const char *now, struct tm *out)
{
	memset(out, 0, sizeof *out);
	if (!now || !*now) {
		time_t x = time(NULL);
		localtime_r(&x, out);
		out->tm_isdst = 0;
		return 1;
	}
	int y = 0, m = 0, d = 0, H = 0, M = 0, S = 0;
	if (sscanf(now, "%d-%d-%d %d:%d:%d", &y, &m, &d, &H, &M, &S) < 3 &&
	    sscanf(now, "%d-%d-%dT%d:%d:%d", &y, &m, &d, &H, &M, &S) < 3)
		return 0;
	out->tm_year = y - 1900;
	out->tm_mon = m - 1;
	out->tm_mday = d;
	out->tm_hour = H;
	out->tm_min = M;
	out->tm_sec = S;
	tm_norm(out);
	return 1;
}

static void fmt(char *buf, size_t n, const struct tm *t)
{
	char tmp[96];
	snprintf(tmp, sizeof tmp, "%04d-%02d-%02d %02d:%02d:%02d", t->tm_year + 1900, t->tm_mon + 1, t->tm_mday,
	         t->tm_hour, t->tm_min, t->tm_sec);
	snprintf(buf, n, "%.19s", tmp);
}

/* window of one calendar unit starting at t ('y', 'H' a half year, 'q' a quarter, 'm', 'w', 'd') */
static void cal(struct ptime *w, struct tm t, int unit)
{
	t.tm_hour = t.tm_min = t.tm_sec = 0;
	if (unit == 'y') {
		t.tm_mon = 0;
		t.tm_mday = 1;
	} else if (unit == 'm' || unit == 'q' || unit == 'H') {
		t.tm_mday = 1;
		t.tm_mon -= unit == 'q' ? t.tm_mon % 3 : unit == 'H' ? t.tm_mon % 6 : 0;
	}
	tm_norm(&t);
	fmt(w->from, sizeof w->from, &t);
	if (unit == 'y')
		t.tm_year++;
	else if (unit == 'q' || unit == 'H')
		t.tm_mon += unit == 'q' ? 3 : 6;
	else if (unit == 'm')
		t.tm_mon++;
	else if (unit == 'w')
		t.tm_mday += 7;
	else
		t.tm_mday++;
	tm_norm(&t);
	fmt(w->to, sizeof w->to, &t);
}

/* shift: t moved by n units; months and years as PostgreSQL adds an interval: the day kept, or
 * the month's last day when it has fewer (2025-12-31 less 6 months is 2025-06-30, not 07-01) */
static void shift(struct tm *t, int unit, int n)
{
	switch (unit) {
	case 'h': t->tm_hour += n; break;
	case 'd': t->tm_mday += n; break;
	case 'w': t->tm_mday += 7 * n; break;
	case 'm': case 'y': {
		static const int dim[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
		long m = (long)t->tm_year * 12 + t->tm_mon + (unit == 'm' ? n : 12L * n);
		int y, mon, last;
		y = (int)(m >= 0 ? m / 12 : (m - 11) / 12);
		mon = (int)(m - (long)y * 12);
		last = dim[mon];
		if (mon == 1) {
			int yy = y + 1900;
			last += (yy % 4 == 0 && yy % 100 != 0) || yy % 400 == 0;
		}
		t->tm_year = y;
		t->tm_mon = mon;
		if (t->tm_mday > last)
			t->tm_mday = last;
		break;
	}
	}
	tm_norm(t);
}

static const char *unit_name(int u)
{
	return u == 'h' ? "hours" : u == 'd' ? "days" : u == 'w' ? "weeks" : u == 'm' ? "months" : "years";
}

static int is_unit(const struct ptok *t) { return t->kind == TK_WORD && t->role == R_UNIT; }

/* One time expression of the question: its window and the tokens [span0, span1) it covers. */
struct texpr {
	struct ptime x;
	int span0, span1;
	int instant;   /* a date with a clock time: one second */
};

/* month_of_year: "07/this year", "10/last year" at token i: the number becomes a month of that
 * year (a TK_DATE) and the tokens after it are marked used. */
static void month_of_year(struct ptoks *tk, int i, const struct tm *now)
{
	struct ptok *t = &tk->v[i];

	if (t->kind == TK_NUM && t->num >= 1 && t->num <= 12 && i + 3 < tk->n && tk->v[i + 1].kind == TK_PUNCT &&
	    !strcmp(tk->v[i + 1].text, "/") && is_unit(&tk->v[i + 3]) && tk->v[i + 3].unitv == 'y' &&
	    (tk->v[i + 2].role == R_THIS || tk->v[i + 2].role == R_LAST || tk->v[i + 2].role == R_PAST)) {
		t->kind = TK_DATE;
		t->m = (int)t->num;
		t->y = now->tm_year + 1900 - (tk->v[i + 2].role == R_THIS ? 0 : 1);
		tk->v[i + 1].used = tk->v[i + 2].used = tk->v[i + 3].used = 1;
	}
}

/* a year written as a number: 1900..2200, whole, not already a month */
static int year_tok(const struct ptok *t)
{
	return t && (t->kind == TK_NUM || t->kind == TK_DATE) && t->num >= 1900 && t->num <= 2200 && t->num == (int)t->num &&
	       !t->m;
}

/* a day of the month written as a number */
static int day_tok(const struct ptok *t)
{
	return t && t->kind == TK_NUM && !t->unit && t->num >= 1 && t->num <= 31 && t->num == (int)t->num;
}

/* month_name: "December 2025", "in march", "December 30, 2100", "30 December 2100": an English
 * month name at token i (or the day number before it) becomes a TK_DATE of that month or day
 * (its year: the number after it, else as for 12월); "may" only with a year or a day after it */
static void month_name(struct ptoks *tk, int i)
{
	/* the names, then their abbreviations (Jan 22, 2100; 15 Oct 2100), month m at index m % 12 */
	static const char *const names[] = {"january", "february", "march", "april", "may", "june", "july",
	                                    "august", "september", "october", "november", "december",
	                                    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
	                                    "nov", "dec", NULL};
	struct ptok *t = &tk->v[i], *nx = i + 1 < tk->n ? &tk->v[i + 1] : NULL, *dy = NULL, *yr = NULL;
	int m;

	if (day_tok(t) && !t->used && nx && nx->kind == TK_WORD) {
		/* 30 December 2100: the day's token becomes the date (a "since" before it still reads) */
		if ((m = planner_in_list_at(names, nx->text)) < 0)
			return;
		t->kind = TK_DATE;
		t->d = (int)t->num;
		t->m = m % 12 + 1;
		t->y = 0;
		nx->used = 1;
		if (i + 2 < tk->n && year_tok(&tk->v[i + 2])) {
			t->y = (int)tk->v[i + 2].num;
			tk->v[i + 2].used = 1;
		}
		return;
	}
	if (t->kind != TK_WORD || t->used)
		return;   /* a month read with the day before it */
	if (year_tok(nx)) {
		yr = nx;
	} else if (day_tok(nx)) {
		/* December 30, 2100 / December 30 2100 / December 30 */
		dy = nx;
		int k = i + 2;
		if (k < tk->n && tk->v[k].kind == TK_PUNCT && !strcmp(tk->v[k].text, ","))
			k++;
		if (k < tk->n && year_tok(&tk->v[k]))
			yr = &tk->v[k];
	}
	/* "may", and an abbreviation, only with a day or a year */
	if ((m = planner_in_list_at(names, t->text)) < 0 || ((m % 12 == 4 || m >= 12) && !yr && !dy))
		return;
	t->kind = TK_DATE;
	t->m = m % 12 + 1;
	t->y = t->d = 0;
	if (yr) {
		t->y = (int)yr->num;
		yr->used = 1;   /* read: not a number of its own any more */
	}
	if (dy) {
		t->d = (int)dy->num;
		dy->used = 1;
	}
}

/* day_after_period: 1 when token i starts "last month/22", a day written after a relative
 * period (not placed), else 0. */
static int day_after_period(const struct ptoks *tk, int i)
{
	const struct ptok *t = &tk->v[i];

	return (t->role == R_LAST || t->role == R_THIS || t->role == R_PAST) && i + 3 < tk->n &&
	       is_unit(&tk->v[i + 1]) && !strcmp(tk->v[i + 2].text, "/") && tk->v[i + 3].kind == TK_NUM;
}

/* day_of_month: "this month/21", "last month/22": the day of the month the period names, made
 * a TK_DATE at token i + 3 (placed when the loop reaches it); 0 when it is not a day of a month */
static int day_of_month(struct ptoks *tk, int i, const struct tm *now)
{
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	struct ptok *d = &tk->v[i + 3];
	int y = now->tm_year + 1900, m = now->tm_mon + 1;

	if (tk->v[i + 1].unitv != 'm' || d->num < 1 || d->num != (int)d->num)
		return 0;
	if (tk->v[i].role != R_THIS && --m < 1) {
		m = 12;
		y--;
	}
	if (d->num > mdays[m - 1] || (m == 2 && d->num == 29 && !((y % 4 == 0 && y % 100) || y % 400 == 0)))
		return 0;
	d->kind = TK_DATE;
	d->y = y;
	d->m = m;
	d->d = (int)d->num;
	tk->v[i].used = tk->v[i + 1].used = tk->v[i + 2].used = 1;
	return 1;
}

/* period_code: t is "q1".."q4" or "h1".."h2" (letter, up to max): its number, else 0 */
static int period_code(const struct ptok *t, char letter, int max)
{
	return t && strlen(t->text) == 2 && t->text[0] == letter && t->text[1] >= '1' && t->text[1] <= '0' + max
	       ? t->text[1] - '0' : 0;
}

/* quarter_find: the quarter (1..4) or half year (5 the first, 6 the second: 상반기, H2, "the
 * first half of 2025") that the words around year token i name (k: the token after
 * the year's own words), the tokens of those words [*lo, *hi); 0 none.  After the year: a
 * number 1..4 and 분기 or "quarter" ("2025년 1분기"), or q1..q4 ("2025 Q1"); before it: q1..q4
 * ("Q1 2025"), or an ordinal, "quarter" and "of" ("the first quarter of 2025", "3rd quarter of") */
static int quarter_find(const struct ptoks *tk, int i, int k, int *lo, int *hi)
{
	static const char *const ord[] = {"first", "second", "third", "fourth", NULL};
	static const char *const ord_num[] = {"1st", "2nd", "3rd", "4th", NULL};
	const struct ptok *a = k < tk->n ? &tk->v[k] : NULL, *b = i > 0 ? &tk->v[i - 1] : NULL;
	if (a && a->kind == TK_NUM && a->num >= 1 && a->num <= 4 && a->num == (int)a->num && !a->unit && k + 1 < tk->n &&
	    (!strcmp(tk->v[k + 1].text, "분기") || !strcmp(tk->v[k + 1].stem, "quarter"))) {
		*lo = k, *hi = k + 2;
		return (int)a->num;
	}
	if (a && (!strcmp(a->text, "상반기") || !strcmp(a->text, "하반기"))) {   /* 2025년 상반기: a half year */
		*lo = k, *hi = k + 1;
		return !strcmp(a->text, "상반기") ? 5 : 6;
	}
	if (period_code(a, 'h', 2)) {   /* 2025 H1 */
		*lo = k, *hi = k + 1;
		return 4 + period_code(a, 'h', 2);
	}
	if (period_code(b, 'h', 2)) {   /* H2 2025 */
		*lo = i - 1, *hi = i;
		return 4 + period_code(b, 'h', 2);
	}
	if (i >= 3 && !strcmp(tk->v[i - 1].text, "of") && !strcmp(tk->v[i - 2].text, "half") &&
	    (!strcmp(tk->v[i - 3].text, "first") || !strcmp(tk->v[i - 3].text, "second"))) {   /* the first half of 2025 */
		*lo = i - 3, *hi = i;
		return !strcmp(tk->v[i - 3].text, "first") ? 5 : 6;
	}
	if (period_code(a, 'q', 4)) {   /* 2025 Q1 */
		*lo = k, *hi = k + 1;
		return period_code(a, 'q', 4);
	}
	if (period_code(b, 'q', 4)) {   /* Q1 2025 */
		*lo = i - 1, *hi = i;
		return period_code(b, 'q', 4);
	}
	if (i >= 3 && !strcmp(tk->v[i - 1].text, "of") && !strcmp(tk->v[i - 2].stem, "quarter"))
		for (int q = 0; ord[q]; q++)
			if (!strcmp(tk->v[i - 3].text, ord[q]) || !strcmp(tk->v[i - 3].text, ord_num[q])) {
				*lo = i - 3, *hi = i;
				return q + 1;
			}
	return 0;
}

/* quarter_of: quarter_find, its words marked read and *span1 moved past those after the year */
static int quarter_of(struct ptoks *tk, int i, int *span1)
{
	int lo, hi, q = quarter_find(tk, i, *span1, &lo, &hi);
	for (int k = lo; q && k < hi; k++)
		tk->v[k].used = 1;
	if (q && hi > i)
		*span1 = hi;
	return q;
}

/* bare_year: "in 2024", "since 2100": a bare year at token i after a preposition becomes a TK_DATE. */
static void bare_year(struct ptoks *tk, int i)
{
	struct ptok *t = &tk->v[i], *prev = i ? &tk->v[i - 1] : NULL;

	/* (also "for 2024", "calendar 2024", "during 2024", and a year that starts the question: "2025 op
	 * counts by dept") */
	int lead = !prev && i + 1 < tk->n && tk->v[i + 1].kind == TK_WORD && !is_unit(&tk->v[i + 1]);
	/* ... or ends it, after a word that compares nothing ("lap chole count 2024?", "cases per
	 * month 2024 (by case start)") */
	int tail = prev && prev->kind == TK_WORD && prev->role != R_GT && prev->role != R_LT && prev->role != R_GE &&
	           prev->role != R_LE && prev->role != R_BETWEEN && prev->role != R_TOP &&
	           (i + 1 >= tk->n || tk->v[i + 1].kind == TK_PUNCT);
	/* a year beside a quarter: "Q1 2025", "the first quarter of 2025", "2025 1분기" */
	int lo, hi, quarter = quarter_find(tk, i, i + 1, &lo, &hi);
	if (t->kind == TK_NUM && t->num >= 1900 && t->num <= 2200 && t->num == (int)t->num && !t->unit &&
	    !t->cmp && (lead || tail || quarter || (prev && (prev->role == R_IN || prev->role == R_SINCE || prev->role == R_UNTIL ||
	                                  prev->role == R_ON || !strcmp(prev->text, "for") ||
	                                  !strcmp(prev->text, "calendar") || !strcmp(prev->text, "during") ||
	                                  !strcmp(prev->text, "about"))))) {   /* "what about 2023?" */
		t->kind = TK_DATE;
		t->y = (int)t->num;
	}
}

/* date_year: the year of the date token i: its own, or from "this year", "/last year" or 올해
 * after it (e->span1 then moves past them), or the reference year for a month alone; 0 when
 * it has none. */
static int date_year(struct ptoks *tk, int i, const struct tm *now, struct texpr *e)
{
	struct ptok *t = &tk->v[i];
	int y = t->y;

	/* 06/29/this year, 06/29 last year */
	if (t->y == 0 && t->m && tk->v[i].used && i + 3 < tk->n && tk->v[i + 3].used && is_unit(&tk->v[i + 3])) {
		y = t->y;   /* set just above */
	}
	if (!y && i + 2 < tk->n && is_unit(&tk->v[i + 2]) && tk->v[i + 2].unitv == 'y' &&
	    (tk->v[i + 1].role == R_THIS || tk->v[i + 1].role == R_LAST || tk->v[i + 1].role == R_PAST)) {
		y = now->tm_year + 1900 - (tk->v[i + 1].role == R_THIS ? 0 : 1);
		e->span1 = i + 3;
	} else if (!y && i + 3 < tk->n && tk->v[i + 1].kind == TK_PUNCT && is_unit(&tk->v[i + 3]) &&
	           tk->v[i + 3].unitv == 'y' &&
	           (tk->v[i + 2].role == R_THIS || tk->v[i + 2].role == R_LAST || tk->v[i + 2].role == R_PAST)) {
		y = now->tm_year + 1900 - (tk->v[i + 2].role == R_THIS ? 0 : 1);
		e->span1 = i + 4;
	} else if (!y && i + 1 < tk->n && tk->v[i + 1].role == R_YEARWORD) {
		y = now->tm_year + 1900 + (tk->v[i + 1].unitv < 0 ? -1 : 0);
		e->span1 = i + 2;
	}
	if (!y && t->m && !t->d) {
		/* "3월": a month of the one year the question names ("2024년 ... 1월부터"), else of the
		 * reference year */
		int named = 0, years = 0;
		for (int k = 0; k < tk->n; k++)
			if (k != i && year_tok(&tk->v[k]) && (int)tk->v[k].num != named) {
				named = (int)tk->v[k].num;
				years++;
			}
		y = years == 1 ? named : now->tm_year + 1900;
	}
	return y;
}

/* date_window: the window of the date token i: its year, month or day, open-ended after "since"
 * or "until" (before or after it).  1 placed, -1 a date without a year. */
/* clock_part: token k is a whole number 0..max (an hour, minute or second of a clock time) */
static int clock_part(const struct ptoks *tk, int k, int max, int *v)
{
	if (k >= tk->n || tk->v[k].kind != TK_NUM || tk->v[k].num != (int)tk->v[k].num || tk->v[k].num < 0 ||
	    tk->v[k].num > max || tk->v[k].unit)
		return 0;
	*v = (int)tk->v[k].num;
	return 1;
}

static int date_window(struct ptoks *tk, int i, const struct tm *now, struct texpr *e, char *desc, size_t dn)
{
	struct ptok *t = &tk->v[i], *prev = i ? &tk->v[i - 1] : NULL;
	/* (a Korean particle before the date belongs to the date before it: 1월부터 3월까지) */
	int since = prev && (prev->role == R_SINCE) && !prev->hangul;
	int until = prev && (prev->role == R_UNTIL) && !prev->hangul;
	/* "from January to March": the end of a range that "from" began, March included */
	static const char *const to_words[] = {"to", "-", "~", NULL};
	int range_end = 0;
	for (int k = i - 2; prev && planner_in_list(to_words, prev->text) && k >= 0 && k >= i - 4; k--)
		if (tk->v[k].role == R_SINCE && !tk->v[k].hangul)
			range_end = until = 1;
	struct tm d;
	int y, unit, span1;

	memset(&d, 0, sizeof d);
	y = date_year(tk, i, now, e);
	if (!y)
		return -1;
	d.tm_year = y - 1900;
	d.tm_mon = t->m ? t->m - 1 : 0;
	d.tm_mday = t->d ? t->d : 1;
	unit = t->d ? 'd' : t->m ? 'm' : 'y';
	/* a quarter of the year: "2025년 1분기", "2025 Q1", "Q1 2025", "the first quarter of 2025" */
	int qn = unit == 'y' ? quarter_of(tk, i, &e->span1) : 0;
	if (qn) {
		d.tm_mon = qn <= 4 ? 3 * (qn - 1) : 6 * (qn - 5);
		unit = qn <= 4 ? 'q' : 'H';
	}
	/* Korean: 2023년 3월 → one month */
	if (unit == 'y' && i + 1 < tk->n && tk->v[i + 1].kind == TK_DATE && !tk->v[i + 1].y && tk->v[i + 1].m) {
		d.tm_mon = tk->v[i + 1].m - 1;
		unit = 'm';
		if (tk->v[i + 1].d) {
			d.tm_mday = tk->v[i + 1].d;
			unit = 'd';
		}
		e->span1 = i + 2;
	}
	tm_norm(&d);
	cal(&e->x, d, unit);
	span1 = e->span1;
	/* "2100-12-31 23:00:00", "2100-05-15 14:00": that instant (a value measured at it) */
	int hh, mm, ss = 0, k = span1;
	if (unit == 'd' && clock_part(tk, k, 23, &hh) && k + 2 < tk->n && !strcmp(tk->v[k + 1].text, ":") &&
	    clock_part(tk, k + 2, 59, &mm)) {
		k += 3;
		if (k + 1 < tk->n && !strcmp(tk->v[k].text, ":") && clock_part(tk, k + 1, 59, &ss))
			k += 2;
		d.tm_hour = hh, d.tm_min = mm, d.tm_sec = ss;
		tm_norm(&d);
		fmt(e->x.from, sizeof e->x.from, &d);
		d.tm_sec++;
		tm_norm(&d);
		fmt(e->x.to, sizeof e->x.to, &d);
		e->span1 = span1 = k;
		e->instant = 1;
		snprintf(desc + strlen(desc), dn - strlen(desc), "%sat %s", *desc ? "; " : "", e->x.from);
		return 1;
	}
	if (span1 < tk->n && (tk->v[span1].role == R_SINCE) && tk->v[span1].hangul)
		since = 1;   /* 2023년부터 */
	int ko_until = 0;   /* 3월까지: up to the end of March, March included (as "through March") */
	if (span1 < tk->n && (tk->v[span1].role == R_UNTIL) && tk->v[span1].hangul)
		until = ko_until = 1;
	if (since)
		e->x.to[0] = 0;
	if (until && (ko_until || range_end || (prev && (!strcmp(prev->text, "through") || !strcmp(prev->text, "thru"))))) {
		e->x.from[0] = 0;   /* "through 2025-12-31": up to the end of that day, included */
	} else if (until) {
		memcpy(e->x.to, e->x.from, sizeof e->x.to);
		e->x.from[0] = 0;
	}
	snprintf(desc + strlen(desc), dn - strlen(desc), "%s%s %s", *desc ? "; " : "",
	         since ? "since" : until ? "before" : "during", t->text);
	return 1;
}

/* last_window: "last year", "last month" at token i: the previous calendar unit; "last hour":
 * the hour before the reference time.  Always places the two tokens. */
static void last_window(struct ptoks *tk, int i, const struct tm *now, struct texpr *e, char *desc, size_t dn)
{
	struct tm d = *now;
	int u = tk->v[i + 1].unitv;
	if (u == 'h') {
		shift(&d, 'h', -1);
		fmt(e->x.from, sizeof e->x.from, &d);
		fmt(e->x.to, sizeof e->x.to, now);
	} else {
		d.tm_mday = 1;   /* Dec 31 minus a month is November, not "Nov 31" = Dec 1 */
		if (u == 'y')
			d.tm_mon = 0;
		shift(&d, u, -1);
		cal(&e->x, d, u);
	}
	e->span1 = i + 2;
	snprintf(desc + strlen(desc), dn - strlen(desc), "%slast %s", *desc ? "; " : "", tk->v[i + 1].text);
}

/* ago_window: "3 days ago", "past 2 weeks", "within 6 months" at the number token i: from that
 * long before the reference time, open-ended.  1 placed, 0 a duration rather than a window,
 * -1 an expression it cannot place ("2 months after X"). */
/* since_before: the window from n units u before the reference time, open-ended, described */
static void since_before(const struct tm *now, int n, int u, struct texpr *e, char *desc, size_t dn)
{
	struct tm d = *now;
	shift(&d, u, -n);
	fmt(e->x.from, sizeof e->x.from, &d);
	e->x.rel_n = n;
	e->x.rel_unit = u;
	snprintf(desc + strlen(desc), dn - strlen(desc), "%ssince %d %s before the reference time",
	         *desc ? "; " : "", n, unit_name(u));
}

static int ago_window(struct ptoks *tk, int i, const struct tm *now, struct texpr *e, char *desc, size_t dn)
{
	struct ptok *t = &tk->v[i], *prev = i ? &tk->v[i - 1] : NULL;
	int u = t->unit && strchr("hdwmy", t->unit) ? t->unit : tk->v[i + 1].unitv;
	int after = t->unit && strchr("hdwmy", t->unit) ? i + 1 : i + 2;
	int ago = after < tk->n && tk->v[after].role == R_AGO;
	int past = prev && (prev->role == R_PAST || prev->role == R_LAST || prev->role == R_IN);
	if (!ago && after < tk->n && (tk->v[after].role == R_SINCE || tk->v[after].role == R_UNTIL) &&
	    !tk->v[after].hangul && prev && prev->role == R_IN)
		return -1;   /* "within 2 months after the prescription of X" */
	if (!ago && !past && !(i >= 2 && tk->v[i - 1].role == R_PAST) &&
	    !(i >= 2 && (tk->v[i - 2].role == R_PAST || tk->v[i - 2].role == R_LAST) && tk->v[i - 1].role == R_STOP))
		return 0;   /* "3 days" without ago/last: a duration, not a window */
	if (after < tk->n && (tk->v[after].role == R_SINCE || tk->v[after].role == R_UNTIL) && !tk->v[after].hangul)
		return -1;
	since_before(now, (int)t->num, u, e, desc, dn);
	if (past)
		e->span0 = i - 1;
	e->span1 = ago ? after + 1 : after;
	if (prev && prev->role == R_SINCE)
		e->span0 = i - 1;
	return 1;
}

/* place: the window of the time expression that starts at token i, with its description added
 * to desc.  1 placed (e filled), 0 no expression here, -1 an expression it cannot place. */
static int place(struct ptoks *tk, int i, const struct tm *now, struct texpr *e, char *desc, size_t dn)
{
	struct ptok *t = &tk->v[i];

	if (t->kind == TK_DATE)
		return date_window(tk, i, now, e, desc, dn);
	if ((t->role == R_THIS || t->role == R_CURRENT) && i + 1 < tk->n && is_unit(&tk->v[i + 1])) {
		cal(&e->x, *now, tk->v[i + 1].unitv);
		e->span1 = i + 2;
		snprintf(desc + strlen(desc), dn - strlen(desc), "%sthis %s", *desc ? "; " : "", tk->v[i + 1].text);
		return 1;
	}
	if (t->role == R_YEARWORD) {
		struct tm d = *now;
		int u = abs(t->unitv);
		d.tm_mday = 1;
		if (t->unitv < 0)
			shift(&d, u, -1);
		cal(&e->x, d, u);
		snprintf(desc + strlen(desc), dn - strlen(desc), "%s%s", *desc ? "; " : "", t->text);
		return 1;
	}
	if (t->role == R_TODAY && i + 1 < tk->n && !strcmp(tk->v[i + 1].text, "기준")) {
		/* "오늘 기준": the point of reference (an age as of today), not a window of one day */
		tk->v[i].used = tk->v[i + 1].used = 1;
		return 0;
	}
	if (t->role == R_TODAY || t->role == R_YESTERDAY) {
		struct tm d = *now;
		if (t->role == R_YESTERDAY)
			shift(&d, 'd', -1);
		cal(&e->x, d, 'd');
		snprintf(desc + strlen(desc), dn - strlen(desc), "%s%s", *desc ? "; " : "", t->text);
		return 1;
	}
	if (t->role == R_PAST && (!strcmp(t->text, "past") || !strcmp(t->text, "최근")) && i + 1 < tk->n &&
	    is_unit(&tk->v[i + 1]) && tk->v[i + 1].unitv != 'h') {
		/* "in the past year", "최근 1달" without a number: the last 12 months up to the reference
		 * time, as "in the past 12 months" is; "last year" and "previous year" stay the calendar year */
		since_before(now, 1, tk->v[i + 1].unitv, e, desc, dn);
		e->span1 = i + 2;
		return 1;
	}
	if ((t->role == R_LAST || t->role == R_PAST) && i + 1 < tk->n && is_unit(&tk->v[i + 1])) {
		/* last year / last month: the previous calendar unit */
		last_window(tk, i, now, e, desc, dn);
		return 1;
	}
	if (t->kind == TK_NUM && ((i + 1 < tk->n && is_unit(&tk->v[i + 1])) ||
	                          (t->unit && strchr("hdwmy", t->unit))))
		return ago_window(tk, i, now, e, desc, dn);
	return 0;
}

/* mark_used: mark the tokens of the expression e found at token i, the preposition before it
 * and a Korean since/until particle word after it. */
static void mark_used(struct ptoks *tk, int i, const struct texpr *e)
{
	struct ptok *prev = i ? &tk->v[i - 1] : NULL;

	for (int k = e->span0; k < e->span1 && k < tk->n; k++)
		tk->v[k].used = 1;
	if (prev && (prev->role == R_SINCE || prev->role == R_UNTIL || prev->role == R_IN || prev->role == R_ON))
		prev->used = 1;
	if (e->span1 < tk->n && tk->v[e->span1].hangul &&
	    (tk->v[e->span1].role == R_SINCE || tk->v[e->span1].role == R_UNTIL))
		tk->v[e->span1].used = 1;
}

/* intersect: narrow the window w by x (the later from, the earlier to); a relative period in x
 * replaces the one in w. */
static void intersect(struct ptime *w, const struct ptime *x)
{
	if (x->from[0] && (!w->from[0] || strcmp(x->from, w->from) > 0))
		memcpy(w->from, x->from, sizeof w->from);
	if (x->to[0] && (!w->to[0] || strcmp(x->to, w->to) < 0))
		memcpy(w->to, x->to, sizeof w->to);
	if (x->rel_n) {
		w->rel_n = x->rel_n;
		w->rel_unit = x->rel_unit;
	}
}

/* planner_time: find the question's time expressions and combine them into one window.
 * Tokens used are marked.  Returns 0 none, 1 a window, -1 an expression it cannot place. */
/* whole_year_span: "Jan through Dec", "January to December", "1월부터 12월까지" beside a year the
 * question names: the whole of that year, said twice; its words are marked as read */
static void whole_year_span(struct ptoks *tk)
{
	static const char *const first[] = {"jan", "january", NULL}, *const last[] = {"dec", "december", NULL};
	static const char *const to[] = {"to", "through", "thru", "till", "until", "-", "~", NULL};
	int year = 0;
	for (int i = 0; i < tk->n; i++)
		year |= year_tok(&tk->v[i]);
	for (int i = 0; year && i + 2 < tk->n; i++)
		if (planner_in_list(first, tk->v[i].text) && planner_in_list(to, tk->v[i + 1].text) &&
		    planner_in_list(last, tk->v[i + 2].text))
			tk->v[i].used = tk->v[i + 1].used = tk->v[i + 2].used = 1;
}

int planner_time(struct ptoks *tk, const struct tm *now, struct ptime *w, char *desc, size_t dn)
{
	int found = 0, instants = 0, others = 0, itok[2] = {-1, -1};
	struct ptime second;
	memset(&second, 0, sizeof second);
	memset(w, 0, sizeof *w);
	desc[0] = 0;
	whole_year_span(tk);
	for (int i = 0; i < tk->n; i++) {
		struct texpr e;
		int r;

		memset(&e, 0, sizeof e);
		e.span0 = i;
		e.span1 = i + 1;
		month_of_year(tk, i, now);
		month_name(tk, i);
		if (day_after_period(tk, i) && !day_of_month(tk, i, now))
			return -1;
		bare_year(tk, i);
		r = place(tk, i, now, &e, desc, dn);
		if (r < 0)
			return -1;
		if (!r)
			continue;
		mark_used(tk, i, &e);
		if (e.instant && instants < 2)
			itok[instants] = i;
		i = e.span1 - 1;
		if (e.instant && ++instants == 2) {
			second = e.x;   /* kept apart: a comparison of the values at two instants */
			continue;
		}
		others += !e.instant;
		/* intersect with what was found before */
		intersect(w, &e.x);
		found = 1;
	}
	if (instants == 2 && !others && strcmp(second.from, w->from)) {
		/* "from T1 to T2": a change over that span is the later value minus the earlier, so the
		 * first instant (the window) is the later one */
		static const char *const to[] = {"to", "until", "till", "through", NULL};
		if (itok[0] > 0 && itok[1] > 0 && tk->v[itok[0] - 1].role == R_SINCE && !tk->v[itok[0] - 1].hangul &&
		    planner_in_list(to, tk->v[itok[1] - 1].text) && strcmp(second.from, w->from) > 0) {
			struct ptime first = *w;
			memcpy(w->from, second.from, sizeof w->from);
			memcpy(w->to, second.to, sizeof w->to);
			memcpy(second.from, first.from, sizeof second.from);
			memcpy(second.to, first.to, sizeof second.to);
		}
		memcpy(w->at2_from, second.from, sizeof w->at2_from);
		memcpy(w->at2_to, second.to, sizeof w->at2_to);
		return 1;
	}
	if (instants >= 2)
		intersect(w, &second);   /* with other windows, or three instants: one window, as before */
	/* two expressions that do not meet ("2024" and "since January 2025"): no window, not an
	 * empty one that answers zero */
	if (found && w->from[0] && w->to[0] && strcmp(w->from, w->to) >= 0)
		return -2;
	return found;
}
