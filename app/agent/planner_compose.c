/* planner_compose.c: questions made of two questions: "the difference between the total input and
 * output of patient 7 since May" is the total input of patient 7 since May minus the total output
 * of patient 7 since May.  Only the words are split here; planner.c plans each part and subtracts
 * (docs/coverage.md, "Differences of two totals"). */
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

int planner_split_difference(const char *q, char **first, char **second)
{
	*first = *second = NULL;
	if (!q || strlen(q) > 2000)
		return 0;
	const char *d = strcasestr(q, "difference between ");
	if (!d)
		return 0;
	const char *a = d + strlen("difference between ");
	const char *and = strcasestr(a, " and ");
	if (!and || and == a)
		return 0;
	/* A: "the total input"; its last word is the thing, the words before it are shared by B */
	const char *alast = and;
	while (alast > a && alast[-1] != ' ')
		alast--;
	const char *b = and + strlen(" and "), *rest = b;
	/* B: up to the first word that begins the shared part, or the end */
	while (*rest) {
		const char *w = rest;
		size_t n = strcspn(w, " ,?.");
		if (n && word_is(w, n, shared_lead))
			break;
		rest = w + n;
		while (*rest == ' ' || *rest == ',')
			rest++;
		if (*rest == '?' || *rest == '.')
			break;
	}
	size_t bl = (size_t)(rest - b);
	while (bl && (b[bl - 1] == ' ' || b[bl - 1] == ','))
		bl--;
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
	/* (a second thing with its own "the total" takes none of the first's) */
	int own = word_is(b, strcspn(b, " "), shared_prefix);
	if (asprintf(second, "%.*s%.*s %s", own ? 0 : (int)(alast - a), a, (int)bl, b, rest) < 0) {
		free(*first);
		*first = *second = NULL;
		return 0;
	}
	return 1;
}
