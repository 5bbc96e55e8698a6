/*
 * hreq.c -- a request to mcpd-http read and checked (hreq.h).
 *
 * A POST's body is one JSON-RPC message (an object; batches are not
 * taken since MCP 2025-06-18).  It is of MCP 2026-07-28 when
 * MCP-Protocol-Version or its _meta says so; then the headers mirror it
 * or the request is refused with 400 and HeaderMismatch (-32020):
 * MCP-Protocol-Version equal to _meta's protocolVersion, Mcp-Method to
 * the method, Mcp-Name (decoded if it is =?base64?...?=) to params.name
 * or params.uri for tools/call, prompts/get and resources/read.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "b64.h"
#include "envelope.h"
#include "hreq.h"
#include "mcphdr.h"
#include "modern.h"
#include "proto.h"
#include "xmalloc.h"

static const char *hreq_versions[] = MCPD_MCP_VERSIONS_ACCEPTED;

char *
hreq_target(const char *path, const char *query)
{
	const char	*rest, *end;
	size_t		 i, len;

	if (path == NULL || query != NULL)
		return (NULL);
	if (strncmp(path, "/servers/", 9) == 0)
		rest = path + 9;
	else if (strncmp(path, "/groups/", 8) == 0)
		rest = path + 8;
	else
		return (NULL);
	if ((end = strchr(rest, '/')) == NULL || strcmp(end, "/mcp") != 0)
		return (NULL);
	len = end - rest;
	if (len == 0 || len > HREQ_NAME_MAX)
		return (NULL);
	for (i = 0; i < len; i++) {
		if (!((rest[i] >= 'a' && rest[i] <= 'z') ||
		    (rest[i] >= 'A' && rest[i] <= 'Z') ||
		    (rest[i] >= '0' && rest[i] <= '9') ||
		    rest[i] == '.' || rest[i] == '_' || rest[i] == '-'))
			return (NULL);
	}
	return (xstrndup(rest, len));
}

int
hreq_version(const char *v)
{
	size_t	 i;

	if (v == NULL)
		return (1);
	if (strcmp(v, MODERN_VERSION) == 0)
		return (2);
	for (i = 0; hreq_versions[i] != NULL; i++)
		if (strcmp(hreq_versions[i], v) == 0)
			return (1);
	return (0);
}

static int
hreq_refuse(struct hreq_msg *m, int status, int code, const char *why)
{
	m->status = status;
	m->code = code;
	m->why = why;
	return (status);
}

static int
hreq_mismatch(struct hreq_msg *m, const char *header)
{
	snprintf(m->whybuf, sizeof m->whybuf, "Header mismatch: %s is "
	    "missing or does not match the body", header);
	return (hreq_refuse(m, 400, HREQ_HEADER_MISMATCH, m->whybuf));
}

/* Mcp-Name's value, decoded when it is the base64 sentinel. */
static int
hreq_name_eq(const char *header, const char *body)
{
	size_t	 hlen, dlen;
	char	*dec;
	int	 eq;

	hlen = strlen(header);
	if (hlen >= 11 && strncmp(header, "=?base64?", 9) == 0 &&
	    strcmp(header + hlen - 2, "?=") == 0) {
		if ((dec = b64_decode(header + 9, hlen - 11, &dlen)) == NULL)
			return (0);
		eq = dlen == strlen(body) && memcmp(dec, body, dlen) == 0;
		free(dec);
		return (eq);
	}
	return (mcphdr_safe(header, hlen) && strcmp(header, body) == 0);
}

