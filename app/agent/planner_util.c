/* planner_util.c: the planner's small helpers: decisions and declines, column and table lookups, key paths. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/planner_front.h"

void pf_decide(struct planner *p, const char *span, const char *kind, const char *target, const char *why,
                   double score)
{
	sb_puts(&p->dec, p->dec.len > 1 ? ",{" : "{");
	sb_puts(&p->dec, "\"span\":");
	sb_json_str(&p->dec, span ? span : "");
	sb_puts(&p->dec, ",\"kind\":");
	sb_json_str(&p->dec, kind);
	sb_puts(&p->dec, ",\"target\":");
	sb_json_str(&p->dec, target ? target : "");
	sb_puts(&p->dec, ",\"why\":");
	sb_json_str(&p->dec, why ? why : "");
	sb_printf(&p->dec, ",\"score\":%.2f}", score);
}

const char *pf_span_text(struct planner *p, int t0, int t1)
{
	if (t0 >= t1 || t1 > p->tk.n)
		return "";
	int a = p->tk.v[t0].off, b = p->tk.v[t1 - 1].off + p->tk.v[t1 - 1].len;
	return arena_strndup(&p->a, p->question + a, (size_t)(b - a));
}

const char *pf_tname(struct planner *p, int col) { return p->s->t[p->s->c[col].table].name; }
const char *pf_cfq(struct planner *p, int col)
{
	return arena_printf(&p->a, "%s.%s", pf_tname(p, col), p->s->c[col].name);
}

int pf_decline(struct planner *p, const char *fmt, const char *arg)
{
	if (!p->decline)
		p->decline = arena_printf(&p->a, fmt, arg ? arg : "");
	return -1;
}

/* ---- joins: shortest key path between two tables (declared and inferred keys) ---- */
int pf_key_into(struct planner *p, int from, int to)
{
	for (int k = 0; from >= 0 && to >= 0 && k < p->s->nfk; k++)
		if (p->s->c[p->s->fk[k].from].table == from && p->s->c[p->s->fk[k].to].table == to)
			return k;
	return -1;
}

int pf_path(struct planner *p, int from, int to, int *edges, int max)
{
	/* a dictionary table referenced by several keys of the same table (gender, race and
	 * ethnicity concept ids): the key the value was found through, not the first one */
	if (max >= 1 && p->via && to >= 0 && p->via[to] >= 0) {
		int mid = p->s->c[p->s->fk[p->via[to]].from].table;
		if (mid == from) {
			edges[0] = p->via[to];
			return 1;
		}
		/* through the table that holds the key (measurement -> person -> gender concept); edges
		 * run from `to` back to `from` */
		int n = mid != to ? planner_snap_path(p->s, p->banned, from, mid, edges + 1, max - 1) : -1;
		if (n >= 0) {
			edges[0] = p->via[to];
			return n + 1;
		}
	}
	return planner_snap_path(p->s, p->banned, from, to, edges, max);
}

/* the fact table's own column named like the entity, or -1 */
int pf_col_in(struct planner *p, int table, const char *name)
{
	return name ? planner_snap_col(p->s, table, name) : -1;
}

/* the entity key in table ti, ignoring underscores (subjectid ~ subject_id); -1 if absent */
int pf_col_in_loose(struct planner *p, int ti, const char *name)
{
	char b[128];
	size_t k = 0;
	if (!name)
		return -1;
	for (const char *c = name; *c && k < sizeof b - 1; c++)
		if (*c != '_')
			b[k++] = *c;
	b[k] = 0;
	for (int ci = p->s->t[ti].c0; ci < p->s->t[ti].c0 + p->s->t[ti].nc; ci++) {
		char a[128];
		size_t n = 0;
		for (const char *c = p->s->c[ci].name; *c && n < sizeof a - 1; c++)
			if (*c != '_')
				a[n++] = *c;
		a[n] = 0;
		if (!strcmp(a, b))
			return ci;
	}
	return -1;
}

