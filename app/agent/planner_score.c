/* planner_score.c: how well a term of the question names a column or a table: names, comments,
 * metadata synonyms, Korean compounds and date suffixes (docs/architecture.md, "Linking rules for
 * schemas askql was not built on"). */
#include <stdio.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "agent/planner_link.h"
#include "catalog/catalog.h"

/* common prefix length */
static size_t cpl(const char *a, const char *b)
{
	size_t n = 0;
	while (a[n] && a[n] == b[n])
		n++;
	return n;
}

/* s without spaces into out (Korean compounds are written with or without them: 마취방법, 마취 방법) */
static void nospace(const char *s, char *out, size_t cap)
{
	size_t k = 0;
	for (; *s && k + 1 < cap; s++)
		if (*s != ' ')
			out[k++] = *s;
	out[k] = 0;
}

static int all_hangul(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x80 && *s != ' ')
			return 0;
	return 1;
}

/* light nouns that may follow a catalog term inside one Korean compound (사망여부, 체중정보) */
static const char *const light_tail[] = {"여부", "정보", "데이터", "자료", "기록", "값", "수치", "목록", "현황",
                                         "내역", NULL};

/* light_head: the first n bytes of compound t, before a head noun that names something, are a
 * function word (평균나이: 평균) or a generic word, so the head alone may name the compound.  A
 * content word before the head (응급수술: 응급) qualifies it and must be read on its own: the
 * compound is then no name of the head's column (issue 26: a linked compound that dropped its
 * modifier counted every case) */
static int light_head(const char *t, size_t n)
{
	char pre[256];
	int unit;

	if (n >= sizeof pre)
		return 0;
	memcpy(pre, t, n);
	pre[n] = 0;
	return planner_lex_role(pre, pre, &unit) != R_NONE || planner_lex_generic(pre);
}

/* planner_syn_score: how well term names something with these (normalised) synonyms:
 * 0.9 a whole synonym (Korean compared without spaces), 0.7 a Korean compound whose head noun
 * (its end) is a synonym of two syllables or more (평균나이 -> 나이, 진료부서 -> 부서) or that is
 * a synonym followed by a light noun (사망여부), 0 none. */
double planner_syn_score(char *const *syn, int nsyn, const char *term)
{
	char tn[256], sn[256], ss[256];
	double best = 0;
	/* one Korean word only: a span of several words is not a compound */
	int kor = (unsigned char)term[0] >= 0x80 && all_hangul(term) && !strchr(term, ' ');

	nospace(term, tn, sizeof tn);
	size_t tl = strlen(tn);
	for (int k = 0; k < nsyn; k++) {
		if (!syn[k] || !*syn[k])
			continue;
		planner_stem(syn[k], ss, sizeof ss);
		if (!strcmp(syn[k], term) || !strcmp(ss, term))
			return 0.9;
		if ((unsigned char)term[0] < 0x80 || !all_hangul(term) || !all_hangul(syn[k]))
			continue;
		nospace(syn[k], sn, sizeof sn);
		size_t sl = strlen(sn);
		if (!strcmp(sn, tn))
			return 0.9;
		if (!kor)
			continue;
		if (sl >= 6 && tl > sl && !strcmp(tn + tl - sl, sn) && light_head(tn, tl - sl))
			best = best < 0.7 ? 0.7 : best;
		for (int x = 0; light_tail[x]; x++)
			if (sl >= 3 && tl == sl + strlen(light_tail[x]) && !strncmp(tn, sn, sl) && !strcmp(tn + sl, light_tail[x]))
				best = best < 0.7 ? 0.7 : best;
	}
	return best;
}

/* ends_main_phrase: term is the last word of the comment before its parenthesis ("성별코드" of
 * "성별코드(M:남, F:여)": what follows only explains it) */
static int ends_main_phrase(const char *comment, const char *term)
{
	size_t n = strcspn(comment, "("), tl = strlen(term);
	while (n && comment[n - 1] == ' ')
		n--;
	return n >= tl && !strncmp(comment + n - tl, term, tl) && (n == tl || comment[n - tl - 1] == ' ');
}

