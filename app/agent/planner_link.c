/* planner_link.c: the linker: spans of the question -> values, columns, tables and ontology concepts. */
#include <stdio.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "agent/planner_link.h"
#include "catalog/catalog.h"
#include "catalog/lexicon.h"

/* the longest stored value a question may spell, in tokens ("medical/surgical intensive care unit
 * (micu/sicu)" is 11: punctuation counts) */
#define VALUE_SPAN 12

/* verb_after_noun: the span ending at j ends in an English past form followed by "up" ("cases
 * ended up in the ICU": a verb after its subject, not a name written in two words, caseend; "cases
 * ended in the last 24 hours" is the case end) */
static int verb_after_noun(const struct ptoks *tk, int j)
{
	const char *w = tk->v[j - 1].text;
	size_t n = strlen(w);
	return !tk->v[j - 1].hangul && n > 4 && !strcmp(w + n - 2, "ed") && j < tk->n && !strcmp(tk->v[j].text, "up");
}

static int add_link(struct plink *pl, const struct plink_item *it)
{
	if (pl->n >= PL_MAX)
		return 0;
	pl->v[pl->n++] = *it;
	return 1;
}

/* the value key of tokens [i, j): norms joined by one space, punctuation skipped */
static char *span_key(struct arena *a, const struct ptoks *tk, int i, int j, int stem_last)
{
	struct sb sb = SB_INIT;
	char *k;
	sb_init_arena(&sb, a);
	for (int x = i; x < j; x++) {
		if (tk->v[x].kind == TK_PUNCT)
			continue;
		if (sb.len)
			sb_putc(&sb, ' ');
		sb_puts(&sb, (stem_last && x == j - 1) ? tk->v[x].stem : tk->v[x].norm);
	}
	k = sb_ok(&sb) ? (char *)sb_cstr(&sb) : NULL;
	return k;
}

/* the surface of tokens [i, j) lower-cased (for preferring an exactly written value) */
static const char *span_text_lower(struct arena *a, const struct ptoks *tk, int i, int j, const char *dflt)
{
	struct sb sb = SB_INIT;
	sb_init_arena(&sb, a);
	for (int x = i; x < j; x++) {
		if (x > i && tk->v[x].kind != TK_PUNCT && tk->v[x - 1].off + tk->v[x - 1].len < tk->v[x].off)
			sb_putc(&sb, ' ');
		sb_puts(&sb, tk->v[x].text);
	}
	return sb_ok(&sb) ? sb_cstr(&sb) : dflt;
}

/* a span may be a value only if it holds a content word (not only glue, roles, numbers) */
static int span_has_content(const struct ptoks *tk, int i, int j)
{
	for (int x = i; x < j; x++) {
		const struct ptok *t = &tk->v[x];
		/* (one letter written as a capital is content too: K is potassium, O a blood type; not
		 * the m of I'm) */
		if (t->kind == TK_WORD && t->role == R_NONE && !planner_lex_generic(t->stem) &&
		    !planner_lex_generic(t->text) && (strlen(t->text) >= 2 || t->caps))
			return 1;
	}
	return 0;
}


/* terms of tokens [i,j): the stems joined, and for one token its synonyms */
static int terms_of(struct arena *a, const struct ptoks *tk, int i, int j, const char **out, int max)
{
	int n = 0;
	char *k = span_key(a, tk, i, j, 0), st[256];
	if (!k)
		return 0;
	/* stem each word of the span */
	struct sb sb = SB_INIT;
	sb_init_arena(&sb, a);
	char *sv = NULL, *cp = arena_strdup(a, k);
	for (char *w = cp ? strtok_r(cp, " ", &sv) : NULL; w; w = strtok_r(NULL, " ", &sv)) {
		planner_stem(w, st, sizeof st);
		if (sb.len)
			sb_putc(&sb, ' ');
		sb_puts(&sb, st);
	}
	if (sb.len && n < max)
		out[n++] = arena_strdup(a, sb_cstr(&sb));
	const char *const *syn = planner_lex_syn(k);
	if (!syn && j - i == 1)
		syn = planner_lex_syn(tk->v[i].stem);
	if (j - i == 1 && tk->v[i].raw && strcmp(tk->v[i].raw, tk->v[i].text) && n < max) {
		out[n++] = arena_strdup(a, tk->v[i].raw);
		if (!syn)
			syn = planner_lex_syn(tk->v[i].raw);
	}
	/* the form before a particle that also ends nouns was taken off (타임라인, 포화도) */
	if (j - i == 1 && tk->v[i].alt && strcmp(tk->v[i].alt, tk->v[i].raw) && n < max) {
		out[n++] = arena_strdup(a, tk->v[i].alt);
		if (!syn)
			syn = planner_lex_syn(tk->v[i].alt);
	}
	for (; syn && *syn && n < max; syn++) {
		planner_stem(*syn, st, sizeof st);
		out[n++] = arena_strdup(a, strchr(*syn, ' ') ? *syn : st);
	}
	/* 진료과명: the name of a 진료과 names what 진료과 names (not 환자명: the patients' names) */
	if (j - i == 1 && n < max && tk->v[i].hangul) {
		size_t tl = strlen(tk->v[i].text), ml = strlen("명");
		if (tl >= 3 * ml && !strcmp(tk->v[i].text + tl - ml, "명")) {
			char *x = arena_strndup(a, tk->v[i].text, tl - ml);
			if (x && planner_lex_syn(x) && planner_ent_word(x) < 0)
				out[n++] = x;
		}
	}
	return n;
}

static void mark(struct ptoks *tk, int i, int j)
{
	for (int x = i; x < j; x++)
		tk->v[x].used = 1;
}

/* time_word_after: token j is "time"/"date(s)", or starts "and Y dates" ("admission and
 * discharge dates": the date of each) */
static int time_word_after(const struct ptoks *tk, int j)
{
	int k = j < tk->n && !strcmp(tk->v[j].text, "and") && j + 2 < tk->n ? j + 2 : j;
	return k < tk->n && (!strcmp(tk->v[k].stem, "time") || !strcmp(tk->v[k].stem, "date") ||
	                     !strcmp(tk->v[k].text, "time") || !strcmp(tk->v[k].text, "date"));
}

static int dict_label(const struct psnap *s, int ci);

/* code_fits_column: a word reaches stored value v through an abbreviation of its lexicon entry
 * ("magnesium" -> MG): the value's column must hold things of the word's kind.  0 when the
 * column's other stored values that the lexicon knows are all of other kinds (mg among the
 * units mcg, ml; NS, normal saline's code, among the department codes GS, OS) */
static int code_fits_column(const struct psnap *s, const char *word, const char *key, int v)
{
	const char *cat = planner_lex_code_of(word, key);
	if (!cat)
		return 1;
	int other = 0;
	for (int i = 0; i < s->nv; i++) {
		if (s->v[i].col != s->v[v].col || s->v[i].syn || !strcasecmp(s->v[i].value, s->v[v].value))
			continue;
		int k = planner_lex_value_kinds(s->v[i].value, cat);
		if (k == 2)
			return 1;
		other |= k;
	}
	return !other;
}

#define KEYS_MAX 32   /* a word's keys: as written, stemmed, and the lexicon's synonyms (death has a dozen) */

/* values: longest spans first, exact keys, then the stem of the last word, then synonyms */
int planner_link_term(struct arena *a, const struct psnap *s, const char *term, const struct retrieval *r,
                      const int *banned_tables, double min, double *score);
/* names_own_column: stored value v is a word of its own column's name ('unit' in dose_unit_rx): a
 * question's "unit" is that column's word ("in what unit was it charted"), not the value */
static int names_own_column(const struct psnap *s, int v)
{
	char nm[128], *save = NULL;
	snprintf(nm, sizeof nm, "%s", s->c[s->v[v].col].name);
	for (char *part = strtok_r(nm, "_", &save); part; part = strtok_r(NULL, "_", &save))
		if (!strcasecmp(part, s->v[v].value))
			return 1;
	return 0;
}

/* qualified: a column that holds only the first or last of something (first_careunit) */
static int qualified(const char *name)
{
	return !strncmp(name, "first_", 6) || !strncmp(name, "last_", 5);
}

/* prefer_unqualified: a value stored both in a column of every occurrence and in one of the first
 * or last only ("ever in the coronary care unit": every transfer, not the first unit of each ICU
 * stay) names the first's or last's column only when the question says first or last */
static void prefer_unqualified(const struct psnap *s, const struct ptoks *tk, struct plink_item *it)
{
	int plain = 0, n = 0;
	for (int i = 0; i < tk->n; i++)
		if ((tk->v[i].role == R_FIRST || tk->v[i].role == R_LAST) &&
		    /* "for the last time": the last occurrence, of every occurrence */
		    !(i + 1 < tk->n && (!strcmp(tk->v[i + 1].text, "time") || !strcmp(tk->v[i + 1].text, "times"))))
			return;
	for (int q = 0; q < it->ncols; q++)
		plain |= !qualified(s->c[it->cols[q]].name);
	for (int q = 0; plain && q < it->ncols; q++)
		if (!qualified(s->c[it->cols[q]].name)) {
			it->cols[n] = it->cols[q];
			it->vals[n++] = it->vals[q];
		}
	if (plain)
		it->ncols = n;
}

/* code_rival: one word that is the whole name of a code of column col (from its comment's code list,
 * '퇴원결과(… 2:전원 …)') and a word of a code's name of another column of the same table
 * ('입원경로(… 3:타병원 전원)'): 1 + that column, unless another word of the question is in the
 * comment of just one of the two ("퇴원" says the discharge result); 0 none (docs/coverage.md) */
