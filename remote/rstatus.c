/*
 * rstatus.c -- the status channel from mcpd-remote to mcpd (rstatus.h).
 *
 * Lines are small and mcpd reads them as they come: a blocking write is
 * fine.  If mcpd has gone (EPIPE), the channel is dropped quietly: stdin
 * will close too.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <event2/event.h>

#include "esc.h"
#include "fdio.h"
#include "proto.h"
#include "remote.h"
#include "rstatus.h"
#include "sbuf.h"
#include "util.h"
#include "xmalloc.h"

/* Status codes counted one by one; others go in "other". */
#define RSTATUS_CODES	600

static int		 rstatus_fd = -1;
static struct event	*rstatus_timer;
static unsigned long	 rstatus_counts[RSTATUS_CODES];
static int		 rstatus_dirty;
static int		 rstatus_loud;

/* -v: an event as a line of the log, "session: state=established ...". */
static void
rstatus_say(const cJSON *obj)
{
	const cJSON	*item;
	const char	*event;
	char		*v;
	struct sbuf	 b;

	event = cJSON_GetStringValue(cJSON_GetObjectItem(obj, "event"));
	sbuf_init(&b, 128);
	for (item = obj->child; item != NULL; item = item->next) {
		if (strcmp(item->string, "v") == 0 ||
		    strcmp(item->string, "event") == 0)
			continue;
		if (cJSON_IsString(item))
			v = esc_text(item->valuestring,
			    strlen(item->valuestring), 0);
		else
			v = cJSON_PrintUnformatted(item);
		if (v == NULL)
			continue;
		if (strcmp(item->string, event) == 0)
			sbuf_printf(&b, " %s", v);	/* "transport: http" */
		else
			sbuf_printf(&b, " %s=%s", item->string, v);
		free(v);
	}
	remote_log("%s:%s", event, b.p);
	free(b.p);
}

/* The event to mcpd, if it listens. */
static void
rstatus_write(cJSON *obj)
{
	char	*text;
	size_t	 len;

	if (rstatus_fd == -1) {
		cJSON_Delete(obj);
		return;
	}
	text = cJSON_PrintUnformatted(obj);
	cJSON_Delete(obj);
	if (text == NULL)
		return;
	len = strlen(text);
	text[len++] = '\n';	/* over the NUL: never printed as a string */
	if (fdio_write_all(rstatus_fd, text, len) == -1) {
		close(rstatus_fd);
		rstatus_fd = -1;
	}
	free(text);
}

static void
rstatus_send(cJSON *obj)
{
	if (rstatus_loud)
		rstatus_say(obj);
	rstatus_write(obj);
}

void
rstatus_verbose(void)
{
	rstatus_loud = 1;
}

static cJSON *
rstatus_new(const char *event)
{
	cJSON	*obj;

	obj = cJSON_CreateObject();
	cJSON_AddNumberToObject(obj, "v", MCPD_STATUS_VERSION);
	cJSON_AddStringToObject(obj, "event", event);
	return (obj);
}

static void
rstatus_flush_counts(evutil_socket_t fd, short what, void *arg)
{
	cJSON	*obj, *counts;
	char	 key[16];
	size_t	 i;

	if (!rstatus_dirty)
		return;
	rstatus_dirty = 0;
	obj = rstatus_new("http_counts");
	counts = cJSON_AddObjectToObject(obj, "counts");
	for (i = 0; i < RSTATUS_CODES; i++) {
		if (rstatus_counts[i] == 0)
			continue;
		snprintf(key, sizeof key, "%zu", i);
		cJSON_AddNumberToObject(counts, key,
		    (double)rstatus_counts[i]);
	}
	rstatus_write(obj);
}

void
rstatus_open(struct event_base *base, int fd)
{
	rstatus_fd = fd;
	if (fd != -1)
		rstatus_timer = evtimer_new(base, rstatus_flush_counts, NULL);
}

void
rstatus_close(void)
{
	rstatus_flush_counts(-1, 0, NULL);
	if (rstatus_timer != NULL)
		event_free(rstatus_timer);
	rstatus_timer = NULL;
	if (rstatus_fd != -1)
		close(rstatus_fd);
	rstatus_fd = -1;
}

void
rstatus_transport(const char *name)
{
	cJSON	*obj = rstatus_new("transport");

	cJSON_AddStringToObject(obj, "transport", name);
	rstatus_send(obj);
}

void
rstatus_session(const char *state, const char *protocol)
{
	cJSON	*obj = rstatus_new("session");

	cJSON_AddStringToObject(obj, "state", state);
	if (protocol != NULL)
		cJSON_AddStringToObject(obj, "protocol", protocol);
	rstatus_send(obj);
}

void
rstatus_resume(const char *stream)
{
	cJSON	*obj = rstatus_new("resume");

	cJSON_AddStringToObject(obj, "stream", stream);
	rstatus_send(obj);
}

void
rstatus_http(long status, const char *method)
{
	struct timeval	 tv = { 1, 0 };
	cJSON		*obj;

	if (rstatus_loud)
		remote_log("http: %s %ld", method, status);
	if (rstatus_fd == -1)
		return;
	if (status > 0 && status < RSTATUS_CODES) {
		rstatus_counts[status]++;
		if (!rstatus_dirty)
			evtimer_add(rstatus_timer, &tv);
		rstatus_dirty = 1;
	}
	if (status >= 200 && status < 300)
		return;
	obj = rstatus_new("http");
	cJSON_AddNumberToObject(obj, "status", status);
	cJSON_AddStringToObject(obj, "method", method);
	rstatus_write(obj);
}

void
rstatus_auth(const char *state, const char *reason, time_t expires)
{
	cJSON	*obj = rstatus_new("auth");

	cJSON_AddStringToObject(obj, "state", state);
	if (reason != NULL)
		cJSON_AddStringToObject(obj, "reason", reason);
	if (expires != 0)
		cJSON_AddNumberToObject(obj, "expires", (double)expires);
	rstatus_send(obj);
}

void
rstatus_signed_in(time_t expires, int refresh)
{
	cJSON	*obj = rstatus_new("auth");

	cJSON_AddStringToObject(obj, "state", "ok");
	if (expires != 0)
		cJSON_AddNumberToObject(obj, "expires", (double)expires);
	cJSON_AddBoolToObject(obj, "signed_in", 1);
	cJSON_AddBoolToObject(obj, "refresh", refresh);
	rstatus_send(obj);
}

void
rstatus_step_up(const char *scope, const char *reason)
{
	cJSON	*obj = rstatus_new("auth");

	cJSON_AddStringToObject(obj, "state", "step-up");
	cJSON_AddStringToObject(obj, "scope", scope);
	cJSON_AddStringToObject(obj, "reason", reason);
	rstatus_send(obj);
}

void
rstatus_emit(const char *event, cJSON *members)
{
	cJSON	*obj = rstatus_new(event), *item;

	while (members != NULL && (item = members->child) != NULL) {
		cJSON_DetachItemViaPointer(members, item);
		cJSON_AddItemToObject(obj, item->string, item);
	}
	cJSON_Delete(members);
	rstatus_send(obj);
}
