/*
 * test_toml.c -- unit tests for the TOML reader (src/toml.c) and Codex's
 * config.toml (src/appconf_toml.c): values and tables as TOML 1.0 has
 * them, statements and the lines they take, every refusal with its line
 * and column, hostile texts (deep nesting, huge lines, NUL bytes,
 * duplicate tables); Codex's servers read from the documentation's
 * shapes (tests/unit/fixtures/apps/codex_config.toml) and rewritten for
 * mcpctl install with every other byte kept.
 */

#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "appconf.h"
#include "sbuf.h"
#include "toml.h"
#include "unit.h"
#include "xmalloc.h"

#define S(lit)	(lit), sizeof (lit) - 1

static const struct appconf_file codex = {
	"codex", "codex", APPCONF_CODEX_TOML, APPCONF_SYNTAX_MCPD, NULL, NULL
};

/* The document's tree printed compactly, or "ERR: cause". */
static char *
parsed(const char *text, size_t len)
{
	struct toml_doc	 doc;
	char		*cause, *out;

	if (toml_parse(text, len, &doc, &cause) == -1) {
		xasprintf(&out, "ERR: %s", cause);
		free(cause);
		return (out);
	}
	out = cJSON_PrintUnformatted(doc.root);
	toml_doc_free(&doc);
	return (out);
}

static void
assert_parsed(const char *text, const char *want)
{
	char	*got = parsed(text, strlen(text));

	ck_assert_msg(strcmp(got, want) == 0, "%s\n  gave %s\n  want %s", text,
	    got, want);
	free(got);
}

START_TEST(test_toml_values)
{
	assert_parsed("s = \"a\\tb\\\"c\\\\ \\u00e9\\U0001F600\"\n",
	    "{\"s\":\"a\\tb\\\"c\\\\ \xc3\xa9\xf0\x9f\x98\x80\"}");
	assert_parsed("s = 'C:\\Users\\a'\n", "{\"s\":\"C:\\\\Users\\\\a\"}");
	/* The first line end goes; a line ending backslash eats blanks. */
	assert_parsed("s = \"\"\"\none\\\n    two\n\"\"\"\n",
	    "{\"s\":\"onetwo\\n\"}");
	assert_parsed("s = '''\nraw \\n\n'''\n", "{\"s\":\"raw \\\\n\\n\"}");
	/* Up to two quotes before the closing three. */
	assert_parsed("s = \"\"\"\"a\"\"\"\"\"\n", "{\"s\":\"\\\"a\\\"\\\"\"}");
	assert_parsed("s = ''''''\n", "{\"s\":\"\"}");
	assert_parsed("n = [0x1F, 0o17, 0b101, 1_000, -7, +5]\n",
	    "{\"n\":[31,15,5,1000,-7,5]}");
	assert_parsed("f = [1.5, -2e3, 6.25E-2, 3_1.2_5]\n",
	    "{\"f\":[1.5,-2000,0.0625,31.25]}");
	assert_parsed("b = [true, false]\n", "{\"b\":[true,false]}");
	assert_parsed("d = [1979-05-27T07:32:00Z, 1979-05-27 00:32:00.5-07:00, "
	    "1979-05-27, 07:32:00, 2000-02-29T01:02:03]\n",
	    "{\"d\":[\"1979-05-27T07:32:00Z\",\"1979-05-27 00:32:00.5-07:00\","
	    "\"1979-05-27\",\"07:32:00\",\"2000-02-29T01:02:03\"]}");
	assert_parsed("a = [\n  1, # one\n  [2, \"x\"],\n  {k = 3},\n]\n",
	    "{\"a\":[1,[2,\"x\"],{\"k\":3}]}");
	assert_parsed("t = { a = 1, b.c = \"d\" }\n",
	    "{\"t\":{\"a\":1,\"b\":{\"c\":\"d\"}}}");
	assert_parsed("e = []\nt = {}\n", "{\"e\":[],\"t\":{}}");
	assert_parsed("\"quoted key\" = 1\n'lit' = 2\n\"\" = 3\n1.2 = 4\n",
	    "{\"quoted key\":1,\"lit\":2,\"\":3,\"1\":{\"2\":4}}");
	assert_parsed("", "{}");
	assert_parsed("# only a comment", "{}");
	assert_parsed("\xef\xbb\xbf" "a = 1", "{\"a\":1}");
}
END_TEST

