/* test_phi.c: PHI classification rules (conf/phi/rules.tsv, catalog/phi.c): value tests, each rule, negative cases, bad rules files, the catalog call. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "catalog/catalog_int.h"
#include "catalog/phi.h"

static struct phi_rules *R;

static int setup(void **state)
{
	char err[512];

	(void)state;
	if (phi_rules_load("conf/phi/rules.tsv", &R, err, sizeof err) != OK) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	phi_rules_free(R);
	return 0;
}

/* classify one column of a table whose columns are cols (NULL-terminated) */
static enum phi_class classify(const char *table, const char *const *cols, const char *name, const char *type,
                               const char *comment, const char *const *vals, int nvals,
                               const char *const *dist, int ndist, struct phi_verdict *v)
{
	struct phi_table_in t = {table, NULL, cols, NULL, 0};
	struct phi_column_in c = {name, type, comment, NULL, NULL, vals, nvals, dist, ndist};
	struct phi_context ctx;

	while (cols[t.ncols])
		t.ncols++;
	phi_table_context(R, &t, &ctx);
	assert_int_equal(phi_classify(R, &ctx, &c, v), OK);
	return v->cls;
}

static void test_rrn_check_digit(void **state)
{
	(void)state;
	/* valid check digits: 1900s male, 1900s female, 2000s male, 2000s female */
	assert_int_equal(phi_rrn("800101-1234560"), 2);
	assert_int_equal(phi_rrn("950715-2345678"), 2);
	assert_int_equal(phi_rrn("020301-3123456"), 2);
	assert_int_equal(phi_rrn("0012314123459"), 2);      /* without the hyphen */
	/* a wrong check digit: plausible, but only a number issued since October 2020 looks so */
	assert_int_equal(phi_rrn("800101-1234561"), 1);
	/* not a registration number: an impossible date, a bad sex digit, wrong length, letters */
	assert_int_equal(phi_rrn("801301-1234560"), 0);     /* month 13 */
	assert_int_equal(phi_rrn("800230-1234560"), 0);     /* 30 February */
	assert_int_equal(phi_rrn("800101-123456"), 0);
	assert_int_equal(phi_rrn("800101-12345600"), 0);
	assert_int_equal(phi_rrn("80010a-1234560"), 0);
	assert_int_equal(phi_rrn(""), 0);
	assert_int_equal(phi_rrn(NULL), 0);
	/* masked: birth date and sex remain */
	assert_true(phi_rrn_masked("800101-1******"));
	assert_false(phi_rrn_masked("800101-1234560"));
	assert_false(phi_rrn_masked("801301-1******"));
	assert_int_equal(phi_rrn("800101-1******"), 0);
}

static void test_phone_email(void **state)
{
	(void)state;
	assert_true(phi_phone("010-1234-5678"));
	assert_true(phi_phone("01012345678"));
	assert_true(phi_phone("02-123-4567"));
	assert_true(phi_phone("031-123-4567"));
	assert_true(phi_phone("+82 10-1234-5678"));
	assert_true(phi_phone("1588-1234"));
	assert_false(phi_phone("15881234"));                /* a bare 8-digit number */
	assert_false(phi_phone("1234567890"));              /* no leading 0 */
	assert_false(phi_phone("7.35"));                    /* a pH value */
	assert_false(phi_phone("010-12"));
	assert_false(phi_phone("abc"));
	assert_true(phi_email("hong@example.org"));
	assert_false(phi_email("hong@localhost"));
	assert_false(phi_email("@example.org"));
	assert_false(phi_email("a b@example.org"));
	assert_false(phi_email("a@b@example.org"));
	assert_true(phi_korean_name(R, "홍길동"));
	assert_true(phi_korean_name(R, "남궁민수"));
	assert_false(phi_korean_name(R, "정형외과"));        /* a department: 정 is a surname, but 과 ends it */
	assert_false(phi_korean_name(R, "칼륨"));            /* no surname */
	assert_false(phi_korean_name(R, "김"));              /* a surname alone */
	assert_false(phi_korean_name(R, "Kim"));
}

