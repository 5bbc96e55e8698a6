/*
 * fuzz_client.c -- a client connection's requests through the real router.
 *
 * The router (daemon/router.c, router_pending.c, router_up.c,
 * router_down.c, router_filter.c, router_roots.c, router_tasks.c,
 * router_ctasks.c) runs as
 * in mcpd, on a real event base, with up to three attachments.  Its upstream
 * and its peers are the tables router.h asks for (fuzz_upstream for the
 * worker, fuzz_peer for a client's connection, whose principal is its
 * serial), filled with the models
 * below; log.c, clock.c and hmap_seed.c run as they are, told to give
 * their messages to a check, to read a simulated clock and to use one
 * seed (log_sink, clock_use, hmap_seed_fix).  A
 * fuzz target cannot run child processes or own sockets: the models are
 * the worker's states and the clients' connections, and record every
 * message that would be written to the server or to a client.  The clock is
 * simulated, the maps' seeds are too, and the router's sweep timer is
 * fired by hand.
 *
 * The input is lines.  The first sets the scene: attachments ('1'-'3'),
 * configuration variant (byte % 8: short timeouts, roots, no client
 * capabilities, defaults, small output limits, small per-client caps
 * (tasks too: 2 a client, 3 in all), per-client with member_roots,
 * per-roots) and worker state ('R'eady,
 * 'W'aiting for a start, 'X' refusing).  Clients of an even serial are
 * not admins: the roots they answer roots/list with are narrowed.
 * Each further line is an event:
 *
 *	1JSON 2JSON 3JSON	a line from attachment 1, 2 or 3
 *	SJSON			a line from the server's stdout
 *	R			the session became ready
 *	D, Dx			the server exited; restarting, or in backoff
 *	W, X			starting again; stopping (requests refused)
 *	T[ms]			time passes (default 1000 ms); timers run
 *	O[id]			the server sent an oversized reply for id
 *	H, L			the server's stdin over its high mark, drained
 *	Qn, An			detach attachment n; attach a new client as n
 *	En, Cn			client n half-closes; closes
 *	F			every client's output is written
 *	Gd			a reload gives the router new filters: those
 *				of fuzz_filter_conf whose bit is set in d & 7
 *				(1 tools, 2 prompts, 4 resources; 0 none)
 *	Y[k]			the server answers $Uk with a CreateTaskResult
 *				for a new task of its own, "up-task-N"
 *				(working, ttl 60 s)
 *	Kno[t]			client n asks, under an id of its own: o is
 *				't' a tools/call with "task", 'g' tasks/get,
 *				'r' tasks/result, 'c' tasks/cancel, 'l'
 *				tasks/list; t the task (the cursor of 'l'):
 *				'1'-'3' "$T1"-"$T3", 'x' an id nobody made,
 *				'u' "$V", 'n' "$C", else "$T" (no cursor
 *				for 'l')
 *
 * In JSON lines "$U" is the newest upstream request id written to the
 * server ("$U1" the one before, up to "$U9"), "$D" the newest id of a
 * server request this client received, so replies can be written, "$R"
 * the id of mcpd's newest roots/list to this client (a string), "$T" the
 * newest task id mcpd gave this client ("$T1"-"$T3" the newest given
 * to the client in that slot, gone or not), "$V" the newest task id of a
 * 'Y' ("$V1" the one before, up to "$V9"), "$M" the newest task id mcpd
 * gave the server for a task a client runs, "$C" the nextCursor of the
 * last tasks/list page this client got, and
 * "$Z" 270 KiB of 'x', for large messages.  Client output counts against
 * the configured limits until 'F'; lines of one peer form a batch, and
 * clients that died in it are freed (detached) after it.
 *
 * Built with -DFUZZ_TRACE, it prints each event and the messages written
 * (cut at 400 bytes) on stderr.
 *
 * Invariants: no crash, leak or sanitizer report; every message written to
 * the server or a client is one strict JSON object (envelope_scan) that
 * cJSON parses too, on one line; request ids written to the server are
 * unique integers, cancellations name them, and replies to the server
 * answer requests it sent; every reply a client receives carries an id
 * that client sent and that was awaiting its answer (or null, for an
 * error about an unreadable line); progress and cancellations reach only
 * the client they belong to; nothing reaches a detached client; the roots
 * a client that is not an admin is given are each a configured root or
 * within member_roots, by the path they name; and when the server
 * finally goes away and time runs out, every request a client still
 * connected made has had exactly one answer, unless it cancelled it
 * (the task requests mcpd answers itself included).
 *
 * Tasks.  Every string a server line carries as a "taskId" (anywhere in
 * it) is the server's.  Where a client reads task ids -- result.task
 * of a tools/call's answer, result.taskId of tasks/get and tasks/cancel,
 * result.tasks[].taskId and nextCursor of tasks/list, params.taskId of
 * notifications/tasks/status, and _meta's related-task of any message --
 * a client finds only ids mcpd gave it in a CreateTaskResult, never the
 * server's (unless mcpd's by chance) and never one another client was
 * given; notifications/tasks/status goes to the task's owner alone.
 * tasks/get, tasks/result and tasks/cancel written to the server carry
 * just {"taskId": the server's id} of a task whose owner asked, once per
 * asking (or cancel a task mcpd refused as it was made); tasks/list never
 * goes up.  A client asking about a task it does not own (another's,
 * made up, the server's id, or its own after the session went down or it
 * was dropped) gets an error, and a -32602 one is byte for byte the same
 * (apart from the id) as every such answer to that method; an owner
 * asking about its task while mcpd must still hold it (session up, ttl
 * not over, not forgotten on the server's -32602 to tasks/get) is not
 * told -32602 by mcpd itself; a tasks/result sent up does not time out
 * before request_timeout_ms nor before its task's ttl is over.  Whenever
 * no client is attached, and at the end, mcpd's memory budget is back
 * to zero.
 */
#include "config.h"

#include <sys/uio.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "budget.h"
#include "clock.h"
#include "conf.h"
#include "envelope.h"
#include "fuzz.h"
#include "hmap.h"
#include "log.h"
#include "mcpd.h"
#include "proto.h"
#include "router.h"
#include "roots.h"
#include "rpc.h"
#include "tasktab.h"
#include "util.h"
#include "worker.h"
#include "xmalloc.h"

const char	*fuzz_target_name = "client";

#define FUZZ_SLOTS		3
#define FUZZ_STDIN_HIGH_BYTES	(5 * 1024 * 1024)	/* over the router's */
#define FUZZ_START_MS		1000000
#define FUZZ_MAX_STEP_MS	1000000000ULL
#define FUZZ_PAD_BYTES		(270 * 1024)	/* $Z: a large message */
#define FUZZ_MEMBER_UID		65534	/* a client that is not an admin */
#define FUZZ_ROOTS_ID_PREFIX	"mcpd-roots-"	/* router_roots.c's ids */
#define FUZZ_ROOTS_ID_BYTES	64	/* "$R" expands to less than this */
#define FUZZ_UP_TASK_PREFIX	"up-task-"	/* 'Y''s task ids */
#define FUZZ_MADE_UP_TASK	"0123456789abcdef0123456789abcdef"
#define FUZZ_TASK_ID_BYTES	80	/* "$T", "$V" expand to less */
#define FUZZ_RELATED_TASK	"io.modelcontextprotocol/related-task"
#define FUZZ_INIT_RESULT \
	"{\"protocolVersion\":\"" MCPD_MCP_VERSION "\",\"capabilities\":" \
	"{\"tools\":{\"listChanged\":true},\"resources\":{\"subscribe\":true}}," \
	"\"serverInfo\":{\"name\":\"fuzz\",\"version\":\"1\"}}"

/* Configuration variants: short timeouts, roots, no capabilities. */
static const char *fuzz_confs[] = {
	("{\"mcpServers\":{\"fuzz\":{\"command\":\"fuzz-server\","
	    "\"request_timeout_ms\":1000,\"init_timeout_ms\":500,"
	    "\"backoff_max_ms\":1000}}}"),
	("{\"mcpServers\":{\"fuzz\":{\"command\":\"fuzz-server\","
	    "\"request_timeout_ms\":1000,\"init_timeout_ms\":500,"
	    "\"backoff_max_ms\":1000,\"roots\":[\"/srv/a b\","
	    "\"file:///tmp/x%2Fy\",\"/\"]}}}"),
	("{\"mcpServers\":{\"fuzz\":{\"command\":\"fuzz-server\","
	    "\"client_capabilities\":[],\"request_timeout_ms\":1000}}}"),
	("{\"servers\":{\"fuzz\":{\"type\":\"stdio\","
	    "\"command\":\"x\"}}}"),
	("{\"mcpd\":{\"client_output_hard_bytes\":65536,"
	    "\"client_output_soft_bytes\":1000,\"client_output_soft_s\":1},"
	    "\"mcpServers\":{\"fuzz\":{\"command\":\"fuzz-server\","
	    "\"request_timeout_ms\":1000}}}"),
	("{\"mcpd\":{\"client_max_inflight\":3,\"client_max_held_bytes\":"
	    "300,\"client_max_subscriptions\":2,\"client_max_tasks\":2,"
	    "\"max_tasks_per_server\":3},"
	    "\"mcpServers\":{\"fuzz\":{\"command\":\"fuzz-server\","
	    "\"request_timeout_ms\":1000}}}"),
	/*
	 * Not shared globally: clients are asked for their roots, and
	 * those of a client that is not an admin are narrowed.
	 */
	("{\"mcpServers\":{\"fuzz\":{\"command\":\"fuzz-server\","
	    "\"share\":\"per-client\",\"roots\":[\"/w\"],"
	    "\"member_roots\":[\"/srv/a b\",\"file:///p/\"],"
	    "\"request_timeout_ms\":1000,\"init_timeout_ms\":500}}}"),
	("{\"mcpServers\":{\"fuzz\":{\"command\":\"fuzz-server\","
	    "\"share\":\"per-roots\",\"request_timeout_ms\":1000,"
	    "\"init_timeout_ms\":500}}}"),
};
#define FUZZ_NCONFS	nitems(fuzz_confs)

