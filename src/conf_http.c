/*
 * conf_http.c -- the "http" object of "mcpd" (conf_http.h): listen
 * addresses checked (loopback unless behind a proxy), the Host and
 * Origin lists, the caps; and the two checks every request passes.
 * Sockets systemd passes the front are read into listen entries here
 * too (from their address), so that one rule judges both.
 *
 * A diagnostic names paths, never a value from the file.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "conf_http.h"
#include "conf_int.h"
#include "xmalloc.h"

#define CONF_HTTP_MAX_LISTEN	16
#define CONF_HTTP_MAX_NAMES	64
#define CONF_HTTP_NAME_MAX	255

struct conf_http_cap {
	const char	*name;
	size_t		 offset;
	uint32_t	 min;
	uint32_t	 max;
	uint32_t	 def;
};

static const struct conf_http_cap conf_http_caps[] = {
	{ "max_sessions", offsetof(struct conf_http, max_sessions), 1,
	    100000, CONF_HTTP_DEFAULT_MAX_SESSIONS },
	{ "max_sessions_per_token", offsetof(struct conf_http,
	    max_sessions_per_token), 1, 100000,
	    CONF_HTTP_DEFAULT_MAX_SESSIONS_PER_TOKEN },
	{ "max_requests_per_token", offsetof(struct conf_http,
	    max_requests_per_token), 1, 100000,
	    CONF_HTTP_DEFAULT_MAX_REQUESTS_PER_TOKEN },
	{ "max_buffered_bytes", offsetof(struct conf_http,
	    max_buffered_bytes), 1024 * 1024, 1024 * 1024 * 1024,
	    CONF_HTTP_DEFAULT_MAX_BUFFERED_BYTES },
	{ "session_idle_s", offsetof(struct conf_http, session_idle_s), 1,
	    604800, CONF_HTTP_DEFAULT_SESSION_IDLE_S },
	{ "max_connections", offsetof(struct conf_http, max_connections), 1,
	    100000, CONF_HTTP_DEFAULT_MAX_CONNECTIONS },
	{ "max_body_bytes", offsetof(struct conf_http, max_body_bytes), 1024,
	    256 * 1024 * 1024, CONF_HTTP_DEFAULT_MAX_BODY_BYTES },
	{ "max_header_bytes", offsetof(struct conf_http, max_header_bytes),
	    1024, 1024 * 1024, CONF_HTTP_DEFAULT_MAX_HEADER_BYTES },
	{ "timeout_s", offsetof(struct conf_http, timeout_s), 1, 3600,
	    CONF_HTTP_DEFAULT_TIMEOUT_S },
};

static int
conf_http_is_loopback(const char *host)
{
	struct in_addr	 a4;
	struct in6_addr	 a6;

	if (inet_pton(AF_INET, host, &a4) == 1)
		return ((ntohl(a4.s_addr) >> 24) == 127);
	if (inet_pton(AF_INET6, host, &a6) == 1)
		return (IN6_IS_ADDR_LOOPBACK(&a6));
	return (0);
}

static int
conf_http_port(const char *port)
{
	char		*end;
	unsigned long	 n;

	if (*port < '0' || *port > '9')
		return (0);
	n = strtoul(port, &end, 10);
	return (*end == '\0' && n >= 1 && n <= 65535);
}

/* "unix:/PATH", "ADDR:PORT" or "[ADDR6]:PORT": 0, or -1 with *why. */
static int
conf_http_parse_listen(const char *spec, struct conf_http_listen *l,
    const char **why)
{
	const char	*colon, *close;
	struct in6_addr	 a6;
	struct in_addr	 a4;

	memset(l, 0, sizeof *l);
	if (strncmp(spec, "unix:", 5) == 0) {
		if (spec[5] != '/' || strlen(spec + 5) >= 108) {
			*why = "a unix: address takes an absolute path of at "
			    "most 107 bytes";
			return (-1);
		}
		l->spec = xstrdup(spec);
		l->path = xstrdup(spec + 5);
		return (0);
	}
	if (spec[0] == '[') {
		if ((close = strchr(spec, ']')) == NULL || close[1] != ':') {
			*why = "expected \"[ADDRESS]:PORT\"";
			return (-1);
		}
		l->host = xstrndup(spec + 1, close - spec - 1);
		colon = close + 1;
		if (inet_pton(AF_INET6, l->host, &a6) != 1) {
			*why = "not an IPv6 address in brackets";
			goto fail;
		}
	} else {
		if ((colon = strrchr(spec, ':')) == NULL) {
			*why = "expected \"ADDRESS:PORT\" or \"unix:PATH\"";
			return (-1);
		}
		l->host = xstrndup(spec, colon - spec);
		if (inet_pton(AF_INET, l->host, &a4) != 1) {
			*why = "expected a numeric IPv4 address (or "
			    "[IPv6]) before the port";
			goto fail;
		}
	}
	if (!conf_http_port(colon + 1)) {
		*why = "expected a port between 1 and 65535";
		goto fail;
	}
	l->port = xstrdup(colon + 1);
	l->spec = xstrdup(spec);
	l->loopback = conf_http_is_loopback(l->host);
	return (0);
fail:
	free(l->host);
	l->host = NULL;
	return (-1);
}

