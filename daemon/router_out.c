/*
 * router_out.c -- what the router sends: to an attachment's peer (a
 * client or a group's link) through its table, and to the server through
 * the worker's, with edits spliced in on the way; the fair turns of a
 * slow server's stdin; the router's own requests and answers to the
 * server.  It calls nothing else of the router's but its pending
 * requests (router_pending.c), so every other router file may use it.
 */
#include "config.h"

#include <sys/queue.h>
#include <sys/uio.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <cjson/cJSON.h>
#include <event2/event.h>

#include "budget.h"
#include "clock.h"
#include "conf.h"
#include "envelope.h"
#include "hmap.h"
#include "idtab.h"
#include "log.h"
#include "mcpd.h"
#include "proto.h"
#include "router.h"
#include "router_int.h"
#include "rpc.h"
#include "util.h"
#include "worker.h"
#include "xmalloc.h"

/* Room for the pieces of a line with up to two edits. */
#define ROUTER_PIECES	ENVELOPE_SPLICE_IOV(2)

const char *
router_text(const char *line, const struct envelope_value *v)
{
	return (line + v->off);
}

/*
 * The peer of an attachment: a client's connection, or a group session's
 * link to this server (group.h).  Every message and every signal to the
 * peer goes through these.
 */

/* A line with one edit applied, checked (envelope_edit_ok). */
static void
router_peer_queue_edit(struct attachment *a, const char *line, size_t len,
    const struct envelope_edit *edit)
{
	struct iovec	 iov[ENVELOPE_SPLICE_IOV(1)];
	size_t		 n;

	if (a->peer->queue_edit != NULL) {
		a->peer->queue_edit(a->peer_arg, line, len, edit);
		return;
	}
	n = envelope_splice(line, len, edit, 1, iov, nitems(iov));
	a->peer->queue(a->peer_arg, iov, (int)n);
}

void
router_peer_queue(struct attachment *a, const struct iovec *iov, int n)
{
	a->peer->queue(a->peer_arg, iov, n);
}

static void
router_peer_queue_owned(struct attachment *a, const struct iovec *iov,
    int n, void *mem, size_t size)
{
	if (a->peer->queue_owned != NULL)
		a->peer->queue_owned(a->peer_arg, iov, n, mem, size);
	else {
		a->peer->queue(a->peer_arg, iov, n);
		free(mem);
	}
}

void
router_peer_pause(struct attachment *a, int pause)
{
	a->peer->pause(a->peer_arg, pause);
}

uid_t
router_attachment_uid(const struct attachment *a)
{
	return (a->peer->uid(a->peer_arg));
}

static uint64_t
router_peer_serial(const struct attachment *a)
{
	return (a->peer->serial(a->peer_arg));
}

void
router_peer_detached(struct attachment *a, const char *reason)
{
	a->peer->detached(a->peer_arg, reason);
}

/*
 * Output.
 */

/*
 * line[0, len) with its edits, as pieces in iov (ROUTER_PIECES of them):
 * how many, or 0 if the edits break envelope_splice's rules.
 */
static size_t
router_pieces(const char *line, size_t len, const struct envelope_edit *edits,
    size_t nedits, struct iovec *iov)
{
	if (nedits == 0) {
		iov[0].iov_base = (void *)line;
		iov[0].iov_len = len;
		return (1);
	}
	return (envelope_splice(line, len, edits, nedits, iov, ROUTER_PIECES));
}

void
router_send_client_steal(struct attachment *a, const char *line, size_t len,
    const struct envelope_edit *edits, size_t nedits, int may_steal)
{
	struct iovec	 iov[ROUTER_PIECES];
	size_t		 n, size;
	char		*owned;

	/* One edit (a reply's id), not large: straight into the queue. */
	if (nedits == 1 && !(may_steal && len >= ROUTER_NO_COPY_BYTES) &&
	    envelope_edit_ok(len, edits)) {
		a->router->bytes_down += len;
		router_peer_queue_edit(a, line, len, edits);
		return;
	}
	if ((n = router_pieces(line, len, edits, nedits, iov)) == 0) {
		log_warnx("%s: cannot rewrite a message for client %llu; "
		    "dropped", a->router->up->name(a->router->worker),
		    (unsigned long long)router_peer_serial(a));
		return;
	}
	a->router->bytes_down += len;
	/* A large reply: pass the server's buffer on instead of a copy. */
	if (may_steal && len >= ROUTER_NO_COPY_BYTES &&
	    (owned = a->router->up->steal_line(a->router->worker, line,
	    &size)) != NULL) {
		router_peer_queue_owned(a, iov, (int)n, owned, size);
		return;
	}
	router_peer_queue(a, iov, (int)n);
}

