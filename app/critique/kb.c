/* kb.c: evidence retrieval for the critique: the local Markdown knowledge base and an optional remote endpoint. */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <curl/curl.h>
#include <cjson/cJSON.h>
#include "catalog/embed.h"
#include "critique/critique.h"
#include "store/db.h"
#include "util/conf.h"
#include "util/file.h"
#include "util/sb.h"

struct chunk { char *source, *heading, *text; char **toks; int ntoks; float *vec; };
struct crit_kb { struct chunk *c; int n, cap; int dim; char origin[32]; };

/* Tokens: lower-cased ASCII words of 2+ characters and Hangul syllable bigrams (no stemming,
 * except a trailing plural 's'). */
static int tokenize(const char *s, char ***out)
{
	int n = 0, cap = 16;
	char **v = malloc((size_t)cap * sizeof *v);

	for (size_t i = 0; v && s[i];) {
		unsigned char ch = (unsigned char)s[i];
		char tok[64];
		size_t l = 0;
		if (isalnum(ch)) {
			while (isalnum((unsigned char)s[i]) && l < sizeof tok - 1)
				tok[l++] = (char)tolower((unsigned char)s[i++]);
			while (isalnum((unsigned char)s[i]))
				i++;
			if (l > 3 && tok[l - 1] == 's' && tok[l - 2] != 's')
				l--;
			tok[l] = 0;
			if (l < 2)
				continue;
		} else if (ch >= 0xEA && ch <= 0xED && s[i + 1] && s[i + 2]) {
			/* Hangul syllable (3 bytes): bigram with the next one when it is Hangul too */
			unsigned char nx = (unsigned char)s[i + 3];
			if (nx >= 0xEA && nx <= 0xED && s[i + 4] && s[i + 5]) {
				memcpy(tok, s + i, 6);
				tok[6] = 0;
			} else {
				memcpy(tok, s + i, 3);
				tok[3] = 0;
			}
			i += 3;
		} else {
			i++;
			continue;
		}
		if (n == cap) {
			char **nv = realloc(v, (size_t)(cap *= 2) * sizeof *v);
			if (!nv)
				break;
			v = nv;
		}
		v[n++] = strdup(tok);
	}
	*out = v;
	return v ? n : 0;
}

static void add_chunk(struct crit_kb *kb, const char *source, const char *heading, const char *text, size_t len)
{
	size_t k = 0;

	while (k < len && isspace((unsigned char)text[k]))
		k++;
	if (k == len)
		return;
	if (kb->n == kb->cap) {
		int nc = kb->cap ? kb->cap * 2 : 32;
		struct chunk *c = realloc(kb->c, (size_t)nc * sizeof *c);
		if (!c)
			return;
		kb->c = c;
		kb->cap = nc;
	}
	struct chunk *c = &kb->c[kb->n++];
	c->source = strdup(source);
	c->heading = strdup(heading);
	c->text = strndup(text, len);
	struct sb sb = SB_INIT;
	sb_printf(&sb, "%s %s", heading, c->text);
	c->ntoks = tokenize(sb_cstr(&sb), &c->toks);
	c->vec = NULL;
	if (kb->dim > 0 && (c->vec = malloc((size_t)kb->dim * sizeof *c->vec)) != NULL)
		embed_builtin(sb_cstr(&sb), kb->dim, c->vec);
	sb_free(&sb);
}

/* Split one Markdown document at its headings. */
static void add_doc(struct crit_kb *kb, const char *rel, const char *t)
{
	char heading[256] = "";
	const char *start = t;

	for (const char *p = t; *p;) {
		const char *eol = strchr(p, '\n');
		size_t ll = eol ? (size_t)(eol - p) : strlen(p);
		if (p[0] == '#') {
			add_chunk(kb, rel, heading, start, (size_t)(p - start));
			const char *h = p;
			while (*h == '#' || *h == ' ')
				h++;
			snprintf(heading, sizeof heading, "%.*s", (int)(ll - (size_t)(h - p)), h);
			start = p + ll + (eol ? 1 : 0);
		}
		p += ll + (eol ? 1 : 0);
	}
	add_chunk(kb, rel, heading, start, strlen(start));
}

