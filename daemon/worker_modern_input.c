/*
 * worker_modern_input.c -- a server of MCP 2026-07-28 asks for input
 * (input_required) for a request of a 2025 client: the client that made
 * the request is asked, and the request retried with its answers.
 *
 * - While a request that may need input (tools/call, prompts/get,
 *   resources/read) is at the server, its text as the router sent it is
 *   kept, by the router's upstream id U (bounded: WORKER_INPUT_*).
 * - An input_required answer to it does not go to the router.  Each of
 *   its input requests goes to the router as a request of the server's
 *   (elicitation/create, sampling/createMessage, roots/list) under an id
 *   of the worker's own ("mcpd-input-N"), for the client that made U
 *   alone (router_server_request_for: the client's capabilities and
 *   revision, task ownership and URL elicitations as for any request of
 *   the server's; roots/list answered by mcpd where mcpd answers roots).
 *   The client's answers come back through worker_modern_write under
 *   those ids and end here, never at the server.
 * - With every answer in, the request is sent again under a new id (the
 *   spec wants one per attempt) with params.inputResponses (key -> the
 *   client's result) and params.requestState as the server gave it.  The
 *   state is the server's and never leaves mcpd (the client sees only the
 *   input requests), so it is kept as it came, unsealed.  The answer to
 *   the retry goes to the router under U; another input_required is
 *   another round, up to WORKER_INPUT_MAX_ROUNDS.
 * - A round that cannot be answered (no capability, the client gone,
 *   garbage, an error answer, too many rounds or waiting requests, no
 *   answer within input_timeout_ms) ends the call with an error to the
 *   router under U that names what the server asked and why.
 * - The caller's notifications/cancelled for U drops the state and
 *   withdraws the requests still at the client (notifications/cancelled
 *   to the router under the worker's ids); the server's end drops all
 *   (worker_input_free, from worker_modern_end; the router withdraws
 *   what it passed to clients itself).
 * Everything that talks to the router runs from a zero timer, never
 * inside the write or the line that caused it; a state is freed only
 * there, or where nothing holds it.
 */
#include "config.h"

#include <sys/queue.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <cjson/cJSON.h>

#include "clock.h"
#include "conf.h"
#include "envelope.h"
#include "hmap.h"
#include "log.h"
#include "mcpd.h"
#include "modern_input.h"
#include "proto.h"
#include "router.h"
#include "transport.h"
#include "util.h"
#include "worker.h"
#include "worker_int.h"
#include "xmalloc.h"

#define WORKER_INPUT_MAX_ROUNDS		8	/* input_required per request */
#define WORKER_INPUT_MAX_WAITING	1024	/* requests waiting for input */
#define WORKER_INPUT_MAX_KEPT		4096	/* requests kept for a retry */
#define WORKER_INPUT_KEEP_BYTES		(1024 * 1024)	/* one kept, at most */
#define WORKER_INPUT_MAX_BYTES		(64 * 1024 * 1024) /* all it holds */
#define WORKER_INPUT_ID			"mcpd-input-"

enum worker_input_phase {
	WORKER_INPUT_SENT,	/* at the server, under server_id */
	WORKER_INPUT_ASK,	/* its round to go to the client */
	WORKER_INPUT_ASKED,	/* at the client: answers coming */
	WORKER_INPUT_READY,	/* every answer in: to retry */
	WORKER_INPUT_FAILED,	/* to end with error */
	WORKER_INPUT_GONE,	/* cancelled: to let go of */
};

struct worker_input {
	int64_t			 up_id;		/* the router's, U */
	int64_t			 server_id;	/* U, or a retry's */
	char			*line;		/* as the router sent it */
	size_t			 len;
	size_t			 bytes;		/* counted in inputs->bytes */
	enum worker_input_phase	 phase;
	unsigned int		 rounds;
	struct modern_input_round round;
	int64_t			*ask_ids;	/* each ask's N; 0: answered */
	char			**results;	/* each ask's answer */
	size_t			 nsent;
	size_t			 nanswered;
	int			 code;		/* FAILED: the error */
	char			*error;
	uint64_t		 deadline_ms;	/* ASKED: input_timeout_ms */
	int			 queued;	/* on todo */
	int			 waiting;	/* on waiting */
	TAILQ_ENTRY(worker_input) todo_entry;
	TAILQ_ENTRY(worker_input) wait_entry;
	TAILQ_ENTRY(worker_input) all_entry;
};
TAILQ_HEAD(worker_input_list, worker_input);

