/*
 * sb_seccomp.c -- the system calls a sandboxed server may not make, as a
 * classic BPF program written by hand (seccomp(2)), installed last.
 *
 * Everything is allowed but: another architecture's calls (killed) and
 * x32's; clone3 (ENOSYS, so that the C library falls back to clone,
 * whose flags a filter can read); a new user namespace through clone or
 * unshare, setns (unless the rules allow user namespaces); io_uring (its
 * socket and connect operations would bypass this filter; libuv falls
 * back); socket(AF_UNIX) unless allowed (EACCES; socketpair stays), and
 * with no network every family but AF_UNIX and AF_NETLINK; reaching into
 * other processes (ptrace, process_vm_*, pidfd_getfd, process_madvise)
 * unless allowed; and what administers the machine rather than uses it:
 * kexec, modules, bpf, keyrings, mounts, perf_event_open, userfaultfd,
 * open_by_handle_at, swap, reboot, acct, syslog, quotactl, iopl/ioperm.
 */
#include "config.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>

#include "sb_int.h"
#include "util.h"

#if defined(__x86_64__)
#define SB_AUDIT_ARCH		AUDIT_ARCH_X86_64
#define SB_X32_BIT		0x40000000U
#elif defined(__aarch64__)
#define SB_AUDIT_ARCH		AUDIT_ARCH_AARCH64
#endif

/* The generic numbers, the same on every architecture since 5.x. */
#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup	425
#define __NR_io_uring_enter	426
#define __NR_io_uring_register	427
#endif
#ifndef __NR_open_tree
#define __NR_open_tree		428
#define __NR_move_mount		429
#define __NR_fsopen		430
#define __NR_fsconfig		431
#define __NR_fsmount		432
#define __NR_fspick		433
#endif
#ifndef __NR_clone3
#define __NR_clone3		435
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd	438
#endif
#ifndef __NR_process_madvise
#define __NR_process_madvise	440
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr	442
#endif

#define SB_LD_NR	offsetof(struct seccomp_data, nr)
#define SB_LD_ARCH	offsetof(struct seccomp_data, arch)
/* The low 32 bits (little-endian) of an argument: an int or the flags. */
#define SB_LD_ARG0	offsetof(struct seccomp_data, args[0])

#define SB_RET_ERRNO(e)	(SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

struct sb_bpf {
	struct sock_filter	*prog;
	unsigned int		 n;
	int			 overflow;
};

static void
sb_bpf_emit(struct sb_bpf *b, unsigned short code, unsigned char jt,
    unsigned char jf, uint32_t k)
{
	struct sock_filter	 insn = { code, jt, jf, k };

	if (b->n >= SB_BPF_MAX) {
		b->overflow = 1;
		return;
	}
	b->prog[b->n++] = insn;
}

static void
sb_bpf_ret(struct sb_bpf *b, uint32_t what)
{
	sb_bpf_emit(b, BPF_RET | BPF_K, 0, 0, what);
}

static void
sb_bpf_load(struct sb_bpf *b, uint32_t offset)
{
	sb_bpf_emit(b, BPF_LD | BPF_W | BPF_ABS, 0, 0, offset);
}

/* if (A == k) return what; */
static void
sb_bpf_eq_ret(struct sb_bpf *b, uint32_t k, uint32_t what)
{
	sb_bpf_emit(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, k);
	sb_bpf_ret(b, what);
}

/* if (A & k) return what; */
static void
sb_bpf_set_ret(struct sb_bpf *b, uint32_t k, uint32_t what)
{
	sb_bpf_emit(b, BPF_JMP | BPF_JSET | BPF_K, 0, 1, k);
	sb_bpf_ret(b, what);
}

/*
 * A block for one call that looks at its first argument: starts with
 * "if (nr != k) skip the block", ended by sb_bpf_block_end, which
 * patches the skip.  The block returns on every path.
 */
static unsigned int
sb_bpf_block(struct sb_bpf *b, uint32_t nr)
{
	unsigned int	 at = b->n;

	sb_bpf_emit(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, nr);
	sb_bpf_load(b, SB_LD_ARG0);
	return (at);
}

static void
sb_bpf_block_end(struct sb_bpf *b, unsigned int at)
{
	if (b->overflow || b->n - at - 1 > 255) {
		b->overflow = 1;
		return;
	}
	b->prog[at].jf = (unsigned char)(b->n - at - 1);
	sb_bpf_load(b, SB_LD_NR);	/* where the skip lands */
}

