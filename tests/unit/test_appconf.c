/*
 * test_appconf.c -- unit tests for other apps' MCP server entries
 * (src/appconf.c): each app's file read from fixtures in the apps' current
 * shapes (tests/unit/fixtures/apps), merged into mcpd's configuration,
 * and an app's file rewritten with its comments kept.
 */

#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "appconf.h"
#include "conf.h"
#include "jsonc.h"
#include "unit.h"
#include "xmalloc.h"

#define S(lit)	(lit), sizeof (lit) - 1

static const struct appconf_file desktop = {
	"claude-desktop", "desktop", APPCONF_MCPSERVERS, APPCONF_SYNTAX_NONE,
	NULL, NULL
};
static const struct appconf_file cursor = {
	"cursor", "cursor", APPCONF_MCPSERVERS, APPCONF_SYNTAX_VSCODE,
	NULL, NULL
};
/* A project's .vscode/mcp.json. */
static const struct appconf_file vscode = {
	"vscode", "vscode", APPCONF_SERVERS, APPCONF_SYNTAX_VSCODE,
	"/work/proj", NULL, 1
};
static const struct appconf_file claude_json = {
	"claude-code", "claude", APPCONF_CLAUDE_JSON, APPCONF_SYNTAX_MCPD,
	"/work/proj", "/work/proj"
};
/* A project's .mcp.json. */
static const struct appconf_file mcp_json = {
	"claude-code", "mcp", APPCONF_MCPSERVERS, APPCONF_SYNTAX_MCPD,
	"/work/proj", NULL, 1
};

static char *
fixture(const char *name, size_t *len)
{
	const char	*dir = getenv("TESTS_SRCDIR");
	char		 path[4096], *text;
	FILE		*f;
	long		 n;

	snprintf(path, sizeof path, "%s/unit/fixtures/apps/%s",
	    dir != NULL ? dir : "tests", name);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s: cannot open", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = malloc(n + 1);
	ck_assert_uint_eq(fread(text, 1, n, f), (size_t)n);
	text[n] = '\0';
	fclose(f);
	*len = n;
	return (text);
}

static void
read_fixture(const struct appconf_file *af, const char *name,
    struct appconf_list *list)
{
	char	*text, *cause = NULL;
	size_t	 len;

	text = fixture(name, &len);
	ck_assert_msg(appconf_read(af, text, len, list, &cause) == 0,
	    "%s: %s", name, cause);
	free(text);
}

/* The entry's mcpd form printed compactly must be want. */
static void
assert_entry(const struct appconf_list *list, size_t i, const char *name,
    const char *want)
{
	char	*got;

	ck_assert_uint_lt(i, list->n);
	ck_assert_str_eq(list->v[i].name, name);
	got = cJSON_PrintUnformatted(list->v[i].server);
	ck_assert_str_eq(got, want);
	free(got);
}

static int
has_note(const struct appconf_entry *e, const char *part)
{
	size_t	 i;

	for (i = 0; i < e->nnotes; i++) {
		if (strstr(e->notes[i], part) != NULL)
			return (1);
	}
	return (0);
}

START_TEST(test_appconf_claude_desktop)
{
	struct appconf_list	 l = { NULL, 0 };

	read_fixture(&desktop, "claude_desktop_config.json", &l);
	ck_assert_uint_eq(l.n, 2);
	assert_entry(&l, 0, "filesystem", "{\"command\":\"npx\",\"args\":"
	    "[\"-y\",\"@modelcontextprotocol/server-filesystem\","
	    "\"/home/alice/Desktop\"]}");
	/* No variables in Claude Desktop: a '$' stays one for mcpd. */
	assert_entry(&l, 1, "fetch", "{\"command\":\"uvx\",\"args\":"
	    "[\"mcp-server-fetch\"],\"env\":{\"PRICE\":\"$$5\"}}");
	ck_assert_str_eq(l.v[1].keys[0], "mcpServers");
	ck_assert_str_eq(l.v[1].keys[1], "fetch");
	appconf_list_free(&l);
}
END_TEST

