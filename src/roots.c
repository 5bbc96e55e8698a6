/*
 * roots.c -- the roots a client gives a server (see roots.h).
 *
 * A client's text is hostile: it is parsed once (cJSON) after a copy in
 * which every "\u0000" escape inside a string is written "\u0001", so
 * that cJSON, which cuts strings and keys at a NUL, cannot read
 * "uri\u0000" as "uri" or "file:///a\u0000b" as "file:///a"; the NUL
 * then counts as the control character it is.  The work is linear in the
 * text, plus one sort of at most ROOTS_MAX uris, which also finds the
 * duplicates.
 *
 * A client that may only narrow what a server reaches has its roots
 * compared by the paths they name (roots_narrow), after decoding and
 * dot segments, so that no spelling of a directory passes for another.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "roots.h"
#include "sbuf.h"
#include "url.h"
#include "urinorm.h"
#include "xmalloc.h"

#define ROOTS_SCHEME	"file://"

/* A root being read: its uri and its place in the client's order. */
struct roots_entry {
	const char	*uri;
	const char	*name;		/* NULL: none */
	size_t		 index;
	int		 dup;
};

static int
roots_entry_cmp(const void *a, const void *b)
{
	const struct roots_entry	*x = *(struct roots_entry *const *)a;
	const struct roots_entry	*y = *(struct roots_entry *const *)b;
	int				 c;

	if ((c = strcmp(x->uri, y->uri)) != 0)
		return (c);
	return (x->index < y->index ? -1 : x->index > y->index);
}

static int
roots_is_control(unsigned char ch)
{
	return (ch < 0x20 || ch == 0x7f);
}

/*
 * Marks every entry after the first of its uri (in the client's order) as
 * a duplicate, builds the key and returns how many entries are left.
 */
static size_t
roots_sort(struct roots_entry *e, size_t n, char **key)
{
	struct roots_entry	**sorted;
	struct sbuf		  b = { NULL, 0, 0 };
	size_t			  i, kept = 0;

	sorted = xreallocarray(NULL, n > 0 ? n : 1, sizeof *sorted);
	for (i = 0; i < n; i++)
		sorted[i] = &e[i];
	if (n > 0)
		qsort(sorted, n, sizeof *sorted, roots_entry_cmp);
	for (i = 0; i < n; i++) {
		sorted[i]->dup = i > 0 &&
		    strcmp(sorted[i - 1]->uri, sorted[i]->uri) == 0;
		if (sorted[i]->dup)
			continue;
		sbuf_adds(&b, sorted[i]->uri);
		sbuf_add(&b, "\n", 1);
		kept++;
	}
	free(sorted);
	*key = b.p != NULL ? b.p : xstrdup("");
	return (kept);
}

/* Fills r from the entries, in their order, skipping duplicates. */
static void
roots_build(struct roots *r, struct roots_entry *e, size_t n)
{
	cJSON	*result, *array, *root;
	size_t	 i;

	r->n = roots_sort(e, n, &r->key);
	result = cJSON_CreateObject();
	array = cJSON_AddArrayToObject(result, "roots");
	for (i = 0; i < n; i++) {
		if (e[i].dup)
			continue;
		root = cJSON_CreateObject();
		cJSON_AddStringToObject(root, "uri", e[i].uri);
		if (e[i].name != NULL)
			cJSON_AddStringToObject(root, "name", e[i].name);
		cJSON_AddItemToArray(array, root);
	}
	if ((r->result = cJSON_PrintUnformatted(result)) == NULL)
		abort();	/* cJSON fails only for want of memory */
	cJSON_Delete(result);
}

/*
 * A NUL-terminated copy of text in which "\u0000" inside strings reads
 * "\u0001" (same length, so offsets hold).  -1 if text holds a NUL byte.
 */
