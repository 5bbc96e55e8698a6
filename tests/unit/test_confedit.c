/*
 * test_confedit.c -- unit tests for one server of mcpd's configuration
 * added and taken out by name, every other byte kept, and the text a
 * diff shows with the servers' secrets masked (src/confedit.c).
 */

#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "confedit.h"
#include "unit.h"

/* confedit_add of a server parsed from json must give want. */
static void
assert_added(const char *text, const char *name, const char *json,
    const char *want)
{
	cJSON	*server;
	char	*out = NULL, *cause = NULL;
	size_t	 outlen;

	server = cJSON_Parse(json);
	ck_assert_ptr_nonnull(server);
	ck_assert_msg(confedit_add(text, strlen(text), name, server, &out,
	    &outlen, &cause) == 0, "refused: %s", cause);
	ck_assert_uint_eq(outlen, strlen(want));
	ck_assert_str_eq(out, want);
	free(out);
	cJSON_Delete(server);
}

static void
assert_add_refused(const char *text, const char *name, const char *want)
{
	cJSON	*server;
	char	*out = NULL, *cause = NULL;
	size_t	 outlen;

	server = cJSON_Parse("{\"command\": \"x\"}");
	ck_assert_int_eq(confedit_add(text, strlen(text), name, server, &out,
	    &outlen, &cause), -1);
	ck_assert_ptr_null(out);
	ck_assert_str_eq(cause, want);
	free(cause);
	cJSON_Delete(server);
}

static void
assert_removed(const char *text, const char *name, const char *want)
{
	char	*out = NULL, *cause = NULL;
	size_t	 outlen;

	ck_assert_msg(confedit_remove(text, strlen(text), name, &out, &outlen,
	    &cause) == 0, "refused: %s", cause);
	ck_assert_uint_eq(outlen, strlen(want));
	ck_assert_str_eq(out, want);
	free(out);
}

static void
assert_remove_refused(const char *text, const char *name, const char *want)
{
	char	*out = NULL, *cause = NULL;
	size_t	 outlen;

	ck_assert_int_eq(confedit_remove(text, strlen(text), name, &out,
	    &outlen, &cause), -1);
	ck_assert_ptr_null(out);
	ck_assert_str_eq(cause, want);
	free(cause);
}

/* Added, then removed: the text as it was, byte for byte. */
static void
assert_round_trip(const char *text, const char *name, const char *json)
{
	cJSON	*server;
	char	*added = NULL, *out = NULL, *cause = NULL;
	size_t	 addedlen, outlen;

	server = cJSON_Parse(json);
	ck_assert_int_eq(confedit_add(text, strlen(text), name, server,
	    &added, &addedlen, &cause), 0);
	ck_assert_msg(confedit_remove(added, addedlen, name, &out, &outlen,
	    &cause) == 0, "refused: %s", cause);
	ck_assert_uint_eq(outlen, strlen(text));
	ck_assert_str_eq(out, text);
	free(added);
	free(out);
	cJSON_Delete(server);
}

static void
assert_masked(const char *text, const char *want)
{
	char	*out;
	size_t	 outlen;

	out = confedit_mask(text, strlen(text), &outlen);
	ck_assert_uint_eq(outlen, strlen(want));
	ck_assert_str_eq(out, want);
	free(out);
}

START_TEST(test_confedit_add)
{
	/* After the last server, in its indentation; the rest kept. */
	assert_added(
	    "{\n"
	    "  \"mcpServers\": {\n"
	    "    \"a\": {\"command\": \"a\"}\n"
	    "  },\n"
	    "  \"mcpd\": {\"stop_timeout_ms\": 3000}\n"
	    "}\n",
	    "fs", "{\"command\": \"npx\", \"args\": [\"-y\", \"fs\"], "
	    "\"env\": {\"K\": \"v\"}, \"cwd\": \"/srv\"}",
	    "{\n"
	    "  \"mcpServers\": {\n"
	    "    \"a\": {\"command\": \"a\"},\n"
	    "    \"fs\": {\n"
	    "      \"command\": \"npx\",\n"
	    "      \"args\": [\"-y\", \"fs\"],\n"
	    "      \"env\": {\n"
	    "        \"K\": \"v\"\n"
	    "      },\n"
	    "      \"cwd\": \"/srv\"\n"
	    "    }\n"
	    "  },\n"
	    "  \"mcpd\": {\"stop_timeout_ms\": 3000}\n"
	    "}\n");
	/* No file yet. */
	assert_added("", "r", "{\"url\": \"https://h/mcp\"}",
	    "{\n"
	    "  \"mcpServers\": {\n"
	    "    \"r\": {\n"
	    "      \"url\": \"https://h/mcp\"\n"
	    "    }\n"
	    "  }\n"
	    "}\n");
	/* An empty object opens onto lines of their own. */
	assert_added("{\"mcpServers\": {}}\n", "x", "{\"command\": \"x\"}",
	    "{\"mcpServers\": {\n"
	    "  \"x\": {\n"
	    "    \"command\": \"x\"\n"
	    "  }\n"
	    "}}\n");
}
END_TEST

