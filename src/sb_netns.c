/*
 * sb_netns.c -- a network namespace of its own for a server with no
 * network, entered through a user namespace so that no privilege is
 * needed: setgroups denied, the same uid and gid mapped (a user does not
 * become root inside), the loopback brought up.  Where the kernel refuses
 * unprivileged user namespaces (a sysctl, or an AppArmor rule), the layer
 * is missing and seccomp's refusal of inet sockets stands alone.
 */
#include "config.h"

#include <sys/ioctl.h>
#include <sys/socket.h>

#include <net/if.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sb_int.h"

void
sb_netns_prepare(const struct sb_rules *rules, struct sb_prepared *p)
{
	p->netns = rules->netns;
	snprintf(p->uid_map, sizeof p->uid_map, "%u %u 1\n",
	    (unsigned int)geteuid(), (unsigned int)geteuid());
	snprintf(p->gid_map, sizeof p->gid_map, "%u %u 1\n",
	    (unsigned int)getegid(), (unsigned int)getegid());
}

static int
sb_netns_write(const char *file, const char *text)
{
	int	 fd, saved;
	ssize_t	 n;

	if ((fd = open(file, O_WRONLY | O_CLOEXEC)) == -1)
		return (-1);
	n = write(fd, text, strlen(text));
	saved = errno;
	close(fd);
	errno = saved;
	return (n == (ssize_t)strlen(text) ? 0 : -1);
}

/* The namespace's own lo, up: 127.0.0.1 inside reaches only inside. */
static void
sb_netns_lo_up(void)
{
	struct ifreq	 ifr;
	int		 s;

	if ((s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return;
	memset(&ifr, 0, sizeof ifr);
	memcpy(ifr.ifr_name, "lo", 3);
	if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		(void)ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
}

/* In the child, first of the layers. */
unsigned int
sb_netns_apply(const struct sb_prepared *p, int *error)
{
	if (!p->netns)
		return (0);
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) {
		*error = errno;
		return (0);
	}
	/*
	 * The maps are written once: should this fail the process is in
	 * namespaces it cannot use as itself; it is better refused.
	 */
	if (sb_netns_write("/proc/self/setgroups", "deny") == -1 ||
	    sb_netns_write("/proc/self/uid_map", p->uid_map) == -1 ||
	    sb_netns_write("/proc/self/gid_map", p->gid_map) == -1) {
		*error = errno;
		return (SB_HELD_USERNS | SB_HELD_BROKEN);
	}
	sb_netns_lo_up();
	return (SB_HELD_USERNS | SB_HELD_NETNS);
}
