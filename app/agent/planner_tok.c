/* planner_tok.c: the planner's tokenizer (Korean particles and spacing, English inflections) and lexicon. */
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "agent/planner_int.h"
#include "catalog/lexicon.h"

/* Korean particles and endings, longest first: stripped from the end of a Hangul word. */
static const char *const particles[] = {
	"에서부터", "으로부터", "에서는", "에서도", "으로는", "에게서", "이라는", "이었던", "이었나요",
	"였나요", "인가요", "입니까", "입니다", "이에요", "이야", "이냐", "인지", "였던", "이었", "인데", "으로", "에서", "에게", "한테",
	"까지", "부터", "보다", "처럼", "이나", "라도", "에는", "들의", "들은", "들이", "들을", "들", "와의", "과의",
	"은", "는", "이", "가", "을", "를", "의", "에", "로", "와", "과", "도", "만", "인", "랑", "씩", NULL
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
	for (int i = 0; l[i]; i++)
		if (!strcmp(l[i], w))
			return i;
	return -1;
}

int planner_in_list(const char *const *l, const char *w)
{
	return planner_in_list_at(l, w) >= 0;
}

static int ends_with(const char *w, const char *suf)
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

struct lex { const char *w; enum role r; int unit; };

/* The function words: structure, not schema.  Matched on the stem or the surface. */
static const struct lex lexicon[] = {
	{"count", R_COUNT, 0}, {"number", R_COUNT, 0}, {"many", R_MANY, 0}, {"how", R_HOW, 0},
	{"몇", R_COUNT, 0}, {"몇명", R_COUNT, 0}, {"몇건", R_COUNT, 0}, {"건수", R_COUNT, 0}, {"개수", R_COUNT, 0}, {"횟수", R_COUNT, 0}, {"수", R_COUNT, 0},
	{"인원", R_COUNT, 0}, {"명수", R_COUNT, 0},
	{"average", R_AVG, 0}, {"avg", R_AVG, 0}, {"mean", R_AVG, 0}, {"평균", R_AVG, 0},
	{"maximum", R_MAX, 0}, {"max", R_MAX, 0}, {"highest", R_MAX, 0}, {"largest", R_MAX, 0}, {"longest", R_MAX, 0},
	{"peak", R_MAX, 0}, {"최대", R_MAX, 0}, {"최고", R_MAX, 0}, {"최댓값", R_MAX, 0}, {"maximal", R_MAX, 0},
	{"minimum", R_MIN, 0}, {"min", R_MIN, 0}, {"lowest", R_MIN, 0}, {"smallest", R_MIN, 0}, {"shortest", R_MIN, 0},
	{"최소", R_MIN, 0}, {"최저", R_MIN, 0}, {"최솟값", R_MIN, 0}, {"minimal", R_MIN, 0},
	{"total", R_SUM, 0}, {"overall", R_SUM, 0}, {"sum", R_SUM, 0}, {"합계", R_SUM, 0}, {"총", R_SUM, 0}, {"합", R_SUM, 0},
	{"first", R_FIRST, 0}, {"earliest", R_FIRST, 0}, {"처음", R_FIRST, 0}, {"최초", R_FIRST, 0},
	{"첫", R_FIRST, 0}, {"첫번째", R_FIRST, 0},
	{"last", R_LAST, 0}, {"latest", R_LAST, 0}, {"recent", R_LAST, 0}, {"recently", R_LAST, 0},
	{"final", R_LAST, 0}, {"마지막", R_LAST, 0},
	{"top", R_TOP, 0}, {"상위", R_TOP, 0}, {"most", R_MOST, 0}, {"가장", R_MOST, 0}, {"제일", R_MOST, 0},
	{"frequent", R_FREQ, 0}, {"frequently", R_FREQ, 0}, {"common", R_FREQ, 0}, {"commonly", R_FREQ, 0},
	{"often", R_FREQ, 0}, {"popular", R_FREQ, 0}, {"많은", R_FREQ, 0}, {"많이", R_FREQ, 0}, {"자주", R_FREQ, 0},
	{"흔한", R_FREQ, 0},
	{"per", R_PER, 0}, {"each", R_PER, 0}, {"by", R_PER, 0}, {"별", R_PER, 0}, {"마다", R_PER, 0},
	{"별로", R_PER, 0}, {"당", R_PER, 0}, {"기준", R_PER, 0}, {"따라", R_PER, 0}, {"따른", R_PER, 0},
	{"grouped", R_PER, 0}, {"broken", R_STOP, 0},
	{"over", R_GT, 0}, {"above", R_GT, 0}, {"greater", R_GT, 0}, {"more", R_GT, 0}, {"higher", R_GT, 0},
	{"exceed", R_GT, 0}, {"exceeding", R_GT, 0}, {"older", R_GT, 0}, {"초과", R_GT, 0}, {"넘는", R_GT, 0},
	{"넘은", R_GT, 0}, {"높은", R_GT, 0}, {"이상", R_GE, 0}, {"least", R_GE, 0},
	{"under", R_LT, 0}, {"below", R_LT, 0}, {"less", R_LT, 0}, {"lower", R_LT, 0}, {"younger", R_LT, 0},
	{"fewer", R_LT, 0}, {"미만", R_LT, 0}, {"낮은", R_LT, 0}, {"이하", R_LE, 0}, {"than", R_STOP, 0},
	{"between", R_BETWEEN, 0}, {"사이", R_BETWEEN, 0}, {"and", R_AND, 0}, {"에서", R_STOP, 0},
	{"since", R_SINCE, 0}, {"from", R_SINCE, 0}, {"after", R_SINCE, 0}, {"starting", R_SINCE, 0},
	{"beginning", R_SINCE, 0}, {"이후", R_SINCE, 0},
	{"부터", R_SINCE, 0}, {"until", R_UNTIL, 0}, {"through", R_UNTIL, 0}, {"thru", R_UNTIL, 0}, {"before", R_UNTIL, 0}, {"이전", R_UNTIL, 0},
	{"까지", R_UNTIL, 0},
	{"in", R_IN, 0}, {"during", R_IN, 0}, {"within", R_IN, 0}, {"on", R_ON, 0}, {"at", R_ON, 0},
	{"ago", R_AGO, 0}, {"전", R_AGO, 0},
	{"this", R_THIS, 0}, {"current", R_CURRENT, 0}, {"currently", R_CURRENT, 0}, {"ongoing", R_CURRENT, 0},
	{"이번", R_THIS, 0},
	{"past", R_PAST, 0}, {"previous", R_PAST, 0}, {"지난", R_PAST, 0}, {"최근", R_PAST, 0},
	{"next", R_NEXT, 0},
	{"hour", R_UNIT, 'h'}, {"hr", R_UNIT, 'h'}, {"시간", R_UNIT, 'h'}, {"day", R_UNIT, 'd'}, {"일", R_UNIT, 'd'},
	{"일간", R_UNIT, 'd'}, {"week", R_UNIT, 'w'}, {"주", R_UNIT, 'w'}, {"주간", R_UNIT, 'w'},
	{"month", R_UNIT, 'm'}, {"개월", R_UNIT, 'm'}, {"달", R_UNIT, 'm'}, {"year", R_UNIT, 'y'},
	{"년", R_UNIT, 'y'}, {"년간", R_UNIT, 'y'},
	{"올해", R_YEARWORD, 'y'}, {"금년", R_YEARWORD, 'y'}, {"작년", R_YEARWORD, -'y'},
	{"이번달", R_YEARWORD, 'm'}, {"지난달", R_YEARWORD, -'m'},
	{"today", R_TODAY, 0}, {"오늘", R_TODAY, 0}, {"yesterday", R_YESTERDAY, 0}, {"어제", R_YESTERDAY, 0},
	{"when", R_WHEN, 0}, {"언제", R_WHEN, 0}, {"time", R_TIMES, 0}, {"date", R_TIMES, 0},
	{"시각", R_WHEN, 0}, {"날짜", R_WHEN, 0}, {"일시", R_WHEN, 0},
	{"list", R_LIST, 0}, {"tell", R_LIST, 0}, {"show", R_LIST, 0}, {"display", R_LIST, 0}, {"목록", R_LIST, 0},
	{"리스트", R_LIST, 0}, {"보여", R_LIST, 0}, {"보여줘", R_LIST, 0}, {"알려줘", R_LIST, 0},
	{"알려", R_LIST, 0}, {"조회", R_LIST, 0}, {"조회해줘", R_LIST, 0}, {"나열", R_LIST, 0},
	{"distinct", R_DISTINCT, 0}, {"unique", R_DISTINCT, 0}, {"different", R_DISTINCT, 0},
	{"종류", R_DISTINCT, 0}, {"kind", R_DISTINCT, 0}, {"type", R_DISTINCT, 0},
	{"timeline", R_TIMELINE, 0}, {"trend", R_TIMELINE, 0}, {"추이", R_TIMELINE, 0}, {"변화", R_TIMELINE, 0},
	{"시간순", R_TIMELINE, 0}, {"타임라인", R_TIMELINE, 0}, {"시계열", R_TIMELINE, 0},
	{"chronological", R_TIMELINE, 0}, {"chronologically", R_TIMELINE, 0},
	{"any", R_ANY, 0}, {"ever", R_ANY, 0},
	{"has", R_EXIST, 0}, {"have", R_EXIST, 0}, {"had", R_EXIST, 0}, {"was", R_EXIST, 0},
	{"were", R_EXIST, 0}, {"did", R_EXIST, 0}, {"does", R_EXIST, 0}, {"is", R_EXIST, 0}, {"are", R_EXIST, 0},
	{"있었나요", R_EXIST, 0}, {"있나요", R_EXIST, 0}, {"있습니까", R_EXIST, 0}, {"있었습니까", R_EXIST, 0},
	{"ascending", R_ASC, 0}, {"오름차순", R_ASC, 0}, {"descending", R_DESC, 0}, {"내림차순", R_DESC, 0},
	{"not", R_NEG, 0}, {"no", R_NEG, 0}, {"without", R_NEG, 0}, {"never", R_NEG, 0}, {"없는", R_NEG, 0},
	{"않은", R_NEG, 0}, {"제외", R_NEG, 0}, {"except", R_NEG, 0}, {"excluding", R_NEG, 0},
	{"which", R_WHICH, 0}, {"what", R_WHICH, 0}, {"name", R_WHICH, 0}, {"무엇", R_WHICH, 0},
	{"어떤", R_WHICH, 0}, {"어느", R_WHICH, 0}, {"무슨", R_WHICH, 0},
	{"value", R_VALUE, 0}, {"level", R_VALUE, 0}, {"result", R_VALUE, 0}, {"reading", R_VALUE, 0},
	{"measurement", R_VALUE, 0}, {"값", R_VALUE, 0}, {"수치", R_VALUE, 0}, {"결과", R_VALUE, 0},
	{"측정값", R_VALUE, 0}, {"amount", R_VALUE, 0}, {"volume", R_VALUE, 0}, {"dose", R_VALUE, 0},
	{"times", R_TIMES, 0}, {"번", R_TIMES, 0},
	/* shapes the planner does not build: it declines instead of guessing */
	{"percentile", R_UNSUP, 0}, {"difference", R_UNSUP, 0}, {"differ", R_UNSUP, 0}, {"change", R_UNSUP, 0},
	{"ratio", R_UNSUP, 0}, {"percentage", R_UNSUP, 0}, {"percent", R_UNSUP, 0}, {"proportion", R_UNSUP, 0},
	{"rate", R_NONE, 0}, {"second", R_UNSUP, 0}, {"third", R_UNSUP, 0}, {"same", R_UNSUP, 0},
	{"compar", R_UNSUP, 0}, {"compare", R_UNSUP, 0}, {"versus", R_UNSUP, 0}, {"vs", R_UNSUP, 0},
	{"long", R_UNSUP, 0}, {"length", R_UNSUP, 0}, {"duration", R_UNSUP, 0}, {"passed", R_UNSUP, 0},
	{"elapsed", R_UNSUP, 0}, {"daily", R_BUCKET, 'd'}, {"monthly", R_BUCKET, 'm'}, {"yearly", R_BUCKET, 'y'},
	{"일별", R_BUCKET, 'd'}, {"월별", R_BUCKET, 'm'}, {"연도별", R_BUCKET, 'y'}, {"년도별", R_BUCKET, 'y'},
	{"날짜별", R_BUCKET, 'd'}, {"일자별", R_BUCKET, 'd'}, {"연별", R_BUCKET, 'y'},
	{"weekly", R_BUCKET, 'w'}, {"hourly", R_BUCKET, 'h'}, {"월", R_UNIT, 'm'}, {"연도", R_UNIT, 'y'},
	{"년도", R_UNIT, 'y'}, {"주별", R_BUCKET, 'w'}, {"시간별", R_BUCKET, 'h'}, {"correlation", R_UNSUP, 0}, {"median", R_UNSUP, 0},
	{"차이", R_UNSUP, 0}, {"비율", R_UNSUP, 0}, {"비교", R_UNSUP, 0}, {"백분위", R_UNSUP, 0},
	{"두번째", R_UNSUP, 0}, {"중앙값", R_UNSUP, 0}, {"increase", R_UNSUP, 0}, {"decrease", R_UNSUP, 0},
	{"why", R_UNSUP, 0}, {"predict", R_UNSUP, 0}, {"will", R_UNSUP, 0}, {"should", R_UNSUP, 0},
	{"both", R_UNSUP, 0}, {"also", R_UNSUP, 0},
	{"outcome", R_UNSUP, 0}, {"previously", R_UNSUP, 0}, {"newly", R_UNSUP, 0}, {"cost", R_NONE, 0},
	{NULL, 0, 0}
};

