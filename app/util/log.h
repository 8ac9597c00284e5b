/* log.h: line-oriented logging with request ids, to a file under var/log or stderr. */
#ifndef ASKQL_LOG_H
#define ASKQL_LOG_H

enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR };

/* log_open: append to path (NULL or failure: stderr). Call once at start. */
void log_open(const char *path, enum log_level min);
/* log_set_reqid: the id printed on every line until changed; NULL clears. */
void log_set_reqid(const char *id);
void log_msg(enum log_level lv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
