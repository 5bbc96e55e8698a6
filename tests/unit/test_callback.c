/*
 * test_callback.c -- unit tests for the pure parts of `mcpctl login`
 * (clients/callback.c): the redirect's query, the browser's request head,
 * a pasted address, HTML escaping and the page.
 */

#include "config.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callback.h"
#include "unit.h"

#define S(lit)	(lit), sizeof (lit) - 1

/* s equals want, both possibly NULL. */
static void
assert_member(const char *what, const char *s, const char *want)
{
	if (want == NULL)
		ck_assert_msg(s == NULL, "%s: got \"%s\", want none", what, s);
	else {
		ck_assert_msg(s != NULL, "%s: got none, want \"%s\"", what,
		    want);
		ck_assert_msg(strcmp(s, want) == 0, "%s: got \"%s\", want "
		    "\"%s\"", what, s, want);
	}
}

static void
assert_cb(const struct callback *cb, const char *code, const char *state,
    const char *error, const char *desc)
{
	assert_member("code", cb->code, code);
	assert_member("state", cb->state, state);
	assert_member("error", cb->error, error);
	assert_member("error_description", cb->error_description, desc);
}

START_TEST(test_query_code)
{
	struct callback	 cb;

	memset(&cb, 0, sizeof cb);
	ck_assert_int_eq(callback_query(S("code=abc&state=xyz"), &cb),
	    CALLBACK_RESULT);
	assert_cb(&cb, "abc", "xyz", NULL, NULL);
	callback_clear(&cb);

	/* Other members are ignored; order does not matter. */
	ck_assert_int_eq(callback_query(S("iss=https%3A%2F%2Fa&state=s&"
	    "session_state=q&code=c"), &cb), CALLBACK_RESULT);
	assert_cb(&cb, "c", "s", NULL, NULL);
	callback_clear(&cb);

	/* Empty pieces are skipped; a member without '=' is empty. */
	ck_assert_int_eq(callback_query(S("&&code=c&&=x&state"), &cb),
	    CALLBACK_RESULT);
	assert_cb(&cb, "c", "", NULL, NULL);
	callback_clear(&cb);
}
END_TEST

START_TEST(test_query_decoding)
{
	struct callback	 cb;

	memset(&cb, 0, sizeof cb);
	/* '+' is a space, %XX a byte in either case; names decode too. */
	ck_assert_int_eq(callback_query(S("c%6Fde=a+b%2Bc%2fd&state=%e2%82"
	    "%AC"), &cb), CALLBACK_RESULT);
	assert_cb(&cb, "a b+c/d", "\xe2\x82\xac", NULL, NULL);
	callback_clear(&cb);

	/* A '%' without two hex digits stays as it is. */
	ck_assert_int_eq(callback_query(S("code=100%&state=%zz%4"), &cb),
	    CALLBACK_RESULT);
	assert_cb(&cb, "100%", "%zz%4", NULL, NULL);
	callback_clear(&cb);

	/* The length bounds the query, not a NUL. */
	ck_assert_int_eq(callback_query("code=abcdef", 8, &cb),
	    CALLBACK_RESULT);
	assert_cb(&cb, "abc", NULL, NULL, NULL);
	callback_clear(&cb);
}
END_TEST

START_TEST(test_query_error)
{
	struct callback	 cb;

	memset(&cb, 0, sizeof cb);
	ck_assert_int_eq(callback_query(S("error=access_denied&"
	    "error_description=The+user+said+no&state=s"), &cb),
	    CALLBACK_RESULT);
	assert_cb(&cb, NULL, "s", "access_denied", "The user said no");
	callback_clear(&cb);

	/* An error wins over a code that came with it. */
	ck_assert_int_eq(callback_query(S("code=c&error=server_error"), &cb),
	    CALLBACK_RESULT);
	ck_assert_str_eq(cb.error, "server_error");
	callback_clear(&cb);
}
END_TEST

