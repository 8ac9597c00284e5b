/* planner_int.h: types shared by the planner's files (tokens, lexicon, schema snapshot, links, SQL tree). */
#ifndef ASKQL_PLANNER_INT_H
#define ASKQL_PLANNER_INT_H

#include <stddef.h>
#include "util/arena.h"
#include "util/sb.h"
#include "util/err.h"

/* ---- tokens (planner_tok.c) ---- */
enum tk { TK_WORD, TK_NUM, TK_DATE, TK_PUNCT };

/* Roles of function words; content words have R_NONE. */
enum role {
	R_NONE = 0, R_STOP, R_COUNT, R_AVG, R_MAX, R_MIN, R_SUM, R_FIRST, R_LAST, R_TOP, R_MOST,
	R_FREQ, R_PER, R_GT, R_LT, R_GE, R_LE, R_BETWEEN, R_AND, R_SINCE, R_UNTIL, R_IN, R_ON, R_AGO,
	R_THIS, R_PAST, R_UNIT, R_TODAY, R_YESTERDAY, R_WHEN, R_LIST, R_DISTINCT, R_TIMELINE, R_ANY,
	R_HOW, R_MANY, R_EXIST, R_UNSUP, R_ASC, R_DESC, R_NEG, R_CURRENT, R_VISIT, R_WHICH, R_ENTITY,
	R_VALUE, R_TIMES, R_YEARWORD, R_NEXT, R_BUCKET
};

struct ptok {
	char *text;        /* lower-cased surface, Korean particle removed */
	char *raw;         /* lower-cased surface as written (일반외과 before 과 is taken for a particle) */
	char *alt;         /* the form before a particle that also ends nouns was taken off (타임라인 before
	                    * 인, 포화도 before 도), a second candidate for the linker; NULL if none */
	char *stem;        /* English stem (or text) */
	char *norm;        /* value-matching form: non-alnum ASCII -> space */
	enum tk kind;
	int hangul;        /* contains Hangul */
	int group;         /* carried the 별/마다 suffix ("per") */
	int cmp;           /* Korean comparison suffix: R_GE 이상, R_LE 이하, R_GT 초과, R_LT 미만, 0 */
	double num;        /* TK_NUM value */
	int y, m, d;       /* TK_DATE parts (0: absent) */
	int unit;          /* TK_NUM followed by a unit suffix (세, 시간, 일...): 'h','d','w','m','y','a'(age), 'n' a counter (명, 건), 't' times (번, 회) */
	int off, len;      /* bytes in the question */
	enum role role;    /* lexicon role of the word */
	int unitv;         /* R_UNIT: 'h','d','w','m','y' */
	int used;          /* consumed by a link or structure decision */
	int unsup_rate;    /* a Korean rate word (사망률) */
	int range;         /* TK_NUM written as two numbers joined by a hyphen ("1-2", "40-49"): num is the first */
	int caps;          /* the surface has an ASCII capital letter (K, HTN): a one-letter word so written
	                    * may be a stored code */
};
struct ptoks { struct ptok *v; int n; };

/* planner_tokenize: split q into tokens allocated in a; OK or ERR_NOMEM. */
enum err planner_tokenize(struct arena *a, const char *q, struct ptoks *out);
/* planner_stem: English light stemmer into out (cap bytes). */
void planner_stem(const char *w, char *out, size_t cap);
/* planner_norm: value-matching normal form of s into a new arena string. */
char *planner_norm(struct arena *a, const char *s);
/* planner_lex_role: role of a (stemmed) word; R_NONE when content. unit receives the time unit. */
enum role planner_lex_role(const char *text, const char *stem, int *unit);
/* planner_lex_code_of: the category of the lexicon entry that word names and whose code (not a
 * word of it) code is ("magnesium", "mg" -> "lab"), or NULL */
const char *planner_lex_code_of(const char *word, const char *code);
/* planner_lex_value_kinds: 2 when a stored value is a term or code of an entry of category, 1 when
 * of entries of other categories only, 0 when the lexicon does not know it */
int planner_lex_value_kinds(const char *value, const char *category);
/* planner_lex_named_thing: 1 when phrase (words in lower case, as written) is an English
 * or Korean term of one drug, test, vital sign, diagnosis, procedure, ward or department of the
 * clinical lexicon ("blood type", "day surgery unit") */
int planner_lex_named_thing(const char *phrase);
/* planner_lex_measured: 1 when term (as written or stemmed) names one drug, lab test or vital sign
 * of the clinical lexicon (not a class the planner has its own words for: "lab test",
 * "medication"): something measured or given, never a date */
