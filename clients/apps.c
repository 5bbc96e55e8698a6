/*
 * apps.c -- the files of the apps mcpctl import reads and mcpctl install
 * rewrites, and writing them safely (see apps.h).
 *
 * Where each app keeps its servers (Linux):
 *   claude-desktop  $XDG_CONFIG_HOME/Claude/claude_desktop_config.json
 *   claude-code     ~/.claude.json ("mcpServers": user scope;
 *                   "projects"[cwd]["mcpServers"]: local scope) and
 *                   ./.mcp.json (project scope)
 *   cursor          ~/.cursor/mcp.json and ./.cursor/mcp.json
 *   vscode          $XDG_CONFIG_HOME/Code/User/mcp.json and
 *                   ./.vscode/mcp.json ("servers", "inputs")
 *   windsurf        ~/.codeium/windsurf/mcp_config.json
 *   zed             $XDG_CONFIG_HOME/zed/settings.json and
 *                   ./.zed/settings.json ("context_servers")
 *   cline           $XDG_CONFIG_HOME/Code/User/globalStorage/
 *                   saoudrizwan.claude-dev/settings/cline_mcp_settings.json
 *   gemini-cli      ~/.gemini/settings.json and ./.gemini/settings.json
 *   opencode        $XDG_CONFIG_HOME/opencode/opencode.json and
 *                   ./opencode.json ("mcp")
 *   codex           $CODEX_HOME/config.toml (~/.codex/config.toml without
 *                   it) and ./.codex/config.toml, TOML: [mcp_servers.NAME]
 * $XDG_CONFIG_HOME defaults to ~/.config.  A project's file (in the
 * current directory) that is the user's file too is read once.  A file
 * of the current directory, or one given by path that is none of the
 * user's files above, came with a project (appconf.h: in_project).
 *
 * A write never leaves a half-written file: the text goes to a temporary
 * file beside the target, is synced, and renamed over it, after a last
 * check that the target still holds what was read.  A symbolic link (a
 * dotfile manager's) stays a link: the file it points to is replaced.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "appconf.h"
#include "apps.h"
#include "diag.h"
#include "fdio.h"
#include "jsonc.h"
#include "sbuf.h"
#include "util.h"
#include "xmalloc.h"

/* Where each app keeps its servers (see the top). */
static const struct apps_place {
	const char		*app;
	int			 under_config;	/* user: $XDG_CONFIG_HOME/..., */
	const char		*user;		/* else ~/... */
	const char		*project;	/* ./..., or NULL */
	enum appconf_shape	 user_shape;
	enum appconf_shape	 project_shape;
	enum appconf_syntax	 syntax;
	const char		*dir_env;	/* user: $VAR/basename(user) */
	int			 bare_env;	/* servers get no XDG_RUNTIME_DIR */
} apps_places[] = {
	{ "claude-desktop", 1, "Claude/claude_desktop_config.json", NULL,
	    APPCONF_MCPSERVERS, APPCONF_MCPSERVERS, APPCONF_SYNTAX_NONE },
	/* ~/.claude.json holds the user's and each project's local scope. */
	{ "claude-code", 0, ".claude.json", ".mcp.json",
	    APPCONF_CLAUDE_JSON, APPCONF_MCPSERVERS, APPCONF_SYNTAX_MCPD },
	{ "cursor", 0, ".cursor/mcp.json", ".cursor/mcp.json",
	    APPCONF_MCPSERVERS, APPCONF_MCPSERVERS, APPCONF_SYNTAX_VSCODE },
	{ "vscode", 1, "Code/User/mcp.json", ".vscode/mcp.json",
	    APPCONF_SERVERS, APPCONF_SERVERS, APPCONF_SYNTAX_VSCODE },
	/* Windsurf, Zed, Cline, Gemini CLI, opencode: appshape.h. */
	{ "windsurf", 0, ".codeium/windsurf/mcp_config.json", NULL,
	    APPCONF_WINDSURF, APPCONF_WINDSURF, APPCONF_SYNTAX_VSCODE },
	{ "zed", 1, "zed/settings.json", ".zed/settings.json",
	    APPCONF_ZED, APPCONF_ZED, APPCONF_SYNTAX_NONE },
	{ "cline", 1, "Code/User/globalStorage/saoudrizwan.claude-dev/"
	    "settings/cline_mcp_settings.json", NULL,
	    APPCONF_CLINE, APPCONF_CLINE, APPCONF_SYNTAX_NONE },
	{ "gemini-cli", 0, ".gemini/settings.json", ".gemini/settings.json",
	    APPCONF_GEMINI, APPCONF_GEMINI, APPCONF_SYNTAX_SHELL },
	{ "opencode", 1, "opencode/opencode.json", "opencode.json",
	    APPCONF_OPENCODE, APPCONF_OPENCODE, APPCONF_SYNTAX_OPENCODE },
	/* Codex passes a server a few variables only (appconf_toml.h). */
	{ "codex", 0, ".codex/config.toml", ".codex/config.toml",
	    APPCONF_CODEX_TOML, APPCONF_CODEX_TOML, APPCONF_SYNTAX_MCPD,
	    "CODEX_HOME", 1 },
};

