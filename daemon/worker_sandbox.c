/*
 * worker_sandbox.c -- a server's sandbox at each start: the rules built
 * from its "sandbox" key (sb_build, sandbox.h) with what mcpd knows of
 * the world, prepared for the child (sbapply.h); what held, for status;
 * and an early exit that reads as a denial pointed at the sandbox.
 *
 * What sb_build is given: the home; a private directory of the server's
 * own, STATE/mcpd-sandbox/NAME (0700, made here; paths_state_home); the
 * command as a start finds it along PATH; and the paths never granted:
 * mcpd's state, its token and pins directories, the socket's directory
 * when it is named "mcpd", its configuration file, systemd's
 * credentials, and the other servers' private directories.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "child.h"
#include "fdio.h"
#include "log.h"
#include "mcpd.h"
#include "paths.h"
#include "sandbox.h"
#include "sbapply.h"
#include "transport.h"
#include "util.h"
#include "worker.h"
#include "worker_int.h"
#include "xmalloc.h"

/* An exit this soon after the start, a denial among its last lines. */
#define WORKER_SANDBOX_SOON_MS		60000
#define WORKER_SANDBOX_DENIAL_LINES	5
#define WORKER_SANDBOX_DENY_MAX		64

#define WORKER_SANDBOX_HINT	"the sandbox may have refused it: see " \
				"\"sandbox\" in mcpd.json(5)"

struct worker_sb {
	struct sb_rules		 rules;
	struct sb_prepared	 prep;
	struct child_sandbox	 child;
};

/*
 * Where the servers' private directories are, beside mcpd's state
 * (*state, denied whole; NULL as root, whose state directories are
 * denied one by one).
 */
static char *
worker_sandbox_base(char **state)
{
	char	*home, *base;

	*state = NULL;
	if ((home = paths_state_home()) == NULL)
		return (xstrdup("/var/lib/mcpd-sandbox"));
	xasprintf(state, "%s/mcpd", home);
	xasprintf(&base, "%s/mcpd-sandbox", home);
	free(home);
	return (base);
}

static char **
worker_sandbox_list_dir(const char *dir, void *arg)
{
	DIR		*d;
	struct dirent	*de;
	char		**names = NULL;
	size_t		 n = 0;

	(void)arg;
	if ((d = opendir(dir)) == NULL)
		return (NULL);
	names = xcalloc(1, sizeof *names);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		names = xreallocarray(names, n + 2, sizeof *names);
		names[n++] = xstrdup(de->d_name);
		names[n] = NULL;
	}
	closedir(d);
	return (names);
}

static int
worker_sandbox_path_kind(const char *path, void *arg)
{
	struct stat	 sb;

	(void)arg;
	if (stat(path, &sb) != 0)
		return (SB_KIND_NONE);
	return (S_ISDIR(sb.st_mode) ? SB_KIND_DIR : SB_KIND_FILE);
}

static void
worker_sandbox_deny(const char **deny, size_t *n, char *path)
{
	if (path != NULL && *path == '/' && *n < WORKER_SANDBOX_DENY_MAX - 1)
		deny[(*n)++] = path;
	else
		free(path);
}

/* The other servers' private directories. */
static void
worker_sandbox_deny_others(const char **deny, size_t *n, const char *base,
    const char *own)
{
	char	**names, *p;
	size_t	  i;

	if ((names = worker_sandbox_list_dir(base, NULL)) == NULL)
		return;
	for (i = 0; names[i] != NULL; i++) {
		if (strcmp(names[i], own) != 0) {
			xasprintf(&p, "%s/%s", base, names[i]);
			worker_sandbox_deny(deny, n, p);
		}
		free(names[i]);
	}
	free(names);
}

static char *
worker_sandbox_abs(const char *path)
{
	char	 buf[PATH_MAX];

	if (path == NULL)
		return (NULL);
	if (realpath(path, buf) != NULL)
		return (xstrdup(buf));
	return (*path == '/' ? xstrdup(path) : NULL);
}

/*
 * The socket's directory when it is mcpd's own ("mcpd", as every default
 * socket path has it); a socket placed elsewhere (-s) may sit in a
 * directory a server works in, and is kept from servers by seccomp's
 * refusal of socket(AF_UNIX) and by mcpd refusing them its admin methods.
 */
