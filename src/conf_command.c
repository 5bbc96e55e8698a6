/*
 * conf_command.c -- the servers' commands looked for where a start will
 * look (mcpd -n): a bare name along the PATH the server gets, a path as
 * it is (from the server's cwd if relative).  Only a warning: the file
 * system at a check is not the one at a start (a package installed
 * later, a PATH that differs under systemd).
 *
 * The lookup is daemon/child.c's: regular files, executable by the user
 * checking; an empty element of PATH is the current directory.  The
 * diagnostics keep conf_diag.c's invariant: they name the server's path
 * and where the PATH came from, never the command or the PATH's value.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "conf_int.h"
#include "xmalloc.h"

/* 0 if file is a regular file we may execute, else an errno. */
static int
conf_command_file(const char *file)
{
	struct stat	 sb;

	if (stat(file, &sb) != 0)
		return (errno);
	if (!S_ISREG(sb.st_mode))
		return (EISDIR);
	if (access(file, X_OK) != 0)
		return (EACCES);
	return (0);
}

/* Along path: 0 if found, EACCES if only found not executable, ENOENT. */
static int
conf_command_along(const char *cmd, const char *path)
{
	const char	*p, *end;
	char		*candidate;
	int		 error, saw_eacces = 0;

	for (p = path; p != NULL; p = *end == ':' ? end + 1 : NULL) {
		end = strchrnul(p, ':');
		if (end == p)
			xasprintf(&candidate, "./%s", cmd);
		else
			xasprintf(&candidate, "%.*s/%s", (int)(end - p), p,
			    cmd);
		error = conf_command_file(candidate);
		free(candidate);
		if (error == 0)
			return (0);
		if (error == EACCES)
			saw_eacces = 1;
	}
	return (saw_eacces ? EACCES : ENOENT);
}

/* The server's own PATH, from its "env"; NULL if it sets none. */
static const char *
conf_command_env_path(const struct conf_server *cs)
{
	size_t	 i;

	for (i = 0; i < cs->envc; i++) {
		if (strncmp(cs->env[i], "PATH=", 5) == 0)
			return (cs->env[i] + 5);
	}
	return (NULL);
}

static void
conf_command_check(const struct conf_server *cs, const char *own_path,
    const char *default_path, struct conf_diags *diags)
{
	const char	*cmd = cs->argv[0], *path, *whose;
	char		*where, *file = NULL;
	int		 error;

	xasprintf(&where, "%s.command", cs->path);
	if (strchr(cmd, '/') != NULL) {
		if (*cmd != '/' && cs->cwd != NULL)
			xasprintf(&file, "%s/%s", cs->cwd, cmd);
		error = conf_command_file(file != NULL ? file : cmd);
		if (error == ENOENT || error == ENOTDIR)
			conf_diag_warn(diags, where, "no such file");
		else if (error == EISDIR)
			conf_diag_warn(diags, where, "not a regular file");
		else if (error != 0)
			conf_diag_warn(diags, where, "cannot be executed: %s",
			    strerror(error));
		goto out;
	}
	if ((path = conf_command_env_path(cs)) != NULL)
		whose = "the PATH of its \"env\"";
	else if ((path = own_path) != NULL)
		whose = "mcpd's own";
	else {
		path = default_path;
		whose = "the default PATH";
	}
	error = conf_command_along(cmd, path);
	if (error == EACCES)
		conf_diag_warn(diags, where, "found on the server's PATH (%s) "
		    "but not executable", whose);
	else if (error != 0)
		conf_diag_warn(diags, where, "not found on the server's PATH "
		    "(%s): give an absolute path, or set PATH in its \"env\"",
		    whose);
out:
	free(file);
	free(where);
}

void
conf_check_commands(const struct conf *conf, const char *own_path,
    const char *default_path, struct conf_diags *diags)
{
	const struct conf_server	*cs;
	size_t				 i;

	for (i = 0; i < conf->nservers; i++) {
		cs = &conf->servers[i];
		if (conf_server_is_remote(cs) || cs->argc == 0 ||
		    cs->argv[0] == NULL || *cs->argv[0] == '\0')
			continue;
		conf_command_check(cs, own_path, default_path, diags);
	}
}
