/*
 * test_conf.c -- unit tests for the configuration parser: both file
 * shapes, defaults, every diagnostic and its JSON path, ${VAR} expansion
 * and the unexpanded text kept for display, strings holding "\u0000",
 * refusal of unsafe files (modes; owners and directories when run as
 * root), server comparison for reload, and remote servers (url): the
 * VS Code, Claude Code and Cursor shapes, headers, oauth, their errors,
 * secrets kept out of diagnostics, the settings handed the worker, and
 * the "tools", "prompts" and "resources" filters.
 *
 * Test configs are written with single quotes, turned into double quotes
 * by cfg(), so that they stay readable.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <check.h>
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "filter.h"
#include "conf_http.h"
#include "unit.h"
#include "util.h"
#include "xmalloc.h"

#define SECRET	"sk-live-Zq81xSECRETx77"

static const char *test_env[][2] = {
	{ "HOME_DIR", "/home/ada" },
	{ "TOKEN", SECRET },
	{ "EMPTY", "" },
	{ "PORT", "8080" },
	{ "CRLF", "x\r\nInjected: 1" },
	{ NULL, NULL },
};

static const char *
test_getenv(const char *name, void *arg)
{
	size_t	 i;

	for (i = 0; test_env[i][0] != NULL; i++) {
		if (strcmp(test_env[i][0], name) == 0)
			return (test_env[i][1]);
	}
	return (NULL);
}

/* The config text with ' turned into ". */
static char *
cfg(const char *text)
{
	char	*s, *p;

	s = xstrdup(text);
	for (p = s; *p != '\0'; p++) {
		if (*p == '\'')
			*p = '"';
	}
	return (s);
}

static struct conf *
parse(const char *text, struct conf_diags *diags)
{
	struct conf	*conf;
	char		*json;

	conf_diags_init(diags);
	json = cfg(text);
	conf = conf_parse(json, strlen(json), test_getenv, NULL, diags);
	free(json);
	if (conf == NULL)
		ck_assert_uint_gt(diags->nerrors, 0);
	return (conf);
}

static const char *
all_diags(const struct conf_diags *diags)
{
	static char	 buf[8192];
	size_t		 i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < diags->n && len < sizeof buf; i++) {
		len += snprintf(buf + len, sizeof buf - len, "  %s: %s\n",
		    diags->v[i].level == CONF_ERROR ? "error" : "warning",
		    diags->v[i].text);
	}
	return (buf);
}

static int
has_diag(const struct conf_diags *diags, enum conf_level level,
    const char *text)
{
	size_t	 i;

	for (i = 0; i < diags->n; i++) {
		if (diags->v[i].level == level &&
		    strcmp(diags->v[i].text, text) == 0)
			return (1);
	}
	return (0);
}

#define assert_diag(d, level, text) \
	ck_assert_msg(has_diag(d, level, text), \
	    "expected diagnostic \"%s\"; got:\n%s", text, all_diags(d))

/* Parsing text fails with exactly one error, whose text is given. */
static void
expect_error(const char *text, const char *error)
{
	struct conf_diags	 d;
	struct conf		*conf;

	conf = parse(text, &d);
	ck_assert_ptr_null(conf);
	assert_diag(&d, CONF_ERROR, error);
	ck_assert_msg(d.nerrors == 1, "expected 1 error, got:\n%s",
	    all_diags(&d));
	conf_diags_free(&d);
}

/* Parsing a server object (text) fails with the given error. */
static void
expect_server_error(const char *server, const char *error)
{
	char	*text;

	xasprintf(&text, "{'mcpServers': {'x': %s}}", server);
	expect_error(text, error);
	free(text);
}

/* Parsing text succeeds with exactly one warning, whose text is given. */
static void
expect_warning(const char *text, const char *warning)
{
	struct conf_diags	 d;
	struct conf		*conf;

	conf = parse(text, &d);
	ck_assert_msg(conf != NULL, "unexpected errors:\n%s", all_diags(&d));
	assert_diag(&d, CONF_WARNING, warning);
	ck_assert_msg(d.n == 1, "expected 1 warning, got:\n%s",
	    all_diags(&d));
	conf_free(conf);
	conf_diags_free(&d);
}

/* Parse a config that must be valid and have no diagnostics at all. */
static struct conf *
parse_ok(const char *text)
{
	struct conf_diags	 d;
	struct conf		*conf;

	conf = parse(text, &d);
	ck_assert_msg(conf != NULL && d.n == 0, "unexpected diagnostics:\n%s",
	    all_diags(&d));
	conf_diags_free(&d);
	return (conf);
}

/* The HTTP front: loopback or a Unix socket, unless behind a proxy. */
START_TEST(test_http_front)
{
	struct conf	*conf;

	conf = parse_ok("{'mcpd': {'http': {'listen': ['127.0.0.1:8931', "
	    "'[::1]:8931', 'unix:/run/mcpd/http.sock'], 'allowed_hosts': "
	    "['mcp.example.com'], 'allowed_origins': ['https://app.example'], "
	    "'max_sessions': 8, 'max_sessions_per_token': 20}}}");
	ck_assert_ptr_nonnull(conf->http);
	ck_assert_uint_eq(conf->http->nlisten, 3);
	ck_assert_uint_eq(conf->http->max_sessions_per_token, 8);
	ck_assert(conf_http_host_allowed(conf->http, "127.0.0.1:8931"));
	ck_assert(conf_http_host_allowed(conf->http, "localhost:8931"));
	ck_assert(conf_http_host_allowed(conf->http, "[::1]:8931"));
	ck_assert(conf_http_host_allowed(conf->http, "mcp.example.com:443"));
	ck_assert(conf_http_host_allowed(conf->http, "localhost"));
	ck_assert(!conf_http_host_allowed(conf->http, "evil.example:8931"));
	ck_assert(!conf_http_host_allowed(conf->http, "127.0.0.1:8932"));
	ck_assert(!conf_http_host_allowed(conf->http, NULL));
	ck_assert(conf_http_origin_allowed(conf->http, "https://app.example"));
	ck_assert(!conf_http_origin_allowed(conf->http,
	    "https://app.example.evil"));
	conf_free(conf);

	expect_error("{'mcpd': {'http': {'listen': ['0.0.0.0:8931']}}}",
	    "mcpd.http.listen[0]: not a loopback address: mcpd speaks no "
	    "TLS; put a TLS-terminating reverse proxy in front and set "
	    "\"behind_proxy\": true");
	conf = parse_ok("{'mcpd': {'http': {'listen': ['0.0.0.0:8931'], "
	    "'behind_proxy': true}}}");
	conf_free(conf);
	expect_error("{'mcpd': {'http': {'listen': ['localhost:80']}}}",
	    "mcpd.http.listen[0]: expected a numeric IPv4 address (or "
	    "[IPv6]) before the port");
	expect_error("{'mcpd': {'http': {'listen': ['unix:rel.sock']}}}",
	    "mcpd.http.listen[0]: a unix: address takes an absolute path of "
	    "at most 107 bytes");
	expect_error("{'mcpd': {'http': {}}}",
	    "mcpd.http.listen: missing (where the front listens)");
	expect_error("{'mcpd': {'http': {'listen': ['127.0.0.1:8931'], "
	    "'allowed_origins': ['https://a/b']}}}",
	    "mcpd.http.allowed_origins[0]: expected an origin, "
	    "\"https://host[:port]\"");
}
END_TEST

/* A passed socket's address as a listen entry (spec; -1: refused family). */
static int
http_passed(const struct sockaddr *sa, size_t len,
    struct conf_http_listen *l, const char *spec)
{
	const char	*why = NULL;

	if (conf_http_listen_sockaddr(sa, len, l, &why) != 0) {
		ck_assert_ptr_nonnull(why);
		return (-1);
	}
	ck_assert(l->passed);
	ck_assert_str_eq(l->spec, spec);
	return (0);
}

/* Sockets systemd passes the front: their addresses, the same rules. */
START_TEST(test_http_passed)
{
	struct sockaddr_in	 sin;
	struct sockaddr_in6	 sin6;
	struct sockaddr_un	 sun;
	struct sockaddr		 other;
	struct conf_http_listen	 l;
	struct conf_diags	 d;
	struct conf_http	*h;
	struct conf		*conf;

	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons(8931);
	inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
	ck_assert_int_eq(http_passed((struct sockaddr *)&sin, sizeof sin, &l,
	    "127.0.0.1:8931"), 0);
	ck_assert(l.loopback);
	ck_assert_ptr_null(conf_http_listen_refused(NULL, &l));
	conf_http_listen_free(&l);
	inet_pton(AF_INET, "0.0.0.0", &sin.sin_addr);
	ck_assert_int_eq(http_passed((struct sockaddr *)&sin, sizeof sin, &l,
	    "0.0.0.0:8931"), 0);
	ck_assert(!l.loopback);
	ck_assert_ptr_nonnull(strstr(conf_http_listen_refused(NULL, &l),
	    "not a loopback address"));
	conf = parse_ok("{'mcpd': {'http': {'listen': ['127.0.0.1:1'], "
	    "'behind_proxy': true}}}");
	ck_assert_ptr_null(conf_http_listen_refused(conf->http, &l));
	conf_free(conf);
	conf_http_listen_free(&l);
	ck_assert_int_eq(http_passed((struct sockaddr *)&sin, 4, &l, ""), -1);

	memset(&sin6, 0, sizeof sin6);
	sin6.sin6_family = AF_INET6;
	sin6.sin6_port = htons(8932);
	sin6.sin6_addr = in6addr_loopback;
	ck_assert_int_eq(http_passed((struct sockaddr *)&sin6, sizeof sin6,
	    &l, "[::1]:8932"), 0);
	ck_assert(l.loopback);
	conf_http_listen_free(&l);

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	strcpy(sun.sun_path, "/run/mcpd/http.sock");
	ck_assert_int_eq(http_passed((struct sockaddr *)&sun, sizeof sun, &l,
	    "unix:/run/mcpd/http.sock"), 0);
	ck_assert_ptr_null(conf_http_listen_refused(NULL, &l));
	conf_http_listen_free(&l);
	memcpy(sun.sun_path, "\0mcpd", 5);
	ck_assert_int_eq(http_passed((struct sockaddr *)&sun,
	    offsetof(struct sockaddr_un, sun_path) + 5, &l, "unix:@mcpd"), 0);
	conf_http_listen_free(&l);
	memset(&other, 0, sizeof other);
	other.sa_family = AF_APPLETALK;
	ck_assert_int_eq(http_passed(&other, sizeof other, &l, ""), -1);

	/* Given sockets, the front needs no "listen"; else it does. */
	memset(&d, 0, sizeof d);
	ck_assert_ptr_null(conf_http_from_text("{}", 0, &d));
	conf_diags_free(&d);
	memset(&d, 0, sizeof d);
	h = conf_http_from_text("{}", 1, &d);
	ck_assert_ptr_nonnull(h);
	ck_assert_uint_eq(h->nlisten, 0);
	ck_assert_uint_eq(h->max_sessions, CONF_HTTP_DEFAULT_MAX_SESSIONS);
	ck_assert(!conf_http_host_allowed(h, "127.0.0.1:8931"));
	inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
	ck_assert_int_eq(http_passed((struct sockaddr *)&sin, sizeof sin, &l,
	    "127.0.0.1:8931"), 0);
	conf_http_listen_add(h, &l);
	ck_assert_uint_eq(h->nlisten, 1);
	ck_assert(conf_http_host_allowed(h, "127.0.0.1:8931"));
	ck_assert(conf_http_host_allowed(h, "localhost:8931"));
	conf_http_free(h);
	conf_diags_free(&d);

	/* An address of "listen" equal to a passed one, however spelled. */
	conf = parse_ok("{'mcpd': {'http': {'listen': ['127.0.0.1:8931', "
	    "'[0::1]:8932', 'unix:/run/mcpd/http.sock', '127.0.0.2:8931']}}}");
	ck_assert_int_eq(http_passed((struct sockaddr *)&sin, sizeof sin, &l,
	    "127.0.0.1:8931"), 0);
	ck_assert(conf_http_listen_same(&conf->http->listen[0], &l));
	ck_assert(!conf_http_listen_same(&conf->http->listen[1], &l));
	ck_assert(!conf_http_listen_same(&conf->http->listen[2], &l));
	ck_assert(!conf_http_listen_same(&conf->http->listen[3], &l));
	conf_http_listen_free(&l);
	ck_assert_int_eq(http_passed((struct sockaddr *)&sin6, sizeof sin6,
	    &l, "[::1]:8932"), 0);
	ck_assert(conf_http_listen_same(&conf->http->listen[1], &l));
	ck_assert(!conf_http_listen_same(&conf->http->listen[0], &l));
	conf_http_listen_free(&l);
	strcpy(sun.sun_path, "/run/mcpd/http.sock");
	ck_assert_int_eq(http_passed((struct sockaddr *)&sun, sizeof sun, &l,
	    "unix:/run/mcpd/http.sock"), 0);
	ck_assert(conf_http_listen_same(&conf->http->listen[2], &l));
	ck_assert(!conf_http_listen_same(&conf->http->listen[0], &l));
	conf_http_listen_free(&l);
	conf_free(conf);
}
END_TEST

/* The expansion of one arg, or NULL when it fails (error in *error). */
static char *
expand_arg(const char *arg, char **error)
{
	struct conf_diags	 d;
	struct conf		*conf;
	char			*text, *out = NULL;

	*error = NULL;
	xasprintf(&text, "{'mcpServers': {'x': {'command': 'c', "
	    "'args': ['%s']}}}", arg);
	conf = parse(text, &d);
	free(text);
	if (conf != NULL) {
		ck_assert_uint_eq(conf->servers[0].argc, 2);
		out = xstrdup(conf->servers[0].argv[1]);
	} else {
		ck_assert_uint_eq(d.nerrors, 1);
		*error = xstrdup(d.v[0].text);
	}
	conf_free(conf);
	conf_diags_free(&d);
	return (out);
}

static void
check_defaults(const struct conf_server *cs)
{
	ck_assert_int_eq(cs->restart, CONF_RESTART_ALWAYS);
	ck_assert_uint_eq(cs->backoff.min_ms, CONF_DEFAULT_BACKOFF_MIN_MS);
	ck_assert_uint_eq(cs->backoff.max_ms, CONF_DEFAULT_BACKOFF_MAX_MS);
	ck_assert_double_eq(cs->backoff.jitter, CONF_DEFAULT_BACKOFF_JITTER);
	ck_assert_uint_eq(cs->backoff.reset_ms, CONF_DEFAULT_BACKOFF_RESET_MS);
	ck_assert_uint_eq(cs->backoff.max_restarts, CONF_DEFAULT_MAX_RESTARTS);
	ck_assert_uint_eq(cs->backoff.restart_window_s,
	    CONF_DEFAULT_RESTART_WINDOW_S);
	ck_assert_uint_eq(cs->init_timeout_ms, CONF_DEFAULT_INIT_TIMEOUT_MS);
	ck_assert_uint_eq(cs->first_start_timeout_ms,
	    CONF_DEFAULT_FIRST_START_TIMEOUT_MS);
	ck_assert_uint_eq(cs->request_timeout_ms,
	    CONF_DEFAULT_REQUEST_TIMEOUT_MS);
	ck_assert_uint_eq(cs->stop_timeout_ms, CONF_DEFAULT_STOP_TIMEOUT_MS);
	ck_assert_uint_eq(cs->max_message_bytes,
	    CONF_DEFAULT_MAX_MESSAGE_BYTES);
	ck_assert_int_eq(cs->disabled, 0);
	ck_assert_int_eq(cs->start, CONF_START_ALWAYS);
	ck_assert_uint_eq(cs->idle_stop_s, 0);
}

START_TEST(test_mcpservers_shape)
{
	struct conf			*conf;
	const struct conf_server	*cs;

	conf = parse_ok("{'mcpServers': {'github': {"
	    "'command': 'npx', 'args': ['-y', 'server-github', '--port', '9'],"
	    "'env': {'GITHUB_TOKEN': 'abc', 'LOG': 'debug'},"
	    "'cwd': '/srv/github',"
	    "'restart': 'on-failure', 'backoff_min_ms': 200,"
	    "'backoff_max_ms': 5000, 'backoff_jitter': 0.5,"
	    "'backoff_reset_ms': 0, 'max_restarts': 5,"
	    "'restart_window_s': 30, 'init_timeout_ms': 1500,"
	    "'request_timeout_ms': 2500, 'stop_timeout_ms': 700,"
	    "'max_message_bytes': 1024, 'disabled': true}}}");
	ck_assert_ptr_null(conf->file);
	ck_assert_uint_eq(conf->nservers, 1);
	cs = &conf->servers[0];
	ck_assert_str_eq(cs->name, "github");
	ck_assert_str_eq(cs->path, "mcpServers.github");
	ck_assert_uint_eq(cs->argc, 5);
	ck_assert_str_eq(cs->argv[0], "npx");
	ck_assert_str_eq(cs->argv[1], "-y");
	ck_assert_str_eq(cs->argv[2], "server-github");
	ck_assert_str_eq(cs->argv[3], "--port");
	ck_assert_str_eq(cs->argv[4], "9");
	ck_assert_ptr_null(cs->argv[5]);
	ck_assert_uint_eq(cs->envc, 2);
	ck_assert_str_eq(cs->env[0], "GITHUB_TOKEN=abc");
	ck_assert_str_eq(cs->env[1], "LOG=debug");
	ck_assert_ptr_null(cs->env[2]);
	ck_assert_str_eq(cs->cwd, "/srv/github");
	ck_assert_int_eq(cs->restart, CONF_RESTART_ON_FAILURE);
	ck_assert_uint_eq(cs->backoff.min_ms, 200);
	ck_assert_uint_eq(cs->backoff.max_ms, 5000);
	ck_assert_double_eq(cs->backoff.jitter, 0.5);
	ck_assert_uint_eq(cs->backoff.reset_ms, 0);
	ck_assert_uint_eq(cs->backoff.max_restarts, 5);
	ck_assert_uint_eq(cs->backoff.restart_window_s, 30);
	ck_assert_uint_eq(cs->init_timeout_ms, 1500);
	ck_assert_uint_eq(cs->request_timeout_ms, 2500);
	ck_assert_uint_eq(cs->stop_timeout_ms, 700);
	ck_assert_uint_eq(cs->max_message_bytes, 1024);
	ck_assert_int_eq(cs->disabled, 1);
	ck_assert_ptr_eq(conf_find(conf, "github"), cs);
	ck_assert_ptr_null(conf_find(conf, "GitHub"));
	conf_free(conf);
}
END_TEST

START_TEST(test_servers_shape)
{
	struct conf			*conf;
	const struct conf_server	*cs;

	conf = parse_ok("{'inputs': [{'id': 'k', 'type': 'promptString'}],"
	    "'servers': {"
	    "'fs': {'type': 'stdio', 'command': 'mcp-fs', 'args': ['/data'],"
	    "  'env': {'A': '1'}, 'cwd': '/tmp', 'restart': 'never'},"
	    "'git.v2': {'command': 'uvx', 'args': []}}}");
	ck_assert_uint_eq(conf->nservers, 2);
	cs = conf_find(conf, "fs");
	ck_assert_ptr_nonnull(cs);
	ck_assert_str_eq(cs->path, "servers.fs");
	ck_assert_uint_eq(cs->argc, 2);
	ck_assert_str_eq(cs->argv[0], "mcp-fs");
	ck_assert_str_eq(cs->argv[1], "/data");
	ck_assert_ptr_null(cs->argv[2]);
	ck_assert_uint_eq(cs->envc, 1);
	ck_assert_str_eq(cs->env[0], "A=1");
	ck_assert_str_eq(cs->cwd, "/tmp");
	ck_assert_int_eq(cs->restart, CONF_RESTART_NEVER);
	cs = &conf->servers[1];
	ck_assert_str_eq(cs->name, "git.v2");
	ck_assert_str_eq(cs->path, "servers.git.v2");
	ck_assert_uint_eq(cs->argc, 1);
	ck_assert_str_eq(cs->argv[0], "uvx");
	ck_assert_ptr_null(cs->argv[1]);
	conf_free(conf);
}
END_TEST

START_TEST(test_both_shapes_in_file_order)
{
	struct conf	*conf;

	conf = parse_ok("{'servers': {'b': {'command': 'b'}},"
	    "'mcpServers': {'a': {'command': 'a'}, 'c': {'command': 'c'}}}");
	ck_assert_uint_eq(conf->nservers, 3);
	ck_assert_str_eq(conf->servers[0].path, "servers.b");
	ck_assert_str_eq(conf->servers[1].path, "mcpServers.a");
	ck_assert_str_eq(conf->servers[2].path, "mcpServers.c");
	conf_free(conf);
}
END_TEST

START_TEST(test_defaults)
{
	struct conf			*conf;
	const struct conf_server	*cs;

	conf = parse_ok("{'mcpServers': {'x': {'command': 'srv'}}}");
	ck_assert_uint_eq(conf->nservers, 1);
	cs = &conf->servers[0];
	ck_assert_uint_eq(cs->argc, 1);
	ck_assert_ptr_null(cs->argv[1]);
	ck_assert_uint_eq(cs->envc, 0);
	ck_assert_ptr_nonnull(cs->env);
	ck_assert_ptr_null(cs->env[0]);
	ck_assert_ptr_null(cs->cwd);
	check_defaults(cs);
	conf_free(conf);
}
END_TEST

START_TEST(test_empty_config)
{
	struct conf	*conf;

	conf = parse_ok("{}");
	ck_assert_uint_eq(conf->nservers, 0);
	conf_free(conf);
	conf = parse_ok("{'mcpServers': {}, 'servers': {}, 'mcpd': {}}");
	ck_assert_uint_eq(conf->nservers, 0);
	ck_assert_ptr_null(conf_find(conf, "x"));
	conf_free(conf);
}
END_TEST