struct worker_inputs {
	struct worker		*w;
	struct hmap		*by_up;		/* U -> input */
	struct hmap		*by_server;	/* server_id -> input (SENT) */
	struct hmap		*asks;		/* N -> input */
	int64_t			 next_ask;
	size_t			 bytes;
	size_t			 nwaiting;
	struct worker_input_list todo;		/* for the zero timer */
	struct worker_input_list waiting;	/* by deadline */
	struct worker_input_list all;
	struct event		*ev_todo;
	struct event		*ev_expire;
};

static void	worker_input_todo_cb(evutil_socket_t, short, void *);
static void	worker_input_expire_cb(evutil_socket_t, short, void *);

static struct worker_inputs *
worker_input_get(struct worker *w, struct worker_inputs **slot)
{
	struct worker_inputs	*in;

	if (*slot != NULL)
		return (*slot);
	in = xcalloc(1, sizeof *in);
	in->w = w;
	in->by_up = hmap_new(hmap_random_seed());
	in->by_server = hmap_new(hmap_random_seed());
	in->asks = hmap_new(hmap_random_seed());
	TAILQ_INIT(&in->todo);
	TAILQ_INIT(&in->waiting);
	TAILQ_INIT(&in->all);
	in->ev_todo = evtimer_new(w->mcpd->base, worker_input_todo_cb, in);
	in->ev_expire = evtimer_new(w->mcpd->base, worker_input_expire_cb,
	    in);
	if (in->ev_todo == NULL || in->ev_expire == NULL)
		fatalx("evtimer_new");
	*slot = in;
	return (in);
}

static void
worker_input_queue(struct worker_inputs *in, struct worker_input *st)
{
	struct timeval	 tv = { 0, 0 };

	if (!st->queued) {
		TAILQ_INSERT_TAIL(&in->todo, st, todo_entry);
		st->queued = 1;
	}
	evtimer_add(in->ev_todo, &tv);
}

/* The expiry timer, for the first of the waiting. */
static void
worker_input_arm(struct worker_inputs *in)
{
	struct worker_input	*st = TAILQ_FIRST(&in->waiting);
	uint64_t		 now = clock_now_ms();

	if (st == NULL)
		evtimer_del(in->ev_expire);
	else
		worker_evtimer_add_ms(in->ev_expire, st->deadline_ms > now ?
		    st->deadline_ms - now : 0);
}

static void
worker_input_unwait(struct worker_inputs *in, struct worker_input *st)
{
	if (!st->waiting)
		return;
	TAILQ_REMOVE(&in->waiting, st, wait_entry);
	st->waiting = 0;
	in->nwaiting--;
	worker_input_arm(in);
}

/* The round's answers and asks let go of (the asks' ids forgotten). */
static void
worker_input_round_clear(struct worker_inputs *in, struct worker_input *st)
{
	size_t	 i;

	for (i = 0; i < st->round.nasks; i++) {
		if (st->ask_ids != NULL && st->ask_ids[i] != 0)
			(void)hmap_del_i64(in->asks, st->ask_ids[i]);
		if (st->results != NULL)
			free(st->results[i]);
	}
	free(st->ask_ids);
	free(st->results);
	st->ask_ids = NULL;
	st->results = NULL;
	st->nsent = st->nanswered = 0;
	modern_input_clear(&st->round);
}

static void
worker_input_free_one(struct worker_inputs *in, struct worker_input *st)
{
	worker_input_unwait(in, st);
	if (st->queued)
		TAILQ_REMOVE(&in->todo, st, todo_entry);
	if (hmap_get_i64(in->by_up, st->up_id) == st)
		(void)hmap_del_i64(in->by_up, st->up_id);
	if (hmap_get_i64(in->by_server, st->server_id) == st)
		(void)hmap_del_i64(in->by_server, st->server_id);
	worker_input_round_clear(in, st);
	in->bytes -= st->bytes;
	TAILQ_REMOVE(&in->all, st, all_entry);
	free(st->line);
	free(st->error);
	free(st);
}

