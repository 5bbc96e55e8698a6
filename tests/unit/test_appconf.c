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
#include "appshape.h"
#include "conf.h"
#include "jsonc.h"
#include "unit.h"
#include "util.h"
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

static const struct appconf_file windsurf = {
	"windsurf", "windsurf", APPCONF_WINDSURF, APPCONF_SYNTAX_VSCODE,
	NULL, NULL
};
static const struct appconf_file zed = {
	"zed", "zed", APPCONF_ZED, APPCONF_SYNTAX_NONE, NULL, NULL
};
static const struct appconf_file cline = {
	"cline", "cline", APPCONF_CLINE, APPCONF_SYNTAX_NONE, NULL, NULL
};
static const struct appconf_file gemini = {
	"gemini-cli", "gemini", APPCONF_GEMINI, APPCONF_SYNTAX_SHELL,
	NULL, NULL
};
/* A project's opencode.json. */
static const struct appconf_file opencode = {
	"opencode", "opencode", APPCONF_OPENCODE, APPCONF_SYNTAX_OPENCODE,
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
	    "\"/home/alice/Desktop\"],\"sandbox\":\"default\"}");
	/* No variables in Claude Desktop: a '$' stays one for mcpd. */
	assert_entry(&l, 1, "fetch", "{\"command\":\"uvx\",\"args\":"
	    "[\"mcp-server-fetch\"],\"env\":{\"PRICE\":\"$$5\"},\"sandbox\":\"default\"}");
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
	    "[\"mcp-server-fetch\",\"--ignore-robots-txt\"],\"sandbox\":\"default\"}");
	ck_assert(has_note(&l.v[1], "\"alwaysAllow\": the app's own setting, "
	    "dropped"));
	ck_assert(has_note(&l.v[1], "\"autoApprove\""));
	/* Remote, its type, ${env:NAME} as mcpd's ${NAME}. */
	assert_entry(&l, 2, "linear", "{\"type\":\"sse\",\"url\":"
	    "\"https://mcp.linear.app/sse\",\"headers\":{\"Authorization\":"
	    "\"Bearer ${LINEAR_TOKEN}\"}}");
	/* Disabled in the app, disabled in mcpd; ${userHome} is $HOME. */
	assert_entry(&l, 3, "notes", "{\"command\":\"${HOME}/bin/notes-mcp\","
	    "\"disabled\":true,\"sandbox\":\"default\"}");
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
	    "\"${MCPD_INPUT_PERPLEXITY_KEY:-}\"},\"disabled\":true,\"sandbox\":\"default\"}");
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
	    "\"envFile\":\"/work/proj/.env\",\"disabled\":true,\"sandbox\":\"default\"}");
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
	    "\"@modelcontextprotocol/server-memory\"],\"sandbox\":\"default\"}");
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
	ck_assert_str_eq(cause, "\"mcpServers\" is not an object (expected "
	    "a server by name: {\"NAME\": {...}})");
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
	xasprintf(&wanted, "%s,\"disabled\":true,\"sandbox\":\"default\"}",
	    want);
	assert_entry(&l, 0, "gh", wanted);
	free(wanted);
	xasprintf(&wanted, "%s,\"sandbox\":\"default\"}", want);
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
	    "\"${GITHUB_TOKEN}\",\"H\":\"${HOME}/x\"},\"disabled\":true,\"sandbox\":\"default\"}");
	ck_assert(has_note(&l.v[0], "env.Y: ${GITHUB_TOKEN} is read from "
	    "mcpd's environment, not the app's; a project's file"));
	ck_assert_uint_eq(l.v[0].nnotes, 1);
	assert_entry(&l, 2, "gh", "{\"command\":\"gh-mcp\",\"env\":{\"Y\":"
	    "\"${GITHUB_TOKEN}\",\"H\":\"${HOME}/x\"},\"sandbox\":\"default\"}");
	ck_assert(has_note(&l.v[2], "env.Y: ${GITHUB_TOKEN} is read from "
	    "mcpd's environment, not the app's: give mcpd that variable"));
	/* Not Cursor's form: a value mcpd cannot know, in either file. */
	assert_entry(&l, 1, "c", "{\"command\":\"c\",\"env\":{\"X\":"
	    "\"${MCPD_INPUT_CREDENTIAL_GITHUB:-}\"},\"disabled\":true,\"sandbox\":\"default\"}");
	assert_entry(&l, 3, "c", "{\"command\":\"c\",\"env\":{\"X\":"
	    "\"${MCPD_INPUT_CREDENTIAL_GITHUB:-}\"},\"disabled\":true,\"sandbox\":\"default\"}");
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
	    "\"/home/alice/Desktop\"],\n"
	    "\t\t\t\"sandbox\": \"default\"\n"
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
	    "      \"args\": [\"-y\", \"@modelcontextprotocol/server-memory\"],\n"
	    "      \"sandbox\": \"default\"\n"
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

