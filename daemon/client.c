/*
 * client.c -- connections on the control socket.
 *
 * Input is framed with the same framer as server output (bounded memory,
 * no rescans).  Output is queued in an evbuffer and written when the socket
 * is writable; a client whose queue passes CLIENT_OBUF_HARD_BYTES is
 * disconnected, so a client that stops reading cannot grow mcpd.
 *
 * Bad input never affects other clients: invalid JSON gets -32700 with a
 * null id, a message that is not JSON-RPC gets -32600, an over-long line
 * gets an error and the connection is closed after it is flushed.
 */
#include "config.h"

#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "client.h"
#include "control.h"
#include "frame.h"
#include "log.h"
#include "mcpd.h"
#include "proto.h"
#include "rpc.h"
#include "xmalloc.h"

#define CLIENT_READS_PER_CALLBACK	16

struct client {
	struct mcpd		*mcpd;
	int			 fd;
	uint64_t		 serial;
	pid_t			 pid;
	uid_t			 uid;
	struct event		*ev_read;
	struct event		*ev_write;
	struct event		*ev_free;
	struct frame		*frame;
	struct evbuffer		*out;
	int			 closing;	/* close once flushed */
	int			 dead;
	TAILQ_ENTRY(client)	 entry;
};

static void	client_lost(struct client *, const char *reason);

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

static void
client_free_cb(evutil_socket_t fd, short events, void *arg)
{
	struct client	*c = arg;

	TAILQ_REMOVE(&c->mcpd->clients, c, entry);
	event_free(c->ev_read);
	event_free(c->ev_write);
	event_free(c->ev_free);
	frame_free(c->frame);
	evbuffer_free(c->out);
	close(c->fd);
	free(c);
}

static void
client_lost(struct client *c, const char *reason)
{
	char		 pidtext[32];
	struct log_field f[] = {
		{ MCPD_FIELD_CLIENT_PID, pidtext },
		{ MCPD_FIELD_REASON, reason },
	};

	if (c->dead)
		return;
	c->dead = 1;
	snprintf(pidtext, sizeof pidtext, "%ld", (long)c->pid);
	log_event(LOG_DEBUG, MCPD_MID_CLIENT_DISCONNECT, f, LOG_NFIELDS(f),
	    "client %llu (pid %ld) disconnected: %s",
	    (unsigned long long)c->serial, (long)c->pid, reason);
	event_del(c->ev_read);
	event_del(c->ev_write);
	event_active(c->ev_free, EV_TIMEOUT, 0);
}

static void
client_write_cb(evutil_socket_t fd, short events, void *arg)
{
	struct client	*c = arg;
	int		 n;

	n = evbuffer_write(c->out, fd);
	if (n == -1 && errno != EAGAIN && errno != EINTR) {
		client_lost(c, strerror(errno));
		return;
	}
	if (evbuffer_get_length(c->out) == 0) {
		event_del(c->ev_write);
		if (c->closing)
			client_lost(c, "closed by mcpd after an error");
	}
}

static void
client_queue(struct client *c, const char *text, size_t len)
{
	if (c->dead)
		return;
	evbuffer_add(c->out, text, len);
	evbuffer_add(c->out, "\n", 1);
	if (evbuffer_get_length(c->out) > CLIENT_OBUF_HARD_BYTES) {
		log_warnx("client %llu (pid %ld): output queue over %d bytes; "
		    "disconnecting", (unsigned long long)c->serial,
		    (long)c->pid, CLIENT_OBUF_HARD_BYTES);
		client_lost(c, "output queue limit");
		return;
	}
	event_add(c->ev_write, NULL);
}

