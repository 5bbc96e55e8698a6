/*
 * conf_http.h -- the "http" object of "mcpd": the HTTP front's listen
 * addresses, the Host and Origin values it accepts, whether it sits
 * behind a reverse proxy, and its caps.  Read by mcpd (conf.c, which
 * supervises the front) and by mcpd-http itself, which is handed the
 * object's text.  Pure.
 *
 * mcpd speaks no TLS: a TCP listen address that is not loopback is an
 * error unless "behind_proxy" is true (a reverse proxy terminates TLS),
 * and so is a TCP socket systemd passes the front (mcpd-http.socket).
 */
#ifndef MCPD_CONF_HTTP_H
#define MCPD_CONF_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

struct conf_diags;
struct sockaddr;

/* Defaults (documented in mcpd.json(5)). */
#define CONF_HTTP_DEFAULT_MAX_SESSIONS		256
#define CONF_HTTP_DEFAULT_MAX_SESSIONS_PER_TOKEN 32
#define CONF_HTTP_DEFAULT_MAX_REQUESTS_PER_TOKEN 64
#define CONF_HTTP_DEFAULT_MAX_BUFFERED_BYTES	(64 * 1024 * 1024)
#define CONF_HTTP_DEFAULT_SESSION_IDLE_S	1800
#define CONF_HTTP_DEFAULT_MAX_CONNECTIONS	512
#define CONF_HTTP_DEFAULT_MAX_BODY_BYTES	(4 * 1024 * 1024)
#define CONF_HTTP_DEFAULT_MAX_HEADER_BYTES	(16 * 1024)
#define CONF_HTTP_DEFAULT_TIMEOUT_S		30

struct conf_http_listen {
	char		*spec;		/* as written: "HOST:PORT", "unix:PATH" */
	char		*path;		/* unix: the socket's path; else NULL */
	char		*host;		/* TCP: the address, no brackets */
	char		*port;		/* TCP: the port */
	int		 loopback;	/* TCP: 127.0.0.0/8 or ::1 */
	/*
	 * A socket systemd passed, or an address of "listen" equal to one:
	 * the front neither binds it nor removes its file.
	 */
	int		 passed;
};

struct conf_http {
	struct conf_http_listen	*listen;
	size_t			 nlisten;
	char			**allowed_hosts;	/* "NAME" or "NAME:PORT" */
	size_t			 nallowed_hosts;
	char			**allowed_origins;	/* "scheme://host[:port]" */
	size_t			 nallowed_origins;
	int			 behind_proxy;
	uint32_t		 max_sessions;
	uint32_t		 max_sessions_per_token;
	uint32_t		 max_requests_per_token; /* 2026-07-28 */
	uint32_t		 max_buffered_bytes;	/* to all HTTP peers */
	uint32_t		 session_idle_s;
	uint32_t		 max_connections;
	uint32_t		 max_body_bytes;
	uint32_t		 max_header_bytes;
	uint32_t		 timeout_s;	/* headers, bodies, idle reads */
	char			*text;		/* the object, canonical JSON */
};

/*
 * The object at path ("mcpd.http"): NULL with errors in diags if it is
 * not valid.  Unknown keys are warnings.
 */
struct conf_http *conf_http_parse(struct conf_diags *, const char *path,
		    const cJSON *);
/*
 * From the text conf_http_parse kept (mcpd-http's argument), or "{}" for
 * the defaults.  With passed set (the front was given sockets systemd
 * passed), "listen" may be missing.
 */
struct conf_http *conf_http_from_text(const char *text, int passed,
		    struct conf_diags *);
void		 conf_http_free(struct conf_http *);
/* The same settings (a change restarts the front); NULLs compare. */
int		 conf_http_same(const struct conf_http *,
		    const struct conf_http *);
/*
 * A socket's own address (getsockname) as a listen entry, "passed" set:
 * 0, or -1 with *why for a family the front does not serve (AF_INET,
 * AF_INET6 and AF_UNIX only).  An abstract Unix socket's path is
 * "@NAME".
 */
int		 conf_http_listen_sockaddr(const struct sockaddr *,
		    size_t len, struct conf_http_listen *, const char **why);
/*
 * Why the front may not listen on l under h (NULL: the defaults), or
 * NULL if it may: a TCP address that is not loopback needs
 * "behind_proxy", whether written in "listen" or passed by systemd.
 */
const char	*conf_http_listen_refused(const struct conf_http *,
		    const struct conf_http_listen *);
/* The same address: one Unix path, or one TCP address and port. */
int		 conf_http_listen_same(const struct conf_http_listen *,
		    const struct conf_http_listen *);
/* l added to h's addresses (h owns its strings from now on). */
void		 conf_http_listen_add(struct conf_http *,
		    struct conf_http_listen *);
void		 conf_http_listen_free(struct conf_http_listen *);
/*
 * May a request with this Host header be served?  Yes if it names a TCP
 * listen address (by its address, or "localhost" for a loopback one) or
 * an allowed_hosts entry ("NAME" matches any port); a front on a Unix
 * socket takes "localhost" too.
 */
int		 conf_http_host_allowed(const struct conf_http *,
		    const char *host);
/* An Origin header: only one listed in allowed_origins (no slash after). */
int		 conf_http_origin_allowed(const struct conf_http *,
		    const char *origin);

#endif /* MCPD_CONF_HTTP_H */
