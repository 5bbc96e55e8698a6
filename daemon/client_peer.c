/*
 * client_peer.c -- what the router and group sessions call of a
 * connection (router.h's struct router_peer, group.h's struct
 * group_peer): the peer tables a client attaches with, so that neither
 * calls a function of client.c by name.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/uio.h>

#include <stddef.h>
#include <stdint.h>

#include "client.h"
#include "client_int.h"
#include "group.h"
#include "router.h"

static int
client_peer_principal_lasts(const void *c)
{
	return (client_principal_lasts(c));
}

/*
 * The router's view of a connection (router.h): the peer table a client
 * attaches with, so the router calls no function of client.c by name.
 */
static void
client_peer_queue(void *c, const struct iovec *iov, int iovcnt)
{
	client_queue_iov(c, iov, iovcnt);
}

static void
client_peer_queue_edit(void *c, const char *line, size_t len,
    const struct envelope_edit *edit)
{
	client_queue_edit(c, line, len, edit);
}

static void
client_peer_queue_owned(void *c, const struct iovec *iov, int iovcnt,
    void *mem, size_t size)
{
	client_queue_iov_owned(c, iov, iovcnt, mem, size);
}

static void
client_peer_pause(void *c, int pause)
{
	if (pause)
		client_pause(c);
	else
		client_resume(c);
}

static void
client_peer_idle(void *c)
{
	client_idle(c);
}

static void
client_peer_detached(void *c, const char *reason)
{
	client_detached(c, reason);
}

static pid_t
client_peer_pid(const void *c)
{
	return (client_pid(c));
}

static uid_t
client_peer_uid(const void *c)
{
	return (client_uid(c));
}

static uint64_t
client_peer_serial(const void *c)
{
	return (client_serial(c));
}

static uint64_t
client_peer_principal(const void *c)
{
	return (client_principal(c));
}

static const struct ident *
client_peer_ident(const void *c)
{
	return (client_ident(c));
}

static int
client_peer_is_admin(const void *c)
{
	return (client_is_admin(c));
}

const struct router_peer client_router_peer = {
	.queue = client_peer_queue,
	.queue_edit = client_peer_queue_edit,
	.queue_owned = client_peer_queue_owned,
	.pause = client_peer_pause,
	.idle = client_peer_idle,
	.detached = client_peer_detached,
	.pid = client_peer_pid,
	.uid = client_peer_uid,
	.serial = client_peer_serial,
	.principal = client_peer_principal,
	.principal_lasts = client_peer_principal_lasts,
	.ident = client_peer_ident,
	.is_admin = client_peer_is_admin,
};

static void
client_peer_close(void *c, const char *reason)
{
	client_lost(c, reason);
}

/* A group session's view of its connection (group.h). */
const struct group_peer client_group_peer = {
	.queue = client_peer_queue,
	.pause = client_peer_pause,
	.close = client_peer_close,
	.pid = client_peer_pid,
	.uid = client_peer_uid,
	.serial = client_peer_serial,
	.principal = client_peer_principal,
	.principal_lasts = client_peer_principal_lasts,
	.ident = client_peer_ident,
};
