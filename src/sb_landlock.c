/*
 * sb_landlock.c -- the files and TCP ports a sandboxed server may use,
 * and the scopes it is confined to, as a Landlock ruleset.
 *
 * The handled rights are every right the running ABI knows (masked down:
 * ABI 1 the basics, 2 REFER, 3 TRUNCATE, 4 TCP, 5 IOCTL_DEV, 6 scopes),
 * so whatever no rule grants is refused.  A path that does not exist is
 * skipped; a rule on a file that is not a directory carries only the
 * rights that mean anything on a file.  A grant that is not optional
 * (configured, the working directory, the private directory) must exist
 * when the server starts.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sb_int.h"
#include "xmalloc.h"

int
sb_landlock_abi(int *error)
{
	static int	 abi = -1, abi_error;
	long		 rv;

	if (abi == -1) {
		rv = syscall(__NR_landlock_create_ruleset, NULL, 0,
		    SB_LL_CREATE_RULESET_VERSION);
		abi = rv < 0 ? 0 : (int)rv;
		abi_error = rv < 0 ? errno : 0;
	}
	if (error != NULL)
		*error = abi_error;
	return (abi);
}

static uint64_t
sb_landlock_fs_rights(int abi)
{
	uint64_t	 rights = SB_LL_FS_ABI1;

	if (abi >= 2)
		rights |= SB_LL_FS_REFER;
	if (abi >= 3)
		rights |= SB_LL_FS_TRUNCATE;
	if (abi >= 5)
		rights |= SB_LL_FS_IOCTL_DEV;
	return (rights);
}

/* SB_READ, SB_EXEC, SB_WRITE as Landlock rights (before masking). */
static uint64_t
sb_landlock_access(unsigned int access)
{
	uint64_t	 rights = 0;

	if (access & SB_READ)
		rights |= SB_LL_FS_READ_FILE | SB_LL_FS_READ_DIR;
	if (access & SB_EXEC)
		rights |= SB_LL_FS_EXECUTE;
	if (access & SB_WRITE)
		rights |= SB_LL_FS_WRITE_FILE | SB_LL_FS_TRUNCATE |
		    SB_LL_FS_REMOVE_DIR | SB_LL_FS_REMOVE_FILE |
		    SB_LL_FS_MAKE_DIR | SB_LL_FS_MAKE_REG |
		    SB_LL_FS_MAKE_SOCK | SB_LL_FS_MAKE_FIFO |
		    SB_LL_FS_MAKE_SYM | SB_LL_FS_REFER | SB_LL_FS_IOCTL_DEV;
	return (rights);
}

/* Every grant that is not optional is there; -1 and *err if not. */
static int
sb_landlock_check(const struct sb_rules *rules, char **err)
{
	struct stat	 sb;
	size_t		 i;

	for (i = 0; i < rules->ngrants; i++) {
		if (rules->grants[i].optional ||
		    stat(rules->grants[i].path, &sb) == 0)
			continue;
		xasprintf(err, "sandbox: %s (%s): %s", rules->grants[i].path,
		    rules->grants[i].why != NULL ? rules->grants[i].why :
		    "granted", strerror(errno));
		return (-1);
	}
	return (0);
}

