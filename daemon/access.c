/*
 * access.c -- who may connect to mcpd's socket: mcpd's own uid and root
 * (the administrators), and the members of socket_group; the reason a
 * peer that may not is given, and the one error line a refused peer
 * gets before the close.  Limits on how many connections a peer may hold
 * are client.c's (they count the connections).
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/types.h>

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <event2/util.h>

#include "access.h"
#include "conf.h"
#include "log.h"
#include "rpc.h"
#include "xmalloc.h"

#define ACCESS_PEER_GROUPS_MAX		1024	/* SO_PEERGROUPS, first try */
#define ACCESS_REFUSE_DRAIN_BYTES	4096	/* read before closing */

int
access_uid_is_admin(uid_t uid)
{
	return (uid == getuid() || uid == 0);
}

/*
 * Is the peer a member of the configured socket_group?  Its supplementary
 * groups are the ones the kernel holds for it (SO_PEERGROUPS), as for the
 * socket file's permissions: a process may have groups the group database
 * does not list (setgroups, setpriv --groups) or have dropped some.  The
 * database is asked only when the kernel cannot tell (before Linux 4.13).
 */
int
access_in_group(const struct conf *conf, int fd, const struct ucred *cred)
{
	struct passwd	*pw;
	gid_t		 groups[ACCESS_PEER_GROUPS_MAX], *gv = groups;
	int		 n = ACCESS_PEER_GROUPS_MAX, i, found = 0;
#ifdef SO_PEERGROUPS
	socklen_t	 len = sizeof groups;
	int		 rc;
#endif

	if (conf->socket_group == NULL)
		return (0);
	if (cred->gid == conf->socket_gid)
		return (1);
#ifdef SO_PEERGROUPS
	rc = getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, gv, &len);
	if (rc != 0 && errno == ERANGE) {
		gv = xmalloc(len);
		rc = getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, gv, &len);
	}
	if (rc == 0) {
		for (i = 0; i < (int)(len / sizeof *gv); i++) {
			if (gv[i] == conf->socket_gid)
				found = 1;
		}
		if (gv != groups)
			free(gv);
		return (found);
	}
	if (gv != groups)
		free(gv);
	gv = groups;
#endif
	if ((pw = getpwuid(cred->uid)) == NULL ||
	    getgrouplist(pw->pw_name, pw->pw_gid, gv, &n) == -1)
		return (0);
	for (i = 0; i < n; i++) {
		if (gv[i] == conf->socket_gid)
			found = 1;
	}
	return (found);
}

/* Why a peer may not connect, and what to do about it. */
char *
access_denied(const struct conf *conf, uid_t uid)
{
	char	*why, *owner;

	if (getuid() == 0)
		owner = xstrdup("root");
	else
		xasprintf(&owner, "uid %lu (mcpd's) and root",
		    (unsigned long)getuid());
	if (conf->socket_group != NULL)
		xasprintf(&why, "uid %lu is not allowed to use mcpd's socket: "
		    "only %s and members of group %s (socket_group) are; ask "
		    "for membership of %s", (unsigned long)uid, owner,
		    conf->socket_group, conf->socket_group);
	else
		xasprintf(&why, "uid %lu is not allowed to use mcpd's socket: "
		    "only %s are; to let others in, set socket_group in "
		    "mcpd's configuration", (unsigned long)uid, owner);
	free(owner);
	return (why);
}

/*
 * Answer a peer mcpd will not serve with one error line, then close.  What
 * it sent is read first: a socket closed with unread input resets the
 * peer's end, which may then lose the line.
 */
void
access_refuse(int fd, int code, const char *message)
{
	cJSON	*msg;
	char	*text, drain[ACCESS_REFUSE_DRAIN_BYTES];
	size_t	 len;

	msg = rpc_make_error(NULL, code, message, NULL);
	text = rpc_print(msg);
	cJSON_Delete(msg);
	len = strlen(text);
	text = xrealloc(text, len + 2);
	memcpy(text + len, "\n", 2);
	evutil_make_socket_nonblocking(fd);
	while (read(fd, drain, sizeof drain) > 0)
		;
	if (write(fd, text, len + 1) == -1 && errno != EAGAIN)
		log_debug("writing the refusal: %s", strerror(errno));
	free(text);
	close(fd);
}
