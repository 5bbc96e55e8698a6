/*
 * batch.h -- a JSON-RPC batch (a JSON array of messages, MCP 2025-03-26):
 * its messages found where they lie in the line, without a tree (pure).
 *
 * The line is checked whole first: invalid JSON is one parse error, an
 * empty array or one of more than max messages one invalid request, as
 * JSON-RPC answers them.  A message that is not an object is the
 * caller's to answer (an invalid request with a null id, in the batch's
 * answer); objects are scanned as any line is, by whoever takes them.
 */
#ifndef MCPD_BATCH_H
#define MCPD_BATCH_H

#include <stddef.h>

/* Messages in one batch. */
#define BATCH_MAX_MESSAGES	256

struct batch_span {
	size_t	 off;
	size_t	 len;
	int	 object;	/* a JSON object (else any other value) */
};

/* Is line[0, len) an array (its first byte past whitespace a '[')? */
int	 batch_is(const char *line, size_t len);
/*
 * The messages of a batch, in order: 0, with *spans (malloc'd) and *n;
 * or -1, with the JSON-RPC error code of the one answer and *why
 * (malloc'd).
 */
int	 batch_split(const char *line, size_t len, size_t max,
	    struct batch_span **spans, size_t *n, int *code, char **why);

#endif /* MCPD_BATCH_H */