static char *
roots_tame(const char *text, size_t len)
{
	char	*copy;
	size_t	 i;
	int	 in_string = 0;

	if (memchr(text, '\0', len) != NULL)
		return (NULL);
	copy = xmalloc(len + 1);
	memcpy(copy, text, len);
	copy[len] = '\0';
	for (i = 0; i < len; i++) {
		if (copy[i] == '"')
			in_string = !in_string;
		else if (in_string && copy[i] == '\\' && i + 1 < len) {
			if (copy[i + 1] == 'u' && i + 5 < len &&
			    memcmp(copy + i + 2, "0000", 4) == 0)
				copy[i + 5] = '1';
			i++;
		}
	}
	return (copy);
}

/* Checks one root; NULL, or what is wrong with it. */
static char *
roots_check(const cJSON *root, size_t i, struct roots_entry *e)
{
	const cJSON	*uri;
	cJSON		*name;
	const char	*p;
	char		*err, *q;
	size_t		 len;

	if (!cJSON_IsObject(root)) {
		xasprintf(&err, "roots[%zu] is not an object", i);
		return (err);
	}
	uri = cJSON_GetObjectItemCaseSensitive(root, "uri");
	if (uri == NULL) {
		xasprintf(&err, "roots[%zu] has no uri", i);
		return (err);
	}
	if (!cJSON_IsString(uri)) {
		xasprintf(&err, "roots[%zu].uri is not a string", i);
		return (err);
	}
	len = strlen(uri->valuestring);
	if (len > ROOTS_URI_MAX) {
		xasprintf(&err, "roots[%zu].uri is longer than %d bytes", i,
		    ROOTS_URI_MAX);
		return (err);
	}
	if (strncmp(uri->valuestring, ROOTS_SCHEME,
	    strlen(ROOTS_SCHEME)) != 0) {
		xasprintf(&err, "roots[%zu].uri is not a file:// URI", i);
		return (err);
	}
	for (p = uri->valuestring; *p != '\0'; p++) {
		if (roots_is_control((unsigned char)*p)) {
			xasprintf(&err, "roots[%zu].uri holds a control "
			    "character or a NUL", i);
			return (err);
		}
	}
	e->uri = uri->valuestring;
	e->name = NULL;
	e->index = i;
	name = cJSON_GetObjectItemCaseSensitive(root, "name");
	if (name == NULL || cJSON_IsNull(name))
		return (NULL);
	if (!cJSON_IsString(name)) {
		xasprintf(&err, "roots[%zu].name is not a string", i);
		return (err);
	}
	if (strlen(name->valuestring) > ROOTS_NAME_MAX) {
		xasprintf(&err, "roots[%zu].name is longer than %d bytes", i,
		    ROOTS_NAME_MAX);
		return (err);
	}
	/* The tree is ours: the name is cleaned where it lies. */
	for (q = name->valuestring; *q != '\0'; q++) {
		if (roots_is_control((unsigned char)*q))
			*q = '?';
	}
	e->name = name->valuestring;
	return (NULL);
}

int
roots_from_result(struct roots *r, const char *text, size_t len, char **err)
{
	struct roots_entry	 e[ROOTS_MAX];
	cJSON			*json = NULL, *array, *root;
	const char		*end;
	char			*copy;
	size_t			 n = 0;

	*err = NULL;
	if ((copy = roots_tame(text, len)) == NULL) {
		*err = xstrdup("not JSON (it holds a NUL byte)");
		return (-1);
	}
	/* Only JSON's blanks after the value (cJSON skips any below 0x21). */
	json = cJSON_ParseWithLengthOpts(copy, len, &end, 0);
	if (json != NULL) {
		end += strspn(end, " \t\r\n");
		if (end != copy + len) {
			cJSON_Delete(json);
			json = NULL;
		}
	}
	if (json == NULL) {
		*err = xstrdup("not JSON");
		goto fail;
	}
	if (!cJSON_IsObject(json)) {
		*err = xstrdup("result is not an object");
		goto fail;
	}
	array = cJSON_GetObjectItemCaseSensitive(json, "roots");
	if (!cJSON_IsArray(array)) {
		*err = xstrdup("result has no roots array");
		goto fail;
	}
	cJSON_ArrayForEach(root, array) {
		if (n == ROOTS_MAX) {
			xasprintf(err, "more than %d roots", ROOTS_MAX);
			goto fail;
		}
		if ((*err = roots_check(root, n, &e[n])) != NULL)
			goto fail;
		n++;
	}
	roots_build(r, e, n);
	cJSON_Delete(json);
	free(copy);
	return (0);

fail:
	cJSON_Delete(json);
	free(copy);
	return (-1);
}

