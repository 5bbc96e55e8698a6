/*
 * test_filter.c -- unit tests for the allow and deny lists (filter.c):
 * glob semantics, checked case by case and against glibc's fnmatch(3) on
 * random patterns; allow, deny and deny winning; parsing and its error
 * paths; and narrowing each kind of list result, as text and as a tree,
 * including malformed and hostile replies (the text must come back byte
 * for byte where nothing is removed, and no reply may cost more than its
 * size in memory or more than linear time).
 *
 * JSON in the tests is written with single quotes, turned into double
 * quotes by q().
 */
#include "config.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "unit.h"
#include "util.h"
#include "xmalloc.h"

/* The text with ' turned into ". */
static char *
q(const char *text)
{
	char	*s, *p;

	s = xstrdup(text);
	for (p = s; *p != '\0'; p++) {
		if (*p == '\'')
			*p = '"';
	}
	return (s);
}

struct errors {
	char	 text[4096];
	size_t	 n;
};

static void
collect(void *arg, const char *path, const char *message)
{
	struct errors	*e = arg;
	size_t		 len = strlen(e->text);

	snprintf(e->text + len, sizeof e->text - len, "%s: %s\n", path,
	    message);
	e->n++;
}

/* A filter of a kind from JSON text that must be valid (NULL: all pass). */
static struct filter *
make_as(enum filter_kind kind, const char *text)
{
	struct errors	 e = { "", 0 };
	struct filter	*f;
	cJSON		*json;
	char		*s;

	s = q(text);
	json = cJSON_Parse(s);
	ck_assert_msg(json != NULL, "bad test JSON: %s", s);
	ck_assert_msg(filter_parse(json, kind, "f", collect, &e, &f) == 0,
	    "filter %s refused:\n%s", s, e.text);
	ck_assert_uint_eq(e.n, 0);
	cJSON_Delete(json);
	free(s);
	return (f);
}

static struct filter *
make(const char *text)
{
	return (make_as(FILTER_TOOLS, text));
}

/* The errors of a filter of a kind that must be refused, one per line. */
static void
refused_as(enum filter_kind kind, const char *text, const char *errors)
{
	struct errors	 e = { "", 0 };
	struct filter	*f = (struct filter *)1;
	cJSON		*json;
	char		*s;

	s = q(text);
	json = cJSON_Parse(s);
	ck_assert_msg(json != NULL, "bad test JSON: %s", s);
	ck_assert_int_eq(filter_parse(json, kind, "f", collect, &e, &f), -1);
	ck_assert_ptr_null(f);
	ck_assert_str_eq(e.text, errors);
	cJSON_Delete(json);
	free(s);
}

static void
refused(const char *text, const char *errors)
{
	refused_as(FILTER_TOOLS, text, errors);
}

/* ---- globs ---- */

START_TEST(test_glob_cases)
{
	static const struct {
		const char	*pattern;
		const char	*name;
		int		 match;
	} cases[] = {
		{ "echo", "echo", 1 },
		{ "echo", "echo2", 0 },
		{ "echo", "ech", 0 },
		{ "*", "", 1 },
		{ "*", "anything/at all", 1 },
		{ "*", ".hidden", 1 },		/* no FNM_PERIOD */
		{ "a*", "a", 1 },
		{ "a*b", "a/x/b", 1 },		/* no FNM_PATHNAME */
		{ "a*b", "ab", 1 },
		{ "a*b", "abc", 0 },
		{ "*a*b*c*", "xxaxxbxxcxx", 1 },
		{ "*a*b*c*", "xxaxxcxxbxx", 0 },
		{ "?", "x", 1 },
		{ "?", "", 0 },
		{ "?", "xy", 0 },
		{ "??", "\xc3\xa9", 1 },	/* bytes, as in the C locale */
		{ "get_[a-c]", "get_b", 1 },
		{ "get_[a-c]", "get_d", 0 },
		{ "get_[!a-c]", "get_d", 1 },
		{ "get_[^a-c]", "get_a", 0 },
		{ "[]x]", "]", 1 },
		{ "[]x]", "x", 1 },
		{ "[!]x]", "]", 0 },
		{ "[a-]", "-", 1 },
		{ "[[:digit:]]*", "7up", 1 },
		{ "[[:digit:]]*", "up7", 0 },
		{ "[[:upper:][:digit:]]", "Q", 1 },
		{ "[[:alpha:]]", "\xc3", 0 },	/* ASCII classes only */
		{ "\\*", "*", 1 },
		{ "\\*", "x", 0 },
		{ "a\\?", "a?", 1 },
		{ "\\[x]", "[x]", 1 },
		{ "[\\]]", "]", 1 },
		{ "file:///srv/*", "file:///srv/a/b.txt", 1 },
		{ "file:///srv/*", "file:///srv", 0 },
		{ "demo://*/{id}", "demo://x/{id}", 1 },
	};
	size_t	 i;

	for (i = 0; i < nitems(cases); i++) {
		ck_assert_msg(filter_pattern_error(cases[i].pattern) == NULL,
		    "pattern %s refused: %s", cases[i].pattern,
		    filter_pattern_error(cases[i].pattern));
		ck_assert_msg(filter_glob(cases[i].pattern, cases[i].name) ==
		    cases[i].match, "%s against %s: expected %d",
		    cases[i].pattern, cases[i].name, cases[i].match);
		/* What fnmatch(3) says, in the C locale. */
		ck_assert_int_eq(fnmatch(cases[i].pattern, cases[i].name, 0) ==
		    0, cases[i].match);
	}
}
END_TEST