/* attribute_tail: the rest of a comment names only an attribute (코드, 번호, 일시...) of what
 * came before it: "입원 병동 코드" is the ward's code */
static int attribute_tail(const char *rest)
{
	static const char *const attr[] = {"코드", "번호", "일시", "일자", "날짜", "명", "이름", "여부", "구분", "값", "수치", NULL};
	int words = 0;
	for (const char *d = rest; *d;) {
		while (*d == ' ')
			d++;
		size_t n = strcspn(d, " ");
		if (!n)
			break;
		int ok = 0;
		for (int k = 0; attr[k] && !ok; k++)
			ok = strlen(attr[k]) == n && !strncmp(d, attr[k], n);
		if (!ok)
			return 0;
		words++;
		d += n;
	}
	return words > 0;
}

/* the stem of a Korean word ending in a date suffix (퇴원일시, 입원일, 처방일자 -> 퇴원, 입원, 처방),
 * into out; 0 when it has none or the stem is shorter than two syllables */
static int date_stem(const char *w, char *out, size_t cap)
{
	static const char *const suf[] = {"일시", "일자", "날짜", "시각", "일", NULL};
	size_t wl = strlen(w);
	for (int k = 0; suf[k]; k++) {
		size_t sl = strlen(suf[k]);
		if (wl >= sl + 6 && !strcmp(w + wl - sl, suf[k]) && wl - sl < cap) {
			memcpy(out, w, wl - sl);
			out[wl - sl] = 0;
			return 1;
		}
	}
	return 0;
}

/* korean_doc_word: a Korean term against the words of a comment when no word is the term itself:
 * the same event's date written with another suffix (퇴원일 ~ 퇴원일시) 0.75, the term's name
 * (시도 ~ 시도명) 0.7, the event's date (퇴원 ~ 퇴원일시) 0.45; else 0 */
static double korean_doc_word(const char *doc, const char *term)
{
	char ts[128], ws[128], w[128];
	size_t tl = strlen(term);
	int tdate = date_stem(term, ts, sizeof ts);
	double best = 0;
	for (const char *d = doc; *d;) {
		while (*d == ' ')
			d++;
		size_t n = strcspn(d, " ");
		if (!n || n >= sizeof w)
			break;
		memcpy(w, d, n);
		w[n] = 0;
		d += n;
		if (tdate && date_stem(w, ws, sizeof ws) && !strcmp(ts, ws))
			best = best < 0.75 ? 0.75 : best;
		else if (!tdate && date_stem(w, ws, sizeof ws) && !strcmp(term, ws))
			best = best < 0.45 ? 0.45 : best;   /* 퇴원 ~ 퇴원일시: the event's time, weakly (below a
			                                     * word's own minimum: only an event verb takes it) */
		else if (tl >= 6 && n == tl + strlen("명") && !strncmp(w, term, tl) && !strcmp(w + tl, "명") &&
		         planner_ent_word(term) < 0)   /* not 환자 ~ 환자명: the patients, not their names */
			best = best < 0.7 ? 0.7 : best;
	}
	return best;
}

/* planner_closed_up: the stemmed words of term, in order, make up one word of a name, each word's stem
 * followed by at most 3 letters the stemmer took off ("car unit" -> careunit) */
int planner_closed_up(const char *name_word, const char *term)
{
	const char *p = name_word, *w = term;
	int words = 0;

	while (*w) {
		size_t wl = strcspn(w, " ");
		const char *hit = NULL;

		if (wl < 2)
			return 0;
		for (int skip = 0; skip <= (words ? 3 : 0) && !hit; skip++)
			if ((size_t)(p - name_word) + skip <= strlen(name_word) && !strncmp(p + skip, w, wl))
				hit = p + skip;
		if (!hit)
			return 0;
		p = hit + wl;
		words++;
		w += wl;
		while (*w == ' ')
			w++;
	}
	return words > 1 && strlen(p) <= 3;
}

