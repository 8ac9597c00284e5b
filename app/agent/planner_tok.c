/* planner_tok.c: the planner's tokenizer (Korean particles and spacing, English inflections, numbers);
 * its word lists are in planner_lex.c. */
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "agent/planner_int.h"
#include "catalog/lexicon.h"

/* Korean particles and endings, longest first: stripped from the end of a Hangul word ("임": the
 * casual copula of typed notes, 몇건임 = 몇 건이다). */
static const char *const particles[] = {
	"에서부터", "으로부터", "이었어요", "이었나요", "이었죠", "이었지", "였나요", "였죠", "에서는", "에서도", "으로는", "에게서", "이라는", "이었던", "이었어",
	"였어요", "였어",
	"인가요", "입니까", "입니다", "이에요", "이야", "이냐", "인지", "였던", "이었", "인데", "으로", "에서", "에게", "한테",
	"까지", "부터", "보다", "처럼", "이나", "라도", "에는", "들의", "들은", "들이", "들을", "들", "와의", "과의",
	"은", "는", "이", "가", "을", "를", "의", "에", "로", "와", "과", "도", "만", "인", "임", "랑", "씩", NULL
};

/* Korean words that end like a particle but are whole words (checked before stripping). */
static const char *const ko_whole[] = {
	"나이", "키", "수", "이상", "이하", "미만", "초과", "사이", "기간", "시간", "몇", "별", "가장",
	"평균", "최대", "최소", "최고", "최저", "합계", "건수", "개수", "횟수", "인원", "목록", "추이",
	"환자", "체중", "신장", "성별", "진료과", "과", "약물", "투약", "용량", "경로", "사망", "수술", "마취",
	"혈압", "체온", "맥박", "검사", "결과", "진단", "나트륨", "칼륨", "칼슘", "포도당", "혈당", "젖산",
	"크레아티닌", "헤모글로빈", "중환자실", "입원", "퇴원", "케이스", "증례", "올해", "작년", "오늘", "어제",
	"이번", "지난", "최근", "처음", "마지막", "최초", "지난달", "이번달", "저혈압", "고혈압", "빈맥", "서맥",
	"발열", "빈혈", "저칼륨혈증", "고칼륨혈증", "저나트륨혈증", "고혈당", "저산소증", "당뇨", "남자", "여자",
	"남성", "여성", "별로", NULL
};

static int is_hangul_lead(unsigned char c) { return c >= 0xea && c <= 0xed; }

int planner_in_list_at(const char *const *l, const char *w)
{
	for (int i = 0; l && w && l[i]; i++)
		if (!strcmp(l[i], w))
			return i;
	return -1;
}

int planner_in_list(const char *const *l, const char *w)
{
	return planner_in_list_at(l, w) >= 0;
}

int planner_ends_with(const char *w, const char *suf)
{
	size_t n = strlen(w), m = strlen(suf);
	return n > m && !strcmp(w + n - m, suf);
}

/* planner_stem: a light English stemmer; the same function runs on both sides of a match. */
void planner_stem(const char *w, char *out, size_t cap)
{
	size_t n = strlen(w);
	if (n >= cap)
		n = cap - 1;
	memcpy(out, w, n);
	out[n] = 0;
	if (n == 0 || (unsigned char)out[0] >= 0x80)
		return;
	if (n > 2 && out[n - 2] == '\'' && out[n - 1] == 's')
		out[n -= 2] = 0;
	else if (n > 1 && out[n - 1] == '\'')
		out[n -= 1] = 0;
	static const char *const greek[] = {"gnoses", "lyses", "stases", "boses", "enoses", NULL};
	for (int k = 0; greek[k]; k++)
		if (n > 6 && !strcmp(out + n - strlen(greek[k]), greek[k])) {
			out[n - 2] = 'i';   /* diagnoses -> diagnosis, analyses -> analysis */
			return;
		}
	if (n > 4 && !strcmp(out + n - 3, "ies"))
		strcpy(out + (n -= 2) - 1, "y");
	else if (n > 4 && !strcmp(out + n - 4, "sses"))
		out[n -= 2] = 0;
	else if (n > 3 && out[n - 1] == 's' && out[n - 2] != 's' && out[n - 2] != 'u' && out[n - 2] != 'i')
		out[--n] = 0;
	if (n > 5 && !strcmp(out + n - 3, "ing"))
		out[n -= 3] = 0;
	else if (n > 4 && !strcmp(out + n - 2, "ed"))
		out[n -= 2] = 0;
	if (n > 6 && !strcmp(out + n - 4, "ment"))
		out[n -= 4] = 0;
	/* undo a doubled final consonant (admitted -> admitt -> admit) */
	if (n > 3 && out[n - 1] == out[n - 2] && !strchr("aeiouls", out[n - 1]))
		out[--n] = 0;
	if (n > 4 && out[n - 1] == 'e')
		out[--n] = 0;
}

/* planner_norm: lower-case, ASCII non-alnum -> one space, trimmed (value keys and question spans). */
char *planner_norm(struct arena *a, const char *s)
{
	size_t n = strlen(s), j = 0;
	char *o = arena_alloc(a, n + 1);
	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x80 || isalnum(c))
			o[j++] = (char)tolower(c);
		else if (j && o[j - 1] != ' ')
			o[j++] = ' ';
	}
	while (j && o[j - 1] == ' ')
		j--;
	o[j] = 0;
	return o;
}

