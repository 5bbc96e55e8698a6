/*
 * rio.c -- mcpd-remote's stdio: messages in on stdin (framed, bounded by
 * max_message_bytes), messages out on stdout, each one line.  What it
 * reads goes up through the struct rio_events main.c hands it (the
 * session's functions): rio calls nothing above it.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "esc.h"
#include "fdio.h"
#include "frame.h"
#include "http.h"
#include "proto.h"
#include "rconf.h"
#include "remote.h"
#include "xmalloc.h"

/* How long an exit waits for stdout to drain. */
#define RIO_DRAIN_MS	2000
/*
 * Above this much waiting for stdout, event streams stop being read
 * (rio_congested); below the low mark they are read again.
 */
#define RIO_HIGH_BYTES	(1024 * 1024)
#define RIO_LOW_BYTES	(256 * 1024)

static struct remote	*rio_r;
static const struct rio_events *rio_ev;
static struct frame	*rio_frame;
static struct event	*rio_in;
static struct event	*rio_out;
static struct event	*rio_drain_timer;
static struct evbuffer	*rio_buf;
static int		 rio_exiting;
static int		 rio_was_congested;
static int		 rio_file_input;	/* stdin is not pollable */

int	rio_exit_code;

static void
rio_leave(void)
{
	event_base_loopexit(rio_r->base, NULL);
}

static void
rio_flush(void)
{
	int	n;

	while (evbuffer_get_length(rio_buf) > 0) {
		n = evbuffer_write(rio_buf, STDOUT_FILENO);
		if (n > 0)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EINTR)) {
			if (errno == EAGAIN) {
				event_add(rio_out, NULL);
				return;
			}
			continue;
		}
		/* The reader is gone: nothing more can be delivered. */
		evbuffer_drain(rio_buf, evbuffer_get_length(rio_buf));
		if (!rio_exiting)
			rio_ev->shutdown(rio_r->session);
		break;
	}
	if (rio_exiting && evbuffer_get_length(rio_buf) == 0)
		rio_leave();
	else if (rio_was_congested &&
	    evbuffer_get_length(rio_buf) < RIO_LOW_BYTES) {
		rio_was_congested = 0;
		http_unpause(rio_r->http);
	}
}

static void
rio_out_ready(evutil_socket_t fd, short what, void *arg)
{
	rio_flush();
}

void
rio_write(const char *msg, size_t len)
{
	evbuffer_add(rio_buf, msg, len);
	evbuffer_add(rio_buf, "\n", 1);
	if (!event_pending(rio_out, EV_WRITE, NULL))
		rio_flush();
}

int
rio_congested(void)
{
	if (evbuffer_get_length(rio_buf) < RIO_HIGH_BYTES)
		return (0);
	rio_was_congested = 1;
	return (1);
}

static void
rio_oversize(const struct frame_msg *fm)
{
	char	*out;

	remote_log("a message from the client of %zu bytes is over "
	    "max_message_bytes (%zu): refused", fm->total,
	    rio_r->conf->max_message_bytes);
	/* The id is raw text of a message never validated: one line only. */
	if (fm->id == NULL || memchr(fm->id, '\n', fm->id_len) != NULL ||
	    memchr(fm->id, '\r', fm->id_len) != NULL)
		return;
	xasprintf(&out, "{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"error\":{\"code\":"
	    "%d,\"message\":\"the request is larger than max_message_bytes "
	    "(%zu)\"}}", (int)fm->id_len, fm->id, MCPD_ERR_MESSAGE_TOO_LARGE,
	    rio_r->conf->max_message_bytes);
	rio_write(out, strlen(out));
	free(out);
}

static void
rio_readable(evutil_socket_t fd, short what, void *arg)
{
	struct frame_msg	 fm;
	enum frame_event	 fe;
	ssize_t			 n;

	n = fdio_read_frame(STDIN_FILENO, rio_frame, NULL);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		rio_stop_reading();
		rio_ev->ended(rio_r->session);
		return;
	}
	if (rio_file_input)
		event_active(rio_in, EV_READ, 0);
	while (rio_in != NULL &&
	    (fe = frame_next(rio_frame, &fm)) != FRAME_NONE) {
		switch (fe) {
		case FRAME_LINE:
			if (fm.len > 0)
				rio_ev->line(rio_r->session, fm.line,
				    fm.len);
			break;
		case FRAME_OVERSIZE:
			rio_oversize(&fm);
			break;
		case FRAME_GARBAGE:
			rio_ev->fatal(rio_r->session, REMOTE_EXIT_USAGE,
			    "the client sent %zu bytes without a newline: "
			    "not newline-delimited JSON-RPC", fm.total);
			return;
		default:
			break;
		}
	}
}

static void
rio_nonblock(int fd)
{
	struct stat	st;
	int		fl;

	/* Not a terminal shared with others: only pipes and sockets. */
	if (fstat(fd, &st) == -1 || !(S_ISFIFO(st.st_mode) ||
	    S_ISSOCK(st.st_mode)))
		return;
	fl = fcntl(fd, F_GETFL);
	if (fl != -1)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

void
rio_start(struct remote *r, const struct rio_events *ev)
{
	struct stat	st;

	rio_r = r;
	rio_ev = ev;
	rio_frame = frame_new(r->conf->max_message_bytes);
	rio_buf = evbuffer_new();
	rio_nonblock(STDIN_FILENO);
	rio_nonblock(STDOUT_FILENO);
	rio_out = event_new(r->base, STDOUT_FILENO, EV_WRITE, rio_out_ready,
	    NULL);
	/*
	 * A file or /dev/null cannot be polled (epoll refuses them): it is
	 * always readable, so it is read a chunk per loop turn until its end.
	 */
	if (fstat(STDIN_FILENO, &st) == 0 && (S_ISREG(st.st_mode) ||
	    (S_ISCHR(st.st_mode) && !isatty(STDIN_FILENO)))) {
		rio_file_input = 1;
		rio_in = event_new(r->base, -1, EV_PERSIST, rio_readable,
		    NULL);
		event_active(rio_in, EV_READ, 0);
		return;
	}
	rio_in = event_new(r->base, STDIN_FILENO, EV_READ | EV_PERSIST,
	    rio_readable, NULL);
	event_add(rio_in, NULL);
}

void
rio_stop_reading(void)
{
	if (rio_in == NULL)
		return;
	event_free(rio_in);
	rio_in = NULL;
}

static void
rio_drain_expired(evutil_socket_t fd, short what, void *arg)
{
	rio_leave();
}

void
rio_exit(struct remote *r, int code)
{
	struct timeval	tv = { RIO_DRAIN_MS / 1000,
			    (RIO_DRAIN_MS % 1000) * 1000 };

	if (rio_exiting)
		return;
	rio_exiting = 1;
	rio_exit_code = code;
	rio_stop_reading();
	if (evbuffer_get_length(rio_buf) == 0) {
		rio_leave();
		return;
	}
	rio_drain_timer = evtimer_new(r->base, rio_drain_expired, NULL);
	evtimer_add(rio_drain_timer, &tv);
	rio_flush();
}

void
rio_free(void)
{
	rio_stop_reading();
	if (rio_out != NULL)
		event_free(rio_out);
	if (rio_drain_timer != NULL)
		event_free(rio_drain_timer);
	if (rio_buf != NULL)
		evbuffer_free(rio_buf);
	frame_free(rio_frame);
}
