/*
 * router_int.h -- the router's insides, shared by its files and by
 * nothing else: router.c (timers, output, sessions and attachments),
 * router_pending.c (pending requests), router_up.c (clients to the
 * server), router_down.c (the server to clients) and the rest below.
 * Everything outside uses router.h.
 */
#ifndef MCPD_ROUTER_INT_H
#define MCPD_ROUTER_INT_H

#include <sys/queue.h>
#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "envelope.h"
#include "filter.h"
#include "hmap.h"
#include "htoken.h"
#include "mlevel.h"
#include "pins.h"
#include "pversion.h"
#include "ratelim.h"
#include "router.h"
#include "util.h"

struct client;
struct cpolicy;
struct envelope;
struct envelope_edit;
struct envelope_value;
struct event;
struct glink;
struct router_apps;
struct router_refusal;
struct router_elicits;
struct handover_server;
struct iovec;
struct idtab;
struct mcpd;
struct worker;

#define ROUTER_SWEEP_MS			100
#define ROUTER_HARD_TIMEOUT_FACTOR	10	/* progress extends to this */
#define ROUTER_WAITING_MAX		4096
#define ROUTER_STDIN_HIGH_BYTES		(4 * 1024 * 1024)
#define ROUTER_STDIN_LOW_BYTES		(1024 * 1024)
/*
 * Fair shares of a slow server's stdin: a client whose message leaves
 * more than this queued waits (its reading paused) until the queue is
 * down to a quarter of it; then every waiting client adds again, in turn.
 */
#define ROUTER_STDIN_FAIR_BYTES		(256 * 1024)
/*
 * What mcpd itself answers a server (ping, roots/list, refusals) is
 * dropped while the server's stdin holds more than this, and a server
 * that has this many answers dropped before it reads again is broken.
 */
#define ROUTER_SELF_SOFT_BYTES		(4 * 1024 * 1024)
#define ROUTER_SELF_DROPS_BROKEN	10000
#define ROUTER_ID_INLINE_BYTES		40
#define ROUTER_ID_MAX_BYTES		1024	/* ids and progress tokens */
#define ROUTER_METHOD_MAX		64
#define ROUTER_URI_MAX			4096
#define ROUTER_SLOW_US			(5 * 1000 * 1000)
#define ROUTER_LATENCY_BUCKETS		28	/* powers of two, in µs */
#define ROUTER_SPARE_PENDINGS		1024	/* kept for reuse */
#define ROUTER_NO_COPY_BYTES		(256 * 1024)	/* pass by reference */
#define ROUTER_ID_BUCKETS_MIN		16	/* a client's id table */
#define ROUTER_ID_BUCKETS_KEEP		1024	/* never shrunk below (8 KiB) */

enum router_pending_kind {
	ROUTER_PENDING_CLIENT,		/* a client waits for this reply */
	ROUTER_PENDING_INTERNAL,	/* mcpd's own request; reply absorbed */
};

/* A request about tasks (router_tasks.c), known on its way in. */
enum router_task_op {
	ROUTER_TASK_NONE,
	ROUTER_TASK_CREATE,		/* a call with "task" */
	ROUTER_TASK_GET,
	ROUTER_TASK_RESULT,
	ROUTER_TASK_CANCEL,
	ROUTER_TASK_LIST,
	ROUTER_TASK_RUN,		/* a call run as a task for a client */
	ROUTER_TASK_REFRESH,		/* tasks/get for a tasks/list */
};

enum router_outcome {
	ROUTER_OUTCOME_OK,
	ROUTER_OUTCOME_ERROR,		/* the server answered with an error */
	ROUTER_OUTCOME_TIMEOUT,
	ROUTER_OUTCOME_CANCELLED,
	ROUTER_OUTCOME_FAILED,		/* the server went away */
	ROUTER_OUTCOME_OVERSIZE,
	ROUTER_OUTCOME_COUNT
};

