/*
 * conf_remote.c -- the configuration of remote servers: the keys of an
 * entry with "url" (url, type, headers, oauth, ca_file), their checks,
 * and the settings JSON that mcpd hands the worker (mcpd-remote).
 *
 * Promises:
 * - A diagnostic names the JSON path and, at most, keys of the file; never
 *   a url, a header value or an oauth value, as written or expanded: they
 *   are secrets (a hosted server's URL often carries a key).
 * - A remote conf_server accepted has an absolute http:// or https:// url
 *   of printable ASCII with a host, header names that are HTTP tokens,
 *   unique ignoring case and not managed by the worker, header values
 *   without control characters (tab aside), and, with oauth, a client_id
 *   and exactly one credential; every file an absolute path.
 * - The settings text is written without intermediate copies left in
 *   freed memory: each buffer it outgrows is wiped first.
 */
#include "config.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "conf_int.h"
#include "sbuf.h"
#include "util.h"
#include "xmalloc.h"

/* The "type" strings and what they mean. */
static const struct {
	const char		*name;
	enum conf_transport	 transport;
} conf_types[] = {
	{ "stdio",		CONF_TRANSPORT_STDIO },
	{ "http",		CONF_TRANSPORT_HTTP },
	{ "streamable-http",	CONF_TRANSPORT_HTTP },
	{ "streamableHttp",	CONF_TRANSPORT_HTTP },
	{ "sse",		CONF_TRANSPORT_SSE },
};

static const char *conf_transport_names[] = {
	[CONF_TRANSPORT_STDIO] = "stdio",
	[CONF_TRANSPORT_AUTO] = "auto",
	[CONF_TRANSPORT_HTTP] = "http",
	[CONF_TRANSPORT_SSE] = "sse",
};

/*
 * Headers the worker sets itself, for the protocol or for HTTP: one
 * configured beside would break the session.
 */
static const char *conf_managed_headers[] = {
	"Accept",
	"Connection",
	"Content-Length",
	"Content-Type",
	"Host",
	"Last-Event-ID",
	"Mcp-Protocol-Version",
	"Mcp-Session-Id",
	"Transfer-Encoding",
};

enum conf_oauth_check {
	CONF_OAUTH_ANY,		/* a non-empty string */
	CONF_OAUTH_FILE,	/* an absolute path */
	CONF_OAUTH_URL,		/* an absolute http(s) URL */
	CONF_OAUTH_ALGORITHM,	/* "ES256" or "RS256" */
	CONF_OAUTH_GRANT,	/* "client_credentials", "authorization_code" */
};

/* The members of "oauth", in the order of the settings JSON. */
static const struct {
	const char		*name;
	enum conf_oauth_check	 check;
	size_t			 offset;
} conf_oauth_keys[] = {
	{ "client_id", CONF_OAUTH_ANY,
	  offsetof(struct conf_oauth, client_id) },
	{ "client_secret", CONF_OAUTH_ANY,
	  offsetof(struct conf_oauth, client_secret) },
	{ "client_secret_file", CONF_OAUTH_FILE,
	  offsetof(struct conf_oauth, client_secret_file) },
	{ "private_key_file", CONF_OAUTH_FILE,
	  offsetof(struct conf_oauth, private_key_file) },
	{ "signing_algorithm", CONF_OAUTH_ALGORITHM,
	  offsetof(struct conf_oauth, signing_algorithm) },
	{ "token_url", CONF_OAUTH_URL,
	  offsetof(struct conf_oauth, token_url) },
	{ "scope", CONF_OAUTH_ANY,
	  offsetof(struct conf_oauth, scope) },
	{ "resource", CONF_OAUTH_ANY,
	  offsetof(struct conf_oauth, resource) },
	{ "jwt_audience", CONF_OAUTH_ANY,
	  offsetof(struct conf_oauth, jwt_audience) },
	{ "grant", CONF_OAUTH_GRANT,
	  offsetof(struct conf_oauth, grant) },
	{ "client_metadata_url", CONF_OAUTH_URL,
	  offsetof(struct conf_oauth, client_metadata_url) },
};

