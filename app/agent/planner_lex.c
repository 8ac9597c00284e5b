/* planner_lex.c: the planner's built-in words: function words and their roles, generic words,
 * synonyms (built-in and the clinical lexicon's, conf/lexicon), and clinical concepts. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "agent/planner_int.h"
#include "util/conf.h"
#include "util/file.h"
#include "catalog/lexicon.h"
#include "util/log.h"

struct lex { const char *w; enum role r; int unit; };

/* The function words: structure, not schema.  Matched on the stem or the surface. */
static const struct lex lexicon[] = {
	{"count", R_COUNT, 0}, {"number", R_COUNT, 0}, {"many", R_MANY, 0}, {"how", R_HOW, 0},
	{"몇", R_COUNT, 0}, {"몇명", R_COUNT, 0}, {"몇건", R_COUNT, 0}, {"몇개", R_COUNT, 0}, {"몇번", R_COUNT, 0}, {"건수", R_COUNT, 0}, {"개수", R_COUNT, 0}, {"횟수", R_COUNT, 0}, {"수", R_COUNT, 0},
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
	{"per", R_PER, 0}, {"each", R_PER, 0}, {"by", R_PER, 0}, {"별", R_PER, 0}, {"마다", R_PER, 0}, {"각", R_PER, 0},
	{"별로", R_PER, 0}, {"당", R_PER, 0}, {"기준", R_PER, 0}, {"따라", R_PER, 0}, {"따른", R_PER, 0},
	{"grouped", R_PER, 0}, {"broken", R_STOP, 0}, {"across", R_PER, 0},
	{"over", R_GT, 0}, {"above", R_GT, 0}, {"greater", R_GT, 0}, {"more", R_GT, 0}, {"higher", R_GT, 0},
	{"exceed", R_GT, 0}, {"exceeding", R_GT, 0}, {"older", R_GT, 0}, {"초과", R_GT, 0}, {"넘는", R_GT, 0},
	{"넘은", R_GT, 0}, {"높은", R_GT, 0}, {"높았던", R_GT, 0}, {"높게", R_GT, 0}, {"이상", R_GE, 0}, {"least", R_GE, 0},
	{"under", R_LT, 0}, {"below", R_LT, 0}, {"less", R_LT, 0}, {"lower", R_LT, 0}, {"younger", R_LT, 0},
	{"fewer", R_LT, 0}, {"미만", R_LT, 0}, {"낮은", R_LT, 0}, {"낮았던", R_LT, 0}, {"낮게", R_LT, 0}, {"이하", R_LE, 0}, {"than", R_STOP, 0},
	{"between", R_BETWEEN, 0}, {"사이", R_BETWEEN, 0}, {"and", R_AND, 0}, {"에서", R_STOP, 0},
	{"since", R_SINCE, 0}, {"from", R_SINCE, 0}, {"after", R_SINCE, 0}, {"starting", R_SINCE, 0},
	{"beginning", R_SINCE, 0}, {"이후", R_SINCE, 0},
	{"부터", R_SINCE, 0}, {"until", R_UNTIL, 0}, {"through", R_UNTIL, 0}, {"thru", R_UNTIL, 0}, {"before", R_UNTIL, 0}, {"이전", R_UNTIL, 0},
	{"까지", R_UNTIL, 0},
	{"in", R_IN, 0}, {"during", R_IN, 0}, {"within", R_IN, 0}, {"on", R_ON, 0}, {"at", R_ON, 0},
	{"ago", R_AGO, 0}, {"전", R_AGO, 0},
	{"this", R_THIS, 0}, {"current", R_CURRENT, 0}, {"currently", R_CURRENT, 0}, {"ongoing", R_CURRENT, 0},
	{"현재", R_CURRENT, 0},
	{"이번", R_THIS, 0},
	{"past", R_PAST, 0}, {"previous", R_PAST, 0}, {"지난", R_PAST, 0}, {"최근", R_PAST, 0},
	{"next", R_NEXT, 0},
	{"hour", R_UNIT, 'h'}, {"hr", R_UNIT, 'h'}, {"시간", R_UNIT, 'h'}, {"day", R_UNIT, 'd'}, {"일", R_UNIT, 'd'},
	{"일간", R_UNIT, 'd'}, {"week", R_UNIT, 'w'}, {"주", R_UNIT, 'w'}, {"주간", R_UNIT, 'w'},
	{"month", R_UNIT, 'm'}, {"개월", R_UNIT, 'm'}, {"달", R_UNIT, 'm'}, {"year", R_UNIT, 'y'}, {"yr", R_UNIT, 'y'},
	{"yrs", R_UNIT, 'y'},
	{"년", R_UNIT, 'y'}, {"년간", R_UNIT, 'y'},
	{"올해", R_YEARWORD, 'y'}, {"금년", R_YEARWORD, 'y'}, {"작년", R_YEARWORD, -'y'},
	{"이번달", R_YEARWORD, 'm'}, {"지난달", R_YEARWORD, -'m'},
	{"today", R_TODAY, 0}, {"오늘", R_TODAY, 0}, {"yesterday", R_YESTERDAY, 0}, {"어제", R_YESTERDAY, 0},
	{"when", R_WHEN, 0}, {"언제", R_WHEN, 0}, {"time", R_TIMES, 0}, {"date", R_TIMES, 0},
	{"시각", R_WHEN, 0}, {"날짜", R_WHEN, 0}, {"일시", R_WHEN, 0},
	{"list", R_LIST, 0}, {"tell", R_LIST, 0}, {"show", R_LIST, 0}, {"display", R_LIST, 0}, {"목록", R_LIST, 0},
	{"리스트", R_LIST, 0}, {"명단", R_LIST, 0}, {"보여", R_LIST, 0}, {"보여줘", R_LIST, 0}, {"알려줘", R_LIST, 0},
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
	{"besides", R_NEG, 0}, {"exclude", R_NEG, 0}, {"excluded", R_NEG, 0}, {"빼고", R_NEG, 0}, {"말고", R_NEG, 0},
	{"제외하고", R_NEG, 0}, {"제외한", R_NEG, 0},
	{"which", R_WHICH, 0}, {"what", R_WHICH, 0}, {"name", R_WHICH, 0}, {"무엇", R_WHICH, 0},
	{"어떤", R_WHICH, 0}, {"어느", R_WHICH, 0}, {"무슨", R_WHICH, 0},
	{"value", R_VALUE, 0}, {"level", R_VALUE, 0}, {"result", R_VALUE, 0}, {"reading", R_VALUE, 0},
	{"measurement", R_VALUE, 0}, {"값", R_VALUE, 0}, {"수치", R_VALUE, 0}, {"결과", R_VALUE, 0},
	{"측정값", R_VALUE, 0}, {"amount", R_VALUE, 0}, {"volume", R_VALUE, 0}, {"dose", R_VALUE, 0},
	{"times", R_TIMES, 0}, {"번", R_TIMES, 0},
	/* shapes the planner does not build: it declines instead of guessing */
	{"percentile", R_UNSUP, 0}, {"difference", R_UNSUP, 0}, {"differ", R_UNSUP, 0}, {"change", R_UNSUP, 0},
	{"ratio", R_UNSUP, 0}, {"percentage", R_UNSUP, 0}, {"percent", R_UNSUP, 0}, {"proportion", R_UNSUP, 0}, {"share", R_UNSUP, 0},
	{"rate", R_NONE, 0}, {"second", R_UNSUP, 0}, {"third", R_UNSUP, 0}, {"same", R_UNSUP, 0},
	{"compar", R_UNSUP, 0}, {"compare", R_UNSUP, 0}, {"versus", R_UNSUP, 0}, {"vs", R_UNSUP, 0},
	{"long", R_UNSUP, 0}, {"length", R_UNSUP, 0}, {"duration", R_UNSUP, 0}, {"passed", R_UNSUP, 0},
	{"elapsed", R_UNSUP, 0}, {"daily", R_BUCKET, 'd'}, {"monthly", R_BUCKET, 'm'}, {"yearly", R_BUCKET, 'y'},
	{"일별", R_BUCKET, 'd'}, {"월별", R_BUCKET, 'm'}, {"연도별", R_BUCKET, 'y'}, {"년도별", R_BUCKET, 'y'},
	{"날짜별", R_BUCKET, 'd'}, {"일자별", R_BUCKET, 'd'}, {"연별", R_BUCKET, 'y'},
	{"weekly", R_BUCKET, 'w'}, {"hourly", R_BUCKET, 'h'}, {"quarterly", R_BUCKET, 'q'}, {"분기별", R_BUCKET, 'q'},
	{"분기", R_BUCKET, 'q'}, {"월", R_UNIT, 'm'}, {"연도", R_UNIT, 'y'},
	{"년도", R_UNIT, 'y'}, {"주별", R_BUCKET, 'w'}, {"시간별", R_BUCKET, 'h'}, {"correlation", R_UNSUP, 0}, {"median", R_UNSUP, 0},
	{"차이", R_UNSUP, 0}, {"비율", R_UNSUP, 0}, {"퍼센트", R_UNSUP, 0}, {"비교", R_UNSUP, 0}, {"백분위", R_UNSUP, 0},
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
	"specific", "specify", "specifi", "list", "data", "information", "info", "detail", "details", "result", "value", "level", "s",
	"whether", "if", "during", "while", "been", "happen", "occur", "made", "make", "mak", "find", "see",
	"look", "need", "like", "kind", "type", "categori", "category", "prescrib", "administer", "administ",
	"order", "ordered", "test", "event", "item", "record", "entri", "entry", "all",
	"patient", "visit", "encount", "stay", "number", "count", "come", "came", "found", "detect", "involv",
	"includ", "conduct", "gather", "figure", "figur", "about", "throughout", "instance", "gone", "go", "went",
	"used", "us", "term", "delivered", "deliver", "hospitaliz", "hospitalized", "went", "able", "sure", "now",
	"보여줘", "알려줘", "알려주세요", "보여주세요", "구해줘", "구하", "해줘", "주세요", "뭐야", "무엇인가요",
	"있는", "있었던", "받은", "받았", "받았나요", "받은", "투여된", "투여받은", "된", "한", "하는", "했던",
	"중", "동안", "모든", "전체", "해당", "대한", "관련", "기록", "기록된", "측정된", "측정", "어떻게",
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

/* function words of conf function_words_file (conf/lexicon/function_words.txt), loaded once */
static char **fwords;
static int nfwords;
static pthread_once_t fwords_once = PTHREAD_ONCE_INIT;

static void load_fwords(void)
{
	char *buf = file_read(conf_get("function_words_file"), 65536, NULL), *save = NULL;
	for (char *l = buf ? strtok_r(buf, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
		char **nw;
		l[strcspn(l, "\r\t ")] = 0;
		if (*l == '#' || !*l || !(nw = realloc(fwords, (size_t)(nfwords + 1) * sizeof *nw)))
			continue;
		fwords = nw;
		fwords[nfwords++] = l;   /* buf stays for the process */
	}
}

/* phrases of conf phrases_file (conf/lexicon/phrases.tsv), by role, loaded once */
#define PHRASE_ROLES 32
static struct { char role[24]; const char **w; int n; } phrases[PHRASE_ROLES];
static const char *const no_phrases[] = {NULL};
static pthread_once_t phrases_once = PTHREAD_ONCE_INIT;

static void load_phrases(void)
{
	char *buf = file_read(conf_get("phrases_file"), 65536, NULL), *save = NULL;
	for (char *l = buf ? strtok_r(buf, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(l, '\t'), *w;
		int r;
		const char **nw;
		if (*l == '#' || !tab || tab - l >= (long)sizeof phrases[0].role)
			continue;
		*tab = 0;
		w = tab + 1;
		w[strcspn(w, "\r\t")] = 0;
		for (r = 0; r < PHRASE_ROLES && phrases[r].role[0] && strcmp(phrases[r].role, l); r++)
			;
		if (r == PHRASE_ROLES) {
			log_msg(LOG_WARN, "phrases_file: more than %d roles; '%s' is not read", PHRASE_ROLES, l);
			continue;
		}
		if (!*w)
			continue;
		if (!phrases[r].role[0])
			strcpy(phrases[r].role, l);
		/* one slot more than the words, for the NULL that ends the list */
		if (!(nw = realloc(phrases[r].w, (size_t)(phrases[r].n + 2) * sizeof *nw)))
			continue;
		phrases[r].w = nw;
		nw[phrases[r].n++] = w;   /* buf stays for the process */
		nw[phrases[r].n] = NULL;
	}
}

const char *const *planner_lex_phrases(const char *role)
{
	pthread_once(&phrases_once, load_phrases);
	for (int r = 0; r < PHRASE_ROLES && phrases[r].role[0]; r++)
		if (!strcmp(phrases[r].role, role))
			return (const char *const *)phrases[r].w;
	return no_phrases;
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
	pthread_once(&fwords_once, load_fwords);
	for (int i = 0; i < nfwords; i++)
		if (!strcmp(fwords[i], text) || !strcmp(fwords[i], stem))
			return R_STOP;
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
	{"case", "surgery", "operation", NULL}, {"op", "operation", "surgery", "case", NULL},
	{"operative", "operation", "surgery", NULL},
	
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


/* planner_lex_own_syn: the short list's synonyms of term, or NULL (the tokenizer's "known word" test uses
 * only this list: a lexicon term such as 환자수 must still split into 환자 + 수) */
const char *const *planner_lex_own_syn(const char *term)
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

/* short_code_ok: a code of two letters that names its entry: a department's (GS, OS, TS), how
 * wards and clinics name it, unless it spells an English word */
static int short_code_ok(const struct lex_entry *x, const char *t)
{
	return !strcmp(x->category, "department") && strlen(t) == 2 && strcasecmp(t, "an") && strcasecmp(t, "id") &&
	       strcasecmp(t, "pm");
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
	for (int k = 0; k < x->ncodes; k++)   /* a code another kind shares names neither (lexicon.h) */
		if (!x->shared[k] && (strlen(x->codes[k]) > 2 || short_code_ok(x, x->codes[k])) && !strcmp(x->codes[k], t))
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
			if (w >= x->nen + x->nko && x->shared[w - x->nen - x->nko])
				continue;   /* a code another kind shares (lexicon.h) */
			if (w >= x->nen + x->nko && strlen(t) <= 2 && !short_code_ok(x, t))
				continue;   /* a short code ("k", "na") is weak evidence of the entry */
			if (compound_of(x, t) && !planner_ends_with(t, "자"))
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
		const char *const *own = planner_lex_own_syn(synrows[r].term);
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
				for (int k = 0; k < x->ncodes; k++)
					if (!x->shared[k])
						add_terms(&v, &synrows[r].n, &vcap, &x->codes[k], 1, synrows[r].term);
			}
			add_terms(&v, &synrows[r].n, &vcap, x->ko, x->nko, synrows[r].term);
		}
		synrows[r].syn = v;
	}
}

const char *planner_lex_code_of(const char *word, const char *code)
{
	const struct lexicon *lx = lexicon_get(NULL);
	pthread_once(&syn_once, build_syns);
	for (int e = 0; word && code && e < lx->n; e++) {
		const struct lex_entry *x = &lx->e[e];
		int is_code = 0, is_term = 0;
		for (int k = 0; k < x->ncodes; k++)
			is_code |= !strcmp(x->codes[k], code);
		for (int k = 0; k < x->nen; k++)
			is_term |= !strcmp(x->en[k], code);
		for (int k = 0; k < x->nko; k++)
			is_term |= !strcmp(x->ko[k], code);
		if (is_code && !is_term && strcmp(word, code) && entry_has(x, word))
			return x->category;
	}
	return NULL;
}

int planner_lex_value_kinds(const char *value, const char *category)
{
	const struct lexicon *lx = lexicon_get(NULL);
	int found = 0;
	for (int e = 0; value && e < lx->n; e++) {
		const struct lex_entry *x = &lx->e[e];
		int has = 0;
		for (int k = 0; k < x->ncodes && !has; k++)
			has = !strcasecmp(x->codes[k], value);
		for (int k = 0; k < x->nen && !has; k++)
			has = !strcasecmp(x->en[k], value);
		if (has && !strcmp(x->category, category))
			return 2;
		found |= has;
	}
	return found;
}

/* generic_entry: a class of things ("lab test", "vital signs", "medication"; conf/lexicon/phrases.tsv,
 * role class_word): it names a table, not one thing */
static int generic_entry(const struct lex_entry *x)
{
	const char *const *cls = planner_lex_phrases("class_word");
	for (int k = 0; k < x->nen; k++)
		if (planner_in_list(cls, x->en[k]))
			return 1;
	for (int k = 0; k < x->nko; k++)
		if (planner_in_list(cls, x->ko[k]))
			return 1;
	return 0;
}

int planner_lex_named_thing(const char *phrase)
{
	static const char *const things[] = {"drug", "lab", "vital", "diagnosis", "procedure", "ward", "department", NULL};
	const struct lexicon *lx = lexicon_get(NULL);
	for (int e = 0; phrase && e < lx->n; e++) {
		const struct lex_entry *x = &lx->e[e];
		if (!planner_in_list(things, x->category) || generic_entry(x))
			continue;
		for (int k = 0; k < x->nen; k++)
			if (!strcmp(x->en[k], phrase))
				return 1;
		for (int k = 0; k < x->nko; k++)
			if (!strcmp(x->ko[k], phrase))
				return 1;
	}
	return 0;
}

int planner_lex_measured(const char *term)
{
	static const char *const measured[] = {"drug", "lab", "vital", NULL};
	const struct lexicon *lx = lexicon_get(NULL);
	pthread_once(&syn_once, build_syns);
	for (int e = 0; term && e < lx->n; e++) {
		const struct lex_entry *x = &lx->e[e];
		if (planner_in_list(measured, x->category) && entry_has(x, term) && !generic_entry(x))
			return 1;
	}
	return 0;
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
	own = planner_lex_own_syn(term);
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

