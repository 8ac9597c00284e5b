/* result_check.c: does a result fit the question before it is shown? (docs/architecture.md, "Result checks") */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/agent_int.h"
#include "agent/coverage.h"
#include "agent/planner.h"
#include "agent/planner_int.h"
#include "util/arena.h"

/* What the question's words ask for, as far as the checks need it. */
struct asks {
	int group;          /* token of the breakdown word (환자별, by X), -1 */
	int yesno;          /* a yes/no question */
	int count_patients; /* counts patients: 환자 수, how many patients */
	long top_n;         /* top N / the N most ...: N, 0 when no ranking */
};

/* per_unit: "the average number of tests per admission", "the maximum total cost per stay",
 * "환자당 평균 수술 건수": after an average, largest or smallest and a count or total word, per X
 * (X당) is the unit each figure is of, not a breakdown ("average age per department" stays a
 * breakdown); i is the "per" token or the Korean word with 당 */
static int per_unit(const struct ptoks *tk, int i)
{
	const struct ptok *t = &tk->v[i];
	size_t rl = t->raw ? strlen(t->raw) : 0;
	if (t->hangul ? !(rl > 3 && !strcmp(t->raw + rl - 3, "당")) : strcmp(t->text, "per"))
		return 0;
	int ag = 0, cnt = 0;
	for (int k = 0; k < tk->n; k++) {
		ag |= tk->v[k].role == R_AVG || tk->v[k].role == R_MAX || tk->v[k].role == R_MIN;
		cnt |= tk->v[k].role == R_COUNT || tk->v[k].role == R_SUM;
	}
	return ag && cnt;
}

static void read_question(const struct ptoks *tk, struct asks *q)
{
	memset(q, 0, sizeof *q);
	q->group = -1;
	for (int i = 0; i < tk->n; i++) {
		const struct ptok *t = &tk->v[i];
		if (q->group < 0 && t->kind == TK_WORD && t->hangul && t->group && strlen(t->text) >= 3 && !per_unit(tk, i))
			q->group = i;
		/* "by department", not "sorted by time" nor "by the ih route" (the way given) */
		if (q->group < 0 && t->role == R_PER && i + 1 < tk->n && tk->v[i + 1].kind == TK_WORD && tk->v[i + 1].role == R_NONE &&
		    strcmp(tk->v[i + 1].text, "the") && strcmp(tk->v[i + 1].text, "a") && strcmp(tk->v[i + 1].text, "an") &&
		    !(i > 0 && (tk->v[i - 1].role == R_ASC || tk->v[i - 1].role == R_DESC || !strncmp(tk->v[i - 1].stem, "order", 5) ||
		                !strncmp(tk->v[i - 1].stem, "sort", 4) || !strncmp(tk->v[i - 1].stem, "rank", 4))) &&
		    !per_unit(tk, i))
			q->group = i + 1;
		if (t->role == R_EXIST && i == 0)
			q->yesno = 1;
		/* 환자 수, 환자 몇 명, how many patients, number of patients */
		if (t->kind == TK_WORD && planner_ent_word(t->stem) == ENT_PATIENT && !t->group &&
		    ((i + 1 < tk->n && tk->v[i + 1].role == R_COUNT) || (i > 0 && tk->v[i - 1].role == R_MANY) ||
		     (i > 1 && tk->v[i - 2].role == R_COUNT && !strcmp(tk->v[i - 1].text, "of"))))
			q->count_patients = 1;
		if (t->role == R_TOP && i + 1 < tk->n && tk->v[i + 1].kind == TK_NUM)
			q->top_n = (long)tk->v[i + 1].num;
	}
}

/* distinct_last: how many different values the last column of r holds */
static int distinct_last(const struct exec_result *r)
{
	int n = 0, last = r->ncols - 1;
	for (long long i = 0; i < r->nrows; i++) {
		int seen = 0;
		for (long long k = 0; k < i && !seen; k++)
			seen = (!r->rows[i][last] && !r->rows[k][last]) ||
			       (r->rows[i][last] && r->rows[k][last] && !strcmp(r->rows[i][last], r->rows[k][last]));
		n += !seen;
	}
	return n;
}

/* one_patient_table: 1 when sql reads the patients' own table (one row per patient) and nothing
 * else (one FROM, no JOIN, no list of tables): its rows are patients, so COUNT(*) counts them */
