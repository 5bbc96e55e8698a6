/*
 * fdio.h -- the small things every user of a file descriptor repeated:
 * writing all of a buffer (EINTR retried, a short write continued), a
 * sealed memfd holding a text, to hand a child without a path, an
 * argument or an environment variable, one read straight into a
 * framer (src/frame.c stays pure: the read is here), and a small file
 * read whole.
 *
 * No libevent, no daemon state: blocking descriptors only (a socket
 * with an output queue goes through daemon/outq.c).
 */
#ifndef MCPD_FDIO_H
#define MCPD_FDIO_H

#include <sys/types.h>

#include <stddef.h>

struct frame;
struct sbuf;

/*
 * mkdir -p: dir and its missing parents, each made with mode.  0, or -1
 * with errno (from the first mkdir that failed for another reason than
 * EEXIST).
 */
int	fdio_mkdirs(const char *dir, mode_t mode);

/*
 * A directory of this user's alone: made as fdio_mkdirs does (0700), then
 * checked (not a symbolic link, owned by the effective user) and its mode
 * narrowed to 0700 if it was wider.  0; -1 with errno; -2 when dir is
 * there but is not a directory of this user's.
 */
int	fdio_private_dir(const char *dir);

/* All of buf to fd: 0, or -1 with errno (EIO for a write of nothing). */
int	fdio_write_all(int fd, const void *buf, size_t len);

/*
 * A memfd named name holding buf, sealed against any change and read
 * from offset 0; -1 with *cause ("writing WHAT: ...") on failure.
 */
int	fdio_sealed_memfd(const char *name, const char *what,
	    const void *buf, size_t len, char **cause);

/*
 * One read(2) from fd into the framer's free space, committed: read's
 * return and errno (0 at end of file, -1 with EAGAIN when nothing is
 * there).  *avail, if not NULL, is the room that was offered: a read
 * shorter than it drained a pipe.
 */
ssize_t	fdio_read_frame(int fd, struct frame *, size_t *avail);

/*
 * All of fd, to its end, appended to b, which is NUL-ended even when
 * nothing came: 0, or -1 with errno (EFBIG once more than max bytes
 * came; EINTR is retried).
 */
int	fdio_read_all(int fd, size_t max, struct sbuf *b);

#endif /* MCPD_FDIO_H */
