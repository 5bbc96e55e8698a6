/*
 * sb_int.h -- what the sandbox's kernel files share: the Landlock ABI as
 * the kernel defines it (Debian 12's headers stop at ABI 2, so it is
 * carried here, under names of our own), and each layer's two halves.
 */
#ifndef MCPD_SB_INT_H
#define MCPD_SB_INT_H

#include <stdint.h>

#include "sbapply.h"

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset	444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule		445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self	446
#endif

struct sb_ll_ruleset_attr {
	uint64_t	handled_access_fs;
	uint64_t	handled_access_net;	/* ABI 4 */
	uint64_t	scoped;			/* ABI 6 */
};

struct sb_ll_path_beneath_attr {
	uint64_t	allowed_access;
	int32_t		parent_fd;
} __attribute__((packed));

struct sb_ll_net_port_attr {
	uint64_t	allowed_access;
	uint64_t	port;
};

#define SB_LL_CREATE_RULESET_VERSION	(1U << 0)
#define SB_LL_RULE_PATH_BENEATH		1
#define SB_LL_RULE_NET_PORT		2

#define SB_LL_FS_EXECUTE		(1ULL << 0)
#define SB_LL_FS_WRITE_FILE		(1ULL << 1)
#define SB_LL_FS_READ_FILE		(1ULL << 2)
#define SB_LL_FS_READ_DIR		(1ULL << 3)
#define SB_LL_FS_REMOVE_DIR		(1ULL << 4)
#define SB_LL_FS_REMOVE_FILE		(1ULL << 5)
#define SB_LL_FS_MAKE_CHAR		(1ULL << 6)
#define SB_LL_FS_MAKE_DIR		(1ULL << 7)
#define SB_LL_FS_MAKE_REG		(1ULL << 8)
#define SB_LL_FS_MAKE_SOCK		(1ULL << 9)
#define SB_LL_FS_MAKE_FIFO		(1ULL << 10)
#define SB_LL_FS_MAKE_BLOCK		(1ULL << 11)
#define SB_LL_FS_MAKE_SYM		(1ULL << 12)
#define SB_LL_FS_REFER			(1ULL << 13)	/* ABI 2 */
#define SB_LL_FS_TRUNCATE		(1ULL << 14)	/* ABI 3 */
#define SB_LL_FS_IOCTL_DEV		(1ULL << 15)	/* ABI 5 */

#define SB_LL_FS_ABI1			((1ULL << 13) - 1)
/* The rights that mean anything on a file that is not a directory. */
#define SB_LL_FS_FILE			(SB_LL_FS_EXECUTE | \
	SB_LL_FS_WRITE_FILE | SB_LL_FS_READ_FILE | SB_LL_FS_TRUNCATE | \
	SB_LL_FS_IOCTL_DEV)

#define SB_LL_NET_BIND_TCP		(1ULL << 0)	/* ABI 4 */
#define SB_LL_NET_CONNECT_TCP		(1ULL << 1)

#define SB_LL_SCOPE_ABSTRACT_UNIX	(1ULL << 0)	/* ABI 6 */
#define SB_LL_SCOPE_SIGNAL		(1ULL << 1)

/* The highest ABI whose rights are known here; newer kernels get these. */
#define SB_LL_ABI_KNOWN			6

/* Landlock: the rights and rules (parent), the ruleset (child). */
int	 sb_landlock_prepare(const struct sb_rules *, struct sb_prepared *,
	    char **err);
unsigned int sb_landlock_apply(const struct sb_prepared *, int *error);

/* seccomp: the program (parent), installed (child). */
int	 sb_seccomp_prepare(const struct sb_rules *, struct sb_prepared *);
unsigned int sb_seccomp_apply(const struct sb_prepared *, int *error);

/* User and network namespaces: the maps (parent), unshared (child). */
void	 sb_netns_prepare(const struct sb_rules *, struct sb_prepared *);
unsigned int sb_netns_apply(const struct sb_prepared *, int *error);

#endif /* MCPD_SB_INT_H */
