/* planner_compose.c: questions made of two questions: "the difference between the total input and
 * output of patient 7 since May" is the total input of patient 7 since May minus the total output
 * of patient 7 since May; "the new prescriptions of patient 7 today compared to yesterday" are
 * today's prescriptions except yesterday's.  Only the words are split here; planner.c plans each
 * part and combines them (docs/coverage.md, "Questions of two questions"). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/planner.h"

/* words that begin the part both questions share ("of patient 7 since May") */
static const char *const shared_lead[] = {"of", "for", "in", "on", "since", "during", "from", "at", "over", "between", NULL};

/* words before the first thing that both parts share ("the total input and output") */
static const char *const shared_prefix[] = {"the", "total", "overall", "sum", "average", "mean", "daily", "patient",
                                            NULL};

static int word_is(const char *w, size_t n, const char *const *list)
{
	for (int i = 0; list[i]; i++)
		if (strlen(list[i]) == n && !strncasecmp(w, list[i], n))
			return 1;
	return 0;
}

/* second_part: the second thing, from b up to the first word that begins the part both questions
 * share ("of patient 7"), a question mark or the end: its length without trailing spaces and
 * commas; *rest set to the shared part */
static size_t second_part(const char *b, const char **rest)
{
	const char *r = b;
	while (*r) {
		size_t n = strcspn(r, " ,?.");
		if (n && word_is(r, n, shared_lead))
			break;
		r += n;
		while (*r == ' ' || *r == ',')
			r++;
		if (*r == '?' || *r == '.')
			break;
	}
	size_t bl = (size_t)(r - b);
	while (bl && (b[bl - 1] == ' ' || b[bl - 1] == ','))
		bl--;
	*rest = r;
	return bl;
}

/* has_word: word w (n bytes) is a whole word of s[0..len) */
static int has_word(const char *s, size_t len, const char *w, size_t n)
{
	for (size_t i = 0; i + n <= len; i++)
		if ((i == 0 || s[i - 1] == ' ') && !strncasecmp(s + i, w, n) && (i + n == len || s[i + n] == ' '))
			return 1;
	return 0;
}

/* split_minus: "the total input minus the total output of patient 7": A is everything before
 * "minus", B its second thing, whose words but the last must all be A's ("the total"); the second
 * question is A with its last word changed for B's */
static int split_minus(const char *q, char **first, char **second)
{
	const char *m = strcasestr(q, " minus ");
	if (!m)
		return 0;
	const char *b = m + strlen(" minus "), *rest;
	size_t bl = second_part(b, &rest);
	const char *alast = m;
	while (alast > q && alast[-1] != ' ')
		alast--;
	if (!bl || alast == q || !*rest)
		return 0;
	/* A's last word right after a word that says how much ("total input"), not inside a name
	 * ("heart rate") */
	const char *pw = alast - 1;
	while (pw > q && pw[-1] != ' ')
		pw--;
	if (!word_is(pw, (size_t)(alast - 1 - pw), shared_prefix))
		return 0;
	const char *blast = b + bl;
	while (blast > b && blast[-1] != ' ')
		blast--;
	int words = 1;
	for (const char *w = b; w < blast;) {   /* B's words before its last: all A's */
		size_t n = strcspn(w, " ");
		if (!has_word(q, (size_t)(alast - q), w, n))
			return 0;
		words++;
		w += n;
		while (*w == ' ')
			w++;
	}
	if (words > 3)
		return 0;
	if (asprintf(first, "%.*s %s", (int)(m - q), q, rest) < 0) {
		*first = NULL;
		return 0;
	}
	if (asprintf(second, "%.*s%.*s %s", (int)(alast - q), q, (int)(b + bl - blast), blast, rest) < 0) {
		free(*first);
		*first = *second = NULL;
		return 0;
	}
	return 1;
}