void
worker_input_free(struct worker_inputs *in)
{
	struct worker_input	*st;

	if (in == NULL)
		return;
	while ((st = TAILQ_FIRST(&in->all)) != NULL)
		worker_input_free_one(in, st);
	event_free(in->ev_todo);
	event_free(in->ev_expire);
	hmap_free(in->by_up);
	hmap_free(in->by_server);
	hmap_free(in->asks);
	free(in);
}

/*
 * The round ends the call: the error, naming what the server asked
 * (fmt: why it could not be answered), goes to the router from the timer.
 */
static void
worker_input_fail(struct worker_inputs *in, struct worker_input *st,
    int code, const char *fmt, ...)
{
	va_list	 ap;
	char	*why, *names;

	if (st->phase == WORKER_INPUT_FAILED || st->phase == WORKER_INPUT_GONE)
		return;
	va_start(ap, fmt);
	(void)xvasprintf(&why, fmt, ap);
	va_end(ap);
	names = modern_input_names(&st->round);
	free(st->error);
	xasprintf(&st->error, "server %s asked for input for this request "
	    "(%s), which mcpd could not get: %s", in->w->name,
	    st->round.nasks > 0 ? names : "its requestState alone", why);
	free(names);
	free(why);
	st->code = code;
	st->phase = WORKER_INPUT_FAILED;
	worker_input_queue(in, st);
}

/*
 * To the server.
 */

void
worker_input_keep(struct worker *w, struct worker_inputs **slot,
    const char *line, size_t len, const struct envelope *env)
{
	struct worker_inputs	*in;
	struct worker_input	*st;
	int64_t			 id;

	if (envelope_int64(line, &env->id, &id) != 0 ||
	    (!envelope_string_eq(line, &env->method, "tools/call") &&
	    !envelope_string_eq(line, &env->method, "prompts/get") &&
	    !envelope_string_eq(line, &env->method, "resources/read")))
		return;
	in = worker_input_get(w, slot);
	/* Past the bounds: an input_required for it is refused (modern_up). */
	if (len > WORKER_INPUT_KEEP_BYTES ||
	    hmap_count(in->by_up) >= WORKER_INPUT_MAX_KEPT ||
	    in->bytes + len > WORKER_INPUT_MAX_BYTES ||
	    hmap_get_i64(in->by_up, id) != NULL)
		return;
	st = xcalloc(1, sizeof *st);
	st->up_id = st->server_id = id;
	st->line = xmalloc(len);
	memcpy(st->line, line, len);
	st->len = len;
	st->bytes = len;
	in->bytes += len;
	st->phase = WORKER_INPUT_SENT;
	(void)hmap_put_i64(in->by_up, id, st);
	(void)hmap_put_i64(in->by_server, id, st);
	TAILQ_INSERT_TAIL(&in->all, st, all_entry);
}

/* The retry: the request again, with the answers, under a new id. */
static void
worker_input_retry(struct worker_inputs *in, struct worker_input *st)
{
	struct worker	*w = in->w;
	char		*text;
	size_t		 len;
	int64_t		 id;

	id = w->next_upstream_id++;
	text = modern_input_retry(st->line, st->len, id, &st->round,
	    st->results, &len);
	if (text == NULL) {
		worker_input_fail(in, st, RPC_INTERNAL_ERROR, "mcpd could not "
		    "make the request again with the answers");
		return;
	}
	worker_input_unwait(in, st);
	worker_input_round_clear(in, st);
	in->bytes -= st->bytes - st->len;
	st->bytes = st->len;
	st->server_id = id;
	st->phase = WORKER_INPUT_SENT;
	(void)hmap_put_i64(in->by_server, id, st);
	if (w->tp != NULL)
		(void)worker_modern_retry(w, text, len, st->up_id);
	free(text);
}

/*
 * To the router: the round's requests, withdrawn ones, the error.
 */

