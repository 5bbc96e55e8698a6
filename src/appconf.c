/*
 * appconf.c -- other apps' MCP server entries: read, converted to mcpd's
 * form, merged into mcpd's configuration, and the apps' files rewritten
 * (see appconf.h).
 *
 * Texts are edited in place: the new members go in after the last one of
 * "mcpServers", a replaced entry takes exactly the bytes of the old value
 * (jsonc.h finds them), so comments, key order and formatting elsewhere
 * survive, and the diff shows only what changed.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "appconf.h"
#include "appshape.h"
#include "appconf_toml.h"
#include "confvar.h"
#include "sbuf.h"
#include "jsonc.h"
#include "xmalloc.h"

#define APPCONF_NAME_MAX_LEN	64	/* CONF_NAME_MAX_LEN */
#define APPCONF_MAX_RENAMES	1000
/* A name quoted in a note: no longer than this. */
#define APPCONF_QUOTE_MAX_LEN	64

/* What a note on a project's entry adds when it is imported disabled. */
#define APPCONF_PROJECT_HELD \
	"; a project's file gets none of mcpd's secrets unasked: imported " \
	"disabled, remove \"disabled\" in mcpd.json once you trust the " \
	"project"


static void
appconf_note(char ***notes, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
appconf_note(char ***notes, size_t *n, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;
	size_t	 i;

	va_start(ap, fmt);
	xvasprintf(&s, fmt, ap);
	va_end(ap);
	/* Said once for an entry (a variable used twice, say). */
	for (i = 0; i < *n; i++) {
		if (strcmp((*notes)[i], s) == 0) {
			free(s);
			return;
		}
	}
	*notes = xreallocarray(*notes, *n + 1, sizeof **notes);
	(*notes)[(*n)++] = s;
}

/*
 * A reference to mcpd's environment or credentials in a string of an
 * app's entry, in mcpd's form (see appconf.h): said, and held back from a
 * project's entry.  Invalid names are left to the configuration's check.
 */
static void
appconf_reference(const struct appconf_file *f,
    const struct confvar_piece *p, const char *where, char ***notes,
    size_t *nnotes, int *disable)
{
	const char	*held = f->in_project ? APPCONF_PROJECT_HELD : "";
	int		 n = (int)(p->name_len > APPCONF_QUOTE_MAX_LEN ?
			    APPCONF_QUOTE_MAX_LEN : p->name_len);

	if (p->kind == CONFVAR_CREDENTIAL) {
		if (!confvar_valid_credential(p->name, p->name_len))
			return;
		appconf_note(notes, nnotes, "%s: ${credential:%.*s} is mcpd's "
		    "systemd credential \"%.*s\" (LoadCredential= of its "
		    "unit), not the app's%s", where, n, p->name, n, p->name,
		    held);
	} else if (p->kind == CONFVAR_VARIABLE) {
		if (!confvar_valid_variable(p->name, p->name_len) ||
		    confvar_passed(p->name, p->name_len))
			return;
		appconf_note(notes, nnotes, "%s: ${%.*s} is read from mcpd's "
		    "environment, not the app's%s", where, n, p->name,
		    f->in_project ? held : ": give mcpd that variable (its "
		    "unit's Environment= or EnvironmentFile=)");
	} else
		return;
	if (f->in_project)
		*disable = 1;
}

/* Each reference of a string already in mcpd's form. */
static void
appconf_references(const struct appconf_file *f, const char *in,
    const char *where, char ***notes, size_t *nnotes, int *disable)
{
	struct confvar_piece	 p;

	while (confvar_next(&in, &p))
		appconf_reference(f, &p, where, notes, nnotes, disable);
}

/* A literal for mcpd: every '$' doubled. */
static void
appconf_add_literal(struct sbuf *b, const char *s, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		if (s[i] == '$')
			sbuf_add(b, "$$", 2);
		else
			sbuf_add(b, s + i, 1);
	}
}

/* "MCPD_INPUT_" and the id in capitals, other characters '_'. */
static void
appconf_add_input(struct sbuf *b, const char *id, size_t n)
{
	size_t	 i;
	char	 c;

	sbuf_adds(b, "${MCPD_INPUT_");
	for (i = 0; i < n && i < 64; i++) {
		c = id[i];
		if (c >= 'a' && c <= 'z')
			c = c - 'a' + 'A';
		else if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
			c = '_';
		sbuf_add(b, &c, 1);
	}
	sbuf_adds(b, ":-}");
}

/*
 * A variable mcpd cannot know (VS Code's prompted "input:ID", any other):
 * "${MCPD_INPUT_ID:-}", the entry disabled, a note.
 */
