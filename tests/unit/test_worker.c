/*
 * test_worker.c -- the supervisor's state machine (daemon/worker.c) with a
 * fake transport.
 *
 * worker.c runs as it is, on a real libevent loop with timers of a few
 * milliseconds, and so does the router it owns (daemon/router*.c), and
 * log.c, which gives each message to a list (log_sink); what it calls in
 * the rest of the daemon is replaced: the transport (transport.h) by one
 * that records what is written to the server, which signals it got, and
 * lets the test say what the server wrote and when it ended; and the few
 * functions of child.c and guard.c it calls by stand-ins (the stderr
 * ring, logs_ring.c, runs as it is).  A client is played by a test client
 * that attaches to the router through a router_peer table of its own
 * (router.h), as a connection or a group's link does, and keeps what it
 * is sent.  Each test drives a server through a story (start,
 * handshake, crash, backoff, stop, give up, idle and on-demand
 * starts...) and checks the states it passes through, what the server
 * was sent and what a client got, and after every step that a
 * transport exists exactly while the state says the server runs.
 */

#include "config.h"

#include <sys/queue.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <check.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "child.h"
#include "clock.h"
#include "conf.h"
#include "envelope.h"
#include "freeze.h"
#include "esc.h"
#include "log.h"
#include "logs_ring.h"
#include "mcpd.h"
#include "proto.h"
#include "router.h"
#include "transport.h"
#include "unit.h"
#include "util.h"
#include "guard.h"
#include "worker.h"
#include "worker_int.h"
#include "xmalloc.h"

/*
 * The most any story waits for a timer: generous, for a loaded machine
 * (make check-stress); a story that works waits only as long as its timer.
 */
#define T_WAIT_MS	30000

/*
 * The fake transport.
 */
struct transport {
	const struct transport_cb *cb;
	void			*arg;
	pid_t			 pid;
	char			 written[8][512];	/* lines, in order */
	int			 nwritten;
	int			 input_closed;
	int			 sigterms;
	int			 killed;
	int			 frozen;
};

/*
 * A test client: attached to the router through tclient_peer, it keeps
 * every message the router queues for it, one line each.
 */
#define TCLIENT_LINES	16

struct tclient {
	struct attachment	*att;		/* NULL: not attached */
	char			 got[TCLIENT_LINES][512];
	int			 ngot;
	int			 detached;	/* the router let go of it */
};

static struct {
	struct mcpd		 mcpd;
	struct transport	*tp;		/* the live one, or NULL */
	int			 starts;
	int			 spawn_fails;	/* the next starts fail */
	int			 freed;
	pid_t			 next_pid;
	struct tclient		 client;
	/* The journal. */
	char			 log[64][256];
	int			 nlog;
	int			 changed;
	int			 short_init;	/* init_timeout_ms 200 */
	char			 last_stderr_field[256]; /* of the last exit */
} F;

char *
child_command(const struct conf_server *cs)
{
	return (xstrdup(cs->argv[0]));
}

int
transport_sandbox(const struct transport *t, unsigned int *held)
{
	(void)t;
	*held = 0;
	return (0);
}

struct transport *
transport_start(struct mcpd *mcpd, const struct conf_server *cs,
    const char *name, const struct child_sandbox *sbx,
    const struct transport_cb *cb, void *arg, char **cause)
{
	struct transport	*t;

	ck_assert_ptr_null(F.tp);	/* one process at a time */
	F.starts++;
	if (F.spawn_fails > 0) {
		F.spawn_fails--;
		*cause = xstrdup("exec nothing: No such file or directory");
		return (NULL);
	}
	t = xcalloc(1, sizeof *t);
	t->cb = cb;
	t->arg = arg;
	t->pid = ++F.next_pid;
	F.tp = t;
	return (t);
}

void
transport_free(struct transport *t)
{
	if (t == NULL)
		return;
	ck_assert_ptr_eq(t, F.tp);
	F.tp = NULL;
	F.freed++;
	free(t);
}

int
transport_reaped(struct mcpd *mcpd, pid_t pid, int wstatus)
{
	return (0);
}

int
transport_write(struct transport *t, const struct iovec *iov, int iovcnt)
{
	char	*line;
	size_t	 used = 0;
	int	 i;

	if (t->input_closed)
		return (-1);
	ck_assert_int_lt(t->nwritten, 8);
	line = t->written[t->nwritten++];
	for (i = 0; i < iovcnt; i++) {
		ck_assert_uint_lt(used + iov[i].iov_len, 512);
		memcpy(line + used, iov[i].iov_base, iov[i].iov_len);
		used += iov[i].iov_len;
	}
	line[used] = '\0';
	return (0);
}

/* One edit applied, as the queue copies it. */
int
transport_write_edit(struct transport *t, const char *line, size_t len,
    const struct envelope_edit *edit)
{
	struct iovec	 iov[ENVELOPE_SPLICE_IOV(1)];
	size_t		 n;

	n = envelope_splice(line, len, edit, 1, iov, nitems(iov));
	ck_assert_uint_ne(n, 0);
	return (transport_write(t, iov, (int)n));
}

size_t
transport_queued(const struct transport *t)
{
	return (0);
}

void
transport_close_input(struct transport *t)
{
	t->input_closed = 1;
}

void
transport_signal(struct transport *t, int sig)
{
	if (sig == SIGTERM)
		t->sigterms++;
}

void
transport_kill(struct transport *t)
{
	t->killed++;
}

/* A re-exec is tested with the real binaries (tests/integration/reexec.sh). */
int
transport_export(const struct transport *t, struct handover_server *s)
{
	return (-1);
}

struct transport *
transport_adopt(struct mcpd *mcpd, const struct conf_server *cs,
    const struct transport_cb *cb, void *arg,
    const struct handover_server *s)
{
	ck_abort_msg("transport_adopt in the worker's unit test");
	return (NULL);
}

void
guard_remove(struct mcpd *mcpd, pid_t pgid)
{
}

char *
transport_steal_line(struct transport *t, const char *line, size_t *size)
{
	return (NULL);
}

pid_t
transport_pid(const struct transport *t)
{
	return (t->pid);
}

const char *
transport_containment(const struct transport *t)
{
	return ("reaper");
}

/* Freezing (freeze.h): counted, done at once. */
const struct child_proc *
transport_proc(const struct transport *t)
{
	return ((const struct child_proc *)t);
}

int
freeze_begin(const struct child_proc *cp, char **cause)
{
	((struct transport *)cp)->frozen = 1;
	return (0);
}

int
freeze_done(const struct child_proc *cp)
{
	return (((const struct transport *)cp)->frozen);
}

int
freeze_thaw(const struct child_proc *cp)
{
	((struct transport *)cp)->frozen = 0;
	return (0);
}

const char *
freeze_reclaim_why_not(const struct child_proc *cp)
{
	return ("no swap on this machine");
}

int64_t
freeze_reclaim_step(const struct child_proc *cp, uint64_t bytes)
{
	return (-1);
}

/*
 * The rest of the daemon.
 */
/* What log.c is given (log_sink): the journal, as a list of messages. */
static void
test_log(int priority, const char *message_id, const struct log_field *f,
    size_t nfields, const char *text)
{
	size_t	 i;

	if (F.nlog < 64)
		snprintf(F.log[F.nlog++], sizeof F.log[0], "%s", text);
	if (message_id == NULL || strcmp(message_id, MCPD_MID_EXIT) != 0)
		return;
	F.last_stderr_field[0] = '\0';
	for (i = 0; i < nfields; i++) {
		if (strcmp(f[i].name, MCPD_FIELD_LAST_STDERR) == 0 &&
		    f[i].value != NULL)
			snprintf(F.last_stderr_field,
			    sizeof F.last_stderr_field, "%s", f[i].value);
	}
}

/* mcpd's hook (mcpd.worker_changed). */
static void
test_worker_changed(struct mcpd *mcpd)
{
	F.changed++;
}

char *
child_describe_status(int wstatus)
{
	char	*s;

	if (WIFEXITED(wstatus))
		xasprintf(&s, "exited with status %d", WEXITSTATUS(wstatus));
	else
		xasprintf(&s, "killed by signal %d", WTERMSIG(wstatus));
	return (s);
}

void
child_forget(const char *name)
{
}

const char *
child_containment_default(void)
{
	return ("reaper");
}

/*
 * The test client's side of the router (router.h's router_peer).
 */
static void
tclient_queue(void *arg, const struct iovec *iov, int iovcnt)
{
	struct tclient	*c = arg;
	char		*line;
	size_t		 used = 0;
	int		 i;

	ck_assert_ptr_nonnull(c->att);	/* nothing after it is let go */
	ck_assert_int_lt(c->ngot, TCLIENT_LINES);
	line = c->got[c->ngot++];
	for (i = 0; i < iovcnt; i++) {
		ck_assert_uint_lt(used + iov[i].iov_len, sizeof c->got[0]);
		memcpy(line + used, iov[i].iov_base, iov[i].iov_len);
		used += iov[i].iov_len;
	}
	line[used] = '\0';
}

/* The server's stdin never fills here (transport_queued is 0). */
static void
tclient_pause(void *arg, int pause)
{
	ck_abort_msg("a client paused, with nothing queued to the server");
}

static void
tclient_detached(void *arg, const char *reason)
{
	struct tclient	*c = arg;

	c->att = NULL;
	c->detached++;
}

static pid_t
tclient_pid(const void *arg)
{
	return (4242);
}

static uid_t
tclient_uid(const void *arg)
{
	return (1000);
}