int
apps_known(const char *name)
{
	size_t	 i;

	for (i = 0; i < nitems(apps_places); i++) {
		if (strcmp(apps_places[i].app, name) == 0)
			return (1);
	}
	return (0);
}

const char *
apps_names(void)
{
	static char	*names;
	struct sbuf	 b = { NULL, 0, 0 };
	size_t		 i;

	if (names != NULL)
		return (names);
	for (i = 0; i < nitems(apps_places); i++)
		sbuf_printf(&b, "%s%s", i > 0 ? ", " : "", apps_places[i].app);
	names = b.p;
	return (names);
}

int
apps_bare_env(const char *app)
{
	size_t	 i;

	for (i = 0; i < nitems(apps_places); i++) {
		if (strcmp(apps_places[i].app, app) == 0)
			return (apps_places[i].bare_env);
	}
	return (0);
}

static const char *
apps_home(void)
{
	const char	*home;
	struct passwd	*pw;

	if ((home = getenv("HOME")) != NULL && *home == '/')
		return (home);
	if ((pw = getpwuid(getuid())) != NULL)
		return (pw->pw_dir);
	return ("/");
}

static char *
apps_config_dir(void)
{
	const char	*xdg;
	char		*dir;

	if ((xdg = getenv("XDG_CONFIG_HOME")) != NULL && *xdg == '/')
		return (xstrdup(xdg));
	xasprintf(&dir, "%s/.config", apps_home());
	return (dir);
}

int
apps_read(const char *path, char **text, size_t *len, struct stat *sb,
    char **cause)
{
	struct sbuf	 b = { NULL, 0, 0 };
	int		 fd;

	*text = NULL;
	*len = 0;
	*cause = NULL;
	if ((fd = open(path, O_RDONLY|O_CLOEXEC|O_NOCTTY|O_NONBLOCK)) == -1) {
		if (errno == ENOENT) {
			*text = xstrdup("");
			memset(sb, 0, sizeof *sb);
			return (1);
		}
		xasprintf(cause, "%s", strerror(errno));
		return (-1);
	}
	if (fstat(fd, sb) == -1 || !S_ISREG(sb->st_mode)) {
		xasprintf(cause, "%s", S_ISREG(sb->st_mode) ?
		    strerror(errno) : "not a regular file");
		close(fd);
		return (-1);
	}
	if (fdio_read_all(fd, APPS_FILE_MAX_BYTES, &b) == -1) {
		if (errno == EFBIG)
			xasprintf(cause, "larger than %d bytes",
			    APPS_FILE_MAX_BYTES);
		else
			xasprintf(cause, "read: %s", strerror(errno));
		goto fail;
	}
	close(fd);
	*text = b.p;
	*len = b.len;
	return (0);

fail:
	free(b.p);
	close(fd);
	return (-1);
}