/* A request forwarded to the server, until its reply or nobody waits. */
struct router_pending {
	int64_t			 upstream_id;
	enum router_pending_kind kind;
	struct attachment	*att;
	char			*id;		/* client's id, raw JSON text */
	size_t			 id_len;
	uint64_t		 id_hash;	/* of id, with att's key */
	LIST_ENTRY(router_pending) id_entry;	/* att's id table */
	char			 id_inline[ROUTER_ID_INLINE_BYTES];
	char			*token;		/* client's progress token */
	size_t			 token_len;
	char			 method[ROUTER_METHOD_MAX];
	uint64_t		 started_us;
	uint64_t		 deadline_ms;	/* timeout */
	uint64_t		 hard_deadline_ms;
	char			*sub_uri;	/* subscribe: undo on error */
	enum router_task_op	 task_op;
	char			*task_id;	/* mcpd's, of get/result/cancel */
	char			*task_cursor;	/* tasks/list: its cursor */
	struct audit_call	*audit;		/* "audit": its record, or NULL */
	/*
	 * Waits longer than requests do (tasks/result): on long_waits by
	 * start_entry, its own deadline, not on by_deadline.
	 */
	int			 long_wait;
	TAILQ_ENTRY(router_pending) timer_entry;	/* by_deadline */
	TAILQ_ENTRY(router_pending) start_entry;	/* by_start */
	TAILQ_ENTRY(router_pending) att_entry;	/* att->inflight */
	struct router_pending	*next_spare;	/* on r->spare */
};
TAILQ_HEAD(router_pending_list, router_pending);
LIST_HEAD(router_id_bucket, router_pending);

/* A request from the server, passed to one client under a new id. */
struct router_down {
	int64_t			 down_id;
	struct attachment	*att;
	char			*server_id;	/* raw JSON text */
	size_t			 server_id_len;
	/*
	 * About a task the client runs for the server (router_ctasks.c):
	 * a request with "task" (task_aug), or a tasks/ request for the
	 * task of mcpd's id ctask (ctask_op).
	 */
	int			 task_aug;
	char			*ctask;
	enum router_task_op	 ctask_op;
	TAILQ_ENTRY(router_down) att_entry;
};
TAILQ_HEAD(router_down_list, router_down);

/*
 * A client request held until the server is ready, or (for_pins) until
 * mcpd has read the server's list of its kind (router_pins.c).
 */
struct router_waiting {
	struct attachment	*att;
	char			*line;
	size_t			 len;
	uint64_t		 deadline_ms;
	int			 for_pins;
	TAILQ_ENTRY(router_waiting) entry;
};
TAILQ_HEAD(router_waiting_list, router_waiting);

struct attachment {
	struct router		*router;
	const struct router_peer *peer;		/* a client or a group's link */
	void			*peer_arg;
	/*
	 * Client id text -> pending: a chained table of the pendings
	 * themselves, so a reply takes its request out without hashing.
	 * Keyed hash (ids come from the client); the buckets double when
	 * the requests in flight outnumber them (router.c).
	 */
	struct router_id_bucket	*ids;		/* NULL until a request */
	size_t			 ids_mask;	/* buckets - 1 */
	struct hmap_key		 ids_key;
	struct router_pending_list inflight;
	size_t			 ninflight;
	size_t			 nwaiting;	/* held for a starting server */
	size_t			 held_bytes;	/* of those */
	struct router_down_list	 downs;
	struct hmap		*subs;		/* uri -> (void *)1 */
	int			 level;		/* -1: never set */
	int			 waits_turn;	/* paused for a fair share */
	int			 cap_sampling;
	int			 cap_elicitation;
	int			 cap_roots;
	/* Its MCP revision and what it can be asked (router_version.c). */
	enum pversion		 version;
	unsigned int		 can;		/* PVERSION_CAN_* */
	uint64_t		 last_request_us;
	/*
	 * A server not shared globally (router_roots.c): the client's roots
	 * are asked for (roots/list under the id "mcpd-roots-N"), and while
	 * a per-roots client's are not known its requests are held, since
	 * they decide which instance serves it.  refused: no instance can
	 * (max_instances); every request gets this error.
	 */
	uint64_t		 roots_ask;	/* N asked; 0: none */
	uint64_t		 roots_deadline_ms;
	int			 roots_pending;
	int			 at_template;	/* not at an instance yet */
	char			*refused;
	/*
	 * What its app may call (router_policy.c): decided at attach and
	 * reload; policed, its policy restricts something here; policy_out,
	 * this server is not among those it may reach.
	 */
	struct cpolicy		*policy;
	int			 policed;
	int			 policy_out;
	char			 client_name[64]; /* clientInfo.name, or "" */
	/* Its app's row of counts (router_apps.c): 0 not yet, -1 other. */
	int			 app_row;
	/*
	 * Its own capabilities for a 2026 server's requests (router_caps.c):
	 * what it declared that mcpd may pass (NULL: it never said), and
	 * the text made of it for the configuration caps_key describes.
	 */
	cJSON			*caps_own;
	char			*caps_text;
	unsigned int		 caps_key;
	TAILQ_ENTRY(attachment)	 entry;
};

