/*
 * test_url.c -- unit tests for URL parsing, resolution (RFC 3986 section
 * 5.4), origins, resource matching (RFC 9728 section 3.3) and the
 * well-known discovery URLs (RFC 9728 section 3.1, RFC 8414 section 3.1,
 * the MCP authorization spec).
 */

#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "url.h"
#include "unit.h"
#include "util.h"

/* url_parse(in) succeeds and url_format gives want. */
static void
assert_norm(const char *in, const char *want)
{
	struct url	 u;
	const char	*err = NULL;
	char		*got;

	ck_assert_msg(url_parse(in, &u, &err) == 0, "url_parse(\"%s\") "
	    "failed: %s", in, err);
	got = url_format(&u);
	ck_assert_msg(strcmp(got, want) == 0, "url_format(\"%s\"): got "
	    "\"%s\", want \"%s\"", in, got, want);
	free(got);
	url_clear(&u);
}

/* url_parse(in) fails with an error. */
static void
assert_bad(const char *in)
{
	struct url	 u;
	const char	*err = NULL;

	ck_assert_msg(url_parse(in, &u, &err) == -1, "url_parse(\"%s\") "
	    "accepted it", in);
	ck_assert_msg(err != NULL && *err != '\0', "url_parse(\"%s\") gave "
	    "no error", in);
	/* A failed parse leaves nothing to free. */
	ck_assert_ptr_null(u.scheme);
	ck_assert_ptr_null(u.host);
	ck_assert_ptr_null(u.path);
}

START_TEST(test_url_parse_parts)
{
	struct url	 u;
	const char	*err;

	ck_assert_int_eq(url_parse("HTTPS://User:Pw@Example.COM:8443/a/B?"
	    "x=1&y=%2f#Frag", &u, &err), 0);
	ck_assert_str_eq(u.scheme, "https");
	ck_assert_str_eq(u.userinfo, "User:Pw");
	ck_assert_str_eq(u.host, "example.com");
	ck_assert_str_eq(u.port, "8443");
	ck_assert_str_eq(u.path, "/a/B");
	ck_assert_str_eq(u.query, "x=1&y=%2F");
	ck_assert_str_eq(u.fragment, "Frag");
	url_clear(&u);

	ck_assert_int_eq(url_parse("http://h", &u, &err), 0);
	ck_assert_str_eq(u.path, "");
	ck_assert_ptr_null(u.port);
	ck_assert_ptr_null(u.userinfo);
	ck_assert_ptr_null(u.query);
	ck_assert_ptr_null(u.fragment);
	url_clear(&u);

	/* Empty query and fragment are there, and empty. */
	ck_assert_int_eq(url_parse("http://h/?#", &u, &err), 0);
	ck_assert_str_eq(u.query, "");
	ck_assert_str_eq(u.fragment, "");
	url_clear(&u);

	ck_assert_int_eq(url_parse("http://[2001:DB8::1]:8080/", &u, &err), 0);
	ck_assert_str_eq(u.host, "[2001:db8::1]");
	ck_assert_str_eq(u.port, "8080");
	url_clear(&u);
}
END_TEST

START_TEST(test_url_parse_normalises)
{
	/* Default ports, empty ports and leading zeros. */
	assert_norm("http://h:80/", "http://h/");
	assert_norm("https://h:443/", "https://h/");
	assert_norm("http://h:443/", "http://h:443/");
	assert_norm("https://h:80/", "https://h:80/");
	assert_norm("http://h:/x", "http://h/x");
	assert_norm("http://h:0080/x", "http://h/x");
	assert_norm("https://h:08443", "https://h:8443");
	/* Percent-encodings: unreserved decoded, hex upper case. */
	assert_norm("http://h/%7euser/%61%2fb%3a", "http://h/~user/a%2Fb%3A");
	/* Dot segments, also percent-encoded ones. */
	assert_norm("http://h/a/./b/../c", "http://h/a/c");
	assert_norm("http://h/a/%2E%2E/b", "http://h/b");
	assert_norm("http://h/../../x", "http://h/x");
	assert_norm("http://h/a/..", "http://h/");
	/* Trailing slash and case of the path are kept. */
	assert_norm("http://H/Mcp/", "http://h/Mcp/");
	assert_norm("http://[::1]:80", "http://[::1]");
}
END_TEST

