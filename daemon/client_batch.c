/*
 * client_batch.c -- a connection's JSON-RPC batches (see client_batch.h).
 *
 * Bounds: a batch has at most BATCH_MAX_MESSAGES messages (batch.h), so
 * it waits for as many answers at most, each found by a walk of the
 * open batches' waits; the requests themselves are bounded as any are
 * (client_max_inflight), and with them the open batches.  Answers held
 * are counted in the budget; the connection cuts a client whose held
 * answers and queue pass its hard output limit.
 *
 * The messages are handed on from the line itself, in place: nothing of
 * a batch is copied but the answers.
 */
#include "config.h"

#include <sys/queue.h>
#include <sys/uio.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "budget.h"
#include "client_batch.h"
#include "envelope.h"
#include "proto.h"
#include "rpc.h"
#include "sbuf.h"
#include "xmalloc.h"

struct client_batch {
	TAILQ_ENTRY(client_batch) entry;
	struct sbuf		 out;		/* "[" and the answers so far */
	size_t			 nanswers;
	char			**wait;		/* ids (JSON text) to answer */
	size_t			*wait_len;
	size_t			 nwait;
	int			 running;	/* messages still handed on */
};

struct client_batches {
	struct mcpd		*mcpd;
	TAILQ_HEAD(, client_batch) list;
	struct client_batch	*current;	/* handing on its messages */
	size_t			 held;		/* in the budget */
	void			(*send)(void *, const char *, size_t);
	void			*arg;
};

struct client_batches *
client_batches_new(struct mcpd *mcpd,
    void (*send)(void *, const char *, size_t), void *arg)
{
	struct client_batches	*bs;

	bs = xcalloc(1, sizeof *bs);
	bs->mcpd = mcpd;
	bs->send = send;
	bs->arg = arg;
	TAILQ_INIT(&bs->list);
	return (bs);
}

static void
client_batch_free(struct client_batches *bs, struct client_batch *b)
{
	size_t	 i;

	TAILQ_REMOVE(&bs->list, b, entry);
	budget_sub(bs->mcpd, b->out.len);
	bs->held -= b->out.len;
	for (i = 0; i < b->nwait; i++)
		free(b->wait[i]);
	free(b->wait);
	free(b->wait_len);
	free(b->out.p);
	free(b);
}

void
client_batches_free(struct client_batches *bs)
{
	struct client_batch	*b;

	if (bs == NULL)
		return;
	while ((b = TAILQ_FIRST(&bs->list)) != NULL)
		client_batch_free(bs, b);
	free(bs);
}

int
client_batches_open(const struct client_batches *bs)
{
	return (bs != NULL && !TAILQ_EMPTY(&bs->list));
}

size_t
client_batches_held(const struct client_batches *bs)
{
	return (bs != NULL ? bs->held : 0);
}

/* Every answer is in and every message handed on: the array goes out. */
static void
client_batch_done(struct client_batches *bs, struct client_batch *b)
{
	if (b->running || b->nwait > 0)
		return;
	if (b->nanswers > 0) {
		sbuf_add(&b->out, "]", 1);
		bs->send(bs->arg, b->out.p, b->out.len);
	}
	client_batch_free(bs, b);
}

static void
client_batch_add(struct client_batches *bs, struct client_batch *b,
    const char *text, size_t len)
{
	size_t	 before = b->out.len;

	sbuf_add(&b->out, b->nanswers++ == 0 ? "[" : ",", 1);
	sbuf_add(&b->out, text, len);
	budget_add(bs->mcpd, b->out.len - before);
	bs->held += b->out.len - before;
}

static void
client_batch_wait(struct client_batch *b, const char *id, size_t len)
{
	b->wait = xreallocarray(b->wait, b->nwait + 1, sizeof *b->wait);
	b->wait_len = xreallocarray(b->wait_len, b->nwait + 1,
	    sizeof *b->wait_len);
	b->wait[b->nwait] = xstrndup(id, len);
	b->wait_len[b->nwait] = len;
	b->nwait++;
}

/* The batch that waits for an answer to id, and where; NULL: none. */
static struct client_batch *
client_batch_find(struct client_batches *bs, const char *id, size_t len,
    size_t *at)
{
	struct client_batch	*b;
	size_t			 i;

	TAILQ_FOREACH(b, &bs->list, entry) {
		for (i = 0; i < b->nwait; i++) {
			if (b->wait_len[i] == len &&
			    memcmp(b->wait[i], id, len) == 0) {
				*at = i;
				return (b);
			}
		}
	}
	return (NULL);
}

