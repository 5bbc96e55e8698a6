/*
 * fuzz_modern_layer.c -- a 2026-07-28 client's connection through the
 * layer of daemon/client_modern*.c, between the client and its 2025
 * session, through its public calls (client_modern.h): modern_open,
 * modern_in, modern_out, modern_free.
 *
 * The layer runs as in mcpd on a real event base, with a minimal struct
 * mcpd (a configuration with input_timeout_ms 1000, a fixed requestState
 * key) and a stand-in connection (struct modern_io) that records every
 * line the layer sends the client or the session; the principal is a
 * constant.  log.c and clock.c run as they are, told to give their
 * messages to a check and to read a simulated clock.
 *
 * The input is lines, fed in turn to the client's side and the session's:
 * the first, third... as the client's (modern_open until the layer is
 * made, modern_in after), the second, fourth... as the session's
 * (modern_out).  An empty line passes a turn.  A line "~" is no turn:
 * time passes (input_timeout_ms and a little more) and the timers run.
 * In a client's line "$S" is the newest requestState the layer gave the
 * client, so that retries can be written.  The session is a router (or a
 * group): it answers what it was sent, each request once, and numbers
 * the server's requests it passes on; a reply of the session's to an id
 * it does not hold (but null), or a request of its own whose id is not
 * an integer, is dropped.  An initialize that opens a
 * 2025 session (modern_open's LEGACY, modern_in's 0) ends the layer and
 * the input: the rest is the router's (fuzz_client).
 *
 * Invariants: no crash, leak or sanitizer report (the layer freed at the
 * end holds nothing); every line the layer sends either side, but a
 * line it passes on as it came, is one JSON-RPC object the scanner takes
 * (envelope_scan), with no newline in it; the session's requests (under
 * the integer ids a router gives them) are answered at most once; a
 * cancellation the layer sends the session names a request it sent
 * there, by its id as the client wrote it; every
 * message on a stream carries, as its subscriptionId, the id of one of
 * the client's subscriptions/listen requests as the client wrote it; what
 * the layer counts in the memory budget never goes below zero and is
 * back to zero once it is freed.
 *
 * Built with -DFUZZ_TRACE, it prints each line and what the layer sends
 * (cut at 400 bytes) on stderr.
 */
#include "config.h"

#include <sys/uio.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <cjson/cJSON.h>

#include "budget.h"
#include "client_modern.h"
#include "clock.h"
#include "conf.h"
#include "envelope.h"
#include "fuzz.h"
#include "hmap.h"
#include "log.h"
#include "mcpd.h"
#include "util.h"
#include "xmalloc.h"

const char	*fuzz_target_name = "modern_layer";

#define FUZZ_START_MS		1000000
#define FUZZ_INPUT_TIMEOUT_MS	1000
#define FUZZ_PRINCIPAL		42
#define FUZZ_STATE_BYTES	512	/* "$S" expands to less than this */
#define FUZZ_MAX_DOWNS		4096
#define FUZZ_SANE_BUDGET	((size_t)1 << 40)
#define FUZZ_MAX_OPEN		4096

static struct {
	struct mcpd	 mcpd;
	struct conf	 conf;
	struct modern	*m;
	int		 done;		/* a 2025 session: the layer is gone */
	uint64_t	 now_ms;
	uint64_t	 now_us;
	/* The line being handled: the layer may pass it on as it came. */
	const char	*cur;
	size_t		 cur_len;
	char		 state[FUZZ_STATE_BYTES];
	/* The session's requests not answered yet, by their integer ids. */
	int64_t		 downs[FUZZ_MAX_DOWNS];
	size_t		 ndowns;
	/* The ids of the client's subscriptions/listen requests (tamed). */
	cJSON		*listens;
	/* The ids of the requests the layer sent the session (tamed). */
	cJSON		*ups;
	/* The ids' texts of those the session has not answered yet. */
	char		*open[FUZZ_MAX_OPEN];
	size_t		 nopen;
} F;

static uint64_t
fuzz_mono_us(void)
{
	if (F.now_us < F.now_ms * 1000)
		F.now_us = F.now_ms * 1000;
	if (F.now_us < F.now_ms * 1000 + 999)
		return (F.now_us++);
	return (F.now_us);
}

static uint64_t
fuzz_real_us(void)
{
	return (1700000000000000ULL);
}

static const struct clock_source fuzz_clock = { fuzz_mono_us, fuzz_real_us };