START_TEST(test_mcpd_defaults)
{
	struct conf			*conf;
	const struct conf_server	*a, *b;

	/* "mcpd" after the servers still applies to them. */
	conf = parse_ok("{'mcpServers': {"
	    "'a': {'command': 'a'},"
	    "'b': {'command': 'b', 'restart': 'always', 'backoff_min_ms': 10,"
	    "  'init_timeout_ms': 99, 'disabled': false,"
	    "  'max_message_bytes': 4096}},"
	    "'mcpd': {'restart': 'on-failure', 'backoff_min_ms': 500,"
	    "  'backoff_max_ms': 8000, 'backoff_jitter': 0,"
	    "  'backoff_reset_ms': 20000, 'max_restarts': 3,"
	    "  'restart_window_s': 120, 'init_timeout_ms': 111,"
	    "  'request_timeout_ms': 222, 'stop_timeout_ms': 333,"
	    "  'max_message_bytes': 2048, 'disabled': true}}");
	a = conf_find(conf, "a");
	b = conf_find(conf, "b");
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(a->restart, CONF_RESTART_ON_FAILURE);
	ck_assert_uint_eq(a->backoff.min_ms, 500);
	ck_assert_uint_eq(a->backoff.max_ms, 8000);
	ck_assert_double_eq(a->backoff.jitter, 0);
	ck_assert_uint_eq(a->backoff.reset_ms, 20000);
	ck_assert_uint_eq(a->backoff.max_restarts, 3);
	ck_assert_uint_eq(a->backoff.restart_window_s, 120);
	ck_assert_uint_eq(a->init_timeout_ms, 111);
	ck_assert_uint_eq(a->request_timeout_ms, 222);
	ck_assert_uint_eq(a->stop_timeout_ms, 333);
	ck_assert_uint_eq(a->max_message_bytes, 2048);
	ck_assert_int_eq(a->disabled, 1);
	/* b overrides some and inherits the rest. */
	ck_assert_int_eq(b->restart, CONF_RESTART_ALWAYS);
	ck_assert_uint_eq(b->backoff.min_ms, 10);
	ck_assert_uint_eq(b->backoff.max_ms, 8000);
	ck_assert_uint_eq(b->init_timeout_ms, 99);
	ck_assert_uint_eq(b->request_timeout_ms, 222);
	ck_assert_uint_eq(b->max_message_bytes, 4096);
	ck_assert_int_eq(b->disabled, 0);
	conf_free(conf);
}
END_TEST

START_TEST(test_settings_limits_accepted)
{
	struct conf			*conf;
	const struct conf_server	*cs;

	conf = parse_ok("{'mcpServers': {'x': {'command': 'c',"
	    "'backoff_min_ms': 1, 'backoff_max_ms': 4294967295,"
	    "'backoff_jitter': 1, 'max_restarts': 10000,"
	    "'restart_window_s': 1, 'init_timeout_ms': 1.0,"
	    "'request_timeout_ms': 4294967295, 'stop_timeout_ms': 1e3,"
	    "'max_message_bytes': 1073741824}}}");
	cs = &conf->servers[0];
	ck_assert_uint_eq(cs->backoff.min_ms, 1);
	ck_assert_uint_eq(cs->backoff.max_ms, UINT32_MAX);
	ck_assert_double_eq(cs->backoff.jitter, 1);
	ck_assert_uint_eq(cs->backoff.max_restarts, CONF_MAX_MAX_RESTARTS);
	ck_assert_uint_eq(cs->init_timeout_ms, 1);
	ck_assert_uint_eq(cs->request_timeout_ms, UINT32_MAX);
	ck_assert_uint_eq(cs->stop_timeout_ms, 1000);
	ck_assert_uint_eq(cs->max_message_bytes, CONF_MAX_MAX_MESSAGE_BYTES);
	conf_free(conf);
}
END_TEST

/*
 * "start" and "idle_stop_s": per server, or for every server from "mcpd";
 * a server's own value wins.
 */
START_TEST(test_start_and_idle_stop)
{
	struct conf			*conf;
	const struct conf_server	*a, *b, *c;

	conf = parse_ok("{'mcpServers': {"
	    "'a': {'command': 'a'},"
	    "'b': {'command': 'b', 'start': 'always', 'idle_stop_s': 0},"
	    "'c': {'command': 'c', 'idle_stop_s': 31536000}},"
	    "'mcpd': {'start': 'on-demand', 'idle_stop_s': 300}}");
	a = conf_find(conf, "a");
	b = conf_find(conf, "b");
	c = conf_find(conf, "c");
	ck_assert_int_eq(a->start, CONF_START_ON_DEMAND);
	ck_assert_uint_eq(a->idle_stop_s, 300);
	ck_assert_int_eq(b->start, CONF_START_ALWAYS);
	ck_assert_uint_eq(b->idle_stop_s, 0);
	ck_assert_int_eq(c->start, CONF_START_ON_DEMAND);
	ck_assert_uint_eq(c->idle_stop_s, CONF_MAX_IDLE_STOP_S);
	conf_free(conf);

	/* A remote server takes them too. */
	conf = parse_ok("{'mcpServers': {'r': {'url': 'https://h.example/m',"
	    "'start': 'on-demand', 'idle_stop_s': 1}}}");
	ck_assert_int_eq(conf->servers[0].start, CONF_START_ON_DEMAND);
	ck_assert_uint_eq(conf->servers[0].idle_stop_s, 1);
	conf_free(conf);

	ck_assert_str_eq(conf_start_name(CONF_START_ALWAYS), "always");
	ck_assert_str_eq(conf_start_name(CONF_START_ON_DEMAND), "on-demand");
	ck_assert_str_eq(conf_start_name((enum conf_start)7), "unknown");
}
END_TEST

START_TEST(test_start_and_idle_stop_errors)
{
	const char	*start = "mcpServers.x.start: expected \"always\" or "
			    "\"on-demand\"";
	const char	*idle = "mcpServers.x.idle_stop_s: expected an "
			    "integer between 0 and 31536000";

	expect_server_error("{'command': 'c', 'start': 'lazy'}", start);
	expect_server_error("{'command': 'c', 'start': 'On-Demand'}", start);
	expect_server_error("{'command': 'c', 'start': 'on_demand'}", start);
	expect_server_error("{'command': 'c', 'start': true}", start);
	expect_server_error("{'command': 'c', 'start': null}", start);
	expect_server_error("{'command': 'c', 'start': ''}", start);
	expect_server_error("{'command': 'c', 'idle_stop_s': -1}", idle);
	expect_server_error("{'command': 'c', 'idle_stop_s': 1.5}", idle);
	expect_server_error("{'command': 'c', 'idle_stop_s': '60'}", idle);
	expect_server_error("{'command': 'c', 'idle_stop_s': 31536001}",
	    idle);
	expect_server_error("{'command': 'c', 'idle_stop_s': null}", idle);
	expect_error("{'mcpd': {'start': 'never'}}",
	    "mcpd.start: expected \"always\" or \"on-demand\"");
	expect_error("{'mcpd': {'idle_stop_s': 1e12}}",
	    "mcpd.idle_stop_s: expected an integer between 0 and 31536000");
}
END_TEST

/*
 * "protocol": per server or from "mcpd", auto by default; a change
 * restarts the server.
 */
START_TEST(test_protocol)
{
	struct conf	*conf, *other;
	const char	*err = "mcpServers.x.protocol: expected \"auto\", "
			    "\"2025\" or \"2026-07-28\"";

	conf = parse_ok("{'mcpServers': {'a': {'command': 'a'},"
	    "'b': {'command': 'b', 'protocol': '2026-07-28'},"
	    "'c': {'command': 'c', 'protocol': '2025'}}}");
	ck_assert_int_eq(conf_find(conf, "a")->protocol, CONF_PROTOCOL_AUTO);
	ck_assert_int_eq(conf_find(conf, "b")->protocol, CONF_PROTOCOL_2026);
	ck_assert_int_eq(conf_find(conf, "c")->protocol, CONF_PROTOCOL_2025);
	other = parse_ok("{'mcpd': {'protocol': '2025'}, 'mcpServers': {"
	    "'a': {'command': 'a'}, 'b': {'command': 'b', 'protocol': "
	    "'2026-07-28'}, 'c': {'command': 'c'}}}");
	ck_assert_int_eq(conf_find(other, "a")->protocol, CONF_PROTOCOL_2025);
	ck_assert(!conf_server_equal(conf_find(conf, "a"),
	    conf_find(other, "a")));
	ck_assert(conf_server_equal(conf_find(conf, "b"),
	    conf_find(other, "b")));
	conf_free(other);
	conf_free(conf);
	ck_assert_str_eq(conf_protocol_name(CONF_PROTOCOL_2026), "2026-07-28");
	ck_assert_str_eq(conf_protocol_name((enum conf_protocol)9), "unknown");

	expect_server_error("{'command': 'c', 'protocol': '2026'}", err);
	expect_server_error("{'command': 'c', 'protocol': 'legacy'}", err);
	expect_server_error("{'command': 'c', 'protocol': 2025}", err);
	expect_server_error("{'command': 'c', 'protocol': null}", err);
}
END_TEST

/*
 * "audit": per server or from "mcpd", off by default; a change of it
 * restarts nothing (each call reads it).
 */
START_TEST(test_audit)
{
	struct conf	*conf, *other;
	const char	*err = "mcpServers.x.audit: expected \"off\", "
			    "\"calls\" or \"full\"";

	conf = parse_ok("{'mcpServers': {'a': {'command': 'a'},"
	    "'b': {'command': 'b', 'audit': 'full'}}}");
	ck_assert_int_eq(conf_find(conf, "a")->audit, CONF_AUDIT_OFF);
	ck_assert_int_eq(conf_find(conf, "b")->audit, CONF_AUDIT_FULL);
	other = parse_ok("{'mcpd': {'audit': 'calls'}, 'mcpServers': {"
	    "'a': {'command': 'a'}, 'b': {'command': 'b', 'audit': 'off'}}}");
	ck_assert_int_eq(conf_find(other, "a")->audit, CONF_AUDIT_CALLS);
	ck_assert_int_eq(conf_find(other, "b")->audit, CONF_AUDIT_OFF);
	ck_assert(!conf_server_equal(conf_find(conf, "a"),
	    conf_find(other, "a")));
	ck_assert(conf_server_runs_same(conf_find(conf, "a"),
	    conf_find(other, "a")));
	conf_free(other);
	conf_free(conf);
	ck_assert_str_eq(conf_audit_name(CONF_AUDIT_CALLS), "calls");
	ck_assert_str_eq(conf_audit_name((enum conf_audit)9), "unknown");
	expect_server_error("{'command': 'c', 'audit': 'on'}", err);
	expect_server_error("{'command': 'c', 'audit': true}", err);
	expect_server_error("{'command': 'c', 'audit': null}", err);
}
END_TEST

/*
 * first_start_timeout_ms: a server's or everyone's; a change of it alone
 * restarts nothing (only the next start has it).
 */
START_TEST(test_first_start_timeout)
{
	struct conf	*conf, *other;

	conf = parse_ok("{'mcpd': {'first_start_timeout_ms': 600000},"
	    "'mcpServers': {'a': {'command': 'a'},"
	    "'b': {'command': 'b', 'first_start_timeout_ms': 1}}}");
	ck_assert_uint_eq(conf_find(conf, "a")->first_start_timeout_ms, 600000);
	ck_assert_uint_eq(conf_find(conf, "b")->first_start_timeout_ms, 1);
	other = parse_ok("{'mcpServers': {'a': {'command': 'a'},"
	    "'b': {'command': 'b', 'first_start_timeout_ms': 1}}}");
	ck_assert(conf_server_runs_same(conf_find(conf, "a"),
	    conf_find(other, "a")));
	ck_assert(!conf_server_equal(conf_find(conf, "a"),
	    conf_find(other, "a")));
	ck_assert(conf_server_equal(conf_find(conf, "b"),
	    conf_find(other, "b")));
	conf_free(other);
	conf_free(conf);
	expect_server_error("{'command': 'c', 'first_start_timeout_ms': 0}",
	    "mcpServers.x.first_start_timeout_ms: expected an integer between "
	    "1 and 4294967295");
	expect_error("{'mcpd': {'first_start_timeout_ms': '5m'}}",
	    "mcpd.first_start_timeout_ms: expected an integer between 1 and "
	    "4294967295");
}
END_TEST

/*
 * socket_group: a group of this system; like every string value, the
 * name is not repeated in the diagnostic (it may hold any bytes).
 */
START_TEST(test_socket_group)
{
	struct conf	*conf;

	conf = parse_ok("{'mcpd': {'socket_group': 'root'}}");
	ck_assert_str_eq(conf->socket_group, "root");
	ck_assert_uint_eq(conf->socket_gid, 0);
	conf_free(conf);
	expect_error("{'mcpd': {'socket_group': 'no-such-group-\\u001b[2J'}}",
	    "mcpd.socket_group: no such group on this system");
	expect_error("{'mcpd': {'socket_group': ''}}",
	    "mcpd.socket_group: expected a group name");
	expect_error("{'mcpd': {'socket_group': 0}}",
	    "mcpd.socket_group: expected a group name");
}
END_TEST

/*
 * "share", "max_instances", "max_instances_per_uid" and "member_roots":
 * how clients share a server, the caps on the instances of one that is
 * not shared globally, and where its other users' roots may lie.
 */
START_TEST(test_share)
{
	struct conf			*conf, *other;
	const struct conf_server	*a, *b, *c;

	conf = parse_ok("{'mcpServers': {"
	    "'a': {'command': 'a'},"
	    "'b': {'command': 'b', 'share': 'per-client'},"
	    "'c': {'command': 'c', 'share': 'per-roots', 'max_instances': 3,"
	    "'roots': ['/w']}}}");
	a = conf_find(conf, "a");
	b = conf_find(conf, "b");
	c = conf_find(conf, "c");
	ck_assert_int_eq(a->share, CONF_SHARE_GLOBAL);
	ck_assert_uint_eq(a->max_instances, 0);
	ck_assert_uint_eq(a->max_instances_per_uid, 0);
	ck_assert_uint_eq(a->nmember_roots, 0);
	ck_assert_ptr_null(a->member_roots[0]);
	ck_assert_int_eq(b->share, CONF_SHARE_PER_CLIENT);
	ck_assert_uint_eq(b->max_instances, CONF_DEFAULT_MAX_INSTANCES);
	/* A quarter of max_instances, rounded up. */
	ck_assert_uint_eq(b->max_instances_per_uid, 4);
	ck_assert_int_eq(c->share, CONF_SHARE_PER_ROOTS);
	ck_assert_uint_eq(c->max_instances, 3);
	ck_assert_uint_eq(c->max_instances_per_uid, 1);
	ck_assert_str_eq(conf_share_name(CONF_SHARE_PER_ROOTS), "per-roots");
	ck_assert_str_eq(conf_share_name((enum conf_share)9), "unknown");

	/* Another share is another server; another cap restarts nothing. */
	other = parse_ok("{'mcpServers': {"
	    "'a': {'command': 'a', 'share': 'per-client'},"
	    "'b': {'command': 'b', 'share': 'per-client', 'max_instances': 9},"
	    "'c': {'command': 'c', 'share': 'per-roots', 'max_instances': 3,"
	    "'roots': ['/w']}}}");
	ck_assert(!conf_server_runs_same(a, conf_find(other, "a")));
	ck_assert(conf_server_runs_same(b, conf_find(other, "b")));
	ck_assert(!conf_server_equal(b, conf_find(other, "b")));
	ck_assert(conf_server_equal(c, conf_find(other, "c")));
	conf_free(other);

	/* The caps and member_roots change nothing that runs. */
	other = parse_ok("{'mcpServers': {"
	    "'a': {'command': 'a'},"
	    "'b': {'command': 'b', 'share': 'per-client',"
	    "'max_instances_per_uid': 16},"
	    "'c': {'command': 'c', 'share': 'per-roots', 'max_instances': 3,"
	    "'roots': ['/w'], 'member_roots': ['/srv/a b', 'file:///p']}}}");
	ck_assert_uint_eq(conf_find(other, "b")->max_instances_per_uid, 16);
	ck_assert_uint_eq(conf_find(other, "c")->nmember_roots, 2);
	ck_assert_str_eq(conf_find(other, "c")->member_roots[0],
	    "file:///srv/a%20b");
	ck_assert_str_eq(conf_find(other, "c")->member_roots[1], "file:///p");
	ck_assert_ptr_null(conf_find(other, "c")->member_roots[2]);
	ck_assert(conf_server_runs_same(b, conf_find(other, "b")));
	ck_assert(!conf_server_equal(b, conf_find(other, "b")));
	ck_assert(conf_server_runs_same(c, conf_find(other, "c")));
	ck_assert(!conf_server_equal(c, conf_find(other, "c")));
	conf_free(conf);
	conf = other;
	c = conf_find(conf, "c");
	other = parse_ok("{'mcpServers': {"
	    "'c': {'command': 'c', 'share': 'per-roots', 'max_instances': 3,"
	    "'roots': ['/w'], 'member_roots': ['file:///p', '/srv/a b']}}}");
	ck_assert(conf_server_equal(c, conf_find(other, "c")));
	conf_free(other);
	conf_free(conf);
}
END_TEST

START_TEST(test_share_errors)
{
	const char	*share = "mcpServers.x.share: expected \"global\", "
			    "\"per-client\" or \"per-roots\"";
	const char	*max = "mcpServers.x.max_instances: expected a whole "
			    "number from 1 to 1024";

	expect_server_error("{'command': 'c', 'share': 'per-user'}", share);
	expect_server_error("{'command': 'c', 'share': 'Per-Client'}", share);
	expect_server_error("{'command': 'c', 'share': true}", share);
	expect_server_error("{'command': 'c', 'share': null}", share);
	expect_server_error("{'command': 'c', 'share': 'per-client', "
	    "'max_instances': 0}", max);
	expect_server_error("{'command': 'c', 'share': 'per-client', "
	    "'max_instances': 1025}", max);
	expect_server_error("{'command': 'c', 'share': 'per-client', "
	    "'max_instances': 2.5}", max);
	expect_server_error("{'command': 'c', 'share': 'per-client', "
	    "'max_instances': '4'}", max);
	expect_server_error("{'command': 'c', 'roots': ['file:///a\\nb']}",
	    "mcpServers.x.roots[0]: a file:// URI must not hold a control "
	    "character (percent-encode it)");
	expect_server_error("{'command': 'c', 'max_instances': 4}",
	    "mcpServers.x.max_instances: only for a server whose share is "
	    "\"per-client\" or \"per-roots\"");
	expect_server_error("{'command': 'c', 'max_instances_per_uid': 4}",
	    "mcpServers.x.max_instances_per_uid: only for a server whose "
	    "share is \"per-client\" or \"per-roots\"");
	expect_server_error("{'command': 'c', 'member_roots': ['/p']}",
	    "mcpServers.x.member_roots: only for a server whose share is "
	    "\"per-client\" or \"per-roots\"");
	expect_server_error("{'command': 'c', 'share': 'per-client', "
	    "'max_instances': 4, 'max_instances_per_uid': 5}",
	    "mcpServers.x.max_instances_per_uid: more than max_instances (4)");
	expect_server_error("{'command': 'c', 'share': 'per-client', "
	    "'max_instances_per_uid': 0}", "mcpServers.x.max_instances_per_uid: "
	    "expected a whole number from 1 to 1024");
	expect_server_error("{'command': 'c', 'share': 'per-roots', "
	    "'member_roots': ['p']}", "mcpServers.x.member_roots[0]: expected "
	    "an absolute path or a file:// URI");
	expect_server_error("{'command': 'c', 'share': 'per-roots', "
	    "'member_roots': '/p'}", "mcpServers.x.member_roots: expected an "
	    "array of absolute paths or file:// URIs");
}
END_TEST

START_TEST(test_top_level_not_object)
{
	expect_error("[]", "<config>: the top level must be a JSON object");
	expect_error("'mcpServers'",
	    "<config>: the top level must be a JSON object");
	expect_error("null", "<config>: the top level must be a JSON object");
}
END_TEST

START_TEST(test_json_syntax_error)
{
	expect_error("{\n  'mcpServers': {\n    'x': {'a': ,}\n  }\n}",
	    "<config>: line 3, column 16: invalid JSON");
	expect_error("", "<config>: line 1, column 1: invalid JSON");
	expect_error("{'a': 1", "<config>: line 1, column 8: invalid JSON");
	/* Trailing garbage after the object. */
	expect_error("{}\n\n  x", "<config>: line 3, column 3: invalid JSON");
}
END_TEST

START_TEST(test_json_embedded_nul)
{
	struct conf_diags	 d;
	struct conf		*conf;

	conf_diags_init(&d);
	conf = conf_parse("{}\0{}", 5, test_getenv, NULL, &d);
	ck_assert_ptr_null(conf);
	assert_diag(&d, CONF_ERROR, "<config>: line 1, column 3: invalid JSON");
	conf_diags_free(&d);

	/* Not NUL-terminated input is fine: only len bytes are read. */
	conf = conf_parse("{}}}}", 2, test_getenv, NULL, &d);
	ck_assert_ptr_nonnull(conf);
	ck_assert_uint_eq(d.n, 0);
	conf_free(conf);
	conf_diags_free(&d);
}
END_TEST