/* Words that carry no schema meaning (pronouns, auxiliaries, politeness, question glue). */
static const char *const generic[] = {
	"the", "a", "an", "of", "for", "to", "me", "tell", "what", "is", "are", "was", "were", "do", "does",
	"did", "please", "give", "find", "get", "can", "could", "would", "you", "i", "want", "know", "let",
	"us", "there", "been", "be", "being", "that", "which", "who", "whose", "with", "it", "its", "their",
	"they", "them", "his", "her", "he", "she", "him", "or", "as", "all", "so", "far", "out", "up", "also",
	"hospital", "hospit", "whole", "of", "calculate", "calcul", "compute", "comput", "retriev", "state",
	"tell", "check", "checked", "pleas", "provid", "identify", "identifi", "determin", "return", "fetch",
	"report", "record", "recorded", "record", "document", "having", "ended", "resulted", "coded", "minus",
	"among", "전부", "모두", "뽑아줘", "뽑아", "정리해줘", "구해줘", "계산해줘", "찾아줘", "출력해줘",
	"같은", "같", "한번", "한번만", "한번이라도", "찍힌", "찍힌적", "나온", "나온적", "거쳐서", "거쳐", "통해", "통해서",
	"via", "through", "등록", "등록된", "do", "done", "doe", "got", "get", "gett",
	"take", "taken", "took", "tak", "receiv", "given", "giv", "gave", "had", "ha", "has", "have", "perform",
	"undergo", "underwent", "undergon", "show", "display", "many", "much", "how", "time", "on", "in", "at",
	"my", "our", "your", "from", "into", "via", "through", "per", "and", "then", "than", "some", "those",
	"these", "this", "such", "ani", "any", "ever", "yet", "still", "where", "measur", "name", "call", "called",
	"specific", "list", "data", "information", "info", "detail", "details", "result", "value", "level", "s",
	"whether", "if", "during", "while", "been", "happen", "occur", "made", "make", "mak", "find", "see",
	"look", "need", "like", "kind", "type", "categori", "category", "prescrib", "administer", "administ",
	"order", "ordered", "test", "event", "item", "record", "entri", "entry", "all",
	"patient", "visit", "encount", "stay", "number", "count", "come", "came", "found", "detect", "involv",
	"includ", "conduct", "gather", "figure", "figur", "about", "throughout", "instance", "gone", "go", "went",
	"used", "us", "term", "delivered", "deliver", "hospitaliz", "hospitalized", "went", "able", "sure", "now",
	"보여줘", "알려줘", "알려주세요", "보여주세요", "구해줘", "구하", "해줘", "주세요", "뭐야", "무엇인가요",
	"있는", "있었던", "받은", "받았", "받았나요", "받은", "투여된", "투여받은", "된", "한", "하는", "했던",
	"중", "동안", "각", "모든", "전체", "해당", "대한", "관련", "기록", "기록된", "측정된", "측정", "어떻게",
	"나온", "나타난", "입니까", "인가요", "얼마", "얼마인가요", "얼마야", "계산", "계산해줘", "및", "그리고",
	"명", "건", "개", "정렬", "순", "순서", "순으로", "순서로", "해서", "하여", "것", "들", "때", "경우",
	"database", "db", "class", "grade", "status", "group", "categori", "시행", "실시", "사용", "사용된",
	"진행", "투여", "받", "있", "없", "전체", "모두", "총합", "performed", "perform", "given", "happened",
	"started", "began", "begun", "occurred", "happened", "took", "place", "recorded",
	"onward", "onwards", "point", "anything", "very", "charted", "reach", "reached", "hit", "enter", "entered", "only", "just", "instead", "issued", "issu", "accounted", "account", "named", "그럼", "그러면", "대신", "어때", "어때요", "어떤가요", "는요",
	"데이터", "자료", "정보", "내역", "현황", "기록들", "항목", "종류별", "건인가요", "인가요", "있었던", "있는", "환자의", "명인가요", "개인가요",
	/* "X 나온 적 있는" (ever had X), copula and counter endings (몇 명이야, 몇 명임), 만 나이 (full years) */
	"적", "명이야", "명임", "명이에요", "명인지", "건이야", "건임", "개야", "만", "온", "왔던", "로", "으로",
	/* "병원 내 사망률" (in-hospital): the hospital is where everything in the data happened; a visit
	 * table, when there is one, takes the word first (find_visits) */
	"병원", "내", "원내",
	"쓴", "쓰인", "사용한", "사용된",
	/* a particle left alone after punctuation (비율(%)은) */
	"은", "는", "을", "를", "이", "가", "의", "도", "에",
	NULL
};

