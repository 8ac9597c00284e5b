/* planner_front.h: the offline planner's front end, shared by its files: the frame a question is
 * read into, the planner's state, and the helpers the passes and the question shapes use
 * (docs/architecture.md, "The offline planner"). */
#ifndef ASKQL_PLANNER_FRONT_H
#define ASKQL_PLANNER_FRONT_H

#include <time.h>
#include "agent/planner_int.h"
#include "agent/planner_link.h"
#include "agent/planner_time.h"
#include "catalog/catalog.h"

#define MAXF 24
#define NPROJ 12                     /* projected columns at most (sel[16] leaves room for keys) */

/* What the structure pass decided, before it becomes a SQL tree. */
/* An event window the question says (planner_event.c): what was measured before, after or during
 * an event of care, said by tokens [t0, t1). */
enum { EV_BEFORE, EV_AFTER, EV_DURING, EV_NREL };
struct ev_window { int rel; int t0, t1; };

struct frame {
	int fact;                    /* table index */
	const char *agg;             /* "COUNT", "AVG", ... or NULL */
	const char *agg2[3];         /* the summary shape: further aggregates, in the order asked */
	int nagg2;
	int count_entity;            /* COUNT(DISTINCT entity) */
	/* per-entity totals (shape_entity_total.c): agg is taken over one figure per value of this
	 * column of the fact table (a stay's or a patient's key): SUM(measure), or COUNT(*) when
	 * total_rows; -1 none */
	int entity_total, total_rows;
	int count_col;               /* COUNT(DISTINCT this column): "how many different drugs"; -1 none */
	int entity_counted;          /* entity_col came from the word a count word is attached to */
	int stay_tok;                /* 1 + the token of 입원/admission said of a visits table that also records
	                              * other kinds of visits; 0 none (pf_stay_kind_check) */
	int rows_tab;                /* the table whose rows the count word names ("how many admissions":
	                              * the visits), -1 none */
	/* entity words whose link to a table was taken for the entity ("수술" -> operation): which
	 * table and token, so the reading can still ask for that table when another entity is what is
	 * counted or listed ("수술한 환자 목록": the patients who have operations) */
	int ent_tab[4], ent_tok[4], nent_tab;
	int rate_from, rate_n;       /* a rate (사망률): cond[rate_from .. +rate_n) is its numerator, not a filter */
	int rate_link;               /* "percentage of admissions that ended in death": the link (pl index) of the
	                              * stored value that is the numerator, -1 none */
	int rate_cmp;                /* "what % of robotic cases had icu days > 0": the token of the comparison
	                              * that is the numerator, -1 none (planner_screen.c) */
	int dur_start, dur_end;      /* a duration measure (수술 시간): end - start in minutes; -1: none */
	int dur_unit;                /* ... said in this unit ("in hours"): 'd', 'h', 'i' minutes, 's'; 0 not said */
	int dur_days;                /* ... a length of stay instead: end date - start date in days; 2:
	                              * the time between them in days with their fraction */
	int measure;                 /* column aggregated or projected, -1 */
	int measure_age;             /* ... a birth date, aggregated as the age in years at "now" */
	int proj[NPROJ]; int nproj;  /* projected columns */
	int group[3]; int ngroup;    /* group-by columns */
	int group_src[3];            /* ... each said by this column + 1 (a dictionary's key, or the
	                              * label itself); 0 not recorded (planner_bind.c add_group) */
	int order;                   /* +1 first (ASC), -1 last (DESC), 0 none */
	int order_col;
	int order2, order2_col, extreme;
	long offset;                 /* rows skipped before the limit: the second value is offset 1 */
	int ties;                    /* the first/last rows: every row at that time, not one of them */
	/* two rows of one measure combined (shape_pair.c): 'd' the first pick's value minus the
	 * second's, '<' / '>' the first compared with the second, 'e' the time elapsed since the first
	 * pick, in pair_unit ('h' hours, 'd' days); 0 none.  A pick: its time order (+1 earliest
	 * first, -1 latest first) and the rows skipped (1: the second, the second to last) */
	int pair, pair_unit;
	/* "patients admitted 3 or more times" (shape_having.c): rows per patient or stay compared
	 * with having_n by having_op; NULL none */
	const char *having_op, *having_n;
	int having_count;            /* ... and the patients or stays counted, not listed */
	struct { int dir, off; } pick[2];
	int bucket;                  /* group by a time bucket: 'h','d','w','m','y' or 0 */
	int age_band;                /* 연령대별, by age group, "BMI band": a number grouped in bands */
	int band_col;                /* ... the column so banded (-1: the age, found once the table is) */
	int band_width;              /* ... their width (10 unless the question says: "5세 단위", "5 wide") */
	int decimals;                /* 1 + the decimals asked for ("1 decimal", 소수 첫째자리): averages and
	                              * shares rounded so; 0: not said */
	long limit;
	long rank_n;                 /* ranking by frequency (ties kept) */
	int rank_col;                /* the column ranked */
	int rank_key;                /* the fact table's key to the ranked dictionary, -1 */
	int pivot;                   /* "by ward, men and women": the in[] list whose values are each a
	                              * column of the aggregate (FILTER, when columns are asked for) or
	                              * a grouping (pivot_grouped), -1 none */
	int pivot_grouped;
	int rank_entity_col;         /* the ranked count's entity key in a joined table (the fact has
	                              * none: drugs ranked by patients through the case), -1 */
	const char *rank_agg;        /* rank by this aggregate of the measure (NULL: COUNT(*)) */
	int rank_entity;             /* rank by COUNT(DISTINCT entity) ("for the most patients") */
	int rank_asc;                /* least/lowest first */
	int exists;                  /* yes/no question */
	int timeline;
	int distinct;
	int time_col;
	struct { int col; const char *op; const char *lit; int num; const char *lit2; int col2; int at; } cond[MAXF];   /* num: 0
	                                          * text, 1 number, 2 IS NULL, 3 metadata SQL, 4 age in years of a birth
	                                          * date, 5 another column (col2: a reference range's limit);
	                                          * at: 1 + the token of a comparison's number, 0 other */
	int ncond;
	struct { int col; const char *vals[8]; int n; int contains; } in[4];   /* contains: ILIKE '%v%' */
	int nin;
	const char *entity_col;      /* column name of the case/patient entity */
	int entity_key;              /* "encounter 5": the key column of the table named, else -1 */
	const char *entity_word;     /* the (stemmed) entity word without a number ("patient") */
	const char *entity_val;      /* "10014078" or NULL */
	int entity_count, entity_group;
	int episode;                 /* table index of the visit/stay, -1 */
	int episode_which;           /* +1 first, -1 last, 2 current */
	int visit_mention;           /* a visit table named without first/last, -1 */
	int current_all;             /* "current patients": visit end IS NULL */
	struct ptime win;
	int has_win;
	int need[8]; int nneed;      /* tables that must be joined */
	/* "patients ever given insulin glargine": a dictionary value reached through another event table
	 * of the same patient or stay: fact.key IN (SELECT ev.key FROM ev JOIN dict ... WHERE value) */
	struct { int event, edge, col; const char *val; int contains; } semi[4];   /* edge -1: a column of event */
	int nsemi;
	int lead[3]; int nlead;      /* a timeline per entity: ordered by these before the time */
	const char *pct_value;       /* shape_percentile: the value whose percentile is asked, NULL none */
	int pct_same_age;            /* ... among patients of the same age as the one named */
	int together;                /* enum together: things of one column given together (planner_together.c) */
	int time_named;              /* a time column was named by the question (수술 시작, discharged) */
	int time_tok;                /* ... by this token */
	int multi;                   /* a timeline over several tables: built from tl, not from the fields above */
	struct ev_window ev[4];      /* before/after/during an event (planner_event.c) */
	int nev;
	struct ptl_spec tl;
};

