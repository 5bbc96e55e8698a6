/*
 * router_filter.c -- what a server's filters (filter.h) hide from every
 * client of its session: entries of the list replies are removed, and
 * calls, gets, reads, subscriptions and completions of hidden names are
 * refused by mcpd without reaching the server.  URIs are judged in their
 * normal form (urinorm.h), and one without is refused too.
 *
 * Invariants:
 * - The router's filters are its own copies, taken from the worker's
 *   configuration when the router is made and replaced on reload
 *   (router_set_filters); a change applies to the next request or reply,
 *   and every attached client is told its lists changed.
 * - The client's policy (router_policy.c) is judged here too, after the
 *   server's filters: what they hide is refused as hidden, what it
 *   denies with an error that names it.
 * - r->filtered is 0 while no kind has a filter, and a->policed while
 *   the client's policy restricts nothing: the two hooks in router_up.c
 *   and router_down.c then cost two tests and nothing is parsed.  With
 *   a filter, a list reply is narrowed from its text (filter_list_text),
 *   never through cJSON.
 * - A list reply a filter applies to but that is not the expected shape
 *   never reaches the client: it gets an error instead.
 */
#include "config.h"

#include <sys/queue.h>
#include <sys/uio.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "cpolicy.h"
#include "envelope.h"
#include "esc.h"
#include "filter.h"
#include "log.h"
#include "proto.h"
#include "router.h"
#include "router_int.h"
#include "worker.h"

/* How much of a refused name the error quotes. */
#define ROUTER_FILTER_QUOTE_BYTES	256

/* What a client is sent when its view of a kind changed (the policy's too). */
const char *const router_filter_changed[FILTER_KINDS] = {
	[FILTER_TOOLS] = "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/tools/list_changed\"}",
	[FILTER_PROMPTS] = "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/prompts/list_changed\"}",
	[FILTER_RESOURCES] = "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/resources/list_changed\"}",
};

void
router_filter_init(struct router *r)
{
	const struct conf_server *cs = r->up->conf(r->worker);
	size_t	 k;

	r->filtered = 0;
	for (k = 0; k < FILTER_KINDS; k++) {
		r->filters[k] = filter_dup(cs->filters[k]);
		if (r->filters[k] != NULL)
			r->filtered = 1;
	}
}

void
router_filter_clear(struct router *r)
{
	size_t	 k;

	router_pins_free(r);
	for (k = 0; k < FILTER_KINDS; k++) {
		filter_free(r->filters[k]);
		r->filters[k] = NULL;
	}
	r->filtered = 0;
}

unsigned int
router_set_filters(struct router *r, struct filter *const *filters)
{
	struct attachment	*a;
	unsigned int		 changed = 0;
	size_t			 k;

	r->filtered = 0;
	for (k = 0; k < FILTER_KINDS; k++) {
		if (!filter_equal(r->filters[k], filters[k])) {
			filter_free(r->filters[k]);
			r->filters[k] = filter_dup(filters[k]);
			changed |= 1U << k;
		}
		if (r->filters[k] != NULL)
			r->filtered = 1;
	}
	if (router_pins_active(r))
		r->filtered = 1;
	TAILQ_FOREACH(a, &r->atts, entry) {
		/*
		 * Clients only, as before the peer table: a group's link was
		 * never sent these (its session merges lists of its own).
		 */
		if (a->peer->link)
			continue;
		for (k = 0; k < FILTER_KINDS; k++) {
			if (!(changed & (1U << k)))
				continue;
			router_peer_queue(a, &(struct iovec){
			    (void *)router_filter_changed[k],
			    strlen(router_filter_changed[k]) }, 1);
		}
	}
	return (changed);
}

/* Refuse a request for name, which a filter hides (quoted, cut). */
static void
router_filter_refuse(struct attachment *a, const char *line,
    const struct envelope *env, int code, const char *what,
    const char *name)
{
	int	 shown = (int)esc_cut(name, strlen(name),
			    ROUTER_FILTER_QUOTE_BYTES);

	if (code == RPC_RESOURCE_NOT_FOUND)
		router_client_error(a, router_text(line, &env->id),
		    env->id.len, code, "resource not found: %.*s%s%s", shown,
		    name, name[shown] != '\0' ? "..." : "",
		    MCPD_FILTER_HIDDEN_NOTE);
	else
		router_client_error(a, router_text(line, &env->id),
		    env->id.len, code, "unknown %s: %.*s%s%s", what, shown,
		    name, name[shown] != '\0' ? "..." : "",
		    MCPD_FILTER_HIDDEN_NOTE);
}

