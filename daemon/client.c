/*
 * client.c -- connections on the control socket.
 *
 * Input is framed with the same framer as server output (bounded memory,
 * no rescans).  Output goes through an output queue (outq.h); a client
 * whose queue passes the configured output limits is disconnected, so a
 * client that stops reading cannot grow mcpd.
 *
 * Bad input never affects other clients: invalid JSON gets -32700 with a
 * null id, a message that is not JSON-RPC gets -32600, an over-long line
 * gets an error and the connection is closed after it is flushed.
 *
 * Connections cannot lock the administrator out.  A connection must send
 * its first line, and finish every line it starts, within
 * client_line_timeout_ms; one that has completed a line may then idle for
 * ever (attached sessions, log followers).  A peer that is not an admin
 * may hold at most max_connections_per_uid connections, and is refused
 * while fewer than the reserve of descriptors are free: part of it is
 * kept for server starts, the rest for admins, so `mcpctl status` and
 * restarts still work when others hold every other descriptor.  A refused
 * peer gets one JSON-RPC error line (id null) saying why before the close.
 * Once a second (client_cron_cb) the soft output limit is checked for
 * every client, so one that nothing more is queued for is still cut off,
 * and so is what a group session holds while the memory budget is used up.
 *
 * A connection that follows servers' stderr (mcpctl logs -f) only keeps
 * the set of their serials: logs.c fills it and queues the lines, through
 * client_first/client_next, client_follows and client_close.
 */
#include "config.h"

#include <sys/param.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "access.h"
#include "batch.h"
#include "budget.h"
#include "client.h"
#include "client_batch.h"
#include "client_int.h"
#include "client_modern.h"
#include "clock.h"
#include "conf.h"
#include "envelope.h"
#include "follow.h"
#include "fdio.h"
#include "frame.h"
#include "group.h"
#include "ident.h"
#include "log.h"
#include "mcpd.h"
#include "outq.h"
#include "principal.h"
#include "proto.h"
#include "router.h"
#include "rpc.h"
#include "util.h"
#include "xmalloc.h"

#define CLIENT_READS_PER_CALLBACK	16
#define CLIENT_HUP_CHECK_MS		200	/* half-closed: gone for good? */
#define CLIENT_CRON_MS			1000	/* output limits, fd count */
/* Descriptors kept free for server starts: four pipes, both ends, each. */
#define CLIENT_FDS_PER_SERVER_START	8
#define CLIENT_FD_SPAWN_RESERVE_MIN	32
/* More kept free that only admins may use (mcpctl status, reload). */
#define CLIENT_FD_ADMIN_RESERVE		32
/* A reserve never takes more than this fraction of the limit. */
#define CLIENT_FD_RESERVE_DIVISOR	8

struct client {
	struct mcpd		*mcpd;
	int			 fd;
	uint64_t		 serial;
	pid_t			 pid;
	uid_t			 uid;
	struct client_who	 who;		/* client_who.c */
	struct event		*ev_read;
	struct event		*ev_free;
	struct event		*ev_hup;
	struct event		*ev_line;	/* client_line_timeout_ms */
	struct frame		*frame;
	struct outq		*out;
	const struct client_handler *base;	/* control's, from the accept */
	void			*base_arg;
	const struct client_handler *session;	/* NULL: not attached */
	void			*session_arg;
	struct follow_set	 follows;	/* servers followed (serials) */
	struct client_batches	*batches;	/* NULL until its first batch */
	/*
	 * A 2026 client (client_modern.h), or NULL; era_known once its
	 * first request said which it is.
	 */
	struct modern		*modern;
	int			 era_known;
	uint64_t		 soft_since_ms;	/* over the soft limit since */
	size_t			 frame_counted;	/* input buffer, in the budget */
	int			 paused;	/* reading stopped: backpressure */
	int			 eof;		/* the client half-closed */
	int			 admin;		/* mcpd's uid or root */
	int			 closing;	/* close once flushed */
	int			 spoke;		/* has completed a line */
	int			 line_done;	/* completed one since the timer */
	int			 line_armed;	/* ev_line is added */
	int			 dead;
	TAILQ_ENTRY(client)	 entry;
};

/* Why a peer was refused or cut off: logged once a second each. */
enum client_cut {
	CLIENT_CUT_ACCESS,
	CLIENT_CUT_PER_UID,
	CLIENT_CUT_FDS,
	CLIENT_CUT_LINE,
	CLIENT_CUT_COUNT
};