/* first time column of a table (event time: chart/start/time names first) */
int pf_time_col(struct planner *p, int table)
{
	int best = -1, bs = -1;
	for (int ci = p->s->t[table].c0; ci < p->s->t[table].c0 + p->s->t[table].nc; ci++) {
		if (p->s->c[ci].type != PT_TIME)
			continue;
		const char *n = p->s->c[ci].name;
		int sc = 1;
		if (strstr(n, "chart") || strstr(n, "start") || !strcmp(n, "dt") || strstr(n, "admit") || strstr(n, "intime"))
			sc = 3;
		if (strstr(n, "end") || strstr(n, "stop") || strstr(n, "out") || strstr(n, "disch") || strstr(n, "dod"))
			sc = 0;
		if (sc > bs) {
			bs = sc;
			best = ci;
		}
	}
	return best;
}

int pf_is_keyish(struct planner *p, int ci)
{
	return planner_snap_keyish(p->s, ci);
}

int pf_time_col_quality(struct planner *p, int ci)
{
	const char *n = p->s->c[ci].name;
	if (strstr(n, "chart") || strstr(n, "start") || !strcmp(n, "dt") || strstr(n, "admit") || strstr(n, "intime"))
		return 3;
	return 1;
}

/* named_by_word: a word of the question is a whole part of column ci's name ("dose" of dose_val_rx),
 * or the question asks "how much" of the table's rows ("how much heparin was prescribed": the
 * quantity given, its one number kept as text) */
static int named_by_word(struct planner *p, int ci)
{
	int numtext = 0;
	for (int k = p->s->t[p->s->c[ci].table].c0; k < p->s->t[p->s->c[ci].table].c0 + p->s->t[p->s->c[ci].table].nc; k++)
		numtext += p->s->c[k].numtext;
	for (int i = 0; numtext == 1 && i + 1 < p->tk.n; i++)
		if (!strcmp(p->tk.v[i].text, "how") && !strcmp(p->tk.v[i + 1].text, "much"))
			return 1;
	char buf[256];
	snprintf(buf, sizeof buf, "%s", p->s->c[ci].name);
	for (char *sv = NULL, *w = strtok_r(buf, "_", &sv); w; w = strtok_r(NULL, "_", &sv))
		for (int i = 0; strlen(w) >= 3 && i < p->tk.n; i++)
			if (p->tk.v[i].kind == TK_WORD && (!strcmp(p->tk.v[i].text, w) || !strcmp(p->tk.v[i].stem, w)))
				return 1;
	return 0;
}

/* the measured number of a table: its one non-key numeric column (valuenum, amount, result); a
 * number kept as text (numtext) is a measure only where a word of the question names it */
int pf_measure_col(struct planner *p, int table)
{
	int best = -1, n = 0;
	for (int ci = p->s->t[table].c0; ci < p->s->t[table].c0 + p->s->t[table].nc; ci++) {
		if (p->s->c[ci].type != PT_NUM || pf_is_keyish(p, ci) || (p->s->c[ci].numtext && !named_by_word(p, ci)))
			continue;
		n++;
		if (best < 0)
			best = ci;
	}
	if (n == 1)
		return best;
	/* several numbers (a value and its reference limits): the one whose name or comment says it is
	 * the value or result (value_as_number, 결과값), when exactly one does */
	int named = -1, nnamed = 0;
	for (int ci = p->s->t[table].c0; n > 1 && ci < p->s->t[table].c0 + p->s->t[table].nc; ci++) {
		const struct pcol *c = &p->s->c[ci];
		if (c->type != PT_NUM || pf_is_keyish(p, ci) || (c->numtext && !named_by_word(p, ci)))
			continue;
		if (strstr(c->name, "value") || strstr(c->name, "result") || strstr(c->name, "valuenum") ||
		    (c->comment && (strstr(c->comment, "결과") || strstr(c->comment, "수치") || strstr(c->comment, "측정값") ||
		                    strstr(c->comment, "result value") || strstr(c->comment, "measured value")))) {
			named = ci;
			nnamed++;
		}
	}
	if (nnamed == 1)
		return named;
	/* a text "result"/"value" column holding numbers (lab results stored as text) */
	for (int ci = p->s->t[table].c0; ci < p->s->t[table].c0 + p->s->t[table].nc; ci++)
		if (n == 0 && (strstr(p->s->c[ci].name, "result") || strstr(p->s->c[ci].name, "value")) &&
		    p->s->c[ci].type == PT_NUM && !p->s->c[ci].numtext)
			return ci;
	return -1;
}

