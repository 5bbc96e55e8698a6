/*
 * test_sockdiag.c -- unit tests for clients/sockdiag.c: the sock_diag
 * request for one TCP socket, and which answers of the kernel are
 * believed.
 */

#include "config.h"

#include <sys/socket.h>

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <check.h>
#include <errno.h>
#include <string.h>

#include "sockdiag.h"
#include "unit.h"

struct request {
	struct nlmsghdr		nlh;
	struct inet_diag_req_v2	req;
};

static struct sockaddr_in
addr4(const char *ip, int port)
{
	struct sockaddr_in	 sin;

	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	ck_assert_int_eq(inet_pton(AF_INET, ip, &sin.sin_addr), 1);
	return (sin);
}

static struct sockaddr_in6
addr6(const char *ip, int port)
{
	struct sockaddr_in6	 sin6;

	memset(&sin6, 0, sizeof sin6);
	sin6.sin6_family = AF_INET6;
	sin6.sin6_port = htons((uint16_t)port);
	ck_assert_int_eq(inet_pton(AF_INET6, ip, &sin6.sin6_addr), 1);
	return (sin6);
}

#define SA(x)	((const struct sockaddr *)&(x))

/* The kernel's answer about the IPv4 socket local -> remote. */
static size_t
answer4(unsigned char *buf, uint32_t seq, const struct sockaddr_in *local,
    const struct sockaddr_in *remote, uint32_t uid, uint32_t inode)
{
	struct {
		struct nlmsghdr		nlh;
		struct inet_diag_msg	msg;
	}	a;

	memset(&a, 0, sizeof a);
	a.nlh.nlmsg_len = sizeof a;
	a.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	a.nlh.nlmsg_seq = seq;
	a.msg.idiag_family = AF_INET;
	a.msg.idiag_state = TCP_ESTABLISHED;
	a.msg.id.idiag_sport = local->sin_port;
	a.msg.id.idiag_dport = remote->sin_port;
	memcpy(a.msg.id.idiag_src, &local->sin_addr, 4);
	memcpy(a.msg.id.idiag_dst, &remote->sin_addr, 4);
	a.msg.idiag_uid = uid;
	a.msg.idiag_inode = inode;
	memcpy(buf, &a, sizeof a);
	return (NLMSG_ALIGN(sizeof a));
}

static size_t
error_answer(unsigned char *buf, uint32_t seq, int error)
{
	struct {
		struct nlmsghdr	nlh;
		struct nlmsgerr	err;
	}	a;

	memset(&a, 0, sizeof a);
	a.nlh.nlmsg_len = sizeof a;
	a.nlh.nlmsg_type = NLMSG_ERROR;
	a.nlh.nlmsg_seq = seq;
	a.err.error = error;
	memcpy(buf, &a, sizeof a);
	return (NLMSG_ALIGN(sizeof a));
}

START_TEST(test_request_ipv4)
{
	struct sockaddr_in	 local, remote;
	unsigned char		 buf[SOCKDIAG_REQUEST_BYTES];
	struct request		 r;
	size_t			 len;

	/* The browser's socket: bound to 127.0.0.7:40000, to us at :8080. */
	local = addr4("127.0.0.7", 40000);
	remote = addr4("127.0.0.1", 8080);
	len = sockdiag_request(buf, sizeof buf, SA(local), SA(remote), 77);
	ck_assert_uint_eq(len, sizeof r);
	memcpy(&r, buf, sizeof r);
	ck_assert_uint_eq(r.nlh.nlmsg_len, sizeof r);
	ck_assert_uint_eq(r.nlh.nlmsg_type, SOCK_DIAG_BY_FAMILY);
	/* An exact lookup: no dump of every socket. */
	ck_assert_uint_eq(r.nlh.nlmsg_flags, NLM_F_REQUEST);
	ck_assert_uint_eq(r.nlh.nlmsg_seq, 77);
	ck_assert_uint_eq(r.req.sdiag_family, AF_INET);
	ck_assert_uint_eq(r.req.sdiag_protocol, IPPROTO_TCP);
	ck_assert_uint_eq(r.req.id.idiag_sport, htons(40000));
	ck_assert_uint_eq(r.req.id.idiag_dport, htons(8080));
	ck_assert_mem_eq(r.req.id.idiag_src, &local.sin_addr, 4);
	ck_assert_mem_eq(r.req.id.idiag_dst, &remote.sin_addr, 4);
	ck_assert_uint_eq(r.req.id.idiag_src[1], 0);
	ck_assert_uint_eq(r.req.id.idiag_cookie[0], INET_DIAG_NOCOOKIE);
	ck_assert_uint_eq(r.req.id.idiag_cookie[1], INET_DIAG_NOCOOKIE);
}
END_TEST