static void
appconf_unknown(struct sbuf *b, const char *name, size_t nlen,
    const char *where, char ***notes, size_t *nnotes, int *disable)
{
	if (nlen > 6 && strncmp(name, "input:", 6) == 0) {
		name += 6;
		nlen -= 6;
		appconf_note(notes, nnotes, "%s: needs a value (the app "
		    "prompts for input \"%.*s\"): set it in mcpd.json, then "
		    "remove \"disabled\"", where,
		    (int)(nlen > 64 ? 64 : nlen), name);
	} else {
		appconf_note(notes, nnotes, "%s: needs a value (mcpd does not "
		    "know the app's variable \"%.*s\"): set it in mcpd.json, "
		    "then remove \"disabled\"", where,
		    (int)(nlen > 64 ? 64 : nlen), name);
	}
	appconf_add_input(b, name, nlen);
	*disable = 1;
}

/* The variable name at [name, name + nlen) as mcpd's "${NAME}". */
static void
appconf_add_variable(struct sbuf *b, const struct appconf_file *f,
    const char *name, size_t nlen, const char *where, char ***notes,
    size_t *nnotes, int *disable)
{
	size_t	 start = b->len;

	sbuf_adds(b, "${");
	sbuf_add(b, name, nlen);
	sbuf_adds(b, "}");
	appconf_references(f, b->p + start, where, notes, nnotes, disable);
}

/* Gemini CLI's "$VAR" and "${VAR}"; any other '$' is literal. */
static void
appconf_shell(struct sbuf *b, const struct appconf_file *f, const char *in,
    const char *where, char ***notes, size_t *nnotes, int *disable)
{
	const char	*s, *name, *end, *next;
	size_t		 nlen;

	for (s = in; *s != '\0';) {
		name = NULL;
		if (s[0] == '$' && s[1] == '{' &&
		    (end = strchr(s + 2, '}')) != NULL) {
			name = s + 2;
			nlen = end - name;
			next = end + 1;
		} else if (s[0] == '$') {
			name = s + 1;
			nlen = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "abcdefghijklmnopqrstuvwxyz0123456789_");
			next = name + nlen;
		}
		if (name == NULL || !confvar_valid_variable(name, nlen)) {
			appconf_add_literal(b, s, 1);
			s++;
			continue;
		}
		appconf_add_variable(b, f, name, nlen, where, notes, nnotes,
		    disable);
		s = next;
	}
}

/* opencode's "{env:VAR}" and "{file:PATH}"; a '$' is literal. */
static void
appconf_braces(struct sbuf *b, const struct appconf_file *f,
    const char *in, const char *where, char ***notes, size_t *nnotes,
    int *disable)
{
	const char	*s, *end;
	size_t		 nlen;

	for (s = in; *s != '\0';) {
		if (s[0] != '{' || (strncmp(s + 1, "env:", 4) != 0 &&
		    strncmp(s + 1, "file:", 5) != 0) ||
		    (end = strchr(s + 1, '}')) == NULL) {
			appconf_add_literal(b, s, 1);
			s++;
			continue;
		}
		nlen = end - (s + 1);
		if (s[1] == 'e' && confvar_valid_variable(s + 5, nlen - 4))
			appconf_add_variable(b, f, s + 5, nlen - 4, where,
			    notes, nnotes, disable);
		else
			appconf_unknown(b, s + 1, nlen, where, notes, nnotes,
			    disable);
		s = end + 1;
	}
}

/*
 * A string of the app's, written for mcpd.  *disable is set when a value
 * is missing; where names the string for notes.
 */
static char *
appconf_string(const struct appconf_file *f, const char *in,
    const char *where, char ***notes, size_t *nnotes, int *disable)
{
	struct sbuf	 b = { NULL, 0, 0 };
	const char		*s, *end, *name, *slash;
	size_t			 nlen;

	sbuf_add(&b, "", 0);
	if (f->syntax == APPCONF_SYNTAX_MCPD) {
		appconf_references(f, in, where, notes, nnotes, disable);
		sbuf_adds(&b, in);
		return (b.p);
	}
	if (f->syntax == APPCONF_SYNTAX_NONE) {
		appconf_add_literal(&b, in, strlen(in));
		return (b.p);
	}
	if (f->syntax == APPCONF_SYNTAX_SHELL) {
		appconf_shell(&b, f, in, where, notes, nnotes, disable);
		return (b.p);
	}
	if (f->syntax == APPCONF_SYNTAX_OPENCODE) {
		appconf_braces(&b, f, in, where, notes, nnotes, disable);
		return (b.p);
	}
	for (s = in; *s != '\0';) {
		if (s[0] != '$' || s[1] != '{' ||
		    (end = strchr(s + 2, '}')) == NULL) {
			appconf_add_literal(&b, s, 1);
			s++;
			continue;
		}
		name = s + 2;
		nlen = end - name;
		if (nlen > 4 && strncmp(name, "env:", 4) == 0 &&
		    confvar_valid_variable(name + 4, nlen - 4))
			appconf_add_variable(&b, f, name + 4, nlen - 4, where,
			    notes, nnotes, disable);
		else if (nlen == 8 && strncmp(name, "userHome", 8) == 0)
			sbuf_adds(&b, "${HOME}");
		else if ((nlen == 13 && strncmp(name, "pathSeparator",
		    13) == 0) || (nlen == 1 && *name == '/'))
			sbuf_adds(&b, "/");
		else if (nlen == 15 && strncmp(name, "workspaceFolder", 15) ==
		    0 && f->workspace != NULL)
			appconf_add_literal(&b, f->workspace,
			    strlen(f->workspace));
		else if (nlen == 23 && strncmp(name,
		    "workspaceFolderBasename", 23) == 0 &&
		    f->workspace != NULL) {
			slash = strrchr(f->workspace, '/');
			slash = slash != NULL ? slash + 1 : f->workspace;
			appconf_add_literal(&b, slash, strlen(slash));
		} else
			appconf_unknown(&b, name, nlen, where, notes, nnotes,
			    disable);
		s = end + 1;
	}
	return (b.p);
}

