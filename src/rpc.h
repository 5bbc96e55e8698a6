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

enum rpc_kind {
	RPC_KIND_INVALID,
	RPC_KIND_REQUEST,	/* method + id */
	RPC_KIND_NOTIFICATION,	/* method, no id */
	RPC_KIND_RESPONSE,	/* result or error + id */
};

enum rpc_kind	 rpc_classify(const cJSON *msg);
/* An id must be a string or a number (null only in error responses). */
int		 rpc_id_valid(const cJSON *id);

cJSON	*rpc_make_request(const cJSON *id, const char *method, cJSON *params);
cJSON	*rpc_make_notification(const char *method, cJSON *params);
cJSON	*rpc_make_result(const cJSON *id, cJSON *result);
cJSON	*rpc_make_error(const cJSON *id, int code, const char *message,
	    cJSON *data);
char	*rpc_print(const cJSON *msg);

#endif /* MCPD_RPC_H */
