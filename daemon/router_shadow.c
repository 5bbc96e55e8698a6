/*
 * router_shadow.c -- a server's part in shadowing (src/shadow.h): the
 * profile of its own lists, and what was found of it in its groups.
 *
 * The profile is made from the whole tools and prompts lists mcpd reads
 * for the pins (router_pins.c), so it is kept only while the server is
 * pinned ("pin" not "off"); each time one is read the daemon is told
 * (mcpd->member_listed: group_shadow.c compares it with the other
 * members').  What is found is kept here, per (group, other member),
 * replaced as a whole each time that pair is compared again: it is what
 * the latest lists of both say.  It is only flagged, never held.
 *
 * Each finding is logged once per (group, entry, other member, named
 * tool) for the router's life (journal, MCPD_MID_SHADOW), at most
 * ROUTER_SHADOW_MAX_LOGGED of them; a pair not compared because it would
 * cost too much is logged once too.  mcpctl pins shows the findings whose
 * group still holds both members.
 */
#include "config.h"

#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "hmap.h"
#include "log.h"
#include "mcpd.h"
#include "pins.h"
#include "proto.h"
#include "router.h"
#include "router_int.h"
#include "shadow.h"
#include "util.h"
#include "xmalloc.h"

#define ROUTER_SHADOW_MAX_FINDINGS	1024
#define ROUTER_SHADOW_MAX_LOGGED	4096
/* A name quoted in a log line, at most. */
#define ROUTER_SHADOW_QUOTE_BYTES	200

enum router_shadow_what {
	ROUTER_SHADOW_FOUND,
	ROUTER_SHADOW_MORE,		/* past SHADOW_MAX_HITS */
	ROUTER_SHADOW_SKIPPED,		/* not compared: too costly */
};

struct router_shadow_finding {
	enum router_shadow_what	 what;
	char			*group;
	char			*other;
	enum shadow_kind	 kind;
	char			*name;		/* FOUND: our entry */
	char			*named;		/* FOUND: other's tool */
	char			*spelling;
	size_t			 work;		/* SKIPPED */
	TAILQ_ENTRY(router_shadow_finding) entry;
};
TAILQ_HEAD(router_shadow_findings, router_shadow_finding);

struct router_shadow {
	struct shadow_member		*profile;
	struct router_shadow_findings	 findings;
	size_t				 nfindings;
	struct hmap			*logged;
};

static const char *router_shadow_nouns[SHADOW_KINDS] = { "tool", "prompt" };

static void
router_shadow_finding_free(struct router_shadow_finding *f)
{
	free(f->group);
	free(f->other);
	free(f->name);
	free(f->named);
	free(f->spelling);
	free(f);
}

void
router_shadow_free(struct router *r)
{
	struct router_shadow		*s = r->shadow;
	struct router_shadow_finding	*f;

	if (s == NULL)
		return;
	while ((f = TAILQ_FIRST(&s->findings)) != NULL) {
		TAILQ_REMOVE(&s->findings, f, entry);
		router_shadow_finding_free(f);
	}
	shadow_member_free(s->profile);
	hmap_free(s->logged);
	free(s);
	r->shadow = NULL;
}

static struct router_shadow *
router_shadow_get(struct router *r)
{
	struct router_shadow	*s;

	if ((s = r->shadow) == NULL) {
		s = r->shadow = xcalloc(1, sizeof *s);
		TAILQ_INIT(&s->findings);
		s->profile = shadow_member_new();
		s->logged = hmap_new(hmap_random_seed());
	}
	return (s);
}

void
router_shadow_listed(struct router *r, enum pins_kind k, const cJSON *list)
{
	const struct conf_server *cs = r->up->conf(r->worker);
	struct router_shadow	*s;

	if (k != PINS_TOOLS && k != PINS_PROMPTS)
		return;
	s = router_shadow_get(r);
	shadow_member_set(s->profile, k == PINS_TOOLS ? SHADOW_TOOL :
	    SHADOW_PROMPT, list);
	if (r->mcpd->member_listed != NULL)
		r->mcpd->member_listed(r->mcpd, r, cs->name);
}

const struct shadow_member *
router_shadow_profile(const struct router *r)
{
	return (r->shadow != NULL ? r->shadow->profile : NULL);
}

/* Whether the key is new to the log (and, if so, remembered). */
static int
router_shadow_first(struct router_shadow *s, const char *key, size_t len)
{
	if (hmap_get(s->logged, key, len) != NULL ||
	    hmap_count(s->logged) >= ROUTER_SHADOW_MAX_LOGGED)
		return (0);
	hmap_put(s->logged, key, len, (void *)1);
	return (1);
}

static void
router_shadow_log(struct router *r, const struct router_shadow_finding *f)
{
	const char	*server = r->up->conf(r->worker)->name;
	const char	*noun = router_shadow_nouns[f->kind];
	char		*key;
	size_t		 len;
	int		 first;
	struct log_field fields[] = {
		{ MCPD_FIELD_SERVER, server },
		{ MCPD_FIELD_GROUP, f->group },
		{ MCPD_FIELD_SHADOW_NAME, f->name },
		{ MCPD_FIELD_SHADOWED_SERVER, f->other },
		{ MCPD_FIELD_SHADOWED_TOOL, f->named },
	};

	len = (size_t)xasprintf(&key, "%d%s%c%s%c%d%s%c%s", (int)f->what,
	    f->group, 0, f->other, 0, (int)f->kind, f->name != NULL ?
	    f->name : "", 0, f->named != NULL ? f->named : "");
	first = router_shadow_first(r->shadow, key, len);
	free(key);
	if (!first)
		return;
	if (f->what == ROUTER_SHADOW_SKIPPED) {
		log_warnx("group %s: server %s's descriptions were not "
		    "compared with server %s's tool names: that would read "
		    "%zu bytes, more than mcpd reads for it", f->group, server,
		    f->other, f->work);
		return;
	}
	if (f->what == ROUTER_SHADOW_MORE)
		return;
	log_event(LOG_WARNING, MCPD_MID_SHADOW, fields, nitems(fields),
	    "group %s: server %s's %s %.*s names server %s's tool %.*s "
	    "(as \"%.*s\") in its descriptions: text for the model about "
	    "another server's tool (shadowing); not held; see mcpctl pins %s",
	    f->group, server, noun, ROUTER_SHADOW_QUOTE_BYTES, f->name,
	    f->other, ROUTER_SHADOW_QUOTE_BYTES, f->named,
	    ROUTER_SHADOW_QUOTE_BYTES, f->spelling, server);
}

