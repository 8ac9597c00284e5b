/* chart_int.h: what chart.c shares with the files that draw one kind each (chart_bar.c, chart_line.c). */
#ifndef ASKQL_CHART_INT_H
#define ASKQL_CHART_INT_H

#include <stddef.h>
#include <cjson/cJSON.h>
#include "pages/chart.h"

#define CHART_FONT 12        /* tick and label text, in SVG units */
#define CHART_MAXBARS 40     /* categories a bar chart shows at most */
#define CHART_MAXSERIES 8    /* legend entries (colours) at most */
/* CTITLE: what a column is called on the chart (its label when it has one) */
#define CTITLE(c) ((c)->title ? (c)->title : (c)->name)

/* One drawing of a chart at one width. */
struct chart_draw {
	struct sb *out;
	const struct chart_col *cols;
	int ncols;
	const cJSON *rows;
	const struct chart_pick *pick;
	const struct chart_opts *o;
	int w;                   /* width in SVG units: 720 (desktop) or 360 (phone) */
	int narrow;
};

/* A kind of chart: its name and its drawing function (returns 1 when it drew, 0 when the data
 * turned out unfit, e.g. no numeric value at all; nothing is appended then). */
struct chart_kind_def {
	enum chart_kind kind;
	const char *name;
	int (*draw)(struct chart_draw *d);
};

int chart_draw_bar(struct chart_draw *d);
int chart_draw_grouped(struct chart_draw *d);
int chart_draw_line(struct chart_draw *d);

/* chart_num: the number in a cell (JSON number or numeric string); *ok 0 for NULL or text. */
double chart_num(const cJSON *v, int *ok);
/* chart_text: a cell as text ("NULL" for null; numbers into buf). */
const char *chart_text(const cJSON *v, char *buf, size_t n);
/* chart_label: write s escaped, cut to about max_px of width at font size px (an ellipsis ends a
 * cut label); returns 1 when it was cut.  The caller adds <title> with the full text when cut. */
int chart_label(struct sb *out, const char *s, double max_px, double px);
/* chart_text_px: estimated width of s at font size px (Hangul and CJK one em, others 0.6 em). */
double chart_text_px(const char *s, double px);
/* chart_fmt: v with decimals places and thousands separators into buf. */
const char *chart_fmt(char *buf, size_t n, double v, int decimals);
/* chart_color: the i-th colour of a palette told apart also by colour-blind readers (Okabe-Ito). */
const char *chart_color(int i);
/* chart_svg_open / close: the <svg> element with its accessible title. */
void chart_svg_open(struct chart_draw *d, int h, const char *title);
void chart_svg_close(struct chart_draw *d);
/* chart_legend: swatches and names from y, wrapped to the width; returns the height used. */
int chart_legend(struct chart_draw *d, const char *const *names, int n, int y, int dashed);
/* chart_axis_title: "name (unit)" escaped. */
void chart_axis_title(struct sb *out, const char *name, const char *unit);
/* chart_parse_cols: cols[] from the result's columns JSON (strings point into it); -1 when there
 * are more than CHART_MAXCOLS. */
int chart_parse_cols(const cJSON *columns, struct chart_col *cols);
/* chart_draw_cols: chart_svg over parsed columns (roles are set here); info may be NULL. */
int chart_draw_cols(struct sb *out, struct chart_col *cols, int ncols, const cJSON *rows,
                    const struct chart_opts *o, struct chart_info *info);
/* chart_col_title: write a column's title escaped, with its SQL name as a <title> when they differ
 * (for hover); then " (unit)" when unit is set. */
void chart_col_title(struct sb *out, const struct chart_col *c, const char *unit);
/* chart_t: interface string of the chart in the options' language. */
const char *chart_t(const struct chart_draw *d, const char *key);

#endif
