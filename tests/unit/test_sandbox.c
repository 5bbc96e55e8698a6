/*
 * test_sandbox.c -- unit tests for the rules a server's sandbox gets
 * (src/sandbox.c): the profiles, the paths of the entry, the paths
 * never granted and the grants split around them, ports, errors; and
 * the "sandbox" key as the configuration reads it (src/conf_sandbox.c).
 * The file system is a fake tree given through list_dir and path_kind.
 */

#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "sandbox.h"
#include "unit.h"
#include "xmalloc.h"

/* The fake tree: directories end in '/'. */
static const char *tree[] = {
	"/home/u/",
	"/home/u/.ssh/",
	"/home/u/.ssh/id_test",
	"/home/u/.aws/",
	"/home/u/.aws/credentials",
	"/home/u/.config/",
	"/home/u/.config/chromium/",
	"/home/u/.config/app/",
	"/home/u/.local/",
	"/home/u/.local/state/",
	"/home/u/.local/state/mcpd/",
	"/home/u/.local/state/mcpd/sandbox/",
	"/home/u/.local/state/mcpd/sandbox/fs/",
	"/home/u/.local/bin/",
	"/home/u/.local/bin/uvx",
	"/home/u/src/",
	"/home/u/src/proj/",
	"/home/u/src/proj/package.json",
	"/home/u/src/proj/build/",
	"/home/u/src/proj/build/index.js",
	"/home/u/notes.db",
	"/home/u/.nvm/",
	"/home/u/.nvm/versions/",
	"/home/u/.nvm/versions/node/",
	"/home/u/.nvm/versions/node/v20/",
	"/home/u/.nvm/versions/node/v20/bin/",
	"/home/u/.nvm/versions/node/v20/bin/npx",
	"/usr/",
	"/usr/bin/",
	"/usr/bin/node",
	"/data/",
};

static int	 list_calls;

static char **
fake_list(const char *dir, void *arg)
{
	char	**names = NULL, *prefix;
	size_t	 n = 0, i, plen;
	const char *rest, *slash;

	(void)arg;
	list_calls++;
	if (strcmp(dir, "/") == 0)
		prefix = xstrdup("/");
	else
		xasprintf(&prefix, "%s/", dir);
	plen = strlen(prefix);
	for (i = 0; i < sizeof tree / sizeof tree[0]; i++) {
		if (strcmp(tree[i], prefix) == 0)
			break;
	}
	if (i == sizeof tree / sizeof tree[0] && strcmp(dir, "/") != 0) {
		free(prefix);
		return (NULL);
	}
	names = xcalloc(1, sizeof *names);
	for (i = 0; i < sizeof tree / sizeof tree[0]; i++) {
		if (strncmp(tree[i], prefix, plen) != 0 ||
		    tree[i][plen] == '\0')
			continue;
		rest = tree[i] + plen;
		slash = strchr(rest, '/');
		if (slash != NULL && slash[1] != '\0')
			continue;
		names = xreallocarray(names, n + 2, sizeof *names);
		names[n++] = slash != NULL ? xstrndup(rest,
		    (size_t)(slash - rest)) : xstrdup(rest);
		names[n] = NULL;
	}
	free(prefix);
	return (names);
}

static int
fake_kind(const char *path, void *arg)
{
	size_t	 i, len = strlen(path);

	(void)arg;
	for (i = 0; i < sizeof tree / sizeof tree[0]; i++) {
		if (strncmp(tree[i], path, len) != 0)
			continue;
		if (tree[i][len] == '\0')
			return (SB_KIND_FILE);
		if (tree[i][len] == '/' && tree[i][len + 1] == '\0')
			return (SB_KIND_DIR);
	}
	return (SB_KIND_NONE);
}

static const char *const deny[] = {
	"/home/u/.local/state/mcpd",
	"/run/user/1000/mcpd",
	NULL,
};

static char *argv_none[] = { "/usr/bin/node", NULL };
static char *env_none[] = { NULL };

static void
input_init(struct sb_input *in)
{
	memset(in, 0, sizeof *in);
	in->home = "/home/u";
	in->server_dir = "/home/u/.local/state/mcpd/sandbox/fs";
	in->exe = "/usr/bin/node";
	in->argv = argv_none;
	in->env = env_none;
	in->deny = deny;
	in->list_dir = fake_list;
	in->path_kind = fake_kind;
}