/* The filters a 'G' event picks from. */
static const char *fuzz_filter_conf =
	"{\"mcpServers\":{\"f\":{\"command\":\"x\","
	"\"tools\":{\"allow\":[\"a*\",\"echo\"],\"deny\":[\"ab\"]},"
	"\"prompts\":{\"deny\":[\"*secret*\"]},"
	"\"resources\":{\"allow\":[\"file:///*\"],"
	"\"deny\":[\"file:///etc/*\"]}}}}";

/* A multiset of JSON texts (ids, tokens). */
struct bag {
	char	**v;
	size_t	  n;
};

static void
bag_add(struct bag *b, const char *text)
{
	b->v = xreallocarray(b->v, b->n + 1, sizeof *b->v);
	b->v[b->n++] = xstrdup(text);
}

static int
bag_find(const struct bag *b, const char *text)
{
	size_t	 i;

	for (i = 0; i < b->n; i++) {
		if (strcmp(b->v[i], text) == 0)
			return ((int)i);
	}
	return (-1);
}

static int
bag_take(struct bag *b, const char *text)
{
	int	 i;

	if ((i = bag_find(b, text)) < 0)
		return (0);
	free(b->v[i]);
	b->v[i] = b->v[--b->n];
	return (1);
}

static void
bag_free(struct bag *b)
{
	size_t	 i;

	for (i = 0; i < b->n; i++)
		free(b->v[i]);
	free(b->v);
	b->v = NULL;
	b->n = 0;
}

/* What a client asked about tasks (or a tools/call), until answered. */
enum task_op {
	TOP_CALL,			/* tools/call without "task" */
	TOP_CREATE,			/* tools/call with "task" */
	TOP_GET,
	TOP_RESULT,
	TOP_CANCEL,
	TOP_LIST,
	TOP_COUNT
};

struct treq {
	char		*id;		/* JSON text */
	enum task_op	 op;
	size_t		 copies;	/* requests awaiting under this id */
	int		 unsure;	/* id reused, or mcpd reads it apart */
	int		 mcpd_task;	/* tools/call: mcpd reads "task" */
	char		*task;		/* taskId, or the cursor; NULL: none */
	int		 forwarded;	/* written to the server */
	uint64_t	 fwd_ms;
};

/* A task mcpd gave a client, as the harness saw it made. */
struct mtask {
	char		*id;		/* mcpd's */
	char		*up;		/* the server's, as mcpd read it */
	struct client	*owner;
	int		 dead;		/* mcpd surely forgot it */
	uint64_t	 expires_ms;	/* its ttl is over: may be forgotten */
};

/* The stand-in for a connection (daemon/client.c). */
struct client {
	int			 slot;
	uint64_t		 serial;
	struct attachment	*att;		/* NULL once detached */
	int			 detached;	/* router_detach was called */
	int			 dead;		/* client_lost: output dropped */
	int			 close_due;	/* detach after this event */
	int			 paused;
	int			 eof;
	struct bag		 awaiting;	/* ids awaiting an answer */
	struct bag		 cancelled;	/* ids it cancelled */
	struct bag		 tokens;	/* progress tokens it chose */
	struct bag		 downs;		/* server requests it got */
	long long		 last_down;
	char			*roots_id;	/* mcpd's roots/list, JSON */
	char			**held;		/* lines unread while paused */
	size_t			*held_len;
	size_t			 nheld;
	size_t			 queued;	/* output bytes not yet written */
	uint64_t		 soft_since_ms;
	void			**owned;	/* queued by reference */
	size_t			 nowned;
	struct treq		*treqs;		/* about tasks, tools/call */
	size_t			 ntreqs;
	char			*last_task;	/* "$T" */
	char			*cursor;	/* "$C" */
};

/* The stand-in for a worker (daemon/worker.c). */
struct worker {
	enum worker_avail	 avail;
	int			 was_ready;
	int			 transport_closed;
	int			 stdin_high;
	int64_t			 next_upstream_id;
	const struct conf_server *conf;
};

static struct {
	struct mcpd		 mcpd;
	struct worker		 worker;
	struct router		*router;
	struct conf		*filter_conf;	/* fuzz_filter_conf */
	struct conf		*conf;
	struct client		*slots[FUZZ_SLOTS];
	struct client		**clients;	/* all of this input's */
	size_t			 nclients;
	uint64_t		 now_ms;
	uint64_t		 now_us;
	int64_t			*upstream;	/* request ids, oldest first */
	size_t			 nupstream;
	struct bag		 server_asked;	/* server requests unanswered */
	struct bag		 down_ids;	/* every down id handed out */
	int			 in_session_down;
	char			*line_buf;	/* the stdout line being routed */
	size_t			 line_size;
	/* Tasks. */
	struct mtask		*mtasks;	/* ids mcpd gave, in order */
	size_t			 nmtasks;
	struct bag		 up_ids;	/* server lines' "taskId"s */
	struct bag		 up_made;	/* 'Y''s, oldest first ("$V") */
	char			*slot_task[FUZZ_SLOTS];	/* "$T1"-"$T3" */
	char			*canon[TOP_COUNT];	/* "not found" */
	cJSON			*cur_server;	/* the line routed, as mcpd */
	/* tasks/get mcpd sent for a tasks/list: upstream id, task. */
	struct {
		int64_t		 up;
		size_t		 task;		/* in mtasks */
	}			*refresh;
	char			*ctask;		/* "$M": a client's, mcpd's id */
	size_t			 nrefresh;
	int			 server_unparsed; /* cJSON refused it */
	unsigned int		 k_seq;		/* 'K' ids */
} F;

static char *
join_iov(const struct iovec *iov, int iovcnt, size_t *len)
{
	char	*text;
	size_t	 total = 0;
	int	 i;

	FUZZ_CHECK(iovcnt >= 1, "a message of %d pieces", iovcnt);
	for (i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	text = xmalloc(total + 1);
	*len = 0;
	for (i = 0; i < iovcnt; i++) {
		memcpy(text + *len, iov[i].iov_base, iov[i].iov_len);
		*len += iov[i].iov_len;
	}
	text[*len] = '\0';
	return (text);
}

/* One strict JSON object on one line, as cJSON sees it too. */
static cJSON *
parse_written(const char *text, size_t len, const char *to)
{
	struct envelope	 env;
	size_t		 erroff;
	cJSON		*json;

	FUZZ_CHECK(len > 0 && memchr(text, '\n', len) == NULL,
	    "message to %s is empty or holds a newline: %s", to, text);
	FUZZ_CHECK(envelope_scan(text, len, &env, &erroff) == 0,
	    "message to %s is not a strict JSON object (byte %zu): %s", to,
	    erroff, text);
	json = fuzz_json_parse(text, len);
	FUZZ_CHECK(cJSON_IsObject(json), "cJSON refuses the message to %s: %s",
	    to, text);
	return (json);
}

static char *
json_text_of(const cJSON *v)
{
	return (v != NULL ? fuzz_json_text(v) : NULL);
}

static int
is_upstream_id(const cJSON *id)
{
	size_t	 i;

	if (!cJSON_IsNumber(id))
		return (0);
	for (i = 0; i < F.nupstream; i++) {
		if ((double)F.upstream[i] == id->valuedouble)
			return (1);
	}
	return (0);
}

static int
is_integer(const cJSON *v)
{
	return (cJSON_IsNumber(v) && v->valuedouble >= 1 &&
	    v->valuedouble < 9007199254740992.0 &&
	    floor(v->valuedouble) == v->valuedouble);
}

/*
 * Tasks: the ids mcpd gave, what clients asked about them, the server's.
 */

static const char *task_op_names[TOP_COUNT] = {
	"tools/call", "tools/call", "tasks/get", "tasks/result",
	"tasks/cancel", "tasks/list"
};

static struct mtask *
mtask_find(const char *id)
{
	size_t	 i;

	for (i = F.nmtasks; i-- > 0;) {
		if (strcmp(F.mtasks[i].id, id) == 0)
			return (&F.mtasks[i]);
	}
	return (NULL);
}

/* The newest task behind the server's id up (ids are reused once gone). */
static struct mtask *
mtask_by_up(const char *up)
{
	size_t	 i;

	for (i = F.nmtasks; i-- > 0;) {
		if (F.mtasks[i].up != NULL && strcmp(F.mtasks[i].up, up) == 0)
			return (&F.mtasks[i]);
	}
	return (NULL);
}

static int
is_mcpd_task_id(const char *s)
{
	size_t	 i;

	for (i = 0; s[i] != '\0'; i++) {
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f')))
			return (0);
	}
	return (i == TASKTAB_ID_LEN);
}

/* Every "taskId" string anywhere in a server line is the server's. */
static void
note_up_ids(const cJSON *v)
{
	const cJSON	*item;

	if (v == NULL || !(cJSON_IsObject(v) || cJSON_IsArray(v)))
		return;
	for (item = v->child; item != NULL; item = item->next) {
		if (cJSON_IsObject(v) && item->string != NULL &&
		    strcmp(item->string, "taskId") == 0 &&
		    cJSON_IsString(item) &&
		    bag_find(&F.up_ids, item->valuestring) < 0)
			bag_add(&F.up_ids, item->valuestring);
		note_up_ids(item);
	}
}

/* _meta's related-task id of params or of a result. */
static cJSON *
related_task_id(const cJSON *obj)
{
	return (fuzz_json_member(fuzz_json_member(fuzz_json_member(obj,
	    "_meta"), FUZZ_RELATED_TASK), "taskId"));
}

static struct treq *
treq_find(const struct client *c, const char *idtext)
{
	size_t	 i;

	for (i = 0; i < c->ntreqs; i++) {
		if (strcmp(c->treqs[i].id, idtext) == 0)
			return (&c->treqs[i]);
	}
	return (NULL);
}

static void
treq_drop(struct client *c, struct treq *tr)
{
	size_t	 i = (size_t)(tr - c->treqs);

	free(tr->id);
	free(tr->task);
	memmove(c->treqs + i, c->treqs + i + 1,
	    (c->ntreqs - i - 1) * sizeof *c->treqs);
	c->ntreqs--;
}

/* A string of the same member as mcpd's cJSON reads it (NUL-cut). */
static const char *
raw_string(const cJSON *v)
{
	return (cJSON_IsString(v) ? v->valuestring : NULL);
}

/*
 * A request from c with id idtext (json as a client reads it): if it is
 * about tasks, or a tools/call, remember what it asked until answered.
 */
static void
task_note_request(struct client *c, const char *line, size_t len,
    const struct envelope *env, const cJSON *json, const char *idtext)
{
	static const char *methods[] = { "tools/call", "tools/call",
	    "tasks/get", "tasks/result", "tasks/cancel", "tasks/list" };
	struct treq	*tr;
	cJSON		*raw;
	const cJSON	*params, *rparams;
	const char	*mine, *theirs, *key;
	char		 method[64];
	size_t		 i, copies = 0;
	int		 op = -1;

	for (i = 0; i < c->awaiting.n; i++)
		copies += strcmp(c->awaiting.v[i], idtext) == 0;
	if ((tr = treq_find(c, idtext)) != NULL) {
		/* Answers under one id cannot be told apart. */
		tr->copies++;
		tr->unsure = 1;
		return;
	}
	if (envelope_string_copy(line, &env->method, method,
	    sizeof method) < 0)
		return;
	for (i = 1; i < TOP_COUNT; i++) {
		if (strcmp(method, methods[i]) == 0)
			op = (int)i;
	}
	if (op < 0)
		return;
	params = fuzz_json_member(json, "params");
	raw = cJSON_ParseWithLength(line, len);
	rparams = cJSON_GetObjectItemCaseSensitive(raw, "params");
	c->treqs = xreallocarray(c->treqs, c->ntreqs + 1, sizeof *c->treqs);
	tr = &c->treqs[c->ntreqs++];
	memset(tr, 0, sizeof *tr);
	tr->id = xstrdup(idtext);
	tr->copies = copies;
	tr->unsure = copies > 1;
	if (op == TOP_CREATE) {
		/* As a client means it, and as router_tasks.c reads it. */
		tr->op = cJSON_IsObject(fuzz_json_member(params, "task")) ?
		    TOP_CREATE : TOP_CALL;
		tr->mcpd_task = memmem(line, len, "\"task\"", 6) != NULL &&
		    cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(rparams,
		    "task"));
	} else {
		tr->op = (enum task_op)op;
		key = op == TOP_LIST ? "cursor" : "taskId";
		mine = raw_string(fuzz_json_member(params, key));
		theirs = raw_string(cJSON_GetObjectItemCaseSensitive(rparams,
		    key));
		if (mine != NULL && theirs != NULL &&
		    strcmp(mine, theirs) == 0)
			tr->task = xstrdup(mine);
		else if (mine != NULL || theirs != NULL || raw == NULL)
			tr->unsure = 1;	/* the client and mcpd disagree */
	}
	cJSON_Delete(raw);
}

