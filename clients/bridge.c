/*
 * bridge.c -- the stdio bridge: what an MCP client launches instead of
 * the server.  After mcpd/attach it relays newline-delimited JSON-RPC
 * between stdin and the socket, and between the socket and stdout, and
 * owns the session with its client: when mcpd goes away (stopped, killed,
 * restarted) it answers the client's requests in flight, connects and
 * attaches again, replays the session (bsess.h) and carries on, so the
 * client never sees the connection drop.  With --no-reconnect it is the
 * byte mover it always was: bytes pass unlooked-at and a lost mcpd ends
 * it.
 *
 * Invariants: each direction has one buffer (struct bridge_buf) of
 * BRIDGE_BUF_BYTES, filled by read and drained by write straight from it;
 * it grows, up to BRIDGE_LINE_MAX, only while one line does not fit, and
 * shrinks back once empty.  A side is not read while the buffer it feeds
 * is full, so a slow reader slows its writer and memory stays bounded.
 * Only complete lines are written on (a longer line than BRIDGE_LINE_MAX
 * streams through untracked, as mcpd would refuse it anyway); each line
 * is looked at once, with envelope_scan, on the way.  Only pipes and
 * sockets are made non-blocking (ttys and files are shared with other
 * processes and are always ready for poll anyway) and their flags are
 * restored on exit.
 *
 * The bridge is a state machine.  Each turn writes what the buffers hold
 * (which makes room for reading), takes the transitions that allows,
 * polls, and reads; what happens to each side moves it on:
 *
 *   DOWN -- attached --> REPLAY -- the replayed initialize answered
 *    ^  |                  |       as before --> RELAY
 *    |  +-- attached, no initialize to replay ---> RELAY
 *    |
 *    +-- (reconnecting) mcpd closes or takes no bytes, from RELAY or
 *        REPLAY: the client's requests in flight answered with an error
 *
 * A 2026-07-28 client sends no initialize: its open subscriptions/listen
 * requests are not failed at a loss but sent again, ahead of what waits,
 * straight in RELAY (bsess.h); giving up, or a last close, fails them.
 *
 *   RELAY -- stdin ends --> IN_ENDED -- its last bytes sent to mcpd:
 *     |                        |        shutdown(SHUT_WR) --> HALF_CLOSED
 *     |                        |                                  |
 *     +-- sending to mcpd fails, from either --> SOCK_DEAD        |
 *     |                        |                    |             |
 *     +-- mcpd closes, from either, or SOCK_DEAD ---+--> LOST     |
 *         (from RELAY and SOCK_DEAD only when not reconnecting)   |
 *                                          mcpd closes --> FINISHING
 *
 *   LOST, SOCK_DEAD -- stdout took all (LOST), or BRIDGE_GRACE_MS
 *       without a byte moving --> DONE: "mcpd closed the connection",
 *       exit 1 (or, reconnecting, SOCK_DEAD --> DOWN)
 *   FINISHING -- the same --> DONE: exit 0
 *   DOWN, REPLAY -- the reconnect timeout runs out, mcpd refuses the
 *       attach, or the server now speaks another protocol version: the
 *       waiting requests answered with an error --> LOST (with that
 *       message and exit code)
 *   DOWN -- stdin ended with nothing waiting --> DONE: exit 0
 *   any state -- the client leaves (EPIPE, or a hangup on stdout with
 *       nothing left for it) --> DONE: exit 0
 *   any state -- stdout fails or is not open, poll fails --> DONE: exit 1
 *
 * The bridge starts in DOWN (first try at once; with --no-reconnect a
 * failure ends it as before).  In DOWN and REPLAY stdin is still read but
 * its lines wait in their buffer (at most BRIDGE_BUF_BYTES; then stdin is
 * not read) until RELAY.  Tries follow BRIDGE_BACKOFF_FIRST_MS doubling
 * to BRIDGE_BACKOFF_MAX_MS; connecting and attaching block, for at most
 * CONNECT_ATTACH_TIMEOUT_MS.
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

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bridge.h"
#include "bsess.h"
#include "clock.h"
#include "conf.h"
#include "connect.h"
#include "diag.h"
#include "envelope.h"
#include "proto.h"
#include "xmalloc.h"

#define BRIDGE_BUF_BYTES	(256 * 1024)	/* per direction */
/* The longest line looked at: mcpd's default max_message_bytes. */
#define BRIDGE_LINE_MAX		CONF_DEFAULT_MAX_MESSAGE_BYTES
/* Once the socket has ended: most time stdout may take to drain. */
#define BRIDGE_GRACE_MS		2000
#define BRIDGE_BACKOFF_FIRST_MS	50
#define BRIDGE_BACKOFF_MAX_MS	2000
#define BRIDGE_EOF		(-1)	/* a side ended without an error */

/* What the client's requests get when mcpd goes away under them. */
#define BRIDGE_MSG_LOST		"mcpd closed the connection; reconnecting"
#define BRIDGE_MSG_CLOSED	"mcpd closed the connection"

