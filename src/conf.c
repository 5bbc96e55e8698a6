/*
 * conf.c -- parse and validate mcpd's JSON configuration.
 *
 * conf_parse walks the cJSON tree once and records every problem in
 * struct conf_diags as "PATH: message", so that a user sees all of them in
 * one go; a struct conf is returned only when there was no error.  Nothing
 * here logs or does I/O: conf_file.c reads the file and decides whether
 * to trust it.  This file reads the document and its servers, and frees,
 * copies and compares them; the parts it calls each have a file:
 * conf_setting.c the settings (one table) and the "mcpd" object,
 * conf_remote.c the keys of remote servers (url), conf_share.c sharing,
 * conf_group.c groups, conf_clients.c the policies of apps.  Below them all, conf_value.c, conf_expand.c
 * ("${...}") and conf_diag.c (diagnostics), which call nothing above.
 *
 * Invariants:
 * - A diagnostic names JSON paths, keys and variable names, never a string
 *   value from the file or the environment: env values are often secrets.
 * - Every conf_server in a returned conf is complete: argv, env and
 *   headers are NULL-terminated arrays (env and headers possibly empty),
 *   settings are in range and consistent with each other; a remote one
 *   has argv {"mcpd-remote", NULL} and a valid url.
 * - The top-level "mcpd" object is applied before any server, wherever it
 *   appears in the file; a per-server setting overrides it.
 * - No string or key of an accepted file held "\u0000" (cJSON would have
 *   cut it short), and argv_display and cwd_display keep, beside argv and
 *   cwd, the text as written, so that nothing shown needs an expanded
 *   value.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "conf_http.h"
#include "conf_int.h"
#include "cpolicy.h"
#include "dotenv.h"
#include "filter.h"
#include "suggest.h"
#include "util.h"
#include "xmalloc.h"

#define CONF_MEMORY_FILE	"<config>"

/*
 * The top level's keys: the servers (both shapes), the defaults and
 * mcpd's settings, the groups; VS Code's "inputs" and a JSON schema's
 * "$schema" are accepted without a word.
 */
static const char *const conf_top_keys[] = {
	"mcpServers",
	"servers",
	"mcpd",
	"groups",
	"clients",
	"inputs",
	"$schema",
};

/* Server keys that belong to other MCP clients: accepted without a word. */
static const char *conf_foreign_keys[] = {
	"autoApprove",
	"alwaysAllow",
	"timeout",
	"description",
	"icon",
	"gallery",
	"version",
};

/* A server entry found under "mcpServers" or "servers". */
struct conf_entry {
	const char	*shape;
	const cJSON	*item;
};

/* args expanded, and as written (args_display), in step. */
static void
conf_parse_args(struct conf_parse *cp, const char *path, const cJSON *array,
    char ***args, char ***args_display, size_t *nargs)
{
	const cJSON	*item;
	char		*apath, *arg;
	size_t		 i;

	if (!cJSON_IsArray(array)) {
		conf_error(cp, path, "expected an array of strings");
		return;
	}
	for (i = 0, item = array->child; item != NULL;
	    item = item->next, i++) {
		xasprintf(&apath, "%s[%zu]", path, i);
		if ((arg = conf_string(cp, apath, item)) != NULL) {
			*args = xreallocarray(*args, *nargs + 1, sizeof **args);
			*args_display = xreallocarray(*args_display,
			    *nargs + 1, sizeof **args_display);
			(*args)[*nargs] = arg;
			(*args_display)[(*nargs)++] =
			    xstrdup(item->valuestring);
		}
		free(apath);
	}
}

