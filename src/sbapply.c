/*
 * sbapply.c -- the sandbox's layers prepared before fork and applied in
 * the child (see sbapply.h); what held, described.
 *
 * sb_apply's invariant: between fork and execve nothing here allocates,
 * takes a lock or uses stdio; every buffer it reads was filled by
 * sb_prepare in the parent.
 */
#include "config.h"

#include <sys/prctl.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb_int.h"
#include "xmalloc.h"

int
sb_prepare(const struct sb_rules *rules, struct sb_prepared *p, char **err)
{
	memset(p, 0, sizeof *p);
	*err = NULL;
	if (rules == NULL || !rules->on)
		return (0);
	p->on = 1;
	p->required = rules->required;
	p->layers = SB_HELD_LAYERS;
	p->asked = SB_HELD_NNP | SB_HELD_LANDLOCK_FS | SB_HELD_SECCOMP;
	if (rules->net == SB_NET_PORTS)
		p->asked |= SB_HELD_LANDLOCK_TCP;
	if (rules->netns)
		p->asked |= SB_HELD_NETNS;
	if (rules->nports > SB_PORTS_MAX) {
		xasprintf(err, "sandbox: more than %d ports", SB_PORTS_MAX);
		return (-1);
	}
	sb_netns_prepare(rules, p);
	if (sb_landlock_prepare(rules, p, err) == -1) {
		sb_prepared_free(p);
		return (-1);
	}
	if (sb_seccomp_prepare(rules, p) == -1) {
		sb_prepared_free(p);
		xasprintf(err, "sandbox: the seccomp program is over %d "
		    "instructions", SB_BPF_MAX);
		return (-1);
	}
	return (0);
}

void
sb_prepared_free(struct sb_prepared *p)
{
	size_t	 i;

	for (i = 0; i < p->npaths; i++)
		free(p->paths[i].path);
	free(p->paths);
	p->paths = NULL;
	p->npaths = 0;
}

/* Each layer's errno, the first missing asked layer's kept. */
static void
sb_apply_note(const struct sb_prepared *p, unsigned int layer,
    unsigned int held, int error, int *first)
{
	if ((p->asked & layer) && !(held & layer) && *first == 0)
		*first = error != 0 ? error : EOPNOTSUPP;
}

int
sb_apply(const struct sb_prepared *p, unsigned int *held)
{
	unsigned int	 h = 0;
	int		 error = 0, first = 0;

	*held = 0;
	if (!p->on)
		return (0);
	if (p->layers & (SB_HELD_NETNS | SB_HELD_USERNS)) {
		h |= sb_netns_apply(p, &error);
		sb_apply_note(p, SB_HELD_NETNS, h, error, &first);
		if (h & SB_HELD_BROKEN) {
			*held = SB_HELD_WITH_ABI(h, p->abi);
			errno = error;
			return (-1);
		}
	}
	if (p->layers & (SB_HELD_NNP | SB_HELD_LANDLOCK_FS |
	    SB_HELD_SECCOMP)) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)
			h |= SB_HELD_NNP;
		sb_apply_note(p, SB_HELD_NNP, h, errno, &first);
	}
	if (p->layers & SB_HELD_LANDLOCK_FS) {
		error = 0;
		h |= sb_landlock_apply(p, &error);
		sb_apply_note(p, SB_HELD_LANDLOCK_FS, h, error, &first);
		sb_apply_note(p, SB_HELD_LANDLOCK_TCP, h, error, &first);
	}
	if (p->layers & SB_HELD_SECCOMP) {
		error = 0;
		h |= sb_seccomp_apply(p, &error);
		sb_apply_note(p, SB_HELD_SECCOMP, h, error, &first);
	}
	*held = SB_HELD_WITH_ABI(h, p->abi);
	if ((p->asked & p->layers & ~h) != 0) {
		errno = first != 0 ? first : EOPNOTSUPP;
		return (-1);
	}
	return (0);
}

static void
sb_describe_add(char *buf, size_t len, const char *sep, const char *what)
{
	size_t	 used = strlen(buf);

	if (used < len)
		snprintf(buf + used, len - used, "%s%s",
		    used == 0 ? "" : sep, what);
}

void
sb_held_describe(unsigned int held, char *buf, size_t len)
{
	char	 ll[64];

	if (len == 0)
		return;
	buf[0] = '\0';
	if (held & SB_HELD_LANDLOCK_FS) {
		snprintf(ll, sizeof ll, "landlock %d: files%s%s",
		    SB_HELD_ABI(held),
		    (held & SB_HELD_LANDLOCK_TCP) ? ", tcp" : "",
		    (held & SB_HELD_LANDLOCK_SCOPE) ? ", scope" : "");
		sb_describe_add(buf, len, "; ", ll);
	}
	if (held & SB_HELD_SECCOMP)
		sb_describe_add(buf, len, "; ", "seccomp");
	if (held & SB_HELD_NETNS)
		sb_describe_add(buf, len, "; ", "netns");
	if (buf[0] == '\0')
		snprintf(buf, len, "nothing");
}

static char *
sb_missing_landlock(const struct sb_prepared *p, int error)
{
	char	*s;

	if (p->abi == 0)
		xasprintf(&s, "landlock is not available (%s)",
		    error == ENOSYS ? "kernel without Landlock" :
		    error == EOPNOTSUPP ? "Landlock is disabled at boot" :
		    strerror(error));
	else
		xasprintf(&s, "landlock is not available (ABI %d: %s)",
		    p->abi, strerror(error));
	return (s);
}

char *
sb_missing_describe(const struct sb_prepared *p, unsigned int held,
    int error)
{
	unsigned int	 missing = p->asked & p->layers & ~held;
	char		*s;

	if (held & SB_HELD_BROKEN)
		xasprintf(&s, "the user namespace could not be set up (%s)",
		    strerror(error));
	else if (missing & SB_HELD_NETNS)
		xasprintf(&s, "netns is not available (%s)",
		    error == EPERM || error == EACCES || error == ENOSPC ?
		    "unprivileged user namespaces are disabled" :
		    error == EINVAL ? "kernel without user namespaces" :
		    strerror(error));
	else if (missing & SB_HELD_NNP)
		xasprintf(&s, "no_new_privs could not be set (%s)",
		    strerror(error));
	else if (missing & SB_HELD_LANDLOCK_FS)
		s = sb_missing_landlock(p, error);
	else if (missing & SB_HELD_LANDLOCK_TCP)
		xasprintf(&s, "landlock tcp is not available (Landlock ABI "
		    "%d; TCP ports need 4)", p->abi);
	else if (missing & SB_HELD_SECCOMP)
		xasprintf(&s, "seccomp is not available (%s)",
		    p->nbpf == 0 ? "no filter for this architecture" :
		    strerror(error));
	else
		return (NULL);
	return (s);
}
