/*
 * fuzz_roots.c -- the roots a client gives a server (src/roots.c), on
 * whatever a client could answer roots/list with, and on whatever the
 * configuration could list.
 *
 * The first byte picks the input's meaning: 2 modulo 4, the rest is
 * configured roots (a line, tab-separated uris), member_roots (a line
 * the same) and a client's roots/list result, which roots_narrow
 * narrows; otherwise even, the rest is a client's roots/list result;
 * odd, it is configured uris, one a line.
 *
 * Invariants:
 * - roots_from_result returns 0 or -1; -1 gives a message of a known
 *   form and leaves the set as it was;
 * - a set has at most ROOTS_MAX roots; its key is n lines, sorted and
 *   unique, each a file:// uri of at most ROOTS_URI_MAX bytes with no
 *   control character;
 * - its result is {"roots":[...]} with exactly the key's uris, in the
 *   order of their first appearance in the input, a name (clean, within
 *   ROOTS_NAME_MAX) exactly where the input's first root of that uri had
 *   one, and nothing else;
 * - reading the result again gives the same result, key and n; a copy
 *   is equal; roots_uris_json lists the key's uris;
 * - configured uris give a set of their distinct uris, named as
 *   router_roots_result named them; if they would pass as a client's,
 *   the result reads back to the same key;
 * - roots_uri_path gives an absolute path without empty, "." or ".."
 *   segments, NUL or backslash, ending in '/' only if it is "/", that
 *   roots_path_uri writes as a uri naming it again;
 * - roots_narrow keeps at most the roots it was given less those it
 *   refused (two spellings of one path are one root), in their order,
 *   each a configured uri as written or roots_path_uri of a path within
 *   a member root; it counts the others, and names the first exactly
 *   when there is one.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "roots.h"
#include "url.h"
#include "util.h"
#include "xmalloc.h"

const char	*fuzz_target_name = "roots";

#define FUZZ_ROOTS_LINES	(ROOTS_MAX + 8)

static int
clean(const char *s)
{
	for (; *s != '\0'; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return (0);
	}
	return (1);
}

/* The key's lines, checked; returns how many. */
static size_t
check_key(const char *key, char **lines, size_t max)
{
	const char	*p, *nl;
	size_t		 n = 0;

	FUZZ_CHECK(key != NULL, "no key");
	FUZZ_CHECK(*key == '\0' || key[strlen(key) - 1] == '\n',
	    "the key does not end in a newline");
	for (p = key; *p != '\0'; p = nl + 1) {
		nl = strchr(p, '\n');
		FUZZ_CHECK(n < max, "more key lines than roots");
		lines[n] = xstrndup(p, (size_t)(nl - p));
		if (n > 0)
			FUZZ_CHECK(strcmp(lines[n - 1], lines[n]) < 0,
			    "key lines out of order or repeated: %s", key);
		n++;
	}
	return (n);
}

/* The result's roots array, checked to hold uri and name only. */
static const cJSON *
check_result_shape(const struct roots *r, cJSON **json)
{
	const cJSON	*array, *root, *m;

	FUZZ_CHECK(r->result != NULL, "no result");
	*json = fuzz_json_parse(r->result, strlen(r->result));
	FUZZ_CHECK(*json != NULL, "the result is not JSON: %s", r->result);
	FUZZ_CHECK(cJSON_GetArraySize(*json) == 1, "the result has other "
	    "members: %s", r->result);
	array = fuzz_json_member(*json, "roots");
	FUZZ_CHECK(cJSON_IsArray(array), "the result has no roots array");
	FUZZ_CHECK((size_t)cJSON_GetArraySize(array) == r->n,
	    "%zu roots in the result, n is %zu", (size_t)cJSON_GetArraySize(
	    array), r->n);
	cJSON_ArrayForEach(root, array) {
		FUZZ_CHECK(cJSON_IsObject(root), "a root is not an object");
		for (m = root->child; m != NULL; m = m->next) {
			FUZZ_CHECK(cJSON_IsString(m), "a member of a root is "
			    "not a string");
			FUZZ_CHECK(strcmp(m->string, "uri") == 0 ||
			    strcmp(m->string, "name") == 0,
			    "a root has a member %s", m->string);
		}
		FUZZ_CHECK(cJSON_IsString(fuzz_json_member(root, "uri")),
		    "a root has no uri");
	}
	return (array);
}

