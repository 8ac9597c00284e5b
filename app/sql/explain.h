/* explain.h: EXPLAIN (FORMAT JSON) of guarded SQL walked in C: plain-language findings, suggestions, hypothetical-index checks. */
#ifndef ASKQL_EXPLAIN_H
#define ASKQL_EXPLAIN_H

#include "sql/exec.h"
#include "util/err.h"

enum explain_kind {
	EXPLAIN_SEQ_SCAN,       /* sequential scan over more than 10,000 rows */
	EXPLAIN_NESTED_LOOP,    /* nested loop whose inner side is re-run many times */
	EXPLAIN_SORT_SPILL,     /* sort estimated larger than work_mem: spills to disk */
	EXPLAIN_HASH_SPILL,     /* hash table estimated over hash memory: joins in batches */
	EXPLAIN_HIGH_COST       /* overall estimate is large */
};

struct explain_finding {
	enum explain_kind kind;
	int warning;            /* 1: a problem; 0: information */
	char *node;             /* "Seq Scan on vital_data_table v" */
	char *text;             /* what the planner will do, in plain words */
	char *suggestion;       /* what to change */
	double rows;            /* rows the node reads (scans) or produces */
	/* a suggested index (index_table NULL: none) */
	char *index_table;
	char *index_columns;    /* "sbp" or "caseid, dt" as written in CREATE INDEX */
	int index_checked;      /* 1: tried as a hypothetical index (hypopg) */
	int index_used;         /* 1: the planner chose it */
	double cost_with;       /* total cost with the hypothetical index */
};

struct explain_result {
	double startup_cost, total_cost, plan_rows;
	int plan_width;
	long work_mem_kb;
	struct explain_finding *findings;
	int nfindings;
	int efficient;          /* 1: no warnings */
	char *plan_json;        /* EXPLAIN's own output; heap */
	char *hypo_note;        /* why indexes could not be checked (NULL: checked or none) */
};

struct explain_opts {
	const char *conninfo;       /* EXPLAIN runs here, read-only; NULL: exec_conninfo() */
	const char *hypo_conninfo;  /* hypopg checks (needs CREATE EXTENSION): NULL: conf
	                             * target_db unless conf explain_hypopg = 0; "": none */
	int (*relation_ok)(void *ctx, const char *schema, const char *name);
	void *relation_ctx;
};

/* Table size lookup for the analysis: estimated rows in rel (-1 unknown). */
typedef double (*explain_rows_fn)(void *ctx, const char *rel);

/*
 * explain_analyze: walk plan_json (EXPLAIN (FORMAT JSON) output) and fill res with the
 * findings.  work_mem_kb sizes the spill checks (0: 4096).  table_rows may be NULL.
 * No database needed.  ERR_PARSE when plan_json is not an EXPLAIN document.
 * res must be zeroed; release with explain_free.
 */
enum err explain_analyze(const char *plan_json, long work_mem_kb, explain_rows_fn table_rows,
                         void *rows_ctx, struct explain_result *res);

/*
 * explain_run: guard sql (no LIMIT added: the plan is the full query's), EXPLAIN it
 * (never ANALYZE) inside a READ ONLY transaction on the executor's role, analyze, then
 * try each suggested index with hypopg on hypo_conninfo inside a transaction that is
 * rolled back.  At the aggregate level (o->conninfo logs in with an _aggregate role) sql must be
 * in the safe aggregate form first (exec_suppress_form): outside it ERR_DENIED with the form's
 * reason; inside it the rewritten statement is planned, without hypopg.  Returns OK, ERR_DENIED
 * (reason in dberr->message), ERR_DB/ERR_NET (dberr filled).  The hypopg step never fails the call: its trouble goes to hypo_note.
 */
enum err explain_run(const char *sql, const struct explain_opts *o, struct explain_result *res,
                     struct exec_error *dberr);

void explain_free(struct explain_result *res);

/*
 * The memory gate (issue 27, docs/executor-limits.md): work_mem does not bound the state of an
 * accumulating aggregate (array_agg, string_agg, json_agg, jsonb_agg, their _object_ forms,
 * xmlagg), so a plain aggregate over a generated series can take gigabytes in one backend.  Before
 * a statement runs, its plan's estimates are checked against limits; 0 in a limit: not checked.
 */
enum explain_gate_kind {
	GATE_OK = 0,
	GATE_AGG_ROWS,      /* an accumulating aggregate would read more rows than max_agg_rows */
	GATE_SERIES_ROWS,   /* generate_series would produce more rows than max_series_rows */
	GATE_COST           /* the plan's total cost is over max_cost */
};
struct explain_gate_limits {
	double max_agg_rows, max_series_rows, max_cost;
};
struct explain_gate_out {
	enum explain_gate_kind kind;
	double value, limit;    /* the estimate and the limit it passed */
	char func[32];          /* GATE_AGG_ROWS/GATE_SERIES_ROWS: the function ("array_agg") */
};
/*
 * explain_gate: walk plan_json, the output of EXPLAIN (VERBOSE, FORMAT JSON) (VERBOSE: the
 * aggregates' calls are in each node's Output), and fill *out with the first limit passed: the
 * rows into an Aggregate or WindowAgg node whose Output calls an accumulating aggregate (the
 * estimated rows of its input plans), the rows of a Function Scan or ProjectSet calling
 * generate_series, the root's Total Cost.  OK (out->kind GATE_OK when none), ERR_PARSE when
 * plan_json is not an EXPLAIN document.  No database needed.
 */
enum err explain_gate(const char *plan_json, const struct explain_gate_limits *lim, struct explain_gate_out *out);
/* explain_gate_needs_verbose: plan_json (EXPLAIN (FORMAT JSON), no VERBOSE) has a node whose
 * aggregates or set-returning functions only a VERBOSE plan names (Aggregate, WindowAgg,
 * ProjectSet): 1, else 0.  A VERBOSE plan prints every constant the planner folded, so it is asked
 * for only then (docs/executor-limits.md). */
int explain_gate_needs_verbose(const char *plan_json);
/* explain_gate_text: why the gate refused, one English sentence naming the setting (heap). */
char *explain_gate_text(const struct explain_gate_out *out);
/* explain_json: {"total_cost":..,"rows":..,"efficient":b,"findings":[{"kind","severity",
 * "node","text","suggestion","index":{"table","columns","checked","used","cost_with"}}],
 * "hypopg_note":..} for the agent and the UI.  Heap string. */
char *explain_json(const struct explain_result *res);
/* explain_text: the same for people, several lines.  Heap string. */
char *explain_text(const struct explain_result *res);
const char *explain_kind_name(enum explain_kind k);

#endif
