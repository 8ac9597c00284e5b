/* planner_entlex.c: the entities of clinical questions (patient, case, encounter): the words that
 * name them and the identifier columns that stand for them in any schema (docs/lexicon.md). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "agent/planner_int.h"
#include "util/conf.h"
#include "util/file.h"
#include "util/log.h"

#define ENT_MAXTERMS 32

/* One line of the lexicon: the terms of its three fields. */
struct ent_lex {
	const char *words[ENT_MAXTERMS]; int nwords;
	const char *keys[ENT_MAXTERMS]; int nkeys;
	const char *phrases[ENT_MAXTERMS]; int nphrases;
};

static const char *const kind_names[ENT_NKINDS] = {"patient", "case", "encounter"};
static struct ent_lex lex[ENT_NKINDS];
static pthread_once_t lex_once = PTHREAD_ONCE_INIT;

/* split_terms: field f ('|'-separated, "-" for none) into v (at most ENT_MAXTERMS); f is the
 * loaded buffer, which stays for the process */
static int split_terms(char *f, const char **v)
{
	int n = 0;
	char *save = NULL;

	if (!f || !strcmp(f, "-"))
		return 0;
	for (char *t = strtok_r(f, "|", &save); t && n < ENT_MAXTERMS; t = strtok_r(NULL, "|", &save))
		if (*t)
			v[n++] = t;
	return n;
}

/* load: read entities_file once (the buffer stays for the process: the terms point into it); a
 * missing file or a malformed line is logged and leaves the
 * kind without terms (entities are then found only through the catalog metadata) */
static void load(void)
{
	char *buf = file_read(conf_get("entities_file"), 65536, NULL), *save = NULL;
	int bad = 0;

	if (!buf) {
		log_warn("entities lexicon %s could not be read: patients and cases are found only through metadata",
		         conf_get("entities_file"));
		return;
	}
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *f[4] = {0};
		int nf = 0, k;

		if (*l == '#' || !*l)
			continue;
		for (char *p = l; nf < 4; ) {
			f[nf++] = p;
			p = strchr(p, '\t');
			if (!p)
				break;
			*p++ = 0;
		}
		for (k = 0; k < ENT_NKINDS && (nf != 4 || strcmp(f[0], kind_names[k])); k++)
			;
		if (k == ENT_NKINDS) {
			bad++;
			continue;
		}
		lex[k].nwords = split_terms(f[1], lex[k].words);
		lex[k].nkeys = split_terms(f[2], lex[k].keys);
		lex[k].nphrases = split_terms(f[3], lex[k].phrases);
	}
	if (bad)
		log_warn("entities lexicon %s: %d malformed line(s) skipped", conf_get("entities_file"), bad);
}

int planner_ent_word(const char *w)
{
	pthread_once(&lex_once, load);
	for (int k = 0; w && k < ENT_NKINDS; k++)
		for (int i = 0; i < lex[k].nwords; i++)
			if (!strcmp(lex[k].words[i], w))
				return k;
	return -1;
}

int planner_ent_key_stem(int kind, const char *stem)
{
	pthread_once(&lex_once, load);
	for (int i = 0; kind >= 0 && kind < ENT_NKINDS && stem && i < lex[kind].nkeys; i++)
		if (!strcmp(lex[kind].keys[i], stem))
			return 1;
	return 0;
}

const char *planner_ent_column(const struct psnap *s, int kind)
{
	return kind == ENT_PATIENT ? s->entity_patient : kind == ENT_CASE ? s->entity_case
	     : kind == ENT_ENCOUNTER ? s->entity_encounter : NULL;
}

/* key_stem: name without an identifier suffix into out; 0 when it has none */
static int key_stem(const char *name, char *out, size_t cap)
{
	static const char *const suf[] = {"_id", "_no", "_num", "id", "no", NULL};
	size_t l = strlen(name);

	for (int i = 0; suf[i]; i++) {
		size_t n = strlen(suf[i]);
		if (l > n && !strcmp(name + l - n, suf[i]) && l - n < cap) {
			memcpy(out, name, l - n);
			out[l - n] = 0;
			return 1;
		}
	}
	return 0;
}

/* names_kind: column ci of s identifies kind, by its name or its comment */
static int names_kind(const struct psnap *s, int ci, int kind)
{
	char st[128];
	const char *cm = s->c[ci].comment;

	if (s->c[ci].type != PT_NUM && s->c[ci].type != PT_TEXT)
		return 0;
	if (key_stem(s->c[ci].name, st, sizeof st) && planner_ent_key_stem(kind, st))
		return 1;
	for (int i = 0; cm && i < lex[kind].nphrases; i++)
		if (!strncasecmp(cm, lex[kind].phrases[i], strlen(lex[kind].phrases[i])))
			return 1;
	return 0;
}

/* infer_kind: the candidate column name of kind present in most tables (the shared key), or NULL */
static const char *infer_kind(const struct psnap *s, int kind)
{
	const char *best = NULL;
	int bestn = 0;

	for (int ci = 0; ci < s->nc; ci++) {
		if (!names_kind(s, ci, kind))
			continue;
		int n = 0;
		for (int cj = 0; cj < s->nc; cj++)
			n += !strcmp(s->c[cj].name, s->c[ci].name);
		if (n > bestn) {
			bestn = n;
			best = s->c[ci].name;
		}
	}
	return best;
}

void planner_ent_infer(struct psnap *s, struct arena *a)
{
	pthread_once(&lex_once, load);
	if (!s->entity_patient && infer_kind(s, ENT_PATIENT))
		s->entity_patient = arena_strdup(a, infer_kind(s, ENT_PATIENT));
	if (!s->entity_case && infer_kind(s, ENT_CASE))
		s->entity_case = arena_strdup(a, infer_kind(s, ENT_CASE));
	if (!s->entity_encounter && infer_kind(s, ENT_ENCOUNTER))
		s->entity_encounter = arena_strdup(a, infer_kind(s, ENT_ENCOUNTER));
	/* one column is one entity: a case key that is also the patient's is the patient's */
	if (s->entity_case && s->entity_patient && !strcmp(s->entity_case, s->entity_patient))
		s->entity_case = NULL;
}