static char *
worker_sandbox_socket_dir(const char *socket_path)
{
	char		*dir = paths_socket_dir(socket_path);
	const char	*base = strrchr(dir, '/');

	if (strcmp(base != NULL ? base + 1 : dir, "mcpd") == 0)
		return (dir);
	free(dir);
	return (NULL);
}

/* The paths never granted; NULL-ended, each malloc'd. */
static void
worker_sandbox_denied(struct worker *w, const char *state, const char *base,
    const char *own, const char **deny)
{
	const char	*creds = getenv("CREDENTIALS_DIRECTORY");
	size_t		 n = 0;

	worker_sandbox_deny(deny, &n, state != NULL ? xstrdup(state) : NULL);
	worker_sandbox_deny(deny, &n, worker_sandbox_abs(w->mcpd->token_dir));
	worker_sandbox_deny(deny, &n, worker_sandbox_abs(w->mcpd->pin_dir));
	worker_sandbox_deny(deny, &n,
	    worker_sandbox_abs(w->mcpd->config_file));
	if (w->mcpd->socket_path != NULL)
		worker_sandbox_deny(deny, &n, worker_sandbox_socket_dir(
		    w->mcpd->socket_path));
	worker_sandbox_deny(deny, &n, creds != NULL ? xstrdup(creds) : NULL);
	worker_sandbox_deny_others(deny, &n, base, own);
	deny[n] = NULL;
}

/* BASE/NAME, made 0700: the server's own. */
static char *
worker_sandbox_dir(const char *base, const char *own, char **cause)
{
	char	*dir;
	int	 rc;

	xasprintf(&dir, "%s/%s", base, own);
	if ((rc = fdio_private_dir(dir)) == 0)
		return (dir);
	if (rc == -2)
		xasprintf(cause, "sandbox: %s is not a directory of this "
		    "user's", dir);
	else
		xasprintf(cause, "sandbox: creating %s: %s", dir,
		    strerror(errno));
	free(dir);
	return (NULL);
}

/* A directory name for the worker's name ("a#2" stays, '/' cannot be). */
static char *
worker_sandbox_own(const char *name)
{
	char	*own = xstrdup(name), *p;

	for (p = own; *p != '\0'; p++) {
		if (*p == '/')
			*p = '_';
	}
	if (*own == '.')
		*own = '_';
	return (own);
}

static void
worker_sandbox_notes(struct worker *w, const struct sb_rules *rules)
{
	size_t	 i;

	for (i = 0; i < rules->nnotes; i++)
		log_info("%s: sandbox: %s", w->name, rules->notes[i]);
}

static int
worker_sandbox_build(struct worker *w, struct worker_sb *sb, char **cause)
{
	const char	*deny[WORKER_SANDBOX_DENY_MAX];
	struct sb_input	 in;
	char		*state, *base, *own, *dir = NULL, *exe, *exe_real;
	size_t		 i;
	int		 rv = -1;

	base = worker_sandbox_base(&state);
	own = worker_sandbox_own(w->name);
	deny[0] = NULL;
	exe = child_command(w->conf);
	exe_real = worker_sandbox_abs(exe);
	if ((dir = worker_sandbox_dir(base, own, cause)) == NULL)
		goto out;
	worker_sandbox_denied(w, state, base, own, deny);
	memset(&in, 0, sizeof in);
	in.home = getenv("HOME");
	in.server_dir = dir;
	in.exe = exe;
	in.exe_real = exe_real;
	in.cwd = w->conf->cwd;
	in.argv = w->conf->argv;
	in.env = w->conf->env;
	in.deny = deny;
	in.list_dir = worker_sandbox_list_dir;
	in.path_kind = worker_sandbox_path_kind;
	if (sb_build(&w->conf->sandbox, &in, &sb->rules, cause) == 0)
		rv = 0;
out:
	for (i = 0; deny[i] != NULL; i++)
		free((char *)deny[i]);
	free(state);
	free(base);
	free(own);
	free(dir);
	free(exe);
	free(exe_real);
	return (rv);
}

/*
 * Before the spawn: the rules, prepared; NULL in *out when the server is
 * not sandboxed.  -1 and *cause if they cannot be made.
 */