enum bridge_state {
	BRIDGE_DOWN,		/* no connection: (re)connecting */
	BRIDGE_REPLAY,		/* attached; the session is being replayed */
	BRIDGE_RELAY,		/* both ways open */
	BRIDGE_IN_ENDED,	/* stdin ended; its last bytes go to mcpd */
	BRIDGE_HALF_CLOSED,	/* we said all; mcpd's answers still come */
	BRIDGE_SOCK_DEAD,	/* mcpd takes no bytes: read what it left */
	BRIDGE_LOST,		/* mcpd closed on us: stdout gets the rest */
	BRIDGE_FINISHING,	/* mcpd closed after us: stdout gets the rest */
	BRIDGE_DONE,		/* rc is the exit code */
};

/*
 * One direction: buf[off, cut) is to be written, buf[cut, end) has not
 * been looked at as a whole line yet (and is searched for '\n' up to
 * scan).  0 <= off <= cut <= scan <= end <= cap.
 */
struct bridge_buf {
	char	*buf;
	size_t	 cap;
	size_t	 off;
	size_t	 cut;
	size_t	 scan;
	size_t	 end;
	int	 long_line;	/* a line over BRIDGE_LINE_MAX passes as read */
	int	 skip;		/* drop bytes up to the next newline */
};

struct bridge_fd {
	int	 fd;
	int	 saved_flags;	/* -1: left as it was */
};

struct bridge {
	enum bridge_state	 state;
	int			 rc;
	char			*label;		/* "connect NAME" */
	const char		*socket_path;
	const char		*server;
	int			 sock;		/* -1 in DOWN */
	struct bridge_buf	 up;		/* stdin to socket */
	struct bridge_buf	 down;		/* socket to stdout */
	struct bridge_fd	 in;
	struct bridge_fd	 out;
	uint64_t		 last_progress;	/* a byte moved, or an end */
	int			 sock_errno;	/* why the socket ended */
	int			 in_eof;	/* stdin has ended */

	/* The session, when reconnecting (track). */
	int			 track;		/* lines are looked at */
	long			 timeout_s;	/* 0: wait forever */
	struct bsess		*sess;
	uint64_t		 deadline;	/* of this reconnect; 0: none */
	uint64_t		 next_try;
	unsigned		 delay_ms;
	uint64_t		 lost_at;
	int			 attached;	/* ever */
	/*
	 * Who this bridge is to mcpd across its connections (the tasks its
	 * client started are this principal's): asked for at the first
	 * attach, presented at each after; in memory only.
	 */
	char			 principal[CONNECT_PRINCIPAL_LEN + 1];
	int			 last_try;	/* no more tries after this */
	int			 resume;	/* the replay's outcome came */
	int			 end_rc;	/* given up: the exit code */
	int			 said_untracked;
	int			 said_unreplayable;
	int			 said_stale;
};

static void	bridge_lines(struct bridge *, struct bridge_buf *);

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

/*
 * The buffers.
 */

static void
bridge_buf_init(struct bridge_buf *bb)
{
	memset(bb, 0, sizeof *bb);
	bb->cap = BRIDGE_BUF_BYTES;
	bb->buf = xmalloc(bb->cap);
}

/* Bytes to write. */
static size_t
bridge_buf_pending(const struct bridge_buf *bb)
{
	return (bb->cut - bb->off);
}

/* Move what is held to the start of the buffer. */
static void
bridge_buf_compact(struct bridge_buf *bb)
{
	size_t	 n = bb->off;

	if (n == 0)
		return;
	memmove(bb->buf, bb->buf + n, bb->end - n);
	bb->off = 0;
	bb->cut -= n;
	bb->scan -= n;
	bb->end -= n;
}

/* Nothing held: start again at the front, at the first size. */
static void
bridge_buf_reset(struct bridge_buf *bb)
{
	bb->off = bb->cut = bb->scan = bb->end = 0;
	if (bb->cap > BRIDGE_BUF_BYTES) {
		free(bb->buf);
		bb->cap = BRIDGE_BUF_BYTES;
		bb->buf = xmalloc(bb->cap);
	}
}

/*
 * Make room to read, if reading is allowed now: 0 when the buffer is full
 * of what must be written (or of lines that wait) first.
 */
static int
bridge_buf_room(struct bridge_buf *bb, int paused)
{
	if (bb->end < bb->cap)
		return (1);
	if (bb->off > 0) {
		bridge_buf_compact(bb);
		return (1);
	}
	if (bb->cut > bb->off || paused || bb->scan < bb->end)
		return (0);
	/* One line fills the buffer. */
	if (bb->cap < BRIDGE_LINE_MAX) {
		bb->cap = bb->cap * 2 < BRIDGE_LINE_MAX ? bb->cap * 2 :
		    BRIDGE_LINE_MAX;
		bb->buf = xrealloc(bb->buf, bb->cap);
	} else {
		/* Longer than any line mcpd takes: let it stream past. */
		bb->long_line = 1;
		bb->cut = bb->scan = bb->end;
	}
	return (0);
}