static void
fuzz_log(int priority, const char *message_id,
    const struct log_field *fields, size_t nfields, const char *text)
{
	size_t	 i;

	for (i = 0; i < nfields; i++)
		FUZZ_CHECK(fields[i].name != NULL, "log field without a name");
}

/* An id a router gives the server's requests: an integer JSON keeps. */
static int
fuzz_down_id(const char *line, const struct envelope_value *v, int64_t *id)
{
	if (v->type != ENVELOPE_NUMBER || envelope_int64(line, v, id) != 0)
		return (0);
	return (*id > -((int64_t)1 << 53) && *id < ((int64_t)1 << 53));
}

/* A message on a stream carries the id of a listen request's. */
static void
fuzz_stream(const char *line, size_t len, const struct envelope *env)
{
	cJSON		*meta;
	const cJSON	*sub, *id;
	int		 found = 0;

	if (env->meta.type != ENVELOPE_OBJECT || memmem(line + env->meta.off,
	    env->meta.len, "subscriptionId", 14) == NULL)
		return;
	meta = fuzz_json_parse(line + env->meta.off, env->meta.len);
	sub = fuzz_json_member(meta, "io.modelcontextprotocol/subscriptionId");
	if (sub != NULL) {
		cJSON_ArrayForEach(id, F.listens) {
			if (fuzz_json_equal(id, sub))
				found = 1;
		}
		FUZZ_CHECK(found, "to the client, on a stream no listen "
		    "request opened: %.*s", (int)len, line);
	}
	cJSON_Delete(meta);
}

/*
 * A request to the session is kept; a cancellation names one (as the
 * client wrote its id).
 */
static void
fuzz_up(const char *line, const struct envelope *env)
{
	const cJSON	*up;
	cJSON		*id;
	int		 found = 0;

	if (env->method.type == ENVELOPE_ABSENT)
		return;
	if (env->id.type != ENVELOPE_ABSENT) {
		if (cJSON_GetArraySize(F.ups) < 4096 && (id = fuzz_json_parse(
		    line + env->id.off, env->id.len)) != NULL)
			cJSON_AddItemToArray(F.ups, id);
		if (F.nopen < FUZZ_MAX_OPEN)
			F.open[F.nopen++] = xstrndup(line + env->id.off,
			    env->id.len);
		return;
	}
	if (!envelope_string_eq(line, &env->method,
	    "notifications/cancelled") ||
	    env->p_request_id.type == ENVELOPE_ABSENT)
		return;
	id = fuzz_json_parse(line + env->p_request_id.off,
	    env->p_request_id.len);
	cJSON_ArrayForEach(up, F.ups) {
		if (id != NULL && fuzz_json_equal(up, id))
			found = 1;
	}
	FUZZ_CHECK(found, "to the session, a cancellation of a request it "
	    "was never sent: %s", line);
	cJSON_Delete(id);
}

/* A line the layer sends: checked, and what it tells the harness kept. */
static void
fuzz_sent(const char *who, const char *line, size_t len)
{
	struct envelope	 env;
	size_t		 erroff, i;
	int64_t		 id;
	cJSON		*msg;
	const cJSON	*st;

#ifdef FUZZ_TRACE
	fprintf(stderr, "  -> %s: %.*s\n", who, (int)(len > 400 ? 400 : len),
	    line);
#endif
	if (len == F.cur_len && memcmp(line, F.cur, len) == 0) {
		/* Passed on as it came: a request of the client's is kept. */
		if (strcmp(who, "session") == 0 && envelope_scan(line, len,
		    &env, &erroff) == 0 && env.id.type != ENVELOPE_ABSENT)
			fuzz_up(line, &env);
		return;
	}
	FUZZ_CHECK(memchr(line, '\n', len) == NULL, "to the %s, a newline "
	    "in %.*s", who, (int)len, line);
	FUZZ_CHECK(envelope_scan(line, len, &env, &erroff) == 0, "to the %s, "
	    "no JSON-RPC object (byte %zu): %.*s", who, erroff, (int)len,
	    line);
	if (strcmp(who, "session") == 0) {
		fuzz_up(line, &env);
		/* An answer to a request of the session's, once. */
		if (env.method.type != ENVELOPE_ABSENT ||
		    !fuzz_down_id(line, &env.id, &id))
			return;
		for (i = 0; i < F.ndowns && F.downs[i] != id; i++)
			;
		FUZZ_CHECK(i < F.ndowns, "the session's request %lld answered "
		    "again, or never asked: %.*s", (long long)id, (int)len,
		    line);
		F.downs[i] = F.downs[--F.ndowns];
		return;
	}
	fuzz_stream(line, len, &env);
	/* The newest requestState, for "$S". */
	if (env.result.type != ENVELOPE_OBJECT ||
	    memmem(line + env.result.off, env.result.len, "\"requestState\"",
	    14) == NULL)
		return;
	msg = fuzz_json_parse(line + env.result.off, env.result.len);
	st = fuzz_json_member(msg, "requestState");
	if (cJSON_IsString(st) && strlen(st->valuestring) < sizeof F.state)
		snprintf(F.state, sizeof F.state, "%s", st->valuestring);
	cJSON_Delete(msg);
}