START_TEST(test_toml_tables)
{
	assert_parsed("[a.b]\nc = 1\n[a]\nd = 2\n",
	    "{\"a\":{\"b\":{\"c\":1},\"d\":2}}");
	assert_parsed("[a]\nb.c = 1\n[a.b.d]\ne = 2\n",
	    "{\"a\":{\"b\":{\"c\":1,\"d\":{\"e\":2}}}}");
	assert_parsed("[[x]]\nn = 1\n[[x]]\nn = 2\n[x.y]\nz = 3\n",
	    "{\"x\":[{\"n\":1},{\"n\":2,\"y\":{\"z\":3}}]}");
	assert_parsed("[ a . \"b.c\" ]\nk = 1\n",
	    "{\"a\":{\"b.c\":{\"k\":1}}}");
	/* A table a header made on the way, extended by dotted keys. */
	assert_parsed("[a.b.c]\n[a]\nb.d = 1\n",
	    "{\"a\":{\"b\":{\"c\":{},\"d\":1}}}");
}
END_TEST

START_TEST(test_toml_statements)
{
	static const char	 text[] =
	    "top = 1 # c\n"
	    "\n"
	    "  # about t\n"
	    "[t]  # t\n"
	    "  arr = [\n    1,\n  ]\n"
	    "s.x = 'last'";
	struct toml_doc		 doc;
	struct toml_stmt	*s;
	char			*cause;

	ck_assert_int_eq(toml_parse(S(text), &doc, &cause), 0);
	ck_assert_uint_eq(doc.nstmts, 4);
	s = &doc.stmts[0];
	ck_assert_int_eq(s->kind, TOML_STMT_KEYVAL);
	ck_assert_uint_eq(s->npath, 1);
	ck_assert_str_eq(s->path[0], "top");
	ck_assert_uint_eq(s->start, 0);
	ck_assert_uint_eq(s->end, 12);		/* its comment and line end */
	ck_assert(cJSON_IsNumber(s->value));
	s = &doc.stmts[1];
	ck_assert_int_eq(s->kind, TOML_STMT_TABLE);
	ck_assert_uint_eq(s->line, 4);
	ck_assert_uint_eq(s->start, 25);
	ck_assert_uint_eq(s->end, 34);
	s = &doc.stmts[2];
	ck_assert_uint_eq(s->npath, 2);
	ck_assert_str_eq(s->path[0], "t");
	ck_assert_str_eq(s->path[1], "arr");
	ck_assert_uint_eq(s->nkey, 1);
	ck_assert_uint_eq(s->start, 34);	/* its indentation too */
	ck_assert_uint_eq(s->key_start, 36);
	ck_assert_mem_eq(text + s->end, "s.x", 3);	/* three lines */
	s = &doc.stmts[3];
	ck_assert_uint_eq(s->npath, 3);
	ck_assert_uint_eq(s->nkey, 2);
	ck_assert_uint_eq(s->end, sizeof text - 1);	/* no line end */
	ck_assert_int_eq(s->in_array, 0);
	toml_doc_free(&doc);

	ck_assert_int_eq(toml_parse(S("a = 1\r\n[b]\r\nc = 2\r\n"), &doc,
	    &cause), 0);
	ck_assert_uint_eq(doc.stmts[0].end, 7);
	ck_assert_uint_eq(doc.stmts[1].start, 7);
	ck_assert_uint_eq(doc.stmts[2].end, 19);
	toml_doc_free(&doc);

	ck_assert_int_eq(toml_parse(S("[[a]]\nb = 1\n[a.c]\n"), &doc, &cause),
	    0);
	ck_assert_int_eq(doc.stmts[0].kind, TOML_STMT_ARRAY_TABLE);
	ck_assert_int_eq(doc.stmts[1].in_array, 1);
	ck_assert_int_eq(doc.stmts[2].in_array, 1);
	toml_doc_free(&doc);
}
END_TEST

