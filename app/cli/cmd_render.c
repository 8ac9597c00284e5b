/* cmd_render.c: `askql render TEMPLATE DATA.json`: render a Mustache template file to stdout. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "cli/cli.h"
#include "util/file.h"
#include "util/sb.h"
#include "util/tpl.h"

/* Partial texts read during one render; they must outlive the render. */
struct loaded {
	char *text;
	struct loaded *next;
};

struct pctx {
	const char *dir;
	struct loaded *files;
};


/* file_partial: {{>name}} is DIR/name.mustache; absent files render empty. */
static enum err file_partial(void *ctx, const char *name, const char **text, size_t *len)
{
	struct pctx *pc = ctx;
	struct loaded *l;
	char *path;
	char *t;

	if (strstr(name, "..") || name[0] == '/')
		return ERR_NOTFOUND;
	if (asprintf(&path, "%s/%s.mustache", pc->dir, name) < 0)
		return ERR_NOMEM;
	t = file_read(path, TPL_MAX_SIZE, len);
	free(path);
	if (!t)
		return ERR_NOTFOUND;
	if (!(l = malloc(sizeof *l))) {
		free(t);
		return ERR_NOMEM;
	}
	l->text = t;
	l->next = pc->files;
	pc->files = l;
	*text = t;
	return OK;
}

int cmd_render(int argc, char **argv)
{
	const char *pdir = cli_opt(&argc, argv, "--partials");
	char *src = NULL, *json = NULL, *dircopy = NULL, err[512] = "";
	size_t slen = 0, jlen = 0;
	cJSON *data = NULL;
	struct sb out = SB_INIT;
	struct pctx pc = {0};
	struct tpl_partials pp = {file_partial, &pc};
	int rc = 1;
	enum err e;

	if (argc != 3) {
		fprintf(stderr, "usage: askql render [--partials DIR] TEMPLATE DATA.json\n"
				"  DATA.json may be - for stdin; partials {{>p}} are read from DIR/p.mustache\n"
				"  (default: the template's directory)\n");
		return 2;
	}
	if (!(src = file_read(argv[1], TPL_MAX_SIZE, &slen))) {
		fprintf(stderr, "askql render: cannot read %s (missing, unreadable or over %u bytes)\n",
			argv[1], TPL_MAX_SIZE);
		goto out;
	}
	if (!(json = file_read(argv[2], (size_t)64 << 20, &jlen))) {
		fprintf(stderr, "askql render: cannot read %s\n", argv[2]);
		goto out;
	}
	if (!(data = cJSON_ParseWithLength(json, jlen))) {
		fprintf(stderr, "askql render: %s: invalid JSON near byte %td\n", argv[2],
			cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() - json : (ptrdiff_t)0);
		goto out;
	}
	if (!pdir) {
		dircopy = strdup(argv[1]);
		pdir = dircopy ? dirname(dircopy) : ".";
	}
	pc.dir = pdir;
	if ((e = tpl_render(src, slen, data, &pp, &out, err, sizeof err)) != OK) {
		fprintf(stderr, "askql render: %s: %s: %s\n", argv[1], err_str(e), err);
		goto out;
	}
	if (fwrite(sb_cstr(&out), 1, out.len, stdout) != out.len || fflush(stdout)) {
		fprintf(stderr, "askql render: write failed\n");
		goto out;
	}
	rc = 0;
out:
	while (pc.files) {
		struct loaded *l = pc.files;

		pc.files = l->next;
		free(l->text);
		free(l);
	}
	sb_free(&out);
	cJSON_Delete(data);
	free(dircopy);
	free(json);
	free(src);
	return rc;
}
