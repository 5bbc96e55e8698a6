/*
 * ident_http.c -- the identity of an HTTP client (ident.h): the token
 * mcpd-http says a session is for, believed only from mcpd-http itself.
 *
 * mcpd-http reaches mcpd on the ordinary socket, so every HTTP session is
 * a connection of the front's own process; the kernel cannot tell them
 * apart, and only the front knows which bearer token a session presented.
 * It says so in mcpd/attach ("http_token"), and mcpd takes that word
 * from no other peer.  The rule, all of it:
 *
 * - mcpd runs a front now (httpfront.c), and its pid is the connection's
 *   SO_PEERCRED pid.  The front is mcpd's child and is reaped only by
 *   mcpd's own loop, so while httpfront_pid names it no other process can
 *   hold that pid.
 * - The peer is still that process: its own pidfd (SO_PEERPIDFD, which
 *   refers to the process that connected, not to whoever has its pid
 *   now) has not exited.  A peer that connected with a pid and exited,
 *   handing its socket on before the pid came to the front, fails here.
 *   A kernel without SO_PEERPIDFD (before Linux 6.5) leaves that window
 *   open; the identity then carries IDENT_PID_RACE, as ident.c's does.
 * - Its uid is mcpd's: the front runs as mcpd does.
 *
 * Whatever fails is refused with the reason and logged: never taken
 * silently, never taken in part.  An HTTP client's identity has no
 * executable, unit or app id (the front's are not the client's): only
 * the token, so that a policy matching the front's exe never matches it.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/types.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "htoken.h"
#include "httpfront.h"
#include "ident.h"
#include "log.h"
#include "mcpd.h"
#include "xmalloc.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD		77	/* Linux 6.5 */
#endif

/*
 * The process that connected on fd: 1 alive, 0 exited, -1 not known (no
 * SO_PEERPIDFD).  A pidfd polls readable once its process has exited.
 */
static int
ident_http_peer_alive(int fd)
{
	struct pollfd	 pfd;
	socklen_t	 len = sizeof(int);
	int		 pidfd, n;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) != 0 ||
	    len != sizeof(int) || pidfd < 0)
		return (-1);
	pfd.fd = pidfd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	while ((n = poll(&pfd, 1, 0)) == -1 && errno == EINTR)
		;
	close(pidfd);
	return (n == 0);
}

/* Is the peer mcpd's own running front?  NULL, else why (malloc'd). */
static char *
ident_http_untrusted(const struct mcpd *mcpd, int fd, pid_t pid, uid_t uid,
    int *race)
{
	pid_t	 front = httpfront_pid(mcpd);
	char	*why;
	int	 alive;

	if (front == 0) {
		xasprintf(&why, "mcpd runs no mcpd-http now");
		return (why);
	}
	if (pid != front) {
		xasprintf(&why, "this connection's peer (pid %ld) is not "
		    "mcpd's own mcpd-http (pid %ld)", (long)pid, (long)front);
		return (why);
	}
	if (uid != geteuid()) {
		xasprintf(&why, "this connection's peer runs as uid %lu, not "
		    "as mcpd (uid %lu)", (unsigned long)uid,
		    (unsigned long)geteuid());
		return (why);
	}
	if ((alive = ident_http_peer_alive(fd)) == 0) {
		xasprintf(&why, "the process that connected (pid %ld) has "
		    "exited", (long)pid);
		return (why);
	}
	*race = alive == -1;
	return (NULL);
}

struct ident *
ident_http_claim(const struct mcpd *mcpd, int fd, pid_t pid, uid_t uid,
    const char *token, char **why)
{
	struct ident	*id;
	char		*reason;
	int		 race = 0;

	*why = NULL;
	if (!htoken_name_ok(token)) {
		xasprintf(why, "\"http_token\" is not a token's name");
		return (NULL);
	}
	if ((reason = ident_http_untrusted(mcpd, fd, pid, uid,
	    &race)) != NULL) {
		log_warnx("refused a claim of HTTP token %s from pid %ld "
		    "(uid %lu): %s", token, (long)pid, (unsigned long)uid,
		    reason);
		xasprintf(why, "\"http_token\" is taken only from mcpd's own "
		    "mcpd-http: %s", reason);
		free(reason);
		return (NULL);
	}
	id = xcalloc(1, sizeof *id);
	id->uid = uid;
	id->pid = pid;
	id->token = xstrdup(token);
	id->flags = IDENT_HTTP_TOKEN | (race ? IDENT_PID_RACE : 0);
	return (id);
}