static void
conf_http_names(struct conf_diags *diags, const char *path,
    const cJSON *array, char ***out, size_t *nout)
{
	const cJSON	*item;
	size_t		 i = 0;
	char		*ipath;

	if (!cJSON_IsArray(array)) {
		conf_diag_error(diags, path, "expected an array of strings");
		return;
	}
	if (cJSON_GetArraySize(array) > CONF_HTTP_MAX_NAMES) {
		conf_diag_error(diags, path, "at most %d entries",
		    CONF_HTTP_MAX_NAMES);
		return;
	}
	cJSON_ArrayForEach(item, array) {
		xasprintf(&ipath, "%s[%zu]", path, i++);
		if (!cJSON_IsString(item) || *item->valuestring == '\0' ||
		    strlen(item->valuestring) > CONF_HTTP_NAME_MAX ||
		    strpbrk(item->valuestring, " \t\r\n/") != NULL)
			conf_diag_error(diags, ipath, "expected a host name "
			    "(an origin has no path or spaces)");
		else {
			*out = xreallocarray(*out, *nout + 1, sizeof **out);
			(*out)[(*nout)++] = xstrdup(item->valuestring);
		}
		free(ipath);
	}
}

/* An origin is "scheme://host[:port]": its slashes are allowed. */
static void
conf_http_origins(struct conf_diags *diags, const char *path,
    const cJSON *array, struct conf_http *h)
{
	const cJSON	*item;
	size_t		 i = 0;
	const char	*s, *rest;
	char		*ipath;

	if (!cJSON_IsArray(array) ||
	    cJSON_GetArraySize(array) > CONF_HTTP_MAX_NAMES) {
		conf_diag_error(diags, path, "expected an array of at most %d "
		    "origins", CONF_HTTP_MAX_NAMES);
		return;
	}
	cJSON_ArrayForEach(item, array) {
		xasprintf(&ipath, "%s[%zu]", path, i++);
		s = cJSON_GetStringValue(item);
		rest = s == NULL ? NULL : strstr(s, "://");
		if (s == NULL || rest == NULL || rest == s || rest[3] == '\0' ||
		    strchr(rest + 3, '/') != NULL ||
		    strpbrk(s, " \t\r\n") != NULL ||
		    strlen(s) > CONF_HTTP_NAME_MAX)
			conf_diag_error(diags, ipath, "expected an origin, "
			    "\"https://host[:port]\"");
		else {
			h->allowed_origins = xreallocarray(h->allowed_origins,
			    h->nallowed_origins + 1, sizeof (char *));
			h->allowed_origins[h->nallowed_origins++] =
			    xstrdup(s);
		}
		free(ipath);
	}
}

