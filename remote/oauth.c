/*
 * oauth.c -- OAuth 2.1 for one remote MCP server: the coordinator.
 *
 * A fetch is a chain of small HTTP exchanges, one at a time, each started
 * from the previous one's callback: the protected resource metadata
 * (candidate URLs tried in order, a 404 moving on), the authorization
 * server metadata (likewise), then the token request.  The results of
 * discovery are kept for the life of the process; a failed discovery is
 * tried again on the next oauth_get.
 *
 * Discovery (oauth_disc.c) and the grants (oauth_grant.c) are steps of
 * that chain, over what oauth_core.c keeps; oauth_int.h says which file
 * does what.  This file is the coordinator: the object, and what its
 * callers ask of it.
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

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "http.h"
#include "httphdr.h"
#include "jwt.h"
#include "oauth.h"
#include "oauth_int.h"
#include "remote.h"
#include "tokens.h"
#include "url.h"
#include "xmalloc.h"

#define OAUTH_MAX_SECRET_BYTES	65536

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

const char *
oauth_header(struct oauth *o)
{
	if (!oauth_usable(o, oauth_now_ms()))
		return (NULL);
	return (o->header);
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
