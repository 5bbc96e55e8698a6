/*
 * rmodern.c -- the session's side of a remote of MCP 2026-07-28.
 *
 * mcpd speaks to mcpd-remote as to any server on stdio; to a server of
 * 2026-07-28 its every request carries the protocol version in
 * params._meta.  Such a request is one of 2026 here, whatever came
 * before: it is given its request metadata headers as it arrives
 * (MCP-Protocol-Version from its _meta, Mcp-Method, Mcp-Name for the
 * methods that name something; mcphdr.h), and it goes without the 2025
 * session (no Mcp-Session-Id, no resumption: streamable.c).
 *
 * The remote is of 2026 once such a request was answered with a result
 * (server/discover, mcpd's first): from then on what 2026 has not is not
 * sent -- notifications (a cancellation is the request's stream closed,
 * which session_cancel does) and responses (2026 servers send no
 * requests) -- and an unreachable remote is waited for as an established
 * session is.  Until then the remote's era is unknown, and an initialize
 * answered 4xx with a refusal of 2026 goes to mcpd as the -32022 a stdio
 * server of 2026 answers (streamable.c, mcphdr_error), so that mcpd asks
 * server/discover next.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "envelope.h"
#include "mcphdr.h"
#include "modern.h"
#include "remote.h"
#include "rmodern.h"
#include "rparam.h"
#include "rstatus.h"
#include "session_int.h"
#include "xmalloc.h"

/* The longest name or uri put in Mcp-Name (before its encoding). */
#define RMODERN_NAME_MAX	65536

/* The protocol version a request's _meta names, or NULL. */
static char *
rmodern_version(const char *line, const struct envelope *env)
{
	cJSON		*meta;
	const cJSON	*v;
	char		*out = NULL;

	if (env->meta.type != ENVELOPE_OBJECT || memmem(line + env->meta.off,
	    env->meta.len, MODERN_KEY_VERSION, sizeof MODERN_KEY_VERSION - 1)
	    == NULL)
		return (NULL);
	meta = cJSON_ParseWithLength(line + env->meta.off, env->meta.len);
	v = cJSON_GetObjectItemCaseSensitive(meta, MODERN_KEY_VERSION);
	if (cJSON_IsString(v))
		out = xstrdup(v->valuestring);
	cJSON_Delete(meta);
	return (out);
}

int
rmodern_classify(struct rmsg *m, const char *line, const struct envelope *env,
    const char **why)
{
	static char	 reason[256];
	const char	*member;
	char		*version, *name, *value, *bad;
	size_t		 n = 0;

	if (!m->request || m->method == NULL ||
	    (version = rmodern_version(line, env)) == NULL)
		return (0);
	if (!mcphdr_safe(version, strlen(version)) ||
	    strlen(version) > MCPHDR_VERSION_MAX) {
		free(version);
		*why = "its _meta names a protocol version that cannot go in "
		    "a header";
		return (-1);
	}
	if (!mcphdr_safe(m->method, strlen(m->method))) {
		free(version);
		*why = "its method cannot go in a header (Mcp-Method)";
		return (-1);
	}
	xasprintf(&m->mhdr[n++], "MCP-Protocol-Version: %s", version);
	free(version);
	xasprintf(&m->mhdr[n++], "Mcp-Method: %s", m->method);
	member = mcphdr_name_member(m->method);
	/* A name with "\u0000" has no header: the remote refuses it. */
	name = member == NULL ? NULL : envelope_string_dup(line,
	    member[0] == 'n' ? &env->p_name : &env->p_uri, RMODERN_NAME_MAX,
	    NULL);
	if (name != NULL) {
		value = mcphdr_value(name, strlen(name));
		xasprintf(&m->mhdr[n++], "Mcp-Name: %s", value);
		free(value);
	}
	m->mhdr[n] = NULL;
	if (strcmp(m->method, "tools/call") == 0 &&
	    rparam_call(m->session->params, m, line, env, name, &bad) == -1) {
		/* Said at once (session_unrequest), so kept here till then. */
		snprintf(reason, sizeof reason, "%s", bad);
		free(bad);
		free(name);
		*why = reason;
		return (-1);
	}
	free(name);
	return (0);
}

void
rmodern_free(struct rmsg *m)
{
	size_t	i;

	for (i = 0; i < RMODERN_HEADERS && m->mhdr[i] != NULL; i++)
		free(m->mhdr[i]);
	rparam_free_headers(m);
}

char *
rmodern_result(struct rsession *s, const struct rmsg *m, const char *json,
    size_t len, size_t *outlen)
{
	return (rparam_listed(s->params, m, json, len, outlen));
}

int
rmodern_local(struct rsession *s, const struct rmsg *m, int cancels_modern)
{
	if (m->request)
		return (0);
	if (cancels_modern)
		return (1);
	return (s->modern);
}

void
rmodern_answered(struct rsession *s, const struct rmsg *m,
    const struct envelope *env)
{
	if (m->init && env->result.type == ENVELOPE_OBJECT) {
		s->modern = 0;
		return;
	}
	if (m->mhdr[0] == NULL || env->result.type != ENVELOPE_OBJECT ||
	    s->modern)
		return;
	s->modern = 1;
	remote_log("the remote speaks MCP " MODERN_VERSION ": no session, "
	    "every request on its own");
	rstatus_session("established", MODERN_VERSION);
}

int
rmodern_is_listen(const struct rmsg *m)
{
	return (m->mhdr[0] != NULL && m->id != NULL &&
	    mcphdr_retry(m->method) == MCPHDR_REOPEN);
}

int
rmodern_ends_listen(const struct rmsg *m, const char *data, size_t len)
{
	struct envelope	 env;
	size_t		 erroff;

	if (!rmodern_is_listen(m) ||
	    envelope_scan(data, len, &env, &erroff) != 0 ||
	    env.id.type != ENVELOPE_ABSENT ||
	    !envelope_string_eq(data, &env.method, "notifications/cancelled") ||
	    env.p_request_id.type == ENVELOPE_ABSENT)
		return (0);
	return (env.p_request_id.len == strlen(m->id) &&
	    memcmp(data + env.p_request_id.off, m->id,
	    env.p_request_id.len) == 0);
}
