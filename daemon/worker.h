/*
 * worker.h -- one configured MCP server: its transport (transport.h: the
 * process and its pipes) and its session (the JSON-RPC state), supervised
 * rest_for_one: when either fails both are torn down and rebuilt after a
 * backoff delay.
 *
 *   stopped --start--> starting --spawned--> initializing --result--> ready
 *   any running state --exit/failure--> backoff --delay--> starting
 *   any running state --stop--> stopping --exit--> stopped
 *   backoff --give-up rule--> failed (only an admin start revives it)
 *
 * On demand ("start": "on-demand", "idle_stop_s"):
 *   (new or enabled) --on demand--> idle --wanted or start--> starting
 *   ready --nothing to do for idle_stop_s--> stopping --exit--> idle
 *   on demand, nobody attached: --exit/failure--> idle (no backoff)
 *   idle --stop--> stopped
 *
 * Frozen ("idle": "freeze", worker_freeze.c):
 *   ready --nothing to do for idle_stop_s--> frozen --a request--> ready
 *   frozen --stop, restart, exit--> (thawed first) stopping...
 *
 * Every transition is one journal event (worker_set_state).
 */
#ifndef MCPD_WORKER_H
#define MCPD_WORKER_H

#include <sys/types.h>

#include <stdint.h>

#include <cjson/cJSON.h>

#include "conf.h"

struct envelope_edit;
struct iovec;
struct logs;
struct mcpd;
struct router;
struct transport;
struct worker;

enum worker_state {
	WORKER_STARTING,
	WORKER_INITIALIZING,
	WORKER_READY,
	WORKER_BACKOFF,
	WORKER_STOPPING,
	WORKER_STOPPED,
	WORKER_FAILED,
	WORKER_NEEDS_LOGIN,	/* a remote server waiting for a sign-in */
	WORKER_IDLE,		/* on demand: no process until wanted */
	WORKER_FROZEN,		/* ready, its process frozen until wanted */
};

/*
 * A re-exec (handover.h).  Export: the worker's part of the state; a
 * ready server whose pipes can be handed over is marked running, others
 * keep only their state (stopped, failed, needs-login, idle) or are to
 * start again.  worker_kill_unexported kills, just before the execve, a
 * process that is not handed over (s NULL: not exported at all), and
 * takes it off the guard's list, which crosses the execve.  worker_adopt is worker_new for the
 * next mcpd: the server runs on, ready, without a new initialize.
 */
struct handover_server;
void		 worker_export(struct worker *, struct handover_server *);
void		 worker_kill_unexported(struct worker *,
		    const struct handover_server *);
struct worker	*worker_adopt(struct mcpd *, const struct conf_server *,
		    const struct handover_server *);
/* A running instance of a template (worker_adopt'ed first); NULL: not. */
struct worker	*worker_adopt_instance(struct worker *tmpl,
		    const struct handover_server *);
/*
 * The eras of MCP found by configuration (worker_probe.c): freed at
 * exit, handed to the next mcpd across a re-exec.
 */
struct handover;
void		 worker_probe_free_all(struct mcpd *);
void		 worker_probe_export(struct mcpd *, struct handover *);
void		 worker_probe_adopt(struct mcpd *, const struct handover *);
/* The one place workers are made: it starts unless the entry is disabled. */
struct worker	*worker_new(struct mcpd *, const struct conf_server *);
void		 worker_free(struct worker *);
const char	*worker_name(const struct worker *);
enum worker_state worker_state(const struct worker *);
const char	*worker_state_name(enum worker_state);
/* 1 while a process exists (not backoff, stopped, failed, idle...). */
int		 worker_running(const struct worker *);

/*
 * A client needs the server (it attached, or a request of its is held):
 * an idle server starts (deferred); a no-op in any other state.  why is a
 * static string, for the journal.
 */
void		 worker_wanted(struct worker *, const char *why);

/* Admin actions; start forgets the backoff history. */
void		 worker_start(struct worker *);
void		 worker_stop(struct worker *);
void		 worker_restart(struct worker *);
/* Its stderr (logs.h): recent lines, followers of new ones. */
struct logs	*worker_logs(const struct worker *);

/* Reload: what a new configuration did to a server. */
enum worker_reconf {
	WORKER_RECONF_RESTARTED,
	WORKER_RECONF_STARTED,
	WORKER_RECONF_STOPPED,
	WORKER_RECONF_KEPT,	/* stopped: the new settings apply at start */
	WORKER_RECONF_IDLE,	/* idle: the new settings apply at start */
	WORKER_RECONF_UPDATED,	/* start, idle_stop_s: nothing restarts */
};
enum worker_reconf worker_reconfigure(struct worker *,
		    const struct conf_server *);
