/*
 * modern_input.h -- a server of MCP 2026-07-28 that asks for input
 * (input_required) for a request of a 2025 client (pure: no I/O;
 * daemon/worker_modern_input.c does the talking): the round it asks
 * for, read and checked; each of its input requests as a JSON-RPC
 * request for the router; the original request retried with the
 * client's answers and the server's requestState; the error that ends
 * a call when no answer can be had.
 */
#ifndef MCPD_MODERN_INPUT_H
#define MCPD_MODERN_INPUT_H

#include <stddef.h>
#include <stdint.h>

#define MODERN_INPUT_MAX_ASKS	16		/* input requests in a round */
#define MODERN_INPUT_KEY_MAX	256		/* bytes of a key */
#define MODERN_INPUT_STATE_MAX	(1024 * 1024)	/* bytes of requestState */
#define MODERN_INPUT_PARSE_MAX	(16 * 1024 * 1024) /* a result read */

/* One input request of a round: what the server asks of the client. */
struct modern_input_ask {
	char		*key;		/* the server's, for inputResponses */
	char		*method;	/* elicitation/create, ... */
	char		*params;	/* its params, JSON text, or NULL */
};

struct modern_input_round {
	struct modern_input_ask	*asks;
	size_t			 nasks;
	char			*state;	/* requestState, or NULL */
};

/*
 * A result (text of its object) read as a round: 1 for input_required,
 * filling round; 0 for any other result (nothing set); -1 for an
 * input_required result mcpd cannot pass on, with *why (malloc'd).
 */
int		 modern_input_read(const char *result, size_t len,
		    struct modern_input_round *, char **why);
void		 modern_input_clear(struct modern_input_round *);
/* "elicitation/create \"name\", roots/list \"dirs\"": for messages. */
char		*modern_input_names(const struct modern_input_round *);

/* ask as a JSON-RPC request under the id (raw JSON text), malloc'd. */
char		*modern_input_request(const char *id, size_t id_len,
		    const struct modern_input_ask *, size_t *len);

/*
 * The original request (line) retried: under id, its params with
 * inputResponses (key -> results[i], each a result object's JSON text)
 * and the round's requestState (or none).  NULL if line is not a
 * request with an object (or no) params, or a result is not an object.
 */
char		*modern_input_retry(const char *line, size_t len, int64_t id,
		    const struct modern_input_round *, char *const *results,
		    size_t *outlen);

/* The error that ends the call under id: a JSON-RPC line, malloc'd. */
char		*modern_input_error(int64_t id, int code, const char *message,
		    size_t *len);

#endif /* MCPD_MODERN_INPUT_H */
