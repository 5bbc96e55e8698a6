/*
 * mcpd.h -- the daemon's root context, passed explicitly to every module.
 */
#ifndef MCPD_MCPD_H
#define MCPD_MCPD_H

#include <sys/queue.h>

#include <stdint.h>
#include <sys/types.h>

#include <event2/event.h>

struct conf;
struct listener;
struct notify;
struct worker;
struct client;

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
};

/* Monotonic milliseconds (timers, backoff); never the wall clock. */
uint64_t	 mcpd_now_ms(void);
uint64_t	 mcpd_now_us(void);
/* Wall clock in microseconds, for log timestamps only. */
uint64_t	 mcpd_realtime_us(void);
struct worker	*mcpd_find_worker(struct mcpd *, const char *name);
/* A worker changed state: lets shutdown finish when all have stopped. */
void		 mcpd_worker_changed(struct mcpd *);

#endif /* MCPD_MCPD_H */
