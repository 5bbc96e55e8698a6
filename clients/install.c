/*
 * install.c -- mcpctl install and uninstall: an app's own configuration
 * pointed at mcpd, and back.
 *
 *	mcpctl install APP [--servers NAME...] [--yes] [-c FILE]
 *	mcpctl uninstall APP [--yes] [--force]
 *
 * install rewrites, in each of the app's files (apps.c), every entry that
 * mcpd's configuration (the file runconf.h finds, named first) runs the
 * same server as (appconf_same_server) into
 * {"command": MCPCTL, "args": ["connect", NAME]} (and "-s", SOCKET when
 * the socket is not the default one, or the app does not pass its servers
 * XDG_RUNTIME_DIR: apps_bare_env), MCPCTL being this program's absolute
 * path, in the app's own shape (appshape.h: opencode's {"type": "local",
 * "command": [MCPCTL, "connect", NAME]}...).  Other entries, and every
 * other byte of the file, comments included, stay.  The original is kept
 * once, byte for byte, as FILE.mcpd-backup (a later install keeps the
 * first one), and what was written as FILE.mcpd-installed.
 *
 * uninstall puts FILE.mcpd-backup back in place of FILE, byte for byte,
 * and removes both copies; it refuses when FILE is no longer what install
 * wrote (the app or a person changed it since) unless --force.
 *
 * With --http, the entries are {"url": BASE/servers/NAME/mcp, "headers":
 * {"Authorization": "Bearer TOKEN"}} in the app's shape (appshape_remote;
 * only the apps appshape_takes_url names), BASE the first TCP address of
 * mcpd's "http" listener (install_http.h), TOKEN a token made for this
 * app alone, named "app-APP" and scoped to exactly the servers written.
 * The file and its .mcpd-installed copy are then written 0600, and the
 * diff shown has the token hidden.  uninstall revokes the app's token.
 *
 * Both show the diff and ask, or take --yes; a file that changes between
 * the reading and the writing is left alone (apps_write).
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

#include "appconf.h"
#include "appshape.h"
#include "apps.h"
#include "ctl.h"
#include "diag.h"
#include "import.h"
#include "install_http.h"
#include "out.h"
#include "paths.h"
#include "runconf.h"
#include "sbuf.h"
#include "token.h"
#include "udiff.h"
#include "xmalloc.h"

#define INSTALL_BACKUP_SUFFIX		".mcpd-backup"
#define INSTALL_INSTALLED_SUFFIX	".mcpd-installed"

struct install_opts {
	char	**servers;	/* --servers, NULL-ended, or NULL */
	int	  yes;
	int	  force;
	char	 *config;	/* --config, or NULL */
	char	 *app;
	int	  http;		/* --http */
	char	 *base;		/* --http: "http://HOST:PORT" */
	char	 *token;	/* --http: the app's token */
	cJSON	 *served;	/* --http: the running front's addresses */
};

static int	install_drop_token(const char *);

static void
install_usage(int uninstall)
{
	if (uninstall)
		diag_warnx(NULL, "usage: mcpctl uninstall APP [--yes] "
		    "[--force] (APP: %s)", apps_names());
	else
		diag_warnx(NULL, "usage: mcpctl install APP [--http] "
		    "[--servers NAME...] [--yes] [-c|--config FILE] (APP: %s)",
		    apps_names());
}

/* 0, or an exit code. */
static int
install_options(struct ctl *ctl, int argc, char **argv, int uninstall,
    struct install_opts *o)
{
	const char	*a;
	size_t		 n = 0;
	int		 i, servers = 0;