START_TEST(test_appconf_windsurf)
{
	struct appconf_list	 l = { NULL, 0 };

	read_fixture(&windsurf, "windsurf_mcp_config.json", &l);
	ck_assert_uint_eq(l.n, 3);
	/* ${env:NAME} as VS Code writes it. */
	assert_entry(&l, 0, "github", "{\"command\":\"npx\",\"args\":[\"-y\","
	    "\"@modelcontextprotocol/server-github\"],\"env\":{"
	    "\"GITHUB_PERSONAL_ACCESS_TOKEN\":\"${GITHUB_TOKEN}\"},\"sandbox\":\"default\"}");
	ck_assert(has_note(&l.v[0], "${GITHUB_TOKEN} is read from mcpd's "
	    "environment"));
	/* "serverUrl" is the remote server's URL; mcpd finds the transport. */
	assert_entry(&l, 1, "figma", "{\"url\":\"https://mcp.example.com/mcp\","
	    "\"headers\":{\"Authorization\":\"Bearer ${AUTH_TOKEN}\"}}");
	/* ${file:PATH} is Windsurf's: a value mcpd cannot know. */
	assert_entry(&l, 2, "notes", "{\"command\":\"notes-mcp\",\"args\":["
	    "\"--key\",\"${MCPD_INPUT_FILE__HOME_ALICE__NOTES_KEY:-}\"],"
	    "\"disabled\":true,\"sandbox\":\"default\"}");
	ck_assert(has_note(&l.v[2], "args: needs a value (mcpd does not know "
	    "the app's variable \"file:/home/alice/.notes-key\")"));
	ck_assert(has_note(&l.v[2], "\"disabledTools\": the app's own "
	    "setting, dropped"));
	ck_assert_int_eq(l.v[2].was_disabled, 1);
	ck_assert_str_eq(l.v[2].keys[0], "mcpServers");
	appconf_list_free(&l);
}
END_TEST

START_TEST(test_appconf_zed)
{
	struct appconf_list	 l = { NULL, 0 };

	read_fixture(&zed, "zed_settings.json", &l);
	ck_assert_uint_eq(l.n, 5);
	assert_entry(&l, 0, "your-mcp-server", "{\"command\":\"some-command\","
	    "\"args\":[\"arg-1\",\"arg-2\"],\"sandbox\":\"default\"}");
	ck_assert_uint_eq(l.v[0].nnotes, 0);
	ck_assert_str_eq(l.v[0].keys[0], "context_servers");
	ck_assert_str_eq(l.v[0].keys[1], "your-mcp-server");
	/* "enabled": false; no variables in Zed: '$' stays one for mcpd. */
	assert_entry(&l, 1, "fetch", "{\"command\":\"uvx\",\"args\":["
	    "\"mcp-server-fetch\"],\"env\":{\"PRICE\":\"$$5\"},"
	    "\"disabled\":true,\"sandbox\":\"default\"}");
	ck_assert_int_eq(l.v[1].was_disabled, 1);
	assert_entry(&l, 2, "remote-docs", "{\"url\":"
	    "\"https://mcp.example.com/mcp\",\"headers\":{\"Authorization\":"
	    "\"Bearer abc\"}}");
	/* An extension's server: Zed starts it, not the file. */
	ck_assert_int_eq(l.v[3].status, APPCONF_SKIPPED);
	ck_assert_ptr_null(l.v[3].server);
	ck_assert(has_note(&l.v[3], "a server of a Zed extension"));
	/* The older shape: "command": {"path", "args", "env"}. */
	assert_entry(&l, 4, "older", "{\"command\":\"/usr/local/bin/older-mcp\","
	    "\"args\":[\"--stdio\"],\"env\":{\"LEVEL\":\"1\"},\"sandbox\":\"default\"}");
	ck_assert(has_note(&l.v[4], "\"settings\": the app's own setting"));
	appconf_list_free(&l);
}
END_TEST

