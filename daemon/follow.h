/*
 * follow.h -- the servers one connection follows (mcpctl logs -f).
 *
 * Following is a property of the connection: it keeps the serial numbers
 * of the servers it follows (logs_serial, never reused), and a server
 * never points at its followers.  logs.c offers a new stderr line to every
 * connection whose set holds its server's serial, and takes a removed
 * server out of every set.  Pure: no I/O, no libevent, so the control path
 * is fuzzed with it as it is.
 */
#ifndef MCPD_FOLLOW_H
#define MCPD_FOLLOW_H

#include <stddef.h>
#include <stdint.h>

/* Zeroed is empty.  Each serial at most once. */
struct follow_set {
	uint64_t	*serials;
	size_t		 n;
};

/* Following a server twice is following it once; 1 if it was empty. */
int	follow_add(struct follow_set *, uint64_t serial);
int	follow_has(const struct follow_set *, uint64_t serial);
int	follow_empty(const struct follow_set *);
/* 1 if serial was the last one it held (it is empty now). */
int	follow_remove(struct follow_set *, uint64_t serial);
void	follow_clear(struct follow_set *);

#endif /* MCPD_FOLLOW_H */