static int code_rival(const struct psnap *s, const struct ptoks *tk, int i, const char *key, int col)
{
	size_t kl = strlen(key);
	for (int v = 0; v < s->nv; v++) {
		int oc = s->v[v].col;
		if (!s->v[v].syn || oc == col || s->c[oc].table != s->c[col].table || !strcmp(s->v[v].key, key))
			continue;
		const char *k = s->v[v].key, *hit = NULL;
		for (const char *at = strstr(k, key); at && !hit; at = strstr(at + 1, key))
			if ((at == k || at[-1] == ' ') && (at[kl] == '\0' || at[kl] == ' '))
				hit = at;
		if (!hit)
			continue;
		int says_col = 0, says_other = 0;
		for (int x = 0; x < tk->n; x++) {
			const char *st = tk->v[x].stem;
			if (x == i || tk->v[x].kind != TK_WORD || strlen(st) < (tk->v[x].hangul ? 6u : 4u))
				continue;
			says_col |= s->c[col].comment && strstr(s->c[col].comment, st) != NULL;
			says_other |= s->c[oc].comment && strstr(s->c[oc].comment, st) != NULL;
		}
		if (!says_col || says_other)
			return oc + 1;
	}
	return 0;
}

static void link_values(struct arena *a, const struct psnap *s, struct ptoks *tk, struct plink *pl,
                        const struct retrieval *r)
{
	for (int i = 0; i < tk->n; i++) {
		if (tk->v[i].used || tk->v[i].kind == TK_PUNCT)
			continue;
		for (int j = (i + VALUE_SPAN < tk->n ? i + VALUE_SPAN : tk->n); j > i; j--) {
			int used = 0;
			for (int x = i; x < j; x++)
				used |= tk->v[x].used;
			if (used || tk->v[j - 1].kind == TK_PUNCT || !span_has_content(tk, i, j))
				continue;
			const char *keys[KEYS_MAX];
			int nk = 0, cnt = 0, first = -1;
			const char *how = "exact";
			keys[nk++] = span_key(a, tk, i, j, 0);
			{
				const char *lt = tk->v[j - 1].text;
				size_t ll = strlen(lt);
				keys[nk++] = (ll > 3 && lt[ll - 1] == 's' && lt[ll - 2] != 's') ? span_key(a, tk, i, j, 1) : NULL;
			}
			if (tk->v[j - 1].raw && strcmp(tk->v[j - 1].raw, tk->v[j - 1].text)) {
				/* the word as written, before a particle was taken off */
				char *save = tk->v[j - 1].norm;
				tk->v[j - 1].norm = planner_norm(a, tk->v[j - 1].raw);
				char *k2 = span_key(a, tk, i, j, 0);
				tk->v[j - 1].norm = save;
				if (k2 && nk < KEYS_MAX) {
					for (int q = nk; q > 0; q--)   /* not memmove: see proj_shift in planner.c */
						keys[q] = keys[q - 1];
					keys[0] = k2;
					nk++;
				}
			}
			if (tk->v[j - 1].alt && nk < KEYS_MAX) {
				char *save = tk->v[j - 1].norm;
				tk->v[j - 1].norm = planner_norm(a, tk->v[j - 1].alt);
				char *k3 = span_key(a, tk, i, j, 0);
				tk->v[j - 1].norm = save;
				if (k3)
					keys[nk++] = k3;
			}
			int syn_from = nk;   /* keys from here on are the lexicon's synonyms */
			if (j - i == 2 && keys[0]) {
				const char *const *sy = planner_lex_syn(keys[0]);   /* "heart rate" -> hr */
				for (; sy && *sy && nk < KEYS_MAX; sy++)
					keys[nk++] = *sy;
			}
			if (j - i == 1) {
				const char *syn[KEYS_MAX];
				int ns = terms_of(a, tk, i, j, syn, KEYS_MAX);
				for (int q = 1; q < ns && nk < KEYS_MAX; q++)
					keys[nk++] = syn[q];
				/* a Korean compound of a stored value and what it qualifies: 로봇수술 is 로봇 (a
				 * value) + 수술 (not 당뇨환자: the patients are what is counted there) */
				static const char *const heads[] = {"수술", "검사", NULL};
				for (int h = 0; heads[h] && tk->v[i].hangul && nk < KEYS_MAX; h++)
					if (planner_ends_with(tk->v[i].text, heads[h]) && strlen(tk->v[i].text) >= strlen(heads[h]) + 6)
						keys[nk++] = arena_strndup(a, tk->v[i].text, strlen(tk->v[i].text) - strlen(heads[h]));
			}
			int qfound = -1;
			for (int q = 0; q < nk && first < 0; q++) {
				if (!keys[q] || !*keys[q])
					continue;
				first = planner_snap_values(s, keys[q], &cnt);
				if (first >= 0 && q >= syn_from && keys[0] && !code_fits_column(s, keys[0], keys[q], first))
					first = -1;
				/* a short synonym (검사 ~ "lab") is weak evidence of a stored name ('Lab' among concept
				 * names); of a code it is the code (남자 ~ M) */
				if (first >= 0 && q >= syn_from && strlen(keys[q]) <= 3 && j - i == 1 && dict_label(s, s->v[first].col))
					first = -1;
				how = q <= 1 ? "exact" : "stem/synonym";
				qfound = q;
			}
			/* a value right before a word for an entity ("갑상선암 수술"): the other keys' stored
			 * values too (the lexicon's 'thyroid cancer' on the operations beside the metadata's
			 * diagnosis code), so that the entity's own table can be chosen (pf_value_heads) */
			int xfirst[4], xcnt[4], nx = 0;
			int ent_after = j < tk->n && (planner_ent_word(tk->v[j].stem) >= 0 || planner_ent_word(tk->v[j].text) >= 0);
			for (int q = qfound + 1; first >= 0 && ent_after && q < nk && nx < 4; q++) {
				int c2, f2 = keys[q] && *keys[q] ? planner_snap_values(s, keys[q], &c2) : -1;
				if (f2 < 0 || f2 == first || (q >= syn_from && keys[0] && !code_fits_column(s, keys[0], keys[q], f2)) ||
				    (q >= syn_from && strlen(keys[q]) <= 3))
					continue;
				xfirst[nx] = f2;
				xcnt[nx++] = c2;
			}
			if (first < 0 || (j - i == 1 && cnt == 1 && names_own_column(s, first)))
				continue;
			if (j - i > 1) {
				/* "admission type": the name of a column, not a stored value */
				char st[256];
				double csc;
				planner_stem(keys[0] ? keys[0] : "", st, sizeof st);
				if (planner_link_term(a, s, st, NULL, NULL, 0.95, &csc) >= 0)
					continue;
			}
			if (j - i == 1) {
				int is_table = 0;
				/* said per it ("성별로", "by gender"): a column named so is the breakdown, and a
				 * name part is enough ("gender" of gender_concept_id) */
				size_t rl = tk->v[i].raw ? strlen(tk->v[i].raw) : 0;
				int per = tk->v[i].group || (i + 1 < tk->n && tk->v[i + 1].role == R_PER) ||
				          (i > 0 && tk->v[i - 1].role == R_PER && (!tk->v[i - 1].hangul || !strcmp(tk->v[i - 1].text, "각"))) ||
				          (rl > 3 && !strcmp(tk->v[i].raw + rl - 3, "별"));   /* 성별: by itself */
				double colmin = per ? 0.75 : 0.95;
				int coded = 1;   /* only a code's name from a comment (W: 병동): a column named so wins */
				for (int q = 0; q < cnt; q++)
					coded &= s->v[first + q].syn;
				if (coded)
					colmin = 0.75;
				for (int ti = 0; ti < s->nt; ti++)
					if (planner_term_table_score(s, ti, tk->v[i].stem) >= 0.9)
						is_table = 1;
				double csc;
				int named_col = planner_link_term(a, s, tk->v[i].stem, NULL, NULL, colmin, &csc);
				/* "gender": a column's own name, not a value; but a word that is at once a synonym
				 * of a column and of one of that column's stored values (복강경: approach and
				 * 'Videoscopic') names the value, unless said per it */
				int own_value = 0;
				for (int q = 0; q < cnt && named_col >= 0 && !per; q++)
					own_value |= s->v[first + q].col == named_col;
				if (named_col >= 0 && !own_value)
					is_table = 1;
				const char *const *sy = planner_lex_syn(tk->v[i].stem);
				if (!sy)
					sy = planner_lex_syn(tk->v[i].text);
				for (; sy && *sy && !is_table; sy++) {
					char st2[128];
					planner_stem(*sy, st2, sizeof st2);
					if (planner_link_term(a, s, st2, NULL, NULL, colmin, &csc) >= 0) {
						/* "medicine" ~ drug, unless "careunit medicine" names the value's column */
						int named = 0;
						for (int q = 0; q < cnt; q++)
							for (int x = i - 2; x <= i + 2; x++)
								if (x >= 0 && x < tk->n && x != i && tk->v[x].kind == TK_WORD &&
								    strlen(tk->v[x].stem) >= 3 &&
								    strstr(s->c[s->v[first + q].col].name, tk->v[x].stem))
									named = 1;
						if (!named)
							is_table = 1;
					}
				}
				if (is_table || time_word_after(tk, j))
					continue;
			}
			struct plink_item it = {.kind = PL_VALUE, .t0 = i, .t1 = j, .score = 1.0};
			for (int q = 0; q < cnt && it.ncols < 4; q++) {
				it.cols[it.ncols] = s->v[first + q].col;
				it.vals[it.ncols++] = s->v[first + q].value;
			}
			for (int x = 0; x < nx; x++)
				for (int q = 0; q < xcnt[x] && it.ncols < 4; q++) {
					int dup = 0;
					for (int c = 0; c < it.ncols; c++)
						dup |= it.cols[c] == s->v[xfirst[x] + q].col && !strcmp(it.vals[c], s->v[xfirst[x] + q].value);
					if (!dup) {
						it.cols[it.ncols] = s->v[xfirst[x] + q].col;
						it.vals[it.ncols++] = s->v[xfirst[x] + q].value;
					}
				}
			/* several stored values with this key: the first one written exactly as asked leads
			 * (in the link only: the snapshot is shared by every question of the process, and
			 * reordering it made the next question with this key read it the other way round) */
			{
				const char *surf = span_text_lower(a, tk, i, j, keys[0]);
				for (int q = 1; surf && q < it.ncols; q++) {
					char *lv = arena_strdup(a, it.vals[q]);
					for (char *c = lv; c && *c; c++)
						*c = (char)tolower((unsigned char)*c);
					char *l0 = arena_strdup(a, it.vals[0]);
					for (char *c = l0; c && *c; c++)
						*c = (char)tolower((unsigned char)*c);
					if (lv && l0 && !strcmp(lv, surf) && strcmp(l0, surf)) {
						int c = it.cols[0];
						const char *v = it.vals[0];
						it.cols[0] = it.cols[q], it.vals[0] = it.vals[q];
						it.cols[q] = c, it.vals[q] = v;
					}
				}
			}
			prefer_unqualified(s, tk, &it);
			if (j - i == 1 && it.ncols == 1 && s->v[first].syn && keys[0])
				it.rival = code_rival(s, tk, i, s->v[first].key, it.cols[0]);
			it.why = arena_printf(a, "%s match of a stored value", how);
			if (add_link(pl, &it))
				mark(tk, i, j);
			i = j - 1;
			break;
		}
	}

}

