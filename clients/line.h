/*
 * line.h -- a connection to mcpd as lines: what comes in is cut into
 * messages by the shared framer, what goes out waits in a queue, and one
 * wait with a deadline moves both.  The line reader of every command, of
 * the MCP session and of the bridge's attach.
 *
 * Bytes are read at most FRAME_READ_CHUNK_BYTES at a time and handed to
 * the framer one line at a time, so after any message the bytes read
 * past it are at hand (line_rest) for whoever takes the socket over.
 */
#ifndef MCPD_LINE_H
#define MCPD_LINE_H

#include <stddef.h>
#include <stdint.h>

#include "frame.h"

enum line_event {
	LINE_MESSAGE,		/* a message (msg->line, msg->len) */
	LINE_OVERSIZE,		/* one over the limit passed (msg->id) */
	LINE_GARBAGE,		/* mcpd sent what is not messages (total) */
	LINE_EOF,		/* mcpd closed (line_read_errno: why, or 0) */
	LINE_TIMEOUT,		/* the deadline passed */
	LINE_POLL_ERROR,	/* poll failed (errno) */
};

struct line;

/*
 * Take over fd (a connected socket) for messages of up to max_bytes;
 * rest holds rest_len bytes already read from it (at most a read chunk,
 * as line_release gives), or is NULL.
 */
struct line	*line_new(int fd, size_t max_bytes, const char *rest,
		    size_t rest_len);
/* Close the socket and free; NULL is fine. */
void		 line_free(struct line *);

/* Queue text and a newline to send, and send what the socket takes now. */
void		 line_send(struct line *, const char *text);
/* Sending failed (mcpd is gone): the errno, else 0.  Nothing is queued. */
int		 line_write_errno(const struct line *);
/* After LINE_EOF: why reading ended, or 0 for an orderly close. */
int		 line_read_errno(const struct line *);
/*
 * The socket, for a caller that waits on other things too: poll it for
 * POLLIN, then take what came with line_next.  It stays the line's.
 */
int		 line_fd(const struct line *);

/*
 * The next event, waiting until deadline (clock_now_ms; 0: forever) and
 * sending queued bytes meanwhile.  After LINE_EOF or LINE_GARBAGE it
 * returns LINE_EOF.
 */
enum line_event	 line_next(struct line *, uint64_t deadline,
		    struct frame_msg *msg);
/* Send what is queued, reading meanwhile, until deadline at most. */
void		 line_drain(struct line *, uint64_t deadline);
/*
 * Right after a message: give up the socket and return its fd; *rest
 * (malloc'd or NULL) holds the *rest_len bytes read past that message,
 * at most a read chunk.
 */
int		 line_release(struct line *, char **rest, size_t *rest_len);

#endif /* MCPD_LINE_H */
