/* llm_policy.c: what text derived from a target's data an LLM request may carry (llm_data_policy: schema, values, rows). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "catalog/catalog_int.h"
#include "catalog/llm_policy.h"
#include "catalog/phi.h"
#include "util/conf.h"
#include "util/sb.h"

/* What replaces a withheld literal or quoted value: visibly a gap, never a plausible value. */
#define GAP "\xe2\x80\xa6"   /* U+2026 … */

const char *llm_policy_name(enum llm_policy p)
{
	switch (p) {
	case LLM_POLICY_SCHEMA: return "schema";
	case LLM_POLICY_VALUES: return "values";
	case LLM_POLICY_ROWS: return "rows";
	default: return "unset";
	}
}

int llm_policy_parse(const char *s, enum llm_policy *out)
{
	if (!s || !out)
		return -1;
	if (!strcmp(s, "schema"))
		*out = LLM_POLICY_SCHEMA;
	else if (!strcmp(s, "values"))
		*out = LLM_POLICY_VALUES;
	else if (!strcmp(s, "rows"))
		*out = LLM_POLICY_ROWS;
	else
		return -1;
	return 0;
}

/* 127.a.b.c written as four numbers (127.0.0.1.example.com is a name, not loopback) */
static int loopback_v4(const char *h)
{
	int parts = 0;

	if (strncmp(h, "127.", 4))
		return 0;
	for (const char *p = h; *p; parts++) {
		const char *e = p;

		while (isdigit((unsigned char)*e))
			e++;
		if (e == p || e - p > 3 || (*e && *e != '.'))
			return 0;
		p = *e ? e + 1 : e;
	}
	return parts == 4;
}

int llm_policy_hosted(const char *url)
{
	char host[256];
	const char *p, *e;
	size_t n;

	if (!url || !*url)
		return 0;
	if (*url == '/')
		return 0;   /* a unix socket path */
	p = strstr(url, "://");
	p = p ? p + 3 : url;
	/* userinfo@ is not the host */
	e = p + strcspn(p, "/?#");
	for (const char *at = p; at < e; at++)
		if (*at == '@')
			p = at + 1;
	if (*p == '[') {   /* [::1]:8000 */
		const char *rb = strchr(p, ']');

		if (!rb)
			return 1;
		n = (size_t)(rb - p - 1);
		p++;
	} else {
		n = strcspn(p, ":/?#");
	}
	if (n == 0 || n >= sizeof host)
		return n != 0;
	memcpy(host, p, n);
	host[n] = '\0';
	if (!strcasecmp(host, "localhost") || !strcmp(host, "::1") || !strcmp(host, "0.0.0.0") ||
	    loopback_v4(host))
		return 0;
	n = strlen(host);
	if (n > 10 && !strcasecmp(host + n - 10, ".localhost"))
		return 0;
	return 1;
}

enum llm_policy llm_policy_default(const char **why)
{
	const char *v = conf_get("llm_data_policy");
	enum llm_policy p;
	const char *w;

	if (!*v || !strcmp(v, "auto")) {
		if (strcmp(conf_get("llm_provider"), "openai")) {
			p = LLM_POLICY_ROWS;
			w = "auto: the builtin provider sends nothing anywhere";
		} else if (llm_policy_hosted(conf_get("llm_base_url"))) {
			p = LLM_POLICY_VALUES;
			w = "auto: llm_base_url is a hosted endpoint (not this machine)";
		} else {
			p = LLM_POLICY_ROWS;
			w = "auto: llm_base_url is on this machine (loopback)";
		}
	} else if (llm_policy_parse(v, &p) == 0) {
		w = "llm_data_policy setting";
	} else {
		p = LLM_POLICY_SCHEMA;   /* conf_load refuses other words; the strictest if one slips by */
		w = "llm_data_policy unreadable: schema";
	}
	if (why)
		*why = w;
	return p;
}

enum llm_policy llm_policy_resolve(const char *target_setting, const char **why)
{
	enum llm_policy p;

	if (target_setting && *target_setting && llm_policy_parse(target_setting, &p) == 0) {
		if (why)
			*why = "target setting";
		return p;
	}
	return llm_policy_default(why);
}