/* how well one term (a stem, possibly several words) names column c: 0 none .. 1 exact */
double planner_term_col_score(struct arena *a, const struct psnap *s, int ci, const char *term,
                              const struct retrieval *r)
{
	const struct pcol *c = &s->c[ci];
	char nm[128], st[128], part[128];
	double best = 0;
	size_t tl = strlen(term);

	if (!tl)
		return 0;
	/* a Korean date word (입원일, 퇴원일자, 처방일시) names a time, never another kind of column
	 * (입원일 is not "where the patient was admitted from") */
	if (c->type != PT_TIME && (unsigned char)term[0] >= 0x80 && date_stem(term, st, sizeof st))
		return 0;
	/* the name, '_' as space, and without an id suffix */
	snprintf(nm, sizeof nm, "%s", c->name);
	for (char *p = nm; *p; p++)
		if (*p == '_')
			*p = ' ';
	if (!strcmp(nm, term))
		return 1;
	planner_stem(nm, st, sizeof st);
	if (!strcmp(st, term))
		return 0.95;
	/* name parts: "admission_location" -> admission, location; prefixes of 4+ */
	char *save = NULL;
	snprintf(part, sizeof part, "%s", nm);
	for (char *p = strtok_r(part, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
		char ps[128];
		planner_stem(p, ps, sizeof ps);
		if (!strcmp(ps, term) && strcmp(p, "id"))
			best = best < 0.8 ? 0.8 : best;
		else if (strlen(ps) >= 3 && tl >= 4 && !strncmp(term, ps, strlen(ps)) && strcmp(p, "id"))
			best = best < 0.6 ? 0.6 : best;   /* org_name <- organism, disch <- discharged */
		else if (tl >= 4 && cpl(term, ps) >= 5)
			best = best < 0.5 ? 0.5 : best;
	}
	/* metadata synonyms: a whole synonym is nearly the name itself */
	{
		double ss = planner_syn_score(c->syn, c->nsyn, term);
		best = best < ss ? ss : best;
	}
	/* the comment and the catalog's full name (metadata): a phrase match */
	const char *docs[2] = {c->comment, NULL};
	for (int i = 0; r && i < r->ncolumns; i++)
		if (!strcmp(r->columns[i].name, c->name) && !strcmp(r->columns[i].table, s->t[c->table].name))
			docs[1] = r->columns[i].full_name;
	for (int d = 0; d < 2; d++) {
		if (!docs[d] || !*docs[d])
			continue;
		char *n = planner_norm(a, docs[d]);
		if (!n)
			continue;
		/* stem each word of the doc and look for the term as a whole-word sequence */
		struct sb sb = SB_INIT;
		sb_init_arena(&sb, a);
		char *sv = NULL;
		for (char *w = strtok_r(n, " ", &sv); w; w = strtok_r(NULL, " ", &sv)) {
			planner_stem(w, st, sizeof st);
			if (sb.len)
				sb_putc(&sb, ' ');
			sb_puts(&sb, st);
		}
		const char *ds = sb_cstr(&sb);
		const char *hit = strstr(ds, term);
		while (hit && !((hit == ds || hit[-1] == ' ') && (hit[tl] == 0 || hit[tl] == ' ')))
			hit = strstr(hit + 1, term);
		double hs = !hit ? 0 : hit == ds ? 0.75 : 0.55;
		/* a Korean phrase ends in its head noun: the first word of "입원 시 신장" only modifies,
		 * unless what follows only says which attribute of it the column holds ("병동 코드") */
		if (hit && hit[tl] == ' ' && (unsigned char)term[0] >= 0x80 && !strchr(term, ' ') &&
		    !ends_main_phrase(docs[d], term))
			hs = attribute_tail(hit + tl + 1) ? 0.8 : hit == ds ? 0.45 : hs;
		if (!hit && (unsigned char)term[0] >= 0x80)
			hs = korean_doc_word(ds, term);
		best = best < hs ? hs : best;
	}
	return best;
}

static double table_name_score(const struct psnap *s, int ti, const char *term)
{
	char nm[128], st[128];
	size_t tl = strlen(term);
	snprintf(nm, sizeof nm, "%s", s->t[ti].name);
	if (!strcmp(nm, term))
		return 1;
	if (tl < 3)
		return 0;
	/* "lab" ~ labevents, "microbiology" ~ microbiologyevents, "icu" ~ icustays, "d_labitems" parts */
	char *save = NULL;
	for (char *p = strtok_r(nm, "_", &save); p; p = strtok_r(NULL, "_", &save)) {
		planner_stem(p, st, sizeof st);
		if (!strcmp(st, term))
			return 0.9;
		if (!strncmp(p, term, tl) && strlen(p) > 1)
			return strlen(p) - tl <= 8 ? 0.7 : 0.5;
		if (tl >= 7 && cpl(p, term) >= 7)
			return 0.6;   /* diagnosis ~ diagnoses_icd, microbiological ~ microbiologyevents */
	}
	return 0;
}

/* comment_score: the term as the first whole word(s) of a table's comment (0.7: "입원 내역" names
 * admissions) or elsewhere in it (0.5); compared as written, lower-case, spaces as separators */
static double comment_score(const char *comment, const char *term)
{
	size_t tl = strlen(term);
	char buf[512];
	if (!comment || !*comment || tl < 2)
		return 0;
	size_t k = 0;
	for (const char *c = comment; *c && k < sizeof buf - 1; c++)
		buf[k++] = (*c == '_' || *c == ',' || *c == '(' || *c == ')' || *c == '/') ? ' ' : (char)tolower((unsigned char)*c);
	buf[k] = 0;
	for (const char *h = strstr(buf, term); h; h = strstr(h + 1, term))
		if ((h == buf || h[-1] == ' ') && (h[tl] == 0 || h[tl] == ' '))
			return h == buf ? 0.7 : 0.5;
	/* a Korean compound of three syllables or more written without the comment's spaces (검사결과
	 * in "진단검사 결과") */
	if ((unsigned char)term[0] >= 0xea && tl >= 9) {
		char ns[512];
		size_t m = 0;
		for (size_t i = 0; buf[i] && m < sizeof ns - 1; i++)
			if (buf[i] != ' ')
				ns[m++] = buf[i];
		ns[m] = 0;
		if (strstr(ns, term))
			return 0.5;
	}
	return 0;
}

/* how well a term names table ti: its name and name parts, the metadata's synonyms (바이탈, 랩),
 * or its comment (a schema whose names are codes or romanisations says what a table is there) */
double planner_term_table_score(const struct psnap *s, int ti, const char *term)
{
	double n = table_name_score(s, ti, term), syn = planner_syn_score(s->t[ti].syn, s->t[ti].nsyn, term);
	double c = comment_score(s->t[ti].comment, term);
	if (syn > n)
		n = syn;
	return c > n ? c : n;
}

/* planner_link_term: the best column for a term (stem or phrase); -1 when none scores >= min */
int planner_link_term(struct arena *a, const struct psnap *s, const char *term, const struct retrieval *r,
                      const int *banned_tables, double min, double *score)
{
	return planner_link_term_type(a, s, term, r, banned_tables, min, -1, score);
}

int planner_link_term_type(struct arena *a, const struct psnap *s, const char *term, const struct retrieval *r,
                           const int *banned_tables, double min, int type, double *score)
{
	int best = -1;
	double bs = 0;
	for (int ci = 0; ci < s->nc; ci++) {
		if ((banned_tables && banned_tables[s->c[ci].table]) || (type >= 0 && (int)s->c[ci].type != type))
			continue;
		double sc = planner_term_col_score(a, s, ci, term, r);
		/* the retrieval ranked this column for the question: a small boost breaks ties */
		for (int k = 0; r && sc > 0 && k < r->ncolumns; k++)
			if (!strcmp(r->columns[k].name, s->c[ci].name) && !strcmp(r->columns[k].table, s->t[s->c[ci].table].name))
				sc += 0.05 * (10 - k) / 10.0;
		if (sc > bs) {
			bs = sc;
			best = ci;
		}
	}
	if (score)
		*score = bs;
	return bs >= min ? best : -1;
}