	memset(o, 0, sizeof *o);
	for (i = 0; i < argc; i++) {
		a = argv[i];
		if (strcmp(a, "--servers") == 0 && !uninstall)
			servers = 1;
		else if (strcmp(a, "--http") == 0 && !uninstall)
			o->http = 1;
		else if (strcmp(a, "--yes") == 0 || strcmp(a, "-y") == 0)
			o->yes = 1;
		else if (strcmp(a, "--force") == 0 || strcmp(a, "-f") == 0)
			o->force = 1;
		else if ((strcmp(a, "--config") == 0 || strcmp(a, "-c") ==
		    0 || strcmp(a, "-s") == 0 || strcmp(a, "--socket") == 0) &&
		    i + 1 < argc) {
			if (strcmp(a, "--config") == 0 || strcmp(a, "-c") ==
			    0) {
				free(o->config);
				o->config = xstrdup(argv[++i]);
			} else
				ctl->socket_path = argv[++i];
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			install_usage(uninstall);
			return (DIAG_EXIT_OK);
		} else if (*a == '-')
			goto usage;
		else if (servers) {
			o->servers = xreallocarray(o->servers, n + 2,
			    sizeof *o->servers);
			o->servers[n++] = argv[i];
			o->servers[n] = NULL;
		} else if (o->app == NULL)
			o->app = argv[i];
		else
			goto usage;
	}
	if (o->app == NULL || (servers && o->servers == NULL))
		goto usage;
	if (!apps_known(o->app)) {
		diag_warnx(NULL, "%s: not an app mcpctl knows (%s)", o->app,
		    apps_names());
		return (DIAG_EXIT_USAGE);
	}
	if (o->http && !appshape_takes_url(o->app)) {
		diag_warnx(NULL, "%s: its files take no URL of a server, only "
		    "a command: install it without --http (it then runs "
		    "mcpctl connect)", o->app);
		return (DIAG_EXIT_USAGE);
	}
	return (0);

usage:
	install_usage(uninstall);
	return (DIAG_EXIT_USAGE);
}

/* Is the socket mcpctl uses the one an app's mcpctl would find alone? */
static int
install_default_socket(const char *socket_path)
{
	char	*env, *dflt;
	int	 same;

	env = getenv(PATHS_SOCKET_ENV) != NULL ?
	    xstrdup(getenv(PATHS_SOCKET_ENV)) : NULL;
	unsetenv(PATHS_SOCKET_ENV);
	dflt = paths_default_socket();
	if (env != NULL) {
		setenv(PATHS_SOCKET_ENV, env, 1);
		free(env);
	}
	same = strcmp(dflt, socket_path) == 0;
	free(dflt);
	return (same);
}

/* The entry an app gets for mcpd's server name, in its shape. */
static cJSON *
install_entry(const struct install_opts *o, const struct appconf_entry *e,
    const char *self, const char *socket_path)
{
	const char	*argv[5];
	size_t		 argc = 0;
	cJSON		*entry;
	char		*url;

	if (o->http) {
		xasprintf(&url, "%s/servers/%s/mcp", o->base, e->mcpd_name);
		entry = appshape_remote(e->file, url, o->token,
		    e->was_disabled);
		free(url);
		return (entry);
	}

	argv[argc++] = self;
	argv[argc++] = "connect";
	argv[argc++] = e->mcpd_name;
	if (socket_path != NULL) {
		argv[argc++] = "-s";
		argv[argc++] = socket_path;
	}
	return (appshape_launch(e->file->shape, argv, argc,
	    e->was_disabled));
}

static int
install_wanted(const struct install_opts *o, const struct appconf_entry *e)
{
	size_t	 i;

	if (o->servers == NULL)
		return (1);
	for (i = 0; o->servers[i] != NULL; i++) {
		if (strcmp(o->servers[i], e->name) == 0 ||
		    (e->mcpd_name != NULL &&
		    strcmp(o->servers[i], e->mcpd_name) == 0))
			return (1);
	}
	return (0);
}