static const char *const patient_cols[] = {"ptnt_no", "ptnt_nm", "jumin_no", "tel_no", "email", "addr", "addr_sido_nm",
                                           "zip_cd", "brth_dt", "age", "frst_vst_dt", NULL};

static void test_direct_by_name_and_comment(void **state)
{
	struct phi_verdict v;

	(void)state;
	assert_int_equal(classify("hwanja", patient_cols, "ptnt_no", "text", "환자번호(등록번호)", NULL, 0, NULL, 0, &v), PHI_DIRECT);
	assert_string_equal(v.rule, "mrn");
	assert_non_null(strstr(v.evidence, "patient number"));
	assert_int_equal(classify("hwanja", patient_cols, "ptnt_nm", "text", "환자명", NULL, 0, NULL, 0, &v), PHI_DIRECT);
	assert_string_equal(v.rule, "person_name");
	assert_int_equal(classify("hwanja", patient_cols, "jumin_no", "text", NULL, NULL, 0, NULL, 0, &v), PHI_DIRECT);
	assert_string_equal(v.rule, "rrn");
	assert_int_equal(classify("hwanja", patient_cols, "tel_no", "text", "연락처", NULL, 0, NULL, 0, &v), PHI_DIRECT);
	assert_string_equal(v.rule, "phone");
	assert_int_equal(classify("hwanja", patient_cols, "email", "text", NULL, NULL, 0, NULL, 0, &v), PHI_DIRECT);
	assert_string_equal(v.rule, "email");
	assert_int_equal(classify("hwanja", patient_cols, "addr", "text", "주소", NULL, 0, NULL, 0, &v), PHI_DIRECT);
	assert_string_equal(v.rule, "address");
	/* a Korean MRN described only in the comment */
	assert_int_equal(classify("visit", patient_cols, "pid", "integer", "환자번호", NULL, 0, NULL, 0, &v), PHI_DIRECT);
	assert_string_equal(v.rule, "mrn");
	/* the English form */
	assert_int_equal(classify("patients", patient_cols, "mrn", "text", NULL, NULL, 0, NULL, 0, &v), PHI_DIRECT);
	/* "name" in a table of persons is a person's name */
	const char *const pcols[] = {"id", "name", "birth_date", NULL};
	assert_int_equal(classify("patient", pcols, "name", "text", NULL, NULL, 0, NULL, 0, &v), PHI_DIRECT);
	assert_string_equal(v.rule, "person_name");
}

static void test_quasi(void **state)
{
	struct phi_verdict v;
	const char *const ages[] = {"45", "92", "67", "71"};

	(void)state;
	assert_int_equal(classify("hwanja", patient_cols, "brth_dt", "date", "생년월일", NULL, 0, NULL, 0, &v), PHI_QUASI);
	assert_string_equal(v.rule, "birth_date");
	assert_int_equal(classify("hwanja", patient_cols, "age", "integer", NULL, ages, 4, NULL, 0, &v), PHI_QUASI);
	assert_string_equal(v.rule, "age");
	assert_non_null(strstr(v.evidence, "1 of 4 sampled ages over 89 (largest 92)"));
	assert_int_equal(classify("hwanja", patient_cols, "zip_cd", "text", "우편번호", NULL, 0, NULL, 0, &v), PHI_QUASI);
	assert_string_equal(v.rule, "postcode");
	/* an address at province level is a region, not an address */
	assert_int_equal(classify("hwanja", patient_cols, "addr_sido_nm", "text", "주소 시도명", NULL, 0, NULL, 0, &v), PHI_QUASI);
	assert_string_equal(v.rule, "area");
	/* a date of care: any date in a table tied to patients */
	assert_int_equal(classify("hwanja", patient_cols, "frst_vst_dt", "date", "최초 내원일자", NULL, 0, NULL, 0, &v), PHI_QUASI);
	assert_string_equal(v.rule, "care_date");
	const char *const vitals[] = {"caseid", "dt", "sbp", NULL};
	assert_int_equal(classify("vital_data_table", vitals, "dt", "timestamp without time zone", "Measurement time",
	                          NULL, 0, NULL, 0, &v), PHI_QUASI);
	assert_string_equal(v.rule, "care_date");
	assert_non_null(strstr(v.evidence, "caseid"));
	/* a date in a dictionary with no key of a patient, case or visit */
	const char *const dict[] = {"drug_cd", "drug_nm", "valid_from", NULL};
	assert_int_equal(classify("cm_drug", dict, "valid_from", "date", NULL, NULL, 0, NULL, 0, &v), PHI_NONE);
	assert_non_null(strstr(v.evidence, "no key of a patient"));
	/* dates stored as text */
	const char *const dtext[] = {"20230105", "2023-02-11", "20221231", "2024-07-01 10:00"};
	assert_int_equal(classify("ipwon", patient_cols, "ipwon_ymd", "text", NULL, dtext, 4, NULL, 0, &v), PHI_QUASI);
	assert_string_equal(v.rule, "care_date");
}

