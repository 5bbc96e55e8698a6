/*
 * fuzz_toml.c -- what mcpctl import and install read from Codex's
 * config.toml: the TOML reader (src/toml.c) and the servers' rewrite
 * (src/appconf_toml.c), on any text.
 *
 * Invariants:
 * - toml_parse refuses with "line L, column C: ..." inside the text, or
 *   gives statements in order, each a run of whole lines; what lies
 *   between them is blanks, comments and line ends alone (a document of
 *   no statement); a statement read alone is the same statement: the
 *   same key and value, or the same header;
 * - every key and string value, printed by toml_key and toml_quote,
 *   reads back the same;
 * - appconf_read of the text as Codex's file succeeds exactly when
 *   toml_parse does and "mcp_servers", if any, is a table; install's
 *   rewrite of every server either refuses with a reason or gives a
 *   text whose other tables are unchanged, whose servers all run
 *   through mcpctl connect, and that the same rewrite leaves as it is.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "appconf.h"
#include "fuzz.h"
#include "toml.h"
#include "xmalloc.h"

const char	*fuzz_target_name = "toml";

static const struct appconf_file codex = {
	"codex", "codex", APPCONF_CODEX_TOML, APPCONF_SYNTAX_MCPD, NULL, NULL
};

static void
check_cause(const char *cause, const char *text, size_t len)
{
	size_t	 line, column, nl = 1, i;

	FUZZ_CHECK(cause != NULL, "refused without a reason");
	FUZZ_CHECK(sscanf(cause, "line %zu, column %zu:", &line, &column) ==
	    2, "reason \"%s\" names no line", cause);
	for (i = 0; i < len; i++)
		nl += text[i] == '\n';
	FUZZ_CHECK(line >= 1 && line <= nl && column >= 1 && column <= len + 1,
	    "line %zu, column %zu of %zu lines", line, column, nl);
}

/* The same value, printed (cJSON_Compare has nan unequal to nan). */
static int
same(const cJSON *a, const cJSON *b)
{
	char	*ta, *tb;
	int	 eq;

	if (a == NULL || b == NULL)
		return (a == b);
	ta = fuzz_json_text(a);
	tb = fuzz_json_text(b);
	eq = strcmp(ta, tb) == 0;
	free(ta);
	free(tb);
	return (eq);
}

/* The bytes between statements hold none. */
static void
check_gap(const char *text, size_t start, size_t end)
{
	struct toml_doc	 doc;
	char		*cause;

	if (start >= end)
		return;
	FUZZ_CHECK(toml_parse(text + start, end - start, &doc, &cause) == 0,
	    "the text between statements at %zu refused: %s", start, cause);
	FUZZ_CHECK(doc.nstmts == 0, "a statement between statements at %zu",
	    start);
	toml_doc_free(&doc);
}

/* A statement read alone is itself. */
static void
check_alone(const char *text, const struct toml_stmt *s)
{
	struct toml_doc		 doc;
	const struct toml_stmt	*t;
	char			*cause;
	size_t			 i, own;

	FUZZ_CHECK(toml_parse(text + s->start, s->end - s->start, &doc,
	    &cause) == 0, "a statement alone refused: %s", cause);
	FUZZ_CHECK(doc.nstmts == 1, "%zu statements in one", doc.nstmts);
	t = &doc.stmts[0];
	FUZZ_CHECK(t->kind == s->kind, "another kind alone");
	own = s->kind == TOML_STMT_KEYVAL ? s->nkey : s->npath;
	FUZZ_CHECK(t->npath == own, "another key alone");
	for (i = 0; i < own; i++)
		FUZZ_CHECK(strcmp(t->path[i], s->path[s->npath - own + i]) ==
		    0, "another key part alone");
	if (s->kind == TOML_STMT_KEYVAL)
		FUZZ_CHECK(same(t->value, s->value), "another value alone");
	toml_doc_free(&doc);
}

static void
check_quoted(const char *key, const char *value)
{
	struct toml_doc	 doc;
	char		*k, *v, *text, *cause;

	k = toml_key(key);
	v = toml_quote(value != NULL ? value : "x");
	xasprintf(&text, "%s = %s", k, v);
	FUZZ_CHECK(toml_parse(text, strlen(text), &doc, &cause) == 0,
	    "a quoted key or string refused: %s", cause);
	FUZZ_CHECK(strcmp(doc.root->child->string, key) == 0, "a key quoted "
	    "reads back another");
	if (value != NULL)
		FUZZ_CHECK(strcmp(doc.root->child->valuestring, value) == 0,
		    "a string quoted reads back another");
	toml_doc_free(&doc);
	free(text);
	free(k);
	free(v);
}

static void
check_strings(const cJSON *v, size_t *budget)
{
	const cJSON	*item;

	cJSON_ArrayForEach(item, v) {
		if (*budget == 0)
			return;
		(*budget)--;
		if (item->string != NULL)
			check_quoted(item->string, cJSON_IsString(item) ?
			    item->valuestring : NULL);
		check_strings(item, budget);
	}
}