static void
client_batch_unwait(struct client_batch *b, size_t i)
{
	free(b->wait[i]);
	b->nwait--;
	b->wait[i] = b->wait[b->nwait];
	b->wait_len[i] = b->wait_len[b->nwait];
}

int
client_batches_take(struct client_batches *bs, const struct iovec *iov,
    int iovcnt)
{
	struct client_batch	*b;
	struct envelope		 env;
	char			*text;
	size_t			 len, erroff, at;
	int			 taken = 0;

	if (TAILQ_EMPTY(&bs->list))
		return (0);
	text = xiovdup(iov, iovcnt, &len);
	/* An answer: no method, a result or an error. */
	if (envelope_scan(text, len, &env, &erroff) != 0 ||
	    env.method.type != ENVELOPE_ABSENT ||
	    (env.result.type == ENVELOPE_ABSENT &&
	    env.error.type == ENVELOPE_ABSENT))
		goto out;
	if (env.id.type == ENVELOPE_STRING || env.id.type == ENVELOPE_NUMBER) {
		if ((b = client_batch_find(bs, text + env.id.off, env.id.len,
		    &at)) == NULL)
			goto out;
		client_batch_unwait(b, at);
	} else if ((env.id.type == ENVELOPE_NULL ||
	    env.id.type == ENVELOPE_ABSENT) && bs->current != NULL)
		b = bs->current;
	else
		goto out;
	client_batch_add(bs, b, text, len);
	taken = 1;
	client_batch_done(bs, b);
out:
	free(text);
	return (taken);
}

void
client_batches_heard(struct client_batches *bs, const char *line, size_t len)
{
	struct client_batch	*b;
	struct envelope		 env;
	size_t			 erroff, at;

	if (bs == NULL || TAILQ_EMPTY(&bs->list) ||
	    envelope_scan(line, len, &env, &erroff) != 0 ||
	    env.id.type != ENVELOPE_ABSENT ||
	    !envelope_string_eq(line, &env.method, "notifications/cancelled") ||
	    (env.p_request_id.type != ENVELOPE_STRING &&
	    env.p_request_id.type != ENVELOPE_NUMBER))
		return;
	if ((b = client_batch_find(bs, line + env.p_request_id.off,
	    env.p_request_id.len, &at)) == NULL)
		return;
	client_batch_unwait(b, at);
	client_batch_done(bs, b);
}

/* The error a batch gets as a whole (an invalid batch), or a message. */
static void
client_batch_error(struct client_batches *bs, struct client_batch *b,
    int code, const char *why)
{
	cJSON	*msg;
	char	*text;

	msg = rpc_make_error(NULL, code, why, NULL);
	text = rpc_print(msg);
	cJSON_Delete(msg);
	if (b != NULL)
		client_batch_add(bs, b, text, strlen(text));
	else
		bs->send(bs->arg, text, strlen(text));
	free(text);
}

void
client_batches_run(struct client_batches *bs, const char *line, size_t len,
    void (*handle)(void *, const char *, size_t), void *arg)
{
	struct client_batch	*b;
	struct batch_span	*spans;
	struct envelope		 env;
	const char		*msg;
	char			*why;
	size_t			 i, n, erroff;
	int			 code;

	if (batch_split(line, len, BATCH_MAX_MESSAGES, &spans, &n, &code,
	    &why) != 0) {
		client_batch_error(bs, NULL, code, why);
		free(why);
		return;
	}
	b = xcalloc(1, sizeof *b);
	b->running = 1;
	TAILQ_INSERT_TAIL(&bs->list, b, entry);
	for (i = 0; i < n; i++) {
		msg = line + spans[i].off;
		if (!spans[i].object) {
			client_batch_error(bs, b, RPC_INVALID_REQUEST,
			    "invalid request: a message of a batch is a "
			    "JSON-RPC 2.0 object");
			continue;
		}
		/* A request: its answer is the batch's. */
		if (envelope_scan(msg, spans[i].len, &env, &erroff) == 0 &&
		    env.method.type == ENVELOPE_STRING &&
		    (env.id.type == ENVELOPE_STRING ||
		    env.id.type == ENVELOPE_NUMBER))
			client_batch_wait(b, msg + env.id.off, env.id.len);
		client_batches_heard(bs, msg, spans[i].len);
		bs->current = b;
		handle(arg, msg, spans[i].len);
		bs->current = NULL;
	}
	free(spans);
	b->running = 0;
	client_batch_done(bs, b);
}