struct planner {
	struct arena a;
	struct psnap *s;
	const struct retrieval *r;
	struct ptoks tk;
	struct plink pl;
	struct frame f;
	struct sb dec;               /* decisions JSON array */
	struct sb expl;
	int *banned;
	int *via;     /* per table: the key edge a dictionary value was verified through (-1: none) */
	struct tm now;
	const char *question;
	char *decline;
	const struct shape *shape;   /* the question shape that framed the plan, NULL before */
	int follow_off;              /* a follow-up read with its parent: the byte where its own words
	                              * start in question (0: not a follow-up) */
	int aggregate_form;          /* planner_ctx.aggregate_form: the plan in the safe aggregate form */
};

/* What the question's words say beyond its links, read while the structure pass runs: the slots
 * the shapes match on. */
struct cues {
	int when;                    /* the question asks for a time ("when", "언제") */
	int over_time;               /* "over time" */
	int wants_time;              /* a window, first/last, when or a timeline: the fact table needs a time */
	int how_many;                /* "how many", "how often" */
	int ag;                      /* token of the aggregate word, -1 */
	int top, most, freq;         /* tokens of the ranking words, -1 */
	long n;                      /* the N of a ranking (top 5), 1 when not said, 0 no ranking */
	int ranking;                 /* a ranking by count: top N, most frequent */
	int asc;                     /* least, fewest, lowest: ranked from the bottom */
};

