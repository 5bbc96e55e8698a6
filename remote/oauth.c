/*
 * oauth.c -- OAuth 2.1 client credentials for one remote MCP server.
 *
 * A fetch is a chain of small HTTP exchanges, one at a time, each started
 * from the previous one's callback: the protected resource metadata
 * (candidate URLs tried in order, a 404 moving on), the authorization
 * server metadata (likewise), then the token request.  The results of
 * discovery are kept for the life of the process; a failed discovery is
 * tried again on the next oauth_get.
 *
 * A server without protected resource metadata (404 at both well-known
 * URLs, none named by its challenge) is one of MCP 2025-03-26: its
 * authorization server is at its origin, the path dropped.  The metadata
 * is looked for there (RFC 8414, with MCP-Protocol-Version: 2025-03-26),
 * its issuer accepted if it has that origin, since no resource metadata
 * named another; without metadata the default endpoints /authorize,
 * /token and /register at the origin are used, as 2025-03-26 says.
 *
 * Promises:
 * - one fetch at a time: oauth_get during a fetch only queues its caller,
 *   and every queued caller hears the one result;
 * - the client secret, the client assertion and the token never appear in
 *   a reason string, and text from the network is reduced to printable
 *   ASCII of bounded length before it does (with the secret withheld
 *   should a server echo it);
 * - credentials go only to a token endpoint that is https, or http on a
 *   loopback address; metadata is read under the same rule, since it
 *   decides where the credentials go;
 * - every response is bounded (OAUTH_MAX_BODY_BYTES) and every request
 *   timed out (OAUTH_TIMEOUT_MS);
 * - oauth_free may be called from a callback or hook: the object goes
 *   when the outermost call into this module returns.
 *
 * Callbacks may run before oauth_get returns, with a token or with a
 * failure found without asking the network (a bad key, say).
 */
#include "config.h"

#include <sys/queue.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <event2/event.h>

#include "b64.h"
#include "clock.h"
#include "http.h"
#include "httphdr.h"
#include "jwt.h"
#include "oauth.h"
#include "remote.h"
#include "store.h"
#include "tokens.h"
#include "url.h"
#include "util.h"
#include "xmalloc.h"

#define OAUTH_MAX_BODY_BYTES	(1024 * 1024)
#define OAUTH_TIMEOUT_MS	30000L
#define OAUTH_MAX_SECRET_BYTES	65536
#define OAUTH_MAX_TOKEN_BYTES	16384
/* Text from the network quoted in a reason. */
#define OAUTH_MAX_QUOTE_BYTES	200
/* Refresh this long before expiry at most, or 10 % of the lifetime. */
#define OAUTH_REFRESH_MARGIN_MS	60000
/* After a failed refresh, keep the held token this long before trying. */
#define OAUTH_REFRESH_RETRY_MS	5000
/* expires_in beyond this (ten years) is taken as this. */
#define OAUTH_MAX_EXPIRES_IN_S	(10.0 * 365 * 86400)
/* Waiting for another process's refresh: try the lock this often, this long. */
#define OAUTH_LOCK_RETRY_MS	100
#define OAUTH_LOCK_WAIT_MS	(OAUTH_TIMEOUT_MS + 10000)

/* The MCP version whose servers have no protected resource metadata. */
#define OAUTH_LEGACY_VERSION	"2025-03-26"

#define OAUTH_JWT_BEARER \
	"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

enum oauth_auth {
	OAUTH_AUTH_BASIC,
	OAUTH_AUTH_POST,
	OAUTH_AUTH_JWT,
	OAUTH_AUTH_NONE,	/* a public client: client_id in the body */
};

/* What a fetch is for. */
enum oauth_goal {
	OAUTH_GOAL_TOKEN,	/* a token: client credentials or refresh */
	OAUTH_GOAL_DISCOVER,	/* discovery only (signin.c) */
	OAUTH_GOAL_EXCHANGE,	/* redeem an authorization code */
	OAUTH_GOAL_REVOKE,	/* revoke, then remove the token file */
};

struct oauth_waiter {
	oauth_fn			 fn;
	void				*arg;
	TAILQ_ENTRY(oauth_waiter)	 entry;
};
TAILQ_HEAD(oauth_waiters, oauth_waiter);

enum oauth_step {
	OAUTH_IDLE,
	OAUTH_PRM,		/* protected resource metadata */
	OAUTH_ASM,		/* authorization server metadata */
	OAUTH_TOKEN,
	OAUTH_LOCK,		/* waiting for the token file's lock */
	OAUTH_REVOKE,
};

struct oauth {
	struct http		*http;
	char			*server_url;
	struct oauth_conf	 conf;		/* copies; secret filled in */
	char			*resource;
	struct oauth_hooks	 hooks;
	void			*hook_arg;

	/* Discovery, kept once it succeeded. */
	int			 discovered;
	int			 wellknown;	/* cand: RFC 9728's URLs */
	int			 legacy;	/* 2025-03-26: no PRM */
	int			 defaults;	/* ... nor AS metadata */
	char			*issuer;
	char			*token_url;
	int			 methods_listed;
	int			 method_basic;
	int			 method_post;
	int			 method_jwt;
	char			*methods_text;	/* for reasons */
	char			*scopes_supported;
	char			*challenge_scope;
	char			*authorization_endpoint;
	char			*registration_endpoint;
	char			*revocation_endpoint;
	int			 pkce_listed;
	int			 pkce_s256;
	int			 cimd;
	int			 method_none;
	struct oauth_meta	 meta;

	/*
	 * A sign-in (grant authorization_code): its tokens, as in the token
	 * file; tok.client_id NULL while there is none.
	 */
	int			 code;
	struct tokens		 tok;
	int			 lock_fd;	/* -1, or held */
	struct event		*lock_timer;
	uint64_t		 lock_deadline_ms;
	char			*refused;	/* the token a 401 refused */
	int			 needs_login;	/* the failure wants a sign-in */

	/* What the fetch is for, and an exchange's or revocation's data. */
	enum oauth_goal		 goal;
	char			*ex_code;
	char			*ex_verifier;
	char			*ex_redirect;
	int			 revoked;
	int			 revoke_step;

	/* The token held. */
	char			*header;	/* "Authorization: Bearer ..." */
	uint64_t		 expires_ms;	/* wall clock, 0 if unknown */
	uint64_t		 refresh_ms;	/* wall clock, 0 if never */
	uint64_t		 retry_ms;	/* no refresh before (wall) */

	/* The fetch under way. */
	enum oauth_step		 step;
	int			 refreshing;	/* the held token still serves */
	struct http_req		*req;
	int			 req_open;
	unsigned int		 req_seq;
	char			*cand[3];
	size_t			 ncand;
	size_t			 icand;
	struct oauth_waiters	 waiters;
	struct oauth_waiters	 delivering;	/* being told a result */

	/* oauth_free from within: see the promises above. */
	int			 depth;
	int			 dead;
};

static void	oauth_prm_cb(void *, struct http_req *, enum http_end,
		    const char *, const char *, size_t);
static void	oauth_asm_cb(void *, struct http_req *, enum http_end,
		    const char *, const char *, size_t);
static void	oauth_fetch_cand(struct oauth *, http_fetch_fn);
static void	oauth_start_legacy(struct oauth *);
static int	oauth_same_issuer(struct oauth *, const char *, char **);
static void	oauth_token_request(struct oauth *);
static void	oauth_lock_cb(evutil_socket_t, short, void *);