/*
 * A task id where a client reads one: one mcpd gave this client, else
 * none of the server's.
 */
static void
task_id_at(const struct client *c, const cJSON *v, const char *where,
    const char *text)
{
	struct mtask	*t;

	if (!cJSON_IsString(v))
		return;
	if ((t = mtask_find(v->valuestring)) != NULL) {
		FUZZ_CHECK(t->owner == c, "client %d (serial %llu) got, as "
		    "%s, the id of a task made for client %d (serial %llu): "
		    "%s", c->slot + 1, (unsigned long long)c->serial, where,
		    t->owner->slot + 1, (unsigned long long)t->owner->serial,
		    text);
		return;
	}
	FUZZ_CHECK(bag_find(&F.up_ids, v->valuestring) < 0, "client "
	    "%d (serial %llu) got, as %s, the server's own task id: %s",
	    c->slot + 1, (unsigned long long)c->serial, where, text);
}

/*
 * Where a client reads task ids, in a message to c (tr: what it asked,
 * for a reply; NULL if unknown).
 */
static void
task_positions(const struct client *c, const cJSON *msg,
    const struct treq *tr, const char *text)
{
	const cJSON	*method, *params, *result, *v;
	struct mtask	*t;
	int		 op = tr != NULL && !tr->unsure ? (int)tr->op : -1;

	method = fuzz_json_member(msg, "method");
	params = fuzz_json_member(msg, "params");
	result = fuzz_json_member(msg, "result");
	if (cJSON_IsString(method)) {
		if (strcmp(method->valuestring,
		    "notifications/tasks/status") == 0) {
			v = fuzz_json_member(params, "taskId");
			t = cJSON_IsString(v) ? mtask_find(v->valuestring) :
			    NULL;
			FUZZ_CHECK(t != NULL && t->owner == c, "client %d "
			    "(serial %llu) got the status of a task mcpd did "
			    "not make for it: %s", c->slot + 1,
			    (unsigned long long)c->serial, text);
		}
		task_id_at(c, related_task_id(params),
		    "params._meta related-task", text);
		return;
	}
	if (!cJSON_IsObject(result))
		return;
	switch (op) {
	case TOP_CALL:
	case TOP_CREATE:
		task_id_at(c, fuzz_json_member(fuzz_json_member(result, "task"),
		    "taskId"), "result.task.taskId of tools/call", text);
		break;
	case TOP_GET:
	case TOP_CANCEL:
		task_id_at(c, fuzz_json_member(result, "taskId"),
		    "result.taskId", text);
		break;
	case TOP_LIST:
		cJSON_ArrayForEach(v, fuzz_json_member(result, "tasks"))
			task_id_at(c, fuzz_json_member(v, "taskId"),
			    "result.tasks[].taskId", text);
		task_id_at(c, fuzz_json_member(result, "nextCursor"),
		    "result.nextCursor of tasks/list", text);
		break;
	default:
		break;
	}
	task_id_at(c, related_task_id(result), "result._meta related-task",
	    text);
}

/* result.task.key of the server's line being routed, as mcpd reads it. */
static const cJSON *
server_task_member(const char *key)
{
	return (cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
	    F.cur_server, "result"), "task"), key));
}

/* A CreateTaskResult with an id unknown so far: mcpd's, for c. */
static void
task_made(struct client *c, const cJSON *result, const char *text)
{
	const cJSON	*v, *ttl, *up;
	struct mtask	*t;
	uint64_t	 ttl_ms = TASKTAB_TTL_MAX_MS;

	v = fuzz_json_member(fuzz_json_member(result, "task"), "taskId");
	if (!cJSON_IsString(v) || mtask_find(v->valuestring) != NULL ||
	    bag_find(&F.up_ids, v->valuestring) >= 0)
		return;
	FUZZ_CHECK(is_mcpd_task_id(v->valuestring), "client %d got a task "
	    "id that is neither the server's nor one of mcpd's: %s",
	    c->slot + 1, text);
	/* Made from the server's answer, as router_tasks.c reads it. */
	FUZZ_CHECK(F.cur_server != NULL, "a task id made with no server "
	    "line in sight: %s", text);
	up = server_task_member("taskId");
	FUZZ_CHECK(cJSON_IsString(up), "mcpd made task %s from a server "
	    "line without result.task.taskId: %s", v->valuestring, text);
	ttl = server_task_member("ttl");
	if (cJSON_IsNumber(ttl) && ttl->valuedouble >= 0 &&
	    ttl->valuedouble < (double)TASKTAB_TTL_MAX_MS)
		ttl_ms = (uint64_t)ttl->valuedouble;
	F.mtasks = xreallocarray(F.mtasks, F.nmtasks + 1, sizeof *F.mtasks);
	t = &F.mtasks[F.nmtasks++];
	memset(t, 0, sizeof *t);
	t->id = xstrdup(v->valuestring);
	t->up = xstrdup(up->valuestring);
	t->owner = c;
	t->expires_ms = F.now_ms + ttl_ms;
	free(c->last_task);
	c->last_task = xstrdup(t->id);
	free(F.slot_task[c->slot]);
	F.slot_task[c->slot] = xstrdup(t->id);
}

/*
 * The error mcpd gives for a task the asker does not own (or that never
 * was): one text a method, whatever the id.
 */
static void
task_canon(const struct client *c, enum task_op op, const char *text,
    size_t len)
{
	struct envelope	 env;
	size_t		 erroff;
	char		*key;

	FUZZ_CHECK(envelope_scan(text, len, &env, &erroff) == 0 &&
	    env.id.type != ENVELOPE_ABSENT, "no id in %s", text);
	key = xmalloc(len + 1);
	memcpy(key, text, env.id.off);
	memcpy(key + env.id.off, text + env.id.off + env.id.len,
	    len - env.id.off - env.id.len);
	key[len - env.id.len] = '\0';
	if (F.canon[op] == NULL) {
		F.canon[op] = key;
		return;
	}
	FUZZ_CHECK(strcmp(F.canon[op], key) == 0, "client %d asked %s about "
	    "a task it may not see and got %s, where another such request "
	    "got (apart from the id) %s", c->slot + 1, task_op_names[op], text,
	    F.canon[op]);
	free(key);
}

/* What c was answered to a request about a task. */
static void
task_answer(struct client *c, struct treq *tr, const cJSON *result,
    const cJSON *error, const char *text, size_t len)
{
	const struct conf_server *cs = F.worker.conf;
	struct mtask	*t;
	const cJSON	*code;
	uint64_t	 deadline;
	int		 gone;

	if (tr->op < TOP_GET || tr->task == NULL)
		return;
	code = fuzz_json_member(error, "code");
	t = mtask_find(tr->task);
	gone = t == NULL || t->owner != c || t->dead;
	if (gone && !tr->forwarded) {
		FUZZ_CHECK(error != NULL, "client %d asked %s about a task "
		    "that is not its own, or gone, and got a result: %s",
		    c->slot + 1, task_op_names[tr->op], text);
		if (cJSON_IsNumber(code) &&
		    code->valuedouble == RPC_INVALID_PARAMS)
			task_canon(c, tr->op, text, len);
		return;
	}
	if (gone)
		return;
	if (!tr->forwarded && cJSON_IsNumber(code) &&
	    code->valuedouble == RPC_INVALID_PARAMS)
		FUZZ_CHECK(F.now_ms >= t->expires_ms, "client %d asked %s "
		    "about its task %s, which mcpd must still hold (%llu ms "
		    "to live), and mcpd said it knows no such task: %s",
		    c->slot + 1, task_op_names[tr->op], t->id,
		    (unsigned long long)(t->expires_ms - F.now_ms), text);
	/* The server forgot it: so did mcpd (if it could read that). */
	if (tr->forwarded && tr->op == TOP_GET && cJSON_IsNumber(code) &&
	    code->valuedouble == RPC_INVALID_PARAMS && !F.server_unparsed)
		t->dead = 1;
	if (tr->forwarded && tr->op == TOP_RESULT && cJSON_IsNumber(code) &&
	    code->valuedouble == RPC_REQUEST_TIMEOUT) {
		deadline = tr->fwd_ms + cs->request_timeout_ms;
		if (t->expires_ms > deadline)
			deadline = t->expires_ms;
		FUZZ_CHECK(F.now_ms >= deadline, "tasks/result of client %d "
		    "timed out %llu ms after it was sent, before its task's "
		    "time was over (%llu ms more): %s", c->slot + 1,
		    (unsigned long long)(F.now_ms - tr->fwd_ms),
		    (unsigned long long)(deadline - F.now_ms), text);
	}
}