/* A relative path made absolute in the project, or NULL. */
static char *
appconf_path(const struct appconf_file *f, const char *path)
{
	char	*abs;

	if (*path == '/' || (path[0] == '$' && path[1] == '{'))
		return (xstrdup(path));
	if (f->workspace == NULL)
		return (NULL);
	xasprintf(&abs, "%s/%s", f->workspace, path);
	return (abs);
}

/* An object of strings, converted (numbers written as strings). */
static cJSON *
appconf_string_map(const struct appconf_file *f, const cJSON *in,
    const char *what, char ***notes, size_t *nnotes, int *disable)
{
	const cJSON	*item;
	cJSON		*out;
	char		*where, *v, num[64];

	out = cJSON_CreateObject();
	cJSON_ArrayForEach(item, in) {
		xasprintf(&where, "%s.%s", what, item->string);
		if (cJSON_GetObjectItemCaseSensitive(in, item->string) !=
		    item)
			appconf_note(notes, nnotes, "%s: repeated, the first "
			    "one kept", where);
		else if (cJSON_IsString(item)) {
			v = appconf_string(f, item->valuestring, where, notes,
			    nnotes, disable);
			cJSON_AddItemToObject(out, item->string,
			    cJSON_CreateString(v));
			free(v);
		} else if (cJSON_IsNumber(item)) {
			snprintf(num, sizeof num, "%.17g", item->valuedouble);
			cJSON_AddItemToObject(out, item->string,
			    cJSON_CreateString(num));
		} else if (cJSON_IsBool(item)) {
			cJSON_AddItemToObject(out, item->string,
			    cJSON_CreateString(cJSON_IsTrue(item) ? "true" :
			    "false"));
		} else
			appconf_note(notes, nnotes, "%s: not a string, "
			    "dropped", where);
		free(where);
	}
	return (out);
}

cJSON *
appconf_convert(const struct appconf_file *f, const cJSON *entry,
    char ***notes, size_t *nnotes, int *disable)
{
	const cJSON	*item, *type, *url, *a;
	cJSON		*out, *args;
	char		*v, *p;
	const char	*key;
	int		 remote;

	out = cJSON_CreateObject();
	url = cJSON_GetObjectItemCaseSensitive(entry, "url");
	type = cJSON_GetObjectItemCaseSensitive(entry, "type");
	remote = url != NULL;
	if (cJSON_IsString(type)) {
		if (strcmp(type->valuestring, "http") == 0 ||
		    strcmp(type->valuestring, "streamable-http") == 0 ||
		    strcmp(type->valuestring, "streamableHttp") == 0)
			cJSON_AddStringToObject(out, "type", "http");
		else if (strcmp(type->valuestring, "sse") == 0)
			cJSON_AddStringToObject(out, "type", "sse");
		else if (strcmp(type->valuestring, "stdio") != 0)
			appconf_note(notes, nnotes, "type: unknown, dropped");
		remote = remote || cJSON_GetObjectItemCaseSensitive(out,
		    "type") != NULL;
	}
	cJSON_ArrayForEach(item, entry) {
		key = item->string;
		if (cJSON_GetObjectItemCaseSensitive(entry, key) != item) {
			appconf_note(notes, nnotes, "\"%s\": repeated, the "
			    "first one kept", key);
			continue;
		}
		if (strcmp(key, "type") == 0)
			continue;
		if (strcmp(key, "command") == 0 && cJSON_IsString(item) &&
		    !remote) {
			v = appconf_string(f, item->valuestring, key, notes,
			    nnotes, disable);
			cJSON_AddItemToObject(out, key, cJSON_CreateString(v));
			free(v);
		} else if (strcmp(key, "args") == 0 && cJSON_IsArray(item) &&
		    !remote) {
			args = cJSON_AddArrayToObject(out, key);
			cJSON_ArrayForEach(a, item) {
				if (!cJSON_IsString(a)) {
					appconf_note(notes, nnotes, "args: an "
					    "argument that is not a string, "
					    "dropped");
					continue;
				}
				v = appconf_string(f, a->valuestring, key,
				    notes, nnotes, disable);
				cJSON_AddItemToArray(args,
				    cJSON_CreateString(v));
				free(v);
			}
		} else if ((strcmp(key, "env") == 0 ||
		    strcmp(key, "headers") == 0) && cJSON_IsObject(item) &&
		    (remote || strcmp(key, "env") == 0)) {
			if (item->child != NULL)
				cJSON_AddItemToObject(out, key,
				    appconf_string_map(f, item, key, notes,
				    nnotes, disable));
		} else if ((strcmp(key, "envFile") == 0 ||
		    strcmp(key, "cwd") == 0) && cJSON_IsString(item) &&
		    !remote) {
			v = appconf_string(f, item->valuestring, key, notes,
			    nnotes, disable);
			if ((p = appconf_path(f, v)) == NULL)
				appconf_note(notes, nnotes, "%s: a relative "
				    "path outside a project, dropped", key);
			else
				cJSON_AddItemToObject(out, key,
				    cJSON_CreateString(p));
			/* mcpd reads it as itself: it may name mcpd's files. */
			if (p != NULL && f->in_project &&
			    strcmp(key, "envFile") == 0) {
				appconf_note(notes, nnotes, "envFile: mcpd "
				    "reads this file into the server's "
				    "environment, as its own user%s",
				    APPCONF_PROJECT_HELD);
				*disable = 1;
			}
			free(p);
			free(v);
		} else if (strcmp(key, "url") == 0 && cJSON_IsString(item)) {
			v = appconf_string(f, item->valuestring, key, notes,
			    nnotes, disable);
			cJSON_AddItemToObject(out, key, cJSON_CreateString(v));
			free(v);
		} else if (strcmp(key, "disabled") == 0 &&
		    cJSON_IsBool(item)) {
			if (cJSON_IsTrue(item))
				*disable = 1;
		} else
			appconf_note(notes, nnotes, "\"%s\": the app's own "
			    "setting, dropped", key);
	}
	return (out);
}

