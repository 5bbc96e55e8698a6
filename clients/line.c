/*
 * line.c -- mcpctl's line reader and writer on mcpd's socket.
 *
 * Input: one read of at most FRAME_READ_CHUNK_BYTES lands in `in`; its
 * bytes go to the framer up to and including one newline at a time, and
 * the framer's events are taken before the next piece goes in.  So the
 * framer's memory bound holds, a reply of any size up to the limit is
 * read in linear time, and when a message is returned everything past it
 * is still in `in`.
 *
 * Output: a queue sent with MSG_DONTWAIT whenever the socket takes it,
 * so a peer that talks while we write cannot deadlock us, whatever the
 * socket's own flags.  A failed send (mcpd is gone) empties the queue
 * and stops sending; reading goes on, to learn the rest.
 */
#include "config.h"

#include <sys/socket.h>

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "frame.h"
#include "line.h"
#include "xmalloc.h"

struct line {
	int		 fd;
	struct frame	*frame;

	char		*in;		/* read, not yet framed: in[off, len) */
	size_t		 in_off;
	size_t		 in_len;
	int		 read_eof;
	int		 read_errno;
	int		 garbage;	/* the stream is lost: read no more */

	char		*out;		/* queued: out[off, off + len) */
	size_t		 out_off;
	size_t		 out_len;
	size_t		 out_size;
	int		 write_errno;	/* sending failed: no more */
};

struct line *
line_new(int fd, size_t max_bytes, const char *rest, size_t rest_len)
{
	struct line	*l;

	if (rest_len > FRAME_READ_CHUNK_BYTES)
		abort();	/* more than one read: not from line_release */
	l = xcalloc(1, sizeof *l);
	l->fd = fd;
	l->frame = frame_new(max_bytes);
	l->in = xmalloc(FRAME_READ_CHUNK_BYTES);
	if (rest_len > 0)
		memcpy(l->in, rest, rest_len);
	l->in_len = rest_len;
	return (l);
}

int
line_release(struct line *l, char **rest, size_t *rest_len)
{
	int	 fd = l->fd;

	*rest = NULL;
	*rest_len = l->in_len - l->in_off;
	if (*rest_len > 0) {
		*rest = xmalloc(*rest_len);
		memcpy(*rest, l->in + l->in_off, *rest_len);
	}
	l->fd = -1;
	line_free(l);
	return (fd);
}

void
line_free(struct line *l)
{
	if (l == NULL)
		return;
	if (l->fd != -1)
		close(l->fd);
	frame_free(l->frame);
	free(l->in);
	free(l->out);
	free(l);
}

int
line_write_errno(const struct line *l)
{
	return (l->write_errno);
}

int
line_read_errno(const struct line *l)
{
	return (l->read_errno);
}

int
line_fd(const struct line *l)
{
	return (l->fd);
}

/* Send what the socket takes now. */
static void
line_flush(struct line *l)
{
	ssize_t	 n;

	while (l->out_len > 0) {
		n = send(l->fd, l->out + l->out_off, l->out_len,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			l->write_errno = n == 0 ? EPIPE : errno;
			l->out_len = 0;
			break;
		}
		l->out_off += (size_t)n;
		l->out_len -= (size_t)n;
	}
	if (l->out_len == 0)
		l->out_off = 0;
}

void
line_send(struct line *l, const char *text)
{
	size_t	 len = strlen(text);

	if (l->write_errno != 0)
		return;
	if (l->out_off > 0) {
		memmove(l->out, l->out + l->out_off, l->out_len);
		l->out_off = 0;
	}
	if (l->out_size - l->out_len < len + 1) {
		l->out_size = l->out_len + len + 1;
		l->out = xrealloc(l->out, l->out_size);
	}
	memcpy(l->out + l->out_len, text, len);
	l->out[l->out_len + len] = '\n';
	l->out_len += len + 1;
	line_flush(l);
}

/* Hand the framer the next piece of `in`: up to a newline, or the rest. */
static void
line_feed(struct line *l)
{
	const char	*p = l->in + l->in_off, *nl;
	size_t		 n = l->in_len - l->in_off;

	if ((nl = memchr(p, '\n', n)) != NULL)
		n = (size_t)(nl - p) + 1;
	frame_push(l->frame, p, n);
	l->in_off += n;
	if (l->in_off == l->in_len)
		l->in_off = l->in_len = 0;
}

/*
 * Wait up to timeout_ms (-1: forever) for the socket, then send and read
 * (into `in`, which must be empty, unless discard).  0, or -1 (errno).
 */
static int
line_io(struct line *l, int timeout_ms, int discard)
{
	struct pollfd	 pfd;
	ssize_t		 n;

	pfd.fd = l->fd;
	pfd.events = 0;
	if (!l->read_eof)
		pfd.events |= POLLIN;
	if (l->out_len > 0)
		pfd.events |= POLLOUT;
	if (poll(&pfd, 1, timeout_ms) == -1)
		return (errno == EINTR ? 0 : -1);
	if (pfd.revents & (POLLOUT | POLLERR | POLLHUP))
		line_flush(l);
	if (l->read_eof || !(pfd.revents & (POLLIN | POLLERR | POLLHUP)))
		return (0);
	n = recv(l->fd, l->in, FRAME_READ_CHUNK_BYTES, MSG_DONTWAIT);
	if (n > 0) {
		l->in_off = 0;
		l->in_len = discard ? 0 : (size_t)n;
	} else if (n == 0)
		l->read_eof = 1;
	else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
		l->read_eof = 1;
		l->read_errno = errno;
	}
	return (0);
}

/* Milliseconds to deadline for poll (0: forever is -1), or 0 if past. */
static int
line_left(uint64_t deadline)
{
	int64_t	 left;

	if (deadline == 0)
		return (-1);
	left = (int64_t)deadline - (int64_t)clock_now_ms();
	return (left > 0 ? (int)left : 0);
}

enum line_event
line_next(struct line *l, uint64_t deadline, struct frame_msg *msg)
{
	for (;;) {
		if (l->garbage)
			return (LINE_EOF);
		switch (frame_next(l->frame, msg)) {
		case FRAME_LINE:
			return (LINE_MESSAGE);
		case FRAME_OVERSIZE:
			return (LINE_OVERSIZE);
		case FRAME_GARBAGE:
			l->garbage = 1;
			return (LINE_GARBAGE);
		case FRAME_NONE:
			break;
		}
		if (l->in_len > 0) {
			line_feed(l);
			continue;
		}
		if (l->read_eof)
			return (LINE_EOF);
		if (deadline != 0 && line_left(deadline) == 0)
			return (LINE_TIMEOUT);
		if (line_io(l, line_left(deadline), 0) != 0)
			return (LINE_POLL_ERROR);
	}
}

void
line_drain(struct line *l, uint64_t deadline)
{
	while (l->out_len > 0 && line_left(deadline) != 0) {
		if (line_io(l, line_left(deadline), 1) != 0)
			break;
	}
}
