/* planner.h: the offline (no-LLM) NL->SQL planner: a small semantic parser behind the builtin provider. */
#ifndef ASKQL_PLANNER_H
#define ASKQL_PLANNER_H

#include <stddef.h>
#include "util/err.h"

struct catalog;
struct retrieval;

/* One earlier attempt of this run, so the planner can correct itself (react-framework 5.3). */
struct planner_attempt {
	const char *sql;               /* the SQL that was tried */
	const char *error;             /* "SQLSTATE: message (hint)" or NULL when it ran */
	const char *missing_column;    /* from exec_error, may be NULL */
	const char *missing_relation;  /* from exec_error, may be NULL */
	const char *suggested;         /* "T.C" from the PostgreSQL hint, may be NULL */
	int empty_result;              /* 1: it ran but returned no rows */
};

/* An analyst's edit of the plan in step mode. */
enum planner_edit_op { PLAN_ADD_TABLE, PLAN_REMOVE_TABLE, PLAN_ADD_MAPPING, PLAN_REMOVE_MAPPING,
                       PLAN_REMOVE_COLUMN };
struct planner_edit {
	enum planner_edit_op op;
	const char *table;             /* all ops */
	const char *column;            /* mappings, PLAN_REMOVE_COLUMN */
	const char *value;             /* mappings: the stored value */
	const char *phrase;            /* mappings: the words of the question, may be NULL */
};

struct planner_ctx {
	/* Reference time for relative expressions ("this year", "지난 24시간"):
	 * "YYYY-MM-DD HH:MM:SS"; NULL: the current time. */
	const char *now;
	/* conninfo of the target (read-only role) for the schema snapshot and value
	 * checks; NULL: conf target_ro_db, else target_db. */
	const char *conninfo;
	const struct planner_attempt *attempts; int nattempts;   /* oldest first */
	const char *prev_question, *prev_sql;                    /* follow-up context, may be NULL */
	int amend;              /* the question is an analyst's change to prev_question (a step-mode
	                         * comment: 칼륨만, 환자 기준): always read together with it */
	const struct planner_edit *edits; int nedits;
	int aggregate_form;     /* 1: the run reads at the aggregate access level: the plan is written in
	                         * the safe aggregate form (sql/suppress.h; planner_form.c), questions
	                         * about rows or single patients are declined saying so */
};

struct cov_reading;
struct planner_out {
	char *sql;             /* heap; NULL when unanswerable */
	int unanswerable;      /* 1: declined; reason says what is missing */
	char *reason;          /* heap; why declined (names what it found and what is missing) */
	char *explanation;     /* heap; human-readable plan: "average of hr per subjectid, ..." */
	char *decisions_json;  /* heap; JSON array of {"span","kind","target","why","score"} */
	char *intent;          /* heap; "aggregation", "ranking", ... */
	double confidence;     /* 0..1: the shape's prior times how surely its words were linked */
	const char *shape;     /* static: the question shape that framed the plan, NULL when none did */
	struct cov_reading *reading;   /* heap: what the question's words ask of any SQL (agent/coverage.h),
	                                * NULL when the question was not linked */
};

/*
 * planner_plan: parse question, link its spans to the catalog through r (and the
 * target's schema snapshot, loaded once per process and conninfo), decide the
 * structure, and print one SELECT.  cat and r may be NULL (the planner then links
 * against the snapshot only).  Returns OK with either out->sql or
 * out->unanswerable=1 (+reason); ERR_NOMEM, ERR_INPUT (empty question), ERR_DB
 * (target unreachable for the snapshot) otherwise.  out is always fully
 * initialised; release it with planner_out_free.
 */
enum err planner_plan(struct catalog *cat, const struct retrieval *r, const char *question,
                      const struct planner_ctx *ctx, struct planner_out *out);
void planner_out_free(struct planner_out *out);

/* planner_split_difference: "the difference between the total input and output of patient 7" ->
 * *first "the total input of patient 7", *second "the total output of patient 7" (heap); 1 when q
 * asks the difference between two things, else 0 (both NULL).  planner_compose.c */
int planner_split_difference(const char *q, char **first, char **second);
/* planner_split_new_since: "the new prescriptions of patient 7 today compared to yesterday" ->
 * *first "the prescriptions of patient 7 today", *second "the prescriptions of patient 7
 * yesterday" (heap); 1 when q asks what is new in one period against the one before it */
int planner_split_new_since(const char *q, char **first, char **second);

/* planner_reset: forget cached schema snapshots (tests; after re-indexing). */
void planner_reset(void);

#endif