/* What holds of every set, however it was made. */
static void
check_set(const struct roots *r, char **lines, size_t *nlines)
{
	const cJSON	*array, *root, *uri;
	cJSON		*json, *list, *item;
	struct roots	 copy;
	size_t		 i, found;

	FUZZ_CHECK(r->n <= FUZZ_ROOTS_LINES, "n is %zu", r->n);
	*nlines = check_key(r->key, lines, FUZZ_ROOTS_LINES);
	FUZZ_CHECK(*nlines == r->n, "%zu key lines, n is %zu", *nlines,
	    r->n);
	array = check_result_shape(r, &json);
	/* Each key line once in the result (the key has no repeats). */
	for (i = 0; i < *nlines; i++) {
		found = 0;
		cJSON_ArrayForEach(root, array) {
			uri = fuzz_json_member(root, "uri");
			found += strcmp(uri->valuestring, lines[i]) == 0;
		}
		FUZZ_CHECK(found == 1, "%s %zu times in the result", lines[i],
		    found);
	}
	cJSON_Delete(json);

	list = roots_uris_json(r);
	FUZZ_CHECK((size_t)cJSON_GetArraySize(list) == r->n,
	    "roots_uris_json: %d uris, not %zu", cJSON_GetArraySize(list),
	    r->n);
	i = 0;
	cJSON_ArrayForEach(item, list) {
		FUZZ_CHECK(cJSON_IsString(item) &&
		    strcmp(item->valuestring, lines[i]) == 0,
		    "roots_uris_json differs from the key");
		i++;
	}
	cJSON_Delete(list);

	roots_copy(&copy, r);
	FUZZ_CHECK(roots_equal(&copy, r) && copy.n == r->n &&
	    strcmp(copy.result, r->result) == 0, "a copy differs");
	roots_free(&copy);
	FUZZ_CHECK(copy.result == NULL && copy.key == NULL && copy.n == 0,
	    "roots_free did not zero");
}

static void
free_lines(char **lines, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		free(lines[i]);
}

/* A refusal's message is one of the forms roots.h promises. */
static void
check_refusal(const char *err)
{
	static const char *const forms[] = {
		"not JSON",
		"result is not an object",
		"result has no roots array",
		"more than 256 roots",
		"roots[",
	};
	size_t	 i;

	FUZZ_CHECK(err != NULL && *err != '\0', "refused without a reason");
	for (i = 0; i < nitems(forms); i++) {
		if (strncmp(err, forms[i], strlen(forms[i])) == 0)
			return;
	}
	fuzz_fail("an unknown refusal: %s", err);
}

/*
 * The result's order and names against the input, read on its own: the
 * first root of each uri, in order, with its name if it had one.
 */
