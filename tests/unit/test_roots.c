/*
 * test_roots.c -- unit tests for the roots a client gives a server
 * (src/roots.c): what is kept of a client's roots/list result and in
 * which order, every refusal and its message, the limits at and past
 * their bound, the names the configured roots get, and when two sets are
 * the same; the path a root names, and the roots a client that may only
 * narrow keeps.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roots.h"
#include "sbuf.h"
#include "unit.h"
#include "util.h"
#include "xmalloc.h"

static int
parse(struct roots *r, const char *text, char **err)
{
	return (roots_from_result(r, text, strlen(text), err));
}

START_TEST(test_roots_result_kept)
{
	const char	*text = "{\"roots\":["
	    "{\"uri\":\"file:///b\",\"name\":\"B\",\"_meta\":{\"x\":1}},"
	    "{\"uri\":\"file:///a\",\"extra\":[1,2]},"
	    "{\"uri\":\"file:///b\",\"name\":\"second\"},"
	    "{\"name\":\"C\",\"uri\":\"file:///c\"},"
	    "{\"uri\":\"file:///d\",\"name\":null},"
	    "{\"uri\":\"file:///e\",\"name\":\"\"}"
	    "],\"_meta\":{\"y\":2}}\n";
	struct roots	 r;
	char		*err;

	ck_assert_int_eq(parse(&r, text, &err), 0);
	ck_assert_ptr_null(err);
	ck_assert_str_eq(r.result, "{\"roots\":["
	    "{\"uri\":\"file:///b\",\"name\":\"B\"},"
	    "{\"uri\":\"file:///a\"},"
	    "{\"uri\":\"file:///c\",\"name\":\"C\"},"
	    "{\"uri\":\"file:///d\"},"
	    "{\"uri\":\"file:///e\",\"name\":\"\"}]}");
	ck_assert_str_eq(r.key,
	    "file:///a\nfile:///b\nfile:///c\nfile:///d\nfile:///e\n");
	ck_assert_uint_eq(r.n, 5);
	roots_free(&r);
}
END_TEST

START_TEST(test_roots_result_empty)
{
	struct roots	 r;
	char		*err;

	ck_assert_int_eq(parse(&r, " {\"roots\": []} \r\n", &err), 0);
	ck_assert_str_eq(r.result, "{\"roots\":[]}");
	ck_assert_str_eq(r.key, "");
	ck_assert_uint_eq(r.n, 0);
	roots_free(&r);
}
END_TEST

/* Not NUL-terminated: only len bytes are read. */
START_TEST(test_roots_result_len)
{
	const char	 text[] =
	    "{\"roots\":[{\"uri\":\"file:///a\"}]}garbage";
	struct roots	 r;
	char		*err;

	ck_assert_int_eq(roots_from_result(&r, text, sizeof text - 8, &err),
	    0);
	ck_assert_str_eq(r.key, "file:///a\n");
	roots_free(&r);
	ck_assert_int_eq(roots_from_result(&r, text, sizeof text - 1, &err),
	    -1);
	ck_assert_str_eq(err, "not JSON");
	free(err);
}
END_TEST

/* Control characters and NULs in a name read '?'. */
START_TEST(test_roots_result_name_cleaned)
{
	const char	*text = "{\"roots\":[{\"uri\":\"file:///a\","
	    "\"name\":\"a\\tb\\u0000c\\u007fd\\u00e9\"}]}";
	struct roots	 r;
	char		*err;

	ck_assert_int_eq(parse(&r, text, &err), 0);
	ck_assert_str_eq(r.result, "{\"roots\":[{\"uri\":\"file:///a\","
	    "\"name\":\"a?b?c?d\xc3\xa9\"}]}");
	roots_free(&r);
}
END_TEST

