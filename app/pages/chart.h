/* chart.h: server-rendered SVG charts of a result: a line over time for timelines, bars for group-bys. */
#ifndef ASKQL_CHART_H
#define ASKQL_CHART_H

#include "util/sb.h"

struct cJSON;

/* chart_svg: append an <svg> for columns [{"name","type"}] and rows [[..]] when one fits
 * (a temporal or label column plus a numeric one); every label escaped.  Returns 1 when a
 * chart was written, 0 when none fits (nothing appended). *kind receives "line" or "bar". */
int chart_svg(struct sb *out, const struct cJSON *columns, const struct cJSON *rows, const char **kind);

#endif