/* The members that make a server what it is, normalized. */
static cJSON *
appconf_identity(const cJSON *entry)
{
	static const char *keys[] = { "command", "args", "env", "envFile",
	    "cwd", "url", "type", "headers" };
	const cJSON	*item;
	cJSON		*out;
	size_t		 i;

	out = cJSON_CreateObject();
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		item = cJSON_GetObjectItemCaseSensitive(entry, keys[i]);
		if (item == NULL)
			continue;
		if ((cJSON_IsArray(item) || cJSON_IsObject(item)) &&
		    item->child == NULL)
			continue;
		if (strcmp(keys[i], "type") == 0 && cJSON_IsString(item)) {
			if (strcmp(item->valuestring, "stdio") == 0)
				continue;
			if (strcmp(item->valuestring, "sse") != 0) {
				cJSON_AddStringToObject(out, "type", "http");
				continue;
			}
		}
		cJSON_AddItemToObject(out, keys[i],
		    cJSON_Duplicate(item, 1));
	}
	return (out);
}

int
appconf_same_server(const cJSON *a, const cJSON *b)
{
	cJSON	*ia, *ib;
	int	 same;

	ia = appconf_identity(a);
	ib = appconf_identity(b);
	same = cJSON_Compare(ia, ib, 1);
	cJSON_Delete(ia);
	cJSON_Delete(ib);
	return (same);
}

/* Runs through mcpctl connect already (an app after mcpctl install)? */
static int
appconf_through_mcpd(const cJSON *entry)
{
	const cJSON	*command, *args;
	const char	*base;

	command = cJSON_GetObjectItemCaseSensitive(entry, "command");
	args = cJSON_GetObjectItemCaseSensitive(entry, "args");
	if (!cJSON_IsString(command) || !cJSON_IsArray(args) ||
	    !cJSON_IsString(args->child) ||
	    strcmp(args->child->valuestring, "connect") != 0)
		return (0);
	base = strrchr(command->valuestring, '/');
	base = base != NULL ? base + 1 : command->valuestring;
	return (strcmp(base, "mcpctl") == 0);
}