/* A reply c received: under idtext, awaited (checked already). */
static void
task_reply(struct client *c, const char *idtext, const cJSON *msg,
    const char *text, size_t len)
{
	struct treq	*tr = treq_find(c, idtext);
	const cJSON	*result = fuzz_json_member(msg, "result");

	if (tr == NULL) {
		task_positions(c, msg, NULL, text);
		return;
	}
	if (tr->op <= TOP_CREATE)
		task_made(c, result, text);
	if (tr->op == TOP_LIST && !tr->unsure && cJSON_IsString(
	    fuzz_json_member(result, "nextCursor"))) {
		free(c->cursor);
		c->cursor = xstrdup(fuzz_json_member(result,
		    "nextCursor")->valuestring);
	}
	task_positions(c, msg, tr, text);
	if (!tr->unsure)
		task_answer(c, tr, result, fuzz_json_member(msg, "error"),
		    text, len);
	if (--tr->copies == 0)
		treq_drop(c, tr);
}

/*
 * tasks/get, tasks/result or tasks/cancel written to the server: for one
 * of its own tasks mcpd holds, its owner asking.
 */
/* A tasks/list of o's in flight, whose page mcpd may ask statuses for. */
static int
lists_awaiting(const struct client *o)
{
	size_t	 i;

	for (i = 0; i < o->ntreqs; i++) {
		if (o->treqs[i].op == TOP_LIST)
			return (1);
	}
	return (0);
}

static void
task_sent_up(const char *method, const cJSON *params, const cJSON *id,
    const char *text)
{
	const cJSON	*v, *made;
	struct mtask	*t;
	struct treq	*tr, *unsure = NULL;
	struct client	*o;
	size_t		 i;
	int		 op;

	for (op = TOP_GET; op < TOP_LIST; op++) {
		if (strcmp(method, task_op_names[op]) == 0)
			break;
	}
	if (op == TOP_LIST)
		return;
	v = fuzz_json_member(params, "taskId");
	FUZZ_CHECK(cJSON_IsString(v) && cJSON_GetArraySize(params) == 1,
	    "%s to the server with params other than {\"taskId\": string}: "
	    "%s", method, text);
	/* router_task_created: a task it could not keep, let go. */
	made = server_task_member("taskId");
	if (op == TOP_CANCEL && cJSON_IsString(made) &&
	    strcmp(made->valuestring, v->valuestring) == 0)
		return;
	t = mtask_by_up(v->valuestring);
	FUZZ_CHECK(t != NULL, "%s written to the server for %s, no task of "
	    "its own that mcpd gave a client: %s", method, v->valuestring,
	    text);
	FUZZ_CHECK(!t->dead, "%s of task %s written to the server after "
	    "mcpd dropped the task: %s", method, t->id, text);
	o = t->owner;
	for (i = 0; i < o->ntreqs; i++) {
		tr = &o->treqs[i];
		if (tr->op != (enum task_op)op || tr->forwarded)
			continue;
		if (tr->task != NULL && strcmp(tr->task, t->id) == 0)
			break;
		if (tr->unsure && unsure == NULL)
			unsure = tr;
	}
	tr = i < o->ntreqs ? &o->treqs[i] : unsure;
	/* router_task_list_next: a status asked for a tasks/list. */
	if (tr == NULL && op == TOP_GET && lists_awaiting(o)) {
		F.refresh = xreallocarray(F.refresh, F.nrefresh + 1,
		    sizeof *F.refresh);
		F.refresh[F.nrefresh].up = (int64_t)id->valuedouble;
		F.refresh[F.nrefresh++].task = (size_t)(t - F.mtasks);
		return;
	}
	FUZZ_CHECK(tr != NULL, "%s of client %d's task %s written to the "
	    "server, which that client did not ask (or not so often): %s",
	    method, o->slot + 1, t->id, text);
	tr->forwarded = 1;
	tr->fwd_ms = F.now_ms;
}

/* mcpd forgets the tasks of a client that went (its own principal). */
static void
tasks_of_gone(const struct client *c)
{
	size_t	 i;

	for (i = 0; i < F.nmtasks; i++) {
		if (c == NULL || F.mtasks[i].owner == c)
			F.mtasks[i].dead = 1;
	}
}

/*
 * The server answers a tasks/get mcpd sent for a tasks/list: -32602, and
 * mcpd forgets the task (router_task_refreshed).
 */
static void
refresh_answered(const cJSON *msg, const char *line, size_t len)
{
	const cJSON	*id, *code;
	struct envelope	 env;
	size_t		 i, erroff;

	/* Only a line the router takes for a reply (router_server_line). */
	if (envelope_scan(line, len, &env, &erroff) != 0 ||
	    env.method.type != ENVELOPE_ABSENT ||
	    (env.error.type == ENVELOPE_ABSENT) ==
	    (env.result.type == ENVELOPE_ABSENT))
		return;
	id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	if (!cJSON_IsNumber(id) ||
	    cJSON_GetObjectItemCaseSensitive(msg, "method") != NULL)
		return;
	code = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(msg, "error"), "code");
	for (i = 0; i < F.nrefresh; i++) {
		if (F.refresh[i].up != (int64_t)id->valuedouble)
			continue;
		if (cJSON_IsNumber(code) &&
		    code->valuedouble == RPC_INVALID_PARAMS)
			F.mtasks[F.refresh[i].task].dead = 1;
		F.refresh[i] = F.refresh[--F.nrefresh];
		return;
	}
}

/*
 * A tasks/get of a tasks/list's that mcpd cancelled (it timed out): its
 * answer, late, is dropped as any late reply, and the task kept.
 */
static void
refresh_cancelled(const cJSON *id)
{
	size_t	 i;

	if (!cJSON_IsNumber(id))
		return;
	for (i = 0; i < F.nrefresh; i++) {
		if (F.refresh[i].up == (int64_t)id->valuedouble) {
			F.refresh[i] = F.refresh[--F.nrefresh];
			return;
		}
	}
}

/*
 * A reply to the server naming a task a client runs for it under an id
 * of mcpd's: "$M" from now on.
 */
static void
ctask_told(const cJSON *msg)
{
	const cJSON	*v;

	v = fuzz_json_member(fuzz_json_member(fuzz_json_member(msg, "result"),
	    "task"), "taskId");
	if (!cJSON_IsString(v) || !is_mcpd_task_id(v->valuestring))
		return;
	free(F.ctask);
	F.ctask = xstrdup(v->valuestring);
}

/* A message the router wrote to the server. */
static void
server_receives(const char *text, size_t len)
{
	cJSON	*msg, *method, *id, *params;
	char	*idtext;

#ifdef FUZZ_TRACE
	fprintf(stderr, "  -> server: %.*s\n", (int)(len > 400 ? 400 : len),
	    text);
#endif
	msg = parse_written(text, len, "the server");
	method = fuzz_json_member(msg, "method");
	id = fuzz_json_member(msg, "id");
	params = fuzz_json_member(msg, "params");
	FUZZ_CHECK(method == NULL || cJSON_IsString(method),
	    "message to the server with a non-string method: %s", text);
	if (method != NULL && id != NULL) {
		FUZZ_CHECK(is_integer(id), "request to the server with id "
		    "other than a positive integer: %s", text);
		FUZZ_CHECK(!is_upstream_id(id), "upstream id used twice: %s",
		    text);
		FUZZ_CHECK(!F.worker.transport_closed || !F.in_session_down,
		    "request forwarded to the exited server while the session "
		    "was going down (no answer until it times out): %s", text);
		F.upstream = xreallocarray(F.upstream, F.nupstream + 1,
		    sizeof *F.upstream);
		F.upstream[F.nupstream++] = (int64_t)id->valuedouble;
		FUZZ_CHECK(strcmp(method->valuestring, "tasks/list") != 0,
		    "tasks/list written to the server (mcpd answers it from "
		    "the asker's tasks): %s", text);
		task_sent_up(method->valuestring, params, id, text);
	} else if (method != NULL) {
		if (strcmp(method->valuestring,
		    "notifications/cancelled") == 0) {
			FUZZ_CHECK(is_upstream_id(fuzz_json_member(params,
			    "requestId")), "cancellation of a request the server "
			    "never got: %s", text);
			refresh_cancelled(fuzz_json_member(params,
			    "requestId"));
		}
	} else {
		FUZZ_CHECK(id != NULL, "reply to the server without id: %s",
		    text);
		idtext = fuzz_json_text(id);
		FUZZ_CHECK(bag_take(&F.server_asked, idtext), "reply to the "
		    "server for id %s, which it did not ask or was answered: %s",
		    idtext, text);
		free(idtext);
		ctask_told(msg);
	}
	cJSON_Delete(msg);
}