static const char *const numwords[] = {"zero", "one", "two", "three", "four", "five", "six", "seven",
	"eight", "nine", "ten", "eleven", "twelve", NULL};

/* Korean suffixes attached to numbers: unit or comparison. */
static const struct { const char *s; int unit; int cmp; } numsuf[] = {
	{"시간", 'h', 0}, {"일간", 'd', 0}, {"일", 'd', 0}, {"주간", 'w', 0}, {"주", 'w', 0}, {"개월", 'm', 0},
	{"달", 'm', 0}, {"년간", 'y', 0}, {"년", 'y', 0}, {"세", 'a', 0}, {"살", 'a', 0}, {"명", 'n', 0},
	{"개", 'n', 0}, {"건", 'n', 0}, {"위", 'n', 0}, {"번", 't', 0}, {"회", 't', 0}, {"월", 'M', 0}, {"이상", 0, R_GE},
	{"이하", 0, R_LE}, {"초과", 0, R_GT}, {"미만", 0, R_LT}, {"보다", 0, 0}, {NULL, 0, 0}
};

/* Particles that also end ordinary nouns and loanwords (타임라인, 가이드라인, 포화도, 농도, 노인,
 * 비만, 길이): taken off, but the form before is kept in t->alt for the linker. */
static const char *const ambiguous[] = {"이", "가", "과", "와", "도", "만", "인", "로", "에", "랑", "들", "한", "된",
                                        "던", NULL};

/* known: a Korean form the lexicon knows as a whole word (structure word, domain term, concept);
 * not the generic list, which holds inflected forms on purpose (환자의) */
static int known(const char *w)
{
	int unit;
	const char *m;
	int dir;
	double lo, hi;
	/* the clinical lexicon's Korean terms too: 내과 is a department, not 내 + the particle 과 */
	return planner_in_list(ko_whole, w) || planner_lex_role(w, w, &unit) != R_NONE || planner_lex_own_syn(w) ||
	       planner_lex_concept(w, &m, &dir, &lo, &hi) || ((unsigned char)w[0] >= 0x80 && planner_lex_syn(w));
}

/* headed_by_whole: w is a longer compound ending in a whole word of two syllables or more that
 * itself ends like a particle (검사결과 ends in 결과, not 결 + 과) */
static int headed_by_whole(const char *w)
{
	size_t n = strlen(w);
	for (int i = 0; ko_whole[i]; i++) {
		size_t m = strlen(ko_whole[i]);
		int unit;
		if (m >= 6 && n > m && !strcmp(w + n - m, ko_whole[i]) && planner_in_list(particles, ko_whole[i] + m - 3) &&
		    planner_lex_role(ko_whole[i], ko_whole[i], &unit) != R_PER)
			return 1;   /* a noun (결과), not a function word (별로: per) */
	}
	return 0;
}

/* strip_suffix: take suf off t->text when the rest keeps min_rest bytes; an ambiguous
 * suffix leaves the longer form in t->alt (the last such form: 농도가 -> 농도 -> 농 keeps 농도). */
static int strip_suffix(struct arena *a, struct ptok *t, const char *suf, size_t min_rest)
{
	size_t n = strlen(t->text), m = strlen(suf);
	if (n < m + min_rest || !planner_ends_with(t->text, suf))
		return 0;
	if (planner_in_list(ambiguous, suf))
		t->alt = arena_strdup(a, t->text);
	t->text[n - m] = 0;
	return 1;
}

/* a function word that may be glued to a noun in one Korean compound (평균나이, 환자수, 바이탈타임라인) */
static int glue(const char *w)
{
	int unit;
	enum role r = planner_lex_role(w, w, &unit);
	return r == R_COUNT || r == R_AVG || r == R_MAX || r == R_MIN || r == R_SUM || r == R_TIMELINE || r == R_LIST ||
	       r == R_FIRST || r == R_LAST || r == R_DISTINCT;
}

/* split_point: where an unknown all-Hangul word splits into a function word and a noun
 * (평균나이 -> 평균|나이, 환자수 -> 환자|수, 바이탈타임라인 -> 바이탈|타임라인), 0 when it does
 * not: a one-syllable function word only next to a word the lexicon knows; a longer one next
 * to at least two syllables (the catalog may know them: 평균재원일수). */
static size_t split_point(const char *w)
{
	size_t n = strlen(w);
	char x[256];
	if (n < 6 || n % 3 || n >= sizeof x || known(w))
		return 0;
	for (size_t i = 0; i < n; i += 3)
		if ((unsigned char)w[i] < 0xea || (unsigned char)w[i] > 0xed)
			return 0;
	/* 타임라인으로: a known word and a particle is stripped, not split */
	for (int i = 0; particles[i]; i++) {
		size_t m = strlen(particles[i]);
		if (n > m && planner_ends_with(w, particles[i])) {
			memcpy(x, w, n - m);
			x[n - m] = 0;
			if (known(x) || glue(x))
				return 0;
		}
	}
	for (size_t k = 3; k < n; k += 3) {
		static const char *const group_suffix[] = {"별", "마다", "당", "별로", NULL};
		if (planner_in_list(particles, w + k) || planner_in_list(group_suffix, w + k))
			continue;   /* 종류별: a grouping suffix, taken off by finish() */
		memcpy(x, w, k);
		x[k] = 0;
		const char *b = w + k;
		size_t nb = n - k;
		if ((glue(x) && (known(b) || (k >= 6 && nb >= 6))) || (glue(b) && (known(x) || (nb >= 6 && k >= 6))))
			return k;
		/* 수술시간, 마취시간: a known word and the duration word 시간 (the time it took) */
		if (!strcmp(b, "시간") && known(x))
			return k;
		/* 흉부외과환자: a known word of two syllables or more and a word for the patients or cases */
		if (k >= 6 && known(x) && planner_ent_word(b) >= 0)
			return k;
	}
	return 0;
}

