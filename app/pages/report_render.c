/* report_render.c: placeholder */
#include "pages/report.h"
void report_svg(struct sb *out, const struct cJSON *report) { (void)out; (void)report; }
struct cJSON *report_view(const struct cJSON *report) { (void)report; return 0; }
enum err report_render(struct sb *out, const struct cJSON *report, int standalone) { (void)out; (void)report; (void)standalone; return OK; }