/* Whether a read would find room (without moving anything). */
static int
bridge_buf_can_read(const struct bridge_buf *bb, int paused)
{
	if (bb->end < bb->cap || bb->off > 0)
		return (1);
	return (bb->cut == bb->off && !paused && bb->scan == bb->end);
}

/* Read into the buffer: bytes read, 0 at EOF, -1 (errno). */
static ssize_t
bridge_buf_read(struct bridge_buf *bb, int fd, int paused)
{
	ssize_t	 n;

	if (bb->end == bb->cap) {
		(void)bridge_buf_room(bb, paused);
		if (bb->end == bb->cap) {
			errno = EAGAIN;
			return (-1);
		}
	} else if (bb->off > 0 && bb->cap - bb->end < bb->cap / 4)
		bridge_buf_compact(bb);	/* keep reads large */
	do
		n = read(fd, bb->buf + bb->end, bb->cap - bb->end);
	while (n == -1 && errno == EINTR);
	if (n > 0)
		bb->end += (size_t)n;
	return (n);
}

/* Write what is to be written: bytes written or -1 (errno). */
static ssize_t
bridge_buf_write(struct bridge_buf *bb, int fd)
{
	ssize_t	 n;

	do
		n = write(fd, bb->buf + bb->off, bb->cut - bb->off);
	while (n == -1 && errno == EINTR);
	if (n > 0) {
		bb->off += (size_t)n;
		if (bb->off == bb->end)
			bridge_buf_reset(bb);
	}
	return (n);
}

/*
 * Put text to be written next, before what has not been looked at yet.
 * 0, or -1 if it cannot fit (the buffer would pass BRIDGE_LINE_MAX plus
 * BRIDGE_BUF_BYTES) or a long line is streaming through.
 */
static int
bridge_buf_insert(struct bridge_buf *bb, const char *text, size_t n)
{
	size_t	 need;

	if (bb->long_line)
		return (-1);
	if (bb->cap - bb->end < n) {
		bridge_buf_compact(bb);
		if (bb->cap - bb->end < n) {
			need = bb->end + n;
			if (need > BRIDGE_LINE_MAX + BRIDGE_BUF_BYTES)
				return (-1);
			bb->cap = need > bb->cap * 2 ? need : bb->cap * 2;
			bb->buf = xrealloc(bb->buf, bb->cap);
		}
	}
	memmove(bb->buf + bb->cut + n, bb->buf + bb->cut, bb->end - bb->cut);
	memcpy(bb->buf + bb->cut, text, n);
	bb->cut += n;
	bb->scan += n;
	bb->end += n;
	return (0);
}

/* Take buf[cut, to) out: it is never written. */
static void
bridge_buf_drop(struct bridge_buf *bb, size_t to)
{
	if (bb->cut == bb->off) {
		bb->off = bb->cut = bb->scan = to;
		if (bb->off == bb->end)
			bridge_buf_reset(bb);
		return;
	}
	memmove(bb->buf + bb->cut, bb->buf + to, bb->end - to);
	bb->end -= to - bb->cut;
	bb->scan = bb->cut;
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
	    b->state == BRIDGE_HALF_CLOSED || b->state == BRIDGE_SOCK_DEAD ||
	    b->state == BRIDGE_REPLAY);
}

/* Is stdin read in this state? */
static int
bridge_reads_stdin(const struct bridge *b)
{
	return (!b->in_eof && (b->state == BRIDGE_RELAY ||
	    b->state == BRIDGE_DOWN || b->state == BRIDGE_REPLAY));
}

/* Do the client's lines wait (not looked at, not sent)? */
static int
bridge_up_paused(const struct bridge *b)
{
	return (b->state == BRIDGE_DOWN || b->state == BRIDGE_REPLAY);
}

/* Is the socket over, so that stdout has BRIDGE_GRACE_MS to drain? */
static int
bridge_in_grace(const struct bridge *b)
{
	return (b->state == BRIDGE_SOCK_DEAD || b->state == BRIDGE_LOST ||
	    b->state == BRIDGE_FINISHING);
}

/*
 * Lines.
 */

static void
bridge_progress(struct bridge *b)
{
	b->last_progress = clock_now_ms();
}

/* A line from the client: FORWARD or DROP (bsess.h). */
static enum bsess_verdict
bridge_from_client(struct bridge *b, const char *line, size_t len)
{
	struct envelope		 env;
	enum bsess_verdict	 v;
	size_t			 err;
	int			 ok, untracked;

	ok = envelope_scan(line, len, &env, &err) == 0;
	v = bsess_from_client(b->sess, line, len, &env, ok, &untracked);
	if (untracked == BSESS_UNTRACKED && !b->said_untracked) {
		diag_warnx(b->label, "a request passed untracked (over %d in "
		    "flight, or an id over %d bytes): if mcpd goes away it "
		    "gets no answer", BSESS_MAX_INFLIGHT, BSESS_ID_MAX_BYTES);
		b->said_untracked = 1;
	}
	if (untracked == BSESS_UNREPLAYABLE && !b->said_unreplayable) {
		diag_warnx(b->label, "a subscriptions/listen over the bounds "
		    "kept (%d, of %d bytes) will not be sent again if mcpd "
		    "goes away", BSESS_MAX_LISTENS, BSESS_LISTEN_MAX_BYTES);
		b->said_unreplayable = 1;
	}
	if (v == BSESS_DROP && !b->said_stale) {
		diag_warnx(b->label, "dropped the client's reply to a request "
		    "of the lost connection (and will drop any others)");
		b->said_stale = 1;
	}
	return (v);
}

