/*
 * router_version.c -- each client its own MCP revision over the server's
 * one session (src/pversion.h).  A client's initialize is answered with
 * the revision it asked for, when mcpd speaks it, and only the
 * capabilities that revision has; what the server sends an older client
 * is made fit for it (the older of the two revisions rules): replies'
 * content, the server's requests, which go only to clients that declared
 * what they need, and notifications, which a revision without them never
 * gets.  Batches are for the revision that has them (client_batch.c).
 *
 * Invariants:
 * - An attachment's revision is the newest until its initialize, and
 *   its "can" nothing: a client that never said what it can is asked
 *   nothing, as before revisions were told apart.
 * - A reply is looked at only for a client older than the server's
 *   session (a->version < r->up_version): for the others the reply path
 *   costs one comparison.  For a group's link the group converts (after
 *   its own filter), so the router leaves its replies as they are; the
 *   server's requests and notifications it judges for links as for any
 *   client, by the revision the group's client asked for.
 */
#include "config.h"

#include <sys/queue.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "envelope.h"
#include "pversion.h"
#include "router.h"
#include "router_int.h"
#include "rpc.h"
#include "util.h"
#include "xmalloc.h"

void
router_version_hello(struct attachment *a, const cJSON *params)
{
	const cJSON	*asked;

	asked = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
	a->version = pversion_negotiate(cJSON_IsString(asked) ?
	    asked->valuestring : NULL);
	a->can = pversion_client_can(cJSON_GetObjectItemCaseSensitive(params,
	    "capabilities"), a->version);
	a->cap_sampling = (a->can & PVERSION_CAN_SAMPLING) != 0;
	a->cap_elicitation = (a->can & (PVERSION_CAN_ELICIT_FORM |
	    PVERSION_CAN_ELICIT_URL)) != 0;
}

/* The server's session's revision, from its initialize result. */
static void
router_version_of_server(struct router *r, const cJSON *result)
{
	const cJSON	*v;
	enum pversion	 up;

	v = cJSON_GetObjectItemCaseSensitive(result, "protocolVersion");
	if (cJSON_IsString(v) && pversion_parse(v->valuestring, &up) == 0)
		r->up_version = up;
	else
		r->up_version = PVERSION_NEWEST;
}

void
router_version_session(struct router *r)
{
	const char	*text;
	cJSON		*result;

	if ((text = r->up->init_result_text(r->worker)) == NULL)
		return;
	result = cJSON_Parse(text);
	router_version_of_server(r, result);
	cJSON_Delete(result);
}

char *
router_version_init_result(struct attachment *a)
{
	struct router	*r = a->router;
	const char	*cached;
	cJSON		*result;
	char		*text;

	cached = r->up->init_result_text(r->worker);
	if (cached == NULL || (result = cJSON_Parse(cached)) == NULL)
		return (xstrdup(cached != NULL ? cached : "{}"));
	router_version_of_server(r, result);
	pversion_init_result(result, a->version);
	text = rpc_print(result);
	cJSON_Delete(result);
	return (text);
}

int
router_version_notify(const struct attachment *a, const char *method)
{
	return (pversion_notification(a->version, method));
}

int
router_attachment_batches(const struct attachment *a)
{
	return (pversion_has(a->version, PVERSION_BATCH));
}

/* Two edits in the order of their offsets. */
static void
router_version_sort(struct envelope_edit *edits, size_t nedits)
{
	struct envelope_edit	 tmp;

	if (nedits == 2 && edits[1].off < edits[0].off) {
		tmp = edits[0];
		edits[0] = edits[1];
		edits[1] = tmp;
	}
}

/*
 * The object at v (a result, params) made fit for a's revision, as an
 * edit among edits (at most 2): the one there for it already made over,
 * or a new one.  Returns the new text (the caller frees it after
 * sending), or NULL: nothing changed.
 */
static char *
router_version_edit(const struct attachment *a, const char *method,
    const char *line, const struct envelope_value *v,
    struct envelope_edit *edits, size_t *nedits)
{
	const char	*text;
	char		*out;
	size_t		 i, len, outlen;

	if (v->type != ENVELOPE_OBJECT ||
	    !pversion_converts(method, a->version))
		return (NULL);
	for (i = 0; i < *nedits; i++)
		if (edits[i].off == v->off && edits[i].len == v->len)
			break;
	text = i < *nedits ? edits[i].text : router_text(line, v);
	len = i < *nedits ? edits[i].text_len : v->len;
	if ((out = pversion_convert_text(text, len, method, a->version,
	    RPC_PARSE_MAX_BYTES, &outlen)) == NULL)
		return (NULL);
	if (i == *nedits) {
		if (*nedits == 2) {
			free(out);
			return (NULL);
		}
		(*nedits)++;
	}
	edits[i].off = v->off;
	edits[i].len = v->len;
	edits[i].text = out;
	edits[i].text_len = outlen;
	router_version_sort(edits, *nedits);
	return (out);
}

/* Out of line: the reply path of a client of the server's version is short. */
__attribute__((noinline)) void
router_version_reply(struct attachment *a, const char *method,
    const char *line, size_t len, const struct envelope *env,
    const struct envelope_edit *edits, size_t nedits)
{
	struct envelope_edit	 mine[2];
	char			*text = NULL;

	memcpy(mine, edits, nedits * sizeof *mine);
	/* A group's link: the group converts, after its own filter. */
	if (!a->peer->link)
		text = router_version_edit(a, method, line, &env->result,
		    mine, &nedits);
	router_send_client(a, line, len, mine, nedits);
	free(text);
}
void
router_request_needs(const char *method, const char *line,
    const struct envelope *env, struct pversion_needs *needs)
{
	const char	*text;
	cJSON		*params = NULL;

	if (env->params.type == ENVELOPE_OBJECT &&
	    env->params.len <= RPC_PARSE_MAX_BYTES)
		params = cJSON_ParseWithLength(router_text(line, &env->params),
		    env->params.len);
	pversion_request_needs(method, params, needs);
	/* Too large to read: what its text may hold is needed. */
	if (params == NULL && env->params.len > RPC_PARSE_MAX_BYTES &&
	    strcmp(method, "sampling/createMessage") == 0) {
		text = router_text(line, &env->params);
		if (bytes_has(text, env->params.len, "\"tools\"", 7, 1) ||
		    bytes_has(text, env->params.len, "tool_", 5, 4))
			needs->can |= PVERSION_CAN_SAMPLING_TOOLS;
		if (bytes_has(text, env->params.len, "\"task\"", 6, 1))
			needs->can |= PVERSION_CAN_TASK_SAMPLING;
	}
	cJSON_Delete(params);
	/*
	 * "task" is not needed of the client: one that runs no tasks gets
	 * the request without it (router_ctasks.c).
	 */
	needs->can &= ~(PVERSION_CAN_TASK_SAMPLING | PVERSION_CAN_TASK_ELICIT);
}

int
router_client_can(const struct attachment *a,
    const struct pversion_needs *needs)
{
	return (pversion_satisfies(a->version, a->can, needs));
}

void
router_version_send(struct attachment *a, const char *method,
    const char *line, size_t len, const struct envelope *env,
    const struct envelope_edit *id_edit)
{
	struct envelope_edit	 edits[2];
	size_t			 nedits = 1;
	char			*converted = NULL;

	edits[0] = *id_edit;
	if (a->version < PVERSION_NEWEST)
		converted = router_version_edit(a, method, line, &env->params,
		    edits, &nedits);
	router_send_client(a, line, len, edits, nedits);
	free(converted);
}