START_TEST(test_query_empty_and_bad)
{
	struct callback	 cb;

	memset(&cb, 0, sizeof cb);
	ck_assert_int_eq(callback_query(S(""), &cb), CALLBACK_EMPTY);
	ck_assert_int_eq(callback_query(S("state=s&foo=bar"), &cb),
	    CALLBACK_EMPTY);
	assert_cb(&cb, NULL, "s", NULL, NULL);
	callback_clear(&cb);
	ck_assert_int_eq(callback_query(S("code=&state=s"), &cb),
	    CALLBACK_EMPTY);
	callback_clear(&cb);
	ck_assert_int_eq(callback_query(S("error=&code="), &cb),
	    CALLBACK_EMPTY);
	callback_clear(&cb);

	/* A member twice, even with the same value, makes it bad. */
	ck_assert_int_eq(callback_query(S("code=a&state=s&code=a"), &cb),
	    CALLBACK_BAD);
	assert_cb(&cb, NULL, NULL, NULL, NULL);
	ck_assert_int_eq(callback_query(S("state=s&st%61te=t&code=c"), &cb),
	    CALLBACK_BAD);
	/* A NUL, in a value or a name, is not cut at. */
	ck_assert_int_eq(callback_query(S("code=abc%00def&state=s"), &cb),
	    CALLBACK_BAD);
	assert_cb(&cb, NULL, NULL, NULL, NULL);
	ck_assert_int_eq(callback_query(S("code%00=x&code=c"), &cb),
	    CALLBACK_BAD);
	/* In a member that is ignored, it does not matter. */
	ck_assert_int_eq(callback_query(S("x=%00&code=c"), &cb),
	    CALLBACK_RESULT);
	callback_clear(&cb);
	/* Repeats of other members do not matter. */
	ck_assert_int_eq(callback_query(S("x=1&x=2&code=c"), &cb),
	    CALLBACK_RESULT);
	callback_clear(&cb);
}
END_TEST

START_TEST(test_head_end)
{
	ck_assert_uint_eq(callback_head_end(S("GET / HTTP/1.1\r\nHost: a\r\n"
	    "\r\n")), 27);
	ck_assert_uint_eq(callback_head_end(S("GET / HTTP/1.1\r\nHost: a\r\n"
	    "\r\nbody")), 27);
	ck_assert_uint_eq(callback_head_end(S("GET / HTTP/1.1\nHost: a\n\n")),
	    24);
	ck_assert_uint_eq(callback_head_end(S("GET / HTTP/1.1\r\nHost: a\r\n")),
	    0);
	ck_assert_uint_eq(callback_head_end(S("GET / HTTP/1.1\r\nHost: a\r\n"
	    "\r")), 0);
	ck_assert_uint_eq(callback_head_end(S("")), 0);
}
END_TEST

START_TEST(test_request)
{
	struct callback	 cb;

	memset(&cb, 0, sizeof cb);
	ck_assert_int_eq(callback_request(S("GET /callback?code=c&state=s "
	    "HTTP/1.1\r\nHost: 127.0.0.1:4242\r\n\r\n"), &cb),
	    CALLBACK_RESULT);
	assert_cb(&cb, "c", "s", NULL, NULL);
	callback_clear(&cb);
	ck_assert_int_eq(callback_request(S("GET /callback?error=x HTTP/1.0"
	    "\n\n"), &cb), CALLBACK_RESULT);
	assert_cb(&cb, NULL, NULL, "x", NULL);
	callback_clear(&cb);
	ck_assert_int_eq(callback_request(S("GET /callback HTTP/1.1\r\n\r\n"),
	    &cb), CALLBACK_EMPTY);
	ck_assert_int_eq(callback_request(S("GET /callback? HTTP/1.1\r\n\r\n"),
	    &cb), CALLBACK_EMPTY);
	ck_assert_int_eq(callback_request(S("GET /callback?code=a&code=b "
	    "HTTP/1.1\r\n\r\n"), &cb), CALLBACK_BAD);

	/* The start page, with a query or not; nothing else starts. */
	ck_assert_int_eq(callback_request(S("GET /start HTTP/1.1\r\n\r\n"),
	    &cb), CALLBACK_START);
	ck_assert_int_eq(callback_request(S("GET /start?x=1 HTTP/1.1\r\n"
	    "\r\n"), &cb), CALLBACK_START);
	assert_cb(&cb, NULL, NULL, NULL, NULL);
	ck_assert_int_eq(callback_request(S("GET /startx HTTP/1.1\r\n\r\n"),
	    &cb), CALLBACK_OTHER);
	ck_assert_int_eq(callback_request(S("GET /start/ HTTP/1.1\r\n\r\n"),
	    &cb), CALLBACK_OTHER);
	ck_assert_int_eq(callback_request(S("POST /start HTTP/1.1\r\n\r\n"),
	    &cb), CALLBACK_OTHER);

	/* Anything else is another page. */
	ck_assert_int_eq(callback_request(S("GET /favicon.ico HTTP/1.1\r\n"
	    "\r\n"), &cb), CALLBACK_OTHER);
	ck_assert_int_eq(callback_request(S("POST /callback?code=c HTTP/1.1"
	    "\r\n\r\n"), &cb), CALLBACK_OTHER);
	ck_assert_int_eq(callback_request(S("HEAD /callback?code=c HTTP/1.1"
	    "\r\n\r\n"), &cb), CALLBACK_OTHER);
	ck_assert_int_eq(callback_request(S("get /callback?code=c HTTP/1.1"
	    "\r\n\r\n"), &cb), CALLBACK_OTHER);
	ck_assert_int_eq(callback_request(S("GET /callback/?code=c HTTP/1.1"
	    "\r\n\r\n"), &cb), CALLBACK_OTHER);
	ck_assert_int_eq(callback_request(S("GET /callbackx?code=c HTTP/1.1"
	    "\r\n\r\n"), &cb), CALLBACK_OTHER);
	ck_assert_int_eq(callback_request(S("GET /call HTTP/1.1\r\n\r\n"),
	    &cb), CALLBACK_OTHER);
	ck_assert_int_eq(callback_request(S("GET http://127.0.0.1/callback?"
	    "code=c HTTP/1.1\r\n\r\n"), &cb), CALLBACK_OTHER);
	/* HTTP/0.9, and no request line at all. */
	ck_assert_int_eq(callback_request(S("GET /callback?code=c\r\n\r\n"),
	    &cb), CALLBACK_OTHER);
	ck_assert_int_eq(callback_request(S("GET /callback?code=c FTP/1\r\n"
	    "\r\n"), &cb), CALLBACK_OTHER);
	ck_assert_int_eq(callback_request(S("GET /callback?code=c HTTP/1.1"),
	    &cb), CALLBACK_OTHER);
	ck_assert_int_eq(callback_request(S("\r\n\r\n"), &cb), CALLBACK_OTHER);
	ck_assert_int_eq(callback_request(S(""), &cb), CALLBACK_OTHER);
	assert_cb(&cb, NULL, NULL, NULL, NULL);
}
END_TEST