#define CONF_GRANT_CLIENT	"client_credentials"
#define CONF_GRANT_CODE		"authorization_code"

#define CONF_OAUTH_FIELD(o, i) \
	((char **)((char *)(o) + conf_oauth_keys[i].offset))

const char *
conf_transport_name(enum conf_transport transport)
{
	if ((size_t)transport >= nitems(conf_transport_names))
		return ("unknown");
	return (conf_transport_names[transport]);
}

int
conf_server_is_remote(const struct conf_server *cs)
{
	return (cs->transport != CONF_TRANSPORT_STDIO);
}

int
conf_remote_type(const char *type, enum conf_transport *out)
{
	size_t	 i;

	for (i = 0; i < nitems(conf_types); i++) {
		if (strcmp(conf_types[i].name, type) == 0) {
			*out = conf_types[i].transport;
			return (0);
		}
	}
	return (-1);
}

int
conf_remote_entry(const cJSON *object)
{
	const cJSON		*type;
	enum conf_transport	 transport;

	if (!cJSON_IsObject(object))
		return (0);
	if (cJSON_GetObjectItemCaseSensitive(object, "url") != NULL)
		return (1);
	type = cJSON_GetObjectItemCaseSensitive(object, "type");
	if (!cJSON_IsString(type) ||
	    conf_remote_type(type->valuestring, &transport) == -1)
		return (0);
	return (transport != CONF_TRANSPORT_STDIO);
}

/*
 * An absolute http:// or https:// URL, strictly: printable ASCII, no
 * spaces, a host (a name or address of URI characters, or an IPv6
 * literal in brackets), an optional port of 1 to 65535.  Returns NULL,
 * with the host in *host and *hostlen, or what is wrong (no value in it).
 */
static const char *
conf_url_check(const char *url, const char **host, size_t *hostlen)
{
	const char	*p, *auth, *end, *at, *h, *hend, *port;
	unsigned long	 value;
	size_t		 i;

	for (p = url; *p != '\0'; p++) {
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f)
			return ("must be printable ASCII without spaces "
			    "(percent-encode the rest)");
	}
	if (strncasecmp(url, "http://", 7) == 0)
		auth = url + 7;
	else if (strncasecmp(url, "https://", 8) == 0)
		auth = url + 8;
	else
		return ("expected an absolute http:// or https:// URL");
	end = auth + strcspn(auth, "/?#");
	/* Userinfo ends at the last '@' of the authority. */
	for (at = NULL, p = auth; p < end; p++) {
		if (*p == '@')
			at = p;
	}
	h = at != NULL ? at + 1 : auth;
	if (h < end && *h == '[') {
		if ((hend = memchr(h, ']', end - h)) == NULL)
			return ("has an unterminated IPv6 address ('[')");
		for (p = h + 1; p < hend; p++) {
			if (strchr("0123456789abcdefABCDEF:.", *p) == NULL)
				return ("has an invalid IPv6 address");
		}
		if (hend == h + 1)
			return ("has an invalid IPv6 address");
		hend++;
	} else {
		hend = h + strcspn(h, ":/?#");
		if (hend > end)
			hend = end;
		for (p = h; p < hend; p++) {
			if (strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "abcdefghijklmnopqrstuvwxyz0123456789"
			    "-._~%!$&'()*+,;=", *p) == NULL)
				return ("has an invalid character in its "
				    "host");
		}
	}
	if (hend == h)
		return ("has no host");
	if (hend < end) {
		if (*hend != ':')
			return ("has an invalid host");
		port = hend + 1;
		/* "host:" is the default port (RFC 3986 section 3.2.3). */
		value = 0;
		for (i = 0; port + i < end; i++) {
			if (port[i] < '0' || port[i] > '9' || i >= 5)
				return ("has an invalid port");
			value = value * 10 + (unsigned long)(port[i] - '0');
		}
		if (i > 0 && (value == 0 || value > 65535))
			return ("has an invalid port");
	}
	*host = h;
	*hostlen = hend - h;
	return (NULL);
}

