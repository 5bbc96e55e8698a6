/*
 * main.c -- mcpd-remote: a stdio MCP server that is a remote one.
 *
 * Run by mcpd for a configured "url" server (settings on the descriptor
 * named by MCPD_REMOTE_SETTINGS_FD, status on MCPD_REMOTE_STATUS_FD), or
 * on its own by any MCP client, configured on its command line.  Wiring
 * only: options, signals, the parts, the event loop.
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "http.h"
#include "oauth.h"
#include "rconf.h"
#include "remote.h"
#include "rstatus.h"
#include "signin.h"
#include "util.h"
#include "xmalloc.h"

/* The settings are small; more is not mcpd's. */
#define MAIN_MAX_SETTINGS_BYTES	(1024 * 1024)

static void __attribute__((noreturn))
usage(int code)
{
	fprintf(code == 0 ? stdout : stderr,
"usage: mcpd-remote [-H 'Name: value']... [-t auto|http|sse] [--ca-file FILE]\n"
"                   [--connect-timeout MS] [--request-timeout MS]\n"
"                   [--max-message-bytes N] [--oauth-client-id ID\n"
"                   (--oauth-client-secret-file FILE | --oauth-private-key-file FILE\n"
"                   --oauth-signing-algorithm ES256|RS256)] [--oauth-token-url URL]\n"
"                   [--oauth-scope SCOPE] [--oauth-resource URI]\n"
"                   [--oauth-jwt-audience AUD] [--token-file FILE] [-v] [-V] [-h]\n"
"                   URL\n");
	exit(code);
}