/* the retrieval's value mappings, for words nothing else explained: exact and metadata matches,
 * and fuzzy (prefix/trigram) ones only for Hangul spellings ("페닐레프린"); never a bare number */
static void link_retrieval_values(struct arena *a, const struct psnap *s, struct ptoks *tk, struct plink *pl,
                                  const struct retrieval *r)
{
	/* then the retrieval's value mappings for what is left (metadata synonyms, trigram matches) */
	for (int k = 0; r && k < r->nvalues; k++) {
		const struct ret_value *rv = &r->values[k];
		char *ph = rv->phrase ? planner_norm(a, rv->phrase) : NULL;
		int hangul = 0, digits = 1;
		if (!ph || !*ph)
			continue;
		for (const char *c = ph; *c; c++) {
			hangul |= (unsigned char)*c >= 0x80;
			digits &= (*c >= '0' && *c <= '9') || *c == ' ';
		}
		if (digits || (rv->how && strcmp(rv->how, "exact") && strcmp(rv->how, "synonym") && !hangul))
			continue;
		for (int i = 0; i < tk->n; i++) {
			for (int j = tk->n; j > i; j--) {
				char *key = span_key(a, tk, i, j, 0);
				if (!key || strcmp(key, ph))
					continue;
				int ci = planner_snap_col(s, planner_snap_table(s, rv->table), rv->column);
				int used = 0;
				for (int x = i; x < j; x++)
					used |= tk->v[x].used;
				if (ci < 0 || used)
					break;
				struct plink_item it = {.kind = PL_VALUE, .t0 = i, .t1 = j, .ncols = 1, .score = rv->score};
				it.cols[0] = ci;
				it.vals[0] = rv->value;
				it.why = arena_printf(a, "value mapping from the catalog (%s)", rv->how ? rv->how : "mapping");
				if (add_link(pl, &it))
					mark(tk, i, j);
				break;
			}
		}
	}
}

/* key inside a stored value's key: as whole words (Latin), anywhere for Hangul (compounds are
 * written without spaces: 폐렴 in 세균성폐렴) */
static int key_inside(const char *vkey, const char *key, size_t kl, int hangul)
{
	for (const char *h = strstr(vkey, key); h; h = strstr(h + 1, key))
		if (hangul || ((h == vkey || h[-1] == ' ') && (h[kl] == 0 || h[kl] == ' ')))
			return 1;
	return 0;
}

/* a label column of a dictionary: text, its table referenced by another table's key, and its
 * values nearly one per row (names of things, not categories: cm_* code tables, concept) */
static int dict_label(const struct psnap *s, int ci)
{
	const struct pcol *c = &s->c[ci];
	int referenced = 0;
	for (int k = 0; k < s->nfk && !referenced; k++)
		referenced = s->c[s->fk[k].to].table == c->table && s->c[s->fk[k].from].table != c->table;
	/* a table not yet analysed has no row count: its values are all there is to go by */
	double rows = s->t[c->table].rows > 0 ? s->t[c->table].rows : c->nvalues;
	return referenced && c->type == PT_TEXT && c->nvalues > 0 && c->nvalues * 2 >= rows;
}

/* longer_term: in stored value key vkey, key is followed by a word with which it makes another
 * lexicon term ("hemoglobin a1c" in 'hemoglobin a1c/hemoglobin.total in blood') */
static int longer_term(const char *vkey, const char *key)
{
	size_t kl = strlen(key);
	/* a Korean compound that is a term of its own (순환기내과 holds 내과, 울혈성 심부전 does not) */
	if ((unsigned char)key[0] >= 0x80)
		for (const char *h = strstr(vkey, key); h; h = strstr(h + 1, key)) {
			const char *b = h, *e = h + kl;
			while (b > vkey && b[-1] != ' ')
				b--;
			while (*e && *e != ' ')
				e++;
			char w[128];
			if ((size_t)(e - b) == kl || (size_t)(e - b) >= sizeof w)
				continue;
			memcpy(w, b, (size_t)(e - b));
			w[e - b] = 0;
			if (planner_lex_syn(w))
				return 1;
		}
	for (const char *h = strstr(vkey, key); h; h = strstr(h + 1, key)) {
		if (h[kl] != ' ')
			continue;
		char two[256];
		size_t n = strcspn(h + kl + 1, " ");
		if (!n || kl + 1 + n >= sizeof two)
			continue;
		memcpy(two, key, kl);
		two[kl] = ' ';
		memcpy(two + kl + 1, h + kl + 1, n);
		two[kl + 1 + n] = 0;
		int same = 0;   /* "diabetes mellitus" is diabetes itself, another name of one entry */
		for (const char *const *sy = planner_lex_syn(key); sy && *sy && !same; sy++)
			same = !strcmp(*sy, two);
		for (const char *const *sy = planner_lex_syn(two); sy && *sy && !same; sy++)
			same = !strcmp(*sy, key);
		if (planner_lex_syn(two) && !same)
			return 1;
	}
	return 0;
}

#define CONTAINS_MAX 8   /* a part that more stored labels share names a family, not a thing */

/* contains_link: the dictionary label columns (most matches first, at most 4) some of whose stored values contain
 * key, each picking out 1..CONTAINS_MAX of its values and not all of them, and every one of those
 * containing key as written (ILIKE '%key%' finds them); 1 when it was filled */
static int contains_link(const struct psnap *s, const char *key, int prefix, struct plink_item *it)
{
	size_t kl = strlen(key);
	int hangul = (unsigned char)key[0] >= 0x80, cols[16], hits[16], bad[16], other[16], one[16], nc = 0;
	/* an English word alone must be a clinical term the lexicon knows ("primary", "region" are
	 * words of many labels); three letters only for a known abbreviation (CRP) */
	if (kl < (hangul ? 6 : 3) || (kl < 4 && !planner_lex_syn(key)) || strpbrk(key, "%_\\'") ||
	    (!hangul && !strchr(key, ' ') && !planner_lex_syn(key)))
		return 0;
	for (int v = 0; v < s->nv; v++) {
		if (s->v[v].syn || !key_inside(s->v[v].key, key, kl, hangul) || !dict_label(s, s->v[v].col) ||
		    (prefix && strncmp(s->v[v].key, key, kl)))
			continue;
		int k = 0;
		while (k < nc && cols[k] != s->v[v].col)
			k++;
		if (k == nc) {
			if (nc == 16)
				continue;
			cols[nc] = s->v[v].col;
			hits[nc] = bad[nc] = other[nc] = 0;
			one[nc] = -1;
			nc++;
		}
		if (longer_term(s->v[v].key, key)) {
			other[k]++;   /* 'hemoglobin a1c ...' is another test than hemoglobin */
			continue;
		}
		hits[k]++;
		one[k] = v;
		bad[k] |= !strcasestr(s->v[v].value, key);
	}
	it->ncols = 0;
	for (int round = 0; round < nc && it->ncols < 4; round++) {
		int best = -1;
		for (int k = 0; k < nc; k++)
			if (hits[k] > 0 && (best < 0 || hits[k] > hits[best]))
				best = k;
		if (best < 0)
			break;
		int total = s->c[cols[best]].nvalues;   /* the column's stored values, synonyms not counted */
		const char *ov = other[best] && hits[best] == 1 ? s->v[one[best]].key : NULL;
		if (ov && (strncmp(ov, key, kl) || (ov[kl] && ov[kl] != ' ')))
			hits[best] = 0;   /* the one left does not begin with the word as a word of its own
			                   * (내과계 중환자실 for 내과): nothing */
		if (other[best] && hits[best] == 1) {
			/* the one label that is this thing and not a longer named one: that label exactly */
			it->cols[it->ncols] = cols[best];
			it->vals[it->ncols++] = s->v[one[best]].value;
			it->contains = 0;
		} else if (!other[best] && !bad[best] && hits[best] <= CONTAINS_MAX && hits[best] < total) {
			it->cols[it->ncols] = cols[best];
			it->vals[it->ncols++] = key;
		}
		hits[best] = 0;
	}
	return it->ncols > 0;
}

