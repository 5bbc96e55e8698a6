/*
 * test_cpolicy.c -- the configuration's "clients": read and checked, and
 * which policy applies to an identity.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "cpolicy.h"
#include "filter.h"
#include "ident.h"
#include "unit.h"
#include "xmalloc.h"

#define SERVERS	"'mcpServers': {'github': {'command': 'x'}, " \
		"'fs': {'command': 'y'}}, 'groups': {'dev': {'servers': " \
		"['github', 'fs']}}"

/* The config text with ' turned into ". */
static struct conf *
parse(const char *text, struct conf_diags *d)
{
	struct conf	*conf;
	char		*json, *p;

	json = xstrdup(text);
	for (p = json; *p != '\0'; p++)
		if (*p == '\'')
			*p = '"';
	conf_diags_init(d);
	conf = conf_parse(json, strlen(json), NULL, NULL, d);
	free(json);
	return (conf);
}

static const char *
all_diags(const struct conf_diags *d)
{
	static char	 buf[8192];
	size_t		 i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < d->n && len < sizeof buf; i++)
		len += snprintf(buf + len, sizeof buf - len, "  %s\n",
		    d->v[i].text);
	return (buf);
}

static struct conf *
parse_ok(const char *text)
{
	struct conf_diags	 d;
	struct conf		*conf;

	conf = parse(text, &d);
	ck_assert_msg(conf != NULL && d.n == 0, "unexpected diagnostics:\n%s",
	    all_diags(&d));
	conf_diags_free(&d);
	return (conf);
}

/* The "clients" object fails with this one error among its diagnostics. */
static void
expect_error(const char *clients, const char *error)
{
	struct conf_diags	 d;
	struct conf		*conf;
	char			*text;
	size_t			 i;
	int			 found = 0;

	xasprintf(&text, "{" SERVERS ", 'clients': %s}", clients);
	conf = parse(text, &d);
	ck_assert_msg(conf == NULL, "parsed: %s", text);
	for (i = 0; i < d.n; i++)
		if (d.v[i].level == CONF_ERROR &&
		    strcmp(d.v[i].text, error) == 0)
			found = 1;
	ck_assert_msg(found && d.nerrors == 1, "expected \"%s\"; got:\n%s",
	    error, all_diags(&d));
	conf_diags_free(&d);
	free(text);
}

START_TEST(test_cpolicy_absent)
{
	struct conf	*conf;

	conf = parse_ok("{" SERVERS "}");
	ck_assert_ptr_null(conf->clients);
	ck_assert_ptr_null(cpolicy_for(conf->clients, NULL));
	ck_assert(cpolicy_allows_server(NULL, "github"));
	ck_assert(cpolicy_allows_name(NULL, FILTER_TOOLS, "github", "__",
	    "delete_repo"));
	conf_free(conf);
}
END_TEST

START_TEST(test_cpolicy_parse)
{
	struct conf		*conf;
	const struct cpolicy	*p;

	conf = parse_ok("{" SERVERS ", 'clients': {"
	    "'cursor': {'match': {'exe': '/usr/share/cursor/*'}, "
	    "'servers': ['github', 'dev'], 'tools': {'deny': "
	    "['github__delete_*']}}, "
	    "'default': {'servers': ['fs'], 'resources': {'allow': "
	    "['file:///tmp/*']}}, "
	    "'ide': {'match': {'unit': 'app-ide-*.scope', 'app_id': "
	    "'org.ide.*'}}}}");
	ck_assert_ptr_nonnull(conf->clients);
	ck_assert_uint_eq(conf->clients->n, 2);
	p = conf->clients->v[0];
	ck_assert_str_eq(p->name, "cursor");
	ck_assert_str_eq(p->match[CPOLICY_MATCH_EXE], "/usr/share/cursor/*");
	ck_assert_ptr_null(p->match[CPOLICY_MATCH_UNIT]);
	ck_assert_uint_eq(p->nservers, 2);
	ck_assert(!p->all_servers);
	ck_assert(cpolicy_allows_server(p, "dev"));
	ck_assert(!cpolicy_allows_server(p, "fs"));
	ck_assert_ptr_nonnull(p->filters[FILTER_TOOLS]);
	ck_assert_ptr_null(p->filters[FILTER_PROMPTS]);
	p = conf->clients->v[1];
	ck_assert_str_eq(p->name, "ide");
	ck_assert(p->all_servers);
	ck_assert(cpolicy_allows_server(p, "anything"));
	ck_assert(!cpolicy_filters(p));
	p = conf->clients->dflt;
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p->name, "default");
	ck_assert(cpolicy_filters(p));
	ck_assert(!filter_allows_uri(cpolicy_filter(p, FILTER_RESOURCES),
	    "file:///etc/passwd"));
	ck_assert(filter_allows_uri(cpolicy_filter(p, FILTER_RESOURCES),
	    "file:///tmp/x"));
	conf_free(conf);
}
END_TEST