struct router {
	struct mcpd		*mcpd;
	const struct router_upstream *up;	/* the worker's, below */
	struct worker		*worker;
	TAILQ_HEAD(, attachment) atts;
	size_t			 natts;

	/* Warnings clients' roots cause, each server's own (router_roots.c). */
	struct ratelim		 roots_warn;
	struct idtab		*pending;	/* upstream id -> pending */
	struct router_pending_list by_deadline;
	struct router_pending_list by_start;
	struct router_pending_list long_waits;	/* each its own deadline */
	int64_t			 first_id;	/* this session's ids, or 0 */
	int64_t			 last_id;
	/* The text of the newest pending's upstream id, counted up. */
	char			 up_text[ENVELOPE_INT64_BYTES];
	size_t			 up_len;	/* 0: none yet */
	int64_t			 up_value;
	size_t			 ninflight;	/* ROUTER_PENDING_CLIENT */
	struct router_waiting_list waiting;
	size_t			 nwaiting;

	struct hmap		*downs;		/* down id -> down */
	struct hmap		*downs_by_server; /* server id text -> down */
	int64_t			 next_down_id;

	struct hmap		*subs;		/* uri -> subscriber count */
	int			 upstream_level; /* -1: never set */
	enum pversion		 up_version;	/* the session's revision */
	int			 paused;	/* clients paused: stdin full */
	size_t			 nwaiting_turn;	/* attachments waiting a turn */
	int			 replaying;	/* held requests, now ready */
	struct event		*ev_sweep;
	int			 sweep_armed;	/* ev_sweep is pending */
	struct router_pending	*spare;		/* freed, for reuse */
	size_t			 nspare;

	uint64_t		 outcomes[ROUTER_OUTCOME_COUNT];
	uint64_t		 latency[ROUTER_LATENCY_BUCKETS];
	uint64_t		 latency_sum_us;
	uint64_t		 unknown_ids;
	uint64_t		 late_replies;	/* for requests nobody awaits */
	uint64_t		 self_dropped;	/* mcpd's own answers dropped */
	uint64_t		 self_dropped_run; /* since stdin last drained */
	uint64_t		 bytes_up;
	uint64_t		 bytes_down;
	/* A client request last began or ended here (ms), for idle stops. */
	uint64_t		 active_ms;

	/* A re-exec (router_handover.c): what the last mcpd left. */
	char			**handover_subs; /* still held for clients */
	size_t			 nhandover_subs;
	struct event		*ev_handover;	/* lets go of them */
	int64_t			 handover_id;	/* ids below: the last mcpd's */
	uint64_t		 handover_replies; /* to those, dropped */

	/*
	 * The server's roots/list, held until its instance's roots are
	 * known (router_roots.c); the clients asked for theirs.
	 */
	char			**roots_waiting;	/* server ids */
	size_t			 nroots_waiting;
	uint64_t		 roots_wait_deadline_ms;
	size_t			 nroots_asking;
	int			 roots_answered; /* this process had some */
	int			 freeing;	/* router_free: no hooks */

