/*
 * url.h -- the URL rules mcpd-remote needs (RFC 3986, RFC 9728, RFC 8414),
 * pure and strict.  Only absolute http and https URLs are accepted as
 * bases; scheme and host compare case-insensitively and a default port
 * (80 for http, 443 for https) equals no port.
 */
#ifndef MCPD_URL_H
#define MCPD_URL_H

#include <stddef.h>

struct url {
	char	*scheme;	/* lower case: "http" or "https" */
	char	*userinfo;	/* NULL if none */
	char	*host;		/* lower case; an IPv6 literal keeps its [] */
	char	*port;		/* NULL if none or the scheme's default */
	char	*path;		/* "" if none; never NULL */
	char	*query;		/* without '?', NULL if none */
	char	*fragment;	/* without '#', NULL if none */
};

/* Parse an absolute http(s) URL; -1 (with *err, static) if it is not one. */
int	 url_parse(const char *, struct url *, const char **err);
void	 url_clear(struct url *);
/* A hex digit's value, or -1 (percent-encoding, both cases). */
int	 url_hex_value(unsigned char);
/* Print it back (normalised: lower-case scheme and host, no default port). */
char	*url_format(const struct url *);
/*
 * RFC 3986 section 5.2: resolve a reference (absolute, "//host/...",
 * "/path", "path", "?q") against an absolute base; NULL if either is
 * invalid.  Dot segments are removed.
 */
char	*url_resolve(const char *base, const char *ref);
/* 1 if both parse and have the same scheme, host and port. */
int	 url_same_origin(const char *, const char *);
/*
 * 1 if a protected resource metadata "resource" names this server
 * (RFC 9728 section 3.3): equal after normalisation, the fragment of the
 * server URL ignored, and an empty path equal to "/".
 */
int	 url_resource_matches(const char *resource, const char *server_url);
/*
 * 1 if resource is the origin of the server URL (an empty path or "/",
 * no query, fragment or userinfo): what protected resource metadata at
 * the root well-known URL names, since the origin is the identifier its
 * URL was made from (RFC 9728 section 3.3).
 */
int	 url_resource_is_origin(const char *resource, const char *server_url);
/* scheme://host[:port] of an http(s) URL, normalised; NULL if bad. */
char	*url_origin(const char *url);
/*
 * The server URL with its fragment dropped, normalised: the "resource"
 * parameter of RFC 8707 and the default for comparisons.  NULL if bad.
 */
char	*url_canonical_resource(const char *server_url);
/*
 * Where to look for protected resource metadata (RFC 9728 section 3.1), in
 * order: the path-aware well-known URL, then the one at the root.  Sets
 * out[0..n) (malloc'd) and returns n (1 when the server URL has no path),
 * 0 if the URL is bad.
 */
size_t	 url_prm_candidates(const char *server_url, char *out[2]);
/*
 * Where to look for authorization server metadata, in the MCP order:
 * for an issuer with a path, /.well-known/oauth-authorization-server/PATH,
 * /.well-known/openid-configuration/PATH, PATH/.well-known/openid-
 * configuration; without a path, /.well-known/oauth-authorization-server
 * and /.well-known/openid-configuration.  Returns n, 0 if bad.
 */
size_t	 url_asm_candidates(const char *issuer, char *out[3]);

/*
 * Whether uri could come from an RFC 6570 URI template: its literal parts
 * in order, any text for each {expression}; 0 for an unclosed '{'.  (A
 * group sends a resource to the server whose template matches.)
 */
int	 url_template_match(const char *tmpl, const char *uri);

#endif /* MCPD_URL_H */
