/* critique.h: the clinical case critique graph (critique-graph.md): state, nodes, tools, driver. */
#ifndef ASKQL_CRITIQUE_H
#define ASKQL_CRITIQUE_H

#include <stddef.h>
#include <libpq-fe.h>
#include "util/err.h"

struct cJSON;
struct llm;

/*
 * The graph state (the seed's AgentState).  Every section is a cJSON tree owned by
 * the state; crit_state_free releases them all.  A node reads earlier sections and
 * writes its own; nothing else is shared between nodes.
 */
struct crit_state {
	/* input: exactly one of caseid (> 0) or text */
	long long caseid;
	char *text;                     /* heap; pasted chart text (Korean or English) */
	char *case_ref;                 /* heap; "case 17" or "text" */

	/* environment (not owned) */
	struct llm *llm;                /* NULL: offline, every node deterministic */
	PGconn *app;                    /* app database for run/step storage; NULL: not recorded */
	long long run_id;               /* 0: steps are only kept in memory */
	const char *conninfo;           /* target conninfo for exec_fetch; NULL: conf default */
	const char *docs_dir;           /* knowledge base root; NULL: conf docs_dir */
	const char *metadata_file;      /* ontology with normal ranges; NULL: conf metadata_file */
	int tool_budget;                /* critic run_tools budget; <0: conf critique_tool_budget */
	PGconn *kb_app;                 /* where the indexed knowledge base is read; NULL: files */
	const char *target;             /* catalog name of the target; NULL: conf target_name */
	struct crit_kb *kb;             /* opened by the evidence node, owned by the state */
	struct cJSON *ranges;           /* {"sbp":{"lo":90,"hi":140,"unit":"mmHg","label":..}, ...} */

	/* sections, in graph order (main state keys of the seed) */
	struct cJSON *structured_chart;
	struct cJSON *evidence;                 /* {"queries":[..],"items":[{source,score,text,query}],"remote":{..}} */
	struct cJSON *similar_cases;            /* [{caseid,age,asa,optype,dx,outcome..}] */
	struct cJSON *diagnosis_analysis;
	struct cJSON *treatment_analysis;
	struct cJSON *evidence_2nd;
	struct cJSON *intervention_coverage;
	struct cJSON *selected_agents;          /* ["risk_factor", ...] */
	struct cJSON *risk_factor_analysis;     /* NULL when not selected */
	struct cJSON *process_contributor_analysis;
	struct cJSON *critique;                 /* {preprocessing, selected_tools, tool_results, points} */
	struct cJSON *solutions;                /* verifier; NULL when no similar cases */
	struct cJSON *alternative_explanations;
	struct cJSON *nodes;                    /* [{name,kind,status,reason,ms,llm}] in order run */
	struct cJSON *llm_log;                  /* [{node, prompt}] prompts sent (for tests/report) */
};

/* crit_state_init: zero st and set defaults (tool_budget from conf). */
void crit_state_init(struct crit_state *st);
/* crit_state_free: release every section and the input copies; st is reusable after init. */
void crit_state_free(struct crit_state *st);

/*
 * crit_run_graph: run the whole main graph on st (input already set), recording every
 * node and tool as a step of st->run_id when st->app is set.  A node that fails is
 * recorded as 'error' and the graph continues with what it has; returns OK unless
 * the input cannot be read at all (ERR_NOTFOUND for an unknown case, ERR_INPUT).
 */
enum err crit_run_graph(struct crit_state *st, char *err, size_t errlen);

/*
 * crit_critique: the whole job behind CLI and web: open run (kind 'critique') when app
 * is non-NULL, run the graph, build the report, store it in askql.reports.
 * caseid > 0 or text non-NULL.  *report_json (heap, caller frees) is the report;
 * *run_id and *report_id receive ids (0 when not stored).
 */
struct crit_request {
	long long caseid;
	const char *text;
	long long user_id;
	const char *target;             /* catalog / run target name; NULL: conf target_name */
	int use_llm;                    /* 1: llm_open(conf provider) unless it is "builtin" */
};
enum err crit_critique(PGconn *app, const struct crit_request *rq, char **report_json,
                       long long *run_id, long long *report_id, char *err, size_t errlen);

/* crit_report_json: the report object of a finished state (caller cJSON_Delete()s). */
struct cJSON *crit_report_json(const struct crit_state *st);

/* ---- nodes of the main graph (each records its own step) ---- */
enum err crit_chart_structurer(struct crit_state *st);
enum err crit_evidence(struct crit_state *st);
enum err crit_diagnosis_treatment(struct crit_state *st);   /* both, concurrently with an LLM */
enum err crit_diagnosis(struct crit_state *st);             /* deterministic part, no step */
enum err crit_treatment(struct crit_state *st);             /* deterministic part, no step */
enum err crit_evidence_2nd(struct crit_state *st);
enum err crit_intervention_checker(struct crit_state *st);
enum err crit_agent_router(struct crit_state *st);
enum err crit_run_conditional_agents(struct crit_state *st);
enum err crit_risk_factor(struct crit_state *st);
enum err crit_process_contributor(struct crit_state *st);
enum err crit_critic(struct crit_state *st);                /* subgraph + verifier */
enum err crit_verifier(struct crit_state *st);
enum err crit_alternative_explanation(struct crit_state *st);

