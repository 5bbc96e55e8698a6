/*
 * httpfront.h -- mcpd-http, the HTTP front, run and watched by mcpd while
 * "mcpd": {"http": ...} is configured: started with the object's text,
 * started again after it exits (with a growing delay), restarted when the
 * object changes on reload, stopped when it goes away or mcpd stops.
 */
#ifndef MCPD_HTTPFRONT_H
#define MCPD_HTTPFRONT_H

#include <sys/types.h>

struct mcpd;

/* Make the front match mcpd->conf->http (start, restart or stop it). */
void	httpfront_apply(struct mcpd *);
/* Is pid the front's?  Then its exit is taken (and a restart planned). */
int	httpfront_reaped(struct mcpd *, pid_t, int wstatus);
/* Stop it (SIGTERM) and forget it: shutdown, re-exec. */
void	httpfront_stop(struct mcpd *);
/* The front's pid, or 0. */
pid_t	httpfront_pid(const struct mcpd *);

#endif /* MCPD_HTTPFRONT_H */