int
sb_landlock_prepare(const struct sb_rules *rules, struct sb_prepared *p,
    char **err)
{
	size_t	 i;

	if (sb_landlock_check(rules, err) == -1)
		return (-1);

	p->abi = sb_landlock_abi(&p->abi_error);
	if (p->abi == 0)
		return (0);
	p->fs_handled = sb_landlock_fs_rights(p->abi);
	p->attr_size = sizeof(uint64_t);
	if (p->abi >= 4) {
		p->attr_size = 2 * sizeof(uint64_t);
		if (rules->net == SB_NET_NONE)
			p->net_handled = SB_LL_NET_BIND_TCP |
			    SB_LL_NET_CONNECT_TCP;
		else if (rules->net == SB_NET_PORTS)
			p->net_handled = SB_LL_NET_CONNECT_TCP;
	}
	if (p->abi >= 6) {
		p->attr_size = sizeof(struct sb_ll_ruleset_attr);
		p->scoped = SB_LL_SCOPE_ABSTRACT_UNIX | SB_LL_SCOPE_SIGNAL;
	}
	p->paths = xcalloc(rules->ngrants + 1, sizeof *p->paths);
	for (i = 0; i < rules->ngrants; i++) {
		p->paths[p->npaths].access = p->fs_handled &
		    sb_landlock_access(rules->grants[i].access);
		if (p->paths[p->npaths].access == 0)
			continue;
		p->paths[p->npaths++].path = xstrdup(rules->grants[i].path);
	}
	if (rules->net == SB_NET_PORTS) {
		memcpy(p->ports, rules->ports, sizeof p->ports);
		p->nports = rules->nports;
	}
	return (0);
}

/* One path's rule; a path that is not there is no error. */
static int
sb_landlock_add_path(int ruleset, const struct sb_path *sp)
{
	struct sb_ll_path_beneath_attr	 pb;
	struct stat			 sb;
	int				 fd, rv, saved;

	if ((fd = open(sp->path, O_PATH | O_CLOEXEC)) == -1)
		return (0);
	memset(&pb, 0, sizeof pb);
	pb.allowed_access = sp->access;
	pb.parent_fd = fd;
	if (fstat(fd, &sb) == 0 && !S_ISDIR(sb.st_mode))
		pb.allowed_access &= SB_LL_FS_FILE;
	rv = 0;
	if (pb.allowed_access != 0)
		rv = (int)syscall(__NR_landlock_add_rule, ruleset,
		    SB_LL_RULE_PATH_BENEATH, &pb, 0);
	saved = errno;
	close(fd);
	errno = saved;
	return (rv == 0 ? 0 : -1);
}

static int
sb_landlock_add_rules(int ruleset, const struct sb_prepared *p)
{
	struct sb_ll_net_port_attr	 np;
	size_t				 i;

	for (i = 0; i < p->npaths; i++) {
		if (sb_landlock_add_path(ruleset, &p->paths[i]) == -1)
			return (-1);
	}
	for (i = 0; p->net_handled & SB_LL_NET_CONNECT_TCP &&
	    i < p->nports; i++) {
		memset(&np, 0, sizeof np);
		np.allowed_access = SB_LL_NET_CONNECT_TCP;
		np.port = p->ports[i];
		if (syscall(__NR_landlock_add_rule, ruleset,
		    SB_LL_RULE_NET_PORT, &np, 0) != 0)
			return (-1);
	}
	return (0);
}

/* In the child, after no_new_privs.  What held, as SB_HELD_*. */
unsigned int
sb_landlock_apply(const struct sb_prepared *p, int *error)
{
	struct sb_ll_ruleset_attr	 attr;
	unsigned int			 held;
	int				 ruleset;

	if (p->abi == 0) {
		*error = p->abi_error;
		return (0);
	}
	memset(&attr, 0, sizeof attr);
	attr.handled_access_fs = p->fs_handled;
	attr.handled_access_net = p->net_handled;
	attr.scoped = p->scoped;
	ruleset = (int)syscall(__NR_landlock_create_ruleset, &attr,
	    p->attr_size, 0);
	if (ruleset == -1) {
		*error = errno;
		return (0);
	}
	if (sb_landlock_add_rules(ruleset, p) == -1 ||
	    syscall(__NR_landlock_restrict_self, ruleset, 0) != 0) {
		*error = errno;
		close(ruleset);
		return (0);
	}
	close(ruleset);
	held = SB_HELD_LANDLOCK_FS;
	if (p->net_handled != 0)
		held |= SB_HELD_LANDLOCK_TCP;
	if (p->scoped != 0)
		held |= SB_HELD_LANDLOCK_SCOPE;
	return (held);
}