static void
conf_parse_env(struct conf_parse *cp, const char *path, const cJSON *object,
    char ***env, size_t *nenv)
{
	const cJSON	*item;
	char		*epath, *value;
	size_t		*first, i;

	if (!cJSON_IsObject(object)) {
		conf_error(cp, path, "expected an object of strings");
		return;
	}
	first = conf_object_first_keys(object);
	for (i = 0, item = object->child; item != NULL;
	    item = item->next, i++) {
		xasprintf(&epath, "%s.%s", path, item->string);
		if (first[i] != i)
			conf_error(cp, epath, "duplicate key");
		else if (*item->string == '\0' ||
		    strchr(item->string, '=') != NULL) {
			conf_error(cp, epath, "invalid variable name: must be "
			    "non-empty and contain no '='");
		} else if ((value = conf_string(cp, epath, item)) != NULL) {
			*env = xreallocarray(*env, *nenv + 1, sizeof **env);
			xasprintf(&(*env)[(*nenv)++], "%s=%s", item->string,
			    value);
			free(value);
		}
		free(epath);
	}
	free(first);
}

/*
 * "envFile": the absolute path of a dotenv file (dotenv.h), expanded,
 * read now (at start and at each reload); its variables into *file_env.
 */
static void
conf_parse_env_file(struct conf_parse *cp, const char *path,
    const cJSON *item, char ***file_env)
{
	char	*file, *text, *cause;
	size_t	 len, n;

	if ((file = conf_string(cp, path, item)) == NULL)
		return;
	if (*file != '/') {
		conf_error(cp, path, "must be an absolute path");
		free(file);
		return;
	}
	if ((text = conf_read_named(cp, path, "envFile", file, &len)) !=
	    NULL) {
		dotenv_free(*file_env);
		*file_env = NULL;
		if (dotenv_parse(text, len, file_env, &n, &cause) == -1) {
			conf_error(cp, path, "%s", cause);
			free(cause);
		}
		explicit_bzero(text, len);
		free(text);
	}
	free(file);
}

/*
 * The envFile's variables after env's, each unless env sets it already:
 * "env" wins, as in VS Code.  file_env is consumed.
 */
static void
conf_merge_env_file(char ***env, size_t *nenv, char **file_env)
{
	size_t	 i, j, klen;

	if (file_env == NULL)
		return;
	for (i = 0; file_env[i] != NULL; i++) {
		klen = strcspn(file_env[i], "=");
		for (j = 0; j < *nenv; j++) {
			if (strncmp((*env)[j], file_env[i], klen + 1) == 0)
				break;
		}
		if (j < *nenv) {
			explicit_bzero(file_env[i], strlen(file_env[i]));
			free(file_env[i]);
			continue;
		}
		*env = xreallocarray(*env, *nenv + 1, sizeof **env);
		(*env)[(*nenv)++] = file_env[i];
	}
	free(file_env);
}

/*
 * A server's own keys, as the parsers below (and conf_remote_key,
 * conf_share_key) know them, for "did you mean" alone: the settings'
 * names are added from their table.
 */
static const char *conf_server_keys[] = {
	"command", "args", "env", "envFile", "cwd", "type", "roots",
	"tools", "prompts", "resources", "connect_timeout_ms", "url",
	"headers", "oauth", "ca_file", "share", "max_instances",
	"max_instances_per_uid", "member_roots", "sandbox",
	"sandbox_required",
};

/* An unknown key of a server: ignored, with the near key if any. */
static void
conf_unknown_server_key(struct conf_parse *cp, const char *kpath,
    const char *key)
{
	const char	*names[nitems(conf_server_keys) + 64], *near;
	size_t		 n, i;

	for (n = 0; n < nitems(conf_server_keys); n++)
		names[n] = conf_server_keys[n];
	for (i = 0; n < nitems(names) && conf_setting_name(i) != NULL; i++)
		names[n++] = conf_setting_name(i);
	if ((near = suggest_near(key, names, n)) != NULL)
		conf_warn(cp, kpath, "unknown key, ignored (did you mean "
		    "\"%s\"?)", near);
	else
		conf_warn(cp, kpath, "unknown key, ignored");
}

