/*
 * bridge.c -- the stdio bridge: what an MCP client launches instead of
 * the server.  After a synchronous mcpd/attach it moves bytes unchanged
 * between stdin and the socket, and between the socket and stdout.  mcpd
 * does the framing; the bridge never looks inside the stream.
 *
 * Invariants: each direction has one ring of BRIDGE_BUF_BYTES, filled by
 * readv and drained by writev straight from the ring (no other copy); a
 * side is not read while the ring it feeds is full, so a slow reader
 * slows its writer and memory stays bounded.  Only pipes and sockets are
 * made non-blocking (ttys and files are shared with other processes and
 * are always ready for poll anyway) and their flags are restored on exit.
 *
 * The bridge is a state machine.  Each turn writes what the rings hold
 * (which makes room for reading), takes the transitions that allows,
 * polls, and reads; what happens to each side moves it on:
 *
 *   RELAY -- stdin ends --> IN_ENDED -- its last bytes sent to mcpd:
 *     |                        |        shutdown(SHUT_WR) --> HALF_CLOSED
 *     |                        |                                  |
 *     +-- sending to mcpd fails, from either --> SOCK_DEAD        |
 *     |                        |                    |             |
 *     +-- mcpd closes, from either, or SOCK_DEAD ---+--> LOST     |
 *                                                                 |
 *                                          mcpd closes --> FINISHING
 *
 *   LOST, SOCK_DEAD -- stdout took all (LOST), or BRIDGE_GRACE_MS
 *       without a byte moving --> DONE: "mcpd closed the connection",
 *       exit 1
 *   FINISHING -- the same --> DONE: exit 0
 *   any state -- the client leaves (EPIPE, or a hangup on stdout with
 *       nothing left for it) --> DONE: exit 0
 *   any state -- stdout fails or is not open, poll fails --> DONE: exit 1
 *
 * When stdin ends the bridge half-closes the socket and keeps relaying:
 * mcpd answers everything already sent and then closes the connection.
 * Once the socket has ended (or stopped taking bytes), stdin is no longer
 * read, and the bridge gives up on stdout after BRIDGE_GRACE_MS without a
 * byte moving.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bridge.h"
#include "clock.h"
#include "connect.h"
#include "diag.h"
#include "xmalloc.h"

#define BRIDGE_BUF_BYTES	(256 * 1024)	/* per direction */
/* Once the socket has ended: most time stdout may take to drain. */
#define BRIDGE_GRACE_MS		2000
#define BRIDGE_EOF		(-1)	/* a side ended without an error */

enum bridge_state {
	BRIDGE_RELAY,		/* both ways open */
	BRIDGE_IN_ENDED,	/* stdin ended; its last bytes go to mcpd */
	BRIDGE_HALF_CLOSED,	/* we said all; mcpd's answers still come */
	BRIDGE_SOCK_DEAD,	/* mcpd takes no bytes: read what it left */
	BRIDGE_LOST,		/* mcpd closed on us: stdout gets the rest */
	BRIDGE_FINISHING,	/* mcpd closed after us: stdout gets the rest */
	BRIDGE_DONE,		/* rc is the exit code */
};

struct bridge_ring {
	char	*buf;
	size_t	 off;		/* first byte held */
	size_t	 len;		/* bytes held */
};

struct bridge_fd {
	int	 fd;
	int	 saved_flags;	/* -1: left as it was */
};

struct bridge {
	enum bridge_state	 state;
	int			 rc;
	char			*label;		/* "connect NAME" */
	int			 sock;
	struct bridge_ring	 up;		/* stdin to socket */
	struct bridge_ring	 down;		/* socket to stdout */
	struct bridge_fd	 in;
	struct bridge_fd	 out;
	uint64_t		 last_progress;	/* a byte moved, or an end */
	int			 sock_errno;	/* why the socket ended */
};

/*
 * The two sides.
 */

static void
bridge_fd_prepare(struct bridge_fd *bf, int fd)
{
	struct stat	 sb;
	int		 flags;

	bf->fd = fd;
	bf->saved_flags = -1;
	if (fstat(fd, &sb) != 0 || !(S_ISFIFO(sb.st_mode) ||
	    S_ISSOCK(sb.st_mode)))
		return;
	if ((flags = fcntl(fd, F_GETFL)) == -1 || (flags & O_NONBLOCK))
		return;
	if (fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0)
		bf->saved_flags = flags;
}