/* finish: fill stem, norm and role of a word token. */
static enum err finish(struct arena *a, struct ptok *t)
{
	char st[256];

	t->raw = arena_strdup(a, t->text);
	if (!t->raw)
		return ERR_NOMEM;
	if (t->hangul && !known(t->text) && !split_point(t->text)) {
		/* strip particles (repeatedly: 환자들의 -> 환자들 -> 환자), keep at least one syllable;
		 * stop as soon as the rest is a word the lexicon knows (타임라인으로 -> 타임라인, not 타임라) */
		for (int again = 1; again;) {
			again = 0;
			if (known(t->text) || split_point(t->text) || headed_by_whole(t->text))
				break;   /* 바이탈타임라인: a compound of known words, split later; 검사결과: a
				          * compound whose last noun (결과) ends like a particle */
			for (int i = 0; particles[i]; i++)
				if (strip_suffix(a, t, particles[i], 3)) {
					again = 1;
					break;
				}
		}
		/* verb and adjective endings: 사망한, 시행된, 투여했던 (keep two syllables at least) */
		{
			static const char *const endings[] = {"받았던", "받은", "받는", "받", "했던", "하는", "되는", "됐던", "되었던",
			                                      "했던", "한", "된", "던", NULL};
			for (int k = 0; endings[k] && !known(t->text); k++)
				if (strip_suffix(a, t, endings[k], 6))
					break;
		}
		/* 사망률, 비율: a rate is not a shape the planner builds */
		if ((planner_ends_with(t->text, "률") || planner_ends_with(t->text, "율")) && strlen(t->text) >= 6)
			t->unsup_rate = 1;
		/* 환자별, 진료과마다, 케이스당: the grouping suffix (당 only after two syllables and not
		 * in a known word: 혈당, 식당) */
		if (known(t->text) && planner_ends_with(t->text, "별") &&
		    ((planner_ends_with(t->raw, "로") && strlen(t->raw) == strlen(t->text) + strlen("로")) ||
		     (planner_ends_with(t->raw, "로도") && strlen(t->raw) == strlen(t->text) + strlen("로도")))) {
			t->group = 1;   /* 성별로, 성별로도 (by sex too): by sex (the 별 is the word's own) */
		} else if (planner_ends_with(t->text, "별") && strlen(t->text) > 3 && strcmp(t->text, "별") && !known(t->text)) {
			t->text[strlen(t->text) - 3] = 0;
			t->group = 1;
		} else if (planner_ends_with(t->text, "마다") && strlen(t->text) > 6) {
			t->text[strlen(t->text) - 6] = 0;
			t->group = 1;
		} else if (planner_ends_with(t->text, "당") && strlen(t->text) >= 9 && !known(t->text)) {
			if (!t->alt)
				t->alt = arena_strdup(a, t->text);
			t->text[strlen(t->text) - 3] = 0;
			t->group = 1;
		}
		if (t->alt && !strcmp(t->alt, t->text))
			t->alt = NULL;
	}
	planner_stem(t->text, st, sizeof st);
	t->stem = arena_strdup(a, st);
	t->norm = planner_norm(a, t->text);
	if (!t->stem || !t->norm)
		return ERR_NOMEM;
	t->role = planner_lex_role(t->text, t->stem, &t->unitv);
	if (t->unsup_rate)
		t->role = R_UNSUP;
	/* Korean adjectives by stem: 높/많 (more), 낮/적 (less) */
	if (t->role == R_NONE && t->hangul) {
		if (!strncmp(t->text, "많", 3))
			t->role = R_FREQ;
		else if (!strncmp(t->text, "높", 3))
			t->role = R_GT;
		else if (!strncmp(t->text, "낮", 3))
			t->role = R_LT;
		else if (!strncmp(t->text, "있", 3))
			t->role = R_EXIST;
	}
	return OK;
}

static int parse_int(const char *s, size_t n, int *v)
{
	*v = 0;
	if (!n || n > 9)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return 0;
		*v = *v * 10 + (s[i] - '0');
	}
	return 1;
}

/* number_end: the end of the number that starts at q[i] (digits with / - . and thousands commas),
 * without a trailing / or -. */
static size_t number_end(const char *q, size_t n, size_t i)
{
	size_t j = i;

	while (j < n && (isdigit((unsigned char)q[j]) || q[j] == '/' || q[j] == '-' ||
	                 (q[j] == '.' && j + 1 < n && isdigit((unsigned char)q[j + 1])) ||
	                 (q[j] == ',' && j + 3 < n && isdigit((unsigned char)q[j + 1]) &&
	                  isdigit((unsigned char)q[j + 2]) && isdigit((unsigned char)q[j + 3]))))
		j++;
	while (j > i && (q[j - 1] == '/' || q[j - 1] == '-'))
		j--;
	return j;
}