/* refers: column ci is a key into another table (measurement_concept_id: which test, by concept) */
static int refers(const struct psnap *s, int ci)
{
	for (int k = 0; k < s->nfk; k++)
		if (s->fk[k].from == ci && s->c[s->fk[k].to].table != s->c[ci].table)
			return 1;
	return 0;
}

/* a single column or table link that covers token x only, or -1 */
static int schema_link_of(const struct plink *pl, int x)
{
	for (int l = 0; l < pl->n; l++)
		if (pl->v[l].t0 == x && pl->v[l].t1 == x + 1 && (pl->v[l].kind == PL_COLUMN || pl->v[l].kind == PL_TABLE))
			return l;
	return -1;
}

/* edge_word: a function word or preposition, which neither begins nor ends a part of a name */
static int edge_word(const struct ptok *t)
{
	return !t->hangul && (t->role == R_STOP || t->role == R_IN || t->role == R_ON || t->role == R_AND);
}

/* a part of stored labels, for words nothing else explained: '심부전' in 상병 names such as
 * '울혈성 심부전', 'type 2 diabetes' (a lexicon synonym of 제2형 당뇨병) in 'Type 2 diabetes
 * mellitus'; longest span first.  known_only: phrases of two words or more that the lexicon
 * knows, with a word nothing explained, whose other words were linked one by one to columns or
 * tables (제2형 당뇨: 당뇨 alone named a column); those links give way to the phrase */
static void link_contains(struct arena *a, const struct psnap *s, struct ptoks *tk, struct plink *pl, int known_only)
{
	for (int i = 0; i < tk->n; i++) {
		if ((tk->v[i].used && !known_only) || tk->v[i].kind != TK_WORD)
			continue;
		for (int j = (i + 3 < tk->n ? i + 3 : tk->n); j > i; j--) {
			int ok = tk->v[j - 1].kind == TK_WORD, unused = j - i == 1 && known_only;
			for (int x = i; x < j; x++) {
				ok &= (tk->v[x].kind == TK_WORD || tk->v[x].kind == TK_NUM) &&
				      (!tk->v[x].used || (known_only && schema_link_of(pl, x) >= 0));
				unused += !tk->v[x].used && tk->v[x].role == R_NONE && !planner_lex_generic(tk->v[x].stem) &&
				          !planner_lex_generic(tk->v[x].text);   /* a word nothing else could explain */
			}
			/* a phrase does not begin or end with a function word ("changes in" of 'changes in
			 * temperature' is no part of a name) */
			if (!ok || !unused || !span_has_content(tk, i, j) ||
			    (j - i > 1 && (edge_word(&tk->v[i]) || edge_word(&tk->v[j - 1]))))
				continue;
			const char *keys[12];
			int nk = 0;
			keys[nk++] = span_key(a, tk, i, j, 0);
			if (j - i == 1 && tk->v[i].raw && strcmp(tk->v[i].raw, tk->v[i].text))
				keys[nk++] = planner_norm(a, tk->v[i].raw);
			int nown = nk;   /* the words as written; synonyms after */
			const char *const *sy = keys[0] ? planner_lex_syn(keys[0]) : NULL;
			/* one word that only a dictionary label column's comment named weakly ("Name of the
			 * concept, e.g. Hemoglobin"): its values may hold it */
			int l1 = j - i == 1 ? schema_link_of(pl, i) : -1;
			int weak_label = l1 >= 0 && pl->v[l1].kind == PL_COLUMN && pl->v[l1].score < 0.7 &&
			                 (dict_label(s, pl->v[l1].cols[0]) || refers(s, pl->v[l1].cols[0]));
			if (known_only && ((j - i < 2 && !weak_label) || !sy))
				continue;
			for (; sy && *sy && nk < 12; sy++)
				if (!(keys[0] && strlen(*sy) < strlen(keys[0]) && strstr(keys[0], *sy)))
					keys[nk++] = *sy;   /* not a shorter part of the words ("vital" of "vital sign") */
			struct plink_item it = {.kind = PL_VALUE, .t0 = i, .t1 = j, .score = 0.8, .contains = 1, .con = -1};
			int q = 0;
			/* a translation (the lexicon's 'region' for 지역) must begin the label: 'Type 2 diabetes
			 * mellitus' for 제2형 당뇨, not '... of unspecified region' */
			while (q < nk && !(keys[q] && contains_link(s, keys[q], q >= nown, &it)))
				q++;
			if (q == nk)
				continue;
			it.why = arena_printf(a, "'%s' is part of stored values of %s.%s", keys[q], s->t[s->c[it.cols[0]].table].name,
			                      s->c[it.cols[0]].name);
			for (int x = i; x < j; x++) {
				int l = schema_link_of(pl, x);
				for (int m = l; l >= 0 && m + 1 < pl->n; m++)   /* the phrase explains the word */
					pl->v[m] = pl->v[m + 1];
				pl->n -= l >= 0;
			}
			if (add_link(pl, &it))
				mark(tk, i, j);
			i = j - 1;
			break;
		}
	}
}

/* measured: 1 when stored value v of dictionary label column ci has rows in a table that refers
 * to its dictionary (a test that was done, an item that was charted), 0 when none has, -1 when no
 * table refers to the dictionary.  One probe (guarded, read-only, cached per snapshot). */
static int measured(struct arena *a, const struct psnap *s, int ci, const char *v)
{
	int dt = s->c[ci].table, n = 0;
	struct sb q = SB_INIT;
	sb_init_arena(&q, a);
	sb_printf(&q, "SELECT 1 FROM \"%s\" d WHERE d.\"%s\" = ", s->t[dt].name, s->c[ci].name);
	planner_sql_literal(&q, v);
	sb_puts(&q, " AND (");
	for (int k = 0; k < s->nfk; k++) {
		int from = s->fk[k].from, to = s->fk[k].to;
		if (s->c[to].table != dt || s->c[from].table == dt)
			continue;
		sb_printf(&q, "%sEXISTS (SELECT 1 FROM \"%s\" e WHERE e.\"%s\" = d.\"%s\")", n++ ? " OR " : "",
		          s->t[s->c[from].table].name, s->c[from].name, s->c[to].name);
	}
	sb_puts(&q, ") LIMIT 1");
	if (!n || !sb_ok(&q))
		return -1;
	/* the probe cache is the snapshot's one mutable part (planner_snap_probe) */
	return planner_snap_probe((struct psnap *)s, sb_cstr(&q));
}

/* same_row: stored values x and y (two columns of one dictionary) are on one row */
static int same_row(struct arena *a, const struct psnap *s, int x, int y)
{
	struct sb q = SB_INIT;
	sb_init_arena(&q, a);
	sb_printf(&q, "SELECT 1 FROM \"%s\" WHERE ", s->t[s->c[s->v[x].col].table].name);
	for (int k = 0; k < 2; k++) {
		int v = k ? y : x;
		sb_printf(&q, "%s\"%s\" = ", k ? " AND " : "", s->c[s->v[v].col].name);
		planner_sql_literal(&q, s->v[v].value);
	}
	sb_puts(&q, " LIMIT 1");
	return sb_ok(&q) && planner_snap_probe((struct psnap *)s, sb_cstr(&q)) == 1;
}

#define MEASURED_MAX 24   /* labels probed for one word at most */

/* only_measured: the one stored label of a dictionary holding key as a whole word that has rows
 * (not value `except`), or NULL when none or several have; *col set to its column */
static const char *only_measured(struct arena *a, const struct psnap *s, const char *key, const char *except, int *col)
{
	size_t kl = strlen(key);
	int tried = 0, found = -1;
	for (int v = 0; v < s->nv; v++) {
		if (s->v[v].syn || !dict_label(s, s->v[v].col) || !key_inside(s->v[v].key, key, kl, 0) ||
		    (except && !strcmp(s->v[v].value, except)))
			continue;
		if (found >= 0 && !strcmp(s->v[found].value, s->v[v].value) &&
		    s->c[s->v[found].col].table == s->c[s->v[v].col].table) {
			/* the same item under two columns of its dictionary (label and abbreviation): its label */
			const char *nm = s->c[s->v[v].col].name;
			if (strstr(nm, "label") || strstr(nm, "name"))
				found = v;
			continue;
		}
		if (++tried > MEASURED_MAX)
			return NULL;
		if (measured(a, s, s->v[v].col, s->v[v].value) != 1)
			continue;
		if (found >= 0 && s->v[found].col != s->v[v].col && s->c[s->v[found].col].table == s->c[s->v[v].col].table &&
		    same_row(a, s, found, v)) {
			/* one item's label and abbreviation ('temperature celsius', 'temperature c'): its label */
			const char *nm = s->c[s->v[v].col].name;
			if (strstr(nm, "label") || strstr(nm, "name"))
				found = v;
			continue;
		}
		if (found >= 0)
			return NULL;   /* two measured labels hold the word: which one is meant is not said */
		found = v;
	}
	if (found < 0)
		return NULL;
	*col = s->v[found].col;
	return s->v[found].value;
}

/* link_measured: a measurement named the way analysts say it ("weight", "height", "body
 * temperature") where the dictionary keeps it under a longer label ('daily weight', 'height
 * (cm)') or keeps an item of that exact name that was never charted: the one label holding the
 * word that has rows is meant; none or several: nothing changes (docs/schema-model.md, "Measured
 * labels") */