/* The access of path's grant, or -1 if none is exactly it. */
static int
grant_of(const struct sb_rules *r, const char *path)
{
	size_t	 i;

	for (i = 0; i < r->ngrants; i++) {
		if (strcmp(r->grants[i].path, path) == 0)
			return ((int)r->grants[i].access);
	}
	return (-1);
}

/* 1 if path is reachable through some grant (is one or lies below). */
static int
reachable(const struct sb_rules *r, const char *path)
{
	size_t	 i, len;

	for (i = 0; i < r->ngrants; i++) {
		len = strlen(r->grants[i].path);
		if (strcmp(r->grants[i].path, path) == 0 ||
		    (strncmp(r->grants[i].path, path, len) == 0 &&
		    (path[len] == '/' || len == 1)))
			return (1);
	}
	return (0);
}

static const char *
env_of(const struct sb_rules *r, const char *name)
{
	size_t	 i, len = strlen(name);

	for (i = 0; i < r->nenv; i++) {
		if (strncmp(r->env[i], name, len) == 0 &&
		    r->env[i][len] == '=')
			return (r->env[i] + len + 1);
	}
	return (NULL);
}

static void
build_ok(const struct sb_spec *spec, const struct sb_input *in,
    struct sb_rules *r)
{
	char	*err = NULL;

	ck_assert_msg(sb_build(spec, in, r, &err) == 0, "refused: %s", err);
	ck_assert_ptr_null(err);
}

static void
build_fails(const struct sb_spec *spec, const struct sb_input *in,
    const char *want)
{
	struct sb_rules	 r;
	char		*err = NULL;

	ck_assert_int_eq(sb_build(spec, in, &r, &err), -1);
	ck_assert_ptr_nonnull(err);
	ck_assert_msg(strstr(err, want) != NULL, "\"%s\" not in \"%s\"", want,
	    err);
	ck_assert_int_eq(r.on, 0);
	ck_assert_uint_eq(r.ngrants, 0);
	free(err);
}

START_TEST(test_unset_and_off)
{
	struct sb_spec	 spec;
	struct sb_input	 in;
	struct sb_rules	 r;

	input_init(&in);
	build_ok(NULL, &in, &r);
	ck_assert_int_eq(r.on, 0);
	memset(&spec, 0, sizeof spec);
	build_ok(&spec, &in, &r);
	ck_assert_int_eq(r.on, 0);
	spec.profile = SB_PROFILE_OFF;
	build_ok(&spec, &in, &r);
	ck_assert_int_eq(r.on, 0);
	ck_assert_uint_eq(r.ngrants, 0);
	sb_rules_free(&r);
	ck_assert_str_eq(sb_profile_name(SB_PROFILE_UNSET), "none");
	ck_assert_str_eq(sb_profile_name(SB_PROFILE_BROWSER), "browser");
	ck_assert_str_eq(sb_profile_name(SB_PROFILE_CUSTOM), "custom");
}
END_TEST