int planner_lex_measured(const char *term);
/* planner_lex_syn: English/abbreviation synonyms of a domain term (NULL-terminated list, static), or NULL. */
const char *const *planner_lex_syn(const char *term);
/* planner_lex_concept: an ontology concept ("hypotension", "저혈압") -> measure term and direction
 * (-1 below the normal range, +1 above); default range when metadata has none. 0 if unknown. */
int planner_lex_concept(const char *term, const char **measure, int *dir, double *lo, double *hi);
/* planner_in_list: 1 when w is one of the NULL-terminated words l; planner_in_list_at: the index
 * of its first occurrence, or -1 (never found when l or w is NULL) */
int planner_in_list(const char *const *l, const char *w);
int planner_in_list_at(const char *const *l, const char *w);
/* planner_lex_own_syn: the built-in short list's synonyms of term (NULL-terminated), or NULL. */
const char *const *planner_lex_own_syn(const char *term);
/* planner_ends_with: 1 when w is longer than suf and ends with it. */
int planner_ends_with(const char *w, const char *suf);
/* planner_lex_generic: 1 for a generic English/Korean word that carries no schema meaning. */
int planner_lex_generic(const char *stem);
/* planner_lex_phrases: the words of one role of conf phrases_file (conf/lexicon/phrases.tsv:
 * "people", "change_lead"), NULL-terminated, loaded once and kept for the process; an empty list
 * when the file or the role is missing.  Never NULL. */
const char *const *planner_lex_phrases(const char *role);

/* ---- the planner's view of the catalog (planner_snap.c) ---- */
enum ptype { PT_OTHER, PT_NUM, PT_TEXT, PT_TIME, PT_BOOL };
struct pcol {
	char *name, *comment;
	int table;             /* index into tables */
	enum ptype type;
	int unique;            /* single-column unique/PK */
	int is_int;
	int nvalues;           /* distinct values indexed (0: none/high cardinality) */
	char *full_name;       /* metadata */
	char **syn; int nsyn;  /* metadata synonyms, normalised */
	int has_range; double lo, hi;
	int flag;              /* only 0/1 values: a yes/no attribute */
	int numtext;           /* text whose every indexed value is a decimal number (a dose kept as
	                        * text): typed PT_NUM, read through a cast (docs/schema-model.md, "Numbers
	                        * stored as text") */
};
/* A condition of an ontology concept ("vital_data_table.sbp < 90"). */
struct pcond { int col; const char *op; const char *lit; int list; };
struct pconcept { char *name; char **syn; int nsyn; struct pcond c[4]; int nc; };
/* Normal range of a stored value (lab_data_table.name = 'k': 3.5 .. 5.1). */
struct pvrange { int col; char *value; double lo, hi; };
struct ptab {
	char *name, *comment;
	double rows;
	int c0, nc;
	char *full_name;       /* metadata */
	char **syn; int nsyn;  /* metadata synonyms ("바이탈", "labs"), normalised */
};
struct pval { char *key; char *value; int col; int syn; /* 1: a metadata synonym of value */ };
struct pfk { int from, to; int inferred; };   /* column indexes */
/* A typed link (docs/schema-model.md, "Typed links"): rows of one table point at rows of several others
 * by an id column and a type column whose stored value names the table pointed at (a charge's
 * event_type 'labevents' + event_id -> labevents.row_id).  No key path reaches them. */
struct ptlink { int id_col, type_col; int table; int key; const char *value; };
struct psnap {
	char *conninfo;
	struct ptab *t; int nt;
	struct pcol *c; int nc;
	struct pval *v; int nv;     /* sorted by key */
	struct pfk *fk; int nfk;
	struct ptlink *tl; int ntl;
	struct pconcept *con; int ncon;     /* from the metadata file, when it describes this database */
	struct pvrange *vr; int nvr;
	char *entity_patient, *entity_case; /* identifier columns of a patient and a case: the metadata's
	                                     * hierarchy keys, else inferred (planner_ent_infer) */
	char *entity_encounter;             /* of an encounter (admission, visit): inferred */
	char *reference_time;               /* the metadata's snapshot time of an archived database */
};
struct catalog;
/* planner_snap_get: the planner's view of cat (the run's target), built on first use and again
 * when the catalog's version changes; conninfo is the executor's read-only connection for
 * probes.  Release it with planner_snap_put.  NULL + err when cat is NULL or memory ran out. */
struct psnap *planner_snap_get(struct catalog *cat, const char *conninfo, char *err, size_t errlen);
void planner_snap_put(struct psnap *s);
/* planner_entity_key: the identifier column name of an entity kind (ENT_PATIENT...) in the
 * target's view, heap; NULL when there is none or the view cannot be built.  table (may be NULL)
 * receives the entity's own table, the one where that column is unique (heap), or NULL. */
