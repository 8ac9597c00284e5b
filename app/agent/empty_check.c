/* empty_check.c: an offline reading whose result has no row is asked back, never shown as "none": which condition alone matches no row (docs/coverage.md, "Empty results"). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/agent_int.h"
#include "util/sb.h"

/* at most this many condition groups are tried one by one (one short statement each) */
#define EMPTY_MAX_CONDS 8

/* kw_at: 1 when the keyword kw (upper case, no spaces around) starts at s[i], with a space or
 * the text's edge on each side */
static int kw_at(const char *s, size_t i, const char *kw)
{
	size_t n = strlen(kw);
	if (i > 0 && !isspace((unsigned char)s[i - 1]))
		return 0;
	if (strncasecmp(s + i, kw, n))
		return 0;
	return s[i + n] == 0 || isspace((unsigned char)s[i + n]);
}

/* top_level: step the scan past character ch (quote: the open quote or 0; depth: parentheses
 * open); 1 when ch stands outside every quote and parenthesis and opens or closes neither */
static int top_level(char ch, int *depth, int *quote)
{
	if (*quote) {
		if (ch == *quote)
			*quote = 0;
		return 0;
	}
	if (ch == '\'' || ch == '"') {
		*quote = ch;
		return 0;
	}
	if (ch == '(' || ch == ')') {
		*depth += ch == '(' ? 1 : -1;
		return 0;
	}
	return !*depth;
}

/* lead_len: the length of a condition's leading column reference ("t.col" of "t.col >= 5"); 0
 * when it starts otherwise (a function, a parenthesis) */
static size_t lead_len(const char *c, size_t n)
{
	size_t k = 0;
	while (k < n && (isalnum((unsigned char)c[k]) || c[k] == '_' || c[k] == '.' || c[k] == '"'))
		k++;
	return k < n && (isspace((unsigned char)c[k]) || strchr("=<>!", c[k])) ? k : 0;
}

void empty_parts_free(struct empty_parts *p)
{
	free(p->from);
	for (int i = 0; i < p->n; i++)
		free(p->cond[i]);
	memset(p, 0, sizeof *p);
}

static char *dup_trim(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return strndup(s, n);
}

/* add_cond: keep one conjunct, joined to an earlier one on the same leading column (the two
 * ends of a time window are one condition) */
static enum err add_cond(struct empty_parts *p, const char *c, size_t n)
{
	char *t = dup_trim(c, n);
	if (!t)
		return ERR_NOMEM;
	size_t ll = lead_len(t, strlen(t));
	for (int i = 0; ll && i < p->n; i++) {
		if (lead_len(p->cond[i], strlen(p->cond[i])) == ll && !strncmp(p->cond[i], t, ll)) {
			char *j = NULL;
			int r = asprintf(&j, "%s AND %s", p->cond[i], t);
			free(t);
			if (r < 0)
				return ERR_NOMEM;
			free(p->cond[i]);
			p->cond[i] = j;
			return OK;
		}
	}
	if (p->n == EMPTY_MAX_PARTS) {
		free(t);
		return ERR_LIMIT;
	}
	p->cond[p->n++] = t;
	return OK;
}