static void
oauth_wipe(char *s)
{
	if (s != NULL) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

static uint64_t
oauth_now_ms(void)
{
	return (clock_realtime_us() / 1000);
}

/*
 * Text from the network, fit for a reason: printable ASCII, bounded, and
 * never the secret (an authorization server may echo what it was sent).
 */
static char *
oauth_quote(const struct oauth *o, const char *s)
{
	char	*q;
	size_t	 i, n;

	if (s == NULL)
		return (xstrdup(""));
	n = strnlen(s, OAUTH_MAX_QUOTE_BYTES + 1);
	q = xmalloc(n + 4);
	for (i = 0; i < n && i < OAUTH_MAX_QUOTE_BYTES; i++) {
		unsigned char	 c = s[i];

		q[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	if (n > OAUTH_MAX_QUOTE_BYTES) {
		memcpy(q + i, "...", 3);
		i += 3;
	}
	q[i] = '\0';
	if (o->conf.client_secret != NULL && *o->conf.client_secret != '\0' &&
	    strstr(s, o->conf.client_secret) != NULL) {
		free(q);
		return (xstrdup("(withheld: it holds the client secret)"));
	}
	return (q);
}

/* A URL fit for a reason: no userinfo, query or fragment. */
static char *
oauth_show_url(const struct oauth *o, const char *s)
{
	struct url	 u;
	const char	*err;
	char		*text;

	if (url_parse(s, &u, &err) != 0)
		return (oauth_quote(o, s));
	free(u.userinfo);
	free(u.query);
	free(u.fragment);
	u.userinfo = u.query = u.fragment = NULL;
	text = url_format(&u);
	url_clear(&u);
	return (text);
}

static int
oauth_loopback_host(const char *host)
{
	if (strcmp(host, "localhost") == 0 || strcmp(host, "[::1]") == 0)
		return (1);
	if (strncmp(host, "127.", 4) == 0 &&
	    strspn(host, "0123456789.") == strlen(host))
		return (1);
	return (0);
}

/*
 * Whether credentials (or metadata saying where they go) may travel to or
 * from this URL: https, or http to a loopback address.  -1 with *reason.
 */
static int
oauth_url_allowed(const struct oauth *o, const char *what, const char *s,
    char **reason)
{
	struct url	 u;
	const char	*err;
	char		*shown;
	int		 ok;

	if (url_parse(s, &u, &err) != 0) {
		shown = oauth_quote(o, s);
		xasprintf(reason, "%s \"%s\" is not a valid http(s) URL: %s",
		    what, shown, err);
		free(shown);
		return (-1);
	}
	ok = strcmp(u.scheme, "https") == 0 || oauth_loopback_host(u.host);
	url_clear(&u);
	if (ok)
		return (0);
	shown = oauth_show_url(o, s);
	xasprintf(reason, "refusing %s %s: it is plain http and not on a "
	    "loopback address (https is required)", what, shown);
	free(shown);
	return (-1);
}

/* A scope token of RFC 6749 section 3.3. */
static int
oauth_scope_token_ok(const char *s)
{
	const unsigned char	*p;

	if (*s == '\0')
		return (0);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p < 0x21 || *p > 0x7e || *p == '"' || *p == '\\')
			return (0);
	}
	return (1);
}

/* Scope tokens separated by single spaces, bounded. */
static int
oauth_scope_ok(const char *s)
{
	const unsigned char	*p = (const unsigned char *)s;

	if (*p == '\0' || *p == ' ' || strlen(s) > 4096)
		return (0);
	for (; *p != '\0'; p++) {
		if (*p == ' ') {
			if (p[1] == ' ' || p[1] == '\0')
				return (0);
			continue;
		}
		if (*p < 0x21 || *p > 0x7e || *p == '"' || *p == '\\')
			return (0);
	}
	return (1);
}

/* A bearer token's characters (RFC 6750 section 2.1, b64token). */
static int
oauth_token_ok(const char *s)
{
	size_t	 n, i;

	n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789-._~+/");
	if (n == 0)
		return (0);
	for (i = n; s[i] == '='; i++)
		;
	return (s[i] == '\0');
}

static char *
oauth_read_secret(const char *path, char **err)
{
	struct stat	 st;
	char		*buf;
	ssize_t		 r;
	size_t		 len = 0;
	int		 fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd == -1) {
		xasprintf(err, "client secret file %s: %s", path,
		    strerror(errno));
		return (NULL);
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		xasprintf(err, "client secret file %s: not a regular file",
		    path);
		close(fd);
		return (NULL);
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO))
		remote_log("warning: client secret file %s is accessible to "
		    "group or others (mode %04o); chmod 600 it", path,
		    (unsigned int)(st.st_mode & 07777));
	buf = xmalloc(OAUTH_MAX_SECRET_BYTES + 1);
	for (;;) {
		r = read(fd, buf + len, OAUTH_MAX_SECRET_BYTES + 1 - len);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
		if (len > OAUTH_MAX_SECRET_BYTES)
			break;
	}
	close(fd);
	if (r == -1) {
		xasprintf(err, "client secret file %s: %s", path,
		    strerror(errno));
		goto fail;
	}
	if (len > OAUTH_MAX_SECRET_BYTES) {
		xasprintf(err, "client secret file %s: larger than %d bytes",
		    path, OAUTH_MAX_SECRET_BYTES);
		goto fail;
	}
	buf[len] = '\0';
	if (len > 0 && buf[len - 1] == '\n') {
		buf[--len] = '\0';
		if (len > 0 && buf[len - 1] == '\r')
			buf[--len] = '\0';
	}
	if (len == 0) {
		xasprintf(err, "client secret file %s is empty", path);
		goto fail;
	}
	if (strlen(buf) != len) {
		xasprintf(err, "client secret file %s holds a NUL byte", path);
		goto fail;
	}
	return (buf);

fail:
	explicit_bzero(buf, OAUTH_MAX_SECRET_BYTES + 1);
	free(buf);
	return (NULL);
}

static char *
oauth_dup(const char *s)
{
	return (s != NULL && *s != '\0' ? xstrdup(s) : NULL);
}

/* Set the held token from tok (a sign-in's), with its refresh time. */
static void
oauth_hold_access(struct oauth *o)
{
	uint64_t	 life_ms, margin_ms;

	oauth_wipe(o->header);
	o->header = NULL;
	o->expires_ms = o->refresh_ms = o->retry_ms = 0;
	if (o->tok.access_token == NULL || !oauth_token_ok(o->tok.access_token))
		return;
	xasprintf(&o->header, "Authorization: Bearer %s", o->tok.access_token);
	if (o->tok.expires_at <= 0)
		return;
	o->expires_ms = (uint64_t)o->tok.expires_at * 1000;
	life_ms = o->tok.obtained_at > 0 && o->tok.expires_at >
	    o->tok.obtained_at ? (uint64_t)(o->tok.expires_at -
	    o->tok.obtained_at) * 1000 : OAUTH_REFRESH_MARGIN_MS * 10;
	margin_ms = life_ms / 10;
	if (margin_ms > OAUTH_REFRESH_MARGIN_MS)
		margin_ms = OAUTH_REFRESH_MARGIN_MS;
	o->refresh_ms = o->expires_ms - margin_ms;
}

/* A token file belongs to this server if it names its URL and resource. */
static int
oauth_tokens_mine(const struct oauth *o, const struct tokens *t)
{
	return (t->server_url != NULL && t->resource != NULL &&
	    strcmp(t->server_url, o->server_url) == 0 &&
	    strcmp(t->resource, o->resource) == 0);
}

/* Read the token file; 1 if it holds this server's sign-in. */
static int
oauth_read_tokens(struct oauth *o, struct tokens *t)
{
	char	*err;
	int	 rv;

	memset(t, 0, sizeof *t);
	if (o->conf.token_file == NULL)
		return (0);
	rv = store_load(o->conf.token_file, t, &err);
	if (rv == -1) {
		remote_log("%s", err);
		free(err);
		return (0);
	}
	if (rv == 1 && !oauth_tokens_mine(o, t)) {
		remote_log("token file %s is for another server URL or "
		    "resource: sign in again", o->conf.token_file);
		tokens_clear(t);
		return (0);
	}
	return (rv);
}

