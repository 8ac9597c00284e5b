/* phi.h: PHI classification of a target's columns (direct identifier, quasi-identifier, sensitive category, none), its evidence and admins' corrections. */
#ifndef ASKQL_PHI_H
#define ASKQL_PHI_H

#include <stddef.h>
#include <stdint.h>
#include <libpq-fe.h>
#include "util/err.h"

struct catalog;

/*
 * The classes, least to most restrictive in the order later code must honour.  PHI_UNCLASSIFIED
 * is a column of a catalog indexed before classification existed (or not found by the
 * classifier's caller): callers that enforce a policy must treat it as PHI_DIRECT.
 */
enum phi_class { PHI_UNCLASSIFIED = 0, PHI_NONE, PHI_SENSITIVE, PHI_QUASI, PHI_DIRECT };

/* phi_class_name: "unclassified", "none", "sensitive", "quasi", "direct" (static, never NULL). */
const char *phi_class_name(enum phi_class c);
/* phi_class_parse: s one of "none", "sensitive", "quasi", "direct" (case-sensitive) into *out;
 * 0 on success, -1 for anything else (NULL, "unclassified", other words). */
int phi_class_parse(const char *s, enum phi_class *out);

/* Limits of the rules file and of one column's input (a longer input is an error, never cut). */
#define PHI_FILE_MAX   (1 << 20)   /* bytes of conf/phi/rules.tsv */
#define PHI_TERMS_MAX  4000        /* terms in the whole file */
#define PHI_TERM_MAX   100         /* bytes of one term */
#define PHI_ROWS_MAX   400         /* sampled row values of one column looked at */
#define PHI_DISTINCT_MAX 10000     /* distinct stored values of one column looked at */
#define PHI_VALUE_MAX  256         /* bytes of one value looked at (longer values are skipped) */
#define PHI_TEXT_MAX   4096        /* bytes of a name, comment or description */
#define PHI_EVIDENCE_MAX 480       /* bytes of the evidence sentence */

/* The parsed rules file.  Opaque; read only after loading, so one copy serves the process. */
struct phi_rules;
/*
 * phi_rules_load: parse the rules file at path (format in its header).  OK and *out (free with
 * phi_rules_free); otherwise *out NULL and err says "PATH:LINE: why" (ERR_IO unreadable or over
 * PHI_FILE_MAX, ERR_PARSE a line that does not parse: wrong field count, unknown rule or class,
 * a class the rule does not allow, an empty or overlong term, a bad code range, too many terms,
 * invalid UTF-8, or a rule the classifier needs missing from the file).
 */
enum err phi_rules_load(const char *path, struct phi_rules **out, char *err, size_t errlen);
void phi_rules_free(struct phi_rules *r);
/* phi_rules_get: the rules of conf phi_rules_file (default conf/phi/rules.tsv), loaded on first
 * use and kept for the process; NULL with err when the file cannot be loaded (never cached). */
const struct phi_rules *phi_rules_get(char *err, size_t errlen);
/* phi_rules_hash: a hash of the file's content (part of every table's change check). */
uint64_t phi_rules_hash(const struct phi_rules *r);

/* One table as the classifier sees it: the context every column of it shares. */
struct phi_table_in {
	const char *name, *comment;            /* bare table name; comment may be NULL */
	const char *const *colnames;           /* every column's name, ncols of them */
	const char *const *colcomments;        /* may be NULL, or hold NULLs */
	int ncols;
};
/* One column: names and texts (NULL allowed), its type, and bounded samples of its values:
 * values, from rows sampled from the table (at most PHI_ROWS_MAX looked at), and distinct, the
 * catalog's distinct stored values (at most PHI_DISTINCT_MAX); NULL entries and values over
 * PHI_VALUE_MAX bytes are skipped.  Values are read, never kept. */
struct phi_column_in {
	const char *name, *type, *comment, *description, *full_name;
	const char *const *values; int nvalues;
	const char *const *distinct; int ndistinct;
};
struct phi_context { int person_table, person_linked; char why[160]; };
struct phi_verdict {
	enum phi_class cls;                    /* PHI_NONE .. PHI_DIRECT, never PHI_UNCLASSIFIED */
	char rule[32];                         /* "rrn", "mrn", "care_date", ... ("" for none) */
	char evidence[PHI_EVIDENCE_MAX];       /* which rule, words or how many values matched; never a
	                                        * sampled identifier value (codes of diagnoses may appear) */
};

/*
 * phi_table_context: whether the table is about persons (its name is a person word: a "name"
 * column there is a person's name) and whether it is tied to persons (a key of a patient, case,
 * admission or visit, or a direct identifier by name: its dates are dates of care).  Pure.
 */
void phi_table_context(const struct phi_rules *r, const struct phi_table_in *t, struct phi_context *ctx);
/*
 * phi_column_ties: 1 when a column's name alone ties its row to a person or an episode of care,
 * as phi_table_context reads names: a key of a patient, case, admission or visit (caseid,
 * subject_id, hadm_id, ipwon_seq) or a direct identifier by name (registration, record or chart
 * number, a person's name, a passport number); 0 otherwise.  1 as well when r or column is NULL
 * or column is over PHI_TEXT_MAX bytes (callers enforcing a rule treat unsure as an identifier).
 * Pure.
 */