	/* Tasks, under mcpd's ids (router_tasks.c); NULL until one. */
	struct tasktab		*tasks;
	struct hmap		*task_required;	/* tools that need a task */
	struct router_elicits	*elicits;	/* router_elicit.c */
	size_t			 tasks_mem;	/* in the budget */
	uint64_t		 tasks_swept_ms;
	/* Tasks clients run for the server (router_ctasks.c). */
	struct tasktab		*ctasks;
	size_t			 ctasks_mem;

	/* What clients may see (router_filter.c); NULL: all of a kind. */
	struct filter		*filters[FILTER_KINDS];
	int			 filtered;	/* any of them set, or pins */
	/* What a server changed since approved (router_pins.c); NULL: off. */
	struct router_pins	*pins;
	/* Its lists' part in shadowing (router_shadow.c); NULL: none yet. */
	struct router_shadow	*shadow;
	/* Calls counted per app (router_apps.c); NULL: none yet. */
	struct router_apps	*apps;
};

/*
 * The peer's pid (a group's link: its client's), and the end of a
 * half-closed client once nothing of its is pending: inline, so that the
 * router's files ask the peer table without calling one another.
 */
static inline pid_t
router_peer_pid(const struct attachment *a)
{
	return (a->peer->pid(a->peer_arg));
}

/*
 * Whether what a's principal owns goes with a: the principal does not
 * outlive its connections (a bridge's does), and no other attachment of
 * the router has it.
 */
static inline int
router_principal_leaves(const struct attachment *a)
{
	const struct attachment	*other;
	uint64_t		 principal = a->peer->principal(a->peer_arg);

	if (a->peer->principal_lasts != NULL &&
	    a->peer->principal_lasts(a->peer_arg))
		return (0);
	TAILQ_FOREACH(other, &a->router->atts, entry) {
		if (other != a &&
		    other->peer->principal(other->peer_arg) == principal)
			return (0);
	}
	return (1);
}

/* The attachment of principal's that asked last, or NULL. */
static inline struct attachment *
router_principal_att(struct router *r, uint64_t principal)
{
	struct attachment	*a, *best = NULL;

	TAILQ_FOREACH(a, &r->atts, entry) {
		if (a->peer->principal(a->peer_arg) == principal &&
		    (best == NULL || a->last_request_us > best->last_request_us))
			best = a;
	}
	return (best);
}

static inline void
router_check_idle(struct attachment *a)
{
	if (a->ninflight == 0 && a->nwaiting == 0 && a->peer->idle != NULL)
		a->peer->idle(a->peer_arg);
}

/* The names of outcomes, as status and the journal give them. */
extern const char *router_outcome_names[ROUTER_OUTCOME_COUNT];

/*
 * router_down.c
 */

/*
 * Progress to the request its token names (principal: only if that is
 * its client's, 0 for any), with the client's own token.
 */
void		 router_progress_of(struct router *, const char *line,
		    size_t len, const struct envelope *, uint64_t principal);

/*
 * router_out.c
 */

/* Where a value found by envelope_scan starts in its line. */
const char	*router_text(const char *line, const struct envelope_value *);

/* The peer's own table, for the router's other files. */
void		 router_peer_pause(struct attachment *, int pause);
void		 router_peer_detached(struct attachment *, const char *reason);
/* Stop or resume reading every client (the server's stdin is full). */
void		 router_pause_clients(struct router *, int pause);
/* The clients waiting a turn at a slow server's stdin go on, in turn. */
void		 router_take_turns(struct router *);
/* Tell the server to stop working on a request. */
void		 router_cancel_upstream(struct router *,
		    struct router_pending *, const char *reason);
/* A message to the attachment's peer, a client or a group's link. */
void		 router_peer_queue(struct attachment *,
		    const struct iovec *, int);
/* Output.  The edits are spliced in (envelope_splice) on the way. */
void		 router_send_client(struct attachment *, const char *line,
		    size_t len, const struct envelope_edit *edits,
		    size_t nedits);
/*
 * The same; with may_steal, a large line may be taken from the server's
 * buffer instead of copied.
 */
void		 router_send_client_steal(struct attachment *,
		    const char *line, size_t len,
		    const struct envelope_edit *edits, size_t nedits,
		    int may_steal);
