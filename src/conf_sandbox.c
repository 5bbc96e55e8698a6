/*
 * conf_sandbox.c -- what a server may touch (sandbox.h): "sandbox" and
 * "sandbox_required", in a server's entry or in the "mcpd" object for
 * every server without its own.
 *
 *   "sandbox": "off" | "default" | "browser" |
 *       {"profile": "default" | "browser", "read": [PATH...],
 *        "write": [PATH...], "network": "any" | "none" |
 *        {"ports": [PORT...]}, "unix_sockets": BOOL}
 *
 * A PATH is expanded ("${VAR}"), then a leading "~" or "~/" is the
 * home ($HOME); it must then be absolute and hold no "..".  An entry
 * without the key takes the "mcpd" object's, else none (it runs
 * unsandboxed, SB_PROFILE_UNSET).  A remote server (url) runs mcpd's
 * own worker, which reads its token file under mcpd's state: the keys
 * do not apply to it (a warning on its own entry, the default skipped).
 * An object's unknown key is an error, not a warning: a misspelt
 * "network" would silently leave the network open.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "conf_int.h"
#include "sandbox.h"
#include "sandbox_int.h"
#include "suggest.h"
#include "util.h"
#include "xmalloc.h"

static const char *const conf_sandbox_keys[] = {
	"profile", "read", "write", "network", "unix_sockets",
};

/* A profile's name as a string value: its enum, or -1. */
static int
conf_sandbox_word(const cJSON *item, int custom_base)
{
	const char	*s;

	if (!cJSON_IsString(item))
		return (-1);
	s = item->valuestring;
	if (strcmp(s, "default") == 0)
		return (SB_PROFILE_DEFAULT);
	if (strcmp(s, "browser") == 0)
		return (SB_PROFILE_BROWSER);
	if (!custom_base && strcmp(s, "off") == 0)
		return (SB_PROFILE_OFF);
	return (-1);
}

/* "~" and "~/..." as the home; NULL (reported) without one. */
static char *
conf_sandbox_home(struct conf_parse *cp, const char *path, char *s)
{
	const char	*home;
	char		*out;

	if (s[0] != '~' || (s[1] != '\0' && s[1] != '/'))
		return (s);
	home = cp->getenv_fn != NULL ? cp->getenv_fn("HOME",
	    cp->getenv_arg) : NULL;
	if (home == NULL || *home != '/') {
		conf_error(cp, path, "\"~\": $HOME is not set to an absolute "
		    "path");
		free(s);
		return (NULL);
	}
	xasprintf(&out, "%s%s", home, s + 1);
	free(s);
	return (out);
}

static void
conf_sandbox_paths(struct conf_parse *cp, const char *path,
    const cJSON *array, char ***out, size_t *nout)
{
	const cJSON	*item;
	char		*ipath, *s, *norm;
	size_t		 i;

	*out = xcalloc(1, sizeof **out);
	if (!cJSON_IsArray(array)) {
		conf_error(cp, path, "expected an array of paths");
		return;
	}
	for (i = 0, item = array->child; item != NULL;
	    item = item->next, i++) {
		xasprintf(&ipath, "%s[%zu]", path, i);
		if ((s = conf_string(cp, ipath, item)) != NULL &&
		    (s = conf_sandbox_home(cp, ipath, s)) != NULL) {
			if ((norm = sb_path_norm(s)) == NULL)
				conf_error(cp, ipath, "expected an absolute "
				    "path (or one from \"~/\") without "
				    "\"..\"");
			else {
				*out = xreallocarray(*out, *nout + 2,
				    sizeof **out);
				(*out)[(*nout)++] = norm;
				(*out)[*nout] = NULL;
			}
			free(s);
		}
		free(ipath);
	}
}

static void
conf_sandbox_ports(struct conf_parse *cp, const char *path,
    const cJSON *array, struct sb_spec *spec)
{
	const cJSON	*item;
	uint16_t	 port;
	size_t		 i, j;

	if (!cJSON_IsArray(array)) {
		conf_error(cp, path, "expected an array of TCP ports");
		return;
	}
	for (i = 0, item = array->child; item != NULL;
	    item = item->next, i++) {
		if (!cJSON_IsNumber(item) || !(item->valuedouble >= 1 &&
		    item->valuedouble <= 65535) || item->valuedouble !=
		    (double)(uint16_t)item->valuedouble) {
			conf_error(cp, path, "element %zu: expected a port "
			    "from 1 to 65535", i);
			continue;
		}
		port = (uint16_t)item->valuedouble;
		for (j = 0; j < spec->nports; j++) {
			if (spec->ports[j] == port)
				break;
		}
		if (j < spec->nports)
			continue;
		if (spec->nports == SB_PORTS_MAX) {
			conf_error(cp, path, "more than %d ports", SB_PORTS_MAX);
			return;
		}
		spec->ports[spec->nports++] = port;
	}
}

static void
conf_sandbox_network(struct conf_parse *cp, const char *path,
    const cJSON *item, struct sb_spec *spec)
{
	const cJSON	*e;
	char		*epath;

	if (cJSON_IsString(item) && strcmp(item->valuestring, "any") == 0) {
		spec->net = SB_NET_ANY;
		return;
	}
	if (cJSON_IsString(item) && strcmp(item->valuestring, "none") == 0) {
		spec->net = SB_NET_NONE;
		return;
	}
	if (!cJSON_IsObject(item)) {
		conf_error(cp, path, "expected \"any\", \"none\" or "
		    "{\"ports\": [...]}");
		return;
	}
	spec->net = SB_NET_PORTS;
	if (cJSON_GetObjectItemCaseSensitive(item, "ports") == NULL)
		conf_error(cp, path, "\"ports\" is missing");
	cJSON_ArrayForEach(e, item) {
		xasprintf(&epath, "%s.%s", path, e->string);
		if (strcmp(e->string, "ports") == 0)
			conf_sandbox_ports(cp, epath, e, spec);
		else
			conf_error(cp, epath, "unknown key (only \"ports\")");
		free(epath);
	}
}

