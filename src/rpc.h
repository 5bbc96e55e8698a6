/*
 * rpc.h -- building and classifying JSON-RPC 2.0 messages with cJSON, for
 * the control plane and for the small messages that need a tree.
 *
 * Every rpc_make_* function takes ownership of the cJSON arguments it is
 * given (params, result, data) and copies ids it is given as const.
 * rpc_print returns a malloc'd single-line string without the newline.
 */
#ifndef MCPD_RPC_H
#define MCPD_RPC_H

#include <stdint.h>

#include <cjson/cJSON.h>

struct envelope;
struct envelope_value;

/*
 * The most mcpd ever hands cJSON from a peer: control requests' params,
 * a client's initialize, a server's initialize result.  Anything larger
 * only ever takes the scanner's path (a tree costs some 40 times the text).
 */
#define RPC_PARSE_MAX_BYTES	(1024 * 1024)

enum rpc_kind {
	RPC_KIND_INVALID,
	RPC_KIND_REQUEST,	/* method + id */
	RPC_KIND_NOTIFICATION,	/* method, no id */
	RPC_KIND_RESPONSE,	/* result or error + id */
};

enum rpc_kind	 rpc_classify(const cJSON *msg);
/*
 * The same for a message envelope_scan accepted, and stricter: "jsonrpc"
 * must be "2.0".  For RPC_KIND_INVALID, *why is the error message.
 */
enum rpc_kind	 rpc_classify_envelope(const char *line,
		    const struct envelope *env, const char **why);
/* Whether the scanned message has an id a reply can carry. */
int		 rpc_envelope_has_id(const struct envelope *env);
/*
 * The error for a line envelope_scan refused at byte erroff: returns
 * RPC_PARSE_ERROR (not JSON) or RPC_INVALID_REQUEST (JSON, but not one
 * message object) and sets *message (malloc'd).  Lines over
 * RPC_PARSE_MAX_BYTES are not scanned again to tell: parse errors.
 */
int		 rpc_scan_error(const char *line, size_t len, size_t erroff,
		    char **message);
/*
 * Is line[0, len) one valid JSON value (strict RFC 8259, any type; an
 * object may repeat a member)?  Checked by envelope_scan: no tree.
 */
int		 rpc_json_valid(const char *line, size_t len);
/* An id must be a string or a number (null only in error responses). */
int		 rpc_id_valid(const cJSON *id);
/*
 * An id as the peer wrote it, byte for byte, as a cJSON raw item: what
 * rpc_make_* copy and print back ("1.0" stays 1.0, 1e400 stays 1e400).
 */
cJSON		*rpc_id_raw(const char *line, const struct envelope_value *id);

cJSON	*rpc_make_request(const cJSON *id, const char *method, cJSON *params);
cJSON	*rpc_make_notification(const char *method, cJSON *params);
cJSON	*rpc_make_result(const cJSON *id, cJSON *result);
cJSON	*rpc_make_error(const cJSON *id, int code, const char *message,
	    cJSON *data);
char	*rpc_print(const cJSON *msg);

#endif /* MCPD_RPC_H */