/* the effective class of catalog column ci (PHI_UNCLASSIFIED counts as direct) allows values */
static int class_ok(const struct catalog *cat, int ci)
{
	const struct cat_column *col = &cat->columns[ci];
	enum phi_class c = col->phi_fixed ? (enum phi_class)col->phi_fixed : (enum phi_class)col->phi_auto;

	return c == PHI_NONE || c == PHI_SENSITIVE;
}

int llm_policy_values_ok(enum llm_policy p, const struct catalog *cat, const char *column)
{
	int ci;

	if (p == LLM_POLICY_UNSET || p == LLM_POLICY_ROWS)
		return 1;
	if (p != LLM_POLICY_VALUES || !cat || !column || strlen(column) > 512)
		return 0;
	if ((ci = cat_find_column(cat, column)) < 0)
		return 0;
	return class_ok(cat, ci);
}

int llm_policy_values_ok2(enum llm_policy p, const struct catalog *cat, const char *table, const char *column)
{
	char q[600];

	if (p == LLM_POLICY_UNSET || p == LLM_POLICY_ROWS)
		return 1;
	if (!table || !column)
		return 0;
	snprintf(q, sizeof q, "%s.%s", table, column);
	return llm_policy_values_ok(p, cat, q);
}

/* a stored value of the catalog in a column whose values p allows */
static int allowed_value(enum llm_policy p, const struct catalog *cat, const char *v, size_t n)
{
	if (p != LLM_POLICY_VALUES || !cat)
		return 0;
	for (int i = 0; i < cat->nvalues; i++) {
		const char *s = cat->values[i].value;

		if (s && strlen(s) == n && !memcmp(s, v, n) && class_ok(cat, cat->values[i].col))
			return 1;
	}
	return 0;
}

char *llm_policy_scrub_sql(enum llm_policy p, const struct catalog *cat, const char *sql)
{
	struct sb b = SB_INIT;
	const char *s;

	if (!sql)
		return NULL;
	if (p == LLM_POLICY_UNSET || p == LLM_POLICY_ROWS)
		return strdup(sql);
	for (s = sql; *s;) {
		if (*s == '\'' ) {
			/* a string literal ('' is a quote inside it); its text unescaped for the lookup */
			struct sb v = SB_INIT;
			const char *e = s + 1;

			for (;;) {
				if (!*e)
					break;
				if (*e == '\'' && e[1] == '\'') {
					sb_putc(&v, '\'');
					e += 2;
					continue;
				}
				if (*e == '\'')
					break;
				sb_putc(&v, *e++);
			}
			if (allowed_value(p, cat, v.buf ? v.buf : "", v.len))
				sb_printf(&b, "%.*s", (int)(e - s + (*e ? 1 : 0)), s);
			else
				sb_puts(&b, "'" GAP "'");
			sb_free(&v);
			s = *e ? e + 1 : e;
		} else if (*s == '$' && (s == sql || !isalnum((unsigned char)s[-1]))) {
			/* $tag$ ... $tag$ (a dollar-quoted body); $1 parameters stay */
			const char *t = s + 1, *end;
			char tag[64];

			while (isalnum((unsigned char)*t) || *t == '_')
				t++;
			if (*t != '$' || (size_t)(t - s + 1) >= sizeof tag || isdigit((unsigned char)s[1])) {
				sb_putc(&b, *s++);
				continue;
			}
			snprintf(tag, sizeof tag, "%.*s", (int)(t - s + 1), s);
			end = strstr(t + 1, tag);
			sb_puts(&b, "'" GAP "'");
			s = end ? end + strlen(tag) : t + strlen(t);
		} else if (*s == '"') {
			/* a quoted identifier: a name, kept */
			const char *e = strchr(s + 1, '"');

			e = e ? e + 1 : s + strlen(s);
			sb_printf(&b, "%.*s", (int)(e - s), s);
			s = e;
		} else if (isdigit((unsigned char)*s) && (s == sql || !(isalnum((unsigned char)s[-1]) || s[-1] == '_'))) {
			const char *e = s;

			while (isdigit((unsigned char)*e))
				e++;
			/* six digits or more: a patient, registration or phone number, not a constant */
			if (e - s >= 6 && !isalpha((unsigned char)*e) && *e != '_')
				sb_putc(&b, '0');
			else
				sb_printf(&b, "%.*s", (int)(e - s), s);
			s = e;
		} else if (isalpha((unsigned char)*s) || *s == '_') {
			/* a word, whole (its digits are part of a name) */
			const char *e = s;

			while (isalnum((unsigned char)*e) || *e == '_' || (unsigned char)*e >= 0x80)
				e++;
			sb_printf(&b, "%.*s", (int)(e - s), s);
			s = e;
		} else {
			sb_putc(&b, *s++);
		}
	}
	return sb_steal(&b);
}