/* number_kind: make t a TK_DATE (a/b/c, a/b, y-m-d, y-m) or else a TK_NUM (commas dropped). */
static void number_kind(struct arena *a, struct ptok *t)
{
	int p[3] = {0}, np = 0;
	char sep = strchr(t->text, '/') ? '/' : (strchr(t->text, '-') ? '-' : 0);

	if (sep) {
		const char *s = t->text;
		while (np < 3) {
			const char *e = strchr(s, sep);
			size_t l = e ? (size_t)(e - s) : strlen(s);
			if (!parse_int(s, l, &p[np]))
				break;
			np++;
			if (!e)
				break;
			s = e + 1;
		}
	}
	if (sep == '/' && np == 3) {
		t->kind = TK_DATE; t->m = p[0]; t->d = p[1]; t->y = p[2];
	} else if (sep == '/' && np == 2 && p[1] > 31) {
		t->kind = TK_DATE; t->m = p[0]; t->y = p[1];
	} else if (sep == '/' && np == 2) {
		t->kind = TK_DATE; t->m = p[0]; t->d = p[1];   /* MM/DD (year from context) */
	} else if (sep == '-' && np >= 2 && p[0] > 1000) {
		t->kind = TK_DATE; t->y = p[0]; t->m = p[1]; t->d = np == 3 ? p[2] : 0;
	} else {
		char *clean = arena_strdup(a, t->text);
		size_t k = 0;
		for (char *s = t->text; *s; s++)
			if (*s != ',')
				clean[k++] = *s;
		clean[k] = 0;
		t->kind = TK_NUM;
		t->num = strtod(clean, NULL);
	}
	/* a year first and no such month or day ("2024-2025", a span of years, read as month 2025): a
	 * word nothing links, so the question is declined naming it rather than dated in year 2192 */
	if (t->kind == TK_DATE && sep == '-' && (t->m < 1 || t->m > 12 || t->d < 0 || t->d > 31))
		t->kind = TK_WORD;
	/* "ASA 1-2", "40-49": two small numbers joined by a hyphen are a range, not the first of them
	 * (strtod reads "1-2" as 1: ASA 1 alone); marked, so no code value is read from it */
	t->range = t->kind == TK_NUM && sep == '-' && np == 2;
}

/* number_suffixes: skip the Korean unit/comparison suffixes (noted in t->unit, t->cmp) and then
 * one particle glued to the number at q[*i]; *i ends after them. */
static void number_suffixes(const char *q, size_t n, size_t *i, struct ptok *t)
{
	static const char *const np[] = {"에서", "에는", "으로", "의", "은", "는", "이", "가", "을", "를",
	                                 "에", "과", "와", "도", "인", "로", NULL};

	/* Korean unit/comparison suffix glued to the number: 24시간, 65세이상, 2023년 */
	for (int again = 1; again && t->kind == TK_NUM;) {
		again = 0;
		for (int k = 0; numsuf[k].s; k++) {
			size_t m = strlen(numsuf[k].s);
			if (!strncmp(q + *i, numsuf[k].s, m)) {
				if (numsuf[k].unit)
					t->unit = numsuf[k].unit;
				if (numsuf[k].cmp)
					t->cmp = numsuf[k].cmp;
				*i += m;
				again = 1;
				break;
			}
		}
	}
	/* a particle glued to a number: 5의, 10번에서, 65세인 */
	for (int k = 0; np[k]; k++) {
		size_t m = strlen(np[k]);
		if (!strncmp(q + *i, np[k], m) && (*i + m == n || isspace((unsigned char)q[*i + m]) ||
		                                   ispunct((unsigned char)q[*i + m]))) {
			*i += m;
			break;
		}
	}
}

/* duration_after: the word after q[i] (spaces skipped) makes the number before it a span of time
 * (동안, 간, 전, 후, 째, 이상, 이하, 미만, 넘게, 만에, 이내, 차) */
static int duration_after(const char *q, size_t n, size_t i)
{
	static const char *const w[] = {"동안", "간", "전", "후", "째", "이상", "이하", "미만", "초과", "넘", "만에", "이내",
	                                "차", "ago", "year", NULL};
	while (i < n && isspace((unsigned char)q[i]))
		i++;
	for (int k = 0; w[k]; k++)
		if (!strncmp(q + i, w[k], strlen(w[k])))
			return 1;
	return 0;
}

/* scan_number: the number or date token t that starts at q[*pos] (t->off is set); *pos ends
 * after it and its suffixes.  OK or ERR_NOMEM. */
static enum err scan_number(struct arena *a, const char *q, size_t n, size_t *pos, struct ptok *t)
{
	size_t i = *pos, j = number_end(q, n, i), s0;

	t->text = arena_strndup(a, q + i, j - i);
	if (!t->text)
		return ERR_NOMEM;
	number_kind(a, t);
	t->len = (int)(j - i);
	i = j;
	size_t suf0 = i;
	number_suffixes(q, n, &i, t);
	if (t->kind == TK_NUM && t->unit == 'y' && t->num >= 1900) {
		t->kind = TK_DATE; t->y = (int)t->num; t->unit = 0;
	} else if (t->kind == TK_NUM && t->unit == 'y' && t->len == 2 && !strncmp(q + suf0, "년", 3) &&
	           strncmp(q + suf0 + 3, "간", 3) && !duration_after(q, n, i)) {
		/* "25년 GS 월별": a year written with two digits (00-68 are 20xx, 69-99 19xx, as POSIX
		 * strptime's %y reads them); "25년 동안", "3년 전" stay spans of years */
		t->kind = TK_DATE; t->y = (int)t->num + (t->num < 69 ? 2000 : 1900); t->unit = 0;
	} else if (t->kind == TK_NUM && t->unit == 'M' && t->num >= 1 && t->num <= 12) {
		t->kind = TK_DATE; t->m = (int)t->num; t->unit = 0;
	}
	/* "2nd", "12.5g", "20s": an English suffix stays in the text (decades: 20s) */
	s0 = i;
	while (i < n && isalpha((unsigned char)q[i]))
		i++;
	*pos = i;
	if (i > s0 && t->kind == TK_NUM) {
		if (i - s0 == 1 && q[s0] == 's' && t->num >= 10 && (long)t->num % 10 == 0)
			t->unit = 'D';
		t->text = arena_strndup(a, q + t->off, i - (size_t)t->off);
		if (!t->text)
			return ERR_NOMEM;
	}
	t->stem = t->text;
	t->norm = planner_norm(a, t->text);
	if (!t->norm)
		return ERR_NOMEM;
	t->len = (int)(i - (size_t)t->off);
	/* a Hangul word right after (e.g. "이상인" after a separate number) is handled as a word */
	return OK;
}

