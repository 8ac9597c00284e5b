/* log.c: timestamped log lines "TS LEVEL pid req=ID message". */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "log.h"

static FILE *logf;
static enum log_level minlv = LOG_INFO;
static char reqid[40];

void log_open(const char *path, enum log_level min)
{
	minlv = min;
	if (path && (logf = fopen(path, "a")))
		setvbuf(logf, NULL, _IOLBF, 0);
}

void log_set_reqid(const char *id)
{
	snprintf(reqid, sizeof reqid, "%s", id ? id : "");
}

void log_msg(enum log_level lv, const char *fmt, ...)
{
	static const char *names[] = {"DEBUG", "INFO", "WARN", "ERROR"};
	FILE *f = logf ? logf : stderr;
	char ts[32];
	struct timespec now;
	struct tm tm;
	va_list ap;

	if (lv < minlv)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(f, "%s.%03ldZ %s %d req=%s ", ts, now.tv_nsec / 1000000, names[lv],
	        (int)getpid(), reqid[0] ? reqid : "-");
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}