static struct router_shadow_finding *
router_shadow_add(struct router *r, enum router_shadow_what what,
    const char *group, const char *other)
{
	struct router_shadow		*s = r->shadow;
	struct router_shadow_finding	*f;

	if (s->nfindings >= ROUTER_SHADOW_MAX_FINDINGS)
		return (NULL);
	f = xcalloc(1, sizeof *f);
	f->what = what;
	f->group = xstrdup(group);
	f->other = xstrdup(other);
	TAILQ_INSERT_TAIL(&s->findings, f, entry);
	s->nfindings++;
	return (f);
}

void
router_shadow_found(struct router *r, const char *group, const char *other,
    const struct shadow_result *res)
{
	struct router_shadow		*s = router_shadow_get(r);
	struct router_shadow_finding	*f, *next;
	size_t				 i;

	TAILQ_FOREACH_SAFE(f, &s->findings, entry, next) {
		if (strcmp(f->group, group) != 0 ||
		    strcmp(f->other, other) != 0)
			continue;
		TAILQ_REMOVE(&s->findings, f, entry);
		s->nfindings--;
		router_shadow_finding_free(f);
	}
	if (res->too_large) {
		if ((f = router_shadow_add(r, ROUTER_SHADOW_SKIPPED, group,
		    other)) != NULL) {
			f->work = res->work;
			router_shadow_log(r, f);
		}
		return;
	}
	for (i = 0; i < res->n; i++) {
		if ((f = router_shadow_add(r, ROUTER_SHADOW_FOUND, group,
		    other)) == NULL)
			break;
		f->kind = res->v[i].kind;
		f->name = xstrdup(res->v[i].name);
		f->named = xstrdup(res->v[i].named);
		f->spelling = xstrdup(res->v[i].spelling);
		router_shadow_log(r, f);
	}
	if (res->more)
		(void)router_shadow_add(r, ROUTER_SHADOW_MORE, group, other);
}

static int
router_shadow_holds(const struct conf_group *g, const char *a, const char *b)
{
	size_t	 i;
	int	 has_a = 0, has_b = 0;

	for (i = 0; i < g->nservers; i++) {
		has_a |= strcmp(g->servers[i], a) == 0;
		has_b |= strcmp(g->servers[i], b) == 0;
	}
	return (has_a && has_b);
}

int
router_shadow_elsewhere(const struct conf *conf, const struct conf_group *g,
    const char *a, const char *b)
{
	const struct conf_group	*other;
	size_t			 i;

	if (!g->builtin)
		return (0);
	for (i = 0; i < conf->ngroups; i++) {
		other = &conf->groups[i];
		if (other != g && !other->builtin &&
		    strcmp(other->separator, g->separator) == 0 &&
		    router_shadow_holds(other, a, b))
			return (1);
	}
	return (0);
}

/*
 * Whether group (still) holds both the server and other, and reports
 * their findings (router_shadow_elsewhere).
 */
static int
router_shadow_current(struct router *r, const char *group, const char *other)
{
	const struct conf_group	*g;
	const char		*server = r->up->conf(r->worker)->name;

	if ((g = conf_find_group(r->mcpd->conf, group)) == NULL)
		return (0);
	return (router_shadow_holds(g, server, other) &&
	    !router_shadow_elsewhere(r->mcpd->conf, g, server, other));
}

cJSON *
router_shadow_json(struct router *r)
{
	struct router_shadow_finding	*f;
	cJSON				*a, *one;

	a = cJSON_CreateArray();
	if (r->shadow == NULL)
		return (a);
	TAILQ_FOREACH(f, &r->shadow->findings, entry) {
		if (r->mcpd->conf == NULL ||
		    !router_shadow_current(r, f->group, f->other))
			continue;
		one = cJSON_CreateObject();
		cJSON_AddStringToObject(one, "group", f->group);
		cJSON_AddStringToObject(one, "server", f->other);
		switch (f->what) {
		case ROUTER_SHADOW_FOUND:
			cJSON_AddStringToObject(one, "kind",
			    router_shadow_nouns[f->kind]);
			cJSON_AddStringToObject(one, "name", f->name);
			cJSON_AddStringToObject(one, "named", f->named);
			cJSON_AddStringToObject(one, "spelling", f->spelling);
			break;
		case ROUTER_SHADOW_MORE:
			cJSON_AddBoolToObject(one, "more", 1);
			break;
		case ROUTER_SHADOW_SKIPPED:
			cJSON_AddStringToObject(one, "skipped", "too large");
			cJSON_AddNumberToObject(one, "work", (double)f->work);
			break;
		}
		cJSON_AddItemToArray(a, one);
	}
	return (a);
}