struct oauth *
oauth_new(struct http *http, const char *server_url,
    const struct oauth_conf *conf, const struct oauth_hooks *hooks,
    void *hook_arg, char **err)
{
	struct oauth	*o;
	char		*jwt, *why;

	*err = NULL;
	o = xcalloc(1, sizeof *o);
	o->http = http;
	o->lock_fd = -1;
	o->server_url = xstrdup(server_url);
	if (hooks != NULL)
		o->hooks = *hooks;
	o->hook_arg = hook_arg;
	TAILQ_INIT(&o->waiters);
	TAILQ_INIT(&o->delivering);
	o->conf.client_id = oauth_dup(conf->client_id);
	o->conf.client_secret = oauth_dup(conf->client_secret);
	o->conf.client_secret_file = oauth_dup(conf->client_secret_file);
	o->conf.private_key_file = oauth_dup(conf->private_key_file);
	o->conf.signing_algorithm = oauth_dup(conf->signing_algorithm);
	o->conf.token_url = oauth_dup(conf->token_url);
	o->conf.scope = oauth_dup(conf->scope);
	o->conf.resource = oauth_dup(conf->resource);
	o->conf.jwt_audience = oauth_dup(conf->jwt_audience);
	o->conf.grant = oauth_dup(conf->grant);
	o->conf.client_metadata_url = oauth_dup(conf->client_metadata_url);
	o->conf.token_file = oauth_dup(conf->token_file);
	o->code = o->conf.grant != NULL &&
	    strcmp(o->conf.grant, "authorization_code") == 0;

	if (o->conf.client_id == NULL && !o->code) {
		*err = xstrdup("client_id is required");
		goto fail;
	}
	if (o->conf.client_secret != NULL &&
	    o->conf.client_secret_file != NULL) {
		*err = xstrdup("client_secret and client_secret_file "
		    "are both set; keep one");
		goto fail;
	}
	if (o->conf.client_secret_file != NULL) {
		o->conf.client_secret = oauth_read_secret(
		    o->conf.client_secret_file, &why);
		if (o->conf.client_secret == NULL) {
			*err = why;
			goto fail;
		}
	}
	if (o->code && (o->conf.private_key_file != NULL ||
	    o->conf.token_url != NULL)) {
		*err = xstrdup("a sign-in (authorization_code) takes no "
		    "private key and no token_url");
		goto fail;
	}
	if (!o->code && o->conf.private_key_file == NULL &&
	    o->conf.client_secret == NULL) {
		*err = xstrdup("a client secret (client_secret_file) "
		    "or a private key (private_key_file) is required");
		goto fail;
	}
	if (o->conf.private_key_file != NULL) {
		if (o->conf.signing_algorithm == NULL) {
			*err = xstrdup("private_key_file needs "
			    "signing_algorithm (ES256 or RS256)");
			goto fail;
		}
		if (strcmp(o->conf.signing_algorithm, "ES256") != 0 &&
		    strcmp(o->conf.signing_algorithm, "RS256") != 0) {
			*err = xstrdup("signing_algorithm must be ES256 "
			    "or RS256");
			goto fail;
		}
		/* Find a bad key now, not at the first 401. */
		jwt = jwt_client_assertion(o->conf.private_key_file,
		    o->conf.signing_algorithm, o->conf.client_id, "check",
		    time(NULL), &why);
		if (jwt == NULL) {
			*err = why;
			goto fail;
		}
		oauth_wipe(jwt);
	}
	if (o->conf.token_url != NULL &&
	    oauth_url_allowed(o, "token_url", o->conf.token_url, &why) != 0) {
		*err = why;
		goto fail;
	}
	if (o->conf.resource != NULL)
		o->resource = xstrdup(o->conf.resource);
	else if ((o->resource = url_canonical_resource(server_url)) == NULL) {
		*err = xstrdup("the server URL is not a valid http(s) "
		    "URL");
		goto fail;
	}
	if (o->conf.scope != NULL && strpbrk(o->conf.scope, "\r\n") != NULL) {
		*err = xstrdup("scope holds a line break");
		goto fail;
	}
	if (o->code) {
		o->lock_timer = evtimer_new(http_base(http), oauth_lock_cb, o);
		if (oauth_read_tokens(o, &o->tok) == 1)
			oauth_hold_access(o);
	}
	return (o);

fail:
	oauth_free(o);
	return (NULL);
}

static void
oauth_clear_cands(struct oauth *o)
{
	size_t	 i;

	for (i = 0; i < o->ncand; i++) {
		free(o->cand[i]);
		o->cand[i] = NULL;
	}
	o->ncand = o->icand = 0;
}

static void
oauth_drop_token(struct oauth *o)
{
	oauth_wipe(o->header);
	o->header = NULL;
	o->expires_ms = o->refresh_ms = o->retry_ms = 0;
}

static void
oauth_drop_waiters(struct oauth_waiters *list)
{
	struct oauth_waiter	*w;

	while ((w = TAILQ_FIRST(list)) != NULL) {
		TAILQ_REMOVE(list, w, entry);
		free(w);
	}
}

static void
oauth_unlock(struct oauth *o)
{
	if (o->lock_timer != NULL)
		evtimer_del(o->lock_timer);
	store_unlock(o->lock_fd);
	o->lock_fd = -1;
}

/* Forget an exchange's code and verifier. */
static void
oauth_end_goal(struct oauth *o)
{
	oauth_wipe(o->ex_code);
	oauth_wipe(o->ex_verifier);
	free(o->ex_redirect);
	o->ex_code = o->ex_verifier = o->ex_redirect = NULL;
	o->goal = OAUTH_GOAL_TOKEN;
}

static void
oauth_destroy(struct oauth *o)
{
	if (o->req != NULL)
		http_cancel(o->req);
	oauth_drop_waiters(&o->waiters);
	oauth_drop_waiters(&o->delivering);
	oauth_clear_cands(o);
	oauth_drop_token(o);
	oauth_unlock(o);
	if (o->lock_timer != NULL)
		event_free(o->lock_timer);
	tokens_clear(&o->tok);
	oauth_wipe(o->refused);
	oauth_end_goal(o);
	free(o->server_url);
	oauth_conf_clear(&o->conf);
	free(o->resource);
	free(o->issuer);
	free(o->token_url);
	free(o->methods_text);
	free(o->scopes_supported);
	free(o->challenge_scope);
	free(o->authorization_endpoint);
	free(o->registration_endpoint);
	free(o->revocation_endpoint);
	free(o);
}

void
oauth_free(struct oauth *o)
{
	if (o == NULL)
		return;
	if (o->depth == 0) {
		oauth_destroy(o);
		return;
	}
	/* Inside a call into this module: no more callbacks, free later. */
	o->dead = 1;
	if (o->req != NULL) {
		http_cancel(o->req);
		o->req = NULL;
	}
	o->req_open = 0;
	oauth_unlock(o);
	oauth_drop_waiters(&o->waiters);
	oauth_drop_waiters(&o->delivering);
}

static void
oauth_enter(struct oauth *o)
{
	o->depth++;
}

static void
oauth_leave(struct oauth *o)
{
	if (--o->depth == 0 && o->dead)
		oauth_destroy(o);
}

/* The held token may be sent (it has not expired). */
static int
oauth_usable(const struct oauth *o, uint64_t now)
{
	return (o->header != NULL && (o->expires_ms == 0 ||
	    now < o->expires_ms));
}

const char *
oauth_header(struct oauth *o)
{
	if (!oauth_usable(o, oauth_now_ms()))
		return (NULL);
	return (o->header);
}

time_t
oauth_expiry(const struct oauth *o)
{
	if (o->header == NULL)
		return (0);
	return ((time_t)(o->expires_ms / 1000));
}

/* The fetch ended: tell the hooks, then every waiter. */
static void
oauth_finish(struct oauth *o, const char *reason)
{
	struct oauth_waiter	*w;
	oauth_fn		 fn;
	void			*arg;
	int			 result = 0;
	char			*why = NULL;

	o->step = OAUTH_IDLE;
	oauth_clear_cands(o);
	oauth_unlock(o);
	if (o->goal != OAUTH_GOAL_TOKEN) {
		/* signin.c's: the hooks report tokens for requests only. */
		if (reason != NULL)
			why = xstrdup(reason);
		result = reason == NULL ? (o->goal == OAUTH_GOAL_REVOKE ?
		    o->revoked : 0) : -1;
		oauth_end_goal(o);
	} else if (reason != NULL) {
		why = xstrdup(reason);
		/* A sign-in needed is the session's to report (needs-login). */
		if (o->hooks.failed != NULL && !o->needs_login)
			o->hooks.failed(o->hook_arg, why);
		if (o->needs_login) {
			oauth_drop_token(o);
			result = OAUTH_NEEDS_LOGIN;
		} else if (o->refreshing && oauth_usable(o, oauth_now_ms()))
			o->retry_ms = oauth_now_ms() + OAUTH_REFRESH_RETRY_MS;
		else {
			oauth_drop_token(o);
			result = -1;
		}
	} else if (o->hooks.fetched != NULL)
		o->hooks.fetched(o->hook_arg, oauth_expiry(o));
	o->refreshing = 0;
	o->needs_login = 0;

	/*
	 * Those waiting now hear it; a callback may queue again (a new
	 * fetch, heard later) or cancel one still to be told.
	 */
	TAILQ_CONCAT(&o->delivering, &o->waiters, entry);
	while (!o->dead && (w = TAILQ_FIRST(&o->delivering)) != NULL) {
		TAILQ_REMOVE(&o->delivering, w, entry);
		fn = w->fn;
		arg = w->arg;
		free(w);
		fn(arg, result, result == 0 ? NULL : why);
	}
	free(why);
}

/* Start one HTTP exchange of the chain. */
static void
oauth_fetch(struct oauth *o, const char *method, const char *url,
    const char *const *headers, char *body, size_t body_len,
    http_fetch_fn fn)
{
	struct http_req	*req;
	unsigned int	 seq;

	seq = ++o->req_seq;
	o->req_open = 1;
	req = http_fetch(o->http, method, url, headers, body, body_len,
	    OAUTH_MAX_BODY_BYTES, OAUTH_TIMEOUT_MS, fn, o);
	/* Unless it already ended (or a newer one began) in a callback. */
	if (o->req_open && o->req_seq == seq)
		o->req = req;
	if (req == NULL && o->req_open && o->req_seq == seq) {
		o->req_open = 0;
		oauth_finish(o, "cannot start an HTTP request");
	}
}