/*
 * completion/complete: the prompt or resource template its ref names is
 * judged as prompts/get and the template lists are, so that a hidden one
 * tells nothing of its arguments' values.
 */
static int
router_filter_complete(struct attachment *a, const char *line,
    const struct envelope *env)
{
	struct router	*r = a->router;
	enum filter_ref	 ref = FILTER_REF_BAD;
	const char	*what = NULL;
	char		*name = NULL;
	int		 pass = 1;

	if (r->filters[FILTER_PROMPTS] == NULL &&
	    r->filters[FILTER_RESOURCES] == NULL && !a->policed)
		return (0);
	if (env->params.type == ENVELOPE_OBJECT)
		ref = filter_complete_ref(router_text(line, &env->params),
		    env->params.len, &name);
	switch (ref) {
	case FILTER_REF_OTHER:
		return (0);
	case FILTER_REF_BAD:
		/* What cannot be judged is refused. */
		router_client_error(a, router_text(line, &env->id),
		    env->id.len, RPC_INVALID_PARAMS, "invalid params: ref must "
		    "be a ref/prompt with a string name or a ref/resource "
		    "with a string uri (without \\u0000), each member once");
		return (1);
	case FILTER_REF_PROMPT:
		what = "prompt";
		pass = filter_allows(r->filters[FILTER_PROMPTS], name);
		break;
	case FILTER_REF_RESOURCE:
		what = "resource template";
		pass = filter_allows_template(r->filters[FILTER_RESOURCES],
		    name);
		break;
	}
	if (!pass)
		router_filter_refuse(a, line, env, RPC_INVALID_PARAMS, what,
		    name);
	else if (ref == FILTER_REF_PROMPT ? !router_policy_allows(a,
	    FILTER_PROMPTS, name) : !filter_allows_template(cpolicy_filter(
	    a->policy, FILTER_RESOURCES), name)) {
		router_policy_refuse(a, line, env, what, name);
		pass = 0;
	}
	free(name);
	return (!pass);
}

int
router_filter_refuses(struct attachment *a, const char *line,
    const struct envelope *env, const char *method,
    struct router_refusal *why_out)
{
	struct router			*r = a->router;
	const struct envelope_value	*v;
	const char			*id = router_text(line, &env->id);
	const char			*what, *member, *why;
	enum filter_kind		 kind;
	char				*name;
	int				 pass, shown;

	why_out->reason = "policy";
	why_out->code = MCPD_ERR_ACCESS_DENIED;
	/* A server the client's policy leaves out: nothing at all. */
	if (router_policy_refuses_all(a, line, env))
		return (1);
	if (strcmp(method, "tools/call") == 0) {
		kind = FILTER_TOOLS;
		what = "tool";
	} else if (strcmp(method, "prompts/get") == 0) {
		kind = FILTER_PROMPTS;
		what = "prompt";
	} else if (strcmp(method, "resources/read") == 0 ||
	    strcmp(method, "resources/subscribe") == 0) {
		kind = FILTER_RESOURCES;
		what = "resource";
	} else if (strcmp(method, "completion/complete") == 0)
		return (router_filter_complete(a, line, env));
	else
		return (0);
	why_out->reason = "held";
	why_out->code = RPC_INVALID_PARAMS;
	if (router_pins_refuses(a, line, env, method))
		return (1);
	if (r->filters[kind] == NULL && cpolicy_filter(a->policy, kind) ==
	    NULL)
		return (0);
	v = kind == FILTER_RESOURCES ? &env->p_uri : &env->p_name;
	member = kind == FILTER_RESOURCES ? "uri" : "name";
	why_out->reason = "invalid";
	if ((name = envelope_string_dup(line, v, SIZE_MAX, NULL)) == NULL) {
		/* What cannot be judged is refused. */
		router_client_error(a, id, env->id.len, RPC_INVALID_PARAMS,
		    "invalid params: %s must be a string (without \\u0000 "
		    "or lone surrogates)", member);
		return (1);
	}
	if (kind != FILTER_RESOURCES)
		pass = filter_allows(r->filters[kind], name);
	else if ((pass = filter_check_uri(r->filters[kind], name,
	    &why)) == -1) {
		shown = (int)esc_cut(name, strlen(name),
		    ROUTER_FILTER_QUOTE_BYTES);
		router_client_error(a, id, env->id.len, RPC_INVALID_PARAMS,
		    "invalid params: uri %.*s%s is refused by this server's "
		    "resource filter, which compares URIs in their normal "
		    "form: it has %s", shown, name, name[shown] != '\0' ?
		    "..." : "", why);
		free(name);
		return (1);
	}
	if (!pass) {
		why_out->reason = "filter";
		why_out->code = kind == FILTER_RESOURCES ?
		    RPC_RESOURCE_NOT_FOUND : RPC_INVALID_PARAMS;
		router_filter_refuse(a, line, env, why_out->code, what, name);
	} else if (!router_policy_allows(a, kind, name)) {
		why_out->reason = "policy";
		why_out->code = MCPD_ERR_ACCESS_DENIED;
		router_policy_refuse(a, line, env, what, name);
		pass = 0;
	}
	free(name);
	return (!pass);
}