/* The requests of the round still at the client: withdrawn. */
static void
worker_input_withdraw(struct worker_inputs *in, struct worker_input *st,
    const char *reason)
{
	char	*line;
	size_t	 i;
	int	 n;

	for (i = 0; i < st->nsent; i++) {
		if (st->ask_ids[i] == 0)
			continue;
		(void)hmap_del_i64(in->asks, st->ask_ids[i]);
		n = xasprintf(&line, "{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"notifications/cancelled\",\"params\":{\"requestId\":"
		    "\"" WORKER_INPUT_ID "%lld\",\"reason\":\"%s\"}}",
		    (long long)st->ask_ids[i], reason);
		st->ask_ids[i] = 0;
		if (in->w->router != NULL)
			router_server_line(in->w->router, line, (size_t)n,
			    NULL);
		free(line);
	}
}

/* The round's requests to the client that made the request. */
static void
worker_input_ask(struct worker_inputs *in, struct worker_input *st)
{
	const struct modern_input_ask *ask;
	char		 idtext[64], *line, *why;
	size_t		 len;
	int		 n, rc;

	st->phase = WORKER_INPUT_ASKED;
	st->ask_ids = xcalloc(st->round.nasks + 1, sizeof *st->ask_ids);
	st->results = xcalloc(st->round.nasks + 1, sizeof *st->results);
	st->deadline_ms = clock_now_ms() + in->w->mcpd->conf->input_timeout_ms;
	TAILQ_INSERT_TAIL(&in->waiting, st, wait_entry);
	st->waiting = 1;
	in->nwaiting++;
	worker_input_arm(in);
	if (st->round.nasks == 0) {
		/* A requestState alone: retried at once. */
		st->phase = WORKER_INPUT_READY;
		worker_input_queue(in, st);
		return;
	}
	while (st->nsent < st->round.nasks && st->phase == WORKER_INPUT_ASKED) {
		ask = &st->round.asks[st->nsent];
		st->ask_ids[st->nsent] = ++in->next_ask;
		(void)hmap_put_i64(in->asks, in->next_ask, st);
		n = snprintf(idtext, sizeof idtext, "\"" WORKER_INPUT_ID
		    "%lld\"", (long long)in->next_ask);
		line = modern_input_request(idtext, (size_t)n, ask, &len);
		st->nsent++;
		/* An answer of mcpd's own (roots) may come back inside. */
		rc = in->w->router != NULL ? router_server_request_for(
		    in->w->router, line, len, st->up_id, &why) : -1;
		free(line);
		if (rc == 0)
			continue;
		if (st->ask_ids[st->nsent - 1] != 0) {
			(void)hmap_del_i64(in->asks, st->ask_ids[st->nsent - 1]);
			st->ask_ids[st->nsent - 1] = 0;
		}
		worker_input_fail(in, st, RPC_INTERNAL_ERROR, "%s \"%s\": %s",
		    ask->method, ask->key, in->w->router != NULL ? why :
		    "no clients");
		free(why);
	}
}

static void
worker_input_step(struct worker_inputs *in, struct worker_input *st)
{
	char	*line;
	size_t	 len;

	switch (st->phase) {
	case WORKER_INPUT_ASK:
		worker_input_ask(in, st);
		break;
	case WORKER_INPUT_READY:
		worker_input_retry(in, st);
		break;
	case WORKER_INPUT_FAILED:
		worker_input_withdraw(in, st, "mcpd ended the request");
		log_info("%s: %s", in->w->name, st->error);
		line = modern_input_error(st->up_id, st->code, st->error, &len);
		if (in->w->router != NULL)
			router_server_line(in->w->router, line, len, NULL);
		free(line);
		worker_input_free_one(in, st);
		break;
	case WORKER_INPUT_GONE:
		worker_input_withdraw(in, st, "the request was cancelled");
		worker_input_free_one(in, st);
		break;
	case WORKER_INPUT_SENT:
	case WORKER_INPUT_ASKED:
		break;
	}
}

static void
worker_input_todo_cb(evutil_socket_t fd, short events, void *arg)
{
	struct worker_inputs	*in = arg;
	struct worker_input	*st;

	(void)fd;
	(void)events;
	while ((st = TAILQ_FIRST(&in->todo)) != NULL) {
		TAILQ_REMOVE(&in->todo, st, todo_entry);
		st->queued = 0;
		worker_input_step(in, st);
	}
}