START_TEST(test_cpolicy_errors)
{
	expect_error("[]", "clients: expected an object");
	expect_error("{'a': 1}", "clients.a: expected an object");
	expect_error("{'a b': {'match': {'exe': '*'}}}", "clients.a b: "
	    "invalid client name: use 1 to 64 of A-Z a-z 0-9 . _ -");
	expect_error("{'a': {'servers': []}}", "clients.a: a client's policy "
	    "needs \"match\" (or name it \"default\")");
	expect_error("{'default': {'match': {'exe': '*'}}}",
	    "clients.default.match: \"default\" is the policy of clients no "
	    "entry matches: it takes no \"match\"");
	expect_error("{'a': {'match': {}}}", "clients.a.match: expected an "
	    "object with one or more of \"exe\", \"unit\", \"app_id\", "
	    "\"token\" (glob patterns)");
	expect_error("{'a': {'match': {'exec': '*'}}}", "clients.a.match.exec: "
	    "unknown key (did you mean \"exe\"?): a match has \"exe\", "
	    "\"unit\", \"app_id\" and \"token\"");
	expect_error("{'a': {'match': {'exe': 3}}}", "clients.a.match.exe: "
	    "expected a string (a glob pattern)");
	expect_error("{'a': {'match': {'exe': '[a'}}}", "clients.a.match.exe: "
	    "unterminated '[', unknown class, or unsupported \"[.\" or "
	    "\"[=\" (write \\[ for a literal '[')");
	expect_error("{'default': {'servers': ['github', 'nope']}}",
	    "clients.default.servers[1]: not the name of a configured server "
	    "or group");
	expect_error("{'default': {'servers': ['fs', 'fs']}}",
	    "clients.default.servers[1]: the same name as [0]");
	expect_error("{'default': {'servers': 'fs'}}",
	    "clients.default.servers: expected an array of server and group "
	    "names");
	expect_error("{'default': {'tool': {'deny': ['x']}}}",
	    "clients.default.tool: unknown key (did you mean \"tools\"?)");
	expect_error("{'default': {'color': 1}}", "clients.default.color: "
	    "unknown key: a client's policy has \"match\", \"servers\", "
	    "\"tools\", \"prompts\" and \"resources\"");
	expect_error("{'default': {'tools': {'denny': ['x']}}}",
	    "clients.default.tools.denny: unknown key: a filter has only "
	    "\"allow\" and \"deny\"");
	expect_error("{'default': {'tools': {'deny': ['x['] }}}",
	    "clients.default.tools.deny[0]: unterminated '[', unknown class, "
	    "or unsupported \"[.\" or \"[=\" (write \\[ for a literal '[')");
	expect_error("{'default': {}, 'default': {}}", "clients: duplicate "
	    "client name \"default\"");
	expect_error("{'a': {'match': {'exe': '*'}, 'match': {'exe': '*'}}}",
	    "clients.a.match: duplicate key");
}
END_TEST

static struct ident *
ident_make(const char *exe, const char *unit, const char *app_id,
    unsigned int flags)
{
	static struct ident	 id;

	memset(&id, 0, sizeof id);
	id.uid = 1000;
	id.pid = 42;
	id.exe = (char *)exe;
	id.unit = (char *)unit;
	id.app_id = (char *)app_id;
	id.flags = flags;
	return (&id);
}