START_TEST(test_appconf_cursor)
{
	struct appconf_list	 l = { NULL, 0 };

	read_fixture(&cursor, "cursor_mcp.json", &l);
	ck_assert_uint_eq(l.n, 4);
	assert_entry(&l, 1, "fetch", "{\"command\":\"uvx\",\"args\":"
	    "[\"mcp-server-fetch\",\"--ignore-robots-txt\"]}");
	ck_assert(has_note(&l.v[1], "\"alwaysAllow\": the app's own setting, "
	    "dropped"));
	ck_assert(has_note(&l.v[1], "\"autoApprove\""));
	/* Remote, its type, ${env:NAME} as mcpd's ${NAME}. */
	assert_entry(&l, 2, "linear", "{\"type\":\"sse\",\"url\":"
	    "\"https://mcp.linear.app/sse\",\"headers\":{\"Authorization\":"
	    "\"Bearer ${LINEAR_TOKEN}\"}}");
	/* Disabled in the app, disabled in mcpd; ${userHome} is $HOME. */
	assert_entry(&l, 3, "notes", "{\"command\":\"${HOME}/bin/notes-mcp\","
	    "\"disabled\":true}");
	ck_assert_int_eq(l.v[3].was_disabled, 1);
	appconf_list_free(&l);
}
END_TEST

START_TEST(test_appconf_vscode)
{
	struct appconf_list	 l = { NULL, 0 };

	read_fixture(&vscode, "vscode_mcp.json", &l);
	ck_assert_uint_eq(l.n, 3);
	/* A prompted input: imported disabled, with a note, not dropped. */
	assert_entry(&l, 0, "perplexity", "{\"command\":\"npx\",\"args\":"
	    "[\"-y\",\"server-perplexity-ask\"],\"env\":{\"PERPLEXITY_API_KEY\":"
	    "\"${MCPD_INPUT_PERPLEXITY_KEY:-}\"},\"disabled\":true}");
	ck_assert(has_note(&l.v[0], "env.PERPLEXITY_API_KEY: needs a value "
	    "(the app prompts for input \"perplexity-key\")"));
	assert_entry(&l, 1, "github", "{\"type\":\"http\",\"url\":"
	    "\"https://api.githubcopilot.com/mcp/\"}");
	/*
	 * ${workspaceFolder} is the project's directory; envFile kept, but
	 * mcpd reads it: a project's entry with one is held back.
	 */
	assert_entry(&l, 2, "db", "{\"command\":\"uv\",\"args\":[\"run\","
	    "\"db-mcp\",\"--path\",\"/work/proj/data // not a comment\"],"
	    "\"envFile\":\"/work/proj/.env\",\"disabled\":true}");
	ck_assert(has_note(&l.v[2], "\"dev\""));
	ck_assert(has_note(&l.v[2], "envFile: mcpd reads this file into the "
	    "server's environment, as its own user; a project's file gets "
	    "none of mcpd's secrets unasked: imported disabled"));
	ck_assert_str_eq(l.v[2].keys[0], "servers");
	appconf_list_free(&l);
}
END_TEST

START_TEST(test_appconf_vscode_user_workspace_unknown)
{
	static const struct appconf_file user = {
		"vscode", "user", APPCONF_SERVERS, APPCONF_SYNTAX_VSCODE,
		NULL, NULL
	};
	struct appconf_list	 l = { NULL, 0 };

	read_fixture(&user, "vscode_mcp.json", &l);
	/* No workspace for the user's file: the value is needed. */
	ck_assert(has_note(&l.v[2], "workspaceFolder"));
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(l.v[2].server,
	    "disabled")));
	appconf_list_free(&l);
}
END_TEST

START_TEST(test_appconf_claude_code)
{
	struct appconf_list	 l = { NULL, 0 };

	read_fixture(&claude_json, "claude.json", &l);
	read_fixture(&mcp_json, "mcp.json", &l);
	ck_assert_uint_eq(l.n, 3);
	/* User scope, then the local scope of this project only. */
	assert_entry(&l, 0, "memory", "{\"command\":\"npx\",\"args\":[\"-y\","
	    "\"@modelcontextprotocol/server-memory\"]}");
	assert_entry(&l, 1, "sentry", "{\"type\":\"http\",\"url\":"
	    "\"https://mcp.sentry.dev/mcp\"}");
	ck_assert_uint_eq(l.v[1].nkeys, 4);
	ck_assert_str_eq(l.v[1].keys[1], "/work/proj");
	/*
	 * Claude Code's ${VAR:-default} is mcpd's: kept as it is, but read
	 * from mcpd's environment, which a project's entry does not get
	 * unasked.
	 */
	assert_entry(&l, 2, "api", "{\"type\":\"http\",\"url\":"
	    "\"${API_BASE_URL:-https://api.example.com}/mcp\",\"headers\":"
	    "{\"Authorization\":\"Bearer ${API_KEY}\"},\"disabled\":true}");
	ck_assert(has_note(&l.v[2], "url: ${API_BASE_URL} is read from mcpd's "
	    "environment, not the app's; a project's file"));
	ck_assert(has_note(&l.v[2], "headers.Authorization: ${API_KEY} is "
	    "read from mcpd's environment"));
	ck_assert_int_eq(l.v[2].was_disabled, 0);
	appconf_list_free(&l);
}
END_TEST