static void
check_against_input(const struct roots *r, const char *text, size_t len)
{
	cJSON		*in, *out;
	const cJSON	*in_array, *out_root, *root, *prev, *uri, *name, *oname;
	int		 first;

	in = fuzz_json_parse(text, len);
	FUZZ_CHECK(in != NULL, "accepted what is not one JSON value");
	in_array = fuzz_json_member(in, "roots");
	FUZZ_CHECK(cJSON_IsArray(in_array), "accepted without roots");
	out = fuzz_json_parse(r->result, strlen(r->result));
	out_root = fuzz_json_member(out, "roots")->child;
	cJSON_ArrayForEach(root, in_array) {
		uri = fuzz_json_member(root, "uri");
		FUZZ_CHECK(cJSON_IsString(uri), "accepted a root without a "
		    "string uri");
		first = 1;
		for (prev = in_array->child; prev != root; prev = prev->next) {
			if (strcmp(fuzz_json_member(prev, "uri")->valuestring,
			    uri->valuestring) == 0)
				first = 0;
		}
		if (!first)
			continue;
		FUZZ_CHECK(out_root != NULL, "a root missing from the result");
		FUZZ_CHECK(strcmp(fuzz_json_member(out_root, "uri")->
		    valuestring, uri->valuestring) == 0,
		    "the result's order differs from the input's");
		name = fuzz_json_member(root, "name");
		oname = fuzz_json_member(out_root, "name");
		FUZZ_CHECK((oname != NULL) == cJSON_IsString(name),
		    "a name dropped or made up");
		if (oname != NULL) {
			FUZZ_CHECK(strlen(oname->valuestring) ==
			    strlen(name->valuestring), "a name's length "
			    "changed");
			FUZZ_CHECK(clean(oname->valuestring), "a name with a "
			    "control character");
			FUZZ_CHECK(strlen(oname->valuestring) <=
			    ROOTS_NAME_MAX, "a name too long");
		}
		out_root = out_root->next;
	}
	FUZZ_CHECK(out_root == NULL, "a root in the result the input lacks");
	cJSON_Delete(in);
	cJSON_Delete(out);
}

static void
fuzz_result(const char *text, size_t len)
{
	struct roots	 r, again;
	char		*err, *lines[FUZZ_ROOTS_LINES];
	size_t		 n, i;

	r.result = NULL;
	r.key = (char *)"untouched";
	r.n = 7;
	if (roots_from_result(&r, text, len, &err) == -1) {
		check_refusal(err);
		FUZZ_CHECK(r.result == NULL &&
		    strcmp(r.key, "untouched") == 0 && r.n == 7,
		    "a refusal changed the set");
		free(err);
		return;
	}
	FUZZ_CHECK(err == NULL, "accepted with a message");
	FUZZ_CHECK(r.n <= ROOTS_MAX, "n is %zu", r.n);
	check_set(&r, lines, &n);
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(strncmp(lines[i], "file://", 7) == 0 &&
		    strlen(lines[i]) <= ROOTS_URI_MAX && clean(lines[i]),
		    "a uri accepted that should not be: %s", lines[i]);
	}
	free_lines(lines, n);
	check_against_input(&r, text, len);

	FUZZ_CHECK(roots_from_result(&again, r.result, strlen(r.result),
	    &err) == 0, "the result does not read back: %s", err);
	FUZZ_CHECK(strcmp(again.key, r.key) == 0 && again.n == r.n &&
	    strcmp(again.result, r.result) == 0 && roots_equal(&again, &r),
	    "the result reads back to another set");
	roots_free(&again);
	roots_free(&r);
}

/* The name router_roots_result gave a configured uri, written anew. */
static char *
expected_name(const char *uri)
{
	const char	*s = strrchr(uri, '/');
	char		*out, *o;
	int		 h, l;

	if (s == NULL || s[1] == '\0')
		return (NULL);
	out = o = xmalloc(strlen(s));
	for (s++; *s != '\0'; s++) {
		if (*s == '%' && (h = url_hex_value(s[1])) >= 0 &&
		    (l = url_hex_value(s[2])) >= 0) {
			*o++ = h == 0 && l == 0 ? '?' : (char)(h * 16 + l);
			s += 2;
		} else
			*o++ = *s;
	}
	*o = '\0';
	return (out);
}

