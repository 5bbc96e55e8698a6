/*
 * modern_up.h -- a server of MCP 2026-07-28 in the terms of the 2025
 * session mcpd holds with it (pure: no I/O; daemon/worker_modern.c does
 * the talking).
 */
#ifndef MCPD_MODERN_UP_H
#define MCPD_MODERN_UP_H

#include <cjson/cJSON.h>

struct envelope;

/* An initialize refused with -32022 naming 2026-07-28? */
int		 modern_up_refused(const cJSON *error);
/*
 * A server/discover result as the session's initialize result
 * (protocolVersion 2026-07-28, and 2025's tasks for tools/call, which
 * mcpd runs), or NULL with *why when it offers no 2026-07-28.
 */
cJSON		*modern_up_init_result(const cJSON *discover, const char **why);
/*
 * The error (a JSON-RPC line, malloc'd) that stands for a response a
 * 2025 session cannot carry (input_required, a task), or NULL for any
 * other; line scanned into env, a response with a result object.
 */
char		*modern_up_unfit(const char *line, const struct envelope *);

#endif /* MCPD_MODERN_UP_H */