/* 1 when w[0..n) occurs in sql as a whole word or a whole quoted text */
static int in_sql(const char *sql, const char *w, size_t n)
{
	if (!sql || !n)
		return 0;
	for (const char *p = sql; *p; p++) {
		if (strncmp(p, w, n))
			continue;
		int lb = p == sql || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
		int rb = !(isalnum((unsigned char)p[n]) || p[n] == '_');

		if (lb && rb)
			return 1;
	}
	return 0;
}

/* 1 when w[0..n) is a table, a column, or table.column (schema.table.column) of cat */
static int cat_name(const struct catalog *cat, const char *w, size_t n)
{
	char q[600];

	if (!cat || !n || n >= sizeof q)
		return 0;
	memcpy(q, w, n);
	q[n] = '\0';
	if (cat_find_table(cat, q) >= 0 || cat_find_column(cat, q) >= 0)
		return 1;
	for (int i = 0; i < cat->ncolumns; i++)
		if (cat->columns[i].name && !strcmp(cat->columns[i].name, q))
			return 1;
	return 0;
}

char *llm_policy_scrub_error(enum llm_policy p, const struct catalog *cat, const char *text, const char *sql)
{
	struct sb b = SB_INIT;

	if (!text)
		return NULL;
	if (p == LLM_POLICY_UNSET || p == LLM_POLICY_ROWS)
		return strdup(text);
	for (const char *s = text; *s;) {
		const char *e;

		if ((*s == '"' || *s == '\'') && (e = strchr(s + 1, *s))) {
			size_t n = (size_t)(e - s - 1);

			if (in_sql(sql, s + 1, n) || cat_name(cat, s + 1, n))
				sb_printf(&b, "%.*s", (int)(n + 2), s);
			else
				sb_printf(&b, "%c" GAP "%c", *s, *s);
			s = e + 1;
		} else {
			sb_putc(&b, *s++);
		}
	}
	return sb_steal(&b);
}

/* ---- errors of the database: the code, never the message ------------------------------- */

/* SQLSTATE classes (the first two characters), as PostgreSQL's Appendix A names them */
static const struct { const char *cls, *name; } sqlclass[] = {
	{"01", "warning"}, {"02", "no data"}, {"03", "SQL statement not yet complete"},
	{"08", "connection exception"}, {"0A", "feature not supported"}, {"21", "cardinality violation"},
	{"22", "data exception"}, {"23", "integrity constraint violation"}, {"25", "invalid transaction state"},
	{"28", "invalid authorization specification"}, {"2F", "SQL routine exception"},
	{"38", "external routine exception"}, {"40", "transaction rollback"},
	{"42", "syntax error or access rule violation"}, {"53", "insufficient resources"},
	{"54", "program limit exceeded"}, {"55", "object not in prerequisite state"},
	{"57", "operator intervention"}, {"58", "system error"}, {"P0", "PL/pgSQL error"},
	{"XX", "internal error"},
};

/* the conditions a model meets while writing a SELECT, as PostgreSQL names them */
static const struct { const char *code, *name; } sqlcond[] = {
	{"22001", "string_data_right_truncation"}, {"22003", "numeric_value_out_of_range"},
	{"22007", "invalid_datetime_format"}, {"22008", "datetime_field_overflow"},
	{"22012", "division_by_zero"}, {"22021", "character_not_in_repertoire"},
	{"22023", "invalid_parameter_value"}, {"2202E", "array_subscript_error"},
	{"22P02", "invalid_text_representation"}, {"2200M", "invalid_xml_document"},
	{"2200N", "invalid_xml_content"}, {"22P05", "untranslatable_character"},
	{"22004", "null_value_not_allowed"}, {"2201B", "invalid_regular_expression"},
	{"25006", "read_only_sql_transaction"}, {"42501", "insufficient_privilege"},
	{"42601", "syntax_error"}, {"42602", "invalid_name"}, {"42611", "invalid_column_definition"},
	{"42702", "ambiguous_column"}, {"42703", "undefined_column"}, {"42725", "ambiguous_function"},
	{"42803", "grouping_error"}, {"42804", "datatype_mismatch"}, {"42809", "wrong_object_type"},
	{"42846", "cannot_coerce"}, {"42883", "undefined_function"}, {"42P01", "undefined_table"},
	{"42P02", "undefined_parameter"}, {"42P09", "ambiguous_alias"}, {"42P10", "invalid_column_reference"},
	{"42P18", "indeterminate_datatype"}, {"42P20", "windowing_error"}, {"42P22", "indeterminate_collation"},
	{"53100", "disk_full"}, {"53200", "out_of_memory"}, {"54000", "program_limit_exceeded"},
	{"54001", "statement_too_complex"}, {"55P03", "lock_not_available"}, {"57014", "query_canceled"},
};

