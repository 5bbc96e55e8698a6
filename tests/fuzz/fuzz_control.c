/*
 * fuzz_control.c -- the control plane and log following, as mcpd runs them.
 *
 * daemon/control.c (every mcpd/ method), daemon/logs.c (each server's
 * stderr ring, its journal lines and its followers) and daemon/follow.c
 * run as they are, with the pure code under them (src/rpc.c, envelope.c,
 * ring.c, esc.c, metrics.c, conf.c), and log.c and clock.c, told to give
 * their messages to a check and to read a simulated clock (log_sink,
 * clock_use).  What they call in the rest of the daemon is replaced by
 * models: connections that record what they are
 * sent (client.c's primitives: client_first, client_next, client_follows,
 * client_is_dead, client_close, client_queue_text), workers with names,
 * states and a struct logs (worker.c), and reloads that remove and add
 * workers (reload.c).  A stderr line takes worker.c's way in, logs_line.
 * Lifetimes are mcpd's: a closed connection is marked dead and freed from
 * a deferred step (client_free_cb, which calls the handlers' close hooks:
 * control.c's logs_unfollow_all), and so
 * is a removed worker (worker_free, whose logs_free ends the follows of
 * it); nothing is freed inside its own call.
 *
 * The input is lines, each an event:
 *
 *	cN JSON		connection N (0-3) sends a line; as client_handle_line,
 *			to the router once the connection is attached
 *	fN W		connection N sends mcpd/logs following worker W
 *	kN M W		connection N sends the Mth mcpd/ method (status,
 *			start, stop, restart, version, attach, reload, logs,
 *			metrics, attach asking for a principal) naming worker W
 *	eW TEXT		worker W (0-3) writes a line on stderr
 *	EW TEXT		the same, but the line was longer and got cut
 *	bW TEXT		worker W writes the line FUZZ_BURST_LINES times at
 *			once, more than the journal takes at a time
 *	xN		connection N closes (client_lost: dead, freed later)
 *	oN		a new connection takes slot N (if N is closed)
 *	rW		a reload removes worker W (freed later)
 *	aW		a reload adds worker W (a new serial, the same name)
 *	mK		what mcpd/reload does next: 0 nothing, 1 one error,
 *			2 two errors, 3 removes the last worker, 4 adds one
 *	sW K		worker W is now in state K (a digit)
 *	F, G		the deferred frees run: connections, then workers (F)
 *			or workers, then connections (G)
 *
 * Connection 3 is not an admin.  Workers 0-2 exist at the start.  In JSON
 * lines "$Z" stands for RPC_PARSE_MAX_BYTES bytes of 'x', the first two
 * times in an input (each costs a scan of a megabyte).
 * At the end every connection closes and every worker is removed.
 *
 * Invariants: no crash, leak or sanitizer report; every message a
 * connection receives is one strict JSON object (envelope_scan) on one
 * line that cJSON parses too; every line a connection sends that is not
 * attached gets exactly the replies JSON-RPC asks for: one for a request,
 * carrying its id byte for byte, none for a notification or a response,
 * one with a null id for anything else; nothing reaches a dead connection
 * (a freed one is the sanitizer's); a stderr line reaches, once, exactly
 * the live connections that asked to follow that worker (by serial, so
 * not a removed worker's followers when a new one takes its name), and
 * no line ever comes during a request; when a worker is freed, the
 * connections that followed only it are closed and no other; each
 * connection's follow set is what it asked for, and logs_following counts
 * the connections with a non-empty one; logs_count counts the lines a
 * worker wrote; every journal entry is an mcpd stderr event naming the
 * server that writes, each line gets at most one, and before the first
 * line logged after some were not, one entry gives their number.
 */
#include "config.h"

#include <sys/queue.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "clock.h"
#include "conf.h"
#include "control.h"
#include "envelope.h"
#include "follow.h"
#include "ident.h"
#include "insider.h"
#include "fuzz.h"
#include "group.h"
#include "httpfront.h"
#include "instance.h"
#include "log.h"
#include "login.h"
#include "logs.h"
#include "mcpd.h"
#include "principal.h"
#include "proto.h"
#include "reexec.h"
#include "reload.h"
#include "router.h"
#include "rpc.h"
#include "util.h"
#include "worker.h"
#include "xmalloc.h"

const char	*fuzz_target_name = "control";

#define FUZZ_CONNS		4
#define FUZZ_WORKERS		4
#define FUZZ_NOT_ADMIN		3	/* this connection is not an admin */
/* What a failed server's stderr said, for administrators alone. */
#define FUZZ_STDERR_WORDS	"fuzz: boom, from its stderr"

#define FUZZ_MEMBER_UID		65534	/* and its user */
#define FUZZ_MAX_PADS		2
#define FUZZ_BURST_LINES	600	/* logs.c's journal takes 500 at once */
#define FUZZ_MAX_BURSTS		4

static const char *fuzz_names[FUZZ_WORKERS] = {
	"alpha", "beta", "g.a-m_m4", "delta"
};

/* Control requests the k and f events write; @ is a worker's name. */
static const char *fuzz_canned[] = {
	"\"mcpd/status\",\"params\":{\"servers\":[\"@\"]}",
	"\"mcpd/start\",\"params\":{\"servers\":[\"@\"]}",
	"\"mcpd/stop\",\"params\":{\"servers\":[\"@\"]}",
	"\"mcpd/restart\",\"params\":{\"servers\":[\"@\",\"@\"]}",
	"\"mcpd/version\"",
	"\"mcpd/attach\",\"params\":{\"server\":\"@\"}",
	"\"mcpd/reload\"",
	"\"mcpd/logs\",\"params\":{\"server\":\"@\",\"lines\":1}",
	"\"mcpd/metrics\",\"params\":{}",
	"\"mcpd/attach\",\"params\":{\"server\":\"@\",\"principal\":true}",
};
#define FUZZ_NCANNED	nitems(fuzz_canned)
#define FUZZ_FOLLOW \
	"\"mcpd/logs\",\"params\":{\"server\":\"@\",\"follow\":true}"

static const char *fuzz_conf_text =
    "{\"mcpServers\":{\"alpha\":{\"command\":\"fuzz-server\"}}}";

