/*
 * sandbox.c -- the rules one start of a server gets (sandbox.h): the
 * profile's grants (system directories, the server's runtime, its
 * private directory), the paths its entry names (cwd, args, env), the
 * configured "read" and "write", checked against the paths never
 * granted, split around them, merged.
 *
 * Invariants of a successful sb_build:
 * - No grant is, holds or lies in a denied path (sb_input.deny, the
 *   hard list below), but for the private directory, granted as given
 *   wherever it lies.  A grant of the credentials list below is
 *   only one the configuration names ("read", "write").
 * - Every path is normalised (sandbox_int.h), and each appears once,
 *   none below another that gives it as much.
 * - At most SB_GRANTS_MAX grants and SB_PORTS_MAX ports.
 * The only I/O is the injected list_dir and path_kind.
 */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox.h"
#include "sandbox_int.h"
#include "util.h"
#include "xmalloc.h"

#define SB_RX		(SB_READ | SB_EXEC)
#define SB_RW		(SB_READ | SB_WRITE)
#define SB_RWX		(SB_READ | SB_WRITE | SB_EXEC)
/* Directories list_dir may be asked for by one build (splits, roots). */
#define SB_LIST_MAX	256
/* How far above a file argument its project's root is looked for. */
#define SB_ROOT_LEVELS	8

/* The system's directories, read (and run) by every profile. */
static const struct sb_system {
	const char	*path;
	unsigned int	 access;
} sb_system[] = {
	{ "/usr", SB_RX },
	{ "/bin", SB_RX },
	{ "/sbin", SB_RX },
	{ "/lib", SB_RX },
	{ "/lib32", SB_RX },
	{ "/lib64", SB_RX },
	{ "/libx32", SB_RX },
	{ "/opt", SB_RX },
	{ "/nix/store", SB_RX },
	{ "/etc", SB_READ },
	/* /etc/resolv.conf's target under systemd-resolved. */
	{ "/run/systemd/resolve", SB_READ },
	{ "/proc", SB_READ },
	{ "/sys", SB_READ },
	{ "/dev/null", SB_RW },
	{ "/dev/zero", SB_RW },
	{ "/dev/full", SB_RW },
	{ "/dev/random", SB_READ },
	{ "/dev/urandom", SB_READ },
};

/* What "browser" adds: shared memory, the browsers fetched for it. */
static const struct sb_system sb_browser_system[] = {
	{ "/dev/shm", SB_RW },
};
static const char *sb_browser_home[] = {
	".cache/puppeteer",
	".cache/ms-playwright",
};

/*
 * Below the home, never granted: keys, mail and the browsers' profiles
 * (cookies, saved passwords), the keyrings.
 */
static const char *sb_deny_home[] = {
	".ssh",
	".gnupg",
	".password-store",
	".local/share/keyrings",
	".mozilla",
	".thunderbird",
	".config/google-chrome",
	".config/google-chrome-beta",
	".config/google-chrome-unstable",
	".config/chromium",
	".config/BraveSoftware",
	".config/microsoft-edge",
	".config/vivaldi",
	".config/opera",
	".var/app/org.mozilla.firefox",
	".var/app/org.mozilla.Thunderbird",
	".var/app/com.google.Chrome",
	".var/app/org.chromium.Chromium",
	".var/app/com.brave.Browser",
	".var/app/com.microsoft.Edge",
	"snap/firefox",
	"snap/chromium",
};

/*
 * Below the home, the credentials of tools: never implied (by a
 * profile, cwd, args or env, nor inside a larger grant), but a "read"
 * or "write" that names one (or a path in it) is kept.
 */
static const char *sb_deny_creds[] = {
	".aws",
	".azure",
	".config/gcloud",
	".kube",
	".docker",
	".config/gh",
	".config/hub",
	".git-credentials",
	".netrc",
	".npmrc",
	".pypirc",
	".cargo/credentials",
	".cargo/credentials.toml",
	".terraform.d",
	".vault-token",
	".pgpass",
	".my.cnf",
};

/* Files that mark a project's root, for a file argument. */
static const char *sb_root_marks[] = {
	"package.json",
	"pyproject.toml",
	"setup.py",
	"Cargo.toml",
	"go.mod",
	".git",
};