/* a SQLSTATE: five characters of [0-9A-Z] */
static int is_sqlstate(const char *s)
{
	if (!s || strlen(s) != 5)
		return 0;
	for (int i = 0; i < 5; i++)
		if (!isdigit((unsigned char)s[i]) && !isupper((unsigned char)s[i]))
			return 0;
	return 1;
}

char *llm_policy_db_error(enum llm_policy p, const struct catalog *cat, const char *sqlstate, int position,
                          const char *text, const char *own)
{
	struct sb b = SB_INIT;
	const char *cls = NULL, *cond = NULL;

	if (p == LLM_POLICY_UNSET || p == LLM_POLICY_ROWS)
		return strdup(text ? text : "");
	if (!is_sqlstate(sqlstate))
		return llm_policy_scrub_error(p, cat, text ? text : "", own);
	for (size_t i = 0; i < sizeof sqlclass / sizeof sqlclass[0]; i++)
		if (!strncmp(sqlclass[i].cls, sqlstate, 2))
			cls = sqlclass[i].name;
	for (size_t i = 0; i < sizeof sqlcond / sizeof sqlcond[0]; i++)
		if (!strcmp(sqlcond[i].code, sqlstate))
			cond = sqlcond[i].name;
	sb_printf(&b, "SQLSTATE %s (%s%s%s)", sqlstate, cls ? cls : "class unknown", cond ? ": " : "",
	          cond ? cond : "");
	if (position > 0)
		sb_printf(&b, " at character %d of the SQL", position);
	sb_puts(&b, "; the message text is withheld (llm_data_policy ");
	sb_printf(&b, "%s)", llm_policy_name(p));
	return sb_steal(&b);
}

/* ---- text of other people's questions (verified examples) ---------------------------- */

/* an ASCII run that may hold an identifier: letters, digits and . @ + _ - (and *, a masked digit) */
static int id_byte(unsigned char c)
{
	return isalnum(c) || c == '.' || c == '@' || c == '+' || c == '_' || c == '-' || c == '*';
}

/* withheld: does the token w[0..n) look like a registration number, telephone number, e-mail
 * address or a long number (a patient or record number)? */
static int withheld(const char *w, size_t n)
{
	char t[128];
	size_t digits = 0;

	while (n && (w[n - 1] == '.' || w[n - 1] == '-'))   /* the end of a sentence, a dash */
		n--;
	if (n == 0 || n >= sizeof t)
		return n >= sizeof t;   /* 128 bytes of one token: withheld rather than inspected */
	memcpy(t, w, n);
	t[n] = '\0';
	for (size_t i = 0; i < n; i++)
		digits += isdigit((unsigned char)t[i]) != 0;
	if (digits == n && n >= 6)
		return 1;
	return phi_rrn(t) || phi_rrn_masked(t) || phi_phone(t) || phi_email(t);
}

char *llm_policy_scrub_text(enum llm_policy p, const char *text)
{
	struct sb b = SB_INIT;
	const char *s = text ? text : "";

	if (p != LLM_POLICY_SCHEMA && p != LLM_POLICY_VALUES)
		return strdup(s);
	while (*s) {
		size_t n = 0;

		while (id_byte((unsigned char)s[n]))
			n++;
		if (n == 0) {
			sb_putc(&b, *s++);
			continue;
		}
		if (withheld(s, n))
			sb_puts(&b, "…");
		else
			sb_append(&b, s, n);
		s += n;
	}
	return sb_steal(&b);
}
