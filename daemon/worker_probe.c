/*
 * worker_probe.c -- which era of MCP a stdio server speaks, found in
 * place (probe.h has the rules).  This file sends the probe, decides on
 * its answer and keeps the verdict; worker_session.c sends initialize
 * when that is due and owns the probe's timer callback, and worker.c
 * starts a probe-intolerant server again, so that nothing here calls
 * back up into them.
 *
 * With "protocol": "auto" the first message to a new process is
 * server/discover (worker_modern_discover: the same message a server of
 * 2026-07-28 is asked anyway), unless the configuration's verdict is
 * known to be 2025:
 * - a discover result offering 2026-07-28 is the session
 *   (worker_session.c's worker_modern_discovered);
 * - any other answer, or none within PROBE_TIMEOUT_MS (or half the
 *   start's limit, when that is shorter), and initialize follows in the
 *   same process, with the start's whole limit of its own; an answer
 *   that comes after initialize was sent is dropped here;
 * - a process that ends (or closes a pipe) while the probe is out is a
 *   2025 server that cannot take it: logged at notice as that, started
 *   once more at once with initialize first, neither a failure for the
 *   backoff nor a restart in the count.  If that one ends too, it is an
 *   ordinary crash.
 * The verdict is kept in mcpd->probe_cache by the key of the server's
 * configuration, for every later start of it (restarts, instances,
 * another server configured alike) and across a re-exec (reexec.c hands
 * it over): a 2025 verdict starts with initialize, a 2026 one with
 * discover, and when that stops working (initialize refused naming
 * 2026-07-28, or discover failing) the other era is tried in the same
 * process and the verdict replaced.  A reload that changes the command,
 * arguments, environment or directory makes another key.
 */
#include "config.h"

#include <sys/time.h>
#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "handover.h"
#include "log.h"
#include "mcpd.h"
#include "probe.h"
#include "proto.h"
#include "util.h"
#include "worker.h"
#include "worker_int.h"
#include "xmalloc.h"

static int
worker_probe_cached(const struct worker *w)
{
	return (w->conf->protocol == CONF_PROTOCOL_AUTO &&
	    w->conf->url == NULL);
}

static void	worker_probe_settle(struct worker *,
		    const struct probe_verdict *);

static void
worker_probe_keep(struct worker *w, const struct probe_verdict *v)
{
	uint8_t	 key[PROBE_KEY_BYTES];

	if (!worker_probe_cached(w))
		return;
	if (w->mcpd->probe_cache == NULL)
		w->mcpd->probe_cache = probe_cache_new(PROBE_CACHE_MAX);
	probe_key(w->conf, key);
	probe_cache_put(w->mcpd->probe_cache, key, v);
}

int
worker_probe_silent(struct worker *w)
{
	struct probe_verdict	 v;

	if (!w->probing || w->state != WORKER_INITIALIZING)
		return (0);
	(void)probe_next(PROBE_ANSWER_SILENT, &v);
	log_info("%s: no answer to server/discover within %u ms: a server "
	    "of MCP 2025; initialize follows", w->name, w->probe_ms);
	/* Its answer, if one comes, is not the session's. */
	w->probe_late_id = w->init_id;
	worker_probe_settle(w, &v);
	return (1);
}

int
worker_probe_begin(struct worker *w)
{
	struct probe_verdict	 cached = { PROBE_ERA_NONE, PROBE_HOW_NONE };
	uint8_t			 key[PROBE_KEY_BYTES];
	struct timeval		 tv;
	int			 have = 0, retry = w->probe_retry;

	evtimer_del(w->ev_probe);
	w->probing = 0;
	w->probe_broke = 0;
	w->probe_late_id = 0;
	w->probe_retry = 0;
	w->era_cached = 0;
	if (worker_probe_cached(w) && w->mcpd->probe_cache != NULL) {
		probe_key(w->conf, key);
		have = probe_cache_get(w->mcpd->probe_cache, key,
		    &cached) == 0;
	}
	switch (probe_first(w->conf->protocol, w->conf->url != NULL,
	    have ? &cached : NULL)) {
	case PROBE_FIRST_INITIALIZE:
		if (have) {
			w->era = cached;
			w->era_cached = !retry;
		} else {
			w->era.era = PROBE_ERA_2025;
			w->era.how = PROBE_HOW_CONFIGURED;
		}
		return (0);
	case PROBE_FIRST_DISCOVER:
		w->era.era = PROBE_ERA_2026;
		w->era.how = PROBE_HOW_CONFIGURED;
		worker_modern_discover(w);
		return (1);
	case PROBE_FIRST_PROBE:
		break;
	}
	w->era = cached;
	w->era_cached = have;
	worker_modern_discover(w);
	w->probing = 1;
	w->probe_ms = PROBE_TIMEOUT_MS;
	if (w->start_limit_ms / 2 < w->probe_ms)
		w->probe_ms = w->start_limit_ms / 2;
	tv.tv_sec = w->probe_ms / 1000;
	tv.tv_usec = (w->probe_ms % 1000) * 1000;
	evtimer_add(w->ev_probe, &tv);
	return (1);
}

/* The probe is over, with a 2025 verdict: initialize is due. */
static void
worker_probe_settle(struct worker *w, const struct probe_verdict *v)
{
	w->probing = 0;
	evtimer_del(w->ev_probe);
	w->era = *v;
	w->era_cached = 0;
	worker_probe_keep(w, v);
}