static int
conf_is_foreign_key(const char *key)
{
	size_t	 i;

	for (i = 0; i < nitems(conf_foreign_keys);
	    i++) {
		if (strcmp(conf_foreign_keys[i], key) == 0)
			return (1);
	}
	return (0);
}

static void
conf_add_server(struct conf_parse *cp, struct conf_server *cs)
{
	struct conf	*conf = cp->conf;

	if (conf->nservers == cp->servers_cap) {
		cp->servers_cap = cp->servers_cap == 0 ? 8 :
		    cp->servers_cap * 2;
		conf->servers = xreallocarray(conf->servers, cp->servers_cap,
		    sizeof *conf->servers);
	}
	conf->servers[conf->nservers++] = *cs;
}

/* The key of a stdio entry that a remote one does not take, or 0. */
static int
conf_parse_stdio_key(struct conf_parse *cp, const char *kpath,
    const cJSON *item, int remote)
{
	const char	*key = item->string;

	if (!remote || (strcmp(key, "command") != 0 &&
	    strcmp(key, "args") != 0))
		return (0);
	conf_error(cp, kpath, "not allowed on a remote server (url)");
	return (1);
}

static void
conf_parse_server(struct conf_parse *cp, const char *shape,
    const cJSON *object)
{
	struct conf_settings		 s = cp->defaults;
	struct conf_server		 cs, rs;
	const cJSON			*item;
	const char			*key;
	char				*path, *kpath, *command = NULL;
	char				*command_display = NULL;
	char				*cwd = NULL, *cwd_display = NULL;
	char				**args = NULL, **env = NULL;
	char				**args_display = NULL;
	char				**roots = NULL, **file_env = NULL;
	size_t				*first, nargs = 0, nenv = 0, i;
	size_t				 nroots = 0;
	size_t				 nerrors = cp->diags->nerrors;
	uint32_t			 set = 0;
	int				 seen_command = 0, remote, kind;
	enum conf_transport		 transport;
	struct filter			*filters[FILTER_KINDS] = { NULL };

	/* The remote members, filled in by conf_remote.c. */
	memset(&rs, 0, sizeof rs);
	xasprintf(&path, "%s.%s", shape, object->string);
	if (!conf_valid_name(object->string)) {
		conf_error(cp, path, "invalid server name: use 1 to %d of "
		    "A-Z a-z 0-9 . _ -", CONF_NAME_MAX_LEN);
	}
	if (!cJSON_IsObject(object)) {
		conf_error(cp, path, "expected an object");
		goto fail;
	}
	remote = conf_remote_entry(object);
	rs.transport = remote ? CONF_TRANSPORT_AUTO : CONF_TRANSPORT_STDIO;

	first = conf_object_first_keys(object);
	for (i = 0, item = object->child; item != NULL;
	    item = item->next, i++) {
		key = item->string;
		xasprintf(&kpath, "%s.%s", path, key);
		if (first[i] != i)
			conf_error(cp, kpath, "duplicate key");
		else if (conf_parse_stdio_key(cp, kpath, item, remote))
			;
		else if (conf_remote_key(cp, kpath, item, remote, &rs))
			;
		else if (conf_share_key(cp, kpath, item, &rs))
			;
		else if (conf_sandbox_key(cp, kpath, item, remote, &rs))
			;
		else if (strcmp(key, "command") == 0) {
			seen_command = 1;
			command = conf_string(cp, kpath, item);
			if (command != NULL && *command == '\0')
				conf_error(cp, kpath, "must not be empty");
			if (command != NULL)
				command_display = xstrdup(item->valuestring);
		} else if (strcmp(key, "args") == 0)
			conf_parse_args(cp, kpath, item, &args, &args_display,
			    &nargs);
		else if (strcmp(key, "env") == 0)
			conf_parse_env(cp, kpath, item, &env, &nenv);
		else if (strcmp(key, "cwd") == 0 && remote)
			conf_warn(cp, kpath, "ignored on a remote server (url)");
		else if (strcmp(key, "cwd") == 0) {
			cwd = conf_string(cp, kpath, item);
			if (cwd != NULL && *cwd != '/') {
				conf_error(cp, kpath,
				    "must be an absolute path");
			}
			if (cwd != NULL)
				cwd_display = xstrdup(item->valuestring);
		} else if (strcmp(key, "type") == 0) {
			if (!cJSON_IsString(item) ||
			    conf_remote_type(item->valuestring,
			    &transport) == -1) {
				conf_error(cp, kpath, "expected \"stdio\", "
				    "\"http\" or \"sse\"");
			} else if (remote && transport ==
			    CONF_TRANSPORT_STDIO) {
				conf_error(cp, kpath, "\"stdio\" does not "
				    "go with url: a remote server is \"http\" "
				    "or \"sse\"");
			} else if (remote)
				rs.transport = transport;
		} else if (strcmp(key, "roots") == 0)
			conf_parse_roots(cp, kpath, item, &roots, &nroots);
		else if (strcmp(key, "envFile") == 0 && remote)
			conf_warn(cp, kpath, "ignored on a remote server (url)");
		else if (strcmp(key, "envFile") == 0)
			conf_parse_env_file(cp, kpath, item, &file_env);
		else if ((kind = conf_filter_kind(key)) != -1)
			(void)filter_parse(item, (enum filter_kind)kind, kpath,
			    conf_filter_error, cp, &filters[kind]);
		else if (!remote && strcmp(key, "connect_timeout_ms") == 0)
			conf_warn(cp, kpath, "only for a remote server (url), "
			    "ignored");
		else if (remote && strcmp(key, "idle") == 0 &&
		    cJSON_IsString(item) &&
		    strcmp(item->valuestring, "freeze") == 0) {
			/* Its session would expire while it is frozen. */
			conf_warn(cp, kpath, "a remote server (url) is not "
			    "frozen: it is stopped when idle");
			(void)conf_setting_key(cp, kpath, item, &s, &set);
		}
		else if (conf_setting_key(cp, kpath, item, &s, &set))
			;
		else if (!conf_is_foreign_key(key))
			conf_unknown_server_key(cp, kpath, key);
		free(kpath);
	}
	free(first);
	conf_merge_env_file(&env, &nenv, file_env);
	file_env = NULL;
	if (remote)
		conf_remote_finish(cp, path, object, &rs);
	else if (!seen_command) {
		xasprintf(&kpath, "%s.command", path);
		conf_error(cp, kpath, "missing (required for a stdio server)");
		free(kpath);
	}
	conf_check_settings(cp, path, &s, set);
	conf_share_finish(cp, path, object, &rs);
	conf_sandbox_finish(cp, remote, &rs);
	if (cp->diags->nerrors != nerrors)
		goto fail;

	if (remote) {
		/* The worker runs instead of a command (conf.h). */
		command = xstrdup(CONF_REMOTE_PROGRAM);
		command_display = xstrdup(CONF_REMOTE_PROGRAM);
	}
	cs = rs;
	cs.name = xstrdup(object->string);
	cs.path = path;
	cs.argc = nargs + 1;
	cs.argv = xreallocarray(NULL, nargs + 2, sizeof *cs.argv);
	cs.argv_display = xreallocarray(NULL, nargs + 2,
	    sizeof *cs.argv_display);
	cs.argv[0] = command;
	cs.argv_display[0] = command_display;
	for (i = 0; i < nargs; i++) {
		cs.argv[i + 1] = args[i];
		cs.argv_display[i + 1] = args_display[i];
	}
	cs.argv[nargs + 1] = NULL;
	cs.argv_display[nargs + 1] = NULL;
	free(args);
	free(args_display);
	cs.envc = nenv;
	cs.env = xreallocarray(env, nenv + 1, sizeof *cs.env);
	cs.env[nenv] = NULL;
	cs.cwd = cwd;
	cs.cwd_display = cwd_display;
	conf_settings_to_server(&cs, &s);
	cs.nroots = nroots;
	cs.roots = xreallocarray(roots, nroots + 1, sizeof *cs.roots);
	cs.roots[nroots] = NULL;
	memcpy(cs.filters, filters, sizeof cs.filters);
	if (cs.headers == NULL) {
		/* NULL-ended, also when empty (conf.h). */
		cs.headers = xcalloc(1, sizeof *cs.headers);
	}
	conf_add_server(cp, &cs);
	return;

fail:
	for (i = 0; i < FILTER_KINDS; i++)
		filter_free(filters[i]);
	free(path);
	free(command);
	free(command_display);
	free(cwd);
	free(cwd_display);
	for (i = 0; i < nargs; i++) {
		free(args[i]);
		free(args_display[i]);
	}
	free(args);
	free(args_display);
	for (i = 0; i < nenv; i++)
		free(env[i]);
	free(env);
	for (i = 0; i < nroots; i++)
		free(roots[i]);
	free(roots);
	conf_remote_clear(&rs);
	conf_share_clear(&rs);
	conf_sandbox_clear(&rs);
}

