/*
 * router_roots.c -- a client's roots, for a server that is not shared
 * globally ("share", instance.c): asked of the client once it is
 * initialized and again when it says they changed, under ids of mcpd's
 * own ("mcpd-roots-N"), and handed to instance.c, which decides which
 * instance serves the client; the server's roots/list answered with its
 * instance's roots, or held until they are known.
 *
 * Promises:
 * - A client without the roots capability, one whose answer is not a
 *   valid roots list, and one that does not answer within the server's
 *   init_timeout_ms are given the configured roots; none is left
 *   waiting.
 * - A server's roots/list is answered exactly once: with its roots when
 *   they are known, with the configured ones when they are not within
 *   init_timeout_ms, and at most ROUTER_ROOTS_WAITING_MAX are held.
 * - Servers shared globally see today's behaviour: the configured roots,
 *   and the clients' roots notifications are not passed on.
 * - A client that is not an administrator (mcpd's user or root) never
 *   widens what a server reaches: of its roots only those that are one
 *   of the configured roots or lie within the server's member_roots are
 *   kept (roots_narrow, by path); if that leaves none of the roots it
 *   gave, it is given the configured roots.
 */
#include "config.h"

#include <sys/queue.h>
#include <sys/uio.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "clock.h"
#include "conf.h"
#include "envelope.h"
#include "esc.h"
#include "log.h"
#include "proto.h"
#include "roots.h"
#include "router.h"
#include "router_int.h"
#include "rpc.h"
#include "worker.h"
#include "xmalloc.h"

#define ROUTER_ROOTS_ID_PREFIX		"mcpd-roots-"
#define ROUTER_ROOTS_WAITING_MAX	16

/* Numbers mcpd's requests to clients, across every router. */
static uint64_t	router_roots_serial;

static int
router_roots_wanted(const struct router *r)
{
	return (r->up->conf(r->worker)->share != CONF_SHARE_GLOBAL);
}

/* The client's roots are the configured ones. */
static void
router_roots_configured(struct attachment *a)
{
	const struct conf_server *cs = a->router->up->conf(a->router->worker);
	struct roots		 roots;

	roots_from_uris(&roots, cs->roots, cs->nroots);
	a->router->up->client_roots(a, &roots);
	roots_free(&roots);
}

void
router_roots_initialize(struct attachment *a)
{
	if (!router_roots_wanted(a->router) || a->peer->link)
		return;
	if (!a->cap_roots) {
		router_roots_configured(a);
		return;
	}
	/* Which instance serves it depends on them: its requests wait. */
	if (a->router->up->conf(a->router->worker)->share ==
	    CONF_SHARE_PER_ROOTS)
		a->roots_pending = 1;
}

void
router_roots_ask(struct attachment *a)
{
	struct router	*r = a->router;
	char		 text[128];
	int		 n;

	if (!router_roots_wanted(r) || !a->cap_roots || a->peer->link ||
	    a->refused != NULL)
		return;
	if (a->roots_ask == 0)
		r->nroots_asking++;
	a->roots_ask = ++router_roots_serial;
	a->roots_deadline_ms = clock_now_ms() +
	    r->up->conf(r->worker)->init_timeout_ms;
	n = snprintf(text, sizeof text, "{\"jsonrpc\":\"2.0\",\"id\":\"%s%"
	    PRIu64 "\",\"method\":\"roots/list\"}", ROUTER_ROOTS_ID_PREFIX,
	    a->roots_ask);
	router_peer_queue(a, &(struct iovec){ text, (size_t)n }, 1);
	router_arm_sweep(r);
}

void
router_roots_forget(struct attachment *a)
{
	if (a->roots_ask != 0) {
		a->roots_ask = 0;
		a->router->nroots_asking--;
	}
}

/* One warning a second of a server's clients' roots. */
static const struct ratelim_policy router_roots_warn_rate = { 1, 1 };