static uint64_t
tclient_serial(const void *arg)
{
	return (1);
}

static const struct router_peer tclient_peer = {
	.queue = tclient_queue,
	.pause = tclient_pause,
	.detached = tclient_detached,
	.pid = tclient_pid,
	.uid = tclient_uid,
	.serial = tclient_serial,
	.principal = tclient_serial,
};

/*
 * Helpers.
 */

/* A transport exists exactly while the state says a process does. */
static void
check_invariant(const struct worker *w)
{
	ck_assert_msg(worker_running(w) == (F.tp != NULL),
	    "state %s but transport %s", worker_state_name(worker_state(w)),
	    F.tp != NULL ? "alive" : "gone");
}

/* Run the loop until the worker is in state s (timers fire). */
static void
wait_state(struct worker *w, enum worker_state s)
{
	uint64_t	 until = clock_now_ms() + T_WAIT_MS;

	while (worker_state(w) != s && clock_now_ms() < until) {
		event_base_loop(F.mcpd.base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
		check_invariant(w);
	}
	ck_assert_msg(worker_state(w) == s, "waited for %s, still %s",
	    worker_state_name(s), worker_state_name(worker_state(w)));
}

/* Run what is due now (deferred events), without waiting for timers. */
static void
run_pending(void)
{
	event_base_loop(F.mcpd.base, EVLOOP_NONBLOCK);
}

static struct conf *
test_conf(const char *extra)
{
	struct conf_diags	 diags;
	struct conf		*conf;
	char			*text;

	/*
	 * The stories of the session start with initialize ("protocol"
	 * "2025"); those of the probe say "auto".
	 */
	xasprintf(&text, "{\"mcpServers\": {\"s\": {\"command\": \"/bin/true\""
	    "%s%s%s}}}", extra == NULL || strstr(extra, "\"protocol\"") ==
	    NULL ? ", \"protocol\": \"2025\"" : "", extra != NULL ? ", " : "",
	    extra != NULL ? extra : "");
	conf_diags_init(&diags);
	conf = conf_parse(text, strlen(text), NULL, NULL, &diags);
	ck_assert_msg(conf != NULL, "config: %s", diags.n > 0 ?
	    diags.v[0].text : "?");
	conf_diags_free(&diags);
	free(text);
	return (conf);
}

/* A config with timers short enough for a test. */
static struct conf *
short_conf(const char *extra)
{
	struct conf		*conf = test_conf(extra);
	struct conf_server	*cs = &conf->servers[0];

	cs->backoff.min_ms = 5;
	cs->backoff.max_ms = 20;
	cs->backoff.jitter = 0;
	/*
	 * Only the story of a server that never answers initialize waits
	 * for its timeout: elsewhere a machine that stalls must not end a
	 * handshake, or a request held for it, before the story goes on.
	 */
	cs->init_timeout_ms = F.short_init ? 200 : T_WAIT_MS;
	/* The first start's own limit: the stories that want it set it. */
	cs->first_start_timeout_ms = cs->init_timeout_ms;
	cs->stop_timeout_ms = 60;
	return (conf);
}

static struct worker *
new_worker(const char *extra)
{
	struct conf		*conf = short_conf(extra);
	struct conf_server	*cs = &conf->servers[0];
	struct worker		*w;

	F.mcpd.conf = conf;
	w = worker_new(&F.mcpd, cs);
	check_invariant(w);
	return (w);
}

/* Freed, the router lets go of a client still attached, telling it. */
static void
free_worker(struct worker *w)
{
	int	 attached = F.client.att != NULL;

	worker_free(w);
	worker_probe_free_all(&F.mcpd);
	ck_assert_ptr_null(F.tp);
	ck_assert_ptr_null(F.client.att);
	ck_assert_int_eq(F.client.detached, attached);
	conf_free(F.mcpd.conf);
	F.mcpd.conf = NULL;
}

static void
setup(void)
{
	memset(&F, 0, sizeof F);
	F.mcpd.base = event_base_new();
	TAILQ_INIT(&F.mcpd.workers);
	F.mcpd.worker_changed = test_worker_changed;
	TAILQ_INIT(&F.mcpd.clients);
	log_sink(test_log);
	TAILQ_INIT(&F.mcpd.transports);
}

static void
teardown(void)
{
	event_base_free(F.mcpd.base);
}

/* The server says a line on stdout. */
static void
server_says(const char *line)
{
	ck_assert_ptr_nonnull(F.tp);
	F.tp->cb->heard(F.tp->arg);
	F.tp->cb->line(F.tp->arg, line, strlen(line), NULL);
}

/* The server's process ends; the transport is freed in `ended'. */
static void
server_exits(int wstatus)
{
	struct transport	*t = F.tp;
	int			 freed = F.freed;

	ck_assert_ptr_nonnull(t);
	t->cb->ended(t->arg, wstatus);
	ck_assert_int_eq(F.freed, freed + 1);
}

/* Run the loop until the server has been sent n lines. */
static void
wait_written(struct worker *w, int n)
{
	uint64_t	 until = clock_now_ms() + T_WAIT_MS;

	while (F.tp != NULL && F.tp->nwritten < n && clock_now_ms() < until) {
		event_base_loop(F.mcpd.base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
		check_invariant(w);
	}
	ck_assert_ptr_nonnull(F.tp);
	ck_assert_int_ge(F.tp->nwritten, n);
}

/* Line i written to the server is a request for method: its id. */
static int
written_request(int i, const char *method)
{
	cJSON	*msg, *id;
	int	 n;

	ck_assert_ptr_nonnull(F.tp);
	ck_assert_int_lt(i, F.tp->nwritten);
	msg = cJSON_Parse(F.tp->written[i]);
	ck_assert_msg(msg != NULL, "not JSON: %s", F.tp->written[i]);
	ck_assert_msg(cJSON_IsString(cJSON_GetObjectItem(msg, "method")) &&
	    strcmp(cJSON_GetObjectItem(msg, "method")->valuestring,
	    method) == 0, "not %s: %s", method, F.tp->written[i]);
	id = cJSON_GetObjectItem(msg, "id");
	ck_assert_msg(cJSON_IsNumber(id), "no id: %s", F.tp->written[i]);
	n = id->valueint;
	cJSON_Delete(msg);
	return (n);
}

/* The server answers its request id. */
static void
server_answers(int id)
{
	char	 reply[128];

	snprintf(reply, sizeof reply, "{\"jsonrpc\":\"2.0\",\"id\":%d,"
	    "\"result\":{}}", id);
	server_says(reply);
}

/* The test client attaches to the server, as control.c attaches one. */
static struct tclient *
client_attach(struct worker *w)
{
	struct tclient	*c = &F.client;

	ck_assert_ptr_null(c->att);
	c->att = router_attach(worker_router(w), &tclient_peer, c);
	ck_assert_ptr_nonnull(c->att);
	return (c);
}

static void
client_detach(struct tclient *c)
{
	router_detach(c->att, "client disconnected");
	c->att = NULL;
}

/* The client asks for the server's tools, under its id. */
static void
client_request(struct tclient *c, int id)
{
	char	 line[128];

	snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%d,"
	    "\"method\":\"tools/list\"}", id);
	ck_assert_int_eq(router_client_line(c->att, line, strlen(line)),
	    ROUTER_LINE_TAKEN);
}

/* The client's line i, parsed: an answer to its request id. */
static cJSON *
client_answer(const struct tclient *c, int i, int id)
{
	cJSON	*msg, *jid;

	ck_assert_int_lt(i, c->ngot);
	msg = cJSON_Parse(c->got[i]);
	ck_assert_msg(msg != NULL, "not JSON: %s", c->got[i]);
	jid = cJSON_GetObjectItem(msg, "id");
	ck_assert_msg(cJSON_IsNumber(jid) && jid->valueint == id,
	    "not an answer to %d: %s", id, c->got[i]);
	return (msg);
}

/* Line i the client got is the server's result for its request id. */
static void
client_got_result(const struct tclient *c, int i, int id)
{
	cJSON	*msg = client_answer(c, i, id);

	ck_assert_msg(cJSON_IsObject(cJSON_GetObjectItem(msg, "result")),
	    "not a result: %s", c->got[i]);
	cJSON_Delete(msg);
}

/* Line i is an error for its request id: code, and a message with why. */
static void
client_got_error(const struct tclient *c, int i, int id, int code,
    const char *why)
{
	cJSON		*msg = client_answer(c, i, id), *error;
	const char	*message;

	error = cJSON_GetObjectItem(msg, "error");
	ck_assert_msg(cJSON_IsObject(error), "not an error: %s", c->got[i]);
	ck_assert_int_eq(cJSON_GetObjectItem(error, "code")->valueint, code);
	message = cJSON_GetStringValue(cJSON_GetObjectItem(error, "message"));
	ck_assert_msg(message != NULL && strstr(message, why) != NULL,
	    "not \"%s\": %s", why, c->got[i]);
	cJSON_Delete(msg);
}

/* Lines i to i + 2: every list may have changed (a new server process). */
static void
client_got_changed(const struct tclient *c, int i)
{
	static const char	*changed[] = {
		"{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"notifications/tools/list_changed\"}",
		"{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"notifications/resources/list_changed\"}",
		"{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"notifications/prompts/list_changed\"}",
	};
	size_t			 j;

	ck_assert_int_le(i + (int)nitems(changed), c->ngot);
	for (j = 0; j < nitems(changed); j++)
		ck_assert_str_eq(c->got[i + j], changed[j]);
}

static int
logged(const char *needle)
{
	int	 i;

	for (i = 0; i < F.nlog; i++) {
		if (strstr(F.log[i], needle) != NULL)
			return (1);
	}
	return (0);
}

/* The number after the first log line's NEEDLE, or -1. */
static double
logged_number(const char *needle)
{
	const char	*p;
	int		 i;

	for (i = 0; i < F.nlog; i++) {
		if ((p = strstr(F.log[i], needle)) != NULL)
			return (strtod(p + strlen(needle), NULL));
	}
	return (-1);
}

/* Start, answer initialize: ready. */
static void
handshake(struct worker *w)
{
	char		 reply[256];
	cJSON		*req, *id;
	int		 n;

	ck_assert_int_eq(worker_state(w), WORKER_INITIALIZING);
	ck_assert_int_ge(F.tp->nwritten, 1);
	req = cJSON_Parse(F.tp->written[F.tp->nwritten - 1]);
	ck_assert_ptr_nonnull(req);
	ck_assert_str_eq(cJSON_GetObjectItem(req, "method")->valuestring,
	    "initialize");
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(req,
	    "params"), "protocolVersion")->valuestring, MCPD_MCP_VERSION);
	id = cJSON_GetObjectItem(req, "id");
	snprintf(reply, sizeof reply, "{\"jsonrpc\":\"2.0\",\"id\":%d,"
	    "\"result\":{\"protocolVersion\":\"%s\",\"capabilities\":{},"
	    "\"serverInfo\":{\"name\":\"fake\",\"version\":\"1\"}}}",
	    id->valueint, MCPD_MCP_VERSION);
	cJSON_Delete(req);
	n = F.tp->nwritten;
	server_says(reply);
	ck_assert_int_eq(worker_state(w), WORKER_READY);
	/* Then what the router held for the session, if anything. */
	ck_assert_int_gt(F.tp->nwritten, n);
	ck_assert_str_eq(F.tp->written[n],
	    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
	check_invariant(w);
}