static void
appconf_read_object(const struct appconf_file *f, const cJSON *servers,
    const char *const *keys, size_t nkeys, struct appconf_list *list)
{
	struct appconf_entry	*e;
	const cJSON		*item, *disabled;
	cJSON			*common;
	size_t			 i;
	int			 disable;

	cJSON_ArrayForEach(item, servers) {
		list->v = xreallocarray(list->v, list->n + 1,
		    sizeof *list->v);
		e = &list->v[list->n++];
		memset(e, 0, sizeof *e);
		e->name = xstrdup(item->string);
		e->file = f;
		for (i = 0; i < nkeys; i++)
			e->keys[i] = xstrdup(keys[i]);
		e->keys[nkeys] = xstrdup(item->string);
		e->nkeys = nkeys + 1;
		if (cJSON_GetObjectItemCaseSensitive(servers, item->string) !=
		    item) {
			appconf_note(&e->notes, &e->nnotes, "a repeated name, "
			    "skipped (the first one counts)");
			e->status = APPCONF_SKIPPED;
			continue;
		}
		if (!cJSON_IsObject(item)) {
			appconf_note(&e->notes, &e->nnotes, "not an object, "
			    "skipped");
			e->status = APPCONF_SKIPPED;
			continue;
		}
		/* In the one form whatever the app's (appshape.h). */
		if ((common = appshape_common(f->shape, item, &e->notes,
		    &e->nnotes)) == NULL) {
			e->status = APPCONF_SKIPPED;
			continue;
		}
		disabled = cJSON_GetObjectItemCaseSensitive(common,
		    "disabled");
		e->was_disabled = cJSON_IsTrue(disabled);
		if (appconf_through_mcpd(common)) {
			appconf_note(&e->notes, &e->nnotes, "runs through "
			    "mcpctl connect already");
			e->status = APPCONF_SKIPPED;
			cJSON_Delete(common);
			continue;
		}
		disable = 0;
		e->server = appconf_convert(f, common, &e->notes, &e->nnotes,
		    &disable);
		cJSON_Delete(common);
		if (disable)
			cJSON_AddTrueToObject(e->server, "disabled");
		/* Imported servers run sandboxed (mcpd.json(5)). */
		if (cJSON_GetObjectItemCaseSensitive(e->server, "command") !=
		    NULL && cJSON_GetObjectItemCaseSensitive(e->server,
		    "url") == NULL)
			cJSON_AddStringToObject(e->server, "sandbox",
			    "default");
		if (cJSON_GetObjectItemCaseSensitive(e->server, "command") ==
		    NULL && cJSON_GetObjectItemCaseSensitive(e->server,
		    "url") == NULL) {
			appconf_note(&e->notes, &e->nnotes, "neither a command "
			    "nor a url, skipped");
			e->status = APPCONF_SKIPPED;
		}
	}
}

/* Codex's config.toml: its servers, from appconf_toml.c. */
static int
appconf_read_toml(const struct appconf_file *f, const char *text,
    size_t len, struct appconf_list *list, char **cause)
{
	static const char *const keys[] = { "mcp_servers" };
	cJSON	*servers;

	if ((servers = appconf_toml_servers(text, len, cause)) == NULL)
		return (-1);
	appconf_read_object(f, servers, keys, 1, list);
	cJSON_Delete(servers);
	return (0);
}

int
appconf_read(const struct appconf_file *f, const char *text, size_t len,
    struct appconf_list *list, char **cause)
{
	const char	*keys[3];
	const cJSON	*servers, *projects, *project;
	cJSON		*root;

	*cause = NULL;
	if (f->shape == APPCONF_CODEX_TOML)
		return (appconf_read_toml(f, text, len, list, cause));
	if ((root = jsonc_parse(text, len, cause)) == NULL)
		return (-1);
	keys[0] = appshape_key(f->shape);
	/* What was expected, said. */
	if (!cJSON_IsObject(root)) {
		xasprintf(cause, "the top level is not an object (expected "
		    "{\"%s\": {...}})", keys[0]);
		goto fail;
	}
	servers = cJSON_GetObjectItemCaseSensitive(root, keys[0]);
	if (servers != NULL && !cJSON_IsObject(servers)) {
		xasprintf(cause, "\"%s\" is not an object (expected a server "
		    "by name: {\"NAME\": {...}})", keys[0]);
		goto fail;
	}
	if (servers != NULL)
		appconf_read_object(f, servers, keys, 1, list);
	if (f->shape == APPCONF_CLAUDE_JSON && f->project != NULL &&
	    (projects = cJSON_GetObjectItemCaseSensitive(root,
	    "projects")) != NULL &&
	    (project = cJSON_GetObjectItemCaseSensitive(projects,
	    f->project)) != NULL &&
	    cJSON_IsObject(servers = cJSON_GetObjectItemCaseSensitive(project,
	    "mcpServers"))) {
		keys[0] = "projects";
		keys[1] = f->project;
		keys[2] = "mcpServers";
		appconf_read_object(f, servers, keys, 3, list);
	}
	cJSON_Delete(root);
	return (0);

fail:
	cJSON_Delete(root);
	return (-1);
}

void
appconf_list_free(struct appconf_list *list)
{
	struct appconf_entry	*e;
	size_t			 i, j;

	for (i = 0; i < list->n; i++) {
		e = &list->v[i];
		free(e->name);
		for (j = 0; j < e->nkeys; j++)
			free(e->keys[j]);
		cJSON_Delete(e->server);
		for (j = 0; j < e->nnotes; j++)
			free(e->notes[j]);
		free(e->notes);
		free(e->mcpd_name);
	}
	free(list->v);
	list->v = NULL;
	list->n = 0;
}

/*
 * Printing.
 */