/* One file of the app: DIAG_EXIT_*; *changed set if it was written. */
static int
install_file(const struct install_opts *o, struct apps_file *af,
    const char *mcpd_text, size_t mcpd_len, const char *self,
    const char *socket_path, int *changed)
{
	struct appconf_list		 list = { NULL, 0 };
	const struct appconf_entry	**entries = NULL;
	cJSON				**with = NULL;
	struct stat			 bsb, wsb = af->sb;
	char				*merged = NULL, *new = NULL, *diff = NULL;
	char				*cause, *backup, *installed, *q;
	size_t				 mlen, newlen, i, n = 0;
	int				 rc = DIAG_EXIT_FAILED, made_backup = 0;

	xasprintf(&backup, "%s%s", af->path, INSTALL_BACKUP_SUFFIX);
	xasprintf(&installed, "%s%s", af->path, INSTALL_INSTALLED_SUFFIX);
	if (appconf_read(&af->f, af->text, af->len, &list, &cause) == -1 ||
	    appconf_merge(mcpd_text, mcpd_len, &list, &merged, &mlen,
	    &cause) == -1) {
		diag_warnx(af->label, "%s", cause);
		free(cause);
		goto out;
	}
	entries = xreallocarray(NULL, list.n + 1, sizeof *entries);
	with = xreallocarray(NULL, list.n + 1, sizeof *with);
	for (i = 0; i < list.n; i++) {
		const struct appconf_entry *e = &list.v[i];

		if (!install_wanted(o, e))
			continue;
		printf("%s %s: %s: ", o->app, out_esc(af->label),
		    out_esc(e->name));
		switch (e->status) {
		case APPCONF_SAME:
			printf("through mcpd (server %s)\n",
			    out_esc(e->mcpd_name));
			entries[n] = e;
			with[n] = install_entry(o, e, self, socket_path);
			n++;
			break;
		case APPCONF_NEW:
			printf("not in mcpd's configuration, left as it is "
			    "(mcpctl import first)\n");
			break;
		case APPCONF_SKIPPED:
			printf("left as it is (%s)\n", e->nnotes > 0 ?
			    out_esc(e->notes[0]) : "skipped");
			break;
		}
	}
	if (n == 0) {
		rc = DIAG_EXIT_OK;
		goto out;
	}
	if ((new = appconf_rewrite(af->text, af->len, entries, with, n,
	    &newlen, &cause)) == NULL) {
		diag_warnx(af->label, "%s", cause);
		free(cause);
		goto out;
	}
	diff = udiff(af->text, af->len, new, newlen, af->path, af->path);
	if (o->http) {
		install_http_mask(diff, o->token);
		/* The token is in it now: no one else may read it. */
		wsb.st_mode = (wsb.st_mode & ~07777) | 0600;
	}
	xasprintf(&q, "Point %s at mcpd?", af->label);
	rc = apps_confirm(diff, q, o->yes);
	free(q);
	if (rc != 1) {
		rc = DIAG_EXIT_FAILED;
		goto out;
	}
	rc = DIAG_EXIT_FAILED;
	/* The first install's backup is the original: keep it. */
	if (stat(backup, &bsb) == -1) {
		made_backup = 1;
		if (apps_backup(backup, af->text, af->len, &af->sb,
		    &cause) == -1) {
			diag_warnx(backup, "%s; nothing written", cause);
			free(cause);
			goto out;
		}
		printf("the original is in %s\n", out_esc(backup));
	}
	if (apps_write(af->path, new, newlen, &wsb, af->text, af->len, 1,
	    &cause) == -1) {
		diag_warnx(af->label, "%s", cause);
		free(cause);
		if (made_backup)
			(void)unlink(backup);
		goto out;
	}
	if (apps_backup(installed, new, newlen, &wsb, &cause) == -1) {
		diag_warnx(installed, "%s", cause);
		free(cause);
		goto out;
	}
	printf("wrote %s\n", out_esc(af->label));
	*changed = 1;
	rc = DIAG_EXIT_OK;

out:
	for (i = 0; i < n; i++)
		cJSON_Delete(with[i]);
	free(with);
	free(entries);
	appconf_list_free(&list);
	free(merged);
	free(new);
	free(diff);
	free(backup);
	free(installed);
	return (rc);
}

/* Is name one of list's, comma separated? */
static int
install_listed(const char *list, const char *name)
{
	size_t		 len = strlen(name);
	const char	*p;

	for (p = list; p != NULL && *p != '\0'; p = strchr(p, ',')) {
		if (*p == ',')
			p++;
		if (strncmp(p, name, len) == 0 && (p[len] == ',' ||
		    p[len] == '\0'))
			return (1);
	}
	return (0);
}

/*
 * --http: mcpd's names of the servers install writes into the app's
 * files, comma separated, malloc'd (NULL: none); the files are read again
 * as install_file reads them.
 */
static char *
install_names(const struct install_opts *o, struct apps_files *files,
    const char *mcpd_text, size_t mcpd_len)
{
	struct appconf_list	 list;
	struct sbuf		 b;
	char			*merged, *cause;
	size_t			 mlen, i, j;

	sbuf_init(&b, 64);
	for (i = 0; i < files->n; i++) {
		list.v = NULL;
		list.n = 0;
		merged = NULL;
		if (appconf_read(&files->v[i].f, files->v[i].text,
		    files->v[i].len, &list, &cause) == -1 ||
		    appconf_merge(mcpd_text, mcpd_len, &list, &merged, &mlen,
		    &cause) == -1) {
			free(cause);	/* install_file says it */
			appconf_list_free(&list);
			continue;
		}
		for (j = 0; j < list.n; j++) {
			const struct appconf_entry *e = &list.v[j];

			if (e->status != APPCONF_SAME ||
			    !install_wanted(o, e) ||
			    install_listed(b.p, e->mcpd_name))
				continue;
			sbuf_printf(&b, "%s%s", b.len > 0 ? "," : "",
			    e->mcpd_name);
		}
		appconf_list_free(&list);
		free(merged);
	}
	if (b.len == 0) {
		free(b.p);
		return (NULL);
	}
	return (b.p);
}