static void test_values(void **state)
{
	struct phi_verdict v;
	const char *const rrns[] = {"800101-1234560", "950715-2345678", "020301-3123456", "001231-4123459", NULL};
	const char *const phones[] = {"010-1234-5678", "010-2222-3333", "02-123-4567", "031-987-6543"};
	const char *const mails[] = {"a@example.org", "b@example.org", "c@hosp.example.kr"};
	const char *const names[] = {"홍길동", "김철수", "이영희", "박민수", "최지우", "정하늘"};
	const char *const cols[] = {"c1", NULL};

	(void)state;
	/* an opaque column name: the values decide */
	assert_int_equal(classify("t", cols, "c1", "text", NULL, rrns, 5, NULL, 0, &v), PHI_DIRECT);
	assert_string_equal(v.rule, "rrn");
	assert_non_null(strstr(v.evidence, "4 of 4 sampled values"));
	assert_null(strstr(v.evidence, "800101"));   /* never a sampled identifier in the evidence */
	assert_int_equal(classify("t", cols, "c1", "text", NULL, phones, 4, NULL, 0, &v), PHI_DIRECT);
	assert_string_equal(v.rule, "phone");
	assert_int_equal(classify("t", cols, "c1", "text", NULL, mails, 3, NULL, 0, &v), PHI_DIRECT);
	assert_string_equal(v.rule, "email");
	assert_int_equal(classify("t", cols, "c1", "text", NULL, names, 6, NULL, 0, &v), PHI_DIRECT);
	assert_string_equal(v.rule, "person_name");
	const char *const masked[] = {"800101-1******", "950715-2******", "020301-3******"};
	assert_int_equal(classify("t", cols, "c1", "text", NULL, masked, 3, NULL, 0, &v), PHI_QUASI);
	assert_string_equal(v.rule, "birth_date");
}

