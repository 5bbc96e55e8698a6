/*
 * router_pending.c -- the requests a router forwarded, from the moment
 * they go upstream until their reply or until nobody waits for them (and
 * the server's at a client, router_down_new and router_down_free): a
 * client's ids in flight (a table of the pendings themselves), the spare
 * pendings kept for reuse, late replies recognised by id alone, each
 * outcome counted and logged, and the sweep timer that times them out
 * armed (its callback is router.c's).  It calls no other router file: the
 * peer is asked through the inline helpers of router_int.h.  The
 * invariants are router.c's: a pending is in r->pending, its
 * attachment's id table and in-flight list for exactly that time, and
 * nothing is kept after it.
 */
#include "config.h"

#include <sys/queue.h>
#include <sys/uio.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <cjson/cJSON.h>
#include <event2/event.h>

#include "audit.h"
#include "budget.h"
#include "clock.h"
#include "conf.h"
#include "envelope.h"
#include "hmap.h"
#include "idtab.h"
#include "log.h"
#include "mcpd.h"
#include "proto.h"
#include "router.h"
#include "router_int.h"
#include "tasktab.h"
#include "rpc.h"
#include "util.h"
#include "worker.h"
#include "xmalloc.h"


static void	router_record_log(struct router *, struct router_pending *,
		    enum router_outcome, const char *, uint64_t);

const char *router_outcome_names[ROUTER_OUTCOME_COUNT] = {
	"ok", "error", "timeout", "cancelled", "failed", "oversize"
};

/*
 * Pending requests.
 */

/*
 * A client's ids in flight.  Entries are the pendings, chained in the
 * bucket of their hash: adding one hashes its id once, taking one out
 * (its reply came) is an unlink.  The table doubles when it holds more
 * requests than buckets.  It halves on removal when it has more than
 * ROUTER_ID_BUCKETS_KEEP buckets and four times as many buckets as
 * requests: a pipeline that fills and drains with every batch does not
 * resize it each time.
 */
static void
router_ids_resize(struct attachment *a, size_t nbuckets)
{
	struct router_id_bucket	*old = a->ids;
	struct router_pending	*p;
	size_t			 i, oldn = old == NULL ? 0 : a->ids_mask + 1;

	a->ids = xcalloc(nbuckets, sizeof *a->ids);
	a->ids_mask = nbuckets - 1;
	for (i = 0; i < oldn; i++) {
		while ((p = LIST_FIRST(&old[i])) != NULL) {
			LIST_REMOVE(p, id_entry);
			LIST_INSERT_HEAD(&a->ids[p->id_hash & a->ids_mask], p,
			    id_entry);
		}
	}
	free(old);
}

uint64_t
router_id_hash(const struct attachment *a, const char *id, size_t id_len)
{
	return (hmap_key_hash(&a->ids_key, id, id_len));
}

struct router_pending *
router_find_id(const struct attachment *a, const char *id, size_t id_len)
{
	if (a->ninflight == 0)
		return (NULL);
	return (router_find_id_hash(a, id, id_len,
	    router_id_hash(a, id, id_len)));
}

struct router_pending *
router_find_id_hash(const struct attachment *a, const char *id,
    size_t id_len, uint64_t hash)
{
	struct router_pending	*p;

	if (a->ninflight == 0)
		return (NULL);
	LIST_FOREACH(p, &a->ids[hash & a->ids_mask], id_entry) {
		if (p->id_hash == hash && p->id_len == id_len &&
		    memcmp(p->id, id, id_len) == 0)
			return (p);
	}
	return (NULL);
}

/* p is counted in a->ninflight already; its id_hash is set. */
static void
router_ids_add(struct attachment *a, struct router_pending *p)
{
	if (a->ids == NULL)
		router_ids_resize(a, ROUTER_ID_BUCKETS_MIN);
	else if (a->ninflight > a->ids_mask + 1)
		router_ids_resize(a, (a->ids_mask + 1) * 2);
	LIST_INSERT_HEAD(&a->ids[p->id_hash & a->ids_mask], p, id_entry);
}

/* p is no longer counted in a->ninflight. */
static void
router_ids_remove(struct attachment *a, struct router_pending *p)
{
	LIST_REMOVE(p, id_entry);
	if (a->ids_mask + 1 > ROUTER_ID_BUCKETS_KEEP &&
	    a->ninflight * 4 < a->ids_mask + 1)
		router_ids_resize(a, (a->ids_mask + 1) / 2);
}

/*
 * Copy a short text (an id, a method name) as two overlapping fixed-size
 * moves instead of a call; longer ones through memcpy.
 */
