/* phi.c: PHI classification of columns from names, comments and sampled values (conf/phi/rules.tsv), and admins' corrections. */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/catalog_int.h"
#include "catalog/phi.h"
#include "catalog/text.h"
#include "store/db.h"
#include "util/conf.h"
#include "util/file.h"
#include "util/sb.h"

/* ---- classes ------------------------------------------------------------------------------- */

static const char *const class_names[] = {"unclassified", "none", "sensitive", "quasi", "direct"};

const char *phi_class_name(enum phi_class c)
{
	return c >= PHI_UNCLASSIFIED && c <= PHI_DIRECT ? class_names[c] : "unclassified";
}

int phi_class_parse(const char *s, enum phi_class *out)
{
	for (int i = PHI_NONE; s && i <= PHI_DIRECT; i++)
		if (!strcmp(s, class_names[i])) {
			*out = (enum phi_class)i;
			return 0;
		}
	return -1;
}

/* ---- the rules file ------------------------------------------------------------------------ */

/* The rules the classifier knows (a declared list: a rule of the file must be one of these).
 * fields: which field kinds a line of the rule may use; ctx: a context list (class "-"). */
enum rule_id {
	R_RRN, R_UNIQUE_ID, R_MRN, R_PERSON_NAME, R_PHONE, R_EMAIL, R_ADDRESS, R_OTHER_ID,
	R_BIRTH, R_DEATH, R_AGE, R_POSTCODE, R_AREA, R_SENS_COL, R_CODE, R_LABEL,
	R_PERSON_TABLE, R_PERSON_KEY, R_EXEMPT, R_THING, R_NAME_WORD, R_DX, R_SURNAME, R_NRULES
};
enum field { F_NAME = 1, F_TEXT = 2, F_TABLE = 4, F_VALUE = 8, F_CODE = 16 };
static const struct { const char *name; unsigned fields; int ctx; const char *what; } rules_def[R_NRULES] = {
	[R_RRN] = {"rrn", F_NAME | F_TEXT, 0, "resident registration number"},
	[R_UNIQUE_ID] = {"unique_id", F_NAME | F_TEXT, 0, "passport, licence or foreigner registration number"},
	[R_MRN] = {"mrn", F_NAME | F_TEXT, 0, "medical record / patient number"},
	[R_PERSON_NAME] = {"person_name", F_NAME | F_TEXT, 0, "a person's name"},
	[R_PHONE] = {"phone", F_NAME | F_TEXT, 0, "telephone or fax number"},
	[R_EMAIL] = {"email", F_NAME | F_TEXT, 0, "e-mail address"},
	[R_ADDRESS] = {"address", F_NAME | F_TEXT, 0, "address"},
	[R_OTHER_ID] = {"other_id", F_NAME | F_TEXT, 0, "other identifying number or image"},
	[R_BIRTH] = {"birth_date", F_NAME | F_TEXT, 0, "birth date"},
	[R_DEATH] = {"death_date", F_NAME | F_TEXT, 0, "date of death"},
	[R_AGE] = {"age", F_NAME | F_TEXT, 0, "age"},
	[R_POSTCODE] = {"postcode", F_NAME | F_TEXT, 0, "postcode"},
	[R_AREA] = {"area", F_NAME | F_TEXT, 0, "area of residence"},
	[R_SENS_COL] = {"sensitive_column", F_NAME | F_TEXT, 0, "names a sensitive category"},
	[R_CODE] = {"code", F_CODE, 0, "sensitive diagnosis codes"},
	[R_LABEL] = {"label", F_VALUE, 0, "sensitive diagnosis labels"},
	[R_PERSON_TABLE] = {"person_table", F_TABLE, 1, NULL},
	[R_PERSON_KEY] = {"person_key", F_NAME, 1, NULL},
	[R_EXEMPT] = {"exempt", F_TEXT, 1, NULL},
	[R_THING] = {"thing", F_TEXT, 1, NULL},
	[R_NAME_WORD] = {"name_word", F_NAME, 1, NULL},
	[R_DX] = {"dx_column", F_NAME | F_TEXT, 1, NULL},
	[R_SURNAME] = {"surname", F_VALUE, 1, NULL},
};

/* a date of care: decided by type and table, not by a line of the file */
#define R_CARE_DATE (R_NRULES + 1)

static const char *rule_name(int id)
{
	return id == R_CARE_DATE ? "care_date" : id >= 0 && id < R_NRULES ? rules_def[id].name : "?";
}

struct list { char **t; int n; };
struct code_range { char letter; int lo, hi; char *label; };
struct phi_rules {
	struct list name[R_NRULES], text[R_NRULES], table[R_NRULES], value[R_NRULES];
	enum phi_class cls[R_NRULES];
	int seen[R_NRULES];
	struct code_range *codes; int ncodes;
	uint64_t hash;
	int nterms;
	char *buf;                   /* owner of every term */
};

void phi_rules_free(struct phi_rules *r)
{
	if (!r)
		return;
	for (int i = 0; i < R_NRULES; i++) {
		free(r->name[i].t);
		free(r->text[i].t);
		free(r->table[i].t);
		free(r->value[i].t);
	}
	free(r->codes);
	free(r->buf);
	free(r);
}

uint64_t phi_rules_hash(const struct phi_rules *r)
{
	return r ? r->hash : 0;
}

static int ascii_only(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return 0;
	return 1;
}