START_TEST(test_confedit_add_refused)
{
	const char	*conf =
	    "{\"mcpServers\": {\"a\": {\"command\": \"a\"}},\n"
	    " \"servers\": {\"v\": {\"type\": \"stdio\", \"command\": \"v\"}},\n"
	    " \"groups\": {\"dev\": {\"servers\": [\"a\"]}}}";

	assert_add_refused(conf, "a", "there is a server named a already");
	assert_add_refused(conf, "v", "there is a server named v already");
	assert_add_refused(conf, "dev", "dev is the name of a group (servers "
	    "and groups share one namespace)");
	assert_add_refused(conf, "all", "all is the name of the built-in "
	    "group of every server");
	assert_add_refused("[]", "x", "the top level is not an object");
	assert_add_refused("{\"mcpServers\": []}", "x",
	    "\"mcpServers\" is not an object");
	assert_add_refused("{\"groups\": 1}", "x",
	    "\"groups\" is not an object");
}
END_TEST

START_TEST(test_confedit_remove)
{
	const char	*three =
	    "{\n"
	    "  \"mcpServers\": {\n"
	    "    \"a\": {\n"
	    "      \"command\": \"a\"\n"
	    "    },\n"
	    "    \"b\": {\"command\": \"b\"},\n"
	    "    \"c\": {\"command\": \"c\"}\n"
	    "  }\n"
	    "}\n";

	/* The first, the middle, the last: their lines go. */
	assert_removed(three, "a",
	    "{\n"
	    "  \"mcpServers\": {\n"
	    "    \"b\": {\"command\": \"b\"},\n"
	    "    \"c\": {\"command\": \"c\"}\n"
	    "  }\n"
	    "}\n");
	assert_removed(three, "b",
	    "{\n"
	    "  \"mcpServers\": {\n"
	    "    \"a\": {\n"
	    "      \"command\": \"a\"\n"
	    "    },\n"
	    "    \"c\": {\"command\": \"c\"}\n"
	    "  }\n"
	    "}\n");
	assert_removed(three, "c",
	    "{\n"
	    "  \"mcpServers\": {\n"
	    "    \"a\": {\n"
	    "      \"command\": \"a\"\n"
	    "    },\n"
	    "    \"b\": {\"command\": \"b\"}\n"
	    "  }\n"
	    "}\n");
	/* On one line: the member and its comma. */
	assert_removed("{\"mcpServers\": {\"a\": 1, \"b\": 2, \"c\": 3}}", "a",
	    "{\"mcpServers\": {\"b\": 2, \"c\": 3}}");
	assert_removed("{\"mcpServers\": {\"a\": 1, \"b\": 2, \"c\": 3}}", "b",
	    "{\"mcpServers\": {\"a\": 1, \"c\": 3}}");
	assert_removed("{\"mcpServers\": {\"a\": 1, \"b\": 2, \"c\": 3}}", "c",
	    "{\"mcpServers\": {\"a\": 1, \"b\": 2}}");
	/* The only one. */
	assert_removed("{\"mcpServers\": {\n  \"a\": 1\n}, \"x\": 2}", "a",
	    "{\"mcpServers\": {}, \"x\": 2}");
	/* VS Code's shape; CR LF line ends. */
	assert_removed("{\r\n \"servers\": {\r\n  \"a\": 1,\r\n  \"b\": 2\r\n"
	    " }\r\n}\r\n", "b", "{\r\n \"servers\": {\r\n  \"a\": 1\r\n }\r\n}"
	    "\r\n");
	assert_removed("{\r\n \"servers\": {\r\n  \"a\": 1,\r\n  \"b\": 2\r\n"
	    " }\r\n}\r\n", "a", "{\r\n \"servers\": {\r\n  \"b\": 2\r\n }\r\n}"
	    "\r\n");
	/* A key written with an escape is found by its name. */
	assert_removed("{\"mcpServers\": {\"a\": 1, \"\\u0062\": 2}}", "b",
	    "{\"mcpServers\": {\"a\": 1}}");
}
END_TEST

