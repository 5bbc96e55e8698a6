/*
 * conf_clients.c -- the "clients" object of the configuration: a policy
 * per app (cpolicy.h), and "default" for the rest.
 *
 * {"clients": {"cursor": {"match": {"exe": "/usr/share/cursor/cursor"},
 *     "servers": ["github", "dev"], "tools": {"deny": ["github__*"]}},
 *  "default": {"servers": ["fs"]}}}
 *
 * It is read once every server and group is known: "servers" names
 * configured servers or groups.  As for filters, a policy with anything
 * mcpd cannot read is an error, not a warning: a key mistyped in a rule
 * meant to restrict would otherwise allow what it was written to deny.
 * An entry's name follows the rule of a server's name; "default" takes
 * no "match", every other entry needs one with at least one glob.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "conf_int.h"
#include "cpolicy.h"
#include "filter.h"
#include "suggest.h"
#include "util.h"
#include "xmalloc.h"

static const char *const conf_clients_keys[] = {
	"match",
	"servers",
	"tools",
	"prompts",
	"resources",
};

static int
conf_clients_match(struct conf_parse *cp, const char *path,
    const cJSON *item, struct cpolicy *p)
{
	const char	*names[CPOLICY_MATCHES], *near, *why;
	const cJSON	*e;
	char		*kpath;
	size_t		 i;
	int		 rc = 0, m;

	for (i = 0; i < CPOLICY_MATCHES; i++)
		names[i] = cpolicy_match_name((enum cpolicy_match)i);
	if (!cJSON_IsObject(item) || item->child == NULL) {
		conf_error(cp, path, "expected an object with one or more of "
		    "\"exe\", \"unit\", \"app_id\", \"token\" (glob "
		    "patterns)");
		return (-1);
	}
	cJSON_ArrayForEach(e, item) {
		xasprintf(&kpath, "%s.%s", path, e->string);
		for (m = 0; m < CPOLICY_MATCHES; m++)
			if (strcmp(e->string, names[m]) == 0)
				break;
		if (m == CPOLICY_MATCHES) {
			near = suggest_near(e->string, names, CPOLICY_MATCHES);
			conf_error(cp, kpath, "unknown key%s%s%s: a match has "
			    "\"exe\", \"unit\", \"app_id\" and \"token\"",
			    near != NULL ?
			    " (did you mean \"" : "", near != NULL ? near : "",
			    near != NULL ? "\"?)" : "");
			rc = -1;
		} else if (p->match[m] != NULL) {
			conf_error(cp, kpath, "duplicate key");
			rc = -1;
		} else if (!cJSON_IsString(e)) {
			conf_error(cp, kpath, "expected a string (a glob "
			    "pattern)");
			rc = -1;
		} else if ((why = filter_pattern_error(e->valuestring)) !=
		    NULL) {
			conf_error(cp, kpath, "%s", why);
			rc = -1;
		} else
			p->match[m] = xstrdup(e->valuestring);
		free(kpath);
	}
	return (rc);
}

static int
conf_clients_servers(struct conf_parse *cp, const char *path,
    const cJSON *item, struct cpolicy *p)
{
	p->all_servers = 0;
	return (conf_names_read(cp, path, item, 1, 0, &p->servers,
	    &p->nservers));
}

/* One key of an entry; -1 after reporting. */
static int
conf_clients_key(struct conf_parse *cp, const char *kpath, const cJSON *item,
    struct cpolicy *p)
{
	const char	*near;
	int		 kind;

	if (strcmp(item->string, "match") == 0) {
		if (strcmp(p->name, CPOLICY_DEFAULT) == 0) {
			conf_error(cp, kpath, "\"default\" is the policy of "
			    "clients no entry matches: it takes no \"match\"");
			return (-1);
		}
		return (conf_clients_match(cp, kpath, item, p));
	}
	if (strcmp(item->string, "servers") == 0)
		return (conf_clients_servers(cp, kpath, item, p));
	if ((kind = conf_filter_kind(item->string)) != -1)
		return (filter_parse(item, (enum filter_kind)kind, kpath,
		    conf_filter_error, cp, &p->filters[kind]));
	near = suggest_near(item->string, conf_clients_keys,
	    nitems(conf_clients_keys));
	if (near != NULL)
		conf_error(cp, kpath, "unknown key (did you mean \"%s\"?)",
		    near);
	else
		conf_error(cp, kpath, "unknown key: a client's policy has "
		    "\"match\", \"servers\", \"tools\", \"prompts\" and "
		    "\"resources\"");
	return (-1);
}

static void
conf_clients_one(struct conf_parse *cp, const cJSON *object)
{
	struct cpolicy	*p;
	const cJSON	*item;
	char		*path, *kpath;
	size_t		*first, i;
	int		 ok = 1, matched = 0;

	xasprintf(&path, "clients.%s", object->string);
	if (!conf_valid_name(object->string)) {
		conf_error(cp, path, "invalid client name: use 1 to %d of "
		    "A-Z a-z 0-9 . _ -", CONF_NAME_MAX_LEN);
		ok = 0;
	}
	if (!cJSON_IsObject(object)) {
		conf_error(cp, path, "expected an object");
		free(path);
		return;
	}
	p = cpolicy_new(object->string);
	first = conf_object_first_keys(object);
	for (i = 0, item = object->child; item != NULL;
	    item = item->next, i++) {
		xasprintf(&kpath, "%s.%s", path, item->string);
		if (first[i] != i) {
			conf_error(cp, kpath, "duplicate key");
			ok = 0;
		} else if (conf_clients_key(cp, kpath, item, p) == -1)
			ok = 0;
		if (strcmp(item->string, "match") == 0)
			matched = 1;
		free(kpath);
	}
	free(first);
	if (!matched && strcmp(p->name, CPOLICY_DEFAULT) != 0) {
		conf_error(cp, path, "a client's policy needs \"match\" (or "
		    "name it \"default\")");
		ok = 0;
	}
	if (ok)
		cpolicies_add(cp->conf->clients, p);
	else
		cpolicy_unref(p);
	free(path);
}

void
conf_clients_parse(struct conf_parse *cp, const cJSON *clients)
{
	const cJSON	*item;
	size_t		*first, i;

	if (clients == NULL)
		return;
	if (!cJSON_IsObject(clients)) {
		conf_error(cp, "clients", "expected an object");
		return;
	}
	cp->conf->clients = cpolicies_new();
	first = conf_object_first_keys(clients);
	for (i = 0, item = clients->child; item != NULL;
	    item = item->next, i++) {
		if (first[i] != i)
			conf_error(cp, "clients", "duplicate client name "
			    "\"%s\"", item->string);
		else
			conf_clients_one(cp, item);
	}
	free(first);
}