static void
conf_http_listens(struct conf_diags *diags, const char *path,
    const cJSON *array, struct conf_http *h)
{
	const cJSON	*item;
	const char	*why;
	size_t		 i = 0;
	char		*ipath;

	if (!cJSON_IsArray(array) || cJSON_GetArraySize(array) == 0 ||
	    cJSON_GetArraySize(array) > CONF_HTTP_MAX_LISTEN) {
		conf_diag_error(diags, path, "expected an array of 1 to %d "
		    "addresses", CONF_HTTP_MAX_LISTEN);
		return;
	}
	h->listen = xcalloc(cJSON_GetArraySize(array), sizeof *h->listen);
	cJSON_ArrayForEach(item, array) {
		xasprintf(&ipath, "%s[%zu]", path, i++);
		if (!cJSON_IsString(item))
			conf_diag_error(diags, ipath, "expected a string");
		else if (conf_http_parse_listen(item->valuestring,
		    &h->listen[h->nlisten], &why) != 0)
			conf_diag_error(diags, ipath, "%s", why);
		else
			h->nlisten++;
		free(ipath);
	}
}

static int
conf_http_cap(struct conf_diags *diags, const char *path,
    const cJSON *item, struct conf_http *h)
{
	const struct conf_http_cap	*c;
	size_t				 i;

	for (i = 0; i < sizeof conf_http_caps / sizeof conf_http_caps[0];
	    i++) {
		c = &conf_http_caps[i];
		if (strcmp(c->name, item->string) != 0)
			continue;
		if (!cJSON_IsNumber(item) || item->valuedouble < c->min ||
		    item->valuedouble > c->max ||
		    item->valuedouble != (double)(uint32_t)item->valuedouble)
			conf_diag_error(diags, path, "expected an integer "
			    "between %u and %u", c->min, c->max);
		else
			*(uint32_t *)((char *)h + c->offset) =
			    (uint32_t)item->valuedouble;
		return (1);
	}
	return (0);
}

static void
conf_http_key(struct conf_diags *diags, const char *kpath,
    const cJSON *item, struct conf_http *h)
{
	if (strcmp(item->string, "listen") == 0)
		conf_http_listens(diags, kpath, item, h);
	else if (strcmp(item->string, "allowed_hosts") == 0)
		conf_http_names(diags, kpath, item, &h->allowed_hosts,
		    &h->nallowed_hosts);
	else if (strcmp(item->string, "allowed_origins") == 0)
		conf_http_origins(diags, kpath, item, h);
	else if (strcmp(item->string, "behind_proxy") == 0) {
		if (!cJSON_IsBool(item))
			conf_diag_error(diags, kpath, "expected true or false");
		else
			h->behind_proxy = cJSON_IsTrue(item);
	} else if (!conf_http_cap(diags, kpath, item, h))
		conf_diag_warn(diags, kpath, "unknown key, ignored");
}

static struct conf_http *
conf_http_parse_listen_opt(struct conf_diags *diags, const char *path,
    const cJSON *object, int listen_optional)
{
	struct conf_http	*h;
	const cJSON		*item;
	const char		*why;
	size_t			 nerrors = diags->nerrors, i, *first;
	char			*kpath;

	if (!cJSON_IsObject(object)) {
		conf_diag_error(diags, path, "expected an object");
		return (NULL);
	}
	h = xcalloc(1, sizeof *h);
	for (i = 0; i < sizeof conf_http_caps / sizeof conf_http_caps[0]; i++)
		*(uint32_t *)((char *)h + conf_http_caps[i].offset) =
		    conf_http_caps[i].def;
	first = conf_object_first_keys(object);
	for (i = 0, item = object->child; item != NULL;
	    item = item->next, i++) {
		xasprintf(&kpath, "%s.%s", path, item->string);
		if (first[i] != i)
			conf_diag_error(diags, kpath, "duplicate key");
		else
			conf_http_key(diags, kpath, item, h);
		free(kpath);
	}
	free(first);
	if (!listen_optional &&
	    cJSON_GetObjectItemCaseSensitive(object, "listen") == NULL) {
		xasprintf(&kpath, "%s.listen", path);
		conf_diag_error(diags, kpath, "missing (where the front "
		    "listens)");
		free(kpath);
	}
	for (i = 0; i < h->nlisten; i++) {
		if ((why = conf_http_listen_refused(h, &h->listen[i])) == NULL)
			continue;
		xasprintf(&kpath, "%s.listen[%zu]", path, i);
		conf_diag_error(diags, kpath, "%s", why);
		free(kpath);
	}
	if (h->max_sessions_per_token > h->max_sessions)
		h->max_sessions_per_token = h->max_sessions;
	if (h->max_requests_per_token > h->max_sessions)
		h->max_requests_per_token = h->max_sessions;
	if (diags->nerrors != nerrors) {
		conf_http_free(h);
		return (NULL);
	}
	h->text = cJSON_PrintUnformatted(object);
	return (h);
}