static void link_measured(struct arena *a, const struct psnap *s, struct ptoks *tk, struct plink *pl)
{
	/* a stored name linked exactly that nothing refers to: the one measured label holding it */
	for (int l = 0; l < pl->n; l++) {
		struct plink_item *it = &pl->v[l];
		int col;
		int unmeasured = it->kind == PL_VALUE && it->ncols >= 1 && !it->contains;
		for (int c = 0; unmeasured && c < it->ncols; c++)   /* under every column that holds it */
			unmeasured = dict_label(s, it->cols[c]) && measured(a, s, it->cols[c], it->vals[c]) == 0;
		if (!unmeasured)
			continue;
		const char *key = planner_norm(a, it->vals[0]), *v = key && *key ? only_measured(a, s, key, it->vals[0], &col) : NULL;
		if (!v)
			continue;
		it->cols[0] = col;
		it->vals[0] = v;
		it->ncols = 1;
		it->why = arena_printf(a, "'%s' was never recorded; '%s' is the one recorded item holding it", key, v);
	}
	/* a part of stored labels ("weight" in 'daily weight', 'weight bearing status') of which one
	 * label only was ever recorded: that label */
	for (int l = 0; l < pl->n; l++) {
		struct plink_item *it = &pl->v[l];
		int col;
		if (it->kind != PL_VALUE || it->ncols < 1 || !it->contains || !dict_label(s, it->cols[0]))
			continue;
		const char *key = planner_norm(a, it->vals[0]), *v = key && *key ? only_measured(a, s, key, NULL, &col) : NULL;
		int among = 0;   /* (under one of the columns the part was found in: label, abbreviation) */
		for (int c = 0; v && c < it->ncols; c++)
			among |= it->cols[c] == col;
		if (!among)
			continue;
		it->cols[0] = col;
		it->ncols = 1;
		it->vals[0] = v;
		it->contains = 0;
		it->why = arena_printf(a, "'%s' is the one recorded item holding '%s'", v, key);
	}
	/* a measurement word nothing explained */
	for (int i = 0; i < tk->n; i++) {
		struct ptok *t = &tk->v[i];
		int col;
		if (t->used || t->kind != TK_WORD || t->role != R_NONE || t->hangul || strlen(t->text) < 4 ||
		    !(planner_lex_measured(t->text) || planner_lex_measured(t->stem)))
			continue;
		const char *v = only_measured(a, s, t->text, NULL, &col);
		if (!v)
			continue;
		struct plink_item it = {.kind = PL_VALUE, .t0 = i, .t1 = i + 1, .score = 0.8, .con = -1, .ncols = 1};
		it.cols[0] = col;
		it.vals[0] = v;
		it.why = arena_printf(a, "'%s' is the one recorded item holding '%s'", v, t->text);
		if (add_link(pl, &it))
			t->used = 1;
	}
}

/* flag_synonym: a yes/no column of s has w for a metadata synonym ("hypertensive": the patient's
 * recorded hypertension, not a blood pressure reading above its range) */
static int flag_synonym(const struct psnap *s, const char *w)
{
	for (int c = 0; w && c < s->nc; c++)
		for (int k = 0; s->c[c].flag && k < s->c[c].nsyn; k++)
			if (s->c[c].syn[k] && !strcmp(s->c[c].syn[k], w))
				return 1;
	return 0;
}

/* concepts: an abnormality named by one word, resolved to a measure term; not a word the
 * database's own description gives a yes/no column */
static void link_concepts(struct arena *a, const struct psnap *s, struct ptoks *tk, struct plink *pl)
{
	for (int i = 0; i < tk->n; i++) {
		const char *m;
		int dir;
		double lo, hi;
		if (tk->v[i].used || tk->v[i].kind != TK_WORD || flag_synonym(s, tk->v[i].text))
			continue;
		if (!planner_lex_concept(tk->v[i].text, &m, &dir, &lo, &hi) &&
		    !planner_lex_concept(tk->v[i].stem, &m, &dir, &lo, &hi) &&
		    !(tk->v[i].alt && planner_lex_concept(tk->v[i].alt, &m, &dir, &lo, &hi)))
			continue;
		struct plink_item it = {.kind = PL_CONCEPT, .t0 = i, .t1 = i + 1, .measure = m, .dir = dir,
		                        .lo = lo, .hi = hi, .score = 1.0, .con = -1};
		it.why = arena_printf(a, "ontology: %s is %s %s's normal range", tk->v[i].text,
		                      dir < 0 ? "below" : "above", m);
		if (add_link(pl, &it))
			mark(tk, i, i + 1);
	}
}

/* lex_own_ko: ko is a Korean term of a lexicon entry that has English term en (prescription:
 * 처방), not one reached through the planner's looser synonyms; not a word for naming columns
 * (code: 코드, the "naming" entries), which every dictionary's comment has */
static int lex_own_ko(const char *en, const char *ko)
{
	const struct lexicon *lx = lexicon_get(NULL);
	int ids[4], by_code, n = lexicon_exact(lx, en, ids, 4, &by_code);
	for (int i = 0; i < n && !by_code; i++)
		for (int k = 0; strcmp(lx->e[ids[i]].category, "naming") && k < lx->e[ids[i]].nko; k++)
			if (!strcmp(lx->e[ids[i]].ko[k], ko))
				return 1;
	return 0;
}

/* comment_word: w is a whole word of comment (between spaces or its ends) */
static int comment_word(const char *comment, const char *w)
{
	size_t l = strlen(w);
	for (const char *h = comment ? strstr(comment, w) : NULL; h; h = strstr(h + 1, w))
		if ((h == comment || h[-1] == ' ') && (h[l] == 0 || h[l] == ' '))
			return 1;
	return 0;
}

/* speaks_of: column c's name or comment holds one of the words w (any case) */
static int speaks_of(const struct pcol *c, const char *const *w)
{
	for (int k = 0; w && w[k]; k++)
		if (strcasestr(c->name, w[k]) || (c->comment && strcasestr(c->comment, w[k])))
			return 1;
	return 0;
}

/* value_with_word: the one stored value of column ci that holds w as a whole word among others
 * ('thoracic' of 'Thoracic surgery'), or -1 (none, or several: the word tells none apart) */
static int value_with_word(const struct psnap *s, int ci, const char *w)
{
	int found = -1;
	for (int v = 0; v < s->nv; v++) {
		if (s->v[v].col != ci || s->v[v].syn || !strchr(s->v[v].key, ' ') || !comment_word(s->v[v].key, w))
			continue;
		if (found >= 0)
			return -1;
		found = v;
	}
	return found;
}