START_TEST(test_request_ipv6_and_refusals)
{
	struct sockaddr_in6	 l6, r6;
	struct sockaddr_in	 r4;
	struct sockaddr		 unix_addr;
	unsigned char		 buf[SOCKDIAG_REQUEST_BYTES];
	struct request		 r;

	l6 = addr6("::1", 5000);
	r6 = addr6("::1", 443);
	ck_assert_uint_eq(sockdiag_request(buf, sizeof buf, SA(l6), SA(r6), 1),
	    sizeof r);
	memcpy(&r, buf, sizeof r);
	ck_assert_uint_eq(r.req.sdiag_family, AF_INET6);
	ck_assert_mem_eq(r.req.id.idiag_src, &l6.sin6_addr, 16);
	ck_assert_uint_eq(r.req.id.idiag_sport, htons(5000));

	/* Families that differ, another family, too little room. */
	r4 = addr4("127.0.0.1", 443);
	ck_assert_uint_eq(sockdiag_request(buf, sizeof buf, SA(l6), SA(r4), 1),
	    0);
	memset(&unix_addr, 0, sizeof unix_addr);
	unix_addr.sa_family = AF_UNIX;
	ck_assert_uint_eq(sockdiag_request(buf, sizeof buf, &unix_addr,
	    &unix_addr, 1), 0);
	ck_assert_uint_eq(sockdiag_request(buf, sizeof r - 1, SA(l6), SA(r6),
	    1), 0);
}
END_TEST

START_TEST(test_reply_found)
{
	struct sockaddr_in	 local, remote;
	struct sockdiag_owner	 o;
	unsigned char		 buf[SOCKDIAG_REPLY_BYTES];
	size_t			 len;
	int			 err;

	local = addr4("127.0.0.1", 40000);
	remote = addr4("127.0.0.1", 8080);
	len = answer4(buf, 5, &local, &remote, 65534, 1234567);
	memset(&o, 0, sizeof o);
	ck_assert_int_eq(sockdiag_reply(buf, len, 5, SA(local), SA(remote), &o,
	    &err), SOCKDIAG_FOUND);
	ck_assert_uint_eq(o.uid, 65534);
	ck_assert_uint_eq(o.inode, 1234567);
	ck_assert_int_eq(o.state, TCP_ESTABLISHED);

	/* An earlier question's answer first, then this one's. */
	len = answer4(buf, 4, &local, &remote, 0, 1);
	len += answer4(buf + len, 5, &local, &remote, 1000, 99);
	ck_assert_int_eq(sockdiag_reply(buf, len, 5, SA(local), SA(remote), &o,
	    &err), SOCKDIAG_FOUND);
	ck_assert_uint_eq(o.uid, 1000);
	/* Only an earlier one's: not yet. */
	len = answer4(buf, 4, &local, &remote, 0, 1);
	ck_assert_int_eq(sockdiag_reply(buf, len, 5, SA(local), SA(remote), &o,
	    &err), SOCKDIAG_NOT_YET);
	ck_assert_int_eq(sockdiag_reply(buf, 0, 5, SA(local), SA(remote), &o,
	    &err), SOCKDIAG_NOT_YET);
}
END_TEST

/*
 * A dual-stack program's IPv6 socket connected to an IPv4 address: found
 * by the IPv4 addresses, answered with v4-mapped IPv6 ones.
 */
START_TEST(test_reply_v4_mapped)
{
	struct sockaddr_in	 local, remote;
	struct sockdiag_owner	 o;
	struct inet_diag_msg	 m;
	unsigned char		 buf[SOCKDIAG_REPLY_BYTES];
	size_t			 len;
	int			 err;

	local = addr4("127.0.0.1", 40000);
	remote = addr4("127.0.0.1", 8080);
	len = answer4(buf, 5, &local, &remote, 65534, 42);
	memcpy(&m, buf + NLMSG_HDRLEN, sizeof m);
	m.idiag_family = AF_INET6;
	m.id.idiag_src[2] = m.id.idiag_dst[2] = htonl(0xffff);
	m.id.idiag_src[3] = local.sin_addr.s_addr;
	m.id.idiag_dst[3] = remote.sin_addr.s_addr;
	m.id.idiag_src[0] = m.id.idiag_dst[0] = 0;
	memcpy(buf + NLMSG_HDRLEN, &m, sizeof m);
	ck_assert_int_eq(sockdiag_reply(buf, len, 5, SA(local), SA(remote), &o,
	    &err), SOCKDIAG_FOUND);
	ck_assert_uint_eq(o.uid, 65534);
	/* Another IPv6 address, not mapped from the one asked about. */
	m.id.idiag_src[2] = 0;
	memcpy(buf + NLMSG_HDRLEN, &m, sizeof m);
	ck_assert_int_eq(sockdiag_reply(buf, len, 5, SA(local), SA(remote), &o,
	    &err), SOCKDIAG_MALFORMED);
}
END_TEST

