/* result_check.c: does a result fit the question before it is shown? (docs/architecture.md, "Result checks") */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/agent_int.h"
#include "agent/planner_int.h"
#include "util/arena.h"

/*
 * result_check: NULL when the result fits the question, else a finding (heap) that names the
 * check that failed.  Checks made (each only when the question clearly asks for it):
 *  - a breakdown (환자별, 진료과마다, per X, by X): at least two columns, the group and a value;
 *  - a yes/no question (…있었나요, has/did/was … any): a single row.
 */
char *result_check(const char *question, const struct exec_out *eo)
{
	struct arena a = {0};
	struct ptoks tk;
	char *finding = NULL;
	int group = -1, yesno = 0;

	if (!question || !eo || !eo->ok || planner_tokenize(&a, question, &tk) != OK) {
		arena_free(&a);
		return NULL;
	}
	for (int i = 0; i < tk.n; i++) {
		const struct ptok *t = &tk.v[i];
		if (group < 0 && t->kind == TK_WORD && t->hangul && t->group && strlen(t->text) >= 3)
			group = i;
		/* "by department", not "sorted by time" */
		if (group < 0 && t->role == R_PER && i + 1 < tk.n && tk.v[i + 1].kind == TK_WORD && tk.v[i + 1].role == R_NONE &&
		    !(i > 0 && (tk.v[i - 1].role == R_ASC || tk.v[i - 1].role == R_DESC || !strncmp(tk.v[i - 1].stem, "order", 5) ||
		                !strncmp(tk.v[i - 1].stem, "sort", 4) || !strncmp(tk.v[i - 1].stem, "rank", 4))))
			group = i + 1;
		if (t->role == R_EXIST && i == 0)
			yesno = 1;
	}
	if (group >= 0 && eo->r.ncols < 2) {
		char b[300];
		snprintf(b, sizeof b, "result check: the question asks per '%s', but the result has %d column and no "
		         "column for the groups", tk.v[group].text, eo->r.ncols);
		finding = strdup(b);
	} else if (yesno && eo->r.nrows > 1) {
		char b[200];
		snprintf(b, sizeof b, "result check: a yes/no question, but the result has %lld rows", eo->r.nrows);
		finding = strdup(b);
	}
	arena_free(&a);
	return finding;
}
