/* embed.h: embedding providers: builtin (hashed n-grams, offline) and openai (/v1/embeddings). */
#ifndef ASKQL_EMBED_H
#define ASKQL_EMBED_H

#include <stddef.h>
#include "util/err.h"

/* embed_builtin: deterministic vector of text into out[dim]: hashed words, word bigrams,
 * character trigrams (Latin) and syllable uni/bigrams (Hangul) of the canonical tokens,
 * signed feature hashing, L2-normalised (all zeros for text without tokens). */
void embed_builtin(const char *text, int dim, float *out);

/*
 * embed_texts: vectors of texts[0..n) into out (n*dim floats, L2-normalised) with the
 * named provider ("builtin" or "openai"; openai reads embed_base_url, embed_model,
 * embed_api_key (or llm_api_key) and llm_timeout_ms from conf, batches of 64).
 * ERR_INPUT for an unknown provider, ERR_NET/ERR_PARSE with err filled on failures,
 * including a dimension different from dim.
 */
enum err embed_texts(const char *provider, int dim, const char *const *texts, int n, float *out,
                     char *err, size_t errlen);

/* embed_conf: the provider and dimension this process is configured with. */
const char *embed_conf_provider(void);
int embed_conf_dim(void);

/* vec_dot: dot product (cosine for normalised vectors). */
float vec_dot(const float *a, const float *b, int dim);

#endif