/* When a shape is tried: the structure pass binds the question in stages, and a shape is tried
 * once the stage it needs is done (docs/architecture.md, "Question shapes"). */
enum shape_stage {
	STAGE_WORDS,                 /* tokens, entities, links and comparisons; no fact table yet */
	STAGE_LINKS,                 /* the fact table chosen, links bound to filters, groups and columns,
	                              * the aggregate word read */
	STAGE_MEASURE                /* what is aggregated bound (measure, rate, duration, counted entity),
	                              * the ranking words read */
};

/* A question shape: one file each (shape_*.c), one row of planner_shapes (planner_shapes.c). */
struct shape {
	const char *name;            /* "top_n", shown in the plan's decisions */
	enum shape_stage stage;
	/* match: 1 when the question has this shape (NULL: frame decides) */
	int (*match)(struct planner *p, const struct cues *c);
	/* frame: fill p->f for the SQL builder; 0 framed, -1 declined (p->decline set), 1 not this
	 * shape after all (the next row is tried) */
	int (*frame)(struct planner *p, struct cues *c);
	/* confidence: how sure an answer of this shape is, before linking (docs/architecture.md) */
	double confidence;
};

/* planner_bind.c */
int pf_comparisons(struct planner *p);
void pf_concept_range(struct planner *p, int col, const char *value, double *lo, double *hi, const char **src);

/* planner_build.c */
int pf_build(struct planner *p, struct squery *q);
/* pf_dur_name: the unit a duration is given in, as its column is named ("hours": said, else days
 * for a stay, minutes for start and end times) */
const char *pf_dur_name(const struct frame *f);

/* planner_entity.c; pf_is_visit_word: t names a visit or stay (visit, admission, stay, 입원, 방문) */
int pf_is_visit_word(const struct ptok *t);
/* pf_tok_ent: the entity kind token t names by its stem, else by its text (ENT_PATIENT...), or -1 */
int pf_tok_ent(const struct ptok *t);
int pf_entity_home_timed(struct planner *p);
int pf_entity_names_table(struct planner *p, int ti);
void pf_find_entities(struct planner *p, int pass);
/* pf_value_heads: a stored value written right before a word for an entity ("위암 수술": the
 * operations) whose candidates lie in that entity's own table and elsewhere (a patient's diagnosis
 * list) keeps only those of the entity's table; with none there, and none in a table that carries
 * the entity's key, the link is marked apart (declined when bound) (planner_entity.c) */
void pf_value_heads(struct planner *p);
/* pf_person_count: "how many women/men ...": patients counted when no entity word was (planner_entity.c) */
void pf_person_count(struct planner *p);
void pf_find_visits(struct planner *p);
int pf_visit_table(struct planner *p, int icu);
/* pf_stay_table: the table of hospital stays, for what is so now (현재, 재원 중): the visit table,
 * else the one table with two times whose comment's first word is a stay word ("입원 내역";
 * conf/lexicon/phrases.tsv, inpatient_word); -1 when none or several */
