/* llm_policy.h: what text derived from a target's data an LLM request may carry (llm_data_policy: schema, values, rows). */
#ifndef ASKQL_LLM_POLICY_H
#define ASKQL_LLM_POLICY_H

#include <stddef.h>

struct catalog;

/*
 * The policies, most to least restrictive.  LLM_POLICY_UNSET (0) is "no policy given": the
 * callers that build prompts never see it (llm_policy_resolve always decides), code that does
 * not talk to a model (the offline planner, eval) leaves it 0 and gets every value.
 *   SCHEMA  table and column names, types, comments, joins and metadata; no stored value, no
 *           sample value, no row, no literal of a verified query.
 *   VALUES  SCHEMA plus the stored/sample values of columns whose PHI class is none or
 *           sensitive (phi_column_class; unclassified and unknown columns count as direct).
 *   ROWS    VALUES plus every value and preview rows (askql before issue 16).
 */
enum llm_policy { LLM_POLICY_UNSET = 0, LLM_POLICY_SCHEMA, LLM_POLICY_VALUES, LLM_POLICY_ROWS };

/* llm_policy_name: "schema", "values", "rows" ("unset" for 0); static, never NULL. */
const char *llm_policy_name(enum llm_policy p);
/* llm_policy_parse: "schema" | "values" | "rows" into *out; 0, else -1 (NULL, "", other words). */
int llm_policy_parse(const char *s, enum llm_policy *out);

/*
 * llm_policy_hosted: 1 when base_url names a host other than this machine: anything but an
 * empty URL, localhost (and *.localhost), 127.0.0.0/8, ::1, 0.0.0.0 or a unix socket path.
 * A private-network address (10.x, 192.168.x) counts as hosted: askql cannot know who runs it.
 */
int llm_policy_hosted(const char *base_url);

/*
 * llm_policy_default: the global default from conf llm_data_policy: schema|values|rows as
 * written, or "auto" (the default): VALUES when llm_provider is openai and llm_base_url is
 * hosted (llm_policy_hosted), ROWS otherwise (the builtin provider or a model on this machine:
 * nothing leaves it).  *why (may be NULL) gets a static sentence naming the reason.  An
 * unknown word is refused at conf_load (conf.c), so it never reaches here; if it does: SCHEMA.
 */
enum llm_policy llm_policy_default(const char **why);
/*
 * llm_policy_resolve: the effective policy of a target whose own setting is target_setting
 * (askql.targets.llm_data_policy; NULL or "" = none): that setting, else llm_policy_default.
 * *why (may be NULL) says which ("target setting", or the default's reason).  Never UNSET.
 */
enum llm_policy llm_policy_resolve(const char *target_setting, const char **why);

/*
 * llm_policy_values_ok: 1 when the stored values of column ("table.column" or
 * "schema.table.column", as the catalog names it) may reach the model under p: always under
 * ROWS and UNSET, never under SCHEMA, under VALUES only for a column of cat classified none or
 * sensitive (a column cat does not know, or cat NULL: 0).
 */
int llm_policy_values_ok(enum llm_policy p, const struct catalog *cat, const char *column);
/* llm_policy_values_ok2: the same with table and column apart (either NULL: 0 unless ROWS/UNSET). */
int llm_policy_values_ok2(enum llm_policy p, const struct catalog *cat, const char *table, const char *column);

/*
 * llm_policy_scrub_sql: sql as the model may see it under p (heap; NULL only without memory).
 * ROWS/UNSET: a copy.  SCHEMA and VALUES: every string literal ('...', E'...', $$...$$ bodies)
 * becomes '…' and every integer of 6 or more digits becomes 0, except under VALUES a literal
 * that is a stored value of a column llm_policy_values_ok allows (cat may be NULL: none is).
 * Identifiers ("quoted" or not), keywords and short numbers are kept.
 */
char *llm_policy_scrub_sql(enum llm_policy p, const struct catalog *cat, const char *sql);

/*
 * llm_policy_scrub_error: a database error text as the model may see it (heap; NULL only
 * without memory).  ROWS/UNSET: a copy.  SCHEMA and VALUES: a quoted part ("..." or '...') is
 * kept only when the model wrote it (it occurs in sql, which may be NULL) or it is a name of cat
 * (a table, a column, or table.column); any other quoted part becomes "…".  PostgreSQL quotes
 * the offending value (invalid input syntax for type integer: "Kim"), so a value read from a
 * row never reaches the model through an error, while "column \"nme\" does not exist" does.
 */
char *llm_policy_scrub_error(enum llm_policy p, const struct catalog *cat, const char *text, const char *sql);

/*
 * llm_policy_db_error: an error of the database as the model may see it (heap; NULL only
 * without memory).  ROWS/UNSET: text (a copy; "" when NULL).  SCHEMA and VALUES: when sqlstate
 * is a five-character SQLSTATE the message text is never used (its unquoted parts carry values:
 * "requested character too large for encoding: 10900101", "Couldn't find end of Start Tag
 * 이서연1"); the model reads "SQLSTATE 22021 (data exception: character_not_in_repertoire)", the
 * condition name only for the codes askql knows, and " at character N" when position > 0.
 * Without a SQLSTATE (askql's own refusals: the guard, the safe aggregate form, a lost
 * connection) the text is askql's and goes through llm_policy_scrub_error(text, own).
 */
char *llm_policy_db_error(enum llm_policy p, const struct catalog *cat, const char *sqlstate, int position,
                          const char *text, const char *own);

/*
 * llm_policy_scrub_text: the question of a verified example (asked by someone else, shown to the
 * model beside its SQL) as the model may see it (heap; NULL only without memory).  ROWS/UNSET: a
 * copy.  SCHEMA and VALUES: every ASCII run of letters, digits and . @ + _ - * that is a registration
 * number (masked or not), a telephone number, an e-mail address or 6 or more digits (a patient
 * or record number) becomes "…"; the rest, Korean text included, is kept.  A name written in the
 * question is not recognised (common words would be taken for names).
 */
char *llm_policy_scrub_text(enum llm_policy p, const char *text);

#endif