/* Discovery: fetch the metadata at the current candidate URL. */
static void
oauth_fetch_cand(struct oauth *o, http_fetch_fn cb)
{
	static const char *const headers[] = { "Accept: application/json",
	    NULL };
	/* 2025-03-26: so that the server may answer for that version. */
	static const char *const legacy[] = { "Accept: application/json",
	    "MCP-Protocol-Version: " OAUTH_LEGACY_VERSION, NULL };

	oauth_fetch(o, "GET", o->cand[o->icand], o->legacy ? legacy : headers,
	    NULL, 0, cb);
}

/* The common start of every fetch callback: 0 if it should go on. */
static int
oauth_fetch_ended(struct oauth *o)
{
	o->req = NULL;
	o->req_open = 0;
	return (o->dead ? -1 : 0);
}

/* A failed exchange as a reason; NULL if it is a response to read. */
static char *
oauth_http_failed(struct oauth *o, const char *what, const char *url,
    enum http_end end, const char *error)
{
	char	*shown, *reason;

	if (end == HTTP_DONE)
		return (NULL);
	shown = oauth_show_url(o, url);
	xasprintf(&reason, "%s %s: %s", what, shown,
	    error != NULL ? error : "request failed");
	free(shown);
	return (reason);
}

static cJSON *
oauth_parse_object(const char *body, size_t len)
{
	cJSON	*json;

	json = cJSON_ParseWithLength(body, len);
	if (json != NULL && !cJSON_IsObject(json)) {
		cJSON_Delete(json);
		return (NULL);
	}
	return (json);
}

static const char *
oauth_json_string(const cJSON *obj, const char *name)
{
	const cJSON	*v;

	v = cJSON_GetObjectItemCaseSensitive(obj, name);
	if (!cJSON_IsString(v) || v->valuestring == NULL)
		return (NULL);
	return (v->valuestring);
}

/* Valid scope tokens of an array, joined by spaces; NULL if none. */
static char *
oauth_join_scopes(const cJSON *arr)
{
	const cJSON	*v;
	char		*out = NULL, *next;

	if (!cJSON_IsArray(arr))
		return (NULL);
	cJSON_ArrayForEach(v, arr) {
		if (!cJSON_IsString(v) || !oauth_scope_token_ok(v->valuestring))
			continue;
		if (out != NULL && strlen(out) > 4096)
			break;
		if (out == NULL)
			out = xstrdup(v->valuestring);
		else {
			xasprintf(&next, "%s %s", out, v->valuestring);
			free(out);
			out = next;
		}
	}
	return (out);
}

/* Discovery. */

static void
oauth_start_discovery(struct oauth *o, const char *resource_metadata)
{
	char	*reason;

	o->step = OAUTH_PRM;
	oauth_clear_cands(o);
	o->legacy = o->defaults = 0;
	o->wellknown = resource_metadata == NULL;
	if (resource_metadata != NULL) {
		if (oauth_url_allowed(o, "resource_metadata URL",
		    resource_metadata, &reason) != 0) {
			oauth_finish(o, reason);
			free(reason);
			return;
		}
		o->cand[0] = xstrdup(resource_metadata);
		o->ncand = 1;
	} else {
		o->ncand = url_prm_candidates(o->server_url, o->cand);
		if (o->ncand == 0) {
			oauth_finish(o, "the server URL is not a valid "
			    "http(s) URL");
			return;
		}
	}
	oauth_fetch_cand(o, oauth_prm_cb);
}

static void
oauth_prm_cb(void *arg, struct http_req *req, enum http_end end,
    const char *error, const char *body, size_t len)
{
	struct oauth	*o = arg;
	const char	*url, *resource;
	const cJSON	*servers, *first;
	cJSON		*json = NULL;
	char		*reason = NULL, *shown = NULL, *quoted = NULL;
	long		 status;

	oauth_enter(o);
	if (oauth_fetch_ended(o) != 0)
		goto out;
	url = o->cand[o->icand];
	shown = oauth_show_url(o, url);
	if ((reason = oauth_http_failed(o, "protected resource metadata",
	    url, end, error)) != NULL)
		goto fail;
	status = http_status(req);
	if (status == 404 && o->icand + 1 < o->ncand) {
		o->icand++;
		oauth_fetch_cand(o, oauth_prm_cb);
		goto out;
	}
	if (status == 404 && o->wellknown) {
		oauth_start_legacy(o);
		goto out;
	}
	if (status != 200) {
		xasprintf(&reason, "protected resource metadata (HTTP %ld at "
		    "%s)", status, shown);
		goto fail;
	}
	if ((json = oauth_parse_object(body, len)) == NULL) {
		xasprintf(&reason, "protected resource metadata %s: not a "
		    "JSON object", shown);
		goto fail;
	}
	resource = oauth_json_string(json, "resource");
	if (resource == NULL) {
		xasprintf(&reason, "protected resource metadata %s has no "
		    "\"resource\"", shown);
		goto fail;
	}
	/* At the root well-known URL the origin names it too (url.h). */
	if (!url_resource_matches(resource, o->server_url) &&
	    !(o->wellknown && o->icand + 1 == o->ncand &&
	    url_resource_is_origin(resource, o->server_url))) {
		quoted = oauth_quote(o, resource);
		free(shown);
		shown = oauth_show_url(o, o->server_url);
		xasprintf(&reason, "refusing the protected resource metadata: "
		    "its resource \"%s\" is not the server URL %s", quoted,
		    shown);
		goto fail;
	}
	servers = cJSON_GetObjectItemCaseSensitive(json,
	    "authorization_servers");
	first = cJSON_IsArray(servers) ? cJSON_GetArrayItem(servers, 0) : NULL;
	if (!cJSON_IsString(first) || first->valuestring == NULL) {
		xasprintf(&reason, "protected resource metadata %s names no "
		    "authorization server", shown);
		goto fail;
	}
	if (oauth_url_allowed(o, "authorization server", first->valuestring,
	    &reason) != 0 ||
	    oauth_same_issuer(o, first->valuestring, &reason) != 0)
		goto fail;
	free(o->issuer);
	o->issuer = xstrdup(first->valuestring);
	free(o->scopes_supported);
	o->scopes_supported = oauth_join_scopes(
	    cJSON_GetObjectItemCaseSensitive(json, "scopes_supported"));

	oauth_clear_cands(o);
	o->step = OAUTH_ASM;
	o->ncand = url_asm_candidates(o->issuer, o->cand);
	if (o->ncand == 0) {
		quoted = oauth_quote(o, o->issuer);
		xasprintf(&reason, "authorization server \"%s\" is not a "
		    "valid issuer URL", quoted);
		goto fail;
	}
	oauth_fetch_cand(o, oauth_asm_cb);
	goto out;

fail:
	oauth_finish(o, reason);
out:
	cJSON_Delete(json);
	free(reason);
	free(shown);
	free(quoted);
	oauth_leave(o);
}


/* An optional endpoint of the metadata: NULL if absent, -1 if refused. */
static int
oauth_asm_endpoint(struct oauth *o, const cJSON *json, const char *name,
    char **out, char **reason)
{
	const char	*v;

	free(*out);
	*out = NULL;
	if ((v = oauth_json_string(json, name)) == NULL)
		return (0);
	if (oauth_url_allowed(o, name, v, reason) != 0)
		return (-1);
	*out = xstrdup(v);
	return (0);
}

/* What a sign-in needs beyond the token endpoint. */
static int
oauth_asm_more(struct oauth *o, const cJSON *json, char **reason)
{
	const cJSON	*v, *list;
	char		*scopes;

	if (oauth_asm_endpoint(o, json, "authorization_endpoint",
	    &o->authorization_endpoint, reason) != 0 ||
	    oauth_asm_endpoint(o, json, "registration_endpoint",
	    &o->registration_endpoint, reason) != 0 ||
	    oauth_asm_endpoint(o, json, "revocation_endpoint",
	    &o->revocation_endpoint, reason) != 0)
		return (-1);
	list = cJSON_GetObjectItemCaseSensitive(json,
	    "code_challenge_methods_supported");
	o->pkce_listed = cJSON_IsArray(list);
	o->pkce_s256 = 0;
	if (!o->pkce_listed)
		list = NULL;
	cJSON_ArrayForEach(v, list) {
		if (cJSON_IsString(v) && strcmp(v->valuestring, "S256") == 0)
			o->pkce_s256 = 1;
	}
	o->cimd = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(json,
	    "client_id_metadata_document_supported"));
	o->method_none = 0;
	list = cJSON_GetObjectItemCaseSensitive(json,
	    "token_endpoint_auth_methods_supported");
	if (!cJSON_IsArray(list))
		list = NULL;
	cJSON_ArrayForEach(v, list) {
		if (cJSON_IsString(v) && strcmp(v->valuestring, "none") == 0)
			o->method_none = 1;
	}
	/* The resource's scopes first; the server's if it lists none. */
	if (o->scopes_supported == NULL && (scopes = oauth_join_scopes(
	    cJSON_GetObjectItemCaseSensitive(json, "scopes_supported"))) !=
	    NULL)
		o->scopes_supported = scopes;
	return (0);
}