/* The stand-in for a connection (daemon/client.c). */
struct client {
	struct mcpd		*mcpd;
	int			 slot;
	uint64_t		 serial;
	uint64_t		 principal;	/* claimed; 0: its own */
	int			 admin;
	int			 dead;
	struct attachment	*att;
	const struct client_handler *session;	/* att's (control.c's) */
	struct follow_set	 follows;	/* as client.c keeps it */
	uint64_t		*asked;		/* the model: serials followed */
	size_t			 nasked;
	size_t			 replies;	/* responses received */
	size_t			 logs;		/* mcpd/log notifications */
	char			*reply_id;	/* the last reply's id, as sent */
	cJSON			*reply;		/* the last reply */
	TAILQ_ENTRY(client)	 entry;
};

struct router {
	struct worker		*w;
};

struct attachment {
	struct client		*c;
	struct worker		*w;
	size_t			 lines;
};

/* The stand-in for a worker (daemon/worker.c). */
struct worker {
	struct mcpd		*mcpd;
	int			 slot;
	char			*name;
	uint64_t		 serial;
	enum worker_state	 state;
	int			 removing;
	struct logs		*logs;
	uint64_t		 lines;		/* the model: stderr lines */
	uint64_t		 unlogged;	/* not in the journal yet */
	struct router		 router;
	TAILQ_ENTRY(worker)	 entry;
};

static struct {
	struct mcpd		 mcpd;
	struct client		*slots[FUZZ_CONNS];
	int			 reload_mode;
	size_t			 logs_sent;	/* every mcpd/log, all clients */
	unsigned		 next_id;	/* of canned requests */
	size_t			 pads;		/* $Z expanded so far */
	struct worker		*writing;	/* on stderr now */
	size_t			 total;		/* its length before the cut */
	size_t			 journal;	/* entries for this line */
	int			 journal_line;	/* one was the line itself */
	struct worker		*freeing;	/* worker_free runs */
	size_t			 bursts;	/* b events so far */
	uint64_t		 now_ms;
} F;

/*
 * What connections receive.
 */

static cJSON *
parse_written(const char *text, size_t len, struct envelope *env)
{
	size_t	 erroff;
	cJSON	*json;

	FUZZ_CHECK(len > 0 && memchr(text, '\n', len) == NULL,
	    "message to a client is empty or holds a newline: %.*s",
	    (int)len, text);
	FUZZ_CHECK(envelope_scan(text, len, env, &erroff) == 0,
	    "message to a client is not a strict JSON object (byte %zu): %.*s",
	    erroff, (int)len, text);
	json = fuzz_json_parse(text, len);
	FUZZ_CHECK(cJSON_IsObject(json), "cJSON refuses the message to a "
	    "client: %.*s", (int)len, text);
	return (json);
}

static int
client_asked(const struct client *c, uint64_t serial)
{
	size_t	 i;

	for (i = 0; i < c->nasked; i++) {
		if (c->asked[i] == serial)
			return (1);
	}
	return (0);
}

static void
client_receives(struct client *c, const char *text, size_t len)
{
	struct envelope	 env;
	cJSON		*msg, *method, *params, *server, *servers;

	FUZZ_CHECK(!c->dead, "message for dead connection %llu: %.*s",
	    (unsigned long long)c->serial, (int)len, text);
	msg = parse_written(text, len, &env);
	FUZZ_CHECK(envelope_string_eq(text, &env.jsonrpc, "2.0"),
	    "message without \"jsonrpc\": \"2.0\": %.*s", (int)len, text);
	method = fuzz_json_member(msg, "method");
	if (method != NULL) {
		FUZZ_CHECK(cJSON_IsString(method) &&
		    strcmp(method->valuestring, MCPD_NOTIFY_LOG) == 0 &&
		    env.id.type == ENVELOPE_ABSENT, "a connection got a "
		    "request or notification other than mcpd/log: %.*s",
		    (int)len, text);
		params = fuzz_json_member(msg, "params");
		server = fuzz_json_member(params, "server");
		FUZZ_CHECK(F.writing != NULL, "mcpd/log while no server "
		    "wrote to stderr: %.*s", (int)len, text);
		FUZZ_CHECK(cJSON_IsString(server) &&
		    strcmp(server->valuestring, F.writing->name) == 0,
		    "mcpd/log from server %s says another: %.*s",
		    F.writing->name, (int)len, text);
		FUZZ_CHECK(cJSON_IsString(fuzz_json_member(params, "text")),
		    "mcpd/log without text: %.*s", (int)len, text);
		c->logs++;
		F.logs_sent++;
		cJSON_Delete(msg);
		return;
	}
	FUZZ_CHECK(env.id.type != ENVELOPE_ABSENT, "reply without id: %.*s",
	    (int)len, text);
	FUZZ_CHECK((env.result.type != ENVELOPE_ABSENT) !=
	    (env.error.type != ENVELOPE_ABSENT), "reply with neither or both "
	    "of result and error: %.*s", (int)len, text);
	if (env.error.type != ENVELOPE_ABSENT)
		FUZZ_CHECK(env.e_code.type == ENVELOPE_NUMBER, "error without "
		    "a code: %.*s", (int)len, text);
	/* A server's stderr is for administrators (visible.h). */
	servers = fuzz_json_member(fuzz_json_member(msg, "result"),
	    "servers");
	cJSON_ArrayForEach(server, servers)
		FUZZ_CHECK(c->admin || fuzz_json_member(server,
		    "last_stderr") == NULL, "a connection that is not an "
		    "admin was shown a server's stderr: %.*s", (int)len, text);
	c->replies++;
	free(c->reply_id);
	c->reply_id = xstrndup(text + env.id.off, env.id.len);
	cJSON_Delete(c->reply);
	c->reply = msg;
}

/*
 * Stand-ins for client.c: output is recorded, a lost connection is marked
 * dead and freed from the deferred step (client_free_cb).
 */

/* The simulated clock, which clock.c reads. */
static uint64_t
fuzz_mono_us(void)
{
	return (F.now_ms * 1000);
}

static uint64_t
fuzz_real_us(void)
{
	return (1700000000000000ULL + F.now_ms * 1000);
}

static const struct clock_source fuzz_clock = { fuzz_mono_us, fuzz_real_us };

