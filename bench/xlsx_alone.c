/* xlsx_alone.c: the benchmark's floor: libxlsxwriter (constant memory) writing the export's values with no database. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <xlsxwriter.h>

/*
 * Same shape as bench/export.sh's query: g, g*1.5, a 32-hex-digit text, and
 * timestamp '2024-01-01' + g seconds, with a bold frozen header and a date format.
 * The text is pseudo-random hex (splitmix64), like md5's: same length and entropy,
 * so the XML and the zip cost the same without pulling in a hash library.
 */
static uint64_t mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 1000000;
	lxw_workbook_options o = {.constant_memory = LXW_TRUE, .use_zip64 = LXW_TRUE};
	lxw_workbook *wb;
	lxw_worksheet *ws;
	lxw_format *bold, *fts;
	static const char hex[] = "0123456789abcdef";
	const char *names[] = {"g", "?column?", "md5", "?column?"};

	if (argc < 2) {
		fprintf(stderr, "usage: xlsx_alone OUT.xlsx [ROWS]\n");
		return 2;
	}
	wb = workbook_new_opt(argv[1], &o);
	ws = workbook_add_worksheet(wb, "data");
	workbook_add_worksheet(wb, "provenance");
	bold = workbook_add_format(wb);
	format_set_bold(bold);
	fts = workbook_add_format(wb);
	format_set_num_format(fts, "yyyy-mm-dd hh:mm:ss");
	for (int j = 0; j < 4; j++)
		worksheet_write_string(ws, 0, (lxw_col_t)j, names[j], bold);
	worksheet_freeze_panes(ws, 1, 0);
	for (long g = 1; g <= n; g++) {
		char s[33];
		uint64_t a = mix((uint64_t)g), b = mix(a);

		for (int i = 0; i < 16; i++) {
			s[i] = hex[(a >> (4 * i)) & 15];
			s[16 + i] = hex[(b >> (4 * i)) & 15];
		}
		s[32] = '\0';
		worksheet_write_number(ws, (lxw_row_t)g, 0, (double)g, NULL);
		worksheet_write_number(ws, (lxw_row_t)g, 1, (double)g * 1.5, NULL);
		worksheet_write_string(ws, (lxw_row_t)g, 2, s, NULL);
		worksheet_write_number(ws, (lxw_row_t)g, 3, 45292.0 + (double)g / 86400.0, fts);
	}
	return workbook_close(wb) == LXW_NO_ERROR ? 0 : 1;
}