/* "\u0000" in any string or key is an error at its path, and the only one. */
START_TEST(test_nul_refused)
{
	struct {
		const char	*text;
		const char	*error;
	} bad[] = {
		{ "{'mcpServers': {'x': {'command': 'c', "
		    "'args': ['a', 'b\\u0000c']}}}",
		  "mcpServers.x.args[1]: contains a NUL character (\\u0000)" },
		{ "{'mcpServers': {'x': {'command': '/bin/ls\\u0000 -la'}}}",
		  "mcpServers.x.command: contains a NUL character (\\u0000)" },
		{ "{'mcpServers': {'x': {'command': 'c', "
		    "'env': {'K': '\\u0000'}}}}",
		  "mcpServers.x.env.K: contains a NUL character (\\u0000)" },
		{ "{'mcpServers': {'x': {'command': 'c', "
		    "'env': {'K\\u0000X': 'v'}}}}",
		  "mcpServers.x.env.K: key contains a NUL character "
		    "(\\u0000)" },
		{ "{'servers': {'x\\u0000y': {'command': 'c'}}}",
		  "servers.x: key contains a NUL character (\\u0000)" },
		{ "{'mcpServers': {'x': {'command': 'c', "
		    "'cwd': '/srv\\u0000/x'}}}",
		  "mcpServers.x.cwd: contains a NUL character (\\u0000)" },
		{ "{'mcpd': {'restart': 'never\\u0000'}}",
		  "mcpd.restart: contains a NUL character (\\u0000)" },
		{ "{'inputs': [{'id': 'k'}, {'id': 'x\\u0000'}]}",
		  "inputs[1].id: contains a NUL character (\\u0000)" },
		/* cJSON decodes a "\u" without four hex digits as 0. */
		{ "{'mcpServers': {'x': {'command': '/bin/ls\\u0zzz -la'}}}",
		  "mcpServers.x.command: contains a NUL character (\\u0000)" },
		{ "{'mcpServers': {'x': {'command': 'c', "
		    "'args': ['a\\u0\\u0000']}}}",
		  "mcpServers.x.args[0]: contains a NUL character (\\u0000)" },
		{ "{'mcpServers': {'x': {'command': 'c', "
		    "'args': ['a\\u000\\\\']}}}",
		  "mcpServers.x.args[0]: contains a NUL character (\\u0000)" },
		/* Below an empty key, the path still shows the level. */
		{ "{'': {'a\\u0000': 1}}",
		  ".a: key contains a NUL character (\\u0000)" },
		/* Refused first: a truncated string would only mislead. */
		{ "{'mcpServers': {'x': {'args': ['\\u0000'], "
		    "'restart': 'no'}}}",
		  "mcpServers.x.args[0]: contains a NUL character (\\u0000)" },
	};
	struct conf_diags	 d;
	struct conf		*conf;
	size_t			 i;

	for (i = 0; i < nitems(bad); i++) {
		conf = parse(bad[i].text, &d);
		ck_assert_msg(conf == NULL, "accepted: %s", bad[i].text);
		assert_diag(&d, CONF_ERROR, bad[i].error);
		ck_assert_msg(d.n == 1, "%s: expected 1 error, got:\n%s",
		    bad[i].text, all_diags(&d));
		conf_diags_free(&d);
	}

	/* Beside a top level that is no object, with no path to name. */
	conf = parse("['contains a NUL character (\\u0000)']", &d);
	ck_assert_ptr_null(conf);
	ck_assert_uint_eq(d.nerrors, 2);
	assert_diag(&d, CONF_ERROR, "<config>: the top level must be a JSON "
	    "object");
	assert_diag(&d, CONF_ERROR, "<config>: a string contains a NUL "
	    "character (\\u0000)");
	conf_diags_free(&d);

	/* Every one is named. */
	conf = parse("{'mcpServers': {'x': {'command': 'c\\u0000', "
	    "'args': ['ok', '\\u0000\\u0000', 'ok']}}}", &d);
	ck_assert_ptr_null(conf);
	ck_assert_uint_eq(d.nerrors, 2);
	assert_diag(&d, CONF_ERROR, "mcpServers.x.command: contains a NUL "
	    "character (\\u0000)");
	assert_diag(&d, CONF_ERROR, "mcpServers.x.args[1]: contains a NUL "
	    "character (\\u0000)");
	conf_diags_free(&d);
}
END_TEST

/* What only looks like "\u0000" is no NUL. */
START_TEST(test_nul_lookalikes)
{
	struct conf	*conf;

	conf = parse_ok("{'mcpServers': {'x': {'command': 'c', "
	    "'args': ['\\\\u0000', '\\u0001', 'u0000', '\\\\', "
	    "'a\\'b\\\\u0000'], 'description': '\\\\'}}}");
	ck_assert_str_eq(conf->servers[0].argv[1], "\\u0000");
	ck_assert_str_eq(conf->servers[0].argv[2], "\001");
	ck_assert_str_eq(conf->servers[0].argv[3], "u0000");
	ck_assert_str_eq(conf->servers[0].argv[4], "\\");
	ck_assert_str_eq(conf->servers[0].argv[5], "a\"b\\u0000");
	conf_free(conf);
}
END_TEST

START_TEST(test_shape_not_object)
{
	expect_error("{'mcpServers': []}", "mcpServers: expected an object");
	expect_error("{'servers': 'x'}", "servers: expected an object");
	expect_error("{'mcpd': 3}", "mcpd: expected an object");
	expect_error("{'mcpServers': {'x': 'npx'}}",
	    "mcpServers.x: expected an object");
}
END_TEST

/* Groups: members, the shared namespace, the separator, "all". */
START_TEST(test_groups)
{
	struct conf_diags	 d;
	struct conf		*conf;
	const struct conf_group	*g;

	conf = parse_ok("{'mcpServers': {'a': {'command': 'x'}, "
	    "'b': {'command': 'y'}, 'off': {'command': 'z', "
	    "'disabled': true}}, 'groups': {'dev': {'servers': ['b', 'a', "
	    "'off'], 'separator': '_x-'}}}");
	ck_assert_uint_eq(conf->ngroups, 2);
	g = conf_find_group(conf, "dev");
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->nservers, 3);
	ck_assert_str_eq(g->servers[0], "b");
	ck_assert_str_eq(g->servers[2], "off");
	ck_assert_str_eq(g->separator, "_x-");
	ck_assert_int_eq(g->builtin, 0);
	/* The built-in group: every enabled server, in file order. */
	g = conf_find_group(conf, "all");
	ck_assert_ptr_nonnull(g);
	ck_assert_int_eq(g->builtin, 1);
	ck_assert_uint_eq(g->nservers, 2);
	ck_assert_str_eq(g->servers[0], "a");
	ck_assert_str_eq(g->servers[1], "b");
	ck_assert_str_eq(g->separator, "__");
	ck_assert(conf_group_equal(g, g));
	ck_assert(!conf_group_equal(g, conf_find_group(conf, "dev")));
	ck_assert_ptr_null(conf_find_group(conf, "a"));
	conf_free(conf);

	/* What a session may hold; a separator with a dot. */
	conf = parse_ok("{'mcpServers': {'a': {'command': 'x'}}, 'groups': "
	    "{'g': {'servers': ['a'], 'separator': '.'}}}");
	ck_assert_uint_eq(conf->client_max_group_bytes, 32 * 1024 * 1024);
	ck_assert_str_eq(conf_find_group(conf, "g")->separator, ".");
	conf_free(conf);
	conf = parse_ok("{'mcpd': {'client_max_group_bytes': 2097152}}");
	ck_assert_uint_eq(conf->client_max_group_bytes, 2097152);
	conf_free(conf);
	expect_error("{'mcpd': {'client_max_group_bytes': 1000}}",
	    "mcpd.client_max_group_bytes: expected an integer between "
	    "1048576 and 4294967296");

	/* Without servers, "all" is an empty group. */
	conf = parse_ok("{}");
	ck_assert_uint_eq(conf->ngroups, 1);
	ck_assert_uint_eq(conf->groups[0].nservers, 0);
	conf_free(conf);

	/* A configured "all" wins over the built-in one. */
	expect_warning("{'mcpServers': {'a': {'command': 'x'}}, 'groups': "
	    "{'all': {'servers': ['a']}}}", "groups.all: this group replaces "
	    "the built-in group of every server");
	expect_warning("{'mcpServers': {'all': {'command': 'x'}}}",
	    "mcpServers.all: a server named \"all\" hides the built-in "
	    "group of every server");
	conf = parse("{'mcpServers': {'all': {'command': 'x'}}}", &d);
	ck_assert_ptr_null(conf_find_group(conf, "all"));
	conf_free(conf);
	conf_diags_free(&d);

	expect_warning("{'mcpServers': {'a': {'command': 'x'}}, 'groups': "
	    "{'g': {'servers': ['a'], 'color': 'red'}}}",
	    "groups.g.color: unknown key, ignored");

	/* A group's own filters, by the names it gives. */
	conf = parse_ok("{'mcpServers': {'a': {'command': 'x'}}, 'groups': "
	    "{'g': {'servers': ['a'], 'tools': {'deny': ['a__rm*']}, "
	    "'resources': {'allow': ['file:*']}}}}");
	g = conf_find_group(conf, "g");
	ck_assert(!filter_allows(g->filters[FILTER_TOOLS], "a__rmdir"));
	ck_assert(filter_allows(g->filters[FILTER_TOOLS], "a__ls"));
	ck_assert_ptr_null(g->filters[FILTER_PROMPTS]);
	ck_assert(!filter_allows(g->filters[FILTER_RESOURCES], "http://x"));
	ck_assert(!conf_group_equal(g, conf_find_group(conf, "all")));
	ck_assert(conf_group_equal(g, g));
	conf_free(conf);
}
END_TEST

START_TEST(test_group_errors)
{
#define S "'mcpServers': {'a': {'command': 'x'}, 'b': {'command': 'y'}}"
	expect_error("{" S ", 'groups': []}", "groups: expected an object");
	expect_error("{" S ", 'groups': {'g': []}}",
	    "groups.g: expected an object");
	expect_error("{" S ", 'groups': {'a': {'servers': ['b']}}}",
	    "groups.a: a server has this name: servers and groups share one "
	    "namespace");
	expect_error("{" S ", 'groups': {'g/h': {'servers': ['b']}}}",
	    "groups.g/h: invalid group name: use 1 to 64 of A-Z a-z 0-9 . _ "
	    "-");
	expect_error("{" S ", 'groups': {'g': {}}}",
	    "groups.g: a group needs \"servers\"");
	expect_error("{" S ", 'groups': {'g': {'servers': []}}}",
	    "groups.g.servers: expected a non-empty array of server names");
	expect_error("{" S ", 'groups': {'g': {'servers': 'a'}}}",
	    "groups.g.servers: expected a non-empty array of server names");
	expect_error("{" S ", 'groups': {'g': {'servers': ['a', 'c']}}}",
	    "groups.g.servers[1]: not the name of a configured server");
	expect_error("{" S ", 'groups': {'g': {'servers': ['a', 7]}}}",
	    "groups.g.servers[1]: expected a server name");
	expect_error("{" S ", 'groups': {'g': {'servers': ['a', 'b', 'a']}}}",
	    "groups.g.servers[2]: the same server as [0]");
	expect_error("{" S ", 'groups': {'g': {'servers': ['a'], "
	    "'separator': ''}}}",
	    "groups.g.separator: expected 1 to 8 of A-Z a-z 0-9 _ . -");
	expect_error("{" S ", 'groups': {'g': {'servers': ['a'], "
	    "'separator': '/'}}}",
	    "groups.g.separator: expected 1 to 8 of A-Z a-z 0-9 _ . -");
	expect_error("{" S ", 'groups': {'g': {'servers': ['a']}, "
	    "'g': {'servers': ['b']}}}",
	    "groups: duplicate group name \"g\"");
	expect_error("{" S ", 'groups': {'g': {'servers': ['a'], "
	    "'tools': {'allow': ['']}}}}",
	    "groups.g.tools.allow[0]: empty pattern");
#undef S
}
END_TEST

START_TEST(test_command_errors)
{
	expect_server_error("{'args': []}",
	    "mcpServers.x.command: missing (required for a stdio server)");
	expect_error("{'servers': {'y': {'type': 'stdio'}}}",
	    "servers.y.command: missing (required for a stdio server)");
	expect_server_error("{'command': ['npx']}",
	    "mcpServers.x.command: expected a string");
	expect_server_error("{'command': 7}",
	    "mcpServers.x.command: expected a string");
	expect_server_error("{'command': ''}",
	    "mcpServers.x.command: must not be empty");
	expect_server_error("{'command': '${EMPTY}'}",
	    "mcpServers.x.command: must not be empty");
}
END_TEST

START_TEST(test_args_errors)
{
	expect_server_error("{'command': 'c', 'args': '-v'}",
	    "mcpServers.x.args: expected an array of strings");
	expect_server_error("{'command': 'c', 'args': {'a': 'b'}}",
	    "mcpServers.x.args: expected an array of strings");
	expect_server_error("{'command': 'c', 'args': ['a', 'b', 3]}",
	    "mcpServers.x.args[2]: expected a string");
	expect_server_error("{'command': 'c', 'args': [null]}",
	    "mcpServers.x.args[0]: expected a string");
}
END_TEST

START_TEST(test_env_errors)
{
	expect_server_error("{'command': 'c', 'env': ['A=1']}",
	    "mcpServers.x.env: expected an object of strings");
	expect_server_error("{'command': 'c', 'env': {'PORT': 8080}}",
	    "mcpServers.x.env.PORT: expected a string");
	expect_server_error("{'command': 'c', 'env': {'DEBUG': true}}",
	    "mcpServers.x.env.DEBUG: expected a string");
	expect_server_error("{'command': 'c', 'env': {'': 'v'}}",
	    "mcpServers.x.env.: invalid variable name: must be non-empty "
	    "and contain no '='");
	expect_server_error("{'command': 'c', 'env': {'A=B': 'v'}}",
	    "mcpServers.x.env.A=B: invalid variable name: must be non-empty "
	    "and contain no '='");
	expect_server_error("{'command': 'c', 'env': {'A': '1', 'A': '2'}}",
	    "mcpServers.x.env.A: duplicate key");
}
END_TEST

START_TEST(test_cwd_errors)
{
	struct conf	*conf;

	expect_server_error("{'command': 'c', 'cwd': 'srv/data'}",
	    "mcpServers.x.cwd: must be an absolute path");
	expect_server_error("{'command': 'c', 'cwd': ''}",
	    "mcpServers.x.cwd: must be an absolute path");
	expect_server_error("{'command': 'c', 'cwd': 1}",
	    "mcpServers.x.cwd: expected a string");
	expect_server_error("{'command': 'c', 'cwd': '${NOPE:-rel}'}",
	    "mcpServers.x.cwd: must be an absolute path");
	/* Absolute after expansion is what counts. */
	conf = parse_ok("{'mcpServers': {'x': {'command': 'c',"
	    "'cwd': '${HOME_DIR}/src'}}}");
	ck_assert_str_eq(conf->servers[0].cwd, "/home/ada/src");
	conf_free(conf);
}
END_TEST

START_TEST(test_restart_errors)
{
	const char	*msg = "mcpServers.x.restart: expected \"always\", "
			    "\"on-failure\" or \"never\"";

	expect_server_error("{'command': 'c', 'restart': 'sometimes'}", msg);
	expect_server_error("{'command': 'c', 'restart': 'Always'}", msg);
	expect_server_error("{'command': 'c', 'restart': true}", msg);
	expect_error("{'mcpd': {'restart': 'no'}}",
	    "mcpd.restart: expected \"always\", \"on-failure\" or \"never\"");
}
END_TEST

START_TEST(test_integer_errors)
{
	expect_server_error("{'command': 'c', 'max_restarts': -1}",
	    "mcpServers.x.max_restarts: expected an integer between 0 and "
	    "10000");
	expect_server_error("{'command': 'c', 'backoff_reset_ms': 2.5}",
	    "mcpServers.x.backoff_reset_ms: expected an integer between 0 "
	    "and 4294967295");
	expect_server_error("{'command': 'c', 'restart_window_s': '60'}",
	    "mcpServers.x.restart_window_s: expected an integer between 0 "
	    "and 4294967295");
	expect_server_error("{'command': 'c', 'backoff_max_ms': 4294967296}",
	    "mcpServers.x.backoff_max_ms: expected an integer between 1 and "
	    "4294967295");
	expect_server_error("{'command': 'c', 'request_timeout_ms': 1e300}",
	    "mcpServers.x.request_timeout_ms: expected an integer between 1 "
	    "and 4294967295");
	expect_server_error("{'command': 'c', 'max_restarts': null}",
	    "mcpServers.x.max_restarts: expected an integer between 0 and "
	    "10000");
	/* Zero makes no sense for timeouts and the first delay. */
	expect_server_error("{'command': 'c', 'init_timeout_ms': 0}",
	    "mcpServers.x.init_timeout_ms: expected an integer between 1 and "
	    "4294967295");
	expect_server_error("{'command': 'c', 'stop_timeout_ms': 0}",
	    "mcpServers.x.stop_timeout_ms: expected an integer between 1 and "
	    "4294967295");
	expect_server_error("{'command': 'c', 'backoff_min_ms': 0}",
	    "mcpServers.x.backoff_min_ms: expected an integer between 1 and "
	    "4294967295");
	expect_error("{'mcpd': {'request_timeout_ms': -5}}",
	    "mcpd.request_timeout_ms: expected an integer between 1 and "
	    "4294967295");
}
END_TEST

START_TEST(test_jitter_errors)
{
	expect_server_error("{'command': 'c', 'backoff_jitter': 1.5}",
	    "mcpServers.x.backoff_jitter: expected a number between 0 and 1");
	expect_server_error("{'command': 'c', 'backoff_jitter': -0.1}",
	    "mcpServers.x.backoff_jitter: expected a number between 0 and 1");
	expect_server_error("{'command': 'c', 'backoff_jitter': '0.2'}",
	    "mcpServers.x.backoff_jitter: expected a number between 0 and 1");
}
END_TEST

START_TEST(test_bool_errors)
{
	expect_server_error("{'command': 'c', 'disabled': 1}",
	    "mcpServers.x.disabled: expected true or false");
	expect_error("{'mcpd': {'disabled': 'yes'}}",
	    "mcpd.disabled: expected true or false");
}
END_TEST

START_TEST(test_backoff_min_above_max)
{
	expect_server_error("{'command': 'c', 'backoff_min_ms': 5000,"
	    "'backoff_max_ms': 2000}",
	    "mcpServers.x: backoff_min_ms (5000) is greater than "
	    "backoff_max_ms (2000)");
	/* Against the built-in default maximum. */
	expect_server_error("{'command': 'c', 'backoff_min_ms': 30001}",
	    "mcpServers.x: backoff_min_ms (30001) is greater than "
	    "backoff_max_ms (30000)");
	/* Against a default from "mcpd": reported where it was set. */
	expect_error("{'mcpd': {'backoff_min_ms': 50, 'backoff_max_ms': 100},"
	    "'servers': {'s': {'command': 'c', 'backoff_min_ms': 200}}}",
	    "servers.s: backoff_min_ms (200) is greater than "
	    "backoff_max_ms (100)");
	/* Inconsistent defaults: reported once, at "mcpd". */
	expect_error("{'mcpd': {'backoff_min_ms': 9000, 'backoff_max_ms': 10},"
	    "'mcpServers': {'a': {'command': 'a'}, 'b': {'command': 'b'}}}",
	    "mcpd: backoff_min_ms (9000) is greater than backoff_max_ms (10)");
}
END_TEST

START_TEST(test_max_restarts_needs_window)
{
	struct conf	*conf;

	expect_server_error("{'command': 'c', 'max_restarts': 3,"
	    "'restart_window_s': 0}",
	    "mcpServers.x: max_restarts (3) needs restart_window_s of at "
	    "least 1");
	expect_error("{'mcpd': {'max_restarts': 3, 'restart_window_s': 0}}",
	    "mcpd: max_restarts (3) needs restart_window_s of at least 1");
	/* A zero window is fine while max_restarts stays 0. */
	conf = parse_ok("{'mcpServers': {'x': {'command': 'c',"
	    "'restart_window_s': 0}}}");
	ck_assert_uint_eq(conf->servers[0].backoff.restart_window_s, 0);
	conf_free(conf);
}
END_TEST

START_TEST(test_max_message_bytes_range)
{
	expect_server_error("{'command': 'c', 'max_message_bytes': 1023}",
	    "mcpServers.x.max_message_bytes: expected an integer between 1024 "
	    "and 1073741824");
	expect_server_error("{'command': 'c',"
	    "'max_message_bytes': 1073741825}",
	    "mcpServers.x.max_message_bytes: expected an integer between 1024 "
	    "and 1073741824");
	expect_error("{'mcpd': {'max_message_bytes': 0}}",
	    "mcpd.max_message_bytes: expected an integer between 1024 and "
	    "1073741824");
}
END_TEST

START_TEST(test_bad_names)
{
	struct conf	*conf;
	char		 name[66], *text;
	const char	*msg = "invalid server name: use 1 to 64 of "
			    "A-Z a-z 0-9 . _ -";
	char		 expected[256];

	snprintf(expected, sizeof expected, "mcpServers.: %s", msg);
	expect_error("{'mcpServers': {'': {'command': 'c'}}}", expected);
	snprintf(expected, sizeof expected, "mcpServers.my server: %s", msg);
	expect_error("{'mcpServers': {'my server': {'command': 'c'}}}",
	    expected);
	snprintf(expected, sizeof expected, "servers.a/b: %s", msg);
	expect_error("{'servers': {'a/b': {'command': 'c'}}}", expected);
	snprintf(expected, sizeof expected, "servers.caf\xc3\xa9: %s", msg);
	expect_error("{'servers': {'caf\xc3\xa9': {'command': 'c'}}}",
	    expected);

	memset(name, 'n', 65);
	name[65] = '\0';
	xasprintf(&text, "{'mcpServers': {'%s': {'command': 'c'}}}", name);
	snprintf(expected, sizeof expected, "mcpServers.%s: %s", name, msg);
	expect_error(text, expected);
	free(text);

	name[64] = '\0';
	xasprintf(&text, "{'mcpServers': {'%s': {'command': 'c'},"
	    "'A-z_0.9': {'command': 'c'}}}", name);
	conf = parse_ok(text);
	free(text);
	ck_assert_uint_eq(conf->nservers, 2);
	ck_assert_str_eq(conf->servers[0].name, name);
	conf_free(conf);
}
END_TEST