/* A sign-in's tokens never go to another authorization server. */
static int
oauth_same_issuer(struct oauth *o, const char *issuer, char **reason)
{
	char	*now, *was;

	if (!o->code || o->goal != OAUTH_GOAL_TOKEN || o->tok.issuer == NULL ||
	    strcmp(issuer, o->tok.issuer) == 0)
		return (0);
	now = oauth_quote(o, issuer);
	was = oauth_quote(o, o->tok.issuer);
	xasprintf(reason, "the server now names the authorization server "
	    "\"%s\", not \"%s\" that issued the sign-in's tokens: sign in "
	    "again", now, was);
	free(now);
	free(was);
	o->needs_login = 1;
	return (-1);
}

/*
 * MCP 2025-03-26 (see the top): the authorization server at the server's
 * origin, its metadata at the well-known URLs there.
 */
static void
oauth_start_legacy(struct oauth *o)
{
	char	*reason = NULL;

	oauth_clear_cands(o);
	o->legacy = 1;
	o->step = OAUTH_ASM;
	free(o->scopes_supported);
	o->scopes_supported = NULL;
	free(o->issuer);
	if ((o->issuer = url_origin(o->server_url)) == NULL) {
		oauth_finish(o, "the server URL is not a valid http(s) URL");
		return;
	}
	if (oauth_url_allowed(o, "authorization server", o->issuer,
	    &reason) != 0) {
		oauth_finish(o, reason);
		free(reason);
		return;
	}
	o->ncand = url_asm_candidates(o->issuer, o->cand);
	oauth_fetch_cand(o, oauth_asm_cb);
}

/*
 * 2025-03-26 without metadata: the default endpoints at the origin.
 * Nothing is listed, so PKCE is S256, which OAuth 2.1 makes mandatory
 * for the server to implement.
 */
static void
oauth_legacy_defaults(struct oauth *o)
{
	free(o->authorization_endpoint);
	free(o->token_url);
	free(o->registration_endpoint);
	free(o->revocation_endpoint);
	free(o->methods_text);
	xasprintf(&o->authorization_endpoint, "%s/authorize", o->issuer);
	xasprintf(&o->token_url, "%s/token", o->issuer);
	xasprintf(&o->registration_endpoint, "%s/register", o->issuer);
	o->revocation_endpoint = NULL;
	o->methods_text = NULL;
	o->methods_listed = o->method_basic = o->method_post = 0;
	o->method_jwt = o->method_none = 0;
	o->pkce_listed = o->pkce_s256 = o->cimd = 0;
	o->defaults = 1;
}

/* Discovery is done: the token, or signin.c's next step. */
static void
oauth_discovered(struct oauth *o)
{
	o->discovered = 1;
	oauth_clear_cands(o);
	if (o->goal == OAUTH_GOAL_DISCOVER)
		oauth_finish(o, NULL);
	else
		oauth_token_request(o);
}

static void
oauth_asm_cb(void *arg, struct http_req *req, enum http_end end,
    const char *error, const char *body, size_t len)
{
	struct oauth	*o = arg;
	const char	*url, *issuer, *token_url;
	const cJSON	*methods, *v;
	cJSON		*json = NULL;
	char		*reason = NULL, *shown = NULL, *quoted = NULL, *next;
	long		 status;

	oauth_enter(o);
	if (oauth_fetch_ended(o) != 0)
		goto out;
	url = o->cand[o->icand];
	shown = oauth_show_url(o, url);
	if ((reason = oauth_http_failed(o, "authorization server metadata",
	    url, end, error)) != NULL)
		goto fail;
	status = http_status(req);
	if (status == 404 && o->icand + 1 < o->ncand) {
		o->icand++;
		oauth_fetch_cand(o, oauth_asm_cb);
		goto out;
	}
	if (status == 404 && o->legacy) {
		if (oauth_same_issuer(o, o->issuer, &reason) != 0)
			goto fail;
		oauth_legacy_defaults(o);
		oauth_discovered(o);
		goto out;
	}
	if (status == 404) {
		free(shown);
		shown = oauth_show_url(o, o->issuer);
		xasprintf(&reason, "no authorization server metadata for %s "
		    "(HTTP 404 at each of its %zu well-known URLs)", shown,
		    o->ncand);
		goto fail;
	}
	if (status != 200) {
		xasprintf(&reason, "authorization server metadata %s: HTTP "
		    "%ld", shown, status);
		goto fail;
	}
	if ((json = oauth_parse_object(body, len)) == NULL) {
		xasprintf(&reason, "authorization server metadata %s: not a "
		    "JSON object", shown);
		goto fail;
	}
	issuer = oauth_json_string(json, "issuer");
	if (o->legacy && issuer != NULL &&
	    url_same_origin(issuer, o->server_url)) {
		/* 2025-03-26: any issuer of the origin asked (see above). */
		free(o->issuer);
		o->issuer = xstrdup(issuer);
		if (oauth_same_issuer(o, issuer, &reason) != 0)
			goto fail;
	} else if (issuer == NULL || strcmp(issuer, o->issuer) != 0) {
		quoted = oauth_quote(o, issuer != NULL ? issuer : "(none)");
		free(shown);
		shown = oauth_quote(o, o->issuer);
		xasprintf(&reason, "refusing the authorization server metadata: "
		    "its issuer \"%s\" is not %s\"%s\", the authorization "
		    "server %s", quoted, o->legacy ? "at the origin of " : "",
		    shown, o->legacy ? "of a server without protected "
		    "resource metadata (MCP 2025-03-26)" : "the resource names");
		goto fail;
	}
	token_url = oauth_json_string(json, "token_endpoint");
	if (token_url == NULL) {
		xasprintf(&reason, "authorization server metadata %s has no "
		    "token_endpoint", shown);
		goto fail;
	}
	if (oauth_url_allowed(o, "token endpoint", token_url, &reason) != 0)
		goto fail;

	free(o->token_url);
	o->token_url = xstrdup(token_url);
	free(o->methods_text);
	o->methods_text = NULL;
	o->method_basic = o->method_post = o->method_jwt = 0;
	methods = cJSON_GetObjectItemCaseSensitive(json,
	    "token_endpoint_auth_methods_supported");
	o->methods_listed = cJSON_IsArray(methods);
	if (o->methods_listed) {
		cJSON_ArrayForEach(v, methods) {
			if (!cJSON_IsString(v))
				continue;
			if (strcmp(v->valuestring, "client_secret_basic") == 0)
				o->method_basic = 1;
			else if (strcmp(v->valuestring,
			    "client_secret_post") == 0)
				o->method_post = 1;
			else if (strcmp(v->valuestring, "private_key_jwt") == 0)
				o->method_jwt = 1;
			if (o->methods_text != NULL &&
			    strlen(o->methods_text) > OAUTH_MAX_QUOTE_BYTES)
				continue;
			free(quoted);
			quoted = oauth_quote(o, v->valuestring);
			if (o->methods_text == NULL)
				o->methods_text = xstrdup(quoted);
			else {
				xasprintf(&next, "%s, %s", o->methods_text,
				    quoted);
				free(o->methods_text);
				o->methods_text = next;
			}
		}
	}
	if (oauth_asm_more(o, json, &reason) != 0)
		goto fail;
	oauth_discovered(o);
	goto out;

fail:
	oauth_finish(o, reason);
out:
	cJSON_Delete(json);
	free(reason);
	free(shown);
	free(quoted);
	oauth_leave(o);
}


/* The token. */

/* Append "&name=value" (form-escaped) to a body. */
static void
oauth_form_add(char **body, const char *name, const char *value)
{
	char	*esc, *next;

	esc = b64_form_escape(value);
	xasprintf(&next, "%s%s%s=%s", *body, **body != '\0' ? "&" : "",
	    name, esc);
	oauth_wipe(esc);
	oauth_wipe(*body);
	*body = next;
}

