/*
 * modern.h -- MCP 2026-07-28 ("modern") messages in mcpd's terms (pure:
 * no I/O).  A modern client sends no initialize: each request carries its
 * protocol version, client information and capabilities (and a log level)
 * in params._meta.  mcpd serves it over the 2025 session it holds with
 * the server (daemon/client_modern.c); these functions read its requests
 * and write what it is answered: server/discover from the session's
 * initialize result, the members every 2026 result carries, the
 * input_required answer of a multi-round-trip request, and the messages
 * of a subscriptions/listen stream.
 */
#ifndef MCPD_MODERN_H
#define MCPD_MODERN_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "envelope.h"

#define MODERN_VERSION		"2026-07-28"
#define MODERN_KEY_VERSION	"io.modelcontextprotocol/protocolVersion"
#define MODERN_KEY_CAPS		"io.modelcontextprotocol/clientCapabilities"
#define MODERN_KEY_INFO		"io.modelcontextprotocol/clientInfo"
#define MODERN_KEY_LEVEL	"io.modelcontextprotocol/logLevel"
#define MODERN_KEY_SERVER	"io.modelcontextprotocol/serverInfo"
#define MODERN_KEY_SUB		"io.modelcontextprotocol/subscriptionId"
#define MODERN_EXT_TASKS	"io.modelcontextprotocol/tasks"
/* Every revision mcpd answers, newest first, as a JSON array. */
#define MODERN_SUPPORTED_JSON	"[\"2026-07-28\",\"2025-11-25\"," \
				"\"2025-06-18\",\"2025-03-26\",\"2024-11-05\"]"
/* The error of a version mcpd does not serve (UnsupportedProtocolVersion). */
#define MODERN_UNSUPPORTED	-32022
/* Resource not found: -32002 before 2026-07-28, -32602 since. */
#define MODERN_NOT_FOUND_OLD	-32002

/* What mcpd does with a modern client's request, by its method. */
enum modern_method {
	MODERN_M_OTHER,		/* passed on, its result marked complete */
	MODERN_M_LIST,		/* a list: cacheable */
	MODERN_M_READ,		/* resources/read: cacheable, input */
	MODERN_M_INPUT,		/* tools/call, prompts/get: may need input */
	MODERN_M_DISCOVER,	/* server/discover: answered by mcpd */
	MODERN_M_LISTEN,	/* subscriptions/listen: mcpd's stream */
	MODERN_M_GONE,		/* not in 2026: ping, logging/setLevel, ... */
	MODERN_M_MCPD,		/* mcpd/...: mcpd's own, not MCP's */
	MODERN_M_TASK_GET,	/* the tasks extension's tasks/get, */
	MODERN_M_TASK_UPDATE,	/* tasks/update */
	MODERN_M_TASK_CANCEL,	/* and tasks/cancel */
};
enum modern_method modern_method(const char *line,
		    const struct envelope_value *method);
/* Can its result be input_required (tools/call, prompts/get, read)? */
#define MODERN_TAKES_INPUT(m)	((m) == MODERN_M_INPUT || (m) == MODERN_M_READ)

/* What a client can be asked, from the capabilities a request carries. */
#define MODERN_CAN_ELICIT	0x01
#define MODERN_CAN_SAMPLING	0x02
#define MODERN_CAN_ROOTS	0x04
#define MODERN_CAN_TASKS	0x08	/* the tasks extension */

/* What a request's params._meta says (modern_meta_read). */
struct modern_meta {
	int		 versioned;	/* it names a protocol version */
	int		 version_ok;	/* and it is 2026-07-28 */
	char		 version[32];	/* the one it names (cut) */
	char		 level[16];	/* its log level, or "" */
	unsigned int	 can;		/* MODERN_CAN_* */
};
/*
 * Read the _meta of a scanned request (env).  *caps and *info, when not
 * NULL, get its clientCapabilities and clientInfo (detached, the
 * caller's), or NULL.  Returns 0, or -1 if _meta is not an object.
 */
int		 modern_meta_read(const char *line, const struct envelope *,
		    struct modern_meta *, cJSON **caps, cJSON **info);
/* The bits of a clientCapabilities object. */
unsigned int	 modern_caps_can(const cJSON *caps);

/*
 * Does a scanned line open a modern session: a request whose _meta names
 * a protocol version (any: an unsupported one is answered with
 * MODERN_UNSUPPORTED), or server/discover?
 */
int		 modern_opens(const char *line, const struct envelope *);