int pf_set_via(struct planner *p, int dt, int edge, const char *sp)
{
	if (!p->via)
		return 0;
	if (p->via[dt] >= 0 && p->via[dt] != edge) {
		pf_decline(p, "'%s' is reached through another key of the same dictionary as something named before; one "
		              "join cannot hold both", sp);
		return -1;
	}
	p->via[dt] = edge;
	return 0;
}

int pf_holds_entity(struct planner *p, int t)
{
	for (int k = 0; k < ENT_NKINDS; k++) {
		const char *ec = planner_ent_column(p->s, k);
		if (ec && planner_snap_key(p->s, t, ec) >= 0)
			return 1;
	}
	return 0;
}

int pf_is_dictionary(struct planner *p, int t)
{
	int referenced = 0;
	for (int k = 0; k < p->s->nfk && !referenced; k++)
		referenced = p->s->c[p->s->fk[k].to].table == t && p->s->c[p->s->fk[k].from].table != t;
	return referenced && !pf_holds_entity(p, t);
}

/* the label of a table's rows: a text column of the table or of the dictionary it references */
int pf_label_col(struct planner *p, int table, int *via)
{
	return pf_label_col_sure(p, table, via, 0);
}

int pf_label_col_sure(struct planner *p, int table, int *via, int sure)
{
	*via = -1;
	for (int k = 0; k < p->s->nfk; k++) {
		int from = p->s->fk[k].from, to = p->s->fk[k].to;
		if (p->s->c[from].table != table)
			continue;
		int d = p->s->c[to].table;
		/* a dictionary: small, few columns, with a text label; not the patients' own table (a
		 * diagnosis is not labelled by its patient's name) */
		if (p->s->t[d].nc > 6 || pf_holds_entity(p, d))
			continue;
		for (int ci = p->s->t[d].c0; ci < p->s->t[d].c0 + p->s->t[d].nc; ci++) {
			size_t nl = strlen(p->s->c[ci].name);
			if (p->s->c[ci].type == PT_TEXT && (strstr(p->s->c[ci].name, "label") || strstr(p->s->c[ci].name, "name") ||
			                                    strstr(p->s->c[ci].name, "title") ||
			                                    (nl > 3 && !strcmp(p->s->c[ci].name + nl - 3, "_nm")))) {   /* sick_kor_nm */
				if (p->s->t[d].rows > p->s->t[table].rows)
					continue;
				*via = d;
				return ci;
			}
		}
	}
	/* a text column named by a word of the question ("microbiology test" -> test_name);
	 * two columns named by the same word (dose_val_rx, dose_unit_rx): ambiguous, none */
	/* (of several, the one that holds names: drug_nm beside drug_unit for "per drug") */
	int guided = -1, nguided = 0, named = -1, nnamed = 0;
	for (int ci = p->s->t[table].c0; ci < p->s->t[table].c0 + p->s->t[table].nc; ci++) {
		if (p->s->c[ci].type != PT_TEXT || pf_is_keyish(p, ci) || !p->s->c[ci].nvalues)
			continue;
		for (int i = 0; i < p->tk.n; i++) {
			const char *st = p->tk.v[i].stem;
			size_t l = strlen(st);
			if (l >= 4 && !strncmp(p->s->c[ci].name, st, 4) && p->tk.v[i].kind == TK_WORD) {
				if (guided != ci)
					nguided++;
				guided = ci;
				if (strstr(p->s->c[ci].name, "name") || planner_ends_with(p->s->c[ci].name, "_nm")) {
					named = ci;
					nnamed++;
				}
				break;
			}
		}
	}
	if (nguided == 1)
		return guided;
	if (nguided > 1)
		return nnamed == 1 ? named : -1;
	/* a word of the question in the comment of one text column that holds names ("top 5
	 * operations": opname, 'Operation name (procedure performed)'; not the department, the first
	 * text column); several such columns: none */
	for (int ci = p->s->t[table].c0; ci < p->s->t[table].c0 + p->s->t[table].nc; ci++) {
		const struct pcol *c = &p->s->c[ci];
		if (c->type != PT_TEXT || pf_is_keyish(p, ci) || !c->nvalues || !c->comment ||
		    !(strstr(c->name, "name") || strstr(c->name, "_nm") || strcasestr(c->comment, " name")))
			continue;
		for (int i = 0; i < p->tk.n; i++)
			if (p->tk.v[i].kind == TK_WORD && strlen(p->tk.v[i].stem) >= 5 && strcasestr(c->comment, p->tk.v[i].stem)) {
				if (guided != ci)
					nguided++;
				guided = ci;
				break;
			}
	}
	if (nguided == 1)
		return guided;
	if (nguided > 1)
		return -1;
	/* the first text column that is not a key, nor a yes/no or two-valued flag (main_sick_yn is
	 * no label of diagnoses); of several, the first is a guess (a drug order's first may be why it
	 * was stopped): a caller that must not guess asks for the one such column only */
	int first = -1, nfirst = 0;
	for (int ci = p->s->t[table].c0; ci < p->s->t[table].c0 + p->s->t[table].nc; ci++) {
		size_t nl = strlen(p->s->c[ci].name);
		int flaggy = p->s->c[ci].flag || (p->s->c[ci].nvalues && p->s->c[ci].nvalues <= 2) ||
		             (nl > 3 && (!strcmp(p->s->c[ci].name + nl - 3, "_yn") || !strcmp(p->s->c[ci].name + nl - 3, "flg"))) ||
		             (nl > 4 && !strcmp(p->s->c[ci].name + nl - 4, "flag"));
		if (p->s->c[ci].type == PT_TEXT && !pf_is_keyish(p, ci) && !flaggy && !nfirst++)
			first = ci;
	}
	return nfirst == 1 || !sure ? first : -1;
}