/* A line from mcpd: FORWARD or SWALLOW. */
static enum bsess_verdict
bridge_from_server(struct bridge *b, const char *line, size_t len)
{
	struct envelope		 env;
	enum bsess_verdict	 v;
	size_t			 err;
	int			 ok;

	ok = envelope_scan(line, len, &env, &err) == 0;
	v = bsess_from_server(b->sess, line, len, &env, ok);
	if (v == BSESS_SWALLOW && b->state == BRIDGE_REPLAY &&
	    bsess_replay_outcome(b->sess) != BSESS_INIT_PENDING)
		b->resume = 1;
	return (v);
}

/*
 * Look at the complete lines that came into bb: each is passed on (made
 * writable) or taken out.  Without tracking, every byte passes as read.
 */
static void
bridge_lines(struct bridge *b, struct bridge_buf *bb)
{
	enum bsess_verdict	 v;
	char			*nl;
	size_t			 to;

	if (!b->track) {
		bb->cut = bb->scan = bb->end;
		return;
	}
	for (;;) {
		if (bb->skip) {
			nl = memchr(bb->buf + bb->cut, '\n',
			    bb->end - bb->cut);
			bridge_buf_drop(bb, nl == NULL ? bb->end :
			    (size_t)(nl - bb->buf) + 1);
			if (nl == NULL)
				return;
			bb->skip = 0;
			continue;
		}
		nl = memchr(bb->buf + bb->scan, '\n', bb->end - bb->scan);
		if (bb->long_line) {
			bb->cut = bb->scan = nl == NULL ? bb->end :
			    (size_t)(nl - bb->buf) + 1;
			if (nl == NULL)
				return;
			bb->long_line = 0;
			continue;
		}
		if (bb == &b->up && bridge_up_paused(b))
			return;
		if (nl == NULL) {
			bb->scan = bb->end;
			return;
		}
		to = (size_t)(nl - bb->buf) + 1;
		if (bb == &b->up)
			v = bridge_from_client(b, bb->buf + bb->cut,
			    to - 1 - bb->cut);
		else
			v = bridge_from_server(b, bb->buf + bb->cut,
			    to - 1 - bb->cut);
		if (v == BSESS_FORWARD)
			bb->cut = bb->scan = to;
		else
			bridge_buf_drop(bb, to);
	}
}

/*
 * Transitions.
 */

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

/* Tell the client: an error reply to id. */
static void
bridge_answer(struct bridge *b, const char *id, size_t idlen, int code,
    const char *message)
{
	char	 line[BSESS_ID_MAX_BYTES + 256];
	size_t	 n;

	if ((n = bsess_error_line(line, sizeof line, id, idlen, code,
	    message)) == 0)
		return;
	if (bridge_buf_insert(&b->down, line, n) != 0)
		diag_warnx(b->label, "no room to answer a request: stdout "
		    "is not taking what it is given");
}

/*
 * Answer the client's requests in flight, and its open listens if they
 * are not to be sent again; returns how many requests.
 */
static size_t
bridge_answer_inflight(struct bridge *b, const char *message, int listens)
{
	struct bsess_iter	 it;
	const char		*id;
	size_t			 idlen, n = 0;

	bsess_inflight_first(b->sess, &it);
	while (bsess_inflight_next(&it, &id, &idlen)) {
		bridge_answer(b, id, idlen, RPC_CONNECTION_CLOSED, message);
		n++;
	}
	bsess_listen_first(b->sess, &it);
	while (listens && bsess_listen_next(&it, &id, &idlen))
		bridge_answer(b, id, idlen, RPC_CONNECTION_CLOSED, message);
	return (n);
}

/* Answer the requests among the lines that wait in up; returns how many. */
static size_t
bridge_answer_waiting(struct bridge *b, const char *message)
{
	struct bridge_buf	*bb = &b->up;
	struct envelope		 env;
	char			*p, *nl;
	size_t			 err, n = 0;

	if (!b->track || bb->long_line || bb->skip)
		return (0);
	for (p = bb->buf + bb->cut; (nl = memchr(p, '\n',
	    (size_t)(bb->buf + bb->end - p))) != NULL; p = nl + 1) {
		if (envelope_scan(p, (size_t)(nl - p), &env, &err) != 0 ||
		    env.method.type != ENVELOPE_STRING ||
		    (env.id.type != ENVELOPE_STRING &&
		    env.id.type != ENVELOPE_NUMBER))
			continue;
		bridge_answer(b, p + env.id.off, env.id.len,
		    MCPD_ERR_SERVER_UNAVAILABLE, message);
		n++;
	}
	bb->off = bb->cut = bb->scan = bb->end;
	return (n);
}

