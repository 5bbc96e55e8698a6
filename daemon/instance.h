/*
 * instance.h -- servers that are not shared globally ("share"): which
 * instance serves a client, made when none fits (at most max_instances
 * alive), and where a per-roots client goes once its roots are known or
 * when they change.
 *
 *   per-client  each client its own instance, made when it attaches; a
 *               client of the same pid finds an instance its earlier
 *               connection left (within idle_stop_s).
 *   per-roots   one instance per set of client roots.  A client waits
 *               at the template (its initialize answered with the last
 *               result an instance got) until its roots are known, then
 *               joins the instance for them; without such a result yet,
 *               it starts an instance whose roots become its own.  A
 *               roots change moves it (router_move).
 *   a group     a per-client member gets an instance for the group's
 *               session; a per-roots one the instance of the configured
 *               roots (a group does not ask its client for roots).
 *
 * An instance is charged to the user of the client it was made for; one
 * that is not an administrator has at most max_instances_per_uid, and the
 * last of max_instances are kept for administrators (instance.c).
 */
#ifndef MCPD_INSTANCE_H
#define MCPD_INSTANCE_H

#include <sys/types.h>

struct attachment;
struct roots;
struct router_peer;
struct worker;

/*
 * A client (peer, with its table: router.h) attaches to the server of
 * worker w: the attachment, or NULL with *why (malloc'd, naming that
 * client alone) when the caps leave no instance for it.
 */
struct attachment *instance_attach(struct worker *w,
		    const struct router_peer *, void *peer, char **why);
/* A group's link to member w; NULL: none (the caps, logged). */
struct attachment *instance_attach_link(struct worker *w,
		    const struct router_peer *, void *link);
/* The client's roots are known (router_roots.c). */
void		 instance_client_roots(struct attachment *,
		    const struct roots *);

#endif /* MCPD_INSTANCE_H */