START_TEST(test_cpolicy_match)
{
	struct conf		*conf;
	const struct cpolicies	*ps;

	conf = parse_ok("{" SERVERS ", 'clients': {"
	    "'cursor': {'match': {'exe': '/usr/share/cursor/*'}}, "
	    "'ide': {'match': {'unit': 'app-ide-*.scope', 'app_id': "
	    "'org.ide.*'}}, "
	    "'any-node': {'match': {'exe': '*/node'}}, "
	    "'second': {'match': {'exe': '/usr/share/cursor/cursor'}}, "
	    "'default': {'servers': []}}}");
	ps = conf->clients;
	/* The first entry in file order that fits. */
	ck_assert_str_eq(cpolicy_for(ps, ident_make(
	    "/usr/share/cursor/cursor", NULL, NULL, 0))->name, "cursor");
	ck_assert_str_eq(cpolicy_for(ps, ident_make("/usr/bin/node", NULL,
	    NULL, IDENT_BRIDGE))->name, "any-node");
	/* '*' takes '/' as filters do. */
	ck_assert_str_eq(cpolicy_for(ps, ident_make("/usr/share/cursor/a/b",
	    NULL, NULL, 0))->name, "cursor");
	/* Several keys: all of them must match, each field known. */
	ck_assert_str_eq(cpolicy_for(ps, ident_make("/usr/bin/ide",
	    "app-ide-1.scope", "org.ide.Ide", 0))->name, "ide");
	ck_assert_str_eq(cpolicy_for(ps, ident_make("/usr/bin/ide",
	    "app-ide-1.scope", NULL, 0))->name, "default");
	ck_assert_str_eq(cpolicy_for(ps, ident_make("/usr/bin/ide",
	    "app-other.scope", "org.ide.Ide", 0))->name, "default");
	/* Nothing fits: default. */
	ck_assert_str_eq(cpolicy_for(ps, ident_make("/bin/true", NULL, NULL,
	    0))->name, "default");
	ck_assert_str_eq(cpolicy_for(ps, ident_make(NULL, NULL, NULL,
	    0))->name, "default");
	/* An identity not known is the default's, whatever it holds. */
	ck_assert_str_eq(cpolicy_for(ps, NULL)->name, "default");
	ck_assert_str_eq(cpolicy_for(ps, ident_make(
	    "/usr/share/cursor/cursor", NULL, NULL, IDENT_UID_ONLY))->name,
	    "default");
	ck_assert_str_eq(cpolicy_for(ps, ident_make(
	    "/usr/share/cursor/cursor", NULL, NULL, IDENT_BRIDGE |
	    IDENT_REPARENTED))->name, "default");
	/* A pid read without a pidfd is still the kernel's word. */
	ck_assert_str_eq(cpolicy_for(ps, ident_make(
	    "/usr/share/cursor/cursor", NULL, NULL, IDENT_PID_RACE))->name,
	    "cursor");
	ck_assert(!cpolicy_allows_server(ps->dflt, "fs"));
	conf_free(conf);

	/* Without "default", a client no entry fits is not restricted. */
	conf = parse_ok("{" SERVERS ", 'clients': {'cursor': {'match': "
	    "{'exe': '/c'}, 'servers': ['fs']}}}");
	ck_assert_ptr_null(cpolicy_for(conf->clients, NULL));
	ck_assert_ptr_null(cpolicy_for(conf->clients, ident_make("/d", NULL,
	    NULL, 0)));
	ck_assert_str_eq(cpolicy_for(conf->clients, ident_make("/c", NULL,
	    NULL, 0))->name, "cursor");
	conf_free(conf);
}
END_TEST