void
router_roots_init(struct router *r)
{
	ratelim_init(&r->roots_warn, &router_roots_warn_rate, clock_now_ms());
}

/*
 * A warning a client's answer caused (why: its own text, escaped here):
 * rate limited per server, so that a client that changes its roots in a
 * loop cannot flood the log nor silence another server's; the next one
 * logged counts those left out.
 */
static void	router_roots_log(struct attachment *, const char *,
		    const char *, ...) __attribute__((format(printf, 3, 4)));

static void
router_roots_log(struct attachment *a, const char *why, const char *fmt, ...)
{
	struct router	*r = a->router;
	uint64_t	 unlogged;
	va_list		 ap;
	char		*what, *safe;

	if (!ratelim_allow(&r->roots_warn, &router_roots_warn_rate,
	    clock_now_ms()))
		return;
	unlogged = ratelim_take_suppressed(&r->roots_warn);
	va_start(ap, fmt);
	xvasprintf(&what, fmt, ap);
	va_end(ap);
	safe = esc_text(why, strlen(why), 0);
	if (unlogged > 0)
		log_warnx("%s: %s: %s (and %" PRIu64 " such warnings about "
		    "clients' roots not logged before it)",
		    r->up->name(r->worker), what, safe, unlogged);
	else
		log_warnx("%s: %s: %s", r->up->name(r->worker), what, safe);
	free(safe);
	free(what);
}

static void
router_roots_warn(struct attachment *a, const char *why)
{
	router_roots_log(a, why, "the roots of the client of pid %ld are "
	    "given the configured roots", (long)router_peer_pid(a));
}

/*
 * The roots a client answered with, kept as they are for an administrator
 * and narrowed for anyone else (see the top of the file).
 */
static void
router_roots_take(struct attachment *a, const struct roots *roots)
{
	const struct conf_server *cs = a->router->up->conf(a->router->worker);
	struct roots		 kept;
	char			*refused;
	size_t			 n;

	if (a->peer->is_admin != NULL && a->peer->is_admin(a->peer_arg)) {
		a->router->up->client_roots(a, roots);
		return;
	}
	n = roots_narrow(&kept, roots, cs->roots, cs->nroots,
	    cs->member_roots, cs->nmember_roots, &refused);
	if (n > 0)
		router_roots_log(a, refused, "%zu of the %zu roots of the "
		    "client of pid %ld (uid %lu) refused, as it is not an "
		    "administrator; the first", n, roots->n,
		    (long)router_peer_pid(a),
		    (unsigned long)router_attachment_uid(a));
	if (n > 0 && kept.n == 0)
		router_roots_configured(a);
	else
		a->router->up->client_roots(a, &kept);
	roots_free(&kept);
	free(refused);
}

int
router_roots_reply(struct attachment *a, const char *line,
    const struct envelope *env)
{
	char		 id[48], *end, *err = NULL;
	uint64_t	 n;
	struct roots	 roots;

	if (env->id.type != ENVELOPE_STRING ||
	    envelope_string_copy(line, &env->id, id, sizeof id) < 0 ||
	    strncmp(id, ROUTER_ROOTS_ID_PREFIX,
	    strlen(ROUTER_ROOTS_ID_PREFIX)) != 0)
		return (0);
	n = strtoull(id + strlen(ROUTER_ROOTS_ID_PREFIX), &end, 10);
	if (*end != '\0' || n == 0 || n != a->roots_ask)
		return (1);	/* an answer to an earlier question */
	router_roots_forget(a);
	if (env->error.type != ENVELOPE_ABSENT)
		err = xstrdup("it answered roots/list with an error");
	else if (env->result.type != ENVELOPE_OBJECT)
		err = xstrdup("its roots/list result is not an object");
	else if (env->result.len > RPC_PARSE_MAX_BYTES)
		xasprintf(&err, "its roots/list result has %zu bytes",
		    env->result.len);
	else if (roots_from_result(&roots, router_text(line, &env->result),
	    env->result.len, &err) == 0) {
		router_roots_take(a, &roots);
		roots_free(&roots);
		return (1);
	}
	router_roots_warn(a, err);
	free(err);
	router_roots_configured(a);
	return (1);
}

