/*
 * budget.h -- one memory budget for everything mcpd holds for its peers:
 * each client's output queue and unfinished input line, each server's
 * stdin queue, and the requests held for a server that is starting.  The
 * total is kept exactly (explicit adds and subtractions by the holders) and
 * bounded by memory_budget_bytes.  Who pays when it is used up is decided
 * where the bytes come from: a new request is refused with -32015, and a
 * client that holds more than BUDGET_SHARE_BYTES (unread output, or a line
 * it has not finished) is disconnected with the reason.
 */
#ifndef MCPD_BUDGET_H
#define MCPD_BUDGET_H

#include <stddef.h>

/* What one client may hold while the budget is used up. */
#define BUDGET_SHARE_BYTES	(1024 * 1024)

struct mcpd;

void	budget_add(struct mcpd *, size_t);
void	budget_sub(struct mcpd *, size_t);
/* A holder that now holds now bytes, *held before: the difference. */
void	budget_hold(struct mcpd *, size_t *held, size_t now);
size_t	budget_used(const struct mcpd *);
int	budget_exhausted(const struct mcpd *);
/*
 * Once a second (client.c's cron): if peers made mcpd hold a lot since
 * the last time (BUDGET_TRIM_PEAK_BYTES, a large message) and hold little
 * now, return the free heap to the system (malloc_trim).  mcpd keeps
 * large messages on the heap rather than in an mmap each (mcpd.c), so
 * without this its RSS would stay at the largest message seen.
 */
#define BUDGET_TRIM_PEAK_BYTES	(4 * 1024 * 1024)
void	budget_trim(struct mcpd *);

#endif /* MCPD_BUDGET_H */
