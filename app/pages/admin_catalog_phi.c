/* admin_catalog_phi.c: the PHI part of the catalog page: each column's class and evidence, per-table counts, the review list of a target, and admins' corrections through phi_correct. */
#include <stdio.h>
#include <string.h>
#include "pages/admin_catalog_phi.h"
#include "pages/pages.h"
#include "store/db.h"
#include "util/arena.h"
#include "util/log.h"

/* the classes an admin may choose, most restrictive first (as the review reads them) */
static const enum phi_class choices[] = {PHI_DIRECT, PHI_QUASI, PHI_SENSITIVE, PHI_NONE};
/* the order of the counts: unclassified first, it is the one to look at first */
static const enum phi_class counted[] = {PHI_UNCLASSIFIED, PHI_DIRECT, PHI_QUASI, PHI_SENSITIVE};

static const char *label(struct req *r, enum phi_class c)
{
	char key[40];

	snprintf(key, sizeof key, "phi.class.%s", phi_class_name(c));
	return view_t(r, key);
}

struct loadctx { struct req *r; struct catphi *p; const char *want; int nomem; };

static const char *dup(struct loadctx *l, const char *s)
{
	char *d = arena_strdup(l->r->a, s ? s : "");

	if (!d)
		l->nomem = 1;
	return d ? d : "";
}

static void keep(void *arg, const struct phi_row *w)
{
	struct loadctx *l = arg;
	struct catphi *p = l->p;
	struct catphi_col *c;
	char tname[600];

	snprintf(tname, sizeof tname, "%s%s%s", strcmp(w->schema, "public") ? w->schema : "",
	         strcmp(w->schema, "public") ? "." : "", w->table);
	/* phi_list matches a bare table name in every schema: the page means the one it names */
	if (l->nomem || (l->want && strcmp(l->want, tname)))
		return;
	if (p->n == p->cap) {
		int cap = p->cap ? p->cap * 2 : 64;
		void *m = arena_realloc(l->r->a, p->cols, sizeof *p->cols * (size_t)p->cap, sizeof *p->cols * (size_t)cap);

		if (!m) {
			l->nomem = 1;
			return;
		}
		p->cols = m;
		p->cap = cap;
	}
	c = &p->cols[p->n++];
	c->table = dup(l, tname);
	c->column = dup(l, w->column);
	c->rule = dup(l, w->rule);
	c->evidence = dup(l, w->evidence);
	c->reason = dup(l, w->reason);
	c->set_by = dup(l, w->set_by);
	c->set_at = dup(l, w->set_at);
	c->cls = w->cls;
	c->classified = w->classified;
	c->corrected = w->corrected;
}

enum err catphi_load(struct req *r, const char *target, const char *table, struct catphi *p)
{
	struct loadctx l = {r, p, table, 0};
	char err[512] = "";
	enum err e;

	memset(p, 0, sizeof *p);
	e = phi_list(db_app(), target, table, keep, &l, err, sizeof err);
	if (e == OK && l.nomem)
		e = ERR_NOMEM;
	if (e != OK) {
		/* a target not indexed yet has no classes: the page says so elsewhere */
		if (e != ERR_NOTFOUND)
			log_error("catalog page: phi_list: %s", err);
		memset(p, 0, sizeof *p);
	}
	return e;
}

const struct catphi_col *catphi_find(const struct catphi *p, const char *table, const char *column)
{
	for (int i = 0; table && column && i < p->n; i++)
		if (!strcmp(p->cols[i].table, table) && !strcmp(p->cols[i].column, column))
			return &p->cols[i];
	return NULL;
}

int catphi_hides_values(const struct catphi_col *c)
{
	return !c || c->cls == PHI_DIRECT || c->cls == PHI_UNCLASSIFIED;
}

void catphi_add(struct req *r, cJSON *o, const struct catphi_col *c)
{
	cJSON *ph = cJSON_AddObjectToObject(o, "phi");
	enum phi_class cls = c ? c->cls : PHI_UNCLASSIFIED, was = c ? c->classified : PHI_UNCLASSIFIED;

	cJSON_AddStringToObject(ph, "cls", phi_class_name(cls));
	cJSON_AddStringToObject(ph, "label", label(r, cls));
	cJSON_AddBoolToObject(ph, "warn", cls == PHI_UNCLASSIFIED);
	cJSON_AddBoolToObject(ph, "corrected", c && c->corrected);
	cJSON_AddStringToObject(ph, "classified", phi_class_name(was));
	cJSON_AddStringToObject(ph, "classified_label", label(r, was));
	cJSON_AddBoolToObject(ph, "never_classified", was == PHI_UNCLASSIFIED);
	cJSON_AddStringToObject(ph, "rule", c ? c->rule : "");
	cJSON_AddStringToObject(ph, "evidence", c ? c->evidence : "");
	cJSON_AddStringToObject(ph, "reason", c && c->corrected ? c->reason : "");
	cJSON_AddStringToObject(ph, "set_by", c && c->corrected ? c->set_by : "");
	cJSON_AddStringToObject(ph, "set_at", c && c->corrected ? c->set_at : "");
	cJSON_AddBoolToObject(ph, "hidden", catphi_hides_values(c));
}