START_TEST(test_glob_refused_patterns)
{
	static const char *bad[] = {
		"", "[", "[a", "[]", "[!]", "a[b", "x\\", "[a-\\",
		"[[:alpha:]", "[[:nope:]]", "[[:ALPHA:]]", "[[.a.]]",
		"[[=a=]]", "[a-[:digit:]]",
	};
	size_t	 i;

	for (i = 0; i < nitems(bad); i++)
		ck_assert_msg(filter_pattern_error(bad[i]) != NULL,
		    "pattern \"%s\" accepted", bad[i]);
}
END_TEST

/* Random patterns and names from a small alphabet, against fnmatch(3). */
START_TEST(test_glob_against_fnmatch)
{
	static const char	 alpha[] = "ab*?[]!^-\\:./ z\x80";
	static const char	*classes[] = { "[:alpha:]", "[:digit:]",
				    "[:punct:]", "[:space:]", "[:upper:]",
				    "[:xdigit:]" };
	char			 pattern[64], name[32];
	unsigned int		 seed = 12345;
	size_t			 it, i, o, n, checked = 0;

	for (it = 0; it < 400000; it++) {
		n = rand_r(&seed) % 12;
		for (i = 0, o = 0; i < n && o < 40; i++) {
			if (rand_r(&seed) % 10 == 0) {
				const char *c = classes[rand_r(&seed) %
				    nitems(classes)];
				memcpy(pattern + o, c, strlen(c));
				o += strlen(c);
			} else
				pattern[o++] = alpha[rand_r(&seed) %
				    (sizeof alpha - 1)];
		}
		pattern[o] = '\0';
		n = rand_r(&seed) % 16;
		for (i = 0; i < n; i++)
			name[i] = alpha[rand_r(&seed) % (sizeof alpha - 1)];
		name[n] = '\0';
		if (filter_pattern_error(pattern) != NULL)
			continue;
		checked++;
		ck_assert_msg(filter_glob(pattern, name) ==
		    (fnmatch(pattern, name, 0) == 0), "\"%s\" against \"%s\": "
		    "filter_glob %d, fnmatch %d", pattern, name,
		    filter_glob(pattern, name), fnmatch(pattern, name, 0) == 0);
	}
	/* Most random patterns are well formed. */
	ck_assert_uint_gt(checked, 200000);
}
END_TEST

/*
 * Many stars against a long name that never matches: 121 x 64 Ki steps at
 * most, where a backtracking matcher would run past check's timeout.
 */
START_TEST(test_glob_linear)
{
	char		 pattern[256], *name;
	size_t		 i, n = 64 * 1024;

	for (i = 0; i < 60; i++) {
		pattern[2 * i] = '*';
		pattern[2 * i + 1] = 'a';
	}
	pattern[120] = 'b';
	pattern[121] = '\0';
	name = xmalloc(n + 1);
	memset(name, 'a', n);
	name[n] = '\0';
	ck_assert_int_eq(filter_glob(pattern, name), 0);
	name[n - 1] = 'b';
	ck_assert_int_eq(filter_glob(pattern, name), 1);
	free(name);
}
END_TEST

/* ---- allow and deny ---- */

