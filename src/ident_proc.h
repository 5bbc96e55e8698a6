/*
 * ident_proc.h -- what /proc says of a process, read from texts mcpd
 * cannot trust (pure): the process may name itself anything (its comm
 * holds ')', spaces and newlines), its executable's path may hold
 * newlines or end in " (deleted)", and a cgroup's name is whatever its
 * delegated owner made it.
 *
 * Every reader takes a byte string with a length (NULs and all) and
 * answers -1 or NULL when the text is not what the kernel writes; none
 * reads past len, none allocates more than len plus a constant.  What
 * is returned is a new string, as the text had it: escape it
 * (identp_display) before a terminal or a log line sees it.
 */
#ifndef MCPD_IDENT_PROC_H
#define MCPD_IDENT_PROC_H

#include <sys/types.h>

#include <stddef.h>

/* Longer texts are not what the kernel writes for these files. */
#define IDENTP_TEXT_MAX_BYTES	(64 * 1024)
/* How many wrappers are walked past above mcpctl connect, at most. */
#define IDENTP_WALK_MAX		8

struct identp_stat {
	pid_t			 ppid;
	char			 state;		/* R, S, Z... */
	unsigned long long	 starttime;	/* clock ticks since boot */
};

/*
 * /proc/PID/stat: the fields after the comm, which is read as ending at
 * the last ')' of the text.  0, or -1.
 */
int	 identp_stat(const char *, size_t, struct identp_stat *);

/*
 * /proc/PID/status: the PPid line, and the real uid of the Uid line.
 * 0, or -1 when the line is missing, repeated or not a number.
 */
int	 identp_status_ppid(const char *, size_t, pid_t *);
int	 identp_status_uid(const char *, size_t, uid_t *);

/*
 * /proc/PID/cgroup: the path of the unified hierarchy ("0::/path"), or
 * failing that of systemd's on a hybrid one ("N:name=systemd:/path").
 * NULL when neither is there, or either is there twice (a cgroup whose
 * name holds a newline makes a second line of its own).
 */
char	*identp_cgroup_path(const char *, size_t);

/*
 * Is the cgroup path (as identp_cgroup_path reads it) the cgroup base
 * (a path of the same hierarchy) or one below it?  Whole components:
 * "/a/b" and "/a/b/c" are within "/a/b"; "/a/bc" and "/a" are not.
 */
int	 identp_cgroup_within(const char *path, const char *base);

/*
 * The systemd unit of a cgroup path: its last component that ends in
 * ".service" or ".scope" (a user's units lie below user@UID.service),
 * or NULL.
 */
char	*identp_unit(const char *path);

/*
 * The app id a cgroup path names: a Flatpak app's scope,
 * "app-flatpak-ID-NNN.scope", gives ID; a Snap's unit,
 * "snap.NAME.APP...", gives "snap.NAME".  NULL when it names neither.
 */
char	*identp_cgroup_app(const char *path);

/*
 * A Flatpak sandbox's /.flatpak-info: the name= key of its [Application]
 * group, or NULL.
 */
char	*identp_flatpak_info(const char *, size_t);

/*
 * Is this process a shell or launcher that mcpctl connect is run
 * through, to be walked past to the app above it?  exe as readlink gives
 * it (" (deleted)" or not), cmdline as /proc/PID/cmdline (arguments,
 * each ended by a NUL).  Decided by a fixed list: sh, bash, dash, zsh,
 * ksh, mksh and env; npx, uvx and uv; node running npx or "npm exec";
 * python running pipx, uv or uvx.
 */
int	 identp_wrapper(const char *exe, const char *cmdline, size_t len);

/* Is exe (as readlink gives it) a program of this basename? */
int	 identp_exe_is(const char *exe, const char *name);

/* Text from /proc made fit for a terminal or a log line (esc_text). */
char	*identp_display(const char *);

#endif /* MCPD_IDENT_PROC_H */
