/*
 * worker_int.h -- what the worker files share: the worker itself and the
 * hooks between its rooms.  worker.c is the state machine (spawn, stop,
 * the restart policy, admin actions, reconfigure, what the router
 * writes); worker_session.c the session on the transport (handshake,
 * health, violations); worker_demand.c on-demand starts and idle stops;
 * worker_instance.c templates and their instances; worker_handover.c a
 * re-exec's export and adoption; worker_status.c its status;
 * worker_stderr.c the stderr line that says why a run failed.  Nothing
 * outside these files includes this header.
 */
#ifndef MCPD_WORKER_INT_H
#define MCPD_WORKER_INT_H

#include <sys/queue.h>
#include <sys/types.h>

#include <stdint.h>

#include <cjson/cJSON.h>
#include <event2/event.h>

#include "backoff.h"
#include "conf.h"
#include "probe.h"
#include "roots.h"
#include "worker.h"

struct mcpd;
struct transport_cb;

/* The states there are (MCPD_STATE_NAMES names them, in this order). */
#define WORKER_NSTATES		(WORKER_FROZEN + 1)

enum worker_after {
	WORKER_AFTER_FAILURE,	/* the restart policy decides */
	WORKER_AFTER_STOP,	/* admin stop or shutdown: stopped */
	WORKER_AFTER_RESTART,	/* admin restart: start again at once */
	WORKER_AFTER_IDLE,	/* nothing to do: idle until wanted */
};

/* A stderr line kept (worker_stderr.c); cut: the start of a longer one. */
struct worker_errline {
	char			*p;
	size_t			 len;
	int			 cut;
};

struct worker {
	struct mcpd		*mcpd;
	char			*name;
	struct conf_server	*conf;		/* our own copy */
	enum worker_state	 state;
	uint64_t		 state_since_ms;

	struct transport	*tp;		/* while running */
	const char		*containment;	/* of the last start */
	/* The sandbox of the last start (worker_sandbox.c). */
	int			 sandboxed;
	unsigned int		 sandbox_held;	/* sbapply.h's SB_HELD_* */
	uint32_t		 sandbox_denial_age; /* stderr lines since one
						   read as a denial */
	uint64_t		 spawned_ms;
	struct event		*ev_timer;

	/* Health: is a ready server still answering? */
	struct event		*ev_health;
	uint64_t		 heard_ms;	/* last read from its stdout */
	uint64_t		 ping_sent_ms;	/* 0: no health ping out */
	uint32_t		 timeouts_in_row; /* requests, nothing heard */
	char			*broken_reason;	/* set: end it (deferred) */
	struct event		*ev_broken;

	/* On demand: started when wanted, stopped when idle. */
	struct event		*ev_wake;	/* an on-demand start */
	const char		*wake_reason;	/* a static string */
	struct event		*ev_idle;	/* the idle stop's check */
	uint64_t		 busy_seen_ms;	/* the router was busy */
	uint64_t		 on_demand_starts;
	uint64_t		 idle_stops;

	/*
	 * Frozen ("idle": "freeze", worker_freeze.c): freeze_asked_ms is when
	 * the freeze was asked for, until the kernel says it is done (then
	 * frozen_in_ms); thaw_ms when the last thaw began, until the server
	 * first speaks after it (then thaw_answer_ms); memory_note says what
	 * became of its memory while frozen.
	 */
	struct event		*ev_freeze;	/* the freeze's checks, reclaim */
	uint64_t		 freeze_asked_ms;
	uint32_t		 thaw_checks;	/* left after a thaw */
	int64_t			 frozen_in_ms;	/* -1: not known */
	uint64_t		 thaw_ms;
	uint64_t		 thaw_frozen_ms; /* how long it was frozen */
	int64_t			 thaw_answer_ms; /* -1: none yet */
	uint64_t		 reclaimed;	/* bytes, this freeze */
	uint32_t		 reclaim_steps;
	const char		*memory_note;	/* static */
	uint64_t		 freezes;
	uint64_t		 thaws;

	enum worker_after	 after;
	int			 stop_phase;
	char			*fail_reason;	/* why we are killing it */

	struct backoff		 backoff;
	uint64_t		 spawns;	/* restarts: all but the first */
	char			*last_exit;
	char			*last_stderr;	/* why, in its words; or NULL */
	struct worker_errline	 err_said;	/* this run's: its last message */
	struct worker_errline	 err_any;	/* and its last line */