START_TEST(test_appconf_cline)
{
	struct appconf_list	 l = { NULL, 0 };

	read_fixture(&cline, "cline_mcp_settings.json", &l);
	ck_assert_uint_eq(l.n, 4);
	assert_entry(&l, 0, "local-server", "{\"command\":\"node\",\"args\":["
	    "\"/path/to/server.js\"],\"env\":{\"API_KEY\":\"your_api_key\"},\"sandbox\":\"default\"}");
	ck_assert(has_note(&l.v[0], "\"alwaysAllow\": the app's own setting"));
	ck_assert_int_eq(l.v[0].was_disabled, 0);
	/* A "url" without "type" is SSE to Cline. */
	assert_entry(&l, 1, "remote-sse", "{\"type\":\"sse\",\"url\":"
	    "\"https://your-server-url.com/mcp\",\"headers\":{"
	    "\"Authorization\":\"Bearer your-token\"}}");
	assert_entry(&l, 2, "remote-http", "{\"type\":\"http\",\"url\":"
	    "\"https://example.com/mcp\"}");
	ck_assert(has_note(&l.v[2], "\"timeout\""));
	/* No variables in Cline. */
	assert_entry(&l, 3, "brave-search", "{\"command\":\"npx\",\"args\":["
	    "\"-y\",\"@modelcontextprotocol/server-brave-search\"],\"env\":{"
	    "\"BRAVE_API_KEY\":\"$${BRAVE}\"},\"disabled\":true,\"sandbox\":\"default\"}");
	ck_assert_int_eq(l.v[3].was_disabled, 1);
	appconf_list_free(&l);
}
END_TEST

START_TEST(test_appconf_cline_legacy)
{
	struct appconf_list	 l = { NULL, 0 };
	char			*cause;

	ck_assert_int_eq(appconf_read(&cline, S("{\"mcpServers\": {"
	    "\"a\": {\"url\": \"https://a.example/mcp\", \"transportType\": "
	    "\"http\"}, \"b\": {\"url\": \"https://b.example/sse\", "
	    "\"transportType\": \"sse\"}}}"), &l, &cause), 0);
	assert_entry(&l, 0, "a", "{\"type\":\"http\",\"url\":"
	    "\"https://a.example/mcp\"}");
	assert_entry(&l, 1, "b", "{\"type\":\"sse\",\"url\":"
	    "\"https://b.example/sse\"}");
	ck_assert_uint_eq(l.v[0].nnotes, 0);
	appconf_list_free(&l);
}
END_TEST

START_TEST(test_appconf_gemini)
{
	struct appconf_file	 project = gemini;
	struct appconf_list	 l = { NULL, 0 };

	read_fixture(&gemini, "gemini_settings.json", &l);
	ck_assert_uint_eq(l.n, 4);
	/*
	 * $VAR and ${VAR} are mcpd's ${VAR}; any other '$' is literal.  A
	 * relative "cwd" in the user's file has no project to be in.
	 */
	assert_entry(&l, 0, "pythonTools", "{\"command\":\"python\",\"args\":["
	    "\"-m\",\"my_mcp_server\",\"--port\",\"8080\"],\"env\":{"
	    "\"DATABASE_URL\":\"${DB_CONNECTION_STRING}\",\"API_KEY\":"
	    "\"${EXTERNAL_API_KEY}\",\"PRICE\":\"$$5 or $${not a name}\"},\"sandbox\":\"default\"}");
	ck_assert(has_note(&l.v[0], "env.DATABASE_URL: ${DB_CONNECTION_STRING} "
	    "is read from mcpd's environment"));
	ck_assert(has_note(&l.v[0], "cwd: a relative path outside a project"));
	ck_assert(has_note(&l.v[0], "\"timeout\""));
	/* "httpUrl": Streamable HTTP; "url": SSE. */
	assert_entry(&l, 1, "httpServerWithAuth", "{\"type\":\"http\",\"url\":"
	    "\"http://localhost:3000/mcp\",\"headers\":{\"Authorization\":"
	    "\"Bearer your-api-token\"}}");
	assert_entry(&l, 2, "sseServer", "{\"type\":\"sse\",\"url\":"
	    "\"https://api.example.com/sse\"}");
	assert_entry(&l, 3, "filteredServer", "{\"command\":\"python\","
	    "\"args\":[\"-m\",\"my_mcp_server\"],\"sandbox\":\"default\"}");
	ck_assert(has_note(&l.v[3], "\"includeTools\""));
	ck_assert(has_note(&l.v[3], "\"trust\""));
	appconf_list_free(&l);

	/* A project's .gemini/settings.json: the directory is the project's. */
	project.workspace = "/work/proj";
	project.in_project = 1;
	read_fixture(&project, "gemini_settings.json", &l);
	ck_assert_str_eq(cJSON_GetObjectItem(l.v[0].server, "cwd")->valuestring,
	    "/work/proj/./mcp-servers/python");
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(l.v[0].server,
	    "disabled")));
	ck_assert(has_note(&l.v[0], "imported disabled"));
	appconf_list_free(&l);
}
END_TEST

