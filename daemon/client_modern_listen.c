/*
 * client_modern_listen.c -- a 2026 client's subscriptions/listen streams
 * (see client_modern.c for the rules): fed from the session's
 * list_changed and resources/updated, each stream what it asked for,
 * stamped with its id.
 */
#include "config.h"

#include <sys/queue.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <cjson/cJSON.h>

#include "client_modern.h"
#include "client_modern_int.h"
#include "clock.h"
#include "conf.h"
#include "envelope.h"
#include "hmap.h"
#include "log.h"
#include "mcpd.h"
#include "mlevel.h"
#include "modern.h"
#include "proto.h"
#include "rstate.h"
#include "util.h"
#include "xmalloc.h"

struct modern_listen *
modern_listen_find(struct modern *m, const char *id, size_t id_len)
{
	struct modern_listen	*l;

	TAILQ_FOREACH(l, &m->listens, entry) {
		if (l->id_len == id_len && memcmp(l->id, id, id_len) == 0)
			return (l);
	}
	return (NULL);
}

/* Does another stream than skip want uri? */
static int
modern_uri_wanted(struct modern *m, const struct modern_listen *skip,
    const char *uri)
{
	struct modern_listen	*l;

	TAILQ_FOREACH(l, &m->listens, entry) {
		if (l != skip && modern_filter_has(&l->f, uri))
			return (1);
	}
	return (0);
}

/* The stream's acknowledgment, with what it holds. */
static void
modern_listen_ack_send(struct modern *m, const struct modern_listen *l)
{
	char	*ack;

	ack = modern_listen_ack(l->id, l->id_len, &l->f);
	modern_send(m, ack, strlen(ack));
	free(ack);
}

void
modern_listen_open(struct modern *m, const char *line,
    const struct envelope *env)
{
	const char		*id = line + env->id.off;
	struct modern_listen	*l;
	cJSON			*params, *p;
	const char		*why;
	struct modern_meta	 mm;
	size_t			 i;

	if (modern_listen_find(m, id, env->id.len) != NULL ||
	    hmap_get(m->reqs, id, env->id.len) != NULL) {
		modern_error(m, id, env->id.len, RPC_INVALID_REQUEST,
		    "invalid request: id %.*s is already in use by a request "
		    "of this connection in flight", (int)env->id.len, id);
		return;
	}
	if (m->nlistens >= MODERN_MAX_LISTENS) {
		modern_error(m, id, env->id.len, RPC_INVALID_REQUEST,
		    "invalid request: this connection has %d listen streams "
		    "open, the most mcpd keeps", MODERN_MAX_LISTENS);
		return;
	}
	params = env->params.type == ENVELOPE_OBJECT ?
	    cJSON_ParseWithLength(line + env->params.off, env->params.len) :
	    NULL;
	l = xcalloc(1, sizeof *l);
	if (modern_filter_read(params, m->init, &l->f, &why) != 0) {
		cJSON_Delete(params);
		free(l);
		modern_error(m, id, env->id.len, RPC_INVALID_PARAMS,
		    "invalid params: %s", why);
		return;
	}
	cJSON_Delete(params);
	if (l->f.ntasks > 0 && (modern_meta_read(line, env, &mm, NULL,
	    NULL) != 0 || !(mm.can & MODERN_CAN_TASKS))) {
		modern_filter_clear(&l->f);
		free(l);
		modern_tasks_refuse(m, id, env->id.len,
		    "a listen stream naming taskIds");
		return;
	}
	l->id = modern_dup(id, env->id.len);
	l->id_len = env->id.len;
	for (i = 0; i < l->f.nuris; i++) {
		if (modern_uri_wanted(m, NULL, l->f.uris[i]))
			continue;
		p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "uri", l->f.uris[i]);
		if (l->subs == NULL)
			l->subs = xreallocarray(NULL, l->f.nuris,
			    sizeof *l->subs);
		l->subs[l->nsubs++] = modern_internal(m,
		    "resources/subscribe", p);
	}
	TAILQ_INSERT_TAIL(&m->listens, l, entry);
	m->nlistens++;
	modern_account(m, NULL, (ssize_t)(sizeof *l + l->id_len));
	if (l->nsubs == 0)
		modern_listen_ack_send(m, l);
}

/*
 * An answer of the session's to an internal request: a listen's
 * subscription, the last of which lets it be acknowledged.  1 if it was
 * one (answered, or an error: the stream is acknowledged all the same,
 * as a server of 2025 that cannot subscribe sends no updates).
 */
int
modern_listen_internal(struct modern *m, const char *line,
    const struct envelope *env)
{
	struct modern_listen	*l;
	char			 idtext[64];
	unsigned long long	 n;
	size_t			 i;

	if (envelope_string_copy(line, &env->id, idtext, sizeof idtext) < 0 ||
	    sscanf(idtext, "mcpd-modern:%llu", &n) != 1)
		return (0);
	TAILQ_FOREACH(l, &m->listens, entry) {
		for (i = 0; i < l->nsubs && l->subs[i] != n; i++)
			;
		if (i == l->nsubs)
			continue;
		l->subs[i] = l->subs[--l->nsubs];
		if (l->nsubs == 0)
			modern_listen_ack_send(m, l);
		return (1);
	}
	return (0);
}

void
modern_listen_close(struct modern *m, struct modern_listen *l, int unsub)
{
	cJSON	*p;
	size_t	 i;

	TAILQ_REMOVE(&m->listens, l, entry);
	m->nlistens--;
	for (i = 0; unsub && i < l->f.nuris; i++) {
		if (modern_uri_wanted(m, NULL, l->f.uris[i]))
			continue;
		p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "uri", l->f.uris[i]);
		modern_internal(m, "resources/unsubscribe", p);
	}
	modern_account(m, NULL, -(ssize_t)(sizeof *l + l->id_len));
	modern_filter_clear(&l->f);
	free(l->subs);
	free(l->id);
	free(l);
}

/* A notification of the session's for the streams that asked. */
void
modern_listen_notify(struct modern *m, const char *line,
    const struct envelope *env, const char *method)
{
	struct modern_listen	*l;
	unsigned int		 kind;
	char			*uri = NULL, *note;

	kind = modern_listen_kind(method);
	if (kind == 0) {
		uri = envelope_string_dup(line, &env->p_uri,
		    MODERN_LISTEN_URI_MAX, NULL);
		if (uri == NULL)
			return;
	}
	TAILQ_FOREACH(l, &m->listens, entry) {
		if (kind != 0 ? (l->f.kinds & kind) == 0 :
		    !modern_filter_has(&l->f, uri))
			continue;
		note = modern_listen_note(l->id, l->id_len, method, uri);
		modern_send(m, note, strlen(note));
		free(note);
	}
	free(uri);
}