	/*
	 * The first start of a configuration may download the server (npx
	 * -y, uvx): until a start has got ready, or has run out of it, a
	 * start may take first_start_timeout_ms when that is longer than
	 * init_timeout_ms.  Set when the worker is made and when a reload
	 * changes how it runs; an instance spends its template's.
	 */
	int			 first_start;
	uint32_t		 start_limit_ms;	/* the start under way */
	const char		*start_limit_name;	/* its setting */
	uint64_t		 next_restart_at_ms;

	int64_t			 next_upstream_id; /* never reset */
	int64_t			 init_id;
	cJSON			*init_result;
	char			*init_text;	/* init_result, printed */
	int			 was_ready;	/* some session got ready */
	struct router		*router;
	int			 removing;	/* gone from the config */
	/*
	 * It refused initialize for want of a protocol version mcpd
	 * speaks with servers: failed, not restarted (worker_session.c).
	 */
	int			 version_refused;
	/* A server of MCP 2026-07-28 (worker_modern.c). */
	struct worker_modern	*modern;
	int			 modern_handshake; /* server/discover sent */
	int			 modern_up;	/* the session is one */
	/*
	 * Its era of MCP (worker_probe.c): this start's, or the last one's;
	 * era_cached: it went by the verdict kept for its configuration.
	 * While probing, server/discover is out as the probe, for probe_ms
	 * (ev_probe); probe_late_id is its id once initialize followed
	 * without its answer (dropped if it comes); probe_broke: a pipe
	 * closed meanwhile; probe_retry: this start follows one that ended
	 * on the probe (not a restart).
	 */
	struct probe_verdict	 era;
	int			 era_cached;
	int			 probing;
	uint32_t		 probe_ms;
	struct event		*ev_probe;
	int64_t			 probe_late_id;
	int			 probe_broke;
	int			 probe_retry;
	struct event		*ev_free;

	struct logs		*logs;		/* its stderr */
	struct rlink		*rlink;		/* a remote server's; or NULL */

	/*
	 * A server not shared globally (instance.c) is a template: it never
	 * runs; its instances, workers of their own named NAME#N, do.  An
	 * instance's roots are its client's (per-client) or its set's
	 * (per-roots), unknown until its first client's are known; a
	 * global server's are the configured ones.
	 */
	struct worker		*parent;	/* an instance's template */
	uint32_t		 instance_no;
	uint32_t		 instances_made; /* a template's, numbers them */
	size_t			 ninstances;	/* a template's, alive now */
	pid_t			 owner_pid;	/* per-client: made for it */
	uid_t			 owner_uid;	/* and its user */
	struct roots		 roots;
	int			 roots_known;
	struct event		*ev_unused;	/* an instance nobody uses */
	uint64_t		 unused_ms;	/* for this long */

	uint64_t		 lines_in;
	uint64_t		 nonjson_lines;
	uint64_t		 oversize;
	uint64_t		 violations;

	TAILQ_ENTRY(worker)	 entry;
};

/*
 * worker.c: the state machine.
 */
/* Every start but the first is a restart. */
uint64_t	 worker_restarts(const struct worker *);
void		 worker_evtimer_add_ms(struct event *, uint64_t ms);
/* The one way to change state: one journal event per transition. */
void		 worker_set_state(struct worker *, enum worker_state next,
		    const char *reason);
void		 worker_set_reason(char **slot, const char *reason);
/* A frozen server is needed: thawed and ready again (why: static). */
void		 worker_thaw(struct worker *, const char *why);
void		 worker_spawn(struct worker *);
void		 worker_fail_stop(struct worker *, const char *reason,
		    int signal);
void		 worker_kill(struct worker *, const char *reason);
void		 worker_begin_stop(struct worker *, enum worker_after);
/* The transport's last word (worker_transport_cb's ended). */
void		 worker_tp_ended(void *arg, int wstatus);
enum worker_reconf worker_enable(struct worker *);
struct worker	*worker_make(struct mcpd *, const struct conf_server *,
		    const char *name, struct worker *after);
struct worker	*worker_new_stopped(struct mcpd *,
		    const struct conf_server *);

/* "30 s", "200 ms": a limit as messages give it. */
void		 worker_ms_text(char *, size_t, uint64_t ms);

/*
 * worker_stderr.c: the stderr line that says why a run ended.
 */
void		 worker_stderr_line(struct worker *, const char *line,
		    size_t len, size_t total);
