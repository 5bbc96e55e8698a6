/*
 * test_urinorm.c -- unit tests for resource URIs in their normal form
 * (urinorm.c): the spellings a server reads as one name become one, what
 * cannot be judged is refused with its reason, the normal form is its own
 * normal form and grows by at most URINORM_GROWTH_BYTES; and the resource
 * patterns that could never match a normal form are named.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "urinorm.h"
#include "util.h"
#include "xmalloc.h"

/* uri's normal form, which must exist and be its own. */
static void
normal(const char *uri, const char *want)
{
	const char	*why = NULL;
	char		*out, *again;
	ssize_t		 n;

	out = xmalloc(strlen(uri) + URINORM_GROWTH_BYTES + 1);
	n = urinorm(uri, out, &why);
	ck_assert_msg(n >= 0, "%s refused: %s", uri, why);
	ck_assert_msg(strcmp(out, want) == 0, "%s: got \"%s\", want \"%s\"",
	    uri, out, want);
	ck_assert_uint_eq((size_t)n, strlen(out));
	ck_assert_uint_le((size_t)n, strlen(uri) + URINORM_GROWTH_BYTES);
	again = xmalloc((size_t)n + URINORM_GROWTH_BYTES + 1);
	ck_assert_int_eq(urinorm(out, again, &why), n);
	ck_assert_msg(strcmp(again, out) == 0, "%s is not its own normal "
	    "form: %s", out, again);
	free(again);
	free(out);
}

/* uri has no normal form, for a reason that says because. */
static void
refused(const char *uri, const char *because)
{
	const char	*why = NULL;
	char		*out;

	out = xmalloc(strlen(uri) + URINORM_GROWTH_BYTES + 1);
	ck_assert_msg(urinorm(uri, out, &why) == -1, "%s accepted as %s",
	    uri, out);
	ck_assert_ptr_nonnull(why);
	ck_assert_msg(strstr(why, because) != NULL, "%s refused for \"%s\", "
	    "not for \"%s\"", uri, why, because);
	free(out);
}

START_TEST(test_file_spellings)
{
	/* The four of the issue, and more a server reads alike. */
	normal("file:///etc/shadow", "file:///etc/shadow");
	normal("file:///tmp/../etc/shadow", "file:///etc/shadow");
	normal("file:///%65tc/shadow", "file:///etc/shadow");
	normal("FILE:///etc/shadow", "file:///etc/shadow");
	normal("file://localhost/etc/shadow", "file:///etc/shadow");
	normal("file://LOCALHOST/etc/shadow", "file:///etc/shadow");
	normal("file://%6Cocalhost/etc/shadow", "file:///etc/shadow");
	normal("file:/etc/shadow", "file:///etc/shadow");
	normal("file:////etc//shadow", "file:///etc/shadow");
	normal("file:///%2E%2E/etc/./shadow", "file:///etc/shadow");
	normal("file:///.%2e/etc/shadow", "file:///etc/shadow");
	normal("fIlE:/a/b/../../../etc/shadow", "file:///etc/shadow");
	/* Directories keep their '/'. */
	normal("file:///etc/", "file:///etc/");
	normal("file:///etc/.", "file:///etc/");
	normal("file:///etc/..", "file:///");
	normal("file:///..", "file:///");
	normal("file:///", "file:///");
}
END_TEST

START_TEST(test_file_decoded)
{
	/* Paths are compared decoded: bytes as the kernel sees them. */
	normal("file:///tmp/a%20b", "file:///tmp/a b");
	normal("file:///tmp/a b", "file:///tmp/a b");
	normal("file:///tmp/%C3%A9t%c3%a9", "file:///tmp/\xc3\xa9t\xc3\xa9");
	/* What would read otherwise stays encoded, in upper case. */
	normal("file:///tmp/x%3fy%23z", "file:///tmp/x%3Fy%23z");
	normal("file:///tmp/100%25", "file:///tmp/100%25");
	normal("file:///tmp/a%0Ab%7f", "file:///tmp/a%0Ab%7F");
	normal("file:///tmp/a%20", "file:///tmp/a%20");
	normal("file:///tmp/a%20/", "file:///tmp/a /");
	normal("file:///tmp/%20a%20%20", "file:///tmp/ a %20");
	/* A template is left as it is but for what it shares with URIs. */
	normal("file:///{+path}", "file:///{+path}");
	normal("file:///tmp/../etc/{name}", "file:///etc/{name}");
}
END_TEST