static const char *client_cut_names[CLIENT_CUT_COUNT] = {
	[CLIENT_CUT_ACCESS] = "connections refused: peer not allowed",
	[CLIENT_CUT_PER_UID] = "connections refused: max_connections_per_uid",
	[CLIENT_CUT_FDS] = "connections refused: file descriptors reserved",
	[CLIENT_CUT_LINE] = "connections closed: client_line_timeout_ms",
};

/* What the clients share: the cron, the fd count, the log suppression. */
struct client_pool {
	struct event	*ev_cron;
	size_t		 fds_not_clients;	/* open fds, clients aside */
	struct {
		uint64_t logged_ms;
		uint64_t unlogged;
	}		 quiet[CLIENT_CUT_COUNT];
};

static void	client_line_timer(struct client *);
static void	client_line_disarm(struct client *);

int
client_is_admin(const struct client *c)
{
	return (c->admin);
}

uid_t
client_uid(const struct client *c)
{
	return (c->uid);
}

pid_t
client_pid(const struct client *c)
{
	return (c->pid);
}

int
client_fd(const struct client *c)
{
	return (c->fd);
}

static void
client_free_cb(evutil_socket_t fd, short events, void *arg)
{
	struct client	*c = arg;

	/* The session lets go first, then the base (log follows). */
	modern_free(c->modern);
	c->modern = NULL;
	if (c->session != NULL) {
		if (c->session->close != NULL)
			c->session->close(c, c->session_arg);
		c->session = NULL;
	}
	if (c->base->close != NULL)
		c->base->close(c, c->base_arg);
	if (c->who.principal_lasts)
		principal_release(c->mcpd, c->who.principal);
	ident_free(c->who.ident);
	ident_free(c->who.bridge_app);
	c->mcpd->nclients--;
	TAILQ_REMOVE(&c->mcpd->clients, c, entry);
	event_free(c->ev_read);
	event_free(c->ev_free);
	event_free(c->ev_hup);
	event_free(c->ev_line);
	budget_sub(c->mcpd, c->frame_counted);
	frame_free(c->frame);
	client_batches_free(c->batches);
	outq_free(c->out);
	close(c->fd);
	free(c);
}

void
client_lost(struct client *c, const char *reason)
{
	char		 pidtext[32], *exe;
	struct log_field f[2 + IDENT_LOG_FIELDS] = {
		{ MCPD_FIELD_CLIENT_PID, pidtext },
		{ MCPD_FIELD_REASON, reason },
	};

	if (c->dead)
		return;
	c->dead = 1;
	snprintf(pidtext, sizeof pidtext, "%ld", (long)c->pid);
	ident_log_fields(c->who.ident, f + 2, &exe);
	log_event(LOG_DEBUG, MCPD_MID_CLIENT_DISCONNECT, f, nitems(f),
	    "client %llu (pid %ld) disconnected: %s",
	    (unsigned long long)c->serial, (long)c->pid, reason);
	free(exe);
	event_del(c->ev_read);
	outq_stop(c->out);
	event_del(c->ev_hup);
	client_line_disarm(c);
	event_active(c->ev_free, EV_TIMEOUT, 0);
	if (c->session != NULL && c->session->lost != NULL)
		c->session->lost(c, c->session_arg);
	if (c->base->lost != NULL)
		c->base->lost(c, c->base_arg);
}

static void
client_written(void *arg, size_t left)
{
	struct client	*c = arg;

	if (c->soft_since_ms != 0 &&
	    left <= c->mcpd->conf->client_output_soft_bytes)
		c->soft_since_ms = 0;
	if (left == 0 && c->closing)
		client_lost(c, "closed by mcpd after an error");
}

static void
client_write_failed(void *arg, int error)
{
	client_lost(arg, strerror(error));
}

static const struct outq_cb client_outq_cb = {
	client_written,
	client_write_failed,
};

/*
 * Output limits (redis-style): over the hard limit, or over the soft limit
 * for longer than soft_s, the client is disconnected.  Checked whenever
 * something is queued, so a client that stops reading never holds more
 * than the hard limit, and once a second by client_cron_cb, so one that
 * nothing more is queued for is cut off all the same.
 */
