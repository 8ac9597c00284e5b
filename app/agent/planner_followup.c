/* planner_followup.c: follow-up questions read with the previous one ("케이스 6은?", "the same by sex"). */
#include <pthread.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/file.h"
#include "util/conf.h"
#include "agent/planner_front.h"

/* ---- follow-up markers (conf/lexicon/followup.txt), loaded once ---- */
static char **markers;
static int nmarkers;
static pthread_once_t markers_once = PTHREAD_ONCE_INIT;

static void load_markers(void)
{
	char *buf = file_read(conf_get("followup_file"), 65536, NULL), *save = NULL;

	if (!buf)
		return;
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char **nm;

		if (*l == '#' || !*l)
			continue;
		if (!(nm = realloc(markers, (size_t)(nmarkers + 1) * sizeof *nm)))
			break;
		markers = nm;
		markers[nmarkers++] = l;   /* buf stays for the process */
	}
}

/* q without the follow-up markers it starts with or contains as whole words (heap) */
static char *strip_markers(const char *q)
{
	char *out = strdup(q);

	pthread_once(&markers_once, load_markers);
	for (int i = 0; out && i < nmarkers; i++) {
		size_t ml = strlen(markers[i]);
		char *p = out;

		while ((p = strcasestr(p, markers[i]))) {
			int before = p == out || p[-1] == ' ' || p[-1] == ',';
			int after = !p[ml] || p[ml] == ' ' || p[ml] == ',' || p[ml] == '?' || (unsigned char)p[ml] >= 0x80;

			if (before && after && (!((unsigned char)p[ml] >= 0x80) || (unsigned char)markers[i][ml - 1] >= 0x80)) {
				memmove(p, p + ml, strlen(p + ml) + 1);
				continue;
			}
			p += ml;
		}
	}
	return out;
}

/* a grouping word: Korean X별 / X별로 / X별로도 (also by X), English "by X" / "per X" */
static int is_group_word(const char *w, size_t n)
{
	return (n > 3 && !memcmp(w + n - 3, "별", 3)) || (n > 6 && !memcmp(w + n - 6, "별로", 6)) ||
	       (n > 9 && !memcmp(w + n - 9, "별로도", 9));
}

static int has_grouping(const char *q)
{
	const char *p = q;

	while (*p) {
		size_t n = strcspn(p, " ,?");

		if (is_group_word(p, n) || ((n == 2 && !strncasecmp(p, "by", 2)) || (n == 3 && !strncasecmp(p, "per", 3))))
			return 1;
		p += n;
		p += strspn(p, " ,?");
	}
	return 0;
}

/* prev without its grouping word(s) (heap; NULL when it has none) */
static char *drop_grouping(const char *prev)
{
	struct sb sb = SB_INIT;
	const char *p = prev;
	int dropped = 0;

	while (*p) {
		size_t n = strcspn(p, " ,?"), sp;

		if (is_group_word(p, n)) {
			dropped = 1;
		} else if ((n == 2 && !strncasecmp(p, "by", 2)) || (n == 3 && !strncasecmp(p, "per", 3))) {
			/* "by department": drop the preposition and the next word */
			p += n;
			p += strspn(p, " ");
			n = strcspn(p, " ,?");
			dropped = 1;
		} else {
			sb_append(&sb, p, n);
		}
		p += n;
		sp = strspn(p, " ,?");
		if (sp && sb.len)
			sb_putc(&sb, ' ');
		p += sp;
	}
	if (!dropped || !sb_ok(&sb)) {
		sb_free(&sb);
		return NULL;
	}
	return sb_steal(&sb);
}

/* says_instead: the follow-up asks to replace, not add ("대신 성별로", "by sex instead") */
static int says_instead(const char *q)
{
	static const char *const w[] = {"대신", "말고", "instead", "rather than", NULL};
	for (int i = 0; w[i]; i++)
		if (strcasestr(q, w[i]))
			return 1;
	return 0;
}

/* cut_words: text (tokenised as tp) without the words cut(tp, i, &from) says to cut: from token
 * `from` to the end of token i (heap; NULL when out of memory) */
static char *cut_words(const char *text, const struct ptoks *tp, int (*cut)(const struct ptoks *, int, int *))
{
	struct sb sb = SB_INIT;
	size_t at = 0;
	for (int i = 0, from; i < tp->n; i++) {
		if (!cut(tp, i, &from))
			continue;
		sb_append(&sb, text + at, (size_t)tp->v[from].off - at);
		at = (size_t)(tp->v[i].off + tp->v[i].len);
	}
	sb_puts(&sb, text + at);
	char *out = sb_ok(&sb) ? sb_steal(&sb) : NULL;
	sb_free(&sb);
	return out;
}

/* time_word: token i was read by the time parser (a word of a time expression) */
static int time_word(const struct ptoks *t, int i, int *from)
{
	*from = i;
	return t->v[i].used;
}

/* without_time: prev without the words of its time expressions (heap), when q names a time of its
 * own ("로봇 수술 건수 2025년" then "same for 2024": 2024 replaces 2025, not both); NULL when
 * either names none */
static char *without_time(const char *prev, struct ptoks *tp, struct ptoks *tq)
{
	struct tm now;
	struct ptime w;
	char desc[256];
	if (!planner_time_now("2000-01-01 00:00:00", &now))
		return NULL;
	int qt = planner_time(tq, &now, &w, desc, sizeof desc), pt = planner_time(tp, &now, &w, desc, sizeof desc);
	if (qt <= 0 || pt <= 0)
		return NULL;
	return cut_words(prev, tp, time_word);
}

