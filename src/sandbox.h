/*
 * sandbox.h -- what a server may touch: the "sandbox" key as configured
 * (struct sb_spec), and the rules built from it for one start of one
 * server (struct sb_rules).  Pure: sb_build reads no file and makes no
 * system call; what it must know of the world comes in struct sb_input.
 *
 * The rules are applied in the server's child between fork and execve
 * (sbapply.h): a user + network namespace where asked, no_new_privs,
 * Landlock for files and TCP ports, seccomp last.
 */
#ifndef MCPD_SANDBOX_H
#define MCPD_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

enum sb_profile {
	SB_PROFILE_UNSET = 0,	/* no "sandbox" key: runs unsandboxed */
	SB_PROFILE_OFF,		/* "off": unsandboxed, said on purpose */
	SB_PROFILE_DEFAULT,	/* "default" */
	SB_PROFILE_BROWSER,	/* "browser": default + what browsers need */
	SB_PROFILE_CUSTOM,	/* an object: default + its grants */
};

enum sb_net {
	SB_NET_ANY = 0,		/* "any" */
	SB_NET_NONE,		/* "none": no inet sockets, own netns */
	SB_NET_PORTS,		/* {"ports": [...]}: TCP connect by port */
};

#define SB_PORTS_MAX	64
#define SB_GRANTS_MAX	1024	/* after splitting (a home has many) */

/* The "sandbox" key (per server, or the "mcpd" default), expanded. */
struct sb_spec {
	enum sb_profile	 profile;
	/* CUSTOM: the profile its grants add to ("profile"), else 0. */
	enum sb_profile	 base;
	char		**read;		/* absolute paths; NULL-ended */
	size_t		 nread;
	char		**write;	/* absolute paths; NULL-ended */
	size_t		 nwrite;
	enum sb_net	 net;
	uint16_t	 ports[SB_PORTS_MAX];
	size_t		 nports;
	int		 unix_sockets;	/* socket(AF_UNIX) allowed */
	int		 required;	/* "sandbox_required": all or no start */
};

/* What sb_build knows of the world (all absolute, NULL where none). */
struct sb_input {
	const char	 *home;		/* the user's home */
	const char	 *server_dir;	/* private: the server's own */
	const char	 *exe;		/* the command, resolved by PATH */
	const char	 *exe_real;	/* exe, symlinks resolved, or NULL */
	const char	 *cwd;		/* configured cwd, or NULL */
	char *const	 *argv;		/* NULL-ended, expanded */
	char *const	 *env;		/* configured "KEY=VALUE", NULL-ended */
	/* Never granted: mcpd's state, tokens, socket dir; NULL-ended. */
	const char *const *deny;
	/*
	 * Lists a directory's entries (names, NULL-ended, malloc'd, freed
	 * by the caller) so a grant holding a denied path can be split into
	 * its siblings; NULL makes such a grant an error.  The one I/O
	 * seam, so tests give a fake tree.
	 */
	char		**(*list_dir)(const char *dir, void *arg);
	/*
	 * What a path is (SB_KIND_*), for the paths of args and env; NULL
	 * takes each for a directory that may not exist.  Same arg.
	 */
	int		 (*path_kind)(const char *path, void *arg);
	void		 *list_arg;
};

#define SB_KIND_NONE	0	/* does not exist (or cannot be seen) */
#define SB_KIND_FILE	1	/* exists, not a directory */
#define SB_KIND_DIR	2

#define SB_READ		0x1	/* read files and list directories */
#define SB_EXEC		0x2	/* execute files */
#define SB_WRITE	0x4	/* create, write, remove, rename */

struct sb_grant {
	char		*path;
	unsigned int	 access;	/* SB_READ | SB_EXEC | SB_WRITE */
	const char	*why;		/* "system", "runtime", "cwd", "args",
					   "env", "read", "write", "private" */
	/*
	 * 1: implied by the profile or the entry and possibly absent on
	 * this system (/lib32, /nix/store...): the applier skips it when
	 * it does not exist.  0: it must exist (a configured grant, cwd,
	 * the private directory): a missing one fails the start.
	 */
	int		 optional;
};

/* What one start of one server gets. */
struct sb_rules {
	int		 on;		/* 0: no sandbox at all */
	int		 required;
	struct sb_grant	*grants;
	size_t		 ngrants;
	enum sb_net	 net;
	uint16_t	 ports[SB_PORTS_MAX];
	size_t		 nports;
	int		 unix_sockets;	/* socket(AF_UNIX) allowed */
	int		 userns;	/* may create user namespaces (browser) */
	int		 ptrace;	/* may ptrace its own (browser) */
	int		 netns;		/* wants a network namespace ("none") */
	char		*workdir;	/* cwd when none is configured */
	char		**env;		/* added: "TMPDIR=...", NULL-ended */
	size_t		 nenv;
	/*
	 * What was left out and why ("args[2]: inside ~/.ssh, never
	 * granted"), for the log; NULL-ended, possibly empty.
	 */
	char		**notes;
	size_t		 nnotes;
};

/*
 * Build the rules for spec (NULL or SB_PROFILE_UNSET/OFF: rules->on 0).
 * 0, or -1 with *err a malloc'd sentence naming the offending key.
 */
int	 sb_build(const struct sb_spec *, const struct sb_input *,
	    struct sb_rules *, char **err);
void	 sb_rules_free(struct sb_rules *);
void	 sb_spec_free(struct sb_spec *);
/* A deep copy into dst (overwritten); equality of what each grants. */
void	 sb_spec_copy(struct sb_spec *dst, const struct sb_spec *);
int	 sb_spec_equal(const struct sb_spec *, const struct sb_spec *);
/* "off", "default", "browser", "custom", or "none" for UNSET. */
const char *sb_profile_name(enum sb_profile);

#endif /* MCPD_SANDBOX_H */