/*
 * The stories.
 */

START_TEST(test_start_handshake_ready)
{
	struct worker	*w = new_worker(NULL);
	struct tclient	*c = client_attach(w);
	int		 id;

	ck_assert_int_eq(F.starts, 1);
	/* A request before the session is ready waits for it. */
	client_request(c, 1);
	ck_assert_int_eq(F.tp->nwritten, 1);		/* initialize */
	ck_assert_int_eq(c->ngot, 0);
	handshake(w);
	/* Ready: it goes to the server, once. */
	ck_assert_int_eq(F.tp->nwritten, 3);
	id = written_request(2, "tools/list");
	/* The first session: nothing has changed for the client. */
	ck_assert_int_eq(c->ngot, 0);
	server_answers(id);
	ck_assert_int_eq(c->ngot, 1);
	client_got_result(c, 0, 1);
	ck_assert_int_eq(worker_availability(w), WORKER_AVAIL_READY);
	ck_assert(logged("s: initializing -> ready"));
	/* Other lines go to the router, and from it to the clients. */
	server_says("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}");
	ck_assert_int_eq(c->ngot, 2);
	ck_assert_str_eq(c->got[1],
	    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}");
	free_worker(w);
}
END_TEST

/* A remote server that signs in ({"url"} without oauth). */
static struct worker *
new_remote_worker(void)
{
	struct conf_diags	 diags;
	struct conf		*conf;
	struct worker		*w;
	const char		*text = "{\"mcpServers\": {\"s\": {\"url\": "
	    "\"https://h.example/mcp\"}}}";

	conf_diags_init(&diags);
	conf = conf_parse(text, strlen(text), NULL, NULL, &diags);
	ck_assert_ptr_nonnull(conf);
	conf_diags_free(&diags);
	conf->servers[0].backoff.min_ms = 5;
	conf->servers[0].backoff.max_ms = 20;
	conf->servers[0].stop_timeout_ms = 60;
	F.mcpd.conf = conf;
	w = worker_new(&F.mcpd, &conf->servers[0]);
	check_invariant(w);
	return (w);
}

/* The id of the initialize mcpd sent. */
static int
initialize_id(void)
{
	cJSON	*req;
	int	 id;

	req = cJSON_Parse(F.tp->written[F.tp->nwritten - 1]);
	ck_assert_ptr_nonnull(req);
	id = cJSON_GetObjectItem(req, "id")->valueint;
	cJSON_Delete(req);
	return (id);
}

/*
 * mcpd-remote says only a sign-in can help, refuses initialize and exits
 * 77: no signal, no restart loop; needs-login, refusing with -32017 and
 * the command, until mcpctl login (or start) starts it again.
 */