void
router_send_client(struct attachment *a, const char *line, size_t len,
    const struct envelope_edit *edits, size_t nedits)
{
	router_send_client_steal(a, line, len, edits, nedits, 0);
}

void
router_pause_clients(struct router *r, int pause)
{
	struct attachment	*a;

	r->paused = pause;
	if (!pause)
		r->nwaiting_turn = 0;
	TAILQ_FOREACH(a, &r->atts, entry) {
		if (pause)
			router_peer_pause(a, 1);
		else {
			a->waits_turn = 0;
			router_peer_pause(a, 0);
		}
	}
}

/* A client filled the server's stdin past its share: it waits a turn. */
void
router_wait_turn(struct attachment *a)
{
	struct router	*r = a->router;

	if (a->waits_turn || r->up->stdin_queued(r->worker) <=
	    ROUTER_STDIN_FAIR_BYTES)
		return;
	a->waits_turn = 1;
	r->nwaiting_turn++;
	router_peer_pause(a, 1);
}

/*
 * The queue is down: every client that waited adds again, starting with
 * a different one each time, so none takes all the room.
 */
void
router_take_turns(struct router *r)
{
	struct attachment	*a, *next, *first;

	if ((first = TAILQ_FIRST(&r->atts)) != NULL) {
		TAILQ_REMOVE(&r->atts, first, entry);
		TAILQ_INSERT_TAIL(&r->atts, first, entry);
	}
	r->nwaiting_turn = 0;
	TAILQ_FOREACH_SAFE(a, &r->atts, entry, next) {
		if (!a->waits_turn)
			continue;
		a->waits_turn = 0;
		router_peer_pause(a, 0);
	}
}

void
router_send_server(struct router *r, const char *line, size_t len,
    const struct envelope_edit *edits, size_t nedits)
{
	struct iovec	 iov[ROUTER_PIECES];
	size_t		 n;

	if (nedits == 1 && envelope_edit_ok(len, edits)) {
		/* One edit (an id): straight into the queue. */
		r->bytes_up += len;
		r->up->write_edit(r->worker, line, len, edits);
		goto sent;
	}
	if ((n = router_pieces(line, len, edits, nedits, iov)) == 0) {
		log_warnx("%s: cannot rewrite a message for the server; "
		    "dropped", r->up->name(r->worker));
		return;
	}
	r->bytes_up += len;
	r->up->write(r->worker, iov, (int)n);
sent:
	/* Backpressure: only from the server's stdin to the writers. */
	if (!r->paused && r->up->stdin_queued(r->worker) >
	    ROUTER_STDIN_HIGH_BYTES)
		router_pause_clients(r, 1);
}

void
router_send_server_json(struct router *r, cJSON *msg)
{
	char	*text;

	text = rpc_print(msg);
	cJSON_Delete(msg);
	router_send_server(r, text, strlen(text), NULL, 0);
	free(text);
}

/* An error to a client for the request whose raw id text is given. */
void
router_client_error(struct attachment *a, const char *id, size_t id_len,
    int code, const char *fmt, ...)
{
	va_list		 ap;
	char		*message, *quoted, head[64];
	cJSON		*s;
	struct iovec	 iov[5];

	va_start(ap, fmt);
	xvasprintf(&message, fmt, ap);
	va_end(ap);
	s = cJSON_CreateString(message);
	quoted = rpc_print(s);
	cJSON_Delete(s);
	snprintf(head, sizeof head, ",\"error\":{\"code\":%d,\"message\":",
	    code);

	iov[0].iov_base = (void *)"{\"jsonrpc\":\"2.0\",\"id\":";
	iov[0].iov_len = strlen(iov[0].iov_base);
	iov[1].iov_base = (void *)(id != NULL ? id : "null");
	iov[1].iov_len = id != NULL ? id_len : 4;
	iov[2].iov_base = head;
	iov[2].iov_len = strlen(head);
	iov[3].iov_base = quoted;
	iov[3].iov_len = strlen(quoted);
	iov[4].iov_base = (void *)"}}";
	iov[4].iov_len = 2;
	router_peer_queue(a, iov, (int)nitems(iov));
	free(quoted);
	free(message);
}

