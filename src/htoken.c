/*
 * htoken.c -- the HTTP front's bearer tokens (htoken.h): the store's
 * text (and the file that holds it, read), and a presented token
 * checked against the hashes in it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdio.h"
#include "htoken.h"
#include "jcs.h"
#include "sbuf.h"
#include "xmalloc.h"

int
htoken_name_ok(const char *name)
{
	size_t	 i;

	for (i = 0; name[i] != '\0'; i++) {
		if (i >= HTOKEN_NAME_MAX)
			return (0);
		if (!((name[i] >= 'a' && name[i] <= 'z') ||
		    (name[i] >= 'A' && name[i] <= 'Z') ||
		    (name[i] >= '0' && name[i] <= '9') ||
		    name[i] == '.' || name[i] == '_' || name[i] == '-'))
			return (0);
	}
	return (i > 0);
}

static int
htoken_hex_ok(const char *s)
{
	size_t	 i;

	for (i = 0; s[i] != '\0'; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f')))
			return (0);
	return (i == HTOKEN_HASH_HEX - 1);
}

static int
htoken_int(const char *s, int64_t *out)
{
	char		*end;
	long long	 v;

	if (*s < '0' || *s > '9')
		return (-1);
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return (-1);
	*out = v;
	return (0);
}

static void
htoken_free_one(struct htoken *t)
{
	size_t	 i;

	free(t->name);
	for (i = 0; i < t->nservers; i++)
		free(t->servers[i]);
	free(t->servers);
}

static void
htoken_set_servers(struct htoken *t, const char *list)
{
	const char	*p = list, *comma;

	t->servers = NULL;
	t->nservers = 0;
	if (list == NULL || strcmp(list, "*") == 0)
		return;
	for (;;) {
		comma = strchr(p, ',');
		t->servers = xreallocarray(t->servers, t->nservers + 1,
		    sizeof *t->servers);
		t->servers[t->nservers++] = comma == NULL ? xstrdup(p) :
		    xstrndup(p, comma - p);
		if (comma == NULL)
			break;
		p = comma + 1;
	}
}

/* One line, split at tabs in place: 0, or -1 if it is not a token's. */
static int
htoken_parse_line(char *s, struct htoken *t)
{
	char	*f[5];
	size_t	 n = 0, i;

	f[n++] = s;
	while (n < 5 && (s = strchr(s, '\t')) != NULL) {
		*s++ = '\0';
		f[n++] = s;
	}
	if (n != 5 || strchr(f[4], '\t') != NULL || !htoken_name_ok(f[0]) ||
	    !htoken_hex_ok(f[1]) || htoken_int(f[2], &t->created) != 0 ||
	    htoken_int(f[3], &t->expires) != 0 || *f[4] == '\0')
		return (-1);
	memset(t->hash, 0, sizeof t->hash);
	memcpy(t->hash, f[1], HTOKEN_HASH_HEX - 1);
	htoken_set_servers(t, f[4]);
	for (i = 0; i < t->nservers; i++) {
		if (*t->servers[i] == '\0') {
			htoken_free_one(t);
			return (-1);
		}
	}
	t->name = xstrdup(f[0]);
	return (0);
}

int
htokens_parse(const char *text, size_t len, struct htokens *out,
    size_t *lineno)
{
	struct htokens	 ts = { NULL, 0 };
	struct htoken	 t;
	const char	*p = text, *end = text + len, *nl;
	char		*line;
	size_t		 no = 0;

	while (p < end) {
		no++;
		if ((nl = memchr(p, '\n', end - p)) == NULL)
			nl = end;
		line = xstrndup(p, nl - p);
		p = nl + (nl < end);
		if (line[0] == '#' || line[0] == '\0') {
			free(line);
			continue;
		}
		memset(&t, 0, sizeof t);
		if (ts.n >= HTOKEN_MAX || htoken_parse_line(line, &t) != 0 ||
		    htokens_find(&ts, t.name) != NULL) {
			if (t.name != NULL)
				htoken_free_one(&t);
			free(line);
			htokens_free(&ts);
			*lineno = no;
			return (-1);
		}
		free(line);
		ts.v = xreallocarray(ts.v, ts.n + 1, sizeof *ts.v);
		ts.v[ts.n++] = t;
	}
	*out = ts;
	return (0);
}

int
htokens_read(const char *path, struct htokens *ts, size_t *lineno)
{
	struct sbuf	 b;
	int		 fd, rc, saved;

	memset(ts, 0, sizeof *ts);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (errno == ENOENT ? 0 : -1);
	memset(&b, 0, sizeof b);
	rc = fdio_read_all(fd, HTOKEN_STORE_MAX, &b);
	saved = errno;
	close(fd);
	if (rc == 0 && htokens_parse(b.p, b.len, ts, lineno) != 0)
		rc = -2;
	free(b.p);
	errno = saved;
	return (rc);
}