static void
fuzz_uris(const char *text, size_t len)
{
	struct roots	 r, again;
	char		*uris[FUZZ_ROOTS_LINES] = { NULL };
	char		*lines[FUZZ_ROOTS_LINES];
	char		*name, *err;
	const char	*p = text, *end = text + len, *nl;
	cJSON		*json, *root;
	size_t		 n = 0, nlines, distinct = 0, i, j;
	int		 valid = 1;

	while (p < end && n < FUZZ_ROOTS_LINES) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		/* The configuration's strings have no NUL. */
		if (memchr(p, '\0', (size_t)(nl - p)) == NULL)
			uris[n++] = xstrndup(p, (size_t)(nl - p));
		p = nl + 1;
	}
	roots_from_uris(&r, uris, n);
	check_set(&r, lines, &nlines);
	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++) {
			if (strcmp(uris[i], uris[j]) == 0)
				break;
		}
		distinct += j == i;
		if (strncmp(uris[i], "file://", 7) != 0 || !clean(uris[i]) ||
		    strlen(uris[i]) > ROOTS_URI_MAX)
			valid = 0;
		if ((name = expected_name(uris[i])) != NULL &&
		    strlen(name) > ROOTS_NAME_MAX)
			valid = 0;
		free(name);
	}
	FUZZ_CHECK(nlines == distinct, "%zu roots of %zu distinct uris",
	    nlines, distinct);
	free_lines(lines, nlines);

	/* Names as before, in the order given, duplicates dropped. */
	json = fuzz_json_parse(r.result, strlen(r.result));
	root = fuzz_json_member(json, "roots")->child;
	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++) {
			if (strcmp(uris[i], uris[j]) == 0)
				break;
		}
		if (j < i)
			continue;
		FUZZ_CHECK(root != NULL, "a uri missing from the result");
		name = expected_name(uris[i]);
		if (name == NULL)
			FUZZ_CHECK(fuzz_json_member(root, "name") == NULL,
			    "a name for %s", uris[i]);
		else
			FUZZ_CHECK(cJSON_IsString(fuzz_json_member(root,
			    "name")) && strcmp(fuzz_json_member(root,
			    "name")->valuestring, name) == 0,
			    "not the name it had: %s", uris[i]);
		free(name);
		root = root->next;
	}
	cJSON_Delete(json);

	if (valid && n <= ROOTS_MAX) {
		FUZZ_CHECK(roots_from_result(&again, r.result,
		    strlen(r.result), &err) == 0, "configured roots do not "
		    "read back: %s", err);
		FUZZ_CHECK(roots_equal(&again, &r) && again.n == r.n,
		    "configured roots read back to another set");
		roots_free(&again);
	}
	roots_free(&r);
	for (i = 0; i < n; i++)
		free(uris[i]);
}

/* A path roots_uri_path gave, as it promises. */
static void
check_path(const char *uri, const char *path)
{
	const char	*why;
	char		*again, *back;

	FUZZ_CHECK(path[0] == '/', "%s: the path %s is not absolute", uri,
	    path);
	FUZZ_CHECK(strcmp(path, "/") == 0 || (path[strlen(path) - 1] != '/' &&
	    strstr(path, "//") == NULL && strstr(path, "/./") == NULL &&
	    strstr(path, "/../") == NULL && (strlen(path) < 2 ||
	    strcmp(path + strlen(path) - 2, "/.") != 0) && (strlen(path) < 3 ||
	    strcmp(path + strlen(path) - 3, "/..") != 0)),
	    "%s: the path %s is not resolved", uri, path);
	FUZZ_CHECK(strchr(path, '\\') == NULL, "%s: a backslash in %s", uri,
	    path);
	again = roots_path_uri(path);
	back = roots_uri_path(again, &why);
	FUZZ_CHECK(back != NULL && strcmp(back, path) == 0, "%s: %s does not "
	    "name %s again", uri, again, path);
	free(back);
	free(again);
}