int pf_link_holds_or_not(const struct planner *p, const struct plink_item *it)
{
	return it->kind == PL_VALUE || (it->kind == PL_CONCEPT && it->con >= 0) ||
	       (it->kind == PL_COLUMN && p->s->c[it->cols[0]].flag);
}

int pf_rate_word(const struct ptok *t)
{
	return !strcmp(t->text, "rate") || !strcmp(t->text, "rates");
}

void pf_cond_not_null(struct frame *f, int col)
{
	f->cond[f->ncond].col = col;
	f->cond[f->ncond].op = "IS NOT NULL";
	f->cond[f->ncond].lit = "";
	f->cond[f->ncond].num = 2;
	f->cond[f->ncond].lit2 = NULL;
	f->cond[f->ncond++].at = 0;
}

void pf_need(struct planner *p, int table)
{
	struct frame *f = &p->f;
	if (table == f->fact)
		return;
	for (int i = 0; i < f->nneed; i++)
		if (f->need[i] == table)
			return;
	if (f->nneed < 8)
		f->need[f->nneed++] = table;
}

/* ---- the fact table: where the linked things meet ---- */
int pf_dict_reaches(struct planner *p, int dict_col, const char *val, int contains, int table, int *via_key)
{
	/* table references the value's table through one key: verify a row exists */
	int dt = p->s->c[dict_col].table;
	for (int k = 0; k < p->s->nfk; k++) {
		int from = p->s->fk[k].from, to = p->s->fk[k].to;
		if (p->s->c[from].table != table || p->s->c[to].table != dt)
			continue;
		struct sb q = SB_INIT;
		sb_init_arena(&q, &p->a);
		sb_printf(&q, "SELECT 1 FROM \"%s\" f JOIN \"%s\" d ON f.\"%s\" = d.\"%s\" WHERE d.\"%s\" %s ",
		          p->s->t[table].name, p->s->t[dt].name, p->s->c[from].name, p->s->c[to].name, p->s->c[dict_col].name,
		          contains ? "ILIKE" : "=");
		planner_sql_literal(&q, contains ? arena_printf(&p->a, "%%%s%%", val) : val);
		sb_puts(&q, " LIMIT 1");
		if (sb_ok(&q) && planner_snap_probe(p->s, sb_cstr(&q))) {
			if (via_key)
				*via_key = k;
			return 1;
		}
	}
	return 0;
}