static void load_file(struct crit_kb *kb, const char *path, const char *rel)
{
	char *text = file_read(path, 0, NULL);

	if (!text)
		return;
	add_doc(kb, rel, text);
	free(text);
}

static void load_dir(struct crit_kb *kb, const char *root, const char *rel, int depth)
{
	char path[1024], sub[512];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof path, "%s%s%s", root, rel[0] ? "/" : "", rel);
	d = opendir(path);
	if (!d || depth > 3) {
		if (d)
			closedir(d);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		struct stat sbuf;
		char full[1600];
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", de->d_name);
		snprintf(full, sizeof full, "%s/%s", root, sub);
		if (stat(full, &sbuf) != 0)
			continue;
		if (S_ISDIR(sbuf.st_mode))
			load_dir(kb, root, sub, depth + 1);
		else if (strlen(de->d_name) > 3 && !strcmp(de->d_name + strlen(de->d_name) - 3, ".md"))
			load_file(kb, full, sub);
	}
	closedir(d);
}

struct crit_kb *crit_kb_open(PGconn *app, const char *target, const char *docs_dir)
{
	struct crit_kb *kb = calloc(1, sizeof *kb);
	PGresult *res = NULL;

	if (!kb)
		return NULL;
	/* the vector axis needs the same embedding on both sides: builtin only (no network per chunk) */
	if (!strcmp(embed_conf_provider(), "builtin"))
		kb->dim = embed_conf_dim() > 0 ? embed_conf_dim() : 256;
	if (app && target) {
		const char *p[1] = { target };
		res = db_query(app, "SELECT path, body FROM askql.cat_docs WHERE target = $1 ORDER BY path", 1, p, NULL, 0);
	}
	if (res && PQntuples(res) > 0) {
		for (int i = 0; i < PQntuples(res); i++)
			add_doc(kb, PQgetvalue(res, i, 0), PQgetvalue(res, i, 1));
		snprintf(kb->origin, sizeof kb->origin, "catalog");
	} else {
		load_dir(kb, docs_dir ? docs_dir : conf_get("docs_dir"), "", 0);
		snprintf(kb->origin, sizeof kb->origin, "files");
	}
	if (res)
		PQclear(res);
	return kb;
}

static void free_toks(char **t, int n)
{
	for (int i = 0; i < n; i++)
		free(t[i]);
	free(t);
}

void crit_kb_close(struct crit_kb *kb)
{
	if (!kb)
		return;
	for (int i = 0; i < kb->n; i++) {
		free(kb->c[i].source);
		free(kb->c[i].heading);
		free(kb->c[i].text);
		free(kb->c[i].vec);
		free_toks(kb->c[i].toks, kb->c[i].ntoks);
	}
	free(kb->c);
	free(kb);
}

const char *crit_kb_origin(const struct crit_kb *kb)
{
	return kb ? kb->origin : "none";
}

struct hit { double bm25, cos, rrf; int i, rb, rc; };

static int by_bm25(const void *a, const void *b)
{
	double x = ((const struct hit *)a)->bm25, y = ((const struct hit *)b)->bm25;
	return x < y ? 1 : x > y ? -1 : ((const struct hit *)a)->i - ((const struct hit *)b)->i;
}

static int by_cos(const void *a, const void *b)
{
	double x = ((const struct hit *)a)->cos, y = ((const struct hit *)b)->cos;
	return x < y ? 1 : x > y ? -1 : ((const struct hit *)a)->i - ((const struct hit *)b)->i;
}

static int by_rrf(const void *a, const void *b)
{
	double x = ((const struct hit *)a)->rrf, y = ((const struct hit *)b)->rrf;
	return x < y ? 1 : x > y ? -1 : ((const struct hit *)a)->i - ((const struct hit *)b)->i;
}