/* Tab-separated uris of one line (the configuration's: no NUL). */
static size_t
split_uris(const char *p, const char *end, char **uris, size_t max)
{
	const char	*tab;
	size_t		 n = 0;

	while (p < end && n < max) {
		if ((tab = memchr(p, '\t', (size_t)(end - p))) == NULL)
			tab = end;
		if (tab > p && memchr(p, '\0', (size_t)(tab - p)) == NULL)
			uris[n++] = xstrndup(p, (size_t)(tab - p));
		p = tab + 1;
	}
	return (n);
}

/* Whether a kept root is one roots_narrow may keep, and how it is kept. */
static int
narrow_allowed(const char *kept, char **configured, size_t nc,
    char **within, size_t nw)
{
	const char	*why;
	char		*path, *base;
	size_t		 i;
	int		 ok = 0;

	for (i = 0; i < nc && !ok; i++)
		ok = strcmp(kept, configured[i]) == 0;
	if (ok)
		return (1);
	if ((path = roots_uri_path(kept, &why)) == NULL)
		return (0);
	base = roots_path_uri(path);
	ok = strcmp(base, kept) == 0;
	free(base);
	for (i = 0; i < nw && ok; i++) {
		if ((base = roots_uri_path(within[i], &why)) != NULL &&
		    roots_path_within(path, base)) {
			free(base);
			break;
		}
		free(base);
	}
	ok = ok && i < nw;
	free(path);
	return (ok);
}

static void
fuzz_narrow(const char *text, size_t len)
{
	struct roots	 in, out;
	cJSON		*json, *kept;
	const cJSON	*root, *uri, *k;
	const char	*end = text + len, *nl, *why;
	char		*configured[8], *within[8], *err, *refused, *path;
	size_t		 nc, nw, nrefused, i;

	if ((nl = memchr(text, '\n', len)) == NULL)
		return;
	nc = split_uris(text, nl, configured, nitems(configured));
	text = nl + 1;
	if ((nl = memchr(text, '\n', (size_t)(end - text))) == NULL)
		nl = end;
	nw = split_uris(text, nl, within, nitems(within));
	text = nl < end ? nl + 1 : end;
	if (roots_from_result(&in, text, (size_t)(end - text), &err) == 0) {
		/* Every uri a client may give: its path as promised. */
		json = fuzz_json_parse(in.result, strlen(in.result));
		cJSON_ArrayForEach(root, fuzz_json_member(json, "roots")) {
			uri = fuzz_json_member(root, "uri");
			if ((path = roots_uri_path(uri->valuestring,
			    &why)) != NULL)
				check_path(uri->valuestring, path);
			free(path);
		}
		nrefused = roots_narrow(&out, &in, configured, nc, within, nw,
		    &refused);
		FUZZ_CHECK((refused != NULL) == (nrefused > 0),
		    "%zu refused, message %s", nrefused, refused);
		/* Two spellings of one path are kept once. */
		FUZZ_CHECK(out.n + nrefused <= in.n && (nrefused > 0 ||
		    out.n > 0 || in.n == 0), "%zu of %zu kept, %zu refused",
		    out.n, in.n, nrefused);
		kept = fuzz_json_parse(out.result, strlen(out.result));
		cJSON_ArrayForEach(k, fuzz_json_member(kept, "roots")) {
			uri = fuzz_json_member(k, "uri");
			FUZZ_CHECK(narrow_allowed(uri->valuestring, configured,
			    nc, within, nw), "kept %s", uri->valuestring);
		}
		cJSON_Delete(kept);
		cJSON_Delete(json);
		free(refused);
		roots_free(&out);
		roots_free(&in);
	} else
		free(err);
	for (i = 0; i < nc; i++)
		free(configured[i]);
	for (i = 0; i < nw; i++)
		free(within[i]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return (0);
	if ((data[0] & 3) == 2)
		fuzz_narrow((const char *)data + 1, size - 1);
	else if ((data[0] & 1) == 0)
		fuzz_result((const char *)data + 1, size - 1);
	else
		fuzz_uris((const char *)data + 1, size - 1);
	return (0);
}
