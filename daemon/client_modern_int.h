/*
 * client_modern_int.h -- the insides of the 2026 client layer, shared by
 * its files and nothing else: client_modern.c (the layer: requests,
 * answers, notifications), client_modern_input.c (multi-round requests),
 * client_modern_listen.c (listen streams).
 */
#ifndef MCPD_CLIENT_MODERN_INT_H
#define MCPD_CLIENT_MODERN_INT_H

#include <sys/queue.h>
#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <event2/util.h>

#include "envelope.h"
#include "modern.h"
#include "rstate.h"

struct hmap;
struct mcpd;
struct modern_io;

#define MODERN_ID_PREFIX	"\"mcpd-modern:"
#define MODERN_INIT_ID		"\"mcpd-modern:0\""
#define MODERN_MAX_PARKED	64	/* requests waiting for input */
#define MODERN_MAX_INPUTS	16	/* server requests on one */
#define MODERN_MAX_HELD		64	/* lines waiting for the session */
#define MODERN_MAX_LISTENS	64
#define MODERN_META_CACHE_BYTES	4096	/* a _meta kept to compare */
#define MODERN_SPARE_REQS	32	/* kept for reuse */

/* A request of the server's for the client's input. */
struct modern_input {
	char			*down_id;	/* the session's id, raw */
	size_t			 down_id_len;
	char			 key[48];	/* in inputRequests */
	char			 method[32];
	cJSON			*params;
	size_t			 mem;		/* in the budget */
	TAILQ_ENTRY(modern_input) entry;
};
TAILQ_HEAD(modern_inputs, modern_input);

/* A request of the client's in flight at the session. */
struct modern_req {
	char			*up_id;		/* as the session knows it */
	size_t			 up_id_len;
	char			 up_id_inline[32];	/* a short one */
	int			 aliased;	/* up_id is mcpd's, not the client's */
	char			*id;		/* the client's now (a retry's) */
	size_t			 id_len;
	char			*up_token;	/* progressToken, as sent */
	size_t			 up_token_len;
	char			*token;		/* the client's now, or NULL */
	size_t			 token_len;
	enum modern_method	 method;
	char			 method_name[32];
	int			 level;		/* -1: none asked */
	unsigned int		 can;		/* MODERN_CAN_* */
	uint64_t		 serial;	/* which came last */
	char			*params;	/* text, kept to digest */
	size_t			 params_len;
	/* Multi-round: parked at the server, waiting for input. */
	uint64_t		 parked;	/* 0: never */
	uint64_t		 round;
	uint64_t		 expires_ms;
	uint8_t			 digest[RSTATE_DIGEST_BYTES];
	int			 waiting;	/* for the client's retry */
	int			 task_call;	/* a call made a task */
	cJSON			*task_wait;	/* tasks/get, for a result */
	struct modern_task	*task_for;	/* whose */
	char			*final;		/* the answer, come meanwhile */
	size_t			 final_len;
	struct modern_inputs	 inputs;
	size_t			 ninputs;
	size_t			 mem;		/* in the budget */
	TAILQ_ENTRY(modern_req)	 park_entry;
	struct modern_req	*next_spare;
};
TAILQ_HEAD(modern_reqs, modern_req);

/* A task of the client's (the tasks extension over 2025's tasks). */
struct modern_task {
	char			*id;		/* mcpd's task id */
	struct modern_inputs	 inputs;	/* the server's requests */
	size_t			 ninputs;
	cJSON			*final;		/* {"result"} or {"error"} */
	uint64_t		 fetch;		/* the layer's tasks/result */
	TAILQ_ENTRY(modern_task) entry;
};
TAILQ_HEAD(modern_tasks, modern_task);

struct modern_listen {
	char			*id;		/* the listen request's, raw */
	size_t			 id_len;
	struct modern_filter	 f;
	/*
	 * The session's resources/subscribe for it still unanswered (the
	 * internal ids' numbers): the stream is acknowledged once none is,
	 * so that no update after the acknowledgment is lost.
	 */
	uint64_t		*subs;
	size_t			 nsubs;
	TAILQ_ENTRY(modern_listen) entry;
};

struct modern_held {
	char			*line;
	size_t			 len;
	TAILQ_ENTRY(modern_held) entry;
};

struct modern {
	struct mcpd		*mcpd;
	const struct modern_io	*io;
	void			*arg;
	struct hmap		*reqs;		/* up_id text -> req */
	struct modern_reqs	 parked;
	struct modern_req	*spare;		/* freed, for reuse */
	size_t			 nspare;
	int			 freeing;	/* modern_free: nothing kept */
	size_t			 naliased;	/* requests under mcpd's id */
	size_t			 nparked;
	TAILQ_HEAD(, modern_listen) listens;
	size_t			 nlistens;
	TAILQ_HEAD(, modern_held) held;		/* until the session's init */
	size_t			 nheld;
	cJSON			*init;		/* the session's initialize */
	int			 init_sent;
	int			 level;		/* set at the session, -1 */
	uint64_t		 next_id;	/* the layer's own ids */
	uint64_t		 next_serial;
	uint64_t		 next_parked;
	struct event		*ev_expire;
	/* The last _meta read, around its progress token (modern_meta). */
	char			*meta_pre;
	size_t			 meta_pre_len;
	char			*meta_post;
	size_t			 meta_post_len;
	struct modern_meta	 meta_mm;
	struct modern_tasks	 tasks;		/* client_modern_tasks.c */
	size_t			 ntasks;
	cJSON			*task_tools;	/* tools run as tasks */
	size_t			 mem;		/* in the budget */
	size_t			 budget_held;
};

