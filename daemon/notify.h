/*
 * notify.h -- telling the service manager how mcpd is doing (sd_notify):
 * READY=1, a one-line STATUS=, RELOADING=1, STOPPING=1 and watchdog
 * pings.  Without $NOTIFY_SOCKET every call does nothing.
 */
#ifndef MCPD_NOTIFY_H
#define MCPD_NOTIFY_H

struct mcpd;

void	notify_start(struct mcpd *);	/* READY=1, watchdog, status timer */
void	notify_status(struct mcpd *);	/* STATUS= if the summary changed */
void	notify_reloading(struct mcpd *);
void	notify_reloaded(struct mcpd *);
void	notify_stopping(struct mcpd *);
void	notify_free(struct mcpd *);

#endif /* MCPD_NOTIFY_H */