/* A host that never leaves this machine. */
static int
conf_host_loopback(const char *host, size_t len)
{
	static const char	*v6[] = { "[::1]", "[0:0:0:0:0:0:0:1]" };
	size_t			 i;

	if ((len == 9 && strncasecmp(host, "localhost", 9) == 0) ||
	    (len > 10 && strncasecmp(host + len - 10, ".localhost", 10) == 0))
		return (1);
	for (i = 0; i < nitems(v6); i++) {
		if (strlen(v6[i]) == len && strncmp(host, v6[i], len) == 0)
			return (1);
	}
	if (len < 4 || strncmp(host, "127.", 4) != 0)
		return (0);
	for (i = 4; i < len; i++) {
		if (strchr("0123456789.", host[i]) == NULL)
			return (0);
	}
	return (1);
}

/* 1 if credentials sent to url would cross the network in clear text. */
static int
conf_url_cleartext(const char *url)
{
	const char	*host;
	size_t		 hostlen;

	if (url == NULL || conf_url_check(url, &host, &hostlen) != NULL)
		return (0);
	return (strncasecmp(url, "http://", 7) == 0 &&
	    !conf_host_loopback(host, hostlen));
}

/* An expanded URL member; NULL if not one (reported). */
static char *
conf_parse_url(struct conf_parse *cp, const char *path, const cJSON *item)
{
	const char	*err, *host;
	char		*url;
	size_t		 hostlen;

	if ((url = conf_string(cp, path, item)) == NULL)
		return (NULL);
	if ((err = conf_url_check(url, &host, &hostlen)) != NULL) {
		conf_error(cp, path, "%s", err);
		free(url);
		return (NULL);
	}
	return (url);
}

/* tchar of RFC 9110 section 5.6.2. */
static int
conf_header_token(const char *name)
{
	size_t	 len = strlen(name);

	return (len > 0 && strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+-.^_`|~") == len);
}

static int
conf_header_managed(const char *name)
{
	size_t	 i;

	for (i = 0; i < nitems(conf_managed_headers); i++) {
		if (strcasecmp(conf_managed_headers[i], name) == 0)
			return (1);
	}
	return (0);
}

/* A header name and its position, to find names equal but for case. */
struct conf_hname {
	const cJSON	*item;
	size_t		 seq;
};

static int
conf_hname_cmp(const void *a, const void *b)
{
	const struct conf_hname	*ha = a, *hb = b;
	int			 cmp;

	if ((cmp = strcasecmp(ha->item->string, hb->item->string)) != 0)
		return (cmp);
	return (ha->seq < hb->seq ? -1 : ha->seq > hb->seq);
}

/*
 * same[i]: the first member whose name equals the i-th one's ignoring
 * case (the i-th itself if none comes before).  Sorting keeps this
 * O(n log n) for objects of any size.
 */
static const cJSON **
conf_header_firsts(const cJSON *object)
{
	const cJSON		*item, **same;
	struct conf_hname	*v;
	size_t			 n = 0, i;

	for (item = object->child; item != NULL; item = item->next)
		n++;
	v = xreallocarray(NULL, n == 0 ? 1 : n, sizeof *v);
	same = xreallocarray(NULL, n == 0 ? 1 : n, sizeof *same);
	for (i = 0, item = object->child; item != NULL;
	    item = item->next, i++) {
		v[i].item = item;
		v[i].seq = i;
	}
	qsort(v, n, sizeof *v, conf_hname_cmp);
	for (i = 0; i < n; i++) {
		if (i > 0 && strcasecmp(v[i].item->string,
		    v[i - 1].item->string) == 0)
			same[v[i].seq] = same[v[i - 1].seq];
		else
			same[v[i].seq] = v[i].item;
	}
	free(v);
	return (same);
}

static void
conf_parse_headers(struct conf_parse *cp, const char *path,
    const cJSON *object, struct conf_server *cs)
{
	const cJSON	*item, **same;
	char		*hpath, *value;
	const char	*v;
	size_t		*first, i;
	int		 bad;

	if (!cJSON_IsObject(object)) {
		conf_error(cp, path, "expected an object of strings");
		return;
	}
	first = conf_object_first_keys(object);
	same = conf_header_firsts(object);
	for (i = 0, item = object->child; item != NULL;
	    item = item->next, i++) {
		xasprintf(&hpath, "%s.%s", path, item->string);
		if (first[i] != i)
			conf_error(cp, hpath, "duplicate key");
		else if (!conf_header_token(item->string))
			conf_error(cp, hpath, "invalid header name: use "
			    "letters, digits and !#$%%&'*+-.^_`|~");
		else if (same[i] != item)
			conf_error(cp, hpath, "the same header as %s.%s "
			    "(header names ignore case)", path,
			    same[i]->string);
		else if (conf_header_managed(item->string))
			conf_error(cp, hpath, "set by mcpd-remote itself; it "
			    "cannot be configured");
		else if ((value = conf_string(cp, hpath, item)) != NULL) {
			for (bad = 0, v = value; *v != '\0'; v++) {
				if ((*v > 0 && *v < ' ' && *v != '\t') ||
				    *v == 0x7f)
					bad = 1;
			}
			if (bad) {
				conf_error(cp, hpath, "the value holds a "
				    "control character (a line break?)");
			} else {
				cs->headers = xreallocarray(cs->headers,
				    cs->nheaders + 2, sizeof *cs->headers);
				xasprintf(&cs->headers[cs->nheaders++],
				    "%s: %s", item->string, value);
				cs->headers[cs->nheaders] = NULL;
			}
			explicit_bzero(value, strlen(value));
			free(value);
		}
		free(hpath);
	}
	free(same);
	free(first);
}