START_TEST(test_toml_errors)
{
	static const struct {
		const char	*text;
		const char	*cause;
	} t[] = {
		{ "[a]\n[a]\n", "line 2, column 1: a table defined twice" },
		{ "a = 1\na = 2\n", "line 2, column 1: a key defined twice" },
		{ "a.b = 1\n[a]\n", "line 2, column 1: a table made by "
		    "dotted keys defined again by a header" },
		{ "[a]\nb.c = 1\n[a.b]\n", "line 3, column 1: a table made "
		    "by dotted keys defined again by a header" },
		{ "[a.b.c]\nz = 9\n[a]\nb.c.t = 1\n", "line 4, column 1: a "
		    "table defined by a header extended by dotted keys" },
		{ "t = {a = 1}\n[t.b]\n", "line 2, column 1: an inline "
		    "table extended" },
		{ "t = {a = 1}\nt.b = 2\n", "line 2, column 1: an inline "
		    "table extended" },
		{ "t = {a = {b = 1}, a.c = 2}\n", "line 1, column 19: an "
		    "inline table extended" },
		{ "a = 1\n[a]\n", "line 2, column 1: a key that holds a value "
		    "used as a table" },
		{ "a = []\n[[a]]\n", "line 2, column 1: a key that holds a "
		    "value defined again as an array of tables" },
		{ "[[a]]\n[a]\n", "line 2, column 1: an array of tables used "
		    "as a table" },
		{ "s = \"open\n", "line 1, column 5: an unterminated string" },
		{ "s = \"\"\"open\n\n", "line 1, column 5: an unterminated "
		    "string" },
		{ "s = 'open", "line 1, column 5: an unterminated string" },
		{ "s = \"\\x41\"\n", "line 1, column 6: an escape TOML does "
		    "not have" },
		{ "s = \"\\u0000\"\n", "line 1, column 6: a string holding "
		    "\\u0000" },
		{ "s = \"\\ud800\"\n", "line 1, column 6: an escape that is "
		    "no unicode scalar value" },
		{ "s = \"a\x01\"\n", "line 1, column 7: a control character "
		    "in a string" },
		{ "# \x7f\n", "line 1, column 3: a control character in a "
		    "comment" },
		{ "a = 1\rb = 2\n", "line 1, column 6: a carriage return "
		    "without a line feed" },
		{ "a = 1 b = 2\n", "line 1, column 7: expected the end of "
		    "the line" },
		{ "a 1\n", "line 1, column 3: expected '=' after a key" },
		{ "a =\n", "line 1, column 4: a value expected" },
		{ "= 1\n", "line 1, column 1: a key expected" },
		{ "[a\n", "line 1, column 3: expected ']' after a table's "
		    "name" },
		{ "[[a]\n", "line 1, column 4: expected ']]' after a table's "
		    "name" },
		{ "n = 01\n", "line 1, column 5: a number with a leading "
		    "zero" },
		{ "n = 1__0\n", "line 1, column 5: not a value TOML knows" },
		{ "n = 9223372036854775808\n", "line 1, column 5: an integer "
		    "out of range" },
		{ "n = 0x1_\n", "line 1, column 5: not a value TOML knows" },
		{ "d = 1979-02-29\n", "line 1, column 5: not a valid date or "
		    "time" },
		{ "d = 07:32\n", "line 1, column 5: not a valid date or "
		    "time" },
		{ "b = truthy\n", "line 1, column 5: not a value TOML knows" },
		{ "t = {a = 1,}\n", "line 1, column 12: a key expected" },
		{ "t = {a = 1,\n b = 2}\n", "line 1, column 12: a key "
		    "expected" },
		{ "t = {a = 1\n}\n", "line 1, column 11: a line end in an "
		    "inline table (TOML 1.0 keeps one on one line)" },
		{ "a = [1 2]\n", "line 1, column 8: expected ',' or ']' in an "
		    "array" },
		{ "a = [1,\n", "line 2, column 1: a value expected" },
		{ "\"\"\"k\"\"\" = 1\n", "line 1, column 1: a multi-line "
		    "string as a key" },
		{ "a = 1\n\xff = 2\n", "line 2, column 1: not UTF-8" },
		{ "a = \"\xc0\x80\"\n", "line 1, column 6: not UTF-8" },
	};
	char	*got;
	size_t	 i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		got = parsed(t[i].text, strlen(t[i].text));
		ck_assert_msg(strncmp(got, "ERR: ", 5) == 0 &&
		    strcmp(got + 5, t[i].cause) == 0, "%zu: %s\n  gave %s\n"
		    "  want %s", i, t[i].text, got, t[i].cause);
		free(got);
	}
}
END_TEST