/* How to authenticate: -1 with *reason if the server allows no way. */
static int
oauth_choose_auth(struct oauth *o, enum oauth_auth *auth, char **reason)
{
	const char	*listed;

	listed = o->methods_text != NULL ? o->methods_text : "nothing";
	if (o->conf.private_key_file != NULL) {
		if (o->methods_listed && !o->method_jwt) {
			xasprintf(reason, "the authorization server does not "
			    "accept private_key_jwt (it lists %s)", listed);
			return (-1);
		}
		*auth = OAUTH_AUTH_JWT;
		return (0);
	}
	if (!o->methods_listed || o->method_basic)
		*auth = OAUTH_AUTH_BASIC;
	else if (o->method_post)
		*auth = OAUTH_AUTH_POST;
	else {
		xasprintf(reason, "the authorization server accepts neither "
		    "client_secret_basic nor client_secret_post (it lists %s); "
		    "configure a private key for private_key_jwt", listed);
		return (-1);
	}
	return (0);
}

/* A refresh token's characters: visible ASCII, bounded. */
static int
oauth_refresh_token_ok(const char *s)
{
	const unsigned char	*p;

	if (*s == '\0' || strlen(s) > OAUTH_MAX_TOKEN_BYTES)
		return (0);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p < 0x21 || *p > 0x7e)
			return (0);
	}
	return (1);
}

/*
 * A sign-in's new tokens: into tok, into the token file (durably, before
 * the access token is used), then held.  -1 with *reason if the file
 * cannot be written after an exchange (a login that would not survive a
 * restart has failed); after a refresh the new tokens are used anyway
 * (the old refresh token is spent) and the failure logged.
 */
static int
oauth_code_tokens(struct oauth *o, const cJSON *json, const char *token,
    double expires_in, char **reason)
{
	const char	*refresh, *scope;
	char		*err;
	int64_t		 now = (int64_t)(oauth_now_ms() / 1000);

	oauth_wipe(o->tok.access_token);
	o->tok.access_token = xstrdup(token);
	refresh = oauth_json_string(json, "refresh_token");
	if (refresh != NULL && oauth_refresh_token_ok(refresh)) {
		oauth_wipe(o->tok.refresh_token);
		o->tok.refresh_token = xstrdup(refresh);
	} else if (o->goal == OAUTH_GOAL_EXCHANGE) {
		oauth_wipe(o->tok.refresh_token);
		o->tok.refresh_token = NULL;
	}
	scope = oauth_json_string(json, "scope");
	if (scope != NULL && oauth_scope_ok(scope)) {
		free(o->tok.scope);
		o->tok.scope = xstrdup(scope);
	}
	o->tok.obtained_at = now;
	o->tok.expires_at = expires_in > 0 ? now + (int64_t)expires_in : 0;
	if (o->conf.token_file != NULL &&
	    store_save(o->conf.token_file, &o->tok, &err) == -1) {
		if (o->goal == OAUTH_GOAL_EXCHANGE) {
			xasprintf(reason, "cannot keep the tokens: %s", err);
			free(err);
			tokens_clear(&o->tok);
			return (-1);
		}
		remote_log("cannot keep the refreshed tokens (the next start "
		    "will need a new sign-in): %s", err);
		free(err);
	}
	oauth_hold_access(o);
	return (0);
}

/* What was refused at the token endpoint, for a reason. */
static const char *
oauth_grant_name(const struct oauth *o)
{
	if (o->goal == OAUTH_GOAL_EXCHANGE)
		return ("the authorization code");
	return (o->code ? "the refresh token" : "the client credentials");
}

static void
oauth_token_cb(void *arg, struct http_req *req, enum http_end end,
    const char *error, const char *body, size_t len)
{
	struct oauth	*o = arg;
	const cJSON	*v;
	cJSON		*json = NULL;
	const char	*token, *type, *code;
	char		*reason = NULL, *shown = NULL, *q1 = NULL, *q2 = NULL;
	char		*end_ptr;
	double		 expires_in = 0;
	uint64_t	 now, life_ms, margin_ms;
	long		 status;

	oauth_enter(o);
	if (oauth_fetch_ended(o) != 0)
		goto out;
	shown = oauth_show_url(o, o->token_url);
	if ((reason = oauth_http_failed(o, "token endpoint", o->token_url,
	    end, error)) != NULL)
		goto fail;
	status = http_status(req);
	json = oauth_parse_object(body, len);
	if (status != 200) {
		code = json != NULL ? oauth_json_string(json, "error") : NULL;
		if (code != NULL) {
			q1 = oauth_quote(o, code);
			q2 = oauth_quote(o, oauth_json_string(json,
			    "error_description"));
			xasprintf(&reason, "token endpoint %s refused %s "
			    "(HTTP %ld): %s%s%s", shown, oauth_grant_name(o),
			    status, q1, *q2 != '\0' ? ": " : "", q2);
			/* RFC 6749 section 5.2: only a new sign-in helps. */
			if (o->code && o->goal == OAUTH_GOAL_TOKEN &&
			    (strcmp(code, "invalid_grant") == 0 ||
			    strcmp(code, "invalid_client") == 0 ||
			    strcmp(code, "unauthorized_client") == 0))
				o->needs_login = 1;
		} else
			xasprintf(&reason, "token endpoint %s: HTTP %ld",
			    shown, status);
		goto fail;
	}
	if (json == NULL) {
		xasprintf(&reason, "token endpoint %s: the response is not a "
		    "JSON object", shown);
		goto fail;
	}
	token = oauth_json_string(json, "access_token");
	if (token == NULL || *token == '\0') {
		xasprintf(&reason, "token endpoint %s: no access_token in "
		    "the response", shown);
		goto fail;
	}
	if (strlen(token) > OAUTH_MAX_TOKEN_BYTES || !oauth_token_ok(token)) {
		xasprintf(&reason, "token endpoint %s: the access_token is "
		    "not a valid bearer token (bad characters or longer than "
		    "%d bytes)", shown, OAUTH_MAX_TOKEN_BYTES);
		goto fail;
	}
	type = oauth_json_string(json, "token_type");
	if (type == NULL || strcasecmp(type, "Bearer") != 0) {
		q1 = oauth_quote(o, type != NULL ? type : "(none)");
		xasprintf(&reason, "token endpoint %s: token_type \"%s\", not "
		    "Bearer", shown, q1);
		goto fail;
	}
	v = cJSON_GetObjectItemCaseSensitive(json, "expires_in");
	if (cJSON_IsNumber(v))
		expires_in = v->valuedouble;
	else if (cJSON_IsString(v) && v->valuestring != NULL) {
		/* Seen in the wild: a number as a string. */
		expires_in = strtod(v->valuestring, &end_ptr);
		if (end_ptr == v->valuestring || *end_ptr != '\0')
			expires_in = 0;
	}
	if (!isfinite(expires_in) || expires_in < 0)
		expires_in = 0;
	if (expires_in > OAUTH_MAX_EXPIRES_IN_S)
		expires_in = OAUTH_MAX_EXPIRES_IN_S;

	if (o->code) {
		if (oauth_code_tokens(o, json, token, expires_in,
		    &reason) != 0)
			goto fail;
		oauth_finish(o, NULL);
		goto out;
	}
	oauth_drop_token(o);
	xasprintf(&o->header, "Authorization: Bearer %s", token);
	now = oauth_now_ms();
	if (expires_in > 0) {
		life_ms = (uint64_t)(expires_in * 1000);
		o->expires_ms = now + life_ms;
		margin_ms = life_ms / 10;
		if (margin_ms > OAUTH_REFRESH_MARGIN_MS)
			margin_ms = OAUTH_REFRESH_MARGIN_MS;
		o->refresh_ms = o->expires_ms - margin_ms;
	}
	oauth_finish(o, NULL);
	goto out;

fail:
	oauth_finish(o, reason);
out:
	if (json != NULL) {
		/* The tokens are in there: wipe them before they go. */
		v = cJSON_GetObjectItemCaseSensitive(json, "access_token");
		if (cJSON_IsString(v) && v->valuestring != NULL)
			explicit_bzero(v->valuestring, strlen(v->valuestring));
		v = cJSON_GetObjectItemCaseSensitive(json, "refresh_token");
		if (cJSON_IsString(v) && v->valuestring != NULL)
			explicit_bzero(v->valuestring, strlen(v->valuestring));
		cJSON_Delete(json);
	}
	free(reason);
	free(shown);
	free(q1);
	free(q2);
	oauth_leave(o);
}