START_TEST(test_appconf_gemini_both_urls)
{
	struct appconf_list	 l = { NULL, 0 };
	char			*cause;

	ck_assert_int_eq(appconf_read(&gemini, S("{\"mcpServers\": {\"a\": {"
	    "\"url\": \"https://a.example/sse\", \"httpUrl\": "
	    "\"https://a.example/mcp\"}}}"), &l, &cause), 0);
	assert_entry(&l, 0, "a", "{\"type\":\"http\",\"url\":"
	    "\"https://a.example/mcp\"}");
	ck_assert(has_note(&l.v[0], "\"url\": beside \"httpUrl\""));
	appconf_list_free(&l);
}
END_TEST

START_TEST(test_appconf_opencode)
{
	struct appconf_list	 l = { NULL, 0 };

	read_fixture(&opencode, "opencode.json", &l);
	ck_assert_uint_eq(l.n, 6);
	ck_assert_str_eq(l.v[0].keys[0], "mcp");
	/*
	 * "command" an array, the program first; "environment"; {env:NAME}
	 * is mcpd's ${NAME}, held back in a project's file.
	 */
	assert_entry(&l, 0, "my-local-mcp-server", "{\"command\":\"bun\","
	    "\"args\":[\"x\",\"my-mcp-command\"],\"env\":{\"MY_ENV_VAR\":"
	    "\"my_env_var_value\",\"TOKEN\":\"${MY_TOKEN}\"},"
	    "\"disabled\":true,\"sandbox\":\"default\"}");
	ck_assert(has_note(&l.v[0], "env.TOKEN: ${MY_TOKEN} is read from "
	    "mcpd's environment, not the app's; a project's file"));
	ck_assert_int_eq(l.v[0].was_disabled, 0);
	/* "enabled": false. */
	assert_entry(&l, 1, "mcp_everything", "{\"command\":\"npx\",\"args\":["
	    "\"-y\",\"@modelcontextprotocol/server-everything\"],"
	    "\"disabled\":true,\"sandbox\":\"default\"}");
	ck_assert_int_eq(l.v[1].was_disabled, 1);
	ck_assert_uint_eq(l.v[1].nnotes, 0);
	assert_entry(&l, 2, "my-remote-mcp", "{\"url\":"
	    "\"https://my-mcp-server.com\",\"headers\":{\"Authorization\":"
	    "\"Bearer ${MY_API_KEY}\"},\"disabled\":true}");
	/* Only "enabled": a setting for a server defined elsewhere. */
	ck_assert_int_eq(l.v[3].status, APPCONF_SKIPPED);
	ck_assert(has_note(&l.v[3], "no \"type\""));
	/* {file:PATH} is opencode's; a '$' is literal. */
	assert_entry(&l, 4, "secret", "{\"command\":\"secret-mcp\",\"args\":["
	    "\"--key=${MCPD_INPUT_FILE____SECRETS_KEY:-}\",\"$$HOME\"],"
	    "\"disabled\":true,\"sandbox\":\"default\"}");
	ck_assert(has_note(&l.v[4], "args: needs a value (mcpd does not know "
	    "the app's variable \"file:~/.secrets/key\")"));
	/* Not opencode's shape: said, and left alone. */
	ck_assert_int_eq(l.v[5].status, APPCONF_SKIPPED);
	ck_assert(has_note(&l.v[5], "\"command\": expected an array of "
	    "strings, the program first; skipped"));
	appconf_list_free(&l);
}
END_TEST