int planner_split_difference(const char *q, char **first, char **second)
{
	*first = *second = NULL;
	if (!q || strlen(q) > 2000)
		return 0;
	const char *d = strcasestr(q, "difference between ");
	if (!d)
		return split_minus(q, first, second);
	const char *a = d + strlen("difference between ");
	const char *and = strcasestr(a, " and ");
	if (!and || and == a)
		return 0;
	/* A: "the total input"; its last word is the thing, the words before it are shared by B */
	const char *alast = and;
	while (alast > a && alast[-1] != ' ')
		alast--;
	const char *b = and + strlen(" and "), *rest;
	size_t bl = second_part(b, &rest);   /* B: up to the part both share */
	if (!bl || alast == and || !*rest)
		return 0;
	/* B is one or two words ("output", "output volume", "the total output"): a longer one may hold
	 * words both parts need ("heparin given to patient 3"), which the first part would lose */
	int bw = 0;   /* (its own "the total" not counted) */
	for (size_t i = 0; i < bl;) {
		size_t n = strcspn(b + i, " ");
		if (n > bl - i)
			n = bl - i;
		bw += !word_is(b + i, n, shared_prefix);
		i += n;
		while (i < bl && b[i] == ' ')
			i++;
	}
	if (bw < 1 || bw > 2)
		return 0;
	/* the words before A's last one are shared only when they say how much or whose ("the total",
	 * "patient 7's total"), not part of A's name ("the heart rate" and "blood pressure") */
	for (const char *w = a; w < alast;) {
		size_t n = strcspn(w, " ");
		int num = 1;
		for (size_t i = 0; i < n; i++)
			num &= isdigit((unsigned char)w[i]) != 0;
		if (!word_is(w, n, shared_prefix) && !num && !(n > 2 && w[n - 2] == '\'' && w[n - 1] == 's'))
			return 0;
		w += n;
		while (*w == ' ')
			w++;
	}
	if (asprintf(first, "%.*s %s", (int)(and - a), a, rest) < 0) {
		*first = NULL;
		return 0;
	}
	/* a second thing with its own "the total" takes none of the first's words of how much, but
	 * keeps whose ("patient 7's total input and total output": patient 7's output too) */
	int own = word_is(b, strcspn(b, " "), shared_prefix);
	char whose[256] = "";
	size_t wl = 0;
	for (const char *w = a; own && w < alast;) {
		size_t n = strcspn(w, " ");
		if (!word_is(w, n, shared_prefix) || !strncasecmp(w, "patient", n))
			if (wl + n + 1 < sizeof whose) {
				memcpy(whose + wl, w, n);
				wl += n;
				whose[wl++] = ' ';
				whose[wl] = 0;
			}
		w += n;
		while (*w == ' ')
			w++;
	}
	if (asprintf(second, "%.*s%s%.*s %s", own ? 0 : (int)(alast - a), a, whose, (int)bl, b, rest) < 0) {
		free(*first);
		*first = *second = NULL;
		return 0;
	}
	return 1;
}

/* periods that a "compared to" can set against each other, the later first */
static const char *const periods[] = {"today", "yesterday", "this week", "last week", "this month", "last month",
                                      "this year", "last year", NULL};

/* find_period: the first period of the list in [s, e) as whole words, or NULL; *which its index */
static const char *find_period(const char *s, const char *e, int *which)
{
	const char *best = NULL;
	for (int i = 0; periods[i]; i++) {
		size_t n = strlen(periods[i]);
		for (const char *h = strcasestr(s, periods[i]); h && h + n <= e; h = strcasestr(h + 1, periods[i]))
			if ((h == s || !isalnum((unsigned char)h[-1])) && !isalnum((unsigned char)h[n]) && (!best || h < best)) {
				best = h;
				*which = i;
				break;
			}
	}
	return best;
}

/* cut: s with [a, b) taken out; heap */
static char *cut(const char *s, const char *a, const char *b)
{
	char *out = NULL;
	if (asprintf(&out, "%.*s%s", (int)(a - s), s, b) < 0)
		return NULL;
	return out;
}

int planner_split_new_since(const char *q, char **first, char **second)
{
	*first = *second = NULL;
	if (!q || strlen(q) > 2000)
		return 0;
	const char *c = strcasestr(q, "compared to ");
	if (!c)
		c = strcasestr(q, "compared with ");
	const char *nw = strcasestr(q, "newly added ");
	size_t nwl = nw ? strlen("newly added ") : 0;
	if (!nw && (nw = strcasestr(q, "new ")) && nw > q && isalpha((unsigned char)nw[-1]))
		nw = NULL;
	if (nw && !nwl)
		nwl = strlen("new ");
	if (!c || !nw)
		return 0;
	/* the clause that names the earlier period: up to a comma, a question mark or the end */
	const char *ce = c + strcspn(c, ",?.");
	int p2, p1;
	const char *t2 = find_period(c, ce, &p2);
	if (!t2)
		return 0;
	/* the later period, outside the clause */
	const char *from = c > q && c[-1] == ' ' && *ce != ',' ? c - 1 : c;   /* ("today compared to ...?": no space left before ?) */
	char *rest = cut(q, from, *ce == ',' ? ce + 1 : ce);
	if (!rest)
		return 0;
	const char *t1 = find_period(rest, rest + strlen(rest), &p1);
	if (!t1 || p1 == p2 || p1 % 2 || p2 != p1 + 1) {
		free(rest);
		return 0;   /* this one against the one before it only (today / yesterday) */
	}
	/* "new" taken out: the things of the later period, then those of the earlier one */
	const char *n2 = strcasestr(rest, nwl == strlen("new ") ? "new " : "newly added ");
	char *a = n2 ? cut(rest, n2, n2 + nwl) : NULL;
	free(rest);
	if (!a)
		return 0;
	const char *t = find_period(a, a + strlen(a), &p1);
	if (!t || asprintf(second, "%.*s%s%s", (int)(t - a), a, periods[p2], t + strlen(periods[p1])) < 0) {
		free(a);
		*second = NULL;
		return 0;
	}
	*first = a;
	return 1;
}