static int
client_check_limits(struct client *c)
{
	const struct conf	*conf = c->mcpd->conf;
	size_t			 queued = outq_length(c->out);
	size_t			 held = c->batches == NULL ? 0 :
				    client_batches_held(c->batches);
	uint64_t		 now;
	char			*why;

	if (queued > conf->client_output_hard_bytes) {
		xasprintf(&why, "output queue of %zu bytes over the hard limit "
		    "(client_output_hard_bytes %zu); it is not reading",
		    queued, conf->client_output_hard_bytes);
		goto kill;
	}
	/* A batch's answers wait for the last: output, all the same. */
	if (held > 0 && queued + held > conf->client_output_hard_bytes) {
		xasprintf(&why, "output queue of %zu bytes and %zu bytes of "
		    "answers held for its batches over the hard limit "
		    "(client_output_hard_bytes %zu)", queued, held,
		    conf->client_output_hard_bytes);
		goto kill;
	}
	if (queued > BUDGET_SHARE_BYTES && budget_exhausted(c->mcpd)) {
		xasprintf(&why, "mcpd's memory budget (memory_budget_bytes "
		    "%zu) is used up and this client has %zu bytes of output "
		    "it has not read", conf->memory_budget_bytes, queued);
		goto kill;
	}
	if (conf->client_output_soft_bytes == 0 ||
	    queued <= conf->client_output_soft_bytes) {
		c->soft_since_ms = 0;
		return (0);
	}
	now = clock_now_ms();
	if (c->soft_since_ms == 0) {
		c->soft_since_ms = now;
		return (0);
	}
	if (now - c->soft_since_ms < (uint64_t)conf->client_output_soft_s *
	    1000)
		return (0);
	xasprintf(&why, "output queue over %zu bytes (client_output_soft_bytes) "
	    "for more than %u s; it is too slow", conf->client_output_soft_bytes,
	    conf->client_output_soft_s);
kill:
	log_warnx("client %llu (pid %ld): %s; disconnecting",
	    (unsigned long long)c->serial, (long)c->pid, why);
	client_lost(c, why);
	free(why);
	return (-1);
}

/* The layer's own output, past it. */
static void
client_modern_to_client(void *arg, const struct iovec *iov, int iovcnt)
{
	struct client	*c = arg;

	if (c->dead)
		return;
	outq_add(c->out, iov, iovcnt);
	client_check_limits(c);
}

/* Queue a message given as pieces; the newline is added. */
void
client_queue_iov(struct client *c, const struct iovec *iov, int iovcnt)
{
	if (c->dead)
		return;
	/* What goes to a 2026 client passes its layer. */
	if (c->modern != NULL) {
		modern_out_iov(c->modern, iov, iovcnt);
		return;
	}
	/* An answer to a batch's request waits for the batch's others. */
	if (c->batches == NULL || !client_batches_take(c->batches, iov,
	    iovcnt))
		outq_add(c->out, iov, iovcnt);
	client_check_limits(c);
}

/*
 * The same while a batch waits: in pieces, for the batch to look at.  Out
 * of line, so that the path without batches stays short.
 */
static __attribute__((noinline)) void
client_queue_edit_batched(struct client *c, const char *line, size_t len,
    const struct envelope_edit *edit)
{
	struct iovec	 iov[ENVELOPE_SPLICE_IOV(1)];
	size_t		 n;

	if ((n = envelope_splice(line, len, edit, 1, iov, nitems(iov))) > 0)
		client_queue_iov(c, iov, (int)n);
}

/* A line with one edit applied (outq_add_edit). */
void
client_queue_edit(struct client *c, const char *line, size_t len,
    const struct envelope_edit *edit)
{
	if (c->dead)
		return;
	if ((c->batches != NULL && client_batches_open(c->batches)) ||
	    c->modern != NULL) {
		client_queue_edit_batched(c, line, len, edit);
		return;
	}
	outq_add_edit(c->out, line, len, edit);
	client_check_limits(c);
}

/*
 * Like client_queue_iov, but pieces lying inside mem (a malloc'd buffer
 * of size bytes, which this takes over) are queued by reference, not
 * copied: a 16 MiB reply leaves mcpd without a second copy of itself.
 */
void
client_queue_iov_owned(struct client *c, const struct iovec *iov, int iovcnt,
    void *mem, size_t size)
{
	if (c->dead) {
		free(mem);
		return;
	}
	if ((c->batches != NULL && client_batches_open(c->batches)) ||
	    c->modern != NULL) {
		client_queue_iov(c, iov, iovcnt);
		free(mem);
		return;
	}
	outq_add_owned(c->out, iov, iovcnt, mem, size);
	client_check_limits(c);
}

/* Queue a line of text as is (newline added). */
void
client_queue_text(struct client *c, const char *text, size_t len)
{
	struct iovec	 iov;

	iov.iov_base = (void *)text;
	iov.iov_len = len;
	client_queue_iov(c, &iov, 1);
}

void
client_send_json(struct client *c, cJSON *msg)
{
	char	*text;

	text = rpc_print(msg);
	cJSON_Delete(msg);
	client_queue_text(c, text, strlen(text));
	free(text);
}

