/* admin_catalog_phi.h: what the catalog page (admin_catalog.c) asks of its PHI part (admin_catalog_phi.c). */
#ifndef ASKQL_ADMIN_CATALOG_PHI_H
#define ASKQL_ADMIN_CATALOG_PHI_H

#include <cjson/cJSON.h>
#include "catalog/phi.h"
#include "http/http.h"

/* One column's PHI class as phi_list gives it; strings live in the request's arena. */
struct catphi_col {
	const char *table;        /* as the page names tables: bare in public, else schema.table */
	const char *column, *rule, *evidence, *reason, *set_by, *set_at;   /* "" when none */
	enum phi_class cls, classified;
	int corrected;
};

/* The classes of a target's columns (or of one table's), in table and column order. */
struct catphi {
	struct catphi_col *cols;  /* r->a */
	int n, cap;
};

/*
 * catphi_load: the classes of target's columns through phi_list; table NULL for every table, else
 * the page's name of one table (only its own schema's columns are kept).  Everything is allocated
 * in r->a.  OK; ERR_NOTFOUND when the target is not indexed, ERR_DB, ERR_NOMEM (p empty then).
 */
enum err catphi_load(struct req *r, const char *target, const char *table, struct catphi *p);
/* catphi_find: the column table.column of p, or NULL. */
const struct catphi_col *catphi_find(const struct catphi *p, const char *table, const char *column);
/* catphi_hides_values: 1 when the page must show no stored value of the column (c NULL, a direct
 * identifier, or unclassified, which is treated as direct). */
int catphi_hides_values(const struct catphi_col *c);
/*
 * catphi_add: o.phi = {cls, label, warn, corrected, classified, classified_label, never_classified,
 * rule, evidence, reason, set_by, set_at, hidden} for c (NULL: unclassified), every key always set
 * so that template sections never reach an enclosing object's.
 */
void catphi_add(struct req *r, cJSON *o, const struct catphi_col *c);
/* catphi_options: o.phi_options [{value, label, selected}] for the correction form of c. */
void catphi_options(struct req *r, cJSON *o, const struct catphi_col *c);
/* catphi_counts: o.phi_counts [{cls, label, n}] of table's columns that are not none (NULL table:
 * the whole target), non-zero classes only, unclassified first, o.phi_any, and o.phi_warn when a
 * column is unclassified; returns how many. */
int catphi_counts(struct req *r, cJSON *o, const struct catphi *p, const char *table);
/* catphi_review: d.review [{table, column, phi...}] of every column of p whose class is not none. */
void catphi_review(struct req *r, cJSON *d, const struct catphi *p);
/* catphi_notice: the i18n key of a PHI outcome word (?notice=phi_...) and in *bad whether it is a
 * refusal; NULL when word is not one. */
const char *catphi_notice(const char *word, int *bad);
/*
 * catphi_correct: the POST of the column page's PHI forms (clear 0: set class from ?class=, 1:
 * clear the correction), reason from ?reason=, through phi_correct as the signed-in admin.  Bad
 * input changes nothing.  Returns the outcome word for ?notice= (static).
 */
const char *catphi_correct(struct req *r, const char *target, const char *table, const char *column, int clear);

#endif