/* An escaped backslash before "u0000" is not a NUL. */
START_TEST(test_roots_result_backslash)
{
	const char	*text = "{\"roots\":[{\"uri\":\"file:///a\\\\u0000\","
	    "\"name\":\"\\\\\\u0000\"}]}";
	struct roots	 r;
	char		*err;

	ck_assert_int_eq(parse(&r, text, &err), 0);
	ck_assert_str_eq(r.key, "file:///a\\u0000\n");
	ck_assert_str_eq(r.result,
	    "{\"roots\":[{\"uri\":\"file:///a\\\\u0000\","
	    "\"name\":\"\\\\?\"}]}");
	roots_free(&r);
}
END_TEST

static const struct {
	const char	*text;
	const char	*err;
} roots_bad[] = {
	{ "", "not JSON" },
	{ "roots", "not JSON" },
	{ "{\"roots\":[]", "not JSON" },
	{ "{\"roots\":[]} {}", "not JSON" },
	{ "{\"roots\":[]}\x11", "not JSON" },
	{ "{\"roots\":[]}\x7f", "not JSON" },
	{ "{\"roots\":[{\"uri\":\"file:///\\ud800\"}]}", "not JSON" },
	{ "[]", "result is not an object" },
	{ "\"roots\"", "result is not an object" },
	{ "null", "result is not an object" },
	{ "{}", "result has no roots array" },
	{ "{\"roots\":{}}", "result has no roots array" },
	{ "{\"roots\":null}", "result has no roots array" },
	{ "{\"Roots\":[]}", "result has no roots array" },
	{ "{\"roots\\u0000\":[]}", "result has no roots array" },
	{ "{\"roots\":[1]}", "roots[0] is not an object" },
	{ "{\"roots\":[{\"uri\":\"file:///a\"},[]]}",
	    "roots[1] is not an object" },
	{ "{\"roots\":[{\"uri\":\"file:///a\"},{\"name\":\"x\"}]}",
	    "roots[1] has no uri" },
	{ "{\"roots\":[{\"URI\":\"file:///a\"}]}", "roots[0] has no uri" },
	{ "{\"roots\":[{\"uri\\u0000\":\"file:///a\"}]}",
	    "roots[0] has no uri" },
	{ "{\"roots\":[{\"uri\":null}]}", "roots[0].uri is not a string" },
	{ "{\"roots\":[{\"uri\":7}]}", "roots[0].uri is not a string" },
	{ "{\"roots\":[{\"uri\":[\"file:///a\"]}]}",
	    "roots[0].uri is not a string" },
	{ "{\"roots\":[{\"uri\":\"\"}]}",
	    "roots[0].uri is not a file:// URI" },
	{ "{\"roots\":[{\"uri\":\"/home/u\"}]}",
	    "roots[0].uri is not a file:// URI" },
	{ "{\"roots\":[{\"uri\":\"https://example.com/\"}]}",
	    "roots[0].uri is not a file:// URI" },
	{ "{\"roots\":[{\"uri\":\"file:/a\"}]}",
	    "roots[0].uri is not a file:// URI" },
	{ "{\"roots\":[{\"uri\":\"file:///a\\nb\"}]}",
	    "roots[0].uri holds a control character or a NUL" },
	{ "{\"roots\":[{\"uri\":\"file:///a\\u001f\"}]}",
	    "roots[0].uri holds a control character or a NUL" },
	{ "{\"roots\":[{\"uri\":\"file:///a\\u007f\"}]}",
	    "roots[0].uri holds a control character or a NUL" },
	{ "{\"roots\":[{\"uri\":\"file:///a\"},"
	    "{\"uri\":\"file:///a\\u0000b\"}]}",
	    "roots[1].uri holds a control character or a NUL" },
	{ "{\"roots\":[{\"uri\":\"file:///a\x01\"}]}",
	    "roots[0].uri holds a control character or a NUL" },
	{ "{\"roots\":[{\"uri\":\"file:///a\",\"name\":1}]}",
	    "roots[0].name is not a string" },
	{ "{\"roots\":[{\"uri\":\"file:///a\",\"name\":{}}]}",
	    "roots[0].name is not a string" },
	{ "{\"roots\":[{\"uri\":\"file:///a\",\"name\":false}]}",
	    "roots[0].name is not a string" },
};