START_TEST(test_allow_deny)
{
	struct filter	*f;

	/* Deny only: everything else passes. */
	f = make("{'deny': ['delete_*', 'drop']}");
	ck_assert(filter_allows(f, "read"));
	ck_assert(!filter_allows(f, "delete_file"));
	ck_assert(!filter_allows(f, "drop"));
	ck_assert(filter_allows(f, "dropped"));
	filter_free(f);

	/* Allow only: nothing else passes. */
	f = make("{'allow': ['read_*', 'list']}");
	ck_assert(filter_allows(f, "read_file"));
	ck_assert(filter_allows(f, "list"));
	ck_assert(!filter_allows(f, "lists"));
	ck_assert(!filter_allows(f, "write"));
	filter_free(f);

	/* Deny wins over allow. */
	f = make("{'allow': ['*'], 'deny': ['secret*']}");
	ck_assert(filter_allows(f, "public"));
	ck_assert(!filter_allows(f, "secret_key"));
	filter_free(f);
	f = make("{'deny': ['x'], 'allow': ['x', 'y']}");
	ck_assert(!filter_allows(f, "x"));
	ck_assert(filter_allows(f, "y"));
	filter_free(f);

	/* An empty allow list lets nothing pass. */
	f = make("{'allow': []}");
	ck_assert_ptr_nonnull(f);
	ck_assert(!filter_allows(f, "anything"));
	ck_assert(!filter_allows(f, ""));
	filter_free(f);

	/* What lets everything pass is no filter. */
	ck_assert_ptr_null(make("{}"));
	ck_assert_ptr_null(make("{'deny': []}"));
	ck_assert(filter_allows(NULL, "anything"));
}
END_TEST

/* A thing with several names: denied by any, allowed by one. */
START_TEST(test_allows_any)
{
	static const char *const names[] = { "fs__files.delete",
	    "files.delete", "fs__files_delete-0459047b" };
	struct filter	*f;

	f = make("{'deny': ['fs__files_delete*']}");
	ck_assert(!filter_allows_any(f, names, 3));
	ck_assert(filter_allows_any(f, names, 2));
	filter_free(f);
	f = make("{'deny': ['files.delete']}");
	ck_assert(!filter_allows_any(f, names, 3));
	ck_assert(filter_allows_any(f, names, 1));
	filter_free(f);
	f = make("{'allow': ['files.*']}");
	ck_assert(filter_allows_any(f, names, 3));
	ck_assert(!filter_allows_any(f, names, 1));
	filter_free(f);
	f = make("{'allow': ['*'], 'deny': ['*-0459047b']}");
	ck_assert(!filter_allows_any(f, names, 3));
	filter_free(f);
	ck_assert(filter_allows_any(NULL, names, 3));
	ck_assert(filter_allows_any(NULL, names, 0));
}
END_TEST

START_TEST(test_parse_errors)
{
	refused("[]", "f: expected an object with \"allow\" and/or \"deny\" "
	    "(arrays of glob patterns)\n");
	refused("'allow'", "f: expected an object with \"allow\" and/or "
	    "\"deny\" (arrays of glob patterns)\n");
	refused("{'allow': {}}", "f.allow: expected an array of glob patterns "
	    "(strings)\n");
	refused("{'allow': null, 'deny': 'x'}", "f.allow: expected an array "
	    "of glob patterns (strings)\nf.deny: expected an array of glob "
	    "patterns (strings)\n");
	refused("{'allow': ['ok', 1, '', '[x']}", "f.allow[1]: expected a "
	    "string (a glob pattern)\nf.allow[2]: empty pattern\n"
	    "f.allow[3]: unterminated '[', unknown class, or unsupported "
	    "\"[.\" or \"[=\" (write \\[ for a literal '[')\n");
	refused("{'Allow': ['x']}", "f.Allow: unknown key: a filter has only "
	    "\"allow\" and \"deny\"\n");
	refused("{'allow': ['x'], 'allow': ['y']}", "f.allow: duplicate key\n");
}
END_TEST

START_TEST(test_dup_equal)
{
	struct filter	*a, *b, *c;

	a = make("{'allow': ['a', 'b'], 'deny': ['c']}");
	b = filter_dup(a);
	ck_assert(filter_equal(a, b));
	c = make("{'allow': ['a', 'b']}");
	ck_assert(!filter_equal(a, c));
	ck_assert(!filter_equal(a, NULL));
	ck_assert(filter_equal(NULL, NULL));
	filter_free(c);
	/* allow [] differs from no allow at all. */
	c = make("{'allow': [], 'deny': ['c']}");
	filter_free(a);
	a = make("{'deny': ['c']}");
	ck_assert(!filter_equal(a, c));
	filter_free(a);
	filter_free(b);
	filter_free(c);
	ck_assert_ptr_null(filter_dup(NULL));
}
END_TEST

START_TEST(test_methods)
{
	enum filter_list	 list;

	ck_assert_int_eq(filter_list_of_method("tools/list", &list), 0);
	ck_assert_int_eq(list, FILTER_LIST_TOOLS);
	ck_assert_int_eq(filter_list_kind(list), FILTER_TOOLS);
	ck_assert_int_eq(filter_list_of_method("resources/templates/list",
	    &list), 0);
	ck_assert_int_eq(filter_list_kind(list), FILTER_RESOURCES);
	ck_assert_str_eq(filter_list_member(list), "resourceTemplates");
	ck_assert_str_eq(filter_list_key(list), "uriTemplate");
	ck_assert_int_eq(filter_list_of_method("tools/call", &list), -1);
	ck_assert_str_eq(filter_kind_name(FILTER_PROMPTS), "prompts");
}
END_TEST

