/*
 * mcpd.h -- the daemon's root context, passed explicitly to every module.
 *
 * Each field has one owner, the module named beside it: only that module
 * changes it; the others read it, or call the owner.
 */
#ifndef MCPD_MCPD_H
#define MCPD_MCPD_H

#include <sys/queue.h>

#include <stdint.h>
#include <sys/types.h>

#include <event2/event.h>


struct attachment;
struct client;
struct client_handler;
struct client_pool;
struct conf;
struct group_registry;
struct guard;
struct listener;
struct login;
struct logs_followers;
struct logs_pool;
struct principals;
struct probe_cache;
struct roots;
struct router;
struct sdnotify;
struct transport;
struct worker;

TAILQ_HEAD(worker_list, worker);
TAILQ_HEAD(client_list, client);
TAILQ_HEAD(transport_list, transport);
TAILQ_HEAD(login_list, login);

struct mcpd {
	/* mcpd.c: the loop, the files, the signals, the shutdown. */
	struct event_base	*base;
	char			*config_file;
	char			*socket_path;
	char			*token_dir;	/* sign-ins' tokens */
	char			*pin_dir;	/* pins files; NULL: none */
	/* pins_store.c: the pins files loaded, one slot per server key. */
	struct pins_slot	*pin_slots;
	struct listener		*listener;	/* listener.c's object */
	struct event		*ev_sigterm;
	struct event		*ev_sigint;
	struct event		*ev_sigchld;
	struct event		*ev_sighup;
	struct event		*ev_sigusr2;	/* a re-exec (reexec.c) */
	int			 shutting_down;
	uint64_t		 started_ms;	/* the first mcpd's, on re-exec */
	uint64_t		 reexecs;	/* reexec.c: since the start */
	/* mcpd.c at start, reload.c on reload. */
	struct conf		*conf;
	/*
	 * client_modern.c: the key of the requestStates mcpd gives 2026
	 * clients (rstate.h), made at the first; it dies with the process.
	 */
	uint8_t			 state_key[32];
	int			 state_keyed;

	struct sdnotify		*sdnotify;	/* sdnotify.c */
	struct logs_pool	*logs_pool;	/* logs.c: followers, NULL: none */
	/* mcpd.c: logs.c's, told of each stderr line (logs_ring.c). */
	const struct logs_followers *logs_followers;
	struct guard		*guard;		/* guard.c; NULL: none */
	struct transport_list	 transports;	/* transport.c */
	struct login_list	 logins;	/* login.c: sign-ins under way */
	size_t			 budget_used;	/* budget.c: held for peers */
	size_t			 budget_peak;	/* budget.c: since last trim */

	/* worker.c */
	struct worker_list	 workers;
	/* mcpd.c: told when a worker changes state (shutdown, status). */
	void			(*worker_changed)(struct mcpd *);
	/* mcpd.c: instance.c's, when a client's roots are known. */
	void			(*client_roots)(struct attachment *,
				    const struct roots *);
	/*
	 * mcpd.c: group_shadow.c's, when mcpd has read a server's whole
	 * tools or prompts list (router_shadow.c); NULL: nobody is told.
	 */
	void			(*member_listed)(struct mcpd *,
				    struct router *, const char *server);
	uint64_t		 workers_total;	/* numbers workers, never reused */
	uint64_t		 protocol_violations;
	/*
	 * worker_probe.c: each configuration's era of MCP (probe.h), NULL
	 * until the first is found; handed across a re-exec.
	 */
	struct probe_cache	*probe_cache;

	/* group.c: sessions of clients attached to groups, counters */
	struct group_registry	*groups;

	/* principal.c: the bridges' principals; NULL until one */
	struct principals	*principals;

	/* client.c */
	struct client_list	 clients;
	/* Every connection's base handler (control.c's; mcpd.c sets it). */
	const struct client_handler *client_base;
	struct client_pool	*client_pool;	/* cron, fd reserve */
	uint64_t		 clients_total;
	size_t			 nclients;	/* connections open now */
};

#endif /* MCPD_MCPD_H */