/* A NUL byte anywhere, even in a comment or a string, is refused. */
START_TEST(test_toml_nul)
{
	char	*got;

	got = parsed(S("a = 1\n# x\0y\n"));
	ck_assert_str_eq(got, "ERR: line 2, column 4: a NUL byte");
	free(got);
	got = parsed(S("s = \"a\0\"\n"));
	ck_assert_str_eq(got, "ERR: line 1, column 7: a NUL byte");
	free(got);
}
END_TEST

static char *
repeat(const char *head, const char *unit, size_t n, const char *tail)
{
	struct sbuf	 b = { NULL, 0, 0 };
	size_t		 i;

	sbuf_adds(&b, head);
	for (i = 0; i < n; i++)
		sbuf_adds(&b, unit);
	sbuf_adds(&b, tail);
	return (b.p);
}

START_TEST(test_toml_deep)
{
	char	*open, *text, *got;

	/* TOML_MAX_DEPTH arrays read; one more refused, not a crash. */
	open = repeat("", "[", TOML_MAX_DEPTH, "");
	text = repeat(open, "]", TOML_MAX_DEPTH, "");
	free(open);
	open = repeat("a = ", "", 0, text);
	got = parsed(open, strlen(open));
	ck_assert_str_eq(got, "{\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]"
	    "]]]]]]]]]]]]]]]]]]]]]]]]]}");
	free(got);
	free(open);
	free(text);
	text = repeat("a = ", "[{b=", 100000, "");
	got = parsed(text, strlen(text));
	ck_assert_str_eq(got, "ERR: line 1, column 69: arrays or inline "
	    "tables nested more than 32 deep");
	free(got);
	free(text);
	/* A header as deep as a key can be, then deeper. */
	text = repeat("[a", ".a", TOML_MAX_KEY_PARTS - 1, "]\n");
	got = parsed(text, strlen(text));
	ck_assert(strncmp(got, "{\"a\":{\"a\":", 10) == 0);
	free(got);
	free(text);
	text = repeat("[a", ".a", TOML_MAX_KEY_PARTS, "]\n");
	got = parsed(text, strlen(text));
	ck_assert_str_eq(got, "ERR: line 1, column 130: a key of more than "
	    "64 parts");
	free(got);
	free(text);
}
END_TEST

