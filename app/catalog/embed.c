/* embed.c: the embedding provider interface: builtin hashed n-grams and OpenAI-compatible HTTP. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>
#include <cjson/cJSON.h>
#include "catalog/embed.h"
#include "catalog/text.h"
#include "util/conf.h"
#include "util/sb.h"

/* four-float SIMD lanes through the GCC/Clang vector extension (SSE2 on x86-64, NEON on
 * arm64); unaligned loads go through memcpy, which compiles to movups */
typedef float v4f __attribute__((vector_size(16)));

float vec_dot(const float *a, const float *b, int dim)
{
	v4f s0 = {0, 0, 0, 0}, s1 = {0, 0, 0, 0};
	float s = 0;
	int i = 0;

	for (; i + 8 <= dim; i += 8) {
		v4f x0, x1, y0, y1;

		memcpy(&x0, a + i, sizeof x0);
		memcpy(&y0, b + i, sizeof y0);
		memcpy(&x1, a + i + 4, sizeof x1);
		memcpy(&y1, b + i + 4, sizeof y1);
		s0 += x0 * y0;
		s1 += x1 * y1;
	}
	s0 += s1;
	s = s0[0] + s0[1] + s0[2] + s0[3];
	for (; i < dim; i++)
		s += a[i] * b[i];
	return s;
}

static void feature(float *out, int dim, const char *kind, const char *s, size_t n, float w)
{
	uint64_t h = text_hash(kind, strlen(kind), TEXT_HASH_SEED);

	h = text_hash(s, n, h);
	out[(h >> 1) % (uint64_t)dim] += (h & 1) ? -w : w;
}

void embed_builtin(const char *text, int dim, float *out)
{
	char buf[8192], *toks[512];
	int nt = text_tokens(text ? text : "", 0, buf, sizeof buf, toks, 512);
	double norm = 0;

	memset(out, 0, (size_t)dim * sizeof *out);
	for (int i = 0; i < nt; i++) {
		const char *t = toks[i];
		size_t tl = strlen(t);

		if (text_is_stop(t))
			continue;
		feature(out, dim, "w", t, tl, 1.0f);
		if (i + 1 < nt && !text_is_stop(toks[i + 1])) {
			char bg[2 * TEXT_MAXTOK + 2];

			snprintf(bg, sizeof bg, "%s %s", t, toks[i + 1]);
			feature(out, dim, "b", bg, strlen(bg), 0.5f);
		}
		if (text_is_hangul_word(t) || (unsigned char)t[0] >= 0x80) {
			/* Hangul: a syllable carries meaning; unigrams and bigrams of syllables */
			int nc = utf8_nchars(t);

			for (int k = 0; k < nc; k++) {
				size_t a = utf8_prefix_bytes(t, k), b1 = utf8_prefix_bytes(t, k + 1),
				       b2 = utf8_prefix_bytes(t, k + 2);

				feature(out, dim, "s", t + a, b1 - a, 0.35f);
				if (k + 1 < nc)
					feature(out, dim, "s2", t + a, b2 - a, 0.6f);
			}
		} else if (tl >= 3) {
			char pad[TEXT_MAXTOK + 3];

			snprintf(pad, sizeof pad, "<%s>", t);
			for (size_t k = 0; k + 3 <= strlen(pad); k++)
				feature(out, dim, "c", pad + k, 3, 0.3f);
		}
	}
	for (int i = 0; i < dim; i++)
		norm += (double)out[i] * out[i];
	if (norm > 0) {
		float inv = (float)(1.0 / sqrt(norm));

		for (int i = 0; i < dim; i++)
			out[i] *= inv;
	}
}

const char *embed_conf_provider(void)
{
	const char *p = conf_get("embed_provider");

	return *p ? p : "builtin";
}

int embed_conf_dim(void)
{
	long d = conf_get_int("embed_dim");

	return d > 0 && d <= 8192 ? (int)d : 256;
}

static size_t collect(char *p, size_t sz, size_t n, void *arg)
{
	sb_append(arg, p, sz * n);
	return sz * n;
}