static void
worker_input_expire_cb(evutil_socket_t fd, short events, void *arg)
{
	struct worker_inputs	*in = arg;
	struct worker_input	*st;
	uint64_t		 now = clock_now_ms();
	char			 limit[32];

	(void)fd;
	(void)events;
	worker_ms_text(limit, sizeof limit, in->w->mcpd->conf->input_timeout_ms);
	while ((st = TAILQ_FIRST(&in->waiting)) != NULL &&
	    st->deadline_ms <= now) {
		worker_input_unwait(in, st);
		worker_input_fail(in, st, RPC_REQUEST_TIMEOUT, "the client "
		    "did not answer within input_timeout_ms (%s)", limit);
	}
	worker_input_arm(in);
}

/*
 * From the server.
 */

int
worker_input_answer(struct worker *w, struct worker_inputs *in,
    const char *line, size_t len, const struct envelope *env,
    char **rewritten, size_t *rlen)
{
	struct worker_input	*st;
	struct envelope_edit	 edit;
	char			 idtext[ENVELOPE_INT64_BYTES], *why;
	int64_t			 id, up_id;
	int			 rc;

	(void)w;
	if (in == NULL || envelope_int64(line, &env->id, &id) != 0 ||
	    (st = hmap_del_i64(in->by_server, id)) == NULL)
		return (0);
	rc = env->result.type == ENVELOPE_OBJECT ? modern_input_read(line +
	    env->result.off, env->result.len, &st->round, &why) : 0;
	if (rc == 0) {
		/* The end of it: to the router, under the router's id. */
		up_id = st->up_id;
		worker_input_free_one(in, st);
		if (id == up_id)
			return (0);
		edit.off = env->id.off;
		edit.len = env->id.len;
		edit.text_len = envelope_print_int64(up_id, idtext);
		edit.text = idtext;
		*rewritten = envelope_splice_dup(line, len, &edit, 1, rlen);
		return (*rewritten != NULL ? 2 : 1);
	}
	if (rc < 0) {
		worker_input_fail(in, st, RPC_INTERNAL_ERROR, "%s", why);
		free(why);
		return (1);
	}
	if (++st->rounds > WORKER_INPUT_MAX_ROUNDS)
		worker_input_fail(in, st, RPC_INTERNAL_ERROR, "it asked for "
		    "input %u times; mcpd passes at most %d rounds of one "
		    "request", st->rounds, WORKER_INPUT_MAX_ROUNDS);
	else if (in->nwaiting >= WORKER_INPUT_MAX_WAITING)
		worker_input_fail(in, st, MCPD_ERR_LIMIT, "%d requests to the "
		    "server already wait for input, as many as mcpd holds",
		    WORKER_INPUT_MAX_WAITING);
	else if (st->round.state != NULL && in->bytes +
	    strlen(st->round.state) > WORKER_INPUT_MAX_BYTES)
		worker_input_fail(in, st, MCPD_ERR_LIMIT, "mcpd holds as much "
		    "of this server's input as it takes");
	else {
		if (st->round.state != NULL) {
			st->bytes += strlen(st->round.state);
			in->bytes += strlen(st->round.state);
		}
		st->phase = WORKER_INPUT_ASK;
		worker_input_queue(in, st);
	}
	return (1);
}

/*
 * From the router: a client's answer under an id of the worker's, or a
 * cancel.
 */

/* The N of an id "mcpd-input-N", or 0 if it is not one. */
static int64_t
worker_input_ask_id(const char *line, const struct envelope_value *id)
{
	static const char	 prefix[] = "\"" WORKER_INPUT_ID;
	struct envelope_value	 v;
	int64_t			 n;

	if (id->type != ENVELOPE_STRING || id->len < sizeof prefix ||
	    memcmp(line + id->off, prefix, sizeof prefix - 1) != 0)
		return (0);
	v.type = ENVELOPE_NUMBER;
	v.off = id->off + sizeof prefix - 1;
	v.len = id->len - sizeof prefix;	/* without the closing quote */
	v.plain = 1;
	if (envelope_int64(line, &v, &n) != 0 || n <= 0)
		return (-1);
	return (n);
}