/* Install's rewrite with every server pointed at mcpctl connect. */
static char *
rewrite(const char *text, size_t len, struct appconf_list *l,
    size_t *outlen, char **cause)
{
	const struct appconf_entry	**entries;
	cJSON				**with;
	char				 *out;
	size_t				  i;

	entries = xreallocarray(NULL, l->n + 1, sizeof *entries);
	with = xreallocarray(NULL, l->n + 1, sizeof *with);
	for (i = 0; i < l->n; i++) {
		entries[i] = &l->v[i];
		with[i] = NULL;
		if (l->v[i].server == NULL ||
		    l->v[i].status == APPCONF_SKIPPED)
			continue;
		with[i] = cJSON_CreateObject();
		cJSON_AddStringToObject(with[i], "command", "/usr/bin/mcpctl");
		cJSON_AddItemToObject(with[i], "args",
		    cJSON_CreateStringArray((const char *[]){ "connect",
		    l->v[i].name }, 2));
	}
	out = appconf_rewrite(text, len, entries, with, l->n, outlen, cause);
	for (i = 0; i < l->n; i++)
		cJSON_Delete(with[i]);
	free(with);
	free(entries);
	return (out);
}

static void
fuzz_codex(const char *text, size_t len, const struct toml_doc *doc)
{
	struct appconf_list	 l = { NULL, 0 }, l2 = { NULL, 0 };
	struct toml_doc		 after;
	const cJSON		*servers, *item;
	char			*cause = NULL, *out, *again;
	size_t			 outlen, againlen, i, j, n = 0;

	servers = cJSON_GetObjectItemCaseSensitive(doc->root, "mcp_servers");
	if (appconf_read(&codex, text, len, &l, &cause) == -1) {
		FUZZ_CHECK(servers != NULL && !cJSON_IsObject(servers),
		    "Codex's file refused: %s", cause);
		free(cause);
		return;
	}
	FUZZ_CHECK(l.n == (size_t)cJSON_GetArraySize(servers), "%zu servers "
	    "of %d", l.n, cJSON_GetArraySize(servers));
	for (i = 0; i < l.n; i++)
		n += l.v[i].server != NULL && l.v[i].status != APPCONF_SKIPPED;
	if (n == 0) {
		appconf_list_free(&l);
		return;
	}
	if ((out = rewrite(text, len, &l, &outlen, &cause)) == NULL) {
		FUZZ_CHECK(cause != NULL, "rewrite refused without a reason");
		free(cause);
		appconf_list_free(&l);
		return;
	}
	FUZZ_CHECK(toml_parse(out, outlen, &after, &cause) == 0,
	    "the rewritten text refused: %s", cause);
	cJSON_ArrayForEach(item, doc->root) {
		if (strcmp(item->string, "mcp_servers") != 0)
			FUZZ_CHECK(same(item,
			    cJSON_GetObjectItemCaseSensitive(after.root,
			    item->string)), "the rewrite changed %s",
			    item->string);
	}
	toml_doc_free(&after);
	FUZZ_CHECK(appconf_read(&codex, out, outlen, &l2, &cause) == 0,
	    "the rewritten servers refused: %s", cause);
	FUZZ_CHECK(l2.n == l.n, "%zu servers rewritten, %zu read", l2.n,
	    l.n);
	for (i = 0; i < l.n; i++) {
		if (l.v[i].server == NULL || l.v[i].status == APPCONF_SKIPPED)
			continue;
		for (j = 0; j < l2.n; j++) {
			if (strcmp(l2.v[j].name, l.v[i].name) == 0)
				break;
		}
		FUZZ_CHECK(j < l2.n && l2.v[j].status == APPCONF_SKIPPED &&
		    l2.v[j].nnotes == 1 && strcmp(l2.v[j].notes[0], "runs "
		    "through mcpctl connect already") == 0, "server %zu does "
		    "not run through mcpctl", i);
	}
	again = rewrite(out, outlen, &l, &againlen, &cause);
	FUZZ_CHECK(again != NULL, "a second rewrite refused: %s", cause);
	FUZZ_CHECK(againlen == outlen && memcmp(again, out, outlen) == 0,
	    "a second rewrite changed the text");
	free(again);
	free(out);
	appconf_list_free(&l2);
	appconf_list_free(&l);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char		*text = (const char *)data;
	const struct toml_stmt	*s;
	struct toml_doc		 doc;
	char			*cause;
	size_t			 i, at = 0, budget = 64;

	if (toml_parse(text, size, &doc, &cause) == -1) {
		check_cause(cause, text, size);
		free(cause);
		return (0);
	}
	FUZZ_CHECK(cJSON_IsObject(doc.root), "no table at the top");
	for (i = 0; i < doc.nstmts; i++) {
		s = &doc.stmts[i];
		FUZZ_CHECK(s->start >= at && s->start <= s->key_start &&
		    s->key_start < s->end && s->end <= size, "statement %zu "
		    "out of place", i);
		FUZZ_CHECK(s->start == 0 || text[s->start - 1] == '\n' ||
		    (s->start == 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0),
		    "statement %zu starts inside a line", i);
		FUZZ_CHECK(s->end == size || text[s->end - 1] == '\n',
		    "statement %zu ends inside a line", i);
		FUZZ_CHECK(s->npath > 0 && (s->kind != TOML_STMT_KEYVAL ||
		    (s->nkey > 0 && s->nkey <= s->npath)), "statement %zu has "
		    "no key", i);
		check_gap(text, at == 0 && size >= 3 && memcmp(text,
		    "\xef\xbb\xbf", 3) == 0 ? 3 : at, s->start);
		check_alone(text, s);
		at = s->end;
	}
	check_gap(text, at, size);
	check_strings(doc.root, &budget);
	fuzz_codex(text, size, &doc);
	toml_doc_free(&doc);
	return (0);
}