void
client_send_error(struct client *c, const cJSON *id, int code,
    const char *fmt, ...)
{
	va_list	 ap;
	char	*text;

	va_start(ap, fmt);
	xvasprintf(&text, fmt, ap);
	va_end(ap);
	client_send_json(c, rpc_make_error(id, code, text, NULL));
	free(text);
}

/* A session's handler first, the base the rest. */
static void
client_dispatch(struct client *c, const char *line, size_t len)
{
	if (c->session == NULL ||
	    c->session->line(c, c->session_arg, line, len) != 0)
		c->base->line(c, c->base_arg, line, len);
}

/* A batch's answer, or its one error: past the batches' hold. */
static void
client_batch_send(void *arg, const char *text, size_t len)
{
	struct client	*c = arg;

	if (c->dead)
		return;
	outq_add(c->out, &(struct iovec){ (void *)text, len }, 1);
	client_check_limits(c);
}

/* A message of a batch, as a line of its own. */
static void
client_batch_line(void *arg, const char *line, size_t len)
{
	struct client	*c = arg;

	if (!c->dead)
		client_dispatch(c, line, len);
}

/*
 * A JSON array: a batch, for a session whose MCP revision has them
 * (2025-03-26).  Any other session refuses it as any line that is not
 * one message: the handler's error, saying why when the line is one a
 * handler would read (invalid JSON, or over RPC_PARSE_MAX_BYTES, gets
 * its parse error).
 */
static __attribute__((noinline)) void
client_batch(struct client *c, const char *line, size_t len)
{
	if (c->session == NULL || c->session->batches == NULL ||
	    !c->session->batches(c->session_arg)) {
		if (len > RPC_PARSE_MAX_BYTES || !rpc_json_valid(line, len)) {
			client_dispatch(c, line, len);
			return;
		}
		client_send_error(c, NULL, RPC_INVALID_REQUEST, "invalid "
		    "request: a JSON-RPC batch; mcpd takes batches only in an "
		    "MCP session of protocol version 2025-03-26, the one that "
		    "has them");
		return;
	}
	if (c->batches == NULL)
		c->batches = client_batches_new(c->mcpd, client_batch_send, c);
	client_batches_run(c->batches, line, len, client_batch_line, c);
}

static void
client_modern_to_session(void *arg, const char *line, size_t len,
    const struct envelope *env)
{
	struct client	*c = arg;

	if (c->dead)
		return;
	if (env != NULL && c->session != NULL &&
	    c->session->line_env != NULL) {
		if (c->session->line_env(c, c->session_arg, line, len,
		    env) != 0)
			c->base->line(c, c->base_arg, line, len);
		return;
	}
	client_dispatch(c, line, len);
}

static uint64_t
client_modern_principal(void *arg)
{
	return (client_principal(arg));
}

static const struct modern_io client_modern_io = {
	.to_session = client_modern_to_session,
	.to_client = client_modern_to_client,
	.principal = client_modern_principal,
};

/*
 * An attached connection's first requests say its era: a 2026 one gets
 * the layer of client_modern.c in front of its session.  1 once the line
 * is taken.
 */
static __attribute__((noinline)) int
client_era(struct client *c, const char *line, size_t len)
{
	if (c->modern != NULL) {
		if (modern_in(c->modern, line, len))
			return (1);
		/* A 2025 handshake after a probe. */
		modern_free(c->modern);
		c->modern = NULL;
		c->era_known = 1;
		return (0);
	}
	switch (modern_open(c->mcpd, line, len, &client_modern_io, c,
	    &c->modern)) {
	case MODERN_OPEN_MODERN:
		return (1);
	case MODERN_OPEN_LEGACY:
		c->era_known = 1;
		return (0);
	default:
		return (0);
	}
}

/* The one way in: as client_dispatch, but for batches. */
static void
client_handle_line(struct client *c, const char *line, size_t len)
{
	if (len > 0 && line[0] != '{' && batch_is(line, len)) {
		client_batch(c, line, len);
		return;
	}
	if (c->session != NULL && !c->era_known &&
	    client_era(c, line, len))
		return;
	/* A cancellation ends a batch's wait for its request. */
	if (c->batches != NULL)
		client_batches_heard(c->batches, line, len);
	if (c->session == NULL ||
	    c->session->line(c, c->session_arg, line, len) != 0)
		c->base->line(c, c->base_arg, line, len);
}