START_TEST(test_url_parse_rejects)
{
	static const char *const bad[] = {
		"",
		"example.com/mcp",
		"/mcp",
		"//example.com/mcp",
		"file:///etc/passwd",
		"javascript:alert(1)",
		"JavaScript://h/%0aalert(1)",
		"ftp://h/",
		"data:text/html,x",
		"http:/h/x",
		"http:h",
		"http://",
		"http:///x",
		"http://:80/",
		"http://user@/x",
		"http://h x/",
		"http://h/a b",
		"http://h/a\tb",
		"http://h/\x01",
		"http://h/\x7f",
		"http://h/caf\xc3\xa9",
		"http://h/%",
		"http://h/%4",
		"http://h/%zz",
		"http://h/?%g0",
		"http://h/#a#b",
		"http://h/<script>",
		"http://h/a\"b",
		"http://h/a\\b",
		"http://h/{x}",
		"http://h:-1/",
		"http://h:0/",
		"http://h:65536/",
		"http://h:99999999999999999999/",
		"http://h:8o/",
		"http://h:80:81/",
		"http://h%2e.com/",
		"http://a@b@c/",
		"http://ex;ample.com/",
		"http://[::1/",
		"http://[::1]x/",
		"http://[:::1]/",
		"http://[fe80::1%25eth0]/",
		"http://[v1.x]/",
		"http://[]/",
		"http://h/[x]",
		"http://u%zz@h/",
	};
	size_t	 i;

	for (i = 0; i < nitems(bad); i++)
		assert_bad(bad[i]);
}
END_TEST

START_TEST(test_url_long_dots)
{
	const size_t	 n = 1000000;
	char		*in, *p;
	size_t		 i;

	/* "http://h/" a/ x n, ../ x n, "x": linear, not n^2 (a timeout). */
	in = malloc(9 + 5 * n + 2);
	ck_assert_ptr_nonnull(in);
	p = in + sprintf(in, "http://h/");
	for (i = 0; i < n; i++, p += 2)
		memcpy(p, "a/", 2);
	for (i = 0; i < n; i++, p += 3)
		memcpy(p, "../", 3);
	strcpy(p, "x");
	assert_norm(in, "http://h/x");
	free(in);
}
END_TEST

/* url_resolve(base, ref) gives want (NULL: refused). */
static void
assert_resolve(const char *base, const char *ref, const char *want)
{
	char	*got;

	got = url_resolve(base, ref);
	if (want == NULL)
		ck_assert_msg(got == NULL, "url_resolve(\"%s\", \"%s\"): got "
		    "\"%s\", want refusal", base, ref, got);
	else
		ck_assert_msg(got != NULL && strcmp(got, want) == 0,
		    "url_resolve(\"%s\", \"%s\"): got \"%s\", want \"%s\"",
		    base, ref, got != NULL ? got : "(null)", want);
	free(got);
}

#define RFC_BASE	"http://a/b/c/d;p?q"

START_TEST(test_url_resolve_rfc_normal)
{
	/* RFC 3986 section 5.4.1; "g:h" is not http(s), so refused. */
	assert_resolve(RFC_BASE, "g:h", NULL);
	assert_resolve(RFC_BASE, "g", "http://a/b/c/g");
	assert_resolve(RFC_BASE, "./g", "http://a/b/c/g");
	assert_resolve(RFC_BASE, "g/", "http://a/b/c/g/");
	assert_resolve(RFC_BASE, "/g", "http://a/g");
	assert_resolve(RFC_BASE, "//g", "http://g");
	assert_resolve(RFC_BASE, "?y", "http://a/b/c/d;p?y");
	assert_resolve(RFC_BASE, "g?y", "http://a/b/c/g?y");
	assert_resolve(RFC_BASE, "#s", "http://a/b/c/d;p?q#s");
	assert_resolve(RFC_BASE, "g#s", "http://a/b/c/g#s");
	assert_resolve(RFC_BASE, "g?y#s", "http://a/b/c/g?y#s");
	assert_resolve(RFC_BASE, ";x", "http://a/b/c/;x");
	assert_resolve(RFC_BASE, "g;x", "http://a/b/c/g;x");
	assert_resolve(RFC_BASE, "g;x?y#s", "http://a/b/c/g;x?y#s");
	assert_resolve(RFC_BASE, "", "http://a/b/c/d;p?q");
	assert_resolve(RFC_BASE, ".", "http://a/b/c/");
	assert_resolve(RFC_BASE, "./", "http://a/b/c/");
	assert_resolve(RFC_BASE, "..", "http://a/b/");
	assert_resolve(RFC_BASE, "../", "http://a/b/");
	assert_resolve(RFC_BASE, "../g", "http://a/b/g");
	assert_resolve(RFC_BASE, "../..", "http://a/");
	assert_resolve(RFC_BASE, "../../", "http://a/");
	assert_resolve(RFC_BASE, "../../g", "http://a/g");
}
END_TEST