char *planner_entity_key(struct catalog *cat, const char *conninfo, int kind, char **table);
void planner_snap_free_all(void);
/* planner_snap_col: column index of table.name or -1. */
int planner_snap_col(const struct psnap *s, int table, const char *name);
int planner_snap_table(const struct psnap *s, const char *name);
/* planner_snap_values: first index of key in s->v (and count via *n); -1 if absent. */
int planner_snap_values(const struct psnap *s, const char *key, int *n);
/* planner_snap_keyish: column ci is a key or an identifier (unique, named …id, or an end of a join
 * key): never a measure */
int planner_snap_keyish(const struct psnap *s, int ci);
/* planner_snap_probe: 1 when sql returns a row (run by the executor: guarded, read-only). cached. */
int planner_snap_probe(struct psnap *s, const char *sql);
/* planner_snap_path: shortest key path from table `from` to table `to`, walking only towards the
 * referenced (one) side so joins never multiply rows; banned (may be NULL) has s->nt flags.
 * Fills edges (indexes into s->fk) from `to` back to `from`; returns their number (0: same
 * table), -1 when there is no path of at most max edges. */
int planner_snap_path(const struct psnap *s, const int *banned, int from, int to, int *edges, int max);
/* planner_snap_key: the column of table ti named like key ignoring underscores (subjectid ~
 * subject_id), or -1. */
int planner_snap_key(const struct psnap *s, int ti, const char *key);

/* ---- entities (planner_entlex.c; the lexicon conf/lexicon/entities.tsv, docs/lexicon.md) ---- */
enum ent_kind { ENT_PATIENT, ENT_CASE, ENT_ENCOUNTER, ENT_NKINDS };
/* pf_took_particle: 1 when the tokenizer took the particle part (의, 에서, 는) off the end of the
 * Korean word t as written */
int pf_took_particle(const struct ptok *t, const char *part);
/* planner_ent_word: the entity kind a question word (or its stem) names, or -1 */
int planner_ent_word(const char *w);
/* planner_ent_key_stem: 1 when a column or table name stem ("subject" of subject_id) names kind */
int planner_ent_key_stem(int kind, const char *stem);
/* planner_ent_column: the identifier column name of kind in s, or NULL */
const char *planner_ent_column(const struct psnap *s, int kind);
/* planner_ent_infer: the identifier columns of a patient, a case and an encounter that the
 * metadata did not name, from column names (a key stem plus an identifier suffix) and comments
 * (starting with a phrase of the lexicon); among candidates the name present in most tables.
 * Names are allocated in a. */
void planner_ent_infer(struct psnap *s, struct arena *a);

/* ---- SQL tree (planner_sql.c) ---- */
enum sx { SX_COL, SX_LIT, SX_NUM, SX_STAR, SX_AGG, SX_CMP, SX_AND, SX_OR, SX_IN_LIST, SX_IN_SUB,
          SX_NOTNULL, SX_ISNULL, SX_FUNC, SX_TS, SX_INTERVAL_SUB, SX_ARITH, SX_WIN_DENSE, SX_CAST, SX_SUBQ };