/* negative cases: what looks like an identifier and is not */
static void test_negatives(void **state)
{
	struct phi_verdict v;
	/* 13-digit lab or accession values: most fail the date/sex/check-digit test */
	const char *const lab13[] = {"1234567890123", "9876543210987", "5555555555555", "4242424242424",
	                             "1000000000001", "7777777777777", "3141592653589", "2718281828459"};
	const char *const labcols[] = {"caseid", "dt", "name", "result", NULL};
	const char *const dxcols[] = {"subject_id", "code", "name", NULL};
	const char *const depts[] = {"내과", "외과", "정형외과", "신경과", "안과", "피부과"};

	(void)state;
	assert_int_equal(classify("lab_data_table", labcols, "result", "text", "Numeric result", lab13, 8, NULL, 0, &v),
	                 PHI_NONE);
	/* 'name' of a lab test dictionary, of a diagnosis table: things, not persons (the demo schema) */
	assert_int_equal(classify("lab_data_table", labcols, "name", "text", "Lab test code: k potassium, lac lactate",
	                          NULL, 0, NULL, 0, &v), PHI_NONE);
	assert_int_equal(classify("diagnosis_table", dxcols, "name", "text", "ICD-10 diagnosis name (English)",
	                          NULL, 0, NULL, 0, &v), PHI_NONE);
	/* even in a table of persons a 'name' that names a thing (its comment says so) */
	assert_int_equal(classify("patient", patient_cols, "dept_nm", "text", "부서명(진료과)", NULL, 0, NULL, 0, &v), PHI_NONE);
	/* department names are not Korean personal names */
	assert_int_equal(classify("cm_dept", dxcols, "dept_nm", "text", NULL, depts, 6, NULL, 0, &v), PHI_NONE);
	/* surrogate keys: internal identifiers, not numbers shown to people */
	const char *const demo[] = {"caseid", "subjectid", "age", NULL};
	assert_int_equal(classify("clinical_data_table", demo, "subjectid", "integer",
	                          "Subject (patient) ID, de-identified hospital patient number", NULL, 0, NULL, 0, &v), PHI_NONE);
	assert_non_null(strstr(v.evidence, "surrogate key"));
	assert_int_equal(classify("diagnosis_table", dxcols, "subject_id", "integer",
	                          "Subject (patient) ID, same as clinical_data_table.subjectid", NULL, 0, NULL, 0, &v), PHI_NONE);
	assert_int_equal(classify("clinical_data_table", demo, "caseid", "integer", "Case ID", NULL, 0, NULL, 0, &v), PHI_NONE);
	/* words inside other words do not count: "stage" is no age, "page" neither */
	const char *const onc[] = {"caseid", "stage", NULL};
	assert_int_equal(classify("tumor", onc, "stage", "text", "Tumour stage", NULL, 0, NULL, 0, &v), PHI_NONE);
	/* diagnosis codes with no sensitive one */
	const char *const codes[] = {"I10", "E11.9", "C16.9", "K80.2"};
	assert_int_equal(classify("diagnosis_table", dxcols, "code", "text", "ICD-10 diagnosis code", codes, 4, NULL, 0, &v),
	                 PHI_NONE);
	/* pH values and potassium results are no phone numbers */
	const char *const ph[] = {"7.35", "7.41", "7.28", "4.3"};
	assert_int_equal(classify("lab_data_table", labcols, "result", "text", NULL, ph, 4, NULL, 0, &v), PHI_NONE);
}