START_TEST(test_url_resolve_rfc_abnormal)
{
	/* RFC 3986 section 5.4.2. */
	assert_resolve(RFC_BASE, "../../../g", "http://a/g");
	assert_resolve(RFC_BASE, "../../../../g", "http://a/g");
	assert_resolve(RFC_BASE, "/./g", "http://a/g");
	assert_resolve(RFC_BASE, "/../g", "http://a/g");
	assert_resolve(RFC_BASE, "g.", "http://a/b/c/g.");
	assert_resolve(RFC_BASE, ".g", "http://a/b/c/.g");
	assert_resolve(RFC_BASE, "g..", "http://a/b/c/g..");
	assert_resolve(RFC_BASE, "..g", "http://a/b/c/..g");
	assert_resolve(RFC_BASE, "./../g", "http://a/b/g");
	assert_resolve(RFC_BASE, "./g/.", "http://a/b/c/g/");
	assert_resolve(RFC_BASE, "g/./h", "http://a/b/c/g/h");
	assert_resolve(RFC_BASE, "g/../h", "http://a/b/c/h");
	assert_resolve(RFC_BASE, "g;x=1/./y", "http://a/b/c/g;x=1/y");
	assert_resolve(RFC_BASE, "g;x=1/../y", "http://a/b/c/y");
	assert_resolve(RFC_BASE, "g?y/./x", "http://a/b/c/g?y/./x");
	assert_resolve(RFC_BASE, "g?y/../x", "http://a/b/c/g?y/../x");
	assert_resolve(RFC_BASE, "g#s/./x", "http://a/b/c/g#s/./x");
	assert_resolve(RFC_BASE, "g#s/../x", "http://a/b/c/g#s/../x");
	/* A strict parser reads "http:g" as absolute, without a host. */
	assert_resolve(RFC_BASE, "http:g", NULL);
}
END_TEST

START_TEST(test_url_resolve_redirects)
{
	const char	*base = "https://mcp.example.com/v1/mcp";

	/* The schemes a redirect must never reach. */
	assert_resolve(base, "file:///etc/passwd", NULL);
	assert_resolve(base, "javascript:alert(1)", NULL);
	assert_resolve(base, "JAVASCRIPT:alert(1)", NULL);
	assert_resolve(base, "data:text/plain,x", NULL);
	assert_resolve(base, "ftp://example.com/", NULL);
	/* Bad characters in the reference, even in a segment ".." drops. */
	assert_resolve(base, "a b", NULL);
	assert_resolve(base, "x<y/../z", NULL);
	assert_resolve(base, "/\x01", NULL);
	assert_resolve(base, "?q#a#b", NULL);
	assert_resolve(base, "a:b/c", NULL);
	assert_resolve(base, "1a:b", NULL);
	/* A "//" reference with a bad host or none. */
	assert_resolve(base, "//", NULL);
	assert_resolve(base, "//evil.com:0/x", NULL);
	assert_resolve(base, "//ev il.com/x", NULL);
	/* A bad base refuses every reference. */
	assert_resolve("file:///x", "/y", NULL);
	assert_resolve("mcp.example.com", "/y", NULL);
	/* The usual ones. */
	assert_resolve(base, "https://Auth.Example.com:443/token",
	    "https://auth.example.com/token");
	assert_resolve(base, "HTTP://other/x/../y", "http://other/y");
	assert_resolve(base, "//cdn.example.com/a",
	    "https://cdn.example.com/a");
	assert_resolve(base, "/.well-known/x?y",
	    "https://mcp.example.com/.well-known/x?y");
	assert_resolve(base, "./sse", "https://mcp.example.com/v1/sse");
	assert_resolve(base, "messages?session=1",
	    "https://mcp.example.com/v1/messages?session=1");
	assert_resolve(base, "../../../../x", "https://mcp.example.com/x");
	/* A ':' after the first segment, or in the query or fragment. */
	assert_resolve(base, "messages?a:b", "https://mcp.example.com/v1/"
	    "messages?a:b");
	assert_resolve(base, "g#x:y", "https://mcp.example.com/v1/g#x:y");
	assert_resolve(base, "./a:b", "https://mcp.example.com/v1/a:b");
	assert_resolve(base, "a/b:c", "https://mcp.example.com/v1/a/b:c");
	/* A base without a path merges as "/". */
	assert_resolve("http://h", "x", "http://h/x");
	assert_resolve("http://h", "", "http://h");
	assert_resolve("http://h:8080#f", "?q", "http://h:8080?q");
	/* The base's userinfo stays; a reference's replaces it. */
	assert_resolve("http://u@h/a", "b", "http://u@h/b");
	assert_resolve("http://u@h/a", "//v@g/b", "http://v@g/b");
}
END_TEST

