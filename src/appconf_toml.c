/*
 * appconf_toml.c -- Codex's config.toml: its [mcp_servers.NAME] tables
 * read as app entries, and rewritten in place for mcpctl install (see
 * appconf_toml.h).
 *
 * toml.c reads the text and says which lines each statement takes; the
 * rewrite removes and replaces whole statements only, so what is not a
 * managed server's stays byte for byte.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "appconf.h"
#include "appconf_toml.h"
#include "sbuf.h"
#include "toml.h"
#include "xmalloc.h"

/* What governs Codex's own use of a server: kept by install. */
static const char *const appconf_toml_own[] = {
	"enabled", "required", "startup_timeout_sec", "startup_timeout_ms",
	"tool_timeout_sec", "enabled_tools", "disabled_tools",
	"default_tools_approval_mode", "tools", NULL
};

/* Keys of appconf_convert's entries that are none of Codex's. */
static const char *const appconf_toml_foreign[] = {
	"type", "headers", "disabled", "envFile", NULL
};

static int
appconf_toml_in(const char *const *set, const char *s)
{
	for (; *set != NULL; set++) {
		if (strcmp(*set, s) == 0)
			return (1);
	}
	return (0);
}

/*
 * Reading.
 */

/* A literal string of Codex's in mcpd's syntax: every '$' doubled. */
static cJSON *
appconf_toml_literal(const char *s)
{
	struct sbuf	 b = { NULL, 0, 0 };
	cJSON		*v;

	sbuf_add(&b, "", 0);
	for (; *s != '\0'; s++) {
		if (*s == '$')
			sbuf_add(&b, "$", 1);
		sbuf_add(&b, s, 1);
	}
	v = cJSON_CreateString(b.p);
	free(b.p);
	return (v);
}

/* Strings made literal; anything else copied for appconf.c to judge. */
static cJSON *
appconf_toml_copy(const cJSON *v)
{
	const cJSON	*item;
	cJSON		*out;

	if (cJSON_IsString(v))
		return (appconf_toml_literal(v->valuestring));
	if (!cJSON_IsArray(v) && !cJSON_IsObject(v))
		return (cJSON_Duplicate(v, 1));
	out = cJSON_IsArray(v) ? cJSON_CreateArray() : cJSON_CreateObject();
	cJSON_ArrayForEach(item, v) {
		if (cJSON_IsArray(out))
			cJSON_AddItemToArray(out, appconf_toml_copy(item));
		else
			cJSON_AddItemToObject(out, item->string,
			    appconf_toml_copy(item));
	}
	return (out);
}