/* Every refusal names what is wrong and leaves *r as it was. */
START_TEST(test_roots_result_bad)
{
	struct roots	 r;
	char		*err;
	size_t		 i;

	for (i = 0; i < nitems(roots_bad); i++) {
		r.result = (char *)"untouched";
		r.key = NULL;
		r.n = 42;
		err = NULL;
		ck_assert_msg(parse(&r, roots_bad[i].text, &err) == -1,
		    "accepted: %s", roots_bad[i].text);
		ck_assert_ptr_nonnull(err);
		ck_assert_msg(strcmp(err, roots_bad[i].err) == 0,
		    "%s: \"%s\", not \"%s\"", roots_bad[i].text, err,
		    roots_bad[i].err);
		ck_assert_str_eq(r.result, "untouched");
		ck_assert_ptr_null(r.key);
		ck_assert_uint_eq(r.n, 42);
		free(err);
	}
}
END_TEST

START_TEST(test_roots_result_nul_byte)
{
	const char	 text[] = "{\"roots\":[]}\0";
	struct roots	 r;
	char		*err;

	ck_assert_int_eq(roots_from_result(&r, text, sizeof text, &err), -1);
	ck_assert_str_eq(err, "not JSON (it holds a NUL byte)");
	free(err);
}
END_TEST

/* {"roots":[ n roots, uri file:///rootI (or all the same) ]} */
static char *
many(size_t n, int same)
{
	struct sbuf	 b = { NULL, 0, 0 };
	char		 one[64];
	size_t		 i;

	sbuf_adds(&b, "{\"roots\":[");
	for (i = 0; i < n; i++) {
		snprintf(one, sizeof one, "%s{\"uri\":\"file:///root%zu\"}",
		    i > 0 ? "," : "", same ? 0 : i);
		sbuf_adds(&b, one);
	}
	sbuf_adds(&b, "]}");
	return (b.p);
}

START_TEST(test_roots_limit_count)
{
	struct roots	 r;
	char		*text, *err;

	text = many(ROOTS_MAX, 0);
	ck_assert_int_eq(parse(&r, text, &err), 0);
	ck_assert_uint_eq(r.n, ROOTS_MAX);
	/* Sorted as strings: root0, root1, root10, root100, ... */
	ck_assert(strncmp(r.key, "file:///root0\nfile:///root1\n"
	    "file:///root10\nfile:///root100\n", 58) == 0);
	roots_free(&r);
	free(text);

	text = many(ROOTS_MAX + 1, 0);
	ck_assert_int_eq(parse(&r, text, &err), -1);
	ck_assert_str_eq(err, "more than 256 roots");
	free(err);
	free(text);

	/* The bound is on what the client sent, duplicates included. */
	text = many(ROOTS_MAX + 1, 1);
	ck_assert_int_eq(parse(&r, text, &err), -1);
	ck_assert_str_eq(err, "more than 256 roots");
	free(err);
	free(text);
	text = many(ROOTS_MAX, 1);
	ck_assert_int_eq(parse(&r, text, &err), 0);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_str_eq(r.key, "file:///root0\n");
	ck_assert_str_eq(r.result, "{\"roots\":[{\"uri\":\"file:///root0\"}]}");
	roots_free(&r);
	free(text);
}
END_TEST

/* {"roots":[{"uri":"file:///xxx...","name":"yyy..."}]}, of these sizes. */
static char *
sized(size_t uri_len, size_t name_len)
{
	char	*uri, *name, *text;

	uri = xmalloc(uri_len + 1);
	memcpy(uri, "file:///", 8);
	memset(uri + 8, 'x', uri_len - 8);
	uri[uri_len] = '\0';
	name = xmalloc(name_len + 1);
	memset(name, 'y', name_len);
	name[name_len] = '\0';
	xasprintf(&text, "{\"roots\":[{\"uri\":\"%s\",\"name\":\"%s\"}]}",
	    uri, name);
	free(uri);
	free(name);
	return (text);
}