/* ---- list results as text ---- */

/*
 * Narrow text (quoted with ') and compare with want (NULL: kept); with
 * tree, filter_list_json must agree (where cJSON reads the same names).
 */
static void
narrow_tree(const struct filter *f, enum filter_list list, const char *text,
    const char *want, int tree)
{
	enum filter_result	 r;
	char			*in, *out, *w;
	size_t			 outlen;
	cJSON			*a, *b;

	in = q(text);
	r = filter_list_text(f, list, in, strlen(in), &out, &outlen);
	if (want == NULL) {
		ck_assert_msg(r == FILTER_KEPT, "%s: expected it kept, got %d",
		    in, r);
		ck_assert_ptr_null(out);
	} else {
		w = q(want);
		ck_assert_msg(r == FILTER_CHANGED, "%s: expected it changed, "
		    "got %d", in, r);
		ck_assert_uint_eq(outlen, strlen(out));
		ck_assert_str_eq(out, w);
		/* Valid JSON, the same as the tree version gives. */
		a = cJSON_Parse(out);
		ck_assert_ptr_nonnull(a);
		if (tree) {
			b = cJSON_Parse(in);
			ck_assert_int_eq(filter_list_json(f, list, b),
			    FILTER_CHANGED);
			ck_assert(cJSON_Compare(a, b, 1));
			cJSON_Delete(b);
		}
		cJSON_Delete(a);
		free(w);
		free(out);
	}
	free(in);
}

static void
narrow(const struct filter *f, enum filter_list list, const char *text,
    const char *want)
{
	narrow_tree(f, list, text, want, 1);
}

static void
narrow_bad(const struct filter *f, enum filter_list list, const char *text,
    size_t len)
{
	char	*out;
	size_t	 outlen;

	ck_assert_msg(filter_list_text(f, list, text, len, &out, &outlen) ==
	    FILTER_BAD, "%.*s: expected FILTER_BAD", (int)len, text);
	ck_assert_ptr_null(out);
}

START_TEST(test_list_tools)
{
	struct filter	*f;

	f = make("{'allow': ['echo', 'get_*'], 'deny': ['get_secret']}");
	narrow(f, FILTER_LIST_TOOLS,
	    "{'tools':[{'name':'echo','inputSchema':{'name':'x'}},"
	    "{'name':'get_secret'},{'name':'rm'},{'name':'get_sum',"
	    "'description':'tools/list'}],'nextCursor':'c2'}",
	    "{'tools':[{'name':'echo','inputSchema':{'name':'x'}},"
	    "{'name':'get_sum','description':'tools/list'}],"
	    "'nextCursor':'c2'}");
	/* Only the first: the rest kept byte for byte, spaces and all. */
	narrow(f, FILTER_LIST_TOOLS,
	    " { '_meta' : {'tools': 1} , 'tools' : [ {'name':'rm'} , "
	    "{ 'name' : 'echo' } ] , 'x':[1] } ",
	    " { '_meta' : {'tools': 1} , 'tools' : [{ 'name' : 'echo' }] , "
	    "'x':[1] } ");
	/* All removed. */
	narrow(f, FILTER_LIST_TOOLS, "{'tools':[{'name':'rm'},{'name':'mv'}]}",
	    "{'tools':[]}");
	/* Nothing removed: kept, not copied. */
	narrow(f, FILTER_LIST_TOOLS, "{'tools':[{'name':'echo'}]}", NULL);
	narrow(f, FILTER_LIST_TOOLS, "{'tools':[]}", NULL);
	narrow(f, FILTER_LIST_TOOLS, "{'tools':[ ]}", NULL);
	/* Escaped names and keys are decoded first. */
	narrow(f, FILTER_LIST_TOOLS,
	    "{'tool\\u0073':[{'n\\u0061me':'get_s\\u0065cret'},"
	    "{'name':'\\u0065cho'}]}", "{'tool\\u0073':[{'name':"
	    "'\\u0065cho'}]}");
	/* Without a filter nothing is even read. */
	narrow(NULL, FILTER_LIST_TOOLS, "not json", NULL);
	filter_free(f);
}
END_TEST