START_TEST(test_duplicate_names)
{
	expect_error("{'mcpServers': {'git': {'command': 'a'}},"
	    "'servers': {'git': {'command': 'b'}}}",
	    "servers.git: duplicate server name (first defined at "
	    "mcpServers.git)");
	expect_error("{'servers': {'git': {'command': 'a'}},"
	    "'mcpServers': {'git': {'command': 'b'}}}",
	    "mcpServers.git: duplicate server name (first defined at "
	    "servers.git)");
	expect_error("{'mcpServers': {'git': {'command': 'a'},"
	    "'git': {'command': 'b'}}}",
	    "mcpServers.git: duplicate server name (first defined at "
	    "mcpServers.git)");
	/* Names are case-sensitive. */
	conf_free(parse_ok("{'mcpServers': {'git': {'command': 'a'},"
	    "'Git': {'command': 'b'}}}"));
}
END_TEST

START_TEST(test_duplicate_keys)
{
	expect_server_error("{'command': 'a', 'command': 'b'}",
	    "mcpServers.x.command: duplicate key");
	expect_error("{'mcpServers': {}, 'mcpServers': {}}",
	    "mcpServers: duplicate key");
	expect_error("{'mcpd': {'restart': 'never', 'restart': 'always'}}",
	    "mcpd.restart: duplicate key");
}
END_TEST

START_TEST(test_bad_type)
{
	const char	*msg = "servers.x.type: expected \"stdio\", "
			    "\"http\" or \"sse\"";

	expect_error("{'servers': {'x': {'type': 'websocket',"
	    "'command': 'c'}}}", msg);
	expect_error("{'servers': {'x': {'type': 1, 'command': 'c'}}}", msg);
	expect_error("{'servers': {'x': {'type': 'STDIO', 'command': 'c'}}}",
	    msg);
}
END_TEST

START_TEST(test_unknown_keys_warn)
{
	expect_warning("{'mcpServers': {'x': {'command': 'c', 'restrat': 1}}}",
	    "mcpServers.x.restrat: unknown key, ignored (did you mean "
	    "\"restart\"?)");
	expect_warning("{'theme': 'dark', 'mcpServers': {'x': {'command': "
	    "'c'}}}", "theme: unknown key, ignored");
	expect_warning("{'mcpd': {'command': 'c'}}",
	    "mcpd.command: unknown key, ignored");
	expect_warning("{'servers': {'x': {'command': 'c',"
	    "'envfile': '/x'}}}", "servers.x.envfile: unknown key, ignored "
	    "(did you mean \"envFile\"?)");
}
END_TEST

/*
 * A top-level typo: near a known key, it is named; in a file without
 * servers it is an error, since the servers may be under it.
 */
START_TEST(test_unknown_top_key)
{
	struct conf	*conf;

	expect_error("{'mcpServer': {'x': {'command': 'c'}}}",
	    "mcpServer: unknown key, and the file has no servers: did you "
	    "mean \"mcpServers\"?");
	expect_error("{'mcpservers': {}}",
	    "mcpservers: unknown key, and the file has no servers: did you "
	    "mean \"mcpServers\"?");
	expect_error("{'mcpServers': {}, 'sevrers': {'x': {}}}",
	    "sevrers: unknown key, and the file has no servers: did you "
	    "mean \"servers\"?");
	expect_error("{'theme': 'dark'}", "theme: unknown key, and the file "
	    "has no servers (they go in \"mcpServers\")");
	expect_warning("{'mcpServers': {'x': {'command': 'c'}}, 'group': {}}",
	    "group: unknown key, ignored (did you mean \"groups\"?)");
	expect_warning("{'servers': {'x': {'command': 'c'}}, 'MCPD': {}}",
	    "MCPD: unknown key, ignored (did you mean \"mcpd\"?)");
	/* Without servers and without unknown keys: valid, and silent. */
	conf = parse_ok("{}");
	ck_assert_uint_eq(conf->nservers, 0);
	conf_free(conf);
	conf = parse_ok("{'mcpServers': {}, 'mcpd': {}, 'inputs': [], "
	    "'$schema': 'https://example.com/s.json'}");
	ck_assert_uint_eq(conf->nservers, 0);
	conf_free(conf);
}
END_TEST

/* A server's unknown key names the near one: its own keys, settings. */
START_TEST(test_unknown_server_key)
{
	struct conf	*conf;

	expect_warning("{'mcpServers': {'x': {'command': 'c', 'arg': []}}}",
	    "mcpServers.x.arg: unknown key, ignored (did you mean \"args\"?)");
	expect_warning("{'mcpServers': {'x': {'command': 'c', "
	    "'request_timout_ms': 5}}}", "mcpServers.x.request_timout_ms: "
	    "unknown key, ignored (did you mean \"request_timeout_ms\"?)");
	expect_warning("{'mcpServers': {'x': {'command': 'c', 'enviroment': "
	    "{}}}}", "mcpServers.x.enviroment: unknown key, ignored");
	expect_warning("{'mcpServers': {'x': {'url': 'https://h/mcp', "
	    "'header': {}}}}", "mcpServers.x.header: unknown key, ignored "
	    "(did you mean \"headers\"?)");
	/* Every key of the list is one a server takes. */
	conf = parse_ok("{'mcpServers': {'x': {'command': 'c', 'args': [], "
	    "'env': {}, 'cwd': '/', 'roots': [], 'tools': {'allow': ['a']}, "
	    "'prompts': {'deny': ['p']}, 'resources': {'deny': ['r']}, "
	    "'share': 'per-client', 'max_instances': 2, "
	    "'max_instances_per_uid': 1, 'type': 'stdio'}, "
	    "'y': {'url': 'https://h/mcp', 'headers': {}, "
	    "'connect_timeout_ms': 1000}}}");
	conf_free(conf);
}
END_TEST

START_TEST(test_foreign_keys_silent)
{
	struct conf	*conf;

	conf = parse_ok("{'inputs': [], 'mcpServers': {'x': {'command': 'c',"
	    "'autoApprove': ['t'], 'alwaysAllow': [], 'timeout': 60,"
	    "'description': 'd', 'icon': 'i', 'gallery': true,"
	    "'version': '1.0'}}}");
	ck_assert_uint_eq(conf->nservers, 1);
	check_defaults(&conf->servers[0]);
	conf_free(conf);
}
END_TEST

/* The members every remote server has, whatever its shape. */
static void
check_remote(const struct conf_server *cs, enum conf_transport transport,
    const char *url)
{
	ck_assert_int_eq(conf_server_is_remote(cs), 1);
	ck_assert_int_eq(cs->transport, transport);
	ck_assert_str_eq(cs->url, url);
	ck_assert_uint_eq(cs->argc, 1);
	ck_assert_str_eq(cs->argv[0], "mcpd-remote");
	ck_assert_ptr_null(cs->argv[1]);
	ck_assert_str_eq(cs->argv_display[0], "mcpd-remote");
	ck_assert_ptr_null(cs->argv_display[1]);
	ck_assert_ptr_nonnull(cs->env);
	ck_assert_ptr_nonnull(cs->headers);
	ck_assert_ptr_null(cs->headers[cs->nheaders]);
	ck_assert_ptr_null(cs->cwd);
}

START_TEST(test_remote_shapes)
{
	struct conf			*conf;
	const struct conf_server	*cs;

	/* Cursor, and mcpServers in general: a url alone. */
	conf = parse_ok("{'mcpServers': {"
	    "'web': {'url': 'https://example.com/mcp'},"
	    "'local': {'command': 'c'}},"
	    /* VS Code: servers with a type, headers. */
	    "'servers': {"
	    "'gh': {'type': 'http', 'url': 'https://api.example.com/mcp',"
	    "  'headers': {'Authorization': 'Bearer ${TOKEN}',"
	    "  'X-Trace': 'on'}},"
	    "'old': {'type': 'sse', 'url': 'http://localhost:8080/sse'}}}");
	ck_assert_uint_eq(conf->nservers, 4);
	cs = conf_find(conf, "web");
	ck_assert_ptr_nonnull(cs);
	check_remote(cs, CONF_TRANSPORT_AUTO, "https://example.com/mcp");
	ck_assert_str_eq(cs->url_display, "https://example.com/mcp");
	ck_assert_str_eq(cs->path, "mcpServers.web");
	ck_assert_uint_eq(cs->nheaders, 0);
	ck_assert_uint_eq(cs->envc, 0);
	ck_assert_ptr_null(cs->ca_file);
	ck_assert_int_eq(cs->has_oauth, 0);
	ck_assert_ptr_null(cs->oauth.client_id);
	ck_assert_uint_eq(cs->connect_timeout_ms,
	    CONF_DEFAULT_CONNECT_TIMEOUT_MS);
	check_defaults(cs);
	ck_assert_str_eq(conf_transport_name(cs->transport), "auto");

	cs = conf_find(conf, "local");
	ck_assert_int_eq(conf_server_is_remote(cs), 0);
	ck_assert_int_eq(cs->transport, CONF_TRANSPORT_STDIO);
	ck_assert_ptr_null(cs->url);
	ck_assert_ptr_null(cs->url_display);
	ck_assert_ptr_nonnull(cs->headers);
	ck_assert_ptr_null(cs->headers[0]);
	ck_assert_uint_eq(cs->nheaders, 0);
	ck_assert_ptr_null(conf_remote_settings(cs, NULL));
	ck_assert_str_eq(conf_transport_name(cs->transport), "stdio");

	cs = conf_find(conf, "gh");
	check_remote(cs, CONF_TRANSPORT_HTTP, "https://api.example.com/mcp");
	ck_assert_str_eq(cs->path, "servers.gh");
	ck_assert_uint_eq(cs->nheaders, 2);
	ck_assert_str_eq(cs->headers[0], "Authorization: Bearer " SECRET);
	ck_assert_str_eq(cs->headers[1], "X-Trace: on");
	ck_assert_str_eq(conf_transport_name(cs->transport), "http");

	cs = conf_find(conf, "old");
	check_remote(cs, CONF_TRANSPORT_SSE, "http://localhost:8080/sse");
	ck_assert_str_eq(conf_transport_name(cs->transport), "sse");
	conf_free(conf);

	/* Claude Code (~/.claude.json, .mcp.json). */
	conf = parse_ok("{'mcpServers': {'linear': {'type': 'http',"
	    "'url': 'https://mcp.linear.app/mcp',"
	    "'headers': {'Authorization': 'Bearer ${TOKEN}'}},"
	    "'asana': {'type': 'sse', 'url': 'https://mcp.asana.com/sse'}}}");
	check_remote(&conf->servers[0], CONF_TRANSPORT_HTTP,
	    "https://mcp.linear.app/mcp");
	ck_assert_uint_eq(conf->servers[0].nheaders, 1);
	check_remote(&conf->servers[1], CONF_TRANSPORT_SSE,
	    "https://mcp.asana.com/sse");
	ck_assert_str_eq(conf_transport_name((enum conf_transport)42),
	    "unknown");
	conf_free(conf);
}
END_TEST

START_TEST(test_remote_type_aliases)
{
	const char	*types[] = { "http", "streamable-http",
			    "streamableHttp" };
	struct conf	*conf;
	char		*text;
	size_t		 i;

	for (i = 0; i < nitems(types); i++) {
		xasprintf(&text, "{'servers': {'r': {'type': '%s',"
		    "'url': 'https://h.example/mcp'}}}", types[i]);
		conf = parse_ok(text);
		free(text);
		check_remote(&conf->servers[0], CONF_TRANSPORT_HTTP,
		    "https://h.example/mcp");
		conf_free(conf);
	}
	/* Case matters, as for "stdio". */
	expect_error("{'servers': {'r': {'type': 'HTTP', 'url': "
	    "'https://h.example/'}}}",
	    "servers.r.type: expected \"stdio\", \"http\" or \"sse\"");
	expect_error("{'servers': {'r': {'type': 'websocket', 'url': "
	    "'https://h.example/'}}}",
	    "servers.r.type: expected \"stdio\", \"http\" or \"sse\"");
	expect_error("{'servers': {'r': {'type': 'stdio', 'url': "
	    "'https://h.example/'}}}",
	    "servers.r.type: \"stdio\" does not go with url: a remote server "
	    "is \"http\" or \"sse\"");
	/* A remote type without a url. */
	expect_error("{'servers': {'r': {'type': 'sse'}}}",
	    "servers.r.url: missing (required for a remote server)");
	expect_error("{'servers': {'r': {'type': 'streamableHttp'}}}",
	    "servers.r.url: missing (required for a remote server)");
}
END_TEST

/* Every mcpd setting applies to a remote server too. */
START_TEST(test_remote_settings)
{
	struct conf			*conf;
	const struct conf_server	*cs;

	conf = parse_ok("{'mcpd': {'connect_timeout_ms': 2500,"
	    "'request_timeout_ms': 9000},"
	    "'mcpServers': {'r': {'url': 'https://h.example/mcp',"
	    "'env': {'https_proxy': 'http://proxy:3128', 'no_proxy': '.lan'},"
	    "'restart': 'on-failure', 'backoff_min_ms': 200,"
	    "'backoff_max_ms': 5000, 'max_restarts': 5,"
	    "'restart_window_s': 30, 'init_timeout_ms': 1500,"
	    "'stop_timeout_ms': 700, 'max_message_bytes': 4096,"
	    "'health_interval_ms': 0, 'disabled': true,"
	    "'roots': ['/srv'], 'autoApprove': []},"
	    "'s': {'url': 'https://h.example/mcp', 'connect_timeout_ms': 1}}}");
	cs = &conf->servers[0];
	check_remote(cs, CONF_TRANSPORT_AUTO, "https://h.example/mcp");
	ck_assert_uint_eq(cs->envc, 2);
	ck_assert_str_eq(cs->env[0], "https_proxy=http://proxy:3128");
	ck_assert_str_eq(cs->env[1], "no_proxy=.lan");
	ck_assert_int_eq(cs->restart, CONF_RESTART_ON_FAILURE);
	ck_assert_uint_eq(cs->backoff.min_ms, 200);
	ck_assert_uint_eq(cs->backoff.max_ms, 5000);
	ck_assert_uint_eq(cs->backoff.max_restarts, 5);
	ck_assert_uint_eq(cs->init_timeout_ms, 1500);
	ck_assert_uint_eq(cs->stop_timeout_ms, 700);
	ck_assert_uint_eq(cs->request_timeout_ms, 9000);
	ck_assert_uint_eq(cs->max_message_bytes, 4096);
	ck_assert_uint_eq(cs->health_interval_ms, 0);
	ck_assert_int_eq(cs->disabled, 1);
	ck_assert_uint_eq(cs->nroots, 1);
	ck_assert_uint_eq(cs->connect_timeout_ms, 2500);
	ck_assert_uint_eq(conf->servers[1].connect_timeout_ms, 1);
	conf_free(conf);

	expect_server_error("{'url': 'https://h.example/', "
	    "'connect_timeout_ms': 0}", "mcpServers.x.connect_timeout_ms: "
	    "expected an integer between 1 and 4294967295");
	expect_error("{'mcpd': {'connect_timeout_ms': 'fast'}}",
	    "mcpd.connect_timeout_ms: expected an integer between 1 and "
	    "4294967295");
	/* A stdio server has no connection to time. */
	expect_warning("{'mcpServers': {'x': {'command': 'c',"
	    "'connect_timeout_ms': 5}}}", "mcpServers.x.connect_timeout_ms: "
	    "only for a remote server (url), ignored");
}
END_TEST

START_TEST(test_remote_url_errors)
{
	struct {
		const char	*url;
		const char	*error;
	} bad[] = {
		{ "ftp://h.example/", "expected an absolute http:// or "
		    "https:// URL" },
		{ "/mcp", "expected an absolute http:// or https:// URL" },
		{ "h.example/mcp", "expected an absolute http:// or https:// "
		    "URL" },
		{ "https:/h.example", "expected an absolute http:// or "
		    "https:// URL" },
		{ "", "expected an absolute http:// or https:// URL" },
		{ "https://", "has no host" },
		{ "https:///mcp", "has no host" },
		{ "https://user@/mcp", "has no host" },
		{ "https://:443/mcp", "has no host" },
		{ "https://h.example/a b", "must be printable ASCII without "
		    "spaces (percent-encode the rest)" },
		{ "https://h.example/\\t", "must be printable ASCII without "
		    "spaces (percent-encode the rest)" },
		{ "https://h.example/\\r\\nX: 1", "must be printable ASCII "
		    "without spaces (percent-encode the rest)" },
		{ "https://h\\u00e9.example/", "must be printable ASCII "
		    "without spaces (percent-encode the rest)" },
		{ "https://h.example:0/", "has an invalid port" },
		{ "https://h.example:65536/", "has an invalid port" },
		{ "https://h.example:123456/", "has an invalid port" },
		{ "https://h.example:8x/", "has an invalid port" },
		{ "https://h.example:-1/", "has an invalid port" },
		{ "https://[::1/mcp", "has an unterminated IPv6 address ('[')" },
		{ "https://[]/", "has an invalid IPv6 address" },
		{ "https://[fe80::1%25eth0]/", "has an invalid IPv6 address" },
		{ "https://[::1]x/", "has an invalid host" },
		{ "https://h^x/", "has an invalid character in its host" },
		{ "https://h\\\"x/", "has an invalid character in its host" },
	};
	const char	*good[] = {
		"https://h.example", "HTTPS://H.example/mcp?x=1#f",
		"http://127.0.0.1:8080/mcp", "https://[::1]:8443/",
		"https://user:pw@h.example/", "https://h.example:/",
		"https://h.example:65535/", "https://xn--h-1fa.example/",
		"https://h.example/a%20b",
	};
	struct conf	*conf;
	char		*text, *error;
	size_t		 i;

	for (i = 0; i < nitems(bad); i++) {
		xasprintf(&text, "{'url': '%s'}", bad[i].url);
		xasprintf(&error, "mcpServers.x.url: %s", bad[i].error);
		expect_server_error(text, error);
		free(error);
		free(text);
	}
	for (i = 0; i < nitems(good); i++) {
		xasprintf(&text, "{'mcpServers': {'x': {'url': '%s'}}}",
		    good[i]);
		conf = parse_ok(text);
		free(text);
		ck_assert_int_eq(conf->servers[0].transport,
		    CONF_TRANSPORT_AUTO);
		conf_free(conf);
	}
	expect_server_error("{'url': 7}", "mcpServers.x.url: expected a "
	    "string");
	expect_server_error("{'url': null, 'type': 'http'}",
	    "mcpServers.x.url: expected a string");
	/* The expanded URL is checked: that is what the worker gets. */
	expect_server_error("{'url': 'https://h.example/${TOKEN}${EMPTY} x'}",
	    "mcpServers.x.url: must be printable ASCII without spaces "
	    "(percent-encode the rest)");
	expect_server_error("{'url': '${UNSET:-/mcp}'}", "mcpServers.x.url: "
	    "expected an absolute http:// or https:// URL");
}
END_TEST

START_TEST(test_remote_key_errors)
{
	/* What a stdio server runs has no place beside a url. */
	expect_server_error("{'url': 'https://h.example/', 'args': ['-y']}",
	    "mcpServers.x.args: not allowed on a remote server (url)");
	expect_server_error("{'url': 'https://h.example/', 'command': 'npx'}",
	    "mcpServers.x.command: not allowed on a remote server (url)");
	expect_error("{'servers': {'x': {'type': 'http', 'command': 'npx',"
	    "'url': 'https://h.example/'}}}",
	    "servers.x.command: not allowed on a remote server (url)");
	/* And the other way round. */
	expect_server_error("{'command': 'c', 'headers': {}}",
	    "mcpServers.x.headers: only for a remote server (url)");
	expect_server_error("{'command': 'c', 'oauth': {}}",
	    "mcpServers.x.oauth: only for a remote server (url)");
	expect_server_error("{'command': 'c', 'ca_file': '/ca.pem'}",
	    "mcpServers.x.ca_file: only for a remote server (url)");
	expect_server_error("{'url': 'https://h.example/', 'ca_file': 'ca.pem'}",
	    "mcpServers.x.ca_file: must be an absolute path");
	expect_server_error("{'url': 'https://h.example/', 'ca_file': 1}",
	    "mcpServers.x.ca_file: expected a string");
	expect_server_error("{'url': 'https://h.example/', 'url': "
	    "'https://h.example/'}", "mcpServers.x.url: duplicate key");
	expect_server_error("{'url': 'https://h.example/', 'env': {'A': 1}}",
	    "mcpServers.x.env.A: expected a string");
}
END_TEST