#define BY_NAME	" (expected a server by name: {\"NAME\": {...}})"

START_TEST(test_appconf_new_shapes_refused)
{
	static const struct {
		const struct appconf_file	*f;
		const char			*text, *cause;
	} bad[] = {
		{ &zed, "{\"context_servers\": []}",
		    "\"context_servers\" is not an object" BY_NAME },
		{ &opencode, "{\"mcp\": \"x\"}", "\"mcp\" is not an object"
		    BY_NAME },
		{ &gemini, "[]", "the top level is not an object (expected "
		    "{\"mcpServers\": {...}})" },
		{ &cline, "{\"mcpServers\": 1}",
		    "\"mcpServers\" is not an object" BY_NAME },
		{ &windsurf, "{\"mcpServers\": {", "line 1, column 17: "
		    "invalid JSON" },
	};
	struct appconf_list	 l = { NULL, 0 };
	char			*cause;
	size_t			 i;

	for (i = 0; i < nitems(bad); i++) {
		ck_assert_int_eq(appconf_read(bad[i].f, bad[i].text,
		    strlen(bad[i].text), &l, &cause), -1);
		ck_assert_str_eq(cause, bad[i].cause);
		free(cause);
	}
	ck_assert_uint_eq(l.n, 0);
	/* Other shapes' members are not this app's servers. */
	ck_assert_int_eq(appconf_read(&zed, S("{\"mcpServers\": {\"a\": {"
	    "\"command\": \"a\"}}}"), &l, &cause), 0);
	ck_assert_uint_eq(l.n, 0);
	ck_assert_int_eq(appconf_read(&opencode, S("{\"mcp\": {\"a\": {"
	    "\"type\": \"stdio\", \"command\": [\"a\"]}}}"), &l, &cause), 0);
	ck_assert_int_eq(l.v[0].status, APPCONF_SKIPPED);
	ck_assert(has_note(&l.v[0], "\"type\": expected \"local\" or "
	    "\"remote\""));
	appconf_list_free(&l);
	ck_assert_int_eq(appconf_read(&zed, S("{\"context_servers\": {\"a\": {"
	    "\"source\": \"npm\", \"command\": \"a\", \"args\": []}}}"), &l,
	    &cause), 0);
	ck_assert(has_note(&l.v[0], "\"source\": expected \"custom\""));
	appconf_list_free(&l);
}
END_TEST

/* What install writes, in each app's shape. */
START_TEST(test_appshape_launch)
{
	static const struct {
		enum appconf_shape	 shape;
		int			 disabled;
		const char		*want;
	} t[] = {
		{ APPCONF_MCPSERVERS, 0, "{\"command\":\"/bin/mcpctl\","
		    "\"args\":[\"connect\",\"a\"]}" },
		{ APPCONF_SERVERS, 1, "{\"type\":\"stdio\",\"command\":"
		    "\"/bin/mcpctl\",\"args\":[\"connect\",\"a\"],"
		    "\"disabled\":true}" },
		{ APPCONF_WINDSURF, 1, "{\"command\":\"/bin/mcpctl\","
		    "\"args\":[\"connect\",\"a\"],\"disabled\":true}" },
		{ APPCONF_CLINE, 0, "{\"command\":\"/bin/mcpctl\","
		    "\"args\":[\"connect\",\"a\"]}" },
		{ APPCONF_GEMINI, 0, "{\"command\":\"/bin/mcpctl\","
		    "\"args\":[\"connect\",\"a\"]}" },
		{ APPCONF_ZED, 1, "{\"source\":\"custom\",\"command\":"
		    "\"/bin/mcpctl\",\"args\":[\"connect\",\"a\"],"
		    "\"enabled\":false}" },
		{ APPCONF_OPENCODE, 0, "{\"type\":\"local\",\"command\":["
		    "\"/bin/mcpctl\",\"connect\",\"a\"]}" },
		{ APPCONF_OPENCODE, 1, "{\"type\":\"local\",\"command\":["
		    "\"/bin/mcpctl\",\"connect\",\"a\"],\"enabled\":false}" },
	};
	const char	*argv[] = { "/bin/mcpctl", "connect", "a" };
	cJSON		*o;
	char		*got;
	size_t		 i;

	for (i = 0; i < nitems(t); i++) {
		o = appshape_launch(t[i].shape, argv, 3, t[i].disabled);
		got = cJSON_PrintUnformatted(o);
		ck_assert_str_eq(got, t[i].want);
		free(got);
		cJSON_Delete(o);
	}
}
END_TEST