START_TEST(test_list_prompts_resources_templates)
{
	struct filter	*f;

	f = make("{'deny': ['*secret*']}");
	narrow(f, FILTER_LIST_PROMPTS, "{'prompts':[{'name':'a'},"
	    "{'name':'top-secret','arguments':[]}]}", "{'prompts':"
	    "[{'name':'a'}]}");
	/* Prompts are matched by name, resources by uri. */
	narrow(f, FILTER_LIST_RESOURCES, "{'resources':[{'uri':'file:///a',"
	    "'name':'secret'},{'uri':'file:///secret/b','name':'b'}]}",
	    "{'resources':[{'uri':'file:///a','name':'secret'}]}");
	/* Templates by uriTemplate. */
	narrow(f, FILTER_LIST_TEMPLATES, "{'resourceTemplates':["
	    "{'uriTemplate':'db://secret/{id}','name':'s'},"
	    "{'uriTemplate':'db://public/{id}','uri':'secret'}]}",
	    "{'resourceTemplates':[{'uriTemplate':'db://public/{id}',"
	    "'uri':'secret'}]}");
	/* Another list's member is not this one's. */
	narrow_bad(f, FILTER_LIST_TEMPLATES, "{\"resources\":[]}", 16);
	filter_free(f);
}
END_TEST

START_TEST(test_list_entries_that_cannot_be_judged)
{
	struct filter	*f;

	f = make("{'deny': ['bad']}");
	/*
	 * Not objects, no name, a name that is not a string, a repeated
	 * name, a name holding NUL or a lone surrogate: removed (cJSON
	 * would read some of these otherwise).
	 */
	narrow_tree(f, FILTER_LIST_TOOLS, "{'tools':[1,'ok',null,[],{},"
	    "{'nam':'x'},{'name':5},{'name':'ok','name':'bad'},"
	    "{'name':'a\\u0000b'},{'name':'\\ud800'},{'name':'ok'},"
	    "{'x':{'name':'bad'},'name':'fine'}]}",
	    "{'tools':[{'name':'ok'},{'x':{'name':'bad'},'name':'fine'}]}", 0);
	filter_free(f);
}
END_TEST

START_TEST(test_list_malformed)
{
	static const char *bad[] = {
		"",
		"   ",
		"[]",
		"{'tools':[]",			/* cut short */
		"{'tools':[{'name':'a'}]}}",	/* trailing garbage */
		"{'tools':{}}",			/* not an array */
		"{'tools':null}",
		"{'tool':[]}",			/* no array at all */
		"{}",
		"{'tools':[],'tools':[]}",	/* which one? */
		"{'tools':[{'name':'a'},]}",	/* not JSON */
		"{'tools':[{'name':'a'} {'name':'b'}]}",
		"{'tools':['\\x']}",
		"'tools'",
	};
	struct filter	*f;
	char		*s;
	size_t		 i;

	f = make("{'deny': ['a']}");
	for (i = 0; i < nitems(bad); i++) {
		s = q(bad[i]);
		narrow_bad(f, FILTER_LIST_TOOLS, s, strlen(s));
		free(s);
	}
	/* A NUL inside, invalid UTF-8, a length that stops early. */
	narrow_bad(f, FILTER_LIST_TOOLS, "{\"tools\":[]}\0x", 14);
	narrow_bad(f, FILTER_LIST_TOOLS, "{\"tools\":[\"\xff\"]}", 15);
	narrow_bad(f, FILTER_LIST_TOOLS, "{\"tools\":[]}", 11);
	filter_free(f);
}
END_TEST

/* Hostile sizes: deep nesting, many entries, one huge name. */
START_TEST(test_list_hostile)
{
	struct filter	*f;
	char		*text, *out;
	size_t		 n = 200000, i, len, outlen;

	f = make("{'deny': ['x*']}");
	/* 200,000 entries, every other one removed, in one pass. */
	text = xmalloc(n * 16 + 32);
	len = (size_t)sprintf(text, "{\"tools\":[");
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "%s{\"name\":\"%c%zu\"}",
		    i > 0 ? "," : "", i % 2 ? 'x' : 'y', i % 10);
	len += (size_t)sprintf(text + len, "]}");
	ck_assert_int_eq(filter_list_text(f, FILTER_LIST_TOOLS, text, len,
	    &out, &outlen), FILTER_CHANGED);
	ck_assert_uint_lt(outlen, len);
	ck_assert_ptr_null(strstr(out, "\"x"));
	ck_assert_ptr_nonnull(strstr(out, "\"y8\"}]}"));
	free(out);
	free(text);

	/* Nesting as deep as the scanner allows, inside an entry. */
	text = xmalloc(4096);
	len = (size_t)sprintf(text, "{\"tools\":[{\"name\":\"x\",\"a\":");
	for (i = 0; i < 500; i++)
		text[len++] = '[';
	for (i = 0; i < 500; i++)
		text[len++] = ']';
	len += (size_t)sprintf(text + len, "},{\"name\":\"y\"}]}");
	ck_assert_int_eq(filter_list_text(f, FILTER_LIST_TOOLS, text, len,
	    &out, &outlen), FILTER_CHANGED);
	ck_assert_str_eq(out, "{\"tools\":[{\"name\":\"y\"}]}");
	free(out);
	/* Deeper than that: refused, not recursed into. */
	len = (size_t)sprintf(text, "{\"tools\":[");
	for (i = 0; i < 1000; i++)
		text[len++] = '[';
	for (i = 0; i < 1000; i++)
		text[len++] = ']';
	len += (size_t)sprintf(text + len, "]}");
	narrow_bad(f, FILTER_LIST_TOOLS, text, len);
	free(text);

	/* A name of 1 MiB, matched against a pattern with stars. */
	filter_free(f);
	f = make("{'allow': ['*a*b*c*d*e*f*g*h*z']}");
	n = 1024 * 1024;
	text = xmalloc(n + 64);
	len = (size_t)sprintf(text, "{\"tools\":[{\"name\":\"");
	memset(text + len, 'a', n);
	len += n;
	len += (size_t)sprintf(text + len, "\"},{\"name\":\"abcdefghz\"}]}");
	ck_assert_int_eq(filter_list_text(f, FILTER_LIST_TOOLS, text, len,
	    &out, &outlen), FILTER_CHANGED);
	ck_assert_str_eq(out, "{\"tools\":[{\"name\":\"abcdefghz\"}]}");
	free(out);
	free(text);
	filter_free(f);
}
END_TEST