static const int sb_seccomp_denied[] = {
#ifdef __NR_kexec_load
	__NR_kexec_load,
#endif
#ifdef __NR_kexec_file_load
	__NR_kexec_file_load,
#endif
	__NR_init_module, __NR_finit_module, __NR_delete_module,
	__NR_bpf, __NR_keyctl, __NR_add_key, __NR_request_key,
	__NR_mount, __NR_umount2, __NR_pivot_root, __NR_move_mount,
	__NR_open_tree, __NR_fsopen, __NR_fsmount, __NR_fsconfig,
	__NR_fspick, __NR_mount_setattr, __NR_perf_event_open,
	__NR_userfaultfd, __NR_open_by_handle_at, __NR_swapon,
	__NR_swapoff, __NR_reboot, __NR_acct, __NR_syslog, __NR_quotactl,
#ifdef __NR_iopl
	__NR_iopl,
#endif
#ifdef __NR_ioperm
	__NR_ioperm,
#endif
#ifdef __NR_uselib
	__NR_uselib,
#endif
#ifdef __NR_lookup_dcookie
	__NR_lookup_dcookie,
#endif
	__NR_io_uring_setup, __NR_io_uring_enter, __NR_io_uring_register,
};

static const int sb_seccomp_ptrace[] = {
	__NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev,
	__NR_pidfd_getfd, __NR_process_madvise,
};

static void
sb_seccomp_socket(struct sb_bpf *b, const struct sb_rules *rules)
{
	unsigned int	 at;

	at = sb_bpf_block(b, __NR_socket);
	if (!rules->unix_sockets)
		sb_bpf_eq_ret(b, AF_UNIX, SB_RET_ERRNO(EACCES));
	if (rules->net == SB_NET_NONE) {
		sb_bpf_eq_ret(b, AF_UNIX, SECCOMP_RET_ALLOW);
		sb_bpf_eq_ret(b, AF_NETLINK, SECCOMP_RET_ALLOW);
		sb_bpf_ret(b, SB_RET_ERRNO(EACCES));
	} else
		sb_bpf_ret(b, SECCOMP_RET_ALLOW);
	sb_bpf_block_end(b, at);
}

/* clone and unshare: no CLONE_NEWUSER. */
static void
sb_seccomp_userns(struct sb_bpf *b)
{
	static const int	 calls[] = { __NR_clone, __NR_unshare };
	unsigned int		 at, i;

	for (i = 0; i < nitems(calls); i++) {
		at = sb_bpf_block(b, (uint32_t)calls[i]);
		sb_bpf_set_ret(b, CLONE_NEWUSER, SB_RET_ERRNO(EPERM));
		sb_bpf_ret(b, SECCOMP_RET_ALLOW);
		sb_bpf_block_end(b, at);
	}
	sb_bpf_eq_ret(b, __NR_setns, SB_RET_ERRNO(EPERM));
}

int
sb_seccomp_prepare(const struct sb_rules *rules, struct sb_prepared *p)
{
#ifdef SB_AUDIT_ARCH
	struct sb_bpf	 b = { p->bpf, 0, 0 };
	size_t		 i;

	sb_bpf_load(&b, SB_LD_ARCH);
	sb_bpf_emit(&b, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, SB_AUDIT_ARCH);
	sb_bpf_ret(&b, SECCOMP_RET_KILL_PROCESS);
	sb_bpf_load(&b, SB_LD_NR);
#ifdef SB_X32_BIT
	sb_bpf_emit(&b, BPF_JMP | BPF_JGE | BPF_K, 0, 1, SB_X32_BIT);
	sb_bpf_ret(&b, SB_RET_ERRNO(ENOSYS));
#endif
	sb_bpf_eq_ret(&b, __NR_clone3, SB_RET_ERRNO(ENOSYS));
	for (i = 0; i < nitems(sb_seccomp_denied); i++)
		sb_bpf_eq_ret(&b, (uint32_t)sb_seccomp_denied[i],
		    SB_RET_ERRNO(EPERM));
	for (i = 0; !rules->ptrace && i < nitems(sb_seccomp_ptrace); i++)
		sb_bpf_eq_ret(&b, (uint32_t)sb_seccomp_ptrace[i],
		    SB_RET_ERRNO(EPERM));
	if (!rules->userns)
		sb_seccomp_userns(&b);
	if (!rules->unix_sockets || rules->net == SB_NET_NONE)
		sb_seccomp_socket(&b, rules);
	sb_bpf_ret(&b, SECCOMP_RET_ALLOW);
	if (b.overflow)
		return (-1);
	p->nbpf = (unsigned short)b.n;
#else
	(void)rules;
	p->nbpf = 0;
#endif
	return (0);
}

/* In the child, last before execve (no_new_privs is set). */
unsigned int
sb_seccomp_apply(const struct sb_prepared *p, int *error)
{
	struct sock_fprog	 prog;

	if (p->nbpf == 0) {
		*error = EOPNOTSUPP;
		return (0);
	}
	prog.len = p->nbpf;
	prog.filter = (struct sock_filter *)p->bpf;
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
		*error = errno;
		return (0);
	}
	return (SB_HELD_SECCOMP);
}
