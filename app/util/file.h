/* file.h: read a whole file (or stdin) into memory, with a size cap. */
#ifndef ASKQL_FILE_H
#define ASKQL_FILE_H

#include <stddef.h>

#define FILE_READ_MAX ((size_t)64 << 20)

/*
 * file_read: the whole of path ("-": standard input) as a NUL-terminated heap string
 * (caller frees; "" for an empty file); *len, when len is non-NULL, receives its length.
 * max 0 means FILE_READ_MAX.  Returns NULL with errno set when the file cannot be opened
 * or read (fopen's errno), is larger than max (EFBIG), or memory ran out (ENOMEM).
 */
char *file_read(const char *path, size_t max, size_t *len);

#endif