START_TEST(test_default_profile)
{
	struct sb_spec	 spec = { .profile = SB_PROFILE_DEFAULT };
	struct sb_input	 in;
	struct sb_rules	 r;
	const char	*dir = "/home/u/.local/state/mcpd/sandbox/fs";

	input_init(&in);
	build_ok(&spec, &in, &r);
	ck_assert_int_eq(r.on, 1);
	ck_assert_int_eq(grant_of(&r, "/usr"), SB_READ | SB_EXEC);
	ck_assert_int_eq(grant_of(&r, "/etc"), SB_READ);
	ck_assert_int_eq(grant_of(&r, "/proc"), SB_READ);
	ck_assert_int_eq(grant_of(&r, "/dev/null"), SB_READ | SB_WRITE);
	ck_assert_int_eq(grant_of(&r, "/dev/urandom"), SB_READ);
	ck_assert_int_eq(grant_of(&r, "/dev/shm"), -1);
	ck_assert_int_eq(grant_of(&r, "/tmp"), -1);
	ck_assert_int_eq(grant_of(&r, dir), SB_READ | SB_WRITE | SB_EXEC);
	/* Nothing of the home but the private directory. */
	ck_assert(!reachable(&r, "/home/u/src"));
	ck_assert(!reachable(&r, "/home/u/.ssh/id_test"));
	ck_assert(!reachable(&r, "/home/u/.local/state/mcpd/x"));
	ck_assert_str_eq(r.workdir, dir);
	ck_assert_str_eq(env_of(&r, "TMPDIR"), dir);
	ck_assert_str_eq(env_of(&r, "npm_config_cache"),
	    "/home/u/.local/state/mcpd/sandbox/fs/.npm");
	ck_assert_str_eq(env_of(&r, "UV_CACHE_DIR"),
	    "/home/u/.local/state/mcpd/sandbox/fs/.cache/uv");
	ck_assert_str_eq(env_of(&r, "XDG_CACHE_HOME"),
	    "/home/u/.local/state/mcpd/sandbox/fs/.cache");
	ck_assert_ptr_null(r.env[r.nenv]);
	ck_assert_int_eq(r.net, SB_NET_ANY);
	ck_assert_int_eq(r.netns, 0);
	ck_assert_int_eq(r.userns, 0);
	ck_assert_int_eq(r.ptrace, 0);
	ck_assert_int_eq(r.unix_sockets, 0);
	ck_assert_uint_eq(r.nnotes, 0);
	ck_assert_ptr_null(r.notes[0]);
	sb_rules_free(&r);
}
END_TEST

START_TEST(test_browser_profile)
{
	struct sb_spec	 spec = { .profile = SB_PROFILE_BROWSER };
	struct sb_input	 in;
	struct sb_rules	 r;

	input_init(&in);
	build_ok(&spec, &in, &r);
	ck_assert_int_eq(r.userns, 1);
	ck_assert_int_eq(r.ptrace, 1);
	ck_assert_int_eq(grant_of(&r, "/dev/shm"), SB_READ | SB_WRITE);
	ck_assert_int_eq(grant_of(&r, "/home/u/.cache/puppeteer"),
	    SB_READ | SB_EXEC);
	sb_rules_free(&r);

	/* A custom object on top of "browser". */
	spec.profile = SB_PROFILE_CUSTOM;
	spec.base = SB_PROFILE_BROWSER;
	build_ok(&spec, &in, &r);
	ck_assert_int_eq(r.userns, 1);
	ck_assert_int_eq(grant_of(&r, "/dev/shm"), SB_READ | SB_WRITE);
	sb_rules_free(&r);
	spec.base = SB_PROFILE_DEFAULT;
	build_ok(&spec, &in, &r);
	ck_assert_int_eq(r.userns, 0);
	ck_assert_int_eq(grant_of(&r, "/dev/shm"), -1);
	sb_rules_free(&r);
}
END_TEST

START_TEST(test_entry_env_wins)
{
	struct sb_spec	 spec = { .profile = SB_PROFILE_DEFAULT };
	struct sb_input	 in;
	struct sb_rules	 r;
	char		*env[] = { "TMPDIR=/data", NULL };

	input_init(&in);
	in.env = env;
	in.cwd = "/home/u/src/proj";
	build_ok(&spec, &in, &r);
	ck_assert_ptr_null(env_of(&r, "TMPDIR"));
	ck_assert_ptr_nonnull(env_of(&r, "UV_CACHE_DIR"));
	/* A configured cwd: read, written, run; no workdir of ours. */
	ck_assert_ptr_null(r.workdir);
	ck_assert_int_eq(grant_of(&r, "/home/u/src/proj"),
	    SB_READ | SB_WRITE | SB_EXEC);
	/* env's absolute path: read. */
	ck_assert_int_eq(grant_of(&r, "/data"), SB_READ | SB_EXEC);
	sb_rules_free(&r);
}
END_TEST