/* An HTTP client's identity is its token's name alone. */
START_TEST(test_cpolicy_token)
{
	struct conf		*conf;
	const struct cpolicies	*ps;
	struct ident		 id;

	conf = parse_ok("{" SERVERS ", 'clients': {"
	    "'front': {'match': {'exe': '*'}, 'servers': ['fs']}, "
	    "'alice': {'match': {'token': 'alice'}, 'servers': ['github']}, "
	    "'ci': {'match': {'token': 'ci-*'}, 'servers': []}, "
	    "'default': {'servers': []}}}");
	ps = conf->clients;
	memset(&id, 0, sizeof id);
	id.pid = 7;
	id.flags = IDENT_HTTP_TOKEN;
	id.token = (char *)"alice";
	ck_assert_str_eq(cpolicy_for(ps, &id)->name, "alice");
	id.token = (char *)"ci-nightly";
	ck_assert_str_eq(cpolicy_for(ps, &id)->name, "ci");
	/* A token no entry names: default, never the front's exe. */
	id.token = (char *)"bob";
	ck_assert_str_eq(cpolicy_for(ps, &id)->name, "default");
	/* A local app has no token: a "token" match never fits it. */
	ck_assert_str_eq(cpolicy_for(ps, ident_make("/usr/bin/alice", NULL,
	    NULL, 0))->name, "front");
	conf_free(conf);
	expect_error("{'a': {'match': {'token': '[a'}}}", "clients.a.match."
	    "token: unterminated '[', unknown class, or unsupported \"[.\" "
	    "or \"[=\" (write \\[ for a literal '[')");
}
END_TEST

START_TEST(test_cpolicy_names)
{
	struct conf		*conf;
	const struct cpolicy	*p;

	conf = parse_ok("{" SERVERS ", 'clients': {'default': {"
	    "'tools': {'deny': ['github__delete_*', 'drop']}, "
	    "'prompts': {'allow': ['fs__*']}}}}");
	p = conf->clients->dflt;
	/* A server's tools by their own names and SERVER__NAME. */
	ck_assert(!cpolicy_allows_name(p, FILTER_TOOLS, "github", "__",
	    "delete_repo"));
	ck_assert(cpolicy_allows_name(p, FILTER_TOOLS, "fs", "__",
	    "delete_repo"));
	ck_assert(!cpolicy_allows_name(p, FILTER_TOOLS, "fs", "__", "drop"));
	ck_assert(cpolicy_allows_name(p, FILTER_TOOLS, "github", "__",
	    "create_issue"));
	/* In a group of another separator: its spellings, and the default's. */
	ck_assert(!cpolicy_allows_name(p, FILTER_TOOLS, "github", "-",
	    "delete_repo"));
	ck_assert(cpolicy_allows_name(p, FILTER_TOOLS, "github", "-",
	    "create_issue"));
	ck_assert(cpolicy_allows_name(p, FILTER_PROMPTS, "fs", "__", "p"));
	ck_assert(!cpolicy_allows_name(p, FILTER_PROMPTS, "github", "__",
	    "p"));
	/* Resources are not restricted: no filter of that kind. */
	ck_assert_ptr_null(cpolicy_filter(p, FILTER_RESOURCES));
	conf_free(conf);
}
END_TEST

START_TEST(test_cpolicy_refs)
{
	struct conf	*conf, *next;
	struct cpolicy	*held, *other;

	conf = parse_ok("{" SERVERS ", 'clients': {'default': {'tools': "
	    "{'deny': ['a']}}}}");
	/* A connection's reference outlives the configuration. */
	held = cpolicy_ref(cpolicy_for(conf->clients, NULL));
	conf_free(conf);
	ck_assert_str_eq(held->name, "default");
	next = parse_ok("{" SERVERS ", 'clients': {'default': {'tools': "
	    "{'deny': ['a']}}}}");
	other = cpolicy_for(next->clients, NULL);
	ck_assert(cpolicy_same_filter(held, other, FILTER_TOOLS));
	ck_assert(cpolicy_same_filter(held, other, FILTER_PROMPTS));
	ck_assert(!cpolicy_same_filter(held, NULL, FILTER_TOOLS));
	ck_assert(cpolicy_same_filter(NULL, NULL, FILTER_TOOLS));
	cpolicy_unref(held);
	conf_free(next);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s = suite_create("cpolicy");
	TCase	*tc = tcase_create("core");

	tcase_add_test(tc, test_cpolicy_absent);
	tcase_add_test(tc, test_cpolicy_parse);
	tcase_add_test(tc, test_cpolicy_errors);
	tcase_add_test(tc, test_cpolicy_match);
	tcase_add_test(tc, test_cpolicy_token);
	tcase_add_test(tc, test_cpolicy_names);
	tcase_add_test(tc, test_cpolicy_refs);
	suite_add_tcase(s, tc);
	return (s);
}