START_TEST(test_roots_limit_bytes)
{
	struct roots	 r;
	char		*text, *err;

	text = sized(ROOTS_URI_MAX, ROOTS_NAME_MAX);
	ck_assert_int_eq(parse(&r, text, &err), 0);
	ck_assert_uint_eq(strlen(r.key), ROOTS_URI_MAX + 1);
	ck_assert_uint_eq(r.n, 1);
	roots_free(&r);
	free(text);

	text = sized(ROOTS_URI_MAX + 1, 1);
	ck_assert_int_eq(parse(&r, text, &err), -1);
	ck_assert_str_eq(err, "roots[0].uri is longer than 4096 bytes");
	free(err);
	free(text);

	text = sized(9, ROOTS_NAME_MAX + 1);
	ck_assert_int_eq(parse(&r, text, &err), -1);
	ck_assert_str_eq(err, "roots[0].name is longer than 1024 bytes");
	free(err);
	free(text);

	/* "file://" alone is the shortest that passes. */
	ck_assert_int_eq(parse(&r, "{\"roots\":[{\"uri\":\"file://\"}]}",
	    &err), 0);
	ck_assert_str_eq(r.key, "file://\n");
	roots_free(&r);
}
END_TEST

/* The names router_roots_result gave the configured roots. */
START_TEST(test_roots_from_uris)
{
	char *const	 uris[] = {
		"file:///home/u/My%20Project",
		"file:///srv/src/",
		"file:///",
		"file:///a/b%00c%2Fd%zz%4",
		"file:///home/u/My%20Project",
		"file:///tmp/%C3%A9t%c3%a9",
	};
	struct roots	 r;

	roots_from_uris(&r, uris, nitems(uris));
	ck_assert_str_eq(r.result, "{\"roots\":["
	    "{\"uri\":\"file:///home/u/My%20Project\",\"name\":\"My Project\"},"
	    "{\"uri\":\"file:///srv/src/\"},"
	    "{\"uri\":\"file:///\"},"
	    "{\"uri\":\"file:///a/b%00c%2Fd%zz%4\",\"name\":\"b?c/d%zz%4\"},"
	    "{\"uri\":\"file:///tmp/%C3%A9t%c3%a9\","
	    "\"name\":\"\xc3\xa9t\xc3\xa9\"}"
	    "]}");
	ck_assert_str_eq(r.key, "file:///\nfile:///a/b%00c%2Fd%zz%4\n"
	    "file:///home/u/My%20Project\nfile:///srv/src/\n"
	    "file:///tmp/%C3%A9t%c3%a9\n");
	ck_assert_uint_eq(r.n, 5);
	roots_free(&r);

	roots_from_uris(&r, NULL, 0);
	ck_assert_str_eq(r.result, "{\"roots\":[]}");
	ck_assert_str_eq(r.key, "");
	ck_assert_uint_eq(r.n, 0);
	roots_free(&r);
}
END_TEST

