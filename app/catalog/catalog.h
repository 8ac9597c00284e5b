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
	int force;                     /* 1: re-sample and re-embed every table */
	struct index_result *result;   /* optional: what happened */
	/* optional: called with a one-line progress message at each stage (connected, tables read,
	 * each table sampled, joins inferred, embedding, writing) so a page can show it live */
	void (*on_progress)(void *ctx, const char *message);
	void *progress_ctx;
};
struct index_result {
	long version;                  /* catalog version after the run */
	int changed;                   /* 1: a new version was written */
	int tables, columns, values, fks, inferred_fks, concepts, docs;
	int tables_reindexed;          /* tables whose content hash changed */
	int warnings;                  /* metadata names not found etc. (printed when verbose) */
	double seconds;
};
enum err catalog_index(PGconn *app, const struct index_opts *o, char *err, size_t errlen);

/* An in-memory copy of one target's catalog, refreshed when its version changes. */
struct catalog;
/* catalog_get: the cached catalog of target (loaded from the app schema on first use or
 * when askql.cat_targets.version changed).  Owned by the cache; valid until the next
 * catalog_get call in this process.  NULL with err when the target is not indexed. */
struct catalog *catalog_get(PGconn *app, const char *target, char *err, size_t errlen);
/* catalog_get_level: catalog_get, or with restricted = 1 the catalog as the limited and aggregate
 * access levels see it (store/level.h): tables of schema public (the ones with views), without
 * the columns those levels may not read (direct identifiers, unclassified columns,
 * quasi-identifiers without a generalisation) and so without their values and join edges.
 * Retrieval, prompts and the planner then never offer such a column.  Cached apart. */
struct catalog *catalog_get_level(PGconn *app, const char *target, int restricted, char *err, size_t errlen);

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
	const char *how;             /* "exact", "synonym", "prefix", "trigram", "concept" */
	double score;
};
struct ret_similar { const char *question, *sql; double score; };

struct ret_concept { const char *name, *ko, *definition, *sql; };

struct retrieval {
	enum intent intent;
	struct ret_table *tables; int ntables;       /* at most 10, best first */
	struct ret_column *columns; int ncolumns;    /* at most 10, best first */
	struct ret_path *paths; int npaths;          /* join paths between chosen tables */
	struct ret_value *values; int nvalues;
	struct ret_similar *similar; int nsimilar;
	char **suggestions; int nsuggestions;        /* when nothing matched */
	char *prompt_block;                          /* schema/ontology text within the budget */
	struct ret_concept *concepts; int nconcepts; /* ontology terms found in the question */
	int prompt_tokens;                           /* estimated tokens of prompt_block */
	void *_mem;                                  /* owner of every string above */
};

