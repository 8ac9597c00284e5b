/* bench_retrieval.c: latency and memory of catalog_retrieve on a synthetic 10,000-column catalog (and the demo when indexed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "catalog/catalog_int.h"
#include "store/db.h"
#include "util/conf.h"

static const char *const words[] = {
	"patient", "admission", "discharge", "ward", "bed", "order", "drug", "dose", "route", "lab",
	"result", "value", "unit", "blood", "pressure", "heart", "rate", "oxygen", "saturation", "glucose",
	"potassium", "sodium", "lactate", "creatinine", "albumin", "platelet", "hemoglobin", "white", "cell",
	"temperature", "weight", "height", "age", "sex", "department", "surgery", "operation", "anesthesia",
	"diagnosis", "procedure", "code", "icd", "charge", "cost", "insurance", "provider", "physician",
	"nurse", "note", "event", "alarm", "device", "monitor", "ventilator", "infusion", "fluid", "balance",
	"urine", "output", "input", "score", "risk", "outcome", "death", "transfer", "icu", "stay", "visit",
	"clinic", "appointment", "billing", "invoice", "payment", "address", "city", "region", "country",
	"phone", "email", "status", "type", "category", "group", "flag", "comment", "source", "version",
	"culture", "organism", "antibiotic", "sensitivity", "microbiology", "specimen", "imaging", "report",
	"radiology", "echo", "ecg", "rhythm", "allergy", "vaccine", "family", "history", "smoking", "alcohol",
};
#define NW ((int)(sizeof words / sizeof *words))
static const char *const types[] = {"integer", "bigint", "text", "timestamp without time zone",
	"double precision", "numeric", "date", "boolean"};
static const char *const questions[] = {
	"average potassium per patient",
	"환자별 평균 심박수",
	"hypotension patients' potassium",
	"number of admissions by department last month",
	"top 10 physicians by billing cost",
	"trend of glucose over time in icu stay",
	"patients with lactate above 4 and vasopressor infusion",
	"compare creatinine between surgery types",
	"list allergy history of patient 42",
	"서울 지역 환자 수",
	"ventilator alarm events per device",
	"urine output and fluid balance during operation",
};
#define NQ ((int)(sizeof questions / sizeof *questions))

static unsigned long long rng = 88172645463325252ULL;
static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = 0, res = 0;

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &res) != 2)
			res = 0;
		fclose(f);
	}
	return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static struct catalog *synthetic(int ntables, int ncols, int dim)
{
	struct catalog *c = cat_new("bench", "builtin", dim);
	char err[256], name[128], cname[128], comment[256];

	for (int t = 0; t < ntables; t++) {
		int ti;

		snprintf(name, sizeof name, "%s_%s_%d", words[rnd(NW)], words[rnd(NW)], t);
		snprintf(comment, sizeof comment, "%s %s %s records", words[rnd(NW)], words[rnd(NW)], words[rnd(NW)]);
		ti = cat_add_table(c, t % 5 ? "public" : "audit", name, comment, NULL, 1000 + rnd(1000000));
		for (int k = 0; k < ncols; k++) {
			int ci;

			if (k == 0)
				snprintf(cname, sizeof cname, "id");
			else if (k == 1 && t > 0)
				snprintf(cname, sizeof cname, "%s_id", words[rnd(NW)]);
			else
				snprintf(cname, sizeof cname, "%s_%s", words[rnd(NW)], words[rnd(NW)]);
			snprintf(comment, sizeof comment, "%s of the %s %s", words[rnd(NW)], words[rnd(NW)], words[rnd(NW)]);
			ci = cat_add_column(c, ti, cname, k == 0 ? "integer" : types[rnd(8)], comment, NULL, NULL);
			if (k == 0)
				c->columns[ci].is_pk = 1;
			/* every fourth text column has a value index */
			if (c->columns[ci].textual && rnd(4) == 0)
				for (int v = 0; v < 12; v++) {
					snprintf(name, sizeof name, "%s %s", words[rnd(NW)], v % 3 ? words[rnd(NW)] : "");
					cat_add_value(c, ci, name);
				}
			if (rnd(10) == 0) {
				snprintf(name, sizeof name, "%s %s", words[rnd(NW)], words[rnd(NW)]);
				cat_add_term(c, name, TK_COLUMN, ci, 2.0f);
			}
		}
		/* 1-2 foreign keys to earlier tables */
		for (int e = 0; t > 0 && e < 1 + (int)rnd(2); e++) {
			int to = (int)rnd((unsigned)t);

			cat_add_edge(c, c->tables[ti].first_col + 1, c->tables[to].first_col, 0, 0);
		}
	}
	for (int k = 0; k < 30; k++) {
		int q = cat_add_concept(c, words[k], NULL, "a synthetic definition", "x > 1");

		c->concepts[q].cols = arena_alloc(&c->mem, sizeof(int));
		c->concepts[q].cols[0] = (int)rnd((unsigned)c->ncolumns);
		c->concepts[q].ncols = 1;
	}
	if (cat_finish(c, err, sizeof err) != OK) {
		fprintf(stderr, "bench: %s\n", err);
		exit(1);
	}
	return c;
}