/* Two axes over heading-level chunks, fused by Reciprocal Rank Fusion (k = 60): BM25 on the
 * words (k1 1.2, b 0.75) and the cosine of the builtin embeddings.  A chunk must share at
 * least one query word to be returned, so the vector axis reorders but never invents. */
cJSON *crit_kb_query(struct crit_kb *kb, const char *query, int k)
{
	cJSON *out = cJSON_CreateArray();
	char **q = NULL;
	int nq;
	double avg = 0;
	float *qv = NULL;

	nq = tokenize(query ? query : "", &q);
	if (!kb || kb->n == 0 || nq == 0)
		goto out;
	for (int i = 0; i < kb->n; i++)
		avg += kb->c[i].ntoks;
	avg /= kb->n;
	struct hit *h = calloc((size_t)kb->n, sizeof *h);
	if (!h)
		goto out;
	for (int i = 0; i < kb->n; i++)
		h[i].i = i;
	for (int j = 0; j < nq; j++) {
		int dup = 0, df = 0;
		for (int jj = 0; jj < j; jj++)
			if (!strcmp(q[j], q[jj]))
				dup = 1;
		if (dup)
			continue;
		for (int i = 0; i < kb->n; i++)
			for (int t = 0; t < kb->c[i].ntoks; t++)
				if (!strcmp(kb->c[i].toks[t], q[j])) {
					df++;
					break;
				}
		if (!df)
			continue;
		double idf = log(1.0 + (kb->n - df + 0.5) / (df + 0.5));
		for (int i = 0; i < kb->n; i++) {
			int tf = 0;
			for (int t = 0; t < kb->c[i].ntoks; t++)
				tf += !strcmp(kb->c[i].toks[t], q[j]);
			if (tf)
				h[i].bm25 += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * kb->c[i].ntoks / avg));
		}
	}
	if (kb->dim > 0 && (qv = malloc((size_t)kb->dim * sizeof *qv)) != NULL) {
		embed_builtin(query, kb->dim, qv);
		for (int i = 0; i < kb->n; i++)
			h[i].cos = kb->c[i].vec ? vec_dot(qv, kb->c[i].vec, kb->dim) : 0;
	}
	qsort(h, (size_t)kb->n, sizeof *h, by_bm25);
	for (int r = 0; r < kb->n; r++)
		h[r].rb = r + 1;
	qsort(h, (size_t)kb->n, sizeof *h, by_cos);
	for (int r = 0; r < kb->n; r++) {
		h[r].rc = r + 1;
		h[r].rrf = 1.0 / (60 + h[r].rb) + (qv ? 1.0 / (60 + h[r].rc) : 0);
	}
	qsort(h, (size_t)kb->n, sizeof *h, by_rrf);
	for (int r = 0, taken = 0; r < kb->n && taken < k; r++) {
		if (h[r].bm25 < 0.5)
			continue;
		struct chunk *c = &kb->c[h[r].i];
		cJSON *o = cJSON_CreateObject();
		char src[600];
		struct sb text = SB_INIT;
		snprintf(src, sizeof src, "%s%s%s", c->source, c->heading[0] ? "#" : "", c->heading);
		cJSON_AddStringToObject(o, "source", src);
		cJSON_AddStringToObject(o, "file", c->source);
		cJSON_AddStringToObject(o, "heading", c->heading);
		cJSON_AddNumberToObject(o, "score", round(h[r].rrf * 1e5) / 1e5);
		cJSON_AddNumberToObject(o, "bm25", round(h[r].bm25 * 1000) / 1000);
		cJSON_AddNumberToObject(o, "cosine", round(h[r].cos * 1000) / 1000);
		cJSON_AddStringToObject(o, "origin", kb->origin);
		/* trimmed, whitespace collapsed */
		for (const char *p = c->text; *p && text.len < 480; p++) {
			if (isspace((unsigned char)*p)) {
				if (text.len && sb_cstr(&text)[text.len - 1] != ' ')
					sb_putc(&text, ' ');
			} else
				sb_putc(&text, *p);
		}
		cJSON_AddStringToObject(o, "text", sb_cstr(&text));
		sb_free(&text);
		cJSON_AddItemToArray(out, o);
		taken++;
	}
	free(h);