/* utf8_punct: the length of the UTF-8 punctuation mark s starts with (en and em dash, ellipsis,
 * curly quotes, middle dot), 0 when none */
static size_t utf8_punct(const char *s)
{
	static const char *const marks[] = {"\xe2\x80\x93", "\xe2\x80\x94", "\xe2\x80\xa6", "\xe2\x80\x98",
	                                    "\xe2\x80\x99", "\xe2\x80\x9c", "\xe2\x80\x9d", "\xc2\xb7", NULL};
	for (int k = 0; marks[k]; k++)
		if (!strncmp(s, marks[k], strlen(marks[k])))
			return strlen(marks[k]);
	return 0;
}

/* word_end: the end of the word that starts at q[i] (letters, digits, _, 's and any non-ASCII
 * byte); *hangul is set when it holds a Hangul syllable. */
static size_t word_end(const char *q, size_t n, size_t i, int *hangul)
{
	size_t j = i;

	while (j < n) {
		unsigned char d = (unsigned char)q[j];
		if (d >= 0x80 && utf8_punct(q + j))
			break;   /* "cases…", "robotic’" */
		if (d >= 0x80) {
			if (is_hangul_lead(d))
				*hangul = 1;
			j++;
		} else if (isalnum(d) || d == '_' || (d == '\'' && j + 1 < n && q[j + 1] == 's')) {
			j++;
		} else {
			break;
		}
	}
	return j;
}

/* split_word: the finished word t becomes two tokens, t and t + 1, over the same bytes, cut at
 * byte k (평균나이 -> 평균 + 나이).  OK or ERR_NOMEM. */
static enum err split_word(struct arena *a, struct ptok *t, size_t k)
{
	struct ptok whole = *t, *t2 = t + 1;

	memset(t, 0, sizeof *t);
	memset(t2, 0, sizeof *t2);
	t->off = whole.off;
	t->len = (int)k;
	t2->off = whole.off + (int)k;
	t2->len = whole.len - (int)k;
	t->kind = t2->kind = TK_WORD;
	t->hangul = t2->hangul = 1;
	t->text = arena_strndup(a, whole.text, k);
	t2->text = arena_strdup(a, whole.text + k);
	if (!t->text || !t2->text || finish(a, t) != OK || finish(a, t2) != OK)
		return ERR_NOMEM;
	t2->group |= whole.group;
	t2->raw = arena_strdup(a, whole.raw + k);
	if (!t2->raw)
		return ERR_NOMEM;
	return OK;
}

/* scan_word: the word token t that starts at q[*pos] (t->off is set): a number word, or a word
 * finished by finish(); an all-Hangul compound is split into t and t + 1 when room allows.
 * *pos ends after the word, *ntok is the number of tokens made (1 or 2).  OK or ERR_NOMEM. */
static enum err scan_word(struct arena *a, const char *q, size_t n, size_t *pos, struct ptok *t, int room,
                          int *ntok)
{
	size_t i = *pos, j, k;
	int hangul = 0;
	enum err e;

	*ntok = 1;
	j = word_end(q, n, i, &hangul);
	/* "top3", "top10": the ranking word and its number are two tokens */
	if (j - i > 3 && !strncasecmp(q + i, "top", 3) && strspn(q + i + 3, "0123456789") == j - i - 3)
		j = i + 3;
	t->text = arena_strndup(a, q + i, j - i);
	if (!t->text)
		return ERR_NOMEM;
	for (char *s = t->text; *s; s++) {
		t->caps |= *s >= 'A' && *s <= 'Z';
		*s = (char)tolower((unsigned char)*s);
	}
	t->kind = TK_WORD;
	t->hangul = hangul;
	t->len = (int)(j - i);
	*pos = j;
	/* "GS만", "OS에서": a Latin word and a Korean particle; the word is the Latin part */
	size_t lat = 0;
	while (t->text[lat] && ((unsigned char)t->text[lat] < 0x80 && (isalnum((unsigned char)t->text[lat]))))
		lat++;
	if (hangul && lat && !isdigit((unsigned char)t->text[0]) && planner_in_list(particles, t->text + lat)) {
		t->text[lat] = 0;
		t->hangul = 0;
	}
	for (int w = 0; numwords[w]; w++) {
		if (!strcmp(t->text, numwords[w])) {
			t->kind = TK_NUM;
			t->num = w;
		}
	}
	if (t->kind == TK_NUM) {
		t->stem = t->text;
		t->norm = t->text;
		return OK;
	}
	e = finish(a, t);
	if (e != OK)
		return e;
	k = hangul ? split_point(t->text) : 0;
	if (k && room) {
		/* 평균나이 -> 평균 + 나이: two tokens over the same bytes */
		e = split_word(a, t, k);
		if (e != OK)
			return e;
		*ntok = 2;
	}
	return OK;
}