/* A result to a client: {"jsonrpc":"2.0","id":ID,"result":RESULT}. */
void
router_client_result(struct attachment *a, const char *id, size_t id_len,
    const char *result, size_t result_len)
{
	struct iovec	 iov[5];

	iov[0].iov_base = (void *)"{\"jsonrpc\":\"2.0\",\"id\":";
	iov[0].iov_len = strlen(iov[0].iov_base);
	iov[1].iov_base = (void *)id;
	iov[1].iov_len = id_len;
	iov[2].iov_base = (void *)",\"result\":";
	iov[2].iov_len = strlen(iov[2].iov_base);
	iov[3].iov_base = (void *)result;
	iov[3].iov_len = result_len;
	iov[4].iov_base = (void *)"}";
	iov[4].iov_len = 1;
	router_peer_queue(a, iov, (int)nitems(iov));
}

/* A result or error to the server for its request (raw id text). */
void
router_server_reply(struct router *r, const char *id, size_t id_len,
    cJSON *result, int code, const char *message)
{
	static const char	 head[] = "{\"jsonrpc\":\"2.0\",\"id\":null";
	struct envelope_edit	 edit;
	cJSON			*msg;
	char			*text;
	size_t			 queued = r->up->stdin_queued(r->worker);

	/* A server that asks and never reads cannot grow mcpd. */
	if (queued > ROUTER_SELF_SOFT_BYTES) {
		cJSON_Delete(result);
		r->self_dropped++;
		if (++r->self_dropped_run == ROUTER_SELF_DROPS_BROKEN)
			r->up->broken(r->worker, "protocol violation: %llu "
			    "requests answered by mcpd dropped while %zu "
			    "bytes wait in its stdin; it does not read them",
			    (unsigned long long)r->self_dropped_run, queued);
		return;
	}
	/* The id goes back as the server wrote it, never through cJSON. */
	if (result != NULL)
		msg = rpc_make_result(NULL, result);
	else
		msg = rpc_make_error(NULL, code, message, NULL);
	text = rpc_print(msg);
	cJSON_Delete(msg);
	if (strncmp(text, head, sizeof head - 1) == 0) {
		edit.off = sizeof head - 1 - 4;
		edit.len = 4;
		edit.text = id;
		edit.text_len = id_len;
		router_send_server(r, text, strlen(text), &edit, 1);
	}
	free(text);
}

void
router_ping(struct router *r)
{
	router_internal_request(r, "ping", NULL);
}

int64_t
router_internal_request(struct router *r, const char *method, cJSON *params)
{
	struct router_pending	*p;
	cJSON			*id;

	p = router_pending_new(r, ROUTER_PENDING_INTERNAL, NULL, NULL, 0, 0,
	    method, strlen(method));
	id = cJSON_CreateNumber((double)p->upstream_id);
	router_send_server_json(r, rpc_make_request(id, method, params));
	cJSON_Delete(id);
	return (p->upstream_id);
}

/*
 * Timers.
 */

/* Tell the server to stop working on a request. */
void
router_cancel_upstream(struct router *r, struct router_pending *p,
    const char *reason)
{
	char	 text[160];
	int	 n;

	if (r->up->availability(r->worker) != WORKER_AVAIL_READY)
		return;
	n = snprintf(text, sizeof text, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/cancelled\",\"params\":{\"requestId\":%lld,"
	    "\"reason\":\"%s\"}}", (long long)p->upstream_id, reason);
	router_send_server(r, text, (size_t)n, NULL, 0);
}

