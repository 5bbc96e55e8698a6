/*
 * fuzz_http.c -- mcpd-http's reading of a request (http/hreq.c) and of a
 * Last-Event-ID (http/hreplay.c), on what an HTTP client could send.
 *
 * Input: fields separated by NUL: the path, MCP-Protocol-Version,
 * Mcp-Method, Mcp-Name, Content-Type, Accept, Last-Event-ID, then the
 * body (the rest, NULs and all).  A missing field is a missing header.
 *
 * Invariants:
 * - hreq_target gives NULL or a name of 1 to 128 of [A-Za-z0-9._-] that
 *   the path is "/servers/NAME/mcp" or "/groups/NAME/mcp" of.
 * - hreq_version is 2 exactly for "2026-07-28", 0, 1 or 2.
 * - hreq_body returns 0 or its status (400, 406, 415) with a reason; a
 *   HeaderMismatch only for a message of 2026-07-28.  Accepted: an
 *   object with "jsonrpc", a line that cJSON reads back; a request of
 *   2026-07-28 has MCP-Protocol-Version equal to its _meta's version and
 *   Mcp-Method equal to its method.
 * - A Last-Event-ID hreplay_parse_id takes prints back the same, and
 *   names an event the buffer gave out.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "hreplay.h"
#include "hreq.h"

const char	*fuzz_target_name = "http";

#define NFIELDS	7

static void
check_target(const char *path)
{
	char	*name;
	char	 want[300];

	if ((name = hreq_target(path, NULL)) == NULL)
		return;
	FUZZ_CHECK(strlen(name) >= 1 && strlen(name) <= HREQ_NAME_MAX &&
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-") == strlen(name), "a bad name '%s'", name);
	snprintf(want, sizeof want, "/%s/%s/mcp", path[1] == 's' ?
	    "servers" : "groups", name);
	FUZZ_CHECK(strcmp(want, path) == 0, "'%s' from '%s'", name, path);
	FUZZ_CHECK(hreq_target(path, "q") == NULL, "a query was taken");
	free(name);
}

static void
check_body(const struct hreq_hdrs *h, const char *body, size_t len)
{
	struct hreq_msg	 m;
	const cJSON	*v;
	cJSON		*back;
	int		 rc;

	rc = hreq_body(h, body, len, &m);
	if (rc != 0) {
		FUZZ_CHECK(rc == m.status && (rc == 400 || rc == 406 ||
		    rc == 415) && m.why != NULL, "refused with %d", rc);
		FUZZ_CHECK(m.code != HREQ_HEADER_MISMATCH || m.modern,
		    "a mismatch outside 2026");
		hreq_msg_free(&m);
		return;
	}
	FUZZ_CHECK(cJSON_IsObject(m.msg) && m.line != NULL, "not an object");
	back = cJSON_Parse(m.line);
	FUZZ_CHECK(back != NULL, "the line does not read back");
	cJSON_Delete(back);
	FUZZ_CHECK(!m.is_request || m.idtext != NULL, "a request, no id");
	if (m.modern) {
		v = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(m.msg, "params"),
		    "_meta"), "io.modelcontextprotocol/protocolVersion");
		FUZZ_CHECK(h->version != NULL && cJSON_IsString(v) &&
		    strcmp(h->version, v->valuestring) == 0,
		    "2026 without a matching version");
		FUZZ_CHECK(!m.is_request || (h->mcp_method != NULL &&
		    strcmp(h->mcp_method, m.method) == 0),
		    "2026 without a matching Mcp-Method");
	}
	hreq_msg_free(&m);
}

static void
check_id(const char *id, size_t nev)
{
	struct hreplay	 r;
	uint32_t	 s;
	uint64_t	 g;
	char		 back[HREPLAY_ID_MAX];
	size_t		 i;

	hreplay_init(&r);
	for (i = 0; i < nev; i++)
		(void)hreplay_add(&r, (uint32_t)(i % 3), "{}", 2, 1);
	if (hreplay_parse_id(&r, id, &s, &g) == 0) {
		hreplay_format_id(back, sizeof back, s, g);
		FUZZ_CHECK(strcmp(back, id) == 0, "'%s' printed '%s'", id,
		    back);
		FUZZ_CHECK(g <= nev, "event %llu of %zu",
		    (unsigned long long)g, nev);
		(void)hreplay_complete(&r, g);
	}
	hreplay_free(&r);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*f[NFIELDS] = { NULL };
	struct hreq_hdrs h;
	char		*buf, *p, *end, *nul;
	size_t		 i, v;

	buf = malloc(size + 1);
	memcpy(buf, data, size);
	buf[size] = '\0';
	p = buf;
	end = buf + size;
	for (i = 0; i < NFIELDS && p < end; i++) {
		if ((nul = memchr(p, '\0', end - p)) == NULL)
			break;
		f[i] = p;
		p = nul + 1;
	}
	check_target(f[0] != NULL ? f[0] : buf);
	v = hreq_version(f[1]);
	FUZZ_CHECK(v <= 2 && ((v == 2) == (f[1] != NULL &&
	    strcmp(f[1], "2026-07-28") == 0)), "version %zu", v);
	h.version = f[1];
	h.mcp_method = f[2];
	h.mcp_name = f[3];
	h.content_type = f[4] != NULL ? f[4] : "application/json";
	h.accept = f[5];
	check_body(&h, p, end - p);
	if (f[6] != NULL)
		check_id(f[6], size % 300);
	free(buf);
	return (0);
}
