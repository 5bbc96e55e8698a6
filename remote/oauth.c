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

#include "b64.h"
#include "clock.h"
#include "http.h"
#include "httphdr.h"
#include "jwt.h"
#include "oauth.h"
#include "remote.h"
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

#define OAUTH_JWT_BEARER \
	"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

enum oauth_auth {
	OAUTH_AUTH_BASIC,
	OAUTH_AUTH_POST,
	OAUTH_AUTH_JWT,
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
	char			*issuer;
	char			*token_url;
	int			 methods_listed;
	int			 method_basic;
	int			 method_post;
	int			 method_jwt;
	char			*methods_text;	/* for reasons */
	char			*scopes_supported;
	char			*challenge_scope;

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
static void	oauth_token_request(struct oauth *);

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

	if (o->conf.client_id == NULL) {
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
	if (o->conf.private_key_file == NULL && o->conf.client_secret == NULL) {
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
oauth_destroy(struct oauth *o)
{
	if (o->req != NULL)
		http_cancel(o->req);
	oauth_drop_waiters(&o->waiters);
	oauth_drop_waiters(&o->delivering);
	oauth_clear_cands(o);
	oauth_drop_token(o);
	free(o->server_url);
	oauth_conf_clear(&o->conf);
	free(o->resource);
	free(o->issuer);
	free(o->token_url);
	free(o->methods_text);
	free(o->scopes_supported);
	free(o->challenge_scope);
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
	if (reason != NULL) {
		why = xstrdup(reason);
		if (o->hooks.failed != NULL)
			o->hooks.failed(o->hook_arg, why);
		if (o->refreshing && oauth_usable(o, oauth_now_ms()))
			o->retry_ms = oauth_now_ms() + OAUTH_REFRESH_RETRY_MS;
		else {
			oauth_drop_token(o);
			result = -1;
		}
	} else if (o->hooks.fetched != NULL)
		o->hooks.fetched(o->hook_arg, oauth_expiry(o));
	o->refreshing = 0;

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

	oauth_fetch(o, "GET", o->cand[o->icand], headers, NULL, 0, cb);
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
	if (status != 200) {
		xasprintf(&reason, "protected resource metadata %s: HTTP %ld",
		    shown, status);
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
	if (!url_resource_matches(resource, o->server_url)) {
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
	    &reason) != 0)
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
	if (issuer == NULL || strcmp(issuer, o->issuer) != 0) {
		quoted = oauth_quote(o, issuer != NULL ? issuer : "(none)");
		free(shown);
		shown = oauth_quote(o, o->issuer);
		xasprintf(&reason, "refusing the authorization server metadata: "
		    "its issuer \"%s\" is not \"%s\", the authorization server "
		    "the resource names", quoted, shown);
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
	o->discovered = 1;
	oauth_clear_cands(o);
	oauth_token_request(o);
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
			xasprintf(&reason, "token endpoint %s refused the "
			    "client credentials (HTTP %ld): %s%s%s", shown,
			    status, q1, *q2 != '\0' ? ": " : "", q2);
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
		/* The token is in there: wipe it before it goes. */
		v = cJSON_GetObjectItemCaseSensitive(json, "access_token");
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

static void
oauth_token_request(struct oauth *o)
{
	const char	*headers[4];
	const char	*scope, *audience;
	enum oauth_auth	 auth;
	char		*body, *reason = NULL, *basic = NULL, *jwt, *why;
	char		*id_esc, *secret_esc, *pair, *pair64;
	size_t		 n = 0;

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

	headers[n++] = "Content-Type: application/x-www-form-urlencoded";
	headers[n++] = "Accept: application/json";
	switch (auth) {
	case OAUTH_AUTH_BASIC:
		/* RFC 6749 section 2.3.1: each part form-encoded first. */
		id_esc = b64_form_escape(o->conf.client_id);
		secret_esc = b64_form_escape(o->conf.client_secret);
		xasprintf(&pair, "%s:%s", id_esc, secret_esc);
		pair64 = b64_encode(pair, strlen(pair));
		xasprintf(&basic, "Authorization: Basic %s", pair64);
		free(id_esc);
		oauth_wipe(secret_esc);
		oauth_wipe(pair);
		oauth_wipe(pair64);
		headers[n++] = basic;
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
	}
	headers[n] = NULL;
	oauth_fetch(o, "POST", o->token_url, headers, body, strlen(body),
	    oauth_token_cb);
	oauth_wipe(basic);
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

	if (o->conf.token_url != NULL) {
		if (o->token_url == NULL)
			o->token_url = xstrdup(o->conf.token_url);
		oauth_token_request(o);
	} else if (o->discovered)
		oauth_token_request(o);
	else
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
	if (stale)
		oauth_drop_token(o);
	if (o->step != OAUTH_IDLE)
		return;		/* it hears the fetch under way */
	oauth_enter(o);
	o->refreshing = oauth_usable(o, now);
	oauth_start(o, www_authenticate);
	oauth_leave(o);
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