static void
bridge_fd_restore(struct bridge_fd *bf)
{
	if (bf->saved_flags != -1)
		(void)fcntl(bf->fd, F_SETFL, bf->saved_flags);
}

/* Read into the free part of the ring: bytes read, 0 at EOF, -1 (errno). */
static ssize_t
bridge_ring_read(struct bridge_ring *r, int fd)
{
	struct iovec	 iov[2];
	size_t		 tail, room;
	ssize_t		 n;

	tail = (r->off + r->len) % BRIDGE_BUF_BYTES;
	room = BRIDGE_BUF_BYTES - r->len;
	iov[0].iov_base = r->buf + tail;
	iov[0].iov_len = BRIDGE_BUF_BYTES - tail;
	if (iov[0].iov_len > room)
		iov[0].iov_len = room;
	iov[1].iov_base = r->buf;
	iov[1].iov_len = room - iov[0].iov_len;
	do
		n = readv(fd, iov, iov[1].iov_len > 0 ? 2 : 1);
	while (n == -1 && errno == EINTR);
	if (n > 0)
		r->len += (size_t)n;
	return (n);
}

/* Write what the ring holds: bytes written or -1 (errno). */
static ssize_t
bridge_ring_write(struct bridge_ring *r, int fd)
{
	struct iovec	 iov[2];
	ssize_t		 n;

	iov[0].iov_base = r->buf + r->off;
	iov[0].iov_len = BRIDGE_BUF_BYTES - r->off;
	if (iov[0].iov_len > r->len)
		iov[0].iov_len = r->len;
	iov[1].iov_base = r->buf;
	iov[1].iov_len = r->len - iov[0].iov_len;
	do
		n = writev(fd, iov, iov[1].iov_len > 0 ? 2 : 1);
	while (n == -1 && errno == EINTR);
	if (n > 0) {
		r->off = (r->off + (size_t)n) % BRIDGE_BUF_BYTES;
		r->len -= (size_t)n;
		if (r->len == 0)
			r->off = 0;	/* keep the next read in one piece */
	}
	return (n);
}

static int
bridge_would_block(void)
{
	return (errno == EAGAIN || errno == EWOULDBLOCK);
}

/*
 * What each state does.
 */

/* Is the socket still read (mcpd has not closed it)? */
static int
bridge_reads_sock(const struct bridge *b)
{
	return (b->state == BRIDGE_RELAY || b->state == BRIDGE_IN_ENDED ||
	    b->state == BRIDGE_HALF_CLOSED || b->state == BRIDGE_SOCK_DEAD);
}

/* Is the socket over, so that stdout has BRIDGE_GRACE_MS to drain? */
static int
bridge_in_grace(const struct bridge *b)
{
	return (b->state == BRIDGE_SOCK_DEAD || b->state == BRIDGE_LOST ||
	    b->state == BRIDGE_FINISHING);
}

/*
 * Transitions.
 */

static void
bridge_progress(struct bridge *b)
{
	b->last_progress = clock_now_ms();
}

/*
 * Move bytes between a ring and fd, noting progress.  0 while the side is
 * open (bytes moved, or none could), else the side has ended: BRIDGE_EOF
 * or the errno.
 */
static int
bridge_read(struct bridge *b, struct bridge_ring *r, int fd)
{
	ssize_t	 n;

	if ((n = bridge_ring_read(r, fd)) > 0)
		bridge_progress(b);
	if (n > 0 || (n == -1 && bridge_would_block()))
		return (0);
	return (n == 0 ? BRIDGE_EOF : errno);
}

static int
bridge_write(struct bridge *b, struct bridge_ring *r, int fd)
{
	ssize_t	 n;

	if ((n = bridge_ring_write(r, fd)) > 0)
		bridge_progress(b);
	if (n >= 0 || bridge_would_block())
		return (0);
	return (errno);
}