void		 router_send_server(struct router *, const char *line,
		    size_t len, const struct envelope_edit *edits,
		    size_t nedits);
/* A message of mcpd's to the server (taken). */
void		 router_send_server_json(struct router *, cJSON *);
/* A result to a client: {"jsonrpc":"2.0","id":ID,"result":RESULT}. */
void		 router_client_result(struct attachment *, const char *id,
		    size_t id_len, const char *result, size_t result_len);
/* An error to a client for the request whose raw id text is given. */
void		 router_client_error(struct attachment *, const char *id,
		    size_t id_len, int code, const char *fmt, ...)
		    __attribute__((format(printf, 5, 6)));
/*
 * A result (taken), or if it is NULL an error, to the server for its
 * request (raw id text); dropped while the server's stdin is too full.
 */
void		 router_server_reply(struct router *, const char *id,
		    size_t id_len, cJSON *result, int code,
		    const char *message);
/* A client filled the server's stdin past its share: it waits a turn. */
void		 router_wait_turn(struct attachment *);
/* A request of mcpd's own to the server (params taken); its id. */
int64_t		 router_internal_request(struct router *, const char *method,
		    cJSON *params);


/*
 * router.c
 */

/* Held requests. */
void		 router_waiting_free(struct router *, struct router_waiting *);

/*
 * router_pending.c
 */

/* A request of the server's (its id: raw text) on its way to a. */
struct router_down *router_down_new(struct router *, struct attachment *a,
		    const char *server_id, size_t len);
/* A request of the server's at a client: forgotten and freed. */
void		 router_down_free(struct router *, struct router_down *);

/*
 * router_pending.c (the client's requests)
 */

/*
 * Pending requests.  A client's (id not NULL) comes with the hash of its
 * id (router_id_hash); method[0, method_len) need not end with a NUL.
 */
struct router_pending *router_pending_new(struct router *,
		    enum router_pending_kind, struct attachment *,
		    const char *id, size_t id_len, uint64_t id_hash,
		    const char *method, size_t method_len);
/* A pending that waits until deadline_ms instead (tasks/result). */
void		 router_pending_long(struct router *, struct router_pending *,
		    uint64_t deadline_ms);
/* Done with a pending for good (reply delivered or nothing to wait for). */
void		 router_pending_destroy(struct router *,
		    struct router_pending *);
/* The client's request in flight under this id (raw JSON text), or NULL. */
struct router_pending *router_find_id(const struct attachment *,
		    const char *id, size_t id_len);
/* The same, given the id's hash: one hash per request, not two. */
uint64_t	 router_id_hash(const struct attachment *, const char *id,
		    size_t id_len);
struct router_pending *router_find_id_hash(const struct attachment *,
		    const char *id, size_t id_len, uint64_t hash);
/* A reply for an id this session issued and nobody waits for now. */
int		 router_late_reply(const struct router *, int64_t upstream_id);
/* Count the outcome and latency; log the slow and the failed. */
void		 router_record(struct router *, struct router_pending *,
		    enum router_outcome, const char *reason);
/*
 * The sweep timer, armed for every request (and for held ones and roots
 * asked for): timeouts run from it (router.c).
 */
void		 router_arm_sweep(struct router *);

/*
 * router_audit.c: a call's record, begun as it goes upstream (nothing
 * unless its server's "audit" is on), its reply noted, its client gone,
 * ended by router_record.
 */
void		 router_audit_begin(struct router *, struct router_pending *,
		    const char *line, size_t len, const struct envelope *);
void		 router_audit_reply(struct router_pending *, const char *line,
		    size_t len, const struct envelope *);
void		 router_audit_gone(struct router_pending *);
void		 router_audit_end(struct router *, struct router_pending *,
		    enum router_outcome, uint64_t us);
/* A call mcpd refused itself: its record, outcome "refused", at once. */
void		 router_audit_refused(struct attachment *, const char *line,
		    size_t len, const struct envelope *, const char *method,
		    const struct router_refusal *);

/*
 * router_apps.c: a server's calls and refusals counted per app, at most
 * ROUTER_APPS_MAX names, the rest under "other".
 */