START_TEST(test_toml_huge)
{
	struct toml_doc	 doc;
	char		*text, *cause, *got, *big;
	size_t		 len, i;

	/* A line of 8 MiB: one string, then one bare key. */
	big = repeat("", "x", 8 * 1024 * 1024, "");
	xasprintf(&text, "s = \"%s\"\n%s = 1\n", big, big);
	ck_assert_int_eq(toml_parse(text, strlen(text), &doc, &cause), 0);
	ck_assert_uint_eq(strlen(cJSON_GetObjectItem(doc.root,
	    "s")->valuestring), 8 * 1024 * 1024);
	ck_assert_uint_eq(doc.nstmts, 2);
	ck_assert_uint_eq(doc.stmts[1].line, 2);
	toml_doc_free(&doc);
	free(text);
	/* Not one value of 8 MiB digits. */
	memset(big, '1', 8 * 1024 * 1024);
	xasprintf(&text, "n = %s\n", big);
	got = parsed(text, strlen(text));
	ck_assert_str_eq(got, "ERR: line 1, column 5: a value longer than "
	    "128 bytes that is no string");
	free(got);
	free(text);
	free(big);
	/* More than TOML_MAX_VALUES values: refused, and quickly. */
	text = repeat("", "k = 1\n[[t]]\n", TOML_MAX_VALUES / 2, "");
	got = parsed(text, strlen(text));
	ck_assert(strncmp(got, "ERR: ", 5) == 0);
	ck_assert(strstr(got, "more than 100000 values") != NULL);
	free(got);
	free(text);
	/* Many keys in one table: a lookup does not look at each. */
	text = xmalloc(50000 * 16);
	for (len = 0, i = 0; i < 50000; i++)
		len += sprintf(text + len, "k%zu = %zu\n", i, i);
	ck_assert_int_eq(toml_parse(text, len, &doc, &cause), 0);
	ck_assert_int_eq(cJSON_GetArraySize(doc.root), 50000);
	toml_doc_free(&doc);
	free(text);
}
END_TEST

START_TEST(test_toml_quote)
{
	static const char	*strings[] = { "plain", "a\"b\\c", "tab\tnl\n",
				    "\x01\x1f\x7f", "\xc3\xa9 \xf0\x9f\x98\x80",
				    "", "$5" };
	struct toml_doc		 doc;
	char			*q, *k, *text, *cause;
	size_t			 i;

	for (i = 0; i < sizeof strings / sizeof strings[0]; i++) {
		q = toml_quote(strings[i]);
		k = toml_key(strings[i]);
		xasprintf(&text, "%s = %s\n", k, q);
		ck_assert_msg(toml_parse(text, strlen(text), &doc, &cause) ==
		    0, "%s: %s", text, cause);
		ck_assert_str_eq(doc.root->child->string, strings[i]);
		ck_assert_str_eq(doc.root->child->valuestring, strings[i]);
		toml_doc_free(&doc);
		free(text);
		free(q);
		free(k);
	}
	k = toml_key("bare-key_1");
	ck_assert_str_eq(k, "bare-key_1");
	free(k);
	k = toml_key("with.dot");
	ck_assert_str_eq(k, "\"with.dot\"");
	free(k);
	ck_assert_int_eq(toml_utf8(S("\xc3\xa9"), NULL), 1);
	ck_assert_int_eq(toml_utf8(S("a\xed\xa0\x80"), &i), 0);
	ck_assert_uint_eq(i, 1);
}
END_TEST

/*
 * Codex.
 */

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