START_TEST(test_remote_header_errors)
{
	const char	*names[] = { "Bad Name", "X:Y", "", "X\\u00e9",
			    "(x)", "a/b", "a@b" };
	const char	*managed[] = { "Content-Type", "accept", "HOST",
			    "Mcp-Session-Id", "MCP-Protocol-Version",
			    "Content-Length", "Last-Event-ID",
			    "Transfer-Encoding", "Connection" };
	char		*text, *error;
	size_t		 i;

	expect_server_error("{'url': 'https://h.example/', 'headers': []}",
	    "mcpServers.x.headers: expected an object of strings");
	expect_server_error("{'url': 'https://h.example/', 'headers': "
	    "{'A': 1}}", "mcpServers.x.headers.A: expected a string");
	for (i = 0; i < nitems(names); i++) {
		xasprintf(&text, "{'url': 'https://h.example/', 'headers': "
		    "{'%s': 'v'}}", names[i]);
		xasprintf(&error, "mcpServers.x.headers.%s: invalid header "
		    "name: use letters, digits and !#$%%&'*+-.^_`|~",
		    strcmp(names[i], "X\\u00e9") == 0 ? "X\xc3\xa9" :
		    names[i]);
		expect_server_error(text, error);
		free(error);
		free(text);
	}
	for (i = 0; i < nitems(managed); i++) {
		xasprintf(&text, "{'url': 'https://h.example/', 'headers': "
		    "{'%s': 'v'}}", managed[i]);
		xasprintf(&error, "mcpServers.x.headers.%s: set by "
		    "mcpd-remote itself; it cannot be configured", managed[i]);
		expect_server_error(text, error);
		free(error);
		free(text);
	}
	expect_server_error("{'url': 'https://h.example/', 'headers': "
	    "{'X-Key': 'a', 'x-key': 'b'}}", "mcpServers.x.headers.x-key: "
	    "the same header as mcpServers.x.headers.X-Key (header names "
	    "ignore case)");
	expect_server_error("{'url': 'https://h.example/', 'headers': "
	    "{'X-Key': 'a', 'X-Key': 'b'}}",
	    "mcpServers.x.headers.X-Key: duplicate key");
	/* Header injection, written or expanded. */
	expect_server_error("{'url': 'https://h.example/', 'headers': "
	    "{'X-Key': 'a\\r\\nX-Evil: 1'}}", "mcpServers.x.headers.X-Key: "
	    "the value holds a control character (a line break?)");
	expect_server_error("{'url': 'https://h.example/', 'headers': "
	    "{'X-Key': 'a\\nb'}}", "mcpServers.x.headers.X-Key: "
	    "the value holds a control character (a line break?)");
	expect_server_error("{'url': 'https://h.example/', 'headers': "
	    "{'X-Key': 'Bearer ${CRLF}'}}", "mcpServers.x.headers.X-Key: "
	    "the value holds a control character (a line break?)");
	expect_server_error("{'url': 'https://h.example/', 'headers': "
	    "{'X-Key': 'a\\u007f'}}", "mcpServers.x.headers.X-Key: "
	    "the value holds a control character (a line break?)");
	expect_server_error("{'url': 'https://h.example/', 'headers': "
	    "{'X-Key': 'Bearer ${MISSING}'}}", "mcpServers.x.headers.X-Key: "
	    "${MISSING} is not set");
	expect_server_error("{'url': 'https://h.example/', 'headers': "
	    "{'X-Key': 'a\\u0000b'}}", "mcpServers.x.headers.X-Key: "
	    "contains a NUL character (\\u0000)");
}
END_TEST

START_TEST(test_remote_header_values)
{
	struct conf			*conf;
	const struct conf_server	*cs;

	/* A tab, an empty value, UTF-8 and "${VAR:-default}" are fine. */
	conf = parse_ok("{'mcpServers': {'x': {'url': 'https://h.example/',"
	    "'headers': {'X-A': 'a\\tb', 'X-B': '', 'X-C': 'caf\\u00e9',"
	    "'X-D': '${UNSET:-dflt} ${PORT}', 'X-E': '${EMPTY}'}}}}");
	cs = &conf->servers[0];
	ck_assert_uint_eq(cs->nheaders, 5);
	ck_assert_str_eq(cs->headers[0], "X-A: a\tb");
	ck_assert_str_eq(cs->headers[1], "X-B: ");
	ck_assert_str_eq(cs->headers[2], "X-C: caf\xc3\xa9");
	ck_assert_str_eq(cs->headers[3], "X-D: dflt 8080");
	ck_assert_str_eq(cs->headers[4], "X-E: ");
	ck_assert_ptr_null(cs->headers[5]);
	conf_free(conf);
}
END_TEST

START_TEST(test_remote_oauth)
{
	struct conf			*conf;
	const struct conf_server	*cs;

	conf = parse_ok("{'mcpServers': {"
	    "'a': {'url': 'https://h.example/mcp', 'oauth': {"
	    "  'client_id': '${UNSET:-mcpd}', 'client_secret': '${TOKEN}',"
	    "  'scope': 'read write', 'resource': 'https://h.example/',"
	    "  'token_url': 'https://${UNSET:-as.example}/token',"
	    "  'jwt_audience': 'aud'}},"
	    "'b': {'url': 'https://h.example/mcp', 'oauth': {"
	    "  'client_id': 'c', 'client_secret_file': '${HOME_DIR}/secret'}},"
	    "'c': {'url': 'https://h.example/mcp', 'oauth': {"
	    "  'client_id': 'c', 'private_key_file': '/etc/k.pem',"
	    "  'signing_algorithm': 'ES256'}},"
	    "'d': {'url': 'https://h.example/mcp', 'oauth': {"
	    "  'client_id': 'c', 'private_key_file': '/etc/k.pem',"
	    "  'signing_algorithm': 'RS256'}}}}");
	cs = conf_find(conf, "a");
	ck_assert_int_eq(cs->has_oauth, 1);
	ck_assert_str_eq(cs->oauth.client_id, "mcpd");
	ck_assert_str_eq(cs->oauth.client_secret, SECRET);
	ck_assert_ptr_null(cs->oauth.client_secret_file);
	ck_assert_ptr_null(cs->oauth.private_key_file);
	ck_assert_ptr_null(cs->oauth.signing_algorithm);
	ck_assert_str_eq(cs->oauth.scope, "read write");
	ck_assert_str_eq(cs->oauth.resource, "https://h.example/");
	ck_assert_str_eq(cs->oauth.token_url, "https://as.example/token");
	ck_assert_str_eq(cs->oauth.jwt_audience, "aud");
	cs = conf_find(conf, "b");
	ck_assert_str_eq(cs->oauth.client_secret_file, "/home/ada/secret");
	ck_assert_ptr_null(cs->oauth.client_secret);
	ck_assert_ptr_null(cs->oauth.token_url);
	ck_assert_ptr_null(cs->oauth.scope);
	cs = conf_find(conf, "c");
	ck_assert_str_eq(cs->oauth.private_key_file, "/etc/k.pem");
	ck_assert_str_eq(cs->oauth.signing_algorithm, "ES256");
	ck_assert_str_eq(conf_find(conf, "d")->oauth.signing_algorithm,
	    "RS256");
	conf_free(conf);
}
END_TEST

/* Which remote servers sign in, and what their worker is told. */
START_TEST(test_remote_signs_in)
{
	struct conf		*conf;
	struct conf_remote_extra extra;
	const struct conf_server *cs;
	char			*s;

	conf = parse_ok("{'mcpServers': {"
	    "'plain': {'url': 'https://h.example/mcp'},"
	    "'keyed': {'url': 'https://h.example/mcp', 'headers': "
	    "{'authorization': 'Bearer k'}},"
	    "'public': {'url': 'https://h.example/mcp', 'oauth': "
	    "{'client_id': 'app'}},"
	    "'cimd': {'url': 'https://h.example/mcp', 'oauth': "
	    "{'client_metadata_url': 'https://app.example/c.json'}},"
	    "'secret': {'url': 'https://h.example/mcp', 'oauth': "
	    "{'grant': 'authorization_code', 'client_id': 'app', "
	    "'client_secret': 'S'}},"
	    "'machine': {'url': 'https://h.example/mcp', 'oauth': "
	    "{'client_id': 'app', 'client_secret': 'S'}},"
	    "'local': {'command': 'x'}}}");
	ck_assert(conf_remote_signs_in(conf_find(conf, "plain")));
	ck_assert(!conf_remote_signs_in(conf_find(conf, "keyed")));
	ck_assert(conf_remote_signs_in(conf_find(conf, "public")));
	ck_assert(conf_remote_signs_in(conf_find(conf, "cimd")));
	ck_assert(conf_remote_signs_in(conf_find(conf, "secret")));
	ck_assert(!conf_remote_signs_in(conf_find(conf, "machine")));
	ck_assert(!conf_remote_signs_in(conf_find(conf, "local")));
	ck_assert_str_eq(conf_find(conf, "public")->oauth.grant,
	    "authorization_code");
	ck_assert_str_eq(conf_find(conf, "machine")->oauth.grant,
	    "client_credentials");

	cs = conf_find(conf, "public");
	memset(&extra, 0, sizeof extra);
	extra.token_file = "/var/lib/t/public.json";
	extra.login = "login";
	extra.redirect_uri = "http://127.0.0.1:4000/callback";
	extra.scope = "a \"b\"";
	s = conf_remote_settings(cs, &extra);
	ck_assert_ptr_nonnull(strstr(s, "\"grant\":\"authorization_code\""));
	ck_assert_ptr_nonnull(strstr(s,
	    ",\"token_file\":\"/var/lib/t/public.json\",\"login\":"
	    "{\"mode\":\"login\",\"redirect_uri\":"
	    "\"http://127.0.0.1:4000/callback\",\"scope\":\"a \\\"b\\\"\"}}"));
	free(s);
	conf_free(conf);
}
END_TEST

START_TEST(test_remote_oauth_errors)
{
	const char	*u = "'url': 'https://h.example/'";
	struct {
		const char	*oauth;
		const char	*error;
	} bad[] = {
		{ "[]", "mcpServers.x.oauth: expected an object" },
		{ "{'client_secret': 's'}",
		    "mcpServers.x.oauth.client_id: missing (required with "
		    "client credentials)" },
		{ "{'grant': 'client_credentials', 'client_id': 'c'}",
		    "mcpServers.x.oauth: needs one of client_secret, "
		    "client_secret_file or private_key_file (or \"grant\": "
		    "\"authorization_code\" to sign in with `mcpctl login`)" },
		{ "{'grant': 'password'}", "mcpServers.x.oauth.grant: "
		    "expected \"client_credentials\" or "
		    "\"authorization_code\"" },
		{ "{'grant': 'authorization_code', 'private_key_file': '/k'}",
		    "mcpServers.x.oauth.private_key_file: only with client "
		    "credentials (a sign-in discovers the authorization server "
		    "and uses no private key)" },
		{ "{'client_id': 'c', 'token_url': 'https://as/t'}",
		    "mcpServers.x.oauth.token_url: only with client "
		    "credentials (a sign-in discovers the authorization server "
		    "and uses no private key)" },
		{ "{'grant': 'authorization_code', 'client_secret': 's'}",
		    "mcpServers.x.oauth.client_id: missing (a client secret "
		    "belongs to a pre-registered client_id)" },
		{ "{'grant': 'authorization_code', 'client_id': 'c', "
		    "'client_secret': 's', 'client_secret_file': '/s'}",
		    "mcpServers.x.oauth: client_secret and client_secret_file "
		    "exclude each other: give one" },
		{ "{'grant': 'client_credentials', 'client_id': 'c', "
		    "'client_secret': 's', 'client_metadata_url': "
		    "'https://app.example/c.json'}",
		    "mcpServers.x.oauth.client_metadata_url: only for a "
		    "sign-in (\"grant\": \"authorization_code\")" },
		{ "{'client_metadata_url': 'http://app.example/c.json'}",
		    "mcpServers.x.oauth.client_metadata_url: must be https:// "
		    "(or http:// on a loopback address): authorization servers "
		    "fetch it" },
		{ "{'client_metadata_url': 'c.json'}",
		    "mcpServers.x.oauth.client_metadata_url: expected an "
		    "absolute http:// or https:// URL" },
		{ "{'client_id': 'c', 'client_secret': 's',"
		    "'client_secret_file': '/s'}", "mcpServers.x.oauth: "
		    "client_secret, client_secret_file and private_key_file "
		    "exclude each other: give exactly one" },
		{ "{'client_id': 'c', 'client_secret': 's',"
		    "'private_key_file': '/k', 'signing_algorithm': 'ES256'}",
		    "mcpServers.x.oauth: client_secret, client_secret_file and "
		    "private_key_file exclude each other: give exactly one" },
		{ "{'client_id': 'c', 'private_key_file': '/k'}",
		    "mcpServers.x.oauth.signing_algorithm: missing (required "
		    "with private_key_file: \"ES256\" or \"RS256\")" },
		{ "{'client_id': 'c', 'client_secret': 's',"
		    "'signing_algorithm': 'ES256'}",
		    "mcpServers.x.oauth.signing_algorithm: only with "
		    "private_key_file" },
		{ "{'client_id': 'c', 'private_key_file': '/k',"
		    "'signing_algorithm': 'HS256'}",
		    "mcpServers.x.oauth.signing_algorithm: expected \"ES256\" "
		    "or \"RS256\"" },
		{ "{'client_id': 'c', 'private_key_file': '/k',"
		    "'signing_algorithm': 'es256'}",
		    "mcpServers.x.oauth.signing_algorithm: expected \"ES256\" "
		    "or \"RS256\"" },
		{ "{'client_id': 'c', 'private_key_file': 'k.pem',"
		    "'signing_algorithm': 'RS256'}",
		    "mcpServers.x.oauth.private_key_file: must be an absolute "
		    "path" },
		{ "{'client_id': 'c', 'client_secret_file': '~/s'}",
		    "mcpServers.x.oauth.client_secret_file: must be an "
		    "absolute path" },
		{ "{'client_id': '', 'client_secret': 's'}",
		    "mcpServers.x.oauth.client_id: must not be empty" },
		{ "{'client_id': 'c', 'client_secret': '${EMPTY}'}",
		    "mcpServers.x.oauth.client_secret: must not be empty" },
		{ "{'client_id': 'c', 'client_secret': 's', 'scope': 1}",
		    "mcpServers.x.oauth.scope: expected a string" },
		{ "{'client_id': 'c', 'client_secret': '${MISSING}'}",
		    "mcpServers.x.oauth.client_secret: ${MISSING} is not set" },
		{ "{'client_id': 'c', 'client_secret': 's',"
		    "'token_url': '/token'}", "mcpServers.x.oauth.token_url: "
		    "expected an absolute http:// or https:// URL" },
		{ "{'client_id': 'c', 'client_id': 'd', 'client_secret': 's'}",
		    "mcpServers.x.oauth.client_id: duplicate key" },
	};
	char		*text;
	size_t		 i;

	for (i = 0; i < nitems(bad); i++) {
		xasprintf(&text, "{%s, 'oauth': %s}", u, bad[i].oauth);
		expect_server_error(text, bad[i].error);
		free(text);
	}
	/* oauth sends its own Authorization. */
	expect_server_error("{'url': 'https://h.example/', 'headers': "
	    "{'authorization': 'Bearer x'}, 'oauth': {'client_id': 'c',"
	    "'client_secret': 's'}}", "mcpServers.x.headers.authorization: "
	    "not with oauth, which sends its own");
}
END_TEST

START_TEST(test_remote_warnings)
{
	struct conf			*conf;
	const char			*loopback[] = { "localhost",
					    "LocalHost:8080", "127.0.0.1",
					    "127.1.2.3:9", "[::1]:3000",
					    "mcp.localhost" };
	char				*text;
	size_t				 i;

	expect_warning("{'mcpServers': {'x': {'url': 'https://h.example/',"
	    "'cwd': '/srv'}}}",
	    "mcpServers.x.cwd: ignored on a remote server (url)");
	/* Ignored, so not checked either. */
	expect_warning("{'mcpServers': {'x': {'url': 'https://h.example/',"
	    "'cwd': 'relative'}}}",
	    "mcpServers.x.cwd: ignored on a remote server (url)");
	expect_warning("{'mcpServers': {'x': {'url': 'https://h.example/',"
	    "'bogus': 1}}}", "mcpServers.x.bogus: unknown key, ignored");
	expect_warning("{'mcpServers': {'x': {'url': 'https://h.example/',"
	    "'envFile': '.env'}}}",
	    "mcpServers.x.envFile: ignored on a remote server (url)");
	expect_warning("{'mcpServers': {'x': {'url': 'https://h.example/',"
	    "'oauth': {'client_id': 'c', 'client_secret': 's',"
	    "'grant_type': 'x'}}}}",
	    "mcpServers.x.oauth.grant_type: unknown key, ignored");
	/* Credentials in clear text over the network. */
	expect_warning("{'mcpServers': {'x': {'url': 'http://h.example/mcp',"
	    "'oauth': {'client_id': 'c', 'client_secret': 's'}}}}",
	    "mcpServers.x.oauth: the url is plain http:// to a host that is "
	    "not loopback: credentials would cross the network unencrypted "
	    "(use https://)");
	expect_warning("{'mcpServers': {'x': {'url': 'HTTP://10.0.0.1/mcp',"
	    "'oauth': {'client_id': 'c', 'client_secret': 's'}}}}",
	    "mcpServers.x.oauth: the url is plain http:// to a host that is "
	    "not loopback: credentials would cross the network unencrypted "
	    "(use https://)");
	expect_warning("{'mcpServers': {'x': {'url': 'https://h.example/',"
	    "'oauth': {'client_id': 'c', 'client_secret': 's',"
	    "'token_url': 'http://as.example/token'}}}}",
	    "mcpServers.x.oauth.token_url: plain http:// to a host that is "
	    "not loopback: credentials would cross the network unencrypted "
	    "(use https://)");
	expect_warning("{'mcpServers': {'x': {'url': 'http://127.0.0.1.evil."
	    "example/', 'oauth': {'client_id': 'c', 'client_secret': 's'}}}}",
	    "mcpServers.x.oauth: the url is plain http:// to a host that is "
	    "not loopback: credentials would cross the network unencrypted "
	    "(use https://)");
	for (i = 0; i < nitems(loopback); i++) {
		xasprintf(&text, "{'mcpServers': {'x': {'url': 'http://%s/m',"
		    "'oauth': {'client_id': 'c', 'client_secret': 's',"
		    "'token_url': 'http://%s/t'}}}}", loopback[i],
		    loopback[i]);
		conf = parse_ok(text);
		free(text);
		conf_free(conf);
	}
	/* Without oauth, plain http:// is the user's business. */
	conf = parse_ok("{'mcpServers': {'x': {'url': 'http://h.example/'}}}");
	conf_free(conf);
}
END_TEST

/* Secrets in a url, headers or oauth never show in a diagnostic. */
START_TEST(test_remote_secrets_never_in_diags)
{
	struct conf_diags	 d;
	struct conf		*conf;
	size_t			 i;

	conf = parse("{'mcpServers': {"
	    "'a': {'url': 'https://h.example/?key=PASSW0RD x',"
	    "  'headers': {'X-Key': 'PASSW0RD\\r\\n', 'X-T': '${TOKEN}\\n',"
	    "  'Bad Name': 'PASSW0RD', 'Host': 'PASSW0RD',"
	    "  'X-I': '${CRLF}'},"
	    "  'oauth': {'client_id': 'PASSW0RD', 'client_secret': "
	    "  'PASSW0RD', 'client_secret_file': 'PASSW0RD',"
	    "  'private_key_file': 'PASSW0RD', 'signing_algorithm': "
	    "  'PASSW0RD', 'token_url': 'PASSW0RD', 'bogus': 'PASSW0RD'},"
	    "  'ca_file': 'PASSW0RD', 'command': 'PASSW0RD'},"
	    "'b': {'url': '${TOKEN}', 'oauth': {'client_id': '${TOKEN}',"
	    "  'client_secret': '${TOKEN}', 'signing_algorithm': '${TOKEN}',"
	    "  'token_url': 'ftp://${TOKEN}'}},"
	    "'c': {'url': 'http://${TOKEN}.example:1${TOKEN}/',"
	    "  'headers': {'Authorization': '${TOKEN}'},"
	    "  'oauth': {'client_id': 'c', 'client_secret': '${TOKEN}'}}}}",
	    &d);
	ck_assert_ptr_null(conf);
	ck_assert_uint_ge(d.nerrors, 12);
	for (i = 0; i < d.n; i++) {
		ck_assert_msg(strstr(d.v[i].text, SECRET) == NULL &&
		    strstr(d.v[i].text, "PASSW0RD") == NULL &&
		    strstr(d.v[i].text, "Injected") == NULL,
		    "secret leaked: %s", d.v[i].text);
	}
	assert_diag(&d, CONF_ERROR, "mcpServers.a.headers.X-I: the value "
	    "holds a control character (a line break?)");
	assert_diag(&d, CONF_ERROR, "mcpServers.c.url: has an invalid port");
	assert_diag(&d, CONF_ERROR, "mcpServers.b.url: expected an absolute "
	    "http:// or https:// URL");
	conf_diags_free(&d);
}
END_TEST

START_TEST(test_remote_display_unexpanded)
{
	struct conf			*conf;
	const struct conf_server	*cs;
	struct conf_server		*copy;

	conf = parse_ok("{'mcpServers': {'x': {"
	    "'url': 'http://127.0.0.1:${PORT}/mcp?key=${TOKEN}'}}}");
	cs = &conf->servers[0];
	ck_assert_str_eq(cs->url, "http://127.0.0.1:8080/mcp?key=" SECRET);
	ck_assert_str_eq(cs->url_display,
	    "http://127.0.0.1:${PORT}/mcp?key=${TOKEN}");
	copy = conf_server_dup(cs);
	ck_assert_ptr_ne(copy->url_display, cs->url_display);
	ck_assert_str_eq(copy->url_display, cs->url_display);
	ck_assert_ptr_ne(copy->url, cs->url);
	ck_assert_str_eq(copy->url, cs->url);
	conf_server_release(copy);
	conf_free(conf);
}
END_TEST

