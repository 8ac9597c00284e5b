/* pfile.h: files only the service user may read (target secrets, audit anchors): 0600, owned like their directory, replaced in one rename. */
#ifndef ASKQL_PFILE_H
#define ASKQL_PFILE_H

#include <stddef.h>
#include "util/err.h"

/*
 * pfile_replace: make path hold exactly data[0..n) in one rename: a temporary file beside it made
 * 0600 (mkstemp), written, flushed to disk and renamed over path.  Run as root, the file is given to
 * the owner of its directory (the service user owns var/), so a CLI run as root never leaves a file the
 * workers cannot read.  ERR_IO with err naming the path and the reason; path is then unchanged.
 */
enum err pfile_replace(const char *path, const char *data, size_t n, char *err, size_t errlen);

/*
 * pfile_append: append data[0..n) to path, creating it 0600 (owned like its directory when run as
 * root); an existing file is set to 0600 first.  A symbolic link is refused (O_NOFOLLOW).  ERR_IO
 * with err naming the path and the reason.
 */
enum err pfile_append(const char *path, const char *data, size_t n, char *err, size_t errlen);

/*
 * pfile_lock / pfile_unlock: an exclusive lock on "<path>.lock" (made 0600 when missing) for a
 * read-modify-replace of path by several processes (workers and the CLI).  pfile_lock returns the
 * lock's descriptor, -1 with err set; pfile_unlock(fd) releases it (fd < 0: nothing).
 */
int pfile_lock(const char *path, char *err, size_t errlen);
void pfile_unlock(int fd);

#endif