/* ---- critic subgraph tools: each returns its result (caller owns) ---- */
struct cJSON *crit_tool_timeline(const char *text);
struct cJSON *crit_tool_evidence(const char *text);
/* record_gaps over series [{name, points:[{t,..}]}] or timeline events; gap_min minutes. */
struct cJSON *crit_tool_record_gaps(const struct cJSON *chart, const struct cJSON *timeline, int gap_min);
struct cJSON *crit_tool_lens_severity_risk(const struct crit_state *st, const struct cJSON *pre);
struct cJSON *crit_tool_lens_diagnostic_consistency(const struct crit_state *st, const struct cJSON *pre);
struct cJSON *crit_tool_lens_monitoring_response(const struct crit_state *st, const struct cJSON *pre);
struct cJSON *crit_tool_behavior_topk_direct_compare(const struct crit_state *st, const struct cJSON *pre);
/* crit_route_tools: the critic router's heuristic choice (array of tool names). */
struct cJSON *crit_route_tools(const struct crit_state *st, const struct cJSON *pre);
/* crit_route_agents: agent_router's heuristic choice (array of agent names). */
struct cJSON *crit_route_agents(const struct crit_state *st);

/* ---- shared helpers (common.c, kb.c, text.c) ---- */

/* crit_step: record a node/tool as a step (kind "node" or "tool", status ok/skipped/error/
 * degraded) and append it to st->nodes.  output is borrowed (serialised).  reason may be NULL. */
void crit_step(struct crit_state *st, const char *kind, const char *name, const char *status,
               const char *reason, const struct cJSON *output, const char *prompt,
               const char *raw, double ms, int used_llm);
double crit_now_ms(void);

/* crit_llm_prepare: the messages for node prompt critique_<node> (active version from askql.prompts
 * via prompt_get, else the file) with payload (borrowed) put in place of {{payload}}; heap
 * strings *sys and *user.  ERR_NOTFOUND without prompt.  app may be NULL. */
enum err crit_llm_prepare(PGconn *app, const char *node, const struct cJSON *payload, char **sys, char **user);
/* crit_llm_ask: one LLM call for node; *answer (caller owns) is the parsed JSON object of
 * the reply or {"text": reply}; *raw the reply text (heap).  Records the prompt in llm_log. */
enum err crit_llm_ask(struct crit_state *st, const char *node, const struct cJSON *payload,
                      struct cJSON **answer, char **prompt, char **raw);
/* crit_parse_answer: a reply text as JSON (first {...} block) or {"text": reply}. */
struct cJSON *crit_parse_answer(const char *reply);

/* crit_time_parse: "YYYY-MM-DD HH:MM[:SS]" or "HH:MM" to seconds (UTC epoch / since midnight);
 * -1 when not a time. */
long long crit_time_parse(const char *s);
/* crit_time_hm: seconds to "HH:MM" in buf (buf >= 6). */
const char *crit_time_hm(long long t, char *buf, size_t n);

/* crit_ranges_load: normal ranges from the metadata file merged over built-in defaults
 * (each entry says its source).  Caller owns the result. */
struct cJSON *crit_ranges_load(const char *metadata_file);
/* crit_range: lo/hi/unit for a parameter name (case-insensitive); 0 when unknown. */
int crit_range(const struct cJSON *ranges, const char *name, double *lo, double *hi, const char **unit);

/* crit_sql_fetch: guard + exec_fetch with st->conninfo (NULL: conf default; crit_critique sets
 * the requester's access level); returns an array of row objects (column -> string or null) or
 * NULL with err.  When st->app is set, one askql.access_audit row per statement (run st->run_id). */
struct cJSON *crit_sql_fetch(const struct crit_state *st, const char *sql, char *err, size_t errlen);
/* crit_sql_quote: sql string literal of s into a heap string ('' doubled). */
char *crit_sql_quote(const char *s);

/* The local knowledge base: the Markdown documents the catalog indexed for target
 * (askql.cat_docs), or when there are none the files under docs_dir, split at headings.
 * crit_kb_open: load it (app/target may be NULL: files only); crit_kb_close frees it. */
struct crit_kb;
struct crit_kb *crit_kb_open(PGconn *app, const char *target, const char *docs_dir);
void crit_kb_close(struct crit_kb *kb);
const char *crit_kb_origin(const struct crit_kb *kb);   /* "catalog" or "files" */
/* crit_kb_query: hybrid search (BM25 words + builtin-embedding cosine, fused by RRF k=60):
 * [{source, file, heading, score, bm25, cosine, origin, text}] best first, at most k; only
 * chunks sharing a word with the query.  crit_kb_search: open (files), query, close. */