START_TEST(test_url_same_origin)
{
	ck_assert_int_eq(url_same_origin("https://a.example/x",
	    "https://A.EXAMPLE:443/y?z#w"), 1);
	ck_assert_int_eq(url_same_origin("http://a:80", "HTTP://a/"), 1);
	ck_assert_int_eq(url_same_origin("https://u:p@a/", "https://a/"), 1);
	ck_assert_int_eq(url_same_origin("http://[::1]:8080/",
	    "http://[::1]:08080/x"), 1);
	/* Scheme, host or port differ. */
	ck_assert_int_eq(url_same_origin("https://a/", "http://a/"), 0);
	ck_assert_int_eq(url_same_origin("http://a:443/", "https://a/"), 0);
	ck_assert_int_eq(url_same_origin("https://a/", "https://a:8443/"), 0);
	ck_assert_int_eq(url_same_origin("https://a/", "https://a.evil/"), 0);
	ck_assert_int_eq(url_same_origin("https://a.b/", "https://b/"), 0);
	ck_assert_int_eq(url_same_origin("https://a/", "https://a./"), 0);
	/* Anything bad is not the same origin as anything. */
	ck_assert_int_eq(url_same_origin("https://a/", "file:///a"), 0);
	ck_assert_int_eq(url_same_origin("javascript:x", "javascript:x"), 0);
	ck_assert_int_eq(url_same_origin("", ""), 0);
}
END_TEST

START_TEST(test_url_resource)
{
	const char	*server = "https://mcp.example.com/mcp";
	char		*r;

	ck_assert_int_eq(url_resource_matches("https://mcp.example.com/mcp",
	    server), 1);
	ck_assert_int_eq(url_resource_matches("HTTPS://MCP.example.com:443"
	    "/mcp", server), 1);
	ck_assert_int_eq(url_resource_matches(server,
	    "https://mcp.example.com/mcp#section"), 1);
	ck_assert_int_eq(url_resource_matches("https://mcp.example.com/%6Dcp",
	    server), 1);
	/* An empty path is "/"; any other trailing slash matters. */
	ck_assert_int_eq(url_resource_matches("https://mcp.example.com/",
	    "https://mcp.example.com"), 1);
	ck_assert_int_eq(url_resource_matches("https://mcp.example.com",
	    "https://mcp.example.com/"), 1);
	ck_assert_int_eq(url_resource_matches("https://mcp.example.com/mcp/",
	    server), 0);
	/* The path is case-sensitive, and a prefix is not the resource. */
	ck_assert_int_eq(url_resource_matches("https://mcp.example.com/MCP",
	    server), 0);
	ck_assert_int_eq(url_resource_matches("https://mcp.example.com/",
	    server), 0);
	ck_assert_int_eq(url_resource_matches("https://mcp.example.com",
	    server), 0);
	/* Scheme, port, host, query and userinfo count. */
	ck_assert_int_eq(url_resource_matches("http://mcp.example.com/mcp",
	    server), 0);
	ck_assert_int_eq(url_resource_matches("https://mcp.example.com:8443"
	    "/mcp", server), 0);
	ck_assert_int_eq(url_resource_matches("https://evil.example.com/mcp",
	    server), 0);
	ck_assert_int_eq(url_resource_matches("https://mcp.example.com/mcp?a",
	    server), 0);
	ck_assert_int_eq(url_resource_matches("https://u@mcp.example.com/mcp",
	    server), 0);
	/* A resource with a fragment is no resource identifier. */
	ck_assert_int_eq(url_resource_matches("https://mcp.example.com/mcp#x",
	    server), 0);
	ck_assert_int_eq(url_resource_matches("mcp.example.com/mcp", server),
	    0);
	ck_assert_int_eq(url_resource_matches(server, "not a url"), 0);

	r = url_canonical_resource("HTTPS://MCP.Example.COM:443/mcp#frag");
	ck_assert_str_eq(r, "https://mcp.example.com/mcp");
	free(r);
	r = url_canonical_resource("https://mcp.example.com?x=1");
	ck_assert_str_eq(r, "https://mcp.example.com?x=1");
	free(r);
	ck_assert_ptr_null(url_canonical_resource("file:///mcp"));
}
END_TEST