/* Collect one shape's servers. */
static void
conf_collect_servers(struct conf_parse *cp, const char *shape,
    const cJSON *object, struct conf_entry **entries, size_t *nentries)
{
	const cJSON	*item;

	if (!cJSON_IsObject(object)) {
		conf_error(cp, shape, "expected an object");
		return;
	}
	for (item = object->child; item != NULL; item = item->next) {
		*entries = xreallocarray(*entries, *nentries + 1,
		    sizeof **entries);
		(*entries)[*nentries].shape = shape;
		(*entries)[(*nentries)++].item = item;
	}
}

/*
 * A top-level key not in conf_top_keys: a warning, and the key it is a
 * typo of, if near one.  In a file without servers it is an error: that
 * key may be where the servers were meant to be ("mcpServer").  A file
 * without servers and without unknown keys is valid (a socket-activated
 * mcpd may start so).
 */
static void
conf_top_unknown(struct conf_parse *cp, const char *key, size_t nservers)
{
	const char	*near;
	size_t		 i;

	for (i = 0; i < nitems(conf_top_keys); i++) {
		if (strcmp(key, conf_top_keys[i]) == 0)
			return;
	}
	near = suggest_near(key, conf_top_keys, nitems(conf_top_keys));
	if (nservers > 0 && near != NULL)
		conf_warn(cp, key, "unknown key, ignored (did you mean "
		    "\"%s\"?)", near);
	else if (nservers > 0)
		conf_warn(cp, key, "unknown key, ignored");
	else if (near != NULL)
		conf_error(cp, key, "unknown key, and the file has no "
		    "servers: did you mean \"%s\"?", near);
	else
		conf_error(cp, key, "unknown key, and the file has no "
		    "servers (they go in \"mcpServers\")");
}