int planner_lex_generic(const char *stem)
{
	return planner_in_list(generic, stem);
}

enum role planner_lex_role(const char *text, const char *stem, int *unit)
{
	*unit = 0;
	for (const struct lex *l = lexicon; l->w; l++) {
		if (!strcmp(l->w, text) || !strcmp(l->w, stem)) {
			*unit = l->unit;
			return l->r;
		}
	}
	return R_NONE;
}

/* The planner's own short list of everyday synonyms (Korean words and standard abbreviations ->
 * English), tried before the lexicon; no database's table or column names (those belong in the
 * target's metadata).  The first entry is the term, the rest its synonyms (all lower case). */
static const char *const syns[][8] = {
	{"환자", "patient", "subject", NULL}, {"patient", "subject", NULL},
	{"나이", "age", NULL}, {"aged", "age", NULL}, {"연령", "age", NULL}, {"성별", "sex", "gender", NULL},
	{"gender", "sex", NULL}, {"sex", "gender", NULL},
	{"키", "height", NULL}, {"신장", "height", NULL}, {"체중", "weight", NULL}, {"몸무게", "weight", NULL},
	{"진료과", "department", "dept", NULL}, {"부서", "department", "dept", NULL},
	{"진료부서", "department", "dept", NULL}, {"랩", "lab", NULL}, {"바이탈", "vital", NULL},
	{"바이탈사인", "vital", NULL}, {"생체징후", "vital", NULL}, {"department", "dept", NULL}, {"과", "department", NULL},
	{"수술", "case", "surgery", "operation", "op", NULL}, {"케이스", "case", NULL}, {"증례", "case", NULL},
	{"surgery", "case", "operation", "op", NULL}, {"operation", "case", "surgery", "op", NULL},
	{"case", "surgery", "operation", NULL},
	
	{"마취", "anesthesia", "ane", NULL}, {"anesthesia", "ane", NULL},
	{"심박수", "heart rate", "hr", NULL}, {"맥박", "heart rate", "hr", "pulse", NULL},
	{"heart rate", "hr", NULL}, {"pulse", "heart rate", "hr", NULL},
	{"혈압", "blood pressure", "sbp", NULL}, {"blood pressure", "sbp", NULL}, {"bp", "sbp", NULL},
	{"수축기", "systolic", "sbp", NULL}, {"수축기혈압", "systolic", "sbp", NULL},
	{"systolic", "sbp", NULL}, {"이완기", "diastolic", "dbp", NULL}, {"이완기혈압", "diastolic", "dbp", NULL},
	{"diastolic", "dbp", NULL}, {"평균동맥압", "mean arterial pressure", "mbp", "map", NULL},
	{"mean arterial pressure", "mbp", "map", NULL}, {"map", "mbp", NULL},
	{"산소포화도", "oxygen saturation", "spo2", NULL}, {"oxygen saturation", "spo2", NULL},
	{"saturation", "spo2", NULL}, {"체온", "temperature", "bt", "body temperature", NULL},
	{"temperature", "bt", "temp", NULL}, {"호흡수", "respiratory rate", "rr", NULL},
	{"respiratory rate", "rr", NULL},
	{"칼륨", "potassium", "k", NULL}, {"포타슘", "potassium", "k", NULL}, {"potassium", "k", NULL},
	{"나트륨", "sodium", "na", NULL}, {"소디움", "sodium", "na", NULL}, {"sodium", "na", NULL},
	{"젖산", "lactate", "lac", NULL}, {"lactate", "lac", "lactic acid", NULL}, {"lactic acid", "lac", "lactate", NULL},
	{"헤모글로빈", "hemoglobin", "hb", "hgb", NULL}, {"혈색소", "hemoglobin", "hb", NULL},
	{"hemoglobin", "hb", "hgb", NULL}, {"haemoglobin", "hb", "hemoglobin", NULL},
	{"혈당", "glucose", "gluc", "glu", NULL}, {"포도당", "glucose", "gluc", NULL}, {"glucose", "gluc", "glu", NULL},
	{"크레아티닌", "creatinine", "cr", NULL}, {"creatinine", "cr", "creat", NULL},
	{"칼슘", "calcium", "ca", NULL}, {"calcium", "ca", NULL}, {"염소", "chloride", "cl", NULL},
	{"chloride", "cl", NULL}, {"혈소판", "platelet", "plt", NULL}, {"platelet", "plt", NULL},
	{"백혈구", "white blood cell", "wbc", NULL}, {"알부민", "albumin", "alb", NULL}, {"albumin", "alb", NULL},
	{"약물", "drug", "medication", NULL}, {"약", "drug", "medication", NULL}, {"투약", "medication", "drug", NULL},
	{"medication", "drug", "medicine", NULL}, {"drug", "medication", NULL}, {"medicine", "drug", "medication", NULL},
	{"용량", "dose", NULL}, {"투여량", "dose", NULL}, {"경로", "route", NULL}, {"단위", "unit", NULL},
	{"진단", "diagnosis", "dx", NULL}, {"diagnosis", "dx", NULL}, {"진단명", "diagnosis", "dx", NULL},
	{"검사", "lab", "test", NULL}, {"lab", "laboratory", NULL}, {"laboratory", "lab", NULL},
	{"birth", "dob", "date of birth", NULL}, {"생년월일", "dob", "date of birth", NULL},
	{"released", "discharge", NULL}, {"release", "discharge", NULL}, {"releas", "discharge", NULL}, {"혈액검사", "lab", NULL},
	{"사망", "death", "died", NULL}, {"death", "died", "mortality", "사망", NULL}, {"died", "death", NULL},
	{"mortality", "death", NULL}, 
	{"중환자실", "icu", NULL}, {"icu", "intensive care", NULL}, {"er", "emergency room", "emergency", "응급실", NULL},
	{"ed", "emergency department", "emergency", "응급실", NULL},
	{"입원", "admission", NULL}, {"퇴원", "discharge", NULL},
	{"고혈압", "hypertension", "htn", NULL}, {"hypertension", "htn", NULL}, {"당뇨", "diabetes", "dm", NULL},
	{"당뇨병", "diabetes", "dm", NULL}, {"diabetes", "dm", NULL},
	{"asa", "asa", NULL}, {"bmi", "bmi", NULL}, {"체질량지수", "bmi", NULL},
	{"남자", "m", "male", NULL}, {"남성", "m", "male", NULL}, {"여자", "f", "female", NULL},
	{"여성", "f", "female", NULL}, {"male", "m", NULL}, {"female", "f", NULL}, {"men", "m", "male", NULL},
	{"women", "f", "female", NULL}, {"man", "m", "male", NULL}, {"woman", "f", "female", NULL},
	{"처방", "prescription", "order", NULL}, {"prescription", "drug", NULL},
	{"병동", "ward", "care unit", NULL}, {"병실", "room", "ward", NULL}, {"이름", "name", NULL}, {"관찰", "observation", NULL},
	{"입원일", "admission", "admitted", NULL}, {"퇴원일", "discharge", "discharged", NULL}, {"보험", "insurance", NULL},
	{"주소", "address", NULL}, {"의사", "doctor", "physician", NULL}, {"간호사", "nurse", NULL},
	{"미생물", "microbiology", NULL}, 
	{"응급", "emergency", NULL},
	{"가중치", "weight", NULL}, {"vitals", "vital", NULL}, {"활력징후", "vital", NULL}, {"vital sign", "vital", NULL},
	{NULL}
};