/* SOCK_DEAD, LOST, FINISHING -> DONE: stdout has all, or the grace ran out. */
static void
bridge_end(struct bridge *b)
{
	if (b->state == BRIDGE_FINISHING) {
		bridge_client_left(b);
		return;
	}
	if (b->end_rc != 0) {
		/* Given up on reconnecting: the reason was said. */
		if (bridge_buf_pending(&b->down) > 0)
			diag_warnx(b->label, "stdout did not take the last "
			    "%zu bytes", bridge_buf_pending(&b->down));
		b->state = BRIDGE_DONE;
		b->rc = b->end_rc;
		return;
	}
	if (bridge_buf_pending(&b->down) > 0)
		bridge_fail(b, "mcpd closed the connection; stdout did not "
		    "take the last %zu bytes", bridge_buf_pending(&b->down));
	else if (b->sock_errno != 0 && b->sock_errno != EPIPE &&
	    b->sock_errno != ECONNRESET)
		bridge_fail(b, "mcpd closed the connection: %s",
		    strerror(b->sock_errno));
	else
		bridge_fail(b, "mcpd closed the connection");
}

/*
 * DOWN, REPLAY -> LOST: the session cannot go on (rc; why, if not said
 * already).  The waiting requests are answered; stdout gets the rest.
 */
static void __attribute__((format(printf, 3, 4)))
bridge_give_up(struct bridge *b, int rc, const char *fmt, ...)
{
	va_list	 ap;
	char	*why = NULL;

	if (fmt != NULL) {
		va_start(ap, fmt);
		if (vasprintf(&why, fmt, ap) == -1)
			why = NULL;
		va_end(ap);
		if (why != NULL)
			diag_warnx(b->label, "%s", why);
	}
	(void)bridge_answer_waiting(b, b->attached ? "the connection to "
	    "mcpd was lost and could not be made again" : "mcpd could not "
	    "be reached");
	(void)bridge_answer_inflight(b, "the connection to mcpd was lost "
	    "and could not be made again", 1);
	free(why);
	if (b->sock != -1) {
		close(b->sock);
		b->sock = -1;
	}
	b->end_rc = rc != DIAG_EXIT_OK ? rc : DIAG_EXIT_FAILED;
	b->state = BRIDGE_LOST;
	bridge_progress(b);
}

/* RELAY, SOCK_DEAD, REPLAY -> DOWN: mcpd went away; try again. */
static void
bridge_lose(struct bridge *b)
{
	size_t	 n, stale;

	close(b->sock);
	b->sock = -1;
	b->lost_at = clock_now_ms();
	/* mcpd's half line goes; a long line that streamed is ended. */
	if (b->down.long_line) {
		b->down.long_line = 0;
		(void)bridge_buf_insert(&b->down, "\n", 1);
		diag_warnx(b->label, "a message from mcpd was cut short");
	} else
		b->down.end = b->down.scan = b->down.cut;
	/* What was on its way to mcpd is lost with it. */
	if (b->up.long_line) {
		b->up.long_line = 0;
		b->up.skip = 1;
	}
	b->up.off = b->up.cut;
	if (b->up.off == b->up.end)
		bridge_buf_reset(&b->up);
	n = bridge_answer_inflight(b, BRIDGE_MSG_LOST, 0);
	stale = bsess_lost(b->sess);
	if (b->state == BRIDGE_REPLAY)
		diag_warnx(b->label, "mcpd closed the connection again; "
		    "reconnecting");
	else {
		diag_warnx(b->label, "mcpd closed the connection%s%s; "
		    "reconnecting (%zu request%s in flight failed)",
		    b->sock_errno != 0 ? ": " : "", b->sock_errno != 0 ?
		    strerror(b->sock_errno) : "", n, n == 1 ? "" : "s");
		if (b->timeout_s > 0)
			b->deadline = b->lost_at +
			    (uint64_t)b->timeout_s * 1000;
	}
	if (stale > 0)
		diag_warnx(b->label, "%zu request%s from the server to the "
		    "client went with it; late replies are dropped", stale,
		    stale == 1 ? "" : "s");
	if ((n = bsess_listens(b->sess)) > 0)
		diag_warnx(b->label, "%zu subscriptions/listen of the client's "
		    "to send again", n);
	b->sock_errno = 0;
	b->delay_ms = 0;
	b->next_try = b->lost_at;
	b->state = BRIDGE_DOWN;
	bridge_progress(b);
}

/* The socket is gone: reconnect, or end as the state says. */
static int
bridge_may_reconnect(const struct bridge *b)
{
	return (b->track && !b->in_eof && (b->state == BRIDGE_RELAY ||
	    b->state == BRIDGE_SOCK_DEAD || b->state == BRIDGE_REPLAY));
}

