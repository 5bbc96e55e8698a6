/*
 * sockdiag.h -- the pure half of asking Linux who owns a TCP socket
 * (sock_diag(7), NETLINK_SOCK_DIAG with inet_diag): the request for one
 * socket named by its own addresses, and what the kernel's answer says.
 * peeruid.c does the I/O.
 *
 * A socket is named from its own side: local is the address it is bound
 * to, remote the one it is connected to (the unspecified address, port
 * 0, for a listener).  To ask about the other end of a connection, pass
 * the connection's remote address as local and its local one as remote.
 * IPv4 and IPv6; nothing here does I/O, and an answer is believed only
 * if it is about the socket asked for.
 */
#ifndef MCPD_SOCKDIAG_H
#define MCPD_SOCKDIAG_H

#include <sys/types.h>
#include <sys/socket.h>

#include <stddef.h>
#include <stdint.h>

/* Room for one request; an answer to one fits in SOCKDIAG_REPLY_BYTES. */
#define SOCKDIAG_REQUEST_BYTES	128
#define SOCKDIAG_REPLY_BYTES	8192

struct sockdiag_owner {
	uid_t		 uid;	/* who created the socket */
	uint64_t	 inode;	/* 0: no process holds it any more */
	int		 state;	/* TCP_ESTABLISHED, TCP_LISTEN, ... */
};

enum sockdiag_answer {
	SOCKDIAG_FOUND,		/* *owner is filled */
	SOCKDIAG_NO_SOCKET,	/* the kernel knows no such socket */
	SOCKDIAG_ERROR,		/* it refused the request: *error */
	SOCKDIAG_MALFORMED,	/* an answer that cannot be about it */
	SOCKDIAG_NOT_YET,	/* nothing for this request in the buffer */
};

/*
 * The netlink message asking for the TCP socket bound to local and
 * connected to remote (both AF_INET or both AF_INET6), with sequence
 * number seq, in buf; its length, or 0 if the addresses cannot be asked
 * about (another family, or families that differ) or size is too small.
 */
size_t			sockdiag_request(void *buf, size_t size,
			    const struct sockaddr *local,
			    const struct sockaddr *remote, uint32_t seq);
/*
 * What a datagram read from the netlink socket says of the request with
 * sequence number seq about local and remote.  Messages of other
 * requests are skipped.
 */
enum sockdiag_answer	sockdiag_reply(const void *buf, size_t len,
			    uint32_t seq, const struct sockaddr *local,
			    const struct sockaddr *remote,
			    struct sockdiag_owner *owner, int *error);

#endif /* MCPD_SOCKDIAG_H */