static void test_sensitive(void **state)
{
	struct phi_verdict v;
	const char *const dxcols[] = {"subject_id", "code", "name", NULL};
	const char *const dict[] = {"sick_cd", "sick_kor_nm", NULL};
	const char *const rows[] = {"I10", "E11.9", "C16.9"};
	/* the F-code is among the distinct stored values, not in the row sample */
	const char *const dist[] = {"I10", "E11.9", "C16.9", "F20.9", "F10.2"};
	const char *const labels[] = {"Essential hypertension", "Paranoid schizophrenia"};

	(void)state;
	assert_int_equal(classify("diagnosis_table", dxcols, "code", "text", "ICD-10 diagnosis code", rows, 3, dist, 5, &v),
	                 PHI_SENSITIVE);
	assert_string_equal(v.rule, "code");
	assert_non_null(strstr(v.evidence, "F209"));
	assert_non_null(strstr(v.evidence, "F102"));
	assert_non_null(strstr(v.evidence, "substance use"));    /* F10 is named by the more specific range */
	const char *const hiv[] = {"B20", "I10", "Z21"};
	assert_int_equal(classify("diagnosis_table", dxcols, "code", "text", NULL, hiv, 3, NULL, 0, &v), PHI_SENSITIVE);
	assert_non_null(strstr(v.evidence, "HIV"));
	/* KCD codes stored without the dot */
	const char *const kcd[] = {"F200", "J189", "I109"};
	assert_int_equal(classify("jindan", (const char *const[]){"ptnt_no", "sick_cd", NULL}, "sick_cd", "text", "상병코드",
	                          kcd, 3, NULL, 0, &v), PHI_SENSITIVE);
	/* labels */
	assert_int_equal(classify("diagnosis_table", dxcols, "name", "text", "ICD-10 diagnosis name", labels, 2, NULL, 0, &v),
	                 PHI_SENSITIVE);
	assert_string_equal(v.rule, "label");
	/* a column named for the category */
	assert_int_equal(classify("labs", dxcols, "hiv_test_result", "text", NULL, NULL, 0, NULL, 0, &v), PHI_SENSITIVE);
	assert_string_equal(v.rule, "sensitive_column");
	/* a code dictionary holds every code but marks no patient */
	assert_int_equal(classify("cm_kcd", dict, "sick_cd", "text", "상병코드", rows, 3, dist, 5, &v), PHI_NONE);
	assert_non_null(strstr(v.evidence, "code dictionary"));
	/* a lab code 'F' list is not ICD: "FE" iron, "FT4" */
	const char *const lab[] = {"fe", "ft4", "k", "na"};
	assert_int_equal(classify("lab_data_table", dxcols, "name", "text", "Lab test code", lab, 4, NULL, 0, &v), PHI_NONE);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_bad_rules(void **state)
{
	char path[] = "/tmp/test_phi_XXXXXX", err[512], *good, *bad;
	struct phi_rules *r = (struct phi_rules *)1;
	int fd = mkstemp(path);
	FILE *f = fopen("conf/phi/rules.tsv", "r");
	long n;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	good = calloc((size_t)n + 1, 1);
	bad = calloc((size_t)n + 200, 1);
	assert_int_equal(fread(good, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	/* a missing file */
	assert_int_equal(phi_rules_load("/nonexistent/rules.tsv", &r, err, sizeof err), ERR_IO);
	assert_null(r);
	assert_non_null(strstr(err, "/nonexistent/rules.tsv"));
	/* an unknown rule names the file and line */
	snprintf(bad, (size_t)n + 200, "%srrx\tdirect\tname\tfoo\n", good);
	write_file(path, bad);
	assert_int_equal(phi_rules_load(path, &r, err, sizeof err), ERR_PARSE);
	assert_non_null(strstr(err, "unknown rule 'rrx'"));
	assert_non_null(strstr(err, path));
	/* three fields */
	snprintf(bad, (size_t)n + 200, "%sphone\tdirect\tname\n", good);
	write_file(path, bad);
	assert_int_equal(phi_rules_load(path, &r, err, sizeof err), ERR_PARSE);
	assert_non_null(strstr(err, "3 fields"));
	/* a class a rule does not allow; a class that disagrees with an earlier line */
	snprintf(bad, (size_t)n + 200, "%sperson_key\tdirect\tname\tfoo\n", good);
	write_file(path, bad);
	assert_int_equal(phi_rules_load(path, &r, err, sizeof err), ERR_PARSE);
	assert_non_null(strstr(err, "takes class -"));
	snprintf(bad, (size_t)n + 200, "%sphone\tquasi\tname\tfoo\n", good);
	write_file(path, bad);
	assert_int_equal(phi_rules_load(path, &r, err, sizeof err), ERR_PARSE);
	assert_non_null(strstr(err, "had class direct"));
	/* a bad code range; a field a rule cannot use */
	snprintf(bad, (size_t)n + 200, "%scode\tsensitive\tlabel\tF19-F10\n", good);
	write_file(path, bad);
	assert_int_equal(phi_rules_load(path, &r, err, sizeof err), ERR_PARSE);
	assert_non_null(strstr(err, "range"));
	snprintf(bad, (size_t)n + 200, "%sphone\tdirect\tvalue\tfoo\n", good);
	write_file(path, bad);
	assert_int_equal(phi_rules_load(path, &r, err, sizeof err), ERR_PARSE);
	assert_non_null(strstr(err, "cannot use field 'value'"));
	/* invalid UTF-8 */
	snprintf(bad, (size_t)n + 200, "%sphone\tdirect\tname\t\xff\xfe\n", good);
	write_file(path, bad);
	assert_int_equal(phi_rules_load(path, &r, err, sizeof err), ERR_PARSE);
	assert_non_null(strstr(err, "UTF-8"));
	/* a term over 100 bytes */
	snprintf(bad, (size_t)n + 200, "%sphone\tdirect\tname\t%0101d\n", good, 0);
	write_file(path, bad);
	assert_int_equal(phi_rules_load(path, &r, err, sizeof err), ERR_PARSE);
	assert_non_null(strstr(err, "over 100 bytes"));
	/* a rule missing altogether */
	write_file(path, "rrn\tdirect\tname\trrn\n");
	assert_int_equal(phi_rules_load(path, &r, err, sizeof err), ERR_PARSE);
	assert_non_null(strstr(err, "is missing"));
	/* the good file again, and its hash is stable */
	write_file(path, good);
	assert_int_equal(phi_rules_load(path, &r, err, sizeof err), OK);
	assert_true(phi_rules_hash(r) == phi_rules_hash(R));
	phi_rules_free(r);
	unlink(path);
	free(good);
	free(bad);
}

static void test_input_limits(void **state)
{
	struct phi_verdict v;
	struct phi_context ctx = {0};
	char *big = malloc(PHI_TEXT_MAX + 2);
	struct phi_column_in c = {"x", "text", big, NULL, NULL, NULL, 0, NULL, 0};

	(void)state;
	memset(big, 'a', PHI_TEXT_MAX + 1);
	big[PHI_TEXT_MAX + 1] = '\0';
	assert_int_equal(phi_classify(R, &ctx, &c, &v), ERR_INPUT);
	assert_int_equal(v.cls, PHI_UNCLASSIFIED);
	assert_non_null(strstr(v.evidence, "over 4096 bytes"));
	assert_int_equal(phi_classify(NULL, &ctx, &c, &v), ERR_INPUT);
	free(big);
	/* values over PHI_VALUE_MAX are skipped, not cut */
	char *longv = malloc(PHI_VALUE_MAX + 20);
	memset(longv, '1', PHI_VALUE_MAX + 19);
	longv[PHI_VALUE_MAX + 19] = '\0';
	const char *vals[] = {longv, longv, longv};
	struct phi_column_in c2 = {"x", "text", NULL, NULL, NULL, vals, 3, NULL, 0};
	assert_int_equal(phi_classify(R, &ctx, &c2, &v), OK);
	assert_int_equal(v.cls, PHI_NONE);
	free(longv);
	/* class names round-trip; unclassified is not a class one can set */
	enum phi_class k;
	assert_int_equal(phi_class_parse("quasi", &k), 0);
	assert_int_equal(k, PHI_QUASI);
	assert_int_equal(phi_class_parse("unclassified", &k), -1);
	assert_int_equal(phi_class_parse("Direct", &k), -1);
	assert_string_equal(phi_class_name(PHI_SENSITIVE), "sensitive");
}

/* the one call later code uses: effective class, correction winning */
static void test_column_class(void **state)
{
	struct catalog *c = cat_new("t", "builtin", 16);
	struct phi_info in;
	int t, a, b;

	(void)state;
	t = cat_add_table(c, "public", "patient", NULL, NULL, 10);
	a = cat_add_column(c, t, "ptnt_no", "text", NULL, NULL, NULL);
	b = cat_add_column(c, t, "subject_id", "integer", NULL, NULL, NULL);
	c->columns[a].phi_auto = PHI_DIRECT;
	c->columns[a].phi_rule = "mrn";
	c->columns[b].phi_auto = PHI_NONE;
	c->columns[b].phi_fixed = PHI_DIRECT;
	c->columns[b].phi_reason = "printed on wristbands here";
	assert_int_equal(phi_column_class(c, "patient.ptnt_no", &in), OK);
	assert_int_equal(in.cls, PHI_DIRECT);
	assert_false(in.corrected);
	assert_string_equal(in.rule, "mrn");
	assert_int_equal(phi_column_class(c, "public.patient.subject_id", &in), OK);
	assert_int_equal(in.cls, PHI_DIRECT);
	assert_int_equal(in.classified, PHI_NONE);
	assert_true(in.corrected);
	assert_string_equal(in.reason, "printed on wristbands here");
	assert_int_equal(phi_column_class(c, "patient.nope", &in), ERR_NOTFOUND);
	assert_int_equal(in.cls, PHI_UNCLASSIFIED);
	assert_int_equal(phi_column_class(c, NULL, &in), ERR_INPUT);
	cat_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rrn_check_digit),
		cmocka_unit_test(test_phone_email),
		cmocka_unit_test(test_direct_by_name_and_comment),
		cmocka_unit_test(test_quasi),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_negatives),
		cmocka_unit_test(test_sensitive),
		cmocka_unit_test(test_bad_rules),
		cmocka_unit_test(test_input_limits),
		cmocka_unit_test(test_column_class),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