START_TEST(test_appconf_through_mcpd_skipped)
{
	struct appconf_list	 l = { NULL, 0 };
	char			*cause;

	ck_assert_int_eq(appconf_read(&cursor, S("{\"mcpServers\": {\"a\": "
	    "{\"command\": \"/usr/bin/mcpctl\", \"args\": [\"connect\", "
	    "\"a\"]}, \"b\": 3}}"), &l, &cause), 0);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_int_eq(l.v[0].status, APPCONF_SKIPPED);
	ck_assert_int_eq(l.v[1].status, APPCONF_SKIPPED);
	appconf_list_free(&l);
	ck_assert_int_eq(appconf_read(&cursor, S("{\"mcpServers\": []}"), &l,
	    &cause), -1);
	ck_assert_str_eq(cause, "\"mcpServers\" is not an object");
	free(cause);
	ck_assert_int_eq(appconf_read(&cursor, S("{\"mcpServers\": {"), &l,
	    &cause), -1);
	ck_assert_str_eq(cause, "line 1, column 17: invalid JSON");
	free(cause);
}
END_TEST

/*
 * Issue 28, case 9: a project's .mcp.json asks for mcpd's credential and
 * environment.  The references stay as written (mcpd's own syntax), each
 * is said, and the entry is imported disabled; the same entry in the
 * user's own file is said and not held back.  The variables every server
 * gets anyway are neither.
 */
START_TEST(test_appconf_project_secrets)
{
	static const struct appconf_file user = {
		"claude-code", "user", APPCONF_MCPSERVERS, APPCONF_SYNTAX_MCPD,
		NULL, NULL, 0
	};
	const char	 text[] = "{\"mcpServers\": {\"gh\": {"
	    "\"command\": \"${HOME}/bin/gh-mcp\","
	    "\"args\": [\"--token=${GITHUB_TOKEN}\"],"
	    "\"env\": {\"X\": \"${credential:github}\","
	    "\"Y\": \"${GITHUB_TOKEN}\", \"Z\": \"${USER:-me}\","
	    "\"P\": \"$${NOT_A_VARIABLE}\"}}}}";
	const char	 want[] = "{\"command\":\"${HOME}/bin/gh-mcp\","
	    "\"args\":[\"--token=${GITHUB_TOKEN}\"],\"env\":{\"X\":"
	    "\"${credential:github}\",\"Y\":\"${GITHUB_TOKEN}\",\"Z\":"
	    "\"${USER:-me}\",\"P\":\"$${NOT_A_VARIABLE}\"}";
	struct appconf_list	 l = { NULL, 0 };
	struct appconf_entry	*e;
	char			*cause, *wanted;
	size_t			 i;

	ck_assert_int_eq(appconf_read(&mcp_json, S(text), &l, &cause), 0);
	ck_assert_int_eq(appconf_read(&user, S(text), &l, &cause), 0);
	ck_assert_uint_eq(l.n, 2);
	xasprintf(&wanted, "%s,\"disabled\":true}", want);
	assert_entry(&l, 0, "gh", wanted);
	free(wanted);
	xasprintf(&wanted, "%s}", want);
	assert_entry(&l, 1, "gh", wanted);
	free(wanted);
	for (i = 0; i < 2; i++) {
		e = &l.v[i];
		ck_assert(has_note(e, "env.X: ${credential:github} is mcpd's "
		    "systemd credential \"github\" (LoadCredential= of its "
		    "unit), not the app's"));
		ck_assert(has_note(e, "env.Y: ${GITHUB_TOKEN} is read from "
		    "mcpd's environment, not the app's"));
		ck_assert(has_note(e, "args: ${GITHUB_TOKEN} is read from "
		    "mcpd's environment"));
		/* Every server gets HOME and USER; "$$" is no reference. */
		ck_assert(!has_note(e, "HOME"));
		ck_assert(!has_note(e, "USER"));
		ck_assert(!has_note(e, "NOT_A_VARIABLE"));
		ck_assert_uint_eq(e->nnotes, 3);
	}
	ck_assert(has_note(&l.v[0], "imported disabled"));
	ck_assert(!has_note(&l.v[1], "imported disabled"));
	ck_assert(has_note(&l.v[1], "give mcpd that variable"));
	appconf_list_free(&l);
}
END_TEST