START_TEST(test_codex_read)
{
	struct appconf_list	 l = { NULL, 0 };
	char			*text, *cause;
	size_t			 len;

	text = fixture("codex_config.toml", &len);
	ck_assert_int_eq(appconf_read(&codex, text, len, &l, &cause), 0);
	ck_assert_uint_eq(l.n, 3);
	assert_entry(&l, 0, "context7", "{\"command\":\"npx\",\"args\":[\"-y\","
	    "\"@upstash/context7-mcp\"],\"env\":{\"CONTEXT7_API_KEY\":"
	    "\"ctx7-value\"},\"sandbox\":\"default\"}");
	ck_assert(has_note(&l.v[0], "\"startup_timeout_sec\": the app's own "
	    "setting, dropped"));
	ck_assert_str_eq(l.v[0].keys[0], "mcp_servers");
	ck_assert_str_eq(l.v[0].keys[1], "context7");
	/* The env subtable, a '$' of Codex's, a variable it passes on. */
	assert_entry(&l, 1, "docs", "{\"command\":\"docs-server\",\"args\":["
	    "\"--port\",\"4000\"],\"cwd\":\"/home/alice/code/docs-server\","
	    "\"env\":{\"DOCS_MODE\":\"offline\",\"PRICE\":\"$$5\","
	    "\"DOCS_TOKEN\":\"${DOCS_TOKEN}\"},\"sandbox\":\"default\"}");
	ck_assert(has_note(&l.v[1], "${DOCS_TOKEN} is read from mcpd's "
	    "environment"));
	ck_assert(has_note(&l.v[1], "\"enabled_tools\""));
	/* Streamable HTTP, switched off in Codex. */
	assert_entry(&l, 2, "figma", "{\"type\":\"http\",\"url\":"
	    "\"https://mcp.figma.com/mcp\",\"headers\":{\"X-Figma-Region\":"
	    "\"us-east-1\",\"Authorization\":\"Bearer ${FIGMA_OAUTH_TOKEN}\"},"
	    "\"disabled\":true}");
	ck_assert_int_eq(l.v[2].was_disabled, 1);
	appconf_list_free(&l);
	free(text);
}
END_TEST

START_TEST(test_codex_read_shapes)
{
	static const char	 text[] =
	    "[mcp_servers]\n"
	    "a.command = \"x\"\n"
	    "b = { command = \"y\", env_vars = [\"OK\", { name = \"R\", "
	    "source = \"remote\" }] }\n"
	    "c.url = \"http://h/mcp\"\n"
	    "c.env_http_headers = { X-Key = \"KEY_VAR\" }\n"
	    "[mcp_servers.d]\n"
	    "command = \"/bin/mcpctl\"\n"
	    "args = [\"connect\", \"d\"]\n"
	    "[mcp_servers.e]\n"
	    "type = \"stdio\"\n"
	    "command = \"z\"\n";
	struct appconf_list	 l = { NULL, 0 };
	char			*cause;

	ck_assert_int_eq(appconf_read(&codex, S(text), &l, &cause), 0);
	ck_assert_uint_eq(l.n, 5);
	assert_entry(&l, 0, "a", "{\"command\":\"x\",\"sandbox\":\"default\"}");
	assert_entry(&l, 1, "b", "{\"command\":\"y\",\"env\":{\"OK\":"
	    "\"${OK}\"},\"sandbox\":\"default\"}");
	ck_assert(has_note(&l.v[1], "\"env_vars\": the app's own setting"));
	assert_entry(&l, 2, "c", "{\"type\":\"http\",\"url\":\"http://h/mcp\","
	    "\"headers\":{\"X-Key\":\"${KEY_VAR}\"}}");
	ck_assert_int_eq(l.v[3].status, APPCONF_SKIPPED);
	ck_assert(has_note(&l.v[3], "runs through mcpctl connect already"));
	/* Not Codex's key: not taken for appconf's own "type". */
	assert_entry(&l, 4, "e", "{\"command\":\"z\",\"sandbox\":\"default\"}");
	ck_assert(has_note(&l.v[4], "\"type (not a Codex setting)\""));
	appconf_list_free(&l);

	ck_assert_int_eq(appconf_read(&codex, S("mcp_servers = 1\n"), &l,
	    &cause), -1);
	ck_assert_str_eq(cause, "\"mcp_servers\" is not a table");
	free(cause);
	ck_assert_int_eq(appconf_read(&codex, S("[mcp_servers.a]\n"
	    "[mcp_servers.a]\n"), &l, &cause), -1);
	ck_assert_str_eq(cause, "line 2, column 1: a table defined twice");
	free(cause);
	ck_assert_uint_eq(l.n, 0);
	ck_assert_int_eq(appconf_read(&codex, S("model = \"o3\"\n"), &l,
	    &cause), 0);
	ck_assert_uint_eq(l.n, 0);
}
END_TEST