static void
appconf_print_value(struct sbuf *b, const cJSON *v, const char *indent,
    const char *unit, size_t depth)
{
	const cJSON	*item;
	cJSON		*k;
	char		*s;
	size_t		 i;

	if (cJSON_IsObject(v) && v->child != NULL) {
		sbuf_adds(b, "{");
		cJSON_ArrayForEach(item, v) {
			sbuf_adds(b, "\n");
			sbuf_adds(b, indent);
			for (i = 0; i <= depth; i++)
				sbuf_adds(b, unit);
			k = cJSON_CreateString(item->string);
			s = cJSON_PrintUnformatted(k);
			cJSON_Delete(k);
			sbuf_adds(b, s);
			free(s);
			sbuf_adds(b, ": ");
			appconf_print_value(b, item, indent, unit, depth + 1);
			if (item->next != NULL)
				sbuf_adds(b, ",");
		}
		sbuf_adds(b, "\n");
		sbuf_adds(b, indent);
		for (i = 0; i < depth; i++)
			sbuf_adds(b, unit);
		sbuf_adds(b, "}");
		return;
	}
	if (cJSON_IsArray(v)) {
		sbuf_adds(b, "[");
		cJSON_ArrayForEach(item, v) {
			appconf_print_value(b, item, indent, unit, depth + 1);
			if (item->next != NULL)
				sbuf_adds(b, ", ");
		}
		sbuf_adds(b, "]");
		return;
	}
	s = cJSON_PrintUnformatted(v);
	sbuf_adds(b, s);
	free(s);
}

char *
appconf_print(const cJSON *v, const char *indent, const char *unit)
{
	struct sbuf	 b = { NULL, 0, 0 };

	sbuf_add(&b, "", 0);
	appconf_print_value(&b, v, indent, unit, 0);
	return (b.p);
}

/* The blanks that start the line holding offset (malloc'd). */
static char *
appconf_line_indent(const char *text, size_t offset)
{
	size_t	 start, end;

	start = offset;
	while (start > 0 && text[start - 1] != '\n')
		start--;
	end = start;
	while (end < offset && (text[end] == ' ' || text[end] == '\t'))
		end++;
	return (xstrndup(text + start, end - start));
}

/* The file's unit of indentation: its first indented line's, or 2. */
static char *
appconf_unit(const char *text, size_t len)
{
	size_t	 i, end;

	for (i = 0; i + 1 < len; i++) {
		if (text[i] != '\n' || (text[i + 1] != ' ' &&
		    text[i + 1] != '\t'))
			continue;
		for (end = i + 1; end < len && text[end] == text[i + 1];
		    end++)
			;
		if (end < len && text[end] != '\n' && text[end] != '\r')
			return (xstrndup(text + i + 1, end - (i + 1)));
	}
	return (xstrdup("  "));
}

/*
 * Members (name, value pairs) added to the object at [ostart, oend) of
 * the clean text: the text with them, to *b.
 */
static void
appconf_insert(struct sbuf *b, const char *text, const char *clean,
    size_t len, size_t ostart, size_t oend, const char *const *names,
    cJSON *const *values, size_t n, const char *unit)
{
	struct jsonc_span	 last;
	char			*indent, *outer, *s, *name;
	size_t			 at, close, i;
	cJSON			*k;
	int			 empty;

	empty = !jsonc_last_member(clean, ostart, oend, &last);
	close = oend - 1;	/* the '}' */
	outer = appconf_line_indent(text, ostart);
	indent = NULL;
	if (!empty) {
		/* The last member's indentation, if it starts its line. */
		indent = appconf_line_indent(text, last.key_start);
		if (last.key_start < strlen(indent) + 1 ||
		    text[last.key_start - strlen(indent) - 1] != '\n' ||
		    *indent == '\0') {
			free(indent);
			indent = NULL;
		}
	}
	if (indent == NULL)
		xasprintf(&indent, "%s%s", outer, unit);
	at = empty ? ostart + 1 : last.end;
	sbuf_add(b, text, at);
	for (i = 0; i < n; i++) {
		if (!empty || i > 0)
			sbuf_adds(b, ",");
		sbuf_adds(b, "\n");
		sbuf_adds(b, indent);
		k = cJSON_CreateString(names[i]);
		name = cJSON_PrintUnformatted(k);
		cJSON_Delete(k);
		sbuf_adds(b, name);
		free(name);
		sbuf_adds(b, ": ");
		s = appconf_print(values[i], indent, unit);
		sbuf_adds(b, s);
		free(s);
	}
	if (empty) {
		/* "{ }" becomes "{\n...\n}", the '}' on a line of its own. */
		sbuf_adds(b, "\n");
		sbuf_adds(b, outer);
		sbuf_add(b, text + close, len - close);
	} else
		sbuf_add(b, text + at, len - at);
	free(indent);
	free(outer);
}

static int
appconf_name_taken(const cJSON *existing, const struct appconf_list *list,
    size_t upto, const char *name)
{
	size_t	 i;

	if (cJSON_GetObjectItemCaseSensitive(existing, name) != NULL)
		return (1);
	for (i = 0; i < upto; i++) {
		if (list->v[i].status == APPCONF_NEW &&
		    strcmp(list->v[i].mcpd_name, name) == 0)
			return (1);
	}
	return (0);
}