START_TEST(test_needs_login_waits)
{
	struct worker	*w = new_remote_worker();
	struct tclient	*c = client_attach(w);
	const char	*status = "{\"v\":1,\"event\":\"auth\",\"state\":"
	    "\"needs-login\",\"reason\":\"no sign-in yet\"}";
	char		 reply[256];
	cJSON		*st, *login;
	char		*why;
	uint64_t	 until;

	ck_assert_int_eq(worker_state(w), WORKER_INITIALIZING);
	F.tp->cb->status(F.tp->arg, status, strlen(status));
	snprintf(reply, sizeof reply, "{\"jsonrpc\":\"2.0\",\"id\":%d,"
	    "\"error\":{\"code\":%d,\"message\":\"s needs a sign-in\"}}",
	    initialize_id(), MCPD_ERR_REMOTE_AUTH);
	server_says(reply);
	ck_assert_int_eq(worker_state(w), WORKER_STOPPING);
	ck_assert_int_eq(F.tp->sigterms, 0);
	ck_assert_int_eq(F.tp->killed, 0);
	server_exits(W_EXITCODE(77, 0));
	ck_assert_int_eq(worker_state(w), WORKER_NEEDS_LOGIN);
	ck_assert_str_eq(worker_state_name(worker_state(w)), "needs-login");
	ck_assert(!worker_running(w));
	/* Well past any backoff: still waiting, not restarted. */
	until = clock_now_ms() + 100;
	while (clock_now_ms() < until)
		event_base_loop(F.mcpd.base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	ck_assert_int_eq(F.starts, 1);
	ck_assert_int_eq(worker_state(w), WORKER_NEEDS_LOGIN);
	ck_assert_int_eq(worker_availability(w), WORKER_AVAIL_REFUSE);
	ck_assert_int_eq(worker_unavailable_code(w), MCPD_ERR_REMOTE_AUTH);
	why = worker_unavailable_reason(w);
	ck_assert_str_eq(why, "server s needs a sign-in: run `mcpctl login s` "
	    "(no sign-in yet)");
	free(why);
	/* What a client's request is told. */
	client_request(c, 1);
	ck_assert_int_eq(c->ngot, 1);
	client_got_error(c, 0, 1, MCPD_ERR_REMOTE_AUTH, "server s needs a "
	    "sign-in: run `mcpctl login s` (no sign-in yet)");
	st = worker_status_json(w);
	login = cJSON_GetObjectItem(st, "login");
	ck_assert_str_eq(cJSON_GetObjectItem(login, "command")->valuestring,
	    "mcpctl login s");
	ck_assert_str_eq(cJSON_GetObjectItem(login, "reason")->valuestring,
	    "no sign-in yet");
	cJSON_Delete(st);
	/* The login's restart (or mcpctl start) tries again. */
	worker_restart(w);
	ck_assert_int_eq(F.starts, 2);
	ck_assert_int_eq(worker_state(w), WORKER_INITIALIZING);
	free_worker(w);
}
END_TEST

/* Exit 77 without the worker saying "needs-login": an ordinary failure. */
START_TEST(test_exit_77_alone_backs_off)
{
	struct worker	*w = new_remote_worker();

	server_exits(W_EXITCODE(77, 0));
	ck_assert_int_eq(worker_state(w), WORKER_BACKOFF);
	wait_state(w, WORKER_INITIALIZING);
	ck_assert_int_eq(F.starts, 2);
	free_worker(w);
}
END_TEST

START_TEST(test_disabled_is_not_started)
{
	struct worker	*w = new_worker("\"disabled\": true");

	ck_assert_int_eq(F.starts, 0);
	ck_assert_int_eq(worker_state(w), WORKER_STOPPED);
	ck_assert_int_eq(worker_availability(w), WORKER_AVAIL_REFUSE);
	worker_start(w);
	ck_assert_int_eq(F.starts, 1);
	ck_assert_int_eq(worker_state(w), WORKER_INITIALIZING);
	free_worker(w);
}
END_TEST

START_TEST(test_crash_backoff_restart)
{
	struct worker	*w = new_worker(NULL);
	struct tclient	*c;
	int		 id;

	handshake(w);
	c = client_attach(w);
	client_request(c, 1);
	(void)written_request(2, "tools/list");
	server_exits(W_EXITCODE(3, 0));
	ck_assert_int_eq(worker_state(w), WORKER_BACKOFF);
	check_invariant(w);
	/* The session went down, once: its request in flight failed, why. */
	ck_assert_int_eq(c->ngot, 1);
	client_got_error(c, 0, 1, RPC_CONNECTION_CLOSED, "server s went away "
	    "while handling tools/list: exited with status 3");
	ck_assert_int_eq(worker_availability(w), WORKER_AVAIL_REFUSE);
	client_request(c, 2);
	ck_assert_int_eq(c->ngot, 2);
	client_got_error(c, 1, 2, MCPD_ERR_SERVER_UNAVAILABLE, "server s is "
	    "not running (exited with status 3); next attempt in ");
	ck_assert(logged("restarting in 5 ms (restart 1)"));
	/* The backoff timer starts it again, with a new handshake. */
	wait_state(w, WORKER_INITIALIZING);
	ck_assert_int_eq(F.starts, 2);
	client_request(c, 3);
	handshake(w);
	/* Not the first session: the client hears every list may differ. */
	ck_assert_int_eq(c->ngot, 5);
	client_got_changed(c, 2);
	/* The session is ready again: what waited for it goes to it. */
	ck_assert_int_eq(F.tp->nwritten, 3);
	id = written_request(2, "tools/list");
	server_answers(id);
	ck_assert_int_eq(c->ngot, 6);
	client_got_result(c, 5, 3);
	free_worker(w);
}
END_TEST

START_TEST(test_stop_escalates)
{
	struct worker	*w = new_worker(NULL);
	struct transport *t;

	handshake(w);
	t = F.tp;
	worker_stop(w);
	ck_assert_int_eq(worker_state(w), WORKER_STOPPING);
	ck_assert_int_eq(t->input_closed, 1);
	ck_assert_int_eq(t->sigterms, 0);
	ck_assert_int_eq(worker_availability(w), WORKER_AVAIL_REFUSE);
	/* Half the stop timeout: SIGTERM; the whole: SIGKILL. */
	while (t->killed == 0)
		event_base_loop(F.mcpd.base, EVLOOP_ONCE);
	ck_assert_int_eq(t->sigterms, 1);
	ck_assert(logged("did not exit after SIGTERM"));
	check_invariant(w);
	server_exits(W_EXITCODE(0, SIGKILL));
	ck_assert_int_eq(worker_state(w), WORKER_STOPPED);
	check_invariant(w);
	/* An admin stop is not a failure: no restart comes. */
	event_base_loop(F.mcpd.base, EVLOOP_NONBLOCK);
	ck_assert_int_eq(F.starts, 1);
	free_worker(w);
}
END_TEST

START_TEST(test_init_timeout)
{
	struct worker	*w;
	struct tclient	*c;

	F.short_init = 1;
	w = new_worker(NULL);
	c = client_attach(w);

	ck_assert_int_eq(worker_state(w), WORKER_INITIALIZING);
	ck_assert_int_eq(worker_availability(w), WORKER_AVAIL_WAIT);
	wait_state(w, WORKER_STOPPING);
	ck_assert(logged("initialize timed out after 200 ms "
	    "(init_timeout_ms)"));
	ck_assert_int_eq(F.tp->sigterms, 1);
	ck_assert_int_eq(F.tp->input_closed, 1);
	client_request(c, 1);
	client_got_error(c, 0, 1, MCPD_ERR_SERVER_UNAVAILABLE, "server s is "
	    "stopping: initialize timed out after 200 ms (init_timeout_ms)");
	server_exits(W_EXITCODE(0, SIGTERM));
	ck_assert_int_eq(worker_state(w), WORKER_BACKOFF);
	/* Why the session ended, in what a client is told. */
	client_request(c, 2);
	ck_assert_int_eq(c->ngot, 2);
	client_got_error(c, 1, 2, MCPD_ERR_SERVER_UNAVAILABLE, "server s is "
	    "not running (initialize timed out after 200 ms (init_timeout_ms) "
	    "(killed by signal 15))");
	free_worker(w);
}
END_TEST

/* A worker whose first start may take first_ms, any other init 200 ms. */
static struct worker *
new_first_start_worker(const char *extra, uint32_t first_ms)
{
	struct conf		*conf;
	struct worker		*w;

	F.short_init = 1;
	conf = short_conf(extra);
	conf->servers[0].first_start_timeout_ms = first_ms;
	F.mcpd.conf = conf;
	w = worker_new(&F.mcpd, &conf->servers[0]);
	check_invariant(w);
	return (w);
}

static void
assert_start_limit(const struct worker *w, uint32_t ms, const char *name)
{
	const char	*got;

	ck_assert_uint_eq(worker_start_limit(w, &got), ms);
	ck_assert_str_eq(got, name);
}

/*
 * The first start of a configuration has first_start_timeout_ms; once it
 * ran out, the next start has init_timeout_ms.  Both messages name their
 * setting.
 */
START_TEST(test_first_start_timeout)
{
	struct worker	*w = new_first_start_worker(NULL, 400);
	struct tclient	*c = client_attach(w);
	uint64_t	 t0 = clock_now_ms();

	assert_start_limit(w, 400, "first_start_timeout_ms");
	wait_state(w, WORKER_STOPPING);
	/* Longer than init_timeout_ms (200), whatever the timer rounds. */
	ck_assert_uint_ge(clock_now_ms() - t0, 300);
	ck_assert(logged("initialize timed out after 400 ms "
	    "(first_start_timeout_ms)"));
	server_exits(W_EXITCODE(0, SIGTERM));
	ck_assert_int_eq(worker_state(w), WORKER_BACKOFF);
	/* What a request held for the next start is given. */
	assert_start_limit(w, 200, "init_timeout_ms");
	wait_state(w, WORKER_INITIALIZING);
	assert_start_limit(w, 200, "init_timeout_ms");
	wait_state(w, WORKER_STOPPING);
	ck_assert(logged("initialize timed out after 200 ms "
	    "(init_timeout_ms)"));
	server_exits(W_EXITCODE(0, SIGTERM));
	(void)c;
	free_worker(w);
}
END_TEST

/*
 * A first start that got ready spends it too; a reload that changes how
 * the server runs gives the next start its own again, one that changes
 * only first_start_timeout_ms does not.
 */
START_TEST(test_first_start_spent_and_renewed)
{
	struct worker	*w = new_first_start_worker(NULL, 5000);
	struct conf	*conf;

	assert_start_limit(w, 5000, "first_start_timeout_ms");
	handshake(w);
	assert_start_limit(w, 200, "init_timeout_ms");
	/* The same command, another first_start_timeout_ms: nothing new. */
	conf = short_conf(NULL);
	conf->servers[0].first_start_timeout_ms = 6000;
	ck_assert_int_eq(worker_reconfigure(w, &conf->servers[0]),
	    WORKER_RECONF_UPDATED);
	conf_free(conf);
	ck_assert_int_eq(worker_state(w), WORKER_READY);
	assert_start_limit(w, 200, "init_timeout_ms");
	/* Another argument: restarted, a first start again. */
	conf = short_conf("\"args\": [\"--other\"]");
	conf->servers[0].first_start_timeout_ms = 6000;
	ck_assert_int_eq(worker_reconfigure(w, &conf->servers[0]),
	    WORKER_RECONF_RESTARTED);
	conf_free(conf);
	server_exits(W_EXITCODE(0, 0));
	ck_assert_int_eq(worker_state(w), WORKER_INITIALIZING);
	assert_start_limit(w, 6000, "first_start_timeout_ms");
	handshake(w);
	assert_start_limit(w, 200, "init_timeout_ms");
	free_worker(w);
}
END_TEST

/* The server says a line on stderr. */
static void
server_errs(const char *line)
{
	ck_assert_ptr_nonnull(F.tp);
	F.tp->cb->err_line(F.tp->arg, line, strlen(line), strlen(line));
}

/*
 * A server that fails says why on stderr: its last line that reads as a
 * message (not a stack frame, not Node.js's version line) is kept, its
 * secrets taken out, beside the exit in status and in the journal.  A
 * clean exit and a stop that was asked for have none; a new run forgets
 * the last one's.
 */
START_TEST(test_last_stderr)
{
	struct worker	*w = new_worker("\"env\": {\"API_KEY\": "
	    "\"sk-secret-4711\", \"DEBUG\": \"1\"}");
	char		 longline[1500];

	ck_assert_ptr_null(worker_last_stderr(w));
	server_errs("mcp-fake: started pid 1");
	server_errs("Error: boom: missing API key (got sk-secret-4711 \x1b[2J)");
	server_errs("    at main (/srv/index.js:1:1)");
	server_errs("   ");
	server_errs("Node.js v20.11.0");
	server_exits(W_EXITCODE(1, 0));
	ck_assert_str_eq(worker_last_stderr(w), "Error: boom: missing API key "
	    "(got " ESC_REDACTED " \\x1b[2J)");
	ck_assert_str_eq(F.last_stderr_field, worker_last_stderr(w));
	ck_assert(logged("s: process 1 exited with status 1; its last stderr "
	    "line: Error: boom: missing API key (got " ESC_REDACTED));
	/* A new run forgets it once it ends; only indented lines: the last. */
	wait_state(w, WORKER_INITIALIZING);
	server_errs("  only a frame");
	server_exits(W_EXITCODE(2, 0));
	ck_assert_str_eq(worker_last_stderr(w), "  only a frame");
	/* Bounded. */
	wait_state(w, WORKER_INITIALIZING);
	memset(longline, 'x', sizeof longline - 1);
	longline[sizeof longline - 1] = '\0';
	server_errs(longline);
	server_exits(W_EXITCODE(3, 0));
	ck_assert_uint_le(strlen(worker_last_stderr(w)), 200);
	ck_assert(strstr(worker_last_stderr(w), "xxx...") != NULL);
	/* A run that says nothing has no line. */
	wait_state(w, WORKER_INITIALIZING);
	server_exits(W_EXITCODE(4, 0));
	ck_assert_ptr_null(worker_last_stderr(w));
	/* Nor one that ends cleanly, status 0, by itself: no failure. */
	wait_state(w, WORKER_INITIALIZING);
	server_errs("done for now");
	server_exits(W_EXITCODE(0, 0));
	ck_assert_ptr_null(worker_last_stderr(w));
	/* Nor a stop that was asked for. */
	wait_state(w, WORKER_INITIALIZING);
	handshake(w);
	server_errs("shutting down");
	worker_stop(w);
	server_exits(W_EXITCODE(0, 0));
	ck_assert_int_eq(worker_state(w), WORKER_STOPPED);
	ck_assert_ptr_null(worker_last_stderr(w));
	free_worker(w);
}
END_TEST

START_TEST(test_init_error_and_bad_version)
{
	struct worker	*w = new_worker(NULL);

	server_says("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-1,"
	    "\"message\":\"no\"}}");
	ck_assert_int_eq(worker_state(w), WORKER_STOPPING);
	ck_assert(logged("initialize failed: no"));
	server_exits(W_EXITCODE(1, 0));
	wait_state(w, WORKER_INITIALIZING);
	server_says("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{"
	    "\"protocolVersion\":\"1999-01-01\"}}");
	ck_assert_int_eq(worker_state(w), WORKER_STOPPING);
	ck_assert(logged("unsupported protocol version \"1999-01-01\""));
	server_exits(W_EXITCODE(1, 0));
	free_worker(w);
}
END_TEST

START_TEST(test_give_up_then_admin_start)
{
	struct worker	*w = new_worker("\"max_restarts\": 2");
	int		 i;

	for (i = 0; i < 3; i++) {
		wait_state(w, WORKER_INITIALIZING);
		server_exits(W_EXITCODE(1, 0));
	}
	ck_assert_int_eq(worker_state(w), WORKER_FAILED);
	check_invariant(w);
	ck_assert(logged("gave up: 2 restarts within 60 s"));
	ck_assert_int_eq(worker_availability(w), WORKER_AVAIL_REFUSE);
	/* Nothing revives it but an admin. */
	run_pending();
	ck_assert_int_eq(F.starts, 3);
	worker_start(w);
	ck_assert_int_eq(worker_state(w), WORKER_INITIALIZING);
	ck_assert_int_eq(F.starts, 4);
	free_worker(w);
}
END_TEST

START_TEST(test_restart_policies)
{
	struct worker	*w;

	w = new_worker("\"restart\": \"never\"");
	handshake(w);
	server_exits(W_EXITCODE(1, 0));
	ck_assert_int_eq(worker_state(w), WORKER_STOPPED);
	free_worker(w);

	w = new_worker("\"restart\": \"on-failure\"");
	handshake(w);
	server_exits(W_EXITCODE(0, 0));		/* clean: stays down */
	ck_assert_int_eq(worker_state(w), WORKER_STOPPED);
	worker_start(w);
	handshake(w);
	server_exits(W_EXITCODE(2, 0));		/* a failure: restarts */
	ck_assert_int_eq(worker_state(w), WORKER_BACKOFF);
	free_worker(w);
}
END_TEST

START_TEST(test_spawn_failure_backs_off)
{
	struct worker	*w;

	F.spawn_fails = 1;
	w = new_worker(NULL);
	ck_assert_int_eq(worker_state(w), WORKER_BACKOFF);
	check_invariant(w);
	ck_assert(logged("exec nothing: No such file or directory"));
	wait_state(w, WORKER_INITIALIZING);
	ck_assert_int_eq(F.starts, 2);
	free_worker(w);
}
END_TEST

START_TEST(test_admin_restart_is_immediate)
{
	struct worker	*w = new_worker(NULL);

	handshake(w);
	worker_restart(w);
	ck_assert_int_eq(worker_state(w), WORKER_STOPPING);
	/* Requests wait for the new session instead of failing. */
	ck_assert_int_eq(worker_availability(w), WORKER_AVAIL_WAIT);
	server_exits(W_EXITCODE(0, 0));
	ck_assert_int_eq(worker_state(w), WORKER_INITIALIZING);
	ck_assert_int_eq(F.starts, 2);
	/* A start during a stop turns it into a restart too. */
	worker_stop(w);
	worker_start(w);
	server_exits(W_EXITCODE(0, 0));
	ck_assert_int_eq(worker_state(w), WORKER_INITIALIZING);
	ck_assert_int_eq(F.starts, 3);
	free_worker(w);
}
END_TEST

START_TEST(test_pipes_broke_and_garbage)
{
	struct worker	*w = new_worker(NULL);
	struct tclient	*c;

	handshake(w);
	c = client_attach(w);
	client_request(c, 1);
	(void)written_request(2, "tools/list");
	F.tp->cb->broke(F.tp->arg, "stdout closed");
	ck_assert_int_eq(worker_state(w), WORKER_STOPPING);
	ck_assert_int_eq(F.tp->sigterms, 1);
	/* Its request in flight fails at once, not when it has exited. */
	ck_assert_int_eq(c->ngot, 1);
	client_got_error(c, 0, 1, RPC_CONNECTION_CLOSED, "server s went away "
	    "while handling tools/list: stdout closed");
	/* Once stopping, what the pipes do changes nothing. */
	F.tp->cb->broke(F.tp->arg, "stdin closed by the server");
	F.tp->cb->garbage(F.tp->arg, 99999);
	ck_assert_int_eq(F.tp->sigterms, 1);
	server_exits(W_EXITCODE(0, SIGTERM));
	ck_assert_int_eq(c->ngot, 1);
	client_request(c, 2);
	ck_assert_int_eq(c->ngot, 2);
	client_got_error(c, 1, 2, MCPD_ERR_SERVER_UNAVAILABLE, "server s is "
	    "not running (stdout closed (killed by signal 15))");
	wait_state(w, WORKER_INITIALIZING);
	handshake(w);
	F.tp->cb->garbage(F.tp->arg, 99999);
	ck_assert_int_eq(worker_state(w), WORKER_STOPPING);
	ck_assert(logged("99999 bytes of stdout without a newline"));
	server_exits(W_EXITCODE(0, SIGTERM));
	free_worker(w);
}
END_TEST

START_TEST(test_broken_is_deferred)
{
	struct worker	*w = new_worker(NULL);

	handshake(w);
	worker_broken(w, "hung: %d requests", 3);
	/* Not from inside the caller: from an event of the worker's. */
	ck_assert_int_eq(worker_state(w), WORKER_READY);
	run_pending();
	ck_assert_int_eq(worker_state(w), WORKER_STOPPING);
	ck_assert(logged("hung: 3 requests"));
	server_exits(W_EXITCODE(0, SIGTERM));
	free_worker(w);
}
END_TEST

START_TEST(test_health_ping_unanswered)
{
	struct worker	*w = new_worker("\"health_interval_ms\": 100, "
	    "\"health_timeout_ms\": 100");
	struct tclient	*c = client_attach(w);

	handshake(w);
	/* Silence: a ping; its answer is mcpd's, no client sees it. */
	wait_written(w, 3);
	server_answers(written_request(2, "ping"));
	ck_assert_int_eq(worker_state(w), WORKER_READY);
	ck_assert_int_eq(c->ngot, 0);
	/* Silence again: a ping; no answer: hung. */
	wait_state(w, WORKER_STOPPING);
	ck_assert_int_eq(F.tp->nwritten, 4);
	(void)written_request(3, "ping");
	ck_assert(logged("hung: no answer to a health ping within 100 ms"));
	server_exits(W_EXITCODE(0, SIGTERM));
	free_worker(w);
}
END_TEST

START_TEST(test_remove_frees_once_stopped)
{
	struct worker	*w = new_worker(NULL);

	handshake(w);
	worker_remove(w);
	ck_assert(worker_removing(w));
	ck_assert_int_eq(worker_state(w), WORKER_STOPPING);
	run_pending();
	ck_assert_ptr_eq(TAILQ_FIRST(&F.mcpd.workers), w);	/* not yet */
	server_exits(W_EXITCODE(0, 0));
	ck_assert_int_eq(worker_state(w), WORKER_STOPPED);
	run_pending();
	ck_assert_ptr_null(TAILQ_FIRST(&F.mcpd.workers));
	ck_assert(logged("s: removed"));
	conf_free(F.mcpd.conf);
}
END_TEST

START_TEST(test_status_follows_the_transport)
{
	struct worker	*w = new_worker(NULL);
	cJSON		*st;

	handshake(w);
	F.tp->cb->err_line(F.tp->arg, "hello", 5, 5);
	st = worker_status_json(w);
	ck_assert_str_eq(cJSON_GetObjectItem(st, "state")->valuestring,
	    "ready");
	ck_assert_int_eq(cJSON_GetObjectItem(st, "pid")->valueint,
	    F.tp->pid);
	ck_assert_str_eq(cJSON_GetObjectItem(st, "containment")->valuestring,
	    "reaper");
	ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(st,
	    "stats"), "stderr_lines")->valueint, 1);
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(st,
	    "server_info"), "name")->valuestring, "fake");
	cJSON_Delete(st);
	server_exits(W_EXITCODE(4, 0));
	st = worker_status_json(w);
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(st, "pid")));
	ck_assert_str_eq(cJSON_GetObjectItem(st, "last_exit")->valuestring,
	    "exited with status 4");
	/* backoff_min_ms 5, no jitter: the first restart is 5 ms away. */
	ck_assert_int_le(cJSON_GetObjectItem(st, "next_restart_ms")->valueint,
	    5);
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(st, "server_info")));
	cJSON_Delete(st);
	free_worker(w);
}
END_TEST