void		 worker_stderr_forget(struct worker *);
/* The run ended; fail: it failed, so its line is last_stderr. */
void		 worker_stderr_ended(struct worker *, int fail);

/*
 * worker_sandbox.c: a start's sandbox, prepared; what held; a denial.
 */
struct worker_sb;
struct child_sandbox;
int		 worker_sandbox_prepare(struct worker *, struct worker_sb **,
		    char **cause);
const struct child_sandbox *worker_sandbox_child(const struct worker_sb *);
void		 worker_sandbox_free(struct worker_sb *);
void		 worker_sandbox_started(struct worker *);
void		 worker_sandbox_stderr(struct worker *, const char *line,
		    size_t len);
/* The hint to add to a failed run's exit, or NULL. */
const char	*worker_sandbox_denial(const struct worker *, uint64_t now_ms);
void		 worker_sandbox_json(const struct worker *, cJSON *);

/*
 * worker_session.c: the session on the transport.
 */
extern const struct transport_cb worker_transport_cb;
void		 worker_session_events(struct worker *);
void		 worker_health_start(struct worker *);
void		 worker_send_initialize(struct worker *);
/* initialize itself, under a new init_id. */
void		 worker_send_init_2025(struct worker *);

/*
 * worker_demand.c: on-demand starts, idle stops.
 */
void		 worker_demand_events(struct worker *);
uint64_t	 worker_idle_stop_ms(const struct worker *);
void		 worker_idle_start(struct worker *);
int		 worker_unwanted(const struct worker *);

/*
 * worker_freeze.c: "idle": "freeze", a ready server's process frozen
 * instead of stopped, thawed by the next message for it.
 */
void		 worker_freeze_init(struct worker *);
void		 worker_freeze_free(struct worker *);
/* 1 if an idle stop of it is to be a freeze. */
int		 worker_freezes(const struct worker *);
/* Ask for the freeze (the caller makes it frozen); -1: *cause. */
int		 worker_freeze_begin(struct worker *, char **cause);
/* ev_freeze ran: -1 if the freeze is to be given up (*why), else 0. */
int		 worker_freeze_check(struct worker *, const char **why);
/* worker_set_state: it leaves frozen for next (thawed first). */
void		 worker_freeze_left(struct worker *, enum worker_state next);
/* The server wrote something (the thaw's latency, if it follows one). */
void		 worker_freeze_heard(struct worker *);
void		 worker_freeze_json(const struct worker *, cJSON *o,
		    cJSON *stats);

/*
 * worker_instance.c: templates and instances.
 */
void		 worker_instance_events(struct worker *);
void		 worker_template_enable(struct worker *);
void		 worker_template_each(struct worker *,
		    void (*)(struct worker *));
enum worker_reconf worker_template_reconfigure(struct worker *,
		    int was_disabled, int when_only);
void		 worker_set_conf_roots(struct worker *);
struct worker	*worker_make_instance(struct worker *tmpl, uint32_t no,
		    pid_t owner, uid_t owner_uid);
/* The router's upstream: a client's roots are known (mcpd->client_roots). */
struct attachment;
void		 worker_client_roots(struct attachment *,
		    const struct roots *);

/*
 * worker_modern.c: a server of MCP 2026-07-28 as the router's 2025
 * session.
 */
struct envelope_span;
/* The handshake: server/discover under a new init_id. */
void		 worker_modern_discover(struct worker *);
/* A message to the server (the router's), made a 2026 one. */
int		 worker_modern_write(struct worker *, const char *line,
		    size_t len);
/* A line from the server, made fit for the session, to the router. */
void		 worker_modern_line(struct worker *, const char *line,
		    size_t len, const struct envelope_span *plain);
/* The session ended: let go of its state. */
void		 worker_modern_end(struct worker *);
/* The session is up: the listen stream for what its capabilities say. */
void		 worker_modern_kinds(struct worker *, const cJSON *caps);
/* A session taken over from a re-exec's old mcpd: 2026-07-28 if it was. */
void		 worker_modern_adopt(struct worker *, char *const *subs,
		    size_t nsubs);
/* A retry of worker_modern_input.c's, with caller's capabilities. */
int		 worker_modern_retry(struct worker *, const char *line,
		    size_t len, int64_t caller);

/*
 * worker_modern_input.c: a 2026-07-28 server's input_required, put to
 * the client that made the request, and the request retried.
 */