/* MCP 2026-07-28's headers against the body. */
static int
hreq_modern(const struct hreq_hdrs *h, struct hreq_msg *m)
{
	const cJSON	*params, *meta, *v, *name;
	const char	*member;

	params = cJSON_GetObjectItemCaseSensitive(m->msg, "params");
	meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
	v = cJSON_GetObjectItemCaseSensitive(meta, MODERN_KEY_VERSION);
	if (h->version == NULL || !cJSON_IsString(v) ||
	    strcmp(h->version, v->valuestring) != 0)
		return (hreq_mismatch(m, "MCP-Protocol-Version"));
	if (!m->is_request)
		return (0);
	if (h->mcp_method == NULL || strcmp(h->mcp_method, m->method) != 0)
		return (hreq_mismatch(m, "Mcp-Method"));
	v = cJSON_GetObjectItemCaseSensitive(params, "requestState");
	if (cJSON_IsString(v))
		m->state = v->valuestring;
	if ((member = mcphdr_name_member(m->method)) == NULL)
		return (0);
	name = cJSON_GetObjectItemCaseSensitive(params, member);
	if (h->mcp_name == NULL || !cJSON_IsString(name) ||
	    !hreq_name_eq(h->mcp_name, name->valuestring))
		return (hreq_mismatch(m, "Mcp-Name"));
	return (0);
}

/* Is the body's _meta of MCP 2026-07-28? */
static int
hreq_meta_modern(const cJSON *msg)
{
	const cJSON	*v;

	v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(msg, "params"), "_meta"),
	    MODERN_KEY_VERSION);
	return (cJSON_IsString(v) && strcmp(v->valuestring, MODERN_VERSION) ==
	    0);
}

static int
hreq_accepts(const char *accept, const char *type)
{
	return (accept == NULL || strstr(accept, type) != NULL ||
	    strstr(accept, "*/*") != NULL);
}

int
hreq_body(const struct hreq_hdrs *h, const char *body, size_t len,
    struct hreq_msg *m)
{
	const cJSON	*method, *id;

	memset(m, 0, sizeof *m);
	if (h->content_type == NULL ||
	    strncasecmp(h->content_type, "application/json", 16) != 0)
		return (hreq_refuse(m, 415, -32600, "expected Content-Type: "
		    "application/json"));
	if (!hreq_accepts(h->accept, "application/json") &&
	    !hreq_accepts(h->accept, "text/event-stream"))
		return (hreq_refuse(m, 406, -32600, "Accept must take "
		    "application/json or text/event-stream"));
	m->sse_ok = h->accept != NULL &&
	    strstr(h->accept, "text/event-stream") != NULL;
	m->msg = cJSON_ParseWithLength(body, len);
	if (!cJSON_IsObject(m->msg) || !cJSON_IsString(
	    cJSON_GetObjectItemCaseSensitive(m->msg, "jsonrpc")))
		return (hreq_refuse(m, 400, -32600, cJSON_IsArray(m->msg) ?
		    "batches are not taken (MCP 2025-06-18 and later)" :
		    "expected one JSON-RPC message (an object)"));
	method = cJSON_GetObjectItemCaseSensitive(m->msg, "method");
	id = cJSON_GetObjectItemCaseSensitive(m->msg, "id");
	if (method != NULL && !cJSON_IsString(method))
		return (hreq_refuse(m, 400, -32600, "method is not a string"));
	m->method = method != NULL ? method->valuestring : NULL;
	m->is_request = m->method != NULL && id != NULL;
	m->is_init = m->is_request && strcmp(m->method, "initialize") == 0;
	m->line = cJSON_PrintUnformatted(m->msg);
	if (id != NULL)
		m->idtext = cJSON_PrintUnformatted(id);
	if (hreq_version(h->version) == 2 || hreq_meta_modern(m->msg)) {
		m->modern = 1;
		if (m->method == NULL)
			return (hreq_refuse(m, 400, -32600, "MCP 2026-07-28 "
			    "takes no responses over HTTP"));
		return (hreq_modern(h, m));
	}
	return (0);
}

void
hreq_msg_free(struct hreq_msg *m)
{
	cJSON_Delete(m->msg);
	free(m->line);
	free(m->idtext);
	memset(m, 0, sizeof *m);
}

int
hreq_reply_id(const char *line, size_t len, char **id)
{
	struct envelope	 env;
	size_t		 off;

	*id = NULL;
	if (envelope_scan(line, len, &env, &off) != 0)
		return (-1);
	if (env.id.type == ENVELOPE_ABSENT || env.method.type != ENVELOPE_ABSENT)
		return (0);
	*id = xstrndup(line + env.id.off, env.id.len);
	return (1);
}