static int one_patient_table(const char *sql, const char *patient_table)
{
	if (!patient_table || !planner_sql_names(sql, patient_table, 1) || strcasestr(sql, " join "))
		return 0;
	/* the FROMs outside parentheses (EXTRACT(YEAR FROM ...) is no second table): exactly one, and
	 * no comma in its list of tables */
	int depth = 0, nfrom = 0, in_from = 0;
	for (const char *c = sql; *c; c++) {
		if (*c == '(' || *c == ')') {
			depth += *c == '(' ? 1 : -1;
			continue;
		}
		if (depth)
			continue;
		if (!strncasecmp(c, " from ", 6))
			nfrom++, in_from = 1;
		else if (!strncasecmp(c, " where ", 7) || !strncasecmp(c, " group ", 7) || !strncasecmp(c, " order ", 7))
			in_from = 0;
		else if (*c == ',' && in_from)
			return 0;
	}
	return nfrom == 1;
}

/*
 * result_check: NULL when the result fits the question, else a finding (heap) that names the
 * check that failed.  Checks made (each only when the question clearly asks for it):
 *  - a breakdown (환자별, 진료과마다, per X, by X): at least two columns, the group and a value;
 *  - a yes/no question (…있었나요, has/did/was … any): a single row;
 *  - patients counted (환자 수, how many patients) on a target whose patient identifier is known
 *    (patient_col, may be NULL): the SQL uses that identifier, so cases or rows are not counted
 *    as patients;
 *  - a top N: the measure beside each item (two columns or more), and no more than N different
 *    values of it in the last column (ties are kept: the top 3 counts may be shared by more
 *    than 3 items).
 */
char *result_check(const char *question, const struct exec_out *eo, const char *patient_col,
                   const char *patient_table)
{
	struct arena a = {0};
	struct ptoks tk;
	struct asks q;
	char b[400];

	if (!question || !eo || !eo->ok || planner_tokenize(&a, question, &tk) != OK) {
		arena_free(&a);
		return NULL;
	}
	read_question(&tk, &q);
	b[0] = 0;
	if (q.group >= 0 && eo->r.ncols < 2) {
		snprintf(b, sizeof b, "result check: the question asks per '%s', but the result has %d column and no "
		         "column for the groups", tk.v[q.group].text, eo->r.ncols);
	} else if (q.yesno && eo->r.nrows > 1) {
		snprintf(b, sizeof b, "result check: a yes/no question, but the result has %lld rows", eo->r.nrows);
	} else if (q.count_patients && patient_col && eo->sql && !planner_sql_names(eo->sql, patient_col, 1) &&
	           !one_patient_table(eo->sql, patient_table)) {
		snprintf(b, sizeof b, "result check: the question counts patients, but the SQL does not use the patient "
		         "identifier %s (COUNT(DISTINCT %s)); rows or cases are not patients", patient_col, patient_col);
	} else if (q.top_n > 0 && eo->r.ncols < 2) {
		snprintf(b, sizeof b, "result check: a top %ld was asked, but the result shows no measure (count or value) "
		         "beside the items", q.top_n);
	} else if (q.top_n > 0 && eo->r.nrows > q.top_n && eo->r.ncols >= 2 && !eo->r.truncated &&
	           distinct_last(&eo->r) > q.top_n) {
		snprintf(b, sizeof b, "result check: a top %ld was asked, but the result ranks %d different values",
		         q.top_n, distinct_last(&eo->r));
	}
	arena_free(&a);
	return b[0] ? strdup(b) : NULL;
}

char *coverage_run(struct agent *a, const char *sql)
{
	if (!sql || !*sql || a->state.edited)
		return NULL;
	/* the offline planner checked its own SQL against this reading before it returned it
	 * (planner.c, cover): planning the question again would only repeat that */
	if (!a->state.from_cache && !strcmp(a->state.provider, "builtin"))
		return NULL;
	struct planner_ctx ctx = {.now = *a->state.now ? a->state.now : NULL, .conninfo = a->conninfo,
	                          .prev_question = a->state.parent.id ? a->state.parent.question : NULL,
	                          .prev_sql = a->state.parent.id ? a->state.parent.sql : NULL};
	struct planner_out po;
	char *finding = NULL;
	if (planner_plan(a->cat, NULL, a->state.question, &ctx, &po) == OK && po.reading) {
		struct cov_finding f[8];
		int n = 0;
		if (coverage_check(po.reading, sql, f, 8, &n) == OK && n) {
			char *say = coverage_say(po.reading, f, n);
			if (say && asprintf(&finding, "coverage check: %s", say) < 0)
				finding = NULL;
			free(say);
		}
	}
	planner_out_free(&po);
	return finding;
}

char *result_check_run(struct agent *a, const struct exec_out *eo)
{
	char *tab = NULL;
	char *pk = planner_entity_key(a->cat, a->conninfo, ENT_PATIENT, &tab);
	char *f = result_check(a->state.question, eo, pk, tab);
	free(pk);
	free(tab);
	/* the shape checks first (their findings are the more specific), then every word */
	return f ? f : coverage_run(a, eo->sql);
}
