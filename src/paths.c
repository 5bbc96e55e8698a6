/*
 * paths.c -- default configuration and socket paths.
 */
#include "config.h"

#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

#include "paths.h"
#include "xmalloc.h"

#ifndef SYSCONFDIR
#define SYSCONFDIR "/etc"
#endif

static const char *
paths_home(void)
{
	const char	*home;
	struct passwd	*pw;

	if ((home = getenv("HOME")) != NULL && *home != '\0')
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
	else
		xasprintf(&path, "/tmp/mcpd-%u/mcpd.sock", (unsigned)getuid());
	return (path);
}