/* own_syn: the short list's synonyms of term, or NULL (the tokenizer's "known word" test uses
 * only this list: a lexicon term such as 환자수 must still split into 환자 + 수) */
static const char *const *own_syn(const char *term)
{
	for (int i = 0; syns[i][0]; i++)
		if (!strcmp(syns[i][0], term))
			return &syns[i][1];
	return NULL;
}

/* Then the clinical lexicon (conf/lexicon/, docs/lexicon.md), the same data retrieval and value
 * search use: a word that is a term of an entry (not only a short code) has the entry's other
 * terms as synonyms, English first, then codes, then Korean.  Built once per process into a
 * sorted table. */
struct synrow { const char *term; const char **syn; int n; };
static struct synrow *synrows;
static int nsynrows;
static pthread_once_t syn_once = PTHREAD_ONCE_INIT;
static struct arena syn_mem;   /* stems of lexicon terms, kept for the process */

static int cmp_synrow(const void *x, const void *y)
{
	return strcmp(((const struct synrow *)x)->term, ((const struct synrow *)y)->term);
}

static void add_terms(const char ***v, int *n, int *cap, const char *const *t, int nt, const char *self)
{
	for (int i = 0; i < nt; i++) {
		int dup = !strcmp(t[i], self);
		for (int k = 0; k < *n && !dup; k++)
			dup = !strcmp((*v)[k], t[i]);
		if (dup)
			continue;
		if (*n + 2 > *cap) {
			int nc = *cap ? *cap * 2 : 16;
			const char **nv = realloc(*v, (size_t)nc * sizeof *nv);
			if (!nv)
				return;
			*v = nv;
			*cap = nc;
		}
		(*v)[(*n)++] = t[i];
		(*v)[*n] = NULL;
	}
}