int pf_stay_table(struct planner *p);

/* planner_fact.c */
/* pf_choose_fact: the fact table by the votes of the links, or -1; *tied: a second table the
 * votes put level with it (contract in planner_fact.c) */
int pf_choose_fact(struct planner *p, int wants_time, int *tied);

/* planner_followup.c */
char *pf_follow_up(const char *prev, const char *q);
/* pf_reads_as_change: q changes the previous question (only ..., ...만, a follow-up marker): 1 or 0 */
int pf_reads_as_change(const char *q);

/* planner_measure.c */
int pf_duration_word(const struct ptok *t);
int pf_find_duration(struct planner *p);
/* pf_episode_duration: "how long was her last ICU stay": the stay chosen (f->episode, else the one
 * table the question names) lasted from its table's time to its one end-named time (outtime, end,
 * disch, dsch), in days with their fraction (dur_days 2); 1 set, 0 when that table has no such pair */
int pf_episode_duration(struct planner *p);
int pf_rate_link(struct planner *p, int i);
/* pf_link_holds_or_not: link it names a thing that holds or not on a row: a stored value, a
 * concept, a yes/no column (what a share counts) */
int pf_link_holds_or_not(const struct planner *p, const struct plink_item *it);
/* pf_rate_word: t is the English "rate" or "rates" */
int pf_rate_word(const struct ptok *t);
/* pf_age_word: t names an age (age, aged, 나이, 연령: the lexicon's age words) */
int pf_age_word(const struct ptok *t);
/* pf_per_entity: the entity a figure is said per: ENT_PATIENT for "per patient" / 환자당,
 * ENT_ENCOUNTER for "per (ICU) stay" / "per admission" / 입원당; -1 none */
int pf_per_entity(struct planner *p);
/* pf_age_col: the column an age is read from (age, else a birth date: *from_birth 1); -1 none */
int pf_age_col(struct planner *p, int *from_birth);
/* pf_age_col_is: col is the age column (pf_age_col) */
int pf_age_col_is(struct planner *p, int col);
int pf_unread_comparison(struct planner *p);
/* pf_korean_breakdown_word: t is 따른, 따라, 마다 or 별로 (a breakdown of the word before it); not
 * 기준 (also "based on") nor 각 */
int pf_korean_breakdown_word(const struct ptok *t);
/* pf_stay_word: token i (and the words after it, *n in all) names a length of stay (재원일수,
 * "length of stay", LOS); 0 when not */
int pf_stay_word(struct planner *p, int i, int *n);
/* pf_find_stay: the admission and discharge times of one table as the duration (dur_days 1); 0
 * when no table has both */
int pf_find_stay(struct planner *p);

/* planner_util.c */
/* pf_col: column col as an expression, read through a cast when it is a number kept as text */
struct sexpr *pf_col(struct planner *p, int col);
int pf_asks_when(struct planner *p);
const char *pf_cfq(struct planner *p, int col);
int pf_col_in(struct planner *p, int table, const char *name);
int pf_col_in_loose(struct planner *p, int ti, const char *name);
void pf_decide(struct planner *p, const char *span, const char *kind, const char *target, const char *why,
               double score);
int pf_decline(struct planner *p, const char *fmt, const char *arg);
/* pf_stay_kind_check: -1 (declined) when 입원/admission was said of a visits table that records other
 * kinds of visits too and no stored value of the question names the kind; 0 otherwise */
int pf_stay_kind_check(struct planner *p);
int pf_dict_reaches(struct planner *p, int dict_col, const char *val, int contains, int table, int *via_key);
int pf_find_role(struct planner *p, enum role r);
int pf_has_role(struct planner *p, enum role r);
int pf_is_keyish(struct planner *p, int ci);
/* pf_pick_key: the key into the same table that edge k's key column's table joins by when it has
 * several (admissions' department code and ward code, both into one table of departments and
 * wards): edge k when it is the only one; else the one whose name or comment holds more of the
 * question's words; -1 when the question does not tell them apart (other_key: set to the other
 * key's column).  Joined by the wrong one, a column of that table ("ICU or not") describes the
 * department, not the ward the patient lay in */