START_TEST(test_shutdown_stops_without_restart)
{
	struct worker	*w = new_worker(NULL);

	handshake(w);
	F.mcpd.shutting_down = 1;
	worker_stop(w);
	ck_assert(logged("mcpd is shutting down"));
	server_exits(W_EXITCODE(1, 0));
	ck_assert_int_eq(worker_state(w), WORKER_STOPPED);
	ck_assert(!worker_running(w));
	free_worker(w);
}
END_TEST

/* Run the loop for ms milliseconds, checking the invariant. */
static void
run_for(struct worker *w, uint64_t ms)
{
	uint64_t	 until = clock_now_ms() + ms;

	while (clock_now_ms() < until) {
		event_base_loop(F.mcpd.base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
		check_invariant(w);
	}
}

static const char *
status_string(const struct worker *w, const char *key)
{
	static char	 buf[64];
	cJSON		*st;

	st = worker_status_json(w);
	snprintf(buf, sizeof buf, "%s",
	    cJSON_GetStringValue(cJSON_GetObjectItem(st, key)));
	cJSON_Delete(st);
	return (buf);
}

static double
status_stat(const struct worker *w, const char *key)
{
	cJSON	*st;
	double	 v;

	st = worker_status_json(w);
	v = cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(st,
	    "stats"), key));
	cJSON_Delete(st);
	return (v);
}

