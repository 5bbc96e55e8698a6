/*
 * test_tokens.c -- unit tests for the token file's text (src/tokens.c):
 * what is written reads back the same, and what is not a token file is
 * refused with a reason that quotes no value.
 */

#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tokens.h"
#include "unit.h"
#include "util.h"
#include "xmalloc.h"

static void
fill(struct tokens *t)
{
	memset(t, 0, sizeof *t);
	t->server_url = xstrdup("https://mcp.example/mcp");
	t->resource = xstrdup("https://mcp.example/mcp");
	t->issuer = xstrdup("https://auth.example");
	t->token_endpoint = xstrdup("https://auth.example/token");
	t->revocation_endpoint = xstrdup("https://auth.example/revoke");
	t->client_id = xstrdup("client-1");
	t->client_secret = xstrdup("s3cret");
	t->auth_method = xstrdup("client_secret_post");
	t->client_source = xstrdup("registered");
	t->access_token = xstrdup("at-123");
	t->refresh_token = xstrdup("rt-456");
	t->scope = xstrdup("mcp:tools mcp:admin");
	t->expires_at = 1767225600;
	t->obtained_at = 1767222000;
}

START_TEST(test_tokens_round_trip)
{
	struct tokens	 t, u;
	char		*text, *err;

	fill(&t);
	text = tokens_format(&t);
	ck_assert_int_eq(text[strlen(text) - 1], '\n');
	ck_assert_int_eq(tokens_parse(&u, text, strlen(text), &err), 0);
	ck_assert_str_eq(u.server_url, t.server_url);
	ck_assert_str_eq(u.issuer, t.issuer);
	ck_assert_str_eq(u.token_endpoint, t.token_endpoint);
	ck_assert_str_eq(u.revocation_endpoint, t.revocation_endpoint);
	ck_assert_str_eq(u.client_id, "client-1");
	ck_assert_str_eq(u.client_secret, "s3cret");
	ck_assert_str_eq(u.auth_method, "client_secret_post");
	ck_assert_str_eq(u.client_source, "registered");
	ck_assert_str_eq(u.access_token, "at-123");
	ck_assert_str_eq(u.refresh_token, "rt-456");
	ck_assert_str_eq(u.scope, "mcp:tools mcp:admin");
	ck_assert_int_eq(u.expires_at, 1767225600);
	ck_assert_int_eq(u.obtained_at, 1767222000);
	free(text);
	tokens_clear(&t);
	tokens_clear(&u);
	ck_assert_ptr_null(u.access_token);
}
END_TEST

/* A public client with no refresh token: the optional parts stay NULL. */
START_TEST(test_tokens_minimal)
{
	const char	*text = "{\"mcpd_tokens\": 1, \"server_url\": \"u\","
	    "\"resource\": \"u\", \"issuer\": \"i\", \"token_endpoint\": "
	    "\"t\", \"client\": {\"client_id\": \"c\", \"auth_method\": "
	    "\"none\"}, \"future\": true}";
	struct tokens	 t, copy;
	char		*err;

	ck_assert_int_eq(tokens_parse(&t, text, strlen(text), &err), 0);
	ck_assert_ptr_null(t.access_token);
	ck_assert_ptr_null(t.refresh_token);
	ck_assert_ptr_null(t.client_secret);
	ck_assert_int_eq(t.expires_at, 0);
	tokens_copy(&copy, &t);
	ck_assert_str_eq(copy.client_id, "c");
	tokens_clear(&t);
	tokens_clear(&copy);
}
END_TEST

START_TEST(test_tokens_refused)
{
	static const struct {
		const char	*text;
		const char	*reason;
	} bad[] = {
		{ "[]", "not a JSON object" },
		{ "{\"server_url\": \"u\"}", "no \"mcpd_tokens\" format "
		    "version" },
		{ "{\"mcpd_tokens\": 2}", "format version 2 is newer than "
		    "this mcpd reads (1)" },
		{ "{\"mcpd_tokens\": 1}", "no \"client\" object" },
		{ "{\"mcpd_tokens\": 1, \"client\": {}}",
		    "\"server_url\" is missing" },
		{ "{\"mcpd_tokens\": 1, \"server_url\": \"u\", \"resource\": "
		    "\"u\", \"issuer\": \"i\", \"token_endpoint\": \"t\", "
		    "\"client\": {\"client_id\": \"c\", \"auth_method\": "
		    "\"private_key_jwt\"}}", "\"auth_method\" is not none, "
		    "client_secret_basic or client_secret_post" },
		{ "{\"mcpd_tokens\": 1, \"server_url\": \"u\", \"resource\": "
		    "\"u\", \"issuer\": \"i\", \"token_endpoint\": \"t\", "
		    "\"client\": {\"client_id\": \"c\", \"auth_method\": "
		    "\"client_secret_basic\"}}", "\"client_secret\" is missing "
		    "for the client's auth_method" },
		{ "{\"mcpd_tokens\": 1, \"server_url\": \"u\", \"resource\": "
		    "\"u\", \"issuer\": \"i\", \"token_endpoint\": \"t\", "
		    "\"client\": {\"client_id\": \"c\", \"auth_method\": "
		    "\"none\"}, \"access_token\": \"SECRET\\nX\"}",
		    "\"access_token\" is not a valid string" },
		{ "{\"mcpd_tokens\": 1, \"server_url\": \"u\", \"resource\": "
		    "\"u\", \"issuer\": \"i\", \"token_endpoint\": \"t\", "
		    "\"client\": {\"client_id\": \"c\", \"auth_method\": "
		    "\"none\"}, \"refresh_token\": 7}",
		    "\"refresh_token\" is not a valid string" },
		{ "{\"mcpd_tokens\": 1, \"server_url\": \"u\", \"resource\": "
		    "\"u\", \"issuer\": \"i\", \"token_endpoint\": \"t\", "
		    "\"client\": {\"client_id\": \"c\", \"auth_method\": "
		    "\"none\"}, \"expires_at\": -5}", "\"expires_at\" or "
		    "\"obtained_at\" is not a time" },
	};
	struct tokens	 t;
	char		*err;
	size_t		 i;

	for (i = 0; i < nitems(bad); i++) {
		ck_assert_int_eq(tokens_parse(&t, bad[i].text,
		    strlen(bad[i].text), &err), -1);
		ck_assert_str_eq(err, bad[i].reason);
		ck_assert_ptr_null(strstr(err, "SECRET"));
		ck_assert_ptr_null(t.server_url);
		free(err);
	}
	/* A NUL inside, and too much. */
	ck_assert_int_eq(tokens_parse(&t, "{\"a\"\0}", 6, &err), -1);
	free(err);
	ck_assert_int_eq(tokens_parse(&t, "{}", TOKENS_MAX_BYTES + 1, &err),
	    -1);
	free(err);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s = suite_create("tokens");
	TCase	*tc = tcase_create("core");

	tcase_add_test(tc, test_tokens_round_trip);
	tcase_add_test(tc, test_tokens_minimal);
	tcase_add_test(tc, test_tokens_refused);
	suite_add_tcase(s, tc);
	return (s);
}