/* A grant on its way: normalised later. */
struct sb_item {
	char		*path;
	unsigned int	 access;
	const char	*why;
	char		*where;		/* "args[2]": for notes and errors */
	int		 configured;	/* "read" or "write" */
	int		 optional;
};

struct sb_builder {
	const struct sb_input	*in;
	struct sb_item		*items;
	size_t			 nitems;
	struct sb_grant		*out;
	size_t			 nout;
	char			**notes;
	size_t			 nnotes;
	char			**hard;		/* never */
	size_t			 nhard;
	char			**creds;	/* unless configured */
	size_t			 ncreds;
	size_t			 nlisted;
	char			*err;
};

static void
sb_fail(struct sb_builder *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
sb_fail(struct sb_builder *b, const char *fmt, ...)
{
	va_list	 ap;

	if (b->err != NULL)
		return;
	va_start(ap, fmt);
	xvasprintf(&b->err, fmt, ap);
	va_end(ap);
}

static void
sb_note(struct sb_builder *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
sb_note(struct sb_builder *b, const char *fmt, ...)
{
	va_list	 ap;

	b->notes = xreallocarray(b->notes, b->nnotes + 2, sizeof *b->notes);
	va_start(ap, fmt);
	xvasprintf(&b->notes[b->nnotes++], fmt, ap);
	va_end(ap);
	b->notes[b->nnotes] = NULL;
}

static const char *profile_names[] = {
	[SB_PROFILE_UNSET] = "none",
	[SB_PROFILE_OFF] = "off",
	[SB_PROFILE_DEFAULT] = "default",
	[SB_PROFILE_BROWSER] = "browser",
	[SB_PROFILE_CUSTOM] = "custom",
};

const char *
sb_profile_name(enum sb_profile profile)
{
	if ((size_t)profile >= nitems(profile_names))
		return ("unknown");
	return (profile_names[profile]);
}

/* Add a grant to look at; path is copied, where is made from fmt. */
static void
sb_add(struct sb_builder *b, const char *path, unsigned int access,
    const char *why, int configured, int optional, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

static void
sb_add(struct sb_builder *b, const char *path, unsigned int access,
    const char *why, int configured, int optional, const char *fmt, ...)
{
	struct sb_item	*it;
	va_list		 ap;

	b->items = xreallocarray(b->items, b->nitems + 1, sizeof *b->items);
	it = &b->items[b->nitems++];
	it->path = xstrdup(path);
	it->access = access;
	it->why = why;
	it->configured = configured;
	it->optional = optional;
	va_start(ap, fmt);
	xvasprintf(&it->where, fmt, ap);
	va_end(ap);
}

static void
sb_list_add(char ***v, size_t *n, const char *path)
{
	char	*norm;

	if ((norm = sb_path_norm(path)) == NULL)
		return;
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = norm;
}

/* The denied paths: the caller's, then those below the home. */
static void
sb_deny_init(struct sb_builder *b)
{
	const struct sb_input	*in = b->in;
	char			*p;
	size_t			 i;

	for (i = 0; in->deny != NULL && in->deny[i] != NULL; i++)
		sb_list_add(&b->hard, &b->nhard, in->deny[i]);
	if (in->home == NULL || *in->home != '/')
		return;
	for (i = 0; i < nitems(sb_deny_home); i++) {
		p = sb_path_join(in->home, sb_deny_home[i]);
		sb_list_add(&b->hard, &b->nhard, p);
		free(p);
	}
	for (i = 0; i < nitems(sb_deny_creds); i++) {
		p = sb_path_join(in->home, sb_deny_creds[i]);
		sb_list_add(&b->creds, &b->ncreds, p);
		free(p);
	}
}

/* The denied path path is or lies in, or NULL; *hard says which list. */
static const char *
sb_denied(struct sb_builder *b, const char *path, int *hard)
{
	size_t	 i;

	for (i = 0; i < b->nhard; i++) {
		if (sb_path_within(path, b->hard[i])) {
			*hard = 1;
			return (b->hard[i]);
		}
	}
	for (i = 0; i < b->ncreds; i++) {
		if (sb_path_within(path, b->creds[i])) {
			*hard = 0;
			return (b->creds[i]);
		}
	}
	return (NULL);
}

/* A denied path strictly below path, or NULL. */
static const char *
sb_holds_denied(struct sb_builder *b, const char *path)
{
	size_t	 i;

	for (i = 0; i < b->nhard; i++) {
		if (sb_path_below(b->hard[i], path))
			return (b->hard[i]);
	}
	for (i = 0; i < b->ncreds; i++) {
		if (sb_path_below(b->creds[i], path))
			return (b->creds[i]);
	}
	return (NULL);
}

static int
sb_is_denied(struct sb_builder *b, const char *path)
{
	size_t	 i;

	for (i = 0; i < b->nhard; i++) {
		if (strcmp(b->hard[i], path) == 0)
			return (1);
	}
	for (i = 0; i < b->ncreds; i++) {
		if (strcmp(b->creds[i], path) == 0)
			return (1);
	}
	return (0);
}

static char **
sb_list(struct sb_builder *b, const char *dir)
{
	if (b->in->list_dir == NULL || b->nlisted >= SB_LIST_MAX)
		return (NULL);
	b->nlisted++;
	return (b->in->list_dir(dir, b->in->list_arg));
}

static void
sb_names_free(char **names)
{
	size_t	 i;

	for (i = 0; names != NULL && names[i] != NULL; i++)
		free(names[i]);
	free(names);
}

static void
sb_out(struct sb_builder *b, const char *path, const struct sb_item *it)
{
	struct sb_grant	*g;

	if (b->nout >= SB_GRANTS_MAX) {
		sb_fail(b, "%s: more than %d paths to grant once split "
		    "around the paths never granted", it->where,
		    SB_GRANTS_MAX);
		return;
	}
	b->out = xreallocarray(b->out, b->nout + 1, sizeof *b->out);
	g = &b->out[b->nout++];
	g->path = xstrdup(path);
	g->access = it->access;
	g->why = it->why;
	g->optional = it->optional;
}

/*
 * Grant path, which is not denied, or, when a denied path lies below
 * it, each of its entries but the denied ones (Landlock cannot take a
 * part out of a grant), down to the denied paths.
 */
static void
sb_place(struct sb_builder *b, const char *path, const struct sb_item *it)
{
	const char	*deny;
	char		**names, *child;
	size_t		 i;

	if (b->err != NULL)
		return;
	if ((deny = sb_holds_denied(b, path)) == NULL) {
		sb_out(b, path, it);
		return;
	}
	if (b->in->list_dir == NULL) {
		sb_fail(b, "%s: holds %s, which is never granted, and its "
		    "entries cannot be listed to grant the others", it->where,
		    deny);
		return;
	}
	if ((names = sb_list(b, path)) == NULL) {
		if (it->configured)
			sb_fail(b, "%s: holds %s, which is never granted, and "
			    "%s cannot be listed to grant the rest", it->where,
			    deny, path);
		else
			sb_note(b, "%s: holds %s, which is never granted, and "
			    "cannot be listed: left out", it->where, deny);
		return;
	}
	for (i = 0; names[i] != NULL && b->err == NULL; i++) {
		if (*names[i] == '\0' || strchr(names[i], '/') != NULL ||
		    strcmp(names[i], ".") == 0 || strcmp(names[i], "..") == 0)
			continue;
		child = sb_path_join(path, names[i]);
		if (!sb_is_denied(b, child))
			sb_place(b, child, it);
		free(child);
	}
	sb_names_free(names);
}

/* One item: normalised, checked against the denied paths, placed. */
static void
sb_settle(struct sb_builder *b, struct sb_item *it)
{
	const char	*deny;
	char		*path;
	int		 hard = 0;

	if ((path = sb_path_norm(it->path)) == NULL) {
		if (it->configured)
			sb_fail(b, "%s: not an absolute path without \"..\"",
			    it->where);
		return;
	}
	if (strcmp(it->why, "private") == 0) {
		sb_out(b, path, it);
		free(path);
		return;
	}
	if ((deny = sb_denied(b, path, &hard)) != NULL) {
		if (it->configured && hard)
			sb_fail(b, "%s: %s is never granted", it->where, deny);
		else if (!it->configured && hard)
			sb_note(b, "%s: in %s, which is never granted: left "
			    "out", it->where, deny);
		else if (!it->configured)
			sb_note(b, "%s: in %s, which is granted only when "
			    "\"read\" or \"write\" names it: left out",
			    it->where, deny);
		if (!it->configured || hard) {
			free(path);
			return;
		}
		/* A credential the configuration names: granted. */
	}
	sb_place(b, path, it);
	free(path);
}

static int
sb_grant_cmp(const void *a, const void *b)
{
	return (strcmp(((const struct sb_grant *)a)->path,
	    ((const struct sb_grant *)b)->path));
}

/*
 * Sorted, one grant per path (accesses joined), none below another
 * that gives at least as much.
 */
static void
sb_merge(struct sb_builder *b)
{
	struct sb_grant	*g, *keep;
	size_t		 i, j, n = 0;

	if (b->nout == 0)
		return;
	qsort(b->out, b->nout, sizeof *b->out, sb_grant_cmp);
	for (i = 0; i < b->nout; i++) {
		g = &b->out[i];
		if (n > 0 && strcmp(b->out[n - 1].path, g->path) == 0) {
			keep = &b->out[n - 1];
			keep->access |= g->access;
			keep->optional = keep->optional && g->optional;
			free(g->path);
			continue;
		}
		b->out[n++] = *g;
	}
	b->nout = n;
	for (i = 0, n = 0; i < b->nout; i++) {
		g = &b->out[i];
		for (j = 0; j < n; j++) {
			keep = &b->out[j];
			if (sb_path_below(g->path, keep->path) &&
			    (g->access & ~keep->access) == 0)
				break;
		}
		if (j < n) {
			free(g->path);
			continue;
		}
		b->out[n++] = *g;
	}
	b->nout = n;
}

static int
sb_kind(struct sb_builder *b, const char *path)
{
	if (b->in->path_kind == NULL)
		return (SB_KIND_DIR);
	return (b->in->path_kind(path, b->in->list_arg));
}

/*
 * 1 if path is the home, "/", a shared temporary directory, or inside a
 * system directory: too wide to grant for an argument's sake.
 */
static int
sb_too_wide(struct sb_builder *b, const char *path)
{
	size_t	 i;

	if (strcmp(path, "/") == 0 || strcmp(path, "/tmp") == 0 ||
	    strcmp(path, "/var/tmp") == 0 || (b->in->home != NULL &&
	    strcmp(path, b->in->home) == 0))
		return (1);
	for (i = 0; i < nitems(sb_system); i++) {
		if (sb_path_within(path, sb_system[i].path))
			return (1);
	}
	return (0);
}

static void
sb_add_system(struct sb_builder *b, enum sb_profile base)
{
	const char	*home = b->in->home;
	char		*p;
	size_t		 i;

	for (i = 0; i < nitems(sb_system); i++)
		sb_add(b, sb_system[i].path, sb_system[i].access, "system",
		    0, 1, "%s", sb_system[i].path);
	if (base != SB_PROFILE_BROWSER)
		return;
	for (i = 0; i < nitems(sb_browser_system); i++)
		sb_add(b, sb_browser_system[i].path,
		    sb_browser_system[i].access, "system", 0, 1, "%s",
		    sb_browser_system[i].path);
	for (i = 0; home != NULL && *home == '/' &&
	    i < nitems(sb_browser_home); i++) {
		p = sb_path_join(home, sb_browser_home[i]);
		sb_add(b, p, SB_RX, "runtime", 0, 1, "~/%s",
		    sb_browser_home[i]);
		free(p);
	}
}

/*
 * The tree the command comes from: its directory, and when that is a
 * "bin", the prefix above it (~/.nvm/versions/node/vX, ~/.cargo), but
 * never the home, "/" or ~/.local whole (only ~/.local/lib there).
 */
static void
sb_add_runtime(struct sb_builder *b, const char *exe)
{
	char	*path, *dir = NULL, *prefix = NULL, *local = NULL;
	char	*lib;

	if (exe == NULL || (path = sb_path_norm(exe)) == NULL)
		return;
	dir = sb_path_dir(path);
	if (sb_too_wide(b, dir)) {
		sb_add(b, path, SB_RX, "runtime", 0, 1, "command");
		goto out;
	}
	sb_add(b, dir, SB_RX, "runtime", 0, 1, "command");
	if (strcmp(sb_path_base(dir), "bin") != 0)
		goto out;
	prefix = sb_path_dir(dir);
	if (b->in->home != NULL)
		local = sb_path_join(b->in->home, ".local");
	if (local != NULL && strcmp(prefix, local) == 0) {
		lib = sb_path_join(prefix, "lib");
		sb_add(b, lib, SB_RX, "runtime", 0, 1, "command");
		free(lib);
	} else if (!sb_too_wide(b, prefix))
		sb_add(b, prefix, SB_RX, "runtime", 0, 1, "command");
out:
	free(local);
	free(prefix);
	free(dir);
	free(path);
}

/* 1 if dir holds one of the files that mark a project's root. */
static int
sb_is_root(struct sb_builder *b, const char *dir)
{
	char	**names;
	size_t	 i, j;
	int	 found = 0;

	if ((names = sb_list(b, dir)) == NULL)
		return (0);
	for (i = 0; names[i] != NULL && !found; i++) {
		for (j = 0; j < nitems(sb_root_marks); j++) {
			if (strcmp(names[i], sb_root_marks[j]) == 0)
				found = 1;
		}
	}
	sb_names_free(names);
	return (found);
}

/*
 * A file argument: the file and its directory read and written (a
 * database's journal lies beside it), and the project it lies in (the
 * nearest directory above holding package.json, pyproject.toml...)
 * read, for the modules a script imports.  A file right in the home,
 * "/" or a system directory: the file alone.
 */
static void
sb_add_file_arg(struct sb_builder *b, const char *path, const char *where)
{
	char	*dir, *up;
	int	 level;

	dir = sb_path_dir(path);
	if (sb_too_wide(b, dir)) {
		sb_add(b, path, SB_RW, "args", 0, 1, "%s", where);
		free(dir);
		return;
	}
	sb_add(b, dir, SB_RW, "args", 0, 1, "%s", where);
	for (level = 0; level < SB_ROOT_LEVELS && !sb_too_wide(b, dir);
	    level++) {
		if (sb_is_root(b, dir)) {
			sb_add(b, dir, SB_RX, "args", 0, 1, "%s", where);
			break;
		}
		up = sb_path_dir(dir);
		free(dir);
		dir = up;
	}
	free(dir);
}

/*
 * A path argument that does not exist yet (a log, a database the server
 * makes): its directory read and written, if that exists and is not
 * too wide.
 */
static void
sb_add_new_arg(struct sb_builder *b, const char *path, const char *where)
{
	char	*dir;

	dir = sb_path_dir(path);
	if (!sb_too_wide(b, dir) && sb_kind(b, dir) == SB_KIND_DIR)
		sb_add(b, dir, SB_RW, "args", 0, 1, "%s", where);
	free(dir);
}

/*
 * The paths the arguments name: an absolute path, whole or after
 * "--flag=".  A directory is read and written (a filesystem server's
 * argument is the tree it is meant to edit); a file, or one still to be
 * made, as above.
 */
static void
sb_add_args(struct sb_builder *b)
{
	char *const	*argv = b->in->argv;
	const char	*arg, *eq;
	char		*path, *where;
	size_t		 i;

	for (i = 1; argv != NULL && argv[0] != NULL && argv[i] != NULL; i++) {
		arg = argv[i];
		if (*arg == '-' && (eq = strchr(arg, '=')) != NULL)
			arg = eq + 1;
		if (*arg != '/' || (path = sb_path_norm(arg)) == NULL)
			continue;
		xasprintf(&where, "args[%zu]", i - 1);
		switch (sb_kind(b, path)) {
		case SB_KIND_DIR:
			sb_add(b, path, SB_RW, "args", 0, 1, "%s", where);
			break;
		case SB_KIND_FILE:
			sb_add_file_arg(b, path, where);
			break;
		default:
			sb_add_new_arg(b, path, where);
			break;
		}
		free(where);
		free(path);
	}
}

/*
 * The paths the entry's env names: a value, or each part of a
 * ':'-separated one (PATH, PYTHONPATH), that is an absolute path and
 * exists, read and run.
 */
static void
sb_add_env(struct sb_builder *b)
{
	char *const	*env = b->in->env;
	const char	*value, *part, *end;
	char		*path, *raw;
	size_t		 i, klen;

	for (i = 0; env != NULL && env[i] != NULL; i++) {
		if ((value = strchr(env[i], '=')) == NULL)
			continue;
		klen = (size_t)(value - env[i]);
		for (part = value + 1; *part != '\0'; part = end) {
			end = strchr(part, ':');
			if (end == NULL)
				end = part + strlen(part);
			raw = xstrndup(part, (size_t)(end - part));
			if (*end == ':')
				end++;
			path = sb_path_norm(raw);
			free(raw);
			if (path == NULL)
				continue;
			if (sb_kind(b, path) != SB_KIND_NONE)
				sb_add(b, path, SB_RX, "env", 0, 1,
				    "env.%.*s", (int)klen, env[i]);
			free(path);
		}
	}
}

static void
sb_add_configured(struct sb_builder *b, const struct sb_spec *spec)
{
	size_t	 i;

	for (i = 0; i < spec->nread; i++)
		sb_add(b, spec->read[i], SB_RX, "read", 1, 0,
		    "sandbox.read[%zu]", i);
	for (i = 0; i < spec->nwrite; i++)
		sb_add(b, spec->write[i], SB_RWX, "write", 1, 0,
		    "sandbox.write[%zu]", i);
}

/* 1 if the entry's env sets name already. */
static int
sb_env_has(const struct sb_input *in, const char *name)
{
	size_t	 i, len = strlen(name);

	for (i = 0; in->env != NULL && in->env[i] != NULL; i++) {
		if (strncmp(in->env[i], name, len) == 0 &&
		    in->env[i][len] == '=')
			return (1);
	}
	return (0);
}

static void
sb_setenv(struct sb_rules *rules, const struct sb_input *in,
    const char *name, const char *dir, const char *sub)
{
	if (sb_env_has(in, name))
		return;
	rules->env = xreallocarray(rules->env, rules->nenv + 2,
	    sizeof *rules->env);
	if (sub == NULL)
		xasprintf(&rules->env[rules->nenv++], "%s=%s", name, dir);
	else
		xasprintf(&rules->env[rules->nenv++], "%s=%s/%s", name, dir,
		    sub);
	rules->env[rules->nenv] = NULL;
}

/*
 * The private directory: read, written and run; the working directory
 * without a cwd; TMPDIR; and the caches and the XDG directories, so
 * that what a server fetches (npx, uvx) or keeps is its own and not the
 * user's shared cache.  The entry's env wins over each.
 */
static void
sb_add_private(struct sb_builder *b, struct sb_rules *rules)
{
	const struct sb_input	*in = b->in;
	char			*dir;

	if (in->server_dir == NULL)
		return;
	if ((dir = sb_path_norm(in->server_dir)) == NULL) {
		sb_fail(b, "the private directory is not an absolute path");
		return;
	}
	sb_add(b, dir, SB_RWX, "private", 0, 0, "private directory");
	if (in->cwd == NULL)
		rules->workdir = xstrdup(dir);
	sb_setenv(rules, in, "TMPDIR", dir, NULL);
	sb_setenv(rules, in, "npm_config_cache", dir, ".npm");
	sb_setenv(rules, in, "npm_config_userconfig", dir, ".npmrc");
	sb_setenv(rules, in, "UV_CACHE_DIR", dir, ".cache/uv");
	sb_setenv(rules, in, "XDG_CACHE_HOME", dir, ".cache");
	sb_setenv(rules, in, "XDG_CONFIG_HOME", dir, ".config");
	sb_setenv(rules, in, "XDG_DATA_HOME", dir, ".local/share");
	sb_setenv(rules, in, "XDG_STATE_HOME", dir, ".local/state");
	free(dir);
}

static void
sb_net(const struct sb_spec *spec, struct sb_rules *rules)
{
	size_t	 i, j;

	rules->net = spec->net;
	rules->netns = spec->net == SB_NET_NONE;
	if (spec->net != SB_NET_PORTS)
		return;
	for (i = 0; i < spec->nports && i < SB_PORTS_MAX; i++) {
		for (j = 0; j < rules->nports; j++) {
			if (rules->ports[j] == spec->ports[i])
				break;
		}
		if (j == rules->nports)
			rules->ports[rules->nports++] = spec->ports[i];
	}
}

static void
sb_builder_free(struct sb_builder *b)
{
	size_t	 i;

	for (i = 0; i < b->nitems; i++) {
		free(b->items[i].path);
		free(b->items[i].where);
	}
	free(b->items);
	for (i = 0; i < b->nhard; i++)
		free(b->hard[i]);
	free(b->hard);
	for (i = 0; i < b->ncreds; i++)
		free(b->creds[i]);
	free(b->creds);
}

int
sb_build(const struct sb_spec *spec, const struct sb_input *in,
    struct sb_rules *rules, char **err)
{
	struct sb_builder	 b;
	enum sb_profile		 base;
	size_t			 i;

	memset(rules, 0, sizeof *rules);
	*err = NULL;
	if (spec == NULL || spec->profile == SB_PROFILE_UNSET ||
	    spec->profile == SB_PROFILE_OFF)
		return (0);
	memset(&b, 0, sizeof b);
	b.in = in;
	rules->on = 1;
	rules->required = spec->required;
	base = spec->profile;
	if (base == SB_PROFILE_CUSTOM)
		base = spec->base == SB_PROFILE_BROWSER ? SB_PROFILE_BROWSER :
		    SB_PROFILE_DEFAULT;
	rules->userns = rules->ptrace = base == SB_PROFILE_BROWSER;
	rules->unix_sockets = spec->unix_sockets;
	sb_net(spec, rules);

	sb_deny_init(&b);
	sb_add_system(&b, base);
	sb_add_runtime(&b, in->exe);
	sb_add_runtime(&b, in->exe_real);
	sb_add_private(&b, rules);
	if (in->cwd != NULL)
		sb_add(&b, in->cwd, SB_RWX, "cwd", 0, 0, "cwd");
	sb_add_args(&b);
	sb_add_env(&b);
	sb_add_configured(&b, spec);
	for (i = 0; i < b.nitems && b.err == NULL; i++)
		sb_settle(&b, &b.items[i]);
	sb_merge(&b);

	rules->grants = b.out;
	rules->ngrants = b.nout;
	rules->notes = b.notes;
	rules->nnotes = b.nnotes;
	if (rules->notes == NULL)
		rules->notes = xcalloc(1, sizeof *rules->notes);
	if (rules->env == NULL)
		rules->env = xcalloc(1, sizeof *rules->env);
	b.out = NULL;
	b.notes = NULL;
	if (b.err != NULL) {
		*err = b.err;
		sb_builder_free(&b);
		sb_rules_free(rules);
		return (-1);
	}
	sb_builder_free(&b);
	return (0);
}

void
sb_rules_free(struct sb_rules *rules)
{
	size_t	 i;

	if (rules == NULL)
		return;
	for (i = 0; i < rules->ngrants; i++)
		free(rules->grants[i].path);
	free(rules->grants);
	for (i = 0; i < rules->nenv; i++)
		free(rules->env[i]);
	free(rules->env);
	for (i = 0; i < rules->nnotes; i++)
		free(rules->notes[i]);
	free(rules->notes);
	free(rules->workdir);
	memset(rules, 0, sizeof *rules);
}

void
sb_spec_free(struct sb_spec *spec)
{
	size_t	 i;

	if (spec == NULL)
		return;
	for (i = 0; i < spec->nread; i++)
		free(spec->read[i]);
	free(spec->read);
	for (i = 0; i < spec->nwrite; i++)
		free(spec->write[i]);
	free(spec->write);
	memset(spec, 0, sizeof *spec);
}

void
sb_spec_copy(struct sb_spec *dst, const struct sb_spec *src)
{
	*dst = *src;
	dst->read = src->read != NULL ? xstrvdup(src->read, src->nread) :
	    NULL;
	dst->write = src->write != NULL ? xstrvdup(src->write,
	    src->nwrite) : NULL;
}

int
sb_spec_equal(const struct sb_spec *a, const struct sb_spec *b)
{
	return (a->profile == b->profile && a->base == b->base &&
	    a->net == b->net && a->nports == b->nports &&
	    memcmp(a->ports, b->ports, a->nports * sizeof a->ports[0]) == 0 &&
	    a->unix_sockets == b->unix_sockets &&
	    a->required == b->required &&
	    strv_equal(a->read, a->nread, b->read, b->nread) &&
	    strv_equal(a->write, a->nwrite, b->write, b->nwrite));
}