/* -> DONE: the client left (or the orderly end): exit 0, quietly. */
static void
bridge_client_left(struct bridge *b)
{
	b->state = BRIDGE_DONE;
	b->rc = DIAG_EXIT_OK;
}

/* -> DONE: something failed on our side: exit 1 with why. */
static void __attribute__((format(printf, 2, 3)))
bridge_fail(struct bridge *b, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	diag_vwarnx(b->label, fmt, ap);
	va_end(ap);
	b->state = BRIDGE_DONE;
	b->rc = DIAG_EXIT_FAILED;
}

/* SOCK_DEAD, LOST, FINISHING -> DONE: stdout has all, or the grace ran out. */
static void
bridge_end(struct bridge *b)
{
	if (b->state == BRIDGE_FINISHING) {
		bridge_client_left(b);
		return;
	}
	if (b->down.len > 0)
		bridge_fail(b, "mcpd closed the connection; stdout did not "
		    "take the last %zu bytes", b->down.len);
	else if (b->sock_errno != 0 && b->sock_errno != EPIPE &&
	    b->sock_errno != ECONNRESET)
		bridge_fail(b, "mcpd closed the connection: %s",
		    strerror(b->sock_errno));
	else
		bridge_fail(b, "mcpd closed the connection");
}

/* RELAY -> IN_ENDED: stdin ended (err: BRIDGE_EOF, or why it failed). */
static void
bridge_stdin_ended(struct bridge *b, int err)
{
	if (err != BRIDGE_EOF)
		diag_warnx(b->label, "read stdin: %s", strerror(err));
	if (b->state == BRIDGE_RELAY)
		b->state = BRIDGE_IN_ENDED;
}

/* IN_ENDED -> HALF_CLOSED: all of stdin is with mcpd. */
static void
bridge_half_close(struct bridge *b)
{
	(void)shutdown(b->sock, SHUT_WR);
	b->state = BRIDGE_HALF_CLOSED;
	bridge_progress(b);
}

/* RELAY, IN_ENDED -> SOCK_DEAD: mcpd is gone; read what it left. */
static void
bridge_sock_unsendable(struct bridge *b, int err)
{
	b->sock_errno = err;
	b->up.len = 0;
	if (b->state == BRIDGE_RELAY || b->state == BRIDGE_IN_ENDED)
		b->state = BRIDGE_SOCK_DEAD;
}

/* HALF_CLOSED -> FINISHING, the others -> LOST: mcpd closed (err: why). */
static void
bridge_sock_ended(struct bridge *b, int err)
{
	if (err != BRIDGE_EOF && err != ECONNRESET)
		b->sock_errno = err;
	b->state = b->state == BRIDGE_HALF_CLOSED ? BRIDGE_FINISHING :
	    BRIDGE_LOST;
	bridge_progress(b);
}

/*
 * Events.
 */

/* stdout can take bytes (or the ring is tried anyway). */
static void
bridge_on_stdout_ready(struct bridge *b)
{
	int	 err;

	if ((err = bridge_write(b, &b->down, STDOUT_FILENO)) == 0)
		return;
	if (err == EPIPE)
		bridge_client_left(b);
	else
		bridge_fail(b, "write stdout: %s", strerror(err));
}

static void
bridge_on_sock_writable(struct bridge *b)
{
	int	 err;

	if ((err = bridge_write(b, &b->up, b->sock)) != 0)
		bridge_sock_unsendable(b, err);
}

static void
bridge_on_sock_readable(struct bridge *b)
{
	int	 err;

	if ((err = bridge_read(b, &b->down, b->sock)) != 0)
		bridge_sock_ended(b, err);
}

static void
bridge_on_stdin_readable(struct bridge *b)
{
	int	 err;

	if ((err = bridge_read(b, &b->up, STDIN_FILENO)) != 0)
		bridge_stdin_ended(b, err);
}

/*
 * What to wait for in this state; *timeout_ms is -1, or what is left of
 * the grace.  0 if the grace has run out.
 */