/*
 * The same from a project's VS Code and Cursor files: ${env:VAR} is
 * mcpd's ${VAR}, held back; a form mcpd has that the app does not
 * (${credential:...}) is an unknown variable there, held back as before.
 */
START_TEST(test_appconf_project_secrets_vscode)
{
	static const struct appconf_file user = {
		"cursor", "user", APPCONF_MCPSERVERS, APPCONF_SYNTAX_VSCODE,
		NULL, NULL, 0
	};
	const char	 text[] = "{\"mcpServers\": {\"gh\": {"
	    "\"command\": \"gh-mcp\", \"env\": {"
	    "\"Y\": \"${env:GITHUB_TOKEN}\", \"H\": \"${userHome}/x\"}},"
	    "\"c\": {\"command\": \"c\", \"env\": {\"X\": "
	    "\"${credential:github}\"}}}}";
	struct appconf_file	 project = user;
	struct appconf_list	 l = { NULL, 0 };
	char			*cause;

	project.workspace = "/work/proj";
	project.in_project = 1;
	ck_assert_int_eq(appconf_read(&project, S(text), &l, &cause), 0);
	ck_assert_int_eq(appconf_read(&user, S(text), &l, &cause), 0);
	ck_assert_uint_eq(l.n, 4);
	assert_entry(&l, 0, "gh", "{\"command\":\"gh-mcp\",\"env\":{\"Y\":"
	    "\"${GITHUB_TOKEN}\",\"H\":\"${HOME}/x\"},\"disabled\":true}");
	ck_assert(has_note(&l.v[0], "env.Y: ${GITHUB_TOKEN} is read from "
	    "mcpd's environment, not the app's; a project's file"));
	ck_assert_uint_eq(l.v[0].nnotes, 1);
	assert_entry(&l, 2, "gh", "{\"command\":\"gh-mcp\",\"env\":{\"Y\":"
	    "\"${GITHUB_TOKEN}\",\"H\":\"${HOME}/x\"}}");
	ck_assert(has_note(&l.v[2], "env.Y: ${GITHUB_TOKEN} is read from "
	    "mcpd's environment, not the app's: give mcpd that variable"));
	/* Not Cursor's form: a value mcpd cannot know, in either file. */
	assert_entry(&l, 1, "c", "{\"command\":\"c\",\"env\":{\"X\":"
	    "\"${MCPD_INPUT_CREDENTIAL_GITHUB:-}\"},\"disabled\":true}");
	assert_entry(&l, 3, "c", "{\"command\":\"c\",\"env\":{\"X\":"
	    "\"${MCPD_INPUT_CREDENTIAL_GITHUB:-}\"},\"disabled\":true}");
	appconf_list_free(&l);
}
END_TEST

static const char *
test_getenv(const char *name, void *arg)
{
	if (strcmp(name, "HOME") == 0)
		return ("/home/alice");
	if (strcmp(name, "LINEAR_TOKEN") == 0)
		return ("tok");
	return (NULL);
}

