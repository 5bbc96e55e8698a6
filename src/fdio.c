/*
 * fdio.c -- writing all of a buffer; a sealed memfd; a read into a
 * framer; a file read whole (see fdio.h).
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdio.h"
#include "frame.h"
#include "sbuf.h"
#include "xmalloc.h"

/* What fdio_read_all reads at a time. */
#define FDIO_READ_BYTES	8192

int
fdio_write_all(int fd, const void *buf, size_t len)
{
	const char	*p = buf;
	ssize_t		 n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return (-1);
		}
		p += n;
		len -= (size_t)n;
	}
	return (0);
}

int
fdio_sealed_memfd(const char *name, const char *what, const void *buf,
    size_t len, char **cause)
{
	int	fd;

	if ((fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING)) == -1) {
		xasprintf(cause, "memfd_create: %s", strerror(errno));
		return (-1);
	}
	if (fdio_write_all(fd, buf, len) == -1) {
		xasprintf(cause, "writing %s: %s", what, strerror(errno));
		close(fd);
		return (-1);
	}
	/* Sealed: what the child reads is what was written, nothing else. */
	(void)fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
	    F_SEAL_WRITE | F_SEAL_SEAL);
	if (lseek(fd, 0, SEEK_SET) != 0) {
		xasprintf(cause, "lseek: %s", strerror(errno));
		close(fd);
		return (-1);
	}
	return (fd);
}

ssize_t
fdio_read_frame(int fd, struct frame *f, size_t *avail)
{
	size_t	 room;
	char	*space = frame_space(f, &room);
	ssize_t	 n;

	if (avail != NULL)
		*avail = room;
	if ((n = read(fd, space, room)) > 0)
		frame_commit(f, (size_t)n);
	return (n);
}

int
fdio_read_all(int fd, size_t max, struct sbuf *b)
{
	char	 chunk[FDIO_READ_BYTES];
	size_t	 got = 0;
	ssize_t	 n;

	sbuf_add(b, "", 0);
	for (;;) {
		n = read(fd, chunk, sizeof chunk);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return (-1);
		if (n == 0)
			return (0);
		sbuf_add(b, chunk, (size_t)n);
		got += (size_t)n;
		if (got > max) {
			errno = EFBIG;
			return (-1);
		}
	}
}

int
fdio_mkdirs(const char *dir, mode_t mode)
{
	char	*d, *p;
	int	 saved;

	if ((d = strdup(dir)) == NULL)
		return (-1);
	for (p = d + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(d, mode) == -1 && errno != EEXIST)
			goto fail;
		*p = '/';
	}
	if (mkdir(d, mode) == -1 && errno != EEXIST)
		goto fail;
	free(d);
	return (0);
fail:
	saved = errno;
	free(d);
	errno = saved;
	return (-1);
}

int
fdio_private_dir(const char *dir)
{
	struct stat	 st;

	if (fdio_mkdirs(dir, 0700) == -1 || lstat(dir, &st) == -1)
		return (-1);
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return (-2);
	if ((st.st_mode & 077) != 0 && chmod(dir, 0700) == -1)
		return (-1);
	return (0);
}