static int
appconf_valid_name(const char *name)
{
	size_t	 len = strlen(name);

	return (len > 0 && len <= APPCONF_NAME_MAX_LEN &&
	    strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789._-") == len);
}

/* A free name for e: its own, else NAME-APP, NAME-APP-2... */
static char *
appconf_free_name(const cJSON *existing, const struct appconf_list *list,
    size_t upto, const struct appconf_entry *e, int *renamed)
{
	char	 base[APPCONF_NAME_MAX_LEN + 1], *name;
	size_t	 i, len;
	int	 k;

	*renamed = 0;
	if (appconf_valid_name(e->name) &&
	    !appconf_name_taken(existing, list, upto, e->name))
		return (xstrdup(e->name));
	*renamed = 1;
	len = strlen(e->name);
	if (len > 40)
		len = 40;
	for (i = 0; i < len; i++) {
		base[i] = e->name[i];
		if (strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		    "0123456789._-", base[i]) == NULL || base[i] == '\0')
			base[i] = '-';
	}
	if (len == 0)
		base[len++] = 's';
	base[len] = '\0';
	if (!appconf_name_taken(existing, list, upto, base) &&
	    strcmp(base, e->name) != 0)
		return (xstrdup(base));
	for (k = 1; k <= APPCONF_MAX_RENAMES; k++) {
		if (k == 1)
			xasprintf(&name, "%s-%s", base, e->file->app);
		else
			xasprintf(&name, "%s-%s-%d", base, e->file->app, k);
		if (strlen(name) <= APPCONF_NAME_MAX_LEN &&
		    !appconf_name_taken(existing, list, upto, name))
			return (name);
		free(name);
	}
	return (NULL);
}

int
appconf_merge(const char *text, size_t len, struct appconf_list *list,
    char **out, size_t *outlen, char **cause)
{
	const cJSON		*shape, *item;
	struct appconf_entry	*e;
	cJSON			*root = NULL, *existing;
	const char		**names = NULL;
	cJSON			**values = NULL;
	size_t			 i, j, n = 0;
	int			 rc = -1, found;

	*cause = NULL;
	*out = NULL;
	existing = cJSON_CreateObject();
	if (len > 0 && strspn(text, " \t\r\n") < len) {
		if ((root = jsonc_parse(text, len, cause)) == NULL)
			goto fail;
		if (!cJSON_IsObject(root)) {
			xasprintf(cause, "the top level is not an object");
			goto fail;
		}
		for (i = 0; i < 2; i++) {
			shape = cJSON_GetObjectItemCaseSensitive(root, i == 0 ?
			    "mcpServers" : "servers");
			if (shape == NULL)
				continue;
			if (!cJSON_IsObject(shape)) {
				xasprintf(cause, "\"%s\" is not an object",
				    i == 0 ? "mcpServers" : "servers");
				goto fail;
			}
			cJSON_ArrayForEach(item, shape) {
				if (cJSON_GetObjectItemCaseSensitive(existing,
				    item->string) == NULL)
					cJSON_AddItemToObject(existing,
					    item->string,
					    cJSON_Duplicate(item, 1));
			}
		}
	}

	for (i = 0; i < list->n; i++) {
		e = &list->v[i];
		free(e->mcpd_name);
		e->mcpd_name = NULL;
		e->renamed = 0;
		if (e->server == NULL) {
			e->status = APPCONF_SKIPPED;
			continue;
		}
		if (e->status == APPCONF_SKIPPED)
			continue;
		found = 0;
		/* The same server under the app's name first. */
		item = cJSON_GetObjectItemCaseSensitive(existing, e->name);
		if (item != NULL && appconf_same_server(item, e->server)) {
			e->mcpd_name = xstrdup(e->name);
			found = 1;
		}
		for (item = existing->child; !found && item != NULL;
		    item = item->next) {
			if (appconf_same_server(item, e->server)) {
				e->mcpd_name = xstrdup(item->string);
				found = 1;
			}
		}
		for (j = 0; !found && j < i; j++) {
			if (list->v[j].status == APPCONF_NEW &&
			    appconf_same_server(list->v[j].server,
			    e->server)) {
				e->mcpd_name = xstrdup(list->v[j].mcpd_name);
				found = 1;
			}
		}
		if (found) {
			e->status = APPCONF_SAME;
			continue;
		}
		e->status = APPCONF_NEW;
		e->mcpd_name = appconf_free_name(existing, list, i, e,
		    &e->renamed);
		if (e->mcpd_name == NULL) {
			xasprintf(cause, "%s: no free name", e->name);
			goto fail;
		}
		names = xreallocarray(names, n + 1, sizeof *names);
		values = xreallocarray(values, n + 1, sizeof *values);
		names[n] = e->mcpd_name;
		values[n] = e->server;
		n++;
	}

	if (appconf_add_servers(text, len, names, values, n, out, outlen,
	    cause) == -1)
		goto fail;
	rc = 0;

fail:
	free(names);
	free(values);
	cJSON_Delete(existing);
	cJSON_Delete(root);
	return (rc);
}