/* --http: the front's address and the app's token; an exit code. */
static int
install_http_setup(struct install_opts *o, struct apps_files *files,
    const char *path, const char *mcpd_text, size_t mcpd_len)
{
	char	*names, *tname;
	int	 rc;

	if ((o->base = install_http_base(path, mcpd_text, mcpd_len,
	    o->served)) == NULL)
		return (DIAG_EXIT_FAILED);
	if ((names = install_names(o, files, mcpd_text, mcpd_len)) == NULL)
		return (DIAG_EXIT_OK);	/* nothing to write: no token */
	tname = install_http_token_name(o->app);
	rc = token_new(tname, names, 0, &o->token);
	if (rc == DIAG_EXIT_FAILED)
		diag_warnx(NULL, "%s: the app's token could not be made (an "
		    "earlier mcpctl install %s --http made %s: mcpctl "
		    "uninstall %s, or mcpctl token revoke %s, first)", o->app,
		    o->app, tname, o->app, tname);
	else if (rc == DIAG_EXIT_OK)
		printf("%s: token %s made for %s\n", o->app, tname, names);
	free(tname);
	free(names);
	return (rc);
}

int
install_run(struct ctl *ctl, int argc, char **argv)
{
	struct install_opts	 o;
	struct apps_files	 files = { NULL, 0 };
	struct runconf		 conf = { NULL, NULL, NULL, 0 };
	struct stat		 sb;
	char			*mcpd_text = NULL, *self = NULL, *cause;
	char			*sock = NULL, buf[PATH_MAX], *tdir;
	size_t			 mcpd_len, i;
	int			 rc, changed = 0, one;

	if ((rc = install_options(ctl, argc, argv, 0, &o)) != 0 ||
	    o.app == NULL)
		goto out;
	if ((self = apps_self()) == NULL) {
		diag_warnx(NULL, "cannot find mcpctl's own path "
		    "(/proc/self/exe)");
		rc = DIAG_EXIT_FAILED;
		goto out;
	}
	if (!install_default_socket(ctl->socket_path) ||
	    apps_bare_env(o.app)) {
		if (ctl->socket_path[0] != '/' && getcwd(buf,
		    sizeof buf) != NULL)
			xasprintf(&sock, "%s/%s", buf, ctl->socket_path);
		else
			sock = xstrdup(ctl->socket_path);
	}
	runconf_find(ctl, o.config, "mcpd's servers from", &conf);
	if ((rc = apps_read(conf.path, &mcpd_text, &mcpd_len, &sb,
	    &cause)) != 0) {
		if (rc == 1)
			diag_warnx(conf.path, "does not exist: run mcpctl "
			    "import first");
		else {
			diag_warnx(conf.path, "%s", cause);
			free(cause);
		}
		rc = DIAG_EXIT_FAILED;
		goto out;
	}
	if (apps_find(o.app, &files) != 0) {
		rc = DIAG_EXIT_FAILED;
		goto out;
	}
	if (files.n == 0) {
		diag_warnx(NULL, "%s: no configuration file found", o.app);
		rc = DIAG_EXIT_FAILED;
		goto out;
	}
	if (o.http) {
		o.served = install_http_front(ctl, &tdir);
		token_store_at(tdir);
		free(tdir);
	}
	if (o.http && ((rc = install_http_setup(&o, &files, conf.path,
	    mcpd_text, mcpd_len)) != DIAG_EXIT_OK))
		goto out;
	rc = DIAG_EXIT_OK;
	for (i = 0; i < files.n; i++) {
		one = install_file(&o, &files.v[i], mcpd_text, mcpd_len, self,
		    sock, &changed);
		if (one != DIAG_EXIT_OK)
			rc = one;
	}
	if (rc == DIAG_EXIT_OK && !changed)
		printf("%s: nothing to change (mcpd's servers from %s)\n",
		    o.app, out_esc(conf.path));
	else if (changed)
		printf("restart %s (or reload its MCP servers) to use mcpd "
		    "with the servers of %s; mcpctl uninstall %s puts its "
		    "files back\n", o.app, out_esc(conf.path), o.app);
	if (o.http && changed)
		printf("%s's token is in its files now (mode 0600): whoever "
		    "reads them can use those servers until mcpctl "
		    "uninstall %s revokes it\n", o.app, o.app);
	if (o.token != NULL && !changed)
		install_drop_token(o.app);

out:
	if (o.token != NULL) {
		explicit_bzero(o.token, strlen(o.token));
		free(o.token);
	}
	free(o.base);
	cJSON_Delete(o.served);
	apps_files_free(&files);
	runconf_clear(&conf);
	free(mcpd_text);
	free(self);
	free(sock);
	free(o.servers);
	free(o.config);
	return (rc);
}

