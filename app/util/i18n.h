/* i18n.h: interface strings in Korean and English from conf/i18n/<lang>.json, loaded once per process. */
#ifndef ASKQL_I18N_H
#define ASKQL_I18N_H

#include <stddef.h>
#include <cjson/cJSON.h>
#include "err.h"
#include "sb.h"

/*
 * Each language is one flat JSON object, key -> string (keys like "nav.ask"),
 * read from <lang>.json and every <lang>.<part>.json beside it (a page may
 * keep its strings in its own part; a key defined in two files is an error).
 * English ("en") is the reference: every other table is completed from it at
 * load, so a key missing in ko.json shows the English text, and a key missing
 * everywhere shows the key itself.  Strings are plain text (templates escape
 * them); "{name}" marks a placeholder filled by i18n_format.
 * Languages known: "en", "ko" (I18N_LANGS); anything else is treated as "en".
 * Not thread-safe at first use (workers are single-threaded processes).
 */
#define I18N_LANGS {"en", "ko"}

/*
 * i18n_load: (re)load every language from dir (NULL: conf "i18n_dir").
 * OK, or ERR_IO/ERR_NOTFOUND (en.json unreadable), ERR_PARSE (a file is not
 * a flat object of strings: err names the file and key), ERR_NOMEM.  On
 * error the previous tables stay.  A missing non-English file is not an
 * error (that language falls back to English).  i18n_get/i18n_table call
 * it on first use; call it at worker start to fail early.
 */
enum err i18n_load(const char *dir, char *err, size_t errlen);

/* i18n_dir: the directory of the interface's language files: dir when given, else conf
 * "i18n_dir", else conf/i18n (for other per-language files kept beside them) */
const char *i18n_dir(const char *dir);

/* i18n_get: the text of key in lang; English if lang lacks it; the key
 * itself if English lacks it too (never NULL).  Valid until i18n_load/i18n_free. */
const char *i18n_get(const char *lang, const char *key);

/*
 * i18n_table: the whole (English-completed) table of lang as a cJSON object,
 * owned by this module: do not modify or free it.  It is nested by the dots
 * of the keys ("nav.ask" -> {"nav": {"ask": ...}}) because Mustache reads
 * {{t.nav.ask}} as a path, never as one key.  Hand it to a template with
 * cJSON_AddItemReferenceToObject(data, "t", (cJSON *)table), which does not
 * take ownership.  Never NULL (an empty object if nothing could be loaded).
 */
const cJSON *i18n_table(const char *lang);

/*
 * i18n_format: append the text of key with each {name} replaced by the value
 * that follows name in vars (NULL-terminated name, value, name, value, ...,
 * NULL).  Unknown placeholders are left as written.  Plain text: escape it
 * when it goes into HTML (a template {{x}} does).
 * e.g. i18n_format(sb, "en", "run.attempt", (const char *[]){"n", "2", "m", "3", NULL})
 */
void i18n_format(struct sb *out, const char *lang, const char *key, const char *const *vars);

/* i18n_lang: the language to use for an Accept-Language header value or a
 * user preference ("ko-KR,ko;q=0.9,en;q=0.8" -> "ko"); "en" when nothing
 * known is asked for (NULL or "").  Static storage. */
const char *i18n_lang(const char *accept);

/* i18n_free: drop every table (tests, worker exit). */
void i18n_free(void);

#endif