static void
conf_parse_oauth(struct conf_parse *cp, const char *path,
    const cJSON *object, struct conf_server *cs)
{
	const cJSON	*item;
	char		*opath, *value, **field;
	size_t		*first, i, k;

	if (!cJSON_IsObject(object)) {
		conf_error(cp, path, "expected an object");
		return;
	}
	cs->has_oauth = 1;
	first = conf_object_first_keys(object);
	for (i = 0, item = object->child; item != NULL;
	    item = item->next, i++) {
		xasprintf(&opath, "%s.%s", path, item->string);
		for (k = 0; k < nitems(conf_oauth_keys); k++) {
			if (strcmp(conf_oauth_keys[k].name,
			    item->string) == 0)
				break;
		}
		if (first[i] != i) {
			conf_error(cp, opath, "duplicate key");
			free(opath);
			continue;
		}
		if (k == nitems(conf_oauth_keys)) {
			conf_warn(cp, opath, "unknown key, ignored");
			free(opath);
			continue;
		}
		if (conf_oauth_keys[k].check == CONF_OAUTH_URL)
			value = conf_parse_url(cp, opath, item);
		else
			value = conf_string(cp, opath, item);
		if (value != NULL && *value == '\0') {
			conf_error(cp, opath, "must not be empty");
			free(value);
			value = NULL;
		}
		if (value != NULL && conf_oauth_keys[k].check ==
		    CONF_OAUTH_FILE && *value != '/') {
			conf_error(cp, opath, "must be an absolute path");
			free(value);
			value = NULL;
		}
		if (value != NULL && conf_oauth_keys[k].check ==
		    CONF_OAUTH_ALGORITHM && strcmp(value, "ES256") != 0 &&
		    strcmp(value, "RS256") != 0) {
			conf_error(cp, opath, "expected \"ES256\" or "
			    "\"RS256\"");
			free(value);
			value = NULL;
		}
		if (value != NULL && conf_oauth_keys[k].check ==
		    CONF_OAUTH_GRANT && strcmp(value, CONF_GRANT_CLIENT) != 0 &&
		    strcmp(value, CONF_GRANT_CODE) != 0) {
			conf_error(cp, opath, "expected \"%s\" or \"%s\"",
			    CONF_GRANT_CLIENT, CONF_GRANT_CODE);
			free(value);
			value = NULL;
		}
		field = CONF_OAUTH_FIELD(&cs->oauth, k);
		free(*field);
		*field = value;
		free(opath);
	}
	free(first);
}

