/*
 * conf_group.c -- the "groups" object of the configuration: groups of
 * servers that one session can attach to (daemon/group.c), and the
 * built-in group "all".
 *
 * {"groups": {"dev": {"servers": ["github", "fs"], "separator": "__",
 *     "tools": {"deny": ["github__delete_*"]}}}}
 *
 * A group's "tools", "prompts" and "resources" filters (filter.h) narrow
 * further what its members' own filters let through; tools and prompts
 * are matched by every spelling of their names (gname.h), resources by
 * URI.
 *
 * A group's name follows the rules of a server's and shares their
 * namespace: a group named like a server is an error, except for "all",
 * where a configured server or group wins over the built-in one (with a
 * warning).  Members must be configured servers, each listed once; a
 * disabled member is kept (its tools are absent while it is down, as for
 * any member that is down).  The built-in "all" holds every enabled
 * server, in file order.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "conf_int.h"
#include "filter.h"
#include "gname.h"
#include "util.h"
#include "xmalloc.h"

#define CONF_GROUP_ALL		"all"
#define CONF_GROUP_SEP_MAX	8

static void
conf_group_clear(struct conf_group *g)
{
	size_t	 i;

	free(g->name);
	for (i = 0; i < g->nservers; i++)
		free(g->servers[i]);
	free(g->servers);
	free(g->separator);
	for (i = 0; i < FILTER_KINDS; i++)
		filter_free(g->filters[i]);
	memset(g, 0, sizeof *g);
}

void
conf_groups_free(struct conf *conf)
{
	size_t	 i;

	for (i = 0; i < conf->ngroups; i++)
		conf_group_clear(&conf->groups[i]);
	free(conf->groups);
	conf->groups = NULL;
	conf->ngroups = 0;
}

const struct conf_group *
conf_find_group(const struct conf *conf, const char *name)
{
	size_t	 i;

	if (conf == NULL)
		return (NULL);
	for (i = 0; i < conf->ngroups; i++) {
		if (strcmp(conf->groups[i].name, name) == 0)
			return (&conf->groups[i]);
	}
	return (NULL);
}

int
conf_group_equal(const struct conf_group *a, const struct conf_group *b)
{
	size_t	 i;

	if (strcmp(a->name, b->name) != 0 || a->nservers != b->nservers ||
	    strcmp(a->separator, b->separator) != 0 ||
	    a->builtin != b->builtin)
		return (0);
	for (i = 0; i < FILTER_KINDS; i++)
		if (!filter_equal(a->filters[i], b->filters[i]))
			return (0);
	for (i = 0; i < a->nservers; i++)
		if (strcmp(a->servers[i], b->servers[i]) != 0)
			return (0);
	return (1);
}

static struct conf_group *
conf_group_new(struct conf *conf, const char *name)
{
	struct conf_group	*g;

	conf->groups = xreallocarray(conf->groups, conf->ngroups + 1,
	    sizeof *conf->groups);
	g = &conf->groups[conf->ngroups++];
	memset(g, 0, sizeof *g);
	g->name = xstrdup(name);
	g->separator = xstrdup(GNAME_DEFAULT_SEP);
	return (g);
}

static void
conf_names_add(char ***v, size_t *n, const char *name)
{
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = xstrdup(name);
}

static void
conf_group_add_server(struct conf_group *g, const char *name)
{
	conf_names_add(&g->servers, &g->nservers, name);
}

int
conf_names_read(struct conf_parse *cp, const char *path, const cJSON *item,
    int groups, int nonempty, char ***v, size_t *n)
{
	const cJSON	*e;
	const char	*what = groups ? "server or group" : "server";
	char		*epath;
	size_t		 i, index = 0;
	int		 rc = 0;

	if (!cJSON_IsArray(item) || (nonempty &&
	    cJSON_GetArraySize(item) == 0)) {
		conf_error(cp, path, "expected a%s array of %s names",
		    nonempty ? " non-empty" : "n", groups ? "server and group" :
		    "server");
		return (-1);
	}
	cJSON_ArrayForEach(e, item) {
		xasprintf(&epath, "%s[%zu]", path, index++);
		for (i = 0; cJSON_IsString(e) && i < *n; i++)
			if (strcmp((*v)[i], e->valuestring) == 0)
				break;
		if (!cJSON_IsString(e)) {
			conf_error(cp, epath, "expected a %s name", what);
			rc = -1;
		} else if (conf_find(cp->conf, e->valuestring) == NULL &&
		    (!groups || conf_find_group(cp->conf,
		    e->valuestring) == NULL)) {
			/* Values are not shown: only paths and keys. */
			conf_error(cp, epath, "not the name of a configured "
			    "%s", what);
			rc = -1;
		} else if (i < *n) {
			conf_error(cp, epath, "the same %s as [%zu]", groups ?
			    "name" : "server", i);
			rc = -1;
		} else
			conf_names_add(v, n, e->valuestring);
		free(epath);
	}
	return (rc);
}