struct sexpr {
	enum sx kind;
	const char *a, *b;           /* COL: alias, column; LIT: text; AGG/FUNC/CMP/ARITH: op name */
	int distinct;
	struct sexpr **args; int nargs;
	struct squery *sub;
	struct sexpr *filter;        /* AGG: FILTER (WHERE filter), or NULL */
};
struct sitem { struct sexpr *e; const char *as; };
struct sjoin { const char *table, *alias; struct sexpr *on; };
struct sorder { struct sexpr *e; int desc; };
struct squery {
	struct sitem sel[16]; int nsel;
	int distinct;
	const char *from, *alias;
	struct sjoin joins[6]; int njoins;
	struct sexpr *where[24]; int nwhere;
	struct sexpr *group[6]; int ngroup;
	struct sexpr *having;
	struct sorder order[6]; int norder;
	long limit;                  /* 0: none */
	long offset;                 /* rows skipped before the limit (the second value: 1); 0: none */
	int ties;                    /* the limit keeps rows tied with the last one (FETCH ... WITH TIES) */
	/* a set operation: the branches joined by setop ("UNION ALL"); then only order (by output
	 * column names: SX_COL without alias) and limit of this query are printed */
	struct squery **setq; int nsetq;
	const char *setop;
	int exists_wrap;             /* SELECT COUNT(*) > 0 FROM (...) */
	int count_wrap;              /* SELECT COUNT(*) AS count FROM (...): the groups counted */
	const char *wrap_agg;        /* SELECT wrap_agg(total) FROM (...): an aggregate of the per-entity
	                              * totals the query computes (its last column, named total) */
	struct squery *outer_rank;   /* ranking: SELECT cols FROM (q) WHERE rnk <= n */
	long rank_n;
	int win_where;               /* 1 + the index in where[] of the time window's lower bound (its
	                              * upper bound follows); 0: no window of both bounds */
};
struct sexpr *sx_col(struct arena *a, const char *alias, const char *col);
struct sexpr *sx_lit(struct arena *a, const char *text);
struct sexpr *sx_num(struct arena *a, const char *text);
struct sexpr *sx_ts(struct arena *a, const char *ts);          /* TIMESTAMP 'ts' */
struct sexpr *sx_agg(struct arena *a, const char *fn, int distinct, struct sexpr *arg);
struct sexpr *sx_func(struct arena *a, const char *fn, struct sexpr *x, struct sexpr *y);
struct sexpr *sx_cmp(struct arena *a, const char *op, struct sexpr *l, struct sexpr *r);
struct sexpr *sx_arith(struct arena *a, const char *op, struct sexpr *l, struct sexpr *r);
struct sexpr *sx_and(struct arena *a, struct sexpr *l, struct sexpr *r);   /* (l AND r) */
struct sexpr *sx_in_sub(struct arena *a, struct sexpr *l, struct squery *q);
struct sexpr *sx_in_list(struct arena *a, struct sexpr *l, struct sexpr **v, int n);
struct sexpr *sx_null(struct arena *a, struct sexpr *l, int notnull);
struct sexpr *sx_interval_sub(struct arena *a, struct sexpr *ts, const char *interval);
struct sexpr *sx_star(struct arena *a);
struct sexpr *sx_cast(struct arena *a, struct sexpr *x, const char *type);   /* CAST(x AS type) */
struct sexpr *sx_subq(struct arena *a, struct squery *q);   /* (SELECT ...): a scalar subquery */
/* planner_sql_names: 1 when sql has name as a whole identifier (not inside a longer one);
 * icase: letters compared without case (SQL an LLM or an analyst wrote) */
int planner_sql_names(const char *sql, const char *name, int icase);
/* planner_sql_literal: s as a PostgreSQL string literal ('it''s') appended to sb */
void planner_sql_literal(struct sb *sb, const char *s);
/* planner_sql_print: the one function that prints a query tree as PostgreSQL. */
void planner_sql_print(struct sb *sb, const struct squery *q);

/* ---- timelines over several tables (planner_timeline.c) ---- */
#define PTL_MAXCOLS 16
#define PTL_MAXSRC 6
/* One table of a timeline: its measured columns (wide: vital signs, one column per measure) or
 * one label/value pair (long: lab name + result, drug + dose; the label may sit in a dictionary
 * table the source references). */
struct ptl_source {
	int table, time;                     /* table index, its time column */
	int cols[PTL_MAXCOLS]; int ncols;    /* wide: the measured columns */
	int label, value;                    /* long: label and value columns, else -1 */
	const char *vals[8]; int nvals;      /* long: only these labels (lab name = 'k'); 0: all */
};
/* A filter every branch must carry, on a table each source reaches many-to-one (department). */
struct ptl_filter { int col; const char *op; const char *lit; int num; const char *vals[8]; int nvals; };
struct ptl_spec {
	struct ptl_source src[PTL_MAXSRC]; int nsrc;
	const char *key;                     /* the entity key (subjectid, caseid): first column, sorted on */
	const char *key2;                    /* a finer key shown next to it (caseid per patient), or NULL */
	const char *key_val;                 /* key = key_val, or NULL for every entity */
	int key_ref;                         /* 1 + index of the key column itself (encounter.id of
	                                      * "encounter 5"): each source's column referencing it, or a
	                                      * join to it; 0: the key is found by name in each source */
	const char *from, *to;               /* window on each source's own time column; "" or NULL: open */
	struct ptl_filter flt[8]; int nflt;
	const int *banned;                   /* tables not to join (s->nt flags), may be NULL */
};
/* planner_timeline: build into out one query of rows (key, [key2,] event_time, source, measure,
 * value): one SELECT per measured column of a wide source and one per long source, joined by
 * UNION ALL, NULL values left out, ordered by key, key2, event_time, measure.  Everything is
 * allocated in a.  Returns 0, or -1 with *why set (a source that cannot reach the key, too
 * many branches). */
int planner_timeline(struct arena *a, const struct psnap *s, const struct ptl_spec *sp, struct squery *out,
                     const char **why);

#endif