/* "Authorization: Basic ..." for a client id and secret (RFC 6749 2.3.1). */
static char *
oauth_basic(const char *id, const char *secret)
{
	char	*id_esc, *secret_esc, *pair, *pair64, *basic;

	id_esc = b64_form_escape(id);
	secret_esc = b64_form_escape(secret);
	xasprintf(&pair, "%s:%s", id_esc, secret_esc);
	pair64 = b64_encode(pair, strlen(pair));
	xasprintf(&basic, "Authorization: Basic %s", pair64);
	free(id_esc);
	oauth_wipe(secret_esc);
	oauth_wipe(pair);
	oauth_wipe(pair64);
	return (basic);
}

/* A sign-in's client authenticates as it registered; *basic or the body. */
static void
oauth_code_client_auth(struct oauth *o, char **body, char **basic)
{
	const char	*m = o->tok.auth_method;

	if (m != NULL && strcmp(m, "client_secret_basic") == 0 &&
	    o->tok.client_secret != NULL)
		*basic = oauth_basic(o->tok.client_id, o->tok.client_secret);
	else {
		oauth_form_add(body, "client_id", o->tok.client_id);
		if (m != NULL && strcmp(m, "client_secret_post") == 0 &&
		    o->tok.client_secret != NULL)
			oauth_form_add(body, "client_secret",
			    o->tok.client_secret);
	}
}

/* POST a form to url; the body is wiped once sent. */
static void
oauth_post_form(struct oauth *o, const char *url, char *body, char *basic,
    http_fetch_fn cb)
{
	const char	*headers[4];
	size_t		 n = 0;

	headers[n++] = "Content-Type: application/x-www-form-urlencoded";
	headers[n++] = "Accept: application/json";
	if (basic != NULL)
		headers[n++] = basic;
	headers[n] = NULL;
	oauth_fetch(o, "POST", url, headers, body, strlen(body), cb);
	oauth_wipe(basic);
}

/*
 * The token file's lock is held: another process may have refreshed (or
 * signed in) meanwhile, so read the file again before spending the
 * refresh token.
 */
static void
oauth_refresh_locked(struct oauth *o)
{
	struct tokens	 disk;
	char		*body, *basic = NULL;

	if (oauth_read_tokens(o, &disk) == 1 && (o->tok.refresh_token ==
	    NULL || disk.refresh_token == NULL ||
	    strcmp(disk.refresh_token, o->tok.refresh_token) != 0 ||
	    (disk.access_token != NULL && (o->refused == NULL ||
	    strcmp(disk.access_token, o->refused) != 0)))) {
		tokens_clear(&o->tok);
		o->tok = disk;
		oauth_hold_access(o);
		if (o->header != NULL && (o->refused == NULL ||
		    strcmp(o->tok.access_token, o->refused) != 0) &&
		    oauth_usable(o, oauth_now_ms()) && (o->refresh_ms == 0 ||
		    oauth_now_ms() < o->refresh_ms)) {
			oauth_finish(o, NULL);
			return;
		}
	} else
		tokens_clear(&disk);
	if (o->tok.client_id == NULL) {
		o->needs_login = 1;
		oauth_finish(o, "the server requires authorization, and no "
		    "one has signed in to it yet");
		return;
	}
	if (o->tok.refresh_token == NULL) {
		o->needs_login = 1;
		oauth_finish(o, "the access token expired or was refused, and "
		    "the sign-in has no refresh token: sign in again");
		return;
	}
	free(o->token_url);
	o->token_url = xstrdup(o->tok.token_endpoint);
	body = xstrdup("");
	oauth_form_add(&body, "grant_type", "refresh_token");
	oauth_form_add(&body, "refresh_token", o->tok.refresh_token);
	oauth_form_add(&body, "resource", o->tok.resource);
	oauth_code_client_auth(o, &body, &basic);
	o->step = OAUTH_TOKEN;
	oauth_post_form(o, o->token_url, body, basic, oauth_token_cb);
}

static void
oauth_exchange_locked(struct oauth *o)
{
	char	*body, *basic = NULL;

	free(o->token_url);
	o->token_url = xstrdup(o->tok.token_endpoint);
	body = xstrdup("");
	oauth_form_add(&body, "grant_type", "authorization_code");
	oauth_form_add(&body, "code", o->ex_code);
	oauth_form_add(&body, "redirect_uri", o->ex_redirect);
	oauth_form_add(&body, "code_verifier", o->ex_verifier);
	oauth_form_add(&body, "resource", o->tok.resource);
	oauth_code_client_auth(o, &body, &basic);
	o->step = OAUTH_TOKEN;
	oauth_post_form(o, o->token_url, body, basic, oauth_token_cb);
}

static void	oauth_revoke_next(struct oauth *);

/* Take the token file's lock (waiting for another process), then go on. */
static void
oauth_lock_step(struct oauth *o)
{
	struct timeval	 tv = { 0, OAUTH_LOCK_RETRY_MS * 1000 };
	char		*err;
	int		 rv;

	o->step = OAUTH_LOCK;
	if (o->conf.token_file == NULL)
		rv = 1;
	else if ((rv = store_trylock(o->conf.token_file, &o->lock_fd,
	    &err)) == -1) {
		oauth_finish(o, err);
		free(err);
		return;
	}
	if (rv == 0) {
		if (oauth_now_ms() > o->lock_deadline_ms) {
			oauth_finish(o, "another process held the token file's "
			    "lock too long");
			return;
		}
		evtimer_add(o->lock_timer, &tv);
		return;
	}
	switch (o->goal) {
	case OAUTH_GOAL_EXCHANGE:
		oauth_exchange_locked(o);
		break;
	case OAUTH_GOAL_REVOKE:
		oauth_revoke_next(o);
		break;
	default:
		oauth_refresh_locked(o);
		break;
	}
}

static void
oauth_lock_cb(evutil_socket_t fd, short events, void *arg)
{
	struct oauth	*o = arg;

	(void)fd;
	(void)events;
	oauth_enter(o);
	if (!o->dead && o->step == OAUTH_LOCK)
		oauth_lock_step(o);
	oauth_leave(o);
}

static void
oauth_lock_begin(struct oauth *o)
{
	o->lock_deadline_ms = oauth_now_ms() + OAUTH_LOCK_WAIT_MS;
	oauth_lock_step(o);
}

static void
oauth_token_request(struct oauth *o)
{
	const char	*scope, *audience;
	enum oauth_auth	 auth;
	char		*body, *reason = NULL, *basic = NULL, *jwt, *why;

	if (o->code) {
		oauth_lock_begin(o);
		return;
	}
	o->step = OAUTH_TOKEN;
	if (oauth_choose_auth(o, &auth, &reason) != 0) {
		oauth_finish(o, reason);
		free(reason);
		return;
	}

	body = xstrdup("");
	oauth_form_add(&body, "grant_type", "client_credentials");
	oauth_form_add(&body, "resource", o->resource);
	if ((scope = o->conf.scope) == NULL &&
	    (scope = o->challenge_scope) == NULL)
		scope = o->scopes_supported;
	if (scope != NULL)
		oauth_form_add(&body, "scope", scope);

	switch (auth) {
	case OAUTH_AUTH_BASIC:
		basic = oauth_basic(o->conf.client_id, o->conf.client_secret);
		break;
	case OAUTH_AUTH_POST:
		oauth_form_add(&body, "client_id", o->conf.client_id);
		oauth_form_add(&body, "client_secret", o->conf.client_secret);
		break;
	case OAUTH_AUTH_JWT:
		if ((audience = o->conf.jwt_audience) == NULL)
			audience = o->issuer != NULL ? o->issuer : o->token_url;
		jwt = jwt_client_assertion(o->conf.private_key_file,
		    o->conf.signing_algorithm, o->conf.client_id, audience,
		    time(NULL), &why);
		if (jwt == NULL) {
			xasprintf(&reason, "private_key_jwt: %s", why);
			free(why);
			oauth_wipe(body);
			oauth_finish(o, reason);
			free(reason);
			return;
		}
		oauth_form_add(&body, "client_id", o->conf.client_id);
		oauth_form_add(&body, "client_assertion_type",
		    OAUTH_JWT_BEARER);
		oauth_form_add(&body, "client_assertion", jwt);
		oauth_wipe(jwt);
		break;
	case OAUTH_AUTH_NONE:
		oauth_form_add(&body, "client_id", o->conf.client_id);
		break;
	}
	oauth_post_form(o, o->token_url, body, basic, oauth_token_cb);
}