START_TEST(test_roots_equal)
{
	char *const	 conf[] = { "file:///b", "file:///a" };
	char *const	 conf_other[] = { "file:///b", "file:///c" };
	struct roots	 a, b, c, d, e, zero, none;
	char		*err;

	ck_assert_int_eq(parse(&a, "{\"roots\":[{\"uri\":\"file:///a\","
	    "\"name\":\"one\"},{\"uri\":\"file:///b\"}]}", &err), 0);
	ck_assert_int_eq(parse(&b, "{\"roots\":[{\"uri\":\"file:///b\","
	    "\"name\":\"two\"},{\"uri\":\"file:///a\"},"
	    "{\"uri\":\"file:///b\"}]}", &err), 0);
	ck_assert_int_eq(parse(&c, "{\"roots\":[{\"uri\":\"file:///a\"}]}",
	    &err), 0);
	roots_from_uris(&d, conf, nitems(conf));
	roots_from_uris(&e, conf_other, nitems(conf_other));
	ck_assert_int_eq(parse(&none, "{\"roots\":[]}", &err), 0);
	memset(&zero, 0, sizeof zero);

	/* Order, names and duplicates do not count; the uris do. */
	ck_assert_str_ne(a.result, b.result);
	ck_assert(roots_equal(&a, &b));
	ck_assert(roots_equal(&b, &a));
	ck_assert(roots_equal(&a, &d));
	ck_assert(!roots_equal(&a, &c));
	ck_assert(!roots_equal(&c, &a));
	ck_assert(!roots_equal(&d, &e));
	ck_assert(!roots_equal(&a, &none));
	/* No roots given and none read are the same set. */
	ck_assert(roots_equal(&none, &zero));
	ck_assert(roots_equal(&zero, &zero));
	/* A prefix of a uri is another uri. */
	roots_free(&c);
	ck_assert_int_eq(parse(&c, "{\"roots\":[{\"uri\":\"file:///a\"},"
	    "{\"uri\":\"file:///bb\"}]}", &err), 0);
	ck_assert(!roots_equal(&a, &c));

	roots_free(&a);
	roots_free(&b);
	roots_free(&c);
	roots_free(&d);
	roots_free(&e);
	roots_free(&none);
}
END_TEST

START_TEST(test_roots_copy_free)
{
	struct roots	 a, b, zero;
	char		*err;

	ck_assert_int_eq(parse(&a, "{\"roots\":[{\"uri\":\"file:///b\","
	    "\"name\":\"B\"},{\"uri\":\"file:///a\"}]}", &err), 0);
	roots_copy(&b, &a);
	ck_assert_ptr_ne(b.result, a.result);
	ck_assert_ptr_ne(b.key, a.key);
	ck_assert_str_eq(b.result, a.result);
	ck_assert_str_eq(b.key, a.key);
	ck_assert_uint_eq(b.n, 2);
	ck_assert(roots_equal(&a, &b));
	roots_free(&a);
	ck_assert_ptr_null(a.result);
	ck_assert_ptr_null(a.key);
	ck_assert_uint_eq(a.n, 0);
	/* The copy outlives the original. */
	ck_assert_str_eq(b.key, "file:///a\nfile:///b\n");
	roots_free(&b);
	roots_free(&b);

	memset(&zero, 0, sizeof zero);
	roots_copy(&a, &zero);
	ck_assert_ptr_null(a.result);
	ck_assert_ptr_null(a.key);
	ck_assert_uint_eq(a.n, 0);
	roots_free(&a);
}
END_TEST

START_TEST(test_roots_uris_json)
{
	struct roots	 r, zero;
	cJSON		*j;
	char		*s, *err;

	ck_assert_int_eq(parse(&r, "{\"roots\":[{\"uri\":\"file:///b\"},"
	    "{\"uri\":\"file:///a%20b\",\"name\":\"x\"}]}", &err), 0);
	j = roots_uris_json(&r);
	s = cJSON_PrintUnformatted(j);
	ck_assert_str_eq(s, "[\"file:///a%20b\",\"file:///b\"]");
	free(s);
	cJSON_Delete(j);
	roots_free(&r);

	memset(&zero, 0, sizeof zero);
	j = roots_uris_json(&zero);
	ck_assert_int_eq(cJSON_GetArraySize(j), 0);
	cJSON_Delete(j);
}
END_TEST