/* bucket_at: token i of t is a period said per (월별, 연도별로, "by year", "per month") */
static int bucket_at(const struct ptoks *t, int i)
{
	const struct ptok *k = &t->v[i];
	return k->role == R_BUCKET ||
	       (k->role == R_UNIT && (k->group || (i > 0 && t->v[i - 1].role == R_PER && !t->v[i - 1].hangul)));
}

/* bucket_word: token i is a period said per; cut from the "by" before it */
static int bucket_word(const struct ptoks *t, int i, int *from)
{
	*from = i > 0 && t->v[i - 1].role == R_PER && !t->v[i - 1].hangul ? i - 1 : i;
	return bucket_at(t, i);
}

/* without_bucket: prev without its period said per (heap), when q says one of its own ("월별 수술
 * 건수" then "연도별로": by year instead; a month already holds its year, so adding would change
 * nothing); NULL when either says none */
static char *without_bucket(const char *prev, const struct ptoks *tp, const struct ptoks *tq)
{
	int in_q = 0, in_p = 0;
	for (int i = 0; i < tq->n; i++)
		in_q |= bucket_at(tq, i);
	for (int i = 0; i < tp->n; i++)
		in_p |= bucket_at(tp, i);
	if (!in_q || !in_p)
		return NULL;
	return cut_words(prev, tp, bucket_word);
}

/* follow_up: the previous question with this one's numbered patient/case put in, or both joined
 * ("케이스 5의 심박수 추이" then "케이스 6은?" -> case 6; "only women?" -> the previous plus a filter) */
char *pf_follow_up(const char *prev, const char *q)
{
	struct arena a = {0};
	struct ptoks tp, tq;
	char *res = NULL;
	if (planner_tokenize(&a, prev, &tp) != OK || planner_tokenize(&a, q, &tq) != OK)
		goto out;
	for (int i = 0; i + 1 < tq.n; i++) {
		if (tq.v[i].kind != TK_WORD || tq.v[i + 1].kind != TK_NUM || tq.v[i + 1].unit)
			continue;
		for (int k = 0; k + 1 < tp.n; k++) {
			if (strcmp(tp.v[k].stem, tq.v[i].stem) || tp.v[k + 1].kind != TK_NUM)
				continue;
			/* same entity word in both: swap the number in the previous question's text */
			struct sb sb = SB_INIT;
			sb_append(&sb, prev, (size_t)tp.v[k + 1].off);
			sb_append(&sb, q + tq.v[i + 1].off, (size_t)tq.v[i + 1].len);
			sb_puts(&sb, prev + tp.v[k + 1].off + tp.v[k + 1].len);
			res = sb_ok(&sb) ? sb_steal(&sb) : NULL;
			sb_free(&sb);
			goto out;
		}
	}
	{
		/* "같은 걸 성별로" / "the same by sex" / "이번엔 여성만": drop the follow-up markers
		 * (conf/lexicon/followup.txt); a new grouping replaces the previous question's */
		char *qq = strip_markers(q), *pp = NULL;
		struct sb sb = SB_INIT;

		/* a new grouping is added to the previous question's ("남자 환자 수" + "연령대별로"); it
		 * replaces it only when the analyst says so (대신, instead: conf/lexicon/followup.txt) */
		if (qq && has_grouping(qq) && says_instead(q))
			pp = drop_grouping(prev);
		char *pt = pp ? NULL : without_time(prev, &tp, &tq), *pb = pp || pt ? NULL : without_bucket(prev, &tp, &tq);
		sb_printf(&sb, "%s %s", pp ? pp : pt ? pt : pb ? pb : prev, qq ? qq : q);
		free(pt);
		free(pb);
		res = sb_ok(&sb) ? sb_steal(&sb) : NULL;
		sb_free(&sb);
		free(qq);
		free(pp);
	}
out:
	arena_free(&a);
	return res;
}

/* pf_reads_as_change: q says it changes the previous question rather than asking anew ("only
 * patients over 65", "just women", "what about 2024", "여자만", "65세 이상만", a follow-up marker):
 * it is read with the previous question first.  The lead words: conf/lexicon/phrases.tsv */
int pf_reads_as_change(const char *q)
{
	const char *const *lead = planner_lex_phrases("change_lead");
	char *stripped;
	int changed;

	for (int i = 0; lead[i]; i++)
		if (!strncasecmp(q, lead[i], strlen(lead[i])) && q[strlen(lead[i])] == ' ')
			return 1;
	for (const char *p = q; *p;) {
		size_t n = strcspn(p, " ,?.");
		/* a word that ends in the particle 만 (여자만, 이상만): only that; in 로도 (성별로도: by sex
		 * too) */
		if ((n > 3 && !memcmp(p + n - 3, "만", 3)) || (n > 6 && !memcmp(p + n - 6, "로도", 6)))
			return 1;
		/* the last word ends in the topic particle and a question mark ("평균 나이는?", "남자는?"):
		 * "and what about ...", of the previous question */
		if (n > 3 && (!memcmp(p + n - 3, "는", 3) || !memcmp(p + n - 3, "은", 3)) && p[n] == '?' &&
		    !p[n + 1 + strspn(p + n + 1, " ")])
			return 1;
		p += n;
		p += strspn(p, " ,?.");
	}
	if (!(stripped = strip_markers(q)))
		return 0;
	changed = strcmp(stripped, q) != 0;
	free(stripped);
	return changed;
}
