/*
 * ring.h -- a bounded ring of text lines (pure), used for each server's
 * stderr so `mcpctl logs` can show recent output.
 *
 * Lines carry a sequence number that grows forever, so a reader in follow
 * mode asks for "everything after seq N".  When the byte budget or the
 * line budget is exceeded the oldest lines are dropped.  A line longer
 * than RING_LINE_MAX_BYTES is truncated.  Lines are bytes with a length:
 * a NUL or bytes that are not UTF-8 are held as they came.
 */
#ifndef MCPD_RING_H
#define MCPD_RING_H

#include <stddef.h>
#include <stdint.h>

#define RING_LINE_MAX_BYTES	4096

struct ring;

struct ring	*ring_new(size_t max_bytes, size_t max_lines);
void		 ring_free(struct ring *);
void		 ring_push(struct ring *, const char *line, size_t len,
		    uint64_t realtime_us);
size_t		 ring_count(const struct ring *);
/* Sequence number of the oldest held line and of the next line pushed. */
uint64_t	 ring_first_seq(const struct ring *);
uint64_t	 ring_next_seq(const struct ring *);
/* Line with sequence seq, or NULL if no longer (or not yet) held. */
const char	*ring_get(const struct ring *, uint64_t seq, size_t *len,
		    uint64_t *realtime_us);
/*
 * Line seq as one JSON object, {"server":S,"seq":N,"time_us":T,"text":L},
 * the numbers as integers and the text whole, as esc_json_string makes
 * it; a new string, or NULL if the line is not held.
 */
char		*ring_line_json(const struct ring *, uint64_t seq,
		    const char *server);

#endif /* MCPD_RING_H */