/* path with "~" for $HOME, for messages. */
static char *
apps_label(const char *path)
{
	const char	*home = apps_home();
	size_t		 hl = strlen(home);
	char		*label;

	if (hl > 1 && strncmp(path, home, hl) == 0 && path[hl] == '/')
		xasprintf(&label, "~%s", path + hl);
	else
		label = xstrdup(path);
	return (label);
}

static int
apps_add(struct apps_files *files, const char *app, const char *path,
    enum appconf_shape shape, enum appconf_syntax syntax,
    const char *workspace, const char *project, int in_project)
{
	struct apps_file	*af;
	struct stat		 sb;
	char			*text, *cause;
	size_t			 len, i;
	int			 rc;

	if ((rc = apps_read(path, &text, &len, &sb, &cause)) == 1) {
		free(text);
		return (0);
	}
	if (rc == -1) {
		diag_warnx(path, "%s", cause);
		free(cause);
		return (-1);
	}
	for (i = 0; i < files->n; i++) {
		if (files->v[i].sb.st_dev == sb.st_dev &&
		    files->v[i].sb.st_ino == sb.st_ino) {
			free(text);
			return (0);	/* the user's file is the project's */
		}
	}
	files->v = xreallocarray(files->v, files->n + 1, sizeof *files->v);
	af = &files->v[files->n++];
	memset(af, 0, sizeof *af);
	af->path = xstrdup(path);
	af->label = apps_label(path);
	af->workspace = workspace != NULL ? xstrdup(workspace) : NULL;
	af->text = text;
	af->len = len;
	af->sb = sb;
	af->f.app = app;
	af->f.label = af->label;
	af->f.shape = shape;
	af->f.syntax = syntax;
	af->f.workspace = af->workspace;
	af->f.project = project;
	af->f.in_project = in_project;
	return (0);
}

/* The user's own file of an app (malloc'd). */
static char *
apps_user_file(const struct apps_place *pl)
{
	const char	*dir;
	char		*conf, *path;

	if (pl->dir_env != NULL && (dir = getenv(pl->dir_env)) != NULL &&
	    *dir == '/') {
		xasprintf(&path, "%s/%s", dir, strrchr(pl->user, '/') + 1);
		return (path);
	}
	if (!pl->under_config) {
		xasprintf(&path, "%s/%s", apps_home(), pl->user);
		return (path);
	}
	conf = apps_config_dir();
	xasprintf(&path, "%s/%s", conf, pl->user);
	free(conf);
	return (path);
}

static int
apps_find_one(const struct apps_place *pl, struct apps_files *files,
    const char *cwd)
{
	const char	*scope_of;
	char		*path;
	int		 rc;

	path = apps_user_file(pl);
	scope_of = pl->user_shape == APPCONF_CLAUDE_JSON ? cwd : NULL;
	rc = apps_add(files, pl->app, path, pl->user_shape, pl->syntax,
	    scope_of, scope_of, 0);
	free(path);
	if (pl->project != NULL && cwd != NULL) {
		xasprintf(&path, "%s/%s", cwd, pl->project);
		rc |= apps_add(files, pl->app, path, pl->project_shape,
		    pl->syntax, cwd, NULL, 1);
		free(path);
	}
	return (rc == 0 ? 0 : -1);
}

/*
 * 1 if sb is one of the user's own files of an app (not a project's):
 * what a file named by path must be to count as the user's.
 */
static int
apps_users_own(const struct stat *sb)
{
	struct stat	 own;
	char		*path;
	size_t		 i;
	int		 found = 0;

	for (i = 0; i < nitems(apps_places) && !found; i++) {
		path = apps_user_file(&apps_places[i]);
		found = stat(path, &own) == 0 && own.st_dev == sb->st_dev &&
		    own.st_ino == sb->st_ino;
		free(path);
	}
	return (found);
}

/* The current directory: its projects' files.  Kept for the files. */
static char	*apps_cwd;

int
apps_find(const char *app, struct apps_files *files)
{
	char	 buf[PATH_MAX];
	size_t	 i;
	int	 rc = 0;

	if (apps_cwd == NULL && getcwd(buf, sizeof buf) != NULL)
		apps_cwd = xstrdup(buf);
	for (i = 0; i < nitems(apps_places); i++) {
		if (app == NULL || strcmp(app, apps_places[i].app) == 0)
			rc |= apps_find_one(&apps_places[i], files, apps_cwd);
	}
	return (rc);
}