void catphi_options(struct req *r, cJSON *o, const struct catphi_col *c)
{
	cJSON *opts = cJSON_AddArrayToObject(o, "phi_options");
	enum phi_class cls = c ? c->cls : PHI_UNCLASSIFIED;

	for (size_t i = 0; i < sizeof choices / sizeof choices[0]; i++) {
		cJSON *op = cJSON_CreateObject();

		cJSON_AddStringToObject(op, "value", phi_class_name(choices[i]));
		cJSON_AddStringToObject(op, "label", label(r, choices[i]));
		/* the form opens on the class in force; an unclassified column on direct, as it is treated */
		cJSON_AddBoolToObject(op, "selected", choices[i] == (cls == PHI_UNCLASSIFIED ? PHI_DIRECT : cls));
		cJSON_AddItemToArray(opts, op);
	}
}

int catphi_counts(struct req *r, cJSON *o, const struct catphi *p, const char *table)
{
	int n[PHI_DIRECT + 1] = {0}, total = 0;
	cJSON *arr = cJSON_AddArrayToObject(o, "phi_counts");

	for (int i = 0; i < p->n; i++)
		if (!table || !strcmp(p->cols[i].table, table))
			n[p->cols[i].cls]++;
	for (size_t k = 0; k < sizeof counted / sizeof counted[0]; k++) {
		cJSON *it;

		if (!n[counted[k]])
			continue;
		it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "cls", phi_class_name(counted[k]));
		cJSON_AddStringToObject(it, "label", label(r, counted[k]));
		cJSON_AddNumberToObject(it, "n", n[counted[k]]);
		cJSON_AddItemToArray(arr, it);
		total += n[counted[k]];
	}
	cJSON_AddBoolToObject(o, "phi_any", total > 0);
	cJSON_AddBoolToObject(o, "phi_warn", n[PHI_UNCLASSIFIED] > 0);
	return total;
}

void catphi_review(struct req *r, cJSON *d, const struct catphi *p)
{
	cJSON *arr = cJSON_AddArrayToObject(d, "review");
	const char *last = NULL;

	for (int i = 0; i < p->n; i++) {
		const struct catphi_col *c = &p->cols[i];
		cJSON *o;

		if (c->cls == PHI_NONE)
			continue;
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "table", c->table);
		cJSON_AddStringToObject(o, "column", c->column);
		/* a table's name heads its first row: the list reads table by table */
		cJSON_AddBoolToObject(o, "first_of_table", !last || strcmp(last, c->table));
		last = c->table;
		catphi_add(r, o, c);
		cJSON_AddItemToArray(arr, o);
	}
}

/* outcome word -> its i18n key, and whether it is a refusal */
static const struct { const char *word, *key; int bad; } outcomes[] = {
	{"phi_saved", "phi.notice.saved", 0}, {"phi_cleared", "phi.notice.cleared", 0},
	{"phi_no_reason", "phi.notice.no_reason", 1}, {"phi_reason_long", "phi.notice.reason_long", 1},
	{"phi_bad_reason", "phi.notice.bad_reason", 1}, {"phi_bad_class", "phi.notice.bad_class", 1},
	{"phi_no_column", "phi.notice.no_column", 1}, {"phi_no_corr", "phi.notice.no_corr", 1},
	{"phi_failed", "phi.notice.failed", 1},
};

const char *catphi_notice(const char *word, int *bad)
{
	for (size_t i = 0; word && i < sizeof outcomes / sizeof outcomes[0]; i++)
		if (!strcmp(word, outcomes[i].word)) {
			*bad = outcomes[i].bad;
			return outcomes[i].key;
		}
	return NULL;
}

const char *catphi_correct(struct req *r, const char *target, const char *table, const char *column, int clear)
{
	const char *reason = req_param(r, "reason"), *cname = req_param(r, "class");
	enum phi_class cls = PHI_UNCLASSIFIED;
	const struct catphi_col *c;
	struct catphi p;
	char err[1024] = "", *full;
	const char *s;
	enum err e;

	if (!clear && (!cname || phi_class_parse(cname, &cls)))
		return "phi_bad_class";
	for (s = reason; s && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n'); s++)
		;
	if (!s || !*s)
		return "phi_no_reason";
	if (strlen(reason) > PHI_REASON_MAX)
		return "phi_reason_long";
	/* the column must be one of the catalog's (and, to clear, corrected): said before anything is tried */
	if (!table || !*table || !column || !*column ||
	    catphi_load(r, target, table, &p) != OK || !(c = catphi_find(&p, table, column)))
		return "phi_no_column";
	if (clear && !c->corrected)
		return "phi_no_corr";
	if (!(full = arena_printf(r->a, "%s.%s", table, column)))
		return "phi_failed";
	e = phi_correct(db_app(), target, full, clear ? PHI_UNCLASSIFIED : cls, reason, r->user.id, r->user.name,
	                err, sizeof err);
	switch (e) {
	case OK:
		return clear ? "phi_cleared" : "phi_saved";
	case ERR_NOTFOUND:   /* re-indexed meanwhile */
		return clear ? "phi_no_corr" : "phi_no_column";
	case ERR_INPUT:      /* what is left: a reason that is not UTF-8 text, a name phi_correct cannot split */
		log_info("phi correction refused: %s", err);
		return strstr(err, "reason") ? "phi_bad_reason" : "phi_no_column";
	default:
		log_error("phi correction: %s", err);
		return "phi_failed";
	}
}