int
conf_remote_key(struct conf_parse *cp, const char *path, const cJSON *item,
    int remote, struct conf_server *cs)
{
	const char	*key = item->string;

	if (strcmp(key, "url") != 0 && strcmp(key, "headers") != 0 &&
	    strcmp(key, "oauth") != 0 && strcmp(key, "ca_file") != 0)
		return (0);
	if (!remote) {
		conf_error(cp, path, "only for a remote server (url)");
		return (1);
	}
	if (strcmp(key, "url") == 0) {
		if ((cs->url = conf_parse_url(cp, path, item)) != NULL)
			cs->url_display = xstrdup(item->valuestring);
	} else if (strcmp(key, "headers") == 0)
		conf_parse_headers(cp, path, item, cs);
	else if (strcmp(key, "oauth") == 0)
		conf_parse_oauth(cp, path, item, cs);
	else {
		cs->ca_file = conf_string(cp, path, item);
		if (cs->ca_file != NULL && *cs->ca_file != '/') {
			conf_error(cp, path, "must be an absolute path");
			free(cs->ca_file);
			cs->ca_file = NULL;
		}
	}
	return (1);
}

/* The oauth member that an error is about. */
static void
conf_oauth_error(struct conf_parse *cp, const char *path, const char *key,
    const char *msg)
{
	char	*opath;

	if (key != NULL)
		xasprintf(&opath, "%s.oauth.%s", path, key);
	else
		xasprintf(&opath, "%s.oauth", path);
	conf_error(cp, opath, "%s", msg);
	free(opath);
}

static int
conf_oauth_written(const cJSON *oauth, const char *key)
{
	return (cJSON_GetObjectItemCaseSensitive(oauth, key) != NULL);
}

/* Client credentials: a client_id and exactly one credential. */
static void
conf_oauth_finish_client(struct conf_parse *cp, const char *path,
    const cJSON *oauth, size_t ncreds)
{
	const cJSON	*item;

	if (!conf_oauth_written(oauth, "client_id"))
		conf_oauth_error(cp, path, "client_id", "missing (required "
		    "with client credentials)");
	if (ncreds == 0)
		conf_oauth_error(cp, path, NULL, "needs one of client_secret, "
		    "client_secret_file or private_key_file (or \"grant\": "
		    "\"authorization_code\" to sign in with `mcpctl login`)");
	else if (ncreds > 1)
		conf_oauth_error(cp, path, NULL, "client_secret, "
		    "client_secret_file and private_key_file exclude each "
		    "other: give exactly one");
	item = cJSON_GetObjectItemCaseSensitive(oauth, "signing_algorithm");
	if (conf_oauth_written(oauth, "private_key_file")) {
		if (item == NULL)
			conf_oauth_error(cp, path, "signing_algorithm",
			    "missing (required with private_key_file: "
			    "\"ES256\" or \"RS256\")");
	} else if (item != NULL)
		conf_oauth_error(cp, path, "signing_algorithm", "only with "
		    "private_key_file");
	if (conf_oauth_written(oauth, "client_metadata_url"))
		conf_oauth_error(cp, path, "client_metadata_url", "only for a "
		    "sign-in (\"grant\": \"authorization_code\")");
}

/*
 * A sign-in (authorization code): the client is pre-registered
 * (client_id, a secret if it is confidential), described by a Client ID
 * Metadata Document (client_metadata_url), or registered at login.
 */
