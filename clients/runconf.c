/*
 * runconf.c -- the configuration file mcpctl import and install work on.
 *
 * A file given with --config wins.  Else, when an mcpd answers on the
 * socket, the file it reads (the "config" of mcpd/version, an absolute
 * path): mcpd may run on -c FILE, or as root on /etc/mcpd/mcpd.json, and
 * a change elsewhere would never reach it.  Else mcpd's default
 * (paths.h), which an mcpd started later reads.  The file and why it was
 * chosen are said before anything is asked, and the reload after a write
 * goes only to an mcpd that reads the file written.
 */
#include "config.h"

#include <sys/stat.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "admin.h"
#include "admin_int.h"
#include "ctl.h"
#include "diag.h"
#include "out.h"
#include "paths.h"
#include "proto.h"
#include "runconf.h"
#include "xmalloc.h"

/* path from the current directory, as mcpd reports its own. */
static char *
runconf_absolute(const char *path)
{
	char	 cwd[PATH_MAX], *abs;

	if (*path == '/' || getcwd(cwd, sizeof cwd) == NULL)
		return (xstrdup(path));
	xasprintf(&abs, "%s/%s", cwd, path);
	return (abs);
}

/* The same file, or for one not there yet the same path? */
static int
runconf_same(const char *a, const char *b)
{
	struct stat	 sa, sb;
	char		*aa, *ab;
	int		 same;

	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return (sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino);
	aa = runconf_absolute(a);
	ab = runconf_absolute(b);
	same = strcmp(aa, ab) == 0;
	free(aa);
	free(ab);
	return (same);
}

/* Which file the mcpd on the socket reads, if one answers. */
static void
runconf_ask(struct ctl *ctl, struct runconf *rc)
{
	cJSON		*result;
	const char	*file;
	int		 status;

	if (admin_connect(ctl, 1) != DIAG_EXIT_OK)
		return;
	result = admin_call(ctl, MCPD_METHOD_VERSION, NULL, &status);
	admin_close(ctl);
	if (result == NULL)
		return;
	rc->pid = (long)out_num(result, "pid", 0);
	if (rc->pid <= 0)
		rc->pid = -1;		/* it answered, without a pid */
	if ((file = out_str(result, "config")) != NULL && *file != '\0')
		rc->running = xstrdup(file);
	cJSON_Delete(result);
}

void
runconf_find(struct ctl *ctl, const char *given, const char *label,
    struct runconf *rc)
{
	memset(rc, 0, sizeof *rc);
	runconf_ask(ctl, rc);
	if (given != NULL) {
		rc->path = xstrdup(given);
		rc->why = xstrdup("given with --config");
	} else if (rc->running != NULL) {
		rc->path = xstrdup(rc->running);
		xasprintf(&rc->why, "the file the running mcpd reads, pid %ld",
		    rc->pid);
	} else {
		rc->path = paths_default_config();
		if (rc->pid != 0)
			rc->why = xstrdup("mcpd's default; the running mcpd "
			    "does not say which file it reads");
		else
			xasprintf(&rc->why, "mcpd's default; no mcpd answers "
			    "at %s", out_esc(ctl->socket_path));
	}
	printf("%s %s (%s)\n", label, out_esc(rc->path), rc->why);
	if (rc->running != NULL && !runconf_same(rc->path, rc->running))
		diag_warnx(NULL, "warning: the running mcpd (pid %ld) reads %s, "
		    "not %s", rc->pid, out_esc(rc->running),
		    out_esc(rc->path));
	fflush(stdout);
}

int
runconf_reload(struct ctl *ctl, const struct runconf *rc)
{
	char	*dflt;
	int	 is_default;

	if (rc->running != NULL && !runconf_same(rc->path, rc->running)) {
		printf("the running mcpd (pid %ld) reads %s: not reloaded\n",
		    rc->pid, out_esc(rc->running));
		return (DIAG_EXIT_OK);
	}
	if (rc->pid == 0 || admin_connect(ctl, 1) != DIAG_EXIT_OK) {
		dflt = paths_default_config();
		is_default = runconf_same(rc->path, dflt);
		free(dflt);
		printf("mcpd is not running (at %s): it reads %s when it "
		    "starts%s\n", out_esc(ctl->socket_path), out_esc(rc->path),
		    is_default ? "" : " with -c");
		return (DIAG_EXIT_OK);
	}
	return (admin_reload(ctl, 0, NULL));
}

void
runconf_clear(struct runconf *rc)
{
	free(rc->path);
	free(rc->why);
	free(rc->running);
	memset(rc, 0, sizeof *rc);
}