START_TEST(test_runtime)
{
	struct sb_spec	 spec = { .profile = SB_PROFILE_DEFAULT };
	struct sb_input	 in;
	struct sb_rules	 r;

	input_init(&in);
	in.exe = "/home/u/.nvm/versions/node/v20/bin/npx";
	build_ok(&spec, &in, &r);
	ck_assert_int_eq(grant_of(&r, "/home/u/.nvm/versions/node/v20"),
	    SB_READ | SB_EXEC);
	ck_assert(!reachable(&r, "/home/u/.nvm"));
	sb_rules_free(&r);

	/* ~/.local/bin: the bin and lib, never ~/.local whole. */
	in.exe = "/home/u/.local/bin/uvx";
	build_ok(&spec, &in, &r);
	ck_assert_int_eq(grant_of(&r, "/home/u/.local/bin"),
	    SB_READ | SB_EXEC);
	ck_assert_int_eq(grant_of(&r, "/home/u/.local/lib"),
	    SB_READ | SB_EXEC);
	ck_assert(!reachable(&r, "/home/u/.local"));
	sb_rules_free(&r);

	/* A command right in the home: the file alone. */
	in.exe = "/home/u/server";
	build_ok(&spec, &in, &r);
	ck_assert_int_eq(grant_of(&r, "/home/u/server"), SB_READ | SB_EXEC);
	ck_assert(!reachable(&r, "/home/u/src"));
	sb_rules_free(&r);
}
END_TEST

START_TEST(test_args)
{
	struct sb_spec	 spec = { .profile = SB_PROFILE_DEFAULT };
	struct sb_input	 in;
	struct sb_rules	 r;
	char		*argv[] = { "npx", "-y", "server-filesystem",
			    "/home/u/src", "--db=/home/u/notes.db",
			    "/home/u/src/proj/build/index.js", "relative",
			    "/missing", "/home/u/src/../.ssh", NULL };

	input_init(&in);
	in.argv = argv;
	build_ok(&spec, &in, &r);
	/* A directory: read and written. */
	ck_assert_int_eq(grant_of(&r, "/home/u/src"), SB_READ | SB_WRITE);
	/* A file right in the home: the file alone. */
	ck_assert_int_eq(grant_of(&r, "/home/u/notes.db"),
	    SB_READ | SB_WRITE);
	ck_assert(!reachable(&r, "/home/u/.aws"));
	/* A script: its directory, and its project read and run. */
	ck_assert_int_eq(grant_of(&r, "/home/u/src/proj"),
	    SB_READ | SB_EXEC);
	ck_assert(!reachable(&r, "/missing"));
	ck_assert(!reachable(&r, "/home/u/.ssh"));
	sb_rules_free(&r);

	/* Without path_kind each is taken as a directory. */
	in.path_kind = NULL;
	argv[3] = "/elsewhere";
	build_ok(&spec, &in, &r);
	ck_assert_int_eq(grant_of(&r, "/elsewhere"), SB_READ | SB_WRITE);
	sb_rules_free(&r);
}
END_TEST

START_TEST(test_implied_inside_denied_dropped)
{
	struct sb_spec	 spec = { .profile = SB_PROFILE_DEFAULT };
	struct sb_input	 in;
	struct sb_rules	 r;
	char		*argv[] = { "x", "/home/u/.ssh", "/home/u/.aws", NULL };

	input_init(&in);
	in.argv = argv;
	in.cwd = "/home/u/.config/chromium";
	build_ok(&spec, &in, &r);
	ck_assert(!reachable(&r, "/home/u/.ssh"));
	ck_assert(!reachable(&r, "/home/u/.aws"));
	ck_assert(!reachable(&r, "/home/u/.config/chromium"));
	ck_assert_uint_eq(r.nnotes, 3);
	ck_assert_ptr_nonnull(strstr(r.notes[0], "cwd"));
	ck_assert_ptr_nonnull(strstr(r.notes[1], "args[0]"));
	ck_assert_ptr_nonnull(strstr(r.notes[1], "/home/u/.ssh"));
	ck_assert_ptr_nonnull(strstr(r.notes[2], "granted only when"));
	sb_rules_free(&r);
}
END_TEST

