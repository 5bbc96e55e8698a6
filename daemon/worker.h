/*
 * worker.h -- one configured MCP server: its transport (the child process
 * and its three pipes) and its session (the JSON-RPC state), supervised
 * rest_for_one: when either fails both are torn down and rebuilt after a
 * backoff delay.
 *
 *   stopped --start--> starting --spawned--> initializing --result--> ready
 *   any running state --exit/failure--> backoff --delay--> starting
 *   any running state --stop--> stopping --exit--> stopped
 *   backoff --give-up rule--> failed (only an admin start revives it)
 *
 * Every transition is one journal event (worker_set_state).
 */
#ifndef MCPD_WORKER_H
#define MCPD_WORKER_H

#include <sys/types.h>

#include <cjson/cJSON.h>

#include "conf.h"

struct mcpd;
struct worker;

enum worker_state {
	WORKER_STARTING,
	WORKER_INITIALIZING,
	WORKER_READY,
	WORKER_BACKOFF,
	WORKER_STOPPING,
	WORKER_STOPPED,
	WORKER_FAILED,
};

struct worker	*worker_new(struct mcpd *, const struct conf_server *);
void		 worker_free(struct worker *);
const char	*worker_name(const struct worker *);
enum worker_state worker_state(const struct worker *);
const char	*worker_state_name(enum worker_state);
pid_t		 worker_pid(const struct worker *);
/* 1 while a process exists (anything but backoff, stopped, failed). */
int		 worker_running(const struct worker *);

/* Admin actions; start forgets the backoff history. */
void		 worker_start(struct worker *);
void		 worker_stop(struct worker *);
void		 worker_restart(struct worker *);
/* Shutdown: SIGKILL the process group now (second signal to mcpd). */
void		 worker_kill_now(struct worker *);

/* The SIGCHLD handler found this worker's process exited. */
void		 worker_child_exited(struct worker *, int wstatus);
cJSON		*worker_status_json(const struct worker *);

/* Iterate over mcpd's workers (in configuration order). */
struct worker	*worker_first(struct mcpd *);
struct worker	*worker_next(struct worker *);

#endif /* MCPD_WORKER_H */