#define ROUTER_APPS_MAX		32
#define ROUTER_APP_NAME_MAX	128	/* bytes of a name, escaped */
/*
 * The app's name as identity knows it (audit_app_name), "token:NAME" for
 * an HTTP client (made in buf), or NULL.
 */
#define ROUTER_APP_BUF		(sizeof "token:" + HTOKEN_NAME_MAX)
const char	*router_app_name(const struct attachment *, char *buf,
		    size_t size);
/* A call (refused: one mcpd refused itself) of a recorded method. */
void		 router_apps_count(struct attachment *, const char *method,
		    int refused);
/* stats.apps: [{"app", "calls", "refused"}...]. */
void		 router_apps_json(const struct router *, cJSON *stats);
void		 router_apps_free(struct router *);

/*
 * router_up.c
 */

/* Forward a client request upstream under a fresh id; its pending. */
struct router_pending *router_client_request(struct attachment *,
		    const char *line, size_t len, const struct envelope *,
		    uint64_t id_hash, const char *method, size_t method_len);
/* Ask the server for the most verbose log level any client set, if new. */
void		 router_set_upstream_level(struct router *);
/* Count subscribers of a uri; returns the new count. */
uintptr_t	 router_sub_count(struct router *, const char *uri,
		    size_t urilen, int delta);

/*
 * router_filter.c
 */

/* Take the worker's filters (router_new); drop them (router_free). */
void		 router_filter_init(struct router *);
void		 router_filter_clear(struct router *);
/* Why mcpd refused a request itself: "policy", "held", "filter"... */
struct router_refusal {
	const char	*reason;
	int		 code;		/* the error it answered */
};
/*
 * A client's tools/call, prompts/get, resources/read or subscribe of a
 * name the filters hide (or its policy, or a held pin): 1 once it is
 * refused (answered), why saying why, else 0.
 */
int		 router_filter_refuses(struct attachment *, const char *line,
		    const struct envelope *, const char *method,
		    struct router_refusal *why);
/*
 * The reply to a list request (method), narrowed: FILTER_CHANGED fills
 * edit with the new result (its text malloc'd, the caller's to free);
 * FILTER_BAD when a filter applies but the result is not a list.
 */
extern const char *const router_filter_changed[FILTER_KINDS];
enum filter_result router_filter_reply(struct attachment *,
		    const char *method, const char *line,
		    const struct envelope *, struct envelope_edit *edit);

/*
 * router_policy.c: the client's policy (cpolicy.h), under the filters.
 */

/* Decide the policy of a new attachment; let go of it. */
void		 router_policy_attach(struct attachment *);
void		 router_policy_detach(struct attachment *);
/* The server is not the policy's: every request refused (1), answered. */
int		 router_policy_refuses_all(struct attachment *,
		    const char *line, const struct envelope *);
/* 1 if the policy lets a tool, prompt (own name) or resource URI pass. */
int		 router_policy_allows(const struct attachment *,
		    enum filter_kind, const char *name);
/* Answer a request for what (a "tool"...) name, which the policy denies. */
void		 router_policy_refuse(struct attachment *, const char *line,
		    const struct envelope *, const char *what,
		    const char *name);
/* A list result (or a call's resource links) narrowed by the policy. */
enum filter_result router_policy_list(struct attachment *, enum filter_list,
		    const char *text, size_t len, char **out, size_t *outlen);
enum filter_result router_policy_links(struct attachment *, const char *text,
		    size_t len, char **out, size_t *outlen);

/*
 * router_pins.c: what a server changed since approved, held.
 */

/* The session is up (or taken over): mcpd reads the server's lists. */
void		 router_pins_session(struct router *);
/* The server's list_changed (method): that list is read again. */
void		 router_pins_list_changed(struct router *, const char *method);
/*
 * A reply to mcpd's own request: 0 if it was not a page of a list mcpd
 * reads, 1 if it was, 2 if that list is now read (or given up): the
 * requests that waited for it go on (router_replay_attachment).
 */
int		 router_pins_reply(struct router *, int64_t upstream_id,
		    const char *line, size_t len, int is_error);
