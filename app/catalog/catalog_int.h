/* catalog_int.h: the in-memory catalog shared by the loader, retrieval, tests and the benchmark. */
#ifndef ASKQL_CATALOG_INT_H
#define ASKQL_CATALOG_INT_H

#include <stddef.h>
#include "catalog/catalog.h"
#include "util/arena.h"

/* A term is a normalised token sequence that points at something in the catalog. */
enum term_kind { TK_TABLE, TK_COLUMN, TK_VALUE, TK_CONCEPT };

struct cat_table {
	char *schema, *name;      /* name: display name ("t" in public, else "schema.t") */
	char *comment, *full_name, *concept;
	char *description_ko;     /* Korean description (metadata description_ko or an admin's), may be NULL */
	char *syn_text;           /* synonyms joined, embedded with the table (indexer only) */
	long rows;
	float *vec;
	int first_col, ncols;     /* columns[first_col .. first_col+ncols) */
	int fk_in, fk_out;
	double importance;        /* log1p(2*in + out) */
};

struct cat_column {
	int table;
	char *name, *type, *comment, *full_name, *unit, *description;
	char *description_ko;     /* Korean description (metadata description_ko or an admin's), may be NULL */
	char *syn_text;           /* synonyms joined, embedded with the column (indexer only) */
	char *qname;              /* "table.column" (display table name) */
	int is_pk, nullable, indexed, nvalues;
	int is_unique;            /* a single-column unique index (or the primary key) */
	int is_flag;              /* an integer column holding only 0 and 1 (a yes/no attribute) */
	int numeric, temporal, textual, idlike;
	int has_range;
	double lo, hi;
	float *vec;
	/* the non-zero entries of vec when it is sparse (builtin embeddings of short texts):
	 * the vector axis reads these instead of the dense vector; nnz < 0: dense */
	int nnz;
	unsigned short *sidx;
	float *sval;
	/* PHI class (enum phi_class, catalog/phi.h): the classifier's at the last indexing and an
	 * admin's correction (0: none), with the classifier's rule and evidence, the correction's reason */
	signed char phi_auto, phi_fixed;
	char *phi_rule, *phi_evidence, *phi_reason;
};

struct cat_edge {
	int from_t, from_c, to_t, to_c;   /* column indexes are global */
	int inferred, confirmed;
};

struct cat_value {
	int col;
	char *value;       /* as stored in the target */
	char *norm;        /* lower-cased, for exact matching */
	char *full_name, *unit;
	int has_range;
	double lo, hi;
};

struct cat_concept {
	char *name, *ko, *definition, *sql;
	int *cols, ncols;
	float *vec;
};

struct cat_verified {
	long id;
	char *question, *sql;
	int success_count, use_count;
	float *vec;
};

struct term_ref { int kind, id; float weight; };
struct cat_term {
	char **toks; int ntoks;     /* canonical tokens */
	struct term_ref *refs; int nrefs, caprefs;
};

/* string -> int open-addressing map (keys owned by the catalog arena). */
struct strmap { char **keys; int *vals; size_t cap, n; };

struct catalog {
	char *target;
	int restricted;              /* 1: only the columns the limited and aggregate levels may read
	                              * (store/level.h), tables of schema public only */
	long version, verified_version;
	char *embed_provider;
	int dim;
	char *now_ref, *hierarchy;   /* hierarchy: prompt-ready text, may be NULL */
	char *metadata;              /* the target's metadata file as indexed (JSON text), may be NULL */
	struct arena mem;
	struct cat_table *tables; int ntables, captables;
	struct cat_column *columns; int ncolumns, capcolumns;
	struct cat_edge *edges; int nedges, capedges;
	struct cat_value *values; int nvalues, capvalues;
	struct cat_concept *concepts; int nconcepts, capconcepts;
	struct cat_verified *verified; int nverified, capverified;
	struct cat_term *terms; int nterms, capterms;
	struct strmap term_first;   /* first canonical token -> head of a term chain */
	int *term_next;             /* chain of terms sharing a first token */
	struct strmap value_norm;   /* normalised value -> first value index with it */
	int *value_next;
	struct strmap tri;          /* trigram -> posting list index */
	int **tri_posts; int *tri_npost, ntri, captri;
	struct strmap prefixes;         /* word beginnings of every term and value (lexical check) */
	struct strmap tables_by_name;   /* "name" and "schema.name" -> table */
	int **adj; int *nadj;           /* per table: edge indexes */
	double max_importance;
	size_t bytes;                   /* rough memory footprint */
};

/* Builder used by the loader, the unit tests and the benchmark.  Strings are copied
 * into the catalog's arena.  cat_new returns NULL on no memory. */
struct catalog *cat_new(const char *target, const char *provider, int dim);
void cat_free(struct catalog *c);
int cat_add_table(struct catalog *c, const char *schema, const char *name, const char *comment,
                  const char *full_name, long rows);
/* columns must be added table by table, in order, right after their table */
int cat_add_column(struct catalog *c, int table, const char *name, const char *type,
                   const char *comment, const char *full_name, const char *unit);
int cat_add_edge(struct catalog *c, int from_c, int to_c, int inferred, int confirmed);
int cat_add_value(struct catalog *c, int col, const char *value);
int cat_add_concept(struct catalog *c, const char *name, const char *ko, const char *definition,
                    const char *sql);
/* cat_add_term: phrase (any text; normalised here) refers to kind/id with weight */
void cat_add_term(struct catalog *c, const char *phrase, int kind, int id, float weight);
int cat_find_table(const struct catalog *c, const char *name);
int cat_find_column(const struct catalog *c, const char *qualified);  /* "t.c" or "s.t.c" */
/* cat_finish: derive terms from names, embed everything that has no vector yet, build the
 * indexes (terms, values, trigrams, adjacency, importance).  Call once after adding. */
enum err cat_finish(struct catalog *c, char *err, size_t errlen);

/* strmap */
int strmap_get(const struct strmap *m, const char *k);      /* -1: absent */
int strmap_put(struct strmap *m, struct arena *a, const char *k, int v);  /* 0 ok, -1 nomem */
void strmap_free(struct strmap *m);

/* FK paths: shortest path (<= max_hops) between tables a and b, preferring declared edges.
 * Writes edge indexes (in path order from a) to out (size >= max_hops); returns the
 * number of hops, 0 when a == b, -1 when there is no path. */
/* cat_word_prefix: the key of a word's beginning (3 characters, 2 for Hangul) into out */
void cat_word_prefix(const char *w, char *out, size_t n);
/* cat_col_dot: q . column vector, through the sparse form when there is one */
float cat_col_dot(const struct cat_column *col, const float *q, int dim);
int cat_fk_path(const struct catalog *c, int a, int b, int max_hops, int *out);

/* cache.c helpers: parse a real[] literal into v[dim] (0: exactly dim numbers); call fn for
 * each element of a text[] literal (quotes and backslashes handled) */
int cat_parse_vec(const char *s, float *v, int dim);
void cat_each_text(const char *s, void (*fn)(void *, const char *), void *arg);

/* rrf: accumulate 1/(k + rank) (rank from 1) of each id in list into score[id]. */
void rrf_add(double *score, const int *list, int n, int k);
/* rrf_addw: the same with the axis weighted by w (weighted RRF) */
void rrf_addw(double *score, const int *list, int n, int k, double w);

/* catalog_split3: split "s.t.c" / "t.c" into schema (public when none), table and column, each
 * cut to n bytes; -1 when s has no dot (after the second dot everything is the column) */
int catalog_split3(const char *s, char *sch, char *tab, char *col, size_t n);

#endif