struct cJSON *crit_kb_query(struct crit_kb *kb, const char *query, int k);
struct cJSON *crit_kb_search(const char *docs_dir, const char *query, int k);
/* crit_evidence_collect: search the knowledge base for each query string, adding new sources to
 * items with ids K<n> (pass "1st") or K2-<n> (pass "2nd"). */
void crit_evidence_collect(struct crit_state *st, struct cJSON *queries, struct cJSON *items, const char *pass);
/* crit_finding_topic: the topic words ('|' between) of a finding (param, direction "low"/"high"),
 * e.g. "hypotension" for a low sbp; NULL for an unknown param.  crit_kb_on_topic: 1 when a
 * knowledge item's file name or heading holds one of the topic's words: the document is about
 * the finding, not merely retrieved beside it. */
const char *crit_finding_topic(const char *param, const char *dir);
int crit_kb_on_topic(const struct cJSON *item, const char *topic);
/* crit_sentences: sentence offsets of t (at most max). */
int crit_sentences(const char *t, size_t *starts, size_t *ends, int max);
/* crit_remote_search: the optional PubMed-style endpoint (conf critique_pubmed_url);
 * {"status":"off"|"ok"|"error", "items":[..], "error":..}.  Never fails. */
struct cJSON *crit_remote_search(const char *query);

/* Drug classes (drugs.c) from the data file conf drug_classes_file (conf/critique/drug_classes.tsv,
 * its header names the sources): "opioid", "hypnotic", "neuromuscular_blocker", "reversal",
 * "antibiotic", "colloid", "crystalloid", "blood", "vasopressor", "antiemetic", ... or "other".
 * crit_drugs_parse: the table of a file's text; NULL with err (naming the line) when a line is
 * malformed, a class is defined twice or a drug names an undeclared class.  crit_drugs_load: the
 * same from a path.  Caller crit_drugs_free()s.  crit_drugs_class: the class id of a medication
 * name (the longest matching name wins; names under 4 bytes only as whole words; "other" when
 * none); crit_drugs_label: a class's name in lang ("ko" or else English); crit_drugs_atc: its ATC
 * groups ("" when unknown).  Returned strings belong to the table. */
struct crit_drugs;
struct crit_drugs *crit_drugs_parse(const char *text, char *err, size_t errlen);
struct crit_drugs *crit_drugs_load(const char *path, char *err, size_t errlen);
void crit_drugs_free(struct crit_drugs *t);
const char *crit_drugs_class(const struct crit_drugs *t, const char *drug);
const char *crit_drugs_label(const struct crit_drugs *t, const char *cls, const char *lang);
const char *crit_drugs_atc(const struct crit_drugs *t, const char *cls);
/* crit_drugs_get: the process's table of conf drug_classes_file, loaded on first use (thread-safe,
 * read-only afterwards); NULL when it could not be loaded (logged).  crit_drug_class and
 * crit_drug_class_label ask it. */
const struct crit_drugs *crit_drugs_get(void);
const char *crit_drug_class(const char *drug);
const char *crit_drug_class_label(const char *cls, const char *lang);
/* crit_responsive_classes: comma list of drug classes that answer a finding (param, dir). */
const char *crit_responsive_classes(const char *param, const char *dir);
/* crit_comorbidity: the chronic condition an ICD-10 code stands for ("hypertension",
 * "diabetes", "malignancy", ...), NULL when it is not one that raises perioperative risk. */
const char *crit_comorbidity(const char *code);
/* crit_param_label: a readable name for a parameter code ("lac" -> "lactate"). */
const char *crit_param_label(const struct cJSON *ranges, const char *param);

/* crit_chart_values: how many measured values the structured chart holds (all series). */
int crit_chart_values(const struct cJSON *chart);

/* Offline sentences in both languages.  crit_say: o[key] = en and o[key "_ko"] = ko (en when ko
 * is NULL); the report view shows the one of the reader's language (report_view).  crit_ko:
 * o[key "_ko"] when present, else o[key]; NULL when neither.  crit_param_ko: the Korean name of a
 * parameter code ("sbp" -> "수축기 혈압"), else the English label.  crit_dir_ko: "낮음" / "높음".
 * crit_classes_ko: a comma list of drug class ids as Korean names into buf (returns buf). */
void crit_say(struct cJSON *o, const char *key, const char *en, const char *ko);
const char *crit_ko(const struct cJSON *o, const char *key);
const char *crit_param_ko(const struct cJSON *ranges, const char *param);
const char *crit_dir_ko(const char *dir);
const char *crit_classes_ko(const char *list, char *buf, size_t n);

/* cJSON conveniences used across nodes */
double crit_num(const struct cJSON *o, const char *key, double def);
const char *crit_str(const struct cJSON *o, const char *key);

#endif