static inline void
router_copy_short(char *dst, const char *src, size_t len)
{
	if (len >= 8 && len <= 16) {
		memcpy(dst, src, 8);
		memcpy(dst + len - 8, src + len - 8, 8);
	} else if (len >= 4 && len < 8) {
		memcpy(dst, src, 4);
		memcpy(dst + len - 4, src + len - 4, 4);
	} else if (len > 0 && len < 4) {
		dst[0] = src[0];
		dst[len / 2] = src[len / 2];
		dst[len - 1] = src[len - 1];
	} else if (len > 16)
		memcpy(dst, src, len);
}

struct router_pending *
router_pending_new(struct router *r, enum router_pending_kind kind,
    struct attachment *a, const char *id, size_t id_len, uint64_t id_hash,
    const char *method, size_t method_len)
{
	const struct conf_server *cs = r->up->conf(r->worker);
	struct router_pending	*p;
	uint64_t		 now_us = clock_now_us(), now = now_us / 1000;

	/*
	 * Recycled: no allocation per request in the steady state.  A spare
	 * is not cleared whole: every field is set below or on insertion,
	 * and router_pending_free left the owned pointers NULL.
	 */
	if ((p = r->spare) != NULL) {
		r->spare = p->next_spare;
		r->nspare--;
		p->id = NULL;
		p->id_len = 0;
	} else
		p = xcalloc(1, sizeof *p);
	p->kind = kind;
	p->att = a;
	p->upstream_id = r->up->next_upstream_id(r->worker);
	if (r->first_id == 0)
		r->first_id = p->upstream_id;
	r->last_id = p->upstream_id;
	/* Its text: the last one's counted up, as ids are consecutive. */
	if (r->up_len != 0 && r->up_value > 0 &&
	    (uint64_t)p->upstream_id - (uint64_t)r->up_value == 1)
		r->up_len = envelope_count_up(r->up_text, r->up_len);
	else
		r->up_len = envelope_print_int64(p->upstream_id, r->up_text);
	r->up_value = p->upstream_id;
	if (id != NULL) {
		p->id = id_len < sizeof p->id_inline ? p->id_inline :
		    xmalloc(id_len + 1);
		router_copy_short(p->id, id, id_len);
		p->id[id_len] = '\0';
		p->id_len = id_len;
		p->id_hash = id_hash;
	}
	if (method_len > sizeof p->method - 1)
		method_len = sizeof p->method - 1;
	router_copy_short(p->method, method, method_len);
	p->method[method_len] = '\0';
	p->started_us = now_us;
	p->task_op = ROUTER_TASK_NONE;
	p->long_wait = 0;
	p->deadline_ms = now + cs->request_timeout_ms;
	p->hard_deadline_ms = now + (uint64_t)cs->request_timeout_ms *
	    ROUTER_HARD_TIMEOUT_FACTOR;
	idtab_put(r->pending, p->upstream_id, p);
	TAILQ_INSERT_TAIL(&r->by_deadline, p, timer_entry);
	TAILQ_INSERT_TAIL(&r->by_start, p, start_entry);
	if (kind == ROUTER_PENDING_CLIENT) {
		r->active_ms = now;
		TAILQ_INSERT_TAIL(&a->inflight, p, att_entry);
		a->ninflight++;
		r->ninflight++;
		router_ids_add(a, p);
	}
	router_arm_sweep(r);
	return (p);
}

void
router_pending_long(struct router *r, struct router_pending *p,
    uint64_t deadline_ms)
{
	TAILQ_REMOVE(&r->by_deadline, p, timer_entry);
	TAILQ_REMOVE(&r->by_start, p, start_entry);
	TAILQ_INSERT_TAIL(&r->long_waits, p, start_entry);
	p->long_wait = 1;
	p->deadline_ms = p->hard_deadline_ms = deadline_ms;
}

/* Take a live pending off its client and its timers. */
static void
router_pending_unlink_live(struct router *r, struct router_pending *p)
{
	struct attachment	*a = p->att;

	if (p->long_wait)
		TAILQ_REMOVE(&r->long_waits, p, start_entry);
	else {
		TAILQ_REMOVE(&r->by_deadline, p, timer_entry);
		TAILQ_REMOVE(&r->by_start, p, start_entry);
	}
	p->att = NULL;
	if (p->kind == ROUTER_PENDING_CLIENT) {
		TAILQ_REMOVE(&a->inflight, p, att_entry);
		a->ninflight--;
		r->ninflight--;
		router_ids_remove(a, p);
		r->active_ms = clock_now_ms();
		router_check_idle(a);
	}
}

static void
router_pending_free(struct router *r, struct router_pending *p)
{
	if (p->id != p->id_inline)
		free(p->id);
	/* What router_pending_new does not set again; mostly unset. */
	if (p->token != NULL) {
		free(p->token);
		p->token = NULL;
		p->token_len = 0;
	}
	if (p->sub_uri != NULL) {
		free(p->sub_uri);
		p->sub_uri = NULL;
	}
	if (p->task_cursor != NULL) {
		free(p->task_cursor);
		p->task_cursor = NULL;
	}
	if (p->task_id != NULL) {
		free(p->task_id);
		p->task_id = NULL;
	}
	if (p->audit != NULL) {
		audit_call_free(p->audit);
		p->audit = NULL;
	}
	if (r->nspare < ROUTER_SPARE_PENDINGS) {
		p->next_spare = r->spare;
		r->spare = p;
		r->nspare++;
	} else
		free(p);
}