/* Begin a fetch: discovery first unless it is known or not needed. */
static void
oauth_start(struct oauth *o, const char *www_authenticate)
{
	struct httphdr_bearer	 bearer;
	char			*metadata = NULL;

	memset(&bearer, 0, sizeof bearer);
	if (www_authenticate != NULL &&
	    httphdr_bearer_parse(www_authenticate, &bearer) == 0 &&
	    bearer.found) {
		if (bearer.scope != NULL && oauth_scope_ok(bearer.scope)) {
			free(o->challenge_scope);
			o->challenge_scope = xstrdup(bearer.scope);
		}
		if (bearer.resource_metadata != NULL)
			metadata = xstrdup(bearer.resource_metadata);
	}
	httphdr_bearer_clear(&bearer);

	if (o->goal == OAUTH_GOAL_DISCOVER)
		oauth_start_discovery(o, metadata);
	else if (o->conf.token_url != NULL) {
		if (o->token_url == NULL)
			o->token_url = xstrdup(o->conf.token_url);
		oauth_token_request(o);
	} else if (o->discovered)
		oauth_token_request(o);
	else if (o->code && (www_authenticate == NULL ||
	    o->tok.issuer == NULL))
		/* A refresh ahead of expiry: the endpoint is in the file. */
		oauth_token_request(o);
	else
		/* A 401: is the authorization server still the one? */
		oauth_start_discovery(o, metadata);
	free(metadata);
}

void
oauth_get(struct oauth *o, int stale, const char *www_authenticate,
    oauth_fn fn, void *arg)
{
	struct oauth_waiter	*w;
	uint64_t		 now;

	if (o->dead)
		return;
	now = oauth_now_ms();
	if (!stale && o->step == OAUTH_IDLE && oauth_usable(o, now) &&
	    (o->refresh_ms == 0 || now < o->refresh_ms || now < o->retry_ms)) {
		fn(arg, 0, NULL);
		return;
	}
	w = xcalloc(1, sizeof *w);
	w->fn = fn;
	w->arg = arg;
	TAILQ_INSERT_TAIL(&o->waiters, w, entry);
	if (stale && o->code && o->tok.access_token != NULL) {
		oauth_wipe(o->refused);
		o->refused = xstrdup(o->tok.access_token);
	}
	if (stale)
		oauth_drop_token(o);
	if (o->step != OAUTH_IDLE)
		return;		/* it hears the fetch under way */
	oauth_enter(o);
	o->goal = OAUTH_GOAL_TOKEN;
	o->refreshing = oauth_usable(o, now);
	oauth_start(o, www_authenticate);
	oauth_leave(o);
}

/* Start a fetch for signin.c's goal; cb hears its end alone. */
static int
oauth_begin_goal(struct oauth *o, enum oauth_goal goal, oauth_fn fn,
    void *arg)
{
	struct oauth_waiter	*w;

	if (o->dead)
		return (-1);
	if (o->step != OAUTH_IDLE) {
		fn(arg, -1, "busy: another exchange with the authorization "
		    "server is under way");
		return (-1);
	}
	w = xcalloc(1, sizeof *w);
	w->fn = fn;
	w->arg = arg;
	TAILQ_INSERT_TAIL(&o->waiters, w, entry);
	o->goal = goal;
	return (0);
}

void
oauth_discover(struct oauth *o, const char *www_authenticate, oauth_fn fn,
    void *arg)
{
	if (oauth_begin_goal(o, OAUTH_GOAL_DISCOVER, fn, arg) != 0)
		return;
	oauth_enter(o);
	o->discovered = 0;
	free(o->challenge_scope);
	o->challenge_scope = NULL;
	oauth_start(o, www_authenticate);
	oauth_leave(o);
}

const struct oauth_meta *
oauth_meta(const struct oauth *o)
{
	struct oauth_meta	*m = (struct oauth_meta *)&o->meta;

	memset(m, 0, sizeof *m);
	m->issuer = o->issuer;
	m->authorization_endpoint = o->authorization_endpoint;
	m->token_endpoint = o->token_url;
	m->registration_endpoint = o->registration_endpoint;
	m->revocation_endpoint = o->revocation_endpoint;
	m->scope = o->challenge_scope != NULL ? o->challenge_scope :
	    o->scopes_supported;
	m->resource = o->resource;
	m->pkce_listed = o->pkce_listed;
	m->pkce_s256 = o->pkce_s256;
	m->defaults = o->defaults;
	m->cimd = o->cimd;
	m->methods_listed = o->methods_listed;
	m->method_none = o->method_none;
	m->method_basic = o->method_basic;
	m->method_post = o->method_post;
	return (m);
}

void
oauth_exchange(struct oauth *o, const struct tokens *t, const char *code,
    const char *verifier, const char *redirect_uri, oauth_fn fn, void *arg)
{
	if (oauth_begin_goal(o, OAUTH_GOAL_EXCHANGE, fn, arg) != 0)
		return;
	oauth_enter(o);
	tokens_clear(&o->tok);
	tokens_copy(&o->tok, t);
	o->ex_code = xstrdup(code);
	o->ex_verifier = xstrdup(verifier);
	o->ex_redirect = xstrdup(redirect_uri);
	oauth_lock_begin(o);
	oauth_leave(o);
}

/* Revocation (RFC 7009): the refresh token, the access token, the file. */
static void
oauth_revoke_cb(void *arg, struct http_req *req, enum http_end end,
    const char *error, const char *body, size_t len)
{
	struct oauth	*o = arg;

	(void)body;
	(void)len;
	oauth_enter(o);
	if (oauth_fetch_ended(o) == 0) {
		/* RFC 7009 section 2.2: 200 for a token already invalid. */
		if (end == HTTP_DONE && http_status(req) == 200)
			o->revoked = 1;
		else
			remote_log("revocation endpoint: %s", end == HTTP_DONE ?
			    "refused" : error != NULL ? error : "failed");
		oauth_revoke_next(o);
	}
	oauth_leave(o);
}

static void
oauth_revoke_next(struct oauth *o)
{
	const char	*token = NULL, *hint = NULL;
	char		*body, *basic = NULL, *err;
	int		 rv;

	o->step = OAUTH_REVOKE;
	if (o->tok.revocation_endpoint != NULL) {
		if (o->revoke_step == 0 && o->tok.refresh_token != NULL) {
			token = o->tok.refresh_token;
			hint = "refresh_token";
		} else if (o->revoke_step <= 1 && o->tok.access_token != NULL) {
			token = o->tok.access_token;
			hint = "access_token";
			o->revoke_step = 1;
		}
	}
	if (token != NULL) {
		o->revoke_step++;
		body = xstrdup("");
		oauth_form_add(&body, "token", token);
		oauth_form_add(&body, "token_type_hint", hint);
		oauth_code_client_auth(o, &body, &basic);
		oauth_post_form(o, o->tok.revocation_endpoint, body, basic,
		    oauth_revoke_cb);
		return;
	}
	rv = o->conf.token_file != NULL ? store_remove(o->conf.token_file,
	    &err) : 0;
	if (rv == -1) {
		oauth_finish(o, err);
		free(err);
		return;
	}
	o->revoked = (o->revoked ? 1 : 0) | (rv == 1 ? 2 : 0);
	tokens_clear(&o->tok);
	oauth_drop_token(o);
	oauth_finish(o, NULL);
}

void
oauth_sign_out(struct oauth *o, oauth_fn fn, void *arg)
{
	if (oauth_begin_goal(o, OAUTH_GOAL_REVOKE, fn, arg) != 0)
		return;
	oauth_enter(o);
	o->revoked = 0;
	o->revoke_step = 0;
	oauth_lock_begin(o);
	oauth_leave(o);
}

const char *
oauth_client_secret(const struct oauth *o)
{
	return (o->conf.client_secret);
}

const struct tokens *
oauth_tokens(const struct oauth *o)
{
	return (o->code && o->tok.client_id != NULL ? &o->tok : NULL);
}

int
oauth_header_needed(const struct oauth *o)
{
	return (!o->code || o->tok.client_id != NULL);
}

int
oauth_refreshable(const struct oauth *o)
{
	return (o->code && o->tok.refresh_token != NULL);
}

static void
oauth_cancel_in(struct oauth_waiters *list, void *arg)
{
	struct oauth_waiter	*w, *next;

	for (w = TAILQ_FIRST(list); w != NULL; w = next) {
		next = TAILQ_NEXT(w, entry);
		if (w->arg == arg) {
			TAILQ_REMOVE(list, w, entry);
			free(w);
		}
	}
}

void
oauth_cancel(struct oauth *o, void *arg)
{
	oauth_cancel_in(&o->waiters, arg);
	oauth_cancel_in(&o->delivering, arg);
}