static void
conf_oauth_finish_code(struct conf_parse *cp, const char *path,
    const cJSON *oauth)
{
	static const char	*client_only[] = { "private_key_file",
	    "signing_algorithm", "jwt_audience", "token_url" };
	size_t			 i;

	for (i = 0; i < nitems(client_only); i++) {
		if (conf_oauth_written(oauth, client_only[i]))
			conf_oauth_error(cp, path, client_only[i], "only with "
			    "client credentials (a sign-in discovers the "
			    "authorization server and uses no private key)");
	}
	if (conf_oauth_written(oauth, "client_secret") &&
	    conf_oauth_written(oauth, "client_secret_file"))
		conf_oauth_error(cp, path, NULL, "client_secret and "
		    "client_secret_file exclude each other: give one");
	if ((conf_oauth_written(oauth, "client_secret") ||
	    conf_oauth_written(oauth, "client_secret_file")) &&
	    !conf_oauth_written(oauth, "client_id"))
		conf_oauth_error(cp, path, "client_id", "missing (a client "
		    "secret belongs to a pre-registered client_id)");
}

void
conf_remote_finish(struct conf_parse *cp, const char *path,
    const cJSON *object, struct conf_server *cs)
{
	struct conf_oauth	*o = &cs->oauth;
	const cJSON		*oauth, *item;
	char			*kpath;
	size_t			 i, ncreds;

	if (cJSON_GetObjectItemCaseSensitive(object, "url") == NULL) {
		xasprintf(&kpath, "%s.url", path);
		conf_error(cp, kpath, "missing (required for a remote "
		    "server)");
		free(kpath);
	}
	oauth = cJSON_GetObjectItemCaseSensitive(object, "oauth");
	if (!cs->has_oauth)
		return;

	/*
	 * What is missing is judged from the keys written, so that a value
	 * already refused is not reported twice.  Entries 1 to 3 of
	 * conf_oauth_keys are the three credentials.
	 */
	ncreds = 0;
	for (i = 0; i < 3; i++) {
		item = cJSON_GetObjectItemCaseSensitive(oauth,
		    conf_oauth_keys[1 + i].name);
		ncreds += item != NULL;
	}
	/* Unless written (or refused), credentials mean client credentials. */
	if (o->grant == NULL)
		o->grant = xstrdup(ncreds > 0 &&
		    !conf_oauth_written(oauth, "grant") &&
		    !conf_oauth_written(oauth, "client_metadata_url") ?
		    CONF_GRANT_CLIENT : CONF_GRANT_CODE);
	if (strcmp(o->grant, CONF_GRANT_CODE) == 0)
		conf_oauth_finish_code(cp, path, oauth);
	else
		conf_oauth_finish_client(cp, path, oauth, ncreds);
	for (i = 0; i < cs->nheaders; i++) {
		if (strncasecmp(cs->headers[i], "Authorization:", 14) != 0)
			continue;
		xasprintf(&kpath, "%s.headers.%.*s", path, 13,
		    cs->headers[i]);
		conf_error(cp, kpath, "not with oauth, which sends its own");
		free(kpath);
	}

	if (conf_url_cleartext(cs->url)) {
		xasprintf(&kpath, "%s.oauth", path);
		conf_warn(cp, kpath, "the url is plain http:// to a host that "
		    "is not loopback: credentials would cross the network "
		    "unencrypted (use https://)");
		free(kpath);
	}
	if (conf_url_cleartext(o->client_metadata_url)) {
		xasprintf(&kpath, "%s.oauth.client_metadata_url", path);
		conf_error(cp, kpath, "must be https:// (or http:// on a "
		    "loopback address): authorization servers fetch it");
		free(kpath);
	}
	if (conf_url_cleartext(o->token_url)) {
		xasprintf(&kpath, "%s.oauth.token_url", path);
		conf_warn(cp, kpath, "plain http:// to a host that is not "
		    "loopback: credentials would cross the network "
		    "unencrypted (use https://)");
		free(kpath);
	}
}

static void
conf_free_secret(char *s)
{
	if (s == NULL)
		return;
	explicit_bzero(s, strlen(s));
	free(s);
}