/* A file given by path read as app's. */
static void
apps_as(struct apps_file *af, const char *app)
{
	size_t	 i;

	for (i = 0; i < nitems(apps_places); i++) {
		if (strcmp(apps_places[i].app, app) != 0)
			continue;
		af->f.app = apps_places[i].app;
		af->f.shape = apps_places[i].user_shape;
		af->f.syntax = apps_places[i].syntax;
	}
}

/* A TOML file, by its name: Codex's config.toml. */
static int
apps_toml_path(const char *path)
{
	size_t	 len = strlen(path);

	return (len >= 5 && strcmp(path + len - 5, ".toml") == 0);
}

int
apps_add_path(const char *path, struct apps_files *files)
{
	struct apps_file	*af;
	cJSON			*root;
	char			*cause, *abs, buf[PATH_MAX];
	const char		*base;
	size_t			 n = files->n;

	if (*path != '/' && getcwd(buf, sizeof buf) != NULL)
		xasprintf(&abs, "%s/%s", buf, path);
	else
		abs = xstrdup(path);
	if (apps_add(files, "file", abs, APPCONF_MCPSERVERS,
	    APPCONF_SYNTAX_MCPD, NULL, NULL, 1) == -1) {
		free(abs);
		return (-1);
	}
	free(abs);
	if (files->n == n) {
		diag_warnx(path, "%s", strerror(ENOENT));
		return (-1);
	}
	af = &files->v[n];
	af->f.in_project = !apps_users_own(&af->sb);
	if (apps_toml_path(af->path)) {
		af->f.app = "codex";
		af->f.shape = APPCONF_CODEX_TOML;
		return (0);
	}
	if ((root = jsonc_parse(af->text, af->len, &cause)) == NULL) {
		free(cause);
		return (0);	/* appconf_read says why */
	}
	base = af->path;
	if (cJSON_GetObjectItemCaseSensitive(root, "servers") != NULL) {
		af->f.app = "vscode";
		af->f.shape = APPCONF_SERVERS;
		af->f.syntax = APPCONF_SYNTAX_VSCODE;
	} else if (cJSON_GetObjectItemCaseSensitive(root, "projects") !=
	    NULL) {
		af->f.app = "claude-code";
		af->f.shape = APPCONF_CLAUDE_JSON;
		af->f.project = apps_cwd;
	} else if (strstr(base, "/.cursor/") != NULL) {
		af->f.app = "cursor";
		af->f.syntax = APPCONF_SYNTAX_VSCODE;
	} else if (strstr(base, "claude_desktop_config") != NULL) {
		af->f.app = "claude-desktop";
		af->f.syntax = APPCONF_SYNTAX_NONE;
	} else if (cJSON_GetObjectItemCaseSensitive(root,
	    "context_servers") != NULL)
		apps_as(af, "zed");
	else if (cJSON_GetObjectItemCaseSensitive(root, "mcp") != NULL &&
	    cJSON_GetObjectItemCaseSensitive(root, "mcpServers") == NULL)
		apps_as(af, "opencode");
	else if (strstr(base, "/.codeium/") != NULL ||
	    strstr(base, "mcp_config.json") != NULL)
		apps_as(af, "windsurf");
	else if (strstr(base, "cline_mcp_settings") != NULL)
		apps_as(af, "cline");
	else if (strstr(base, "/.gemini/") != NULL)
		apps_as(af, "gemini-cli");
	cJSON_Delete(root);
	return (0);
}

void
apps_files_free(struct apps_files *files)
{
	size_t	 i;

	for (i = 0; i < files->n; i++) {
		free(files->v[i].path);
		free(files->v[i].label);
		free(files->v[i].workspace);
		free(files->v[i].text);
	}
	free(files->v);
	files->v = NULL;
	files->n = 0;
}

