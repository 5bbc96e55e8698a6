/*
 * peeruid.c -- the uid at the other end of a TCP connection, from the
 * kernel (see peeruid.h): the netlink I/O around sockdiag.c.
 *
 * One question at a time, answered at once: an exact sock_diag lookup
 * is answered while the request is sent, so the wait for it is only a
 * bound against a kernel that never answers.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "peeruid.h"
#include "sockdiag.h"
#include "xmalloc.h"

struct peeruid {
	int		 fd;
	uint32_t	 seq;
};

struct peeruid *
peeruid_open(char **cause)
{
	struct sockaddr_nl	 kernel;
	struct peeruid		*pu;
	int			 fd;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd == -1) {
		xasprintf(cause, "sock_diag: socket: %s", strerror(errno));
		return (NULL);
	}
	/* Connected to the kernel, it takes no datagram from a process. */
	memset(&kernel, 0, sizeof kernel);
	kernel.nl_family = AF_NETLINK;
	if (connect(fd, (struct sockaddr *)&kernel, sizeof kernel) == -1) {
		xasprintf(cause, "sock_diag: connect: %s", strerror(errno));
		close(fd);
		return (NULL);
	}
	pu = xcalloc(1, sizeof *pu);
	pu->fd = fd;
	return (pu);
}

void
peeruid_close(struct peeruid *pu)
{
	if (pu == NULL)
		return;
	close(pu->fd);
	free(pu);
}

/* Ask about the socket bound to local and connected to remote. */
static int
peeruid_ask(struct peeruid *pu, const struct sockaddr *local,
    const struct sockaddr *remote, struct sockdiag_owner *owner,
    char **cause)
{
	union {
		struct nlmsghdr	 h;	/* for its alignment */
		unsigned char	 b[SOCKDIAG_REPLY_BYTES];
	}			 reply;
	unsigned char		 req[SOCKDIAG_REQUEST_BYTES];
	struct sockaddr_nl	 from;
	struct pollfd		 pfd;
	socklen_t		 fromlen;
	uint64_t		 deadline;
	int64_t			 left;
	size_t			 len;
	ssize_t			 n;
	uint32_t		 seq;
	int			 err;

	seq = ++pu->seq;
	if ((len = sockdiag_request(req, sizeof req, local, remote,
	    seq)) == 0) {
		xasprintf(cause, "sock_diag: not an IPv4 or IPv6 connection");
		return (-1);
	}
	while (send(pu->fd, req, len, 0) == -1) {
		if (errno != EINTR) {
			xasprintf(cause, "sock_diag: send: %s",
			    strerror(errno));
			return (-1);
		}
	}
	deadline = clock_now_ms() + PEERUID_REPLY_TIMEOUT_MS;
	for (;;) {
		fromlen = sizeof from;
		n = recvfrom(pu->fd, reply.b, sizeof reply.b, MSG_DONTWAIT,
		    (struct sockaddr *)&from, &fromlen);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			left = (int64_t)deadline - (int64_t)clock_now_ms();
			if (left <= 0) {
				xasprintf(cause, "sock_diag: no answer from "
				    "the kernel within %d ms",
				    PEERUID_REPLY_TIMEOUT_MS);
				return (-1);
			}
			pfd.fd = pu->fd;
			pfd.events = POLLIN;
			(void)poll(&pfd, 1, (int)left);
			continue;
		}
		if (n == -1) {
			xasprintf(cause, "sock_diag: %s", strerror(errno));
			return (-1);
		}
		if (fromlen < sizeof from || from.nl_pid != 0)
			continue;	/* not the kernel's */
		switch (sockdiag_reply(reply.b, (size_t)n, seq, local, remote,
		    owner, &err)) {
		case SOCKDIAG_FOUND:
			return (1);
		case SOCKDIAG_NO_SOCKET:
			return (0);
		case SOCKDIAG_ERROR:
			xasprintf(cause, "sock_diag: %s", strerror(err));
			return (-1);
		case SOCKDIAG_MALFORMED:
			xasprintf(cause, "sock_diag: the kernel's answer is "
			    "malformed or about another socket");
			return (-1);
		case SOCKDIAG_NOT_YET:
			break;	/* an answer to an earlier question */
		}
	}
}

/* The address fd is bound to. */
static int
peeruid_sockname(int fd, struct sockaddr_storage *us, char **cause)
{
	socklen_t	 len = sizeof *us;

	if (getsockname(fd, (struct sockaddr *)us, &len) == -1) {
		xasprintf(cause, "getsockname: %s", strerror(errno));
		return (-1);
	}
	return (0);
}

int
peeruid_remote(struct peeruid *pu, int fd, uid_t *uid, char **cause)
{
	struct sockaddr_storage	 us, them;
	struct sockdiag_owner	 owner;
	socklen_t		 len;
	int			 rv;

	if (peeruid_sockname(fd, &us, cause) == -1)
		return (-1);
	len = sizeof them;
	if (getpeername(fd, (struct sockaddr *)&them, &len) == -1) {
		if (errno == ENOTCONN)
			return (0);	/* reset already */
		xasprintf(cause, "getpeername: %s", strerror(errno));
		return (-1);
	}
	/* The other end's socket: bound to our peer, connected to us. */
	rv = peeruid_ask(pu, (struct sockaddr *)&them, (struct sockaddr *)&us,
	    &owner, cause);
	if (rv != 1)
		return (rv);
	if (owner.inode == 0)
		return (0);
	*uid = owner.uid;
	return (1);
}

int
peeruid_self(struct peeruid *pu, int fd, uid_t *uid, char **cause)
{
	struct sockaddr_storage	 us, none;
	struct sockdiag_owner	 owner;
	struct stat		 st;
	int			 rv;

	if (peeruid_sockname(fd, &us, cause) == -1)
		return (-1);
	if (fstat(fd, &st) == -1) {
		xasprintf(cause, "fstat: %s", strerror(errno));
		return (-1);
	}
	/* A listener is connected to nothing: the unspecified address. */
	memset(&none, 0, sizeof none);
	none.ss_family = us.ss_family;
	if ((rv = peeruid_ask(pu, (struct sockaddr *)&us,
	    (struct sockaddr *)&none, &owner, cause)) == -1)
		return (-1);
	if (rv == 0) {
		xasprintf(cause, "sock_diag does not find mcpctl's own "
		    "listener");
		return (-1);
	}
	if (owner.inode != (uint64_t)st.st_ino) {
		xasprintf(cause, "sock_diag answers about socket inode %llu "
		    "for mcpctl's own listener, whose inode is %llu",
		    (unsigned long long)owner.inode,
		    (unsigned long long)st.st_ino);
		return (-1);
	}
	*uid = owner.uid;
	return (0);
}