START_TEST(test_remote_dup)
{
	struct conf			*conf;
	const struct conf_server	*cs;
	struct conf_server		*copy;
	size_t				 i;

	conf = parse_ok("{'mcpServers': {'x': {'type': 'sse',"
	    "'url': 'https://h.example/sse', 'ca_file': '/etc/ca.pem',"
	    "'connect_timeout_ms': 77,"
	    "'headers': {'X-A': '1', 'X-B': '${TOKEN}'},"
	    "'oauth': {'client_id': 'c', 'private_key_file': '/k.pem',"
	    "  'signing_algorithm': 'ES256', 'token_url': 'https://a/t',"
	    "  'scope': 's', 'resource': 'r', 'jwt_audience': 'j'}}}}");
	cs = &conf->servers[0];
	copy = conf_server_dup(cs);
	/* Conf goes away first: the copy owns everything. */
	conf_free(conf);
	ck_assert_int_eq(copy->transport, CONF_TRANSPORT_SSE);
	ck_assert_str_eq(copy->url, "https://h.example/sse");
	ck_assert_str_eq(copy->url_display, "https://h.example/sse");
	ck_assert_str_eq(copy->ca_file, "/etc/ca.pem");
	ck_assert_uint_eq(copy->connect_timeout_ms, 77);
	ck_assert_uint_eq(copy->nheaders, 2);
	ck_assert_str_eq(copy->headers[0], "X-A: 1");
	ck_assert_str_eq(copy->headers[1], "X-B: " SECRET);
	ck_assert_ptr_null(copy->headers[2]);
	ck_assert_int_eq(copy->has_oauth, 1);
	ck_assert_str_eq(copy->oauth.client_id, "c");
	ck_assert_ptr_null(copy->oauth.client_secret);
	ck_assert_ptr_null(copy->oauth.client_secret_file);
	ck_assert_str_eq(copy->oauth.private_key_file, "/k.pem");
	ck_assert_str_eq(copy->oauth.signing_algorithm, "ES256");
	ck_assert_str_eq(copy->oauth.token_url, "https://a/t");
	ck_assert_str_eq(copy->oauth.scope, "s");
	ck_assert_str_eq(copy->oauth.resource, "r");
	ck_assert_str_eq(copy->oauth.jwt_audience, "j");
	ck_assert_uint_eq(copy->argc, 1);
	ck_assert_str_eq(copy->argv[0], "mcpd-remote");
	ck_assert_ptr_null(copy->argv[1]);
	ck_assert_str_eq(copy->argv_display[0], "mcpd-remote");
	for (i = 0; i < copy->nheaders; i++)
		ck_assert_ptr_nonnull(strchr(copy->headers[i], ':'));
	ck_assert_int_eq(conf_server_equal(copy, copy), 1);
	conf_server_release(copy);
	conf_server_release(NULL);
}
END_TEST

START_TEST(test_remote_equal)
{
	const char	*base = "'url': 'https://h.example/mcp',"
			    "'headers': {'X-A': '1', 'Authorization': "
			    "'Bearer ${TOKEN}'}, 'ca_file': '/ca.pem'";
	const char	*oauth = "'url': 'https://h.example/mcp',"
			    "'oauth': {'client_id': 'c', 'client_secret': 's',"
			    "'scope': 'a'}";
	/* One thing differs from base in each. */
	const char	*variants[] = {
		"'url': 'https://h.example/mcp2',"
		    "'headers': {'X-A': '1', 'Authorization': "
		    "'Bearer ${TOKEN}'}, 'ca_file': '/ca.pem'",
		"'url': 'https://h.example/mcp',"
		    "'headers': {'X-A': '2', 'Authorization': "
		    "'Bearer ${TOKEN}'}, 'ca_file': '/ca.pem'",
		"'url': 'https://h.example/mcp',"
		    "'headers': {'X-A': '1', 'Authorization': "
		    "'Bearer ${PORT}'}, 'ca_file': '/ca.pem'",
		"'url': 'https://h.example/mcp',"
		    "'headers': {'X-A': '1'}, 'ca_file': '/ca.pem'",
		"'url': 'https://h.example/mcp',"
		    "'headers': {'X-A': '1', 'Authorization': "
		    "'Bearer ${TOKEN}', 'X-B': ''}, 'ca_file': '/ca.pem'",
		"'url': 'https://h.example/mcp',"
		    "'headers': {'x-a': '1', 'Authorization': "
		    "'Bearer ${TOKEN}'}, 'ca_file': '/ca.pem'",
		"'url': 'https://h.example/mcp',"
		    "'headers': {'X-A': '1', 'Authorization': "
		    "'Bearer ${TOKEN}'}",
		"'url': 'https://h.example/mcp',"
		    "'headers': {'X-A': '1', 'Authorization': "
		    "'Bearer ${TOKEN}'}, 'ca_file': '/ca2.pem'",
		"'url': 'https://h.example/mcp', 'type': 'http',"
		    "'headers': {'X-A': '1', 'Authorization': "
		    "'Bearer ${TOKEN}'}, 'ca_file': '/ca.pem'",
		"'url': 'https://h.example/mcp', 'connect_timeout_ms': 1,"
		    "'headers': {'X-A': '1', 'Authorization': "
		    "'Bearer ${TOKEN}'}, 'ca_file': '/ca.pem'",
		"'url': 'https://h.example/mcp', 'env': {'no_proxy': '*'},"
		    "'headers': {'X-A': '1', 'Authorization': "
		    "'Bearer ${TOKEN}'}, 'ca_file': '/ca.pem'",
		"'url': 'https://h.example/mcp', 'request_timeout_ms': 1,"
		    "'headers': {'X-A': '1', 'Authorization': "
		    "'Bearer ${TOKEN}'}, 'ca_file': '/ca.pem'",
		"'command': 'mcpd-remote'",
	};
	const char	*oauth_variants[] = {
		"'url': 'https://h.example/mcp'",
		"'url': 'https://h.example/mcp',"
		    "'oauth': {'client_id': 'd', 'client_secret': 's',"
		    "'scope': 'a'}",
		"'url': 'https://h.example/mcp',"
		    "'oauth': {'client_id': 'c', 'client_secret': 't',"
		    "'scope': 'a'}",
		"'url': 'https://h.example/mcp',"
		    "'oauth': {'client_id': 'c', 'client_secret_file': '/s',"
		    "'scope': 'a'}",
		"'url': 'https://h.example/mcp',"
		    "'oauth': {'client_id': 'c', 'client_secret': 's'}",
		"'url': 'https://h.example/mcp',"
		    "'oauth': {'client_id': 'c', 'client_secret': 's',"
		    "'scope': 'b'}",
		"'url': 'https://h.example/mcp',"
		    "'oauth': {'client_id': 'c', 'client_secret': 's',"
		    "'scope': 'a', 'resource': 'r'}",
		"'url': 'https://h.example/mcp',"
		    "'oauth': {'client_id': 'c', 'client_secret': 's',"
		    "'scope': 'a', 'token_url': 'https://a/t'}",
		"'url': 'https://h.example/mcp',"
		    "'oauth': {'client_id': 'c', 'client_secret': 's',"
		    "'scope': 'a', 'jwt_audience': 'j'}",
		"'url': 'https://h.example/mcp',"
		    "'oauth': {'client_id': 'c', 'private_key_file': '/k',"
		    "'signing_algorithm': 'ES256', 'scope': 'a'}",
	};
	struct conf	*a, *b;
	char		*text;
	size_t		 i;

	xasprintf(&text, "{'mcpServers': {'s': {%s}}}", base);
	a = parse_ok(text);
	free(text);
	/* The same, written otherwise: other shape, order, ${} or not. */
	b = parse_ok("{'servers': {'s': {'ca_file': '/ca.pem', 'headers': {"
	    "'Authorization': 'Bearer " SECRET "', 'X-A': '${UNSET:-1}'},"
	    "'url': 'https://h.example/${UNSET:-mcp}'}},"
	    "'mcpd': {'connect_timeout_ms': 10000}}");
	ck_assert_int_eq(conf_server_equal(&a->servers[0], &b->servers[0]), 1);
	ck_assert_int_eq(conf_server_equal(&b->servers[0], &a->servers[0]), 1);
	conf_free(b);
	for (i = 0; i < nitems(variants); i++) {
		xasprintf(&text, "{'mcpServers': {'s': {%s}}}", variants[i]);
		b = parse_ok(text);
		free(text);
		ck_assert_msg(!conf_server_equal(&a->servers[0],
		    &b->servers[0]), "variant %zu compared equal", i);
		ck_assert_msg(!conf_server_equal(&b->servers[0],
		    &a->servers[0]), "variant %zu compared equal", i);
		conf_free(b);
	}
	/* connect_timeout_ms from "mcpd" counts for a remote server... */
	xasprintf(&text, "{'mcpd': {'connect_timeout_ms': 5},"
	    "'mcpServers': {'s': {%s}}}", base);
	b = parse_ok(text);
	free(text);
	ck_assert_int_eq(conf_server_equal(&a->servers[0], &b->servers[0]), 0);
	conf_free(b);
	conf_free(a);
	/* ...and not for a stdio one, which it does not change. */
	a = parse_ok("{'mcpServers': {'s': {'command': 'c'}}}");
	b = parse_ok("{'mcpd': {'connect_timeout_ms': 5},"
	    "'mcpServers': {'s': {'command': 'c'}}}");
	ck_assert_int_eq(conf_server_equal(&a->servers[0], &b->servers[0]), 1);
	conf_free(b);
	conf_free(a);

	xasprintf(&text, "{'mcpServers': {'s': {%s}}}", oauth);
	a = parse_ok(text);
	free(text);
	xasprintf(&text, "{'servers': {'s': {%s}}}", oauth);
	b = parse_ok(text);
	free(text);
	ck_assert_int_eq(conf_server_equal(&a->servers[0], &b->servers[0]), 1);
	conf_free(b);
	for (i = 0; i < nitems(oauth_variants); i++) {
		xasprintf(&text, "{'mcpServers': {'s': {%s}}}",
		    oauth_variants[i]);
		b = parse_ok(text);
		free(text);
		ck_assert_msg(!conf_server_equal(&a->servers[0],
		    &b->servers[0]), "oauth variant %zu compared equal", i);
		ck_assert_msg(!conf_server_equal(&b->servers[0],
		    &a->servers[0]), "oauth variant %zu compared equal", i);
		conf_free(b);
	}
	conf_free(a);
}
END_TEST

/* A member of the settings object, as a string. */
static const char *
settings_str(const cJSON *o, const char *key)
{
	const cJSON	*item;

	item = cJSON_GetObjectItemCaseSensitive(o, key);
	ck_assert_msg(cJSON_IsString(item), "settings: no string %s", key);
	return (item->valuestring);
}

static double
settings_num(const cJSON *o, const char *key)
{
	const cJSON	*item;

	item = cJSON_GetObjectItemCaseSensitive(o, key);
	ck_assert_msg(cJSON_IsNumber(item), "settings: no number %s", key);
	return (item->valuedouble);
}

/* The worker's settings: parsed back, each member as rconf.h has it. */
START_TEST(test_remote_settings_json)
{
	struct conf			*conf;
	const struct conf_server	*cs;
	struct conf_server		*copy;
	cJSON				*o, *h, *oa;
	char				*s, *s2;

	conf = parse_ok("{'mcpd': {'request_timeout_ms': 4321},"
	    "'mcpServers': {'lin': {'type': 'streamableHttp',"
	    "'url': 'https://h.example/mcp?k=${TOKEN}',"
	    "'headers': {'X-Api-Key': 'Bearer ${TOKEN}',"
	    "  'X-Q': 'a\\\"b\\\\c\\td', 'X-U': 'caf\\u00e9', 'X-E': ''},"
	    "'ca_file': '/etc/ca.pem', 'connect_timeout_ms': 1234,"
	    "'max_message_bytes': 65536,"
	    "'oauth': {'client_id': 'id\\\"1', 'private_key_file': '/k.pem',"
	    "  'signing_algorithm': 'RS256', 'scope': 'a b'}},"
	    "'plain': {'url': 'http://localhost/sse', 'type': 'sse'},"
	    "'auto': {'url': 'https://h.example/'}}}");
	cs = conf_find(conf, "lin");
	s = conf_remote_settings(cs, NULL);
	ck_assert_ptr_nonnull(s);
	o = cJSON_Parse(s);
	ck_assert_msg(cJSON_IsObject(o), "not JSON: %s", s);
	ck_assert_double_eq(settings_num(o, "mcpd_remote"), 1);
	ck_assert_str_eq(settings_str(o, "name"), "lin");
	ck_assert_str_eq(settings_str(o, "url"),
	    "https://h.example/mcp?k=" SECRET);
	ck_assert_str_eq(settings_str(o, "transport"), "http");
	ck_assert_str_eq(settings_str(o, "ca_file"), "/etc/ca.pem");
	ck_assert_double_eq(settings_num(o, "connect_timeout_ms"), 1234);
	ck_assert_double_eq(settings_num(o, "request_timeout_ms"), 4321);
	ck_assert_double_eq(settings_num(o, "max_message_bytes"), 65536);
	h = cJSON_GetObjectItemCaseSensitive(o, "headers");
	ck_assert(cJSON_IsObject(h));
	ck_assert_int_eq(cJSON_GetArraySize(h), 4);
	ck_assert_str_eq(settings_str(h, "X-Api-Key"), "Bearer " SECRET);
	ck_assert_str_eq(settings_str(h, "X-Q"), "a\"b\\c\td");
	ck_assert_str_eq(settings_str(h, "X-U"), "caf\xc3\xa9");
	ck_assert_str_eq(settings_str(h, "X-E"), "");
	oa = cJSON_GetObjectItemCaseSensitive(o, "oauth");
	ck_assert(cJSON_IsObject(oa));
	/* Only the keys set, and the grant they mean. */
	ck_assert_int_eq(cJSON_GetArraySize(oa), 5);
	ck_assert_str_eq(settings_str(oa, "grant"), "client_credentials");
	ck_assert_str_eq(settings_str(oa, "client_id"), "id\"1");
	ck_assert_str_eq(settings_str(oa, "private_key_file"), "/k.pem");
	ck_assert_str_eq(settings_str(oa, "signing_algorithm"), "RS256");
	ck_assert_str_eq(settings_str(oa, "scope"), "a b");
	ck_assert_int_eq(cJSON_GetArraySize(o), 10);
	cJSON_Delete(o);
	/* One line: it could be framed as one. */
	ck_assert_ptr_null(strchr(s, '\n'));

	/* A copy says the same. */
	copy = conf_server_dup(cs);
	s2 = conf_remote_settings(copy, NULL);
	ck_assert_str_eq(s, s2);
	free(s2);
	conf_server_release(copy);
	free(s);

	/*
	 * Without ca_file or oauth: no ca_file, and oauth says only that it
	 * may sign in; headers still there.
	 */
	s = conf_remote_settings(conf_find(conf, "plain"), NULL);
	o = cJSON_Parse(s);
	ck_assert_msg(cJSON_IsObject(o), "not JSON: %s", s);
	ck_assert_str_eq(settings_str(o, "transport"), "sse");
	ck_assert_str_eq(settings_str(o, "url"), "http://localhost/sse");
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(o, "ca_file"));
	h = cJSON_GetObjectItemCaseSensitive(o, "oauth");
	ck_assert_int_eq(cJSON_GetArraySize(h), 1);
	ck_assert_str_eq(settings_str(h, "grant"), "authorization_code");
	h = cJSON_GetObjectItemCaseSensitive(o, "headers");
	ck_assert(cJSON_IsObject(h));
	ck_assert_int_eq(cJSON_GetArraySize(h), 0);
	ck_assert_double_eq(settings_num(o, "connect_timeout_ms"),
	    CONF_DEFAULT_CONNECT_TIMEOUT_MS);
	ck_assert_double_eq(settings_num(o, "request_timeout_ms"), 4321);
	ck_assert_double_eq(settings_num(o, "max_message_bytes"),
	    CONF_DEFAULT_MAX_MESSAGE_BYTES);
	cJSON_Delete(o);
	free(s);

	s = conf_remote_settings(conf_find(conf, "auto"), NULL);
	o = cJSON_Parse(s);
	ck_assert_str_eq(settings_str(o, "transport"), "auto");
	cJSON_Delete(o);
	free(s);
	conf_free(conf);
}
END_TEST

START_TEST(test_expansion)
{
	struct {
		const char	*in;
		const char	*out;
	} ok[] = {
		{ "${HOME_DIR}", "/home/ada" },
		{ "--dir=${HOME_DIR}/x:${PORT}", "--dir=/home/ada/x:8080" },
		{ "${UNSET:-fallback}", "fallback" },
		{ "${PORT:-1}", "8080" },
		{ "${UNSET:-}", "" },
		{ "${EMPTY}", "" },
		{ "${EMPTY:-dflt}", "dflt" },
		{ "${UNSET:-a:-b $x}", "a:-b $x" },
		{ "cost: $5", "cost: $5" },
		{ "$HOME_DIR", "$HOME_DIR" },
		{ "$", "$" },
		{ "a$$b", "a$b" },
		{ "$${HOME_DIR}", "${HOME_DIR}" },
		{ "$$$", "$$" },
		{ "{}", "{}" },
	};
	struct {
		const char	*in;
		const char	*error;
	} bad[] = {
		{ "${GITHUB_TOKEN}", "mcpServers.x.args[1]: ${GITHUB_TOKEN} "
		    "is not set" },
		{ "${HOME_DIR", "mcpServers.x.args[1]: unterminated \"${\" "
		    "(no closing \"}\")" },
		{ "x${", "mcpServers.x.args[1]: unterminated \"${\" "
		    "(no closing \"}\")" },
		{ "${}", "mcpServers.x.args[1]: empty variable name in "
		    "\"${}\"" },
		{ "${:-d}", "mcpServers.x.args[1]: empty variable name in "
		    "\"${}\"" },
		{ "${input:key}", "mcpServers.x.args[1]: invalid variable "
		    "name in \"${}\": use letters, digits and '_'" },
		{ "${1X}", "mcpServers.x.args[1]: invalid variable "
		    "name in \"${}\": use letters, digits and '_'" },
	};
	char	*out, *error, arg[64];
	size_t	 i;

	for (i = 0; i < nitems(ok); i++) {
		out = expand_arg(ok[i].in, &error);
		ck_assert_msg(out != NULL, "%s: %s", ok[i].in, error);
		ck_assert_msg(strcmp(out, ok[i].out) == 0,
		    "%s expanded to \"%s\", expected \"%s\"", ok[i].in, out,
		    ok[i].out);
		free(out);
	}
	for (i = 0; i < nitems(bad); i++) {
		/* args[0] is a plain word so the bad one is args[1]. */
		snprintf(arg, sizeof arg, "w', '%s", bad[i].in);
		out = expand_arg(arg, &error);
		ck_assert_msg(out == NULL, "%s: expanded to \"%s\"", bad[i].in,
		    out);
		ck_assert_msg(strcmp(error, bad[i].error) == 0,
		    "%s: got \"%s\", expected \"%s\"", bad[i].in, error,
		    bad[i].error);
		free(error);
	}
}
END_TEST

START_TEST(test_expansion_everywhere)
{
	struct conf			*conf;
	const struct conf_server	*cs;
	struct conf_diags		 d;

	conf = parse_ok("{'mcpServers': {'x': {'command': '${HOME_DIR}/bin/s',"
	    "'args': ['--port', '${PORT}'], 'env': {'T': '${TOKEN}'},"
	    "'cwd': '${HOME_DIR}'}}}");
	cs = &conf->servers[0];
	ck_assert_str_eq(cs->argv[0], "/home/ada/bin/s");
	ck_assert_str_eq(cs->argv[2], "8080");
	ck_assert_str_eq(cs->env[0], "T=" SECRET);
	ck_assert_str_eq(cs->cwd, "/home/ada");
	conf_free(conf);

	/* Every unset variable in every field is reported. */
	conf = parse("{'mcpServers': {'x': {'command': '${A1}',"
	    "'args': ['${A2}', '${A3}-${A4}'],"
	    "'env': {'TOKEN': '${GITHUB_TOKEN}'},"
	    "'cwd': '${A5}'}}}", &d);
	ck_assert_ptr_null(conf);
	ck_assert_uint_eq(d.nerrors, 6);
	assert_diag(&d, CONF_ERROR, "mcpServers.x.command: ${A1} is not set");
	assert_diag(&d, CONF_ERROR, "mcpServers.x.args[0]: ${A2} is not set");
	assert_diag(&d, CONF_ERROR, "mcpServers.x.args[1]: ${A3} is not set");
	assert_diag(&d, CONF_ERROR, "mcpServers.x.args[1]: ${A4} is not set");
	assert_diag(&d, CONF_ERROR,
	    "mcpServers.x.env.TOKEN: ${GITHUB_TOKEN} is not set");
	assert_diag(&d, CONF_ERROR, "mcpServers.x.cwd: ${A5} is not set");
	conf_diags_free(&d);
}
END_TEST

/*
 * Beside what runs, the text as written: what status and logs show, so that
 * a secret in "${VAR}" never does.
 */
