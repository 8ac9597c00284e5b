/* pfile.c: files only the service user may read: 0600 from their first byte, owned like their directory, replaced in one rename (pfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/pfile.h"

/* the directory part of path ("." when there is none) into dir */
static void dir_of(const char *path, char *dir, size_t n)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, n, ".");
	else if (slash == path)
		snprintf(dir, n, "/");
	else
		snprintf(dir, n, "%.*s", (int)(slash - path), path);
}

/* as root, give fd to the owner of path's directory: root's CLI and the service user's workers
 * share these files, and a root-owned 0600 file is one the workers cannot read */
static int own_like_dir(int fd, const char *path)
{
	char dir[PATH_MAX];
	struct stat st;

	if (geteuid() != 0)
		return 0;
	dir_of(path, dir, sizeof dir);
	if (stat(dir, &st) != 0)
		return -1;
	return fchown(fd, st.st_uid, st.st_gid);
}

static int write_all(int fd, const char *data, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, data, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		data += w;
		n -= (size_t)w;
	}
	return 0;
}

enum err pfile_replace(const char *path, const char *data, size_t n, char *err, size_t errlen)
{
	char tmp[PATH_MAX];
	int fd;

	if (!path || !*path || snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp) {
		err_set(err, errlen, "no file name, or one too long");
		return ERR_IO;
	}
	/* mkstemp makes the file 0600 whatever the umask */
	if ((fd = mkstemp(tmp)) < 0) {
		err_set(err, errlen, "%s: cannot create a file beside it: %s", path, strerror(errno));
		return ERR_IO;
	}
	if (fchmod(fd, 0600) != 0 || own_like_dir(fd, path) != 0 || write_all(fd, data, n) != 0 || fsync(fd) != 0) {
		err_set(err, errlen, "%s: cannot write: %s", path, strerror(errno));
		close(fd);
		unlink(tmp);
		return ERR_IO;
	}
	if (close(fd) != 0 || rename(tmp, path) != 0) {
		err_set(err, errlen, "%s: cannot replace: %s", path, strerror(errno));
		unlink(tmp);
		return ERR_IO;
	}
	return OK;
}

enum err pfile_append(const char *path, const char *data, size_t n, char *err, size_t errlen)
{
	int fd, created;

	if (!path || !*path) {
		err_set(err, errlen, "no file name");
		return ERR_IO;
	}
	fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	created = fd < 0 && errno == ENOENT;
	if (created)
		fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		err_set(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return ERR_IO;
	}
	if (fchmod(fd, 0600) != 0 || (created && own_like_dir(fd, path) != 0) || write_all(fd, data, n) != 0 ||
	    fsync(fd) != 0) {
		err_set(err, errlen, "%s: cannot write: %s", path, strerror(errno));
		close(fd);
		return ERR_IO;
	}
	if (close(fd) != 0) {
		err_set(err, errlen, "%s: cannot write: %s", path, strerror(errno));
		return ERR_IO;
	}
	return OK;
}

int pfile_lock(const char *path, char *err, size_t errlen)
{
	char lk[PATH_MAX];
	int fd;

	if (!path || snprintf(lk, sizeof lk, "%s.lock", path) >= (int)sizeof lk) {
		err_set(err, errlen, "no file name, or one too long");
		return -1;
	}
	fd = open(lk, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && (fd = open(lk, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) >= 0)
		own_like_dir(fd, lk);
	if (fd < 0) {
		err_set(err, errlen, "%s: cannot open: %s", lk, strerror(errno));
		return -1;
	}
	while (flock(fd, LOCK_EX) != 0)
		if (errno != EINTR) {
			err_set(err, errlen, "%s: cannot lock: %s", lk, strerror(errno));
			close(fd);
			return -1;
		}
	return fd;
}

void pfile_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}