static void
client_frames(struct client *c)
{
	struct frame_msg	 m;
	enum frame_event	 ev;

	while (!c->dead && !c->closing && !c->paused &&
	    (ev = frame_next(c->frame, &m)) != FRAME_NONE) {
		switch (ev) {
		case FRAME_LINE:
			c->spoke = 1;
			c->line_done = 1;
			client_handle_line(c, m.line, m.len);
			break;
		case FRAME_OVERSIZE:
		case FRAME_GARBAGE:
			client_send_error(c, NULL, RPC_INVALID_REQUEST,
			    "message of %zu bytes exceeds the limit of %d "
			    "bytes; closing the connection", m.total,
			    CLIENT_MAX_MESSAGE_BYTES);
			c->closing = 1;
			event_del(c->ev_read);
			break;
		case FRAME_NONE:
			break;
		}
	}
}

/*
 * The line timer runs while the client owes mcpd the end of a line: from
 * the accept to its first line, and from the start of every line it
 * leaves unfinished.  Not while mcpd has stopped reading it.
 */
static void
client_line_timer(struct client *c)
{
	uint32_t	 ms = c->mcpd->conf->client_line_timeout_ms;
	struct timeval	 tv;

	if (c->line_done) {
		c->line_done = 0;
		client_line_disarm(c);
	}
	if (ms == 0 || c->dead || c->closing || c->paused || c->eof ||
	    (c->spoke && !frame_partial(c->frame))) {
		client_line_disarm(c);
		return;
	}
	if (c->line_armed)
		return;
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	evtimer_add(c->ev_line, &tv);
	c->line_armed = 1;
}

/* Stop the line timer; a flag, so that a line read costs no event_del. */
static void
client_line_disarm(struct client *c)
{
	if (c->line_armed) {
		event_del(c->ev_line);
		c->line_armed = 0;
	}
}

/*
 * The client half-closed (`printf ... | mcpctl connect`): answer what it
 * sent, then close once nothing of its is in flight and all is written.
 */
static int
client_hung_up(struct client *c)
{
	struct pollfd	 pfd;

	pfd.fd = c->fd;
	pfd.events = 0;
	return (poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLHUP | POLLERR)));
}

static void
client_maybe_close(struct client *c)
{
	struct timeval	 tv = { 0, CLIENT_HUP_CHECK_MS * 1000 };

	if (c->dead || !c->eof)
		return;
	/* Closed, not half-closed: its requests are abandoned. */
	if (client_hung_up(c)) {
		client_lost(c, "connection closed");
		return;
	}
	if (c->session != NULL && c->session->busy != NULL &&
	    c->session->busy(c->session_arg)) {
		evtimer_add(c->ev_hup, &tv);
		return;
	}
	if (outq_length(c->out) > 0) {
		c->closing = 1;
		outq_flush(c->out);
	} else
		client_lost(c, "connection closed");
}

static void
client_hup_cb(evutil_socket_t fd, short events, void *arg)
{
	client_maybe_close(arg);
}

/* The router has nothing more pending for this client. */
void
client_idle(struct client *c)
{
	client_maybe_close(c);
}

/*
 * The input buffer counts against the memory budget; while the budget is
 * used up, a client with more than its share of an unfinished line gets
 * an error and is closed.
 */
static int
client_count_input(struct client *c)
{
	size_t	 capacity = frame_capacity(c->frame);

	budget_add(c->mcpd, capacity);
	budget_sub(c->mcpd, c->frame_counted);
	c->frame_counted = capacity;
	if (c->dead || c->closing || frame_buffered(c->frame) <=
	    BUDGET_SHARE_BYTES || !budget_exhausted(c->mcpd))
		return (0);
	client_send_error(c, NULL, MCPD_ERR_LIMIT, "mcpd's memory budget "
	    "(memory_budget_bytes %zu) is used up; a message of more than %d "
	    "bytes cannot be taken now; closing the connection",
	    c->mcpd->conf->memory_budget_bytes, BUDGET_SHARE_BYTES);
	c->closing = 1;
	event_del(c->ev_read);
	return (-1);
}

static void
client_read(struct client *c, int fd)
{
	size_t		 avail;
	ssize_t		 n;
	int		 reads;

	for (reads = 0; reads < CLIENT_READS_PER_CALLBACK; reads++) {
		n = fdio_read_frame(fd, c->frame, &avail);
		if (n > 0) {
			client_frames(c);
			client_line_timer(c);
			if (client_count_input(c) != 0)
				return;
			if (c->dead || c->closing || c->paused)
				return;
			/*
			 * A short read drained the socket: another read would
			 * only say EAGAIN (epoll is level-triggered and calls
			 * again when there is more).
			 */
			if ((size_t)n < avail)
				return;
			continue;
		}
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n == 0) {
			frame_push(c->frame, "\n", 1);
			client_frames(c);
			c->eof = 1;
			event_del(c->ev_read);
			client_line_timer(c);
			client_maybe_close(c);
		} else
			client_lost(c, strerror(errno));
		return;
	}
}