static int cmpi(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void run(const char *label, struct catalog *c, const char *const *qs, int nq, int iters,
                long mem_kb, double build_ms)
{
	double *lat = malloc((size_t)iters * sizeof *lat);
	struct retrieval r;
	struct retrieval_opts o = {0};
	long tables = 0, cols = 0;

	for (int i = 0; i < 50; i++) {   /* warm-up */
		catalog_retrieve(c, qs[i % nq], &o, &r);
		retrieval_free(&r);
	}
	for (int i = 0; i < iters; i++) {
		double t0 = now_us();

		if (catalog_retrieve(c, qs[i % nq], &o, &r) != OK) {
			fprintf(stderr, "bench: retrieval failed\n");
			exit(1);
		}
		lat[i] = now_us() - t0;
		tables += r.ntables;
		cols += r.ncolumns;
		retrieval_free(&r);
	}
	qsort(lat, (size_t)iters, sizeof *lat, cmpd);
	printf("| %-22s | %6d | %7d | %6d | %8.3f | %8.3f | %8.3f | %8.3f | %8.3f | %9.1f | %8.0f |\n", label, c->ntables,
	       c->ncolumns, c->nvalues, lat[0] / 1000, lat[iters / 2] / 1000, lat[iters * 90 / 100] / 1000,
	       lat[iters * 99 / 100] / 1000, lat[iters - 1] / 1000, (double)c->bytes / 1048576.0,
	       build_ms);
	(void)tables;
	(void)cols;
	(void)mem_kb;
	free(lat);
}

/* the prompt block's tokens over the questions, with the options the inspector uses */
static void tokens(const char *label, struct catalog *c, const char *const *qs, int nq)
{
	struct retrieval_opts o = {.k = 10, .token_budget = 1500, .whole_schema_tokens = 5000};
	struct retrieval r;
	int t[64], n = 0;
	double sum = 0;

	for (int i = 0; i < nq && n < 64; i++) {
		if (catalog_retrieve(c, qs[i], &o, &r) != OK)
			continue;
		t[n++] = r.prompt_tokens;
		sum += r.prompt_tokens;
		retrieval_free(&r);
	}
	qsort(t, (size_t)n, sizeof *t, cmpi);
	printf("prompt block tokens, %s (%d questions, k=10, budget 1500, whole schema up to 5000): "
	       "mean %.0f, p95 %d, max %d\n", label, n, n ? sum / n : 0, n ? t[(int)(0.95 * (n - 1))] : 0,
	       n ? t[n - 1] : 0);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--tokens-only")) {
		struct catalog *s = synthetic(500, 20, 256);

		tokens("synthetic 500 tables x 20 = 10,000 columns", s, questions, NQ);
		cat_free(s);
		return 0;
	}
	int iters = argc > 1 ? atoi(argv[1]) : 2000;
	long rss0 = rss_kb(), rss1;
	double t0 = now_us(), build;
	struct catalog *c;
	const char *errmsg;

	c = synthetic(500, 20, 256);
	build = (now_us() - t0) / 1000;
	rss1 = rss_kb();
	double load[1] = {0};
	getloadavg(load, 1);
	printf("retrieval: one core, %d calls per row (12 questions), builtin embedding dim 256, k=10, "
	       "budget 1500 tokens, load average %.2f\n\n", iters, load[0]);
	printf("| %-22s | %6s | %7s | %6s | %8s | %8s | %8s | %8s | %8s | %9s | %8s |\n", "catalog", "tables", "columns",
	       "values", "min ms", "p50 ms", "p90 ms", "p99 ms", "max ms", "cat MiB", "build ms");
	printf("|%s|\n", "------------------------|--------|---------|--------|----------|----------|----------|----------|----------|-----------|----------");
	run("synthetic 500x20", c, questions, NQ, iters, rss1 - rss0, build);
	tokens("synthetic 500x20", c, questions, NQ);
	long synth_rss = rss1 - rss0;
	double synth_mib = (double)c->bytes / 1048576.0;
	cat_free(c);
	/* the real demo catalog through the per-worker cache, when it is indexed */
	if (conf_load(NULL, &errmsg) == OK && getenv("ASKQL_CONF")) {
		PGconn *app = db_app();
		char err[512];
		double l0 = now_us();
		struct catalog *d = app ? catalog_get(app, conf_get("target_name"), err, sizeof err) : NULL;
		double load = (now_us() - l0) / 1000;

		if (d)
			run("demo (catalog_get)", d, questions, NQ, iters, 0, load);
		else
			printf("(demo catalog not available: %s)\n", app ? err : "no app database");
		db_app_close();
	}
	printf("\nmemory per worker for the synthetic catalog: %.1f MiB counted by the catalog, RSS growth %.1f MiB\n",
	       synth_mib, (double)synth_rss / 1024.0);
	return 0;
}