/* Every spelling of one directory names one path; what is not a path. */
START_TEST(test_roots_uri_path)
{
	static const struct {
		const char	*uri;
		const char	*path;		/* NULL: refused */
		const char	*why;
	} cases[] = {
		{ "file:///etc", "/etc", NULL },
		{ "file:///etc/", "/etc", NULL },
		{ "file:///", "/", NULL },
		{ "file://", NULL, "no path" },
		{ "file://localhost/etc", "/etc", NULL },
		{ "file://LocalHost/etc", "/etc", NULL },
		{ "FILE:///etc", "/etc", NULL },
		{ "File://localhost/etc", "/etc", NULL },
		{ "file:///%65tc/shadow", "/etc/shadow", NULL },
		{ "file:///tmp/../etc/shadow", "/etc/shadow", NULL },
		{ "file:///tmp/%2E%2e/etc", "/etc", NULL },
		{ "file:///../../etc", "/etc", NULL },
		{ "file:///srv/./a//b/.", "/srv/a/b", NULL },
		{ "file:///srv/a/..", "/srv", NULL },
		{ "file:///srv/..", "/", NULL },
		{ "file:///srv/...", "/srv/...", NULL },
		{ "file:///srv/.a/..b", "/srv/.a/..b", NULL },
		{ "file:///My%20Project", "/My Project", NULL },
		{ "file:///a%0Ab", "/a\nb", NULL },
		{ "file://example.com/etc", NULL,
		    "a host other than localhost" },
		{ "file://localhost:80/etc", NULL,
		    "a host other than localhost" },
		{ "file://user@localhost/etc", NULL,
		    "a host other than localhost" },
		{ "file://%6Cocalhost/etc", "/etc", NULL },
		{ "file:///etc?x", NULL, "a query or a fragment" },
		{ "file:///etc#x", NULL, "a query or a fragment" },
		{ "file:///tmp%2F..%2Fetc", NULL, "an encoded '/'" },
		{ "file:///tmp%2f", NULL, "an encoded '/'" },
		{ "file:///etc%00", NULL, "an encoded NUL" },
		{ "file:///tmp\\..\\etc", NULL, "a backslash" },
		{ "file:///tmp%5C..%5cetc", NULL, "an encoded backslash" },
		{ "file:///a%zz", NULL, "a '%' not followed by two hex digits" },
		{ "file:///a%4", NULL, "a '%' not followed by two hex digits" },
		{ "file:///a%", NULL, "a '%' not followed by two hex digits" },
		{ "http://h/etc", NULL, "not a file:// URI" },
		{ "http:///etc", NULL, "no \"//\" and host" },
		{ "file:/etc", "/etc", NULL },
	};
	const char	*why;
	char		*path;
	size_t		 i;

	for (i = 0; i < nitems(cases); i++) {
		why = NULL;
		path = roots_uri_path(cases[i].uri, &why);
		if (cases[i].path == NULL) {
			ck_assert_msg(path == NULL, "%s: %s", cases[i].uri,
			    path);
			/* The reason begins as urinorm's or roots' says. */
			ck_assert_msg(why != NULL && strncmp(why, cases[i].why,
			    strlen(cases[i].why)) == 0, "%s: %s", cases[i].uri,
			    why);
		} else {
			ck_assert_msg(path != NULL, "%s: %s", cases[i].uri,
			    why);
			ck_assert_str_eq(path, cases[i].path);
		}
		free(path);
	}
}
END_TEST

START_TEST(test_roots_path_uri)
{
	const char	*why;
	char		*uri, *path;

	uri = roots_path_uri("/srv/My Project/\xc3\xa9-._~%?#\\");
	ck_assert_str_eq(uri,
	    "file:///srv/My%20Project/%C3%A9-._~%25%3F%23%5C");
	free(uri);
	/* Back to the path, but for the backslash a path may hold. */
	uri = roots_path_uri("/a b/%/\n");
	path = roots_uri_path(uri, &why);
	ck_assert_str_eq(path, "/a b/%/\n");
	free(path);
	free(uri);
}
END_TEST

START_TEST(test_roots_path_within)
{
	ck_assert(roots_path_within("/srv/p", "/srv/p"));
	ck_assert(roots_path_within("/srv/p/a/b", "/srv/p"));
	ck_assert(!roots_path_within("/srv/pp", "/srv/p"));
	ck_assert(!roots_path_within("/srv", "/srv/p"));
	ck_assert(!roots_path_within("/etc", "/srv/p"));
	ck_assert(roots_path_within("/etc", "/"));
	ck_assert(roots_path_within("/", "/"));
}
END_TEST

