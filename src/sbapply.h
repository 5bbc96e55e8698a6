/*
 * sbapply.h -- the sandbox rules (sandbox.h) made real in a server's
 * child: a user + network namespace, no_new_privs, Landlock, seccomp.
 *
 * sb_prepare runs in mcpd before fork and does every allocation and every
 * computation: the Landlock ABI of the running kernel and the access
 * rights masked down to it, the paths and ports, the seccomp program, the
 * uid and gid maps.  sb_apply runs in the child between fork and execve:
 * it calls no malloc and no stdio (mcpd has a second thread, so its heap
 * may be locked in the child), only system calls, in this order:
 *
 *   user + network namespace ("none", where user namespaces are allowed)
 *   -> no_new_privs -> Landlock (files; TCP ports from ABI 4; abstract
 *   Unix sockets and signals scoped from ABI 6) -> seccomp, last.
 *
 * The kernel decides what is possible: a layer it refuses is missing, not
 * an error; sb_apply says which held (SB_HELD_*, and the ABI), and the
 * caller refuses to exec when the rules are required and one asked for is
 * missing.
 */
#ifndef MCPD_SBAPPLY_H
#define MCPD_SBAPPLY_H

#include <linux/filter.h>

#include <stddef.h>
#include <stdint.h>

#include "sandbox.h"

/* The layers that took effect; the Landlock ABI in the top byte. */
#define SB_HELD_LANDLOCK_FS	0x01	/* files */
#define SB_HELD_LANDLOCK_TCP	0x02	/* TCP bind/connect by port */
#define SB_HELD_LANDLOCK_SCOPE	0x04	/* abstract Unix sockets, signals */
#define SB_HELD_SECCOMP		0x08
#define SB_HELD_NETNS		0x10	/* a network namespace of its own */
#define SB_HELD_USERNS		0x20	/* inside a user namespace */
#define SB_HELD_NNP		0x40	/* no_new_privs */
#define SB_HELD_LAYERS		0x7f
/* A layer half set up (a user namespace without its maps): never exec. */
#define SB_HELD_BROKEN		0x80
#define SB_HELD_ABI(h)		((int)(((h) >> 24) & 0xff))
#define SB_HELD_WITH_ABI(h, abi) (((h) & 0xff) | \
				 ((unsigned int)(abi) << 24))

#define SB_BPF_MAX		192	/* instructions of the seccomp program */
#define SB_MAP_MAX		64	/* "UID UID 1\n" */

struct sb_path {
	char		*path;
	uint64_t	 access;	/* Landlock rights, masked to the ABI */
};

struct sb_prepared {
	int		 on;		/* 0: sb_apply does nothing */
	int		 required;
	unsigned int	 asked;		/* SB_HELD_* the rules ask for */
	/* Layers sb_apply may set up (SB_HELD_*; all by default). */
	unsigned int	 layers;

	/* Landlock: 0 where the kernel has none. */
	int		 abi;
	int		 abi_error;	/* errno of the ABI query, if 0 */
	uint64_t	 fs_handled;
	uint64_t	 net_handled;
	uint64_t	 scoped;
	size_t		 attr_size;
	struct sb_path	*paths;
	size_t		 npaths;
	uint16_t	 ports[SB_PORTS_MAX];
	size_t		 nports;

	/* The namespaces. */
	int		 netns;
	char		 uid_map[SB_MAP_MAX];
	char		 gid_map[SB_MAP_MAX];

	/* seccomp: 0 instructions where this architecture has no filter. */
	struct sock_filter bpf[SB_BPF_MAX];
	unsigned short	 nbpf;
};

/* Before fork.  0, or -1 with *err a malloc'd sentence. */
int	 sb_prepare(const struct sb_rules *, struct sb_prepared *, char **err);
void	 sb_prepared_free(struct sb_prepared *);

/*
 * In the child: *held gets what took effect.  0 when every asked layer
 * holds; -1 otherwise, errno the cause of the first one missing.  Makes
 * no allocation.
 */
int	 sb_apply(const struct sb_prepared *, unsigned int *held);

/* "landlock 7: files, tcp, scope; seccomp; netns", or "nothing". */
void	 sb_held_describe(unsigned int held, char *buf, size_t len);
/*
 * The first asked layer missing from held, and why (error: the child's
 * errno): "landlock is not available (kernel without Landlock)";
 * NULL if none is missing.  malloc'd.
 */
char	*sb_missing_describe(const struct sb_prepared *, unsigned int held,
	    int error);

/* The running kernel's Landlock ABI (0: none; *error why), asked once. */
int	 sb_landlock_abi(int *error);

#endif /* MCPD_SBAPPLY_H */