static int entry_has(const struct lex_entry *x, const char *t)
{
	char st[128];
	for (int k = 0; k < x->nen; k++) {
		if (!strcmp(x->en[k], t))
			return 1;
		if (!strchr(x->en[k], ' ') && (planner_stem(x->en[k], st, sizeof st), !strcmp(st, t)))
			return 1;
	}
	for (int k = 0; k < x->nko; k++)
		if (!strcmp(x->ko[k], t))
			return 1;
	for (int k = 0; k < x->ncodes; k++)
		if (strlen(x->codes[k]) > 2 && !strcmp(x->codes[k], t))
			return 1;
	return 0;
}

/* compound_of: t is another Korean term of x followed by more (환자수 and 환자 수 of 환자) */
static int compound_of(const struct lex_entry *x, const char *t)
{
	for (int k = 0; k < x->nko; k++) {
		size_t n = strlen(x->ko[k]);
		if (n < strlen(t) && !strncmp(x->ko[k], t, n))
			return 1;
	}
	return 0;
}

static void build_syns(void)
{
	const struct lexicon *lx = lexicon_get(NULL);
	int cap = 0, out = 0;

	for (int e = 0; e < lx->n; e++) {
		const struct lex_entry *x = &lx->e[e];
		if (!strcmp(x->category, "analysis"))
			continue;   /* structure words, not names of things */
		for (int w = 0; w < x->nen + x->nko + x->ncodes; w++) {
			const char *t = w < x->nen ? x->en[w] : w < x->nen + x->nko ? x->ko[w - x->nen] : x->codes[w - x->nen - x->nko];
			if (w >= x->nen + x->nko && strlen(t) <= 2)
				continue;   /* a short code ("k", "na") is weak evidence of the entry */
			if (compound_of(x, t) && !ends_with(t, "자"))
				continue;   /* 환자수, 수술 건: the structure word after the noun is the tokenizer's
				             * (사망자, the people who died, is a word of its own) */
			if (nsynrows + 2 > cap) {
				int nc = cap ? cap * 2 : 1024;
				struct synrow *nr = realloc(synrows, (size_t)nc * sizeof *nr);
				if (!nr)
					return;
				synrows = nr;
				cap = nc;
			}
			synrows[nsynrows++] = (struct synrow){t, NULL, 0};
			/* an English word is also found by its stem (admissions, admitted -> admiss) */
			char st[128];
			if (w < x->nen && !strchr(t, ' ') && (planner_stem(t, st, sizeof st), strcmp(st, t)) &&
			    (synrows[nsynrows].term = arena_strdup(&syn_mem, st))) {
				synrows[nsynrows].syn = NULL;
				synrows[nsynrows++].n = 0;
			}
		}
	}
	if (!nsynrows)
		return;
	qsort(synrows, (size_t)nsynrows, sizeof *synrows, cmp_synrow);
	for (int i = 0; i < nsynrows; i++)   /* one row per term: a term of several entries gets the union */
		if (!out || strcmp(synrows[out - 1].term, synrows[i].term))
			synrows[out++] = synrows[i];
	nsynrows = out;
	for (int r = 0; r < nsynrows; r++) {
		int vcap = 0, no = 0;
		const char **v = NULL;
		const char *const *own = own_syn(synrows[r].term);
		while (own && own[no])
			no++;
		/* a word the planner has its own synonyms for keeps them, and gains only the lexicon's
		 * Korean terms: "lab" reaches 진단검사 in a Korean comment, not every English label with
		 * "test" in it */
		add_terms(&v, &synrows[r].n, &vcap, own, no, synrows[r].term);
		for (int e = 0; e < lx->n; e++) {
			const struct lex_entry *x = &lx->e[e];
			if (!strcmp(x->category, "analysis") || !entry_has(x, synrows[r].term))
				continue;
			if (!own) {
				add_terms(&v, &synrows[r].n, &vcap, x->en, x->nen, synrows[r].term);
				add_terms(&v, &synrows[r].n, &vcap, x->codes, x->ncodes, synrows[r].term);
			}
			add_terms(&v, &synrows[r].n, &vcap, x->ko, x->nko, synrows[r].term);
		}
		synrows[r].syn = v;
	}
}