/*
 * The initialize params mcpd opens the client's 2025 session with: the
 * newest 2025 revision, its capabilities (those a 2025 session has:
 * elicitation, sampling; roots are not asked of a modern client), its
 * clientInfo.  Either may be NULL.
 */
cJSON		*modern_initialize_params(const cJSON *caps,
		    const cJSON *info);

/*
 * The server/discover result (JSON text, malloc'd) from the session's
 * initialize result (an object): supportedVersions, its capabilities
 * (without the 2025 tasks capability), instructions, serverInfo in _meta,
 * resultType, ttlMs 0 and cacheScope "private" (a 2025 session gives no
 * freshness: nothing may be cached).  NULL if it is not an object.
 */
char		*modern_discover_result(const cJSON *init_result);

/* The -32022 error's data, as JSON text (malloc'd), naming requested. */
char		*modern_unsupported_data(const char *requested);

/*
 * The members a modern client's result of method m gets, as text to put
 * before the result object's closing brace (after a comma, with comma):
 * resultType, and for lists and reads ttlMs and cacheScope.  A member the
 * result already has is overridden (the last of a key wins in
 * JSON.parse).  *len its length.
 */
const char	*modern_result_tail(enum modern_method m, int comma,
		    size_t *len);
/*
 * Where the tail goes in a result object's text, line[off, off + len):
 * the offset of its closing brace; *empty set when the object has no
 * member (no comma before the tail).  -1 if it is not an object.
 */
long		 modern_tail_at(const char *line, size_t off, size_t len,
		    int *empty);

/*
 * An input_required result (JSON text, malloc'd): the input requests,
 * an object of key -> {method, params} (taken), and the state.
 */
char		*modern_input_result(cJSON *requests, const char *state);

/* A subscriptions/listen filter, as the client asked and mcpd honours. */
#define MODERN_LISTEN_TOOLS	0x1
#define MODERN_LISTEN_PROMPTS	0x2
#define MODERN_LISTEN_RESOURCES	0x4
#define MODERN_LISTEN_MAX_URIS	256
#define MODERN_LISTEN_URI_MAX	4096
struct modern_filter {
	unsigned int	 kinds;		/* MODERN_LISTEN_* */
	char		**uris;		/* resourceSubscriptions */
	size_t		 nuris;
	char		**tasks;	/* taskIds (the tasks extension) */
	size_t		 ntasks;
};
/*
 * The filter of a listen request's params, narrowed to what the server
 * can send (its initialize result's capabilities).  0, or -1 with *why
 * (a static string) when the params are not a filter.  taskIds are kept
 * as asked: the caller decides whose they may be.
 */
int		 modern_filter_read(const cJSON *params,
		    const cJSON *init_result, struct modern_filter *,
		    const char **why);
void		 modern_filter_clear(struct modern_filter *);
/* Is uri one of the filter's?  Is task? */
int		 modern_filter_has(const struct modern_filter *,
		    const char *uri);
int		 modern_filter_has_task(const struct modern_filter *,
		    const char *task);
/* The kind of a list_changed method, or 0. */
unsigned int	 modern_listen_kind(const char *method);
/*
 * The acknowledgment of a stream (id: the listen request's raw id), or a
 * notification on it (method; uri for resources/updated, else NULL), as
 * a JSON-RPC line (malloc'd, no newline).
 */
char		*modern_listen_ack(const char *id, size_t id_len,
		    const struct modern_filter *);
char		*modern_listen_note(const char *id, size_t id_len,
		    const char *method, const char *uri);
/*
 * Any notification on that stream: params (taken, an object without
 * _meta) stamped with the id, as a JSON-RPC line (malloc'd, no newline).
 */
char		*modern_stream_note(const char *id, size_t id_len,
		    const char *method, cJSON *params);

/*
 * The tasks extension over 2025's tasks.  A 2025 task (an object with
 * taskId, status, createdAt, lastUpdatedAt, ttl, pollInterval,
 * statusMessage) as 2026 has it, into out: the same members with ttlMs
 * and pollIntervalMs.  0, or -1 if it is not a task.
 */
int		 modern_task_from(const cJSON *task, cJSON *out);
/* Is the 2025 status terminal (completed, failed, cancelled)? */
int		 modern_task_done(const char *status);
/* A tools/list result's tools that can run as tasks: names, added to out. */
void		 modern_task_tools(const cJSON *result, cJSON *out);

#endif /* MCPD_MODERN_H */
