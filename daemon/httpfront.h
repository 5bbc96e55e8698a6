/*
 * httpfront.h -- mcpd-http, the HTTP front, run and watched by mcpd while
 * "mcpd": {"http": ...} is configured or systemd passed sockets named
 * "http": started with the object's text (or the defaults) and those
 * sockets, started again after it exits (with a growing delay),
 * restarted when the object changes on reload, stopped when it goes away
 * (and no socket was passed) or mcpd stops.
 */
#ifndef MCPD_HTTPFRONT_H
#define MCPD_HTTPFRONT_H

#include <sys/types.h>

#include <stddef.h>

#include <cjson/cJSON.h>

struct mcpd;

/* Make the front match mcpd->conf->http (start, restart or stop it). */
void	httpfront_apply(struct mcpd *);
/* Is pid the front's?  Then its exit is taken (and a restart planned). */
int	httpfront_reaped(struct mcpd *, pid_t, int wstatus);
/* Stop it (SIGTERM) and forget it: shutdown, re-exec. */
void	httpfront_stop(struct mcpd *);
/*
 * The front for mcpctl status: state, pid, uptime_ms, restarts, the
 * addresses it serves (listen); NULL when it is off.
 */
cJSON	*httpfront_json(const struct mcpd *);
/* The front's pid, or 0. */
pid_t	httpfront_pid(const struct mcpd *);
/*
 * A listening socket systemd passed as "http" (or the state of a re-exec
 * handed over): held, close-on-exec, for every run of the front; closed
 * if its address cannot be read or there are too many.
 */
void	httpfront_add_socket(struct mcpd *, int fd);
/* Those sockets (for the state of a re-exec); how many. */
size_t	httpfront_sockets(const struct mcpd *, const int **fds);

#endif /* MCPD_HTTPFRONT_H */