static void
conf_sandbox_object_key(struct conf_parse *cp, const char *kpath,
    const cJSON *e, struct sb_spec *spec)
{
	const char	*near;
	int		 base;

	if (strcmp(e->string, "profile") == 0) {
		if ((base = conf_sandbox_word(e, 1)) == -1)
			conf_error(cp, kpath, "expected \"default\" or "
			    "\"browser\"");
		else
			spec->base = (enum sb_profile)base;
	} else if (strcmp(e->string, "read") == 0)
		conf_sandbox_paths(cp, kpath, e, &spec->read, &spec->nread);
	else if (strcmp(e->string, "write") == 0)
		conf_sandbox_paths(cp, kpath, e, &spec->write, &spec->nwrite);
	else if (strcmp(e->string, "network") == 0)
		conf_sandbox_network(cp, kpath, e, spec);
	else if (strcmp(e->string, "unix_sockets") == 0) {
		if (!cJSON_IsBool(e))
			conf_error(cp, kpath, "expected true or false");
		else
			spec->unix_sockets = cJSON_IsTrue(e);
	} else if ((near = suggest_near(e->string, conf_sandbox_keys,
	    nitems(conf_sandbox_keys))) != NULL)
		conf_error(cp, kpath, "unknown key (did you mean \"%s\"?)",
		    near);
	else
		conf_error(cp, kpath, "unknown key");
}

/* A "sandbox" value into spec (reset first); errors reported at path. */
static void
conf_sandbox_value(struct conf_parse *cp, const char *path, const cJSON *item,
    struct sb_spec *spec)
{
	const cJSON	*e;
	size_t		*first, i;
	char		*kpath;
	int		 profile, required = spec->required;

	sb_spec_free(spec);
	spec->required = required;
	if (cJSON_IsString(item)) {
		if ((profile = conf_sandbox_word(item, 0)) == -1)
			conf_error(cp, path, "expected \"off\", \"default\", "
			    "\"browser\" or an object");
		else
			spec->profile = (enum sb_profile)profile;
		return;
	}
	if (!cJSON_IsObject(item)) {
		conf_error(cp, path, "expected \"off\", \"default\", "
		    "\"browser\" or an object");
		return;
	}
	spec->profile = SB_PROFILE_CUSTOM;
	spec->base = SB_PROFILE_DEFAULT;
	first = conf_object_first_keys(item);
	for (i = 0, e = item->child; e != NULL; e = e->next, i++) {
		xasprintf(&kpath, "%s.%s", path, e->string);
		if (first[i] != i)
			conf_error(cp, kpath, "duplicate key");
		else
			conf_sandbox_object_key(cp, kpath, e, spec);
		free(kpath);
	}
	free(first);
}

static int
conf_sandbox_required(struct conf_parse *cp, const char *path,
    const cJSON *item, int *out)
{
	if (!cJSON_IsBool(item)) {
		conf_error(cp, path, "expected true or false");
		return (-1);
	}
	*out = cJSON_IsTrue(item);
	return (0);
}

int
conf_sandbox_default_key(struct conf_parse *cp, const char *path,
    const cJSON *item)
{
	if (strcmp(item->string, "sandbox") == 0) {
		conf_sandbox_value(cp, path, item, &cp->sandbox);
	} else if (strcmp(item->string, "sandbox_required") == 0)
		(void)conf_sandbox_required(cp, path, item,
		    &cp->sandbox.required);
	else
		return (0);
	return (1);
}

int
conf_sandbox_key(struct conf_parse *cp, const char *path, const cJSON *item,
    int remote, struct conf_server *cs)
{
	int	 required;

	if (strcmp(item->string, "sandbox") != 0 &&
	    strcmp(item->string, "sandbox_required") != 0)
		return (0);
	if (remote) {
		conf_warn(cp, path, "does not apply to a remote server (url), "
		    "ignored");
		return (1);
	}
	if (strcmp(item->string, "sandbox") == 0) {
		conf_sandbox_value(cp, path, item, &cs->sandbox);
		cp->entry_sandbox = 1;
	} else if (conf_sandbox_required(cp, path, item, &required) == 0) {
		cs->sandbox.required = required;
		cp->entry_sandbox_required = 1;
	}
	return (1);
}

void
conf_sandbox_finish(struct conf_parse *cp, int remote, struct conf_server *cs)
{
	int	 required = cs->sandbox.required;

	if (remote)
		sb_spec_free(&cs->sandbox);
	else {
		if (!cp->entry_sandbox) {
			sb_spec_free(&cs->sandbox);
			sb_spec_copy(&cs->sandbox, &cp->sandbox);
		}
		cs->sandbox.required = cp->entry_sandbox_required ? required :
		    cp->sandbox.required;
	}
	cp->entry_sandbox = cp->entry_sandbox_required = 0;
}

void
conf_sandbox_clear(struct conf_server *cs)
{
	sb_spec_free(&cs->sandbox);
}

void
conf_sandbox_copy(struct conf_server *dst, const struct conf_server *src)
{
	sb_spec_copy(&dst->sandbox, &src->sandbox);
}

int
conf_sandbox_equal(const struct conf_server *a, const struct conf_server *b)
{
	return (sb_spec_equal(&a->sandbox, &b->sandbox));
}
