/*
 * relisten.h -- what the client of a subscriptions/listen stream (MCP
 * 2026-07-28) missed while the stream was broken and reopened: the
 * changes made meanwhile are gone, so every kind of change the reopened
 * stream's acknowledgment honours is said to have happened, once, and
 * the client lists (or reads) again.  Pure: no I/O.
 */
#ifndef MCPD_RELISTEN_H
#define MCPD_RELISTEN_H

#include <stddef.h>

/*
 * data (one SSE event's JSON) is the acknowledgment of a stream: the
 * notifications for its client (id: the listen request's raw id text,
 * which stamps them), in *out (malloc'd lines, no newline; the array
 * malloc'd too): notifications/tools, prompts and resources list_changed
 * for each kind it honours, notifications/resources/updated for each of
 * its resourceSubscriptions (at most MODERN_LISTEN_MAX_URIS).  Returns
 * their number; 0 (and *out NULL) for anything else.
 */
size_t	relisten_notes(const char *data, size_t len, const char *id,
	    char ***out);

#endif /* MCPD_RELISTEN_H */
