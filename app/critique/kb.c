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
#include "critique/critique.h"
#include "util/conf.h"
#include "util/sb.h"

struct chunk { char *source, *heading, *text; char **toks; int ntoks; };
struct corpus { struct chunk *c; int n, cap; };

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

static void add_chunk(struct corpus *cp, const char *source, const char *heading, const char *text, size_t len)
{
	if (len == 0)
		return;
	if (cp->n == cp->cap) {
		int nc = cp->cap ? cp->cap * 2 : 32;
		struct chunk *c = realloc(cp->c, (size_t)nc * sizeof *c);
		if (!c)
			return;
		cp->c = c;
		cp->cap = nc;
	}
	struct chunk *c = &cp->c[cp->n++];
	c->source = strdup(source);
	c->heading = strdup(heading);
	c->text = strndup(text, len);
	struct sb sb = SB_INIT;
	sb_printf(&sb, "%s %s", heading, c->text);
	c->ntoks = tokenize(sb_cstr(&sb), &c->toks);
	sb_free(&sb);
}

/* Split one Markdown file at its headings. */
static void load_file(struct corpus *cp, const char *path, const char *rel)
{
	FILE *f = fopen(path, "rb");
	struct sb sb = SB_INIT;
	char buf[8192], heading[256] = "";
	size_t n;

	if (!f)
		return;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sb_append(&sb, buf, n);
	fclose(f);
	const char *t = sb_cstr(&sb), *start = t;
	for (const char *p = t; *p;) {
		const char *eol = strchr(p, '\n');
		size_t ll = eol ? (size_t)(eol - p) : strlen(p);
		if (p[0] == '#') {
			add_chunk(cp, rel, heading, start, (size_t)(p - start));
			const char *h = p;
			while (*h == '#' || *h == ' ')
				h++;
			snprintf(heading, sizeof heading, "%.*s", (int)(ll - (size_t)(h - p)), h);
			start = p + ll + (eol ? 1 : 0);
		}
		p += ll + (eol ? 1 : 0);
	}
	add_chunk(cp, rel, heading, start, strlen(start));
	sb_free(&sb);
}

static void load_dir(struct corpus *cp, const char *root, const char *rel, int depth)
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
			load_dir(cp, root, sub, depth + 1);
		else if (strlen(de->d_name) > 3 && !strcmp(de->d_name + strlen(de->d_name) - 3, ".md"))
			load_file(cp, full, sub);
	}
	closedir(d);
}

static void free_toks(char **t, int n)
{
	for (int i = 0; i < n; i++)
		free(t[i]);
	free(t);
}

static int cmp_score(const void *a, const void *b)
{
	double x = ((const double *)a)[0], y = ((const double *)b)[0];
	return x < y ? 1 : x > y ? -1 : 0;
}

/* BM25 (k1 1.2, b 0.75) over heading-level chunks; the corpus is small, so it is read per call. */
cJSON *crit_kb_search(const char *docs_dir, const char *query, int k)
{
	struct corpus cp = {0};
	cJSON *out = cJSON_CreateArray();
	char **q = NULL;
	int nq;
	double avg = 0;

	if (!docs_dir)
		docs_dir = conf_get("docs_dir");
	load_dir(&cp, docs_dir, "", 0);
	nq = tokenize(query ? query : "", &q);
	if (cp.n == 0 || nq == 0)
		goto out;
	for (int i = 0; i < cp.n; i++)
		avg += cp.c[i].ntoks;
	avg /= cp.n;
	double (*sc)[2] = calloc((size_t)cp.n, sizeof *sc);
	if (!sc)
		goto out;
	for (int j = 0; j < nq; j++) {
		int dup = 0, df = 0;
		for (int jj = 0; jj < j; jj++)
			if (!strcmp(q[j], q[jj]))
				dup = 1;
		if (dup)
			continue;
		for (int i = 0; i < cp.n; i++)
			for (int t = 0; t < cp.c[i].ntoks; t++)
				if (!strcmp(cp.c[i].toks[t], q[j])) {
					df++;
					break;
				}
		if (!df)
			continue;
		double idf = log(1.0 + (cp.n - df + 0.5) / (df + 0.5));
		for (int i = 0; i < cp.n; i++) {
			int tf = 0;
			for (int t = 0; t < cp.c[i].ntoks; t++)
				tf += !strcmp(cp.c[i].toks[t], q[j]);
			if (tf)
				sc[i][0] += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * cp.c[i].ntoks / avg));
		}
	}
	for (int i = 0; i < cp.n; i++)
		sc[i][1] = i;
	qsort(sc, (size_t)cp.n, sizeof *sc, cmp_score);
	for (int r = 0; r < cp.n && r < k && sc[r][0] > 0.5; r++) {
		struct chunk *c = &cp.c[(int)sc[r][1]];
		cJSON *o = cJSON_CreateObject();
		char src[600];
		struct sb text = SB_INIT;
		snprintf(src, sizeof src, "%s%s%s", c->source, c->heading[0] ? "#" : "", c->heading);
		cJSON_AddStringToObject(o, "source", src);
		cJSON_AddStringToObject(o, "file", c->source);
		cJSON_AddStringToObject(o, "heading", c->heading);
		cJSON_AddNumberToObject(o, "score", round(sc[r][0] * 1000) / 1000);
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
	}
	free(sc);
out:
	free_toks(q, nq);
	for (int i = 0; i < cp.n; i++) {
		free(cp.c[i].source);
		free(cp.c[i].heading);
		free(cp.c[i].text);
		free_toks(cp.c[i].toks, cp.c[i].ntoks);
	}
	free(cp.c);
	return out;
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