struct envelope;
struct worker_inputs;
/* A request that may need input, on its way: its text kept. */
void		 worker_input_keep(struct worker *, struct worker_inputs **,
		    const char *line, size_t len, const struct envelope *);
/*
 * The server's response: 1 once taken (a round), 2 with *rewritten (its
 * end, under the router's id, malloc'd), 0 to go on as it is.
 */
int		 worker_input_answer(struct worker *, struct worker_inputs *,
		    const char *line, size_t len, const struct envelope *,
		    char **rewritten, size_t *rlen);
/* The router's message (a client's answer, a cancel): 1 once taken. */
int		 worker_input_router(struct worker *, struct worker_inputs *,
		    const char *line, size_t len, const struct envelope *);
void		 worker_input_free(struct worker_inputs *);

struct envelope;

/*
 * worker_modern_tasks.c: 2025's tasks, run by mcpd on a 2026 server with
 * plain calls (the router keeps whose each one is).
 */
struct wtasks;
/* What it asks of worker_modern.c (arg: the worker). */
struct wtasks_io {
	/* Answer the router's request id: member is "result":... text. */
	void	 (*answer)(void *, const char *id, size_t id_len,
		    const char *member);
	/* A line (taken, malloc'd) to the router. */
	void	 (*queue)(void *, char *line, size_t len);
	/* A request of mcpd's to the server, with the 2026 _meta. */
	int	 (*forward)(void *, const char *line, size_t len);
	/* notifications/cancelled of mcpd's request up_id. */
	void	 (*cancel_up)(void *, int64_t up_id, const char *reason);
	/* An id for a request of mcpd's. */
	int64_t	 (*next_id)(void *);
};
struct wtasks	*wtasks_new(const struct wtasks_io *, void *arg);
void		 wtasks_free(struct wtasks *);
/* A request of the router's: 1 if it was about tasks, and is taken. */
int		 wtasks_request(struct wtasks *, const char *line, size_t len,
		    const struct envelope *);
/* A response of the server's: 1 if it was a task's call, and is taken. */
int		 wtasks_response(struct wtasks *, const char *line,
		    const struct envelope *);

/*
 * worker_modern_cache.c: a 2026 server's public results (cacheScope
 * "public", ttlMs > 0), given again until their ttl is up.
 */
struct wmcache;
struct wmcache	*wmcache_new(void);
void		 wmcache_free(struct wmcache *);
/*
 * A request to the server: its result (malloc'd, *result_len) if one is
 * kept and fresh, else NULL (and, if it is one to keep, its id noted).
 */
char		*wmcache_request(struct wmcache *, const char *line,
		    const struct envelope *, size_t *result_len);
/* A response of the server's: kept if it is one of those and public. */
void		 wmcache_response(struct wmcache *, const char *line,
		    const struct envelope *);
/* A notification of the server's: drops what it says has changed. */
void		 wmcache_note(struct wmcache *, const char *line,
		    const struct envelope *);
/* Requests answered from it. */
uint64_t	 wmcache_hits(const struct wmcache *);

/*
 * worker_probe.c: the era of MCP a server speaks, found in place.
 */
/*
 * It decides and keeps the verdict; the session (worker_session.c) sends
 * and owns ev_probe's callback, the state machine (worker.c) starts again.
 */
/* A new process: 1 if server/discover went first, else initialize is due. */
int		 worker_probe_begin(struct worker *);
/*
 * The probe's answer: 1 if it was one that makes the server 2025
 * (initialize is due, in the same process), 0 if not the probe's or 2026.
 */
int		 worker_probe_response(struct worker *, const cJSON *msg);
/* ev_probe ran out: 1 if the probe was still out (initialize is due). */
int		 worker_probe_silent(struct worker *);
/* An answer to the probe after initialize went: 1, to be dropped. */
int		 worker_probe_stale(struct worker *, int64_t id);
/* A pipe closed (the transport's broke). */
void		 worker_probe_broke(struct worker *);
/* The process ended: 1 if while probing, by itself (probe-intolerant). */
int		 worker_probe_ended(struct worker *);
/* The session is up (modern: as 2026-07-28): the verdict kept. */
void		 worker_probe_ready(struct worker *, int modern);
/* How this start's era was found ("cached", probe.h's names), or NULL. */
const char	*worker_probe_found(const struct worker *);
void		 worker_probe_json(const struct worker *, cJSON *);

#endif /* MCPD_WORKER_INT_H */