/* same_suffix_col: the text column of table dt whose name ends like col's after its first word
 * (org_eng_nm ~ dx_eng_nm), or -1 */
static int same_suffix_col(struct planner *p, int col, int dt)
{
	const char *suf = strchr(p->s->c[col].name, '_');
	if (!suf || !strchr(suf + 1, '_'))
		return -1;   /* a bare "_nm" is every label */
	for (int ci = p->s->t[dt].c0; ci < p->s->t[dt].c0 + p->s->t[dt].nc; ci++) {
		const char *s2 = strchr(p->s->c[ci].name, '_');
		if (s2 && !strcmp(s2, suf) && p->s->c[ci].type == PT_TEXT)
			return ci;
	}
	return -1;
}

int pf_tok_terms(const struct ptok *t, const char **terms, int max)
{
	int n = 0;
	terms[n++] = t->text;
	terms[n++] = t->stem;
	const char *const *syn = planner_lex_syn(t->text);
	if (!syn)
		syn = planner_lex_syn(t->stem);
	for (; syn && *syn && n < max; syn++)
		terms[n++] = *syn;
	return n;
}

int pf_says_code(const struct planner *p, int t0, int t1)
{
	for (int i = t0; i < t1 && i < p->tk.n; i++)
		if (p->tk.v[i].kind == TK_WORD && (!strcmp(p->tk.v[i].stem, "code") || strstr(p->tk.v[i].text, "코드")))
			return 1;
	return 0;
}

/* pf_name_word: contract in planner_front.h */
int pf_name_word(const struct ptok *t, int within)
{
	const char *const *w = planner_lex_phrases("name_word");
	for (int k = 0; t->kind == TK_WORD && w && w[k]; k++)
		if (!strcmp(t->text, w[k]) || !strcmp(t->stem, w[k]) || (within && t->hangul && strstr(t->text, w[k])))
			return 1;
	return 0;
}

/* pf_says_name: contract in planner_front.h */
int pf_says_name(const struct planner *p, int t0, int t1)
{
	for (int i = t0; i <= t1 && i < p->tk.n; i++) {
		if (i == t1 && p->tk.v[i].used)
			break;   /* (the next word is another link's) */
		const struct ptok *t = &p->tk.v[i];
		if (pf_name_word(t, 1) || (t->kind == TK_WORD && t->hangul && strlen(t->text) >= 9 && planner_ends_with(t->text, "명")))
			return 1;
	}
	return 0;
}

/* pf_holds_codes: contract in planner_front.h */
int pf_holds_codes(const struct pcol *c)
{
	return c->comment && (strcasestr(c->comment, "code") || strstr(c->comment, "코드")) &&
	       !strcasestr(c->comment, "name") && !strstr(c->comment, "명");
}

/* pf_name_unshown: contract in planner_front.h */
int pf_name_unshown(struct planner *p, const int *cols, int n)
{
	for (int i = 0; i < n; i++)
		if (!pf_is_keyish(p, cols[i]))
			return 0;
	for (int i = 0; i < p->tk.n && n > 0; i++)
		if (pf_name_word(&p->tk.v[i], 0) && !p->tk.v[i].used)
			return pf_decline(p, "the question asks for '%s', and the plan shows only identifiers", p->tk.v[i].text);
	return 0;
}