static void lower_ascii(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* "F10-F19": one letter and two digits on each side, same letter, lo <= hi */
static int parse_range(const char *s, struct code_range *c)
{
	if (strlen(s) != 7 || !isupper((unsigned char)s[0]) || !isdigit((unsigned char)s[1]) ||
	    !isdigit((unsigned char)s[2]) || s[3] != '-' || s[4] != s[0] || !isdigit((unsigned char)s[5]) ||
	    !isdigit((unsigned char)s[6]))
		return -1;
	c->letter = s[0];
	c->lo = (s[1] - '0') * 10 + (s[2] - '0');
	c->hi = (s[5] - '0') * 10 + (s[6] - '0');
	return c->lo <= c->hi ? 0 : -1;
}

static int list_add(struct list *l, char *t)
{
	char **p = realloc(l->t, (size_t)(l->n + 1) * sizeof *p);

	if (!p)
		return -1;
	l->t = p;
	l->t[l->n++] = t;
	return 0;
}

enum err phi_rules_load(const char *path, struct phi_rules **out, char *err, size_t errlen)
{
	struct phi_rules *r = NULL;
	size_t len = 0;
	char *line, *save = NULL;
	int ln = 0;
	long bad;
	enum err rc = ERR_PARSE;

	*out = NULL;
	if (!path || !*path) {
		err_set(err, errlen, "PHI rules: no file configured (phi_rules_file)");
		return ERR_INPUT;
	}
	if (!(r = calloc(1, sizeof *r))) {
		err_set(err, errlen, "PHI rules: out of memory");
		return ERR_NOMEM;
	}
	if (!(r->buf = file_read(path, PHI_FILE_MAX, &len))) {
		err_set(err, errlen, "PHI rules %s: %s", path, errno == EFBIG ? "larger than 1 MiB" : strerror(errno));
		phi_rules_free(r);
		return ERR_IO;
	}
	if ((bad = text_bad_utf8(r->buf, len)) >= 0) {
		err_set(err, errlen, "PHI rules %s: invalid UTF-8 or NUL byte at offset %ld", path, bad);
		goto fail;
	}
	r->hash = 1469598103934665603ULL;
	for (size_t i = 0; i < len; i++)
		r->hash = (r->hash ^ (unsigned char)r->buf[i]) * 1099511628211ULL;
	/* strtok_r would skip empty lines and so lose the line count: split by hand */
	for (line = r->buf; line && *line; line = save) {
		char *f[5], *nl = strchr(line, '\n');
		int nf = 1, id = -1;
		unsigned field = 0;
		struct code_range cr = {0};
		enum phi_class cls = PHI_UNCLASSIFIED;

		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		ln++;
		if (*trim(line) == '#' || !*trim(line))
			continue;
		f[0] = line;
		for (char *p = line; *p; p++)
			if (*p == '\t') {
				*p = '\0';
				if (nf < 5)
					f[nf] = p + 1;
				nf++;
			}
		if (nf != 4) {
			err_set(err, errlen, "PHI rules %s:%d: %d fields, expected 4 (rule, class, field, terms) separated by TABs",
			        path, ln, nf);
			goto fail;
		}
		for (int i = 0; i < 4; i++)
			f[i] = trim(f[i]);
		for (int i = 0; i < R_NRULES; i++)
			if (!strcmp(f[0], rules_def[i].name))
				id = i;
		if (id < 0) {
			err_set(err, errlen, "PHI rules %s:%d: unknown rule '%.40s' (phi.c knows rrn, unique_id, mrn, person_name, "
			        "phone, email, address, other_id, birth_date, death_date, age, postcode, area, sensitive_column, "
			        "code, label and the context lists)", path, ln, f[0]);
			goto fail;
		}
		if (rules_def[id].ctx ? strcmp(f[1], "-") : (phi_class_parse(f[1], &cls) || cls == PHI_NONE)) {
			err_set(err, errlen, "PHI rules %s:%d: rule %s takes class %s, not '%.20s'", path, ln, f[0],
			        rules_def[id].ctx ? "-" : "direct, quasi or sensitive", f[1]);
			goto fail;
		}
		if (r->seen[id] && r->cls[id] != cls) {
			err_set(err, errlen, "PHI rules %s:%d: rule %s had class %s on an earlier line", path, ln, f[0],
			        phi_class_name(r->cls[id]));
			goto fail;
		}
		r->cls[id] = cls;
		r->seen[id] = 1;
		if (id == R_CODE) {
			if (parse_range(f[3], &cr) || !*f[2] || strlen(f[2]) > PHI_TERM_MAX) {
				err_set(err, errlen, "PHI rules %s:%d: a code line is: code <TAB> class <TAB> label (1-%d bytes) <TAB> "
				        "a range such as F10-F19 (one letter, two digits, same letter)", path, ln, PHI_TERM_MAX);
				goto fail;
			}
			struct code_range *nc = realloc(r->codes, (size_t)(r->ncodes + 1) * sizeof *nc);
			if (!nc)
				goto nomem;
			r->codes = nc;
			cr.label = f[2];
			r->codes[r->ncodes++] = cr;
			continue;
		}
		field = !strcmp(f[2], "name") ? F_NAME : !strcmp(f[2], "text") ? F_TEXT : !strcmp(f[2], "table") ? F_TABLE :
		        !strcmp(f[2], "value") ? F_VALUE : 0;
		if (!(field & rules_def[id].fields)) {
			err_set(err, errlen, "PHI rules %s:%d: rule %s cannot use field '%.20s'", path, ln, f[0], f[2]);
			goto fail;
		}
		struct list *l = field == F_NAME ? &r->name[id] : field == F_TEXT ? &r->text[id] :
		                 field == F_TABLE ? &r->table[id] : &r->value[id];
		int before = l->n;
		for (char *t = f[3], *bar; t; t = bar) {
			if ((bar = strchr(t, '|')))
				*bar++ = '\0';
			t = trim(t);
			if (!*t || strlen(t) > PHI_TERM_MAX) {
				err_set(err, errlen, "PHI rules %s:%d: an empty term or one over %d bytes", path, ln, PHI_TERM_MAX);
				goto fail;
			}
			if (++r->nterms > PHI_TERMS_MAX) {
				err_set(err, errlen, "PHI rules %s:%d: more than %d terms in the file", path, ln, PHI_TERMS_MAX);
				goto fail;
			}
			lower_ascii(t);
			if (list_add(l, t))
				goto nomem;
		}
		if (l->n == before) {
			err_set(err, errlen, "PHI rules %s:%d: no terms", path, ln);
			goto fail;
		}
	}
	for (int i = 0; i < R_NRULES; i++)
		if (!r->seen[i]) {
			err_set(err, errlen, "PHI rules %s: rule %s is missing (every rule of phi.c needs at least one line)",
			        path, rules_def[i].name);
			goto fail;
		}
	*out = r;
	return OK;
nomem:
	err_set(err, errlen, "PHI rules: out of memory");
	rc = ERR_NOMEM;
fail:
	phi_rules_free(r);
	return rc;
}

static pthread_mutex_t rules_lock = PTHREAD_MUTEX_INITIALIZER;
static struct phi_rules *rules_cached;

const struct phi_rules *phi_rules_get(char *err, size_t errlen)
{
	struct phi_rules *r;

	pthread_mutex_lock(&rules_lock);
	if (!rules_cached) {
		const char *path = conf_get("phi_rules_file");

		if (phi_rules_load(*path ? path : "conf/phi/rules.tsv", &rules_cached, err, errlen) != OK)
			rules_cached = NULL;
	}
	r = rules_cached;
	pthread_mutex_unlock(&rules_lock);
	return r;
}

/* ---- matching words ------------------------------------------------------------------------ */

/* words of a column or table name: lower case, split at non-alphanumerics and camelCase */
struct words { char buf[PHI_TEXT_MAX + 64]; char *w[64]; int n; char whole[PHI_TEXT_MAX + 1]; };

static void words_of(const char *name, struct words *ws)
{
	ws->n = text_tokens(name ? name : "", 1, ws->buf, sizeof ws->buf, ws->w, 64);
	snprintf(ws->whole, sizeof ws->whole, "%s", name ? name : "");
	lower_ascii(ws->whole);
}

/* a term of a name list: Korean terms as a substring of the name; ASCII terms equal to the
 * whole name or to a run of its words ("patient_no" in "ptnt_patient_no") */
static int name_has(const struct words *ws, const char *term)
{
	char tb[PHI_TERM_MAX + 1], *tw[16];
	int nt = 0;

	if (!ascii_only(term))
		return strstr(ws->whole, term) != NULL;
	if (!strcmp(ws->whole, term))
		return 1;
	snprintf(tb, sizeof tb, "%s", term);
	for (char *s = tb, *u; s && nt < 16; s = u) {
		if ((u = strchr(s, '_')))
			*u++ = '\0';
		if (*s)
			tw[nt++] = s;
	}
	for (int i = 0; nt && i + nt <= ws->n; i++) {
		int k = 0;

		while (k < nt && !strcmp(ws->w[i + k], tw[k]))
			k++;
		if (k == nt)
			return 1;
	}
	return 0;
}

/* a phrase in lower-cased text: whole words for ASCII terms, a substring for Korean ones */
static int text_has(const char *text, const char *term)
{
	size_t tl = strlen(term);
	int ascii = ascii_only(term);

	for (const char *p = text; (p = strstr(p, term)); p++) {
		if (!ascii)
			return 1;
		if ((p == text || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[tl]))
			return 1;
	}
	return 0;
}

static const char *first_name_hit(const struct list *l, const struct words *ws)
{
	for (int i = 0; i < l->n; i++)
		if (name_has(ws, l->t[i]))
			return l->t[i];
	return NULL;
}

static const char *first_text_hit(const struct list *l, const char *text)
{
	for (int i = 0; *text && i < l->n; i++)
		if (text_has(text, l->t[i]))
			return l->t[i];
	return NULL;
}

/* ---- value tests ----------------------------------------------------------------------------- */

static int days_in(int y, int m)
{
	static const int d[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 29;
	return d[m - 1];
}

static int valid_date(int y, int m, int d)
{
	return m >= 1 && m <= 12 && d >= 1 && d <= days_in(y, m);
}

/* 13 digits of a registration number (with one optional '-' or ' ' after the sixth) into dg;
 * *masked set when the last six are '*' or 'x'; 0 on success */
static int rrn_digits(const char *s, int dg[13], int *masked, int *hyphen)
{
	int n = 0, stars = 0;

	*hyphen = 0;
	while (*s == ' ')
		s++;
	for (; *s && n < 13; s++) {
		if (n == 6 && (*s == '-' || *s == ' ') && !*hyphen) {
			*hyphen = 1;
			continue;
		}
		if (isdigit((unsigned char)*s))
			dg[n++] = *s - '0';
		else if (n >= 7 && (*s == '*' || *s == 'x' || *s == 'X')) {
			dg[n++] = 0;
			stars++;
		} else
			return -1;
	}
	while (*s == ' ')
		s++;
	if (*s || n != 13 || (stars && stars != 6))
		return -1;
	*masked = stars == 6;
	return 0;
}

/* the birth date and century/sex digit of a registration number are plausible */
static int rrn_date_ok(const int dg[13])
{
	static const int century[10] = {1800, 1900, 1900, 2000, 2000, 1900, 1900, 2000, 2000, 1800};
	int y = century[dg[6]] + dg[0] * 10 + dg[1], m = dg[2] * 10 + dg[3], d = dg[4] * 10 + dg[5];

	return valid_date(y, m, d);
}

int phi_rrn(const char *s)
{
	static const int w[12] = {2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5};
	int dg[13], masked, hyphen, sum = 0;

	if (!s || rrn_digits(s, dg, &masked, &hyphen) || masked || !rrn_date_ok(dg))
		return 0;
	for (int i = 0; i < 12; i++)
		sum += dg[i] * w[i];
	if ((11 - sum % 11) % 10 == dg[12])
		return 2;
	/* a foreigner registration number's check digit (sex digits 5-8) */
	if (dg[6] >= 5 && dg[6] <= 8 && (13 - sum % 11) % 10 == dg[12])
		return 2;
	return 1;
}

int phi_rrn_masked(const char *s)
{
	int dg[13], masked, hyphen;

	return s && !rrn_digits(s, dg, &masked, &hyphen) && masked && rrn_date_ok(dg);
}

int phi_phone(const char *s)
{
	char d[24];
	int n = 0, plus = 0, seps = 0;

	if (!s)
		return 0;
	while (*s == ' ')
		s++;
	if (*s == '+') {
		plus = 1;
		s++;
	}
	for (; *s; s++) {
		if (isdigit((unsigned char)*s)) {
			if (n >= 20)
				return 0;
			d[n++] = *s;
		} else if ((*s == '-' || *s == ' ' || *s == '.' || *s == '(' || *s == ')') && n) {
			seps++;
		} else {
			return 0;
		}
	}
	d[n] = '\0';
	if (plus && n > 2 && d[0] == '8' && d[1] == '2') {
		/* +82 10-1234-5678: the national number without its leading 0 */
		for (int i = 2; i <= n; i++)   /* with the NUL */
			d[i - 1] = d[i];
		d[0] = '0';
		n--;
	} else if (plus) {
		return n >= 8 && n <= 15;
	}
	if (n == 8 && d[0] == '1' && (d[1] == '5' || d[1] == '6' || d[1] == '8'))
		return seps > 0;   /* 1588-1234: only written with its separator */
	if (d[0] != '0' || n < 9 || n > 11)
		return 0;
	if (d[1] == '1')                                    /* mobile 010, 011, 016-019 */
		return (d[2] == '0' || d[2] == '1' || (d[2] >= '6' && d[2] <= '9')) && n >= 10;
	if (d[1] == '2')                                    /* Seoul 02 */
		return n == 9 || n == 10;
	if (d[1] == '7' && d[2] == '0')                     /* 070 internet telephony */
		return n == 11;
	if (d[1] == '5' && d[2] == '0')                     /* 050X personal numbers */
		return n == 11 || n == 12;
	if (d[1] >= '3' && d[1] <= '6' && d[2] >= '1' && d[2] <= '5')   /* area codes 031-064 */
		return n == 10 || n == 11;
	return 0;
}

int phi_email(const char *s)
{
	const char *at, *dot;

	if (!s || !*s || strchr(s, ' ') || !(at = strchr(s, '@')) || at == s || strchr(at + 1, '@'))
		return 0;
	dot = strrchr(at + 1, '.');
	return dot && dot > at + 1 && dot[1] && strlen(dot + 1) >= 2;
}

/* number of UTF-8 characters of s when all are Hangul syllables (U+AC00..U+D7A3), else -1 */
static int hangul_syllables(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int n = 0;

	while (*p) {
		unsigned cp;

		if ((p[0] & 0xF0) != 0xE0 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80)
			return -1;
		cp = ((unsigned)(p[0] & 0x0F) << 12) | ((unsigned)(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
		if (cp < 0xAC00 || cp > 0xD7A3)
			return -1;
		p += 3;
		n++;
	}
	return n;
}

int phi_korean_name(const struct phi_rules *r, const char *s)
{
	int n;

	if (!r || !s)
		return 0;
	n = hangul_syllables(s);
	if (n < 2 || n > 4)
		return 0;
	/* department, room and team names (내과, 정형외과, 수술실) are no names */
	if (strlen(s) >= 3 && (!strcmp(s + strlen(s) - 3, "과") || !strcmp(s + strlen(s) - 3, "실") ||
	                       !strcmp(s + strlen(s) - 3, "팀")))
		return 0;
	for (int i = 0; i < r->value[R_SURNAME].n; i++) {
		const char *sn = r->value[R_SURNAME].t[i];

		if (!strncmp(s, sn, strlen(sn)) && strlen(s) > strlen(sn))
			return 1;
	}
	return 0;
}

/* "2023-01-05", "2023/01/05", "2023.01.05", "20230105", optionally followed by a time */
static int date_like(const char *s)
{
	int y, m, d;
	char sep;

	if (strlen(s) >= 10 && isdigit((unsigned char)s[0]) && (s[4] == '-' || s[4] == '/' || s[4] == '.') &&
	    s[7] == s[4] && sscanf(s, "%4d%c%2d", &y, &sep, &m) == 3 && isdigit((unsigned char)s[8]) &&
	    isdigit((unsigned char)s[9])) {
		d = (s[8] - '0') * 10 + (s[9] - '0');
		return y >= 1880 && y <= 2100 && valid_date(y, m, d) && (!s[10] || s[10] == ' ' || s[10] == 'T');
	}
	if (strlen(s) == 8 || (strlen(s) > 8 && s[8] == ' ')) {
		for (int i = 0; i < 8; i++)
			if (!isdigit((unsigned char)s[i]))
				return 0;
		y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
		m = (s[4] - '0') * 10 + (s[5] - '0');
		d = (s[6] - '0') * 10 + (s[7] - '0');
		return y >= 1880 && y <= 2100 && valid_date(y, m, d);
	}
	return 0;
}

/* an ICD-10/KCD code, normalised into out (upper case, no dot or blanks): a letter, two digits,
 * then at most five letters or digits ("F20.9" -> "F209", "b20" -> "B20"); 0 when it is one */
static int icd_code(const char *s, char *out, size_t n)
{
	size_t k = 0;

	for (; *s && k + 1 < n; s++) {
		if (*s == '.' || *s == ' ')
			continue;
		if (!isalnum((unsigned char)*s))
			return -1;
		out[k++] = (char)toupper((unsigned char)*s);
	}
	out[k] = '\0';
	if (*s || k < 3 || k > 8 || !isupper((unsigned char)out[0]) || !isdigit((unsigned char)out[1]) ||
	    !isdigit((unsigned char)out[2]))
		return -1;
	return 0;
}

/* the label of the first sensitive code range holding code, or NULL */
static const char *code_label(const struct phi_rules *r, const char *code)
{
	int num = (code[1] - '0') * 10 + (code[2] - '0');

	for (int i = 0; i < r->ncodes; i++)
		if (r->codes[i].letter == code[0] && num >= r->codes[i].lo && num <= r->codes[i].hi)
			return r->codes[i].label;
	return NULL;
}

/* ---- classification ------------------------------------------------------------------------ */

/* the key-like ending of a column name: an identifier or number suffix */
static int keyish(const struct words *ws)
{
	static const char *const suf[] = {"id", "no", "num", "nbr", "number", "key", "seq", NULL};
	const char *last = ws->n ? ws->w[ws->n - 1] : "";
	size_t l = strlen(ws->whole);

	for (int i = 0; suf[i]; i++)
		if (!strcmp(last, suf[i]) || (l > strlen(suf[i]) + 2 && !strcmp(ws->whole + l - strlen(suf[i]), suf[i])))
			return 1;
	return strstr(ws->whole, "번호") != NULL;
}

static void lower_text(char *out, size_t n, const char *a, const char *b, const char *c)
{
	snprintf(out, n, "%s %s %s", a ? a : "", b ? b : "", c ? c : "");
	lower_ascii(out);
}

/* a word rule hit by the column's name or texts; which term into *term */
static int rule_hit(const struct phi_rules *r, int id, const struct words *ws, const char *text, const char **term)
{
	const char *t = first_name_hit(&r->name[id], ws);

	if (!t)
		t = first_text_hit(&r->text[id], text);
	*term = t;
	return t != NULL;
}

/* col_ties: whether a column's name (words in ws) ties its row to a person or an episode of care:
 * a person or episode key (caseid, subject_id, hadm_id) or a direct identifier by name; the rule's
 * term into *term, the rule into *rule (-1 for a key) */
static int col_ties(const struct phi_rules *r, const struct words *ws, const char **term, int *rule)
{
	static const int direct[] = {R_RRN, R_MRN, R_PERSON_NAME, R_UNIQUE_ID};

	if ((*term = first_name_hit(&r->name[R_PERSON_KEY], ws)) && (keyish(ws) || !strcmp(ws->whole, *term))) {
		*rule = -1;
		return 1;
	}
	for (int k = 0; k < 4; k++)
		if ((*term = first_name_hit(&r->name[direct[k]], ws))) {
			*rule = direct[k];
			return 1;
		}
	return 0;
}

int phi_column_ties(const struct phi_rules *r, const char *column)
{
	struct words *ws;
	const char *term;
	int rule, y;

	if (!r || !column || strlen(column) > PHI_TEXT_MAX || !(ws = malloc(sizeof *ws)))
		return 1;   /* unsure: an identifier, so callers that enforce refuse */
	words_of(column, ws);
	y = col_ties(r, ws, &term, &rule);
	free(ws);
	return y;
}

void phi_table_context(const struct phi_rules *r, const struct phi_table_in *t, struct phi_context *ctx)
{
	struct words *ws = malloc(sizeof *ws);
	const char *term;
	int rule;

	memset(ctx, 0, sizeof *ctx);
	if (!r || !t || !ws) {
		free(ws);
		return;
	}
	words_of(t->name, ws);
	if ((term = first_name_hit(&r->table[R_PERSON_TABLE], ws))) {
		ctx->person_table = ctx->person_linked = 1;
		snprintf(ctx->why, sizeof ctx->why, "a table of persons (its name has '%s')", term);
	}
	for (int i = 0; i < t->ncols && !ctx->person_linked; i++) {
		words_of(t->colnames[i], ws);
		if (!col_ties(r, ws, &term, &rule))
			continue;
		ctx->person_linked = 1;
		if (rule < 0)
			snprintf(ctx->why, sizeof ctx->why, "rows tied to a person or episode of care by key %.60s", t->colnames[i]);
		else
			/* a direct identifier by name also ties rows to persons */
			snprintf(ctx->why, sizeof ctx->why, "rows tied to persons by %.60s (%s)", t->colnames[i],
			         rules_def[rule].what);
	}
	free(ws);
}

/* one candidate class of a column */
struct hit { int rule; enum phi_class cls; char why[400]; };
struct hits { struct hit h[24]; int n; };

static void add_hit(struct hits *hs, int rule, enum phi_class cls, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void add_hit(struct hits *hs, int rule, enum phi_class cls, const char *fmt, ...)
{
	va_list ap;

	if (hs->n >= 24)
		return;
	hs->h[hs->n].rule = rule;
	hs->h[hs->n].cls = cls;
	va_start(ap, fmt);
	vsnprintf(hs->h[hs->n].why, sizeof hs->h[hs->n].why, fmt, ap);
	va_end(ap);
	hs->n++;
}

static int usable(const char *v)
{
	return v && *v && strlen(v) <= PHI_VALUE_MAX;
}

/* the row sample, or the distinct values when no rows were sampled */
static void sample_of(const struct phi_column_in *c, const char *const **vals, int *n)
{
	*vals = c->values;
	*n = c->nvalues < PHI_ROWS_MAX ? c->nvalues : PHI_ROWS_MAX;
	if (*n <= 0 || !*vals) {
		*vals = c->distinct;
		*n = c->ndistinct < PHI_ROWS_MAX ? c->ndistinct : PHI_ROWS_MAX;
	}
	if (!*vals)
		*n = 0;
}

static int type_is_date(const char *t)
{
	return t && (!strncmp(t, "date", 4) || !strncmp(t, "timestamp", 9));
}

static int type_is_texty(const char *t)
{
	return !t || !strncmp(t, "text", 4) || !strncmp(t, "character", 9) || !strncmp(t, "varchar", 7) ||
	       !strncmp(t, "char", 4) || !strncmp(t, "citext", 6);
}

/* value rules over the row sample: registration numbers, phones, e-mail, names, date text */
static void value_hits(const struct phi_rules *r, const struct phi_context *ctx, const struct phi_column_in *c,
                       int thing, struct hits *hs)
{
	const char *const *vals;
	int n, used = 0, rrn_ok = 0, rrn_any = 0, rrn_hyph = 0, masked = 0, phone = 0, mail = 0, name = 0,
	    dates = 0, distinct = 0;

	sample_of(c, &vals, &n);
	for (int i = 0; i < n; i++) {
		const char *v = vals[i];
		int k, dg[13], m, hy;

		if (!usable(v))
			continue;
		used++;
		if ((k = phi_rrn(v))) {
			rrn_any++;
			rrn_ok += k == 2;
			rrn_hyph += !rrn_digits(v, dg, &m, &hy) && hy;
		}
		masked += phi_rrn_masked(v);
		phone += phi_phone(v);
		mail += phi_email(v);
		name += phi_korean_name(r, v);
		dates += date_like(v);
		int seen = 0;
		for (int j = 0; j < i && !seen; j++)
			seen = usable(vals[j]) && !strcmp(vals[j], v);
		distinct += !seen;
	}
	if (used < 3)
		return;
	/* 13 digits pass a check digit by chance one time in ten, and a plausible date and sex digit
	 * about one in four: most values must pass both before a number column counts as one */
	if (rrn_any * 10 >= used * 8 && (rrn_hyph * 2 >= rrn_any || rrn_ok * 2 >= used))
		add_hit(hs, R_RRN, r->cls[R_RRN], "%d of %d sampled values are resident registration numbers "
		        "(birth date, sex digit%s; %d with a valid check digit)", rrn_any, used,
		        rrn_hyph * 2 >= rrn_any ? ", ######-####### form" : "", rrn_ok);
	if (masked * 10 >= used * 8)
		add_hit(hs, R_BIRTH, r->cls[R_BIRTH], "%d of %d sampled values are registration numbers with the last six digits "
		        "masked: birth date and sex remain", masked, used);
	if (phone * 10 >= used * 8)
		add_hit(hs, R_PHONE, r->cls[R_PHONE], "%d of %d sampled values are telephone numbers", phone, used);
	if (mail * 10 >= used * 8)
		add_hit(hs, R_EMAIL, r->cls[R_EMAIL], "%d of %d sampled values are e-mail addresses", mail, used);
	if (!thing && used >= 5 && name * 10 >= used * 8 && distinct * 2 >= used)
		add_hit(hs, R_PERSON_NAME, r->cls[R_PERSON_NAME], "%d of %d sampled values are Korean personal names (2-4 syllables "
		        "opening with a surname)", name, used);
	if (ctx->person_linked && type_is_texty(c->type) && dates * 10 >= used * 8)
		add_hit(hs, R_CARE_DATE, PHI_QUASI, "%d of %d sampled values are dates, in a table of %s", dates, used,
		        ctx->why);
}

/* codes and labels of psychiatric, HIV and substance-use diagnoses among the stored values */
static void sensitive_hits(const struct phi_rules *r, const struct phi_context *ctx, const struct phi_column_in *c,
                           int dx, struct hits *hs, char *note, size_t notelen)
{
	char found[200] = "", cats[320] = "", code[16], label[PHI_VALUE_MAX + 1];
	const char *first_word = NULL;
	int looked = 0, codes = 0, sens = 0, words = 0, flen = 0, clen = 0;

	for (int pass = 0; pass < 2; pass++) {
		const char *const *vals = pass ? c->distinct : c->values;
		int n = pass ? (c->ndistinct < PHI_DISTINCT_MAX ? c->ndistinct : PHI_DISTINCT_MAX) :
		               (c->nvalues < PHI_ROWS_MAX ? c->nvalues : PHI_ROWS_MAX);

		for (int i = 0; vals && i < n; i++) {
			const char *lb;

			if (!usable(vals[i]))
				continue;
			looked++;
			if (!icd_code(vals[i], code, sizeof code)) {
				codes++;
				if ((lb = code_label(r, code))) {
					/* list each code once, at most a few, and each category once */
					if (!strstr(found, code) && flen < 120)
						flen += snprintf(found + flen, sizeof found - (size_t)flen, "%s%s", flen ? ", " : "", code);
					if (!strstr(cats, lb) && clen < 200)
						clen += snprintf(cats + clen, sizeof cats - (size_t)clen, "%s%s", clen ? "; " : "", lb);
					sens++;
				}
				continue;
			}
			if (!dx)
				continue;
			snprintf(label, sizeof label, "%s", vals[i]);
			lower_ascii(label);
			for (int k = 0; k < r->value[R_LABEL].n; k++)
				if (text_has(label, r->value[R_LABEL].t[k])) {
					if (!words++)
						first_word = r->value[R_LABEL].t[k];
					break;
				}
		}
	}
	/* codes count when the column is a diagnosis column or its values are mostly codes */
	if (sens && (dx || codes * 10 >= looked * 8)) {
		if (ctx->person_linked)
			add_hit(hs, R_CODE, r->cls[R_CODE], "%d stored value%s %s sensitive diagnosis codes (%s): %s", sens,
			        sens > 1 ? "s" : "", sens > 1 ? "are" : "is", found, cats);
		else
			snprintf(note, notelen, "holds sensitive diagnosis codes (%s) but no key ties its rows to patients "
			         "(a code dictionary)", found);
	}
	if (words) {
		if (ctx->person_linked)
			add_hit(hs, R_LABEL, r->cls[R_LABEL], "%d stored diagnosis label%s name%s a sensitive category "
			        "(e.g. the word '%s')", words, words > 1 ? "s" : "", words > 1 ? "" : "s", first_word);
		else if (!*note)
			snprintf(note, notelen, "holds labels of sensitive diagnoses (e.g. '%s') but no key ties its rows "
			         "to patients (a dictionary)", first_word);
	}
}

enum err phi_classify(const struct phi_rules *r, const struct phi_context *ctx,
                      const struct phi_column_in *c, struct phi_verdict *v)
{
	struct words *ws = NULL;
	struct hits hs = {0};
	char *text = NULL, note[300] = "";
	const char *term;
	int exempt, thing, dx, best = -1;
	static const int word_rules[] = {R_RRN, R_UNIQUE_ID, R_MRN, R_PERSON_NAME, R_PHONE, R_EMAIL, R_ADDRESS,
	                                 R_OTHER_ID, R_BIRTH, R_DEATH, R_AGE, R_POSTCODE, R_AREA, R_SENS_COL};

	if (!v)
		return ERR_INPUT;
	memset(v, 0, sizeof *v);
	if (!r || !ctx || !c || !c->name) {
		snprintf(v->evidence, sizeof v->evidence, "not classified: no rules or no column");
		return ERR_INPUT;
	}
	if (strlen(c->name) > PHI_TEXT_MAX || (c->type && strlen(c->type) > PHI_TEXT_MAX) ||
	    (c->comment && strlen(c->comment) > PHI_TEXT_MAX) || (c->description && strlen(c->description) > PHI_TEXT_MAX) ||
	    (c->full_name && strlen(c->full_name) > PHI_TEXT_MAX)) {
		snprintf(v->evidence, sizeof v->evidence, "not classified: a name, type, comment or description over %d bytes",
		         PHI_TEXT_MAX);
		return ERR_INPUT;
	}
	if (!(ws = malloc(sizeof *ws)) || !(text = malloc(3 * PHI_TEXT_MAX + 8))) {
		free(ws);
		snprintf(v->evidence, sizeof v->evidence, "not classified: out of memory");
		return ERR_NOMEM;
	}
	words_of(c->name, ws);
	lower_text(text, 3 * PHI_TEXT_MAX + 8, c->comment, c->description, c->full_name);
	exempt = first_text_hit(&r->text[R_EXEMPT], text) != NULL;
	thing = first_text_hit(&r->text[R_THING], text) != NULL;
	dx = first_name_hit(&r->name[R_DX], ws) || first_text_hit(&r->text[R_DX], text);
	/* names and comments */
	for (size_t i = 0; i < sizeof word_rules / sizeof word_rules[0]; i++) {
		int id = word_rules[i];

		if (!rule_hit(r, id, ws, text, &term))
			continue;
		if ((id == R_MRN || id == R_RRN || id == R_UNIQUE_ID || id == R_OTHER_ID) && exempt) {
			snprintf(note, sizeof note, "surrogate key: '%s' suggests a %s, but it is described as pseudonymous "
			         "or de-identified", term, rules_def[id].what);
			continue;
		}
		/* "name" words in a comment that speaks of a test or drug name a thing */
		if (id == R_PERSON_NAME && thing && !first_text_hit(&r->text[R_PERSON_NAME], text)) {
			snprintf(note, sizeof note, "'%s' names a thing here (its comment speaks of one), not a person", term);
			continue;
		}
		add_hit(&hs, id, r->cls[id], "%s: the %s has '%s'", rules_def[id].what,
		        first_name_hit(&r->name[id], ws) ? "name" : "comment or description", term);
	}
	/* an address given only at area level (시도, city) is a quasi-identifier, not an address */
	for (int i = 0; i < hs.n; i++)
		if (hs.h[i].rule == R_ADDRESS)
			for (int k = 0; k < hs.n; k++)
				if (hs.h[k].rule == R_AREA) {
					hs.h[i].cls = PHI_NONE;
					break;
				}
	/* a "name" column of a table of persons is a person's name, unless it names a thing or
	 * another rule explains it ("addr_sido_nm" is the name of a province) */
	if (ctx->person_table && (term = first_name_hit(&r->name[R_NAME_WORD], ws))) {
		int have = 0;

		for (int i = 0; i < hs.n; i++)
			have |= hs.h[i].rule == R_PERSON_NAME || hs.h[i].cls > PHI_NONE;
		if (!have && !thing)
			add_hit(&hs, R_PERSON_NAME, r->cls[R_PERSON_NAME], "a person's name: '%s' column of %s", term, ctx->why);
		else if (!have || thing)
			snprintf(note, sizeof note, "'%s' names a thing here (its comment speaks of one), not a person", term);
	}
	if (!hs.n && !*note && first_name_hit(&r->name[R_NAME_WORD], ws) && !ctx->person_table)
		snprintf(note, sizeof note, "'%s' is not a table of persons: its names name things", c->name);
	value_hits(r, ctx, c, thing || exempt, &hs);
	sensitive_hits(r, ctx, c, dx, &hs, note, sizeof note);
	/* dates tied to a person are quasi-identifiers (Safe Harbor keeps only the year) */
	if (type_is_date(c->type)) {
		if (ctx->person_linked)
			add_hit(&hs, R_CARE_DATE, PHI_QUASI, "a date of care: a %s column in a table of %s", c->type, ctx->why);
		else if (!*note)
			snprintf(note, sizeof note, "a date in a table with no key of a patient, case or visit");
	}
	/* ages: Safe Harbor pools those over 89; say whether the sample holds any */
	for (int i = 0; i < hs.n; i++)
		if (hs.h[i].rule == R_AGE) {
			int over = 0, nums = 0;
			double mx = -1;

			for (int k = 0; c->values && k < c->nvalues && k < PHI_ROWS_MAX; k++) {
				char *e;
				double d;

				if (!usable(c->values[k]))
					continue;
				d = strtod(c->values[k], &e);
				if (*e)
					continue;
				nums++;
				over += d > 89;
				if (d > mx)
					mx = d;
			}
			if (nums) {
				size_t l = strlen(hs.h[i].why);
				snprintf(hs.h[i].why + l, sizeof hs.h[i].why - l, "; %d of %d sampled ages over 89 (largest %.0f)",
				         over, nums, mx);
			}
		}
	/* the most restrictive class wins; the first rule of that class names it */
	for (int i = 0; i < hs.n; i++)
		if (hs.h[i].cls > PHI_NONE && (best < 0 || hs.h[i].cls > hs.h[best].cls))
			best = i;
	if (best < 0) {
		v->cls = PHI_NONE;
		snprintf(v->evidence, sizeof v->evidence, "%s", *note ? note : "no rule matched its name, comment or sampled values");
	} else {
		size_t l;
		int id = hs.h[best].rule;

		v->cls = hs.h[best].cls;
		snprintf(v->rule, sizeof v->rule, "%s", rule_name(id));
		l = (size_t)snprintf(v->evidence, sizeof v->evidence, "%s", hs.h[best].why);
		for (int i = 0; i < hs.n && l < sizeof v->evidence; i++) {
			if (i == best || hs.h[i].cls <= PHI_NONE)
				continue;
			l += (size_t)snprintf(v->evidence + l, sizeof v->evidence - l, "; also %s (%s): %s",
			                      rule_name(hs.h[i].rule),
			                      phi_class_name(hs.h[i].cls), hs.h[i].why);
		}
	}
	free(ws);
	free(text);
	return OK;
}

/* ---- the classes of an indexed catalog -------------------------------------------------------- */

enum err phi_column_class(const struct catalog *cat, const char *column, struct phi_info *out)
{
	const struct cat_column *col;
	int ci;

	if (!out)
		return ERR_INPUT;
	memset(out, 0, sizeof *out);
	if (!cat || !column || strlen(column) > 512)
		return ERR_INPUT;
	if ((ci = cat_find_column(cat, column)) < 0)
		return ERR_NOTFOUND;
	col = &cat->columns[ci];
	out->classified = (enum phi_class)col->phi_auto;
	out->cls = col->phi_fixed ? (enum phi_class)col->phi_fixed : out->classified;
	out->corrected = col->phi_fixed != 0;
	out->rule = col->phi_rule;
	out->evidence = col->phi_evidence;
	out->reason = col->phi_reason;
	return OK;
}

/* split "s.t.c" / "t.c" into schema, table, column (public when no schema); 0 on success */
static int split_col(const char *s, char *sch, char *tab, char *col, size_t n)
{
	/* no third dot, and no part empty */
	if (catalog_split3(s, sch, tab, col, n) || strchr(col, '.'))
		return -1;
	return *sch && *tab && *col ? 0 : -1;
}

static void json_str(struct sb *sb, const char *key, const char *v, int comma)
{
	sb_printf(sb, "%s\"%s\": ", comma ? ", " : "", key);
	if (!v) {
		sb_puts(sb, "null");
		return;
	}
	sb_putc(sb, '"');
	for (; *v; v++) {
		if (*v == '"' || *v == '\\')
			sb_printf(sb, "\\%c", *v);
		else if ((unsigned char)*v < 0x20)
			sb_printf(sb, "\\u%04x", *v);
		else
			sb_putc(sb, *v);
	}
	sb_putc(sb, '"');
}

enum err phi_correct(PGconn *app, const char *target, const char *column, enum phi_class cls,
                     const char *reason, long long user_id, const char *by, char *err, size_t errlen)
{
	char sch[256], tab[256], col[256], uid[24];
	const char *p[8];
	PGresult *r = NULL;
	struct sb det = SB_INIT;
	enum err rc;
	const char *prev;

	if (!app || !target || !*target || strlen(target) > 63 || !column) {
		err_set(err, errlen, "a target name (1-63 bytes) and a column are required");
		return ERR_INPUT;
	}
	if (strlen(column) > 512 || split_col(column, sch, tab, col, sizeof sch)) {
		err_set(err, errlen, "columns are written TABLE.COLUMN or SCHEMA.TABLE.COLUMN (at most 512 bytes)");
		return ERR_INPUT;
	}
	if (cls != PHI_UNCLASSIFIED && (cls < PHI_NONE || cls > PHI_DIRECT)) {
		err_set(err, errlen, "the class is one of direct, quasi, sensitive, none");
		return ERR_INPUT;
	}
	if (!reason || strlen(reason) > PHI_REASON_MAX ||
	    text_bad_utf8(reason, strlen(reason)) >= 0) {
		err_set(err, errlen, "a reason is required: 1 to %d bytes of UTF-8 text", PHI_REASON_MAX);
		return ERR_INPUT;
	}
	{
		const char *s = reason;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s) {
			err_set(err, errlen, "a reason is required: 1 to %d bytes of UTF-8 text", PHI_REASON_MAX);
			return ERR_INPUT;
		}
	}
	if (by && strlen(by) > 200) {
		err_set(err, errlen, "the 'by' label is over 200 bytes");
		return ERR_INPUT;
	}
	snprintf(uid, sizeof uid, "%lld", user_id);
	p[0] = target; p[1] = sch; p[2] = tab; p[3] = col;
	p[4] = cls == PHI_UNCLASSIFIED ? NULL : phi_class_name(cls);
	p[5] = reason;
	p[6] = by;
	p[7] = user_id > 0 ? uid : NULL;
	if ((rc = db_exec(app, "BEGIN", 0, NULL, err, errlen)) != OK)
		return rc;
	/* the column must be in the catalog; its current effective class goes into the audit */
	if (!(r = db_query(app, "SELECT coalesce(k.class, c.phi_class, 'unclassified'), k.class IS NOT NULL "
	                   "FROM askql.cat_columns c LEFT JOIN askql.phi_corrections k ON k.target = c.target AND "
	                   "k.schema_name = c.schema_name AND k.table_name = c.table_name AND k.column_name = c.name "
	                   "WHERE c.target = $1 AND c.schema_name = $2 AND c.table_name = $3 AND c.name = $4 "
	                   "FOR UPDATE OF c", 4, p, err, errlen))) {
		rc = ERR_DB;
		goto fail;
	}
	if (PQntuples(r) != 1) {
		err_set(err, errlen, "no column %s.%s.%s in the catalog of %s (askql phi list --target %s shows them)",
		        sch, tab, col, target, target);
		rc = ERR_NOTFOUND;
		goto fail;
	}
	if (cls == PHI_UNCLASSIFIED && *PQgetvalue(r, 0, 1) != 't') {
		err_set(err, errlen, "%s.%s.%s of %s has no correction to clear", sch, tab, col, target);
		rc = ERR_NOTFOUND;
		goto fail;
	}
	prev = PQgetvalue(r, 0, 0);
	sb_putc(&det, '{');
	json_str(&det, "target", target, 0);
	{
		char q[800];

		snprintf(q, sizeof q, "%s.%s.%s", sch, tab, col);
		json_str(&det, "column", q, 1);
	}
	json_str(&det, "class", p[4], 1);
	json_str(&det, "previous", prev, 1);
	json_str(&det, "reason", reason, 1);
	json_str(&det, "by", by, 1);
	sb_putc(&det, '}');
	PQclear(r);
	r = NULL;
	if (!sb_ok(&det)) {
		err_set(err, errlen, "out of memory");
		rc = ERR_NOMEM;
		goto fail;
	}
	if (cls == PHI_UNCLASSIFIED)
		rc = db_exec(app, "DELETE FROM askql.phi_corrections WHERE target = $1 AND schema_name = $2 AND "
		             "table_name = $3 AND column_name = $4", 4, p, err, errlen);
	else
		rc = db_exec(app, "INSERT INTO askql.phi_corrections (target, schema_name, table_name, column_name, class, "
		             "reason, set_by, user_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::bigint) "
		             "ON CONFLICT (target, schema_name, table_name, column_name) DO UPDATE SET class = EXCLUDED.class, "
		             "reason = EXCLUDED.reason, set_by = EXCLUDED.set_by, user_id = EXCLUDED.user_id, set_at = now()",
		             8, p, err, errlen);
	if (rc != OK)
		goto fail;
	/* a direct identifier's values do not stay in the value index (nor reach prompts from it) */
	if (cls == PHI_DIRECT &&
	    (rc = db_exec(app, "DELETE FROM askql.cat_values WHERE target = $1 AND schema_name = $2 AND table_name = $3 "
	                  "AND column_name = $4", 4, p, err, errlen)) != OK)
		goto fail;
	{
		/* as the web pages audit admin actions (view_audit): who, what, a JSON detail */
		const char *a[3] = {user_id > 0 ? uid : NULL, cls == PHI_UNCLASSIFIED ? "phi.clear" : "phi.set", sb_cstr(&det)};

		rc = db_exec(app, "INSERT INTO askql.audit (user_id, action, detail) VALUES ($1::bigint, $2, $3::jsonb)",
		             3, a, err, errlen);
	}
	if (rc != OK ||
	    (rc = db_exec(app, "UPDATE askql.cat_targets SET version = version + 1, changed_at = now() WHERE name = $1",
	                  1, p, err, errlen)) != OK)
		goto fail;
	sb_free(&det);
	return db_exec(app, "COMMIT", 0, NULL, err, errlen);
fail:
	PQclear(r);
	sb_free(&det);
	db_exec(app, "ROLLBACK", 0, NULL, NULL, 0);
	return rc;
}

static enum phi_class class_of(const char *s)
{
	enum phi_class c = PHI_UNCLASSIFIED;

	if (s)
		phi_class_parse(s, &c);
	return c;
}

enum err phi_list(PGconn *app, const char *target, const char *table,
                  void (*fn)(void *ctx, const struct phi_row *row), void *ctx, char *err, size_t errlen)
{
	const char *p[3] = {target, NULL, NULL};
	char sch[256] = "", tab[256] = "";
	PGresult *r;

	if (!app || !target || !fn) {
		err_set(err, errlen, "a target is required");
		return ERR_INPUT;
	}
	if (table) {
		const char *dot = strchr(table, '.');

		if (strlen(table) > 300 || (dot && strchr(dot + 1, '.'))) {
			err_set(err, errlen, "a table is written TABLE or SCHEMA.TABLE (at most 300 bytes)");
			return ERR_INPUT;
		}
		if (dot)
			snprintf(sch, sizeof sch, "%.*s", (int)(dot - table), table);
		snprintf(tab, sizeof tab, "%s", dot ? dot + 1 : table);
		p[1] = *sch ? sch : NULL;
		p[2] = tab;
	}
	if (!(r = db_query(app, "SELECT 1 FROM askql.cat_targets WHERE name = $1", 1, p, err, errlen)))
		return ERR_DB;
	if (PQntuples(r) != 1) {
		PQclear(r);
		err_set(err, errlen, "target '%s' is not indexed (askql index --target %s)", target, target);
		return ERR_NOTFOUND;
	}
	PQclear(r);
	if (!(r = db_query(app, "SELECT c.schema_name, c.table_name, c.name, c.type, c.phi_class, k.class, c.phi_rule, "
	                   "c.phi_evidence, k.reason, k.set_by, to_char(k.set_at, 'YYYY-MM-DD HH24:MI:SS') "
	                   "FROM askql.cat_columns c LEFT JOIN askql.phi_corrections k ON k.target = c.target AND "
	                   "k.schema_name = c.schema_name AND k.table_name = c.table_name AND k.column_name = c.name "
	                   "WHERE c.target = $1 AND ($3::text IS NULL OR (c.table_name = $3 AND "
	                   "($2::text IS NULL OR c.schema_name = $2))) "
	                   "ORDER BY c.schema_name COLLATE \"C\", c.table_name COLLATE \"C\", c.ordinal", 3, p, err, errlen)))
		return ERR_DB;
	for (int i = 0; i < PQntuples(r); i++) {
		struct phi_row row;
		const char *k = PQgetisnull(r, i, 5) ? NULL : PQgetvalue(r, i, 5);

		row.schema = PQgetvalue(r, i, 0);
		row.table = PQgetvalue(r, i, 1);
		row.column = PQgetvalue(r, i, 2);
		row.type = PQgetvalue(r, i, 3);
		row.classified = class_of(PQgetisnull(r, i, 4) ? NULL : PQgetvalue(r, i, 4));
		row.corrected = k != NULL;
		row.cls = k ? class_of(k) : row.classified;
		row.rule = PQgetisnull(r, i, 6) ? NULL : PQgetvalue(r, i, 6);
		row.evidence = PQgetisnull(r, i, 7) ? NULL : PQgetvalue(r, i, 7);
		row.reason = k ? PQgetvalue(r, i, 8) : NULL;
		row.set_by = k && !PQgetisnull(r, i, 9) ? PQgetvalue(r, i, 9) : NULL;
		row.set_at = k ? PQgetvalue(r, i, 10) : NULL;
		fn(ctx, &row);
	}
	PQclear(r);
	return OK;
}
