/*
 * mcphdr.h -- what MCP 2026-07-28 asks of a request over Streamable HTTP,
 * beside its body: the request metadata headers (MCP-Protocol-Version,
 * Mcp-Method, Mcp-Name) and how a value that is not header-safe is
 * carried (=?base64?...?=); which requests may be sent again when their
 * stream broke; and a 4xx's body read as the JSON-RPC error it may be.
 * Pure: no I/O.
 */
#ifndef MCPD_MCPHDR_H
#define MCPD_MCPHDR_H

#include <stddef.h>

#define MCPHDR_VERSION_MAX	64	/* of a protocol version we send */

/*
 * The header value that carries text[0, len) (UTF-8): the text as is when
 * it is header-safe (visible ASCII, space and tab, no whitespace at
 * either end, not shaped like the sentinel, not empty), else
 * "=?base64?B64?=".  Never NULL.
 */
char	*mcphdr_value(const char *text, size_t len);

/* 1 if v may stand in a header as it is (mcphdr_value would not encode). */
int	 mcphdr_safe(const char *v, size_t len);

/*
 * What Mcp-Name is taken from for a request of method: "name" (tools/call,
 * prompts/get), "uri" (resources/read), or NULL (none).
 */
const char *mcphdr_name_member(const char *method);

/*
 * What a request's broken stream allows: sent again (it changes nothing:
 * server/discover, a list, a read, a prompt, a completion), reopened
 * (subscriptions/listen), or neither (tools/call and the rest: the
 * server may have acted).
 */
enum mcphdr_retry {
	MCPHDR_NEVER,
	MCPHDR_RESEND,
	MCPHDR_REOPEN,
};
enum mcphdr_retry mcphdr_retry(const char *method);

/*
 * The error response for the request whose raw id text is id, from the
 * body of the remote's 4xx answer to it, or NULL if the body is no
 * JSON-RPC error (an object whose "error" has an integer code and a
 * string message).  Only code, message and data are kept.
 *
 * init: the request was an initialize, and only an error of MCP
 * 2026-07-28 (-32020 to -32022) is taken; it becomes -32022 with
 * data.supported (the remote's list, or ["2026-07-28"] when it gave
 * none), the refusal a stdio server of that revision answers.
 */
char	*mcphdr_error(const char *body, size_t len, const char *id, int init);

#endif /* MCPD_MCPHDR_H */