void		 worker_remove(struct worker *);
int		 worker_removing(const struct worker *);
/* Shutdown: SIGKILL the process group now (second signal to mcpd). */
void		 worker_kill_now(struct worker *);

/* Its status, naming no client (visible.h adds who uses an instance). */
cJSON		*worker_status_json(const struct worker *);
/*
 * The last line of its stderr before its last exit that was a failure,
 * secrets taken out, escaped and bounded; NULL: none.  Server stderr is
 * for administrators (visible.h).
 */
const char	*worker_last_stderr(const struct worker *);
/* Clients attached to it now. */
size_t		 worker_clients(const struct worker *);

/* What a client request meets: forwarded, held until ready, or refused. */
enum worker_avail {
	WORKER_AVAIL_READY,
	WORKER_AVAIL_WAIT,
	WORKER_AVAIL_REFUSE,
};

/* For the router. */
const struct conf_server *worker_conf(const struct worker *);
struct router	*worker_router(const struct worker *);
int64_t		 worker_next_upstream_id(struct worker *);
/* The cached upstream initialize result as JSON text. */
const char	*worker_init_result_text(const struct worker *);
enum worker_avail worker_availability(const struct worker *);
/*
 * How long the start under way (or the next, while none is) may take to
 * answer initialize, and the setting that says so: init_timeout_ms, or
 * first_start_timeout_ms for the first start of a configuration.
 */
uint32_t	 worker_start_limit(const struct worker *, const char **name);
/* Why requests are refused, for the error a client sees (malloc'd). */
char		*worker_unavailable_reason(const struct worker *);
/* The scope a call needed (a step-up), or NULL. */
const char	*worker_step_up(const struct worker *);
/* Its error code: MCPD_ERR_REMOTE_AUTH in needs-login, else -32011. */
int		 worker_unavailable_code(const struct worker *);
/* Queue a message (pieces, newline added) for the server's stdin. */
int		 worker_write(struct worker *, const struct iovec *, int);
/* The same for a line with one edit applied (outq_add_edit). */
int		 worker_write_edit(struct worker *, const char *line,
		    size_t len, const struct envelope_edit *);
size_t		 worker_stdin_queued(const struct worker *);
char		*worker_steal_line(struct worker *, const char *line,
		    size_t *size);
/* A stdout line that is not one JSON object: dropped and counted. */
void		 worker_dropped_line(struct worker *, const char *line,
		    size_t len, size_t error_off);
/* A request timed out: health_max_timeouts in a row mean it hangs. */
void		 worker_request_timed_out(struct worker *);
/* The server is broken: it is ended and restarted (deferred). */
void		 worker_broken(struct worker *, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
void		 worker_violation(struct worker *, const char *kind,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * Servers not shared globally ("share", instance.c).  The worker of the
 * configured entry is a template: it never runs, its state is idle (its
 * clients get instances) or stopped, admin actions apply to each of its
 * instances, and it keeps the last initialize result one of them got.
 * An instance is a worker of its own, NAME#N, listed after its template,
 * with its own roots: given when it is made (a per-roots set) or its
 * first client's, when known (worker_set_roots, which tells the server
 * when they change).  An instance nobody uses any more goes, at once or
 * idle_stop_s later (worker_unused, from the router).
 */
struct roots;
int		 worker_is_template(const struct worker *);
struct worker	*worker_parent(const struct worker *);
struct worker	*worker_instance_next(struct worker *tmpl,
		    struct worker *prev);
size_t		 worker_instances(const struct worker *tmpl);
/* owner: the process (and its user) a per-client instance is for; 0. */
struct worker	*worker_new_instance(struct worker *tmpl,
		    const struct roots *, pid_t owner, uid_t owner_uid);
pid_t		 worker_owner_pid(const struct worker *);
uid_t		 worker_owner_uid(const struct worker *);
/* The roots the server is given; NULL while an instance's are not known. */
const struct roots *worker_roots(const struct worker *);
void		 worker_set_roots(struct worker *, const struct roots *);
void		 worker_unused(struct worker *);
/* 1 once an initialize result is known (an instance's, for a template). */
int		 worker_has_init(const struct worker *);

/* The server of that name, not being removed; NULL: none. */
struct worker	*worker_find(struct mcpd *, const char *name);
/* Iterate over mcpd's workers (in configuration order). */
struct worker	*worker_first(struct mcpd *);
struct worker	*worker_next(struct worker *);
/* Its process while one runs (insider.c asks whose a peer is), or NULL. */
const struct transport *worker_transport(const struct worker *);

#endif /* MCPD_WORKER_H */
