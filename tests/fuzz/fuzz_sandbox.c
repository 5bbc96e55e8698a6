/*
 * fuzz_sandbox.c -- the "sandbox" key as the configuration reads it
 * (src/conf_sandbox.c) and the rules built from it (src/sandbox.c), on
 * a fake tree.
 *
 * The input's first line is the key's value (JSON), set in one server's
 * entry; each further line is, by its first two bytes, an argument
 * ("a "), an env "KEY=VALUE" ("e "), the cwd ("c "), a denied path
 * ("d "), or else a path of the fake tree (a directory when it ends in
 * '/'), which list_dir and path_kind answer from.
 *
 * Invariants:
 * - conf_parse gives a conf or diagnostics, never both;
 * - sb_build returns 0 or -1; -1 has a sentence and leaves the rules
 *   empty; with "off" or no key the rules are off and empty;
 * - otherwise: at most SB_GRANTS_MAX grants, sorted, each path once and
 *   normalised, each access non-empty and of SB_READ, SB_EXEC and
 *   SB_WRITE alone; no grant but the private directory is, holds or
 *   lies in a denied path (the input's, ~/.ssh, ~/.gnupg); at most
 *   SB_PORTS_MAX ports, each once; a network namespace exactly with
 *   "none"; env and notes NULL-ended;
 * - a copy of the server's spec is equal to it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "fuzz.h"
#include "sandbox.h"
#include "sandbox_int.h"
#include "xmalloc.h"

const char	*fuzz_target_name = "sandbox";

#define FUZZ_SB_LINES	64
#define FUZZ_SB_HOME	"/home/u"
#define FUZZ_SB_PRIVATE	"/home/u/.local/state/mcpd/sandbox/s"

struct fake {
	char	*tree[FUZZ_SB_LINES];
	size_t	 ntree;
	char	*argv[FUZZ_SB_LINES + 2];
	size_t	 argc;
	char	*env[FUZZ_SB_LINES + 1];
	size_t	 nenv;
	char	*deny[FUZZ_SB_LINES + 2];
	size_t	 ndeny;
	char	*cwd;
};

static const char *
fake_getenv(const char *name, void *arg)
{
	(void)arg;
	if (strcmp(name, "HOME") == 0)
		return (FUZZ_SB_HOME);
	if (strcmp(name, "X") == 0)
		return ("/x");
	return (NULL);
}

/* The tree's entry for path: 2 a directory, 1 a file, 0 none. */
static int
fake_kind(const char *path, void *arg)
{
	struct fake	*f = arg;
	size_t		 i, len = strlen(path);

	for (i = 0; i < f->ntree; i++) {
		if (strncmp(f->tree[i], path, len) != 0)
			continue;
		if (f->tree[i][len] == '\0')
			return (SB_KIND_FILE);
		if (f->tree[i][len] == '/' && f->tree[i][len + 1] == '\0')
			return (SB_KIND_DIR);
	}
	return (SB_KIND_NONE);
}

static char **
fake_list(const char *dir, void *arg)
{
	struct fake	*f = arg;
	char		**names, *prefix;
	const char	*rest, *slash;
	size_t		 i, n = 0, plen;

	if (strcmp(dir, "/") == 0)
		prefix = xstrdup("/");
	else
		xasprintf(&prefix, "%s/", dir);
	plen = strlen(prefix);
	names = xcalloc(f->ntree + 1, sizeof *names);
	for (i = 0; i < f->ntree; i++) {
		if (strncmp(f->tree[i], prefix, plen) != 0 ||
		    f->tree[i][plen] == '\0')
			continue;
		rest = f->tree[i] + plen;
		slash = strchr(rest, '/');
		if (slash != NULL && slash[1] != '\0')
			continue;
		names[n++] = slash != NULL ? xstrndup(rest,
		    (size_t)(slash - rest)) : xstrdup(rest);
	}
	free(prefix);
	return (names);
}

static void
fake_read(struct fake *f, const char *text)
{
	const char	*p, *nl;
	char		*line;

	memset(f, 0, sizeof *f);
	f->argv[f->argc++] = xstrdup("/usr/bin/node");
	f->deny[f->ndeny++] = xstrdup("/home/u/.local/state/mcpd");
	for (p = text; *p != '\0'; p = nl + (*nl != '\0')) {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		line = xstrndup(p, (size_t)(nl - p));
		if (strncmp(line, "a ", 2) == 0 && f->argc < FUZZ_SB_LINES)
			f->argv[f->argc++] = xstrdup(line + 2);
		else if (strncmp(line, "e ", 2) == 0 &&
		    f->nenv < FUZZ_SB_LINES)
			f->env[f->nenv++] = xstrdup(line + 2);
		else if (strncmp(line, "d ", 2) == 0 &&
		    f->ndeny < FUZZ_SB_LINES)
			f->deny[f->ndeny++] = xstrdup(line + 2);
		else if (strncmp(line, "c ", 2) == 0 && f->cwd == NULL &&
		    line[2] == '/')
			f->cwd = xstrdup(line + 2);
		else if (f->ntree < FUZZ_SB_LINES) {
			f->tree[f->ntree++] = line;
			line = NULL;
		}
		free(line);
	}
}

static void
fake_free(struct fake *f)
{
	size_t	 i;

	for (i = 0; i < f->ntree; i++)
		free(f->tree[i]);
	for (i = 0; i < f->argc; i++)
		free(f->argv[i]);
	for (i = 0; i < f->nenv; i++)
		free(f->env[i]);
	for (i = 0; i < f->ndeny; i++)
		free(f->deny[i]);
	free(f->cwd);
}