int pf_pick_key(struct planner *p, int k, int *other_key);

/* pf_tok_terms: token t's surface, its stem and its lexicon synonyms (conf/lexicon) into terms
 * (max >= 2 entries); returns how many */
int pf_tok_terms(const struct ptok *t, const char **terms, int max);

/* pf_says_code: one of tokens [t0, t1) is the word code(s) or holds 코드 ("약품코드별") */
int pf_says_code(const struct planner *p, int t0, int t1);

/* pf_name_word: token t is a word asking for names (role name_word of conf/lexicon/phrases.tsv:
 * name, 이름), as written or as its stem; within: a Korean word holding one (환자이름) counts too */
int pf_name_word(const struct ptok *t, int within);
/* pf_says_name: tokens [t0, t1), or the unused word right after them, ask for a name: a name word
 * (pf_name_word, within words) or a Korean noun ending in 명 of three syllables or more (진단명) */
int pf_says_name(const struct planner *p, int t0, int t1);
/* pf_holds_codes: the column's comment says it holds codes, and not names */
int pf_holds_codes(const struct pcol *c);

/* pf_concept_of_codes: column col holds codes as recorded and a key of its table into a
 * dictionary is the same thing (gender_source_value beside gender_concept_id; docs/schema-model.md,
 * "Codes beside concepts"): the dictionary's label column, with *key that key column and *edge its
 * foreign key; else -1 */
int pf_concept_of_codes(struct planner *p, int col, int *key, int *edge);

/* pf_name_unshown: the question says name/names (a word the linker skips) and every one of the n
 * columns cols the answer shows is an identifier: declined through pf_decline (-1), else 0 */
int pf_name_unshown(struct planner *p, const int *cols, int n);

/* pf_yes_no: column col holds a yes/no kept as codes (Y/N, T/F, 0/1, yes/no): a flag, or every
 * stored value indexed for it is one of them */
int pf_yes_no(const struct planner *p, int col);

/* pf_set_via: the dictionary table dt is joined through foreign key `edge`; -1 declined (with
 * span sp named) when it is already joined through another key (one join cannot hold both) */
int pf_set_via(struct planner *p, int dt, int edge, const char *sp);
/* pf_holds_entity: table t has a column identifying a patient, a case or an encounter (an
 * entity's home or event, not a dictionary) */
int pf_holds_entity(struct planner *p, int t);
/* pf_is_dictionary: table t is a dictionary: another table's key points into it and it holds no
 * patient, case or encounter (a lab test dictionary, OMOP's concept) */
int pf_is_dictionary(struct planner *p, int t);
/* pf_label_col: the label of table's rows, a text column of it or of the dictionary it references
 * (*via: that dictionary, or -1), -1 when none; pf_label_col_sure with sure 1 does not guess the
 * first of several text columns that nothing names */
int pf_label_col(struct planner *p, int table, int *via);
int pf_label_col_sure(struct planner *p, int table, int *via, int sure);
/* pf_dict_label: the text label of the dictionary a key column points to (*edge: the foreign key
 * index), -1 when col references none */
int pf_dict_label(struct planner *p, int col, int *edge);
/* pf_shared_key: table ti and the fact table both reference one patient, stay or case (the stay
 * first when the question is about stays): 1 with the fact's key (*kf) and ti's (*kt), either may
 * be NULL; 0 none (two columns that reference one dictionary are no shared parent) */
int pf_shared_key(struct planner *p, int ti, int *kf, int *kt);
/* pf_name_prefix: how many leading characters names a and b share */
size_t pf_name_prefix(const char *a, const char *b);
/* pf_prefix_col: the one column of table, of type (a text one not a key), other than skip,
 * whose name shares the longest leading run with name (*len its length): dischtime beside
 * discharge_location; -1 when none or two share it equally */
int pf_prefix_col(struct planner *p, int table, const char *name, enum ptype type, int skip, size_t *len);
/* pf_semi_keys: the keys a semi-join of event table ti on the fact table matches: those of
 * pf_shared_key, or, when the fact table is the patients' own table (its patient key unique), that
 * key and ti's key into it (*kf, *kt); 1 found, 0 none */
