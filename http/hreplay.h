/*
 * hreplay.h -- a session's replay buffer (Streamable HTTP 2025-11-25,
 * resumption with Last-Event-ID): the last events sent on its streams, or
 * held for a stream not open yet, each with its event id "S-G": S the
 * stream (0 the GET stream, 1.. the POST streams in the order they
 * started), G the session's count of events.  A client that lost a stream
 * sends the last id it saw; the events of that stream after it are
 * replayed if the buffer still holds every event since, else the stream
 * starts afresh (the spec lets a server replay, it does not make it).
 *
 * Bounded: HREPLAY_MAX_EVENTS events and HREPLAY_MAX_BYTES of their
 * text, the oldest dropped first; an event larger than the byte cap is
 * never held.  Pure: no I/O, no libevent.
 */
#ifndef MCPD_HREPLAY_H
#define MCPD_HREPLAY_H

#include <stddef.h>
#include <stdint.h>

#define HREPLAY_MAX_EVENTS	256
#define HREPLAY_MAX_BYTES	(512 * 1024)
#define HREPLAY_ID_MAX		32	/* "S-G" and its NUL */

struct hreplay_ev {
	uint64_t	 g;
	uint32_t	 stream;
	int		 sent;		/* written to a stream once */
	size_t		 len;
	char		*text;		/* the JSON-RPC message */
};

struct hreplay {
	struct hreplay_ev ev[HREPLAY_MAX_EVENTS];
	size_t		 head;		/* the oldest */
	size_t		 n;
	size_t		 bytes;
	uint64_t	 next_g;	/* the next event's G, from 1 */
	uint64_t	 first_g;	/* every event from here on is held */
};

void		 hreplay_init(struct hreplay *);
void		 hreplay_free(struct hreplay *);
/* An event of a stream, sent or held: its G. */
uint64_t	 hreplay_add(struct hreplay *, uint32_t stream, const char *text,
		    size_t len, int sent);
/* The i-th held event, oldest first (i < n). */
struct hreplay_ev *hreplay_at(struct hreplay *, size_t i);
/* Does the buffer hold every event after G (a resume can be complete)? */
int		 hreplay_complete(const struct hreplay *, uint64_t g);
/* "S-G" read: 0, or -1 if it is not an id this session could have sent. */
int		 hreplay_parse_id(const struct hreplay *, const char *,
		    uint32_t *stream, uint64_t *g);
void		 hreplay_format_id(char *buf, size_t, uint32_t stream,
		    uint64_t g);

#endif /* MCPD_HREPLAY_H */
