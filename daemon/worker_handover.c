/*
 * worker_handover.c -- a worker across a re-exec of mcpd (handover.h):
 * its part of the state exported, and taken over by the next mcpd; a
 * ready server runs on without a new initialize.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "guard.h"
#include "handover.h"
#include "logs_ring.h"
#include "rlink.h"
#include "roots.h"
#include "router.h"
#include "transport.h"
#include "worker.h"
#include "worker_int.h"
#include "xmalloc.h"

/*
 * A re-exec.
 */

void
worker_export(struct worker *w, struct handover_server *s)
{
	/* Thawed: the next mcpd takes it over ready, and may freeze it. */
	worker_thaw(w, "thawed for a re-exec of mcpd");
	s->name = xstrdup(w->name);
	s->spawns = w->spawns;
	s->last_exit = w->last_exit != NULL ? xstrdup(w->last_exit) : NULL;
	s->last_stderr = w->last_stderr != NULL ? xstrdup(w->last_stderr) :
	    NULL;
	logs_export(w->logs, s);
	s->lines_in = w->lines_in;
	s->nonjson_lines = w->nonjson_lines;
	s->oversize = w->oversize;
	s->violations = w->violations;
	s->instances_made = w->instances_made;
	if (w->parent != NULL) {
		s->instance_of = xstrdup(w->parent->name);
		s->instance_no = w->instance_no;
		s->owner_pid = w->owner_pid;
		s->owner_uid = w->owner_uid;
		if (w->roots_known)
			s->roots = xstrdup(w->roots.result);
	}
	if (w->rlink != NULL)
		s->remote = rlink_export(w->rlink);
	if (w->state == WORKER_READY && w->init_text != NULL &&
	    w->broken_reason == NULL && transport_export(w->tp, s) == 0) {
		s->running = 1;
		s->state = xstrdup(worker_state_name(w->state));
		s->spawned_ms = w->spawned_ms;
		s->ready_ms = w->state_since_ms;
		s->next_upstream_id = w->next_upstream_id;
		s->init_result = xstrdup(w->init_text);
		router_export(w->router, s);
		return;
	}
	/* Kept as they are; the rest start again (after a kill, if running). */
	switch (w->state) {
	case WORKER_STOPPED:
	case WORKER_FAILED:
	case WORKER_NEEDS_LOGIN:
	case WORKER_IDLE:
		s->state = xstrdup(worker_state_name(w->state));
		break;
	default:
		s->state = xstrdup("start");
		break;
	}
}

void
worker_kill_unexported(struct worker *w, const struct handover_server *s)
{
	if ((s == NULL || !s->running) && w->tp != NULL) {
		transport_kill(w->tp);
		guard_remove(w->mcpd, transport_pid(w->tp));
	}
}

/* What every adopted worker takes over: history, counters, stderr. */
static void
worker_adopt_history(struct worker *w, const struct handover_server *s)
{
	w->spawns = s->spawns;
	worker_set_reason(&w->last_exit, s->last_exit);
	free(w->last_stderr);
	w->last_stderr = s->last_stderr != NULL ? xstrdup(s->last_stderr) :
	    NULL;
	logs_adopt(w->logs, s);
	w->lines_in = s->lines_in;
	w->nonjson_lines = s->nonjson_lines;
	w->oversize = s->oversize;
	w->violations = s->violations;
	if (w->rlink != NULL)
		rlink_adopt(w->rlink, s->remote);
}

/* A running server's process and session, ready without initialize. */
static void
worker_adopt_running(struct worker *w, const struct handover_server *s)
{
	char	*why;

	w->tp = transport_adopt(w->mcpd, w->conf, &worker_transport_cb, w, s);
	w->containment = transport_containment(w->tp);
	worker_sandbox_started(w);
	w->spawned_ms = s->spawned_ms;
	w->next_upstream_id = s->next_upstream_id;
	w->init_text = xstrdup(s->init_result);
	w->init_result = cJSON_Parse(s->init_result);
	worker_modern_adopt(w, s->subs, s->nsubs);
	w->heard_ms = clock_now_ms();
	/* Ready for the first time here: nothing to restore upstream. */
	xasprintf(&why, "taken over across a re-exec of mcpd (pid %ld)",
	    (long)s->pid);
	worker_set_state(w, WORKER_READY, why);
	free(why);
	/* Ready since the first mcpd saw it so (status: state_ms). */
	if (s->ready_ms > 0 && s->ready_ms <= w->state_since_ms)
		w->state_since_ms = s->ready_ms;
	router_adopt(w->router, s);
}

/*
 * A running instance of tmpl (s->instance_of), or NULL if it cannot be
 * taken over (the caller ends it).  Nobody is attached yet: it waits
 * ROUTER_HANDOVER_HOLD_MS for its clients to come back.
 */
struct worker *
worker_adopt_instance(struct worker *tmpl, const struct handover_server *s)
{
	struct worker	*w;
	char		*name, *err = NULL;
	int		 same;

	xasprintf(&name, "%s#%llu", tmpl->name,
	    (unsigned long long)s->instance_no);
	same = strcmp(name, s->name) == 0;
	free(name);
	if (!s->running || !worker_is_template(tmpl) || !same ||
	    s->instance_no > tmpl->instances_made)
		return (NULL);
	w = worker_make_instance(tmpl, (uint32_t)s->instance_no, s->owner_pid,
	    s->owner_uid);
	if (s->roots != NULL && roots_from_result(&w->roots, s->roots,
	    strlen(s->roots), &err) == 0)
		w->roots_known = 1;
	free(err);
	worker_adopt_history(w, s);
	worker_adopt_running(w, s);
	w->unused_ms = ROUTER_HANDOVER_HOLD_MS;
	worker_evtimer_add_ms(w->ev_unused, w->unused_ms);
	return (w);
}

struct worker *
worker_adopt(struct mcpd *mcpd, const struct conf_server *cs,
    const struct handover_server *s)
{
	struct worker	*w;
	size_t		 i;

	w = worker_new_stopped(mcpd, cs);
	w->instances_made = (uint32_t)s->instances_made;
	worker_adopt_history(w, s);
	if (s->running) {
		worker_adopt_running(w, s);
		return (w);
	}
	for (i = 0; i < WORKER_NSTATES; i++) {
		if (strcmp(s->state, worker_state_name((enum worker_state)i)) == 0)
			break;
	}
	if (cs->disabled)
		;
	else if (i == WORKER_STOPPED || i == WORKER_FAILED ||
	    i == WORKER_NEEDS_LOGIN)
		worker_set_state(w, (enum worker_state)i, "as it was before "
		    "the re-exec of mcpd");
	else
		(void)worker_enable(w);
	return (w);
}