static void
client_read_cb(evutil_socket_t fd, short events, void *arg)
{
	int	 batch = clock_batch_begin(), out = outq_batch_begin();

	client_read(arg, fd);
	outq_batch_end(out);
	clock_batch_end(batch);
}

/*
 * Log why a peer was refused or cut off.  A flood gets the first line of
 * each second in full and the count of the others from client_cron_cb.
 */
static void __attribute__((format(printf, 5, 6)))
client_log_cut(struct mcpd *mcpd, enum client_cut cut, pid_t pid, uid_t uid,
    const char *fmt, ...)
{
	struct client_pool	*pool = mcpd->client_pool;
	uint64_t		 now = clock_now_ms();
	va_list			 ap;
	char			*text, pidtext[32], uidtext[32];
	struct log_field	 f[] = {
		{ MCPD_FIELD_CLIENT_PID, pidtext },
		{ MCPD_FIELD_CLIENT_UID, uidtext },
	};

	if (pool->quiet[cut].logged_ms != 0 &&
	    now - pool->quiet[cut].logged_ms < CLIENT_CRON_MS) {
		pool->quiet[cut].unlogged++;
		return;
	}
	pool->quiet[cut].logged_ms = now;
	snprintf(pidtext, sizeof pidtext, "%ld", (long)pid);
	snprintf(uidtext, sizeof uidtext, "%lu", (unsigned long)uid);
	va_start(ap, fmt);
	xvasprintf(&text, fmt, ap);
	va_end(ap);
	log_event(LOG_WARNING, cut == CLIENT_CUT_LINE ?
	    MCPD_MID_CLIENT_DISCONNECT : MCPD_MID_CLIENT_CONNECT, f,
	    nitems(f), "%s", text);
	free(text);
}

/* Open descriptors that are not clients' (servers' pipes, the listener). */
static void
client_count_fds(struct mcpd *mcpd)
{
	struct client_pool	*pool = mcpd->client_pool;
	struct dirent		*de;
	DIR			*d;
	size_t			 n = 0;

	if ((d = opendir("/proc/self/fd")) == NULL)
		return;		/* keep the last count */
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] != '.')
			n++;
	}
	closedir(d);
	n--;			/* the directory's own */
	pool->fds_not_clients = n > mcpd->nclients ? n - mcpd->nclients : 0;
}

/*
 * Once a second while there are clients (and once after the last): the
 * soft output limit of every client over it, the count of descriptors,
 * what the log left out, the heap trimmed after large messages.
 */
static void
client_cron_cb(evutil_socket_t fd, short events, void *arg)
{
	struct mcpd		*mcpd = arg;
	struct client_pool	*pool = mcpd->client_pool;
	struct client		*c;
	int			 i;

	TAILQ_FOREACH(c, &mcpd->clients, entry) {
		if (!c->dead && c->soft_since_ms != 0)
			client_check_limits(c);
		if (!c->dead && c->session != NULL &&
		    c->session->cron != NULL)
			c->session->cron(c->session_arg);
	}
	client_count_fds(mcpd);
	for (i = 0; i < CLIENT_CUT_COUNT; i++) {
		if (pool->quiet[i].unlogged == 0)
			continue;
		log_warnx("%llu more %s in the last %d ms",
		    (unsigned long long)pool->quiet[i].unlogged,
		    client_cut_names[i], CLIENT_CRON_MS);
		pool->quiet[i].unlogged = 0;
	}
	budget_trim(mcpd);
	if (mcpd->nclients == 0)
		event_del(pool->ev_cron);
}

static struct client_pool *
client_pool(struct mcpd *mcpd)
{
	struct client_pool	*pool = mcpd->client_pool;
	struct timeval		 tv = { CLIENT_CRON_MS / 1000,
	    (CLIENT_CRON_MS % 1000) * 1000 };

	if (pool == NULL) {
		pool = mcpd->client_pool = xcalloc(1, sizeof *pool);
		pool->ev_cron = event_new(mcpd->base, -1, EV_PERSIST,
		    client_cron_cb, mcpd);
		client_count_fds(mcpd);
	}
	if (!event_pending(pool->ev_cron, EV_TIMEOUT, NULL))
		event_add(pool->ev_cron, &tv);
	return (pool);
}

/*
 * Why this peer may not have another connection now, or NULL.  Descriptors
 * in use: at least every one below the fd accept returned (the kernel
 * gives the lowest free one), and the clients plus the others counted.
 */
