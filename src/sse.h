/*
 * sse.h -- a Server-Sent Events parser with bounded memory (pure).
 *
 * Follows the WHATWG HTML "event stream" interpretation: lines end with
 * CRLF, LF or CR (a CR at the end of one chunk and an LF at the start of
 * the next are one line end); a leading UTF-8 BOM is skipped; a line
 * starting with ':' is a comment; "field: value" loses one space after
 * the colon; a line without a colon is a field with an empty value;
 * "data" lines are joined with LF; "event" sets the type; "id" sets the
 * last event id unless the value holds a NUL; "retry" with only ASCII
 * digits sets the reconnection time; unknown fields are ignored; a blank
 * line dispatches the event unless its data is empty.  An event not ended
 * by a blank line when the stream ends is never dispatched.
 *
 * Memory: the parser never holds more than max_event_bytes of one event
 * (data, type and id together) plus the part of a line it has not seen
 * the end of.  Comments and ignored fields are skipped as they stream by,
 * whatever their length.  An event or a line over the bound stops the
 * parser for good (SSE_TOO_BIG): the stream is unusable.
 */
#ifndef MCPD_SSE_H
#define MCPD_SSE_H

#include <stddef.h>
#include <stdint.h>

struct sse;

struct sse_event {
	const char	*type;		/* "message" unless an event field set it */
	size_t		 type_len;
	const char	*data;		/* data lines joined with LF, no final LF */
	size_t		 data_len;
	const char	*id;		/* the last event id now in force ("" if none) */
	size_t		 id_len;
};

struct sse_cb {
	/* An event was dispatched; return -1 to stop the parser (SSE_STOPPED). */
	int	(*event)(void *arg, const struct sse_event *);
	/* A valid retry field: the reconnection time, in milliseconds. */
	void	(*retry)(void *arg, uint64_t ms);
};

enum sse_result {
	SSE_OK = 0,
	SSE_TOO_BIG,		/* an event or line over max_event_bytes */
	SSE_STOPPED,		/* the event callback returned -1 */
};

struct sse	*sse_new(size_t max_event_bytes, const struct sse_cb *,
		    void *arg);
void		 sse_free(struct sse *);
/* Feed the next bytes of the stream; after anything but SSE_OK, do not. */
enum sse_result	 sse_feed(struct sse *, const char *buf, size_t len);
/* The last event id in force (for Last-Event-ID), "" if none; NUL-ended. */
const char	*sse_last_id(const struct sse *);
/* Bytes the parser holds now (for tests of the bound). */
size_t		 sse_held(const struct sse *);

#endif /* MCPD_SSE_H */
