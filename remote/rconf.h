/*
 * rconf.h -- what mcpd-remote is told to do: from its command line when
 * it runs on its own, or from the settings mcpd hands it.
 *
 * mcpd never puts a remote server's settings on a command line (argv is
 * world-readable in /proc): it writes them as one JSON object to a sealed
 * memfd inherited as the descriptor named by MCPD_REMOTE_SETTINGS_FD
 * (fd 4), with values already expanded:
 *
 *   {"mcpd_remote": 1,                       format version
 *    "name": "linear",                       for messages
 *    "url": "https://...",                   expanded
 *    "transport": "auto" | "http" | "sse",
 *    "headers": {"Name": "value", ...},      expanded
 *    "ca_file": "/path",                     optional
 *    "connect_timeout_ms": N, "request_timeout_ms": N,
 *    "max_message_bytes": N,
 *    "oauth": {"client_id", "client_secret", "client_secret_file",
 *              "private_key_file", "signing_algorithm", "token_url",
 *              "scope", "resource", "jwt_audience",
 *              "grant": "client_credentials" | "authorization_code",
 *              "client_metadata_url"},                   optional
 *    "token_file": "/path",                  the sign-in's tokens
 *    "login": {"mode": "login" | "logout",   a sign-in, not a session
 *              "redirect_uri", "scope"}}     (see signin.h)
 *
 * Unknown members are ignored (a newer mcpd may say more); a higher
 * format version is refused.
 */
#ifndef MCPD_RCONF_H
#define MCPD_RCONF_H

#include <stddef.h>
#include <stdint.h>

#include "oauth.h"

#define RCONF_VERSION		1
#define RCONF_SETTINGS_ENV	"MCPD_REMOTE_SETTINGS_FD"
#define RCONF_STATUS_ENV	"MCPD_REMOTE_STATUS_FD"

enum rconf_transport {
	RCONF_AUTO = 0,		/* Streamable HTTP, else legacy SSE */
	RCONF_HTTP,
	RCONF_SSE,
};

struct rconf {
	char			*name;
	char			*url;
	enum rconf_transport	 transport;
	char			**headers;	/* "Name: value", NULL-ended */
	size_t			 nheaders;
	char			*ca_file;
	uint32_t		 connect_timeout_ms;
	uint32_t		 request_timeout_ms;
	size_t			 max_message_bytes;
	int			 has_oauth;
	struct oauth_conf	 oauth;
	char			*login;		/* "login", "logout" or NULL */
	char			*redirect_uri;	/* login: mcpctl's listener */
	char			*login_scope;	/* login: scopes beyond */
};

void		 rconf_defaults(struct rconf *);
/* "auto", "http" (or "streamable-http", "streamableHttp"), "sse". */
int		 rconf_transport_parse(const char *, enum rconf_transport *);
void		 rconf_add_header(struct rconf *, const char *line);
/* "${VAR}" from the environment; NULL with *err if one is unset. */
char		*rconf_expand(const char *, char **err);
/* Parse mcpd's settings JSON; -1 with *err (malloc'd). */
int		 rconf_from_json(struct rconf *, const char *, size_t,
		    char **err);
void		 rconf_clear(struct rconf *);

#endif /* MCPD_RCONF_H */