/* scan_punct: the one-byte punctuation token t at q[*pos] (or <=, >=); comparison operators
 * are kept as roles.  *pos ends after it.  OK or ERR_NOMEM. */
static enum err scan_punct(struct arena *a, const char *q, size_t n, size_t *pos, struct ptok *t)
{
	size_t i = *pos;
	unsigned char c = (unsigned char)q[i];

	t->kind = TK_PUNCT;
	t->len = 1;
	if ((c == '<' || c == '>') && i + 1 < n && q[i + 1] == '=') {
		t->text = arena_strndup(a, q + i, 2);
		t->role = c == '<' ? R_LE : R_GE;
		*pos = i + 2;
		t->len = 2;
	} else {
		t->text = arena_strndup(a, q + i, 1);
		t->role = c == '<' ? R_LT : c == '>' ? R_GT : R_STOP;
		/* "ASA 3+", "70+": a plus right after a number is "or more", as 이상 after it */
		if (c == '+' && i > 0 && q[i - 1] >= '0' && q[i - 1] <= '9')
			t->role = R_GE;
		*pos = i + 1;
	}
	if (!t->text)
		return ERR_NOMEM;
	t->stem = t->text;
	t->norm = "";
	return OK;
}

/* type_word: a number followed by 형 ("2형 당뇨병": type 2) is a word, not a quantity */
static int type_word(const char *q)
{
	size_t d = strspn(q, "0123456789");
	return d && !strncmp(q + d, "형", strlen("형"));
}

/* planner_tokenize: words, numbers (with Korean unit suffixes), dates (MM/YYYY, MM/DD/YYYY,
 * YYYY-MM-DD), punctuation.  Hangul runs are words; particles are stripped in finish(). */
/* undot: "e.r.", "p.o.", "U.S.": an abbreviation written with a point after each letter is the
 * word of its letters ("er"), padded with spaces so that every offset into q still holds */
static char *undot(struct arena *a, const char *q)
{
	char *c = arena_strdup(a, q);
	for (size_t i = 0; c && c[i]; i++) {
		size_t j = i, nl = 0;
		if (i > 0 && (isalnum((unsigned char)c[i - 1]) || c[i - 1] == '.'))
			continue;
		while (isalpha((unsigned char)c[j]) && c[j + 1] == '.' && (c[j + 2] == '\0' || !isalnum((unsigned char)c[j + 2]) ||
		                                                              !isalnum((unsigned char)c[j + 3]))) {
			j += 2;
			nl++;
		}
		if (nl < 2 || isalnum((unsigned char)c[j]))
			continue;
		size_t w = i;
		for (size_t k = i; k < j; k += 2)
			c[w++] = c[k];
		while (w < j)
			c[w++] = ' ';
		i = j - 1;
	}
	return c;
}

/* times_word_ko: w is 번 or 회 alone or with a particle (번만, 회도), not 번째 (an ordinal) nor 회사 */
static int times_word_ko(const char *w)
{
	static const char *const tail[] = {"", "만", "도", "은", "는", "의", "을", "이", NULL};
	size_t l = strlen("번");
	if (strncmp(w, "번", l) && strncmp(w, "회", l))
		return 0;
	for (int k = 0; tail[k]; k++)
		if (!strcmp(w + l, tail[k]))
			return 1;
	return 0;
}

enum err planner_tokenize(struct arena *a, const char *q, struct ptoks *out)
{
	if (!(q = undot(a, q)))
		return ERR_NOMEM;
	size_t n = strlen(q), cap = n + 4;
	struct ptok *v = arena_alloc(a, cap * sizeof *v);
	int nt = 0;