/* one HTTP request for texts[0..n) */
static enum err openai_batch(int dim, const char *const *texts, int n, float *out,
                             char *err, size_t errlen)
{
	const char *base = conf_get("embed_base_url"), *key = conf_get("embed_api_key");
	struct sb url = SB_INIT, resp = SB_INIT, auth = SB_INIT;
	struct curl_slist *hdr = NULL;
	cJSON *req = NULL, *js = NULL, *data;
	char *body = NULL;
	CURL *cu = NULL;
	long code = 0;
	enum err rc = ERR_NET;

	if (!*base)
		base = conf_get("llm_base_url");
	if (!*key)
		key = conf_get("llm_api_key");
	if (!*base) {
		snprintf(err, errlen, "embed_provider openai needs embed_base_url (or llm_base_url)");
		return ERR_INPUT;
	}
	sb_puts(&url, base);
	while (url.len && url.buf[url.len - 1] == '/')
		url.buf[--url.len] = '\0';
	sb_puts(&url, "/embeddings");
	req = cJSON_CreateObject();
	cJSON_AddStringToObject(req, "model", conf_get("embed_model"));
	if (!strncmp(conf_get("embed_model"), "text-embedding-3", 16))
		cJSON_AddNumberToObject(req, "dimensions", dim);
	cJSON_AddItemToObject(req, "input", cJSON_CreateStringArray(texts, n));
	body = cJSON_PrintUnformatted(req);
	if (!body || !(cu = curl_easy_init())) {
		rc = ERR_NOMEM;
		goto out;
	}
	hdr = curl_slist_append(hdr, "Content-Type: application/json");
	if (*key) {
		sb_printf(&auth, "Authorization: Bearer %s", key);
		hdr = curl_slist_append(hdr, sb_cstr(&auth));
	}
	curl_easy_setopt(cu, CURLOPT_URL, sb_cstr(&url));
	curl_easy_setopt(cu, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(cu, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(cu, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(cu, CURLOPT_WRITEDATA, &resp);
	curl_easy_setopt(cu, CURLOPT_TIMEOUT_MS, conf_get_int("llm_timeout_ms") > 0 ? conf_get_int("llm_timeout_ms") : 60000L);
	curl_easy_setopt(cu, CURLOPT_CONNECTTIMEOUT_MS, conf_get_int("llm_connect_timeout_ms") > 0 ? conf_get_int("llm_connect_timeout_ms") : 5000L);
	curl_easy_setopt(cu, CURLOPT_NOSIGNAL, 1L);
	CURLcode cc = curl_easy_perform(cu);
	if (cc != CURLE_OK) {
		snprintf(err, errlen, "embedding request to %s failed: %s", sb_cstr(&url), curl_easy_strerror(cc));
		goto out;
	}
	curl_easy_getinfo(cu, CURLINFO_RESPONSE_CODE, &code);
	if (code != 200) {
		snprintf(err, errlen, "embedding endpoint %s answered HTTP %ld: %.200s", sb_cstr(&url), code, sb_cstr(&resp));
		goto out;
	}
	rc = ERR_PARSE;
	if (!(js = cJSON_Parse(sb_cstr(&resp))) || !cJSON_IsArray(data = cJSON_GetObjectItem(js, "data")) ||
	    cJSON_GetArraySize(data) != n) {
		snprintf(err, errlen, "embedding endpoint returned no usable data array");
		goto out;
	}
	for (int i = 0; i < n; i++) {
		cJSON *it = cJSON_GetArrayItem(data, i), *idx = cJSON_GetObjectItem(it, "index");
		cJSON *e = cJSON_GetObjectItem(it, "embedding");
		int at = cJSON_IsNumber(idx) ? idx->valueint : i;
		double norm = 0;

		if (at < 0 || at >= n || !cJSON_IsArray(e) || cJSON_GetArraySize(e) != dim) {
			snprintf(err, errlen, "embedding has %d dimensions, the catalog expects embed_dim=%d",
			         cJSON_IsArray(e) ? cJSON_GetArraySize(e) : 0, dim);
			goto out;
		}
		float *v = out + (size_t)at * (size_t)dim;
		int k = 0;
		cJSON *x;
		cJSON_ArrayForEach(x, e) {
			v[k] = (float)x->valuedouble;
			norm += (double)v[k] * v[k];
			k++;
		}
		if (norm > 0)
			for (k = 0; k < dim; k++)
				v[k] = (float)(v[k] / sqrt(norm));
	}
	rc = OK;
out:
	cJSON_Delete(req);
	cJSON_Delete(js);
	free(body);
	curl_slist_free_all(hdr);
	if (cu)
		curl_easy_cleanup(cu);
	sb_free(&url);
	sb_free(&resp);
	sb_free(&auth);
	return rc;
}

enum err embed_texts(const char *provider, int dim, const char *const *texts, int n, float *out,
                     char *err, size_t errlen)
{
	if (dim <= 0) {
		snprintf(err, errlen, "embedding dimension must be positive");
		return ERR_INPUT;
	}
	if (!strcmp(provider, "builtin")) {
		for (int i = 0; i < n; i++)
			embed_builtin(texts[i], dim, out + (size_t)i * (size_t)dim);
		return OK;
	}
	if (!strcmp(provider, "openai")) {
		for (int i = 0; i < n; i += 64) {
			int m = n - i < 64 ? n - i : 64;
			enum err rc = openai_batch(dim, texts + i, m, out + (size_t)i * (size_t)dim, err, errlen);

			if (rc != OK)
				return rc;
		}
		return OK;
	}
	snprintf(err, errlen, "unknown embed_provider '%s' (builtin or openai)", provider);
	return ERR_INPUT;
}
