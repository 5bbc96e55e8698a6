/*
 * group_policy.c -- what a group session's client may call (cpolicy.h):
 * its app's policy, judged by the group's names, on top of the group's
 * filters and its members' own.
 *
 * Invariants:
 * - The policy is decided when the client attaches and again on reload,
 *   from the identity its peer gives (group.h's ident; none known:
 *   "default"); the session holds a reference.  The members' routers
 *   leave a group's links alone (router_policy.c).
 * - A tool or prompt is judged by every spelling the group gives it and
 *   by the default separator's (cpolicy_allows_name), a resource by URI.
 * - A group its policy leaves out (a reload took it out of "servers")
 *   answers every request with an error naming the policy.
 */
#include "config.h"

#include <sys/queue.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "cpolicy.h"
#include "filter.h"
#include "group.h"
#include "group_int.h"
#include "mcpd.h"
#include "proto.h"

static struct cpolicy *
group_policy_for(const struct group_session *gs)
{
	const struct ident	*id = NULL;

	if (gs->mcpd->conf == NULL || gs->mcpd->conf->clients == NULL)
		return (NULL);
	if (gs->peer->ident != NULL)
		id = gs->peer->ident(gs->client);
	return (cpolicy_ref(cpolicy_for(gs->mcpd->conf->clients, id)));
}

void
group_policy_attach(struct group_session *gs)
{
	gs->policy = group_policy_for(gs);
	gs->policy_out = !cpolicy_allows_server(gs->policy, gs->name);
}

int
group_policy_reload(struct group_session *gs)
{
	struct cpolicy	*p = group_policy_for(gs);
	size_t		 k;
	int		 changed = 0, out;

	for (k = 0; k < FILTER_KINDS; k++)
		if (!cpolicy_same_filter(gs->policy, p, k))
			changed = 1;
	out = !cpolicy_allows_server(p, gs->name);
	if (out != gs->policy_out)
		changed = 1;
	cpolicy_unref(gs->policy);
	gs->policy = p;
	gs->policy_out = out;
	return (changed);
}

void
group_policy_detach(struct group_session *gs)
{
	cpolicy_unref(gs->policy);
	gs->policy = NULL;
}

int
group_policy_refuses_all(struct group_session *gs, const char *id,
    size_t id_len)
{
	if (!gs->policy_out)
		return (0);
	group_error(gs, id, id_len, MCPD_ERR_ACCESS_DENIED, "refused by the "
	    "policy \"%s\" of mcpd's \"clients\": %s is not in its "
	    "\"servers\"", gs->policy->name, gs->name);
	return (1);
}

int
group_policy_allows_name(const struct group_session *gs, int kind,
    size_t link, const char *own)
{
	return (cpolicy_allows_name(gs->policy,
	    group_lists[kind].filter, gs->links[link]->member, gs->sep, own));
}

const struct filter *
group_policy_uris(const struct group_session *gs)
{
	return (cpolicy_filter(gs->policy, FILTER_RESOURCES));
}

void
group_policy_refuse(struct group_session *gs, const char *id, size_t id_len,
    const char *what, const char *name)
{
	group_error(gs, id, id_len, MCPD_ERR_ACCESS_DENIED, "refused by the "
	    "policy \"%s\" of mcpd's \"clients\": %s %.256s%s is denied",
	    gs->policy->name, what, name, strlen(name) > 256 ? "..." : "");
}