/* pf_yes_no: contract in planner_front.h */
int pf_yes_no(const struct planner *p, int col)
{
	static const char *const yn[] = {"y", "n", "yes", "no", "t", "f", "true", "false", "0", "1", NULL};
	if (p->s->c[col].flag)
		return 1;
	if (p->s->c[col].nvalues <= 0 || p->s->c[col].nvalues > 2)
		return 0;
	int seen = 0;
	for (int i = 0; i < p->s->nv; i++) {
		if (p->s->v[i].col != col || p->s->v[i].syn)
			continue;
		int ok = 0;
		for (int k = 0; yn[k] && !ok; k++)
			ok = !strcasecmp(p->s->v[i].value, yn[k]);
		if (!ok)
			return 0;
		seen++;
	}
	return seen > 0;
}

int pf_dict_label(struct planner *p, int col, int *edge)
{
	for (int k = 0; k < p->s->nfk; k++) {
		if (p->s->fk[k].from != col)
			continue;
		int via, dt = p->s->c[p->s->fk[k].to].table, lc = pf_label_col(p, dt, &via);
		/* a label column of the dictionary the question names ("Ward English name"), or named in
		 * another dictionary with the same naming (dx_eng_nm for org_eng_nm: "English name") */
		for (int l = 0; l < p->pl.n; l++) {
			int lcol = p->pl.v[l].cols[0];
			if (p->pl.v[l].kind != PL_COLUMN || p->s->c[lcol].type != PT_TEXT || pf_is_keyish(p, lcol) ||
			    pf_yes_no(p, lcol))
				continue;   /* (a yes/no names which rows, never the label: "병동별 중환자실 입원") */
			int same = p->s->c[lcol].table == dt ? lcol : same_suffix_col(p, lcol, dt);
			if (same >= 0) {
				lc = same;
				p->pl.v[l].cols[0] = same;
				p->pl.v[l].role = 2;   /* consumed: it names the label shown */
			}
		}
		if (lc >= 0 && p->s->c[lc].table == dt && p->s->c[lc].type == PT_TEXT) {
			*edge = k;
			return lc;
		}
	}
	return -1;
}

size_t pf_name_prefix(const char *a, const char *b)
{
	size_t n = 0;
	while (a[n] && a[n] == b[n])
		n++;
	return n;
}

int pf_prefix_col(struct planner *p, int table, const char *name, enum ptype type, int skip, size_t *len)
{
	const struct ptab *t = &p->s->t[table];
	int pick = -1, tie = 0;
	*len = 0;
	for (int ci = t->c0; ci < t->c0 + t->nc; ci++) {
		if (p->s->c[ci].type != type || ci == skip || (type == PT_TEXT && pf_is_keyish(p, ci)))
			continue;
		size_t l = pf_name_prefix(name, p->s->c[ci].name);
		if (l > *len)
			*len = l, pick = ci, tie = 0;
		else if (l == *len)
			tie = 1;
	}
	return tie ? -1 : pick;
}

/* pf_semi_keys: contract in planner_front.h */
int pf_semi_keys(struct planner *p, int ti, int *kf, int *kt)
{
	if (pf_shared_key(p, ti, kf, kt))
		return 1;
	const char *pk = planner_ent_column(p->s, ENT_PATIENT);
	int pc = pk ? pf_col_in(p, p->f.fact, pk) : -1;
	for (int k = 0; pc >= 0 && p->s->c[pc].unique && k < p->s->nfk; k++)
		if (p->s->fk[k].to == pc && p->s->c[p->s->fk[k].from].table == ti && ti != p->f.fact) {
			if (kf)
				*kf = pc;
			if (kt)
				*kt = p->s->fk[k].from;
			return 1;
		}
	return 0;
}

int pf_shared_key(struct planner *p, int ti, int *kf, int *kt)
{
	return pf_shared_key_of(p, p->f.fact, ti, kf, kt);
}