const char *const *planner_lex_syn(const char *term)
{
	struct synrow key = {term, NULL, 0}, *r;

	const char *const *own;

	if (!term)
		return NULL;
	pthread_once(&syn_once, build_syns);
	r = nsynrows ? bsearch(&key, synrows, (size_t)nsynrows, sizeof *synrows, cmp_synrow) : NULL;
	if (r && r->n)
		return r->syn;   /* the planner's own synonyms (and the lexicon's Korean terms) or the lexicon's */
	own = own_syn(term);
	return own;
}

/* Ontology concepts: a named abnormality is a measure outside its normal range.  The range
 * given here is the textbook adult default, used only when the catalog's metadata has none. */
static const struct concept {
	const char *term, *measure;
	int dir;
	double lo, hi;
} concepts[] = {
	{"hypotension", "sbp", -1, 90, 140}, {"저혈압", "sbp", -1, 90, 140},
	{"hypertensive", "sbp", 1, 90, 140}, {"고혈압성", "sbp", 1, 90, 140},
	{"tachycardia", "hr", 1, 60, 100}, {"빈맥", "hr", 1, 60, 100},
	{"bradycardia", "hr", -1, 60, 100}, {"서맥", "hr", -1, 60, 100},
	{"fever", "bt", 1, 36, 37.5}, {"발열", "bt", 1, 36, 37.5}, {"febrile", "bt", 1, 36, 37.5},
	{"hypothermia", "bt", -1, 36, 37.5}, {"저체온", "bt", -1, 36, 37.5},
	{"hypoxia", "spo2", -1, 94, 100}, {"hypoxemia", "spo2", -1, 94, 100}, {"저산소증", "spo2", -1, 94, 100},
	{"저산소", "spo2", -1, 94, 100}, {"desaturation", "spo2", -1, 94, 100},
	{"hypokalemia", "potassium", -1, 3.5, 5.0}, {"저칼륨혈증", "potassium", -1, 3.5, 5.0},
	{"hyperkalemia", "potassium", 1, 3.5, 5.0}, {"고칼륨혈증", "potassium", 1, 3.5, 5.0},
	{"hyponatremia", "sodium", -1, 135, 145}, {"저나트륨혈증", "sodium", -1, 135, 145},
	{"hypernatremia", "sodium", 1, 135, 145}, {"고나트륨혈증", "sodium", 1, 135, 145},
	{"hyperglycemia", "glucose", 1, 70, 140}, {"고혈당", "glucose", 1, 70, 140},
	{"hypoglycemia", "glucose", -1, 70, 140}, {"저혈당", "glucose", -1, 70, 140},
	{"hyperlactatemia", "lactate", 1, 0.5, 2.0}, {"고젖산혈증", "lactate", 1, 0.5, 2.0},
	{"anemia", "hemoglobin", -1, 12, 17.5}, {"빈혈", "hemoglobin", -1, 12, 17.5},
	{"tachypnea", "rr", 1, 12, 20}, {"빈호흡", "rr", 1, 12, 20},
	{NULL, NULL, 0, 0, 0}
};

