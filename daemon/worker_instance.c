/*
 * worker_instance.c -- servers not shared globally (instance.c picks a
 * client's): the template, which never runs, and its instances, workers
 * of their own named NAME#N with their own roots; an instance nobody
 * uses any more goes.
 */
#include "config.h"

#include <sys/queue.h>
#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "log.h"
#include "mcpd.h"
#include "roots.h"
#include "router.h"
#include "worker.h"
#include "worker_int.h"
#include "xmalloc.h"

/*
 * Templates (instance.c): a server not shared globally never runs; its
 * state says whether clients may have instances (idle) or not (stopped),
 * and the admin actions apply to every instance.
 */
int
worker_is_template(const struct worker *w)
{
	return (w->parent == NULL && w->conf->share != CONF_SHARE_GLOBAL);
}

struct worker *
worker_parent(const struct worker *w)
{
	return (w->parent);
}

struct worker *
worker_instance_next(struct worker *tmpl, struct worker *prev)
{
	struct worker	*w;

	w = prev != NULL ? TAILQ_NEXT(prev, entry) : TAILQ_NEXT(tmpl, entry);
	for (; w != NULL; w = TAILQ_NEXT(w, entry)) {
		if (w->parent == tmpl)
			return (w);
	}
	return (NULL);
}

size_t
worker_instances(const struct worker *tmpl)
{
	return (tmpl->ninstances);
}

void
worker_template_enable(struct worker *w)
{
	worker_set_state(w, WORKER_IDLE, w->conf->share ==
	    CONF_SHARE_PER_CLIENT ? "per-client: each client gets an "
	    "instance of its own" : "per-roots: each set of client roots "
	    "gets an instance of its own");
}

void
worker_template_each(struct worker *w, void (*fn)(struct worker *))
{
	struct worker	*i, *next;

	for (i = worker_instance_next(w, NULL); i != NULL; i = next) {
		next = worker_instance_next(w, i);
		if (!i->removing)
			fn(i);
	}
}

enum worker_reconf
worker_template_reconfigure(struct worker *w, int was_disabled,
    int when_only)
{
	struct worker	*i, *next;

	if (!when_only) {
		/* Another server now: its instances' answers are stale. */
		cJSON_Delete(w->init_result);
		w->init_result = NULL;
		free(w->init_text);
		w->init_text = NULL;
	}
	for (i = worker_instance_next(w, NULL); i != NULL; i = next) {
		next = worker_instance_next(w, i);
		if (!i->removing)
			(void)worker_reconfigure(i, w->conf);
	}
	if (w->conf->disabled) {
		if (w->state == WORKER_STOPPED)
			return (WORKER_RECONF_KEPT);
		worker_stop(w);
		return (WORKER_RECONF_STOPPED);
	}
	if (w->state == WORKER_STOPPED) {
		if (!was_disabled)
			return (WORKER_RECONF_KEPT);
		return (worker_enable(w));
	}
	if (when_only)
		return (WORKER_RECONF_UPDATED);
	/* No instance ran: none restarted, the next one starts anew. */
	return (w->ninstances > 0 ? WORKER_RECONF_RESTARTED :
	    WORKER_RECONF_IDLE);
}

/* A server that is not an instance is given the configured roots. */
void
worker_set_conf_roots(struct worker *w)
{
	if (w->parent != NULL)
		return;
	roots_free(&w->roots);
	roots_from_uris(&w->roots, w->conf->roots, w->conf->nroots);
	w->roots_known = 1;
}

/*
 * Lifetime and status.
 */

static void
worker_unused_cb(evutil_socket_t fd, short events, void *arg)
{
	struct worker	*w = arg;

	if (w->removing || router_clients(w->router) > 0)
		return;
	log_info("%s: no client for %.1f s: stopping the instance",
	    w->name, (double)w->unused_ms / 1000.0);
	worker_remove(w);
}

/*
 * The router: no client is attached any more.  An instance goes, at once
 * or after idle_stop_s (a reconnecting client finds it again); a client
 * that attaches meanwhile keeps it.
 */
void
worker_unused(struct worker *w)
{
	if (w->parent == NULL || w->removing)
		return;
	if (w->conf->idle_stop_s == 0 || w->mcpd->shutting_down) {
		log_info("%s: its last client left: stopping the instance",
		    w->name);
		worker_remove(w);
		return;
	}
	w->unused_ms = worker_idle_stop_ms(w);
	worker_evtimer_add_ms(w->ev_unused, w->unused_ms);
}

/*
 * A new instance of a template, listed after its last one, started at
 * once.  roots: known already (a per-roots set), or NULL: its first
 * client's, when they are known (worker_set_roots).
 */
/* Instance number no of tmpl, listed after its last instance; not started. */
struct worker *
worker_make_instance(struct worker *tmpl, uint32_t no, pid_t owner,
    uid_t owner_uid)
{
	struct worker	*w, *after = tmpl, *i;
	char		*name;

	for (i = worker_instance_next(tmpl, NULL); i != NULL;
	    i = worker_instance_next(tmpl, i))
		after = i;
	xasprintf(&name, "%s#%u", tmpl->name, no);
	w = worker_make(tmpl->mcpd, tmpl->conf, name, after);
	free(name);
	w->parent = tmpl;
	w->instance_no = no;
	w->owner_pid = owner;
	w->owner_uid = owner_uid;
	tmpl->ninstances++;
	return (w);
}

struct worker *
worker_new_instance(struct worker *tmpl, const struct roots *roots,
    pid_t owner, uid_t owner_uid)
{
	struct worker	*w;

	w = worker_make_instance(tmpl, ++tmpl->instances_made, owner,
	    owner_uid);
	if (roots != NULL) {
		roots_copy(&w->roots, roots);
		w->roots_known = 1;
	}
	if (owner > 0)
		log_info("%s: a new instance of %s for the client of pid %ld",
		    w->name, tmpl->name, (long)owner);
	else
		log_info("%s: a new instance of %s", w->name, tmpl->name);
	worker_spawn(w);
	return (w);
}

pid_t
worker_owner_pid(const struct worker *w)
{
	return (w->owner_pid);
}

uid_t
worker_owner_uid(const struct worker *w)
{
	return (w->owner_uid);
}

const struct roots *
worker_roots(const struct worker *w)
{
	return (w->roots_known ? &w->roots : NULL);
}

/*
 * An instance's roots are known, or changed: the server's roots/list
 * waiting for them is answered, and a server that had them before is
 * told they changed.
 */
void
worker_set_roots(struct worker *w, const struct roots *roots)
{
	if (w->roots_known && strcmp(w->roots.result, roots->result) == 0)
		return;
	roots_free(&w->roots);
	roots_copy(&w->roots, roots);
	w->roots_known = 1;
	router_roots_known(w->router);
}

/* Its event: the end of an instance nobody uses. */
void
worker_instance_events(struct worker *w)
{
	w->ev_unused = evtimer_new(w->mcpd->base, worker_unused_cb, w);
}

/*
 * A client's roots are known: which instance serves it is instance.c's
 * choice, a layer above the worker, which picks instances by calling it;
 * mcpd.c hands that choice to the routers through struct mcpd, as it
 * does worker_changed.
 */
void
worker_client_roots(struct attachment *a, const struct roots *roots)
{
	struct worker	*w = router_attachment_worker(a);

	w->mcpd->client_roots(a, roots);
}