int pf_shared_key_of(struct planner *p, int from, int ti, int *kf, int *kt)
{
	int best = 0;
	/* the stay when the question is about stays (admissions, or the stays' table named: 입원들에서),
	 * else the patient */
	int want = p->f.visit_mention >= 0 ? ENT_ENCOUNTER : ENT_PATIENT;
	const char *wk = planner_ent_column(p->s, want), *pk = planner_ent_column(p->s, ENT_PATIENT);
	const char *ek = planner_ent_column(p->s, ENT_ENCOUNTER), *ck = planner_ent_column(p->s, ENT_CASE);
	for (int a = 0; a < p->s->nfk; a++)
		for (int b = 0; b < p->s->nfk; b++) {
			if (p->s->c[p->s->fk[a].from].table != from || p->s->c[p->s->fk[b].from].table != ti ||
			    p->s->fk[a].to != p->s->fk[b].to || p->s->c[p->s->fk[b].to].table == ti)
				continue;   /* (a key of the stays to an earlier stay is no parent they share: below) */
			const char *nm = p->s->c[p->s->fk[a].from].name;
			int score = wk && !strcmp(nm, wk) ? 3
			          : (pk && !strcmp(nm, pk)) || (ek && !strcmp(nm, ek)) || (ck && !strcmp(nm, ck)) ? 2 : 1;
			for (int l = 0; l < p->pl.n; l++)   /* "입원들에서": the parent the question names */
				if (p->pl.v[l].kind == PL_TABLE && p->pl.v[l].table == p->s->c[p->s->fk[a].to].table && score > 1)
					score = 4;
			/* the stays or patients whose totals are taken are the ones that had it */
			if (from == p->f.fact && p->s->fk[a].from == p->f.entity_total)
				score = 5;
			if (score > best) {
				best = score;
				if (kf)
					*kf = p->s->fk[a].from;
				if (kt)
					*kt = p->s->fk[b].from;
			}
		}
	/* the other table is the stays themselves and the question is about stays ("sepsis diagnoses
	 * in inpatient visits"): the row's own stay had it, not any stay of the same patient */
	for (int a = 0; a < p->s->nfk && want == ENT_ENCOUNTER && ti == p->f.visit_mention && best < 3; a++)
		if (p->s->c[p->s->fk[a].from].table == from && p->s->c[p->s->fk[a].to].table == ti &&
		    p->s->c[p->s->fk[a].to].unique) {
			best = 3;
			if (kf)
				*kf = p->s->fk[a].from;
			if (kt)
				*kt = p->s->fk[a].to;
		}
	return best > 1;   /* only through a patient, a stay or a case, not any shared parent (a dictionary) */
}

/* ---- building ---- */
struct sexpr *pf_col(struct planner *p, int col)
{
	struct sexpr *e = sx_col(&p->a, pf_tname(p, col), p->s->c[col].name);
	return p->s->c[col].numtext ? sx_cast(&p->a, e, "numeric") : e;
}

int pf_find_role(struct planner *p, enum role r)
{
	for (int i = 0; i < p->tk.n; i++)
		if (p->tk.v[i].role == r && !p->tk.v[i].used)
			return i;
	return -1;
}

int pf_has_role(struct planner *p, enum role r)
{
	for (int i = 0; i < p->tk.n; i++)
		if (p->tk.v[i].role == r)
			return 1;
	return 0;
}

const char *pf_numtext(struct planner *p, double v)
{
	if (v == (long)v)
		return arena_printf(&p->a, "%ld", (long)v);
	return arena_printf(&p->a, "%g", v);
}