/* A message the router wrote to a client. */
static void
client_receives(struct client *c, const char *text, size_t len)
{
	cJSON	*msg, *method, *id, *params, *v;
	char	*idtext, *vtext;

	FUZZ_CHECK(!c->detached, "message for client %d after it was "
	    "detached: %s", c->slot + 1, text);
	if (c->dead)
		return;		/* peer_queue drops it */
#ifdef FUZZ_TRACE
	fprintf(stderr, "  -> client %d: %.*s\n", c->slot + 1,
	    (int)(len > 400 ? 400 : len), text);
#endif
	msg = parse_written(text, len, "a client");
	method = fuzz_json_member(msg, "method");
	id = fuzz_json_member(msg, "id");
	params = fuzz_json_member(msg, "params");
	idtext = json_text_of(id);
	if (method != NULL) {
		FUZZ_CHECK(cJSON_IsString(method), "message to a client with "
		    "a non-string method: %s", text);
		task_positions(c, msg, NULL, text);
		if (id != NULL && cJSON_IsString(id) &&
		    strcmp(method->valuestring, "roots/list") == 0 &&
		    strncmp(id->valuestring, FUZZ_ROOTS_ID_PREFIX,
		    strlen(FUZZ_ROOTS_ID_PREFIX)) == 0) {
			/* mcpd's own question (router_roots.c). */
			free(c->roots_id);
			c->roots_id = xstrdup(idtext);
		} else if (id != NULL) {
			/* A server request, under an id of mcpd's. */
			FUZZ_CHECK(is_integer(id), "server request to a client "
			    "with id other than a positive integer: %s", text);
			FUZZ_CHECK(bag_find(&F.down_ids, idtext) < 0,
			    "server request id %s handed out twice", idtext);
			bag_add(&F.down_ids, idtext);
			bag_add(&c->downs, idtext);
			c->last_down = (long long)id->valuedouble;
		} else if (strcmp(method->valuestring,
		    "notifications/cancelled") == 0) {
			v = fuzz_json_member(params, "requestId");
			vtext = json_text_of(v);
			FUZZ_CHECK(vtext != NULL && bag_find(&c->downs,
			    vtext) >= 0, "client %d told of the cancellation "
			    "of a request it never got: %s", c->slot + 1, text);
			free(vtext);
		} else if (strcmp(method->valuestring,
		    "notifications/progress") == 0) {
			v = fuzz_json_member(params, "progressToken");
			vtext = json_text_of(v);
			FUZZ_CHECK(vtext != NULL && bag_find(&c->tokens,
			    vtext) >= 0, "client %d got progress for a token it "
			    "never chose: %s", c->slot + 1, text);
			free(vtext);
		}
	} else {
		FUZZ_CHECK(id != NULL, "reply to a client without id: %s",
		    text);
		FUZZ_CHECK((fuzz_json_member(msg, "result") != NULL) !=
		    (fuzz_json_member(msg, "error") != NULL),
		    "reply to a client with neither or both of result and "
		    "error: %s", text);
		if (cJSON_IsNull(id))
			FUZZ_CHECK(fuzz_json_member(msg, "error") != NULL,
			    "result with a null id: %s", text);
		else {
			FUZZ_CHECK(bag_take(&c->awaiting, idtext), "client %d "
			    "got a reply for id %s, which it did not send or "
			    "which was already answered: %s", c->slot + 1,
			    idtext, text);
			task_reply(c, idtext, msg, text, len);
		}
	}
	free(idtext);
	cJSON_Delete(msg);
}

/*
 * Stand-ins for the daemon around the router.  A fuzz target cannot run
 * child processes or accept connections, so worker.c's and client.c's
 * tables are filled with these models, control.c's line is answered by
 * control_stand_in.
 */

/*
 * The simulated clock (clock.c reads it): a little time passes between
 * readings, never a whole millisecond.
 */
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

static const char *
fuzz_worker_name(const struct worker *w)
{
	return ("fuzz");
}

static const struct conf_server *
fuzz_worker_conf(const struct worker *w)
{
	return (w->conf);
}

static int64_t
fuzz_worker_next_upstream_id(struct worker *w)
{
	return (w->next_upstream_id++);
}

static const char *
fuzz_worker_init_result_text(const struct worker *w)
{
	return (FUZZ_INIT_RESULT);
}

static int
fuzz_worker_has_init(const struct worker *w)
{
	return (1);
}

static int
fuzz_worker_is_template(const struct worker *w)
{
	return (0);
}

/*
 * The configured roots, as worker.c gives a server shared globally, or
 * the last client's (an instance's, as instance.c sets them).
 */
static struct roots	 fuzz_roots;
static const struct conf_server *fuzz_roots_conf;

static const struct roots *
fuzz_worker_roots(const struct worker *w)
{
	if (fuzz_roots_conf != w->conf) {
		roots_free(&fuzz_roots);
		roots_from_uris(&fuzz_roots, w->conf->roots, w->conf->nroots);
		fuzz_roots_conf = w->conf;
	}
	return (&fuzz_roots);
}

static void
fuzz_worker_unused(struct worker *w)
{
}

/*
 * A client that is not an admin has only roots that are configured ones
 * or lie within member_roots, by the paths they name.
 */
static void
check_member_roots(const struct conf_server *cs, const struct roots *roots)
{
	cJSON		*list;
	const cJSON	*uri;
	const char	*why;
	char		*path, *base;
	size_t		 i;
	int		 ok;

	list = roots_uris_json(roots);
	cJSON_ArrayForEach(uri, list) {
		path = roots_uri_path(uri->valuestring, &why);
		FUZZ_CHECK(path != NULL, "a member given %s (%s)",
		    uri->valuestring, why);
		ok = 0;
		for (i = 0; i < cs->nroots && !ok; i++) {
			if ((base = roots_uri_path(cs->roots[i], &why)) != NULL)
				ok = strcmp(base, path) == 0;
			free(base);
		}
		for (i = 0; i < cs->nmember_roots && !ok; i++) {
			if ((base = roots_uri_path(cs->member_roots[i],
			    &why)) != NULL)
				ok = roots_path_within(path, base);
			free(base);
		}
		FUZZ_CHECK(ok, "a member given %s, outside what it may have",
		    uri->valuestring);
		free(path);
	}
	cJSON_Delete(list);
}

static void
fuzz_client_roots(struct attachment *a, const struct roots *roots)
{
	if (router_attachment_uid(a) != 0)
		check_member_roots(fuzz_worker_conf(
		    router_attachment_worker(a)), roots);
	(void)fuzz_worker_roots(router_attachment_worker(a));
	roots_free(&fuzz_roots);
	roots_copy(&fuzz_roots, roots);
	router_roots_known(F.router);
	router_roots_settled(a);
}

static enum worker_avail
fuzz_worker_availability(const struct worker *w)
{
	/* As worker.c: not ready once the transport is gone. */
	if (w->avail == WORKER_AVAIL_READY && w->transport_closed)
		return (WORKER_AVAIL_WAIT);
	return (w->avail);
}

static char *
fuzz_worker_unavailable_reason(const struct worker *w)
{
	return (xstrdup("server fuzz is stopped (fuzz)"));
}

static int
fuzz_worker_unavailable_code(const struct worker *w)
{
	return (MCPD_ERR_SERVER_UNAVAILABLE);
}

static uint32_t
fuzz_worker_start_limit(const struct worker *w, const char **setting)
{
	*setting = "init_timeout_ms";
	return (fuzz_worker_conf(w)->init_timeout_ms);
}

static int
fuzz_worker_write(struct worker *w, const struct iovec *iov, int iovcnt)
{
	char	*text;
	size_t	 len;

	text = join_iov(iov, iovcnt, &len);
	server_receives(text, len);
	free(text);
	return (w->transport_closed ? -1 : 0);
}

/* One edit applied, as the transport's queue copies it. */
static int
fuzz_worker_write_edit(struct worker *w, const char *line, size_t len,
    const struct envelope_edit *edit)
{
	struct iovec	 iov[ENVELOPE_SPLICE_IOV(1)];
	size_t		 n;

	n = envelope_splice(line, len, edit, 1, iov, nitems(iov));
	FUZZ_CHECK(n != 0, "an edit the router checked cannot be spliced");
	return (fuzz_worker_write(w, iov, (int)n));
}

static size_t
fuzz_worker_stdin_queued(const struct worker *w)
{
	return (w->stdin_high ? FUZZ_STDIN_HIGH_BYTES : 0);
}

/* worker.c: the buffer of the stdout line being routed, taken once. */
static char *
fuzz_worker_steal_line(struct worker *w, const char *line, size_t *size)
{
	char	*buf = F.line_buf;

	if (buf == NULL || line != buf)
		return (NULL);
	F.line_buf = NULL;
	*size = F.line_size;
	return (buf);
}

static void
fuzz_worker_dropped_line(struct worker *w, const char *line, size_t len,
    size_t error_off)
{
	FUZZ_CHECK(error_off <= len, "error offset %zu past a line of %zu",
	    error_off, len);
}

/* The worker only counts them (and ends itself later, from its timer). */
static void
fuzz_worker_request_timed_out(struct worker *w)
{
}

/* The worker starts an idle server later, from an event of its own. */
static void
fuzz_worker_wanted(struct worker *w, const char *why)
{
}

/* The worker ends itself later, from an event of its own. */
static void __attribute__((format(printf, 2, 3)))
fuzz_worker_broken(struct worker *w, const char *fmt, ...)
{
	va_list	 ap;
	char	 buf[1024];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
}

static void __attribute__((format(printf, 3, 4)))
fuzz_worker_violation(struct worker *w, const char *kind, const char *fmt,
    ...)
{
	va_list	 ap;
	char	 buf[1024];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
}

/* client_check_limits: over the hard limit, or the soft one too long. */
static void
client_limits(struct client *c)
{
	const struct conf	*conf = F.conf;

	if (c->queued > conf->client_output_hard_bytes)
		goto kill;
	if (conf->client_output_soft_bytes == 0 ||
	    c->queued <= conf->client_output_soft_bytes) {
		c->soft_since_ms = 0;
		return;
	}
	if (c->soft_since_ms == 0) {
		c->soft_since_ms = F.now_ms;
		return;
	}
	if (F.now_ms - c->soft_since_ms <
	    (uint64_t)conf->client_output_soft_s * 1000)
		return;
kill:
	c->dead = 1;		/* client_lost: freed from a deferred event */
	c->close_due = 1;
}

static void
peer_queue(void *arg, const struct iovec *iov, int iovcnt)
{
	struct client	*c = arg;
	char	*text;
	size_t	 len;

	text = join_iov(iov, iovcnt, &len);
	client_receives(c, text, len);
	free(text);
	if (c->dead)
		return;
	c->queued += len + 1;
	client_limits(c);
}

/* One edit applied, as the client's queue copies it. */
static void
peer_queue_edit(void *arg, const char *line, size_t len,
    const struct envelope_edit *edit)
{
	struct client	*c = arg;
	struct iovec	 iov[ENVELOPE_SPLICE_IOV(1)];
	size_t		 n;

	n = envelope_splice(line, len, edit, 1, iov, nitems(iov));
	FUZZ_CHECK(n != 0, "an edit the router checked cannot be spliced");
	peer_queue(c, iov, (int)n);
}

