/*
 * group_shadow.c -- in each group, a member whose descriptions name
 * another member's tools (shadowing, src/shadow.h), flagged when mcpd has
 * read a member's whole list (mcpd->member_listed, from router_shadow.c).
 *
 * This is the one point that sees every member's full list without a
 * client: the lists mcpd reads itself for the pins, after each ready and
 * list_changed.  A group session's merged list would see them only when
 * a client asks, and only what the filters let through.  So a member with
 * "pin": "off", a template (its instances' lists are per client) or one
 * not started yet is compared only once it has such a list.
 *
 * When a member's list is read, every group holding it compares it both
 * ways with each other member that has a list: its texts with their tool
 * names, theirs with its.  The work of one such event is bounded
 * (GROUP_SHADOW_MAX_WORK, on top of SHADOW_MAX_WORK per pair); a pair past
 * it is not compared, and the member's findings say so.  The built-in
 * group "all" leaves out a pair that a group of the configuration holds
 * with the same separator: each finding is reported once, there.
 */
#include "config.h"

#include <sys/queue.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "group.h"
#include "mcpd.h"
#include "router.h"
#include "shadow.h"
#include "worker.h"

/* What one list read may cost in all (bytes read times spellings). */
#define GROUP_SHADOW_MAX_WORK	((size_t)128 * 1024 * 1024)

static int
group_shadow_holds(const struct conf_group *g, const char *server)
{
	size_t	 i;

	for (i = 0; i < g->nservers; i++)
		if (strcmp(g->servers[i], server) == 0)
			return (1);
	return (0);
}

/* Compare member's texts with other's names; the budget is spent. */
static void
group_shadow_pair(const struct conf_group *g, struct router *member,
    const struct shadow_member *mp, const struct shadow_member *op,
    const char *other, size_t *budget)
{
	struct shadow_result	 res;

	(void)shadow_find(mp, op, other, g->separator, *budget, &res);
	if (!res.too_large)
		*budget -= res.work;
	router_shadow_found(member, g->name, other, &res);
	shadow_result_free(&res);
}

void
group_shadow_listed(struct mcpd *mcpd, struct router *r, const char *server)
{
	const struct conf_group		*g;
	const struct shadow_member	*mine, *theirs;
	struct worker			*w;
	struct router			*other;
	size_t				 i, j, budget = GROUP_SHADOW_MAX_WORK;

	/* A template's instances: their lists are their clients'. */
	if (mcpd->conf == NULL || (w = worker_find(mcpd, server)) == NULL ||
	    worker_router(w) != r || (mine = router_shadow_profile(r)) == NULL)
		return;
	for (i = 0; i < mcpd->conf->ngroups; i++) {
		g = &mcpd->conf->groups[i];
		if (g->nservers < 2 || !group_shadow_holds(g, server))
			continue;
		for (j = 0; j < g->nservers; j++) {
			if (strcmp(g->servers[j], server) == 0 ||
			    router_shadow_elsewhere(mcpd->conf, g, server,
			    g->servers[j]) ||
			    (w = worker_find(mcpd, g->servers[j])) == NULL ||
			    (other = worker_router(w)) == NULL ||
			    (theirs = router_shadow_profile(other)) == NULL)
				continue;
			group_shadow_pair(g, r, mine, theirs, g->servers[j],
			    &budget);
			group_shadow_pair(g, other, theirs, mine, server,
			    &budget);
		}
	}
}