static void
conf_parse_root(struct conf_parse *cp, const cJSON *root)
{
	const cJSON		*item, *groups = NULL, *clients = NULL;
	struct conf_entry	*entries = NULL;
	struct conf_key		*keys;
	const char		*key, *shape;
	char			*path, *other;
	size_t			*first, *first_name, nentries = 0, i;

	first = conf_object_first_keys(root);
	for (i = 0, item = root->child; item != NULL;
	    item = item->next, i++) {
		if (first[i] == i && strcmp(item->string, "mcpd") == 0)
			conf_parse_defaults(cp, item);
	}
	for (i = 0, item = root->child; item != NULL;
	    item = item->next, i++) {
		key = item->string;
		if (first[i] != i)
			conf_error(cp, key, "duplicate key");
		else if (strcmp(key, "mcpServers") == 0 ||
		    strcmp(key, "servers") == 0) {
			shape = strcmp(key, "servers") == 0 ? "servers" :
			    "mcpServers";
			conf_collect_servers(cp, shape, item, &entries,
			    &nentries);
		} else if (strcmp(key, "groups") == 0)
			groups = item;
		else if (strcmp(key, "clients") == 0)
			clients = item;
	}
	for (i = 0, item = root->child; item != NULL;
	    item = item->next, i++) {
		if (first[i] == i)
			conf_top_unknown(cp, item->string, nentries);
	}
	free(first);

	keys = xreallocarray(NULL, nentries == 0 ? 1 : nentries, sizeof *keys);
	for (i = 0; i < nentries; i++) {
		keys[i].key = entries[i].item->string;
		keys[i].seq = i;
	}
	first_name = conf_first_keys(keys, nentries);
	free(keys);
	for (i = 0; i < nentries; i++) {
		if (first_name[i] == i) {
			conf_parse_server(cp, entries[i].shape,
			    entries[i].item);
			continue;
		}
		xasprintf(&path, "%s.%s", entries[i].shape,
		    entries[i].item->string);
		xasprintf(&other, "%s.%s", entries[first_name[i]].shape,
		    entries[first_name[i]].item->string);
		conf_error(cp, path, "duplicate server name (first defined "
		    "at %s)", other);
		free(other);
		free(path);
	}
	free(first_name);
	free(entries);
	/* Groups name servers: they come after every server. */
	conf_group_parse(cp, groups);
	/* Policies name servers and groups. */
	conf_clients_parse(cp, clients);
}

