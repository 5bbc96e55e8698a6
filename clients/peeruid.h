/*
 * peeruid.h -- who is at the other end of a TCP connection on this
 * machine: the uid the kernel gives the socket there, asked with
 * sock_diag(7) (sockdiag.h), as SO_PEERCRED tells it for a Unix socket.
 * For mcpctl login's listener on 127.0.0.1, which every local user can
 * connect to.
 *
 * A socket's uid is that of the process that created it; a socket no
 * process holds any more (closed, its connection still winding down)
 * belongs to no one, and is reported as such rather than as uid 0.
 * Answers come only from the kernel: the netlink socket is connected to
 * it, so no process can slip in an answer of its own.
 */
#ifndef MCPD_PEERUID_H
#define MCPD_PEERUID_H

#include <sys/types.h>

/* How long the kernel may take to answer one question. */
#define PEERUID_REPLY_TIMEOUT_MS	2000

struct peeruid;

/* A netlink socket for the questions; NULL with *cause. */
struct peeruid	*peeruid_open(char **cause);
void		 peeruid_close(struct peeruid *);
/*
 * The uid of the socket at the other end of the connected TCP socket fd
 * (its peer on this machine): 1 with *uid, 0 if no process holds such a
 * socket (it was closed, or the peer is elsewhere), -1 with *cause.
 */
int		 peeruid_remote(struct peeruid *, int fd, uid_t *uid,
		    char **cause);
/*
 * The uid the kernel gives this process's own socket fd (a listener):
 * 0 with *uid, or -1 with *cause, also when the answer is not about fd
 * (another inode), so that the kernel's answers cannot be relied on.
 */
int		 peeruid_self(struct peeruid *, int fd, uid_t *uid,
		    char **cause);

#endif /* MCPD_PEERUID_H */