/* Pieces inside mem are queued by reference: mem lives until written. */
static void
peer_queue_owned(void *arg, const struct iovec *iov, int iovcnt,
    void *mem, size_t size)
{
	struct client	*c = arg;
	FUZZ_CHECK(!c->detached, "message for client %d after it was "
	    "detached", c->slot + 1);
	if (c->dead) {
		free(mem);
		return;
	}
	peer_queue(c, iov, iovcnt);
	c->owned = xreallocarray(c->owned, c->nowned + 1, sizeof *c->owned);
	c->owned[c->nowned++] = mem;
}

/* Output written: the queue empties, references are released. */
static void
client_flushed(struct client *c)
{
	size_t	 i;

	for (i = 0; i < c->nowned; i++)
		free(c->owned[i]);
	free(c->owned);
	c->owned = NULL;
	c->nowned = 0;
	c->queued = 0;
	c->soft_since_ms = 0;
}

static void	client_deliver(struct client *, const char *, size_t);

static void
fuzz_client_pause(struct client *c)
{
	FUZZ_CHECK(!c->detached, "pausing a detached client");
	if (c->dead)
		return;
	c->paused = 1;
}

/* As client.c does: lines already read are handed on at once. */
static void
fuzz_client_resume(struct client *c)
{
	char	*line;
	size_t	 len;

	FUZZ_CHECK(!c->detached, "resuming a detached client");
	if (c->dead || !c->paused)
		return;
	c->paused = 0;
	while (c->nheld > 0 && !c->paused && !c->dead && !c->detached) {
		line = c->held[0];
		len = c->held_len[0];
		c->nheld--;
		memmove(c->held, c->held + 1, c->nheld * sizeof *c->held);
		memmove(c->held_len, c->held_len + 1,
		    c->nheld * sizeof *c->held_len);
		client_deliver(c, line, len);
		free(line);
	}
}

/* client_maybe_close: a half-closed client goes once nothing is pending. */
static void
peer_idle(void *arg)
{
	struct client	*c = arg;
	if (c->eof && !c->dead) {
		c->dead = 1;
		c->close_due = 1;	/* freed from a deferred event */
	}
}

static void
peer_detached(void *arg, const char *reason)
{
	struct client	*c = arg;
	c->att = NULL;
	c->dead = 1;
	tasks_of_gone(c);
}

static uint64_t
peer_serial(const void *arg)
{
	const struct client	*c = arg;
	return (c->serial);
}

static pid_t
peer_pid(const void *arg)
{
	const struct client	*c = arg;
	return ((pid_t)(1000 + c->serial));
}

/* Every other client is not an admin (a member of socket_group). */
static uid_t
peer_uid(const void *arg)
{
	const struct client	*c = arg;
	return (c->serial % 2 == 0 ? FUZZ_MEMBER_UID : 0);
}

static int
peer_is_admin(const void *arg)
{
	const struct client	*c = arg;
	return (peer_uid(c) == 0);
}

/*
 * What client.c does with a line the router hands back: control_line.
 * It must be a request (an id) for an mcpd/ method; it gets a result.
 */
static void
control_stand_in(struct client *c, const char *line, size_t len)
{
	struct envelope	 env;
	struct iovec	 iov;
	cJSON		*msg, *id;
	char		*text, method[256];
	size_t		 erroff;

	FUZZ_CHECK(envelope_scan(line, len, &env, &erroff) == 0,
	    "the router handed back a line that does not scan");
	FUZZ_CHECK(rpc_envelope_has_id(&env), "the router handed back a "
	    "message without an id");
	FUZZ_CHECK(envelope_string_copy(line, &env.method, method,
	    sizeof method) >= 0 && strncmp(method, MCPD_METHOD_PREFIX,
	    strlen(MCPD_METHOD_PREFIX)) == 0, "the router handed back a "
	    "method that is not mcpd's");
	id = rpc_id_raw(line, &env.id);
	msg = rpc_make_result(id, NULL);
	cJSON_Delete(id);
	text = rpc_print(msg);
	cJSON_Delete(msg);
	iov.iov_base = text;
	iov.iov_len = strlen(text);
	peer_queue(c, &iov, 1);
	free(text);
}

/* What log.c is given: every field named; no message the router drops. */
static void
fuzz_log(int priority, const char *message_id,
    const struct log_field *fields, size_t nfields, const char *text)
{
	size_t	 i;

	for (i = 0; i < nfields; i++)
		FUZZ_CHECK(fields[i].name != NULL, "log field without a name");
	FUZZ_CHECK(strncmp(text, "fuzz: cannot rewrite", 20) != 0,
	    "router: %s", text);
}

/* What router.h asks of the stand-ins: the worker's and a client's tables. */
static const struct router_upstream fuzz_upstream = {
	.name = fuzz_worker_name,
	.conf = fuzz_worker_conf,
	.availability = fuzz_worker_availability,
	.unavailable_reason = fuzz_worker_unavailable_reason,
	.unavailable_code = fuzz_worker_unavailable_code,
	.start_limit = fuzz_worker_start_limit,
	.init_result_text = fuzz_worker_init_result_text,
	.has_init = fuzz_worker_has_init,
	.is_template = fuzz_worker_is_template,
	.roots = fuzz_worker_roots,
	.next_upstream_id = fuzz_worker_next_upstream_id,
	.write = fuzz_worker_write,
	.write_edit = fuzz_worker_write_edit,
	.stdin_queued = fuzz_worker_stdin_queued,
	.steal_line = fuzz_worker_steal_line,
	.dropped_line = fuzz_worker_dropped_line,
	.request_timed_out = fuzz_worker_request_timed_out,
	.broken = fuzz_worker_broken,
	.violation = fuzz_worker_violation,
	.wanted = fuzz_worker_wanted,
	.unused = fuzz_worker_unused,
	.client_roots = fuzz_client_roots,
};

static void
peer_pause(void *arg, int pause)
{
	if (pause)
		fuzz_client_pause(arg);
	else
		fuzz_client_resume(arg);
}

static const struct router_peer fuzz_peer = {
	.queue = peer_queue,
	.queue_edit = peer_queue_edit,
	.queue_owned = peer_queue_owned,
	.pause = peer_pause,
	.idle = peer_idle,
	.detached = peer_detached,
	.pid = peer_pid,
	.uid = peer_uid,
	.serial = peer_serial,
	.principal = peer_serial,
	.is_admin = peer_is_admin,
};

/*
 * The harness.
 */

static struct client *
client_new(int slot)
{
	struct client	*c;

	c = xcalloc(1, sizeof *c);
	c->slot = slot;
	c->serial = F.nclients + 1;
	F.clients = xreallocarray(F.clients, F.nclients + 1,
	    sizeof *F.clients);
	F.clients[F.nclients++] = c;
	F.slots[slot] = c;
	c->att = router_attach(F.router, &fuzz_peer, c);
	return (c);
}

static void
client_free(struct client *c)
{
	size_t	 i;

	bag_free(&c->awaiting);
	bag_free(&c->cancelled);
	bag_free(&c->tokens);
	bag_free(&c->downs);
	free(c->roots_id);
	for (i = 0; i < c->ntreqs; i++) {
		free(c->treqs[i].id);
		free(c->treqs[i].task);
	}
	free(c->treqs);
	free(c->last_task);
	free(c->cursor);
	for (i = 0; i < c->nheld; i++)
		free(c->held[i]);
	free(c->held);
	free(c->held_len);
	client_flushed(c);
	free(c);
}

static void
client_detach(struct client *c, const char *reason)
{
	struct attachment	*a = c->att;

	if (a == NULL)
		return;
	c->att = NULL;
	c->dead = 1;
	router_detach(a, reason);
	c->detached = 1;
	tasks_of_gone(c);
	client_flushed(c);	/* client_free_cb frees its output */
	if (F.slots[c->slot] == c)
		F.slots[c->slot] = NULL;
}

/* Deferred frees (client_free_cb) run between events. */
static void
run_deferred(void)
{
	size_t	 i;

	for (i = 0; i < F.nclients; i++) {
		if (F.clients[i]->close_due) {
			F.clients[i]->close_due = 0;
			client_detach(F.clients[i], "client disconnected");
		}
	}
}

/* The JSON text of member key of a recorded envelope value, via cJSON. */
static char *
member_text(cJSON *root, const char *k1, const char *k2, const char *k3)
{
	cJSON	*v = fuzz_json_member(root, k1);

	if (k2 != NULL)
		v = fuzz_json_member(v, k2);
	if (k3 != NULL)
		v = fuzz_json_member(v, k3);
	FUZZ_CHECK(v != NULL, "cJSON misses %s%s%s%s%s, which envelope_scan "
	    "found", k1, k2 != NULL ? "." : "", k2 != NULL ? k2 : "",
	    k3 != NULL ? "." : "", k3 != NULL ? k3 : "");
	return (fuzz_json_text(v));
}


/* Note what a client line asks for, then hand it to the router. */
static void
client_deliver(struct client *c, const char *line, size_t len)
{
	struct envelope	 env;
	size_t		 erroff;
	cJSON		*json;
	char		*text;
	int		 has_id, response;

	if (envelope_scan(line, len, &env, &erroff) == 0) {
		json = fuzz_json_parse(line, len);
		FUZZ_CHECK(json != NULL, "cJSON refuses a line envelope_scan "
		    "accepted");
		has_id = env.id.type == ENVELOPE_STRING ||
		    env.id.type == ENVELOPE_NUMBER;
		/* Without "jsonrpc": "2.0" it is an invalid request. */
		response = envelope_string_eq(line, &env.jsonrpc, "2.0") &&
		    env.method.type == ENVELOPE_ABSENT &&
		    (env.result.type != ENVELOPE_ABSENT) !=
		    (env.error.type != ENVELOPE_ABSENT);
		/* Everything with an id but a response is answered. */
		if (has_id && !response) {
			text = member_text(json, "id", NULL, NULL);
			bag_add(&c->awaiting, text);
			task_note_request(c, line, len, &env, json, text);
			free(text);
		}
		if (has_id && (env.progress_token.type == ENVELOPE_STRING ||
		    env.progress_token.type == ENVELOPE_NUMBER)) {
			text = member_text(json, "params", "_meta",
			    "progressToken");
			bag_add(&c->tokens, text);
			free(text);
		}
		if (env.id.type == ENVELOPE_ABSENT &&
		    envelope_string_eq(line, &env.method,
		    "notifications/cancelled") &&
		    env.p_request_id.type != ENVELOPE_ABSENT) {
			text = member_text(json, "params", "requestId", NULL);
			bag_add(&c->cancelled, text);
			free(text);
		}
		cJSON_Delete(json);
	}
	if (router_client_line(c->att, line, len) == ROUTER_LINE_CONTROL)
		control_stand_in(c, line, len);
}