struct conf *
conf_parse_file(const char *text, size_t len, const char *file,
    conf_getenv_fn getenv_fn, void *getenv_arg, conf_readfile_fn readfile_fn,
    struct conf_diags *diags)
{
	struct conf_parse	 cp;
	cJSON			*root;
	char			*copy;
	const char		*end = NULL;
	size_t			 nerrors = diags->nerrors, offset, nnul;

	/*
	 * cJSON wants a terminating NUL to refuse trailing garbage, and would
	 * take a NUL inside the text for white space or cut a string at it.
	 */
	copy = xmalloc(len + 1);
	memcpy(copy, text, len);
	copy[len] = '\0';
	root = NULL;
	if ((end = memchr(copy, '\0', len)) == NULL)
		root = cJSON_ParseWithLengthOpts(copy, len + 1, &end, 1);
	if (root == NULL || end != copy + len) {
		offset = len;
		if (end != NULL && end >= copy && end < copy + len)
			offset = end - copy;
		conf_json_error(diags, file, copy, offset);
		goto fail;
	}
	if (!cJSON_IsObject(root)) {
		conf_diag_error(diags, file, "the top level must be a JSON "
		    "object");
		/* No path to name, but a NUL is still said to be there. */
		free(conf_nul_strings(copy, len, &nnul));
		if (nnul != 0)
			conf_diag_error(diags, file, "a string contains a NUL "
			    "character (\\u0000)");
		goto fail;
	}
	/* Nothing else is checked: cut strings would only mislead. */
	if (conf_check_nul(copy, len, root, file, diags) != 0)
		goto fail;

	memset(&cp, 0, sizeof cp);
	cp.diags = diags;
	cp.getenv_fn = getenv_fn;
	cp.getenv_arg = getenv_arg;
	cp.readfile_fn = readfile_fn;
	conf_setting_defaults(&cp);

	conf_parse_root(&cp, root);
	conf_check_daemon(&cp);
	sb_spec_free(&cp.sandbox);
	cJSON_Delete(root);
	free(copy);
	if (diags->nerrors != nerrors) {
		conf_free(cp.conf);
		return (NULL);
	}
	return (cp.conf);

fail:
	cJSON_Delete(root);
	free(copy);
	return (NULL);
}

struct conf *
conf_parse(const char *text, size_t len, conf_getenv_fn getenv_fn,
    void *getenv_arg, struct conf_diags *diags)
{
	return (conf_parse_file(text, len, CONF_MEMORY_FILE, getenv_fn,
	    getenv_arg, NULL, diags));
}

