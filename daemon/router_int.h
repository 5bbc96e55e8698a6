/*
 * router_int.h -- the router's insides, shared by its three files and by
 * nothing else: router.c (pending requests, timers, output, sessions and
 * attachments), router_up.c (clients to the server) and router_down.c (the
 * server to clients).  Everything outside uses router.h.
 */
#ifndef MCPD_ROUTER_INT_H
#define MCPD_ROUTER_INT_H

#include <sys/queue.h>
#include <sys/uio.h>

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <event2/event.h>

#include "envelope.h"
#include "hmap.h"

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

#ifndef TAILQ_FOREACH_SAFE
#define TAILQ_FOREACH_SAFE(var, head, field, tvar)			\
	for ((var) = TAILQ_FIRST(head);					\
	    (var) != NULL && ((tvar) = TAILQ_NEXT(var, field), 1);	\
	    (var) = (tvar))
#endif

enum pending_kind {
	PENDING_CLIENT,		/* a client waits for this reply */
	PENDING_INTERNAL,	/* mcpd's own request; reply absorbed */
};

enum outcome {
	OUTCOME_OK,
	OUTCOME_ERROR,		/* the server answered with an error */
	OUTCOME_TIMEOUT,
	OUTCOME_CANCELLED,
	OUTCOME_FAILED,		/* the server went away */
	OUTCOME_OVERSIZE,
	OUTCOME_COUNT
};


struct pending {
	int64_t			 upstream_id;
	enum pending_kind	 kind;
	struct attachment	*att;
	char			*id;		/* client's id, raw JSON text */
	size_t			 id_len;
	char			 id_inline[ROUTER_ID_INLINE_BYTES];
	char			*token;		/* client's progress token */
	size_t			 token_len;
	char			 method[ROUTER_METHOD_MAX];
	uint64_t		 started_us;
	uint64_t		 deadline_ms;	/* timeout */
	uint64_t		 hard_deadline_ms;
	char			*sub_uri;	/* subscribe: undo on error */
	TAILQ_ENTRY(pending)	 timer_entry;	/* by_deadline */
	TAILQ_ENTRY(pending)	 start_entry;	/* by_start */
	TAILQ_ENTRY(pending)	 att_entry;	/* att->inflight */
	struct pending		*next_spare;	/* on r->spare */
};
TAILQ_HEAD(pending_list, pending);

/* A request from the server, passed to one client under a new id. */
struct down {
	int64_t			 down_id;
	struct attachment	*att;
	char			*server_id;	/* raw JSON text */
	size_t			 server_id_len;
	TAILQ_ENTRY(down)	 att_entry;
};
TAILQ_HEAD(down_list, down);

/* A client request held until the server is ready. */
struct waiting {
	struct attachment	*att;
	char			*line;
	size_t			 len;
	uint64_t		 deadline_ms;
	TAILQ_ENTRY(waiting)	 entry;
};
TAILQ_HEAD(waiting_list, waiting);

struct attachment {
	struct router		*router;
	struct client		*client;
	struct hmap		*ids;		/* client id text -> pending */
	struct pending_list	 inflight;
	size_t			 ninflight;
	size_t			 nwaiting;	/* held for a starting server */
	size_t			 held_bytes;	/* of those */
	struct down_list	 downs;
	struct hmap		*subs;		/* uri -> (void *)1 */
	int			 level;		/* -1: never set */
	int			 waits_turn;	/* paused for a fair share */
	int			 cap_sampling;
	int			 cap_elicitation;
	uint64_t		 last_request_us;
	TAILQ_ENTRY(attachment)	 entry;
};

struct router {
	struct mcpd		*mcpd;
	struct worker		*worker;
	TAILQ_HEAD(, attachment) atts;
	size_t			 natts;

	struct hmap		*pending;	/* upstream id -> pending */
	struct pending_list	 by_deadline;
	struct pending_list	 by_start;
	int64_t			 first_id;	/* this session's ids, or 0 */
	int64_t			 last_id;
	size_t			 ninflight;	/* PENDING_CLIENT */
	struct waiting_list	 waiting;
	size_t			 nwaiting;

	struct hmap		*downs;		/* down id -> down */
	struct hmap		*downs_by_server; /* server id text -> down */
	int64_t			 next_down_id;

	struct hmap		*subs;		/* uri -> subscriber count */
	int			 upstream_level; /* -1: never set */
	int			 paused;	/* clients paused: stdin full */
	size_t			 nwaiting_turn;	/* attachments waiting a turn */
	int			 replaying;	/* held requests, now ready */
	struct event		*ev_sweep;
	struct pending		*spare;		/* freed, for reuse */
	size_t			 nspare;

	uint64_t		 outcomes[OUTCOME_COUNT];
	uint64_t		 latency[ROUTER_LATENCY_BUCKETS];
	uint64_t		 latency_sum_us;
	uint64_t		 unknown_ids;
	uint64_t		 late_replies;	/* for requests nobody awaits */
	uint64_t		 self_dropped;	/* mcpd's own answers dropped */
	uint64_t		 self_dropped_run; /* since stdin last drained */
	uint64_t		 bytes_up;
	uint64_t		 bytes_down;
};

/* RFC 5424 severity names, as MCP spells them; index = syslog priority. */
extern const char *router_levels[8];

void	pending_destroy(struct router *r, struct pending *p);
struct pending *	pending_new(struct router *r, enum pending_kind kind, struct attachment *a,
    const char *id, size_t id_len, const char *method);
int	router_late_reply(const struct router *r, int64_t upstream_id);
void	router_wait_turn(struct attachment *a);
void	router_arm_sweep(struct router *r);
void	router_client_result(struct attachment *a, const char *id, size_t id_len,
    const char *result, size_t result_len);
void	router_internal_request(struct router *r, const char *method, cJSON *params);
size_t	router_itoa(int64_t v, char *buf);
int	router_level_index(const char *name);
void	router_record(struct router *r, struct pending *p, enum outcome outcome,
    const char *reason);
void	router_send_client(struct attachment *a, const char *line, size_t len,
    const struct envelope_edit *edits, size_t nedits);
void	router_send_client_steal(struct attachment *a, const char *line, size_t len,
    const struct envelope_edit *edits, size_t nedits, int may_steal);
void	router_send_server(struct router *r, const char *line, size_t len,
    const struct envelope_edit *edits, size_t nedits);
void	router_server_reply(struct router *r, const char *id, size_t id_len,
    cJSON *result, int code, const char *message);
const char *	router_text(const char *line, const struct envelope_value *v);
void	router_waiting_free(struct router *r, struct waiting *wt);
void	router_set_upstream_level(struct router *r);
uintptr_t	router_sub_count(struct router *r, const char *uri, size_t urilen, int delta);
void	router_client_error(struct attachment *a, const char *id,
	    size_t id_len, int code, const char *fmt, ...)
	    __attribute__((format(printf, 5, 6)));
void	router_check_idle(struct attachment *);

#endif /* MCPD_ROUTER_INT_H */