START_TEST(test_appconf_merge_empty)
{
	struct appconf_list	 l = { NULL, 0 };
	struct conf_diags	 d;
	struct conf		*conf;
	char			*out, *cause;
	size_t			 outlen, i;

	read_fixture(&desktop, "claude_desktop_config.json", &l);
	read_fixture(&cursor, "cursor_mcp.json", &l);
	ck_assert_int_eq(appconf_merge("", 0, &l, &out, &outlen, &cause), 0);
	/* The same filesystem server in both apps: once. */
	ck_assert_int_eq(l.v[0].status, APPCONF_NEW);
	ck_assert_int_eq(l.v[2].status, APPCONF_SAME);
	ck_assert_str_eq(l.v[2].mcpd_name, "filesystem");
	/* Two different fetch servers: the second renamed. */
	ck_assert_int_eq(l.v[3].status, APPCONF_NEW);
	ck_assert_str_eq(l.v[3].mcpd_name, "fetch-cursor");
	ck_assert_int_eq(l.v[3].renamed, 1);
	/* mcpd takes the result, remote and disabled servers included. */
	conf_diags_init(&d);
	conf = conf_parse(out, outlen, test_getenv, NULL, &d);
	for (i = 0; i < d.n; i++)
		fprintf(stderr, "%s\n", d.v[i].text);
	ck_assert_ptr_nonnull(conf);
	ck_assert_uint_eq(conf->nservers, 5);
	ck_assert_str_eq(conf->servers[2].name, "fetch-cursor");
	ck_assert_int_eq(conf_server_is_remote(&conf->servers[3]), 1);
	ck_assert_int_eq(conf->servers[3].transport, CONF_TRANSPORT_SSE);
	ck_assert_int_eq(conf->servers[4].disabled, 1);
	ck_assert_str_eq(conf->servers[1].env[0], "PRICE=$5");
	conf_free(conf);
	conf_diags_free(&d);
	free(out);
	appconf_list_free(&l);
}
END_TEST

START_TEST(test_appconf_merge_existing)
{
	const char		 text[] =
	    "{\n"
	    "\t\"mcpd\": { \"restart\": \"always\" },\n"
	    "\t\"mcpServers\": {\n"
	    "\t\t\"fetch\": {\n"
	    "\t\t\t\"command\": \"uvx\", \"args\": [\"mcp-server-fetch\"],\n"
	    "\t\t\t\"env\": { \"PRICE\": \"$$5\" },\n"
	    "\t\t\t\"restart\": \"on-failure\"\n"
	    "\t\t}\n"
	    "\t},\n"
	    "\t\"servers\": { \"filesystem\": { \"type\": \"stdio\", "
	    "\"command\": \"other\" } }\n"
	    "}\n";
	const char		 want[] =
	    "{\n"
	    "\t\"mcpd\": { \"restart\": \"always\" },\n"
	    "\t\"mcpServers\": {\n"
	    "\t\t\"fetch\": {\n"
	    "\t\t\t\"command\": \"uvx\", \"args\": [\"mcp-server-fetch\"],\n"
	    "\t\t\t\"env\": { \"PRICE\": \"$$5\" },\n"
	    "\t\t\t\"restart\": \"on-failure\"\n"
	    "\t\t},\n"
	    "\t\t\"filesystem-claude-desktop\": {\n"
	    "\t\t\t\"command\": \"npx\",\n"
	    "\t\t\t\"args\": [\"-y\", "
	    "\"@modelcontextprotocol/server-filesystem\", "
	    "\"/home/alice/Desktop\"]\n"
	    "\t\t}\n"
	    "\t},\n"
	    "\t\"servers\": { \"filesystem\": { \"type\": \"stdio\", "
	    "\"command\": \"other\" } }\n"
	    "}\n";
	struct appconf_list	 l = { NULL, 0 };
	char			*out, *cause;
	size_t			 outlen;

	read_fixture(&desktop, "claude_desktop_config.json", &l);
	ck_assert_int_eq(appconf_merge(S(text), &l, &out, &outlen, &cause),
	    0);
	/* mcpd's own settings do not make it another server. */
	ck_assert_int_eq(l.v[1].status, APPCONF_SAME);
	ck_assert_str_eq(l.v[1].mcpd_name, "fetch");
	/* "servers" names count as taken. */
	ck_assert_str_eq(l.v[0].mcpd_name, "filesystem-claude-desktop");
	ck_assert_str_eq(out, want);
	free(out);

	/* Merging again changes nothing. */
	ck_assert_int_eq(appconf_merge(S(want), &l, &out, &outlen, &cause),
	    0);
	ck_assert_str_eq(out, want);
	ck_assert_int_eq(l.v[0].status, APPCONF_SAME);
	free(out);
	appconf_list_free(&l);
}
END_TEST