enum err empty_parts_of(const char *sql, struct empty_parts *p)
{
	memset(p, 0, sizeof *p);
	if (!sql)
		return ERR_INPUT;
	size_t len = strlen(sql), from = 0, where = 0, end = len;
	int depth = 0, quote = 0, ors = 0;
	while (len && (isspace((unsigned char)sql[len - 1]) || sql[len - 1] == ';'))
		len--;
	end = len;
	if (kw_at(sql, strspn(sql, " \t\r\n"), "WITH"))
		return ERR_PARSE;
	/* the top level's FROM, WHERE and what ends the WHERE; a set operation is no single reading */
	for (size_t i = 0; i < len; i++) {
		if (!top_level(sql[i], &depth, &quote))
			continue;
		if (kw_at(sql, i, "UNION") || kw_at(sql, i, "INTERSECT") || kw_at(sql, i, "EXCEPT"))
			return ERR_PARSE;
		if (!from && kw_at(sql, i, "FROM"))
			from = i + 4;
		else if (from && !where && kw_at(sql, i, "WHERE"))
			where = i + 5;
		else if (where && end == len && (kw_at(sql, i, "GROUP") || kw_at(sql, i, "HAVING") || kw_at(sql, i, "ORDER") ||
		                                  kw_at(sql, i, "LIMIT") || kw_at(sql, i, "OFFSET") || kw_at(sql, i, "WINDOW")))
			end = i;
		else if (where && end == len && kw_at(sql, i, "OR"))
			ors = 1;
	}
	if (!from || !where || quote || depth)
		return ERR_PARSE;
	if (!(p->from = dup_trim(sql + from, where - 5 - from)))
		return ERR_NOMEM;
	/* the WHERE's conjuncts; under a top-level OR the whole WHERE is one condition, and the AND of
	 * a BETWEEN belongs to it */
	size_t start = where;
	int between = 0;
	enum err e = OK;
	for (size_t i = where; i < end && e == OK && !ors; i++) {
		if (!top_level(sql[i], &depth, &quote))
			continue;
		if (kw_at(sql, i, "BETWEEN"))
			between = 1;
		else if (kw_at(sql, i, "AND")) {
			if (between) {
				between = 0;
				continue;
			}
			e = add_cond(p, sql + start, i - start);
			start = i + 3;
		}
	}
	if (e == OK)
		e = add_cond(p, sql + start, end - start);
	if (e != OK)
		empty_parts_free(p);
	return e;
}

/* say_cond: a condition as the message quotes it: at most 120 bytes */
static void say_cond(struct sb *m, const char *c)
{
	size_t n = strlen(c);
	sb_printf(m, "'%.*s%s'", (int)(n > 120 ? 117 : n), c, n > 120 ? "..." : "");
}

/* top_having: sql has a HAVING outside parentheses ("tests done more than 30 times": that none
 * is done so often is an answer) */
static int top_having(const char *sql)
{
	int depth = 0, quote = 0;
	for (size_t i = 0; sql[i]; i++)
		if (top_level(sql[i], &depth, &quote) && kw_at(sql, i, "HAVING"))
			return 1;
	return 0;
}

char *empty_check_run(struct agent *a, const struct exec_out *eo)
{
	if (!eo || !eo->ok || !eo->sql || eo->r.nrows != 0 || eo->r.truncated || eo->suppress_k || top_having(eo->sql))
		return NULL;
	struct empty_parts p;
	struct sb m = SB_INIT;
	if (empty_parts_of(eo->sql, &p) != OK) {   /* not split: a WITH, a set operation, no WHERE */
		sb_printf(&m, "empty result: no row matches this reading of the question; a reading that finds "
		          "nothing is asked back, not shown as none");
		return sb_steal(&m);
	}
	int none = 0, tried = 0;
	for (int i = 0; i < p.n && i < EMPTY_MAX_CONDS; i++) {
		struct sb q = SB_INIT;
		struct exec_out o;
		sb_printf(&q, "SELECT 1 FROM %s WHERE %s LIMIT 1", p.from, p.cond[i]);
		executor_run(a, "empty_check", sb_cstr(&q), 1, &o);
		sb_free(&q);
		if (o.ok) {
			tried++;
			if (o.r.nrows == 0) {
				sb_printf(&m, none ? ", " : "empty result: no row of the data matches ");
				say_cond(&m, p.cond[i]);
				none++;
			}
		}
		exec_out_free(&o);
	}
	if (!none && tried == p.n && p.n > 1)
		sb_printf(&m, "empty result: each of the %d conditions matches rows of the data, but no row matches all of "
		          "them together; this reading is asked back, not shown as none", p.n);
	else if (!none)
		sb_printf(&m, "empty result: no row matches this reading of the question; a reading that finds "
		          "nothing is asked back, not shown as none");
	empty_parts_free(&p);
	return sb_steal(&m);
}
