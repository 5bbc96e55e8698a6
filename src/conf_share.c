/*
 * conf_share.c -- how clients share a server (conf.h, struct conf_server):
 * "share", and for a server not shared globally "max_instances",
 * "max_instances_per_uid" and "member_roots".
 *
 * The keys are read into the server being parsed (conf_share_key), then
 * checked together and given their defaults (conf_share_finish), so that
 * a limit that only a server with instances has is refused on any other,
 * whatever the order of the keys.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "conf_int.h"
#include "util.h"
#include "xmalloc.h"

static const char *conf_share_names[] = {
	[CONF_SHARE_GLOBAL] = "global",
	[CONF_SHARE_PER_CLIENT] = "per-client",
	[CONF_SHARE_PER_ROOTS] = "per-roots",
};

/* The keys only a server with instances takes. */
static const char *conf_share_instance_keys[] = {
	"max_instances",
	"max_instances_per_uid",
	"member_roots",
};

const char *
conf_share_name(enum conf_share share)
{
	if ((size_t)share >= nitems(conf_share_names))
		return ("unknown");
	return (conf_share_names[share]);
}

/* A whole number from 1 to CONF_MAX_MAX_INSTANCES, or 0 (reported). */
static uint32_t
conf_share_count(struct conf_parse *cp, const char *path, const cJSON *item)
{
	if (!cJSON_IsNumber(item) || item->valuedouble < 1 ||
	    item->valuedouble > CONF_MAX_MAX_INSTANCES ||
	    item->valuedouble != (double)(uint32_t)item->valuedouble) {
		conf_error(cp, path, "expected a whole number from 1 to %d",
		    CONF_MAX_MAX_INSTANCES);
		return (0);
	}
	return ((uint32_t)item->valuedouble);
}

int
conf_share_key(struct conf_parse *cp, const char *path, const cJSON *item,
    struct conf_server *cs)
{
	const char	*key = item->string;
	size_t		 i;

	if (strcmp(key, "share") == 0) {
		for (i = 0; cJSON_IsString(item) &&
		    i < nitems(conf_share_names); i++) {
			if (strcmp(item->valuestring,
			    conf_share_names[i]) == 0) {
				cs->share = i;
				return (1);
			}
		}
		conf_error(cp, path, "expected \"global\", \"per-client\" or "
		    "\"per-roots\"");
	} else if (strcmp(key, "max_instances") == 0)
		cs->max_instances = conf_share_count(cp, path, item);
	else if (strcmp(key, "max_instances_per_uid") == 0)
		cs->max_instances_per_uid = conf_share_count(cp, path, item);
	else if (strcmp(key, "member_roots") == 0)
		conf_parse_roots(cp, path, item, &cs->member_roots,
		    &cs->nmember_roots);
	else
		return (0);
	return (1);
}

void
conf_share_finish(struct conf_parse *cp, const char *path,
    const cJSON *object, struct conf_server *cs)
{
	char	*kpath;
	size_t	 i;

	cs->member_roots = xreallocarray(cs->member_roots,
	    cs->nmember_roots + 1, sizeof *cs->member_roots);
	cs->member_roots[cs->nmember_roots] = NULL;
	if (cs->share == CONF_SHARE_GLOBAL) {
		for (i = 0; i < nitems(conf_share_instance_keys); i++) {
			if (cJSON_GetObjectItemCaseSensitive(object,
			    conf_share_instance_keys[i]) == NULL)
				continue;
			xasprintf(&kpath, "%s.%s", path,
			    conf_share_instance_keys[i]);
			conf_error(cp, kpath, "only for a server whose share "
			    "is \"per-client\" or \"per-roots\"");
			free(kpath);
		}
		cs->max_instances = 0;
		cs->max_instances_per_uid = 0;
		return;
	}
	if (cs->max_instances == 0)
		cs->max_instances = CONF_DEFAULT_MAX_INSTANCES;
	if (cs->max_instances_per_uid > cs->max_instances) {
		xasprintf(&kpath, "%s.max_instances_per_uid", path);
		conf_error(cp, kpath, "more than max_instances (%u)",
		    cs->max_instances);
		free(kpath);
	}
	if (cs->max_instances_per_uid == 0)
		cs->max_instances_per_uid = (cs->max_instances +
		    CONF_INSTANCES_PER_UID_DIVISOR - 1) /
		    CONF_INSTANCES_PER_UID_DIVISOR;
}

void
conf_share_clear(struct conf_server *cs)
{
	size_t	 i;

	for (i = 0; i < cs->nmember_roots; i++)
		free(cs->member_roots[i]);
	free(cs->member_roots);
	cs->member_roots = NULL;
	cs->nmember_roots = 0;
}

void
conf_share_copy(struct conf_server *dst, const struct conf_server *src)
{
	size_t	 i;

	dst->member_roots = xreallocarray(NULL, src->nmember_roots + 1,
	    sizeof *dst->member_roots);
	for (i = 0; i < src->nmember_roots; i++)
		dst->member_roots[i] = xstrdup(src->member_roots[i]);
	dst->member_roots[src->nmember_roots] = NULL;
	dst->nmember_roots = src->nmember_roots;
}

int
conf_share_equal(const struct conf_server *a, const struct conf_server *b)
{
	return (a->share == b->share && a->max_instances == b->max_instances &&
	    a->max_instances_per_uid == b->max_instances_per_uid &&
	    a->nmember_roots == b->nmember_roots &&
	    conf_set_equal(a->member_roots, b->member_roots,
	    a->nmember_roots));
}