/* columns and tables: spans of up to 3 content words, best scoring element */
static void link_schema(struct arena *a, const struct psnap *s, struct ptoks *tk, struct plink *pl,
                        const struct retrieval *r, const int *banned)
{
	const char *const *bw = planner_lex_phrases("birth_word");
	for (int i = 0; i < tk->n; i++) {
		struct ptok *t = &tk->v[i];
		if (t->used || t->kind != TK_WORD || planner_lex_generic(t->stem) || planner_lex_generic(t->text))
			continue;
		if (t->role != R_NONE && t->role != R_VALUE && t->role != R_WHEN && t->role != R_DISTINCT &&
		    t->role != R_SUM && t->role != R_COUNT)
			continue;
		int done = 0;
		for (int j = (i + 3 < tk->n ? i + 3 : tk->n); j > i && !done; j--) {
			int ok = 1;
			for (int x = i; x < j; x++)
				if (tk->v[x].used || tk->v[x].kind != TK_WORD)
					ok = 0;
			if (!ok || (j - i > 1 && verb_after_noun(tk, j)))
				continue;
			const char *terms[16];
			int nt = terms_of(a, tk, i, j, terms, 16);
			int bc = -1, bt = -1;
			double bsc = 0, btsc = 0;
			for (int q = 0; q < nt; q++) {
				double sc;
				/* a single structural word (value, time, total) links only exactly */
				double min = (t->role != R_NONE && j - i == 1) ? 0.95 : (j - i > 1 ? 0.7 : 0.5);
				int c = -1;
				/* "admission date", "admission and discharge dates": a time column named so first;
				 * "discharged": the event's time, even one only a comment's date names (퇴원일시) */
				size_t tl = strlen(t->text);
				int ed = !t->hangul && tl > 4 && !strcmp(t->text + tl - 2, "ed");
				if (j - i == 1 && !t->hangul && (time_word_after(tk, j) || ed) &&
				    (c = planner_link_term_type(a, s, terms[q], r, banned, ed ? 0.45 : min, PT_TIME, &sc)) >= 0)
					sc += 0.3;
				if (c < 0)
					c = planner_link_term(a, s, terms[q], r, banned, min, &sc);
				/* a drug or a test names no date, through its abbreviation (dobutamine's DOB, the
				 * date of birth) or a prefix of it */
				if (c >= 0 && s->c[c].type == PT_TIME && planner_lex_measured(terms[0]))
					c = -1;
				/* "discharged", "discharge time": the event's time column */
				if (c >= 0 && s->c[c].type != PT_TIME && j - i == 1 && !t->hangul && (ed || time_word_after(tk, j))) {
					double tsc = 0;
					int tc = -1;
					for (int ci = 0; ci < s->nc; ci++) {
						if (s->c[ci].type != PT_TIME || s->c[ci].table != s->c[c].table)
							continue;
						double x = planner_term_col_score(a, s, ci, terms[q], r);
						if (x > tsc) {
							tsc = x;
							tc = ci;
						}
					}
					if (tc >= 0 && tsc >= 0.5) {
						c = tc;
						sc = tsc + 0.3;
					}
				}
				if (q > 0)
					sc *= 0.95;   /* a synonym is a little less sure than the word itself */
				if (c >= 0 && sc > bsc) {
					bsc = sc;
					bc = c;
				}
				if (j - i == 1 && t->role == R_NONE) {
					for (int ti = 0; ti < s->nt; ti++) {
						if (banned && banned[ti])
							continue;
						double ts = planner_term_table_score(s, ti, terms[q]) * (q ? 0.95 : 1);
						/* a plural English word's own Korean term, a whole word of a Korean table
						 * comment ("prescriptions": 처방 in "약품 처방 내역"), names that table's rows as
						 * surely as its name would; not a looser English synonym (drug, the drug
						 * dictionary).  (A singular word, "code", may name a column: 코드 of a
						 * dictionary's comment would take it from the code column) */
						size_t tl0 = strlen(t->text);
						if (q && j - i == 1 && !t->hangul && tl0 > 3 && t->text[tl0 - 1] == 's' &&
						    (unsigned char)terms[q][0] >= 0xea && lex_own_ko(terms[0], terms[q]) &&
						    comment_word(s->t[ti].comment, terms[q]) && ts < 0.9)
							ts = 0.9;
						/* prefer the bigger (fact) table when the name is shared */
						if (ts > btsc || (ts == btsc && ts > 0 && bt >= 0 && s->t[ti].rows > s->t[bt].rows)) {
							btsc = ts;
							bt = ti;
						}
					}
				}
			}
			/* a drug, a test, a vital sign, a diagnosis, a procedure, a ward or a department of the
			 * lexicon is named by a column or a table only closely: a prefix ('clindamycin':
			 * clinical), a unit in a comment (magnesium's MG in 'mg/dL' of a result column), a part
			 * of a name ('valproate': rslt_val) or a loose likeness (고혈압: the condition concept
			 * column) is not it */
			if (planner_lex_measured(terms[0]) || (j - i == 1 && (planner_lex_measured(t->text) ||
			                                                      planner_lex_named_thing(t->text)))) {
				if (bsc < 0.75)
					bc = -1;
				if (btsc < 0.75)
					bt = -1;
			}
			if (bc < 0 && bt < 0)
				continue;
			/* near ties ("start": casestart, opstart, anestart): the other words of the question decide
			 * ("operation" is in opstart's synonyms) */
			if (bc >= 0) {
				double best = -1;
				int bc2 = bc;
				for (int c = 0; c < s->nc; c++) {
					if (s->c[c].type != s->c[bc].type)
						continue;
					double sc0 = 0;
					for (int q = 0; q < nt; q++) {
						double x = planner_term_col_score(a, s, c, terms[q], r) * (q ? 0.95 : 1);
						if (x > sc0)
							sc0 = x;
					}
					if (sc0 < bsc - 0.15 || sc0 <= 0)
						continue;
					int ctx = 0;
					for (int x = 0; x < tk->n; x++) {
						/* a word already explained (the "case" of "case 42") steers nothing */
						if ((x >= i && x < j) || tk->v[x].kind != TK_WORD || strlen(tk->v[x].stem) < 3 ||
						    (tk->v[x].used && x + 1 < tk->n && tk->v[x + 1].kind == TK_NUM))
							continue;
						for (int k = 0; k < s->c[c].nsyn; k++) {
							const char *w = s->c[c].syn[k];
							const char *h = w ? strstr(w, tk->v[x].text) : NULL;
							if (h && (h == w || h[-1] == ' ')) {
								ctx++;
								break;
							}
						}
					}
					if (sc0 + 0.1 * ctx > best) {
						best = sc0 + 0.1 * ctx;
						bc2 = c;
					}
				}
				bc = bc2;
			}
			struct plink_item it = {.t0 = i, .t1 = j};
			/* a plural that names a table as well as a column ("diagnoses": the diagnosis table's
			 * rows, not a column called diagnosis) is the table */
			size_t xl = strlen(t->text);
			int plural = j - i == 1 && !t->hangul && xl > 3 && t->text[xl - 1] == 's' && strcmp(t->stem, t->text);
			/* "born before 1950" on a concept's valid_start_date: a word of birth names only a
			 * column that speaks of birth (the one time column that does, else none) */
			if (bc >= 0 && j - i == 1 && (planner_in_list(bw, t->text) || planner_in_list(bw, t->stem)) &&
			    !speaks_of(&s->c[bc], bw)) {
				int only = -1, n = 0;
				for (int c = 0; c < s->nc; c++)
					if (s->c[c].type == PT_TIME && speaks_of(&s->c[c], bw) && !(banned && banned[s->c[c].table])) {
						only = c;
						n++;
					}
				bc = n == 1 ? only : -1;
				bsc = n == 1 ? 0.9 : 0;
				if (bc < 0 && bt < 0)
					continue;
			}
			int vw = bc >= 0 && j - i == 1 && bsc < 0.75 && s->c[bc].type == PT_TEXT ? value_with_word(s, bc, t->text) : -1;
			if (vw >= 0 && (plural ? bsc > btsc + 0.06 : bsc >= btsc)) {
				/* "open thoracic operations" projected the department, the word dropped: a word
				 * that names the column only weakly (its comment lists the values) and is a word
				 * of exactly one stored value names that value (docs/schema-model.md, "A word of
				 * one stored value") */
				it.kind = PL_VALUE;
				it.cols[0] = bc;
				it.vals[0] = s->v[vw].value;
				it.ncols = 1;
				it.score = 0.8;
				it.con = -1;
				it.why = arena_printf(a, "'%s' is a word of one stored value of %s.%s", t->text, s->t[s->c[bc].table].name,
				                      s->c[bc].name);
			} else if (bc >= 0 && (plural ? bsc > btsc + 0.06 : bsc >= btsc)) {   /* 0.06: the retrieval's boost */
				it.kind = PL_COLUMN;
				it.cols[0] = bc;
				it.ncols = 1;
				it.score = bsc;
				it.why = arena_printf(a, "'%s' names column %s.%s", terms[0], s->t[s->c[bc].table].name,
				                      s->c[bc].name);
			} else {
				it.kind = PL_TABLE;
				it.table = bt;
				it.score = btsc;
				it.why = arena_printf(a, "'%s' names table %s", terms[0], s->t[bt].name);
			}
			if (add_link(pl, &it))
				mark(tk, i, j);
			done = 1;
			i = j - 1;
		}
	}
}

/* free_latin_words: tokens [i, j) are unread Latin words (plain: with no role either), the spans
 * link_name_words and link_closed_up try */
static int free_latin_words(const struct ptoks *tk, int i, int j, int plain)
{
	for (int x = i; x < j; x++) {
		/* a Latin word with a Korean ending taken off ("location별") is a Latin word */
		int latin = 1;
		for (const char *c = tk->v[x].text; *c; c++)
			latin &= (unsigned char)*c < 0x80;
		/* (kind and type may be a name's part: optype, ane_type) */
		if (tk->v[x].used || tk->v[x].kind != TK_WORD || (tk->v[x].hangul && !latin) ||
		    (plain && tk->v[x].role != R_NONE && !(x > i && tk->v[x].role == R_DISTINCT)))
			return 0;
	}
	return 1;
}

/* link_name_words: a column's own name written as words ("discharge location": discharge_location),
 * two to four words (a Korean ending on the last: "location별"), before the stored values:
 * 'discharge' alone is a value of another column (an event type), and taking it first left
 * "location" to the admission's location.  Exact names only (the words' surface or stem, in
 * order); a name several tables share is left to the linker */
static void link_name_words(struct arena *a, const struct psnap *s, struct ptoks *tk, struct plink *pl,
                            const int *banned)
{
	for (int i = 0; i + 1 < tk->n; i++) {
		for (int j = (i + 4 < tk->n ? i + 4 : tk->n); j >= i + 2; j--) {
			if (!free_latin_words(tk, i, j, 0))
				continue;
			struct sb t = SB_INIT, st = SB_INIT;
			sb_init_arena(&t, a);
			sb_init_arena(&st, a);
			for (int x = i; x < j; x++) {
				if (x > i) {
					sb_putc(&t, '_');
					sb_putc(&st, '_');
				}
				sb_puts(&t, tk->v[x].text);
				sb_puts(&st, x + 1 == j ? tk->v[x].stem : tk->v[x].text);
			}
			int best = -1, n = 0;
			for (int ci = 0; ci < s->nc && sb_ok(&t) && sb_ok(&st); ci++) {
				if (banned && banned[s->c[ci].table])
					continue;
				if (!strcasecmp(s->c[ci].name, sb_cstr(&t)) || !strcasecmp(s->c[ci].name, sb_cstr(&st))) {
					best = ci;
					n++;
				}
			}
			if (n != 1)
				continue;
			struct plink_item it = {.t0 = i, .t1 = j, .kind = PL_COLUMN, .ncols = 1, .score = 1.0};
			it.cols[0] = best;
			it.why = arena_printf(a, "'%s' is the name of %s.%s", sb_cstr(&t), s->t[s->c[best].table].name,
			                      s->c[best].name);
			if (add_link(pl, &it))
				mark(tk, i, j);
			i = j - 1;
			break;
		}
	}
}

/* closed_up: two or three English words a column name writes as one ("care unit": careunit,
 * first_careunit), linked before single words take them apart ("unit" alone names a dose unit).
 * The column whose whole name is those words wins over one that only has them as a part. */
/* inside_stored_value: tokens [i, j) are part of a longer span written exactly as a stored value
 * ("care unit" of "coronary care unit (ccu)"): the value, linked later, is what they name */