void
conf_remote_clear(struct conf_server *cs)
{
	size_t	 i;

	conf_free_secret(cs->url);
	free(cs->url_display);
	for (i = 0; i < cs->nheaders; i++)
		conf_free_secret(cs->headers[i]);
	free(cs->headers);
	free(cs->ca_file);
	for (i = 0; i < nitems(conf_oauth_keys); i++)
		conf_free_secret(*CONF_OAUTH_FIELD(&cs->oauth, i));
	cs->url = cs->url_display = cs->ca_file = NULL;
	cs->headers = NULL;
	cs->nheaders = 0;
	cs->has_oauth = 0;
	memset(&cs->oauth, 0, sizeof cs->oauth);
}

static char *
conf_strdup_null(const char *s)
{
	return (s != NULL ? xstrdup(s) : NULL);
}

void
conf_remote_copy(struct conf_server *copy, const struct conf_server *cs)
{
	size_t	 i;
	char	**field;

	copy->url = conf_strdup_null(cs->url);
	copy->url_display = conf_strdup_null(cs->url_display);
	copy->headers = xreallocarray(NULL, cs->nheaders + 1,
	    sizeof *copy->headers);
	for (i = 0; i < cs->nheaders; i++)
		copy->headers[i] = xstrdup(cs->headers[i]);
	copy->headers[cs->nheaders] = NULL;
	copy->ca_file = conf_strdup_null(cs->ca_file);
	for (i = 0; i < nitems(conf_oauth_keys); i++) {
		field = CONF_OAUTH_FIELD(&copy->oauth, i);
		*field = conf_strdup_null(*field);
	}
}

static int
conf_str_equal(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return (a == b);
	return (strcmp(a, b) == 0);
}

/* Headers are a set (names are unique), so order does not matter. */
static int
conf_headers_equal(const struct conf_server *a, const struct conf_server *b)
{
	return (a->nheaders == b->nheaders &&
	    conf_set_equal(a->headers, b->headers, a->nheaders));
}

int
conf_remote_equal(const struct conf_server *a, const struct conf_server *b)
{
	size_t	 i;

	if (a->transport != b->transport)
		return (0);
	if (a->transport == CONF_TRANSPORT_STDIO)
		return (1);	/* nothing below applies */
	if (!conf_str_equal(a->url, b->url) ||
	    !conf_headers_equal(a, b) ||
	    !conf_str_equal(a->ca_file, b->ca_file) ||
	    a->connect_timeout_ms != b->connect_timeout_ms ||
	    a->has_oauth != b->has_oauth)
		return (0);
	for (i = 0; i < nitems(conf_oauth_keys); i++) {
		if (!conf_str_equal(*CONF_OAUTH_FIELD(&a->oauth, i),
		    *CONF_OAUTH_FIELD(&b->oauth, i)))
			return (0);
	}
	return (1);
}

/* s (n bytes) as a JSON string: quotes, backslashes, controls escaped. */
static void
conf_sbuf_json(struct sbuf *b, const char *s, size_t n)
{
	static const char	 hex[] = "0123456789abcdef";
	char			 esc[7];
	size_t			 i, span;
	unsigned char		 c;

	sbuf_add_secret(b, "\"", 1);
	for (i = 0; i < n; i += span) {
		for (span = 0; i + span < n; span++) {
			c = (unsigned char)s[i + span];
			if (c < 0x20 || c == '"' || c == '\\' || c == 0x7f)
				break;
		}
		sbuf_add_secret(b, s + i, span);
		if (i + span == n)
			break;
		c = (unsigned char)s[i + span];
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			sbuf_add_secret(b, esc, 2);
		} else {
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			sbuf_add_secret(b, esc, 6);
		}
		span++;
	}
	sbuf_add_secret(b, "\"", 1);
}

/* ,"key":"value" (or without the comma first). */
static void
conf_sbuf_member(struct sbuf *b, int comma, const char *key,
    const char *value)
{
	if (comma)
		sbuf_adds_secret(b, ",");
	conf_sbuf_json(b, key, strlen(key));
	sbuf_adds_secret(b, ":");
	conf_sbuf_json(b, value, strlen(value));
}