/*
 * Metadata at the root well-known URL may name the server's origin
 * (RFC 9728 section 3.3; the MCP conformance suite's auth/metadata-var2),
 * and nothing wider or elsewhere.
 */
START_TEST(test_url_resource_origin)
{
	const char	*server = "https://mcp.example.com/tenant/mcp";
	char		*o;

	ck_assert_int_eq(url_resource_is_origin("https://mcp.example.com",
	    server), 1);
	ck_assert_int_eq(url_resource_is_origin("HTTPS://MCP.example.com:443/",
	    server), 1);
	ck_assert_int_eq(url_resource_is_origin("http://localhost:8080",
	    "http://localhost:8080/mcp"), 1);
	/* The server URL itself is not its origin: url_resource_matches. */
	ck_assert_int_eq(url_resource_is_origin(server, server), 0);
	ck_assert_int_eq(url_resource_is_origin("https://mcp.example.com/tenant",
	    server), 0);
	ck_assert_int_eq(url_resource_is_origin("https://evil.example.com",
	    server), 0);
	ck_assert_int_eq(url_resource_is_origin("http://mcp.example.com",
	    server), 0);
	ck_assert_int_eq(url_resource_is_origin("https://mcp.example.com:8443",
	    server), 0);
	ck_assert_int_eq(url_resource_is_origin("https://mcp.example.com/?a",
	    server), 0);
	ck_assert_int_eq(url_resource_is_origin("https://u@mcp.example.com",
	    server), 0);
	ck_assert_int_eq(url_resource_is_origin("https://mcp.example.com#x",
	    server), 0);
	ck_assert_int_eq(url_resource_is_origin("https://mcp.example.com",
	    "not a url"), 0);

	o = url_origin("HTTP://u:p@LocalHost:80/mcp?x#y");
	ck_assert_str_eq(o, "http://localhost");
	free(o);
	o = url_origin("https://[::1]:8443/a/b");
	ck_assert_str_eq(o, "https://[::1]:8443");
	free(o);
	ck_assert_ptr_null(url_origin("ftp://example.com/"));
}
END_TEST

static void
assert_candidates(size_t n, char **got, size_t want_n, const char *const *want)
{
	size_t	 i;

	ck_assert_uint_eq(n, want_n);
	for (i = 0; i < n; i++) {
		ck_assert_msg(strcmp(got[i], want[i]) == 0, "candidate %zu: "
		    "got \"%s\", want \"%s\"", i, got[i], want[i]);
		free(got[i]);
	}
}