START_TEST(test_split_home)
{
	struct sb_spec	 spec = { .profile = SB_PROFILE_CUSTOM };
	struct sb_input	 in;
	struct sb_rules	 r;
	char		*write[] = { "/home/u", NULL };
	size_t		 i;

	input_init(&in);
	spec.write = write;
	spec.nwrite = 1;
	list_calls = 0;
	build_ok(&spec, &in, &r);
	ck_assert_int_eq(grant_of(&r, "/home/u"), -1);
	ck_assert_int_eq(grant_of(&r, "/home/u/src"),
	    SB_READ | SB_WRITE | SB_EXEC);
	ck_assert_int_eq(grant_of(&r, "/home/u/notes.db"),
	    SB_READ | SB_WRITE | SB_EXEC);
	ck_assert_int_eq(grant_of(&r, "/home/u/.config/app"),
	    SB_READ | SB_WRITE | SB_EXEC);
	ck_assert_int_eq(grant_of(&r, "/home/u/.local/bin"),
	    SB_READ | SB_WRITE | SB_EXEC);
	/* Split down to the denied paths, each left out. */
	ck_assert(!reachable(&r, "/home/u/.ssh/id_test"));
	ck_assert(!reachable(&r, "/home/u/.aws/credentials"));
	ck_assert(!reachable(&r, "/home/u/.config/chromium"));
	ck_assert(!reachable(&r, "/home/u/.local/state/mcpd/other"));
	ck_assert(reachable(&r, "/home/u/.local/state/mcpd/sandbox/fs/x"));
	/* Sorted, each path once. */
	for (i = 1; i < r.ngrants; i++)
		ck_assert_int_lt(strcmp(r.grants[i - 1].path,
		    r.grants[i].path), 0);
	ck_assert_int_gt(list_calls, 0);
	sb_rules_free(&r);

	/* Without list_dir such a grant is an error. */
	in.list_dir = NULL;
	build_fails(&spec, &in, "sandbox.write[0]: holds /home/u/.");
}
END_TEST

START_TEST(test_configured_denied)
{
	struct sb_spec	 spec = { .profile = SB_PROFILE_CUSTOM };
	struct sb_input	 in;
	struct sb_rules	 r;
	char		*read[] = { "/home/u/.ssh/id_test", NULL };
	char		*state[] = { "/home/u/.local/state/mcpd", NULL };
	char		*creds[] = { "/home/u/.aws", NULL };
	char		*rel[] = { "relative/path", NULL };
	char		*dots[] = { "/home/u/src/../.ssh", NULL };

	input_init(&in);
	spec.read = read;
	spec.nread = 1;
	build_fails(&spec, &in,
	    "sandbox.read[0]: /home/u/.ssh is never granted");
	spec.read = state;
	build_fails(&spec, &in, "/home/u/.local/state/mcpd is never granted");
	spec.read = rel;
	build_fails(&spec, &in, "sandbox.read[0]: not an absolute path");
	spec.read = dots;
	build_fails(&spec, &in, "without \"..\"");
	/* A credential named: granted. */
	spec.read = creds;
	build_ok(&spec, &in, &r);
	ck_assert_int_eq(grant_of(&r, "/home/u/.aws"), SB_READ | SB_EXEC);
	sb_rules_free(&r);
}
END_TEST

START_TEST(test_merge_and_normalise)
{
	struct sb_spec	 spec = { .profile = SB_PROFILE_CUSTOM };
	struct sb_input	 in;
	struct sb_rules	 r;
	char		*read[] = { "/data/", "//data/./x", "/usr/share", NULL };
	char		*write[] = { "/data", NULL };

	input_init(&in);
	spec.read = read;
	spec.nread = 3;
	spec.write = write;
	spec.nwrite = 1;
	build_ok(&spec, &in, &r);
	ck_assert_int_eq(grant_of(&r, "/data"), SB_READ | SB_WRITE | SB_EXEC);
	/* Below a grant giving as much: redundant. */
	ck_assert_int_eq(grant_of(&r, "/data/x"), -1);
	ck_assert_int_eq(grant_of(&r, "/usr/share"), -1);
	sb_rules_free(&r);
}
END_TEST

