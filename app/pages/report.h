/* report.h: the critique report as HTML: view model, server-rendered SVG timeline, standalone file. */
#ifndef ASKQL_REPORT_H
#define ASKQL_REPORT_H

#include "util/err.h"
#include "util/sb.h"

struct cJSON;

/* report_svg: the timeline chart (vitals and labs over time, out-of-range points marked,
 * record gaps shaded) of a report's structured chart, appended to out as an <svg>; its few
 * words in lang ("ko" or else English). */
void report_svg(struct sb *out, const struct cJSON *report, const char *lang);

/* report_view: the template data for templates/report_body.mustache built from a report
 * (borrowed), headings in lang ("ko" or "en"; anything else: en); caller cJSON_Delete()s.
 * Display strings are plain text (the template escapes); generated sentences are shown in
 * lang where the report holds both (crit_say's "X_ko" beside "X"). */
struct cJSON *report_view(const struct cJSON *report, const char *lang);
/* report_labels: the headings of the report pages in lang, as {key: text}; caller owns. */
struct cJSON *report_labels(const char *lang);

/* report_sort_by_time: sort an array of row objects by their "ts" number (seconds; missing or
 * negative: no time, first), keeping the given order among equal times.  In place. */
void report_sort_by_time(struct cJSON *arr);

/* report_render: the standalone HTML document of a report (inline style, no external
 * resources) appended to out, headings in lang.  standalone 0 renders only the body fragment. */
enum err report_render(struct sb *out, const struct cJSON *report, int standalone, const char *lang);

#endif