/* ---- URIs in their normal form, completions ---- */

START_TEST(test_uri_normal_form)
{
	static const char *etc[] = {
		"file:///etc/shadow", "file:///tmp/../etc/shadow",
		"file:///%65tc/shadow", "FILE:///etc/shadow",
		"file://localhost/etc/shadow", "file:/etc/shadow",
		"file:////etc/shadow", "file:///tmp/%2e%2e/etc/shadow",
	};
	struct filter	*f;
	const char	*why;
	size_t		 i;

	f = make_as(FILTER_RESOURCES, "{'deny': ['file:///etc/*']}");
	for (i = 0; i < nitems(etc); i++) {
		why = NULL;
		ck_assert_msg(filter_check_uri(f, etc[i], &why) == 0,
		    "%s passes a deny of file:///etc/*", etc[i]);
		ck_assert(!filter_allows_uri(f, etc[i]));
		/* Nor does a list show it. */
		ck_assert(!filter_allows_entry(f, FILTER_LIST_RESOURCES,
		    etc[i]));
	}
	ck_assert_int_eq(filter_check_uri(f, "file:///tmp/x", &why), 1);
	ck_assert_int_eq(filter_check_uri(f, "file:///etc%2Fshadow", &why),
	    -1);
	ck_assert_ptr_nonnull(strstr(why, "encoded '/'"));
	ck_assert_int_eq(filter_check_uri(f, "etc/shadow", &why), -1);
	ck_assert_ptr_nonnull(strstr(why, "no scheme"));
	ck_assert(!filter_allows_uri(f, "file:///tmp\\..\\etc\\shadow"));
	/* Without a filter nothing is looked at. */
	ck_assert_int_eq(filter_check_uri(NULL, "not a uri", &why), 1);

	/* Templates: as written, and in their normal form where they have it. */
	ck_assert(!filter_allows_template(f, "file:///etc/{name}"));
	ck_assert(!filter_allows_template(f, "file:///tmp/../etc/{name}"));
	ck_assert(!filter_allows_template(f, "FILE:///etc/{name}"));
	ck_assert(filter_allows_template(f, "file:///{+path}"));
	ck_assert(filter_allows_template(f, "file:///tmp/{name}"));
	/* No normal form: judged as written, which the server compares. */
	ck_assert(filter_allows_template(f, "file:///etc%2F{name}"));
	ck_assert(!filter_allows_template(f, "file:///etc/{name}?{q}"));

	/* Lists, with each entry kept as the server spelled it. */
	narrow(f, FILTER_LIST_RESOURCES, "{'resources':["
	    "{'uri':'file:///tmp/../etc/shadow'},{'uri':'FILE:///etc/passwd'},"
	    "{'uri':'file:///tmp/%6Fk'},{'uri':'file:///etc%2Fx'},"
	    "{'uri':'relative'},{'uri':'file://localhost/etc/group'}]}",
	    "{'resources':[{'uri':'file:///tmp/%6Fk'}]}");
	narrow(f, FILTER_LIST_TEMPLATES, "{'resourceTemplates':["
	    "{'uriTemplate':'file:///tmp/../etc/{n}'},"
	    "{'uriTemplate':'file:///{+p}'}]}",
	    "{'resourceTemplates':[{'uriTemplate':'file:///{+p}'}]}");
	filter_free(f);

	/* An allow list is judged on the normal form too. */
	f = make_as(FILTER_RESOURCES, "{'allow': ['file:///tmp/*']}");
	ck_assert(!filter_allows_uri(f, "file:///tmp/../etc/shadow"));
	ck_assert(!filter_allows_uri(f, "file:///tmp/%2E%2E/etc/shadow"));
	ck_assert(filter_allows_uri(f, "file:///tmp/a/../b"));
	ck_assert(filter_allows_uri(f, "FILE://LOCALHOST/tmp/b"));
	filter_free(f);

	/* Tools and prompts are names: compared as they are. */
	f = make_as(FILTER_TOOLS, "{'deny': ['a/../b']}");
	ck_assert(!filter_allows_entry(f, FILTER_LIST_TOOLS, "a/../b"));
	ck_assert(filter_allows_entry(f, FILTER_LIST_TOOLS, "b"));
	filter_free(f);
}
END_TEST

