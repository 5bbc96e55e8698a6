/*
 * instance.c -- servers that are not shared globally (instance.h): the
 * choice of an instance for a client, and the cap on how many there are.
 * The instances themselves are workers (worker.c), each with its own
 * router; this file only decides which one a client talks to.
 */
#include "config.h"

#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>

#include "client.h"
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

static int
instance_room(const struct worker *tmpl)
{
	return (worker_instances(tmpl) < worker_conf(tmpl)->max_instances);
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
instance_attach(struct worker *w, struct client *c, char **why)
{
	struct worker	*i;
	char		 what[64];

	*why = NULL;
	/* A stopped template's router refuses, with the reason. */
	if (!worker_is_template(w) || worker_state(w) != WORKER_IDLE)
		return (router_attach(worker_router(w), c));
	if (worker_conf(w)->share == CONF_SHARE_PER_CLIENT) {
		if ((i = instance_left_by(w, client_pid(c),
		    client_uid(c))) != NULL) {
			log_info("%s: the client of pid %ld is back",
			    worker_name(i), (long)client_pid(c));
			return (router_attach(worker_router(i), c));
		}
		if (!instance_room(w)) {
			snprintf(what, sizeof what, "another client (pid %ld)",
			    (long)client_pid(c));
			*why = instance_full(w, what);
			return (NULL);
		}
		i = worker_new_instance(w, NULL, client_pid(c),
		    client_uid(c));
		return (router_attach(worker_router(i), c));
	}
	/* per-roots: wait at the template for the roots, if it can answer. */
	if (worker_has_init(w))
		return (router_attach(worker_router(w), c));
	if (instance_room(w))
		i = worker_new_instance(w, NULL, 0, 0);
	else if ((i = instance_any(w)) == NULL) {
		*why = instance_full(w, "another client");
		return (NULL);
	}
	/* At the cap: it moves if its roots are another's, or is refused. */
	return (router_attach(worker_router(i), c));
}

struct attachment *
instance_attach_link(struct worker *w, struct glink *l)
{
	struct worker		*i;
	const struct roots	*roots = worker_roots(w);

	if (!worker_is_template(w) || worker_state(w) != WORKER_IDLE)
		return (router_attach_link(worker_router(w), l));
	i = NULL;
	if (worker_conf(w)->share == CONF_SHARE_PER_ROOTS)
		i = instance_for_roots(w, roots);
	if (i == NULL) {
		if (!instance_room(w)) {
			log_warnx("%s: max_instances (%u) reached: a group's "
			    "session goes without it", worker_name(w),
			    worker_conf(w)->max_instances);
			return (NULL);
		}
		i = worker_new_instance(w, roots, 0, 0);
	}
	return (router_attach_link(worker_router(i), l));
}

void
instance_client_roots(struct attachment *a, const struct roots *roots)
{
	struct worker		*w = router_attachment_worker(a), *tmpl, *i;
	const struct roots	*have;
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
	    worker_clients(w) == 1) {
		/* Its instance serves it alone: the instance takes them. */
		worker_set_roots(w, roots);
		router_roots_settled(a);
		return;
	}
	if (i == NULL) {
		if (!instance_room(tmpl)) {
			why = instance_full(tmpl, "the roots of this client");
			router_refuse(a, why);
			free(why);
			return;
		}
		i = worker_new_instance(tmpl, roots, 0, 0);
	}
	xasprintf(&why, "moved to %s, the instance of %s for its roots",
	    worker_name(i), worker_name(tmpl));
	if (w != tmpl)
		log_info("%s: a client %s", worker_name(w), why);
	router_move(a, worker_router(i), why);
	free(why);
	router_roots_settled(a);
}
