/*
 * mcpd.h -- the daemon's root context, passed explicitly to every module.
 */
#ifndef MCPD_MCPD_H
#define MCPD_MCPD_H

#include <sys/queue.h>

#include <stdint.h>
#include <sys/types.h>

#include <event2/event.h>

#include "clock.h"

struct conf;
struct listener;
struct notify;
struct worker;
struct client;
struct client_pool;
struct logs_pool;

TAILQ_HEAD(worker_list, worker);
TAILQ_HEAD(client_list, client);

struct mcpd {
	struct event_base	*base;
	struct conf		*conf;
	char			*config_file;
	char			*socket_path;
	struct listener		*listener;
	struct notify		*notify;
	int			 guard_fd;	/* -1: no guard */
	pid_t			 guard_pid;
	struct worker_list	 workers;
	struct client_list	 clients;
	struct event		*ev_sigterm;
	struct event		*ev_sigint;
	struct event		*ev_sigchld;
	struct event		*ev_sighup;
	int			 shutting_down;
	uint64_t		 started_ms;
	uint64_t		 protocol_violations;
	uint64_t		 clients_total;
	size_t			 nclients;	/* connections open now */
	size_t			 budget_used;	/* bytes held for peers */
	struct client_pool	*client_pool;	/* client.c: cron, fd reserve */
	struct logs_pool	*logs_pool;	/* logs.c: followers, NULL: none */
	uint64_t		 workers_total;	/* numbers workers, never reused */
};

/* Monotonic time for timers and backoff; the wall clock for timestamps. */
#define mcpd_now_ms()		clock_now_ms()
#define mcpd_now_us()		clock_now_us()
#define mcpd_realtime_us()	clock_realtime_us()
struct worker	*mcpd_find_worker(struct mcpd *, const char *name);
/* A worker changed state: lets shutdown finish when all have stopped. */
void		 mcpd_worker_changed(struct mcpd *);
/*
 * mcpd raises its soft RLIMIT_NOFILE to the hard limit at start; a server
 * gets back the soft limit mcpd started with (programs that use select()
 * break above 1024).  Call in the child, between fork and execve.
 */
void		 mcpd_restore_nofile(void);

#endif /* MCPD_MCPD_H */