START_TEST(test_network)
{
	struct sb_spec	 spec = { .profile = SB_PROFILE_CUSTOM };
	struct sb_input	 in;
	struct sb_rules	 r;

	input_init(&in);
	spec.net = SB_NET_NONE;
	build_ok(&spec, &in, &r);
	ck_assert_int_eq(r.net, SB_NET_NONE);
	ck_assert_int_eq(r.netns, 1);
	sb_rules_free(&r);
	spec.net = SB_NET_PORTS;
	spec.ports[0] = 443;
	spec.ports[1] = 5432;
	spec.ports[2] = 443;
	spec.nports = 3;
	spec.unix_sockets = 1;
	spec.required = 1;
	build_ok(&spec, &in, &r);
	ck_assert_int_eq(r.net, SB_NET_PORTS);
	ck_assert_int_eq(r.netns, 0);
	ck_assert_uint_eq(r.nports, 2);
	ck_assert_uint_eq(r.ports[0], 443);
	ck_assert_uint_eq(r.ports[1], 5432);
	ck_assert_int_eq(r.unix_sockets, 1);
	ck_assert_int_eq(r.required, 1);
	sb_rules_free(&r);
}
END_TEST

/* The configuration's side. */

static const char *
test_getenv(const char *name, void *arg)
{
	(void)arg;
	if (strcmp(name, "HOME") == 0)
		return ("/home/u");
	if (strcmp(name, "PROJ") == 0)
		return ("/home/u/src/proj");
	return (NULL);
}

static struct conf *
parse(const char *json, struct conf_diags *d)
{
	conf_diags_init(d);
	return (conf_parse(json, strlen(json), test_getenv, NULL, d));
}

static void
parse_fails(const char *json, const char *want)
{
	struct conf_diags	 d;
	struct conf		*conf;
	size_t			 i;
	int			 found = 0;

	conf = parse(json, &d);
	ck_assert_ptr_null(conf);
	for (i = 0; i < d.n; i++) {
		if (strstr(d.v[i].text, want) != NULL)
			found = 1;
	}
	ck_assert_msg(found, "no diagnostic \"%s\" (first: %s)", want,
	    d.n > 0 ? d.v[0].text : "none");
	conf_diags_free(&d);
}

START_TEST(test_conf_profiles)
{
	struct conf_diags	 d;
	struct conf		*conf;
	const struct conf_server *cs;

	conf = parse("{\"mcpServers\": {"
	    "\"a\": {\"command\": \"x\"},"
	    "\"b\": {\"command\": \"x\", \"sandbox\": \"default\"},"
	    "\"c\": {\"command\": \"x\", \"sandbox\": \"browser\","
	    " \"sandbox_required\": true},"
	    "\"d\": {\"command\": \"x\", \"sandbox\": \"off\"}}}", &d);
	ck_assert_ptr_nonnull(conf);
	ck_assert_uint_eq(d.n, 0);
	ck_assert_int_eq(conf_find(conf, "a")->sandbox.profile,
	    SB_PROFILE_UNSET);
	ck_assert_int_eq(conf_find(conf, "b")->sandbox.profile,
	    SB_PROFILE_DEFAULT);
	cs = conf_find(conf, "c");
	ck_assert_int_eq(cs->sandbox.profile, SB_PROFILE_BROWSER);
	ck_assert_int_eq(cs->sandbox.required, 1);
	ck_assert_int_eq(conf_find(conf, "d")->sandbox.profile,
	    SB_PROFILE_OFF);
	conf_free(conf);
	conf_diags_free(&d);
}
END_TEST