void
client_queue_text(struct client *c, const char *text, size_t len)
{
	client_receives(c, text, len);
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

int
client_is_admin(const struct client *c)
{
	return (c->admin);
}

uid_t
client_uid(const struct client *c)
{
	return (c->admin ? 0 : FUZZ_MEMBER_UID);
}

uint64_t
client_serial(const struct client *c)
{
	return (c->serial);
}

pid_t
client_pid(const struct client *c)
{
	return ((pid_t)(1000 + c->serial));
}

/* No peer of the harness runs inside a server (insider.c reads /proc). */
char *
insider_refuses(struct mcpd *mcpd, const struct client *c,
    const char *method)
{
	(void)mcpd;
	(void)c;
	(void)method;
	return (NULL);
}

/* The app on a connection: the one ident.c would find of mcpctl's. */
const struct ident *
client_ident(const struct client *c)
{
	static const struct ident app = {
		.uid = 0, .pid = 4242, .exe = "/usr/bin/app\nwith newline",
		.unit = "app.service", .flags = IDENT_BRIDGE,
	};

	return (&app);
}

void
client_ident_bridge(struct client *c)
{
}

/* No fuzzed peer is mcpd's own mcpd-http: every claim is refused. */
int
client_claim_http_token(struct client *c, const char *token, char **why)
{
	*why = xstrdup("not mcpd's own mcpd-http");
	return (-1);
}

/* A bridge's principal: principal.c's own table, as client.c uses it. */
int
client_claim_principal(struct client *c, const char *presented,
    char hex[PRINCIPAL_HEX_LEN + 1])
{
	if (c->principal != 0)
		return (-1);
	c->principal = principal_claim(c->mcpd, client_uid(c), presented,
	    hex);
	return (c->principal != 0 ? 0 : -1);
}

/* Groups: attaching to one is left to the integration tests. */
const struct client_handler group_client_handler;
const struct group_peer client_group_peer;

/* control.c's handler of an attachment to a server, kept as client.c. */
void
client_set_session(struct client *c, const struct client_handler *h,
    void *arg)
{
	if (h == &group_client_handler)
		return;
	c->session = h;
	c->att = arg;
}

int
client_is_attached(const struct client *c)
{
	return (c->att != NULL);
}

struct group_session *
group_attach(struct mcpd *mcpd, const struct conf_group *g,
    const struct group_peer *peer, void *c)
{
	return (NULL);
}

cJSON *
group_attach_result(const struct group_session *gs)
{
	return (cJSON_CreateObject());
}

cJSON *
group_status_json(struct mcpd *mcpd)
{
	return (cJSON_CreateArray());
}

/* No HTTP front here. */
cJSON *
httpfront_json(const struct mcpd *mcpd)
{
	return (NULL);
}

/* A re-exec is refused here, as when the binary cannot be executed. */
const char *
reexec_binary(void)
{
	return ("/nonexistent/mcpd");
}

int
reexec_now(struct mcpd *mcpd, char **cause)
{
	*cause = xstrdup("cannot execute /nonexistent/mcpd");
	return (-1);
}

/* No sign-ins here: login.c's part of a connection's end. */
void
login_client_gone(struct mcpd *mcpd, uint64_t serial)
{
}

static void
client_lost(struct client *c, const char *reason)
{
	if (c->dead)
		return;
	c->dead = 1;
	control_client_handler.lost(c, c->mcpd);
}

/* What client.c does when the router drops it (its peer table's). */
static void
client_detached(struct client *c, const char *reason)
{
	c->att = NULL;
	client_lost(c, reason);
}

/* The stand-in router below never calls a peer: an empty table. */
const struct router_peer client_router_peer;

/* logs.c walks the connections only while one of them follows. */
struct client *
client_first(struct mcpd *mcpd)
{
	FUZZ_CHECK(logs_following(mcpd) > 0, "logs.c walks the connections "
	    "while none follows a server");
	return (TAILQ_FIRST(&mcpd->clients));
}

struct client *
client_next(struct client *c)
{
	return (TAILQ_NEXT(c, entry));
}

struct follow_set *
client_follows(struct client *c)
{
	return (&c->follows);
}

int
client_is_dead(const struct client *c)
{
	return (c->dead);
}

/* logs.c closes a follower only when the server it followed goes. */
void
client_close(struct client *c, const char *reason)
{
	FUZZ_CHECK(F.freeing != NULL, "connection %llu closed (%s) while no "
	    "server is freed", (unsigned long long)c->serial, reason);
	client_lost(c, reason);
}

/*
 * What log.c is given (log_sink): the journal takes stderr events only,
 * while a server writes, each naming it; a line is logged at most once,
 * and the number of lines the rate limit kept out comes once, just before
 * the next line logged.  Plain messages (no MESSAGE_ID) are not checked.
 */
static void
fuzz_log(int priority, const char *message_id,
    const struct log_field *fields, size_t nfields, const char *text)
{
	struct worker	*w = F.writing;
	char		*tail, count[32];
	size_t		 nlen;

	if (message_id == NULL)
		return;
	FUZZ_CHECK(w != NULL, "journal entry while no server writes: %s",
	    text);
	FUZZ_CHECK(strcmp(message_id, MCPD_MID_STDERR) == 0 && nfields > 0 &&
	    strcmp(fields[0].name, MCPD_FIELD_SERVER) == 0 &&
	    strcmp(fields[0].value, w->name) == 0, "journal entry %s for "
	    "server %s: %s", message_id, w->name, text);
	nlen = strlen(w->name);
	FUZZ_CHECK(strncmp(text, w->name, nlen) == 0 &&
	    strncmp(text + nlen, ": ", 2) == 0, "journal entry of %s says: %s",
	    w->name, text);
	FUZZ_CHECK(!F.journal_line, "journal entry after the line: %s", text);
	if (priority == LOG_WARNING) {
		snprintf(count, sizeof count, "%llu",
		    (unsigned long long)w->unlogged);
		FUZZ_CHECK(F.journal == 0 && w->unlogged > 0 && nfields == 2 &&
		    strcmp(fields[1].name, MCPD_FIELD_SUPPRESSED) == 0 &&
		    strcmp(fields[1].value, count) == 0, "%llu lines not "
		    "logged, the journal is told: %s",
		    (unsigned long long)w->unlogged, text);
		w->unlogged = 0;
	} else {
		FUZZ_CHECK(priority == LOG_INFO && nfields == 1 &&
		    w->unlogged == 0, "line logged (priority %d), %llu before "
		    "it not counted: %s", priority,
		    (unsigned long long)w->unlogged, text);
		if (F.total > 0) {
			xasprintf(&tail, "... (line of %zu bytes truncated)",
			    F.total);
			FUZZ_CHECK(strlen(text) >= strlen(tail) &&
			    strcmp(text + strlen(text) - strlen(tail),
			    tail) == 0, "a cut line logged as: %s", text);
			free(tail);
		}
		F.journal_line = 1;
	}
	F.journal++;
}

/*
 * Stand-ins for the router: an attached connection's lines are counted.
 */

struct attachment *
router_attach(struct router *r, const struct router_peer *peer, void *c)
{
	struct attachment	*a;

	a = xcalloc(1, sizeof *a);
	a->c = c;
	a->w = r->w;
	return (a);
}

void
router_detach(struct attachment *a, const char *reason)
{
	free(a);
}

/* Nothing is in flight: the stand-in router answers nothing. */
int
router_attachment_busy(const struct attachment *a)
{
	return (0);
}

/* No batches: the connection layer is not fuzzed here. */
int
router_attachment_batches(const struct attachment *a)
{
	return (0);
}

struct worker *
router_attachment_worker(const struct attachment *a)
{
	return (a->w);
}

/* As instance.c for servers shared globally, all of the fuzzer's. */
struct attachment *
instance_attach(struct worker *w, const struct router_peer *peer, void *c,
    char **why)
{
	*why = NULL;
	return (router_attach(worker_router(w), peer, c));
}

struct worker *
worker_parent(const struct worker *w)
{
	return (NULL);
}

/* No instances here: visible.c's rule for them is never asked. */
uid_t
worker_owner_uid(const struct worker *w)
{
	abort();
}

cJSON *
router_attached_json(const struct router *r)
{
	abort();
}

int
worker_is_template(const struct worker *w)
{
	return (0);
}

cJSON *
router_pins_json(struct router *r)
{
	return (cJSON_CreateObject());
}

int
router_pins_holds(const struct router *r, const char *name)
{
	return (0);
}

int
router_pins_approve(struct router *r, char *const *names, size_t n,
    cJSON *approved, char **cause)
{
	*cause = NULL;
	return (0);
}

struct worker *
worker_instance_next(struct worker *tmpl, struct worker *prev)
{
	return (NULL);
}

/* As router_up.c: requests for an mcpd/ method are the control plane's. */
static int
router_hands_back(const char *line, size_t len)
{
	struct envelope	 env;
	const char	*invalid;
	char		 method[64];	/* ROUTER_METHOD_MAX */
	size_t		 erroff;

	return (envelope_scan(line, len, &env, &erroff) == 0 &&
	    rpc_classify_envelope(line, &env, &invalid) == RPC_KIND_REQUEST &&
	    envelope_string_copy(line, &env.method, method,
	    sizeof method) >= 0 && strncmp(method, MCPD_METHOD_PREFIX,
	    strlen(MCPD_METHOD_PREFIX)) == 0);
}

enum router_line
router_client_line(struct attachment *a, const char *line, size_t len)
{
	a->lines++;
	return (router_hands_back(line, len) ? ROUTER_LINE_CONTROL :
	    ROUTER_LINE_TAKEN);
}

enum router_line
router_client_line_env(struct attachment *a, const char *line, size_t len,
    const struct envelope *env)
{
	(void)env;
	return (router_client_line(a, line, len));
}

/*
 * Stand-ins for worker.c, mcpd.c and reload.c.
 */

struct worker *
worker_first(struct mcpd *mcpd)
{
	return (TAILQ_FIRST(&mcpd->workers));
}

struct worker *
worker_next(struct worker *w)
{
	return (TAILQ_NEXT(w, entry));
}

int
worker_removing(const struct worker *w)
{
	return (w->removing);
}

const char *
worker_name(const struct worker *w)
{
	return (w->name);
}

struct logs *
worker_logs(const struct worker *w)
{
	return (w->logs);
}

enum worker_state
worker_state(const struct worker *w)
{
	return (w->state);
}

const char *
worker_state_name(enum worker_state state)
{
	static const char	*names[] = MCPD_STATE_NAMES;

	return (names[state]);
}

struct router *
worker_router(const struct worker *w)
{
	return ((struct router *)&w->router);
}

const char *
worker_init_result_text(const struct worker *w)
{
	/* Ready: the server's result; otherwise "{}", as worker.c. */
	if (w->state != WORKER_READY)
		return ("{}");
	return ("{\"protocolVersion\":\"" MCPD_MCP_VERSION "\","
	    "\"capabilities\":{},\"serverInfo\":{\"name\":\"fuzz\\u0000\","
	    "\"version\":\"1\"}}");
}

void
worker_start(struct worker *w)
{
	if (w->state != WORKER_READY)
		w->state = WORKER_STARTING;
}

void
worker_stop(struct worker *w)
{
	w->state = WORKER_STOPPED;
}

void
worker_restart(struct worker *w)
{
	w->state = WORKER_STARTING;
}

/* An attach wants the server: an idle one starts (worker.c defers it). */
void
worker_wanted(struct worker *w, const char *why)
{
	if (w->state == WORKER_IDLE)
		w->state = WORKER_STARTING;
}

static size_t
worker_attached(const struct worker *w)
{
	struct client	*c;
	size_t		 n = 0;

	TAILQ_FOREACH(c, &w->mcpd->clients, entry) {
		if (c->att != NULL && c->att->w == w)
			n++;
	}
	return (n);
}

/* A server's last stderr line (worker_stderr.c): some have one. */
const char *
worker_last_stderr(const struct worker *w)
{
	return (w->serial % 2 == 1 ? FUZZ_STDERR_WORDS : NULL);
}

/* The members worker_status_json and router_add_stats give. */
cJSON *
worker_status_json(const struct worker *w)
{
	static const char	*outcomes[] = { "ok", "error", "timeout",
	    "cancelled", "failed", "oversize" };
	cJSON			*o, *stats, *req, *lat;
	size_t			 i;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", w->name);
	cJSON_AddStringToObject(o, "state", worker_state_name(w->state));
	if (w->state == WORKER_READY) {
		cJSON_AddNumberToObject(o, "pid", 4000 + (double)w->serial);
		cJSON_AddNumberToObject(o, "uptime_ms", 1500);
	} else {
		cJSON_AddNullToObject(o, "pid");
		cJSON_AddNullToObject(o, "uptime_ms");
	}
	cJSON_AddStringToObject(o, "containment", "cgroup");
	cJSON_AddNumberToObject(o, "restarts", (double)w->serial);
	cJSON_AddStringToObject(o, "last_exit", "exited with status 1");
	cJSON_AddNullToObject(o, "next_restart_ms");
	cJSON_AddNumberToObject(o, "inflight", 0);
	cJSON_AddNumberToObject(o, "clients", (double)worker_attached(w));
	cJSON_AddNumberToObject(o, "state_ms", 12);
	cJSON_AddStringToObject(o, "command", "fuzz-server");
	cJSON_AddStringToObject(o, "restart_policy", "always");
	cJSON_AddNullToObject(o, "protocol_version");
	cJSON_AddNullToObject(o, "server_info");
	stats = cJSON_AddObjectToObject(o, "stats");
	cJSON_AddNumberToObject(stats, "stdout_lines", 3);
	cJSON_AddNumberToObject(stats, "dropped_lines", 0);
	cJSON_AddNumberToObject(stats, "oversize_messages", 0);
	cJSON_AddNumberToObject(stats, "protocol_violations", 0);
	cJSON_AddNumberToObject(stats, "stderr_lines",
	    (double)logs_count(w->logs));
	req = cJSON_AddObjectToObject(stats, "requests");
	for (i = 0; i < nitems(outcomes); i++)
		cJSON_AddNumberToObject(req, outcomes[i], (double)i);
	lat = cJSON_AddArrayToObject(stats, "latency_us_log2");
	for (i = 0; i < 28; i++)
		cJSON_AddItemToArray(lat, cJSON_CreateNumber((double)(i % 3)));
	cJSON_AddNumberToObject(stats, "latency_us_sum", 123456);
	return (o);
}

/* worker.c's. */
struct worker *
worker_find(struct mcpd *mcpd, const char *name)
{
	struct worker	*w;

	for (w = worker_first(mcpd); w != NULL; w = worker_next(w)) {
		if (!worker_removing(w) && strcmp(worker_name(w), name) == 0)
			return (w);
	}
	return (NULL);
}

static struct worker *
worker_add(int slot)
{
	struct worker	*w;

	w = xcalloc(1, sizeof *w);
	w->mcpd = &F.mcpd;
	w->slot = slot;
	w->name = xstrdup(fuzz_names[slot]);
	w->serial = ++F.mcpd.workers_total;
	w->state = slot == 1 ? WORKER_BACKOFF : WORKER_READY;
	w->logs = logs_new(&F.mcpd, w->name, w->serial);
	w->router.w = w;
	TAILQ_INSERT_TAIL(&F.mcpd.workers, w, entry);
	return (w);
}

/* The live worker in a slot (not being removed), or NULL. */
static struct worker *
worker_in_slot(int slot)
{
	return (worker_find(&F.mcpd, fuzz_names[slot]));
}

/* The newest worker of a slot, removing or not: it may still write. */
static struct worker *
worker_newest(int slot)
{
	struct worker	*w;

	TAILQ_FOREACH_REVERSE(w, &F.mcpd.workers, worker_list, entry) {
		if (w->slot == slot)
			return (w);
	}
	return (NULL);
}

/* worker_remove: stopped now, freed from the deferred step. */
static void
worker_remove_model(struct worker *w)
{
	w->removing = 1;
	w->state = WORKER_STOPPING;
}

/* worker.c's worker_free, and what the model expects of it. */
void
worker_free(struct worker *w)
{
	struct client	*c;
	int		*dead_before, expect, had, i;
	size_t		 n = 0, j;

	TAILQ_FOREACH(c, &F.mcpd.clients, entry)
		n++;
	dead_before = xcalloc(n + 1, sizeof *dead_before);
	i = 0;
	TAILQ_FOREACH(c, &F.mcpd.clients, entry) {
		/* Attached to it, it is dropped with the router. */
		dead_before[i++] = c->dead || (c->att != NULL &&
		    c->att->w == w);
	}

	/* router_free: its attached clients are dropped. */
	TAILQ_FOREACH(c, &F.mcpd.clients, entry) {
		if (c->att != NULL && c->att->w == w) {
			router_detach(c->att, "server removed");
			client_detached(c, "server removed");
		}
	}
	F.freeing = w;
	logs_free(w->logs, "server removed");
	F.freeing = NULL;
	TAILQ_REMOVE(&w->mcpd->workers, w, entry);

	/* Those that followed only it are closed, and no other. */
	i = 0;
	TAILQ_FOREACH(c, &F.mcpd.clients, entry) {
		had = 0;
		for (j = 0; j < c->nasked; j++) {
			if (c->asked[j] == w->serial) {
				c->asked[j] = c->asked[--c->nasked];
				had = 1;
				break;
			}
		}
		expect = dead_before[i++] || (had && c->nasked == 0);
		FUZZ_CHECK(c->dead == expect, "connection %llu is %s after "
		    "server %s (serial %llu) was freed; it followed it: %s, "
		    "and %zu others", (unsigned long long)c->serial,
		    c->dead ? "closed" : "open", w->name,
		    (unsigned long long)w->serial, had ? "yes" : "no",
		    c->nasked);
	}
	free(dead_before);
	free(w->name);
	free(w);
}

int
reload_config(struct mcpd *mcpd, cJSON **report)
{
	struct worker	*w, *last = NULL;
	cJSON		*errors, *removed, *added;
	int		 slot;

	*report = cJSON_CreateObject();
	if (F.reload_mode == 1 || F.reload_mode == 2) {
		errors = cJSON_AddArrayToObject(*report, "errors");
		cJSON_AddItemToArray(errors, cJSON_CreateString(
		    "mcpServers.alpha.command: expected a string"));
		if (F.reload_mode == 2)
			cJSON_AddItemToArray(errors, cJSON_CreateString(
			    "mcpServers.beta: unknown key \"\\u0000\""));
		cJSON_AddArrayToObject(*report, "warnings");
		return (-1);
	}
	cJSON_AddArrayToObject(*report, "changed");
	added = cJSON_AddArrayToObject(*report, "added");
	removed = cJSON_AddArrayToObject(*report, "removed");
	cJSON_AddArrayToObject(*report, "unchanged");
	cJSON_AddObjectToObject(*report, "actions");
	cJSON_AddArrayToObject(*report, "warnings");
	if (F.reload_mode == 3) {
		TAILQ_FOREACH(w, &mcpd->workers, entry) {
			if (!w->removing)
				last = w;
		}
		if (last != NULL) {
			cJSON_AddItemToArray(removed,
			    cJSON_CreateString(last->name));
			worker_remove_model(last);
		}
	} else if (F.reload_mode == 4) {
		for (slot = 0; slot < FUZZ_WORKERS; slot++) {
			if (worker_in_slot(slot) == NULL) {
				worker_add(slot);
				cJSON_AddItemToArray(added,
				    cJSON_CreateString(fuzz_names[slot]));
				break;
			}
		}
	}
	return (0);
}

/*
 * The harness.
 */

static struct client *
client_open(int slot)
{
	struct client	*c;

	c = xcalloc(1, sizeof *c);
	c->mcpd = &F.mcpd;
	c->slot = slot;
	c->serial = ++F.mcpd.clients_total;
	c->admin = slot != FUZZ_NOT_ADMIN;
	TAILQ_INSERT_TAIL(&F.mcpd.clients, c, entry);
	F.mcpd.nclients++;
	F.slots[slot] = c;
	return (c);
}

/* client_free_cb. */
static void
client_free(struct client *c)
{
	if (c->att != NULL) {
		c->session->close(c, c->att);
		c->att = NULL;
	}
	control_client_handler.close(c, c->mcpd);
	if (c->principal != 0)
		principal_release(c->mcpd, c->principal);
	c->mcpd->nclients--;
	TAILQ_REMOVE(&c->mcpd->clients, c, entry);
	if (F.slots[c->slot] == c)
		F.slots[c->slot] = NULL;
	free(c->asked);
	free(c->reply_id);
	cJSON_Delete(c->reply);
	free(c);
}

static void
run_deferred(int workers_first)
{
	struct client	*c, *c1;
	struct worker	*w, *w1;
	int		 pass;

	for (pass = 0; pass < 2; pass++) {
		if ((pass == 0) == !workers_first) {
			for (c = TAILQ_FIRST(&F.mcpd.clients); c != NULL;
			    c = c1) {
				c1 = TAILQ_NEXT(c, entry);
				if (c->dead)
					client_free(c);
			}
		} else {
			for (w = TAILQ_FIRST(&F.mcpd.workers); w != NULL;
			    w = w1) {
				w1 = TAILQ_NEXT(w, entry);
				if (w->removing)
					worker_free(w);
			}
		}
	}
}

/*
 * client_handle_line (client.c): the session handler control.c set at
 * attach (the stand-in router), else or then control.c's base handler.
 */
static void
client_handle_line(struct client *c, const char *line, size_t len)
{
	if (c->att == NULL || c->session->line(c, c->att, line, len) != 0)
		control_client_handler.line(c, c->mcpd, line, len);
}

/* After a reply to mcpd/logs with "follow": true, what is followed. */
static void
note_follow(struct client *c, const char *line, const struct envelope *env)
{
	cJSON		*params, *name, *follow, *result, *server;
	struct worker	*w;

	if (!envelope_string_eq(line, &env->method, MCPD_METHOD_LOGS) ||
	    env->params.type != ENVELOPE_OBJECT)
		return;
	params = fuzz_json_parse(line + env->params.off, env->params.len);
	FUZZ_CHECK(params != NULL, "cJSON refuses params envelope_scan "
	    "accepted");
	name = fuzz_json_member(params, "server");
	follow = fuzz_json_member(params, "follow");
	result = fuzz_json_member(c->reply, "result");
	/* Server stderr is for administrators (visible.h). */
	FUZZ_CHECK(result == NULL || c->admin, "mcpd/logs answered a "
	    "connection that is not an admin");
	if (result != NULL) {
		server = fuzz_json_member(result, "server");
		FUZZ_CHECK(cJSON_IsString(name) && cJSON_IsString(server) &&
		    strcmp(name->valuestring, server->valuestring) == 0,
		    "mcpd/logs for server %s answered with the logs of %s",
		    cJSON_IsString(name) ? name->valuestring : "(none)",
		    cJSON_IsString(server) ? server->valuestring : "(none)");
		FUZZ_CHECK(cJSON_IsArray(fuzz_json_member(result, "lines")),
		    "mcpd/logs result without lines");
		if (cJSON_IsTrue(follow)) {
			w = worker_find(&F.mcpd, server->valuestring);
			FUZZ_CHECK(w != NULL, "mcpd/logs followed %s, which is "
			    "not a server", server->valuestring);
			if (!client_asked(c, w->serial)) {
				c->asked = xreallocarray(c->asked,
				    c->nasked + 1, sizeof *c->asked);
				c->asked[c->nasked++] = w->serial;
			}
		}
	}
	cJSON_Delete(params);
}

/* A line from connection c, and the replies JSON-RPC asks for. */
static void
client_line(struct client *c, const char *line, size_t len)
{
	struct envelope	 env;
	size_t		 erroff, replies = c->replies, logs = F.logs_sent;
	int		 scanned, has_id, response, notification;

	if (c->att != NULL && !router_hands_back(line, len)) {
		client_handle_line(c, line, len);
		FUZZ_CHECK(c->replies == replies, "mcpd answered a line of "
		    "an attached connection itself");
		return;
	}
	scanned = envelope_scan(line, len, &env, &erroff) == 0;
	client_handle_line(c, line, len);
	FUZZ_CHECK(F.logs_sent == logs, "a log line was sent during a "
	    "request");
	FUZZ_CHECK(!c->dead, "connection %llu closed by its own request",
	    (unsigned long long)c->serial);
	if (!scanned) {
		FUZZ_CHECK(c->replies == replies + 1, "%zu replies to a line "
		    "that is not one JSON object", c->replies - replies);
		FUZZ_CHECK(strcmp(c->reply_id, "null") == 0, "error for a "
		    "line that is not JSON with id %s", c->reply_id);
		return;
	}
	has_id = env.id.type == ENVELOPE_STRING ||
	    env.id.type == ENVELOPE_NUMBER;
	response = envelope_string_eq(line, &env.jsonrpc, "2.0") &&
	    env.method.type == ENVELOPE_ABSENT &&
	    (env.result.type != ENVELOPE_ABSENT) !=
	    (env.error.type != ENVELOPE_ABSENT);
	notification = envelope_string_eq(line, &env.jsonrpc, "2.0") &&
	    env.method.type == ENVELOPE_STRING &&
	    env.id.type == ENVELOPE_ABSENT &&
	    env.result.type == ENVELOPE_ABSENT &&
	    env.error.type == ENVELOPE_ABSENT;
	if ((has_id && response) || notification) {
		FUZZ_CHECK(c->replies == replies, "%zu replies to a %s",
		    c->replies - replies, notification ? "notification" :
		    "response");
		return;
	}
	FUZZ_CHECK(c->replies == replies + 1, "%zu replies to a line with "
	    "id %.*s", c->replies - replies, has_id ? (int)env.id.len : 4,
	    has_id ? line + env.id.off : "none");
	if (!has_id) {
		FUZZ_CHECK(strcmp(c->reply_id, "null") == 0, "error for a "
		    "line without id carries id %s", c->reply_id);
		return;
	}
	FUZZ_CHECK(strlen(c->reply_id) == env.id.len &&
	    memcmp(c->reply_id, line + env.id.off, env.id.len) == 0,
	    "reply to id %.*s carries id %s", (int)env.id.len,
	    line + env.id.off, c->reply_id);
	note_follow(c, line, &env);
}

/*
 * A stderr line (cut: total is more than len): exactly the live followers
 * of w get it, once, and the journal has it or counts it as not logged.
 */
static void
stderr_line(struct worker *w, const char *line, size_t len, size_t total)
{
	struct client	*c;
	size_t		*before, n = 0, i;

	TAILQ_FOREACH(c, &F.mcpd.clients, entry)
		n++;
	before = xcalloc(n + 1, sizeof *before);
	i = 0;
	TAILQ_FOREACH(c, &F.mcpd.clients, entry)
		before[i++] = c->logs;
	F.writing = w;
	F.total = total > len ? total : 0;
	F.journal = 0;
	F.journal_line = 0;
	logs_line(w->logs, line, len, total);
	F.writing = NULL;
	if (!F.journal_line)
		w->unlogged++;
	w->lines++;
	FUZZ_CHECK(logs_count(w->logs) == w->lines, "logs_count says %llu "
	    "lines of %s, it wrote %llu",
	    (unsigned long long)logs_count(w->logs), w->name,
	    (unsigned long long)w->lines);
	i = 0;
	TAILQ_FOREACH(c, &F.mcpd.clients, entry) {
		FUZZ_CHECK(c->logs - before[i] ==
		    (size_t)(!c->dead && client_asked(c, w->serial)),
		    "connection %llu (%s, follows %s serial %llu: %s) got %zu "
		    "copies of a stderr line", (unsigned long long)c->serial,
		    c->dead ? "dead" : "open", w->name,
		    (unsigned long long)w->serial,
		    client_asked(c, w->serial) ? "yes" : "no",
		    c->logs - before[i]);
		i++;
	}
	free(before);
}

/* Each connection follows what it asked for; logs_following counts. */
static void
check_follows(void)
{
	struct client	*c;
	size_t		 n = 0, i;

	TAILQ_FOREACH(c, &F.mcpd.clients, entry) {
		FUZZ_CHECK(c->follows.n == c->nasked, "connection %llu follows "
		    "%zu servers, asked for %zu", (unsigned long long)c->serial,
		    c->follows.n, c->nasked);
		for (i = 0; i < c->nasked; i++)
			FUZZ_CHECK(follow_has(&c->follows, c->asked[i]),
			    "connection %llu does not follow serial %llu",
			    (unsigned long long)c->serial,
			    (unsigned long long)c->asked[i]);
		if (!follow_empty(&c->follows))
			n++;
	}
	FUZZ_CHECK(logs_following(&F.mcpd) == n, "logs_following is %zu, "
	    "%zu connections follow", logs_following(&F.mcpd), n);
}

/* A canned request (k and f events) from connection c. */
static void
client_canned(struct client *c, const char *method, int slot)
{
	const char	*name = fuzz_names[slot], *p;
	char		*line;
	size_t		 len;

	len = strlen(method) + 64;
	for (p = method; *p != '\0'; p++)
		len += *p == '@' ? strlen(name) : 0;
	line = xmalloc(len);
	len = (size_t)snprintf(line, len,
	    "{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":", ++F.next_id);
	for (p = method; *p != '\0'; p++) {
		if (*p == '@') {
			memcpy(line + len, name, strlen(name));
			len += strlen(name);
		} else
			line[len++] = *p;
	}
	line[len++] = '}';
	client_line(c, line, len);
	free(line);
}

/* Replace $Z with RPC_PARSE_MAX_BYTES of 'x'. */
static char *
expand(const char *in, size_t len, size_t *out_len)
{
	char	*out;
	size_t	 i, o = 0, k = 0;

	for (i = 0; i + 1 < len; i++)
		k += in[i] == '$' && in[i + 1] == 'Z';
	if (k > FUZZ_MAX_PADS - F.pads)
		k = FUZZ_MAX_PADS - F.pads;
	F.pads += k;
	out = xmalloc(len + k * RPC_PARSE_MAX_BYTES + 1);
	for (i = 0; i < len; i++) {
		if (k > 0 && in[i] == '$' && i + 1 < len && in[i + 1] == 'Z') {
			i++;
			k--;
			memset(out + o, 'x', RPC_PARSE_MAX_BYTES);
			o += RPC_PARSE_MAX_BYTES;
		} else
			out[o++] = in[i];
	}
	out[o] = '\0';
	*out_len = o;
	return (out);
}

static int
event_digit(char ch)
{
	return (ch >= '0' && ch <= '9' ? ch - '0' : (unsigned char)ch);
}

/* The number after an event letter, and where its argument starts. */
static int
event_index(const char *line, size_t len, int n, size_t *rest)
{
	int	 i = 0;

	if (len > 1)
		i = event_digit(line[1]);
	*rest = len > 1 ? 2 : 1;
	if (*rest < len && line[*rest] == ' ')
		(*rest)++;
	return (i % n);
}

static void
run_event(const char *line, size_t len)
{
	struct client	*c;
	struct worker	*w;
	char		*text;
	size_t		 rest, tlen, k;
	int		 i, w_slot;

	if (len == 0)
		return;
	F.now_ms += 7;
	switch (line[0]) {
	case 'c':
		i = event_index(line, len, FUZZ_CONNS, &rest);
		if ((c = F.slots[i]) == NULL || c->dead)
			break;
		text = expand(line + rest, len - rest, &tlen);
		client_line(c, text, tlen);
		free(text);
		break;
	case 'f':
	case 'k':
		i = event_index(line, len, FUZZ_CONNS, &rest);
		if ((c = F.slots[i]) == NULL || c->dead)
			break;
		k = 0;
		if (line[0] == 'k' && rest < len)
			k = event_digit(line[rest++]) % FUZZ_NCANNED;
		if (rest < len && line[rest] == ' ')
			rest++;
		w_slot = rest < len ? event_digit(line[rest]) % FUZZ_WORKERS :
		    0;
		client_canned(c, line[0] == 'f' ? FUZZ_FOLLOW :
		    fuzz_canned[k], w_slot);
		break;
	case 'e':
	case 'E':
		i = event_index(line, len, FUZZ_WORKERS, &rest);
		tlen = len - rest;
		if ((w = worker_newest(i)) != NULL)
			stderr_line(w, line + rest, tlen, line[0] == 'E' ?
			    2 * tlen + 1 : tlen);
		break;
	case 'b':
		i = event_index(line, len, FUZZ_WORKERS, &rest);
		if ((w = worker_newest(i)) == NULL ||
		    F.bursts == FUZZ_MAX_BURSTS)
			break;
		F.bursts++;
		for (k = 0; k < FUZZ_BURST_LINES; k++)
			stderr_line(w, line + rest, len - rest, len - rest);
		break;
	case 'x':
		i = event_index(line, len, FUZZ_CONNS, &rest);
		if ((c = F.slots[i]) != NULL)
			client_lost(c, "client disconnected");
		break;
	case 'o':
		i = event_index(line, len, FUZZ_CONNS, &rest);
		if (F.slots[i] == NULL || F.slots[i]->dead)
			client_open(i);
		break;
	case 'r':
		i = event_index(line, len, FUZZ_WORKERS, &rest);
		if ((w = worker_in_slot(i)) != NULL)
			worker_remove_model(w);
		break;
	case 'a':
		i = event_index(line, len, FUZZ_WORKERS, &rest);
		if (worker_in_slot(i) == NULL)
			worker_add(i);
		break;
	case 'm':
		F.reload_mode = event_index(line, len, 5, &rest);
		break;
	case 's':
		i = event_index(line, len, FUZZ_WORKERS, &rest);
		if ((w = worker_newest(i)) != NULL && rest < len)
			w->state = (enum worker_state)
			    ((unsigned char)line[rest] % (WORKER_FAILED + 1));
		break;
	case 'F':
	case 'G':
		run_deferred(line[0] == 'G');
		break;
	default:
		break;
	}
	check_follows();
}

static const char *
no_getenv(const char *name, void *arg)
{
	return (NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char		*p = (const char *)data, *end = p + size, *nl;
	struct conf_diags	 diags;
	struct client		*c;
	struct worker		*w;
	size_t			 len;
	int			 i;

	memset(&F, 0, sizeof F);
	F.now_ms = 1000000;
	clock_use(&fuzz_clock);
	log_sink(fuzz_log);
	TAILQ_INIT(&F.mcpd.workers);
	TAILQ_INIT(&F.mcpd.clients);
	F.mcpd.socket_path = "/run/user/1000/mcpd/mcpd.sock";
	F.mcpd.config_file = "/home/u/.config/mcpd/mcpd.json";
	F.mcpd.started_ms = 1000;
	F.mcpd.budget_used = 4096;
	F.mcpd.logs_followers = &logs_followers;
	conf_diags_init(&diags);
	F.mcpd.conf = conf_parse(fuzz_conf_text, strlen(fuzz_conf_text),
	    no_getenv, NULL, &diags);
	FUZZ_CHECK(F.mcpd.conf != NULL, "the configuration was refused");
	conf_diags_free(&diags);
	for (i = 0; i < FUZZ_WORKERS - 1; i++)
		worker_add(i);
	for (i = 0; i < FUZZ_CONNS; i++)
		client_open(i);

	while (p < end) {
		nl = memchr(p, '\n', end - p);
		len = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
		run_event(p, len);
		p += nl != NULL ? len + 1 : len;
	}

	/* Everyone goes: connections close, then every server is removed. */
	TAILQ_FOREACH(c, &F.mcpd.clients, entry)
		client_lost(c, "mcpd is exiting");
	TAILQ_FOREACH(w, &F.mcpd.workers, entry)
		worker_remove_model(w);
	run_deferred(0);
	check_follows();
	FUZZ_CHECK(TAILQ_EMPTY(&F.mcpd.clients) && F.mcpd.nclients == 0 &&
	    logs_following(&F.mcpd) == 0 && F.mcpd.logs_pool == NULL &&
	    TAILQ_EMPTY(&F.mcpd.workers),
	    "left at the end: %zu connections, %zu following",
	    F.mcpd.nclients, logs_following(&F.mcpd));
	principal_free_all(&F.mcpd);
	conf_free(F.mcpd.conf);
	return (0);
}

/* Sign-ins start processes: not here; they answer like a stopped mcpd. */
void
login_begin(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const cJSON *params)
{
	client_send_error(c, id, RPC_INVALID_PARAMS, "no sign-in (fuzz)");
}

void
login_complete(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const cJSON *params)
{
	client_send_error(c, id, RPC_INVALID_REQUEST, "no sign-in (fuzz)");
}

void
login_logout(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const cJSON *params)
{
	client_send_error(c, id, RPC_INVALID_PARAMS, "no sign-in (fuzz)");
}