int
worker_probe_response(struct worker *w, const cJSON *msg)
{
	struct probe_verdict	 v;
	const cJSON		*error, *code;

	if (!w->probing)
		return (0);
	w->probing = 0;
	evtimer_del(w->ev_probe);
	if (probe_next(probe_classify(msg), &v) == PROBE_NEXT_SESSION_2026) {
		if (!w->era_cached)
			w->era = v;
		return (0);	/* worker_modern_discovered's */
	}
	error = cJSON_GetObjectItemCaseSensitive(msg, "error");
	code = cJSON_GetObjectItemCaseSensitive(error, "code");
	if (cJSON_IsNumber(code))
		log_info("%s: server/discover answered with error %d: a "
		    "server of MCP 2025; initialize follows", w->name,
		    code->valueint);
	else
		log_info("%s: server/discover answered without MCP %s: a "
		    "server of MCP 2025; initialize follows", w->name,
		    probe_era_name(PROBE_ERA_2026));
	worker_probe_settle(w, &v);
	return (1);
}

int
worker_probe_stale(struct worker *w, int64_t id)
{
	if (w->probe_late_id == 0 || id != w->probe_late_id)
		return (0);
	w->probe_late_id = 0;
	return (1);
}

void
worker_probe_broke(struct worker *w)
{
	if (w->probing)
		w->probe_broke = 1;
}

int
worker_probe_ended(struct worker *w)
{
	struct probe_verdict	 v;
	int			 ended;

	evtimer_del(w->ev_probe);
	ended = w->probing && w->after == WORKER_AFTER_FAILURE &&
	    !w->mcpd->shutting_down &&
	    (w->fail_reason == NULL || w->probe_broke);
	w->probing = 0;
	w->probe_broke = 0;
	w->probe_late_id = 0;
	if (!ended)
		return (0);
	(void)probe_next(PROBE_ANSWER_ENDED, &v);
	w->era = v;
	w->era_cached = 0;
	worker_probe_keep(w, &v);
	return (1);
}

void
worker_probe_ready(struct worker *w, int modern)
{
	if (modern && w->era.era != PROBE_ERA_2026) {
		/* A 2025 verdict whose initialize was refused for 2026. */
		w->era.era = PROBE_ERA_2026;
		w->era.how = PROBE_HOW_INIT_REFUSED;
		w->era_cached = 0;
	} else if (!modern && w->era.era != PROBE_ERA_2025) {
		w->era.era = PROBE_ERA_2025;
		w->era.how = PROBE_HOW_REFUSED;
		w->era_cached = 0;
	}
	worker_probe_keep(w, &w->era);
}

const char *
worker_probe_found(const struct worker *w)
{
	const char	*how;

	if (w->era.era == PROBE_ERA_NONE)
		return (NULL);
	how = w->era_cached ? "cached" : probe_how_name(w->era.how);
	return (how != NULL ? how : "unknown");
}

void
worker_probe_json(const struct worker *w, cJSON *o)
{
	const cJSON	*v;
	const char	*era = probe_era_name(w->era.era), *found;

	found = worker_probe_found(w);
	/* Taken over from a re-exec: its era is its session's. */
	if (era == NULL && (v = cJSON_GetObjectItemCaseSensitive(
	    w->init_result, "protocolVersion")) != NULL &&
	    cJSON_IsString(v))
		era = probe_era_name(strcmp(v->valuestring,
		    probe_era_name(PROBE_ERA_2026)) == 0 ? PROBE_ERA_2026 :
		    PROBE_ERA_2025);
	if (era != NULL)
		cJSON_AddStringToObject(o, "era", era);
	else
		cJSON_AddNullToObject(o, "era");
	if (found != NULL)
		cJSON_AddStringToObject(o, "era_found", found);
	else
		cJSON_AddNullToObject(o, "era_found");
}

/*
 * The cache, for mcpd: freed at exit, handed across a re-exec.
 */

void
worker_probe_free_all(struct mcpd *mcpd)
{
	probe_cache_free(mcpd->probe_cache);
	mcpd->probe_cache = NULL;
}

void
worker_probe_export(struct mcpd *mcpd, struct handover *h)
{
	struct probe_verdict	 v;
	uint8_t			 key[PROBE_KEY_BYTES];
	char			 hex[PROBE_KEY_HEX + 1];
	size_t			 i;

	for (i = 0; i < probe_cache_count(mcpd->probe_cache); i++) {
		probe_cache_at(mcpd->probe_cache, i, key, &v);
		probe_key_hex(key, hex);
		handover_add_era(h, hex, probe_era_name(v.era),
		    probe_how_name(v.how));
	}
}

void
worker_probe_adopt(struct mcpd *mcpd, const struct handover *h)
{
	struct probe_verdict	 v;
	uint8_t			 key[PROBE_KEY_BYTES];
	size_t			 i;

	for (i = 0; i < h->neras; i++) {
		if (probe_key_parse(h->eras[i].key, key) != 0)
			continue;
		v.era = strcmp(h->eras[i].era, probe_era_name(
		    PROBE_ERA_2026)) == 0 ? PROBE_ERA_2026 : PROBE_ERA_2025;
		v.how = probe_how_parse(h->eras[i].how);
		if (mcpd->probe_cache == NULL)
			mcpd->probe_cache = probe_cache_new(PROBE_CACHE_MAX);
		probe_cache_put(mcpd->probe_cache, key, &v);
	}
}