/* install's rewrite of every entry of text: each one's new table. */
static char *
rewritten(const char *text, size_t len, char **cause)
{
	struct appconf_list		  l = { NULL, 0 };
	const struct appconf_entry	**entries;
	cJSON				**with;
	char				 *out, *why;
	size_t				  i, outlen;

	ck_assert_msg(appconf_read(&codex, text, len, &l, &why) == 0, "%s",
	    why);
	entries = xreallocarray(NULL, l.n + 1, sizeof *entries);
	with = xreallocarray(NULL, l.n + 1, sizeof *with);
	for (i = 0; i < l.n; i++) {
		entries[i] = &l.v[i];
		with[i] = cJSON_CreateObject();
		cJSON_AddStringToObject(with[i], "command", "/usr/bin/mcpctl");
		cJSON_AddItemToObject(with[i], "args",
		    cJSON_CreateStringArray((const char *[]){ "connect",
		    l.v[i].name }, 2));
		if (l.v[i].was_disabled)
			cJSON_AddTrueToObject(with[i], "disabled");
	}
	out = appconf_rewrite(text, len, entries, with, l.n, &outlen, cause);
	ck_assert(out == NULL || strlen(out) == outlen);
	for (i = 0; i < l.n; i++)
		cJSON_Delete(with[i]);
	free(with);
	free(entries);
	appconf_list_free(&l);
	return (out);
}

START_TEST(test_codex_rewrite)
{
	static const char	 text[] =
	    "model = \"o3\"  # kept\n"
	    "\n"
	    "[mcp_servers.one]\n"
	    "  # the launcher\n"
	    "  command = \"npx\"   # trailing\n"
	    "  args = [\n"
	    "    \"-y\",\n"
	    "    \"pkg\",\n"
	    "  ]\n"
	    "  env = { K = \"v\" }\n"
	    "  tool_timeout_sec = 30\n"
	    "\n"
	    "[mcp_servers.one.env_http_headers]\n"
	    "X = \"Y\"\n"
	    "# the next table's\n"
	    "[mcp_servers.one.tools.search]\n"
	    "approval_mode = \"approve\"\n"
	    "\n"
	    "[mcp_servers]\n"
	    "\"two words\".url = \"http://h/mcp\"\n"
	    "\"two words\".enabled = false\n"
	    "[other]\n"
	    "k = 'v'";
	static const char	 want[] =
	    "model = \"o3\"  # kept\n"
	    "\n"
	    "[mcp_servers.one]\n"
	    "  # the launcher\n"
	    "  command = \"/usr/bin/mcpctl\"\n"
	    "  args = [\"connect\", \"one\"]\n"
	    "  tool_timeout_sec = 30\n"
	    "\n"
	    "# the next table's\n"
	    "[mcp_servers.one.tools.search]\n"
	    "approval_mode = \"approve\"\n"
	    "\n"
	    "[mcp_servers]\n"
	    "\"two words\".command = \"/usr/bin/mcpctl\"\n"
	    "\"two words\".args = [\"connect\", \"two words\"]\n"
	    "\"two words\".enabled = false\n"
	    "[other]\n"
	    "k = 'v'";
	char	*out, *cause = NULL;

	out = rewritten(S(text), &cause);
	ck_assert_msg(out != NULL, "%s", cause);
	ck_assert_str_eq(out, want);
	free(out);
}
END_TEST