/* A temporary file beside path, with text: its name, or NULL. */
static char *
apps_temp(const char *path, const char *text, size_t len,
    const struct stat *sb, char **cause)
{
	char	*tmp;
	int	 fd;

	xasprintf(&tmp, "%s.XXXXXX", path);
	if ((fd = mkstemp(tmp)) == -1) {
		xasprintf(cause, "creating a temporary file: %s",
		    strerror(errno));
		free(tmp);
		return (NULL);
	}
	if (fchmod(fd, sb != NULL ? (sb->st_mode & 07777) : 0600) == -1 ||
	    (sb != NULL && geteuid() == 0 && fchown(fd, sb->st_uid,
	    sb->st_gid) == -1) ||
	    fdio_write_all(fd, text, len) == -1 || fsync(fd) == -1) {
		xasprintf(cause, "writing %s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		free(tmp);
		return (NULL);
	}
	if (close(fd) == -1) {
		xasprintf(cause, "writing %s: %s", tmp, strerror(errno));
		unlink(tmp);
		free(tmp);
		return (NULL);
	}
	return (tmp);
}

int
apps_write(const char *path, const char *text, size_t len,
    const struct stat *sb, const char *was, size_t waslen, int wasexists,
    char **cause)
{
	struct stat	 now;
	char		*tmp, *cur, *why, *target = NULL;
	size_t		 curlen;
	int		 rc;

	*cause = NULL;
	/* A link stays a link (see the top of this file). */
	if (lstat(path, &now) == 0 && S_ISLNK(now.st_mode)) {
		if ((target = realpath(path, NULL)) == NULL) {
			xasprintf(cause, "%s: %s", path, strerror(errno));
			return (-1);
		}
		path = target;
	}
	if ((tmp = apps_temp(path, text, len, sb, cause)) == NULL) {
		free(target);
		return (-1);
	}
	/* The last look before the rename. */
	rc = apps_read(path, &cur, &curlen, &now, &why);
	if (rc == -1) {
		xasprintf(cause, "%s", why);
		free(why);
		goto fail;
	}
	if ((rc == 1) == wasexists || (wasexists && (curlen != waslen ||
	    memcmp(cur, was, waslen) != 0))) {
		xasprintf(cause, "changed since it was read; nothing written "
		    "(run the command again to see the new difference)");
		free(cur);
		goto fail;
	}
	free(cur);
	if (rename(tmp, path) == -1) {
		xasprintf(cause, "rename: %s", strerror(errno));
		goto fail;
	}
	free(tmp);
	free(target);
	return (0);

fail:
	unlink(tmp);
	free(tmp);
	free(target);
	return (-1);
}

int
apps_backup(const char *backup, const char *text, size_t len,
    const struct stat *sb, char **cause)
{
	char	*tmp;

	*cause = NULL;
	if ((tmp = apps_temp(backup, text, len, sb, cause)) == NULL)
		return (-1);
	if (rename(tmp, backup) == -1) {
		xasprintf(cause, "rename: %s", strerror(errno));
		unlink(tmp);
		free(tmp);
		return (-1);
	}
	free(tmp);
	return (0);
}

int
apps_confirm(const char *diff, const char *question, int yes)
{
	char	 answer[64];
	FILE	*tty;
	int	 ok;

	fputs(diff, stdout);
	fflush(stdout);
	if (yes)
		return (1);
	if (!isatty(STDIN_FILENO) || (tty = fopen("/dev/tty", "r+")) ==
	    NULL) {
		diag_warnx(NULL, "no terminal to ask on: nothing written; "
		    "rerun with --yes to write the change shown");
		return (-1);
	}
	fprintf(tty, "%s [y/N] ", question);
	fflush(tty);
	ok = fgets(answer, sizeof answer, tty) != NULL &&
	    (answer[0] == 'y' || answer[0] == 'Y');
	fclose(tty);
	if (!ok)
		printf("nothing written\n");
	return (ok);
}

char *
apps_self(void)
{
	char	 buf[PATH_MAX];
	ssize_t	 n;

	if ((n = readlink("/proc/self/exe", buf, sizeof buf - 1)) <= 0)
		return (NULL);
	buf[n] = '\0';
	return (xstrdup(buf));
}