/* RELAY -> IN_ENDED: stdin ended (err: BRIDGE_EOF, or why it failed). */
static void
bridge_stdin_ended(struct bridge *b, int err)
{
	if (err != BRIDGE_EOF)
		diag_warnx(b->label, "read stdin: %s", strerror(err));
	b->in_eof = 1;
	if (b->state == BRIDGE_RELAY) {
		/* A last line without its newline goes as it is. */
		if (b->up.skip)
			bridge_buf_drop(&b->up, b->up.end);
		b->up.cut = b->up.scan = b->up.end;
		b->state = BRIDGE_IN_ENDED;
	}
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
	if (b->state == BRIDGE_REPLAY) {
		bridge_lose(b);
		return;
	}
	/* Nothing more goes there (the requests are answered later). */
	b->up.off = b->up.cut;
	if (b->up.off == b->up.end)
		bridge_buf_reset(&b->up);
	if (b->state == BRIDGE_RELAY || b->state == BRIDGE_IN_ENDED)
		b->state = BRIDGE_SOCK_DEAD;
}

/* HALF_CLOSED -> FINISHING, the others -> LOST or DOWN: mcpd closed. */
static void
bridge_sock_ended(struct bridge *b, int err)
{
	if (err != BRIDGE_EOF && err != ECONNRESET)
		b->sock_errno = err;
	if (bridge_may_reconnect(b)) {
		bridge_lose(b);
		return;
	}
	if (b->track) {
		/* Nobody is going to answer these now. */
		if (b->down.long_line) {
			b->down.long_line = 0;
			(void)bridge_buf_insert(&b->down, "\n", 1);
		} else
			b->down.end = b->down.scan = b->down.cut;
		(void)bridge_answer_inflight(b, BRIDGE_MSG_CLOSED, 1);
		if (bridge_up_paused(b))
			(void)bridge_answer_waiting(b, BRIDGE_MSG_CLOSED);
	}
	b->state = b->state == BRIDGE_HALF_CLOSED ? BRIDGE_FINISHING :
	    BRIDGE_LOST;
	bridge_progress(b);
}

/* REPLAY -> RELAY (or IN_ENDED): the session is as it was. */
static void
bridge_resume(struct bridge *b)
{
	static const struct {
		unsigned	 bit;
		const char	*line;
	} lists[] = {
		{ BSESS_LIST_TOOLS, "{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"notifications/tools/list_changed\"}\n" },
		{ BSESS_LIST_PROMPTS, "{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"notifications/prompts/list_changed\"}\n" },
		{ BSESS_LIST_RESOURCES, "{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"notifications/resources/list_changed\"}\n" },
	};
	enum bsess_init	 outcome = bsess_replay_outcome(b->sess);
	size_t		 i;

	b->resume = 0;
	if (outcome == BSESS_INIT_VERSION) {
		bridge_give_up(b, DIAG_EXIT_FAILED, "the server now speaks "
		    "another protocol version than the client's session; "
		    "the client must start a new session");
		return;
	}
	if (outcome != BSESS_INIT_SAME && outcome != BSESS_INIT_CHANGED) {
		bridge_give_up(b, DIAG_EXIT_FAILED, "the server refused the "
		    "client's initialize on the new connection");
		return;
	}
	if (outcome == BSESS_INIT_CHANGED) {
		diag_warnx(b->label, "the server is not the one it was "
		    "(capabilities or serverInfo differ): telling the client "
		    "its lists changed");
		for (i = 0; i < sizeof lists / sizeof lists[0]; i++)
			if ((bsess_lists(b->sess) & lists[i].bit) &&
			    bridge_buf_insert(&b->down, lists[i].line,
			    strlen(lists[i].line)) != 0)
				diag_warnx(b->label, "no room to tell the "
				    "client its lists changed");
	}
	diag_warnx(b->label, "session restored %llu ms after the connection "
	    "was lost", (unsigned long long)(clock_now_ms() - b->lost_at));
	b->state = BRIDGE_RELAY;
	b->deadline = 0;
	bridge_lines(b, &b->up);
	if (b->in_eof)
		bridge_stdin_ended(b, BRIDGE_EOF);
}

