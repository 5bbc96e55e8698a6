/*
 * instance.c -- servers that are not shared globally (instance.h): the
 * choice of an instance for a client, and the caps on how many there are.
 * The instances themselves are workers (worker.c), each with its own
 * router; this file only decides which one a client talks to.
 *
 * Instances are shared out as connections and descriptors are (client.c):
 * each is charged to the user whose client made it (a group's link: the
 * group's client), a user who is not an administrator may hold at most
 * max_instances_per_uid of a server's, and the last of max_instances are
 * kept for administrators (mcpd's user and root), so that other users of
 * the socket cannot take every instance from the owner.
 */
#include "config.h"

#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>

#include "access.h"
#include "conf.h"
#include "instance.h"
#include "log.h"
#include "roots.h"
#include "router.h"
#include "worker.h"
#include "xmalloc.h"

static char *
instance_full(const struct worker *tmpl, const char *what)
{
	char	*why;

	xasprintf(&why, "server %s has %zu instance%s, its max_instances: "
	    "none can be made for %s", worker_name(tmpl),
	    worker_instances(tmpl), worker_instances(tmpl) == 1 ? "" : "s",
	    what);
	return (why);
}

/* Instances kept for administrators: max_instances over this, rounded up. */
#define INSTANCE_ADMIN_RESERVE_DIVISOR	8

/* How many of tmpl's instances are charged to uid. */
static size_t
instance_count_of(struct worker *tmpl, uid_t uid)
{
	struct worker	*i;
	size_t		 n = 0;

	for (i = worker_instance_next(tmpl, NULL); i != NULL;
	    i = worker_instance_next(tmpl, i))
		n += worker_owner_uid(i) == uid;
	return (n);
}

/*
 * Why no new instance of tmpl can be made for a client of uid (what: for
 * the message), or NULL if one can.  The message is the client's own: it
 * names no other client.
 */
static char *
instance_refusal(struct worker *tmpl, uid_t uid, const char *what)
{
	const struct conf_server *cs = worker_conf(tmpl);
	size_t			 n = worker_instances(tmpl), mine, reserve;
	char			*why;

	if (n >= cs->max_instances)
		return (instance_full(tmpl, what));
	if (access_uid_is_admin(uid))
		return (NULL);
	reserve = (cs->max_instances + INSTANCE_ADMIN_RESERVE_DIVISOR - 1) /
	    INSTANCE_ADMIN_RESERVE_DIVISOR;
	if (n + reserve >= cs->max_instances) {
		xasprintf(&why, "server %s has %zu instance%s, and the last "
		    "%zu of its max_instances (%u) are kept for mcpd's user "
		    "and root: none can be made for %s", worker_name(tmpl), n,
		    n == 1 ? "" : "s", reserve, cs->max_instances, what);
		return (why);
	}
	if ((mine = instance_count_of(tmpl, uid)) >=
	    cs->max_instances_per_uid) {
		xasprintf(&why, "uid %lu has %zu instance%s of server %s, "
		    "the most its max_instances_per_uid allows: none more can "
		    "be made for %s", (unsigned long)uid, mine,
		    mine == 1 ? "" : "s", worker_name(tmpl), what);
		return (why);
	}
	return (NULL);
}

/* The live instance whose roots are these, or NULL. */
static struct worker *
instance_for_roots(struct worker *tmpl, const struct roots *roots)
{
	struct worker		*i;
	const struct roots	*have;

	for (i = worker_instance_next(tmpl, NULL); i != NULL;
	    i = worker_instance_next(tmpl, i)) {
		if (!worker_removing(i) && (have = worker_roots(i)) != NULL &&
		    roots_equal(have, roots))
			return (i);
	}
	return (NULL);
}

/* A live instance, or NULL. */
static struct worker *
instance_any(struct worker *tmpl)
{
	struct worker	*i;

	for (i = worker_instance_next(tmpl, NULL); i != NULL;
	    i = worker_instance_next(tmpl, i)) {
		if (!worker_removing(i))
			return (i);
	}
	return (NULL);
}

/*
 * An instance an earlier connection of this process left, or NULL.  The
 * user too: a pid another user's process got since is not its owner.
 */
static struct worker *
instance_left_by(struct worker *tmpl, pid_t pid, uid_t uid)
{
	struct worker	*i;

	for (i = worker_instance_next(tmpl, NULL); i != NULL;
	    i = worker_instance_next(tmpl, i)) {
		if (!worker_removing(i) && worker_owner_pid(i) == pid &&
		    worker_owner_uid(i) == uid && worker_clients(i) == 0)
			return (i);
	}
	return (NULL);
}