static int
bridge_poll_set(const struct bridge *b, struct pollfd pfd[3],
    int *timeout_ms)
{
	int64_t	 idle;

	pfd[0].fd = -1;
	pfd[0].events = POLLIN;
	if (b->state == BRIDGE_RELAY && b->up.len < BRIDGE_BUF_BYTES)
		pfd[0].fd = STDIN_FILENO;
	pfd[1].fd = b->sock;
	pfd[1].events = 0;
	if (bridge_reads_sock(b) && b->down.len < BRIDGE_BUF_BYTES)
		pfd[1].events |= POLLIN;
	if (b->up.len > 0)
		pfd[1].events |= POLLOUT;
	if (pfd[1].events == 0)
		pfd[1].fd = -1;	/* or a hangup would spin */
	/* With nothing to write, still notice the client leaving. */
	pfd[2].fd = STDOUT_FILENO;
	pfd[2].events = b->down.len > 0 ? POLLOUT : 0;

	*timeout_ms = -1;
	if (bridge_in_grace(b)) {
		idle = (int64_t)clock_now_ms() - (int64_t)b->last_progress;
		if (idle >= BRIDGE_GRACE_MS)
			return (0);
		*timeout_ms = (int)(BRIDGE_GRACE_MS - idle);
	}
	return (1);
}

/* One turn: writes, the transitions they allow, poll, reads. */
static void
bridge_turn(struct bridge *b)
{
	struct pollfd	 pfd[3];
	int		 timeout_ms;

	/* Writes first: they make room for the reads below. */
	if (b->down.len > 0) {
		bridge_on_stdout_ready(b);
		if (b->state == BRIDGE_DONE)
			return;
	}
	if (b->up.len > 0)
		bridge_on_sock_writable(b);
	if (b->state == BRIDGE_IN_ENDED && b->up.len == 0)
		bridge_half_close(b);
	if ((b->state == BRIDGE_LOST || b->state == BRIDGE_FINISHING) &&
	    b->down.len == 0) {
		bridge_end(b);
		return;
	}

	if (!bridge_poll_set(b, pfd, &timeout_ms)) {
		bridge_end(b);
		return;
	}
	if (poll(pfd, 3, timeout_ms) == -1) {
		if (errno != EINTR)
			bridge_fail(b, "poll: %s", strerror(errno));
		return;
	}
	if (pfd[2].revents & POLLNVAL) {
		bridge_fail(b, "stdout is not open");
		return;
	}
	if (b->down.len == 0 && (pfd[2].revents & (POLLERR | POLLHUP))) {
		bridge_client_left(b);
		return;
	}
	if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR) &&
	    (pfd[1].events & POLLIN))
		bridge_on_sock_readable(b);
	if (pfd[0].revents != 0)
		bridge_on_stdin_readable(b);
}

int
bridge_run(const char *socket_path, const char *server)
{
	struct bridge	 b;
	char		*extra;
	size_t		 extra_len;
	int		 flags;

	signal(SIGPIPE, SIG_IGN);
	memset(&b, 0, sizeof b);
	xasprintf(&b.label, "connect %s", server);
	if ((b.rc = connect_attach(socket_path, server, b.label, &b.sock,
	    &extra, &extra_len)) != DIAG_EXIT_OK) {
		free(b.label);
		return (b.rc);
	}

	b.up.buf = xmalloc(BRIDGE_BUF_BYTES);
	b.down.buf = xmalloc(BRIDGE_BUF_BYTES);
	if (extra_len > BRIDGE_BUF_BYTES)
		abort();	/* connect_attach reads less than a ring */
	if (extra_len > 0)
		memcpy(b.down.buf, extra, extra_len);
	b.down.len = extra_len;
	free(extra);

	if ((flags = fcntl(b.sock, F_GETFL)) != -1)
		(void)fcntl(b.sock, F_SETFL, flags | O_NONBLOCK);
	bridge_fd_prepare(&b.in, STDIN_FILENO);
	bridge_fd_prepare(&b.out, STDOUT_FILENO);
	b.state = BRIDGE_RELAY;
	bridge_progress(&b);

	while (b.state != BRIDGE_DONE)
		bridge_turn(&b);

	bridge_fd_restore(&b.in);
	bridge_fd_restore(&b.out);
	close(b.sock);
	free(b.up.buf);
	free(b.down.buf);
	free(b.label);
	return (b.rc);
}