int planner_lex_concept(const char *term, const char **measure, int *dir, double *lo, double *hi)
{
	for (const struct concept *c = concepts; c->term; c++) {
		if (!strcmp(c->term, term)) {
			*measure = c->measure;
			*dir = c->dir;
			*lo = c->lo;
			*hi = c->hi;
			return 1;
		}
	}
	return 0;
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
	return planner_in_list(ko_whole, w) || planner_lex_role(w, w, &unit) != R_NONE || own_syn(w) ||
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
	if (n < m + min_rest || !ends_with(t->text, suf))
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
		if (n > m && ends_with(w, particles[i])) {
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
		if ((ends_with(t->text, "률") || ends_with(t->text, "율")) && strlen(t->text) >= 6)
			t->unsup_rate = 1;
		/* 환자별, 진료과마다, 케이스당: the grouping suffix (당 only after two syllables and not
		 * in a known word: 혈당, 식당) */
		if (known(t->text) && ends_with(t->text, "별") && ends_with(t->raw, "로") &&
		    strlen(t->raw) == strlen(t->text) + strlen("로")) {
			t->group = 1;   /* 성별로: by sex (the 별 is the word's own) */
		} else if (ends_with(t->text, "별") && strlen(t->text) > 3 && strcmp(t->text, "별") && !known(t->text)) {
			t->text[strlen(t->text) - 3] = 0;
			t->group = 1;
		} else if (ends_with(t->text, "마다") && strlen(t->text) > 6) {
			t->text[strlen(t->text) - 6] = 0;
			t->group = 1;
		} else if (ends_with(t->text, "당") && strlen(t->text) >= 9 && !known(t->text)) {
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
	number_suffixes(q, n, &i, t);
	if (t->kind == TK_NUM && t->unit == 'y' && t->num >= 1900) {
		t->kind = TK_DATE; t->y = (int)t->num; t->unit = 0;
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

/* word_end: the end of the word that starts at q[i] (letters, digits, _, 's and any non-ASCII
 * byte); *hangul is set when it holds a Hangul syllable. */
static size_t word_end(const char *q, size_t n, size_t i, int *hangul)
{
	size_t j = i;

	while (j < n) {
		unsigned char d = (unsigned char)q[j];
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
	for (char *s = t->text; *s; s++)
		*s = (char)tolower((unsigned char)*s);
	t->kind = TK_WORD;
	t->hangul = hangul;
	t->len = (int)(j - i);
	*pos = j;
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
enum err planner_tokenize(struct arena *a, const char *q, struct ptoks *out)
{
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
		if (isdigit(c) && !type_word(q + i))
			e = scan_number(a, q, n, &i, t);
		else if (isalpha(c) || c >= 0x80 || isdigit(c))   /* a digit here: a type word (2형) */
			e = scan_word(a, q, n, &i, t, (size_t)nt + 2 < cap, &ntok);
		else
			e = scan_punct(a, q, n, &i, t);
		if (e != OK)
			return e;
		nt += ntok;
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
	out->n = nt;
	return OK;
}