/* mcpd's own request timed out: 1 if a list is given up (replay). */
int		 router_pins_lost(struct router *, int64_t upstream_id);
/* A client's request that waits for mcpd's own list of its kind. */
int		 router_pins_waits(struct attachment *, const char *method,
		    size_t len);
/* A call of a held name: 1 once refused (answered). */
int		 router_pins_refuses(struct attachment *, const char *line,
		    const struct envelope *, const char *method);
/* A list reply with held entries taken out (after the filters: res). */
enum filter_result router_pins_narrow(struct router *, const char *method,
		    const char *line, const struct envelope *,
		    struct envelope_edit *edit, enum filter_result res);
int		 router_pins_active(const struct router *);
void		 router_pins_free(struct router *);

/*
 * router_shadow.c: the profile of the server's tools and prompts (a whole
 * list of kind read for the pins), the daemon told; its findings for
 * mcpd/pins (an array); all of it freed.
 */
void		 router_shadow_listed(struct router *, enum pins_kind,
		    const cJSON *list);
cJSON		*router_shadow_json(struct router *);
void		 router_shadow_free(struct router *);

/*
 * router_roots.c
 */

/* The client's initialize: its roots, or the time to ask for them. */
void		 router_roots_initialize(struct attachment *);
/* notifications/initialized or roots/list_changed from the client. */
void		 router_roots_ask(struct attachment *);
/* A client's reply with id "mcpd-roots-N": 1 if it was one. */
int		 router_roots_reply(struct attachment *, const char *line,
		    const struct envelope *);
/* The server asks for roots/list: answered or held. */
void		 router_roots_server_request(struct router *, const char *id,
		    size_t id_len);
/* Deadlines of both (from the sweep). */
void		 router_roots_sweep(struct router *, uint64_t now);
/* At router_new. */
void		 router_roots_init(struct router *);
/* A client leaves the router (detach, move). */
void		 router_roots_forget(struct attachment *);
void		 router_roots_free(struct router *);
/* Requests held only while the client's roots were asked for, replayed. */
void		 router_replay_attachment(struct attachment *);

/*
 * router_tasks.c
 */

/* tasks/get ... tasks/list (method[0, len)), or ROUTER_TASK_NONE. */
enum router_task_op router_task_method(const char *method, size_t len);
/*
 * A client's request about tasks, or a call that makes one: 1 once it is
 * taken (forwarded or answered), 0 for any other request.
 */
int		 router_tasks_request(struct attachment *, const char *line,
		    size_t len, const struct envelope *, uint64_t id_hash,
		    const char *method, size_t method_len);
/* The reply to one of those: 1 once delivered (p destroyed). */
int		 router_tasks_reply(struct router *, struct router_pending *,
		    const char *line, size_t len);
/*
 * A session is up (or taken over): a server that runs calls as tasks is
 * asked for its tools, to know which it runs only so.
 */
void		 router_tasks_session(struct router *);
/* A tools/list result: which tools the server runs only as tasks. */
void		 router_tasks_tools(struct router *, const char *line,
		    size_t len);
/*
 * Progress under the token of a call that made a task (token: the
 * server's, principal: the owner its _meta names, or 0): to the task's
 * owner with the client's token, or nobody.
 */
void		 router_tasks_progress(struct router *, const char *line,
		    size_t len, const struct envelope *, int64_t token,
		    uint64_t principal);
/* notifications/tasks/status: to the task's owner, or nobody. */
void		 router_tasks_status(struct router *, const char *line,
		    size_t len);
/* A request of the server's for a task: its owner (see the file). */
int		 router_tasks_owner(struct router *, const char *line,
		    size_t len, const char *method, struct attachment **,
		    char **rewritten);
/* A notification of the server's naming a task: 1 once taken. */
int		 router_tasks_notification(struct router *, const char *line,
		    size_t len, const char *method);
/* A reply naming a task, made fit for its client: 1 with *rewritten. */
int		 router_tasks_reply_meta(struct router *, struct attachment *,
		    const char *line, size_t len, char **rewritten);
