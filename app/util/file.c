/* file.c: whole-file reads with a size cap (config, prompts, docs, migrations, CLI input). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "util/file.h"
#include "util/sb.h"

char *file_read(const char *path, size_t max, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	struct sb b = SB_INIT;
	char buf[65536];
	size_t n;
	int err = 0;

	if (!f)
		return NULL;
	if (!max)
		max = FILE_READ_MAX;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
		if (b.len + n > max) {
			err = EFBIG;
			break;
		}
		sb_append(&b, buf, n);
	}
	if (!err && ferror(f))
		err = EIO;
	if (!err && !sb_ok(&b))
		err = ENOMEM;
	if (f != stdin)
		fclose(f);
	if (err) {
		sb_free(&b);
		errno = err;
		return NULL;
	}
	if (len)
		*len = b.len;
	return sb_steal(&b);
}