int
appconf_add_servers(const char *text, size_t len, const char *const *names,
    cJSON *const *values, size_t n, char **out, size_t *outlen, char **cause)
{
	static const char	*mkey[] = { "mcpServers" };
	struct sbuf		 b = { NULL, 0, 0 };
	struct jsonc_span	 span;
	const cJSON		*servers;
	cJSON			*root, *wrap;
	char			*clean = NULL, *unit = NULL;
	size_t			 i;

	*cause = NULL;
	*out = NULL;
	if (n == 0) {
		b.p = xmalloc(len + 1);
		memcpy(b.p, text, len);
		b.p[len] = '\0';
		b.len = len;
	} else if (len == 0 || strspn(text, " \t\r\n") >= len) {
		wrap = cJSON_CreateObject();
		for (i = 0; i < n; i++)
			cJSON_AddItemReferenceToObject(wrap, names[i],
			    values[i]);
		sbuf_adds(&b, "{\n  \"mcpServers\": ");
		clean = appconf_print(wrap, "  ", "  ");
		sbuf_adds(&b, clean);
		sbuf_adds(&b, "\n}\n");
		cJSON_Delete(wrap);
	} else {
		if ((root = jsonc_parse(text, len, cause)) == NULL)
			return (-1);
		servers = cJSON_GetObjectItemCaseSensitive(root, mkey[0]);
		if (!cJSON_IsObject(root) ||
		    (servers != NULL && !cJSON_IsObject(servers))) {
			if (!cJSON_IsObject(root))
				xasprintf(cause, "the top level is not an "
				    "object");
			else
				xasprintf(cause, "\"%s\" is not an object",
				    mkey[0]);
			cJSON_Delete(root);
			return (-1);
		}
		cJSON_Delete(root);
		clean = jsonc_clean(text, len, cause);
		unit = appconf_unit(text, len);
		if (jsonc_find(clean, len, mkey, 1, &span))
			appconf_insert(&b, text, clean, len, span.start,
			    span.end, names, values, n, unit);
		else {
			/* A new "mcpServers" member at the top level. */
			wrap = cJSON_CreateObject();
			for (i = 0; i < n; i++)
				cJSON_AddItemReferenceToObject(wrap, names[i],
				    values[i]);
			(void)jsonc_find(clean, len, NULL, 0, &span);
			appconf_insert(&b, text, clean, len, span.start,
			    span.end, mkey, &wrap, 1, unit);
			cJSON_Delete(wrap);
		}
	}
	*out = b.p;
	*outlen = b.len;
	free(clean);
	free(unit);
	return (0);
}

struct appconf_edit {
	struct jsonc_span	 span;
	const cJSON		*with;
};

static int
appconf_edit_cmp(const void *a, const void *b)
{
	const struct appconf_edit	*ea = a, *eb = b;

	if (ea->span.start != eb->span.start)
		return (ea->span.start < eb->span.start ? -1 : 1);
	return (0);
}

char *
appconf_rewrite(const char *text, size_t len,
    const struct appconf_entry *const *entries, cJSON *const *with,
    size_t n, size_t *outlen, char **cause)
{
	struct sbuf	 b = { NULL, 0, 0 };
	struct appconf_edit	*edits;
	char			*clean, *unit, *indent, *s;
	size_t			 i, m = 0, at;
	cJSON			*root;

	*cause = NULL;
	if (n > 0 && entries[0]->file->shape == APPCONF_CODEX_TOML)
		return (appconf_toml_rewrite(text, len, entries, with, n,
		    outlen, cause));
	if ((root = jsonc_parse(text, len, cause)) == NULL)
		return (NULL);
	cJSON_Delete(root);
	clean = jsonc_clean(text, len, cause);
	unit = appconf_unit(text, len);
	edits = xreallocarray(NULL, n + 1, sizeof *edits);
	for (i = 0; i < n; i++) {
		if (with[i] == NULL)
			continue;
		if (!jsonc_find(clean, len,
		    (const char *const *)entries[i]->keys,
		    entries[i]->nkeys, &edits[m].span)) {
			xasprintf(cause, "the entry \"%s\" is gone",
			    entries[i]->name);
			goto fail;
		}
		edits[m].with = with[i];
		m++;
	}
	qsort(edits, m, sizeof *edits, appconf_edit_cmp);
	sbuf_add(&b, "", 0);
	at = 0;
	for (i = 0; i < m; i++) {
		if (edits[i].span.start < at)
			continue;	/* the same entry twice */
		sbuf_add(&b, text + at, edits[i].span.start - at);
		indent = appconf_line_indent(text, edits[i].span.key_start);
		s = appconf_print(edits[i].with, indent, unit);
		sbuf_adds(&b, s);
		free(s);
		free(indent);
		at = edits[i].span.end;
	}
	sbuf_add(&b, text + at, len - at);
	*outlen = b.len;
	free(edits);
	free(clean);
	free(unit);
	return (b.p);

fail:
	free(edits);
	free(clean);
	free(unit);
	free(b.p);
	return (NULL);
}