void		 router_tasks_detach(struct attachment *);
void		 router_tasks_sweep(struct router *, uint64_t now);
int		 router_tasks_busy(const struct router *);
/* The server's process is gone, or the router: its tasks with it. */
void		 router_tasks_free(struct router *);
/*
 * router_ctasks.c: tasks a client runs for the server (task-augmented
 * sampling/createMessage and elicitation/create), under mcpd's ids.
 */
/* mcpd's "tasks" capability, as the server's client, into caps. */
void		 router_ctasks_declare(cJSON *caps, int sampling,
		    int elicitation);
/* The server's request is bound for a: made plain if a runs no tasks. */
int		 router_ctasks_outgoing(struct router *, struct attachment *a,
		    struct router_down *, const char *line, size_t len,
		    const char *method, char **plain);
/* The server's tasks/get, result, cancel, list: 1 once answered here. */
int		 router_ctasks_server_request(struct router *,
		    const char *line, size_t len, const struct envelope *,
		    const char *method);
/* A client's answer to d, when d is about a task: 1 once sent on. */
int		 router_ctasks_response(struct attachment *,
		    struct router_down *, const char *line, size_t len);
/* A client's notification about a task it runs: 1 once taken. */
int		 router_ctasks_notification(struct attachment *,
		    const char *line, size_t len, const char *method,
		    size_t mlen);
void		 router_ctasks_detach(struct attachment *);
/* The table, made when the first task is (a re-exec's adopt too). */
struct tasktab	*router_ctasks_table(struct router *);
void		 router_ctasks_adopted(struct router *);
void		 router_ctasks_sweep(struct router *, uint64_t now);
void		 router_ctasks_free(struct router *);
/* A re-exec: the tasks of lasting principals handed over, taken over. */
void		 router_tasks_export(const struct router *,
		    struct handover_server *);
void		 router_tasks_adopt(struct router *,
		    const struct handover_server *);

/*
 * router_elicit.c: URL-mode elicitations, each its asked client's.
 */

/* An elicitation/create the router passed to a's client. */
void		 router_elicit_sent(struct router *, struct attachment *,
		    const char *line, size_t len);
/* An error answering a's request: a -32042 names elicitations. */
void		 router_elicit_error(struct router *, struct attachment *,
		    const char *line, size_t len);
/* notifications/elicitation/complete: to the client it is for. */
void		 router_elicit_complete(struct router *, const char *line,
		    size_t len);
void		 router_elicit_free(struct router *);

/*
 * router_version.c: each client its own MCP revision (pversion.h).
 */

/* The client's initialize params (or NULL): its revision, what it can. */
void		 router_version_hello(struct attachment *,
		    const cJSON *params);
/* The server's session is up: its revision. */
void		 router_version_session(struct router *);
/* The answer to a's initialize (malloc'd JSON text). */
char		*router_version_init_result(struct attachment *);
/*
 * Send a, a client older than the server, the reply to its request
 * (method) with its edits (at most 2, sorted), its result made fit for
 * its revision: a new edit of it, or a filter's edit made over.
 */
void		 router_version_reply(struct attachment *, const char *method,
		    const char *line, size_t len, const struct envelope *,
		    const struct envelope_edit *edits, size_t nedits);
/* What a request of the server's needs of the client it goes to. */
void		 router_request_needs(const char *method, const char *line,
		    const struct envelope *, struct pversion_needs *);
int		 router_client_can(const struct attachment *,
		    const struct pversion_needs *);
/*
 * Send a the server's request (with its id's edit), its params made fit
 * for a's revision.
 */
void		 router_version_send(struct attachment *, const char *method,
		    const char *line, size_t len, const struct envelope *,
		    const struct envelope_edit *id_edit);
/* May a be sent this notification? */
int		 router_version_notify(const struct attachment *,
		    const char *method);

/*
 * router_caps.c: each client's own capabilities, for a 2026 server.
 */

/* The client's initialize: what it declared (caps may be NULL). */
void		 router_caps_hello(struct attachment *, const cJSON *caps);
void		 router_caps_forget(struct attachment *);

/*
 * router_handover.c
 */

void		 router_handover_free(struct router *);

#endif /* MCPD_ROUTER_INT_H */