/* the question asks for a time: "when", "what time", "what was the first time", "언제" */
int pf_asks_when(struct planner *p)
{
	/* a question that opens with its time: "Time of the last ...", "First time patient X had ...",
	 * "Last time the heart rate hit ..." */
	if (p->tk.n > 2 && !strcmp(p->tk.v[0].text, "time") && !strcmp(p->tk.v[1].text, "of"))
		return 1;
	/* "... time of (the) last maximum X" */
	for (int i = 0; i + 2 < p->tk.n; i++)
		if (!strcmp(p->tk.v[i].text, "time") && !strcmp(p->tk.v[i + 1].text, "of")) {
			int k = i + 2 + (!strcmp(p->tk.v[i + 2].text, "the") && i + 3 < p->tk.n);
			enum role r = p->tk.v[k].role;
			if (r == R_FIRST || r == R_LAST || r == R_MAX || r == R_MIN)
				return 1;
		}
	if (p->tk.n > 2 && (p->tk.v[0].role == R_FIRST || p->tk.v[0].role == R_LAST) && !strcmp(p->tk.v[1].text, "time"))
		return 1;
	for (int i = 0; i < p->tk.n; i++) {
		const struct ptok *t = &p->tk.v[i];
		if (t->role == R_WHEN)
			return 1;
		if (!t->used && (!strcmp(t->text, "time") || !strcmp(t->text, "times") || !strcmp(t->text, "date") ||
		                 !strcmp(t->text, "dates")) && i > 0) {
			const struct ptok *pv = &p->tk.v[i - 1];
			if (pv->role != R_FIRST && pv->role != R_LAST && pv->role != R_MANY && pv->kind != TK_NUM &&
			    pv->role != R_THIS && pv->role != R_ANY && strcmp(pv->text, "same") && strcmp(pv->text, "over") && strcmp(pv->text, "one") &&
			    strcmp(pv->text, "each") && strcmp(pv->text, "every") &&   /* "each time it was measured": every value */
			    !(i + 1 < p->tk.n && !strcmp(p->tk.v[i + 1].text, "that") && pv->role == R_STOP))
				return 1;
		}
	}
	if (p->tk.n && p->tk.v[0].role == R_WHICH) {
		for (int i = 1; i < p->tk.n && i <= 5; i++) {
			const struct ptok *t = &p->tk.v[i];
			if (!strcmp(t->text, "time") || !strcmp(t->text, "date") || !strcmp(t->text, "day"))
				return 1;
			if (t->kind == TK_WORD && t->role == R_NONE && !planner_lex_generic(t->stem))
				return 0;
			if (t->role == R_WHICH || t->role == R_VALUE)
				return 0;
		}
	}
	return 0;
}

/* self_group: a projected category whose own word ends in 별 (성별: sex, and "by") next to an
 * aggregate is the grouping: "성별 평균 체중", "성별 환자 수" */
void pf_self_group(struct planner *p)
{
	struct frame *f = &p->f;
	for (int i = 0; i < f->nproj && !f->ngroup; i++) {
		for (int l = 0; l < p->pl.n; l++) {
			const struct plink_item *it = &p->pl.v[l];
			const char *raw = p->tk.v[it->t1 - 1].raw;
			size_t rl = raw ? strlen(raw) : 0;
			if (it->kind == PL_COLUMN && it->cols[0] == f->proj[i] && rl > 3 && !strcmp(raw + rl - 3, "별") &&
			    (p->s->c[f->proj[i]].type != PT_NUM || pf_is_keyish(p, f->proj[i]))) {
				/* a key into a dictionary (gender_concept_id): the dictionary's label */
				int edge, lc = pf_dict_label(p, f->proj[i], &edge);
				if (lc >= 0 && pf_set_via(p, p->s->c[lc].table, edge, pf_span_text(p, it->t0, it->t1)) < 0)
					return;
				f->group[f->ngroup++] = lc >= 0 ? lc : f->proj[i];
				f->proj[i--] = f->proj[--f->nproj];
				pf_decide(p, pf_span_text(p, it->t0, it->t1), "group", pf_cfq(p, f->group[f->ngroup - 1]),
				          "the word ends in 별 (by) itself", it->score);
				break;
			}
		}
	}
}

/* proj_shift: make room for a column in front of the projection (an element loop: valgrind
 * takes a fortified overlapping memmove for a memcpy) */
void pf_proj_shift(struct frame *f)
{
	for (int i = f->nproj; i > 0; i--)
		f->proj[i] = f->proj[i - 1];
}

void pf_frame_clear(struct frame *f)
{
	f->agg = NULL;
	f->nagg2 = 0;
	f->count_entity = 0;
	f->count_col = -1;
	f->ngroup = 0;
	f->rank_n = 0;
	f->exists = 0;
	f->bucket = 0;
	f->nproj = 0;
}
