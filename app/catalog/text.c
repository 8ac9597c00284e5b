/* text.c: tokenising, Korean particle stripping, trigram sets for catalog matching. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/text.h"

/* decode one UTF-8 code point at s; *len receives its byte length (1 for invalid bytes). */
static unsigned decode(const unsigned char *s, int *len)
{
	if (s[0] < 0x80) { *len = 1; return s[0]; }
	if ((s[0] & 0xE0) == 0xC0 && (s[1] & 0xC0) == 0x80) {
		*len = 2;
		return ((s[0] & 0x1Fu) << 6) | (s[1] & 0x3Fu);
	}
	if ((s[0] & 0xF0) == 0xE0 && (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80) {
		*len = 3;
		return ((s[0] & 0x0Fu) << 12) | ((s[1] & 0x3Fu) << 6) | (s[2] & 0x3Fu);
	}
	if ((s[0] & 0xF8) == 0xF0 && (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80 &&
	    (s[3] & 0xC0) == 0x80) {
		*len = 4;
		return ((s[0] & 0x07u) << 18) | ((s[1] & 0x3Fu) << 12) | ((s[2] & 0x3Fu) << 6) |
		       (s[3] & 0x3Fu);
	}
	*len = 1;
	return 0xFFFD;
}

static int is_hangul(unsigned cp)
{
	return (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0x1100 && cp <= 0x11FF) ||
	       (cp >= 0x3130 && cp <= 0x318F);
}

/* a letter or digit for tokenising; punctuation and symbol blocks split words */
static int is_word(unsigned cp)
{
	if (cp < 0x80)
		return isalnum((int)cp);
	if (cp < 0xC0 || cp == 0xD7 || cp == 0xF7 || cp == 0xFFFD)
		return 0;
	if ((cp >= 0x2000 && cp <= 0x2BFF) || (cp >= 0x3000 && cp <= 0x303F) ||
	    (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF20))
		return 0;
	return 1;
}

/* Longest first, so 에서 is tried before 에. */
static const char *const particles[] = {
	"에서는", "으로는", "에게서", "으로서", "에서", "으로", "에게", "에는", "까지", "부터",
	"보다", "마다", "처럼", "하고", "이나", "이랑", "께서", "별로", "들의", "들이", "들을",
	"들은", "은", "는", "이", "가", "을", "를", "의", "에", "로", "별", "와", "과", "도",
	"만", "들", "랑", NULL
};

int utf8_nchars(const char *s)
{
	int n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			n++;
	return n;
}

size_t utf8_prefix_bytes(const char *s, int nchars)
{
	const char *p = s;
	int n = 0;

	while (*p) {
		if (((unsigned char)*p & 0xC0) != 0x80) {
			if (n == nchars)
				break;
			n++;
		}
		p++;
	}
	return (size_t)(p - s);
}

int text_is_hangul_word(const char *w)
{
	size_t n = strlen(w);
	int len;

	if (n < 3)
		return 0;
	return is_hangul(decode((const unsigned char *)w + n - 3, &len)) && len == 3;
}

static int only_particle(const char *w)
{
	for (int i = 0; particles[i]; i++)
		if (!strcmp(w, particles[i]))
			return 1;
	return 0;
}

void text_canon_word(char *w)
{
	size_t n = strlen(w);

	if (text_is_hangul_word(w)) {
		/* strip up to two stacked particles ("환자들의"), keep at least one syllable */
		for (int round = 0; round < 2; round++) {
			int hit = 0;

			n = strlen(w);
			for (int i = 0; particles[i]; i++) {
				size_t pl = strlen(particles[i]);

				if (n >= pl + 3 && !strcmp(w + n - pl, particles[i])) {
					w[n - pl] = '\0';
					hit = 1;
					break;
				}
			}
			if (!hit)
				break;
		}
		/* adnominal verb endings after a noun of two or more syllables: 사망한 -> 사망,
		 * 투여된 -> 투여, 입원했던 -> 입원 (대한, 성인 keep their one-syllable stems) */
		{
			static const char *const endings[] = {"했던", "됐던", "하는", "되는", "하던", "되던", "한", "된", NULL};

			n = strlen(w);
			for (int i = 0; endings[i]; i++) {
				size_t el = strlen(endings[i]);

				if (n >= el + 6 && !strcmp(w + n - el, endings[i])) {
					w[n - el] = '\0';
					break;
				}
			}
		}
		return;
	}
	/* English plurals: patients -> patient, therapies -> therapy; not -ss/-us/-is */
	if (n > 4 && !strcmp(w + n - 3, "ies")) {
		strcpy(w + n - 3, "y");
	} else if (n > 3 && w[n - 1] == 's' && w[n - 2] != 's' && w[n - 2] != 'u' &&
	           w[n - 2] != 'i' && isalpha((unsigned char)w[n - 2])) {
		w[n - 1] = '\0';
	}
}

static const char *const stops[] = {
	"the", "of", "a", "an", "in", "on", "for", "with", "and", "or", "to", "what", "which",
	"who", "how", "is", "are", "was", "were", "be", "show", "list", "give", "me", "all",
	"each", "that", "this", "these", "those", "do", "doe", "did", "from", "at", "as", "it",
	"their", "there", "have", "ha", "had", "any", "by", "please", "tell", "find", "get",
	"보여줘", "알려줘", "보여", "알려", "주세요", "있는", "및", "그리고", "뭐", "무엇", "어떤",
	"해줘", "구해줘", "찾아줘", "중", "것", "수", NULL
};

int text_is_stop(const char *tok)
{
	for (int i = 0; stops[i]; i++)
		if (!strcmp(tok, stops[i]))
			return 1;
	return 0;
}

void text_lower(const char *s, char *out, size_t n)
{
	size_t i = 0;

	if (!n)
		return;
	for (; s[i] && i + 1 < n; i++)
		out[i] = (char)tolower((unsigned char)s[i]);
	out[i] = '\0';
}

int text_tokens(const char *s, int raw, char *buf, size_t buflen, char **toks, int maxtok)
{
	return text_tokens_at(s, raw, buf, buflen, toks, NULL, NULL, maxtok);
}

int text_tokens_at(const char *s, int raw, char *buf, size_t buflen, char **toks, int *start,
                   int *end, int maxtok)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t used = 0;
	int nt = 0;

	if (!s || !buflen)
		return 0;
	while (*p && nt < maxtok) {
		char w[TEXT_MAXTOK];
		size_t wl = 0;
		int len, script = -1;   /* 0 ascii, 1 hangul, 2 other */
		unsigned prevcp = 0;
		const unsigned char *from = p;

		while (*p) {
			unsigned cp = decode(p, &len);
			int sc;

			if (!is_word(cp))
				break;
			sc = cp < 0x80 ? 0 : is_hangul(cp) ? 1 : 2;
			/* split at script changes (sbp가) and camelCase humps (caseId) */
			if (script >= 0 && sc != script && (sc == 1 || script == 1))
				break;
			if (wl && cp < 0x80 && isupper((int)cp) && prevcp < 0x80 && islower((int)prevcp))
				break;
			if (wl + (size_t)len < sizeof w) {
				for (int i = 0; i < len; i++)
					w[wl++] = (char)(len == 1 ? tolower(p[i]) : p[i]);
			}
			script = sc;
			prevcp = cp;
			p += len;
		}
		if (!wl) {
			decode(p, &len);
			p += len;
			continue;
		}
		w[wl] = '\0';
		if (!raw) {
			if (script == 1 && only_particle(w))
				continue;
			text_canon_word(w);
		}
		wl = strlen(w);
		if (used + wl + 1 > buflen)
			break;
		memcpy(buf + used, w, wl + 1);
		if (start)
			start[nt] = (int)(from - (const unsigned char *)s);
		if (end)
			end[nt] = (int)(p - (const unsigned char *)s);
		toks[nt++] = buf + used;
		used += wl + 1;
	}
	return nt;
}

uint64_t text_hash(const void *p, size_t n, uint64_t h)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int text_trigrams(const char *s, uint32_t *out, int max)
{
	unsigned cps[TEXT_MAXTOK + 4];
	const unsigned char *p = (const unsigned char *)s;
	int n = 0, len, k = 0;

	while (*p && n < max) {
		int nc = 0;

		while (*p && !is_word(decode(p, &len)))
			p += len;
		if (!*p)
			break;
		cps[nc++] = ' ';
		cps[nc++] = ' ';
		while (*p) {
			unsigned cp = decode(p, &len);

			if (!is_word(cp))
				break;
			if (nc < TEXT_MAXTOK + 2)
				cps[nc++] = cp < 0x80 ? (unsigned)tolower((int)cp) : cp;
			p += len;
		}
		cps[nc++] = ' ';
		for (int i = 0; i + 2 < nc && n < max; i++) {
			unsigned t[3] = {cps[i], cps[i + 1], cps[i + 2]};

			out[n++] = (uint32_t)text_hash(t, sizeof t, TEXT_HASH_SEED);
		}
	}
	qsort(out, (size_t)n, sizeof *out, cmp_u32);
	for (int i = 0; i < n; i++)
		if (!k || out[k - 1] != out[i])
			out[k++] = out[i];
	return k;
}

double text_trgm_sim(const uint32_t *a, int na, const uint32_t *b, int nb)
{
	int i = 0, j = 0, both = 0;

	if (!na || !nb)
		return 0;
	while (i < na && j < nb) {
		if (a[i] == b[j]) { both++; i++; j++; }
		else if (a[i] < b[j]) i++;
		else j++;
	}
	return (double)both / (double)(na + nb - both);
}

long text_bad_utf8(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < n;) {
		int len = p[i] < 0x80 ? 1 : (p[i] & 0xE0) == 0xC0 ? 2 : (p[i] & 0xF0) == 0xE0 ? 3 :
		          (p[i] & 0xF8) == 0xF0 ? 4 : 0;

		if (!len || p[i] == 0 || i + (size_t)len > n || (len == 2 && p[i] < 0xC2))
			return (long)i;
		for (int k = 1; k < len; k++)
			if ((p[i + k] & 0xC0) != 0x80)
				return (long)i;
		i += (size_t)len;
	}
	return -1;
}