static void __attribute__((noreturn))
die(int code, const char *fmt, ...)
{
	va_list	 ap;

	fprintf(stderr, "mcpd-remote: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

static int
env_fd(const char *name)
{
	const char	*v;
	char		*end;
	long		 fd;

	v = getenv(name);
	if (v == NULL || *v == '\0')
		return (-1);
	errno = 0;
	fd = strtol(v, &end, 10);
	if (errno != 0 || *end != '\0' || fd < 3 || fd > INT_MAX ||
	    fcntl((int)fd, F_GETFD) == -1)
		die(REMOTE_EXIT_CONFIG, "%s=%s: not an open descriptor", name,
		    v);
	unsetenv(name);
	return ((int)fd);
}

static void
settings_from_fd(struct rconf *rc, int fd)
{
	char	*buf, *err;
	size_t	 len = 0;
	ssize_t	 n;

	buf = xmalloc(MAIN_MAX_SETTINGS_BYTES + 1);
	/* A memfd, read from its start; a pipe works as well. */
	(void)lseek(fd, 0, SEEK_SET);
	for (;;) {
		n = read(fd, buf + len, MAIN_MAX_SETTINGS_BYTES - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			die(REMOTE_EXIT_CONFIG, "reading the settings: %s",
			    strerror(errno));
		if (n == 0)
			break;
		len += n;
		if (len == MAIN_MAX_SETTINGS_BYTES)
			die(REMOTE_EXIT_CONFIG, "the settings are too large");
	}
	close(fd);
	if (rconf_from_json(rc, buf, len, &err) == -1)
		die(REMOTE_EXIT_CONFIG, "%s", err);
	explicit_bzero(buf, len);
	free(buf);
}

static uint32_t
opt_ms(const char *name, const char *v)
{
	char		*end;
	unsigned long	 n;

	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno != 0 || *end != '\0' || *v == '\0' || n > 86400000)
		die(REMOTE_EXIT_USAGE, "%s: expected milliseconds, from 0 to "
		    "86400000", name);
	return ((uint32_t)n);
}

static char *
expanded(const char *what, const char *v)
{
	char	*out, *err = NULL;

	out = rconf_expand(v, &err);
	if (out == NULL)
		die(REMOTE_EXIT_CONFIG, "%s: %s", what, err);
	return (out);
}

enum {
	OPT_CA_FILE = 256, OPT_CONNECT_TIMEOUT, OPT_REQUEST_TIMEOUT,
	OPT_MAX_MESSAGE, OPT_CLIENT_ID, OPT_SECRET_FILE, OPT_KEY_FILE,
	OPT_ALG, OPT_TOKEN_URL, OPT_SCOPE, OPT_RESOURCE, OPT_AUDIENCE,
	OPT_TOKEN_FILE,
};

static const struct option main_options[] = {
	{ "header", required_argument, NULL, 'H' },
	{ "transport", required_argument, NULL, 't' },
	{ "ca-file", required_argument, NULL, OPT_CA_FILE },
	{ "connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT },
	{ "request-timeout", required_argument, NULL, OPT_REQUEST_TIMEOUT },
	{ "max-message-bytes", required_argument, NULL, OPT_MAX_MESSAGE },
	{ "oauth-client-id", required_argument, NULL, OPT_CLIENT_ID },
	{ "oauth-client-secret-file", required_argument, NULL,
	    OPT_SECRET_FILE },
	{ "oauth-private-key-file", required_argument, NULL, OPT_KEY_FILE },
	{ "oauth-signing-algorithm", required_argument, NULL, OPT_ALG },
	{ "oauth-token-url", required_argument, NULL, OPT_TOKEN_URL },
	{ "oauth-scope", required_argument, NULL, OPT_SCOPE },
	{ "oauth-resource", required_argument, NULL, OPT_RESOURCE },
	{ "oauth-jwt-audience", required_argument, NULL, OPT_AUDIENCE },
	{ "token-file", required_argument, NULL, OPT_TOKEN_FILE },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void
settings_from_args(struct rconf *rc, int argc, char **argv)
{
	struct oauth_conf	*o = &rc->oauth;
	char			*v, *end;
	unsigned long		 n;
	int			 ch;

	rconf_defaults(rc);
	while ((ch = getopt_long(argc, argv, "H:t:vVh", main_options,
	    NULL)) != -1) {
		switch (ch) {
		case 'H':
			if (strchr(optarg, ':') == NULL ||
			    strpbrk(optarg, "\r\n") != NULL)
				die(REMOTE_EXIT_USAGE, "--header: expected "
				    "'Name: value'");
			v = expanded("--header", optarg);
			rconf_add_header(rc, v);
			explicit_bzero(v, strlen(v));
			free(v);
			break;
		case 't':
			if (rconf_transport_parse(optarg, &rc->transport) == -1)
				die(REMOTE_EXIT_USAGE, "--transport: expected "
				    "auto, http or sse");
			break;
		case OPT_CA_FILE:
			rc->ca_file = xstrdup(optarg);
			break;
		case OPT_CONNECT_TIMEOUT:
			rc->connect_timeout_ms = opt_ms("--connect-timeout",
			    optarg);
			break;
		case OPT_REQUEST_TIMEOUT:
			rc->request_timeout_ms = opt_ms("--request-timeout",
			    optarg);
			break;
		case OPT_MAX_MESSAGE:
			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || n < 1024 ||
			    n > 1073741824UL)
				die(REMOTE_EXIT_USAGE, "--max-message-bytes: "
				    "expected 1024 to 1073741824");
			rc->max_message_bytes = n;
			break;
		case OPT_CLIENT_ID:
			o->client_id = expanded("--oauth-client-id", optarg);
			rc->has_oauth = 1;
			break;
		case OPT_SECRET_FILE:
			o->client_secret_file = xstrdup(optarg);
			rc->has_oauth = 1;
			break;
		case OPT_KEY_FILE:
			o->private_key_file = xstrdup(optarg);
			rc->has_oauth = 1;
			break;
		case OPT_ALG:
			o->signing_algorithm = xstrdup(optarg);
			break;
		case OPT_TOKEN_URL:
			o->token_url = xstrdup(optarg);
			break;
		case OPT_SCOPE:
			o->scope = xstrdup(optarg);
			break;
		case OPT_RESOURCE:
			o->resource = xstrdup(optarg);
			break;
		case OPT_AUDIENCE:
			o->jwt_audience = xstrdup(optarg);
			break;
		case OPT_TOKEN_FILE:
			/* A sign-in's tokens (from mcpctl login) to use. */
			if (*optarg != '/')
				die(REMOTE_EXIT_USAGE, "--token-file: expected "
				    "an absolute path");
			free(o->token_file);
			o->token_file = xstrdup(optarg);
			free(o->grant);
			o->grant = xstrdup("authorization_code");
			rc->has_oauth = 1;
			break;
		case 'v':
			rstatus_verbose();
			break;
		case 'V':
			printf("mcpd-remote %s\n", PACKAGE_VERSION);
			exit(0);
		case 'h':
			usage(0);
		default:
			usage(REMOTE_EXIT_USAGE);
		}
	}
	if (optind != argc - 1)
		usage(REMOTE_EXIT_USAGE);
	rc->url = expanded("URL", argv[optind]);
	if (strncmp(rc->url, "http://", 7) != 0 &&
	    strncmp(rc->url, "https://", 8) != 0)
		die(REMOTE_EXIT_USAGE, "the URL must be http:// or https://");
}

static void
on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct remote	*r = arg;

	session_shutdown(r->session);
}

static void
oauth_fetched(void *arg, time_t expires)
{
	struct remote	*r = arg;

	if (oauth_tokens(r->oauth) != NULL)
		rstatus_signed_in(expires, oauth_refreshable(r->oauth));
	else
		rstatus_auth("ok", NULL, expires);
}

static void
oauth_failed(void *arg, const char *reason)
{
	rstatus_auth("failed", reason, 0);
	remote_log("fetching a token failed: %s", reason);
}

static const struct oauth_hooks main_oauth_hooks = {
	oauth_fetched, oauth_failed
};

/* mcpctl login or logout: no session, the channel both ways. */
static int
main_signin(struct remote *r, struct rconf *rc, int channel)
{
	int	 code;

	if (channel == -1)
		die(REMOTE_EXIT_USAGE, "a sign-in needs mcpd's channel (%s)",
		    RCONF_STATUS_ENV);
	if (r->oauth == NULL || rc->oauth.grant == NULL ||
	    strcmp(rc->oauth.grant, "authorization_code") != 0)
		die(REMOTE_EXIT_CONFIG, "%s does not sign in: its oauth uses "
		    "client credentials", rc->name != NULL ? rc->name :
		    rc->url);
	code = signin_run(r, channel);
	oauth_free(r->oauth);
	http_free(r->http);
	rstatus_close();
	event_base_free(r->base);
	rconf_clear(rc);
	return (code);
}

/* What stdio reads goes to the session. */
static const struct rio_events main_rio_events = {
	.line = session_from_client,
	.ended = session_input_ended,
	.shutdown = session_shutdown,
	.fatal = session_fatal,
};

int
main(int argc, char **argv)
{
	struct remote	 r;
	struct rconf	 rc;
	struct http_opts ho;
	struct event	*sigterm, *sigint;
	char		*err = NULL;
	int		 fd, status_fd;

	/* It holds tokens and secrets: no core dumps, no ptrace by peers. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	signal(SIGPIPE, SIG_IGN);
	memset(&r, 0, sizeof r);
	fd = env_fd(RCONF_SETTINGS_ENV);
	status_fd = env_fd(RCONF_STATUS_ENV);
	if (fd != -1) {
		if (argc > 1)
			die(REMOTE_EXIT_USAGE, "settings come from %s: no "
			    "arguments are taken", RCONF_SETTINGS_ENV);
		settings_from_fd(&rc, fd);
	} else
		settings_from_args(&rc, argc, argv);
	if (status_fd != -1)
		fcntl(status_fd, F_SETFD, FD_CLOEXEC);
	r.conf = &rc;
	r.base = event_base_new();
	if (r.base == NULL)
		die(REMOTE_EXIT_SOFTWARE, "libevent failed to initialise");
	memset(&ho, 0, sizeof ho);
	ho.ca_file = rc.ca_file;
	ho.connect_timeout_ms = rc.connect_timeout_ms;
	r.http = http_new(r.base, &ho, &err);
	if (r.http == NULL)
		die(REMOTE_EXIT_SOFTWARE, "%s", err);
	if (rc.has_oauth) {
		r.oauth = oauth_new(r.http, rc.url, &rc.oauth,
		    rc.login != NULL ? NULL : &main_oauth_hooks, &r, &err);
		if (r.oauth == NULL)
			die(REMOTE_EXIT_CONFIG, "oauth: %s", err);
	}
	rstatus_open(r.base, status_fd);
	if (rc.login != NULL)
		return (main_signin(&r, &rc, status_fd));
	if (r.oauth != NULL && oauth_tokens(r.oauth) != NULL)
		rstatus_signed_in(oauth_expiry(r.oauth),
		    oauth_refreshable(r.oauth));
	r.session = session_new(&r, &session_rt_events);
	rio_start(&r, &main_rio_events);
	sigterm = evsignal_new(r.base, SIGTERM, on_signal, &r);
	sigint = evsignal_new(r.base, SIGINT, on_signal, &r);
	event_add(sigterm, NULL);
	event_add(sigint, NULL);
	event_base_dispatch(r.base);

	session_free(r.session);
	rio_free();
	if (r.oauth != NULL)
		oauth_free(r.oauth);
	http_free(r.http);
	rstatus_close();
	event_free(sigterm);
	event_free(sigint);
	event_base_free(r.base);
	rconf_clear(&rc);
	return (rio_exit_code);
}