out:
	free(qv);
	free_toks(q, nq);
	return out;
}

cJSON *crit_kb_search(const char *docs_dir, const char *query, int k)
{
	struct crit_kb *kb = crit_kb_open(NULL, NULL, docs_dir);
	cJSON *r = crit_kb_query(kb, query, k);

	crit_kb_close(kb);
	return r;
}

static size_t collect(char *p, size_t sz, size_t n, void *ud)
{
	struct sb *sb = ud;

	if (sb->len + sz * n > 1 << 20)
		return 0;
	sb_append(sb, p, sz * n);
	return sz * n;
}

/* The remote endpoint: GET URL?term=Q&retmode=json; PubMed esearch replies (idlist) and
 * generic {"items"|"results":[{title,url}]} replies are understood. */
cJSON *crit_remote_search(const char *query)
{
	const char *base = conf_get("critique_pubmed_url");
	cJSON *out = cJSON_CreateObject();
	struct sb url = SB_INIT, body = SB_INIT;
	CURL *h = NULL;
	long code = 0;

	if (!base[0]) {
		cJSON_AddStringToObject(out, "status", "off");
		cJSON_AddStringToObject(out, "reason", "critique_pubmed_url not configured");
		return out;
	}
	sb_printf(&url, "%s%sterm=", base, strchr(base, '?') ? "&" : "?");
	sb_url(&url, query);
	sb_puts(&url, "&retmode=json&retmax=5");
	h = curl_easy_init();
	if (!h)
		goto fail;
	curl_easy_setopt(h, CURLOPT_URL, sb_cstr(&url));
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &body);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, conf_get_int("critique_remote_timeout_ms") > 0
	                 ? conf_get_int("critique_remote_timeout_ms") : 3000L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	CURLcode cc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	if (cc != CURLE_OK || code != 200) {
		char e[160];
		snprintf(e, sizeof e, "%s (HTTP %ld)", cc != CURLE_OK ? curl_easy_strerror(cc) : "bad status", code);
		cJSON_AddStringToObject(out, "error", e);
		goto fail;
	}
	cJSON *j = cJSON_Parse(sb_cstr(&body));
	cJSON *items = cJSON_AddArrayToObject(out, "items"), *it;
	const cJSON *ids = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "esearchresult"), "idlist");
	cJSON_ArrayForEach(it, ids) {
		if (!cJSON_IsString(it))
			continue;
		cJSON *o = cJSON_CreateObject();
		char u[128];
		snprintf(u, sizeof u, "https://pubmed.ncbi.nlm.nih.gov/%s/", it->valuestring);
		cJSON_AddStringToObject(o, "pmid", it->valuestring);
		cJSON_AddStringToObject(o, "source", u);
		cJSON_AddItemToArray(items, o);
	}
	const cJSON *gen = cJSON_GetObjectItem(j, "items");
	if (!gen)
		gen = cJSON_GetObjectItem(j, "results");
	cJSON_ArrayForEach(it, gen) {
		if (!cJSON_IsObject(it))
			continue;
		cJSON *o = cJSON_CreateObject();
		const char *title = crit_str(it, "title"), *u = crit_str(it, "url");
		cJSON_AddStringToObject(o, "title", title ? title : "");
		cJSON_AddStringToObject(o, "source", u ? u : base);
		cJSON_AddNumberToObject(o, "score", crit_num(it, "score", 0));
		cJSON_AddItemToArray(items, o);
	}
	cJSON_Delete(j);
	cJSON_AddStringToObject(out, "status", "ok");
	goto done;
fail:
	cJSON_AddStringToObject(out, "status", "error");
done:
	if (h)
		curl_easy_cleanup(h);
	sb_free(&url);
	sb_free(&body);
	return out;
}