int pf_semi_keys(struct planner *p, int ti, int *kf, int *kt);
/* pf_shared_key_of: the same for table `from` in place of the fact table */
int pf_shared_key_of(struct planner *p, int from, int ti, int *kf, int *kt);
int pf_measure_col(struct planner *p, int table);
/* pf_frame_clear: a shape that frames the whole answer itself (pair, having) clears what the
 * stages read for other shapes: aggregates, counted entity, groups, ranking, yes/no, time
 * bucket and projections */
void pf_frame_clear(struct frame *f);
void pf_need(struct planner *p, int table);
/* pf_cond_not_null: a condition "col IS NOT NULL" added to f (the caller checks f->ncond < MAXF) */
void pf_cond_not_null(struct frame *f, int col);
/* ---- event windows (planner_event.c; docs/lexicon.md, "Event windows") ---- */
/* pf_event_words: the windows the question says (수술 전, after the surgery, intraoperative), their
 * relation words taken (전 is then not "ago"); before the screen, after linking. */
void pf_event_words(struct planner *p);
/* pf_event_bind: before the SQL is built: each window a comparison of the measured table's time with
 * the event's start or end (in the nearest table its keys reach), unless a column the question
 * names holds the period already (preop_...).  0, or -1 declined naming the words. */
int pf_event_bind(struct planner *p);
/* pf_event_columns: window e's event columns (*start, *end) in the nearest table the fact table
 * reaches: 1; 0 when a column the question names holds the period (nothing to compare); -1 when
 * there is no such table (or no fact table yet). */
int pf_event_columns(struct planner *p, int e, int *start, int *end);
/* pf_event_token: token i is part of an event window the question says */
int pf_event_token(const struct planner *p, int i);
/* ---- the aggregate access level (planner_form.c; docs/privacy.md, "The planner at the aggregate
 * level") ---- */
/* pf_form_key: before the joins are added: when no table the plan reads holds a patient key
 * (conf suppress_patient_keys), the nearest one that does, reached towards the one side of its
 * keys so no row is repeated, is needed too; the rewrite then counts each group's patients.
 * 0, or -1 declined (no such table). */
int pf_form_key(struct planner *p);
/* pf_form_finish: after pf_build: a ranking kept with ties by ORDER BY ... FETCH FIRST n ROWS WITH
 * TIES (no window, no subquery); rows, unions, existence questions and questions about single
 * patients or cases declined, saying the level shows only groups.  0, or -1 declined. */
int pf_form_finish(struct planner *p, struct squery *q);
const char *pf_numtext(struct planner *p, double v);
int pf_path(struct planner *p, int from, int to, int *edges, int max);
/* pf_key_into: the first join key from a column of table `from` to table `to` (an index into
 * p->s->fk), or -1 */
int pf_key_into(struct planner *p, int from, int to);
void pf_proj_shift(struct frame *f);
void pf_self_group(struct planner *p);
const char *pf_span_text(struct planner *p, int t0, int t1);
int pf_time_col(struct planner *p, int table);
int pf_time_col_quality(struct planner *p, int ci);
const char *pf_tname(struct planner *p, int col);

/* planner_fact.c: pf_fact: the fact table, its time column and measure; 0 or -1 declined */
int pf_fact(struct planner *p, const struct cues *c);
/* planner_bind.c: pf_group_alternatives: the columns a breakdown by col may group by (col, the label
 * of the dictionary it references, a column of the same subject and its label), at most max into
 * out; their number */
int pf_group_alternatives(struct planner *p, int col, int *out, int max);
/* planner_bind.c: pf_precision_words: read "1 decimal", "소수 첫째자리" into f->decimals, marking
 * the words; before the screen.  Never declines. */
void pf_precision_words(struct planner *p);
/* planner_bind.c: pf_band_words: read "연령대별", "by age group", "age band" into f->age_band,
 * marking the words; before the screen.  Never declines. */
void pf_band_words(struct planner *p);
/* planner_bind.c: pf_bind_links: links -> filters, groups, projections; pf_bind_rest: comparisons
 * without a named column, the entity grouped, time buckets; 0 or -1 declined */