/*
 * "$T[n]": a task id mcpd gave (empty in a server's line: it cannot know
 * them); "$V[k]": one of 'Y''s; "$C": the client's last nextCursor.
 */
static const char *
task_var(const char *in, size_t len, size_t *i, const struct client *c)
{
	const char	*v;
	size_t		 k = 0;

	if (in[*i] == 'C')
		return (c != NULL && c->cursor != NULL ? c->cursor : "");
	if (in[*i] == 'M')
		return (F.ctask != NULL ? F.ctask : "");
	if (in[*i] == 'T') {
		if (*i + 1 < len && in[*i + 1] >= '1' && in[*i + 1] <= '3')
			v = F.slot_task[in[++*i] - '1'];
		else
			v = c != NULL ? c->last_task : NULL;
		/* The server never learns mcpd's ids. */
		return (v != NULL && c != NULL ? v : "");
	}
	if (*i + 1 < len && in[*i + 1] >= '0' && in[*i + 1] <= '9')
		k = in[++*i] - '0';
	return (k < F.up_made.n ? F.up_made.v[F.up_made.n - 1 - k] :
	    FUZZ_UP_TASK_PREFIX "0");
}

/* Replace $U[k], $D, $R, $T[n], $V[k], $C, $M and $Z in a line. */
static char *
expand(const char *in, size_t len, const struct client *c, size_t *out_len)
{
	char	*out;
	size_t	 i, o = 0, k, r, t;
	long long v;

	for (i = 0, k = 0, r = 0, t = 0; i + 1 < len; i++) {
		k += in[i] == '$' && in[i + 1] == 'Z';
		r += in[i] == '$' && in[i + 1] == 'R';
		t += in[i] == '$' && (in[i + 1] == 'T' || in[i + 1] == 'V' ||
		    in[i + 1] == 'C' || in[i + 1] == 'M');
	}
	out = xmalloc(len * 10 + k * FUZZ_PAD_BYTES +
	    r * FUZZ_ROOTS_ID_BYTES + t * FUZZ_TASK_ID_BYTES + 1);
	for (i = 0; i < len; i++) {
		if (in[i] == '$' && i + 1 < len && in[i + 1] == 'Z') {
			i++;
			memset(out + o, 'x', FUZZ_PAD_BYTES);
			o += FUZZ_PAD_BYTES;
			continue;
		}
		if (in[i] == '$' && i + 1 < len && in[i + 1] == 'U') {
			i++;
			k = 0;
			if (i + 1 < len && in[i + 1] >= '0' && in[i + 1] <= '9')
				k = in[++i] - '0';
			v = k < F.nupstream ? F.upstream[F.nupstream - 1 - k] :
			    0;
			o += sprintf(out + o, "%lld", v);
		} else if (in[i] == '$' && i + 1 < len && in[i + 1] == 'D') {
			i++;
			o += sprintf(out + o, "%lld",
			    c != NULL ? c->last_down : 0LL);
		} else if (in[i] == '$' && i + 1 < len && (in[i + 1] == 'T' ||
		    in[i + 1] == 'V' || in[i + 1] == 'C' || in[i + 1] == 'M')) {
			i++;
			o += (size_t)snprintf(out + o, FUZZ_TASK_ID_BYTES,
			    "%s", task_var(in, len, &i, c));
		} else if (in[i] == '$' && i + 1 < len && in[i + 1] == 'R') {
			i++;
			o += (size_t)snprintf(out + o, FUZZ_ROOTS_ID_BYTES,
			    "%s", c != NULL && c->roots_id != NULL ?
			    c->roots_id : "0");
		} else
			out[o++] = in[i];
	}
	out[o] = '\0';
	*out_len = o;
	return (out);
}