/* The app's token (install --http) revoked, if it has one: 0 or -1. */
static int
install_drop_token(const char *app)
{
	char	*name;
	int	 r;

	name = install_http_token_name(app);
	if ((r = token_drop(name)) == 1)
		printf("%s: token %s revoked\n", app, name);
	free(name);
	return (r == -1 ? -1 : 0);
}

/* One file: DIAG_EXIT_*; *found if it had a backup. */
static int
uninstall_file(const struct install_opts *o, const struct apps_file *af,
    int *found)
{
	struct stat	 bsb, isb;
	char		*backup, *installed, *orig = NULL, *inst = NULL;
	char		*cause, *diff = NULL, *q;
	size_t		 olen, ilen;
	int		 rc = DIAG_EXIT_FAILED, r;

	xasprintf(&backup, "%s%s", af->path, INSTALL_BACKUP_SUFFIX);
	xasprintf(&installed, "%s%s", af->path, INSTALL_INSTALLED_SUFFIX);
	if ((r = apps_read(backup, &orig, &olen, &bsb, &cause)) == 1) {
		rc = DIAG_EXIT_OK;
		goto out;
	}
	*found = 1;
	if (r == -1) {
		diag_warnx(backup, "%s", cause);
		free(cause);
		goto out;
	}
	r = apps_read(installed, &inst, &ilen, &isb, &cause);
	if (r == -1) {
		diag_warnx(installed, "%s", cause);
		free(cause);
		goto out;
	}
	if (!o->force && (r == 1 || ilen != af->len ||
	    memcmp(inst, af->text, ilen) != 0)) {
		diag_warnx(af->label, "changed since mcpctl install wrote it: "
		    "putting the original back would lose those changes; it "
		    "is in %s (--force restores it anyway)", backup);
		goto out;
	}
	diff = udiff(af->text, af->len, orig, olen, af->path, af->path);
	xasprintf(&q, "Restore %s as it was before mcpctl install?",
	    af->label);
	r = apps_confirm(diff, q, o->yes);
	free(q);
	if (r != 1)
		goto out;
	if (apps_write(af->path, orig, olen, &bsb, af->text, af->len, 1,
	    &cause) == -1) {
		diag_warnx(af->label, "%s", cause);
		free(cause);
		goto out;
	}
	(void)unlink(installed);
	(void)unlink(backup);
	printf("restored %s\n", out_esc(af->label));
	rc = DIAG_EXIT_OK;

out:
	free(backup);
	free(installed);
	free(orig);
	free(inst);
	free(diff);
	return (rc);
}

int
install_uninstall(struct ctl *ctl, int argc, char **argv)
{
	struct install_opts	 o;
	struct apps_files	 files = { NULL, 0 };
	size_t			 i;
	int			 rc, one, found = 0;

	if ((rc = install_options(ctl, argc, argv, 1, &o)) != 0 ||
	    o.app == NULL)
		goto out;
	if (apps_find(o.app, &files) != 0) {
		rc = DIAG_EXIT_FAILED;
		goto out;
	}
	for (i = 0; i < files.n; i++) {
		one = uninstall_file(&o, &files.v[i], &found);
		if (one != DIAG_EXIT_OK)
			rc = one;
	}
	if (!found) {
		diag_warnx(NULL, "%s: no file of it was changed by mcpctl "
		    "install (no %s file)", o.app, INSTALL_BACKUP_SUFFIX);
		rc = DIAG_EXIT_FAILED;
	}
	/* Its files back as they were: the token in them is no more. */
	if (rc == DIAG_EXIT_OK)
		token_store_of(ctl);
	if (rc == DIAG_EXIT_OK && install_drop_token(o.app) == -1)
		rc = DIAG_EXIT_FAILED;

out:
	apps_files_free(&files);
	free(o.servers);
	free(o.config);
	return (rc);
}
