/* chart.h: a chart chosen from a result's shape (bars, grouped bars, timelines), drawn server-side as SVG. */
#ifndef ASKQL_CHART_H
#define ASKQL_CHART_H

#include "util/sb.h"

struct cJSON;
struct catalog;

/* The kinds of chart; each has one file (chart_bar.c, chart_line.c) and one row in chart.c's kinds[]. */
enum chart_kind { CHART_NONE = 0, CHART_BAR, CHART_GROUPED_BAR, CHART_LINE, CHART_NKINDS };

/* What a result column is to a chart. */
enum chart_role {
	ROLE_LABEL = 0,  /* text or yes/no: a category */
	ROLE_MEASURE,    /* a number that is not an identifier */
	ROLE_TIME,       /* a date, time or timestamp */
	ROLE_ID          /* a patient, case, admission... identifier: never on an axis */
};

#define CHART_MAXCOLS 32
#define CHART_MAXMEASURES 8
#define CHART_MAXENTITIES 200    /* patients (cases...) a timeline's chooser lists at most */

struct chart_col {
	const char *name;        /* the result's column name */
	const char *type;        /* "number", "datetime", "text", "boolean" (or a PostgreSQL type name) */
	const char *unit;        /* "mmHg"; NULL when unknown */
	const char *title;       /* the name shown on axes and legends ("Age" for avg); NULL: name */
	int identifier;          /* 1: known to identify an entity (catalog); names are judged anyway */
	enum chart_role role;    /* set by chart_roles */
};

/* What the chosen kind draws (column indexes into the result; -1: none). */
struct chart_pick {
	enum chart_kind kind;
	int x;                   /* BAR, GROUPED_BAR: the category column; LINE: the time column */
	int series;              /* GROUPED_BAR: the legend's column; LINE: the measure-name column of a
	                          * long result (time, name, value), -1 when each measure is a column */
	int entity;              /* LINE: an identifier column holding several entities: one is drawn */
	int ordinal;             /* BAR: a numeric category (ASA 1..6) or months as text keep their order
	                          * instead of being sorted by value */
	int measures[CHART_MAXMEASURES], nmeasures;
};

/* chart_is_identifier: 1 when a column name reads as an entity identifier (id, caseid, subject_id,
 * hadm_id, patient_no, visit_key), as catalog.c's is_idlike judges names, except codes (dept_cd,
 * icd_code), which are categories a chart may show. */
int chart_is_identifier(const char *name);

/* chart_roles: set cols[i].role from type, identifier flag and name. */
void chart_roles(struct chart_col *cols, int ncols);

/*
 * chart_choose: the one decision of which chart fits a result, from its columns' roles (set them with
 * chart_roles first) and its rows ([[..],..], read for distinct values): CHART_NONE for a single
 * value, a plain list, identifiers only or too many categories; CHART_LINE for a time column and
 * measures; CHART_BAR for one category column and its measures (each category once; every measure,
 * up to 8, is drawn: chart_bar_panels); CHART_GROUPED_BAR for two category columns and a measure.
 * pick (may be NULL) receives the columns to draw.
 */
enum chart_kind chart_choose(const struct chart_col *cols, int ncols, const struct cJSON *rows,
                             struct chart_pick *pick);

/* One entity (patient, case...) of a timeline: its identifier as the table shows it and its rows. */
struct chart_entity {
	char value[64];
	int rows;
};

/*
 * chart_entities: the different values of column col of rows, in order of first appearance, with
 * how many rows each has; at most max go to out (may be NULL).  Returns how many there are in all.
 */
int chart_entities(const struct cJSON *rows, int col, struct chart_entity *out, int max);

/* chart_entity_param: the 0-based entity a page parameter names ("1".."n", the k-th of n; a
 * leading '+' or zeros allowed), or 0 (the first) for anything else: NULL, empty, text, 0, a
 * negative, a number beyond n, more than 9 digits.  Never fails. */
int chart_entity_param(const char *v, int n);