/* An on-demand server does not start with mcpd: idle, no process. */
START_TEST(test_on_demand_idle_at_start)
{
	struct worker	*w = new_worker("\"start\": \"on-demand\"");
	cJSON		*st;

	ck_assert_int_eq(F.starts, 0);
	ck_assert_int_eq(worker_state(w), WORKER_IDLE);
	ck_assert_str_eq(worker_state_name(WORKER_IDLE), "idle");
	ck_assert(!worker_running(w));
	ck_assert(logged("s: stopped -> idle"));
	/* Requests are held, not refused: they start it. */
	ck_assert_int_eq(worker_availability(w), WORKER_AVAIL_WAIT);
	st = worker_status_json(w);
	ck_assert_str_eq(cJSON_GetObjectItem(st, "state")->valuestring,
	    "idle");
	ck_assert_str_eq(cJSON_GetObjectItem(st, "start")->valuestring,
	    "on-demand");
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(st, "pid")));
	cJSON_Delete(st);
	/* Nothing starts it by itself. */
	run_for(w, 50);
	ck_assert_int_eq(F.starts, 0);
	free_worker(w);
}
END_TEST

/* The first request (or attach) starts it, from the worker's own event. */
START_TEST(test_on_demand_start_on_request)
{
	struct worker	*w = new_worker("\"start\": \"on-demand\"");
	struct tclient	*c = client_attach(w);
	int		 id;

	/* The router holds the request and wants the server. */
	client_request(c, 1);
	ck_assert_int_eq(c->ngot, 0);
	ck_assert_int_eq(worker_state(w), WORKER_IDLE);	/* deferred */
	ck_assert_int_eq(F.starts, 0);
	worker_wanted(w, "a client attached");	/* once is enough */
	run_pending();
	ck_assert_int_eq(F.starts, 1);
	ck_assert_int_eq(worker_state(w), WORKER_INITIALIZING);
	ck_assert_int_eq(worker_availability(w), WORKER_AVAIL_WAIT);
	ck_assert(logged("s: starting on demand: a client attached"));
	handshake(w);
	/* Its first session: the held request goes to it, nothing changed. */
	ck_assert_int_eq(F.tp->nwritten, 3);
	id = written_request(2, "tools/list");
	ck_assert_int_eq(c->ngot, 0);
	server_answers(id);
	ck_assert_int_eq(c->ngot, 1);
	client_got_result(c, 0, 1);
	ck_assert_double_eq(status_stat(w, "on_demand_starts"), 1);
	/* Wanted while it runs: nothing happens. */
	worker_wanted(w, "a request came");
	run_pending();
	ck_assert_int_eq(F.starts, 1);
	ck_assert_int_eq(worker_state(w), WORKER_READY);
	/* Without idle_stop_s it keeps running. */
	run_for(w, 100);
	ck_assert_int_eq(worker_state(w), WORKER_READY);
	free_worker(w);
}
END_TEST

/*
 * idle_stop_s: nothing to do for that long, and it is stopped the
 * graceful way (stdin closed, no signal) and idle; attached clients stay
 * and the next request starts a session that is not their first.
 */
START_TEST(test_idle_stop_and_start_again)
{
	struct worker	*w = new_worker("\"start\": \"on-demand\", "
	    "\"idle_stop_s\": 1");
	struct tclient	*c;
	uint64_t	 ready_at, elapsed;
	double		 idle_s;
	struct transport *t;
	int		 id;

	c = client_attach(w);	/* an editor, attached all day */
	worker_wanted(w, "a client attached");
	run_pending();
	/* Before the handshake, which is the last activity it counts from. */
	ready_at = clock_now_ms();
	handshake(w);
	t = F.tp;
	wait_state(w, WORKER_STOPPING);
	elapsed = clock_now_ms() - ready_at;
	/* Not before idle_stop_s ("never" is wait_state's to catch). */
	ck_assert_msg(elapsed >= 1000, "stopped after %llu ms",
	    (unsigned long long)elapsed);
	/* The idle time it reports: a second, or more on a busy machine. */
	idle_s = logged_number("s: idle, stopping it until it is needed: "
	    "no request for ");
	ck_assert_msg(idle_s >= 1.0 && idle_s * 1000 <= elapsed + 100,
	    "reported %.1f s idle after %llu ms", idle_s,
	    (unsigned long long)elapsed);
	ck_assert(logged(" s (idle_stop_s 1)"));
	ck_assert_int_eq(t->input_closed, 1);
	ck_assert_int_eq(t->sigterms, 0);
	/*
	 * Requests now wait for the next session; the client, with none
	 * waiting, hears nothing (one that waits: below).
	 */
	ck_assert_int_eq(worker_availability(w), WORKER_AVAIL_WAIT);
	ck_assert_int_eq(c->ngot, 0);
	server_exits(W_EXITCODE(0, 0));
	ck_assert_int_eq(worker_state(w), WORKER_IDLE);
	ck_assert_int_eq(worker_availability(w), WORKER_AVAIL_WAIT);
	ck_assert_int_eq(c->ngot, 0);
	ck_assert_double_eq(status_stat(w, "idle_stops"), 1);
	ck_assert_str_eq(status_string(w, "last_exit"), "exited with status 0");
	run_for(w, 50);
	ck_assert_int_eq(F.starts, 1);	/* no restart of its own */

	/* The client's next request is held, not refused, and starts it. */
	client_request(c, 1);
	ck_assert_int_eq(c->ngot, 0);
	run_pending();
	ck_assert_int_eq(F.starts, 2);
	ck_assert(logged("s: starting on demand: a request came"));
	handshake(w);
	/*
	 * Not a first session: the client's session goes on, told that
	 * every list may differ, and its request is the new server's.
	 */
	ck_assert_int_eq(c->ngot, 3);
	client_got_changed(c, 0);
	ck_assert_int_eq(F.tp->nwritten, 3);
	id = written_request(2, "tools/list");
	server_answers(id);
	ck_assert_int_eq(c->ngot, 4);
	client_got_result(c, 3, 1);
	ck_assert_double_eq(status_stat(w, "on_demand_starts"), 2);

	/* A request while it stops for being idle: held, it starts again. */
	wait_state(w, WORKER_STOPPING);
	client_request(c, 2);
	ck_assert_int_eq(c->ngot, 4);
	server_exits(W_EXITCODE(0, 0));
	ck_assert_int_eq(worker_state(w), WORKER_IDLE);
	ck_assert_int_eq(c->ngot, 4);
	run_pending();
	ck_assert_int_eq(worker_state(w), WORKER_INITIALIZING);
	ck_assert_int_eq(F.starts, 3);
	handshake(w);
	client_got_changed(c, 4);
	id = written_request(2, "tools/list");
	server_answers(id);
	ck_assert_int_eq(c->ngot, 8);
	client_got_result(c, 7, 2);
	free_worker(w);
}
END_TEST

/*
 * "idle": "freeze": idle for idle_stop_s, it is frozen, not stopped; the
 * next request thaws it and goes to the same process; a stop thaws it
 * before it closes its input.
 */
START_TEST(test_idle_freeze_and_thaw)
{
	struct worker	*w = new_worker("\"idle_stop_s\": 1, "
	    "\"idle\": \"freeze\"");
	struct transport *t;
	struct tclient	*c;
	int		 id;

	handshake(w);
	t = F.tp;
	wait_state(w, WORKER_FROZEN);
	ck_assert_str_eq(worker_state_name(WORKER_FROZEN), "frozen");
	ck_assert_int_eq(t->frozen, 1);
	ck_assert_ptr_eq(F.tp, t);
	ck_assert(worker_running(w));
	ck_assert_int_eq(t->input_closed, 0);
	ck_assert_int_eq(worker_availability(w), WORKER_AVAIL_READY);
	run_for(w, 50);
	ck_assert(logged("s: frozen in "));
	ck_assert_str_eq(status_string(w, "state"), "frozen");
	/* Nothing wakes it: no health ping, no idle check. */
	run_for(w, 300);
	ck_assert_int_eq(worker_state(w), WORKER_FROZEN);
	ck_assert_int_eq(t->nwritten, 2);

	/* A request thaws it and goes to the same process. */
	c = client_attach(w);
	client_request(c, 1);
	ck_assert_int_eq(worker_state(w), WORKER_READY);
	ck_assert_int_eq(t->frozen, 0);
	ck_assert_ptr_eq(F.tp, t);
	ck_assert_int_eq(F.starts, 1);
	id = written_request(2, "tools/list");
	server_answers(id);
	client_got_result(c, 0, 1);
	ck_assert(logged("s: thawed after "));
	ck_assert_double_eq(status_stat(w, "freezes"), 1);
	ck_assert_double_eq(status_stat(w, "thaws"), 1);

	/* Frozen again, then stopped: thawed before its input is closed. */
	wait_state(w, WORKER_FROZEN);
	ck_assert_int_eq(t->frozen, 1);
	worker_stop(w);
	ck_assert_int_eq(worker_state(w), WORKER_STOPPING);
	ck_assert_int_eq(t->frozen, 0);
	ck_assert_int_eq(t->input_closed, 1);
	server_exits(W_EXITCODE(0, 0));
	ck_assert_int_eq(worker_state(w), WORKER_STOPPED);
	free_worker(w);
}
END_TEST