START_TEST(test_parse_resource_patterns)
{
	struct filter	*f;

	refused_as(FILTER_RESOURCES, "{'deny': ['FILE:///etc/*', "
	    "'file:///etc/*', 'file://localhost/x']}", "f.deny[0]: the scheme "
	    "must be in lower case: URIs are compared in their normal form "
	    "(RFC 3986)\nf.deny[2]: a file URI is compared as file:///PATH "
	    "(file:/PATH and file://localhost/PATH are rewritten so)\n");
	refused_as(FILTER_RESOURCES, "{'allow': ['file:///tmp/../x']}",
	    "f.allow[0]: a file URI is compared with '.' and '..' in its path "
	    "resolved\n");
	/* Other kinds are names, not URIs. */
	f = make_as(FILTER_TOOLS, "{'deny': ['FILE:///etc/*']}");
	ck_assert(!filter_allows(f, "FILE:///etc/x"));
	filter_free(f);
}
END_TEST

/* filter_complete_ref on params (quoted with '): what, and its name. */
static void
complete_ref(const char *params, enum filter_ref want, const char *name)
{
	enum filter_ref	 got;
	char		*text, *out;

	text = q(params);
	got = filter_complete_ref(text, strlen(text), &out);
	ck_assert_msg(got == want, "%s: got %d, want %d", text, got, want);
	if (name != NULL) {
		ck_assert_ptr_nonnull(out);
		ck_assert_str_eq(out, name);
	} else
		ck_assert_ptr_null(out);
	free(out);
	free(text);
}

START_TEST(test_complete_ref)
{
	complete_ref("{'ref':{'type':'ref/prompt','name':'p'}}",
	    FILTER_REF_PROMPT, "p");
	complete_ref("{'argument':{'name':'a','value':'b'},'ref':"
	    "{'name':'p\\u0031','type':'ref/prompt'}}", FILTER_REF_PROMPT,
	    "p1");
	complete_ref("{ 'ref' : { 't\\u0079pe' : 'ref/prompt' , 'name' : "
	    "'x' } }", FILTER_REF_PROMPT, "x");
	complete_ref("{'ref':{'type':'ref/resource','uri':'file:///{x}'}}",
	    FILTER_REF_RESOURCE, "file:///{x}");
	/* Members of the same names deeper are not the ref's. */
	complete_ref("{'x':{'ref':{'type':'ref/other'}},'ref':{'type':"
	    "'ref/prompt','name':'n','x':{'name':'deep'}}}",
	    FILTER_REF_PROMPT, "n");
	complete_ref("{'ref':{'type':'ref/other','name':'n'}}",
	    FILTER_REF_OTHER, NULL);
	/* What cannot be judged. */
	complete_ref("{}", FILTER_REF_BAD, NULL);
	complete_ref("{'ref':'x'}", FILTER_REF_BAD, NULL);
	complete_ref("{'ref':{'type':5,'name':'a'}}", FILTER_REF_BAD, NULL);
	complete_ref("{'ref':{'name':'a'}}", FILTER_REF_BAD, NULL);
	complete_ref("{'ref':{'type':'ref/prompt'}}", FILTER_REF_BAD, NULL);
	complete_ref("{'ref':{'type':'ref/prompt','name':1}}", FILTER_REF_BAD,
	    NULL);
	complete_ref("{'ref':{'type':'ref/resource','name':'a'}}",
	    FILTER_REF_BAD, NULL);
	complete_ref("{'ref':{'type':'ref/prompt','name':'a','name':'b'}}",
	    FILTER_REF_BAD, NULL);
	complete_ref("{'ref':{'type':'ref/prompt','name':'a'},'ref':"
	    "{'type':'ref/prompt','name':'b'}}", FILTER_REF_BAD, NULL);
	complete_ref("{'ref':{'type':'ref/prompt','type':'ref/resource',"
	    "'name':'a','uri':'b'}}", FILTER_REF_BAD, NULL);
	complete_ref("{'ref':{'type':'ref/prompt','name':'a\\u0000'}}",
	    FILTER_REF_BAD, NULL);
	complete_ref("{'ref':{'type':'ref/prompt','name':'\\ud800'}}",
	    FILTER_REF_BAD, NULL);
}
END_TEST