int pf_bind_links(struct planner *p);
int pf_bind_rest(struct planner *p);
/* planner_measure.c: pf_aggregate_word, pf_bind_measure (0 or -1 declined), pf_ranking_cues */
int pf_aggregate_word(struct planner *p, struct cues *c);
int pf_bind_measure(struct planner *p);
void pf_ranking_cues(struct planner *p, struct cues *c);

/* planner_shapes.c: pf_structure: decide what the question asks, through the table of shapes;
 * 0 with p->f framed and p->shape set, -1 declined (p->decline says why). */
int pf_structure(struct planner *p);

/* planner_reading.c: pf_reading: the question's reading for the coverage check (agent/coverage.h),
 * heap (coverage_reading_free), NULL on no memory; pf_share_word: t asks for a share or a rate */
struct cov_reading *pf_reading(struct planner *p);
int pf_share_word(const struct ptok *t);
/* pf_agg_superlative: a superlative of an aggregate ("the longest average", "highest mean"; "평균
 * BMI가 제일 높은"): 1 with its words in tokens [*from, *to), else 0 */
int pf_agg_superlative(const struct planner *p, int *from, int *to);
/* pf_joiner: t joins two breakdowns: and, ',', ×, x, &, 및, 그리고 (와/과 end the word before) */
int pf_joiner(const struct ptok *t);
/* pf_link_per: the link is a breakdown (X별, by X and Y, 진료과와 성별에 따른, 성별 환자 수) */
int pf_link_per(struct planner *p, const struct plink_item *it);
/* pf_rate_part: in "A 중 B 비율", "share of A with B": the link of B (the numerator), -1 when the
 * question says no base and part */
int pf_rate_part(struct planner *p);
/* pf_rate_regions: the tokens of the part [*lo, *hi) of a share question and side[l] (1 base, 2
 * part) of every stored value named, whether or not both sides name one; 0 when the question says
 * no base and part */
int pf_rate_regions(struct planner *p, int *side, int *lo, int *hi);
/* pf_comparison_tok: t is a comparison's word or a number that carries one (>, over, 이상, ">= 5") */
int pf_comparison_tok(const struct ptok *t);

/* planner_together.c: things given together ("A and B at the same time", "the top drugs given later
 * in the same month as X"): pf_together_words reads the words and marks them (0); pf_together_where
 * adds the condition on the fact's rows, taking the other thing out of the value list (0 or -1
 * declined) */
enum together { TOG_NONE, TOG_SAME_TIME, TOG_AFTER_SAME_MONTH, TOG_AFTER_SAME_DAY, TOG_AFTER_SAME_VISIT };
int pf_together_words(struct planner *p);
int pf_together_where(struct planner *p, struct squery *q);

/* shape_percentile.c: pf_percentile_words marks "percentile of V" (0); pf_percentile_build the
 * select and population (0 or -1 declined) */
int pf_percentile_words(struct planner *p);
int pf_percentile_build(struct planner *p, struct squery *q, const char *entity, int episode, int which);

/* planner_screen.c: pf_screen: decline what no shape builds (future, negation, a number or a word
 * nothing could place, a reference to an earlier answer); 0 or -1 declined. */
int pf_screen(struct planner *p);

/* shape_pair.c: pf_pair_words: read "change of X last measured compared to the first", "is the
 * second X less than the first", "how many hours since the first X" into f->pair and f->pick,
 * marking the words it reads; before the comparisons are bound.  0 (read or not), never declines.
 * pf_pair_wrap: replace q (the query of the first pick) by the SELECT that combines the picks;
 * 0 or -1 declined. */
int pf_pair_words(struct planner *p);
int pf_pair_wrap(struct planner *p, struct squery *q);

/* the shapes (shape_*.c), in the order planner_shapes tries them */
extern const struct shape shape_timeline_multi, shape_extreme_time, shape_pair, shape_having, shape_entity_total, shape_summary, shape_rank_groups,
	shape_top_n, shape_aggregate, shape_exists, shape_list, shape_percentile;

#endif
