/*
 * sdnotify.h -- telling the service manager how mcpd is doing (sd_notify):
 * READY=1, a one-line STATUS=, RELOADING=1, STOPPING=1 and watchdog
 * pings.  Without $NOTIFY_SOCKET every call does nothing.
 */
#ifndef MCPD_SDNOTIFY_H
#define MCPD_SDNOTIFY_H

struct mcpd;

void	sdnotify_start(struct mcpd *);	/* READY=1, watchdog, status timer */
void	sdnotify_status(struct mcpd *);	/* STATUS= if the summary changed */
void	sdnotify_reloading(struct mcpd *);
void	sdnotify_reloaded(struct mcpd *);
void	sdnotify_reexecuting(struct mcpd *, const char *binary);
void	sdnotify_stopping(struct mcpd *);
void	sdnotify_free(struct mcpd *);

#endif /* MCPD_SDNOTIFY_H */