static void
check_rules(const struct sb_spec *spec, const struct sb_rules *r,
    struct fake *f)
{
	const char	*hard[FUZZ_SB_LINES + 4], *p;
	char		*norm;
	size_t		 nhard = 0, i, j;

	FUZZ_CHECK(r->on == 1, "a sandbox without its rules on");
	FUZZ_CHECK(r->ngrants <= SB_GRANTS_MAX, "%zu grants", r->ngrants);
	for (i = 0; i < f->ndeny; i++) {
		if ((norm = sb_path_norm(f->deny[i])) != NULL) {
			free(f->deny[i]);
			f->deny[i] = norm;
			hard[nhard++] = norm;
		}
	}
	hard[nhard++] = FUZZ_SB_HOME "/.ssh";
	hard[nhard++] = FUZZ_SB_HOME "/.gnupg";
	for (i = 0; i < r->ngrants; i++) {
		p = r->grants[i].path;
		norm = sb_path_norm(p);
		FUZZ_CHECK(norm != NULL && strcmp(norm, p) == 0,
		    "grant %s not normalised", p);
		free(norm);
		FUZZ_CHECK(r->grants[i].access != 0 && (r->grants[i].access &
		    ~(SB_READ | SB_WRITE | SB_EXEC)) == 0, "access %x",
		    r->grants[i].access);
		FUZZ_CHECK(r->grants[i].why != NULL, "no why");
		if (i > 0)
			FUZZ_CHECK(strcmp(r->grants[i - 1].path, p) < 0,
			    "grants out of order: %s, %s",
			    r->grants[i - 1].path, p);
		if (strcmp(r->grants[i].why, "private") == 0)
			continue;
		for (j = 0; j < nhard; j++)
			FUZZ_CHECK(!sb_path_within(p, hard[j]) &&
			    !sb_path_below(hard[j], p),
			    "grant %s meets denied %s", p, hard[j]);
	}
	FUZZ_CHECK(r->nports <= SB_PORTS_MAX, "%zu ports", r->nports);
	for (i = 0; i < r->nports; i++) {
		FUZZ_CHECK(r->ports[i] != 0, "port 0");
		for (j = 0; j < i; j++)
			FUZZ_CHECK(r->ports[i] != r->ports[j], "port twice");
	}
	FUZZ_CHECK(r->netns == (r->net == SB_NET_NONE), "netns %d net %d",
	    r->netns, (int)r->net);
	FUZZ_CHECK(r->net == spec->net, "net changed");
	FUZZ_CHECK(r->env != NULL && r->env[r->nenv] == NULL, "env not ended");
	FUZZ_CHECK(r->notes != NULL && r->notes[r->nnotes] == NULL,
	    "notes not ended");
}

static void
build(const struct conf_server *cs, struct fake *f)
{
	struct sb_input	 in;
	struct sb_rules	 r;
	struct sb_spec	 copy;
	char		*err = NULL;

	sb_spec_copy(&copy, &cs->sandbox);
	FUZZ_CHECK(sb_spec_equal(&copy, &cs->sandbox), "a copy differs");
	sb_spec_free(&copy);
	memset(&in, 0, sizeof in);
	in.home = FUZZ_SB_HOME;
	in.server_dir = FUZZ_SB_PRIVATE;
	in.exe = f->ntree > 0 && f->tree[0][0] == '/' ? f->tree[0] :
	    "/usr/bin/node";
	in.cwd = f->cwd;
	in.argv = f->argv;
	in.env = f->env;
	in.deny = (const char *const *)f->deny;
	in.list_dir = fake_list;
	in.path_kind = f->ntree % 3 == 2 ? NULL : fake_kind;
	in.list_arg = f;
	if (sb_build(&cs->sandbox, &in, &r, &err) == -1) {
		FUZZ_CHECK(err != NULL && *err != '\0', "-1 without a cause");
		FUZZ_CHECK(r.on == 0 && r.ngrants == 0 && r.grants == NULL,
		    "rules left after -1");
		free(err);
		return;
	}
	FUZZ_CHECK(err == NULL, "a cause with 0");
	if (cs->sandbox.profile == SB_PROFILE_UNSET ||
	    cs->sandbox.profile == SB_PROFILE_OFF)
		FUZZ_CHECK(r.on == 0 && r.ngrants == 0, "off but rules on");
	else
		check_rules(&cs->sandbox, &r, f);
	sb_rules_free(&r);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conf_diags	 d;
	struct conf		*conf;
	struct fake		 f;
	const char		*nl;
	char			*text, *json;
	size_t			 vlen;

	text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	if (strlen(text) != size) {
		free(text);
		return (0);
	}
	nl = strchr(text, '\n');
	vlen = nl != NULL ? (size_t)(nl - text) : size;
	xasprintf(&json, "{\"mcpServers\": {\"s\": {\"command\": "
	    "\"/usr/bin/node\", \"sandbox\": %.*s}}}", (int)vlen, text);
	fake_read(&f, nl != NULL ? nl + 1 : "");
	conf_diags_init(&d);
	conf = conf_parse(json, strlen(json), fake_getenv, NULL, &d);
	FUZZ_CHECK((conf == NULL) == (d.nerrors > 0),
	    "a conf and errors, or neither");
	if (conf != NULL) {
		FUZZ_CHECK(conf->nservers == 1, "%zu servers", conf->nservers);
		build(&conf->servers[0], &f);
	}
	conf_free(conf);
	conf_diags_free(&d);
	fake_free(&f);
	free(json);
	free(text);
	return (0);
}
