/*
 * frame.h -- newline-delimited message framing (pure: no I/O, no libevent).
 *
 * The caller reads straight into the framer's buffer (frame_space +
 * frame_commit) or copies bytes in (frame_push), then pulls events with
 * frame_next until FRAME_NONE.  Invariants:
 *
 * - Amortized O(1) per byte: the framer remembers how far it has scanned
 *   for '\n' and never rescans a partial line.
 * - Memory is bounded: the buffer never holds more than max_bytes of one
 *   message plus one read chunk.  A longer message is discarded as it
 *   streams past ("discard mode"), keeping only its first FRAME_HEAD_BYTES
 *   for logging and, when it looks like a JSON object, the text of its
 *   top-level "id" member so the caller can answer the right requester.
 * - A line's trailing '\r' is stripped; empty (or whitespace-only) lines
 *   are skipped silently.
 * - FRAME_GARBAGE means the stream cannot be resynchronised cheaply: more
 *   than max_bytes without a newline and the discarded bytes are not a JSON
 *   object, or more than FRAME_GARBAGE_FACTOR * max_bytes in total.  After
 *   FRAME_GARBAGE the framer keeps discarding until the next newline, but
 *   callers normally close the stream.
 */
#ifndef MCPD_FRAME_H
#define MCPD_FRAME_H

#include <stddef.h>

#include "envelope.h"

#define FRAME_HEAD_BYTES	256	/* kept of an oversized message */
#define FRAME_ID_MAX_BYTES	128	/* longest recoverable id text */
#define FRAME_GARBAGE_FACTOR	4	/* discard this many x max, then garbage */
#define FRAME_READ_CHUNK_BYTES	65536	/* frame_space offers at least this */

enum frame_event {
	FRAME_NONE,		/* need more input */
	FRAME_LINE,		/* a complete message: line, len */
	FRAME_OVERSIZE,		/* a message over the limit ended */
	FRAME_GARBAGE,		/* stream is garbage, see above */
};

struct frame_msg {
	const char	*line;	/* FRAME_LINE: the message, not NUL-terminated,
				   valid until the next call into the framer */
	size_t		 len;
	size_t		 total;	/* OVERSIZE/GARBAGE: bytes seen so far */
	const char	*head;	/* OVERSIZE/GARBAGE: first bytes (head_len) */
	size_t		 head_len;
	const char	*id;	/* OVERSIZE: JSON text of top-level "id" or NULL */
	size_t		 id_len;
	/*
	 * FRAME_LINE, with frame_track_plain: the longest run of plain bytes
	 * (envelope.h) seen in the line while it was read in chunks of at
	 * least FRAME_PLAIN_CHUNK_BYTES, and of at least that length; offsets
	 * in the line.  Length 0 for none.
	 */
	struct envelope_span plain;
};

#define FRAME_PLAIN_CHUNK_BYTES	16384

struct frame;

struct frame	*frame_new(size_t max_bytes);
void		 frame_free(struct frame *);
/* Report plain runs (frame_msg.plain) from now on: off by default. */
void		 frame_track_plain(struct frame *);
/* Room to read into; *avail is at least FRAME_READ_CHUNK_BYTES. */
char		*frame_space(struct frame *, size_t *avail);
void		 frame_commit(struct frame *, size_t n);
void		 frame_push(struct frame *, const void *buf, size_t len);
enum frame_event frame_next(struct frame *, struct frame_msg *);
/*
 * Right after FRAME_LINE: take the malloc'd buffer that holds the line
 * (valid until the caller frees it); *size is its size.  NULL in discard
 * mode.  The framer goes on with a new buffer.
 */
char		*frame_steal(struct frame *, size_t *size);
/* Bytes currently held (for memory accounting). */
size_t		 frame_buffered(const struct frame *);
size_t		 frame_capacity(const struct frame *);
/*
 * Bytes searched for '\n' or moved so far: within a small multiple of the
 * bytes received while the framer is linear (the tests check this).
 */
size_t		 frame_examined(const struct frame *);
/* A partial message is pending (used at EOF to report a half line). */
int		 frame_partial(const struct frame *);
/*
 * After frame_next said FRAME_NONE: the bytes held of the next message,
 * to be pushed into another framer (a re-exec hands them over).  -1 in
 * discard mode, whose state is not carried: the rest of that message is
 * then a line of its own to the next framer.
 */
int		 frame_pending(const struct frame *, const char **bytes,
		    size_t *len);

#endif /* MCPD_FRAME_H */