char *
htokens_format(const struct htokens *ts)
{
	struct sbuf	 sb;
	size_t		 i, j;

	sbuf_init(&sb, 256);
	sbuf_printf(&sb, "# mcpd's HTTP bearer tokens (mcpctl token): "
	    "name, SHA-256, created, expires, servers\n");
	for (i = 0; i < ts->n; i++) {
		sbuf_printf(&sb, "%s\t%s\t%" PRId64 "\t%" PRId64 "\t",
		    ts->v[i].name, ts->v[i].hash, ts->v[i].created,
		    ts->v[i].expires);
		if (ts->v[i].nservers == 0)
			sbuf_printf(&sb, "*");
		for (j = 0; j < ts->v[i].nservers; j++)
			sbuf_printf(&sb, "%s%s", j > 0 ? "," : "",
			    ts->v[i].servers[j]);
		sbuf_printf(&sb, "\n");
	}
	return (sb.p);
}

void
htokens_free(struct htokens *ts)
{
	size_t	 i;

	for (i = 0; i < ts->n; i++)
		htoken_free_one(&ts->v[i]);
	free(ts->v);
	ts->v = NULL;
	ts->n = 0;
}

struct htoken *
htokens_find(const struct htokens *ts, const char *name)
{
	size_t	 i;

	for (i = 0; i < ts->n; i++)
		if (strcmp(ts->v[i].name, name) == 0)
			return (&ts->v[i]);
	return (NULL);
}

int
htokens_remove(struct htokens *ts, const char *name)
{
	struct htoken	*t;
	size_t		 i;

	if ((t = htokens_find(ts, name)) == NULL)
		return (-1);
	i = t - ts->v;
	htoken_free_one(t);
	memmove(&ts->v[i], &ts->v[i + 1], (ts->n - i - 1) * sizeof *ts->v);
	ts->n--;
	return (0);
}

void
htokens_add(struct htokens *ts, const char *name, const char *hash,
    int64_t created, int64_t expires, const char *servers)
{
	struct htoken	*t;

	ts->v = xreallocarray(ts->v, ts->n + 1, sizeof *ts->v);
	t = &ts->v[ts->n++];
	memset(t, 0, sizeof *t);
	t->name = xstrdup(name);
	memcpy(t->hash, hash, HTOKEN_HASH_HEX);
	t->created = created;
	t->expires = expires;
	htoken_set_servers(t, servers);
}

void
htoken_hash(const char *token, char hash[HTOKEN_HASH_HEX])
{
	jcs_sha256_hex(token, strlen(token), hash);
}

static int
htoken_same(const char *a, const char *b)
{
	unsigned char	 d = 0;
	size_t		 i;

	for (i = 0; i < HTOKEN_HASH_HEX - 1; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return (d == 0);
}

const struct htoken *
htokens_check(const struct htokens *ts, const char *token, int64_t now)
{
	char	 hash[HTOKEN_HASH_HEX];
	size_t	 i;
	const struct htoken *found = NULL;

	if (token == NULL || strncmp(token, HTOKEN_PREFIX,
	    strlen(HTOKEN_PREFIX)) != 0 || strlen(token) > 256)
		return (NULL);
	htoken_hash(token, hash);
	for (i = 0; i < ts->n; i++)
		if (htoken_same(ts->v[i].hash, hash))
			found = &ts->v[i];
	if (found != NULL && found->expires != 0 && found->expires <= now)
		return (NULL);
	return (found);
}

int
htoken_allows(const struct htoken *t, const char *server)
{
	size_t	 i;

	if (t->nservers == 0)
		return (1);
	for (i = 0; i < t->nservers; i++)
		if (strcmp(t->servers[i], server) == 0)
			return (1);
	return (0);
}

int
htoken_duration(const char *s, int64_t *secs)
{
	char		*end;
	long long	 v;
	int64_t		 unit = 1;

	if (*s < '0' || *s > '9')
		return (-1);
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || v <= 0)
		return (-1);
	if (strcmp(end, "d") == 0)
		unit = 86400;
	else if (strcmp(end, "h") == 0)
		unit = 3600;
	else if (strcmp(end, "m") == 0)
		unit = 60;
	else if (strcmp(end, "s") != 0 && *end != '\0')
		return (-1);
	if (v > (int64_t)3650 * 86400 / unit)
		return (-1);
	*secs = (int64_t)v * unit;
	return (0);
}

char *
htoken_path(const char *token_dir)
{
	const char	*env = getenv(HTOKEN_PATH_ENV);
	char		*p;

	if (env != NULL && *env == '/')
		return (xstrdup(env));
	xasprintf(&p, "%s/%s", token_dir, HTOKEN_FILE);
	return (p);
}