static int
conf_group_separator(struct conf_parse *cp, const char *path,
    const cJSON *item, struct conf_group *g)
{
	size_t	 len;

	if (!cJSON_IsString(item) || (len = strlen(item->valuestring)) == 0 ||
	    len > CONF_GROUP_SEP_MAX || strspn(item->valuestring,
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789_.-") != len) {
		conf_error(cp, path, "expected 1 to %d of A-Z a-z 0-9 _ . -",
		    CONF_GROUP_SEP_MAX);
		return (-1);
	}
	free(g->separator);
	g->separator = xstrdup(item->valuestring);
	return (0);
}

static void
conf_group_one(struct conf_parse *cp, const cJSON *object)
{
	struct conf_group	*g;
	const cJSON		*item;
	char			*path, *kpath;
	size_t			*first, i;
	int			 ok = 1, kind;

	xasprintf(&path, "groups.%s", object->string);
	if (!conf_valid_name(object->string)) {
		conf_error(cp, path, "invalid group name: use 1 to %d of "
		    "A-Z a-z 0-9 . _ -", CONF_NAME_MAX_LEN);
		ok = 0;
	}
	if (conf_find(cp->conf, object->string) != NULL) {
		conf_error(cp, path, "a server has this name: servers and "
		    "groups share one namespace");
		ok = 0;
	}
	if (!cJSON_IsObject(object)) {
		conf_error(cp, path, "expected an object");
		free(path);
		return;
	}
	g = conf_group_new(cp->conf, object->string);
	first = conf_object_first_keys(object);
	for (i = 0, item = object->child; item != NULL;
	    item = item->next, i++) {
		xasprintf(&kpath, "%s.%s", path, item->string);
		if (first[i] != i) {
			conf_error(cp, kpath, "duplicate key");
			ok = 0;
		} else if (strcmp(item->string, "servers") == 0) {
			if (conf_names_read(cp, kpath, item, 0, 1,
			    &g->servers, &g->nservers) == -1)
				ok = 0;
		} else if (strcmp(item->string, "separator") == 0) {
			if (conf_group_separator(cp, kpath, item, g) == -1)
				ok = 0;
		} else if ((kind = conf_filter_kind(item->string)) != -1) {
			if (filter_parse(item, (enum filter_kind)kind, kpath,
			    conf_filter_error, cp, &g->filters[kind]) == -1)
				ok = 0;
		} else
			conf_warn(cp, kpath, "unknown key, ignored");
		free(kpath);
	}
	free(first);
	if (ok && g->nservers == 0) {
		conf_error(cp, path, "a group needs \"servers\"");
		ok = 0;
	}
	if (!ok) {
		conf_group_clear(g);
		cp->conf->ngroups--;
	}
	free(path);
}

void
conf_group_parse(struct conf_parse *cp, const cJSON *groups)
{
	const cJSON		*item;
	const struct conf_server *cs;
	struct conf_group	*g;
	size_t			*first, i;

	if (groups != NULL && !cJSON_IsObject(groups))
		conf_error(cp, "groups", "expected an object");
	else if (groups != NULL) {
		first = conf_object_first_keys(groups);
		for (i = 0, item = groups->child; item != NULL;
		    item = item->next, i++) {
			if (first[i] != i)
				conf_error(cp, "groups", "duplicate group "
				    "name \"%s\"", item->string);
			else
				conf_group_one(cp, item);
		}
		free(first);
	}
	if ((cs = conf_find(cp->conf, CONF_GROUP_ALL)) != NULL) {
		conf_warn(cp, cs->path, "a server named \"all\" hides the "
		    "built-in group of every server");
		return;
	}
	if (conf_find_group(cp->conf, CONF_GROUP_ALL) != NULL) {
		conf_warn(cp, "groups." CONF_GROUP_ALL, "this group replaces "
		    "the built-in group of every server");
		return;
	}
	g = conf_group_new(cp->conf, CONF_GROUP_ALL);
	g->builtin = 1;
	for (i = 0; i < cp->conf->nservers; i++)
		if (!cp->conf->servers[i].disabled)
			conf_group_add_server(g, cp->conf->servers[i].name);
}