START_TEST(test_url)
{
	struct callback	 cb;

	memset(&cb, 0, sizeof cb);
	ck_assert_int_eq(callback_url("http://127.0.0.1:4242/callback?code=c&"
	    "state=s", &cb), CALLBACK_RESULT);
	assert_cb(&cb, "c", "s", NULL, NULL);
	callback_clear(&cb);
	/* Blanks around it, a fragment, any host and path, HTTPS. */
	ck_assert_int_eq(callback_url("  \tHTTPS://app.example/done?state=s&"
	    "code=c%2B#code=x&y \r\n", &cb), CALLBACK_RESULT);
	assert_cb(&cb, "c+", "s", NULL, NULL);
	callback_clear(&cb);
	ck_assert_int_eq(callback_url("http://localhost/cb?error=access_denied"
	    "&error_description=no%20thanks", &cb), CALLBACK_RESULT);
	assert_cb(&cb, NULL, NULL, "access_denied", "no thanks");
	callback_clear(&cb);

	ck_assert_int_eq(callback_url("http://127.0.0.1:4242/callback", &cb),
	    CALLBACK_EMPTY);
	ck_assert_int_eq(callback_url("http://h/p#?code=c", &cb),
	    CALLBACK_EMPTY);
	ck_assert_int_eq(callback_url("http://h/p?state=s", &cb),
	    CALLBACK_EMPTY);
	callback_clear(&cb);
	ck_assert_int_eq(callback_url("http://h/p?code=a&code=b", &cb),
	    CALLBACK_BAD);

	ck_assert_int_eq(callback_url("", &cb), CALLBACK_OTHER);
	ck_assert_int_eq(callback_url("hello", &cb), CALLBACK_OTHER);
	ck_assert_int_eq(callback_url("code=c&state=s", &cb), CALLBACK_OTHER);
	ck_assert_int_eq(callback_url("ftp://h/p?code=c", &cb),
	    CALLBACK_OTHER);
	ck_assert_int_eq(callback_url("http://", &cb), CALLBACK_OTHER);
	ck_assert_int_eq(callback_url("http://h/p?code=c and more", &cb),
	    CALLBACK_OTHER);
	assert_cb(&cb, NULL, NULL, NULL, NULL);
}
END_TEST