/* A member's roots: configured ones kept as written, others by path. */
START_TEST(test_roots_narrow)
{
	char *const	 configured[] = { "file:///srv/Pub%6cic", "file:///w" };
	char *const	 within[] = { "file:///home/shared/", "file:///bad%" };
	struct roots	 in, out;
	char		*err, *refused;

	ck_assert_int_eq(parse(&in, "{\"roots\":["
	    "{\"uri\":\"file:///root\",\"name\":\"r\"},"
	    "{\"uri\":\"file:///srv/Public/\",\"name\":\"pub\"},"
	    "{\"uri\":\"file:///home/shared/p/../q\",\"name\":\"q\"},"
	    "{\"uri\":\"file://localhost/home/shared/a%20b\"},"
	    "{\"uri\":\"file:///home/shared/../../root\"},"
	    "{\"uri\":\"file:///home/sharedx\"},"
	    "{\"uri\":\"file:///w/sub\"},"
	    "{\"uri\":\"file:///home/shared%2F..%2F..%2Froot\"},"
	    "{\"uri\":\"file:///home/shared/q\",\"name\":\"again\"}"
	    "]}", &err), 0);
	ck_assert_uint_eq(roots_narrow(&out, &in, configured,
	    nitems(configured), within, nitems(within), &refused), 5);
	ck_assert_str_eq(refused, "file:///root: neither one of the "
	    "server's roots nor within its member_roots");
	free(refused);
	ck_assert_str_eq(out.result, "{\"roots\":["
	    "{\"uri\":\"file:///srv/Pub%6cic\",\"name\":\"pub\"},"
	    "{\"uri\":\"file:///home/shared/q\",\"name\":\"q\"},"
	    "{\"uri\":\"file:///home/shared/a%20b\"}]}");
	ck_assert_uint_eq(out.n, 3);
	roots_free(&out);

	/* Nothing configured: nothing a member may choose. */
	ck_assert_uint_eq(roots_narrow(&out, &in, NULL, 0, NULL, 0,
	    &refused), 9);
	ck_assert_uint_eq(out.n, 0);
	ck_assert_str_eq(out.result, "{\"roots\":[]}");
	free(refused);
	roots_free(&out);
	roots_free(&in);

	/* Everything allowed: none refused, no message. */
	ck_assert_int_eq(parse(&in, "{\"roots\":[{\"uri\":\"file:///w\"}]}",
	    &err), 0);
	ck_assert_uint_eq(roots_narrow(&out, &in, configured,
	    nitems(configured), NULL, 0, &refused), 0);
	ck_assert_ptr_null(refused);
	ck_assert(roots_equal(&out, &in));
	roots_free(&out);
	roots_free(&in);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("roots");
	tc = tcase_create("roots");
	tcase_add_test(tc, test_roots_result_kept);
	tcase_add_test(tc, test_roots_result_empty);
	tcase_add_test(tc, test_roots_result_len);
	tcase_add_test(tc, test_roots_result_name_cleaned);
	tcase_add_test(tc, test_roots_result_backslash);
	tcase_add_test(tc, test_roots_result_bad);
	tcase_add_test(tc, test_roots_result_nul_byte);
	tcase_add_test(tc, test_roots_limit_count);
	tcase_add_test(tc, test_roots_limit_bytes);
	tcase_add_test(tc, test_roots_from_uris);
	tcase_add_test(tc, test_roots_equal);
	tcase_add_test(tc, test_roots_copy_free);
	tcase_add_test(tc, test_roots_uris_json);
	tcase_add_test(tc, test_roots_uri_path);
	tcase_add_test(tc, test_roots_path_uri);
	tcase_add_test(tc, test_roots_path_within);
	tcase_add_test(tc, test_roots_narrow);
	suite_add_tcase(s, tc);
	return (s);
}