static void
conf_server_free(struct conf_server *cs)
{
	size_t	 i;

	free(cs->name);
	for (i = 0; i < cs->argc; i++) {
		free(cs->argv[i]);
		free(cs->argv_display[i]);
	}
	free(cs->argv);
	free(cs->argv_display);
	for (i = 0; i < cs->envc; i++)
		free(cs->env[i]);
	free(cs->env);
	for (i = 0; i < cs->nroots; i++)
		free(cs->roots[i]);
	free(cs->roots);
	free(cs->cwd);
	free(cs->cwd_display);
	free(cs->path);
	for (i = 0; i < FILTER_KINDS; i++)
		filter_free(cs->filters[i]);
	conf_remote_clear(cs);
	conf_share_clear(cs);
	conf_sandbox_clear(cs);
}

struct conf_server *
conf_server_dup(const struct conf_server *cs)
{
	struct conf_server	*copy;
	size_t			 i;

	copy = xmalloc(sizeof *copy);
	*copy = *cs;
	copy->name = xstrdup(cs->name);
	copy->argv = xstrvdup(cs->argv, cs->argc);
	copy->argv_display = xstrvdup(cs->argv_display, cs->argc);
	copy->env = xstrvdup(cs->env, cs->envc);
	copy->roots = xstrvdup(cs->roots, cs->nroots);
	copy->cwd = cs->cwd != NULL ? xstrdup(cs->cwd) : NULL;
	copy->cwd_display = cs->cwd_display != NULL ?
	    xstrdup(cs->cwd_display) : NULL;
	copy->path = xstrdup(cs->path);
	for (i = 0; i < FILTER_KINDS; i++)
		copy->filters[i] = filter_dup(cs->filters[i]);
	conf_remote_copy(copy, cs);
	conf_share_copy(copy, cs);
	conf_sandbox_copy(copy, cs);
	return (copy);
}

void
conf_server_release(struct conf_server *cs)
{
	if (cs == NULL)
		return;
	conf_server_free(cs);
	free(cs);
}

void
conf_free(struct conf *conf)
{
	size_t	 i;

	if (conf == NULL)
		return;
	for (i = 0; i < conf->nservers; i++)
		conf_server_free(&conf->servers[i]);
	free(conf->servers);
	conf_groups_free(conf);
	cpolicies_free(conf->clients);
	free(conf->file);
	free(conf->text);
	free(conf->socket_group);
	free(conf->cgroup);
	conf_http_free(conf->http);
	free(conf);
}

/* Environments are sets (keys are unique), so order does not matter. */
static int
conf_env_equal(const struct conf_server *a, const struct conf_server *b)
{
	return (a->envc == b->envc && conf_set_equal(a->env, b->env, a->envc));
}

int
conf_server_equal(const struct conf_server *a, const struct conf_server *b)
{
	return (conf_server_runs_same(a, b) &&
	    conf_settings_same(a, b, CONF_SETTING_WAKES) &&
	    conf_share_equal(a, b));
}

int
conf_server_runs_same(const struct conf_server *a,
    const struct conf_server *b)
{
	size_t	 i;

	if (strcmp(a->name, b->name) != 0 || a->argc != b->argc)
		return (0);
	for (i = 0; i < a->argc; i++) {
		if (strcmp(a->argv[i], b->argv[i]) != 0)
			return (0);
	}
	if (!conf_env_equal(a, b))
		return (0);
	if ((a->cwd == NULL) != (b->cwd == NULL))
		return (0);
	if (a->cwd != NULL && strcmp(a->cwd, b->cwd) != 0)
		return (0);
	if (a->nroots != b->nroots || a->share != b->share)
		return (0);
	for (i = 0; i < a->nroots; i++) {
		if (strcmp(a->roots[i], b->roots[i]) != 0)
			return (0);
	}
	return (conf_settings_same(a, b, CONF_SETTING_RUNS) &&
	    conf_remote_equal(a, b) && conf_sandbox_equal(a, b));
}