/* DOWN: one try at connecting and attaching. */
static void
bridge_try(struct bridge *b)
{
	char		*extra, *text;
	size_t		 extra_len, len;
	uint64_t	 now;
	int		 rc, last, flags;

	now = clock_now_ms();
	last = !b->track || b->last_try ||
	    (b->deadline != 0 && now >= b->deadline);
	rc = connect_attach_try(b->socket_path, b->server, b->label, !last &&
	    b->track, &b->sock, &extra, &extra_len, b->principal);
	if (rc == DIAG_EXIT_UNREACHABLE && !last) {
		if (!b->attached && b->delay_ms == 0)
			diag_warnx(b->label, "cannot reach mcpd at %s yet; "
			    "trying again", b->socket_path);
		b->delay_ms = b->delay_ms == 0 ? BRIDGE_BACKOFF_FIRST_MS :
		    b->delay_ms * 2 > BRIDGE_BACKOFF_MAX_MS ?
		    BRIDGE_BACKOFF_MAX_MS : b->delay_ms * 2;
		b->next_try = clock_now_ms() + b->delay_ms;
		if (b->deadline != 0 && b->next_try > b->deadline)
			b->next_try = b->deadline;
		b->sock = -1;
		return;
	}
	if (rc != DIAG_EXIT_OK) {
		b->sock = -1;
		if (!b->track && !b->attached) {
			b->state = BRIDGE_DONE;	/* as it always was */
			b->rc = rc;
			return;
		}
		if (rc == DIAG_EXIT_UNREACHABLE && b->attached)
			bridge_give_up(b, rc, "mcpd did not come back within "
			    "%ld s", b->timeout_s);
		else
			bridge_give_up(b, rc, NULL);
		return;
	}

	if ((flags = fcntl(b->sock, F_GETFL)) != -1)
		(void)fcntl(b->sock, F_SETFL, flags | O_NONBLOCK);
	b->state = BRIDGE_RELAY;
	if (b->attached) {
		if ((text = bsess_replay(b->sess, &len)) != NULL) {
			/* Before what waits, which goes once it is done. */
			rc = bridge_buf_insert(&b->up, text, len);
			free(text);
			if (rc != 0) {
				free(extra);
				bridge_give_up(b, DIAG_EXIT_FAILED, "the "
				    "session is too large to replay (%zu "
				    "bytes)", len);
				return;
			}
			/* Only an initialize is waited for. */
			if (bsess_replay_outcome(b->sess) ==
			    BSESS_INIT_PENDING)
				b->state = BRIDGE_REPLAY;
		}
	}
	b->attached = 1;
	if (extra_len > 0) {
		if (bridge_buf_insert(&b->down, extra, extra_len) != 0) {
			free(extra);
			bridge_give_up(b, DIAG_EXIT_FAILED, "stdout is not "
			    "taking what it is given");
			return;
		}
		/* Not written before it is looked at. */
		b->down.cut -= extra_len;
		b->down.scan = b->down.cut;
		bridge_lines(b, &b->down);
	}
	free(extra);
	bridge_progress(b);
	if (b->state == BRIDGE_RELAY) {
		b->deadline = 0;
		if (b->lost_at != 0)
			diag_warnx(b->label, "connected again %llu ms after "
			    "the connection was lost",
			    (unsigned long long)(clock_now_ms() - b->lost_at));
		bridge_lines(b, &b->up);
		if (b->in_eof)
			bridge_stdin_ended(b, BRIDGE_EOF);
	}
}

/*
 * Events.
 */

/* stdout can take bytes (or the buffer is tried anyway). */
static void
bridge_on_stdout_ready(struct bridge *b)
{
	ssize_t	 n;

	if ((n = bridge_buf_write(&b->down, STDOUT_FILENO)) > 0)
		bridge_progress(b);
	if (n >= 0 || bridge_would_block())
		return;
	if (errno == EPIPE)
		bridge_client_left(b);
	else
		bridge_fail(b, "write stdout: %s", strerror(errno));
}

static void
bridge_on_sock_writable(struct bridge *b)
{
	ssize_t	 n;

	if ((n = bridge_buf_write(&b->up, b->sock)) > 0)
		bridge_progress(b);
	if (n >= 0 || bridge_would_block())
		return;
	bridge_sock_unsendable(b, errno);
}

static void
bridge_on_sock_readable(struct bridge *b)
{
	ssize_t	 n;

	n = bridge_buf_read(&b->down, b->sock, 0);
	if (n > 0) {
		bridge_progress(b);
		bridge_lines(b, &b->down);
		if (b->resume)
			bridge_resume(b);
		return;
	}
	if (n == -1 && bridge_would_block())
		return;
	bridge_sock_ended(b, n == 0 ? BRIDGE_EOF : errno);
}

static void
bridge_on_stdin_readable(struct bridge *b)
{
	ssize_t	 n;

	n = bridge_buf_read(&b->up, STDIN_FILENO, bridge_up_paused(b));
	if (n > 0) {
		bridge_progress(b);
		bridge_lines(b, &b->up);
		return;
	}
	if (n == -1 && bridge_would_block())
		return;
	bridge_stdin_ended(b, n == 0 ? BRIDGE_EOF : errno);
}

/* Milliseconds until t, at least 0, at most INT32_MAX. */
static int
bridge_until(uint64_t t)
{
	uint64_t	 now = clock_now_ms();

	if (t <= now)
		return (0);
	return (t - now > INT32_MAX ? INT32_MAX : (int)(t - now));
}

/*
 * What to wait for in this state; *timeout_ms is -1, or what is left of
 * the grace or until the next try.  0 if the grace has run out.
 */