START_TEST(test_display_unexpanded)
{
	struct conf			*conf, *other;
	const struct conf_server	*cs;
	struct conf_server		*copy;
	size_t				 i;

	conf = parse_ok("{'mcpServers': {'x': {'command': '${HOME_DIR}/bin/s',"
	    "'args': ['--token=${TOKEN}', 'plain', 'a$$b', '${UNSET:-d}'],"
	    "'env': {'T': '${TOKEN}'}, 'cwd': '${HOME_DIR:-/}'},"
	    "'y': {'command': 'plain'}}}");
	cs = &conf->servers[0];
	ck_assert_uint_eq(cs->argc, 5);
	ck_assert_str_eq(cs->argv[0], "/home/ada/bin/s");
	ck_assert_str_eq(cs->argv[1], "--token=" SECRET);
	ck_assert_str_eq(cs->argv[3], "a$b");
	ck_assert_str_eq(cs->argv_display[0], "${HOME_DIR}/bin/s");
	ck_assert_str_eq(cs->argv_display[1], "--token=${TOKEN}");
	ck_assert_str_eq(cs->argv_display[2], "plain");
	ck_assert_str_eq(cs->argv_display[3], "a$$b");
	ck_assert_str_eq(cs->argv_display[4], "${UNSET:-d}");
	ck_assert_ptr_null(cs->argv_display[5]);
	ck_assert_str_eq(cs->cwd, "/home/ada");
	ck_assert_str_eq(cs->cwd_display, "${HOME_DIR:-/}");
	for (i = 0; i < cs->argc; i++)
		ck_assert_ptr_null(strstr(cs->argv_display[i], SECRET));

	/* A copy keeps it. */
	copy = conf_server_dup(cs);
	ck_assert_ptr_ne(copy->argv_display, cs->argv_display);
	for (i = 0; i <= cs->argc; i++) {
		if (cs->argv_display[i] == NULL)
			ck_assert_ptr_null(copy->argv_display[i]);
		else
			ck_assert_str_eq(copy->argv_display[i],
			    cs->argv_display[i]);
	}
	ck_assert_str_eq(copy->cwd_display, cs->cwd_display);
	conf_server_release(copy);

	/* No cwd, no cwd_display; no "${", the same text. */
	cs = &conf->servers[1];
	ck_assert_ptr_null(cs->cwd);
	ck_assert_ptr_null(cs->cwd_display);
	ck_assert_uint_eq(cs->argc, 1);
	ck_assert_str_eq(cs->argv_display[0], "plain");
	ck_assert_ptr_null(cs->argv_display[1]);
	copy = conf_server_dup(cs);
	ck_assert_ptr_null(copy->cwd_display);
	conf_server_release(copy);

	/* Written differently, running the same: no restart on reload. */
	other = parse_ok("{'mcpServers': {'x': {'command': '/home/ada/bin/s',"
	    "'args': ['--token=" SECRET "', 'plain', 'a$b', 'd'],"
	    "'env': {'T': '" SECRET "'}, 'cwd': '/home/ada'}}}");
	ck_assert_int_eq(conf_server_equal(&conf->servers[0],
	    &other->servers[0]), 1);
	conf_free(other);
	conf_free(conf);
}
END_TEST

START_TEST(test_all_errors_collected)
{
	struct conf_diags	 d;
	struct conf		*conf;

	conf = parse("{'mcpd': {'backoff_jitter': 2, 'bogus': 1},"
	    "'mcpServers': {"
	    "'a': {'args': [1]},"
	    "'b c': {'command': 'c', 'cwd': 'rel', 'restart': 'no'}},"
	    "'servers': {'d': {'type': 'ws', 'command': 'c',"
	    "  'env': {'K': 1}, 'max_restarts': -1}},"
	    "'extra': true}", &d);
	ck_assert_ptr_null(conf);
	assert_diag(&d, CONF_ERROR, "mcpd.backoff_jitter: expected a number "
	    "between 0 and 1");
	assert_diag(&d, CONF_WARNING, "mcpd.bogus: unknown key, ignored");
	assert_diag(&d, CONF_ERROR, "mcpServers.a.args[0]: expected a string");
	assert_diag(&d, CONF_ERROR,
	    "mcpServers.a.command: missing (required for a stdio server)");
	assert_diag(&d, CONF_ERROR, "mcpServers.b c: invalid server name: "
	    "use 1 to 64 of A-Z a-z 0-9 . _ -");
	assert_diag(&d, CONF_ERROR,
	    "mcpServers.b c.cwd: must be an absolute path");
	assert_diag(&d, CONF_ERROR, "mcpServers.b c.restart: expected "
	    "\"always\", \"on-failure\" or \"never\"");
	assert_diag(&d, CONF_ERROR, "servers.d.type: expected \"stdio\", "
	    "\"http\" or \"sse\"");
	assert_diag(&d, CONF_ERROR, "servers.d.env.K: expected a string");
	assert_diag(&d, CONF_ERROR, "servers.d.max_restarts: expected an "
	    "integer between 0 and 10000");
	assert_diag(&d, CONF_WARNING, "extra: unknown key, ignored");
	ck_assert_msg(d.nerrors == 9 && d.n == 11, "got:\n%s", all_diags(&d));
	conf_diags_free(&d);
}
END_TEST

START_TEST(test_diags_accumulate)
{
	struct conf_diags	 d;
	struct conf		*conf;
	const char		*bad = "{'x': 1, 'mcpServers': {'a': {}}}";
	char			*json;

	/* A second parse appends, and fails only on its own errors. */
	conf = parse(bad, &d);
	ck_assert_ptr_null(conf);
	ck_assert_uint_eq(d.n, 2);
	conf = conf_parse("{}", 2, test_getenv, NULL, &d);
	ck_assert_ptr_nonnull(conf);
	conf_free(conf);
	json = cfg(bad);
	ck_assert_ptr_null(conf_parse(json, strlen(json), test_getenv, NULL,
	    &d));
	free(json);
	ck_assert_uint_eq(d.n, 4);
	ck_assert_uint_eq(d.nerrors, 2);
	conf_diags_free(&d);
	ck_assert_uint_eq(d.n, 0);
	ck_assert_uint_eq(d.nerrors, 0);
	ck_assert_ptr_null(d.v);
	conf_free(NULL);
}
END_TEST

START_TEST(test_secrets_never_in_diags)
{
	struct conf_diags	 d;
	struct conf		*conf;
	size_t			 i;

	conf = parse("{'mcpServers': {'x': {'command': 'c',"
	    "'args': ['--token=literal-PASSW0RD-9', 7],"
	    "'env': {'API_KEY': 'literal-PASSW0RD-9',"
	    "  'GH': '${TOKEN}', 'BAD=K': 'literal-PASSW0RD-9',"
	    "  'N': 5, 'U': '${TOKEN}${MISSING}'},"
	    "'cwd': '${TOKEN}', 'bogus': 'literal-PASSW0RD-9'}}}", &d);
	ck_assert_ptr_null(conf);
	ck_assert_uint_ge(d.nerrors, 4);
	for (i = 0; i < d.n; i++) {
		ck_assert_msg(strstr(d.v[i].text, SECRET) == NULL &&
		    strstr(d.v[i].text, "PASSW0RD") == NULL,
		    "secret leaked: %s", d.v[i].text);
	}
	assert_diag(&d, CONF_ERROR, "mcpServers.x.cwd: must be an absolute "
	    "path");
	assert_diag(&d, CONF_ERROR, "mcpServers.x.env.U: ${MISSING} is not "
	    "set");
	conf_diags_free(&d);
}
END_TEST

static const char *
tmp_dir(void)
{
	const char	*dir;

	if ((dir = getenv("TMPDIR")) == NULL || *dir == '\0')
		dir = "/tmp";
	return (dir);
}

/* A temporary file holding text, with the given mode. */
static char *
write_file(const char *text, mode_t mode)
{
	char	*path, *json;
	int	 fd;

	xasprintf(&path, "%s/test_conf.XXXXXX", tmp_dir());
	fd = mkstemp(path);
	ck_assert_int_ne(fd, -1);
	json = cfg(text);
	ck_assert_int_eq(write(fd, json, strlen(json)), (int)strlen(json));
	free(json);
	ck_assert_int_eq(fchmod(fd, mode), 0);
	close(fd);
	return (path);
}

static void
expect_load_refused(mode_t mode, const char *mode_text)
{
	struct conf_diags	 d;
	char			*path, *expected;

	path = write_file("{'mcpServers': {'x': {'command': 'c'}}}", mode);
	conf_diags_init(&d);
	ck_assert_ptr_null(conf_load(path, &d));
	xasprintf(&expected, "%s: is group- or world-writable (mode %s); "
	    "refusing to use it: it decides what mcpd executes (chmod go-w "
	    "%s)", path, mode_text, path);
	assert_diag(&d, CONF_ERROR, expected);
	ck_assert_uint_eq(d.n, 1);
	free(expected);
	conf_diags_free(&d);
	unlink(path);
	free(path);
}

START_TEST(test_load_refuses_writable)
{
	expect_load_refused(0620, "0620");
	expect_load_refused(0602, "0602");
	expect_load_refused(0664, "0664");
	expect_load_refused(0666, "0666");
}
END_TEST

START_TEST(test_load_accepts)
{
	struct conf_diags	 d;
	struct conf		*conf;
	char			*path;
	mode_t			 modes[] = { 0600, 0644, 0400 };
	size_t			 i;

	for (i = 0; i < nitems(modes); i++) {
		path = write_file("{'mcpServers': {'x': {'command': 'c',"
		    "'args': ['${MCPD_TEST_CONF_VAR:-d}']}}}", modes[i]);
		conf_diags_init(&d);
		conf = conf_load(path, &d);
		ck_assert_msg(conf != NULL, "mode %o:\n%s",
		    (unsigned int)modes[i], all_diags(&d));
		ck_assert_uint_eq(d.n, 0);
		ck_assert_str_eq(conf->file, path);
		ck_assert_uint_eq(conf->nservers, 1);
		ck_assert_str_eq(conf->servers[0].argv[1], "d");
		conf_free(conf);
		conf_diags_free(&d);
		unlink(path);
		free(path);
	}
}
END_TEST

START_TEST(test_load_uses_getenv)
{
	struct conf_diags	 d;
	struct conf		*conf;
	char			*path;

	ck_assert_int_eq(setenv("MCPD_TEST_CONF_VAR", "from-env", 1), 0);
	path = write_file("{'mcpServers': {'x': {'command': "
	    "'${MCPD_TEST_CONF_VAR}', 'args': ['${MCPD_TEST_CONF_UNSET}']}}}",
	    0600);
	conf_diags_init(&d);
	ck_assert_ptr_null(conf_load(path, &d));
	assert_diag(&d, CONF_ERROR,
	    "mcpServers.x.args[0]: ${MCPD_TEST_CONF_UNSET} is not set");
	ck_assert_uint_eq(d.n, 1);
	conf_diags_free(&d);
	unlink(path);
	free(path);

	path = write_file("{'mcpServers': {'x': {'command': "
	    "'${MCPD_TEST_CONF_VAR}'}}}", 0600);
	conf = conf_load(path, &d);
	ck_assert_ptr_nonnull(conf);
	ck_assert_str_eq(conf->servers[0].argv[0], "from-env");
	conf_free(conf);
	conf_diags_free(&d);
	unlink(path);
	free(path);
	unsetenv("MCPD_TEST_CONF_VAR");
}
END_TEST

START_TEST(test_load_errors)
{
	struct conf_diags	 d;
	char			*dir, *path, *expected;
	off_t			 big = 16 * 1024 * 1024 + 1;
	int			 fd;

	xasprintf(&dir, "%s/test_conf_dir.XXXXXX", tmp_dir());
	ck_assert_ptr_nonnull(mkdtemp(dir));
	conf_diags_init(&d);

	xasprintf(&path, "%s/missing.json", dir);
	ck_assert_ptr_null(conf_load(path, &d));
	xasprintf(&expected, "%s: No such file or directory", path);
	assert_diag(&d, CONF_ERROR, expected);
	free(expected);
	free(path);
	conf_diags_free(&d);

	ck_assert_int_eq(chmod(dir, 0700), 0);
	ck_assert_ptr_null(conf_load(dir, &d));
	xasprintf(&expected, "%s: not a regular file", dir);
	assert_diag(&d, CONF_ERROR, expected);
	free(expected);
	conf_diags_free(&d);

	/* JSON errors name the file. */
	path = write_file("{\n'mcpServers': x}", 0600);
	ck_assert_ptr_null(conf_load(path, &d));
	xasprintf(&expected, "%s: line 2, column 15: invalid JSON", path);
	assert_diag(&d, CONF_ERROR, expected);
	free(expected);
	conf_diags_free(&d);
	unlink(path);
	free(path);

	/* Over the size cap. */
	path = write_file("{}", 0600);
	fd = open(path, O_WRONLY);
	ck_assert_int_ne(fd, -1);
	ck_assert_int_eq(ftruncate(fd, big), 0);
	close(fd);
	ck_assert_ptr_null(conf_load(path, &d));
	xasprintf(&expected, "%s: larger than 16777216 bytes", path);
	assert_diag(&d, CONF_ERROR, expected);
	free(expected);
	conf_diags_free(&d);
	unlink(path);
	free(path);

	rmdir(dir);
	free(dir);
}
END_TEST

/* conf_load's verdict on path: "ok", or its first diagnostic. */
static char *
load_verdict(const char *path)
{
	struct conf_diags	 d;
	struct conf		*conf;
	char			*verdict;

	conf_diags_init(&d);
	conf = conf_load(path, &d);
	if (conf != NULL)
		verdict = xstrdup("ok");
	else if (d.n > 0)
		verdict = xstrdup(d.v[0].text);
	else
		verdict = xstrdup("refused without a diagnostic");
	conf_free(conf);
	conf_diags_free(&d);
	return (verdict);
}

#define assert_verdict(path, expected) do {				\
	char	*verdict_ = load_verdict(path);				\
									\
	ck_assert_msg(strcmp(verdict_, (expected)) == 0,		\
	    "%s: got \"%s\", expected \"%s\"", (path), verdict_,	\
	    (expected));						\
	free(verdict_);							\
} while (0)

static void
user_text(uid_t uid, char *buf, size_t size)
{
	struct passwd	*pw;

	if ((pw = getpwuid(uid)) != NULL)
		snprintf(buf, size, "uid %lu (%s)", (unsigned long)uid,
		    pw->pw_name);
	else
		snprintf(buf, size, "uid %lu", (unsigned long)uid);
}

/* A config at path, mode 0644, owned by uid. */
static void
place_file(const char *path, uid_t uid)
{
	char	*tmp;

	tmp = write_file("{'mcpServers': {}}", 0644);
	ck_assert_int_eq(rename(tmp, path), 0);
	ck_assert_int_eq(chown(path, uid, (gid_t)-1), 0);
	free(tmp);
}

/* A uid no user has, for an owner without a name. */
static uid_t
unnamed_uid(void)
{
	uid_t	 uid;

	for (uid = 42000; getpwuid(uid) != NULL; uid++)
		;
	return (uid);
}

/*
 * As root: only root's files, in directories only root can change; a
 * symbolic link is followed to the file it names.  Needs root to chown.
 */
START_TEST(test_load_owner_root)
{
	struct passwd	*pw;
	char		*dir, *real, *sub, *path, *link, *expected;
	char		 owner[256];
	uid_t		 nobody;

	if (geteuid() != 0 || (pw = getpwnam("nobody")) == NULL) {
		printf("test_load_owner_root: skipped (needs root and a user "
		    "nobody)\n");
		return;
	}
	nobody = pw->pw_uid;
	user_text(nobody, owner, sizeof owner);
	xasprintf(&dir, "%s/test_conf_owner.XXXXXX", tmp_dir());
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_ptr_nonnull(real = realpath(dir, NULL));
	xasprintf(&sub, "%s/etc", dir);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	xasprintf(&path, "%s/mcpd.json", sub);
	xasprintf(&link, "%s/link.json", dir);
	ck_assert_int_eq(symlink(path, link), 0);
	place_file(path, 0);

	ck_assert_int_eq(chmod(dir, 0755), 0);
	assert_verdict(path, "ok");
	assert_verdict(link, "ok");

	/* Someone else's file. */
	ck_assert_int_eq(chown(path, nobody, (gid_t)-1), 0);
	xasprintf(&expected, "%s: owned by %s, not root; mcpd as root runs "
	    "only a configuration root owns (chown root %s)", path, owner,
	    path);
	assert_verdict(path, expected);
	free(expected);
	xasprintf(&expected, "%s: owned by %s, not root; mcpd as root runs "
	    "only a configuration root owns (chown root %s)", link, owner,
	    link);
	assert_verdict(link, expected);
	free(expected);
	ck_assert_int_eq(chown(path, unnamed_uid(), (gid_t)-1), 0);
	xasprintf(&expected, "%s: owned by uid %lu, not root; mcpd as root "
	    "runs only a configuration root owns (chown root %s)", path,
	    (unsigned long)unnamed_uid(), path);
	assert_verdict(path, expected);
	free(expected);
	ck_assert_int_eq(chown(path, 0, (gid_t)-1), 0);

	/* A directory above it that others may write to, but not sticky. */
	ck_assert_int_eq(chmod(dir, 0777), 0);
	xasprintf(&expected, "%s: directory %s is writable by group or "
	    "others (mode 0777, no sticky bit), who could replace the file; "
	    "mcpd as root refuses it (chmod go-w %s)", path, real, real);
	assert_verdict(path, expected);
	free(expected);
	ck_assert_int_eq(chmod(dir, 0770), 0);
	xasprintf(&expected, "%s: directory %s is writable by group or "
	    "others (mode 0770, no sticky bit), who could replace the file; "
	    "mcpd as root refuses it (chmod go-w %s)", path, real, real);
	assert_verdict(path, expected);
	free(expected);
	/* The link's own directory does not matter; the file's does. */
	ck_assert_int_eq(chmod(dir, 0755), 0);
	ck_assert_int_eq(chmod(sub, 0777), 0);
	xasprintf(&expected, "%s: directory %s/etc is writable by group or "
	    "others (mode 0777, no sticky bit), who could replace the file; "
	    "mcpd as root refuses it (chmod go-w %s/etc)", link, real, real);
	assert_verdict(link, expected);
	free(expected);

	/* Sticky: others cannot rename root's file. */
	ck_assert_int_eq(chmod(sub, 01777), 0);
	assert_verdict(path, "ok");
	ck_assert_int_eq(chmod(sub, 0755), 0);

	/* A directory another user owns. */
	ck_assert_int_eq(chown(dir, nobody, (gid_t)-1), 0);
	xasprintf(&expected, "%s: directory %s is owned by %s, who could "
	    "replace the file; mcpd as root refuses it (chown root %s, or "
	    "move the file)", path, real, owner, real);
	assert_verdict(path, expected);
	free(expected);
	ck_assert_int_eq(chown(dir, 0, (gid_t)-1), 0);
	assert_verdict(path, "ok");

	unlink(link);
	unlink(path);
	rmdir(sub);
	rmdir(dir);
	free(link);
	free(path);
	free(sub);
	free(real);
	free(dir);
}
END_TEST

/*
 * As another user: its own files and root's, whatever the directory.  Run
 * in a child that gives up root for nobody.
 */
START_TEST(test_load_owner_user)
{
	struct passwd	*pw;
	char		*dir, *path, *expected, *verdict, buf[1024];
	char		 owner[256], self[256];
	const char	*files[3] = { "root.json", "own.json", "other.json" };
	uid_t		 uids[3], nobody;
	gid_t		 nogroup;
	pid_t		 pid;
	size_t		 i;
	ssize_t		 n;
	int		 fds[2], status;
	FILE		*fp;

	if (geteuid() != 0 || (pw = getpwnam("nobody")) == NULL) {
		printf("test_load_owner_user: skipped (needs root and a user "
		    "nobody)\n");
		return;
	}
	nobody = pw->pw_uid;
	nogroup = pw->pw_gid;
	uids[0] = 0;
	uids[1] = nobody;
	uids[2] = unnamed_uid();
	xasprintf(&dir, "%s/test_conf_user.XXXXXX", tmp_dir());
	ck_assert_ptr_nonnull(mkdtemp(dir));
	/* Writable by all: only root cares about directories. */
	ck_assert_int_eq(chmod(dir, 0777), 0);
	for (i = 0; i < 3; i++) {
		xasprintf(&path, "%s/%s", dir, files[i]);
		place_file(path, uids[i]);
		free(path);
	}

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		close(fds[0]);
		if (setgroups(0, NULL) != 0 || setgid(nogroup) != 0 ||
		    setuid(nobody) != 0)
			_exit(2);
		fp = fdopen(fds[1], "w");
		for (i = 0; i < 3; i++) {
			xasprintf(&path, "%s/%s", dir, files[i]);
			verdict = load_verdict(path);
			fprintf(fp, "%s\n", verdict);
			free(verdict);
			free(path);
		}
		fclose(fp);
		free(dir);
		_exit(0);
	}
	close(fds[1]);
	n = read(fds[0], buf, sizeof buf - 1);
	while (waitpid(pid, &status, 0) == -1)
		;
	close(fds[0]);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the child running as nobody failed (status %d)", status);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';

	user_text(uids[2], owner, sizeof owner);
	user_text(nobody, self, sizeof self);
	xasprintf(&path, "%s/%s", dir, files[2]);
	xasprintf(&expected, "ok\nok\n%s: owned by %s, not by %s or root; "
	    "mcpd runs only a configuration its own user or root owns (copy "
	    "it to a file of your own)\n", path, owner, self);
	ck_assert_str_eq(buf, expected);
	free(expected);
	free(path);

	for (i = 0; i < 3; i++) {
		xasprintf(&path, "%s/%s", dir, files[i]);
		unlink(path);
		free(path);
	}
	rmdir(dir);
	free(dir);
}
END_TEST