static void
fuzz_to_session(void *arg, const char *line, size_t len)
{
	fuzz_sent("session", line, len);
}

static void
fuzz_to_client(void *arg, const struct iovec *iov, int iovcnt)
{
	char	*text;
	size_t	 len = 0;
	int	 i;

	for (i = 0; i < iovcnt; i++)
		len += iov[i].iov_len;
	text = xmalloc(len + 1);
	for (len = 0, i = 0; i < iovcnt; i++) {
		memcpy(text + len, iov[i].iov_base, iov[i].iov_len);
		len += iov[i].iov_len;
	}
	text[len] = '\0';
	fuzz_sent("client", text, len);
	free(text);
}

static uint64_t
fuzz_principal(void *arg)
{
	return (FUZZ_PRINCIPAL);
}

static const struct modern_io fuzz_io = {
	.to_session = fuzz_to_session,
	.to_client = fuzz_to_client,
	.principal = fuzz_principal,
};

static int
fuzz_collect_cb(const struct event_base *base, const struct event *ev,
    void *arg)
{
	struct event	***list = arg;
	size_t		   n = 0;

	while ((*list)[n] != NULL)
		n++;
	*list = xreallocarray(*list, n + 2, sizeof **list);
	(*list)[n] = (struct event *)(uintptr_t)ev;
	(*list)[n + 1] = NULL;
	return (0);
}

/* Time passes: every timer runs, as it would once due. */
static void
fuzz_advance(uint64_t ms)
{
	struct event	**list;
	size_t		  i;

	F.now_ms += ms;
	list = xcalloc(1, sizeof *list);
	event_base_foreach_event(F.mcpd.base, fuzz_collect_cb, &list);
	for (i = 0; list[i] != NULL; i++) {
		if (evtimer_pending(list[i], NULL))
			event_active(list[i], EV_TIMEOUT, 1);
	}
	free(list);
	event_base_loop(F.mcpd.base, EVLOOP_NONBLOCK);
}

/* "$S" replaced by the newest requestState. */
static char *
fuzz_expand(const char *in, size_t len, size_t *out_len)
{
	char	*out;
	size_t	 i, o = 0, n = 0;

	for (i = 0; i + 1 < len; i++)
		n += in[i] == '$' && in[i + 1] == 'S';
	out = xmalloc(len + n * sizeof F.state + 1);
	for (i = 0; i < len; i++) {
		if (in[i] == '$' && i + 1 < len && in[i + 1] == 'S') {
			memcpy(out + o, F.state, strlen(F.state));
			o += strlen(F.state);
			i++;
		} else
			out[o++] = in[i];
	}
	out[o] = '\0';
	*out_len = o;
	return (out);
}

/* The id of a client's subscriptions/listen, kept. */
static void
fuzz_listen_id(const char *line, size_t len)
{
	struct envelope	 env;
	size_t		 erroff;
	cJSON		*id;

	if (envelope_scan(line, len, &env, &erroff) != 0 ||
	    env.id.type == ENVELOPE_ABSENT ||
	    !envelope_string_eq(line, &env.method, "subscriptions/listen") ||
	    cJSON_GetArraySize(F.listens) >= 256)
		return;
	if ((id = fuzz_json_parse(line + env.id.off, env.id.len)) != NULL)
		cJSON_AddItemToArray(F.listens, id);
}