START_TEST(test_file_refused)
{
	refused("file:///etc%2Fshadow", "encoded '/'");
	refused("file:///etc%2fshadow", "encoded '/'");
	refused("file:///etc/shadow%00.txt", "encoded NUL");
	refused("file:///tmp/..%5Cetc", "encoded backslash");
	refused("file:///tmp\\..\\etc\\shadow", "backslash");
	refused("file://evil/etc/shadow", "host other than localhost");
	refused("file://127.0.0.1/etc/shadow", "host other than localhost");
	refused("file://user@localhost/etc", "host other than localhost");
	refused("file://localhost:80/etc", "host other than localhost");
	refused("file:etc/shadow", "relative path");
	refused("file:", "no path");
	refused("file://localhost", "no path");
	refused("file://", "no path");
	refused("file:///etc/shadow?x", "query or a fragment");
	refused("file:///tmp/x?/../../etc/shadow", "query or a fragment");
	refused("file:///etc/shadow#x", "query or a fragment");
	refused("file:///%zz", "'%' not followed by two hex digits");
	refused("file:///%4", "'%' not followed by two hex digits");
	refused("file:///etc/shadow ", "trailing space");
	refused("file:///etc/sha\tdow", "control character");
	refused("file:///etc/sha\ndow", "control character");
	refused("file:///etc/\x7f", "control character");
}
END_TEST

START_TEST(test_generic)
{
	normal("HTTP://Example.COM:80/a/./b/../c?Q=%7e%2f#F%41",
	    "http://example.com/a/c?Q=~%2F#FA");
	normal("https://h:443", "https://h/");
	normal("https://h:0443/x", "https://h/x");
	normal("https://h:8443/x", "https://h:8443/x");
	normal("https://h:/x", "https://h/x");
	normal("wss://H:443?x", "wss://h/?x");
	normal("demo://resource/dynamic/text/1/../../blob/1",
	    "demo://resource/dynamic/blob/1");
	normal("demo://resource/dynamic/text/%2E%2E/blob/1",
	    "demo://resource/dynamic/blob/1");
	normal("demo://resource/dynamic/text/1/%2e%2e/../blob/1",
	    "demo://resource/dynamic/blob/1");
	normal("demo://r/a%2fb", "demo://r/a%2Fb");
	normal("demo://User%41@HOST%41:/x", "demo://UserA@hosta/x");
	normal("demo://h:080/x", "demo://h:80/x");
	normal("demo://[FE80::1]:99/", "demo://[fe80::1]:99/");
	normal("demo://h", "demo://h");
	normal("demo://h/a//b", "demo://h/a//b");
	normal("demo://h/a/b/..", "demo://h/a/");
	normal("demo:/a/./b", "demo:/a/b");
	/* An opaque path has no dot segments. */
	normal("urn:a/../b", "urn:a/../b");
	normal("mailto:A@B.c", "mailto:A@B.c");
	normal("x-y+z.w:abc", "x-y+z.w:abc");
	/* Templates: braces are left alone. */
	normal("demo://resource/dynamic/blob/{resourceId}",
	    "demo://resource/dynamic/blob/{resourceId}");
	/* Outside RFC 3986, left as written. */
	normal("demo://h/a b/\xc3\xa9", "demo://h/a b/\xc3\xa9");
}
END_TEST

START_TEST(test_generic_refused)
{
	refused("", "no scheme");
	refused("/etc/shadow", "no scheme");
	refused(" file:///etc/shadow", "no scheme");
	refused("1a:x", "no scheme");
	refused("a_b:x", "no scheme");
	refused("noscheme", "no scheme");
	refused("https://h/a\\..\\b", "backslash");
	refused("ws://h\\x", "backslash");
	refused("https:example.com/x", "\"//\" and host");
	refused("https:/example.com/x", "\"//\" and host");
	refused("http:///x", "\"//\" and host");
	refused("demo://a@b@c/", "two '@'");
	refused("demo://h:8x/", "port that is not a number");
	refused("demo://[fe80::1/", "without ']'");
	refused("demo://[::1]x/", "after the host's ']'");
	refused("demo://h/%", "'%' not followed");
	refused("demo://h/?%g0", "'%' not followed");
	refused("demo://%zz/", "'%' not followed");
	refused("demo://h/\r", "control character");
}
END_TEST