/* chart_entity_is_person: 1 when an identifier column names people (subjectid, patient_no, mrn),
 * whom Korean counts with 명 rather than 개 (cases, admissions). */
int chart_entity_is_person(const char *name);

/* What a drawn chart is, for what the page shows around it. */
struct chart_info {
	const char *kind;        /* chart_kind_name */
	int entity_col;          /* LINE: the column holding several entities (one drawn), else -1 */
	int entity;              /* the entity drawn, 0-based (chart_opts.entity, kept in range) */
	int nentities;           /* how many different entities the result holds */
	const char *entity_title;/* the entity column's label ("환자 번호"), else its name */
	const char *entity_name; /* the entity column's SQL name */
};

/*
 * chart_bar_panels: how a BAR pick of several measures is drawn: 1 when they share an axis (one unit,
 * or none known for all, and their largest values within a factor of ten: grouped bars with a
 * legend), else pick->nmeasures (one panel per measure).  One measure: 1.
 */
int chart_bar_panels(const struct chart_col *cols, const struct chart_pick *p, const struct cJSON *rows);

/* chart_kind_name: "none", "bar", "grouped-bar", "line". */
const char *chart_kind_name(enum chart_kind k);

/*
 * chart_nice_ticks: round ticks covering [lo, hi], about target of them: each tick a whole multiple
 * of *step, and *step is 1, 2 or 5 x 10^k.  *first is the first tick (<= lo), *n the number of ticks
 * (2..target*2+1).  Returns the number of decimals the labels need.
 */
int chart_nice_ticks(double lo, double hi, int target, double *first, double *step, int *n);

/* Options of one chart.  Everything may be zero. */
struct chart_opts {
	const char *lang;        /* "ko" or "en" (notes and legends); NULL: "en" */
	int entity;              /* LINE with several entities: which is drawn, 0-based in order of first
	                          * appearance (chart_entities); out of range: the first */
	/* the unit of a measure named by a value of a long result ('k' -> "mmol/L"), NULL if unknown */
	const char *(*unit_of)(void *ctx, const char *measure);
	void *unit_ctx;
};

/*
 * chart_svg: append the chart that fits columns [{"name","type"[,"unit"][,"label"][,"identifier"]}]
 * (label: the name to show, e.g. a catalog description in the user's language) and rows
 * [[..],..]: two <svg class="chart"> drawings of it, one laid out for a desktop
 * (class "chart-wide") and one for a phone (class "chart-narrow", 360 units wide); CSS shows one.
 * Every label and title is escaped.  Returns 1 when a chart was written (*kind, may be NULL,
 * receives chart_kind_name), 0 when none fits (nothing appended).
 */
int chart_svg(struct sb *out, const struct cJSON *columns, const struct cJSON *rows,
              const struct chart_opts *o, const char **kind);

/*
 * chart_catalog_cols: fill cols[i].unit and .identifier from what cat knows of the columns sql
 * reads (a result column named like a catalog column, or an alias of an expression over one,
 * AVG(age) AS avg -> "years"; COUNT(..) has no unit).  Strings point into cat (valid until the
 * next catalog_get).  cat or sql NULL: nothing changes.
 */
void chart_catalog_cols(struct catalog *cat, const char *sql, struct chart_col *cols, int ncols);

/* chart_catalog_unit: a chart_opts.unit_of over a struct catalog * ctx: a stored value's unit
 * (lab_data_table.name 'k' -> "mmol/L"), else a column's of that name ('sbp' -> "mmHg"). */
const char *chart_catalog_unit(void *cat, const char *measure);

/*
 * chart_for_run: chart_svg for a stored run, with units and identifiers from target's catalog
 * (loaded through the app database; without it the chart is drawn from names alone), drawing
 * entity (0-based; chart_opts.entity) of a timeline of several.  Same return and ownership as
 * chart_svg; info (may be NULL) receives what was drawn (its strings point into columns).
 */
int chart_for_run(struct sb *out, const struct cJSON *columns, const struct cJSON *rows,
                  const char *target, const char *sql, const char *lang, int entity, struct chart_info *info);

#endif
