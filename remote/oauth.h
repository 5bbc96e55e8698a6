/*
 * oauth.h -- OAuth 2.1 for one remote MCP server (the MCP authorization
 * spec 2025-11-25 and its client-credentials extension): client
 * credentials, or the tokens of a sign-in (authorization code, signin.h)
 * kept in a token file (store.h) and refreshed.
 *
 * Discovery, on the first 401: the WWW-Authenticate resource_metadata
 * URL, else the RFC 9728 well-known URLs (url.h) -> the protected
 * resource metadata, whose "resource" must name the server (RFC 9728
 * section 3.3; at the root well-known URL its origin does) -> its first
 * authorization server -> RFC 8414 / OpenID metadata in the path-aware
 * order, whose "issuer" must be the one asked for (RFC 8414 section 3.3)
 * -> token_endpoint.  A server with no protected resource metadata is
 * one of MCP 2025-03-26: the metadata at its origin, whose issuer must
 * have that origin, else the default endpoints there.  A configured
 * token_url skips all of that.  Then grant_type=client_credentials with resource
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
 *
 * A sign-in's tokens are refreshed (grant_type=refresh_token) with the
 * client it registered, under the token file's lock: the file is read
 * again first (another process may have spent the refresh token), and
 * the rotated refresh token is written durably before the new access
 * token is used.  They go only to the authorization server that issued
 * them: one whose resource now names another needs a new sign-in.
 */
#ifndef MCPD_OAUTH_H
#define MCPD_OAUTH_H

#include <stdint.h>
#include <time.h>

struct http;
struct oauth;
struct tokens;

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
	char	*grant;			/* NULL: client credentials */
	char	*client_metadata_url;	/* sign-in: a CIMD client_id */
	char	*token_file;		/* sign-in: its tokens (store.h) */
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
 * cb(arg, 0, NULL) when a token is there, cb(arg, -1, reason) if not,
 * cb(arg, OAUTH_NEEDS_LOGIN, reason) if only a new sign-in can help (no
 * sign-in, a refresh token refused, another authorization server).
 * oauth_cancel drops a waiter (by arg) that goes away first.
 */
#define OAUTH_NEEDS_LOGIN	(-2)
typedef void	(*oauth_fn)(void *arg, int result, const char *reason);
void		 oauth_get(struct oauth *, int stale,
		    const char *www_authenticate, oauth_fn, void *arg);
void		 oauth_cancel(struct oauth *, void *arg);
/* The held token's absolute expiry (wall clock), 0 if none or unknown. */
time_t		 oauth_expiry(const struct oauth *);
/*
 * Whether requests should carry a token: always with client credentials;
 * for a sign-in, once there is one (before, a 401 means "sign in").
 */
int		 oauth_header_needed(const struct oauth *);
/* A sign-in holds a refresh token. */
int		 oauth_refreshable(const struct oauth *);

/*
 * For signin.c.  What discovery found (valid until oauth_free).
 */
struct oauth_meta {
	const char	*issuer;
	const char	*authorization_endpoint;
	const char	*token_endpoint;
	const char	*registration_endpoint;		/* or NULL */
	const char	*revocation_endpoint;		/* or NULL */
	const char	*scope;		/* the challenge's, else supported */
	const char	*resource;
	int		 pkce_listed;	/* code_challenge_methods_supported */
	int		 pkce_s256;	/* ... holds "S256" */
	int		 defaults;	/* no metadata: 2025-03-26's endpoints */
	int		 cimd;		/* client_id_metadata_document_supported */
	int		 methods_listed;
	int		 method_none, method_basic, method_post;
};
/* Discovery alone (again each time); cb as for oauth_get. */
void		 oauth_discover(struct oauth *, const char *www_authenticate,
		    oauth_fn, void *arg);
const struct oauth_meta *oauth_meta(const struct oauth *);
/*
 * Redeem an authorization code for the client in t (client_*, issuer,
 * token_endpoint, revocation_endpoint, resource, server_url): on success
 * the tokens are in the token file and held.
 */
void		 oauth_exchange(struct oauth *, const struct tokens *t,
		    const char *code, const char *verifier,
		    const char *redirect_uri, oauth_fn, void *arg);
/*
 * Sign out: revoke the refresh and access tokens where the server has a
 * revocation endpoint, and remove the token file.  cb's result is a
 * bitmask: 1 revoked, 2 removed (or -1 with a reason).
 */
void		 oauth_sign_out(struct oauth *, oauth_fn, void *arg);
/* The configured client secret (client_secret_file read), or NULL. */
const char	*oauth_client_secret(const struct oauth *);
/* The sign-in's tokens held (client, scope, expiry), or NULL. */
const struct tokens *oauth_tokens(const struct oauth *);

#endif /* MCPD_OAUTH_H */
