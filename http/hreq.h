/*
 * hreq.h -- what mcpd-http reads from a request before it acts on it,
 * pure (no I/O, no libevent), so that the fuzzer drives it whole
 * (tests/fuzz/fuzz_http.c): the path's server or group, the protocol
 * version, a Last-Event-ID, and a POST's body with the headers MCP
 * 2026-07-28 mirrors from it (MCP-Protocol-Version, Mcp-Method,
 * Mcp-Name) checked against it; and whether a line from mcpd is a
 * reply, and to what.
 */
#ifndef MCPD_HREQ_H
#define MCPD_HREQ_H

#include <stddef.h>

#include <cjson/cJSON.h>

#define HREQ_NAME_MAX		128
#define HREQ_HEADER_MISMATCH	-32020	/* MCP 2026-07-28 */
#define HREQ_UNSUPPORTED	-32022

/* "/servers/NAME/mcp" or "/groups/NAME/mcp": NAME, malloc'd, or NULL. */
char	*hreq_target(const char *path, const char *query);

/* MCP-Protocol-Version: 0 not spoken, 1 a 2025 revision (or none), 2 2026. */
int	 hreq_version(const char *);

/* A POST's headers that its body is checked against. */
struct hreq_hdrs {
	const char	*content_type;
	const char	*accept;
	const char	*version;	/* MCP-Protocol-Version */
	const char	*mcp_method;
	const char	*mcp_name;
};

/* A POST's message, read. */
struct hreq_msg {
	cJSON		*msg;
	char		*line;		/* on one line, for mcpd */
	char		*idtext;	/* the id as JSON, or NULL */
	const char	*method;	/* in msg, or NULL (a response) */
	int		 is_request;	/* a method and an id */
	int		 is_init;	/* initialize */
	int		 modern;	/* MCP 2026-07-28: no session */
	int		 sse_ok;	/* Accept takes text/event-stream */
	const char	*state;		/* params.requestState, or NULL */
	/* A refusal: HTTP status, JSON-RPC code, reason. */
	int		 status;
	int		 code;
	const char	*why;
	char		 whybuf[256];
};

/* 0, or the HTTP status of the refusal (m->status, m->code, m->why). */
int	 hreq_body(const struct hreq_hdrs *, const char *body, size_t len,
	    struct hreq_msg *m);
void	 hreq_msg_free(struct hreq_msg *);

/*
 * A line from mcpd, read without parsing it (src/envelope.c): 1 if it is
 * a reply (an id, no method), with *id its id's JSON text as mcpd wrote
 * it, malloc'd; 0 for another message; -1 if it is not a JSON object.
 */
int	 hreq_reply_id(const char *line, size_t len, char **id);

#endif /* MCPD_HREQ_H */
