/*
 * store.c -- a sign-in's token file on disk (see store.h).
 */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdio.h"
#include "store.h"
#include "tokens.h"
#include "xmalloc.h"

static char *
store_dirname(const char *path)
{
	char	*copy, *dir;

	copy = xstrdup(path);
	dir = xstrdup(dirname(copy));
	free(copy);
	return (dir);
}

/*
 * The directory as it is, opened: its fd if it is this user's (made 0700
 * if others could enter it), -1 with *err NULL if there is none, -1 with
 * *err if it is not a directory (a symbolic link is not followed) or is
 * another user's.  Nothing is created in a directory before this has
 * said it is ours: not even a lock in one that another user made.
 */
static int
store_open_dir(const char *dir, char **err)
{
	struct stat	 st;
	int		 fd;

	*err = NULL;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1) {
		if (errno == ENOENT)
			return (-1);
		if (errno == ENOTDIR || errno == ELOOP)
			xasprintf(err, "token directory %s is not a directory",
			    dir);
		else
			xasprintf(err, "token directory %s: %s", dir,
			    strerror(errno));
		return (-1);
	}
	if (fstat(fd, &st) == -1) {
		xasprintf(err, "token directory %s: %s", dir, strerror(errno));
		goto fail;
	}
	if (st.st_uid != geteuid()) {
		xasprintf(err, "token directory %s belongs to uid %lu, not to "
		    "this user", dir, (unsigned long)st.st_uid);
		goto fail;
	}
	if ((st.st_mode & 077) != 0 && fchmod(fd, 0700) == -1) {
		xasprintf(err, "token directory %s: chmod 700: %s", dir,
		    strerror(errno));
		goto fail;
	}
	return (fd);
fail:
	close(fd);
	return (-1);
}

/* Make the directory (and missing parents, 0700); check what exists. */
static int
store_mkdir(const char *dir, char **err)
{
	char	*parent;
	int	 fd;

	if ((fd = store_open_dir(dir, err)) != -1) {
		close(fd);
		return (0);
	}
	if (*err != NULL)
		return (-1);
	parent = store_dirname(dir);
	if (strcmp(parent, dir) != 0 && access(parent, F_OK) == -1 &&
	    store_mkdir(parent, err) == -1) {
		free(parent);
		return (-1);
	}
	free(parent);
	if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
		xasprintf(err, "token directory %s: mkdir: %s", dir,
		    strerror(errno));
		return (-1);
	}
	return (0);
}

int
store_load(const char *path, struct tokens *t, char **err)
{
	struct stat	 st;
	char		*buf, *why;
	size_t		 len = 0;
	ssize_t		 n;
	int		 fd, rv = -1;

	*err = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd == -1) {
		if (errno == ENOENT)
			return (0);
		xasprintf(err, "token file %s: %s", path, strerror(errno));
		return (-1);
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		xasprintf(err, "token file %s: not a regular file", path);
		close(fd);
		return (-1);
	}
	if (st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
		xasprintf(err, "token file %s: refusing a file of another "
		    "user or readable by others (mode %04o): sign in again",
		    path, (unsigned int)(st.st_mode & 07777));
		close(fd);
		return (-1);
	}
	buf = xmalloc(TOKENS_MAX_BYTES + 1);
	for (;;) {
		n = read(fd, buf + len, TOKENS_MAX_BYTES + 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len > TOKENS_MAX_BYTES)
			break;
	}
	close(fd);
	if (n == -1)
		xasprintf(err, "token file %s: %s", path, strerror(errno));
	else if (tokens_parse(t, buf, len, &why) == -1) {
		xasprintf(err, "token file %s: %s", path, why);
		free(why);
	} else
		rv = 1;
	explicit_bzero(buf, TOKENS_MAX_BYTES + 1);
	free(buf);
	return (rv);
}

int
store_save(const char *path, const struct tokens *t, char **err)
{
	char	*dir, *tmp, *text;
	size_t	 len;
	int	 fd, dfd, rv = -1;

	*err = NULL;
	dir = store_dirname(path);
	if (store_mkdir(dir, err) == -1) {
		free(dir);
		return (-1);
	}
	xasprintf(&tmp, "%s.tmp%ld", path, (long)getpid());
	(void)unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (fd == -1) {
		xasprintf(err, "token file %s: %s", tmp, strerror(errno));
		goto out;
	}
	text = tokens_format(t);
	len = strlen(text);
	if (fchmod(fd, 0600) == -1 || fdio_write_all(fd, text, len) == -1 ||
	    fsync(fd) == -1) {
		xasprintf(err, "token file %s: writing: %s", tmp,
		    strerror(errno));
		explicit_bzero(text, len);
		free(text);
		close(fd);
		(void)unlink(tmp);
		goto out;
	}
	explicit_bzero(text, len);
	free(text);
	if (close(fd) == -1 || rename(tmp, path) == -1) {
		xasprintf(err, "token file %s: %s", path, strerror(errno));
		(void)unlink(tmp);
		goto out;
	}
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		(void)fsync(dfd);
		close(dfd);
	}
	rv = 0;
out:
	free(tmp);
	free(dir);
	return (rv);
}

int
store_remove(const char *path, char **err)
{
	char	*dir;
	int	 dfd;

	*err = NULL;
	if (unlink(path) == -1) {
		if (errno == ENOENT)
			return (0);
		xasprintf(err, "token file %s: %s", path, strerror(errno));
		return (-1);
	}
	dir = store_dirname(path);
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		(void)fsync(dfd);
		close(dfd);
	}
	free(dir);
	return (1);
}

int
store_trylock(const char *path, int *fdp, char **err)
{
	char	*dir, *base, *lock;
	int	 dfd, fd;

	*fdp = -1;
	dir = store_dirname(path);
	dfd = store_open_dir(dir, err);
	free(dir);
	if (dfd == -1)		/* no directory, so no tokens to guard */
		return (*err == NULL ? 1 : -1);
	xasprintf(&lock, "%s.lock", path);
	base = strrchr(lock, '/') != NULL ? strrchr(lock, '/') + 1 : lock;
	fd = openat(dfd, base, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW |
	    O_NOCTTY, 0600);
	close(dfd);
	if (fd == -1) {
		xasprintf(err, "token lock %s: %s", lock, strerror(errno));
		free(lock);
		return (-1);
	}
	free(lock);
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		close(fd);
		if (errno == EWOULDBLOCK)
			return (0);
		xasprintf(err, "token lock: %s", strerror(errno));
		return (-1);
	}
	*fdp = fd;
	return (1);
}

void
store_unlock(int fd)
{
	if (fd != -1) {
		(void)flock(fd, LOCK_UN);
		close(fd);
	}
}