/* A server that always starts may still stop when idle. */
START_TEST(test_idle_stop_always)
{
	struct worker	*w = new_worker("\"idle_stop_s\": 1");

	ck_assert_int_eq(F.starts, 1);
	handshake(w);
	wait_state(w, WORKER_STOPPING);
	server_exits(W_EXITCODE(0, 0));
	ck_assert_int_eq(worker_state(w), WORKER_IDLE);
	worker_wanted(w, "a request came");
	run_pending();
	ck_assert_int_eq(F.starts, 2);
	free_worker(w);
}
END_TEST

/*
 * Work keeps it running: here a client's request in flight (router_busy
 * counts requests held, the server's own at a client and subscriptions
 * too), and the end of the last request starts the wait again.
 */
START_TEST(test_idle_stop_waits_for_work)
{
	struct worker	*w = new_worker("\"start\": \"on-demand\", "
	    "\"idle_stop_s\": 1");
	struct tclient	*c;
	uint64_t	 t0, idle_from, elapsed;
	int		 id;

	worker_start(w);
	handshake(w);
	c = client_attach(w);
	t0 = clock_now_ms();
	client_request(c, 1);
	id = written_request(2, "tools/list");
	run_for(w, 1600);
	ck_assert_int_eq(worker_state(w), WORKER_READY);
	/* The work ends, answered: a second more without any. */
	server_answers(id);
	client_got_result(c, 0, 1);
	idle_from = clock_now_ms();
	run_for(w, 300);
	ck_assert_int_eq(worker_state(w), WORKER_READY);
	/* A request began and ended. */
	client_request(c, 2);
	server_answers(written_request(3, "tools/list"));
	client_got_result(c, 1, 2);
	idle_from = clock_now_ms();
	wait_state(w, WORKER_STOPPING);
	elapsed = clock_now_ms() - idle_from;
	ck_assert_msg(elapsed >= 1000 && elapsed < 5000, "stopped %llu ms "
	    "after the last request", (unsigned long long)elapsed);
	ck_assert_uint_ge(clock_now_ms() - t0, 2900);
	server_exits(W_EXITCODE(0, 0));
	ck_assert_int_eq(worker_state(w), WORKER_IDLE);
	free_worker(w);
}
END_TEST

/*
 * A crash with clients attached restarts it with backoff as always; with
 * nobody attached an on-demand server goes idle instead, also when its
 * last client leaves during the backoff.
 */
START_TEST(test_on_demand_crash)
{
	struct worker	*w = new_worker("\"start\": \"on-demand\"");
	struct tclient	*c;

	c = client_attach(w);
	worker_wanted(w, "a client attached");
	run_pending();
	handshake(w);
	server_exits(W_EXITCODE(3, 0));
	ck_assert_int_eq(worker_state(w), WORKER_BACKOFF);
	wait_state(w, WORKER_INITIALIZING);
	ck_assert_int_eq(F.starts, 2);
	handshake(w);

	client_detach(c);
	server_exits(W_EXITCODE(3, 0));
	ck_assert_int_eq(worker_state(w), WORKER_IDLE);
	ck_assert(logged("exited with status 3; on demand, and no client is "
	    "attached: not restarted"));
	run_for(w, 50);
	ck_assert_int_eq(F.starts, 2);
	worker_wanted(w, "a request came");
	run_pending();
	ck_assert_int_eq(F.starts, 3);
	handshake(w);

	/* Backoff, then the client leaves: no restart for nobody. */
	c = client_attach(w);
	server_exits(W_EXITCODE(3, 0));
	ck_assert_int_eq(worker_state(w), WORKER_BACKOFF);
	client_detach(c);
	wait_state(w, WORKER_IDLE);
	run_for(w, 50);
	ck_assert_int_eq(F.starts, 3);
	free_worker(w);
}
END_TEST

/* A server that always starts restarts after a crash, attached or not. */
START_TEST(test_always_crash_restarts)
{
	struct worker	*w = new_worker("\"idle_stop_s\": 1");

	handshake(w);
	server_exits(W_EXITCODE(3, 0));
	ck_assert_int_eq(worker_state(w), WORKER_BACKOFF);
	wait_state(w, WORKER_INITIALIZING);
	free_worker(w);
}
END_TEST

/* Admin stop: stopped (refused), not idle; admin start runs it. */
START_TEST(test_on_demand_admin)
{
	struct worker	*w = new_worker("\"start\": \"on-demand\", "
	    "\"idle_stop_s\": 1");
	struct tclient	*c = client_attach(w);

	/*
	 * Wanted for a request, then stopped before the start: it stays
	 * stopped, and the request that waited is refused, once.
	 */
	client_request(c, 1);
	ck_assert_int_eq(c->ngot, 0);
	worker_stop(w);
	ck_assert_int_eq(worker_state(w), WORKER_STOPPED);
	ck_assert_int_eq(c->ngot, 1);
	client_got_error(c, 0, 1, MCPD_ERR_SERVER_UNAVAILABLE, "server s is "
	    "stopped: run `mcpctl start s`");
	run_pending();
	ck_assert_int_eq(F.starts, 0);
	ck_assert_int_eq(worker_availability(w), WORKER_AVAIL_REFUSE);
	worker_wanted(w, "a request came");
	run_pending();
	ck_assert_int_eq(F.starts, 0);
	ck_assert_int_eq(worker_state(w), WORKER_STOPPED);
	ck_assert_int_eq(c->ngot, 1);

	worker_start(w);
	ck_assert_int_eq(F.starts, 1);
	handshake(w);
	/* The idle stop applies after an admin start too. */
	wait_state(w, WORKER_STOPPING);
	/* An admin stop meanwhile wins: stopped, not idle. */
	worker_stop(w);
	worker_wanted(w, "a request came");
	ck_assert_int_eq(worker_availability(w), WORKER_AVAIL_REFUSE);
	server_exits(W_EXITCODE(0, 0));
	ck_assert_int_eq(worker_state(w), WORKER_STOPPED);
	run_pending();
	ck_assert_int_eq(F.starts, 1);

	/* An admin start while it stops for being idle: a restart. */
	worker_start(w);
	handshake(w);
	wait_state(w, WORKER_STOPPING);
	worker_start(w);
	server_exits(W_EXITCODE(0, 0));
	ck_assert_int_eq(worker_state(w), WORKER_INITIALIZING);
	handshake(w);

	/* Straight from idle, too; and mcpd's shutdown stops an idle one. */
	wait_state(w, WORKER_STOPPING);
	server_exits(W_EXITCODE(0, 0));
	ck_assert_int_eq(worker_state(w), WORKER_IDLE);
	worker_restart(w);
	ck_assert_int_eq(worker_state(w), WORKER_INITIALIZING);
	handshake(w);
	wait_state(w, WORKER_STOPPING);
	server_exits(W_EXITCODE(0, 0));
	F.mcpd.shutting_down = 1;
	worker_stop(w);
	ck_assert_int_eq(worker_state(w), WORKER_STOPPED);
	ck_assert(logged("s: idle -> stopped: mcpd is shutting down"));
	free_worker(w);
}
END_TEST

/* A reload that changes only start or idle_stop_s restarts nothing. */
START_TEST(test_reload_start_settings)
{
	struct worker	*w = new_worker(NULL);
	struct conf	*a, *b, *c, *d;
	pid_t		 pid;

	handshake(w);
	pid = F.tp->pid;
	a = short_conf("\"start\": \"on-demand\", \"idle_stop_s\": 1");
	ck_assert_int_eq(worker_reconfigure(w, &a->servers[0]),
	    WORKER_RECONF_UPDATED);
	ck_assert_int_eq(worker_state(w), WORKER_READY);
	ck_assert_int_eq(F.tp->pid, pid);
	ck_assert_int_eq(F.starts, 1);
	/* Ready since before the reload, so idle at once. */
	wait_state(w, WORKER_STOPPING);
	server_exits(W_EXITCODE(0, 0));
	ck_assert_int_eq(worker_state(w), WORKER_IDLE);

	/* Another real change keeps an idle server idle. */
	b = short_conf("\"start\": \"on-demand\", \"health_interval_ms\": 7");
	ck_assert_int_eq(worker_reconfigure(w, &b->servers[0]),
	    WORKER_RECONF_IDLE);
	ck_assert_int_eq(worker_state(w), WORKER_IDLE);
	ck_assert_int_eq(F.starts, 1);
	/* No longer on demand: it starts. */
	c = short_conf("\"health_interval_ms\": 7");
	ck_assert_int_eq(worker_reconfigure(w, &c->servers[0]),
	    WORKER_RECONF_STARTED);
	ck_assert_int_eq(F.starts, 2);
	handshake(w);
	/* Disabled, then enabled on demand: idle. */
	d = short_conf("\"disabled\": true, \"start\": \"on-demand\"");
	ck_assert_int_eq(worker_reconfigure(w, &d->servers[0]),
	    WORKER_RECONF_STOPPED);
	server_exits(W_EXITCODE(0, 0));
	ck_assert_int_eq(worker_reconfigure(w, &b->servers[0]),
	    WORKER_RECONF_IDLE);
	ck_assert_int_eq(worker_state(w), WORKER_IDLE);
	ck_assert_int_eq(F.starts, 2);
	conf_free(a);
	conf_free(b);
	conf_free(c);
	conf_free(d);
	free_worker(w);
}
END_TEST