struct retrieval_opts {
	int k;                  /* top-k tables/columns; 0: 10 */
	int token_budget;       /* prompt_block budget; 0: 1500 */
	const char *hyde_text;  /* a hypothetical answer from an LLM (HyDE axis); NULL: axis off */
	int whole_schema_tokens; /* the block is the whole schema when it fits this many tokens;
	                          * 0: 5000 (conf context_whole_schema_tokens); < 0: never */
	int llm_policy;         /* enum llm_policy (catalog/llm_policy.h) of the model the block is
	                         * for: which stored values prompt_block may show (category values,
	                         * dictionary labels, value mappings, value metadata, literals of
	                         * verified queries); 0: every value (the offline planner, eval).
	                         * Only the block is filtered: values, similar stay whole. */
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

/*
 * catalog_similar: up to k verified question-SQL pairs of the cached catalog whose
 * question is at least min_score similar (cosine of embeddings) to question, best first.
 * Strings point into the catalog (valid until the next catalog_get).  Returns the count.
 */
int catalog_similar(struct catalog *cat, const char *question, int k, double min_score,
                    struct ret_similar *out);
/*
 * catalog_verified_add: record that sql answered question on target (success=1) or was
 * used but failed (success=0): inserts the pair or bumps success_count/use_count, and
 * bumps the target's verified_version so workers refresh.  The embedding uses the
 * target's provider/dimension.  OK, or ERR_NOTFOUND (target not indexed) / ERR_DB.
 */
enum err catalog_verified_add(PGconn *app, const char *target, const char *question,
                              const char *sql, int success, char *err, size_t errlen);
/*
 * catalog_verified_remove: delete the pair (question, sql) of target, if present, and bump the
 * target's verified_version so workers refresh.  OK also when there was no such pair; ERR_DB.
 */
enum err catalog_verified_remove(PGconn *app, const char *target, const char *question,
                                 const char *sql, char *err, size_t errlen);
/*
 * catalog_fk_decide: an admin confirms ("confirmed") or removes ("removed") a join edge
 * from_col ("table.column" or "schema.table.column") -> to_col; kept across re-indexing,
 * bumps the catalog version.  ERR_NOTFOUND when the edge is unknown.
 */
enum err catalog_fk_decide(PGconn *app, const char *target, const char *from_col,
                           const char *to_col, const char *decision, char *err, size_t errlen);
/*
 * catalog_edit: an admin's change to the catalog of one indexed target: a synonym of a table or
 * column, a value mapping (phrase -> a stored value of a column) or a description (English or
 * Korean) of a table or column.  In one transaction it changes the askql.cat_* row and the stored
 * metadata (so retrieval and the offline planner see it on the next question), keeps the decision
 * in askql.catalog_edits (applied again by every `askql index` of the target, so it survives
 * re-indexing; a removal also removes a synonym the metadata file, the docs or the lexicon gave),
 * bumps askql.cat_targets.version and writes an askql.audit row (action catalog.<kind>.<add|edit|
 * remove|set>, detail with target, table, column, phrases, value, language and the new version).
 * *version (may be NULL) gets the new catalog version, -1 on failure.
 * Returns OK; ERR_INPUT or ERR_NOTFOUND with a reason word in err that the caller translates
 * ("empty", "too_long", "no_value": no such stored value, "exists": the phrase is already there,
 * "not_found": no such table, column or phrase, "not_indexed", "bad_lang"); ERR_DB with the
 * database's text.  Phrases, values and texts are taken without leading and trailing white space.
 * Nothing is changed unless OK is returned.
 */
enum cat_edit_kind { CAT_EDIT_SYNONYM = 0, CAT_EDIT_MAPPING, CAT_EDIT_DESCRIPTION };
struct catalog_edit {
	const char *target;       /* an indexed target's name */
	const char *table;        /* as the catalog names it: "t" in public, else "schema.t" */
	const char *column;       /* NULL or "": the table itself (mappings need a column) */
	enum cat_edit_kind kind;
	const char *phrase;       /* the synonym or mapping phrase; a description's text ("": none) */
	const char *value;        /* a mapping's stored value */
	const char *old_phrase;   /* an edit: the phrase it replaces (NULL: an addition) */
	const char *old_value;    /* an edited mapping's previous value (NULL: the same value) */
	int remove;               /* 1: remove phrase (synonyms and mappings) */
	const char *lang;         /* descriptions: "en" or "ko" */
	long long user_id;        /* who, for the audit row (0: nobody, e.g. the CLI) */
};
enum err catalog_edit(PGconn *app, const struct catalog_edit *e, long *version, char *err, size_t errlen);
/*
 * catalog_suggest_columns: for a name PostgreSQL reported missing ('column "region" does not
 * exist', react-framework.md 5.3) or any phrase, up to max "table.column" names of the
 * catalog that it most likely meant: name/synonym matches of its words, then spelling
 * (trigram similarity of column names).  Strings point into the catalog.  Returns the count.
 */
int catalog_suggest_columns(struct catalog *cat, const char *name, const char **out, int max);
/* A table (column NULL) or column of a catalog that an SQL text uses; strings point into the catalog. */
struct cat_ref { const char *table, *column; };
/*
 * catalog_sql_refs: the catalog's tables and columns that sql uses, at most max into out;
 * returns the count.  Parsed with libpg_query (aliases resolved; a bare column belongs to the
 * first table of the query that has it); SQL it does not parse (e.g. SQLite dialect) falls back
 * to matching identifiers against the catalog's names, and *parsed says which was used.
 */
int catalog_sql_refs(struct catalog *cat, const char *sql, struct cat_ref *out, int max, int *parsed);
/* catalog_table_columns: every column of table (its catalog name, bare or "public."-qualified) in
 * the catalog's order, at most max into out; returns the count, 0 for a table it does not know.
 * What a "table.*" or "*" reads (the access audit); strings point into the catalog. */
int catalog_table_columns(struct catalog *cat, const char *table, struct cat_ref *out, int max);
/* catalog_block_names: 1 when a prompt block has the section "Table: table" and (column not
 * NULL) names column in it, in full or among "(other columns: ...)". */
int catalog_block_names(const char *block, const char *table, const char *column);
/* catalog_info: version, embedding provider and dimension, memory footprint of a cached catalog. */
long catalog_version(const struct catalog *cat);
const char *catalog_embed_provider(const struct catalog *cat);
int catalog_embed_dim(const struct catalog *cat);
size_t catalog_bytes(const struct catalog *cat);
/* catalog_now_ref: the reference "now" recorded for the target (metadata reference_time), or NULL. */
const char *catalog_now_ref(const struct catalog *cat);

#endif