START_TEST(test_reply_not_believed)
{
	struct sockaddr_in	 local, remote, other;
	struct sockdiag_owner	 o;
	unsigned char		 buf[SOCKDIAG_REPLY_BYTES];
	size_t			 len;
	int			 err;

	local = addr4("127.0.0.1", 40000);
	remote = addr4("127.0.0.1", 8080);
	/* About another socket: another port, address, or the reverse. */
	other = addr4("127.0.0.1", 40001);
	len = answer4(buf, 5, &other, &remote, 1000, 1);
	ck_assert_int_eq(sockdiag_reply(buf, len, 5, SA(local), SA(remote), &o,
	    &err), SOCKDIAG_MALFORMED);
	other = addr4("127.0.0.2", 40000);
	len = answer4(buf, 5, &other, &remote, 1000, 1);
	ck_assert_int_eq(sockdiag_reply(buf, len, 5, SA(local), SA(remote), &o,
	    &err), SOCKDIAG_MALFORMED);
	len = answer4(buf, 5, &remote, &local, 1000, 1);
	ck_assert_int_eq(sockdiag_reply(buf, len, 5, SA(local), SA(remote), &o,
	    &err), SOCKDIAG_MALFORMED);

	/* Lengths: longer than what was read, shorter than a header. */
	len = answer4(buf, 5, &local, &remote, 1000, 1);
	ck_assert_int_eq(sockdiag_reply(buf, len - 8, 5, SA(local), SA(remote),
	    &o, &err), SOCKDIAG_MALFORMED);
	((struct nlmsghdr *)(void *)buf)->nlmsg_len = 8;
	ck_assert_int_eq(sockdiag_reply(buf, len, 5, SA(local), SA(remote), &o,
	    &err), SOCKDIAG_MALFORMED);
	/* A whole message too short for its type. */
	((struct nlmsghdr *)(void *)buf)->nlmsg_len = NLMSG_HDRLEN + 8;
	ck_assert_int_eq(sockdiag_reply(buf, len, 5, SA(local), SA(remote), &o,
	    &err), SOCKDIAG_MALFORMED);
}
END_TEST

START_TEST(test_reply_errors)
{
	struct sockaddr_in	 local, remote;
	struct sockdiag_owner	 o;
	unsigned char		 buf[SOCKDIAG_REPLY_BYTES];
	size_t			 len;
	int			 err;

	local = addr4("127.0.0.1", 40000);
	remote = addr4("127.0.0.1", 8080);
	len = error_answer(buf, 9, -ENOENT);
	ck_assert_int_eq(sockdiag_reply(buf, len, 9, SA(local), SA(remote), &o,
	    &err), SOCKDIAG_NO_SOCKET);
	len = error_answer(buf, 9, -EPERM);
	ck_assert_int_eq(sockdiag_reply(buf, len, 9, SA(local), SA(remote), &o,
	    &err), SOCKDIAG_ERROR);
	ck_assert_int_eq(err, EPERM);
	/* An acknowledgement says nothing of the socket. */
	len = error_answer(buf, 9, 0);
	ck_assert_int_eq(sockdiag_reply(buf, len, 9, SA(local), SA(remote), &o,
	    &err), SOCKDIAG_NOT_YET);
	/* Another question's error is not this one's. */
	len = error_answer(buf, 8, -EPERM);
	ck_assert_int_eq(sockdiag_reply(buf, len, 9, SA(local), SA(remote), &o,
	    &err), SOCKDIAG_NOT_YET);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("sockdiag");
	tc = tcase_create("request");
	tcase_add_test(tc, test_request_ipv4);
	tcase_add_test(tc, test_request_ipv6_and_refusals);
	suite_add_tcase(s, tc);
	tc = tcase_create("reply");
	tcase_add_test(tc, test_reply_found);
	tcase_add_test(tc, test_reply_v4_mapped);
	tcase_add_test(tc, test_reply_not_believed);
	tcase_add_test(tc, test_reply_errors);
	suite_add_tcase(s, tc);
	return (s);
}