int
worker_sandbox_prepare(struct worker *w, struct worker_sb **out,
    char **cause)
{
	struct worker_sb	*sb;
	char			*err = NULL;

	*out = NULL;
	w->sandboxed = 0;
	w->sandbox_held = 0;
	w->sandbox_denial_age = UINT32_MAX;
	if (w->conf->url != NULL || w->conf->sandbox.profile ==
	    SB_PROFILE_UNSET || w->conf->sandbox.profile == SB_PROFILE_OFF)
		return (0);
	sb = xcalloc(1, sizeof *sb);
	if (worker_sandbox_build(w, sb, &err) == -1) {
		xasprintf(cause, "%s%s", strncmp(err, "sandbox", 7) == 0 ?
		    "" : "sandbox: ", err);
		goto fail;
	}
	worker_sandbox_notes(w, &sb->rules);
	if (!sb->rules.on) {
		worker_sandbox_free(sb);
		return (0);
	}
	if (sb_prepare(&sb->rules, &sb->prep, &err) == -1) {
		*cause = err;
		err = NULL;
		goto fail;
	}
	sb->child.prep = &sb->prep;
	sb->child.env = sb->rules.env;
	sb->child.workdir = sb->rules.workdir;
	*out = sb;
	return (0);
fail:
	free(err);
	worker_sandbox_free(sb);
	return (-1);
}

const struct child_sandbox *
worker_sandbox_child(const struct worker_sb *sb)
{
	return (sb != NULL ? &sb->child : NULL);
}

void
worker_sandbox_free(struct worker_sb *sb)
{
	if (sb == NULL)
		return;
	sb_prepared_free(&sb->prep);
	sb_rules_free(&sb->rules);
	free(sb);
}

/* Spawned (or adopted): what held. */
void
worker_sandbox_started(struct worker *w)
{
	w->sandboxed = transport_sandbox(w->tp, &w->sandbox_held);
	w->sandbox_denial_age = UINT32_MAX;
}

static int
worker_sandbox_reads_denied(const char *line, size_t len)
{
	static const char *words[] = { "EACCES", "EPERM",
	    "Permission denied", "Operation not permitted" };
	size_t	 i, wl, j;

	for (i = 0; i < nitems(words); i++) {
		wl = strlen(words[i]);
		for (j = 0; j + wl <= len; j++) {
			if (memcmp(line + j, words[i], wl) == 0)
				return (1);
		}
	}
	return (0);
}

/* Each stderr line: how many have come since one read as a denial. */
void
worker_sandbox_stderr(struct worker *w, const char *line, size_t len)
{
	if (!w->sandboxed)
		return;
	if (worker_sandbox_reads_denied(line, len))
		w->sandbox_denial_age = 0;
	else if (w->sandbox_denial_age != UINT32_MAX)
		w->sandbox_denial_age++;
}

/*
 * The run failed: if it was sandboxed, ended soon after its start and
 * a denial is among its last stderr lines, the hint to add; else NULL.
 */
const char *
worker_sandbox_denial(const struct worker *w, uint64_t now_ms)
{
	if (!w->sandboxed || w->sandbox_denial_age >=
	    WORKER_SANDBOX_DENIAL_LINES ||
	    now_ms - w->spawned_ms > WORKER_SANDBOX_SOON_MS)
		return (NULL);
	return (WORKER_SANDBOX_HINT);
}

/* "sandbox": "default; landlock 7: files, tcp, scope; seccomp; netns". */
void
worker_sandbox_json(const struct worker *w, cJSON *o)
{
	char	 held[128], *text;

	if (w->conf->url != NULL)
		return;
	if (!w->sandboxed) {
		cJSON_AddStringToObject(o, "sandbox",
		    w->conf->sandbox.profile == SB_PROFILE_OFF ? "off" :
		    w->conf->sandbox.profile == SB_PROFILE_UNSET ||
		    w->tp != NULL ? "not sandboxed" :
		    sb_profile_name(w->conf->sandbox.profile));
		return;
	}
	sb_held_describe(w->sandbox_held, held, sizeof held);
	xasprintf(&text, "%s; %s", sb_profile_name(w->conf->sandbox.profile),
	    held);
	cJSON_AddStringToObject(o, "sandbox", text);
	free(text);
	cJSON_AddNumberToObject(o, "sandbox_landlock_abi",
	    SB_HELD_ABI(w->sandbox_held));
}