struct conf_http *
conf_http_parse(struct conf_diags *diags, const char *path,
    const cJSON *object)
{
	return (conf_http_parse_listen_opt(diags, path, object, 0));
}

struct conf_http *
conf_http_from_text(const char *text, int passed, struct conf_diags *diags)
{
	struct conf_http	*h;
	cJSON			*root;

	if ((root = cJSON_Parse(text)) == NULL) {
		conf_diag_error(diags, "http", "not a JSON object");
		return (NULL);
	}
	h = conf_http_parse_listen_opt(diags, "http", root, passed);
	cJSON_Delete(root);
	return (h);
}

void
conf_http_listen_free(struct conf_http_listen *l)
{
	free(l->spec);
	free(l->path);
	free(l->host);
	free(l->port);
	memset(l, 0, sizeof *l);
}

void
conf_http_free(struct conf_http *h)
{
	size_t	 i;

	if (h == NULL)
		return;
	for (i = 0; i < h->nlisten; i++)
		conf_http_listen_free(&h->listen[i]);
	free(h->listen);
	for (i = 0; i < h->nallowed_hosts; i++)
		free(h->allowed_hosts[i]);
	free(h->allowed_hosts);
	for (i = 0; i < h->nallowed_origins; i++)
		free(h->allowed_origins[i]);
	free(h->allowed_origins);
	free(h->text);
	free(h);
}

static int
conf_http_listen_unix(const struct sockaddr_un *sun, size_t len,
    struct conf_http_listen *l)
{
	size_t	 n;

	n = len > offsetof(struct sockaddr_un, sun_path) ?
	    len - offsetof(struct sockaddr_un, sun_path) : 0;
	if (n > sizeof sun->sun_path)
		n = sizeof sun->sun_path;
	if (n > 0 && sun->sun_path[0] == '\0')
		xasprintf(&l->path, "@%.*s", (int)n - 1, sun->sun_path + 1);
	else
		l->path = xstrndup(sun->sun_path, strnlen(sun->sun_path, n));
	xasprintf(&l->spec, "unix:%s", l->path);
	return (0);
}

int
conf_http_listen_sockaddr(const struct sockaddr *sa, size_t len,
    struct conf_http_listen *l, const char **why)
{
	const struct sockaddr_in	*sin;
	const struct sockaddr_in6	*sin6;
	char				 host[INET6_ADDRSTRLEN];

	memset(l, 0, sizeof *l);
	l->passed = 1;
	if (len < sizeof sa->sa_family) {
		*why = "a socket without an address";
		return (-1);
	}
	switch (sa->sa_family) {
	case AF_UNIX:
		return (conf_http_listen_unix((const struct sockaddr_un *)sa,
		    len, l));
	case AF_INET:
		if (len < sizeof *sin)
			break;
		sin = (const struct sockaddr_in *)sa;
		inet_ntop(AF_INET, &sin->sin_addr, host, sizeof host);
		l->host = xstrdup(host);
		xasprintf(&l->port, "%u", ntohs(sin->sin_port));
		xasprintf(&l->spec, "%s:%s", l->host, l->port);
		break;
	case AF_INET6:
		if (len < sizeof *sin6)
			break;
		sin6 = (const struct sockaddr_in6 *)sa;
		inet_ntop(AF_INET6, &sin6->sin6_addr, host, sizeof host);
		l->host = xstrdup(host);
		xasprintf(&l->port, "%u", ntohs(sin6->sin6_port));
		xasprintf(&l->spec, "[%s]:%s", l->host, l->port);
		break;
	default:
		*why = "neither TCP (IPv4, IPv6) nor a Unix socket";
		return (-1);
	}
	if (l->host == NULL) {
		*why = "an address too short for its family";
		return (-1);
	}
	l->loopback = conf_http_is_loopback(l->host);
	return (0);
}