/* "a%20b" -> "a b"; "%00" -> "?". */
static char *
roots_uri_decode(const char *s)
{
	char	*out, *o;
	int	 hi, lo;

	out = o = xmalloc(strlen(s) + 1);
	for (; *s != '\0'; s++) {
		if (s[0] == '%' && (hi = url_hex_value(s[1])) >= 0 &&
		    (lo = url_hex_value(s[2])) >= 0) {
			*o++ = hi == 0 && lo == 0 ? '?' : (char)(hi << 4 | lo);
			s += 2;
		} else
			*o++ = *s;
	}
	*o = '\0';
	return (out);
}

void
roots_from_uris(struct roots *r, char *const *uris, size_t n)
{
	struct roots_entry	*e;
	const char		*slash;
	size_t			 i;

	e = xreallocarray(NULL, n > 0 ? n : 1, sizeof *e);
	for (i = 0; i < n; i++) {
		e[i].uri = uris[i];
		e[i].index = i;
		e[i].name = NULL;
		slash = strrchr(uris[i], '/');
		if (slash != NULL && slash[1] != '\0')
			e[i].name = roots_uri_decode(slash + 1);
	}
	roots_build(r, e, n);
	for (i = 0; i < n; i++)
		free((char *)e[i].name);
	free(e);
}

int
roots_equal(const struct roots *a, const struct roots *b)
{
	return (strcmp(a->key != NULL ? a->key : "",
	    b->key != NULL ? b->key : "") == 0);
}

void
roots_copy(struct roots *dst, const struct roots *src)
{
	dst->result = src->result != NULL ? xstrdup(src->result) : NULL;
	dst->key = src->key != NULL ? xstrdup(src->key) : NULL;
	dst->n = src->n;
}

void
roots_free(struct roots *r)
{
	free(r->result);
	free(r->key);
	memset(r, 0, sizeof *r);
}

cJSON *
roots_uris_json(const struct roots *r)
{
	cJSON		*array;
	const char	*p, *nl;
	char		*uri;

	array = cJSON_CreateArray();
	for (p = r->key != NULL ? r->key : ""; *p != '\0'; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			break;
		uri = xstrndup(p, (size_t)(nl - p));
		cJSON_AddItemToArray(array, cJSON_CreateString(uri));
		free(uri);
	}
	return (array);
}

/*
 * Narrowing: a root compared by the path it names, not by its text, so
 * that "file://localhost/srv/a/../b", "FILE:///srv/%62" and "file:///srv/b/"
 * are the one directory /srv/b.  A name comparison only: what a server
 * makes of a symbolic link below a root is the server's (mcpd.json(5)).
 */

char *
roots_uri_path(const char *uri, const char **why)
{
	char	*norm, *out;
	size_t	 o;

	/*
	 * The rule is urinorm's, the one filters use: a file URI's normal
	 * form is "file://" and its decoded, dot-resolved path, with only
	 * what could not read back as itself still encoded.
	 */
	norm = xmalloc(strlen(uri) + URINORM_GROWTH_BYTES + 1);
	if (urinorm(uri, norm, why) == -1) {
		free(norm);
		return (NULL);
	}
	if (strncmp(norm, ROOTS_SCHEME "/", strlen(ROOTS_SCHEME) + 1) != 0) {
		free(norm);
		*why = "not a file:// URI";
		return (NULL);
	}
	/* urinorm refused %00: the decoder's '?' for it never shows. */
	out = roots_uri_decode(norm + strlen(ROOTS_SCHEME));
	o = strlen(out);
	free(norm);
	if (o > 1 && out[o - 1] == '/')
		o--;
	out[o] = '\0';
	return (out);
}

