/*
 * sockdiag.c -- sock_diag requests and answers, without I/O (see
 * sockdiag.h).
 *
 * The request is an exact lookup (no NLM_F_DUMP): the kernel finds the
 * one socket with that 4-tuple, established, closing or listening, and
 * answers with one inet_diag_msg, or an error (ENOENT when there is
 * none).  Its cookie is "none", so no earlier answer is needed.  Every
 * length in an answer is checked before it is read, fields are copied
 * out rather than read in place, and the tuple in the answer must be the
 * one asked for.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>

#include <errno.h>
#include <string.h>

#include "sockdiag.h"

/* The local end is the source, the remote one the destination. */
static void
sockdiag_ends(struct inet_diag_sockid *id, in_port_t lport, const void *laddr,
    in_port_t rport, const void *raddr, size_t alen)
{
	id->idiag_sport = lport;
	id->idiag_dport = rport;
	memcpy(id->idiag_src, laddr, alen);
	memcpy(id->idiag_dst, raddr, alen);
}

/* The socket's 4-tuple in inet_diag's terms; -1 for an unknown family. */
static int
sockdiag_id(struct inet_diag_sockid *id, const struct sockaddr *local,
    const struct sockaddr *remote)
{
	struct sockaddr_in	 l4, r4;
	struct sockaddr_in6	 l6, r6;

	memset(id, 0, sizeof *id);
	if (local->sa_family != remote->sa_family)
		return (-1);
	switch (local->sa_family) {
	case AF_INET:
		memcpy(&l4, local, sizeof l4);
		memcpy(&r4, remote, sizeof r4);
		sockdiag_ends(id, l4.sin_port, &l4.sin_addr, r4.sin_port,
		    &r4.sin_addr, sizeof l4.sin_addr);
		return (AF_INET);
	case AF_INET6:
		memcpy(&l6, local, sizeof l6);
		memcpy(&r6, remote, sizeof r6);
		sockdiag_ends(id, l6.sin6_port, &l6.sin6_addr, r6.sin6_port,
		    &r6.sin6_addr, sizeof l6.sin6_addr);
		return (AF_INET6);
	}
	return (-1);
}

size_t
sockdiag_request(void *buf, size_t size, const struct sockaddr *local,
    const struct sockaddr *remote, uint32_t seq)
{
	struct {
		struct nlmsghdr		nlh;
		struct inet_diag_req_v2	req;
	}	msg;
	int	family;

	if (size < sizeof msg)
		return (0);
	memset(&msg, 0, sizeof msg);
	if ((family = sockdiag_id(&msg.req.id, local, remote)) == -1)
		return (0);
	msg.nlh.nlmsg_len = sizeof msg;
	msg.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	msg.nlh.nlmsg_flags = NLM_F_REQUEST;
	msg.nlh.nlmsg_seq = seq;
	msg.req.sdiag_family = (uint8_t)family;
	msg.req.sdiag_protocol = IPPROTO_TCP;
	msg.req.idiag_states = ~0U;
	msg.req.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
	msg.req.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	memcpy(buf, &msg, sizeof msg);
	return (sizeof msg);
}

/* Is the IPv6 address got the IPv4 address want, mapped (::ffff:a.b.c.d)? */
static int
sockdiag_mapped(const uint32_t got[4], const uint32_t want[4])
{
	return (got[0] == 0 && got[1] == 0 && got[2] == htonl(0xffff) &&
	    got[3] == want[0]);
}

/*
 * Is the answer's socket the one asked about?  An IPv6 socket connected
 * to an IPv4 address (v4-mapped, as dual-stack programs do) is found by
 * its IPv4 addresses and answered as IPv6.
 */
static int
sockdiag_same(const struct inet_diag_msg *m, int family,
    const struct inet_diag_sockid *want)
{
	size_t	 alen = family == AF_INET ? 4 : 16;

	if (m->id.idiag_sport != want->idiag_sport ||
	    m->id.idiag_dport != want->idiag_dport)
		return (0);
	if (family == AF_INET && m->idiag_family == AF_INET6)
		return (sockdiag_mapped(m->id.idiag_src, want->idiag_src) &&
		    sockdiag_mapped(m->id.idiag_dst, want->idiag_dst));
	return (m->idiag_family == family &&
	    memcmp(m->id.idiag_src, want->idiag_src, alen) == 0 &&
	    memcmp(m->id.idiag_dst, want->idiag_dst, alen) == 0);
}

enum sockdiag_answer
sockdiag_reply(const void *buf, size_t len, uint32_t seq,
    const struct sockaddr *local, const struct sockaddr *remote,
    struct sockdiag_owner *owner, int *error)
{
	const unsigned char	*p = buf;
	struct inet_diag_sockid	 want;
	struct inet_diag_msg	 m;
	struct nlmsgerr		 e;
	struct nlmsghdr		 h;
	size_t			 off = 0, body;
	int			 family;

	*error = 0;
	if ((family = sockdiag_id(&want, local, remote)) == -1)
		return (SOCKDIAG_MALFORMED);
	while (len - off >= sizeof h) {
		memcpy(&h, p + off, sizeof h);
		if (h.nlmsg_len < sizeof h || h.nlmsg_len > len - off)
			return (SOCKDIAG_MALFORMED);
		body = h.nlmsg_len - NLMSG_HDRLEN;
		if (h.nlmsg_seq != seq)
			goto next;
		switch (h.nlmsg_type) {
		case NLMSG_ERROR:
			if (body < sizeof e)
				return (SOCKDIAG_MALFORMED);
			memcpy(&e, p + off + NLMSG_HDRLEN, sizeof e);
			if (e.error == 0)	/* an acknowledgement */
				goto next;
			*error = -e.error;
			return (e.error == -ENOENT ? SOCKDIAG_NO_SOCKET :
			    SOCKDIAG_ERROR);
		case SOCK_DIAG_BY_FAMILY:
			if (body < sizeof m)
				return (SOCKDIAG_MALFORMED);
			memcpy(&m, p + off + NLMSG_HDRLEN, sizeof m);
			if (!sockdiag_same(&m, family, &want))
				return (SOCKDIAG_MALFORMED);
			owner->uid = (uid_t)m.idiag_uid;
			owner->inode = m.idiag_inode;
			owner->state = m.idiag_state;
			return (SOCKDIAG_FOUND);
		case NLMSG_DONE:
			return (SOCKDIAG_NO_SOCKET);
		}
next:
		if (NLMSG_ALIGN(h.nlmsg_len) >= len - off)
			break;
		off += NLMSG_ALIGN(h.nlmsg_len);
	}
	return (SOCKDIAG_NOT_YET);
}