static int inside_stored_value(struct arena *a, const struct psnap *s, const struct ptoks *tk, int i, int j)
{
	for (int i0 = i >= 6 ? i - 6 : 0; i0 <= i; i0++)
		for (int j0 = j; j0 <= tk->n && j0 <= j + 8 && j0 - i0 <= VALUE_SPAN; j0++) {
			int cnt = 0, used = 0;
			if (j0 - i0 <= j - i || tk->v[i0].kind == TK_PUNCT || tk->v[j0 - 1].kind == TK_PUNCT)
				continue;
			for (int x = i0; x < j0; x++)
				used |= tk->v[x].used;
			const char *key = used ? NULL : span_key(a, tk, i0, j0, 0);
			if (key && planner_snap_values(s, key, &cnt) >= 0)
				return 1;
		}
	return 0;
}

static void link_closed_up(struct arena *a, const struct psnap *s, struct ptoks *tk, struct plink *pl,
                           const int *banned)
{
	for (int i = 0; i + 1 < tk->n; i++) {
		for (int j = (i + 3 < tk->n ? i + 3 : tk->n); j >= i + 2; j--) {
			if (!free_latin_words(tk, i, j, 1))
				continue;
			struct sb t = SB_INIT;
			sb_init_arena(&t, a);
			for (int x = i; x < j; x++) {
				if (x > i)
					sb_putc(&t, ' ');
				sb_puts(&t, tk->v[x].stem);
			}
			int best = -1, whole = 0;
			for (int ci = 0; ci < s->nc && sb_ok(&t); ci++) {
				char nm[128], *save = NULL;
				int parts = 0, hit = 0;
				if (banned && banned[s->c[ci].table])
					continue;
				snprintf(nm, sizeof nm, "%s", s->c[ci].name);
				for (char *p = strtok_r(nm, "_", &save); p; p = strtok_r(NULL, "_", &save), parts++)
					hit |= planner_closed_up(p, sb_cstr(&t));
				if (hit && (best < 0 || (parts == 1 && !whole))) {
					best = ci;
					whole = parts == 1;
				}
			}
			if (best < 0 || inside_stored_value(a, s, tk, i, j))
				continue;
			if (verb_after_noun(tk, j) && !strstr(s->c[best].name, tk->v[j - 1].text))
				continue;
			struct plink_item it = {.t0 = i, .t1 = j, .kind = PL_COLUMN, .ncols = 1, .score = 0.9};
			it.cols[0] = best;
			it.why = arena_printf(a, "'%s' is %s.%s written as one word", sb_cstr(&t), s->t[s->c[best].table].name,
			                      s->c[best].name);
			if (add_link(pl, &it))
				mark(tk, i, j);
			i = j - 1;
			break;
		}
	}
}

/* any_order: two to four English words that are the words of one stored label in another order,
 * or all of them but one ("systolic blood pressure": 'arterial blood pressure systolic'), linked to
 * that label when it is the only label of the target that fits */
static void link_any_order(struct arena *a, const struct psnap *s, struct ptoks *tk, struct plink *pl)
{
	for (int i = 0; i + 1 < tk->n; i++) {
		/* words stored as they are written, from here on ('blood culture', 'arterial blood pressure
		 * mean'), are the value pass's, and so are the words inside them: a label with a word more
		 * is another thing */
		int exact = 0, n;
		for (int j = (i + 6 < tk->n ? i + 6 : tk->n); j > i && !exact; j--) {
			char *k = span_key(a, tk, i, j, 0);
			if (k && planner_snap_values(s, k, &n) >= 0)
				exact = j;
		}
		if (exact) {
			i = exact - 1;
			continue;
		}
		for (int j = (i + 4 < tk->n ? i + 4 : tk->n); j >= i + 2; j--) {
			int ok = 1, found = -1, many = 0;
			for (int x = i; x < j; x++)
				if (tk->v[x].used || tk->v[x].kind != TK_WORD || tk->v[x].hangul || strlen(tk->v[x].text) < 3 ||
				    (tk->v[x].role != R_NONE && tk->v[x].role != R_VALUE &&
				     !(tk->v[x].role == R_AVG && !strcmp(tk->v[x].text, "mean"))))
					ok = 0;   /* "mean blood pressure" is a reading's name ('arterial blood pressure mean') */
			for (int v = 0; ok && v < s->nv && !many; v++) {
				char words[8][48], *save = NULL, k[256];
				int nw = 0, all = 1;
				if (s->v[v].syn || !dict_label(s, s->v[v].col))
					continue;
				snprintf(k, sizeof k, "%s", s->v[v].key);
				for (char *w = strtok_r(k, " -,/()[]", &save); w && nw < 8; w = strtok_r(NULL, " -,/()[]", &save))
					snprintf(words[nw++], sizeof words[0], "%s", w);
				if (nw < j - i || nw > j - i + 1)
					continue;
				for (int x = i; x < j && all; x++) {
					int in = 0;
					for (int q = 0; q < nw && !in; q++)
						in = !strcmp(words[q], tk->v[x].text);
					all = in;
				}
				if (!all)
					continue;
				if (found >= 0 && strcmp(s->v[found].value, s->v[v].value))
					many = 1;
				found = v;
			}
			if (!ok || found < 0)
				continue;
			if (many) {
				/* several labels have these words ('fresh frozen plasma' and a longer one): not
				 * a part of them either ('frozen plasma') */
				i = j - 1;
				break;
			}
			struct plink_item it = {.t0 = i, .t1 = j, .kind = PL_VALUE, .ncols = 1, .score = 0.85};
			it.cols[0] = s->v[found].col;
			it.vals[0] = s->v[found].value;
			it.why = arena_printf(a, "the words of '%s' in another order", s->v[found].value);
			if (add_link(pl, &it))
				mark(tk, i, j);
			i = j - 1;
			break;
		}
	}
}

/* planner_code_number: see planner_link.h */
int planner_code_number(const struct ptoks *tk, const struct plink_item *it)
{
	static const char *const filler[] = {"class", "grade", "level", "stage", "type", "등급", "단계", NULL};
	int x = it->t1;
	if (it->kind != PL_COLUMN || it->ncols != 1)
		return -1;
	if (x + 1 < tk->n && tk->v[x].kind == TK_WORD && !tk->v[x].used && planner_in_list(filler, tk->v[x].text))
		x++;
	if (x >= tk->n || tk->v[x].kind != TK_NUM || tk->v[x].used || tk->v[x].cmp || tk->v[x].range ||
	    (it->t0 > 0 && tk->v[it->t0 - 1].role >= R_GT && tk->v[it->t0 - 1].role <= R_BETWEEN) ||
	    (x + 1 < tk->n && ((tk->v[x + 1].role >= R_GT && tk->v[x + 1].role <= R_BETWEEN) || tk->v[x + 1].cmp ||
	                       tk->v[x + 1].kind == TK_NUM || tk->v[x + 1].role == R_UNIT)))
		return -1;
	/* "aged 60 and older", "40-49", "3 or more": a bound, not a value */
	if (x + 2 < tk->n && (tk->v[x + 1].role == R_AND || !strcmp(tk->v[x + 1].text, "or") ||
	                      !strcmp(tk->v[x + 1].text, "-") || !strcmp(tk->v[x + 1].text, "to")))
		return -1;
	return x;
}

/* planner_code_link: see planner_link.h */
void planner_code_link(struct ptoks *tk, struct plink_item *it, int x, const char *value)
{
	it->kind = PL_VALUE;
	it->vals[0] = value;
	for (int k = it->t1; k <= x; k++)
		tk->v[k].used = 1;
	it->t1 = x + 1;
}

/* coded_numbers: a column named and then one of its stored text codes as a number ("ASA 3 환자" where
 * asa holds '3'): that value, not a number of no one's.  An integer code is not indexed: pf_screen
 * asks the database for it (planner_screen.c coded_numbers). */
static void link_coded_numbers(const struct psnap *s, struct ptoks *tk, struct plink *pl)
{
	for (int l = 0; l < pl->n; l++) {
		struct plink_item *it = &pl->v[l];
		int x = planner_code_number(tk, it), n, v, hit = -1;
		if (x < 0)
			continue;
		v = planner_snap_values(s, tk->v[x].text, &n);
		for (int k = 0; v >= 0 && k < n; k++)
			if (s->v[v + k].col == it->cols[0] && !s->v[v + k].syn)
				hit = v + k;
		if (hit >= 0)
			planner_code_link(tk, it, x, s->v[hit].value);
	}
}

/* lex_code_column: the one column (of a table not banned) whose name is a code of the lexicon's
 * term key ("date of death" -> dod), or -1 when none or several */
static int lex_code_column(const struct psnap *s, const char *key, const int *banned)
{
	int found = -1;
	for (const char *const *sy = planner_lex_syn(key); sy && *sy; sy++) {
		if (strchr(*sy, ' ') || strlen(*sy) < 3)
			continue;
		for (int c = 0; c < s->nc; c++) {
			if ((banned && banned[s->c[c].table]) || strcasecmp(s->c[c].name, *sy))
				continue;
			if (found >= 0 && found != c)
				return -1;
			found = c;
		}
	}
	return found;
}

/* lex_code_table: the one table that a one-word abbreviation of lexicon term key names well
 * ("intensive care unit" -> ICU -> icustays, as the word "ICU" itself links); -1 none or two */
static int lex_code_table(const struct psnap *s, const char *key, const int *banned)
{
	int found = -1;
	for (const char *const *sy = planner_lex_syn(key); sy && *sy; sy++) {
		if (strchr(*sy, ' ') || strlen(*sy) < 2 || (unsigned char)**sy >= 0x80)
			continue;
		for (int t = 0; t < s->nt; t++) {
			if ((banned && banned[t]) || planner_term_table_score(s, t, *sy) < 0.7)
				continue;
			if (found >= 0 && found != t)
				return -1;
			found = t;
		}
	}
	return found;
}

