/* shape_exists.c: question shape "yes/no existence": does any row match ("has patient 10014078 had any lab test this year?", "…있었나요?"). */
#include <string.h>
#include "agent/planner_front.h"

/* a yes/no question: its first content word is an existence word (has, was, did) or an opening
 * "any" with a question mark, or "if/whether ... had", or a Korean existence ending (있었나요) at
 * the end */
static int match(struct planner *p, const struct cues *c)
{
	const struct frame *f = &p->f;
	int yesno = 0;
	for (int i = 0; i < p->tk.n; i++) {
		struct ptok *t = &p->tk.v[i];
		if (t->kind == TK_PUNCT || (t->used && t->role != R_EXIST) || t->kind == TK_DATE || t->kind == TK_NUM ||
		    t->role == R_IN || t->role == R_ON || t->role == R_SINCE || t->role == R_STOP || !strcmp(t->text, "the") ||
		    !strcmp(t->text, "their") || !strcmp(t->text, "his") || !strcmp(t->text, "her"))
			continue;
		/* "Any drugs prescribed for patient X since March?": a question opening with "any" */
		yesno = (t->role == R_EXIST && !t->hangul) ||
		        (t->role == R_ANY && i == 0 && p->tk.n > 1 && !strcmp(p->tk.v[p->tk.n - 1].text, "?"));
		break;
	}
	for (int i = 0; i + 1 < p->tk.n && !yesno; i++)
		if ((!strcmp(p->tk.v[i].text, "if") || !strcmp(p->tk.v[i].text, "whether")) && i + 4 < p->tk.n)
			for (int k = i + 1; k < i + 8 && k < p->tk.n; k++)
				if (p->tk.v[k].role == R_EXIST)
					yesno = 1;
	for (int i = 0; i < p->tk.n; i++)
		if (p->tk.v[i].hangul && p->tk.v[i].role == R_EXIST && i >= p->tk.n - 2)
			yesno = 1;
	return yesno && !f->agg && !c->when && !f->ngroup;
}

/* SELECT COUNT(*) > 0 over the filters; a column named must have a value; 1 (another shape)
 * when the values asked about are every value the column holds (both sexes, both values of
 * a yes/no code): that asks which one */
static int frame(struct planner *p, struct cues *c)
{
	struct frame *f = &p->f;
	if (f->nin == 1 && !f->ncond && f->in[0].n >= 2 && !f->in[0].contains && f->in[0].n == p->s->c[f->in[0].col].nvalues &&
	    f->nproj < NPROJ) {
		f->proj[f->nproj++] = f->in[0].col;
		f->nin = 0;
		pf_decide(p, "", "projection", pf_cfq(p, f->proj[f->nproj - 1]),
		          "a yes/no question naming every value of a column asks which one", 1);
		return 1;
	}
	f->exists = 1;
	/* "has any organism been found": the named column has a value */
	for (int i = 0; i < f->nproj && f->ncond < MAXF; i++) {
		pf_cond_not_null(f, f->proj[i]);
	}
	/* "was anything recorded?": with nothing to check, the answer says nothing */
	if (!f->ncond && !f->entity_val && !f->has_win && !f->nsemi)
		return pf_decline(p, "%s", "a yes/no question, but it names no patient, value, time or condition to check");
	pf_decide(p, "", "intent", "exists", "a yes/no question: does any row match", 1);
	return 0;
}

const struct shape shape_exists = {"exists", STAGE_MEASURE, match, frame, 0.9};