START_TEST(test_growth)
{
	normal("file:/", "file:///");
	normal("file:/x", "file:///x");
	normal("http://h", "http://h/");
}
END_TEST

START_TEST(test_patterns)
{
	static const char *fine[] = {
		"file:///etc/*", "*", "*/features.md", "file:*", "file:/*",
		"demo://resource/static/document/*.md", "file:///tmp/[%]20",
		"https://example.com/*", "https://example.com:8443/*",
		"demo://h/a%2Fb", "file:///home/*/.ssh/*", "file:///etc",
		"file:///etc/", "demo://User@host/*", "urn:a/../b",
		"file:///*/../*", "demo://h/a\\%41", "FILE*", "[Ff]ile:///*",
		"file:///tmp/100%25", "file:///tmp/a%3F*", "file:///a b/*",
		"file:///tmp/x%20",
	};
	static const struct {
		const char	*pattern;
		const char	*because;
	} bad[] = {
		{ "FILE:///etc/*", "scheme must be in lower case" },
		{ "File:*", "scheme must be in lower case" },
		{ "file://localhost/etc/*", "file:///PATH" },
		{ "file:/etc/*", "file:///PATH" },
		{ "file:etc*", "file:///PATH" },
		{ "file:///tmp/a%20b", "path decoded" },
		{ "file:///*%2e*", "path decoded" },
		{ "file:///tmp/%3f", "upper-case hex" },
		{ "file:///tmp/a ", "ends its path" },
		{ "file:///tmp/../etc/*", "'..' in its path resolved" },
		{ "file:///etc/.", "'..' in its path resolved" },
		{ "file:///etc/./*", "'..' in its path resolved" },
		{ "file:///etc//x*", "\"//\"" },
		{ "demo://HOST/*", "host must be in lower case" },
		{ "demo://h/%41*", "unreserved character" },
		{ "demo://h/%2f*", "upper-case hex" },
		{ "*%7e", NULL },
		{ "https://h:443/*", "default port" },
		{ "https://h:443", "default port" },
		{ "https:h/*", "SCHEME://HOST" },
		{ "demo://h/a/./b*", "dot segments" },
		{ "demo://h/a/..", "dot segments" },
		/* Without a glob, exactly: it must be its own normal form. */
		{ "demo://h:080/x", "never matches" },
		{ "demo://h:/x", "never matches" },
		{ "https://h", "never matches" },
		{ "file:///etc%2Fshadow", "path decoded" },
		{ "file:///tmp/a#b", "never matches" },
	};
	size_t	 i;
	const char *why;

	for (i = 0; i < nitems(fine); i++)
		ck_assert_msg(urinorm_pattern_error(fine[i]) == NULL,
		    "%s refused: %s", fine[i], urinorm_pattern_error(fine[i]));
	for (i = 0; i < nitems(bad); i++) {
		why = urinorm_pattern_error(bad[i].pattern);
		if (bad[i].because == NULL) {
			/* No scheme: nothing to say. */
			ck_assert_msg(why == NULL, "%s refused: %s",
			    bad[i].pattern, why);
			continue;
		}
		ck_assert_msg(why != NULL, "%s accepted", bad[i].pattern);
		ck_assert_msg(strstr(why, bad[i].because) != NULL,
		    "%s refused for \"%s\", not for \"%s\"", bad[i].pattern,
		    why, bad[i].because);
	}
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("urinorm");
	tc = tcase_create("normal form");
	tcase_add_test(tc, test_file_spellings);
	tcase_add_test(tc, test_file_decoded);
	tcase_add_test(tc, test_file_refused);
	tcase_add_test(tc, test_generic);
	tcase_add_test(tc, test_generic_refused);
	tcase_add_test(tc, test_growth);
	suite_add_tcase(s, tc);
	tc = tcase_create("patterns");
	tcase_add_test(tc, test_patterns);
	suite_add_tcase(s, tc);
	return (s);
}