int phi_column_ties(const struct phi_rules *r, const char *column);
/*
 * phi_classify: the class of one column with its evidence.  The most restrictive rule that
 * matches wins (direct > quasi > sensitive); the evidence names it and mentions others that
 * matched.  ERR_INPUT (verdict PHI_UNCLASSIFIED, evidence says why) for a NULL argument or a
 * name/type/comment over PHI_TEXT_MAX; OK otherwise.  Pure: no I/O.
 */
enum err phi_classify(const struct phi_rules *r, const struct phi_context *ctx,
                      const struct phi_column_in *col, struct phi_verdict *v);

/* Value tests, exposed for the tests. */
/* phi_rrn: 2 when s is a resident (or foreigner) registration number ######-####### or 13
 * digits with a valid birth date, century/sex digit and check digit; 1 the same with a wrong
 * check digit (numbers issued since October 2020); 0 not one. */
int phi_rrn(const char *s);
/* phi_rrn_masked: 1 when s is a registration number with its last six digits masked
 * ("800101-1******"): the birth date and sex remain. */
int phi_rrn_masked(const char *s);
/* phi_phone: 1 when s is a Korean telephone number (mobile 01X, area codes 02-064, 070, 050X,
 * 15XX/16XX/18XX service numbers; with or without '-', ' ' or '.'; +82 allowed) or an
 * international +CC number of 8-15 digits. */
int phi_phone(const char *s);
/* phi_email: 1 when s is local@domain.tld (one '@', no blanks, a dot in the domain). */
int phi_email(const char *s);
/* phi_korean_name: 1 when s is 2-4 Hangul syllables opening with a surname of the rules. */
int phi_korean_name(const struct phi_rules *r, const char *s);

/* ---- the classes of an indexed catalog -------------------------------------------------- */

/* What the catalog knows of one column.  Strings point into the catalog (valid until the
 * next catalog_get in this process) and may be NULL. */
struct phi_info {
	enum phi_class cls;          /* effective: the admin's correction, else the classifier's */
	enum phi_class classified;   /* what the classifier said at the last indexing */
	int corrected;               /* 1: an admin's correction decides cls */
	const char *rule, *evidence; /* the classifier's */
	const char *reason;          /* the correction's reason (corrected only) */
};
/*
 * phi_column_class: THE call for later code (executor access levels, the LLM data policy, the
 * catalog page) to learn a column's class.  column is "table.column" or "schema.table.column"
 * as the catalog names it (at most 512 bytes).  OK with *out filled; ERR_NOTFOUND when the
 * catalog has no such column (out->cls PHI_UNCLASSIFIED); ERR_INPUT for NULL or an overlong
 * name.  A column of a catalog indexed before classification existed is PHI_UNCLASSIFIED:
 * treat it as PHI_DIRECT.  Reads only the in-memory catalog (no I/O).
 */
enum err phi_column_class(const struct catalog *cat, const char *column, struct phi_info *out);

#define PHI_REASON_MAX 500
/*
 * phi_correct: an admin sets column's class on target (cls PHI_NONE..PHI_DIRECT), or clears a
 * correction (cls PHI_UNCLASSIFIED: the classifier decides again).  reason is required (1 to
 * PHI_REASON_MAX bytes, valid UTF-8) for both.  user_id is the admin's askql.users id (0 when
 * none: the CLI without --by) and by a label kept in the audit ("cli:$USER", may be NULL).
 * In one transaction: stores the correction apart from the classifier's output
 * (askql.phi_corrections, kept across re-indexing), drops the column's stored values from the
 * value index when it becomes a direct identifier, records an askql.audit row ("phi.set" or
 * "phi.clear" with target, column, class, previous class and reason) and bumps the catalog
 * version so workers reload.  ERR_INPUT bad arguments, ERR_NOTFOUND no such indexed column (or
 * nothing to clear), ERR_DB; err says why.
 */
enum err phi_correct(PGconn *app, const char *target, const char *column, enum phi_class cls,
                     const char *reason, long long user_id, const char *by, char *err, size_t errlen);

/* One row of phi_list. */
struct phi_row {
	const char *schema, *table, *column, *type;
	enum phi_class cls, classified;
	int corrected;
	const char *rule, *evidence, *reason, *set_by, *set_at;
};
/*
 * phi_list: every column of target's catalog (table may be NULL: all tables, else only that
 * table, bare or schema-qualified), in table and column order, passed to fn.  Strings are valid
 * during the call only.  ERR_NOTFOUND when the target is not indexed, ERR_DB.
 */
enum err phi_list(PGconn *app, const char *target, const char *table,
                  void (*fn)(void *ctx, const struct phi_row *row), void *ctx, char *err, size_t errlen);

#endif
