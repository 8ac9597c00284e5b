/* run_state.h: the typed state of one run: what a paused run needs to go on, saved as JSON only when it pauses or ends (docs/architecture.md). */
#ifndef ASKQL_RUN_STATE_H
#define ASKQL_RUN_STATE_H

#include <cjson/cJSON.h>
#include "util/err.h"

enum run_mode { RUN_EXTRACT, RUN_REACT };
/* what the extraction loop does next */
enum run_next { NEXT_INSPECT, NEXT_PLAN, NEXT_EXEC };
/* the step a paused run waits at (RUN_STAGE_NONE: not paused) */
enum run_stage { RUN_STAGE_NONE, RUN_STAGE_PLAN, RUN_STAGE_SQL, RUN_STAGE_SUBMIT };

struct run_state {
	enum run_mode mode;
	char *target, *provider, *question, *now;   /* never NULL ("" when not given) */
	char *scope;            /* the asker's role scope ("analyst", "admin", "cli"); part of the cache key */
	char *model;            /* the model of the provider last opened for the run; part of the cache key */
	int step_mode;          /* the analyst confirms each consequential step */
	int no_cache;           /* neither read nor write the query cache */
	int edited;             /* an analyst shaped the run (SQL or plan edit, rejection, edited parent):
	                         * its SQL is never shared (docs/shared-memory.md) */
	int attempt, max_retries;
	int from_cache;         /* pending_sql came from the query cache */
	enum run_next next;
	enum run_stage stage;
	char *pending_sql;      /* the SQL about to run; never NULL ("" when none) */
	/* the structured parts, still JSON documents: plan {tables,columns,joins,mappings,block,
	 * intent}, edits [..], parent {id,question,sql,columns,row_count}, history [{attempt,sql,
	 * error,...}], pause {stage,...}, react {..} (react.c) */
	cJSON *doc;
};

/* run_state_init: a new run's state (strings copied; NULL means ""; scope and model ""). ERR_NOMEM. */
enum err run_state_init(struct run_state *s, enum run_mode mode, const char *target, const char *provider,
                        const char *question, const char *now);
/* run_state_load: parse a saved state (runs.state).  ERR_PARSE when json is not an object of
 * this shape; s is then empty and needs no free. */
enum err run_state_load(const char *json, struct run_state *s);
/* run_state_json: the whole state as one JSON text (heap; NULL on no memory).  The keys are the
 * ones pages read (stage, pause, question, plan ...). */
char *run_state_json(const struct run_state *s);
void run_state_free(struct run_state *s);
/* run_state_set: replace a string field with a copy of v (NULL: ""); 0, or -1 on no memory
 * (the field keeps its old value). */
int run_state_set(char **field, const char *v);
const char *run_mode_name(enum run_mode m);
const char *run_stage_name(enum run_stage st);   /* NULL for RUN_STAGE_NONE */
enum run_stage run_stage_of(const char *name);    /* RUN_STAGE_NONE when unknown */

#endif
