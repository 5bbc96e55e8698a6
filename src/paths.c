/*
 * paths.c -- default configuration and socket paths, and whether a
 * socket's directory can be trusted.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dirs.h"
#include "paths.h"
#include "xmalloc.h"

static const char *
paths_home(void)
{
	const char	*home;
	struct passwd	*pw;

	if ((home = getenv("HOME")) != NULL && *home == '/')
		return (home);
	if ((pw = getpwuid(getuid())) != NULL)
		return (pw->pw_dir);
	return ("/");
}

char *
paths_default_config(void)
{
	const char	*xdg;
	char		*path;

	if (getuid() == 0) {
		xasprintf(&path, "%s/mcpd/mcpd.json", SYSCONFDIR);
		return (path);
	}
	if ((xdg = getenv("XDG_CONFIG_HOME")) != NULL && *xdg == '/')
		xasprintf(&path, "%s/mcpd/mcpd.json", xdg);
	else
		xasprintf(&path, "%s/.config/mcpd/mcpd.json", paths_home());
	return (path);
}

/*
 * Without XDG_RUNTIME_DIR (su, cron, ssh without a login session), the
 * socket goes below the user's home rather than into /tmp, where another
 * user could make the directory first and receive the user's requests.
 */
char *
paths_default_socket(void)
{
	const char	*env, *xdg;
	char		*path;

	if ((env = getenv(PATHS_SOCKET_ENV)) != NULL && *env != '\0')
		return (xstrdup(env));
	if (getuid() == 0)
		return (xstrdup("/run/mcpd/mcpd.sock"));
	if ((xdg = getenv("XDG_RUNTIME_DIR")) != NULL && *xdg == '/')
		xasprintf(&path, "%s/mcpd/mcpd.sock", xdg);
	else if ((xdg = getenv("XDG_CACHE_HOME")) != NULL && *xdg == '/')
		xasprintf(&path, "%s/mcpd/mcpd.sock", xdg);
	else
		xasprintf(&path, "%s/.cache/mcpd/mcpd.sock", paths_home());
	return (path);
}

char *
paths_state_home(void)
{
	const char	*xdg;
	char		*path;

	if ((xdg = getenv("XDG_STATE_HOME")) != NULL && *xdg == '/')
		return (xstrdup(xdg));
	if (getuid() == 0)
		return (NULL);
	xasprintf(&path, "%s/.local/state", paths_home());
	return (path);
}

char *
paths_default_token_dir(void)
{
	char	*state, *path;

	if (getuid() == 0 || (state = paths_state_home()) == NULL)
		return (xstrdup("/var/lib/mcpd-tokens"));
	xasprintf(&path, "%s/mcpd/tokens", state);
	free(state);
	return (path);
}

char *
paths_token_file(const char *dir, const char *server)
{
	char	*path;

	xasprintf(&path, "%s/%s.json", dir, server);
	return (path);
}

char *
paths_socket_dir(const char *socket_path)
{
	const char	*slash;

	if ((slash = strrchr(socket_path, '/')) == NULL)
		return (xstrdup("."));
	if (slash == socket_path)
		return (xstrdup("/"));
	return (xstrndup(socket_path, (size_t)(slash - socket_path)));
}

char *
paths_describe_uid(uid_t uid)
{
	struct passwd	*pw;
	char		*text;

	if ((pw = getpwuid(uid)) != NULL)
		xasprintf(&text, "uid %lu (%s)", (unsigned long)uid,
		    pw->pw_name);
	else
		xasprintf(&text, "uid %lu", (unsigned long)uid);
	return (text);
}

int
paths_check_dir(const char *dir, uid_t uid, char **cause)
{
	struct stat	 sb;
	char		*owner, *user;

	if (stat(dir, &sb) != 0)
		return (-1);
	if (!S_ISDIR(sb.st_mode)) {
		xasprintf(cause, "is not a directory");
		return (-2);
	}
	if (sb.st_uid != uid && sb.st_uid != 0) {
		owner = paths_describe_uid(sb.st_uid);
		user = paths_describe_uid(uid);
		xasprintf(cause, "is owned by %s, not by %s or root", owner,
		    user);
		free(owner);
		free(user);
		return (-2);
	}
	if ((sb.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		xasprintf(cause, "is writable by %s (mode %04o)",
		    (sb.st_mode & S_IWOTH) != 0 ? "others" : "its group",
		    (unsigned)(sb.st_mode & 07777));
		return (-2);
	}
	return (0);
}

void
paths_own_program(const char *name, char *path, size_t size)
{
	char	 exe[PATH_MAX];
	ssize_t	 n;

	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		snprintf(path, size, "%s/%s", dirname(exe), name);
		if (access(path, X_OK) == 0)
			return;
	}
	snprintf(path, size, "%s/%s", BINDIR, name);
}