static char *
client_over_limit(struct mcpd *mcpd, int fd, const struct ucred *cred,
    int admin, enum client_cut *cut)
{
	const struct conf	*conf = mcpd->conf;
	struct client		*c;
	struct rlimit		 rl;
	size_t			 n = 0, limit, used, spawn, reserve;
	char			*why;

	if (!admin && conf->max_connections_per_uid != 0) {
		TAILQ_FOREACH(c, &mcpd->clients, entry) {
			if (!c->dead && c->uid == cred->uid)
				n++;
		}
		if (n >= conf->max_connections_per_uid) {
			*cut = CLIENT_CUT_PER_UID;
			xasprintf(&why, "uid %lu already has %zu connections "
			    "to mcpd, the most max_connections_per_uid "
			    "allows; close some and try again",
			    (unsigned long)cred->uid, n);
			return (why);
		}
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return (NULL);
	limit = rl.rlim_cur;
	used = MAX((size_t)fd + 1,
	    mcpd->nclients + 1 + mcpd->client_pool->fds_not_clients);
	spawn = MIN(MAX(CLIENT_FD_SPAWN_RESERVE_MIN,
	    CLIENT_FDS_PER_SERVER_START * conf->nservers),
	    limit / CLIENT_FD_RESERVE_DIVISOR);
	reserve = spawn;
	if (!admin)
		reserve += MIN(CLIENT_FD_ADMIN_RESERVE,
		    limit / CLIENT_FD_RESERVE_DIVISOR);
	if (used + reserve <= limit)
		return (NULL);
	*cut = CLIENT_CUT_FDS;
	xasprintf(&why, "mcpd has %zu of its %zu file descriptors in use and "
	    "keeps the last %zu for %s; try again later", used, limit,
	    reserve, admin ? "starting servers" :
	    "starting servers and for its administrators");
	return (why);
}

/* A connection sent nothing, or left a line unfinished, for too long. */
static void
client_line_cb(evutil_socket_t fd, short events, void *arg)
{
	struct client	*c = arg;
	uint32_t	 ms = c->mcpd->conf->client_line_timeout_ms;
	char		*why;

	c->line_armed = 0;
	if (!c->spoke)
		xasprintf(&why, "no complete line in the %u ms since it "
		    "connected (client_line_timeout_ms)", ms);
	else
		xasprintf(&why, "a line left unfinished (%zu bytes) for %u ms "
		    "(client_line_timeout_ms)", frame_buffered(c->frame), ms);
	client_log_cut(c->mcpd, CLIENT_CUT_LINE, c->pid, c->uid,
	    "client %llu (pid %ld, uid %lu): %s; disconnecting",
	    (unsigned long long)c->serial, (long)c->pid,
	    (unsigned long)c->uid, why);
	client_send_error(c, NULL, RPC_INVALID_REQUEST, "%s; closing the "
	    "connection", why);
	if (!c->dead)
		outq_write_now(c->out);
	client_lost(c, why);
	free(why);
}

void
client_accept(struct mcpd *mcpd, int fd)
{
	struct client	*c;
	struct ucred	 cred;
	socklen_t	 len = sizeof cred;
	enum client_cut	 cut;
	int		 admin;
	char		 pidtext[32], uidtext[32], *why, *exe;
	struct log_field f[2 + IDENT_LOG_FIELDS] = {
		{ MCPD_FIELD_CLIENT_PID, pidtext },
		{ MCPD_FIELD_CLIENT_UID, uidtext },
	};

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
		log_warnx("SO_PEERCRED: %s; refusing connection",
		    strerror(errno));
		close(fd);
		return;
	}
	client_pool(mcpd);
	admin = access_uid_is_admin(cred.uid);
	if (!admin && !access_in_group(mcpd->conf, fd, &cred)) {
		why = access_denied(mcpd->conf, cred.uid);
		client_log_cut(mcpd, CLIENT_CUT_ACCESS, cred.pid, cred.uid,
		    "refused connection from pid %ld: uid %lu is not allowed",
		    (long)cred.pid, (unsigned long)cred.uid);
		access_refuse(fd, MCPD_ERR_ACCESS_DENIED, why);
		free(why);
		return;
	}
	if ((why = client_over_limit(mcpd, fd, &cred, admin, &cut)) != NULL) {
		client_log_cut(mcpd, cut, cred.pid, cred.uid,
		    "refused connection from pid %ld (uid %lu): %s",
		    (long)cred.pid, (unsigned long)cred.uid, why);
		access_refuse(fd, cut == CLIENT_CUT_PER_UID ?
		    MCPD_ERR_ACCESS_DENIED : RPC_INTERNAL_ERROR, why);
		free(why);
		return;
	}
	evutil_make_socket_nonblocking(fd);
	snprintf(pidtext, sizeof pidtext, "%ld", (long)cred.pid);
	snprintf(uidtext, sizeof uidtext, "%lu", (unsigned long)cred.uid);

	c = xcalloc(1, sizeof *c);
	c->mcpd = mcpd;
	c->fd = fd;
	c->serial = ++mcpd->clients_total;
	c->who.principal = c->serial;
	c->pid = cred.pid;
	c->uid = cred.uid;
	c->who.ident = ident_accept(fd, cred.pid, cred.uid,
	    &c->who.bridge_app);
	c->admin = admin;
	c->base = mcpd->client_base;
	c->base_arg = mcpd;
	c->frame = frame_new(CLIENT_MAX_MESSAGE_BYTES);
	c->out = outq_new(mcpd, fd, &client_outq_cb, c);
	c->ev_read = event_new(mcpd->base, fd, EV_READ | EV_PERSIST,
	    client_read_cb, c);
	c->ev_free = event_new(mcpd->base, -1, 0, client_free_cb, c);
	c->ev_hup = evtimer_new(mcpd->base, client_hup_cb, c);
	c->ev_line = evtimer_new(mcpd->base, client_line_cb, c);
	TAILQ_INSERT_TAIL(&mcpd->clients, c, entry);
	mcpd->nclients++;
	event_add(c->ev_read, NULL);
	client_line_timer(c);
	ident_log_fields(c->who.ident, f + 2, &exe);
	log_event(LOG_DEBUG, MCPD_MID_CLIENT_CONNECT, f, nitems(f),
	    "client %llu connected (pid %ld, uid %lu)",
	    (unsigned long long)c->serial, (long)cred.pid,
	    (unsigned long)cred.uid);
	free(exe);
}