/* column_inside: token x is read by a column link that lies inside [i, j) and is shorter */
static int column_inside(const struct plink *pl, int x, int i, int j)
{
	for (int l = 0; l < pl->n; l++)
		if (pl->v[l].kind == PL_COLUMN && pl->v[l].t0 <= x && x < pl->v[l].t1 && pl->v[l].t0 >= i &&
		    pl->v[l].t1 <= j && pl->v[l].t1 - pl->v[l].t0 < j - i)
			return 1;
	return 0;
}

/* lexicon_tables: a multi-word lexicon term still unread after the stored values were linked
 * ("intensive care unit", not part of a care unit's stored name) whose one-word abbreviation
 * names a table (ICU -> icustays): a link to that table */
static void link_lexicon_tables(struct arena *a, const struct psnap *s, struct ptoks *tk, struct plink *pl,
                                const int *banned)
{
	for (int i = 0; i < tk->n; i++)
		for (int j = (i + 4 < tk->n ? i + 4 : tk->n); j > i + 1; j--) {
			int ok = 1;
			for (int x = i; x < j; x++)
				ok &= tk->v[x].kind == TK_WORD && (!tk->v[x].used || column_inside(pl, x, i, j));
			if (!ok)
				continue;
			const char *k0 = span_key(a, tk, i, j, 0);
			int t = lex_code_table(s, k0, banned);
			if (t < 0)
				continue;
			/* a column a part of it named ("care unit" of "intensive care unit") is not it */
			int k = 0;
			for (int l = 0; l < pl->n; l++)
				if (!(pl->v[l].kind == PL_COLUMN && pl->v[l].t0 >= i && pl->v[l].t1 <= j))
					pl->v[k++] = pl->v[l];
			pl->n = k;
			struct plink_item it = {.kind = PL_TABLE, .t0 = i, .t1 = j, .table = t, .score = 0.85};
			it.why = arena_printf(a, "'%s' is the lexicon's term for an abbreviation that names table %s (conf/lexicon)",
			                      k0, s->t[t].name);
			if (add_link(pl, &it))
				mark(tk, i, j);
			i = j - 1;
			break;
		}
}

/* phrases: metadata concepts (any length), multi-word column synonyms ("수술 전 고혈압") and
 * multi-word lexicon terms whose abbreviation is a column's name */
static void link_phrases(struct arena *a, const struct psnap *s, struct ptoks *tk, struct plink *pl, const int *banned)
{
	for (int i = 0; i < tk->n; i++) {
		if (tk->v[i].used || tk->v[i].kind == TK_PUNCT)
			continue;
		for (int j = (i + 4 < tk->n ? i + 4 : tk->n); j > i; j--) {
			int used = 0;
			for (int x = i; x < j; x++)
				used |= tk->v[x].used;
			if (used || tk->v[j - 1].kind == TK_PUNCT)
				continue;
			const char *k0 = span_key(a, tk, i, j, 0), *k1 = span_key(a, tk, i, j, 1);
			if (tk->v[j - 1].raw && strcmp(tk->v[j - 1].raw, tk->v[j - 1].text)) {
				char *save = tk->v[j - 1].norm;
				tk->v[j - 1].norm = planner_norm(a, tk->v[j - 1].raw);
				k1 = span_key(a, tk, i, j, 0);
				tk->v[j - 1].norm = save;
			}
			const char *k2 = k1;
			if (tk->v[j - 1].alt) {
				char *save = tk->v[j - 1].norm;
				tk->v[j - 1].norm = planner_norm(a, tk->v[j - 1].alt);
				k2 = span_key(a, tk, i, j, 0);
				tk->v[j - 1].norm = save;
			}
			int hit = 0;
			/* "aged 65 or older", "aged over 80": a word of a concept (elderly) followed by a number
			 * or a comparison names the measure compared, not the concept's own definition */
			int compared = j < tk->n && (tk->v[j].kind == TK_NUM || tk->v[j].role == R_GT || tk->v[j].role == R_LT ||
			                             tk->v[j].role == R_GE || tk->v[j].role == R_LE || tk->v[j].role == R_BETWEEN);
			for (int c = 0; c < s->ncon && !hit && !compared; c++)
				for (int q = 0; q < s->con[c].nsyn && !hit; q++)
					if (s->con[c].syn[q] && (!strcmp(s->con[c].syn[q], k0) || !strcmp(s->con[c].syn[q], k1) ||
					                         (k2 && !strcmp(s->con[c].syn[q], k2)))) {
						struct plink_item it = {.kind = PL_CONCEPT, .t0 = i, .t1 = j, .con = c, .score = 1.0,
						                        .measure = s->con[c].name};
						it.why = arena_printf(a, "ontology concept '%s' from the catalog metadata", s->con[c].name);
						if (add_link(pl, &it))
							mark(tk, i, j);
						hit = 1;
					}
			for (int c = 0; c < s->nc && !hit && j - i > 1; c++) {
				if (banned && banned[s->c[c].table])
					continue;
				for (int q = 0; q < s->c[c].nsyn && !hit; q++)
					if (s->c[c].syn[q] && !strcmp(s->c[c].syn[q], k0)) {
						struct plink_item it = {.kind = PL_COLUMN, .t0 = i, .t1 = j, .ncols = 1, .score = 0.95};
						it.cols[0] = c;
						it.why = arena_printf(a, "'%s' is a synonym of %s.%s in the catalog metadata", k0,
						                      s->t[s->c[c].table].name, s->c[c].name);
						if (add_link(pl, &it))
							mark(tk, i, j);
						hit = 1;
					}
			}
			if (!hit && j - i > 1) {
				int c = lex_code_column(s, k0, banned);
				if (c >= 0) {
					struct plink_item it = {.kind = PL_COLUMN, .t0 = i, .t1 = j, .ncols = 1, .score = 0.9};
					it.cols[0] = c;
					it.why = arena_printf(a, "'%s' is the lexicon's term for the abbreviation %s (conf/lexicon)", k0,
					                      s->c[c].name);
					if (add_link(pl, &it))
						mark(tk, i, j);
					hit = 1;
				}
			}
			for (int t = 0; t < s->nt && !hit && j - i > 1; t++) {
				if (banned && banned[t])
					continue;
				for (int q = 0; q < s->t[t].nsyn && !hit; q++)
					if (s->t[t].syn[q] && (!strcmp(s->t[t].syn[q], k0) || !strcmp(s->t[t].syn[q], k1))) {
						struct plink_item it = {.kind = PL_TABLE, .t0 = i, .t1 = j, .table = t, .score = 0.95};
						it.why = arena_printf(a, "'%s' is a synonym of table %s in the catalog metadata", k0,
						                      s->t[t].name);
						if (add_link(pl, &it))
							mark(tk, i, j);
						hit = 1;
					}
			}
			if (hit) {
				i = j - 1;
				break;
			}
		}
	}
}

/* korean_date_word: a Korean word of two syllables or more ending in a date suffix (입원일,
 * 퇴원일자, 처방일시) */
static int korean_date_word(const struct ptok *t)
{
	static const char *const suf[] = {"일시", "일자", "일", NULL};
	size_t wl = strlen(t->text);
	for (int k = 0; t->hangul && suf[k]; k++) {
		size_t sl = strlen(suf[k]);
		if (wl >= sl + 6 && !strcmp(t->text + wl - sl, suf[k]))
			return 1;
	}
	return 0;
}

/* drop_dates_of_other_kinds: a Korean date word linked alone to a column that is no time
 * (입원일 -> "where the patient was admitted from") is unlinked again: it names a time */
static void drop_dates_of_other_kinds(const struct psnap *s, struct ptoks *tk, struct plink *pl)
{
	int k = 0;
	for (int l = 0; l < pl->n; l++) {
		struct plink_item *it = &pl->v[l];
		if (it->kind == PL_COLUMN && it->t1 - it->t0 == 1 && korean_date_word(&tk->v[it->t0]) &&
		    s->c[it->cols[0]].type != PT_TIME) {
			tk->v[it->t0].used = 0;
			continue;
		}
		pl->v[k++] = *it;
	}
	pl->n = k;
}

enum err planner_link(struct arena *a, const struct psnap *s, struct ptoks *tk, const struct retrieval *r,
                      const int *banned_tables, struct plink *pl)
{
	pl->n = 0;
	/* "일 단위", "시간 단위": the unit an answer is given in, not a stored unit */
	for (int i = 1; i < tk->n; i++)
		if (!strcmp(tk->v[i].text, "단위") && tk->v[i - 1].role == R_UNIT)
			tk->v[i].used = tk->v[i - 1].used = 1;
		else if (!strcmp(tk->v[i].text, "단위") && tk->v[i - 1].kind == TK_NUM)
			tk->v[i].used = 1;   /* "10세 단위": a band's width (the number is read by the bands) */
	link_phrases(a, s, tk, pl, banned_tables);
	link_name_words(a, s, tk, pl, banned_tables);
	link_closed_up(a, s, tk, pl, banned_tables);
	link_any_order(a, s, tk, pl);
	link_values(a, s, tk, pl, r);
	link_lexicon_tables(a, s, tk, pl, banned_tables);
	link_concepts(a, s, tk, pl);
	link_schema(a, s, tk, pl, r, banned_tables);
	link_coded_numbers(s, tk, pl);
	link_retrieval_values(a, s, tk, pl, r);
	link_contains(a, s, tk, pl, 1);
	link_contains(a, s, tk, pl, 0);
	link_measured(a, s, tk, pl);
	drop_dates_of_other_kinds(s, tk, pl);
	return OK;
}
