/*
 * runconf.c -- the configuration file mcpctl import, install, add and
 * remove work on, and writing it.
 *
 * A file given with --config wins.  Else, when an mcpd answers on the
 * socket, the file it reads (the "config" of mcpd/version, an absolute
 * path): mcpd may run on -c FILE, or as root on /etc/mcpd/mcpd.json, and
 * a change elsewhere would never reach it.  Else mcpd's default
 * (paths.h), which an mcpd started later reads.  The file and why it was
 * chosen are said before anything is asked, and the reload after a write
 * goes only to an mcpd that reads the file written.
 *
 * A new text is written one way for every command (runconf_write): the
 * file is replaced whole through apps.c, never edited in place, and not
 * at all if it changed since it was read.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "admin.h"
#include "admin_int.h"
#include "apps.h"
#include "conf.h"
#include "ctl.h"
#include "diag.h"
#include "fdio.h"
#include "out.h"
#include "paths.h"
#include "proto.h"
#include "runconf.h"
#include "udiff.h"
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

/* mkdir -p of path's directory, mode 0700 for what it creates. */
static int
runconf_mkdirs(const char *path)
{
	char	*dir, *p;
	int	 rc = 0;

	dir = xstrdup(path);
	if ((p = strrchr(dir, '/')) != NULL && p != dir) {
		*p = '\0';
		if ((rc = fdio_mkdirs(dir, 0700)) == -1)
			diag_warnx(dir, "mkdir: %s", strerror(errno));
	}
	free(dir);
	return (rc);
}

/*
 * mcpd's opinion of a new text for config, as check-config gives it, in
 * mcpctl's environment (mcpd's may set variables this one lacks).
 */
static void
runconf_check(const char *config, const char *text, size_t len)
{
	struct conf_diags	 diags;
	struct conf		*conf;
	size_t			 i;

	conf_diags_init(&diags);
	conf = conf_load_text(config, text, len, &diags);
	for (i = 0; i < diags.n; i++)
		diag_warnx(NULL, "%s%s", diags.v[i].level == CONF_WARNING ?
		    "warning: " : "", diags.v[i].text);
	if (conf == NULL)
		diag_warnx(NULL, "mcpd would refuse this file as it is (in "
		    "mcpctl's environment); a reload keeps the old one");
	conf_free(conf);
	conf_diags_free(&diags);
}

int
runconf_write(struct ctl *ctl, const struct runconf *rc,
    const struct runconf_edit *e)
{
	const char	*config = rc->path;
	char		*diff, *backup, *question, *cause;
	int		 ok;

	runconf_check(config, e->new, e->newlen);
	diff = udiff(e->shown_old != NULL ? e->shown_old : e->old,
	    e->shown_old != NULL ? e->shown_oldlen : e->oldlen,
	    e->shown_new != NULL ? e->shown_new : e->new,
	    e->shown_new != NULL ? e->shown_newlen : e->newlen,
	    e->exists ? config : "/dev/null", config);
	if (e->dry_run) {
		fputs(diff, stdout);
		printf("dry run: %s not changed\n", out_esc(config));
		free(diff);
		return (DIAG_EXIT_OK);
	}
	xasprintf(&question, "%s %s?", e->exists ? "Write this to" :
	    "Create", out_esc(config));
	ok = apps_confirm(diff, question, e->yes);
	free(question);
	free(diff);
	if (ok != 1)
		return (DIAG_EXIT_FAILED);
	if (!e->exists && runconf_mkdirs(config) == -1)
		return (DIAG_EXIT_FAILED);
	if (e->exists) {
		xasprintf(&backup, "%s.bak", config);
		if (apps_backup(backup, e->old, e->oldlen, &e->sb,
		    &cause) == -1) {
			diag_warnx(backup, "%s; nothing written", cause);
			free(cause);
			free(backup);
			return (DIAG_EXIT_FAILED);
		}
		printf("the previous file is in %s\n", out_esc(backup));
		free(backup);
	}
	if (apps_write(config, e->new, e->newlen, e->exists ? &e->sb : NULL,
	    e->old, e->oldlen, e->exists, &cause) == -1) {
		diag_warnx(config, "%s", cause);
		free(cause);
		return (DIAG_EXIT_FAILED);
	}
	printf("wrote %s (%s)\n", out_esc(config), rc->why);
	return (runconf_reload(ctl, rc));
}
