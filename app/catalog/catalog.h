/* catalog.h: the indexed catalog of a target database and the one retrieval call (multi-axis search). */
#ifndef ASKQL_CATALOG_H
#define ASKQL_CATALOG_H

#include <libpq-fe.h>
#include "util/err.h"

struct cJSON;

/* Index a target (askql index). conninfo of the target; docs_dir and metadata_file may
 * be NULL.  Writes to the app schema (askql.cat_*) with a new catalog version only when
 * something changed.  On any error the previous catalog is left intact and err says why. */
struct index_opts {
	const char *target_name;   /* catalog key, e.g. "demo" */
	const char *conninfo;
	const char *docs_dir;
	const char *metadata_file;
	int verbose;
};
enum err catalog_index(PGconn *app, const struct index_opts *o, char *err, size_t errlen);

/* An in-memory copy of one target's catalog, refreshed when its version changes. */
struct catalog;
/* catalog_get: the cached catalog of target (loaded from the app schema on first use or
 * when askql.cat_targets.version changed).  Owned by the cache; valid until the next
 * catalog_get call in this process.  NULL with err when the target is not indexed. */
struct catalog *catalog_get(PGconn *app, const char *target, char *err, size_t errlen);

/* Does the catalog know relation schema.name (schema may be NULL)? For guard_opts.relation_ok. */
int catalog_relation_ok(void *catalog, const char *schema, const char *name);

enum intent { INTENT_DETAIL = 0, INTENT_AGGREGATION, INTENT_FILTER, INTENT_COMPARISON,
              INTENT_TREND, INTENT_RANKING };
const char *intent_name(enum intent i);

struct ret_table { const char *name; double score; const char *sources; /* "vector,keyword,..." */ };
struct ret_column {
	const char *table, *name, *type;
	double score;
	const char *sources;
	const char *full_name, *unit;    /* from metadata, may be NULL */
	int has_range; double range_lo, range_hi;  /* normal range from the ontology */
};
struct ret_join { const char *from_table, *from_col, *to_table, *to_col; int inferred; };
struct ret_path { struct ret_join *joins; int njoins; };   /* a path between two chosen tables */
struct ret_value {               /* a phrase of the question mapped to a stored value */
	const char *phrase;          /* "potassium", "칼륨" */
	const char *table, *column, *value;   /* lab_data_table.name = 'k' */
	const char *how;             /* "exact", "synonym", "prefix", "trigram" */
	double score;
};
struct ret_similar { const char *question, *sql; double score; };

struct retrieval {
	enum intent intent;
	struct ret_table *tables; int ntables;       /* at most 10, best first */
	struct ret_column *columns; int ncolumns;    /* at most 10, best first */
	struct ret_path *paths; int npaths;          /* join paths between chosen tables */
	struct ret_value *values; int nvalues;
	struct ret_similar *similar; int nsimilar;
	char **suggestions; int nsuggestions;        /* when nothing matched */
	char *prompt_block;                          /* schema/ontology text within the budget */
	void *_mem;                                  /* owner of every string above */
};

struct retrieval_opts {
	int k;                  /* top-k tables/columns; 0: 10 */
	int token_budget;       /* prompt_block budget; 0: 1500 */
	const char *hyde_text;  /* a hypothetical answer from an LLM (HyDE axis); NULL: axis off */
};

/*
 * catalog_retrieve: the one retrieval call the agent and the UI use.  Never fails for
 * lack of matches (suggestions instead); returns ERR_* only for bad input or no memory.
 * r must be freed with retrieval_free.
 */
enum err catalog_retrieve(struct catalog *cat, const char *question,
                          const struct retrieval_opts *o, struct retrieval *r);
void retrieval_free(struct retrieval *r);
/* retrieval_json: the whole result as cJSON (caller cJSON_Delete()s). */
struct cJSON *retrieval_json(const struct retrieval *r);

#endif