static void
worker_input_client_answer(struct worker_inputs *in, struct worker_input *st,
    int64_t n, const char *line, const struct envelope *env)
{
	const struct modern_input_ask *ask;
	cJSON		*error;
	const cJSON	*message;
	int64_t		 code;
	size_t		 i;

	for (i = 0; i < st->nsent && st->ask_ids[i] != n; i++)
		;
	if (i == st->nsent)
		return;
	st->ask_ids[i] = 0;
	if (st->phase != WORKER_INPUT_ASKED)
		return;
	ask = &st->round.asks[i];
	if (env->error.type != ENVELOPE_ABSENT) {
		if (envelope_int64(line, &env->e_code, &code) != 0 ||
		    code < INT32_MIN || code > INT32_MAX)
			code = RPC_INTERNAL_ERROR;
		error = env->error.len <= 65536 ? cJSON_ParseWithLength(line +
		    env->error.off, env->error.len) : NULL;
		message = cJSON_GetObjectItemCaseSensitive(error, "message");
		worker_input_fail(in, st, (int)code, "%s \"%s\": the client "
		    "answered with error %lld: %.200s", ask->method, ask->key,
		    (long long)code, cJSON_IsString(message) ?
		    message->valuestring : "(no message)");
		cJSON_Delete(error);
		return;
	}
	if (env->result.type != ENVELOPE_OBJECT) {
		worker_input_fail(in, st, RPC_INTERNAL_ERROR, "%s \"%s\": the "
		    "client's answer is not a result object", ask->method,
		    ask->key);
		return;
	}
	if (in->bytes + env->result.len > WORKER_INPUT_MAX_BYTES) {
		worker_input_fail(in, st, MCPD_ERR_LIMIT, "%s \"%s\": mcpd "
		    "holds as much of this server's input as it takes",
		    ask->method, ask->key);
		return;
	}
	st->results[i] = xstrndup(line + env->result.off, env->result.len);
	st->bytes += env->result.len;
	in->bytes += env->result.len;
	if (++st->nanswered == st->round.nasks) {
		st->phase = WORKER_INPUT_READY;
		worker_input_queue(in, st);
	}
}

/* The caller's cancel for U: 1 once taken, 0 to pass it on as it is. */
static int
worker_input_cancel(struct worker *w, struct worker_inputs *in,
    const char *line, const struct envelope *env)
{
	struct worker_input	*st;
	struct iovec		 iov;
	char			*text;
	int64_t			 id;
	int			 n;

	if (in == NULL || envelope_int64(line, &env->p_request_id, &id) != 0 ||
	    (st = hmap_get_i64(in->by_up, id)) == NULL)
		return (0);
	switch (st->phase) {
	case WORKER_INPUT_SENT:
		if (st->server_id == id) {
			worker_input_free_one(in, st);
			return (0);
		}
		/* A retry at the server: cancelled under its own id. */
		n = xasprintf(&text, "{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"notifications/cancelled\",\"params\":{\"requestId\":"
		    "%lld,\"reason\":\"the client cancelled the request\"}}",
		    (long long)st->server_id);
		worker_input_free_one(in, st);
		iov.iov_base = text;
		iov.iov_len = (size_t)n;
		if (w->tp != NULL)
			(void)transport_write(w->tp, &iov, 1);
		free(text);
		return (1);
	case WORKER_INPUT_FAILED:
		/* Its error no longer has anyone to go to. */
	default:
		st->phase = WORKER_INPUT_GONE;
		worker_input_queue(in, st);
		return (1);
	}
}

int
worker_input_router(struct worker *w, struct worker_inputs *in,
    const char *line, size_t len, const struct envelope *env)
{
	struct worker_input	*st;
	int64_t			 n;

	(void)len;
	if (env->method.type != ENVELOPE_ABSENT) {
		if (env->id.type == ENVELOPE_ABSENT &&
		    envelope_string_eq(line, &env->method,
		    "notifications/cancelled"))
			return (worker_input_cancel(w, in, line, env));
		return (0);
	}
	if ((n = worker_input_ask_id(line, &env->id)) == 0)
		return (0);
	/* An id of the worker's: never the server's, late or not. */
	if (n > 0 && in != NULL && (st = hmap_del_i64(in->asks, n)) != NULL)
		worker_input_client_answer(in, st, n, line, env);
	return (1);
}