START_TEST(test_list_json)
{
	struct filter	*f;
	cJSON		*j;
	char		*s;

	f = make("{'allow': ['a*']}");
	s = q("{'prompts':[{'name':'ab'},{'name':'b'},3,{'name':1}],"
	    "'nextCursor':'n'}");
	j = cJSON_Parse(s);
	ck_assert_int_eq(filter_list_json(f, FILTER_LIST_PROMPTS, j),
	    FILTER_CHANGED);
	free(s);
	s = cJSON_PrintUnformatted(j);
	ck_assert_str_eq(s, "{\"prompts\":[{\"name\":\"ab\"}],"
	    "\"nextCursor\":\"n\"}");
	ck_assert_int_eq(filter_list_json(f, FILTER_LIST_PROMPTS, j),
	    FILTER_KEPT);
	ck_assert_int_eq(filter_list_json(f, FILTER_LIST_TOOLS, j),
	    FILTER_BAD);
	ck_assert_int_eq(filter_list_json(NULL, FILTER_LIST_TOOLS, j),
	    FILTER_KEPT);
	free(s);
	cJSON_Delete(j);
	filter_free(f);
}
END_TEST

/* A call's resource links: those the filter denies are not shown. */
START_TEST(test_links)
{
	struct filter	*f = make_as(FILTER_RESOURCES,
	    "{'deny': ['file:///secret/*']}");
	const char	*text;
	char		*out;
	size_t		 len;

	text = "{\"content\":[{\"type\":\"text\",\"text\":\"see\"},"
	    "{\"type\":\"resource_link\",\"uri\":\"file:///secret/k\","
	    "\"name\":\"k\"},{\"type\":\"resource_link\",\"uri\":"
	    "\"file:///pub/a\",\"name\":\"a\"},{\"type\":"
	    "\"resource_link\",\"uri\":\"file:///secret/../secret/j\"},"
	    "{\"type\":\"resource_link\"}]}";
	ck_assert_int_eq(filter_links_text(f, text, strlen(text), &out, &len),
	    FILTER_CHANGED);
	/* Every spelling of a denied one goes, and one without a URI. */
	ck_assert_str_eq(out, "{\"content\":[{\"type\":\"text\",\"text\":"
	    "\"see\"},{\"type\":\"resource_link\",\"uri\":"
	    "\"file:///pub/a\",\"name\":\"a\"}]}");
	ck_assert_uint_eq(len, strlen(out));
	free(out);
	/* Nothing to remove, or no links, or not JSON: as it is. */
	text = "{\"content\":[{\"type\":\"resource_link\",\"uri\":"
	    "\"file:///pub/b\"}]}";
	ck_assert_int_eq(filter_links_text(f, text, strlen(text), &out, &len),
	    FILTER_KEPT);
	ck_assert_ptr_null(out);
	text = "{\"content\":[{\"type\":\"text\",\"text\":\"x\"}]}";
	ck_assert_int_eq(filter_links_text(f, text, strlen(text), &out, &len),
	    FILTER_KEPT);
	text = "resource_link, not JSON";
	ck_assert_int_eq(filter_links_text(f, text, strlen(text), &out, &len),
	    FILTER_KEPT);
	ck_assert_int_eq(filter_links_text(NULL, text, strlen(text), &out,
	    &len), FILTER_KEPT);
	filter_free(f);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("filter");
	tc = tcase_create("glob");
	tcase_add_test(tc, test_glob_cases);
	tcase_add_test(tc, test_glob_refused_patterns);
	tcase_add_test(tc, test_glob_against_fnmatch);
	tcase_add_test(tc, test_glob_linear);
	suite_add_tcase(s, tc);
	tc = tcase_create("rules");
	tcase_add_test(tc, test_allow_deny);
	tcase_add_test(tc, test_allows_any);
	tcase_add_test(tc, test_parse_errors);
	tcase_add_test(tc, test_dup_equal);
	tcase_add_test(tc, test_methods);
	suite_add_tcase(s, tc);
	tc = tcase_create("lists");
	tcase_add_test(tc, test_list_tools);
	tcase_add_test(tc, test_list_prompts_resources_templates);
	tcase_add_test(tc, test_list_entries_that_cannot_be_judged);
	tcase_add_test(tc, test_list_malformed);
	tcase_add_test(tc, test_list_hostile);
	tcase_add_test(tc, test_list_json);
	suite_add_tcase(s, tc);
	tc = tcase_create("uris");
	tcase_add_test(tc, test_uri_normal_form);
	tcase_add_test(tc, test_parse_resource_patterns);
	tcase_add_test(tc, test_complete_ref);
	tcase_add_test(tc, test_links);
	suite_add_tcase(s, tc);
	return (s);
}