static void
fuzz_client_line(const char *in, size_t in_len)
{
	char	*line;
	size_t	 len;

	line = fuzz_expand(in, in_len, &len);
	fuzz_listen_id(line, len);
	F.cur = line;
	F.cur_len = len;
	if (F.m == NULL) {
		switch (modern_open(&F.mcpd, line, len, &fuzz_io, NULL,
		    &F.m)) {
		case MODERN_OPEN_LEGACY:
			F.done = 1;
			break;
		case MODERN_OPEN_MODERN:
			FUZZ_CHECK(F.m != NULL, "opened, no layer");
			break;
		default:
			FUZZ_CHECK(F.m == NULL, "not opened, a layer");
			break;
		}
	} else if (!modern_in(F.m, line, len)) {
		modern_free(F.m);
		F.m = NULL;
		F.done = 1;
	}
	F.cur = NULL;
	F.cur_len = 0;
	free(line);
}

/* A reply of the session's: to a request it holds, then no longer. */
static int
fuzz_answered(const char *line, const struct envelope_value *id)
{
	size_t	 i;

	for (i = 0; i < F.nopen; i++) {
		if (strlen(F.open[i]) == id->len &&
		    memcmp(F.open[i], line + id->off, id->len) == 0) {
			free(F.open[i]);
			F.open[i] = F.open[--F.nopen];
			return (1);
		}
	}
	return (0);
}

static void
fuzz_session_line(const char *line, size_t len)
{
	struct envelope	 env;
	size_t		 erroff;
	int64_t		 id;

	if (F.m == NULL)
		return;		/* nothing the session sends yet */
	if (envelope_scan(line, len, &env, &erroff) == 0 &&
	    env.method.type != ENVELOPE_ABSENT &&
	    env.id.type != ENVELOPE_ABSENT) {
		if (!fuzz_down_id(line, &env.id, &id))
			return;		/* a router numbers them */
		if (F.ndowns < FUZZ_MAX_DOWNS)
			F.downs[F.ndowns++] = id;
	}
	if (envelope_scan(line, len, &env, &erroff) == 0 &&
	    env.method.type == ENVELOPE_ABSENT &&
	    env.id.type != ENVELOPE_ABSENT && env.id.type != ENVELOPE_NULL &&
	    !fuzz_answered(line, &env.id))
		return;		/* a router drops it */
	F.cur = line;
	F.cur_len = len;
	modern_out(F.m, line, len);
	F.cur = NULL;
	F.cur_len = 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*p = (const char *)data, *end = p + size, *nl;
	size_t		 len, turn = 0, i;

	memset(&F, 0, sizeof F);
	clock_use(&fuzz_clock);
	hmap_seed_fix(0x6d6370642d6d6f64ULL);
	log_sink(fuzz_log);
	F.now_ms = FUZZ_START_MS;
	F.conf.input_timeout_ms = FUZZ_INPUT_TIMEOUT_MS;
	F.mcpd.conf = &F.conf;
	for (i = 0; i < sizeof F.mcpd.state_key; i++)
		F.mcpd.state_key[i] = (uint8_t)(i * 7 + 1);
	F.mcpd.state_keyed = 1;
	F.listens = cJSON_CreateArray();
	F.ups = cJSON_CreateArray();
	if ((F.mcpd.base = event_base_new()) == NULL)
		abort();

	while (p < end && !F.done) {
		nl = memchr(p, '\n', (size_t)(end - p));
		len = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
#ifdef FUZZ_TRACE
		fprintf(stderr, "%s %.*s\n", len == 1 && p[0] == '~' ? "time" :
		    len == 0 ? "pass" : turn % 2 == 0 ? "client" : "session",
		    (int)(len > 400 ? 400 : len), p);
#endif
		if (len == 1 && p[0] == '~')
			fuzz_advance(FUZZ_INPUT_TIMEOUT_MS + 1);
		else {
			if (len > 0 && turn % 2 == 0)
				fuzz_client_line(p, len);
			else if (len > 0)
				fuzz_session_line(p, len);
			turn++;
		}
		FUZZ_CHECK(budget_used(&F.mcpd) < FUZZ_SANE_BUDGET, "the "
		    "layer counts %zu bytes in the budget",
		    budget_used(&F.mcpd));
		p += nl != NULL ? len + 1 : len;
	}

	modern_free(F.m);
	F.m = NULL;
	FUZZ_CHECK(budget_used(&F.mcpd) == 0, "once the layer is freed the "
	    "memory budget still counts %zu bytes", budget_used(&F.mcpd));
	event_base_free(F.mcpd.base);
	cJSON_Delete(F.listens);
	cJSON_Delete(F.ups);
	for (i = 0; i < F.nopen; i++)
		free(F.open[i]);
	clock_use(NULL);
	return (0);
}