/* The documentation's file: only the servers' statements change. */
START_TEST(test_codex_rewrite_fixture)
{
	struct toml_doc	 a, b;
	char		*text, *out, *cause = NULL;
	size_t		 len;
	const cJSON	*item;

	text = fixture("codex_config.toml", &len);
	out = rewritten(text, len, &cause);
	ck_assert_msg(out != NULL, "%s", cause);
	ck_assert_int_eq(toml_parse(text, len, &a, &cause), 0);
	ck_assert_int_eq(toml_parse(out, strlen(out), &b, &cause), 0);
	cJSON_ArrayForEach(item, a.root) {
		if (strcmp(item->string, "mcp_servers") == 0)
			continue;
		ck_assert_msg(cJSON_Compare(item, cJSON_GetObjectItem(b.root,
		    item->string), 1), "%s changed", item->string);
	}
	item = cJSON_GetObjectItem(b.root, "mcp_servers");
	free(text);
	text = cJSON_PrintUnformatted(cJSON_GetObjectItem(item, "figma"));
	ck_assert_str_eq(text, "{\"command\":\"/usr/bin/mcpctl\",\"args\":"
	    "[\"connect\",\"figma\"],\"enabled\":false}");
	ck_assert(strstr(out, "[mcp_servers.docs.env]") == NULL);
	ck_assert(strstr(out, "# Optional: cwd that the command will be run "
	    "from\n") != NULL);
	ck_assert(strstr(out, "tool_timeout_sec = 30\nenabled_tools = "
	    "[\"search\", \"summarize\"]\n\n# A streamable") != NULL);
	/* Read again: every server runs through mcpd already. */
	free(text);
	text = rewritten(out, strlen(out), &cause);
	ck_assert_ptr_nonnull(text);
	toml_doc_free(&a);
	toml_doc_free(&b);
	free(text);
	free(out);
}
END_TEST

START_TEST(test_codex_rewrite_crlf)
{
	char	*out, *cause = NULL;

	out = rewritten(S("[mcp_servers.a]\r\ncommand = \"x\"\r\n"
	    "args = [\"y\"]\r\n"), &cause);
	ck_assert_msg(out != NULL, "%s", cause);
	ck_assert_str_eq(out, "[mcp_servers.a]\r\ncommand = "
	    "\"/usr/bin/mcpctl\"\r\nargs = [\"connect\", \"a\"]\r\n");
	free(out);
	/* The last line, without its line end: the new ones end theirs. */
	out = rewritten(S("[mcp_servers.a]\nargs = []\ncommand = \"x\""),
	    &cause);
	ck_assert_msg(out != NULL, "%s", cause);
	ck_assert_str_eq(out, "[mcp_servers.a]\ncommand = \"/usr/bin/mcpctl\""
	    "\nargs = [\"connect\", \"a\"]\n");
	free(out);
}
END_TEST

START_TEST(test_codex_rewrite_refused)
{
	static const struct {
		const char	*text;
		const char	*cause;
	} t[] = {
		{ "[mcp_servers]\na = { command = \"x\" }\n",
		    "mcp_servers.a: line 2: the server is one inline table; "
		    "install rewrites [mcp_servers.NAME] tables" },
		{ "mcp_servers = { a = { command = \"x\" } }\n",
		    "mcp_servers.a: line 1: \"mcp_servers\" is not written as "
		    "[mcp_servers.NAME] tables, which is what install "
		    "rewrites" },
	};
	char	*out, *cause;
	size_t	 i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		cause = NULL;
		out = rewritten(t[i].text, strlen(t[i].text), &cause);
		ck_assert_ptr_null(out);
		ck_assert_str_eq(cause, t[i].cause);
		free(cause);
	}
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("toml");
	tc = tcase_create("reader");
	tcase_add_test(tc, test_toml_values);
	tcase_add_test(tc, test_toml_tables);
	tcase_add_test(tc, test_toml_statements);
	tcase_add_test(tc, test_toml_errors);
	tcase_add_test(tc, test_toml_nul);
	tcase_add_test(tc, test_toml_deep);
	tcase_add_test(tc, test_toml_huge);
	tcase_add_test(tc, test_toml_quote);
	suite_add_tcase(s, tc);
	tc = tcase_create("codex");
	tcase_add_test(tc, test_codex_read);
	tcase_add_test(tc, test_codex_read_shapes);
	tcase_add_test(tc, test_codex_rewrite);
	tcase_add_test(tc, test_codex_rewrite_fixture);
	tcase_add_test(tc, test_codex_rewrite_crlf);
	tcase_add_test(tc, test_codex_rewrite_refused);
	suite_add_tcase(s, tc);
	return (s);
}