/*
 * client_modern.c
 */

/* A line to the client, or to the session. */
void		 modern_send(struct modern *, const char *text, size_t len);
void		 modern_session(struct modern *, const char *text);
/* A line to the session with edits (sorted, at most 2) applied. */
void		 modern_session_edited(struct modern *, const char *line,
		    size_t len, const struct envelope_edit *, size_t nedits);
/* A result (JSON text) or an error to the client's request id. */
void		 modern_result(struct modern *, const char *id, size_t id_len,
		    const char *result);
void		 modern_error(struct modern *, const char *id, size_t id_len,
		    int code, const char *fmt, ...)
		    __attribute__((format(printf, 5, 6)));
/* An answer of the client's (result, or code and message) to the server. */
void		 modern_answer_server(struct modern *, const char *down_id,
		    size_t len, const cJSON *result, int code,
		    const char *message);
/* What the layer holds grew (or shrank) by delta, q's or the layer's. */
void		 modern_account(struct modern *, struct modern_req *q,
		    ssize_t delta);
/* The daemon's requestState key. */
const uint8_t	*modern_key(struct modern *);
/* A request of the layer's own to the session (params taken): its N. */
uint64_t	 modern_internal(struct modern *, const char *method,
		    cJSON *params);
/* The session's log level, for a request that asked for level. */
void		 modern_level(struct modern *, int level);
char		*modern_dup(const char *, size_t);
/* The session's answer to q (or NULL: not known), made a 2026 one. */
void		 modern_deliver(struct modern *, struct modern_req *q,
		    const char *line, size_t len, const struct envelope *);
void		 modern_req_free(struct modern *, struct modern_req *);
/* A request of the client's, scanned. */
void		 modern_request(struct modern *, const char *line, size_t len,
		    const struct envelope *);

/*
 * client_modern_input.c
 */

/* A request of the session's (the server's) to the client. */
void		 modern_server_request(struct modern *, const char *line,
		    size_t len, const struct envelope *);
/*
 * A request of the server's kept for the client's answer (scanned, its
 * method), counted in the budget; and let go of.
 */
struct modern_input *modern_input_new(struct modern *, const char *line,
		    size_t len, const struct envelope *, const char *method);
void		 modern_input_free(struct modern *, struct modern_input *);
/*
 * The server cancelled a request of its own: not asked of the client in
 * a later round, nor answered (tasks' included).
 */
void		 modern_input_cancelled(struct modern *, const char *line,
		    const struct envelope *);
/*
 * A retry: params.requestState continues a parked request.  1 once
 * answered; 0 if params has no requestState member (not a retry).
 */
int		 modern_retry(struct modern *, const char *line, size_t len,
		    const struct envelope *, const struct modern_meta *);
/* A parked request given up: cancelled at the server, freed. */
void		 modern_give_up(struct modern *, struct modern_req *,
		    const char *reason);
/* The expiry timer (ev_expire), and arming it. */
void		 modern_expire_cb(evutil_socket_t, short, void *);
void		 modern_arm(struct modern *);

/*
 * client_modern_listen.c
 */

struct modern_listen *modern_listen_find(struct modern *, const char *id,
		    size_t id_len);
void		 modern_listen_open(struct modern *, const char *line,
		    const struct envelope *);
/* Close a stream; unsub: let go of its URIs at the session too. */
void		 modern_listen_close(struct modern *, struct modern_listen *,
		    int unsub);
/* list_changed or resources/updated from the session. */
int		 modern_listen_internal(struct modern *, const char *line,
		    const struct envelope *);
void		 modern_listen_notify(struct modern *, const char *line,
		    const struct envelope *, const char *method);

/*
 * client_modern_tasks.c
 */

/* A request of the tasks extension: 1 once answered here, else 0. */
int		 modern_tasks_request(struct modern *, const char *line,
		    size_t len, const struct envelope *,
		    enum modern_method, const struct modern_meta *);
/* tools/call of a client that runs tasks: edit to make it one, or 0. */
int		 modern_tasks_call(struct modern *, struct modern_req *,
		    const char *line, const struct envelope *,
		    struct envelope_edit *);
/* The session's answer to q: 1 once taken (q freed), else 0. */
int		 modern_tasks_reply(struct modern *, struct modern_req *,
		    const char *line, size_t len, const struct envelope *);
/* A tools/list result for a client that runs tasks: which tools can. */
void		 modern_tasks_tools(struct modern *, const char *line,
		    const struct envelope *);
/* A request of the server's for a task of the client's: 1 once taken. */
int		 modern_tasks_server_request(struct modern *, const char *line,
		    size_t len, const struct envelope *, const char *method);
/* The answer to a request of the layer's own: 1 once taken. */
int		 modern_tasks_internal(struct modern *, const char *line,
		    size_t len, const struct envelope *);
/* notifications/tasks/status: to the listen streams that asked. */
void		 modern_tasks_status(struct modern *, const char *line,
		    const struct envelope *);
void		 modern_tasks_free(struct modern *);
/* The -32021 error of a client that did not declare the extension. */
void		 modern_tasks_refuse(struct modern *, const char *id,
		    size_t id_len, const char *what);

#endif /* MCPD_CLIENT_MODERN_INT_H */