struct attachment *
instance_attach(struct worker *w, const struct router_peer *peer, void *c,
    char **why)
{
	struct worker	*i;
	char		 what[64], *full;

	*why = NULL;
	/* A stopped template's router refuses, with the reason. */
	if (!worker_is_template(w) || worker_state(w) != WORKER_IDLE)
		return (router_attach(worker_router(w), peer, c));
	if (worker_conf(w)->share == CONF_SHARE_PER_CLIENT) {
		if ((i = instance_left_by(w, peer->pid(c),
		    peer->uid(c))) != NULL) {
			log_info("%s: the client of pid %ld is back",
			    worker_name(i), (long)peer->pid(c));
			return (router_attach(worker_router(i), peer, c));
		}
		snprintf(what, sizeof what, "this client (pid %ld)",
		    (long)peer->pid(c));
		if ((*why = instance_refusal(w, peer->uid(c), what)) != NULL)
			return (NULL);
		i = worker_new_instance(w, NULL, peer->pid(c),
		    peer->uid(c));
		return (router_attach(worker_router(i), peer, c));
	}
	/* per-roots: wait at the template for the roots, if it can answer. */
	if (worker_has_init(w))
		return (router_attach(worker_router(w), peer, c));
	if ((full = instance_refusal(w, peer->uid(c),
	    "this client")) == NULL)
		i = worker_new_instance(w, NULL, 0, peer->uid(c));
	else if ((i = instance_any(w)) == NULL) {
		*why = full;
		return (NULL);
	}
	free(full);
	/* At the cap: it moves if its roots are another's, or is refused. */
	return (router_attach(worker_router(i), peer, c));
}

struct attachment *
instance_attach_link(struct worker *w, const struct router_peer *peer,
    void *l)
{
	struct worker		*i;
	const struct roots	*roots = worker_roots(w);
	uid_t			 uid = peer->uid(l);
	char			*why;

	if (!worker_is_template(w) || worker_state(w) != WORKER_IDLE)
		return (router_attach(worker_router(w), peer, l));
	i = NULL;
	if (worker_conf(w)->share == CONF_SHARE_PER_ROOTS)
		i = instance_for_roots(w, roots);
	if (i == NULL) {
		if ((why = instance_refusal(w, uid, "a group's session")) !=
		    NULL) {
			log_warnx("%s; the session goes without it", why);
			free(why);
			return (NULL);
		}
		i = worker_new_instance(w, roots, 0, uid);
	}
	return (router_attach(worker_router(i), peer, l));
}

void
instance_client_roots(struct attachment *a, const struct roots *roots)
{
	struct worker		*w = router_attachment_worker(a), *tmpl, *i;
	const struct roots	*have;
	uid_t			 uid = router_attachment_uid(a);
	char			*why;

	tmpl = worker_is_template(w) ? w : worker_parent(w);
	if (tmpl == NULL || !worker_is_template(tmpl))
		return;		/* shared globally */
	if (worker_conf(tmpl)->share == CONF_SHARE_PER_CLIENT) {
		if (w != tmpl)
			worker_set_roots(w, roots);
		router_roots_settled(a);
		return;
	}
	have = w != tmpl ? worker_roots(w) : NULL;
	if (have != NULL && roots_equal(have, roots)) {
		router_roots_settled(a);
		return;
	}
	if ((i = instance_for_roots(tmpl, roots)) == NULL && w != tmpl &&
	    worker_clients(w) == 1 && worker_owner_uid(w) == uid) {
		/* Its instance serves it alone: the instance takes them. */
		worker_set_roots(w, roots);
		router_roots_settled(a);
		return;
	}
	if (i == NULL) {
		if ((why = instance_refusal(tmpl, uid,
		    "the roots of this client")) != NULL) {
			router_refuse(a, why);
			free(why);
			return;
		}
		i = worker_new_instance(tmpl, roots, 0, uid);
	}
	xasprintf(&why, "moved to %s, the instance of %s for its roots",
	    worker_name(i), worker_name(tmpl));
	if (w != tmpl)
		log_info("%s: a client %s", worker_name(w), why);
	router_move(a, worker_router(i), why);
	free(why);
	router_roots_settled(a);
}