void
client_close_all(struct mcpd *mcpd)
{
	struct client	*c;

	TAILQ_FOREACH(c, &mcpd->clients, entry)
		client_lost(c, "mcpd is shutting down");
}

/* At exit, outside any callback: free every client now. */
void
client_free_all(struct mcpd *mcpd)
{
	struct client	*c;

	while ((c = TAILQ_FIRST(&mcpd->clients)) != NULL) {
		client_lost(c, "mcpd is exiting");
		client_free_cb(-1, 0, c);
	}
	if (mcpd->client_pool != NULL) {
		event_free(mcpd->client_pool->ev_cron);
		free(mcpd->client_pool);
		mcpd->client_pool = NULL;
	}
}

/* Backpressure from the server's stdin: stop reading this client. */
void
client_pause(struct client *c)
{
	if (c->paused || c->dead)
		return;
	c->paused = 1;
	event_del(c->ev_read);
	client_line_timer(c);
}

void
client_resume(struct client *c)
{
	if (!c->paused || c->dead)
		return;
	c->paused = 0;
	if (!c->closing && !c->eof) {
		event_add(c->ev_read, NULL);
		/* Lines already framed were left waiting. */
		client_frames(c);
		client_line_timer(c);
	}
}

void
client_set_session(struct client *c, const struct client_handler *h,
    void *arg)
{
	c->session = h;
	c->session_arg = arg;
}

int
client_is_attached(const struct client *c)
{
	return (c->session != NULL);
}

/*
 * The router dropped this client (its server was removed): close it.
 * Its session is gone already, so its close hook is not called.
 */
void
client_detached(struct client *c, const char *reason)
{
	c->session = NULL;
	client_lost(c, reason);
}

uint64_t
client_serial(const struct client *c)
{
	return (c->serial);
}

uint64_t
client_principal(const struct client *c)
{
	return (c->who.principal);
}

/* Who the app on the other end is (ident.h). */
const struct ident *
client_ident(const struct client *c)
{
	return (c->who.ident);
}

/* Who it is (client_who.c), and what client_who.c needs of it. */
struct client_who *
client_who(struct client *c)
{
	return (&c->who);
}

struct mcpd *
client_mcpd(const struct client *c)
{
	return (c->mcpd);
}

/* A bridge's principal outlives the connection (client_int.h). */
int
client_principal_lasts(const struct client *c)
{
	return (c->who.principal_lasts);
}

/* Mark it dead (client_lost), to be freed from its deferred event. */
void
client_close(struct client *c, const char *reason)
{
	client_lost(c, reason);
}

int
client_is_dead(const struct client *c)
{
	return (c->dead);
}

/* The servers it follows: kept here, handled by logs.c. */
struct follow_set *
client_follows(struct client *c)
{
	return (&c->follows);
}

/* Iterate over mcpd's connections, dead ones included. */
struct client *
client_first(struct mcpd *mcpd)
{
	return (TAILQ_FIRST(&mcpd->clients));
}

struct client *
client_next(struct client *c)
{
	return (TAILQ_NEXT(c, entry));
}