/*
 * install's rewrite of Zed's and opencode's files: comments kept, the
 * entry in the app's shape, and read back it runs through mcpctl.
 */
START_TEST(test_appconf_rewrite_new_shapes)
{
	static const struct {
		const struct appconf_file	*f;
		const char			*file;
		size_t				 entry;
		const char			*kept, *want;
	} t[] = {
		{ &zed, "zed_settings.json", 1, "/* Custom MCP servers",
		    "    \"fetch\": {\n"
		    "      \"source\": \"custom\",\n"
		    "      \"command\": \"/bin/mcpctl\",\n"
		    "      \"args\": [\"connect\", \"fetch\"],\n"
		    "      \"enabled\": false\n"
		    "    },\n" },
		{ &opencode, "opencode.json", 0, "\"$schema\"",
		    "    \"my-local-mcp-server\": {\n"
		    "      \"type\": \"local\",\n"
		    "      \"command\": [\"/bin/mcpctl\", \"connect\", "
		    "\"my-local-mcp-server\"]\n"
		    "    },\n" },
	};
	struct appconf_list		 l = { NULL, 0 }, again = { NULL, 0 };
	const struct appconf_entry	*e;
	const char			*argv[3];
	cJSON				*with;
	char				*text, *out, *cause;
	size_t				 len, outlen, i;

	for (i = 0; i < nitems(t); i++) {
		text = fixture(t[i].file, &len);
		read_fixture(t[i].f, t[i].file, &l);
		e = &l.v[t[i].entry];
		argv[0] = "/bin/mcpctl";
		argv[1] = "connect";
		argv[2] = e->name;
		with = appshape_launch(t[i].f->shape, argv, 3,
		    e->was_disabled);
		out = appconf_rewrite(text, len, &e, &with, 1, &outlen,
		    &cause);
		ck_assert_msg(out != NULL, "%s: %s", t[i].file, cause);
		ck_assert_ptr_nonnull(strstr(out, t[i].kept));
		ck_assert_msg(strstr(out, t[i].want) != NULL, "%s", out);
		/* Read back: it runs through mcpctl connect already. */
		ck_assert_int_eq(appconf_read(t[i].f, out, outlen, &again,
		    &cause), 0);
		ck_assert_int_eq(again.v[t[i].entry].status,
		    APPCONF_SKIPPED);
		ck_assert(has_note(&again.v[t[i].entry], "runs through "
		    "mcpctl connect already"));
		ck_assert_int_eq(again.v[t[i].entry].was_disabled,
		    e->was_disabled);
		appconf_list_free(&again);
		cJSON_Delete(with);
		free(out);
		free(text);
		appconf_list_free(&l);
	}
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
	tcase_add_test(tc, test_appconf_windsurf);
	tcase_add_test(tc, test_appconf_zed);
	tcase_add_test(tc, test_appconf_cline);
	tcase_add_test(tc, test_appconf_cline_legacy);
	tcase_add_test(tc, test_appconf_gemini);
	tcase_add_test(tc, test_appconf_gemini_both_urls);
	tcase_add_test(tc, test_appconf_opencode);
	tcase_add_test(tc, test_appconf_new_shapes_refused);
	suite_add_tcase(s, tc);
	tc = tcase_create("merge");
	tcase_add_test(tc, test_appconf_merge_empty);
	tcase_add_test(tc, test_appconf_merge_existing);
	tcase_add_test(tc, test_appconf_merge_shapes);
	tcase_add_test(tc, test_appconf_rewrite_keeps_comments);
	tcase_add_test(tc, test_appshape_launch);
	tcase_add_test(tc, test_appconf_rewrite_new_shapes);
	suite_add_tcase(s, tc);
	return (s);
}