static int
bridge_poll_set(const struct bridge *b, struct pollfd pfd[3],
    int *timeout_ms)
{
	int64_t	 idle;
	int	 t;

	pfd[0].fd = -1;
	pfd[0].events = POLLIN;
	if (bridge_reads_stdin(b) &&
	    bridge_buf_can_read(&b->up, bridge_up_paused(b)))
		pfd[0].fd = STDIN_FILENO;
	pfd[1].fd = b->sock;
	pfd[1].events = 0;
	if (b->sock != -1) {
		if (bridge_reads_sock(b) && bridge_buf_can_read(&b->down, 0))
			pfd[1].events |= POLLIN;
		if (bridge_buf_pending(&b->up) > 0)
			pfd[1].events |= POLLOUT;
	}
	if (pfd[1].events == 0)
		pfd[1].fd = -1;	/* or a hangup would spin */
	/* With nothing to write, still notice the client leaving. */
	pfd[2].fd = STDOUT_FILENO;
	pfd[2].events = bridge_buf_pending(&b->down) > 0 ? POLLOUT : 0;

	*timeout_ms = -1;
	if (bridge_in_grace(b)) {
		idle = (int64_t)clock_now_ms() - (int64_t)b->last_progress;
		if (idle >= BRIDGE_GRACE_MS)
			return (0);
		*timeout_ms = (int)(BRIDGE_GRACE_MS - idle);
	}
	if (b->state == BRIDGE_DOWN)
		*timeout_ms = bridge_until(b->next_try);
	if (b->state == BRIDGE_REPLAY && b->deadline != 0) {
		t = bridge_until(b->deadline);
		*timeout_ms = t;
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
	if (bridge_buf_pending(&b->down) > 0) {
		bridge_on_stdout_ready(b);
		if (b->state == BRIDGE_DONE)
			return;
	}
	if (bridge_buf_pending(&b->up) > 0 && b->sock != -1)
		bridge_on_sock_writable(b);
	if (b->state == BRIDGE_IN_ENDED && b->up.end == b->up.off)
		bridge_half_close(b);
	if ((b->state == BRIDGE_LOST || b->state == BRIDGE_FINISHING) &&
	    bridge_buf_pending(&b->down) == 0) {
		bridge_end(b);
		return;
	}
	if (b->state == BRIDGE_DOWN) {
		if (b->in_eof && b->up.end == b->up.off &&
		    bridge_buf_pending(&b->down) == 0) {
			if (b->attached) {
				/* Nobody to reconnect for. */
				bridge_client_left(b);
				return;
			}
			/* Nothing to wait for: one last try, then say why. */
			b->last_try = 1;
			bridge_try(b);
			return;
		}
		if (clock_now_ms() >= b->next_try) {
			bridge_try(b);
			return;
		}
	}
	if (b->state == BRIDGE_REPLAY && b->deadline != 0 &&
	    clock_now_ms() >= b->deadline) {
		bridge_give_up(b, DIAG_EXIT_UNREACHABLE, "mcpd did not answer "
		    "the session's initialize within %ld s", b->timeout_s);
		return;
	}

	if (!bridge_poll_set(b, pfd, &timeout_ms)) {
		if (b->state == BRIDGE_SOCK_DEAD && bridge_may_reconnect(b))
			bridge_lose(b);
		else
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
	if (bridge_buf_pending(&b->down) == 0 &&
	    (pfd[2].revents & (POLLERR | POLLHUP))) {
		bridge_client_left(b);
		return;
	}
	if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR) &&
	    (pfd[1].events & POLLIN))
		bridge_on_sock_readable(b);
	if (pfd[0].revents != 0 && b->state != BRIDGE_DONE)
		bridge_on_stdin_readable(b);
}

int
bridge_run(const char *socket_path, const char *server, int reconnect,
    long timeout_s)
{
	struct bridge	 b;

	signal(SIGPIPE, SIG_IGN);
	memset(&b, 0, sizeof b);
	xasprintf(&b.label, "connect %s", server);
	b.socket_path = socket_path;
	b.server = server;
	b.sock = -1;
	b.track = reconnect;
	b.timeout_s = timeout_s;
	b.sess = bsess_new();
	bridge_buf_init(&b.up);
	bridge_buf_init(&b.down);
	b.state = BRIDGE_DOWN;
	b.next_try = clock_now_ms();
	if (reconnect && timeout_s > 0)
		b.deadline = b.next_try + (uint64_t)timeout_s * 1000;

	/* The first try, before stdin and stdout are touched. */
	bridge_try(&b);
	if (b.state != BRIDGE_DONE) {
		bridge_fd_prepare(&b.in, STDIN_FILENO);
		bridge_fd_prepare(&b.out, STDOUT_FILENO);
		bridge_progress(&b);
		while (b.state != BRIDGE_DONE)
			bridge_turn(&b);
		bridge_fd_restore(&b.in);
		bridge_fd_restore(&b.out);
	}

	if (b.sock != -1)
		close(b.sock);
	bsess_free(b.sess);
	free(b.up.buf);
	free(b.down.buf);
	free(b.label);
	return (b.rc);
}