void
client_send_json(struct client *c, cJSON *msg)
{
	char	*text;

	text = rpc_print(msg);
	cJSON_Delete(msg);
	client_queue(c, text, strlen(text));
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

static void
client_handle_line(struct client *c, const char *line, size_t len)
{
	cJSON		*msg;
	const cJSON	*id, *method, *params;

	if ((msg = cJSON_ParseWithLength(line, len)) == NULL) {
		client_send_error(c, NULL, RPC_PARSE_ERROR,
		    "parse error: invalid JSON");
		return;
	}
	id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	switch (rpc_classify(msg)) {
	case RPC_KIND_REQUEST:
		method = cJSON_GetObjectItemCaseSensitive(msg, "method");
		params = cJSON_GetObjectItemCaseSensitive(msg, "params");
		if (strncmp(method->valuestring, MCPD_METHOD_PREFIX,
		    strlen(MCPD_METHOD_PREFIX)) == 0)
			control_dispatch(c->mcpd, c, id, method->valuestring,
			    params);
		else
			client_send_error(c, id, RPC_METHOD_NOT_FOUND,
			    "method not found: %.64s (this connection is not "
			    "attached to a server)", method->valuestring);
		break;
	case RPC_KIND_NOTIFICATION:
	case RPC_KIND_RESPONSE:
		break;		/* nothing to route them to yet */
	case RPC_KIND_INVALID:
		client_send_error(c, rpc_id_valid(id) ? id : NULL,
		    RPC_INVALID_REQUEST, "invalid request: not a JSON-RPC 2.0 "
		    "request, notification or response");
		break;
	}
	cJSON_Delete(msg);
}

static void
client_frames(struct client *c)
{
	struct frame_msg	 m;
	enum frame_event	 ev;

	while (!c->dead && !c->closing &&
	    (ev = frame_next(c->frame, &m)) != FRAME_NONE) {
		switch (ev) {
		case FRAME_LINE:
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

static void
client_read_cb(evutil_socket_t fd, short events, void *arg)
{
	struct client	*c = arg;
	char		*space;
	size_t		 avail;
	ssize_t		 n;
	int		 reads;

	for (reads = 0; reads < CLIENT_READS_PER_CALLBACK; reads++) {
		space = frame_space(c->frame, &avail);
		n = read(fd, space, avail);
		if (n > 0) {
			frame_commit(c->frame, (size_t)n);
			client_frames(c);
			if (c->dead || c->closing)
				return;
			continue;
		}
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n == 0) {
			frame_push(c->frame, "\n", 1);
			client_frames(c);
			if (evbuffer_get_length(c->out) > 0) {
				/* Answer what it sent before hanging up. */
				c->closing = 1;
				event_del(c->ev_read);
			} else
				client_lost(c, "connection closed");
		} else
			client_lost(c, strerror(errno));
		return;
	}
}

void
client_accept(struct mcpd *mcpd, int fd)
{
	struct client	*c;
	struct ucred	 cred;
	socklen_t	 len = sizeof cred;
	char		 pidtext[32], uidtext[32];
	struct log_field f[] = {
		{ MCPD_FIELD_CLIENT_PID, pidtext },
		{ MCPD_FIELD_CLIENT_UID, uidtext },
	};

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
		log_warnx("SO_PEERCRED: %s; refusing connection",
		    strerror(errno));
		close(fd);
		return;
	}
	snprintf(pidtext, sizeof pidtext, "%ld", (long)cred.pid);
	snprintf(uidtext, sizeof uidtext, "%lu", (unsigned long)cred.uid);
	if (cred.uid != getuid() && cred.uid != 0) {
		log_event(LOG_WARNING, MCPD_MID_CLIENT_CONNECT, f,
		    LOG_NFIELDS(f), "refused connection from pid %ld: uid %lu "
		    "is not allowed", (long)cred.pid, (unsigned long)cred.uid);
		close(fd);
		return;
	}
	evutil_make_socket_nonblocking(fd);

	c = xcalloc(1, sizeof *c);
	c->mcpd = mcpd;
	c->fd = fd;
	c->serial = ++mcpd->clients_total;
	c->pid = cred.pid;
	c->uid = cred.uid;
	c->frame = frame_new(CLIENT_MAX_MESSAGE_BYTES);
	c->out = evbuffer_new();
	c->ev_read = event_new(mcpd->base, fd, EV_READ | EV_PERSIST,
	    client_read_cb, c);
	c->ev_write = event_new(mcpd->base, fd, EV_WRITE | EV_PERSIST,
	    client_write_cb, c);
	c->ev_free = event_new(mcpd->base, -1, 0, client_free_cb, c);
	TAILQ_INSERT_TAIL(&mcpd->clients, c, entry);
	event_add(c->ev_read, NULL);
	log_event(LOG_DEBUG, MCPD_MID_CLIENT_CONNECT, f, LOG_NFIELDS(f),
	    "client %llu connected (pid %ld, uid %lu)",
	    (unsigned long long)c->serial, (long)cred.pid,
	    (unsigned long)cred.uid);
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
}