START_TEST(test_html)
{
	char	*s;

	s = callback_html("<script>alert(\"x\" & 'y')</script>");
	ck_assert_str_eq(s, "&lt;script&gt;alert(&quot;x&quot; &amp; "
	    "&#39;y&#39;)&lt;/script&gt;");
	free(s);
	s = callback_html("");
	ck_assert_str_eq(s, "");
	free(s);
	s = callback_html("caf\xc3\xa9 &amp;");
	ck_assert_str_eq(s, "caf\xc3\xa9 &amp;amp;");
	free(s);
}
END_TEST

START_TEST(test_page)
{
	char	*p, *body;
	int	 len;

	p = callback_page(200, "Signed in to a<b", "Sign-in to x failed: "
	    "<img src=x onerror=alert(1)>\n\x1b[2J");
	ck_assert_msg(strncmp(p, "HTTP/1.1 200 OK\r\n", 17) == 0, "%s", p);
	ck_assert_ptr_nonnull(strstr(p, "\r\nContent-Type: text/html; "
	    "charset=utf-8\r\n"));
	ck_assert_ptr_nonnull(strstr(p, "\r\nConnection: close\r\n"));
	ck_assert_ptr_nonnull(strstr(p, "\r\nCache-Control: no-store\r\n"));
	ck_assert_ptr_nonnull(strstr(p, "<title>Signed in to a&lt;b</title>"));
	ck_assert_ptr_nonnull(strstr(p, "&lt;img src=x onerror=alert(1)&gt;"
	    "\\n\\x1b[2J</p>"));
	ck_assert_ptr_null(strstr(p, "<img"));
	ck_assert_ptr_null(strstr(p, "\x1b"));
	/* Content-Length is the body's. */
	ck_assert_ptr_nonnull(body = strstr(p, "\r\n\r\n"));
	ck_assert_int_eq(sscanf(strstr(p, "Content-Length: "),
	    "Content-Length: %d", &len), 1);
	ck_assert_int_eq(len, (int)strlen(body + 4));
	free(p);

	p = callback_page(404, "Not found", "x");
	ck_assert_msg(strncmp(p, "HTTP/1.1 404 Not Found\r\n", 24) == 0, "%s",
	    p);
	free(p);
	p = callback_page(431, "t", "x");
	ck_assert_msg(strncmp(p, "HTTP/1.1 431 ", 13) == 0, "%s", p);
	free(p);
}
END_TEST

START_TEST(test_see_other)
{
	const char	*url = "https://as.example/authorize?a=1&state=s'x";
	char		*p, *body;
	int		 len;

	p = callback_see_other(url);
	ck_assert_msg(strncmp(p, "HTTP/1.1 303 See Other\r\nLocation: "
	    "https://as.example/authorize?a=1&state=s'x\r\n", 78) == 0, "%s",
	    p);
	ck_assert_ptr_nonnull(strstr(p, "\r\nCache-Control: no-store\r\n"));
	ck_assert_ptr_nonnull(strstr(p, "\r\nReferrer-Policy: no-referrer\r\n"));
	ck_assert_ptr_nonnull(strstr(p, "<a href=\"https://as.example/"
	    "authorize?a=1&amp;state=s&#39;x\">"));
	ck_assert_ptr_nonnull(body = strstr(p, "\r\n\r\n"));
	ck_assert_int_eq(sscanf(strstr(p, "Content-Length: "),
	    "Content-Length: %d", &len), 1);
	ck_assert_int_eq(len, (int)strlen(body + 4));
	free(p);
}
END_TEST

/* A Location that could end the header is a caller's bug: abort. */
START_TEST(test_see_other_header_break)
{
	free(callback_see_other("https://as.example/\r\nSet-Cookie: x=1"));
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("callback");
	tc = tcase_create("query");
	tcase_add_test(tc, test_query_code);
	tcase_add_test(tc, test_query_decoding);
	tcase_add_test(tc, test_query_error);
	tcase_add_test(tc, test_query_empty_and_bad);
	suite_add_tcase(s, tc);
	tc = tcase_create("request");
	tcase_add_test(tc, test_head_end);
	tcase_add_test(tc, test_request);
	tcase_add_test(tc, test_url);
	suite_add_tcase(s, tc);
	tc = tcase_create("page");
	tcase_add_test(tc, test_html);
	tcase_add_test(tc, test_page);
	tcase_add_test(tc, test_see_other);
	tcase_add_test_raise_signal(tc, test_see_other_header_break, SIGABRT);
	suite_add_tcase(s, tc);
	return (s);
}