	out->v = v;
	out->n = 0;
	if (!v)
		return ERR_NOMEM;
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)q[i];
		struct ptok *t = &v[nt];
		int ntok = 1;
		enum err e;

		if (isspace(c)) {
			i++;
			continue;
		}
		memset(t, 0, sizeof *t);
		t->off = (int)i;
		size_t ul = utf8_punct(q + i);
		if (ul) {   /* a dash, an ellipsis, a curly quote: punctuation, not a word */
			t->kind = TK_PUNCT;
			t->len = (int)ul;
			t->text = arena_strndup(a, q + i, ul);
			t->stem = t->text;
			t->norm = "";
			t->role = R_STOP;
			i += ul;
			e = t->text ? OK : ERR_NOMEM;
		} else if (isdigit(c) && !type_word(q + i))
			e = scan_number(a, q, n, &i, t);
		else if (isalpha(c) || c >= 0x80 || isdigit(c))   /* a digit here: a type word (2형) */
			e = scan_word(a, q, n, &i, t, (size_t)nt + 2 < cap, &ntok);
		else
			e = scan_punct(a, q, n, &i, t);
		if (e != OK)
			return e;
		nt += ntok;
	}
	/* a count of times in words: "once", "twice", "thrice"; "한 번", "두 번", "세 회" (a Korean
	 * native numeral before 번 or 회): the number of times, as "2번" is */
	static const char *const times_en[] = {"", "once", "twice", "thrice", NULL};
	static const char *const times_ko[] = {"", "한", "두", "세", "네", NULL};
	for (int k = 0; k < nt; k++) {
		int num = 0;
		for (int w = 1; times_en[w] && !num; w++)
			num = v[k].kind == TK_WORD && !strcmp(v[k].text, times_en[w]) ? w : 0;
		for (int w = 1; times_ko[w] && !num && k + 1 < nt; w++)
			num = v[k].kind == TK_WORD && !strcmp(v[k].text, times_ko[w]) && times_word_ko(v[k + 1].raw ? v[k + 1].raw : v[k + 1].text) ? w : 0;
		if (!num)
			continue;
		v[k].kind = TK_NUM;
		v[k].num = num;
		v[k].unit = 't';
		v[k].role = R_NONE;
		if (v[k].hangul) {   /* (번 itself is read with the number) */
			v[k + 1].role = R_STOP;
			v[k + 1].used = 1;
		}
	}
	/* "1st", "2nd": the ordinal words */
	for (int k = 0; k < nt; k++) {
		const char *w = v[k].kind == TK_NUM && !strcmp(v[k].text, "1st") ? "first"
		              : v[k].kind == TK_NUM && !strcmp(v[k].text, "2nd") ? "second" : NULL;
		if (!w)
			continue;
		v[k].kind = TK_WORD;
		v[k].num = 0;
		v[k].text = v[k].raw = v[k].stem = v[k].norm = arena_strdup(a, w);
		if (!v[k].text)
			return ERR_NOMEM;
		v[k].role = planner_lex_role(v[k].text, v[k].stem, &v[k].unitv);
	}
	/* "most recent(ly)" is the last one, not a ranking by frequency */
	for (int k = 0; k + 1 < nt; k++)
		if (v[k].role == R_MOST && !v[k].hangul && v[k + 1].role == R_LAST)
			v[k].role = R_STOP;
	/* "in minutes", "(minutes)", "분 단위": the unit a duration is shown in (minutes, as durations
	 * are), not a word to link ("minutes" named the heart rate's beats per minute, 단위 a dose's unit) */
	for (int k = 0; k + 1 < nt; k++) {
		static const char *const mins[] = {"minutes", "minute", "mins", "분", NULL};
		int en = (!strcmp(v[k].text, "in") || !strcmp(v[k].text, "(")) && planner_in_list(mins, v[k + 1].text) &&
		         v[k + 1].kind == TK_WORD && (!v[k + 1].hangul || !strcmp(v[k].text, "("));   /* also "(분)" */
		int ko = v[k].hangul && !strcmp(v[k].text, "분") && !strcmp(v[k + 1].text, "단위");
		if (!en && !ko)
			continue;
		for (int j = k; j <= k + 1; j++) {
			v[j].used = 1;
			v[j].role = R_STOP;
		}
	}
	/* "a lactate above 4 in that same case": the case of the row is the case the attribute is of,
	 * as a case's rows are read anyway; "same" asks for nothing more there */
	for (int k = 2; k + 1 < nt; k++)
		if (!strcmp(v[k].text, "same") && (!strcmp(v[k - 1].text, "that") || !strcmp(v[k - 1].text, "the")) &&
		    (!strcmp(v[k - 2].text, "in") || !strcmp(v[k - 2].text, "during")) &&
		    planner_ent_word(v[k + 1].text) >= 0 && planner_ent_word(v[k + 1].text) == planner_ent_word("case"))
			for (int j = k - 2; j <= k + 1; j++) {
				v[j].role = R_STOP;
				v[j].used = 1;
			}
	/* "average BMI across cholecystectomy cases", "across all patients": over the rows named (a
	 * stored value may stand between); "across departments" stays a word to read (a breakdown?) */
	for (int k = 0; k + 1 < nt; k++) {
		if (strcmp(v[k].text, "across"))
			continue;
		int ent = 0;
		for (int j = k + 1; j < nt && j <= k + 4 && !ent; j++)
			ent = planner_ent_word(v[j].text) >= 0 || planner_ent_word(v[j].stem) >= 0;
		if (ent || !strcmp(v[k + 1].text, "all")) {
			v[k].role = R_STOP;
			v[k].used = 1;
		}
	}
	/* "w/ DM", "w/o ICU": with and without as typed in notes; the words keep their text, so a
	 * stored name written so ('tpn w/ lipids') still matches, and only their role changes */
	for (int k = 0; k + 1 < nt; k++) {
		if (strcmp(v[k].text, "w") || strcmp(v[k + 1].text, "/"))
			continue;
		int without = k + 2 < nt && !strcmp(v[k + 2].text, "o");
		v[k].stem = (char *)(without ? "without" : "with");
		v[k].role = planner_lex_role(v[k].stem, v[k].stem, &v[k].unitv);
		if (without)
			v[k + 2].role = R_STOP;
	}
	/* "남녀로 나눠서", "성별로 구분해서": split by that word, as 성별로 (a grouping) */
	static const char *const split_verbs[] = {"나눠서", "나눠", "나누어", "나누어서", "나눠줘", "나눠서요", "구분해서",
	                                          "구분하여", "구분해", NULL};
	for (int k = 1; k < nt; k++)
		if (planner_in_list(split_verbs, v[k].text) && v[k - 1].hangul && v[k - 1].raw &&
		    (planner_ends_with(v[k - 1].raw, "로") || planner_ends_with(v[k - 1].raw, "별"))) {
			v[k - 1].group = 1;
			v[k].role = R_STOP;
		}
	/* "other than general surgery": a negation (as "except"), not the value 'Others' */
	for (int k = 0; k + 1 < nt; k++)
		if (!strcmp(v[k].text, "other") && !strcmp(v[k + 1].text, "than")) {
			v[k].text = v[k].stem = v[k].norm = arena_strdup(a, "other than");   /* (no value 'Others') */
			if (!v[k].text)
				return ERR_NOMEM;
			v[k].alt = NULL;
			v[k].role = R_NEG;
			v[k + 1].role = R_STOP;
		}
	/* "broken down by", "break it down by": the "by" says the breakdown, "down" is part of the verb */
	for (int k = 1; k < nt; k++)
		if (!strcmp(v[k].text, "down") &&
		    (!strcmp(v[k - 1].text, "broken") || !strcmp(v[k - 1].text, "break") || !strcmp(v[k - 1].text, "breaking") ||
		     (k > 1 && !strcmp(v[k - 2].text, "break")))) {
			v[k].role = R_STOP;
			for (int j = k - 1; j >= 0 && j >= k - 2; j--)
				if (!strcmp(v[j].text, "break") || !strcmp(v[j].text, "breaking"))
					v[j].role = R_STOP;
		}
	/* "aged 75+ (as of today)", "as of now": the moment ages and states are taken at, which is
	 * the question's now already, not a window of one day on the events */
	for (int k = 0; k + 2 < nt; k++)
		if (!strcmp(v[k].text, "as") && !strcmp(v[k + 1].text, "of") &&
		    (!strcmp(v[k + 2].text, "today") || !strcmp(v[k + 2].text, "now")))
			for (int j = k; j <= k + 2; j++) {
				v[j].role = R_STOP;
				v[j].used = 1;
			}
	/* "per quarter", "by quarter": a breakdown by quarter, as 분기별 is; "the first quarter of
	 * 2024" stays a word (a period, not a breakdown) */
	for (int k = 0; k + 1 < nt; k++)
		if (v[k].role == R_PER && !v[k].hangul && (!strcmp(v[k + 1].text, "quarter") || !strcmp(v[k + 1].text, "quarters"))) {
			v[k + 1].role = R_BUCKET;
			v[k + 1].unitv = 'q';
		}
	/* 환자 수가 (the number of patients + the particle 가), not the fee 수가: after a word naming
	 * what is counted, 수가 is 수 */
	for (int k = 1; k < nt; k++)
		if (!strcmp(v[k].text, "수가") && v[k - 1].kind == TK_WORD &&
		    (planner_ent_word(v[k - 1].text) >= 0 || !strcmp(v[k - 1].text, "건"))) {
			v[k].text = v[k].stem = v[k].norm = arena_strdup(a, "수");
			if (!v[k].text)
				return ERR_NOMEM;
			v[k].alt = NULL;
			v[k].role = planner_lex_role(v[k].text, v[k].stem, &v[k].unitv);
		}
	/* "leave (the) hospital": the end of the hospital visit, as "discharged" says it
	 * (conf/lexicon/phrases.tsv, role left_place) */
	for (int k = 0; k + 1 < nt; k++) {
		int h = k + 1 + (k + 2 < nt && !strcmp(v[k + 1].text, "the"));
		if (v[k].kind != TK_WORD || !planner_in_list(planner_lex_phrases("left_place"), v[k].text) ||
		    strcmp(v[h].text, "hospital"))
			continue;
		char *st = arena_alloc(a, 64);
		v[k].text = v[k].norm = arena_strdup(a, "discharged");
		if (!v[k].text || !st)
			return ERR_NOMEM;
		planner_stem(v[k].text, st, 64);
		v[k].stem = st;
		v[k].role = planner_lex_role(v[k].text, v[k].stem, &v[k].unitv);
	}
	/* "how is X administered", "methods for taking X": the route it is given by
	 * (conf/lexicon/phrases.tsv, roles route_verb, route_noun, route_act) */
	static const char *const aux[] = {"is", "are", "was", "were", "should", "does", "do", "can", NULL};
	int how_aux = nt > 1 && !strcmp(v[0].text, "how") && planner_in_list(aux, v[1].text);
	for (int k = 0; k < nt; k++) {
		int verb = how_aux && k > 1 && planner_in_list(planner_lex_phrases("route_verb"), v[k].text);
		int noun = planner_in_list(planner_lex_phrases("route_noun"), v[k].text), act = -1;
		for (int j = k + 1; noun && j < nt && j <= k + 3 && act < 0; j++)
			if (planner_in_list(planner_lex_phrases("route_act"), v[j].text))
				act = j;
		if (!verb && act < 0)
			continue;
		if (act >= 0)
			for (int j = k + 1; j <= act; j++) {
				v[j].used = 1;
				v[j].role = R_STOP;
			}
		/* "delivered to the body" */
		if (verb && k + 2 < nt && (!strcmp(v[k + 1].text, "to") || !strcmp(v[k + 1].text, "into"))) {
			int b = !strcmp(v[k + 2].text, "the") ? k + 3 : k + 2;
			for (int j = k + 1; b < nt && !strcmp(v[b].text, "body") && j <= b; j++) {
				v[j].used = 1;
				v[j].role = R_STOP;
			}
		}
		v[k].text = v[k].stem = v[k].norm = arena_strdup(a, "route");
		if (!v[k].text)
			return ERR_NOMEM;
		v[k].raw = v[k].text;
		v[k].alt = NULL;
		v[k].role = planner_lex_role(v[k].text, v[k].stem, &v[k].unitv);
	}
	out->n = nt;
	return OK;
}