static int
collect_event_cb(const struct event_base *base, const struct event *ev,
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

/* Time passes: run the timers that are due by the simulated clock. */
static void
advance(uint64_t ms)
{
	struct event	**list;
	size_t		  i;

	F.now_ms += ms;
	list = xcalloc(1, sizeof *list);
	event_base_foreach_event(F.mcpd.base, collect_event_cb, &list);
	for (i = 0; list[i] != NULL; i++)
		event_active(list[i], EV_TIMEOUT, 1);
	free(list);
	event_base_loop(F.mcpd.base, EVLOOP_NONBLOCK);
}

static void
session_down(int backoff)
{
	/* worker_child_exited: transport closed, then the router told. */
	F.worker.stdin_high = 0;
	F.worker.transport_closed = 1;
	F.in_session_down = 1;
	tasks_of_gone(NULL);	/* router_session_down: with the process */
	router_session_down(F.router, "process exited (fuzz)");
	F.in_session_down = 0;
	if (backoff) {
		F.worker.avail = WORKER_AVAIL_REFUSE;
		router_session_unavailable(F.router);
	} else {
		F.worker.avail = WORKER_AVAIL_WAIT;
		F.worker.transport_closed = 0;
	}
}

static struct client *
slot_client(const char *arg, size_t len)
{
	int	 slot = len > 0 ? (unsigned char)arg[0] % FUZZ_SLOTS : 0;

	if (len > 0 && arg[0] >= '1' && arg[0] <= '3')
		slot = arg[0] - '1';
	return (F.slots[slot]);
}

static void
server_line(const char *line, size_t len)
{
	struct envelope	 env;
	size_t		 erroff;
	cJSON		*json;
	char		*text;

	if (envelope_scan(line, len, &env, &erroff) == 0 &&
	    env.method.type == ENVELOPE_STRING &&
	    (env.id.type == ENVELOPE_STRING ||
	    env.id.type == ENVELOPE_NUMBER)) {
		json = fuzz_json_parse(line, len);
		FUZZ_CHECK(json != NULL, "cJSON refuses a line envelope_scan "
		    "accepted");
		text = member_text(json, "id", NULL, NULL);
		bag_add(&F.server_asked, text);
		free(text);
		cJSON_Delete(json);
	}
	/* Its task ids, as a client and as mcpd's cJSON read them. */
	json = fuzz_json_parse(line, len);
	note_up_ids(json);
	cJSON_Delete(json);
	F.cur_server = cJSON_ParseWithLength(line, len);
	F.server_unparsed = F.cur_server == NULL;
	note_up_ids(F.cur_server);
	refresh_answered(F.cur_server, line, len);
	/* As the framer's buffer: fuzz_worker_steal_line may take it. */
	F.line_size = len + 64;
	F.line_buf = xmalloc(F.line_size);
	memcpy(F.line_buf, line, len);
	/* No plain run: fuzz_frame and fuzz_envelope try those. */
	router_server_line(F.router, F.line_buf, len, NULL);
	free(F.line_buf);
	F.line_buf = NULL;
	cJSON_Delete(F.cur_server);
	F.cur_server = NULL;
	F.server_unparsed = 0;
}

static void	reload_filters(unsigned int);

/* A line from client c (text malloc'd, taken): read now, or held. */
static void
client_line(struct client *c, char *text, size_t tlen)
{
	if (c->paused) {
		c->held = xreallocarray(c->held, c->nheld + 1,
		    sizeof *c->held);
		c->held_len = xreallocarray(c->held_len, c->nheld + 1,
		    sizeof *c->held_len);
		c->held[c->nheld] = text;
		c->held_len[c->nheld++] = tlen;
		return;
	}
	client_deliver(c, text, tlen);
	free(text);
}

/* 'Y[k]': the server makes a task for $Uk, "up-task-N". */
static void
task_created_event(const char *arg, size_t len)
{
	size_t		 k = 0;
	long long	 v;
	char		*name, *line;

	if (len > 0 && arg[0] >= '0' && arg[0] <= '9')
		k = arg[0] - '0';
	v = k < F.nupstream ? F.upstream[F.nupstream - 1 - k] : 0;
	xasprintf(&name, FUZZ_UP_TASK_PREFIX "%zu", F.up_made.n + 1);
	bag_add(&F.up_made, name);
	xasprintf(&line, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":"
	    "{\"task\":{\"taskId\":\"%s\",\"status\":\"working\","
	    "\"createdAt\":\"2025-11-25T10:30:00Z\",\"lastUpdatedAt\":"
	    "\"2025-11-25T10:30:00Z\",\"ttl\":60000,\"pollInterval\":1000}}}",
	    v, name);
	server_line(line, strlen(line));
	free(line);
	free(name);
}

/* 'Kn o [t]': client n's request about a task (see the top). */
static void
task_request_event(const char *arg, size_t len)
{
	struct client	*c;
	const char	*method, *task;
	cJSON		*msg, *params;
	char		*text, id[32];

	if (len < 2 || (c = slot_client(arg, 1)) == NULL || c->dead)
		return;
	switch (arg[1]) {
	case 't':
		method = "tools/call";
		break;
	case 'g':
		method = "tasks/get";
		break;
	case 'r':
		method = "tasks/result";
		break;
	case 'c':
		method = "tasks/cancel";
		break;
	case 'l':
		method = "tasks/list";
		break;
	default:
		return;
	}
	task = c->last_task;
	if (len > 2 && arg[2] >= '1' && arg[2] <= '3')
		task = F.slot_task[arg[2] - '1'];
	else if (len > 2 && arg[2] == 'x')
		task = FUZZ_MADE_UP_TASK;
	else if (len > 2 && arg[2] == 'n')
		task = c->cursor != NULL ? c->cursor : "";
	else if (len > 2 && arg[2] == 'u')
		task = F.up_made.n > 0 ? F.up_made.v[F.up_made.n - 1] :
		    FUZZ_UP_TASK_PREFIX "0";
	else if (arg[1] == 'l')
		task = NULL;
	if (task == NULL && arg[1] != 'l')
		task = "";
	params = cJSON_CreateObject();
	if (arg[1] == 't') {
		cJSON_AddStringToObject(params, "name", "echo");
		cJSON_AddObjectToObject(params, "arguments");
		cJSON_AddNumberToObject(cJSON_AddObjectToObject(params, "task"),
		    "ttl", 60000);
	} else if (task != NULL)
		cJSON_AddStringToObject(params, arg[1] == 'l' ? "cursor" :
		    "taskId", task);
	snprintf(id, sizeof id, "k%u", ++F.k_seq);
	msg = cJSON_CreateObject();
	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	cJSON_AddStringToObject(msg, "id", id);
	cJSON_AddStringToObject(msg, "method", method);
	cJSON_AddItemToObject(msg, "params", params);
	text = fuzz_json_text(msg);
	cJSON_Delete(msg);
	client_line(c, text, strlen(text));
}

static void
run_event(const char *line, size_t len)
{
	struct client	*c;
	char		*text, *end;
	size_t		 tlen;
	uint64_t	 ms;
	int		 slot;

	if (len == 0)
		return;
#ifdef FUZZ_TRACE
	fprintf(stderr, "%.*s\n", (int)(len > 200 ? 200 : len), line);
#endif
	/*
	 * Lines from one peer come in batches (one read callback); deferred
	 * frees run when the batch is over, before any other event.
	 */
	if (strchr("123SYK", line[0]) == NULL)
		run_deferred();
	switch (line[0]) {
	case '1':
	case '2':
	case '3':
		c = F.slots[line[0] - '1'];
		if (c == NULL || c->dead)
			break;
		text = expand(line + 1, len - 1, c, &tlen);
		client_line(c, text, tlen);
		break;
	case 'S':
		text = expand(line + 1, len - 1, NULL, &tlen);
		server_line(text, tlen);
		free(text);
		break;
	case 'R':
		/* Only a starting server becomes ready. */
		if (F.worker.avail != WORKER_AVAIL_WAIT)
			break;
		F.worker.avail = WORKER_AVAIL_READY;
		F.worker.transport_closed = 0;
		router_session_ready(F.router, !F.worker.was_ready);
		F.worker.was_ready = 1;
		break;
	case 'D':
		session_down(len > 1 && line[1] == 'x');
		break;
	case 'W':
		/* Backoff over: starting again.  A ready one must exit first. */
		if (F.worker.avail != WORKER_AVAIL_REFUSE)
			break;
		F.worker.avail = WORKER_AVAIL_WAIT;
		F.worker.transport_closed = 0;
		break;
	case 'X':
		if (F.worker.avail == WORKER_AVAIL_REFUSE)
			break;
		F.worker.avail = WORKER_AVAIL_REFUSE;
		router_session_unavailable(F.router);
		break;
	case 'T':
		text = xstrndup(line + 1, len - 1);
		ms = strtoull(text, &end, 10);
		if (end == text)
			ms = 1000;
		free(text);
		advance(ms < FUZZ_MAX_STEP_MS ? ms : FUZZ_MAX_STEP_MS);
		break;
	case 'O':
		text = expand(line + 1, len - 1, NULL, &tlen);
		router_server_oversize(F.router, 16 * 1024 * 1024 + tlen,
		    tlen > 0 ? text : NULL, tlen);
		free(text);
		break;
	case 'H':
		if (!F.worker.transport_closed)
			F.worker.stdin_high = 1;
		break;
	case 'L':
		F.worker.stdin_high = 0;
		router_stdin_drained(F.router);
		break;
	case 'Q':
		if ((c = slot_client(line + 1, len - 1)) != NULL)
			client_detach(c, "client disconnected");
		break;
	case 'A':
		slot = len > 1 && line[1] >= '1' && line[1] <= '3' ?
		    line[1] - '1' : 0;
		if (F.slots[slot] == NULL)
			client_new(slot);
		break;
	case 'E':
		if ((c = slot_client(line + 1, len - 1)) != NULL && !c->dead) {
			c->eof = 1;
			if (!router_attachment_busy(c->att))
				peer_idle(c);
		}
		break;
	case 'C':
		if ((c = slot_client(line + 1, len - 1)) != NULL) {
			c->dead = 1;
			c->close_due = 1;
		}
		break;
	case 'F':
		for (slot = 0; slot < (int)F.nclients; slot++)
			client_flushed(F.clients[slot]);
		break;
	case 'G':
		reload_filters(len > 1 ? (unsigned char)line[1] : 0);
		break;
	case 'Y':
		task_created_event(line + 1, len - 1);
		break;
	case 'K':
		task_request_event(line + 1, len - 1);
		break;
	default:
		break;
	}
}

static const char *
no_getenv(const char *name, void *arg)
{
	return (NULL);
}

/* 'G': the kinds in bits set get fuzz_filter_conf's filters. */
static void
reload_filters(unsigned int bits)
{
	struct filter		*filters[FILTER_KINDS];
	struct conf_diags	 diags;
	size_t			 k;

	if (F.filter_conf == NULL) {
		conf_diags_init(&diags);
		F.filter_conf = conf_parse(fuzz_filter_conf,
		    strlen(fuzz_filter_conf), no_getenv, NULL, &diags);
		FUZZ_CHECK(F.filter_conf != NULL, "the filters refused");
		conf_diags_free(&diags);
	}
	for (k = 0; k < FILTER_KINDS; k++)
		filters[k] = (bits & (1U << k)) ?
		    F.filter_conf->servers[0].filters[k] : NULL;
	router_set_filters(F.router, filters);
}

/*
 * With no client attached mcpd holds nothing for one: no request waits,
 * no task is kept (a principal's go with its last attachment).
 */
static void
check_budget_idle(const char *when)
{
	size_t	 i;

	for (i = 0; i < F.nclients; i++) {
		if (F.clients[i]->att != NULL)
			return;
	}
	FUZZ_CHECK(budget_used(&F.mcpd) == 0, "%s, with no client attached, "
	    "mcpd's memory budget still counts %zu bytes", when,
	    budget_used(&F.mcpd));
}

/* The end: the server goes for good, time runs out; all was answered? */
static void
finish(void)
{
	struct client	*c;
	size_t		 i, j;

	run_deferred();
	session_down(1);
	advance(FUZZ_MAX_STEP_MS);
	run_deferred();
	for (i = 0; i < F.nclients; i++) {
		c = F.clients[i];
		if (c->detached || c->dead)
			continue;
		for (j = 0; j < c->awaiting.n; j++)
			FUZZ_CHECK(bag_find(&c->cancelled,
			    c->awaiting.v[j]) >= 0, "client %d never got an "
			    "answer for id %s", c->slot + 1, c->awaiting.v[j]);
	}
	/* Nothing waits, the tasks went with the server. */
	FUZZ_CHECK(budget_used(&F.mcpd) == 0, "at the end mcpd's memory "
	    "budget still counts %zu bytes", budget_used(&F.mcpd));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char		*p = (const char *)data, *end = p + size, *nl;
	struct conf_diags	 diags;
	size_t			 len, i;
	int			 natt, variant;
	char			 state;

	memset(&F, 0, sizeof F);
	/* The same clock and map layout on every run of an input. */
	clock_use(&fuzz_clock);
	hmap_seed_fix(0x6d6370642d66757aULL);
	log_sink(fuzz_log);
	F.now_ms = FUZZ_START_MS;
	F.worker.next_upstream_id = 1;

	/* The scene. */
	nl = memchr(p, '\n', size);
	len = nl != NULL ? (size_t)(nl - p) : size;
	natt = len > 0 ? (p[0] >= '1' && p[0] <= '3' ? p[0] - '0' :
	    (unsigned char)p[0] % FUZZ_SLOTS + 1) : 1;
	variant = len > 1 ? (unsigned char)p[1] % FUZZ_NCONFS : 0;
	state = len > 2 ? p[2] : 'R';
	p += nl != NULL ? len + 1 : len;

	conf_diags_init(&diags);
	F.conf = conf_parse(fuzz_confs[variant], strlen(fuzz_confs[variant]),
	    no_getenv, NULL, &diags);
	FUZZ_CHECK(F.conf != NULL && F.conf->nservers == 1,
	    "configuration %d refused", variant);
	conf_diags_free(&diags);
	F.worker.conf = &F.conf->servers[0];
	F.mcpd.conf = F.conf;		/* the per-client caps */
	F.worker.avail = WORKER_AVAIL_WAIT;
	if ((F.mcpd.base = event_base_new()) == NULL)
		abort();
	F.router = router_new(&F.mcpd, &fuzz_upstream, &F.worker);
	for (i = 0; i < (size_t)natt; i++)
		client_new((int)i);
	if (state == 'X' || state == 'x')
		F.worker.avail = WORKER_AVAIL_REFUSE;
	else if (state != 'W' && state != 'w') {
		F.worker.avail = WORKER_AVAIL_READY;
		router_session_ready(F.router, 1);
		F.worker.was_ready = 1;
	}

	while (p < end) {
		nl = memchr(p, '\n', end - p);
		len = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
		run_event(p, len);
		check_budget_idle("after an event");
		p += nl != NULL ? len + 1 : len;
	}
	finish();

	router_free(F.router);
	FUZZ_CHECK(budget_used(&F.mcpd) == 0, "once the router is freed "
	    "mcpd's memory budget still counts %zu bytes",
	    budget_used(&F.mcpd));
	event_base_free(F.mcpd.base);
	for (i = 0; i < F.nclients; i++)
		client_free(F.clients[i]);
	free(F.clients);
	free(F.upstream);
	bag_free(&F.server_asked);
	bag_free(&F.down_ids);
	for (i = 0; i < F.nmtasks; i++) {
		free(F.mtasks[i].id);
		free(F.mtasks[i].up);
	}
	free(F.mtasks);
	free(F.refresh);
	free(F.ctask);
	bag_free(&F.up_ids);
	bag_free(&F.up_made);
	for (i = 0; i < FUZZ_SLOTS; i++)
		free(F.slot_task[i]);
	for (i = 0; i < TOP_COUNT; i++)
		free(F.canon[i]);
	conf_free(F.conf);
	fuzz_roots_conf = NULL;
	conf_free(F.filter_conf);
	F.filter_conf = NULL;
	return (0);
}
