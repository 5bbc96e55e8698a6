/*
 * reexec.h -- a live re-exec (mcpctl reexec, SIGUSR2): mcpd hands its
 * servers, their pipes and sessions, the listening socket and the guard
 * to the mcpd binary installed now, through execve, without stopping a
 * server.
 *
 * The state (handover.h) goes in a sealed memfd whose number the new
 * process gets as --reexec-state FD; every descriptor it names stays open
 * across the execve.  The execve comes only once the state is complete:
 * if the binary cannot be executed, this mcpd carries on as before and
 * says why.  The process keeps its pid, so the servers stay its children
 * and systemd sees the same main process.  Client connections are closed
 * by the execve (their bridges reconnect); requests they had in flight
 * are answered by the servers to ids the new process knows are the old
 * one's, and dropped.
 *
 * The new process, given state it cannot read (another version, or
 * malformed), logs why and exits: its servers end with it, as with any
 * exit of mcpd.  One that has not taken over 20 seconds after the execve
 * (a binary that hangs) is killed by an alarm set before it, with the
 * same end.
 */
#ifndef MCPD_REEXEC_H
#define MCPD_REEXEC_H

#include <signal.h>

struct mcpd;

/*
 * The signals a re-exec blocks across the execve, for the new process to
 * unblock once its handlers are in place (their default would kill it).
 */
void	 reexec_signals(sigset_t *);
/* At start: the command line to run again, and the binary's path. */
void	 reexec_init(int argc, char **argv);
/* The binary a re-exec runs. */
const char *reexec_binary(void);
/* Returns only on failure: -1, *cause saying why (malloc'd). */
int	 reexec_now(struct mcpd *, char **cause);
/*
 * In the new process, instead of opening the socket, starting the guard
 * and the servers: take them over from the state in fd.  Exits on
 * failure.
 */
void	 reexec_adopt(struct mcpd *, int fd);

#endif /* MCPD_REEXEC_H */