START_TEST(test_url_prm_candidates)
{
	static const char *const with_path[] = {
		"https://example.com/.well-known/oauth-protected-resource/"
		    "public/mcp",
		"https://example.com/.well-known/oauth-protected-resource",
	};
	static const char *const root[] = {
		"https://example.com:8443/.well-known/oauth-protected-resource",
	};
	char	*out[2];

	assert_candidates(url_prm_candidates("https://example.com/public/mcp",
	    out), out, 2, with_path);
	/* The query and fragment dropped, one terminating '/' too. */
	assert_candidates(url_prm_candidates("https://u@Example.com:443/"
	    "public/mcp/?session=1#x", out), out, 2, with_path);
	assert_candidates(url_prm_candidates("https://example.com:8443",
	    out), out, 1, root);
	assert_candidates(url_prm_candidates("https://example.com:8443/?q",
	    out), out, 1, root);
	ck_assert_uint_eq(url_prm_candidates("ftp://example.com/mcp", out), 0);
	ck_assert_uint_eq(url_prm_candidates("", out), 0);
}
END_TEST

START_TEST(test_url_asm_candidates)
{
	static const char *const with_path[] = {
		"https://auth.example.com/.well-known/oauth-authorization-"
		    "server/tenant1",
		"https://auth.example.com/.well-known/openid-configuration/"
		    "tenant1",
		"https://auth.example.com/tenant1/.well-known/openid-"
		    "configuration",
	};
	static const char *const root[] = {
		"https://auth.example.com/.well-known/oauth-authorization-"
		    "server",
		"https://auth.example.com/.well-known/openid-configuration",
	};
	char	*out[3];

	assert_candidates(url_asm_candidates("https://auth.example.com/"
	    "tenant1", out), out, 3, with_path);
	assert_candidates(url_asm_candidates("https://auth.example.com/"
	    "tenant1/", out), out, 3, with_path);
	assert_candidates(url_asm_candidates("https://auth.example.com",
	    out), out, 2, root);
	assert_candidates(url_asm_candidates("https://AUTH.example.com/",
	    out), out, 2, root);
	assert_candidates(url_asm_candidates("https://auth.example.com/?x=1",
	    out), out, 2, root);
	ck_assert_uint_eq(url_asm_candidates("javascript:alert(1)", out), 0);
}
END_TEST

START_TEST(test_url_template_match)
{
	static const struct {
		const char	*tmpl;
		const char	*uri;
		int		 match;
	} t[] = {
		{ "file:///{path}", "file:///etc/hosts", 1 },
		{ "file:///{path}", "file:///", 1 },
		{ "file:///{path}", "http:///etc", 0 },
		{ "demo://resource/{id}/text", "demo://resource/7/text", 1 },
		{ "demo://resource/{id}/text", "demo://resource/7/blob", 0 },
		{ "demo://resource/{id}/text", "demo://resource/7/text/x", 0 },
		{ "a{x}b{y}c", "a1b2c", 1 },
		{ "a{x}b{y}c", "a12c", 0 },
		{ "{x}", "anything", 1 },
		{ "{x}", "", 1 },
		{ "plain://x", "plain://x", 1 },
		{ "plain://x", "plain://xy", 0 },
		{ "open{x", "openx", 0 },
		{ "", "", 1 },
		{ "", "x", 0 },
		{ "{a}{b}end", "end", 1 },
	};
	size_t	 i;

	for (i = 0; i < nitems(t); i++)
		ck_assert_msg(url_template_match(t[i].tmpl, t[i].uri) ==
		    t[i].match, "%s ~ %s: want %d", t[i].tmpl, t[i].uri,
		    t[i].match);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("url");
	tc = tcase_create("url");
	tcase_add_test(tc, test_url_parse_parts);
	tcase_add_test(tc, test_url_parse_normalises);
	tcase_add_test(tc, test_url_parse_rejects);
	tcase_add_test(tc, test_url_long_dots);
	tcase_add_test(tc, test_url_resolve_rfc_normal);
	tcase_add_test(tc, test_url_resolve_rfc_abnormal);
	tcase_add_test(tc, test_url_resolve_redirects);
	tcase_add_test(tc, test_url_same_origin);
	tcase_add_test(tc, test_url_resource);
	tcase_add_test(tc, test_url_resource_origin);
	tcase_add_test(tc, test_url_prm_candidates);
	tcase_add_test(tc, test_url_asm_candidates);
	tcase_add_test(tc, test_url_template_match);
	suite_add_tcase(s, tc);
	return (s);
}