/* Done with a pending for good (reply delivered or nothing to wait for). */
void
router_pending_destroy(struct router *r, struct router_pending *p)
{
	router_pending_unlink_live(r, p);
	idtab_del(r->pending, p->upstream_id);
	router_pending_free(r, p);
}

/* A reply for an id this session issued and nobody waits for now. */
int
router_late_reply(const struct router *r, int64_t upstream_id)
{
	return (r->first_id != 0 && upstream_id >= r->first_id &&
	    upstream_id <= r->last_id);
}

void
router_record(struct router *r, struct router_pending *p,
    enum router_outcome outcome, const char *reason)
{
	uint64_t	 us = clock_now_us() - p->started_us;
	int		 bucket;

	r->outcomes[outcome]++;
	r->latency_sum_us += us;
	/* Bucket k holds durations in [2^k, 2^(k+1)) µs: floor(log2(us)). */
	bucket = us > 1 ? 63 - __builtin_clzll(us) : 0;
	if (bucket > ROUTER_LATENCY_BUCKETS - 1)
		bucket = ROUTER_LATENCY_BUCKETS - 1;
	r->latency[bucket]++;
	if (p->audit != NULL)
		router_audit_end(r, p, outcome, us);
	if (outcome == ROUTER_OUTCOME_OK && us < ROUTER_SLOW_US)
		return;
	router_record_log(r, p, outcome, reason, us);
}

/* The slow and the failed, to the journal. */
static void
router_record_log(struct router *r, struct router_pending *p,
    enum router_outcome outcome, const char *reason, uint64_t us)
{
	char		 duration[32], pidtext[32];
	struct log_field f[] = {
		{ MCPD_FIELD_SERVER, r->up->name(r->worker) },
		{ MCPD_FIELD_METHOD, p->method },
		{ MCPD_FIELD_DURATION_US, duration },
		{ MCPD_FIELD_CLIENT_PID, pidtext },
		{ MCPD_FIELD_REASON, reason },
	};

	snprintf(duration, sizeof duration, "%llu", (unsigned long long)us);
	snprintf(pidtext, sizeof pidtext, "%ld", p->att != NULL ?
	    (long)router_peer_pid(p->att) : 0L);
	log_event(outcome == ROUTER_OUTCOME_OK ||
	    outcome == ROUTER_OUTCOME_CANCELLED ? LOG_INFO : LOG_NOTICE,
	    MCPD_MID_REQUEST, f, nitems(f),
	    "%s: %s from pid %s: %s after %.1f ms%s%s", r->up->name(r->worker),
	    p->method, pidtext, router_outcome_names[outcome],
	    (double)us / 1000.0, reason != NULL ? ": " : "",
	    reason != NULL ? reason : "");
}

/*
 * Called for every request: whether the timer is armed is kept here, not
 * asked of libevent each time.
 */
void
router_arm_sweep(struct router *r)
{
	struct timeval	 tv = { 0, ROUTER_SWEEP_MS * 1000 };

	if (r->sweep_armed)
		return;
	if (TAILQ_EMPTY(&r->by_deadline) && TAILQ_EMPTY(&r->waiting) &&
	    r->nroots_waiting == 0 && r->nroots_asking == 0 &&
	    TAILQ_EMPTY(&r->long_waits) &&
	    (r->tasks == NULL || tasktab_count(r->tasks) == 0) &&
	    (r->ctasks == NULL || tasktab_count(r->ctasks) == 0))
		return;
	evtimer_add(r->ev_sweep, &tv);
	r->sweep_armed = 1;
}

/*
 * The server's requests at a client.
 */

struct router_down *
router_down_new(struct router *r, struct attachment *a, const char *id,
    size_t len)
{
	struct router_down	*d;

	d = xcalloc(1, sizeof *d);
	d->down_id = ++r->next_down_id;
	d->att = a;
	d->server_id = xstrndup(id, len);
	d->server_id_len = len;
	hmap_put_i64(r->downs, d->down_id, d);
	hmap_put(r->downs_by_server, d->server_id, d->server_id_len, d);
	TAILQ_INSERT_TAIL(&a->downs, d, att_entry);
	return (d);
}

void
router_down_free(struct router *r, struct router_down *d)
{
	hmap_del_i64(r->downs, d->down_id);
	hmap_del(r->downs_by_server, d->server_id, d->server_id_len);
	TAILQ_REMOVE(&d->att->downs, d, att_entry);
	free(d->server_id);
	free(d->ctask);
	free(d);
}