static int
appconf_toml_varname(const char *s)
{
	size_t	 len = strlen(s);

	return (len > 0 && !(*s >= '0' && *s <= '9') &&
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789_") == len);
}

/* "${VAR}" with a prefix, or NULL for a name mcpd cannot read. */
static cJSON *
appconf_toml_variable(const char *prefix, const char *name)
{
	cJSON	*v;
	char	*s;

	if (!appconf_toml_varname(name))
		return (NULL);
	xasprintf(&s, "%s${%s}", prefix, name);
	v = cJSON_CreateString(s);
	free(s);
	return (v);
}

/* name: value into o, unless o has name already. */
static void
appconf_toml_put(cJSON *o, const char *name, cJSON *value)
{
	if (cJSON_GetObjectItemCaseSensitive(o, name) != NULL)
		cJSON_Delete(value);
	else
		cJSON_AddItemToObject(o, name, value);
}

/*
 * env_vars: each variable Codex passes on, "${VAR}" in env (which wins,
 * as in Codex); what cannot be said so is left in *rest.
 */
static void
appconf_toml_env_vars(const cJSON *list, cJSON *env, cJSON **rest)
{
	const cJSON	*item, *name, *source;
	cJSON		*v;

	cJSON_ArrayForEach(item, list) {
		name = cJSON_IsObject(item) ?
		    cJSON_GetObjectItemCaseSensitive(item, "name") : item;
		source = cJSON_IsObject(item) ?
		    cJSON_GetObjectItemCaseSensitive(item, "source") : NULL;
		v = NULL;
		if (cJSON_IsString(name) && (source == NULL ||
		    (cJSON_IsString(source) &&
		    strcmp(source->valuestring, "local") == 0)))
			v = appconf_toml_variable("", name->valuestring);
		if (v != NULL) {
			appconf_toml_put(env, name->valuestring, v);
			continue;
		}
		if (*rest == NULL)
			*rest = cJSON_CreateArray();
		cJSON_AddItemToArray(*rest, cJSON_Duplicate(item, 1));
	}
}

/* One [mcp_servers.NAME] table, in the form appconf_convert reads. */
static cJSON *
appconf_toml_entry(const cJSON *t)
{
	const cJSON	*item, *h, *bearer = NULL, *envh = NULL, *envv = NULL;
	cJSON		*e, *env = NULL, *headers = NULL, *rest = NULL, *v;
	char		*renamed;
	const char	*k;

	if (!cJSON_IsObject(t))
		return (cJSON_Duplicate(t, 1));
	e = cJSON_CreateObject();
	cJSON_ArrayForEach(item, t) {
		k = item->string;
		if (strcmp(k, "env") == 0 && cJSON_IsObject(item))
			env = appconf_toml_copy(item);
		else if (strcmp(k, "env_vars") == 0 && cJSON_IsArray(item))
			envv = item;
		else if (strcmp(k, "http_headers") == 0 &&
		    cJSON_IsObject(item))
			headers = appconf_toml_copy(item);
		else if (strcmp(k, "env_http_headers") == 0 &&
		    cJSON_IsObject(item))
			envh = item;
		else if (strcmp(k, "bearer_token_env_var") == 0 &&
		    cJSON_IsString(item))
			bearer = item;
		else if (strcmp(k, "enabled") == 0 && cJSON_IsBool(item)) {
			if (cJSON_IsFalse(item))
				cJSON_AddTrueToObject(e, "disabled");
		} else if (strcmp(k, "url") == 0 && cJSON_IsString(item)) {
			cJSON_AddItemToObject(e, k, appconf_toml_copy(item));
			cJSON_AddStringToObject(e, "type", "http");
		} else if (appconf_toml_in(appconf_toml_foreign, k)) {
			/* Said as the app's own setting, not taken as ours. */
			xasprintf(&renamed, "%s (not a Codex setting)", k);
			cJSON_AddItemToObject(e, renamed,
			    cJSON_Duplicate(item, 1));
			free(renamed);
		} else
			cJSON_AddItemToObject(e, k, appconf_toml_copy(item));
	}
	if (envv != NULL) {
		if (env == NULL)
			env = cJSON_CreateObject();
		appconf_toml_env_vars(envv, env, &rest);
		if (rest != NULL)
			cJSON_AddItemToObject(e, "env_vars", rest);
	}
	if (env != NULL)
		cJSON_AddItemToObject(e, "env", env);
	if (envh != NULL || bearer != NULL) {
		if (headers == NULL)
			headers = cJSON_CreateObject();
		/* Codex's order: env_http_headers over http_headers. */
		cJSON_ArrayForEach(h, envh) {
			if (!cJSON_IsString(h) || (v = appconf_toml_variable("",
			    h->valuestring)) == NULL)
				continue;
			cJSON_DeleteItemFromObjectCaseSensitive(headers,
			    h->string);
			cJSON_AddItemToObject(headers, h->string, v);
		}
		if (bearer != NULL && (v = appconf_toml_variable("Bearer ",
		    bearer->valuestring)) != NULL) {
			cJSON_DeleteItemFromObjectCaseSensitive(headers,
			    "Authorization");
			cJSON_AddItemToObject(headers, "Authorization", v);
		}
	}
	if (headers != NULL)
		cJSON_AddItemToObject(e, "headers", headers);
	return (e);
}

cJSON *
appconf_toml_servers(const char *text, size_t len, char **cause)
{
	struct toml_doc	 doc;
	const cJSON	*servers, *item;
	cJSON		*out;

	if (toml_parse(text, len, &doc, cause) == -1)
		return (NULL);
	out = cJSON_CreateObject();
	servers = cJSON_GetObjectItemCaseSensitive(doc.root, "mcp_servers");
	if (servers != NULL && !cJSON_IsObject(servers)) {
		xasprintf(cause, "\"mcp_servers\" is not a table");
		cJSON_Delete(out);
		toml_doc_free(&doc);
		return (NULL);
	}
	cJSON_ArrayForEach(item, servers)
		cJSON_AddItemToObject(out, item->string,
		    appconf_toml_entry(item));
	toml_doc_free(&doc);
	return (out);
}

/*
 * Rewriting.
 */

struct appconf_toml_edit {
	size_t		 start;
	size_t		 end;
	char		*with;		/* NULL: the bytes go */
};

struct appconf_toml_edits {
	struct appconf_toml_edit *v;
	size_t			 n;
};

static void
appconf_toml_edit(struct appconf_toml_edits *edits, size_t start,
    size_t end, char *with)
{
	edits->v = xreallocarray(edits->v, edits->n + 1, sizeof *edits->v);
	edits->v[edits->n].start = start;
	edits->v[edits->n].end = end;
	edits->v[edits->n].with = with;
	edits->n++;
}

static int
appconf_toml_edit_cmp(const void *a, const void *b)
{
	const struct appconf_toml_edit	*ea = a, *eb = b;

	if (ea->start != eb->start)
		return (ea->start < eb->start ? -1 : 1);
	return (0);
}

/* 1 if statement s belongs to server name: its path is mcp_servers.NAME... */
static int
appconf_toml_of(const struct toml_stmt *s, const char *name)
{
	return (s->npath >= 2 && strcmp(s->path[0], "mcp_servers") == 0 &&
	    strcmp(s->path[1], name) == 0);
}

/*
 * Where the section of the header at index k ends: the next header, less
 * the comment lines right above it (they are that header's).
 */
static size_t
appconf_toml_section_end(const char *text, size_t len,
    const struct toml_doc *doc, size_t k)
{
	size_t	 j, e, ls, i, floor = doc->stmts[k].end;

	for (j = k + 1; j < doc->nstmts; j++) {
		if (doc->stmts[j].kind != TOML_STMT_KEYVAL)
			break;
		floor = doc->stmts[j].end;
	}
	if (j == doc->nstmts)
		return (len);
	e = doc->stmts[j].start;
	while (e > floor) {
		for (ls = e - 1; ls > floor && text[ls - 1] != '\n'; ls--)
			;
		for (i = ls; i < e && (text[i] == ' ' || text[i] == '\t'); i++)
			;
		if (i == e || text[i] != '#')
			break;
		e = ls;
	}
	return (e);
}

/* The statements that say command and args for the anchor statement a. */
static char *
appconf_toml_lines(const char *text, const struct toml_stmt *a,
    const cJSON *with, char **cause)
{
	struct sbuf	 b = { NULL, 0, 0 }, prefix = { NULL, 0, 0 };
	const cJSON	*command, *args, *arg;
	const char	*eol;
	char		*s;
	size_t		 i;

	command = cJSON_GetObjectItemCaseSensitive(with, "command");
	args = cJSON_GetObjectItemCaseSensitive(with, "args");
	if (!cJSON_IsString(command) || !toml_utf8(command->valuestring,
	    strlen(command->valuestring), NULL)) {
		xasprintf(cause, "mcpctl's path is not UTF-8: TOML cannot "
		    "hold it");
		return (NULL);
	}
	cJSON_ArrayForEach(arg, args) {
		if (!cJSON_IsString(arg) || !toml_utf8(arg->valuestring,
		    strlen(arg->valuestring), NULL)) {
			xasprintf(cause, "an argument of mcpctl connect is not "
			    "UTF-8: TOML cannot hold it");
			return (NULL);
		}
	}
	/* The key as the anchor wrote it: its parts before the last. */
	sbuf_add(&prefix, "", 0);
	for (i = a->npath - a->nkey; i + 1 < a->npath; i++) {
		s = toml_key(a->path[i]);
		sbuf_adds(&prefix, s);
		sbuf_adds(&prefix, ".");
		free(s);
	}
	eol = a->end >= 2 && text[a->end - 2] == '\r' ? "\r\n" : "\n";
	sbuf_add(&b, text + a->start, a->key_start - a->start);
	sbuf_printf(&b, "%scommand = ", prefix.p);
	s = toml_quote(command->valuestring);
	sbuf_adds(&b, s);
	free(s);
	sbuf_adds(&b, eol);
	sbuf_add(&b, text + a->start, a->key_start - a->start);
	sbuf_printf(&b, "%sargs = [", prefix.p);
	cJSON_ArrayForEach(arg, args) {
		s = toml_quote(arg->valuestring);
		sbuf_adds(&b, s);
		free(s);
		if (arg->next != NULL)
			sbuf_adds(&b, ", ");
	}
	sbuf_adds(&b, "]");
	sbuf_adds(&b, eol);
	free(prefix.p);
	return (b.p);
}

/* The edits that point server name at with: 0, or -1 with *cause. */
static int
appconf_toml_server(const char *text, size_t len, const struct toml_doc *doc,
    const char *name, const cJSON *with, struct appconf_toml_edits *edits,
    char **cause)
{
	const struct toml_stmt	*s, *anchor = NULL;
	const char		*field;
	size_t			 k;
	char			*lines;
	int			 found = 0;

	for (k = 0; k < doc->nstmts; k++) {
		s = &doc->stmts[k];
		if (s->npath >= 1 && strcmp(s->path[0], "mcp_servers") == 0 &&
		    (s->in_array || (s->npath == 1 &&
		    s->kind == TOML_STMT_KEYVAL))) {
			xasprintf(cause, "line %zu: \"mcp_servers\" is not "
			    "written as [mcp_servers.NAME] tables, which is "
			    "what install rewrites", s->line);
			return (-1);
		}
		if (!appconf_toml_of(s, name))
			continue;
		found = 1;
		if (s->npath == 2) {
			if (s->kind == TOML_STMT_TABLE)
				continue;	/* its header stays */
			xasprintf(cause, "line %zu: the server is one inline "
			    "table; install rewrites [mcp_servers.NAME] "
			    "tables", s->line);
			return (-1);
		}
		field = s->path[2];
		if (appconf_toml_in(appconf_toml_own, field))
			continue;
		if (s->kind == TOML_STMT_KEYVAL && s->npath == 3 &&
		    (strcmp(field, "command") == 0 || (anchor == NULL &&
		    strcmp(field, "url") == 0)))
			anchor = s;
		else if (s->kind == TOML_STMT_KEYVAL)
			appconf_toml_edit(edits, s->start, s->end, NULL);
		else
			appconf_toml_edit(edits, s->start,
			    appconf_toml_section_end(text, len, doc, k), NULL);
	}
	if (!found) {
		xasprintf(cause, "the server is gone");
		return (-1);
	}
	if (anchor == NULL) {
		xasprintf(cause, "the server has neither command nor url");
		return (-1);
	}
	/* A url that lost to a command goes too. */
	for (k = 0; k < doc->nstmts; k++) {
		s = &doc->stmts[k];
		if (s != anchor && appconf_toml_of(s, name) && s->npath == 3 &&
		    s->kind == TOML_STMT_KEYVAL && strcmp(s->path[2],
		    "url") == 0 && strcmp(anchor->path[2], "command") == 0)
			appconf_toml_edit(edits, s->start, s->end, NULL);
	}
	if ((lines = appconf_toml_lines(text, anchor, with, cause)) == NULL)
		return (-1);
	appconf_toml_edit(edits, anchor->start, anchor->end, lines);
	return (0);
}

/* The new text holds exactly the command and args asked for. */
static int
appconf_toml_check(const char *text, size_t len,
    const struct appconf_entry *const *entries, cJSON *const *with,
    size_t n, char **cause)
{
	struct toml_doc	 doc;
	const cJSON	*servers, *t, *item;
	size_t		 i;
	int		 ok = 1;

	if (toml_parse(text, len, &doc, cause) == -1)
		return (-1);
	servers = cJSON_GetObjectItemCaseSensitive(doc.root, "mcp_servers");
	for (i = 0; i < n && ok; i++) {
		if (with[i] == NULL)
			continue;
		t = cJSON_GetObjectItemCaseSensitive(servers,
		    entries[i]->keys[1]);
		ok = cJSON_IsObject(t) &&
		    cJSON_Compare(cJSON_GetObjectItemCaseSensitive(t,
		    "command"), cJSON_GetObjectItemCaseSensitive(with[i],
		    "command"), 1) &&
		    cJSON_Compare(cJSON_GetObjectItemCaseSensitive(t, "args"),
		    cJSON_GetObjectItemCaseSensitive(with[i], "args"), 1);
		cJSON_ArrayForEach(item, t) {
			if (strcmp(item->string, "command") != 0 &&
			    strcmp(item->string, "args") != 0 &&
			    !appconf_toml_in(appconf_toml_own, item->string))
				ok = 0;
		}
	}
	toml_doc_free(&doc);
	if (!ok) {
		xasprintf(cause, "the server \"%s\" could not be rewritten in "
		    "place", entries[i - 1]->name);
		return (-1);
	}
	return (0);
}

char *
appconf_toml_rewrite(const char *text, size_t len,
    const struct appconf_entry *const *entries, cJSON *const *with,
    size_t n, size_t *outlen, char **cause)
{
	struct appconf_toml_edits	 edits = { NULL, 0 };
	struct sbuf			 b = { NULL, 0, 0 };
	struct toml_doc			 doc;
	char				*why;
	size_t				 i, at = 0;

	*cause = NULL;
	if (toml_parse(text, len, &doc, cause) == -1)
		return (NULL);
	for (i = 0; i < n; i++) {
		if (with[i] == NULL)
			continue;
		if (entries[i]->nkeys != 2 || appconf_toml_server(text, len,
		    &doc, entries[i]->keys[1], with[i], &edits, &why) == -1) {
			xasprintf(cause, "mcp_servers.%s: %s", entries[i]->name,
			    entries[i]->nkeys != 2 ? "not a server" : why);
			if (entries[i]->nkeys == 2)
				free(why);
			goto fail;
		}
	}
	qsort(edits.v, edits.n, sizeof *edits.v, appconf_toml_edit_cmp);
	sbuf_add(&b, "", 0);
	for (i = 0; i < edits.n; i++) {
		if (edits.v[i].start < at) {
			/* A statement inside a subtable that goes already. */
			if (edits.v[i].with != NULL || edits.v[i].end > at) {
				xasprintf(cause, "edits that overlap");
				goto fail;
			}
			continue;
		}
		sbuf_add(&b, text + at, edits.v[i].start - at);
		if (edits.v[i].with != NULL)
			sbuf_adds(&b, edits.v[i].with);
		at = edits.v[i].end;
	}
	sbuf_add(&b, text + at, len - at);
	if (appconf_toml_check(b.p, b.len, entries, with, n, cause) == -1)
		goto fail;
	for (i = 0; i < edits.n; i++)
		free(edits.v[i].with);
	free(edits.v);
	toml_doc_free(&doc);
	*outlen = b.len;
	return (b.p);

fail:
	for (i = 0; i < edits.n; i++)
		free(edits.v[i].with);
	free(edits.v);
	toml_doc_free(&doc);
	free(b.p);
	return (NULL);
}
