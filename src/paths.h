/*
 * paths.h -- default locations of the configuration file and the socket,
 * and the rule for trusting a socket's directory, shared by mcpd and
 * mcpctl so they always agree.
 *
 * As root: SYSCONFDIR/mcpd/mcpd.json and /run/mcpd/mcpd.sock.
 * Otherwise: $XDG_CONFIG_HOME/mcpd/mcpd.json (~/.config/...) and
 * $XDG_RUNTIME_DIR/mcpd/mcpd.sock, or without XDG_RUNTIME_DIR
 * $XDG_CACHE_HOME/mcpd/mcpd.sock (~/.cache/...): a directory of the
 * user's own, never a shared one such as /tmp where another user could
 * create it first.  MCPD_SOCKET overrides the socket path for both
 * programs.
 */
#ifndef MCPD_PATHS_H
#define MCPD_PATHS_H

#include <sys/types.h>

#define PATHS_SOCKET_ENV	"MCPD_SOCKET"
/* The PATH a server gets when neither its "env" nor mcpd has one. */
#define PATHS_CHILD_DEFAULT	"/usr/local/bin:/usr/bin:/bin"

char	*paths_default_config(void);
char	*paths_default_socket(void);
/*
 * The state directory mcpd's own state (STATE/mcpd/...) and its
 * servers' private directories (STATE/mcpd-sandbox) lie in, malloc'd:
 * $XDG_STATE_HOME when it is set, else NULL as root (whose state is in
 * /var/lib/mcpd-NAME, the system unit's state directories), else
 * ~/.local/state.
 */
char	*paths_state_home(void);
/*
 * Where sign-ins keep their tokens (mcpd --token-dir): as root
 * /var/lib/mcpd-tokens (the system unit's second state directory, not
 * the servers' HOME); otherwise $XDG_STATE_HOME/mcpd/tokens
 * (~/.local/state/...).
 */
char	*paths_default_token_dir(void);
/* A server's token file in dir: "DIR/NAME.json". */
char	*paths_token_file(const char *dir, const char *server);

/* The directory a socket path is in ("." for a bare name), malloc'd. */
char	*paths_socket_dir(const char *socket_path);

/*
 * May uid keep its socket in dir, or trust a socket there?  Only if dir is
 * owned by uid or by root and nobody else can write to it: not its group,
 * and not others even with the sticky bit, since whoever can create the
 * socket's name first can pose as mcpd.  Returns 0 if so; -1 with errno
 * set if dir cannot be examined (ENOENT when it does not exist); -2 if it
 * is not to be trusted, with *cause saying why, to follow the directory's
 * name ("is owned by uid 1001 (bob), not by uid 1000 (alice) or root").
 */
int	 paths_check_dir(const char *dir, uid_t uid, char **cause);

/* "uid 1001 (bob)", or "uid 1001" without a passwd entry; malloc'd. */
char	*paths_describe_uid(uid_t uid);

/*
 * One of mcpd's own programs (mcpd-remote, mcpd-http) into path[size]:
 * beside the running executable (the build tree, or the installed bin
 * directory) when it is there, else in BINDIR.
 */
void	 paths_own_program(const char *name, char *path, size_t size);

#endif /* MCPD_PATHS_H */