/*
 * A result's text narrowed by one filter, then the other: *text and *len
 * follow the newest (malloc'd in *owned, which the next one replaces).
 */
static enum filter_result
router_filter_then(enum filter_result res, enum filter_result next,
    char **owned, char *out, size_t outlen, const char **text, size_t *len)
{
	if (res == FILTER_BAD || next == FILTER_BAD) {
		free(out);
		return (FILTER_BAD);
	}
	if (next != FILTER_CHANGED)
		return (res);
	free(*owned);
	*owned = out;
	*text = out;
	*len = outlen;
	return (FILTER_CHANGED);
}

static enum filter_result
router_filter_reply_conf(struct attachment *a, const char *method,
    const char *line, const struct envelope *env, struct envelope_edit *edit)
{
	struct router		*r = a->router;
	enum filter_list	 list;
	enum filter_result	 res, next;
	const struct filter	*f;
	const char		*text;
	char			*owned = NULL, *out;
	size_t			 len, outlen;

	if (env->result.type != ENVELOPE_OBJECT && strcmp(method,
	    "tools/call") == 0)
		return (FILTER_KEPT);
	text = router_text(line, &env->result);
	len = env->result.len;
	/* A call's result may link resources the client may not see. */
	if (strcmp(method, "tools/call") == 0) {
		res = FILTER_KEPT;
		if ((f = r->filters[FILTER_RESOURCES]) != NULL &&
		    filter_links_text(f, text, len, &out, &outlen) ==
		    FILTER_CHANGED)
			res = router_filter_then(res, FILTER_CHANGED, &owned,
			    out, outlen, &text, &len);
		if (router_policy_links(a, text, len, &out, &outlen) ==
		    FILTER_CHANGED)
			res = router_filter_then(res, FILTER_CHANGED, &owned,
			    out, outlen, &text, &len);
	} else if (filter_list_of_method(method, &list) != 0 ||
	    (r->filters[filter_list_kind(list)] == NULL &&
	    cpolicy_filter(a->policy, filter_list_kind(list)) == NULL))
		return (FILTER_KEPT);
	else if (env->result.type != ENVELOPE_OBJECT)
		res = FILTER_BAD;
	else {
		res = filter_list_text(r->filters[filter_list_kind(list)],
		    list, text, len, &out, &outlen);
		res = router_filter_then(FILTER_KEPT, res, &owned, out,
		    outlen, &text, &len);
		if (res != FILTER_BAD) {
			next = router_policy_list(a, list, text, len, &out,
			    &outlen);
			res = router_filter_then(res, next, &owned, out,
			    outlen, &text, &len);
		}
	}
	switch (res) {
	case FILTER_KEPT:
		break;
	case FILTER_CHANGED:
		edit->off = env->result.off;
		edit->len = env->result.len;
		edit->text = owned;
		edit->text_len = len;
		return (res);
	case FILTER_BAD:
		r->up->violation(r->worker, "invalid", "a reply to %s that is "
		    "not a list result with a \"%s\" array; its client gets "
		    "an error, since mcpd cannot filter it", method,
		    filter_list_member(list));
		break;
	}
	free(owned);
	return (res);
}

enum filter_result
router_filter_reply(struct attachment *a, const char *method,
    const char *line, const struct envelope *env, struct envelope_edit *edit)
{
	enum filter_result	 res;

	res = router_filter_reply_conf(a, method, line, env, edit);
	/* Then what a server changed since approved (router_pins.c). */
	return (router_pins_narrow(a->router, method, line, env, edit, res));
}
