/* zip.c: a streamed zip (deflate, data descriptors) of a CSV export and its provenance.json, for downloads that must carry where they came from. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>
#include "export/export_impl.h"

/*
 * Written in one pass with no temporary file (APPNOTE 6.3.x): each entry is a local header with
 * general purpose bit 3 (sizes and CRC follow the data in a descriptor), raw deflate data, the
 * descriptor; then the central directory and its end record.  No zip64: an entry or archive of
 * 4 GiB or more stops with ERR_LIMIT (max_rows keeps a download far below that).
 */
#define ZIP_MAX 0xFFFFFFFEu

static void le16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)(v & 0xff);
	p[1] = (unsigned char)((v >> 8) & 0xff);
}

static void le32(unsigned char *p, uint32_t v)
{
	le16(p, v & 0xffff);
	le16(p + 2, v >> 16);
}

static enum err put(struct zipw *z, const void *p, size_t n)
{
	enum err rc;

	if (z->off + n > ZIP_MAX)
		return ERR_LIMIT;
	if ((rc = z->out->write(z->out->ctx, p, n)) != OK)
		return rc;
	z->off += n;
	return OK;
}

void zip_init(struct zipw *z, const struct export_out *out, time_t t)
{
	struct tm tm;

	memset(z, 0, sizeof *z);
	z->out = out;
	localtime_r(&t, &tm);
	/* MS-DOS date and time, the only stamp every unzip reads */
	z->dos_time = (unsigned)((tm.tm_hour << 11) | (tm.tm_min << 5) | (tm.tm_sec / 2));
	z->dos_date = (unsigned)(((tm.tm_year + 1900 - 1980) << 9) | ((tm.tm_mon + 1) << 5) | tm.tm_mday);
}

enum err zip_begin(struct zipw *z, const char *name)
{
	unsigned char h[30];
	size_t nl = strlen(name);
	struct zip_entry *e;
	enum err rc;

	if (z->open || z->n >= ZIP_ENTRIES || nl > 255)
		return ERR_INTERNAL;
	e = &z->e[z->n];
	memset(e, 0, sizeof *e);
	memcpy(e->name, name, nl + 1);
	e->offset = (uint32_t)z->off;
	memset(&z->zs, 0, sizeof z->zs);
	if (deflateInit2(&z->zs, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return ERR_NOMEM;
	z->open = 1;
	le32(h, 0x04034b50);
	le16(h + 4, 20);                /* version needed: 2.0 (deflate) */
	le16(h + 6, 0x0808);            /* bit 3: sizes in the descriptor; bit 11: UTF-8 name */
	le16(h + 8, 8);                 /* deflate */
	le16(h + 10, z->dos_time);
	le16(h + 12, z->dos_date);
	memset(h + 14, 0, 12);          /* crc, sizes: in the descriptor */
	le16(h + 26, (unsigned)nl);
	le16(h + 28, 0);
	if ((rc = put(z, h, sizeof h)) != OK || (rc = put(z, name, nl)) != OK)
		return rc;
	z->n++;
	return OK;
}

/* deflate what is in zs.next_in with flush, handing the output on */
static enum err pump(struct zipw *z, int flush)
{
	struct zip_entry *e = &z->e[z->n - 1];
	enum err rc;
	int zr;

	do {
		z->zs.next_out = z->obuf;
		z->zs.avail_out = sizeof z->obuf;
		zr = deflate(&z->zs, flush);
		if (zr == Z_STREAM_ERROR)
			return ERR_INTERNAL;
		size_t have = sizeof z->obuf - z->zs.avail_out;

		if (have) {
			if ((uint64_t)e->csize + have > ZIP_MAX)
				return ERR_LIMIT;
			e->csize += (uint32_t)have;
			if ((rc = put(z, z->obuf, have)) != OK)
				return rc;
		}
	} while (z->zs.avail_out == 0 || (flush == Z_FINISH && zr != Z_STREAM_END));
	return OK;
}

enum err zip_write(struct zipw *z, const char *p, size_t n)
{
	struct zip_entry *e;

	if (!z->open)
		return ERR_INTERNAL;
	e = &z->e[z->n - 1];
	if ((uint64_t)e->usize + n > ZIP_MAX)
		return ERR_LIMIT;
	e->crc = (uint32_t)crc32(e->crc, (const Bytef *)p, (uInt)n);
	e->usize += (uint32_t)n;
	z->zs.next_in = (Bytef *)(uintptr_t)p;
	z->zs.avail_in = (uInt)n;
	return pump(z, Z_NO_FLUSH);
}

enum err zip_end(struct zipw *z)
{
	struct zip_entry *e;
	unsigned char d[16];
	enum err rc;

	if (!z->open)
		return ERR_INTERNAL;
	e = &z->e[z->n - 1];
	z->zs.next_in = NULL;
	z->zs.avail_in = 0;
	rc = pump(z, Z_FINISH);
	deflateEnd(&z->zs);
	z->open = 0;
	if (rc != OK)
		return rc;
	le32(d, 0x08074b50);
	le32(d + 4, e->crc);
	le32(d + 8, e->csize);
	le32(d + 12, e->usize);
	return put(z, d, sizeof d);
}

enum err zip_finish(struct zipw *z)
{
	uint32_t start = (uint32_t)z->off, size;
	unsigned char h[46], end[22];
	enum err rc;

	for (int i = 0; i < z->n; i++) {
		const struct zip_entry *e = &z->e[i];
		size_t nl = strlen(e->name);

		le32(h, 0x02014b50);
		le16(h + 4, 0x0314);        /* made by: Unix, 2.0 */
		le16(h + 6, 20);
		le16(h + 8, 0x0808);
		le16(h + 10, 8);
		le16(h + 12, z->dos_time);
		le16(h + 14, z->dos_date);
		le32(h + 16, e->crc);
		le32(h + 20, e->csize);
		le32(h + 24, e->usize);
		le16(h + 28, (unsigned)nl);
		le16(h + 30, 0);            /* extra */
		le16(h + 32, 0);            /* comment */
		le16(h + 34, 0);            /* disk */
		le16(h + 36, 0);            /* internal attributes */
		le32(h + 38, 0100600u << 16);   /* external: a regular file, rw------- (unzip keeps it: rows stay private) */
		le32(h + 42, e->offset);
		if ((rc = put(z, h, sizeof h)) != OK || (rc = put(z, e->name, nl)) != OK)
			return rc;
	}
	size = (uint32_t)z->off - start;
	le32(end, 0x06054b50);
	le16(end + 4, 0);
	le16(end + 6, 0);
	le16(end + 8, (unsigned)z->n);
	le16(end + 10, (unsigned)z->n);
	le32(end + 12, size);
	le32(end + 16, start);
	le16(end + 20, 0);
	return put(z, end, sizeof end);
}

void zip_cleanup(struct zipw *z)
{
	if (z->open) {
		deflateEnd(&z->zs);
		z->open = 0;
	}
}