START_TEST(test_conf_object)
{
	struct conf_diags	 d;
	struct conf		*conf;
	const struct conf_server *cs;

	conf = parse("{\"mcpServers\": {\"a\": {\"command\": \"x\", "
	    "\"sandbox\": {\"profile\": \"browser\", "
	    "\"read\": [\"~\", \"~/src/\", \"${PROJ}/build\"], "
	    "\"write\": [\"/data\"], \"network\": {\"ports\": [443, 443, 22]},"
	    " \"unix_sockets\": true}}}}", &d);
	ck_assert_ptr_nonnull(conf);
	cs = conf_find(conf, "a");
	ck_assert_int_eq(cs->sandbox.profile, SB_PROFILE_CUSTOM);
	ck_assert_int_eq(cs->sandbox.base, SB_PROFILE_BROWSER);
	ck_assert_uint_eq(cs->sandbox.nread, 3);
	ck_assert_str_eq(cs->sandbox.read[0], "/home/u");
	ck_assert_str_eq(cs->sandbox.read[1], "/home/u/src");
	ck_assert_str_eq(cs->sandbox.read[2], "/home/u/src/proj/build");
	ck_assert_ptr_null(cs->sandbox.read[3]);
	ck_assert_uint_eq(cs->sandbox.nwrite, 1);
	ck_assert_int_eq(cs->sandbox.net, SB_NET_PORTS);
	ck_assert_uint_eq(cs->sandbox.nports, 2);
	ck_assert_int_eq(cs->sandbox.unix_sockets, 1);
	conf_free(conf);
	conf_diags_free(&d);

	conf = parse("{\"mcpServers\": {\"a\": {\"command\": \"x\", "
	    "\"sandbox\": {\"network\": \"none\"}}}}", &d);
	ck_assert_ptr_nonnull(conf);
	cs = conf_find(conf, "a");
	ck_assert_int_eq(cs->sandbox.base, SB_PROFILE_DEFAULT);
	ck_assert_int_eq(cs->sandbox.net, SB_NET_NONE);
	ck_assert_uint_eq(cs->sandbox.nread, 0);
	conf_free(conf);
	conf_diags_free(&d);
}
END_TEST

START_TEST(test_conf_defaults)
{
	struct conf_diags	 d;
	struct conf		*conf;
	const struct conf_server *cs;

	conf = parse("{\"mcpd\": {\"sandbox\": {\"read\": [\"/data\"]}, "
	    "\"sandbox_required\": true}, \"mcpServers\": {"
	    "\"a\": {\"command\": \"x\"},"
	    "\"b\": {\"command\": \"x\", \"sandbox\": \"off\"},"
	    "\"c\": {\"command\": \"x\", \"sandbox_required\": false},"
	    "\"r\": {\"url\": \"https://example.com/mcp\"}}}", &d);
	ck_assert_ptr_nonnull(conf);
	ck_assert_uint_eq(d.n, 0);
	cs = conf_find(conf, "a");
	ck_assert_int_eq(cs->sandbox.profile, SB_PROFILE_CUSTOM);
	ck_assert_str_eq(cs->sandbox.read[0], "/data");
	ck_assert_int_eq(cs->sandbox.required, 1);
	cs = conf_find(conf, "b");
	ck_assert_int_eq(cs->sandbox.profile, SB_PROFILE_OFF);
	ck_assert_int_eq(cs->sandbox.required, 1);
	cs = conf_find(conf, "c");
	ck_assert_int_eq(cs->sandbox.profile, SB_PROFILE_CUSTOM);
	ck_assert_int_eq(cs->sandbox.required, 0);
	/* Not for mcpd's own worker of a remote server. */
	cs = conf_find(conf, "r");
	ck_assert_int_eq(cs->sandbox.profile, SB_PROFILE_UNSET);
	conf_free(conf);
	conf_diags_free(&d);

	conf = parse("{\"mcpServers\": {\"r\": {\"url\": "
	    "\"https://example.com/mcp\", \"sandbox\": \"default\"}}}", &d);
	ck_assert_ptr_nonnull(conf);
	ck_assert_uint_eq(d.n, 1);
	ck_assert_str_eq(d.v[0].text, "mcpServers.r.sandbox: does not apply "
	    "to a remote server (url), ignored");
	ck_assert_int_eq(conf_find(conf, "r")->sandbox.profile,
	    SB_PROFILE_UNSET);
	conf_free(conf);
	conf_diags_free(&d);
}
END_TEST