START_TEST(test_appconf_merge_shapes)
{
	struct appconf_list	 l = { NULL, 0 };
	char			*out, *cause;
	size_t			 outlen;

	read_fixture(&claude_json, "claude.json", &l);
	/* No "mcpServers" yet: one is added at the top level. */
	ck_assert_int_eq(appconf_merge(S("{ \"mcpd\": {} }"), &l, &out,
	    &outlen, &cause), 0);
	ck_assert_str_eq(out, "{ \"mcpd\": {},\n  \"mcpServers\": {\n"
	    "    \"memory\": {\n      \"command\": \"npx\",\n"
	    "      \"args\": [\"-y\", \"@modelcontextprotocol/server-memory\"]\n"
	    "    },\n    \"sentry\": {\n      \"type\": \"http\",\n"
	    "      \"url\": \"https://mcp.sentry.dev/mcp\"\n    }\n  } }");
	free(out);
	/* An empty "mcpServers" is filled. */
	ck_assert_int_eq(appconf_merge(S("{\n  \"mcpServers\": {}\n}\n"), &l,
	    &out, &outlen, &cause), 0);
	ck_assert(strncmp(out, "{\n  \"mcpServers\": {\n    \"memory\": {\n",
	    36) == 0);
	ck_assert(strcmp(out + outlen - 7, "}\n  }\n}\n") == 0 ||
	    strstr(out, "\n  }\n}\n") != NULL);
	free(out);
	ck_assert_int_eq(appconf_merge(S("[]"), &l, &out, &outlen, &cause),
	    -1);
	ck_assert_str_eq(cause, "the top level is not an object");
	free(cause);
	ck_assert_int_eq(appconf_merge(S("{\"mcpServers\": 1}"), &l, &out,
	    &outlen, &cause), -1);
	free(cause);
	appconf_list_free(&l);
}
END_TEST

START_TEST(test_appconf_rewrite_keeps_comments)
{
	struct appconf_list		 l = { NULL, 0 };
	const struct appconf_entry	*e[2];
	cJSON				*with[2];
	char				*text, *out, *cause;
	size_t				 len, outlen;
	cJSON				*root;

	text = fixture("vscode_mcp.json", &len);
	read_fixture(&vscode, "vscode_mcp.json", &l);
	e[0] = &l.v[2];
	e[1] = &l.v[0];
	with[0] = cJSON_Parse("{\"type\": \"stdio\", \"command\": \"/bin/m\","
	    " \"args\": [\"connect\", \"db\"]}");
	with[1] = NULL;
	out = appconf_rewrite(text, len, e, with, 2, &outlen, &cause);
	ck_assert_ptr_nonnull(out);
	/* Comments elsewhere, the other entries and the inputs stay. */
	ck_assert_ptr_nonnull(strstr(out, "// VS Code's mcp.json"));
	ck_assert_ptr_nonnull(strstr(out, "/* prompted */"));
	ck_assert_ptr_nonnull(strstr(out, "\"id\": \"perplexity-key\""));
	ck_assert_ptr_nonnull(strstr(out, "    \"db\": {\n"
	    "      \"type\": \"stdio\",\n      \"command\": \"/bin/m\",\n"
	    "      \"args\": [\"connect\", \"db\"]\n    },\n  },\n}"));
	ck_assert_ptr_null(strstr(out, "\"envFile\": \"${workspaceFolder}"));
	ck_assert(strncmp(out, text, strstr(text, "    \"db\"") - text) == 0);
	root = jsonc_parse(out, outlen, &cause);
	ck_assert_ptr_nonnull(root);
	cJSON_Delete(root);
	free(out);
	cJSON_Delete(with[0]);
	free(text);
	appconf_list_free(&l);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("appconf");
	tc = tcase_create("read");
	tcase_add_test(tc, test_appconf_claude_desktop);
	tcase_add_test(tc, test_appconf_cursor);
	tcase_add_test(tc, test_appconf_vscode);
	tcase_add_test(tc, test_appconf_vscode_user_workspace_unknown);
	tcase_add_test(tc, test_appconf_claude_code);
	tcase_add_test(tc, test_appconf_through_mcpd_skipped);
	tcase_add_test(tc, test_appconf_project_secrets);
	tcase_add_test(tc, test_appconf_project_secrets_vscode);
	suite_add_tcase(s, tc);
	tc = tcase_create("merge");
	tcase_add_test(tc, test_appconf_merge_empty);
	tcase_add_test(tc, test_appconf_merge_existing);
	tcase_add_test(tc, test_appconf_merge_shapes);
	tcase_add_test(tc, test_appconf_rewrite_keeps_comments);
	suite_add_tcase(s, tc);
	return (s);
}
