/* planner_link.h: the linker's result: which span of the question names which catalog element. */
#ifndef ASKQL_PLANNER_LINK_H
#define ASKQL_PLANNER_LINK_H

#include "agent/planner_int.h"

struct retrieval;

enum pl_kind { PL_VALUE, PL_COLUMN, PL_TABLE, PL_CONCEPT };
#define PL_ROLE_IGNORED 3
struct plink_item {
	enum pl_kind kind;
	int t0, t1;                 /* token span [t0, t1) */
	int cols[4]; int ncols;     /* VALUE: candidate columns (same key), COLUMN: the column */
	const char *vals[4];        /* VALUE: the stored value per candidate column (contains: the
	                             * text the stored values contain, matched with ILIKE) */
	int contains;               /* VALUE: a part of stored labels ('심부전' in '울혈성 심부전') */
	int table;                  /* TABLE */
	const char *measure;        /* CONCEPT: measure term ("sbp", "potassium") */
	int dir; double lo, hi;     /* CONCEPT (lexicon) */
	int con;                    /* CONCEPT from the metadata: index into s->con, else -1 */
	double score;
	const char *why;
	int role;                   /* set by the structure pass: 1 a comparison's column, 2 names a
	                             * value's column, PL_ROLE_IGNORED a generic measure word (amount,
	                             * value) answered by the fact table's own measure */
	int bound;                  /* VALUE: 1 + the column the binder filtered on, 0 none yet */
	int rival;                  /* VALUE: 1 + another column of the same table where the word is
	                             * only a part of a code's name ('전원' of '타병원 전원' beside
	                             * '전원' itself), no other word saying which; 0 none */
	int apart;                  /* VALUE: 1 + the table of the entity the word qualifies ("담석
	                             * 수술": the operations) when its stored values are kept only in a
	                             * table of events that carries no key of that entity (the
	                             * patient's diagnosis list); 0 none */
};
#define PL_MAX 48
struct plink { struct plink_item v[PL_MAX]; int n; };

/* planner_link: link tokens (marking them used) to values, concepts, columns and tables.
 * banned_tables (may be NULL) has s->nt flags of tables the analyst removed. */
enum err planner_link(struct arena *a, const struct psnap *s, struct ptoks *tk, const struct retrieval *r,
                      const int *banned_tables, struct plink *pl);
/* planner_link_term: best column for a stemmed term (score >= min) or -1. */
int planner_link_term(struct arena *a, const struct psnap *s, const char *term, const struct retrieval *r,
                      const int *banned_tables, double min, double *score);
/* planner_link_term_type: the same among columns of one enum ptype (-1: any). */
int planner_link_term_type(struct arena *a, const struct psnap *s, const char *term, const struct retrieval *r,
                           const int *banned_tables, double min, int type, double *score);

/* planner_code_number: the token index of a code written as a number right after the column link it
 * ("ASA 3", "ASA class 3"): a plain number with no comparison word, unit or bound ("60 and older",
 * "40-49", "3 or more") around it; -1 when it is none.  planner_code_link makes it the link's value
 * (value: arena or stored text) and marks the words used. */
int planner_code_number(const struct ptoks *tk, const struct plink_item *it);
void planner_code_link(struct ptoks *tk, struct plink_item *it, int x, const char *value);
/* planner_closed_up: the stemmed words of term ("car unit"), in order, make up name_word, one
 * '_'-separated word of a column name (careunit), each stem followed by at most 3 letters the
 * stemmer took off; 1 or 0 (two words at least) */
int planner_closed_up(const char *name_word, const char *term);
/* planner_term_col_score / planner_term_table_score (planner_score.c): how well a stemmed term
 * names column ci / table ti (0 none, about 1 the name itself; names, comments, metadata
 * synonyms, Korean compounds); r (may be NULL) is the question's retrieval. */
double planner_term_col_score(struct arena *a, const struct psnap *s, int ci, const char *term,
                              const struct retrieval *r);
double planner_term_table_score(const struct psnap *s, int ti, const char *term);

/* planner_syn_score: how well a (stemmed) term matches one of n normalised synonyms: 0.9 whole
 * (Korean without spaces), 0.7 a Korean compound headed by a synonym or a synonym + light noun. */
double planner_syn_score(char *const *syn, int nsyn, const char *term);

#endif