START_TEST(test_confedit_remove_refused)
{
	const char	*conf =
	    "{\"mcpServers\": {\"a\": {}, \"b\": {}, \"c\": {}},\n"
	    " \"groups\": {\"dev\": {\"servers\": [\"a\", \"b\"]},\n"
	    "   \"web\": {\"servers\": [\"b\"]}}}";

	assert_remove_refused(conf, "a", "a is a member of the group dev: "
	    "take it out of it first");
	assert_remove_refused(conf, "b", "b is a member of the groups dev, "
	    "web: take it out of them first");
	assert_remove_refused(conf, "dev", "dev is a group, not a server");
	assert_remove_refused(conf, "x", "there is no server named x");
	assert_remove_refused("", "x", "there is no server named x");
	assert_remove_refused("{\"servers\": 3}", "x",
	    "\"servers\" is not an object");
	assert_removed(conf, "c",
	    "{\"mcpServers\": {\"a\": {}, \"b\": {}},\n"
	    " \"groups\": {\"dev\": {\"servers\": [\"a\", \"b\"]},\n"
	    "   \"web\": {\"servers\": [\"b\"]}}}");
}
END_TEST

START_TEST(test_confedit_round_trip)
{
	const char	*server = "{\"command\": \"x\", \"args\": [\"1\"], "
	    "\"env\": {\"A\": \"b\"}}";

	assert_round_trip(
	    "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"a\"}\n  }\n}\n",
	    "x", server);
	assert_round_trip(
	    "{\n\t\"mcpServers\": {\n\t\t\"a\": {\n\t\t\t\"command\": \"a\"\n"
	    "\t\t}\n\t},\n\t\"groups\": {}\n}", "x", server);
	assert_round_trip("{\"mcpServers\": {\"a\": 1}}", "x", server);
	assert_round_trip("{\"mcpServers\": {}}\n", "x", server);
	/* Comments and trailing commas, as import reads them. */
	assert_round_trip(
	    "{\n  // mine\n  \"mcpServers\": {\n    \"a\": 1, // one\n"
	    "    \"b\": 2,\n  },\n}\n", "x", server);
}
END_TEST

START_TEST(test_confedit_mask)
{
	/* Values masked; references alone shown; every other byte kept. */
	assert_masked(
	    "{\"mcpServers\": {\"a\": {\"command\": \"secret-free\",\n"
	    "  \"env\": {\"T\": \"hunter2\", \"R\": \"${TOKEN}\",\n"
	    "    \"C\": \"${credential:tok}\", \"D\": \"${X:-dflt}\",\n"
	    "    \"E\": \"${X:-}\", \"L\": \"$$\", \"M\": \"a${X}\", \"N\": 3},\n"
	    "  \"headers\": {\"Authorization\": \"Bearer xyz\"}}},\n"
	    " \"servers\": {\"v\": {\"env\": {\"V\": \"\\\"q\\\"\"}}},\n"
	    " \"other\": {\"env\": {\"O\": \"shown\"}}}",
	    "{\"mcpServers\": {\"a\": {\"command\": \"secret-free\",\n"
	    "  \"env\": {\"T\": \"[redacted]\", \"R\": \"${TOKEN}\",\n"
	    "    \"C\": \"${credential:tok}\", \"D\": \"[redacted]\",\n"
	    "    \"E\": \"${X:-}\", \"L\": \"[redacted]\", "
	    "\"M\": \"[redacted]\", \"N\": 3},\n"
	    "  \"headers\": {\"Authorization\": \"[redacted]\"}}},\n"
	    " \"servers\": {\"v\": {\"env\": {\"V\": \"[redacted]\"}}},\n"
	    " \"other\": {\"env\": {\"O\": \"shown\"}}}");
	/* What is no configuration comes back as it is. */
	assert_masked("{\"mcpServers\": ", "{\"mcpServers\": ");
	assert_masked("", "");
	assert_masked("[1]", "[1]");
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("confedit");
	tc = tcase_create("confedit");
	tcase_add_test(tc, test_confedit_add);
	tcase_add_test(tc, test_confedit_add_refused);
	tcase_add_test(tc, test_confedit_remove);
	tcase_add_test(tc, test_confedit_remove_refused);
	tcase_add_test(tc, test_confedit_round_trip);
	tcase_add_test(tc, test_confedit_mask);
	suite_add_tcase(s, tc);
	return (s);
}
