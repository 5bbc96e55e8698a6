/*
 * router_policy.c -- what a client's app may call (cpolicy.h): the policy
 * of the configuration's "clients" that applies to each attachment, on
 * top of the server's own filters (router_filter.c, which calls this).
 *
 * Invariants:
 * - The policy is decided when a client attaches and again on reload
 *   (router_set_policies), from the identity its peer gives (router.h's
 *   ident; none known: "default"), never per request.  The attachment
 *   holds a reference, so a reload may free the configuration.
 * - A group's link has none: its group session applies its client's
 *   policy by the group's names (group*.c).
 * - An attachment whose policy restricts nothing costs the hot path one
 *   test (a->policed); a refusal names the policy, unlike a filter,
 *   which hides what it refuses.
 * - A server its policy leaves out (a reload took it out of "servers")
 *   answers every request of that client with that error.
 */
#include "config.h"

#include <sys/queue.h>
#include <sys/uio.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "cpolicy.h"
#include "envelope.h"
#include "esc.h"
#include "filter.h"
#include "gname.h"
#include "mcpd.h"
#include "proto.h"
#include "router.h"
#include "router_int.h"

/* How much of a refused name the error quotes. */
#define ROUTER_POLICY_QUOTE_BYTES	256


/* The server's name as configured: an instance's is its template's. */
static size_t
router_policy_server_len(const char *name)
{
	const char	*hash = strchr(name, '#');

	return (hash != NULL ? (size_t)(hash - name) : strlen(name));
}

/* The name into buf (GNAME_MAX + 1 bytes: names are shorter). */
static const char *
router_policy_server(const struct router *r, char *buf, size_t size)
{
	const char	*name = r->up->name(r->worker);
	size_t		 len = router_policy_server_len(name);

	if (len >= size)
		len = size - 1;
	memcpy(buf, name, len);
	buf[len] = '\0';
	return (buf);
}

/* Set what the hot path tests, from a->policy. */
static void
router_policy_flags(struct attachment *a)
{
	char	 server[GNAME_MAX + 1];

	a->policy_out = a->policy != NULL && !cpolicy_allows_server(a->policy,
	    router_policy_server(a->router, server, sizeof server));
	a->policed = a->policy_out || cpolicy_filters(a->policy);
}

static struct cpolicy *
router_policy_decide(const struct attachment *a,
    const struct cpolicies *ps)
{
	const struct ident	*id = NULL;

	if (a->peer->link || ps == NULL)
		return (NULL);
	if (a->peer->ident != NULL)
		id = a->peer->ident(a->peer_arg);
	return (cpolicy_ref(cpolicy_for(ps, id)));
}

void
router_policy_attach(struct attachment *a)
{
	const struct mcpd	*mcpd = a->router->mcpd;

	a->policy = router_policy_decide(a, mcpd != NULL && mcpd->conf !=
	    NULL ? mcpd->conf->clients : NULL);
	router_policy_flags(a);
}

void
router_policy_detach(struct attachment *a)
{
	cpolicy_unref(a->policy);
	a->policy = NULL;
	a->policed = 0;
	a->policy_out = 0;
}

size_t
router_set_policies(struct router *r, const struct cpolicies *ps)
{
	struct attachment	*a;
	struct cpolicy		*p;
	size_t			 k, changed = 0;
	int			 was_out, any;

	TAILQ_FOREACH(a, &r->atts, entry) {
		if (a->peer->link)
			continue;
		p = router_policy_decide(a, ps);
		was_out = a->policy_out;
		any = 0;
		for (k = 0; k < FILTER_KINDS; k++) {
			if (cpolicy_same_filter(a->policy, p, k))
				continue;
			any = 1;
			router_peer_queue(a, &(struct iovec){
			    (void *)router_filter_changed[k],
			    strlen(router_filter_changed[k]) }, 1);
		}
		cpolicy_unref(a->policy);
		a->policy = p;
		router_policy_flags(a);
		if (any || was_out != a->policy_out)
			changed++;
	}
	return (changed);
}

int
router_policy_refuses_all(struct attachment *a, const char *line,
    const struct envelope *env)
{
	char	 server[GNAME_MAX + 1];

	if (!a->policy_out)
		return (0);
	router_client_error(a, router_text(line, &env->id), env->id.len,
	    MCPD_ERR_ACCESS_DENIED, "refused by the policy \"%s\" of mcpd's "
	    "\"clients\": server %s is not in its \"servers\"",
	    a->policy->name, router_policy_server(a->router, server,
	    sizeof server));
	return (1);
}

int
router_policy_allows(const struct attachment *a, enum filter_kind kind,
    const char *name)
{
	char		 server[GNAME_MAX + 1];
	const char	*why;

	if (!a->policed)
		return (1);
	if (kind == FILTER_RESOURCES)
		return (filter_check_uri(cpolicy_filter(a->policy, kind), name,
		    &why) == 1);
	if (cpolicy_filter(a->policy, kind) == NULL)
		return (1);
	return (cpolicy_allows_name(a->policy, kind,
	    router_policy_server(a->router, server, sizeof server),
	    GNAME_DEFAULT_SEP, name));
}

void
router_policy_refuse(struct attachment *a, const char *line,
    const struct envelope *env, const char *what, const char *name)
{
	int	 shown = (int)esc_cut(name, strlen(name),
			    ROUTER_POLICY_QUOTE_BYTES);

	router_client_error(a, router_text(line, &env->id), env->id.len,
	    MCPD_ERR_ACCESS_DENIED, "refused by the policy \"%s\" of mcpd's "
	    "\"clients\": %s %.*s%s is denied", a->policy->name, what, shown,
	    name, name[shown] != '\0' ? "..." : "");
}

/* A list's entries judged by the attachment's policy (filter_keep_fn). */
static int
router_policy_keep(void *arg, const char *name)
{
	struct attachment	*a = arg;

	return (router_policy_allows(a, FILTER_TOOLS, name));
}

static int
router_policy_keep_prompt(void *arg, const char *name)
{
	struct attachment	*a = arg;

	return (router_policy_allows(a, FILTER_PROMPTS, name));
}

enum filter_result
router_policy_list(struct attachment *a, enum filter_list list,
    const char *text, size_t len, char **out, size_t *outlen)
{
	enum filter_kind	 kind = filter_list_kind(list);

	*out = NULL;
	*outlen = 0;
	if (!a->policed || cpolicy_filter(a->policy, kind) == NULL)
		return (FILTER_KEPT);
	switch (list) {
	case FILTER_LIST_TOOLS:
		return (filter_list_text_by(list, text, len,
		    router_policy_keep, a, out, outlen));
	case FILTER_LIST_PROMPTS:
		return (filter_list_text_by(list, text, len,
		    router_policy_keep_prompt, a, out, outlen));
	default:
		return (filter_list_text(cpolicy_filter(a->policy, kind),
		    list, text, len, out, outlen));
	}
}

enum filter_result
router_policy_links(struct attachment *a, const char *text, size_t len,
    char **out, size_t *outlen)
{
	*out = NULL;
	*outlen = 0;
	if (!a->policed)
		return (FILTER_KEPT);
	return (filter_links_text(cpolicy_filter(a->policy, FILTER_RESOURCES),
	    text, len, out, outlen));
}