int
conf_remote_signs_in(const struct conf_server *cs)
{
	size_t	 i;

	if (!conf_server_is_remote(cs) || cs->url == NULL)
		return (0);
	if (cs->has_oauth)
		return (cs->oauth.grant != NULL &&
		    strcmp(cs->oauth.grant, CONF_GRANT_CODE) == 0);
	/* A configured Authorization header is the credential. */
	for (i = 0; i < cs->nheaders; i++) {
		if (strncasecmp(cs->headers[i], "Authorization:", 14) == 0)
			return (0);
	}
	return (1);
}

/*
 * Built with the wiping sbuf: the text holds header values and oauth
 * secrets, so no outgrown copy is left behind in freed memory.
 */
char *
conf_remote_settings(const struct conf_server *cs,
    const struct conf_remote_extra *extra)
{
	struct sbuf		 b = { NULL, 0, 0 };
	const char		*colon, *value, *v;
	char			 num[128];
	size_t			 i;
	int			 comma;

	if (!conf_server_is_remote(cs) || cs->url == NULL)
		return (NULL);
	snprintf(num, sizeof num, "{\"mcpd_remote\":%d", 1);
	sbuf_adds_secret(&b, num);
	conf_sbuf_member(&b, 1, "name", cs->name);
	conf_sbuf_member(&b, 1, "url", cs->url);
	conf_sbuf_member(&b, 1, "transport",
	    conf_transport_name(cs->transport));
	sbuf_adds_secret(&b, ",\"headers\":{");
	for (i = 0, comma = 0; i < cs->nheaders; i++) {
		if ((colon = strchr(cs->headers[i], ':')) == NULL)
			continue;	/* not made by conf_parse */
		if (comma)
			sbuf_adds_secret(&b, ",");
		comma = 1;
		conf_sbuf_json(&b, cs->headers[i], colon - cs->headers[i]);
		sbuf_adds_secret(&b, ":");
		value = colon + 1;
		if (*value == ' ')
			value++;
		conf_sbuf_json(&b, value, strlen(value));
	}
	sbuf_adds_secret(&b, "}");
	if (cs->ca_file != NULL)
		conf_sbuf_member(&b, 1, "ca_file", cs->ca_file);
	snprintf(num, sizeof num, ",\"connect_timeout_ms\":%" PRIu32
	    ",\"request_timeout_ms\":%" PRIu32 ",\"max_message_bytes\":%zu",
	    cs->connect_timeout_ms, cs->request_timeout_ms,
	    cs->max_message_bytes);
	sbuf_adds_secret(&b, num);
	if (cs->has_oauth) {
		sbuf_adds_secret(&b, ",\"oauth\":{");
		for (i = 0, comma = 0; i < nitems(conf_oauth_keys); i++) {
			if ((v = *CONF_OAUTH_FIELD(&cs->oauth, i)) == NULL)
				continue;
			conf_sbuf_member(&b, comma, conf_oauth_keys[i].name,
			    v);
			comma = 1;
		}
		sbuf_adds_secret(&b, "}");
	} else if (conf_remote_signs_in(cs))
		sbuf_adds_secret(&b, ",\"oauth\":{\"grant\":\"" CONF_GRANT_CODE
		    "\"}");
	if (extra != NULL && extra->token_file != NULL)
		conf_sbuf_member(&b, 1, "token_file", extra->token_file);
	if (extra != NULL && extra->login != NULL) {
		sbuf_adds_secret(&b, ",\"login\":{");
		conf_sbuf_member(&b, 0, "mode", extra->login);
		if (extra->redirect_uri != NULL)
			conf_sbuf_member(&b, 1, "redirect_uri",
			    extra->redirect_uri);
		if (extra->scope != NULL)
			conf_sbuf_member(&b, 1, "scope", extra->scope);
		sbuf_adds_secret(&b, "}");
	}
	sbuf_adds_secret(&b, "}");
	return (b.p);
}
