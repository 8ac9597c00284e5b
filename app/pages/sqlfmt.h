/* sqlfmt.h: SQL laid out on clause lines and highlighted as escaped HTML spans (server-side). */
#ifndef ASKQL_SQLFMT_H
#define ASKQL_SQLFMT_H

#include "util/sb.h"

/* sql_html: append sql to out as HTML: every byte escaped, keywords in <span class="k">,
 * strings "s", numbers "n", comments "c"; with format=1 a line break before each main
 * clause (FROM, WHERE, JOIN, GROUP BY, ...).  Never fails (oom is left in out). */
void sql_html(struct sb *out, const char *sql, int format);

#endif