char *
roots_path_uri(const char *path)
{
	static const char	 hex[] = "0123456789ABCDEF";
	char			*uri;
	size_t			 n;
	unsigned char		 ch;

	uri = xmalloc(strlen(ROOTS_SCHEME) + 3 * strlen(path) + 1);
	n = strlen(ROOTS_SCHEME);
	memcpy(uri, ROOTS_SCHEME, n);
	for (; *path != '\0'; path++) {
		ch = (unsigned char)*path;
		if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
		    (ch >= '0' && ch <= '9') || strchr("/-._~", ch) != NULL)
			uri[n++] = (char)ch;
		else {
			uri[n++] = '%';
			uri[n++] = hex[ch >> 4];
			uri[n++] = hex[ch & 15];
		}
	}
	uri[n] = '\0';
	return (uri);
}

int
roots_path_within(const char *path, const char *base)
{
	size_t	 n = strlen(base);

	if (strcmp(base, "/") == 0)
		return (*path == '/');
	return (strncmp(path, base, n) == 0 &&
	    (path[n] == '\0' || path[n] == '/'));
}

/* The paths of uris (NULL where one names none), for roots_narrow. */
static char **
roots_paths(char *const *uris, size_t n)
{
	char		**paths;
	const char	 *why;
	size_t		  i;

	paths = xreallocarray(NULL, n > 0 ? n : 1, sizeof *paths);
	for (i = 0; i < n; i++)
		paths[i] = roots_uri_path(uris[i], &why);
	return (paths);
}

static void
roots_paths_free(char **paths, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

/* The uri a root keeps, or NULL with *why: see roots_narrow. */
static char *
roots_allowed(const char *uri, char *const *configured, char **cpaths,
    size_t nconfigured, char **wpaths, size_t nwithin, const char **why)
{
	char	*path, *kept = NULL;
	size_t	 i;

	if ((path = roots_uri_path(uri, why)) == NULL)
		return (NULL);
	for (i = 0; i < nconfigured && kept == NULL; i++) {
		if (cpaths[i] != NULL && strcmp(path, cpaths[i]) == 0)
			kept = xstrdup(configured[i]);
	}
	for (i = 0; i < nwithin && kept == NULL; i++) {
		if (wpaths[i] != NULL && roots_path_within(path, wpaths[i]))
			kept = roots_path_uri(path);
	}
	if (kept == NULL)
		*why = "neither one of the server's roots nor within its "
		    "member_roots";
	free(path);
	return (kept);
}

size_t
roots_narrow(struct roots *out, const struct roots *in,
    char *const *configured, size_t nconfigured, char *const *within,
    size_t nwithin, char **refused)
{
	struct roots_entry	*e;
	cJSON			*json;
	const cJSON		*root, *uri, *name;
	char			**cpaths, **wpaths;
	const char		*why;
	size_t			 n = 0, nrefused = 0, i;

	*refused = NULL;
	json = cJSON_Parse(in->result != NULL ? in->result : "{}");
	cpaths = roots_paths(configured, nconfigured);
	wpaths = roots_paths(within, nwithin);
	e = xreallocarray(NULL, in->n > 0 ? in->n : 1, sizeof *e);
	cJSON_ArrayForEach(root, cJSON_GetObjectItemCaseSensitive(json,
	    "roots")) {
		uri = cJSON_GetObjectItemCaseSensitive(root, "uri");
		name = cJSON_GetObjectItemCaseSensitive(root, "name");
		if (!cJSON_IsString(uri) || n == in->n)
			continue;	/* not a set roots.c made */
		e[n].uri = roots_allowed(uri->valuestring, configured, cpaths,
		    nconfigured, wpaths, nwithin, &why);
		if (e[n].uri == NULL) {
			if (nrefused++ == 0)
				xasprintf(refused, "%s: %s", uri->valuestring,
				    why);
			continue;
		}
		e[n].name = cJSON_IsString(name) ? name->valuestring : NULL;
		e[n].index = n;
		n++;
	}
	roots_build(out, e, n);
	for (i = 0; i < n; i++)
		free((char *)e[i].uri);
	free(e);
	roots_paths_free(cpaths, nconfigured);
	roots_paths_free(wpaths, nwithin);
	cJSON_Delete(json);
	return (nrefused);
}
