/*
 * oauth.h -- OAuth 2.1 client credentials for one remote MCP server
 * (the MCP authorization spec 2025-11-25 and its client-credentials
 * extension).
 *
 * Discovery, on the first 401: the WWW-Authenticate resource_metadata
 * URL, else the RFC 9728 well-known URLs (url.h) -> the protected
 * resource metadata, whose "resource" must name the server (RFC 9728
 * section 3.3) -> its first authorization server -> RFC 8414 / OpenID
 * metadata in the path-aware order, whose "issuer" must be the one asked
 * for (RFC 8414 section 3.3) -> token_endpoint.  A configured token_url
 * skips all of that.  Then grant_type=client_credentials with resource
 * (RFC 8707) and scope (configured, else the challenge's, else the
 * metadata's scopes_supported), authenticated by client_secret_basic,
 * client_secret_post or private_key_jwt, as configured and as the
 * server's token_endpoint_auth_methods_supported allows.
 *
 * The token is kept with an absolute expiry (from expires_in, never from
 * the token itself) and fetched again before it expires; one fetch at a
 * time, every waiter told when it ends.  Tokens are sent only in the
 * Authorization header of requests to the server (never in a URL, a log
 * line or the status channel).
 */
#ifndef MCPD_OAUTH_H
#define MCPD_OAUTH_H

#include <stdint.h>
#include <time.h>

struct http;
struct oauth;

struct oauth_conf {
	char	*client_id;
	char	*client_secret;		/* or read from client_secret_file */
	char	*client_secret_file;
	char	*private_key_file;	/* private_key_jwt */
	char	*signing_algorithm;	/* "ES256" or "RS256" */
	char	*token_url;		/* NULL: discovered */
	char	*scope;
	char	*resource;		/* NULL: the server URL (canonical) */
	char	*jwt_audience;		/* NULL: the issuer (or token_url) */
};

/* Free the strings of a conf (the secret wiped first). */
void		 oauth_conf_clear(struct oauth_conf *);

/* What oauth.c reports, for the status channel and stderr. */
struct oauth_hooks {
	/* A token was fetched; expires: absolute (wall clock), 0 if none. */
	void	(*fetched)(void *arg, time_t expires);
	/* Fetching failed: a readable reason, free of secrets. */
	void	(*failed)(void *arg, const char *reason);
};

/*
 * NULL with *err if the configuration is unusable (no client_id, no
 * secret or key, unreadable secret file, unknown algorithm...).
 */
struct oauth	*oauth_new(struct http *, const char *server_url,
		    const struct oauth_conf *, const struct oauth_hooks *,
		    void *hook_arg, char **err);
void		 oauth_free(struct oauth *);
/*
 * The "Authorization: Bearer ..." header line for the next request, or
 * NULL while there is no valid token (call oauth_get first).
 */
const char	*oauth_header(struct oauth *);
/*
 * Get a token: at once (cb called before oauth_get returns) if a valid
 * one is held and stale is 0; otherwise fetch one (stale: the server
 * refused the token held; www_authenticate: that 401's header, or NULL).
 * cb(arg, 0, NULL) when a token is there, cb(arg, -1, reason) if not.
 * oauth_cancel drops a waiter (by arg) that goes away first.
 */
typedef void	(*oauth_fn)(void *arg, int result, const char *reason);
void		 oauth_get(struct oauth *, int stale,
		    const char *www_authenticate, oauth_fn, void *arg);
void		 oauth_cancel(struct oauth *, void *arg);
/* The held token's absolute expiry (wall clock), 0 if none or unknown. */
time_t		 oauth_expiry(const struct oauth *);

#endif /* MCPD_OAUTH_H */