/*
 * The era of MCP, with "protocol": "auto" (worker_probe.c).
 */

#define AUTO	"\"protocol\": \"auto\""

/* The status's era and how it was found are these. */
static void
era_is(struct worker *w, const char *era, const char *found)
{
	cJSON	*st = worker_status_json(w);

	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(st, "era")),
	    era);
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(st,
	    "era_found")), found);
	cJSON_Delete(st);
}

/* Line i written is the probe, server/discover: its id. */
static int
probe_id(int i)
{
	return (written_request(i, "server/discover"));
}

static void
server_refuses(int id, int code)
{
	char	 reply[160];

	snprintf(reply, sizeof reply, "{\"jsonrpc\":\"2.0\",\"id\":%d,"
	    "\"error\":{\"code\":%d,\"message\":\"no\"}}", id, code);
	server_says(reply);
}

static void
server_discovered(int id)
{
	char	 reply[256];

	snprintf(reply, sizeof reply, "{\"jsonrpc\":\"2.0\",\"id\":%d,"
	    "\"result\":{\"resultType\":\"complete\",\"supportedVersions\":"
	    "[\"2026-07-28\"],\"capabilities\":{},\"_meta\":{\"io."
	    "modelcontextprotocol/serverInfo\":{\"name\":\"modern\","
	    "\"version\":\"1\"}}}}", id);
	server_says(reply);
}

/* No initialize among what the server was sent. */
static void
no_initialize(void)
{
	int	 i;

	for (i = 0; i < F.tp->nwritten; i++)
		ck_assert_msg(strstr(F.tp->written[i], "\"initialize\"") ==
		    NULL, "initialize sent: %s", F.tp->written[i]);
}

/*
 * A server of 2025: server/discover first, refused, initialize in the
 * same process; its next start goes straight to initialize.
 */
START_TEST(test_probe_2025)
{
	struct worker	*w = new_worker(AUTO);

	ck_assert_int_eq(F.tp->nwritten, 1);
	server_refuses(probe_id(0), -32601);
	ck_assert_int_eq(F.starts, 1);
	ck_assert_int_eq(F.tp->nwritten, 2);
	handshake(w);
	ck_assert(logged("server/discover answered with error -32601"));
	ck_assert(logged("ready: initialized: fake, protocol 2025-11-25 "
	    "(era 2025: server/discover refused)"));
	era_is(w, "2025", "server/discover refused");
	server_exits(W_EXITCODE(3, 0));
	ck_assert_int_eq(worker_state(w), WORKER_BACKOFF);
	wait_state(w, WORKER_INITIALIZING);
	ck_assert_int_eq(F.starts, 2);
	ck_assert_int_eq(F.tp->nwritten, 1);	/* initialize, no probe */
	handshake(w);
	ck_assert(logged("(era 2025: cached)"));
	era_is(w, "2025", "cached");
	free_worker(w);
}
END_TEST

/*
 * A server of 2026-07-28: discover only.  Restarted, it is asked
 * discover first again (cached); when that fails, initialize follows in
 * the same process and the verdict is replaced.
 */
START_TEST(test_probe_2026)
{
	struct worker	*w = new_worker(AUTO);

	server_discovered(probe_id(0));
	ck_assert_int_eq(worker_state(w), WORKER_READY);
	no_initialize();
	ck_assert(logged("ready: initialized: modern, protocol 2026-07-28 "
	    "(era 2026-07-28: server/discover)"));
	era_is(w, "2026-07-28", "server/discover");
	server_exits(W_EXITCODE(3, 0));
	wait_state(w, WORKER_INITIALIZING);
	ck_assert_int_eq(F.starts, 2);
	ck_assert_int_eq(F.tp->nwritten, 1);
	server_discovered(probe_id(0));
	ck_assert_int_eq(worker_state(w), WORKER_READY);
	no_initialize();
	era_is(w, "2026-07-28", "cached");
	/* It became a server of 2025 meanwhile (same configuration). */
	server_exits(W_EXITCODE(3, 0));
	wait_state(w, WORKER_INITIALIZING);
	server_refuses(probe_id(0), -32602);
	ck_assert_int_eq(F.starts, 3);
	handshake(w);
	era_is(w, "2025", "server/discover refused");
	free_worker(w);
}
END_TEST

/*
 * A server of 2025 that exits on anything but initialize: started once
 * more at once, initialize first; not a failure, not a restart.  When
 * that one dies too, it is an ordinary crash; the start after it goes
 * by the verdict.
 */
START_TEST(test_probe_intolerant)
{
	struct worker	*w = new_worker(AUTO);
	cJSON		*st;

	(void)probe_id(0);
	server_exits(W_EXITCODE(1, 0));
	ck_assert_int_eq(F.starts, 2);
	ck_assert_int_eq(worker_state(w), WORKER_INITIALIZING);
	ck_assert_int_eq(worker_restarts(w), 0);
	ck_assert(logged("exited with status 1 on server/discover: a server "
	    "of MCP 2025 that does not take it (probe-intolerant)"));
	ck_assert(!logged("restarting in"));
	st = worker_status_json(w);
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(st, "last_exit")));
	cJSON_Delete(st);
	ck_assert_int_eq(F.tp->nwritten, 1);	/* initialize */
	(void)written_request(0, "initialize");
	/* Dead again, after initialize: a crash, backed off. */
	server_exits(W_EXITCODE(1, 0));
	ck_assert_int_eq(worker_state(w), WORKER_BACKOFF);
	ck_assert(logged("restarting in 5 ms (restart 1)"));
	wait_state(w, WORKER_INITIALIZING);
	ck_assert_int_eq(F.starts, 3);
	ck_assert_int_eq(F.tp->nwritten, 1);
	handshake(w);
	era_is(w, "2025", "cached");
	free_worker(w);
}
END_TEST

/*
 * A server that never answers server/discover: initialize after the
 * probe's time (half of init_timeout_ms 200), in the same process; the
 * answer that comes late is dropped, not the router's.
 */
START_TEST(test_probe_silent)
{
	struct worker	*w;
	struct tclient	*c;
	int		 id;
	uint64_t	 t0 = clock_now_ms();

	F.short_init = 1;
	w = new_worker(AUTO);
	c = client_attach(w);
	id = probe_id(0);
	wait_written(w, 2);
	ck_assert_uint_ge(clock_now_ms() - t0, 90);
	(void)written_request(1, "initialize");
	ck_assert(logged("no answer to server/discover within 100 ms"));
	server_refuses(id, -32601);		/* late */
	ck_assert_int_eq(c->ngot, 0);
	handshake(w);
	ck_assert_int_eq(F.starts, 1);
	ck_assert_int_eq(c->ngot, 0);
	era_is(w, "2025", "server/discover unanswered");
	free_worker(w);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("worker");
	tc = tcase_create("worker");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_start_handshake_ready);
	tcase_add_test(tc, test_disabled_is_not_started);
	tcase_add_test(tc, test_crash_backoff_restart);
	tcase_add_test(tc, test_stop_escalates);
	tcase_add_test(tc, test_init_timeout);
	tcase_add_test(tc, test_first_start_timeout);
	tcase_add_test(tc, test_first_start_spent_and_renewed);
	tcase_add_test(tc, test_last_stderr);
	tcase_add_test(tc, test_init_error_and_bad_version);
	tcase_add_test(tc, test_give_up_then_admin_start);
	tcase_add_test(tc, test_restart_policies);
	tcase_add_test(tc, test_spawn_failure_backs_off);
	tcase_add_test(tc, test_admin_restart_is_immediate);
	tcase_add_test(tc, test_pipes_broke_and_garbage);
	tcase_add_test(tc, test_broken_is_deferred);
	tcase_add_test(tc, test_health_ping_unanswered);
	tcase_add_test(tc, test_remove_frees_once_stopped);
	tcase_add_test(tc, test_status_follows_the_transport);
	tcase_add_test(tc, test_needs_login_waits);
	tcase_add_test(tc, test_exit_77_alone_backs_off);
	tcase_add_test(tc, test_shutdown_stops_without_restart);
	tcase_add_test(tc, test_on_demand_idle_at_start);
	tcase_add_test(tc, test_on_demand_start_on_request);
	tcase_add_test(tc, test_idle_stop_and_start_again);
	tcase_add_test(tc, test_idle_stop_always);
	tcase_add_test(tc, test_idle_freeze_and_thaw);
	tcase_add_test(tc, test_idle_stop_waits_for_work);
	tcase_add_test(tc, test_on_demand_crash);
	tcase_add_test(tc, test_always_crash_restarts);
	tcase_add_test(tc, test_on_demand_admin);
	tcase_add_test(tc, test_reload_start_settings);
	tcase_add_test(tc, test_probe_2025);
	tcase_add_test(tc, test_probe_2026);
	tcase_add_test(tc, test_probe_intolerant);
	tcase_add_test(tc, test_probe_silent);
	suite_add_tcase(s, tc);
	return (s);
}