START_TEST(test_server_equal)
{
	/* One field differs from the base in each variant. */
	const char	*base = "'command': 'srv', 'args': ['a', 'b'],"
			    "'env': {'K': 'v', 'L': 'w'}, 'cwd': '/w'";
	const char	*variants[] = {
		"'command': 'srv2', 'args': ['a', 'b'],"
		    "'env': {'K': 'v', 'L': 'w'}, 'cwd': '/w'",
		"'command': 'srv', 'args': ['a', 'c'],"
		    "'env': {'K': 'v', 'L': 'w'}, 'cwd': '/w'",
		"'command': 'srv', 'args': ['a'],"
		    "'env': {'K': 'v', 'L': 'w'}, 'cwd': '/w'",
		"'command': 'srv', 'args': ['a', 'b', 'c'],"
		    "'env': {'K': 'v', 'L': 'w'}, 'cwd': '/w'",
		"'command': 'srv', 'args': ['a', 'b'],"
		    "'env': {'K': 'v', 'L': 'x'}, 'cwd': '/w'",
		"'command': 'srv', 'args': ['a', 'b'],"
		    "'env': {'K': 'v', 'M': 'w'}, 'cwd': '/w'",
		"'command': 'srv', 'args': ['a', 'b'],"
		    "'env': {'K': 'v'}, 'cwd': '/w'",
		"'command': 'srv', 'args': ['a', 'b'],"
		    "'env': {'K': 'v', 'L': 'w'}, 'cwd': '/x'",
		"'command': 'srv', 'args': ['a', 'b'],"
		    "'env': {'K': 'v', 'L': 'w'}",
	};
	const char	*settings[] = {
		"'restart': 'never'",
		"'backoff_min_ms': 999",
		"'backoff_max_ms': 29999",
		"'backoff_jitter': 0.25",
		"'backoff_reset_ms': 1",
		"'max_restarts': 2",
		"'restart_window_s': 61",
		"'init_timeout_ms': 1",
		"'request_timeout_ms': 1",
		"'stop_timeout_ms': 1",
		"'max_message_bytes': 1024",
		"'disabled': true",
	};
	struct conf	*a, *b;
	char		*text;
	size_t		 i;

	xasprintf(&text, "{'mcpServers': {'s': {%s}}}", base);
	a = parse_ok(text);
	free(text);

	/* Identical, also when moved to the other shape or env reordered. */
	xasprintf(&text, "{'servers': {'s': {%s}}}", base);
	b = parse_ok(text);
	free(text);
	ck_assert_int_eq(conf_server_equal(&a->servers[0], &b->servers[0]), 1);
	ck_assert_int_eq(conf_server_equal(&a->servers[0], &a->servers[0]), 1);
	conf_free(b);
	b = parse_ok("{'mcpServers': {'s': {'command': 'srv', 'args': ['a', "
	    "'b'], 'env': {'L': 'w', 'K': 'v'}, 'cwd': '/w',"
	    "'restart': 'always', 'backoff_min_ms': 1000}}}");
	ck_assert_int_eq(conf_server_equal(&a->servers[0], &b->servers[0]), 1);
	conf_free(b);

	for (i = 0; i < nitems(variants); i++) {
		xasprintf(&text, "{'mcpServers': {'s': {%s}}}", variants[i]);
		b = parse_ok(text);
		free(text);
		ck_assert_msg(!conf_server_equal(&a->servers[0],
		    &b->servers[0]), "variant %zu compared equal", i);
		ck_assert_msg(!conf_server_equal(&b->servers[0],
		    &a->servers[0]), "variant %zu compared equal", i);
		conf_free(b);
	}
	for (i = 0; i < nitems(settings); i++) {
		xasprintf(&text, "{'mcpServers': {'s': {%s, %s}}}", base,
		    settings[i]);
		b = parse_ok(text);
		free(text);
		ck_assert_msg(!conf_server_equal(&a->servers[0],
		    &b->servers[0]), "%s compared equal", settings[i]);
		conf_free(b);

		/* The same setting from "mcpd" counts too. */
		xasprintf(&text, "{'mcpd': {%s}, 'mcpServers': {'s': {%s}}}",
		    settings[i], base);
		b = parse_ok(text);
		free(text);
		ck_assert_msg(!conf_server_equal(&a->servers[0],
		    &b->servers[0]), "mcpd %s compared equal", settings[i]);
		conf_free(b);
	}

	xasprintf(&text, "{'mcpServers': {'t': {%s}}}", base);
	b = parse_ok(text);
	free(text);
	ck_assert_int_eq(conf_server_equal(&a->servers[0], &b->servers[0]), 0);
	conf_free(b);
	conf_free(a);
}
END_TEST

/*
 * When a server runs (start, idle_stop_s) makes configurations differ,
 * but not in what runs: a reload needs no restart for it.
 */
START_TEST(test_server_runs_same)
{
	const char	*base = "'command': 'srv', 'args': ['a']";
	const char	*when[] = {
		"'start': 'on-demand'",
		"'idle_stop_s': 60",
		"'start': 'on-demand', 'idle_stop_s': 1",
	};
	struct conf	*a, *b;
	char		*text;
	size_t		 i;

	xasprintf(&text, "{'mcpServers': {'s': {%s}}}", base);
	a = parse_ok(text);
	free(text);
	for (i = 0; i < nitems(when); i++) {
		xasprintf(&text, "{'mcpServers': {'s': {%s, %s}}}", base,
		    when[i]);
		b = parse_ok(text);
		free(text);
		ck_assert_msg(!conf_server_equal(&a->servers[0],
		    &b->servers[0]), "%s compared equal", when[i]);
		ck_assert_msg(conf_server_runs_same(&a->servers[0],
		    &b->servers[0]), "%s needs a restart", when[i]);
		conf_free(b);
	}
	/* Anything else still needs one. */
	xasprintf(&text, "{'mcpServers': {'s': {%s, 'start': 'on-demand', "
	    "'stop_timeout_ms': 7}}}", base);
	b = parse_ok(text);
	free(text);
	ck_assert(!conf_server_runs_same(&a->servers[0], &b->servers[0]));
	conf_free(b);
	b = parse_ok("{'mcpServers': {'s': {'command': 'srv', "
	    "'args': ['b'], 'start': 'on-demand'}}}");
	ck_assert(!conf_server_runs_same(&a->servers[0], &b->servers[0]));
	conf_free(b);
	conf_free(a);
}
END_TEST

START_TEST(test_restart_name)
{
	ck_assert_str_eq(conf_restart_name(CONF_RESTART_ALWAYS), "always");
	ck_assert_str_eq(conf_restart_name(CONF_RESTART_ON_FAILURE),
	    "on-failure");
	ck_assert_str_eq(conf_restart_name(CONF_RESTART_NEVER), "never");
	ck_assert_str_eq(conf_restart_name((enum conf_restart)42), "unknown");
}
END_TEST

/* ---- filters ---- */

START_TEST(test_filters_parsed)
{
	struct conf		*conf;
	const struct conf_server *cs;
	struct conf_server	*copy;

	conf = parse_ok("{'mcpServers': {'x': {'command': 'c', "
	    "'tools': {'allow': ['read_*', 'list'], 'deny': ['read_secret']}, "
	    "'prompts': {'deny': ['*']}, "
	    "'resources': {'allow': ['file:///srv/*']}}, "
	    "'y': {'command': 'c', 'tools': {}, 'prompts': {'deny': []}}}}");
	cs = &conf->servers[0];
	ck_assert_ptr_nonnull(cs->filters[FILTER_TOOLS]);
	ck_assert(filter_allows(cs->filters[FILTER_TOOLS], "read_file"));
	ck_assert(filter_allows(cs->filters[FILTER_TOOLS], "list"));
	ck_assert(!filter_allows(cs->filters[FILTER_TOOLS], "read_secret"));
	ck_assert(!filter_allows(cs->filters[FILTER_TOOLS], "write_file"));
	ck_assert(!filter_allows(cs->filters[FILTER_PROMPTS], "any"));
	ck_assert(filter_allows(cs->filters[FILTER_RESOURCES],
	    "file:///srv/a/b"));
	ck_assert(!filter_allows(cs->filters[FILTER_RESOURCES],
	    "file:///etc/passwd"));
	/* Filters that let everything pass are no filters at all. */
	cs = &conf->servers[1];
	ck_assert_ptr_null(cs->filters[FILTER_TOOLS]);
	ck_assert_ptr_null(cs->filters[FILTER_PROMPTS]);
	ck_assert_ptr_null(cs->filters[FILTER_RESOURCES]);
	/* A copy has its own. */
	copy = conf_server_dup(&conf->servers[0]);
	ck_assert_ptr_ne(copy->filters[FILTER_TOOLS],
	    conf->servers[0].filters[FILTER_TOOLS]);
	ck_assert(filter_equal(copy->filters[FILTER_TOOLS],
	    conf->servers[0].filters[FILTER_TOOLS]));
	conf_free(conf);
	ck_assert(!filter_allows(copy->filters[FILTER_TOOLS], "read_secret"));
	conf_server_release(copy);
}
END_TEST

START_TEST(test_filters_errors)
{
	static const struct {
		const char	*server;
		const char	*error;
	} cases[] = {
		{ "'tools': ['a']", "mcpServers.x.tools: expected an object "
		    "with \"allow\" and/or \"deny\" (arrays of glob patterns)" },
		{ "'prompts': null", "mcpServers.x.prompts: expected an object "
		    "with \"allow\" and/or \"deny\" (arrays of glob patterns)" },
		{ "'tools': {'allow': 'a*'}", "mcpServers.x.tools.allow: "
		    "expected an array of glob patterns (strings)" },
		{ "'tools': {'deny': ['a', 3]}", "mcpServers.x.tools.deny[1]: "
		    "expected a string (a glob pattern)" },
		{ "'resources': {'allow': ['']}", "mcpServers.x.resources."
		    "allow[0]: empty pattern" },
		{ "'tools': {'allow': ['a'], 'alow': ['b']}",
		    "mcpServers.x.tools.alow: unknown key: a filter has only "
		    "\"allow\" and \"deny\"" },
		{ "'tools': {'deny': ['a'], 'deny': ['b']}",
		    "mcpServers.x.tools.deny: duplicate key" },
		{ "'tools': {'deny': ['[a-']}", "mcpServers.x.tools.deny[0]: "
		    "unterminated '[', unknown class, or unsupported \"[.\" or "
		    "\"[=\" (write \\[ for a literal '[')" },
		{ "'tools': {'deny': ['[[:nope:]]']}", "mcpServers.x.tools."
		    "deny[0]: unterminated '[', unknown class, or unsupported "
		    "\"[.\" or \"[=\" (write \\[ for a literal '[')" },
		{ "'tools': {'allow': ['a\\\\']}", "mcpServers.x.tools."
		    "allow[0]: pattern ends with an unescaped '\\'" },
		/* A resource pattern must be able to match a normal form. */
		{ "'resources': {'deny': ['FILE:///etc/*']}", "mcpServers.x."
		    "resources.deny[0]: the scheme must be in lower case: URIs "
		    "are compared in their normal form (RFC 3986)" },
		{ "'resources': {'deny': ['file://localhost/etc/*']}",
		    "mcpServers.x.resources.deny[0]: a file URI is compared as "
		    "file:///PATH (file:/PATH and file://localhost/PATH are "
		    "rewritten so)" },
	};
	char	*server;
	size_t	 i;

	for (i = 0; i < nitems(cases); i++) {
		xasprintf(&server, "{'command': 'c', %s}", cases[i].server);
		expect_server_error(server, cases[i].error);
		free(server);
	}
}
END_TEST

START_TEST(test_filters_sizes)
{
	char	*server, *long_pattern, *many;
	size_t	 i, len;

	/* A pattern of 1025 bytes. */
	long_pattern = xmalloc(FILTER_MAX_PATTERN_BYTES + 2);
	memset(long_pattern, 'a', FILTER_MAX_PATTERN_BYTES + 1);
	long_pattern[FILTER_MAX_PATTERN_BYTES + 1] = '\0';
	xasprintf(&server, "{'command': 'c', 'tools': {'allow': ['%s']}}",
	    long_pattern);
	expect_server_error(server, "mcpServers.x.tools.allow[0]: pattern "
	    "longer than 1024 bytes");
	free(server);
	/* 1024 bytes are fine. */
	long_pattern[FILTER_MAX_PATTERN_BYTES] = '\0';
	xasprintf(&server, "{'mcpServers': {'x': {'command': 'c', "
	    "'tools': {'allow': ['%s']}}}}", long_pattern);
	conf_free(parse_ok(server));
	free(server);
	free(long_pattern);

	/* 1025 patterns. */
	many = xmalloc(8 * (FILTER_MAX_PATTERNS + 1) + 64);
	len = 0;
	for (i = 0; i <= FILTER_MAX_PATTERNS; i++)
		len += (size_t)sprintf(many + len, "%s'p%zu'", i > 0 ? "," : "",
		    i);
	xasprintf(&server, "{'command': 'c', 'prompts': {'deny': [%s]}}",
	    many);
	expect_server_error(server, "mcpServers.x.prompts.deny: more than "
	    "1024 patterns");
	free(server);
	free(many);
}
END_TEST

/* A filter-only change does not restart: conf_server_equal ignores it. */
START_TEST(test_filters_not_compared)
{
	struct conf	*a, *b;

	a = parse_ok("{'mcpServers': {'x': {'command': 'c', "
	    "'tools': {'allow': ['a']}}}}");
	b = parse_ok("{'mcpServers': {'x': {'command': 'c', "
	    "'tools': {'allow': ['b']}, 'resources': {'deny': ['*']}}}}");
	ck_assert_int_eq(conf_server_equal(&a->servers[0], &b->servers[0]), 1);
	ck_assert(!filter_equal(a->servers[0].filters[FILTER_TOOLS],
	    b->servers[0].filters[FILTER_TOOLS]));
	ck_assert(!filter_equal(a->servers[0].filters[FILTER_RESOURCES],
	    b->servers[0].filters[FILTER_RESOURCES]));
	ck_assert(filter_equal(a->servers[0].filters[FILTER_PROMPTS],
	    b->servers[0].filters[FILTER_PROMPTS]));
	conf_free(a);
	conf_free(b);
}
END_TEST

/*
 * Each server setting, changed alone, is carried into the server and
 * seen by the comparison that reload uses: a change of how the server
 * runs restarts it (conf_server_runs_same fails), start and idle_stop_s
 * only change when it starts and stops (conf_server_equal fails alone).
 */
START_TEST(test_settings_each_compared)
{
	static const struct {
		const char	*setting;	/* "key": value */
		int		 runs;		/* restarts the server */
	} changes[] = {
		{ "'restart': 'never'", 1 },
		{ "'backoff_min_ms': 50", 1 },
		{ "'backoff_max_ms': 60000", 1 },
		{ "'backoff_jitter': 0.5", 1 },
		{ "'backoff_reset_ms': 5", 1 },
		{ "'max_restarts': 3, 'restart_window_s': 60", 1 },
		{ "'restart_window_s': 7", 1 },
		{ "'init_timeout_ms': 7", 1 },
		{ "'request_timeout_ms': 7", 1 },
		{ "'stop_timeout_ms': 7", 1 },
		{ "'health_interval_ms': 7", 1 },
		{ "'health_timeout_ms': 7", 1 },
		{ "'health_max_timeouts': 7", 1 },
		{ "'max_message_bytes': 4096", 1 },
		{ "'disabled': true", 1 },
		{ "'client_capabilities': ['roots']", 1 },
		{ "'memory_max': 1048576", 1 },
		{ "'pids_max': 7", 1 },
		{ "'cpu_weight': 7", 1 },
		{ "'start': 'on-demand'", 0 },
		{ "'idle_stop_s': 7", 0 },
	};
	struct conf	*a, *b;
	char		*text;
	size_t		 i;

	a = parse_ok("{'mcpServers': {'s': {'command': 'c'}}}");
	for (i = 0; i < nitems(changes); i++) {
		xasprintf(&text, "{'mcpServers': {'s': {'command': 'c', %s}}}",
		    changes[i].setting);
		b = parse_ok(text);
		free(text);
		ck_assert_msg(!conf_server_equal(&a->servers[0],
		    &b->servers[0]), "%s compared equal", changes[i].setting);
		ck_assert_msg(conf_server_runs_same(&a->servers[0],
		    &b->servers[0]) == !changes[i].runs, "%s: runs_same %d",
		    changes[i].setting, !changes[i].runs);
		conf_free(b);
	}
	conf_free(a);

	/* The values themselves, given in "mcpd" and carried to a server. */
	a = parse_ok("{'mcpd': {'backoff_jitter': 0.5, 'pids_max': 9,"
	    "'memory_max': 1048576, 'idle_stop_s': 11, 'start': 'on-demand',"
	    "'client_capabilities': ['sampling']},"
	    "'mcpServers': {'s': {'command': 'c', 'cpu_weight': 3}}}");
	ck_assert(a->servers[0].backoff.jitter == 0.5);
	ck_assert_uint_eq(a->servers[0].pids_max, 9);
	ck_assert_uint_eq(a->servers[0].memory_max, 1048576);
	ck_assert_uint_eq(a->servers[0].idle_stop_s, 11);
	ck_assert_int_eq(a->servers[0].start, CONF_START_ON_DEMAND);
	ck_assert_uint_eq(a->servers[0].client_caps, CONF_CAP_SAMPLING);
	ck_assert_uint_eq(a->servers[0].cpu_weight, 3);
	conf_free(a);

	/* A jitter of -0 is one of 0: compared as numbers. */
	a = parse_ok("{'mcpServers': {'s': {'command': 'c',"
	    "'backoff_jitter': 0}}}");
	b = parse_ok("{'mcpServers': {'s': {'command': 'c',"
	    "'backoff_jitter': -0}}}");
	ck_assert(conf_server_equal(&a->servers[0], &b->servers[0]));
	conf_free(b);
	conf_free(a);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("conf");

	tc = tcase_create("filters");
	tcase_add_test(tc, test_filters_parsed);
	tcase_add_test(tc, test_filters_errors);
	tcase_add_test(tc, test_filters_sizes);
	tcase_add_test(tc, test_filters_not_compared);
	suite_add_tcase(s, tc);

	tc = tcase_create("shapes");
	tcase_add_test(tc, test_mcpservers_shape);
	tcase_add_test(tc, test_first_start_timeout);
	tcase_add_test(tc, test_servers_shape);
	tcase_add_test(tc, test_both_shapes_in_file_order);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_empty_config);
	tcase_add_test(tc, test_mcpd_defaults);
	tcase_add_test(tc, test_settings_limits_accepted);
	tcase_add_test(tc, test_start_and_idle_stop);
	tcase_add_test(tc, test_share);
	tcase_add_test(tc, test_foreign_keys_silent);
	suite_add_tcase(s, tc);

	tc = tcase_create("remote");
	tcase_add_test(tc, test_remote_shapes);
	tcase_add_test(tc, test_remote_type_aliases);
	tcase_add_test(tc, test_remote_settings);
	tcase_add_test(tc, test_remote_url_errors);
	tcase_add_test(tc, test_remote_key_errors);
	tcase_add_test(tc, test_remote_header_errors);
	tcase_add_test(tc, test_remote_header_values);
	tcase_add_test(tc, test_remote_oauth);
	tcase_add_test(tc, test_remote_oauth_errors);
	tcase_add_test(tc, test_remote_signs_in);
	tcase_add_test(tc, test_remote_warnings);
	tcase_add_test(tc, test_remote_secrets_never_in_diags);
	tcase_add_test(tc, test_remote_display_unexpanded);
	tcase_add_test(tc, test_remote_dup);
	tcase_add_test(tc, test_remote_equal);
	tcase_add_test(tc, test_remote_settings_json);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_test(tc, test_top_level_not_object);
	tcase_add_test(tc, test_json_syntax_error);
	tcase_add_test(tc, test_json_embedded_nul);
	tcase_add_test(tc, test_shape_not_object);
	tcase_add_test(tc, test_command_errors);
	tcase_add_test(tc, test_groups);
	tcase_add_test(tc, test_group_errors);
	tcase_add_test(tc, test_args_errors);
	tcase_add_test(tc, test_env_errors);
	tcase_add_test(tc, test_cwd_errors);
	tcase_add_test(tc, test_restart_errors);
	tcase_add_test(tc, test_start_and_idle_stop_errors);
	tcase_add_test(tc, test_protocol);
	tcase_add_test(tc, test_audit);
	tcase_add_test(tc, test_socket_group);
	tcase_add_test(tc, test_share_errors);
	tcase_add_test(tc, test_integer_errors);
	tcase_add_test(tc, test_jitter_errors);
	tcase_add_test(tc, test_bool_errors);
	tcase_add_test(tc, test_backoff_min_above_max);
	tcase_add_test(tc, test_max_restarts_needs_window);
	tcase_add_test(tc, test_max_message_bytes_range);
	tcase_add_test(tc, test_bad_names);
	tcase_add_test(tc, test_duplicate_names);
	tcase_add_test(tc, test_duplicate_keys);
	tcase_add_test(tc, test_bad_type);
	tcase_add_test(tc, test_unknown_keys_warn);
	tcase_add_test(tc, test_unknown_top_key);
	tcase_add_test(tc, test_unknown_server_key);
	tcase_add_test(tc, test_all_errors_collected);
	tcase_add_test(tc, test_diags_accumulate);
	tcase_add_test(tc, test_secrets_never_in_diags);
	tcase_add_test(tc, test_nul_refused);
	tcase_add_test(tc, test_nul_lookalikes);
	suite_add_tcase(s, tc);

	tc = tcase_create("expansion");
	tcase_add_test(tc, test_expansion);
	tcase_add_test(tc, test_expansion_everywhere);
	tcase_add_test(tc, test_display_unexpanded);
	suite_add_tcase(s, tc);

	tc = tcase_create("load");
	tcase_add_test(tc, test_load_refuses_writable);
	tcase_add_test(tc, test_load_accepts);
	tcase_add_test(tc, test_load_uses_getenv);
	tcase_add_test(tc, test_load_errors);
	tcase_add_test(tc, test_load_owner_root);
	tcase_add_test(tc, test_load_owner_user);
	suite_add_tcase(s, tc);

	tc = tcase_create("compare");
	tcase_add_test(tc, test_server_equal);
	tcase_add_test(tc, test_server_runs_same);
	tcase_add_test(tc, test_settings_each_compared);
	tcase_add_test(tc, test_restart_name);
	tcase_add_test(tc, test_http_front);
	tcase_add_test(tc, test_http_passed);
	suite_add_tcase(s, tc);

	return (s);
}