const char *
conf_http_listen_refused(const struct conf_http *h,
    const struct conf_http_listen *l)
{
	if (l->path != NULL || l->loopback ||
	    (h != NULL && h->behind_proxy))
		return (NULL);
	return ("not a loopback address: mcpd speaks no TLS; put a "
	    "TLS-terminating reverse proxy in front and set "
	    "\"behind_proxy\": true");
}

/* One TCP address: the same family and bytes, whatever the spelling. */
static int
conf_http_host_same(const char *a, const char *b)
{
	unsigned char	 na[sizeof (struct in6_addr)];
	unsigned char	 nb[sizeof (struct in6_addr)];

	if (inet_pton(AF_INET, a, na) == 1)
		return (inet_pton(AF_INET, b, nb) == 1 &&
		    memcmp(na, nb, sizeof (struct in_addr)) == 0);
	if (inet_pton(AF_INET6, a, na) == 1)
		return (inet_pton(AF_INET6, b, nb) == 1 &&
		    memcmp(na, nb, sizeof (struct in6_addr)) == 0);
	return (0);
}

int
conf_http_listen_same(const struct conf_http_listen *a,
    const struct conf_http_listen *b)
{
	if (a->path != NULL || b->path != NULL)
		return (a->path != NULL && b->path != NULL &&
		    strcmp(a->path, b->path) == 0);
	return (strtoul(a->port, NULL, 10) == strtoul(b->port, NULL, 10) &&
	    conf_http_host_same(a->host, b->host));
}

void
conf_http_listen_add(struct conf_http *h, struct conf_http_listen *l)
{
	h->listen = xreallocarray(h->listen, h->nlisten + 1,
	    sizeof *h->listen);
	h->listen[h->nlisten++] = *l;
	memset(l, 0, sizeof *l);
}

int
conf_http_same(const struct conf_http *a, const struct conf_http *b)
{
	if (a == NULL || b == NULL)
		return (a == b);
	return (strcmp(a->text, b->text) == 0);
}

/* host matches pattern: "NAME" any port, "NAME:PORT" exactly. */
static int
conf_http_host_match(const char *pattern, const char *host)
{
	size_t	 plen = strlen(pattern), hlen = strlen(host);
	const char *port;

	if (strcasecmp(pattern, host) == 0)
		return (1);
	/* A pattern without a port ("[::1]" ends with ']'). */
	port = strrchr(pattern, ':');
	if (port != NULL && (pattern[0] != '[' || port > strchr(pattern, ']')))
		return (0);
	return (hlen > plen && strncasecmp(pattern, host, plen) == 0 &&
	    host[plen] == ':' && conf_http_port(host + plen + 1));
}

static int
conf_http_host_listen(const struct conf_http_listen *l, const char *host)
{
	char	*a;
	int	 ok;

	if (l->path != NULL)
		return (conf_http_host_match("localhost", host));
	if (strchr(l->host, ':') != NULL)
		xasprintf(&a, "[%s]:%s", l->host, l->port);
	else
		xasprintf(&a, "%s:%s", l->host, l->port);
	ok = strcasecmp(a, host) == 0;
	free(a);
	if (!ok && l->loopback) {
		xasprintf(&a, "localhost:%s", l->port);
		ok = strcasecmp(a, host) == 0;
		free(a);
	}
	return (ok);
}

int
conf_http_host_allowed(const struct conf_http *h, const char *host)
{
	size_t	 i;

	if (host == NULL || *host == '\0')
		return (0);
	for (i = 0; i < h->nlisten; i++)
		if (conf_http_host_listen(&h->listen[i], host))
			return (1);
	for (i = 0; i < h->nallowed_hosts; i++)
		if (conf_http_host_match(h->allowed_hosts[i], host))
			return (1);
	return (0);
}

int
conf_http_origin_allowed(const struct conf_http *h, const char *origin)
{
	size_t	 i;

	if (origin == NULL)
		return (0);
	for (i = 0; i < h->nallowed_origins; i++)
		if (strcasecmp(h->allowed_origins[i], origin) == 0)
			return (1);
	return (0);
}