/* Answer every held roots/list of the server with these roots. */
static void
router_roots_answer_held(struct router *r, const struct roots *roots)
{
	size_t	 i;

	for (i = 0; i < r->nroots_waiting; i++) {
		router_server_reply(r, r->roots_waiting[i],
		    strlen(r->roots_waiting[i]), cJSON_Parse(roots->result),
		    0, NULL);
		free(r->roots_waiting[i]);
	}
	r->nroots_waiting = 0;
	r->roots_answered = 1;
}

static void
router_roots_answer_configured(struct router *r)
{
	const struct conf_server *cs = r->up->conf(r->worker);
	struct roots		 roots;

	roots_from_uris(&roots, cs->roots, cs->nroots);
	router_roots_answer_held(r, &roots);
	roots_free(&roots);
}

void
router_roots_server_request(struct router *r, const char *id, size_t id_len)
{
	const struct roots	*roots = r->up->roots(r->worker);

	if (roots != NULL) {
		router_server_reply(r, id, id_len, cJSON_Parse(roots->result),
		    0, NULL);
		r->roots_answered = 1;
		return;
	}
	if (r->nroots_waiting >= ROUTER_ROOTS_WAITING_MAX) {
		r->up->violation(r->worker, "flood", "more than %d roots/list "
		    "requests waiting for the client's roots",
		    ROUTER_ROOTS_WAITING_MAX);
		router_server_reply(r, id, id_len, NULL, RPC_INTERNAL_ERROR,
		    "too many roots/list requests at once");
		return;
	}
	if (r->nroots_waiting == 0) {
		r->roots_waiting = xreallocarray(r->roots_waiting,
		    ROUTER_ROOTS_WAITING_MAX, sizeof *r->roots_waiting);
		r->roots_wait_deadline_ms = clock_now_ms() +
		    r->up->conf(r->worker)->init_timeout_ms;
	}
	r->roots_waiting[r->nroots_waiting++] = xstrndup(id, id_len);
	router_arm_sweep(r);
}

/*
 * The instance's roots are known or changed (worker_set_roots): what
 * waited for them is answered; a server that was answered before is
 * told they changed, and asks again.
 */
void
router_roots_known(struct router *r)
{
	static const char	 changed[] = "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/roots/list_changed\"}";
	const struct roots	*roots = r->up->roots(r->worker);
	int			 told = r->roots_answered;

	if (roots == NULL)
		return;
	if (r->nroots_waiting > 0) {
		router_roots_answer_held(r, roots);
		return;
	}
	if (told && r->up->availability(r->worker) == WORKER_AVAIL_READY)
		router_send_server(r, changed, sizeof changed - 1, NULL, 0);
}

void
router_roots_sweep(struct router *r, uint64_t now)
{
	struct attachment	*a, *next;

	if (r->nroots_waiting > 0 && r->roots_wait_deadline_ms <= now) {
		log_warnx("%s: no client roots within %u ms (init_timeout_ms); "
		    "its roots/list is answered with the configured roots",
		    r->up->name(r->worker),
		    r->up->conf(r->worker)->init_timeout_ms);
		router_roots_answer_configured(r);
	}
	if (r->nroots_asking > 0) {
		TAILQ_FOREACH_SAFE(a, &r->atts, entry, next) {
			if (a->roots_ask == 0 || a->roots_deadline_ms > now)
				continue;
			router_roots_forget(a);
			router_roots_warn(a, "it did not answer roots/list");
			router_roots_configured(a);
		}
	}
}

void
router_roots_free(struct router *r)
{
	size_t	 i;

	for (i = 0; i < r->nroots_waiting; i++)
		free(r->roots_waiting[i]);
	free(r->roots_waiting);
	r->roots_waiting = NULL;
	r->nroots_waiting = 0;
}