START_TEST(test_conf_errors)
{
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": \"x\", "
	    "\"sandbox\": \"strict\"}}}", "mcpServers.a.sandbox: expected "
	    "\"off\", \"default\", \"browser\" or an object");
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": \"x\", "
	    "\"sandbox\": {\"netwrok\": \"none\"}}}}",
	    "mcpServers.a.sandbox.netwrok: unknown key (did you mean "
	    "\"network\"?)");
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": \"x\", "
	    "\"sandbox\": {\"read\": [\"rel\"]}}}}",
	    "mcpServers.a.sandbox.read[0]: expected an absolute path");
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": \"x\", "
	    "\"sandbox\": {\"write\": [\"/a/../b\"]}}}}",
	    "mcpServers.a.sandbox.write[0]: expected an absolute path");
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": \"x\", "
	    "\"sandbox\": {\"read\": [\"${NOPE}\"]}}}}",
	    "mcpServers.a.sandbox.read[0]: ${NOPE} is not set");
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": \"x\", "
	    "\"sandbox\": {\"read\": \"/x\"}}}}",
	    "mcpServers.a.sandbox.read: expected an array of paths");
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": \"x\", "
	    "\"sandbox\": {\"network\": {\"ports\": [0, 80]}}}}}",
	    "mcpServers.a.sandbox.network.ports: element 0: expected a port");
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": \"x\", "
	    "\"sandbox\": {\"network\": {}}}}}",
	    "mcpServers.a.sandbox.network: \"ports\" is missing");
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": \"x\", "
	    "\"sandbox\": {\"network\": \"some\"}}}}",
	    "mcpServers.a.sandbox.network: expected \"any\", \"none\"");
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": \"x\", "
	    "\"sandbox\": {\"profile\": \"off\"}}}}",
	    "mcpServers.a.sandbox.profile: expected \"default\" or "
	    "\"browser\"");
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": \"x\", "
	    "\"sandbox\": {\"unix_sockets\": 1}}}}",
	    "mcpServers.a.sandbox.unix_sockets: expected true or false");
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": \"x\", "
	    "\"sandbox_required\": \"yes\"}}}",
	    "mcpServers.a.sandbox_required: expected true or false");
	parse_fails("{\"mcpd\": {\"sandbox\": 3}, \"mcpServers\": {}}",
	    "mcpd.sandbox: expected \"off\"");
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": \"x\", "
	    "\"sandbox\": {\"read\": [], \"read\": []}}}}",
	    "mcpServers.a.sandbox.read: duplicate key");
}
END_TEST

START_TEST(test_conf_reload_compares)
{
	struct conf_diags	 d;
	struct conf		*a, *b;
	struct conf_server	*copy;

	a = parse("{\"mcpServers\": {\"s\": {\"command\": \"x\", "
	    "\"sandbox\": {\"read\": [\"/data\"]}}}}", &d);
	conf_diags_free(&d);
	b = parse("{\"mcpServers\": {\"s\": {\"command\": \"x\", "
	    "\"sandbox\": {\"read\": [\"/data\", \"/srv\"]}}}}", &d);
	conf_diags_free(&d);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert(!conf_server_equal(conf_find(a, "s"), conf_find(b, "s")));
	ck_assert(!conf_server_runs_same(conf_find(a, "s"),
	    conf_find(b, "s")));
	copy = conf_server_dup(conf_find(a, "s"));
	ck_assert(conf_server_equal(copy, conf_find(a, "s")));
	ck_assert_str_eq(copy->sandbox.read[0], "/data");
	ck_assert_ptr_ne(copy->sandbox.read, conf_find(a, "s")->sandbox.read);
	conf_server_release(copy);
	conf_free(a);
	conf_free(b);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s = suite_create("sandbox");
	TCase	*tc = tcase_create("core");

	tcase_add_test(tc, test_unset_and_off);
	tcase_add_test(tc, test_default_profile);
	tcase_add_test(tc, test_browser_profile);
	tcase_add_test(tc, test_entry_env_wins);
	tcase_add_test(tc, test_runtime);
	tcase_add_test(tc, test_args);
	tcase_add_test(tc, test_implied_inside_denied_dropped);
	tcase_add_test(tc, test_split_home);
	tcase_add_test(tc, test_configured_denied);
	tcase_add_test(tc, test_merge_and_normalise);
	tcase_add_test(tc, test_network);
	tcase_add_test(tc, test_conf_profiles);
	tcase_add_test(tc, test_conf_object);
	tcase_add_test(tc, test_conf_defaults);
	tcase_add_test(tc, test_conf_errors);
	tcase_add_test(tc, test_conf_reload_compares);
	suite_add_tcase(s, tc);
	return (s);
}
