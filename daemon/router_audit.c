/*
 * router_audit.c -- a server's calls recorded ("audit"): a tools/call,
 * prompts/get or resources/read that goes upstream while its server's
 * "audit" is on gets a record (src/audit.c), its reply's length and
 * error code are noted as it comes, and the record goes to the queue
 * (auditq.c) with who made the call when it ends, whatever ends it.
 * A call mcpd refuses itself (router_filter_refuses) is recorded at once,
 * outcome "refused".
 * The setting is read at each call: a reload applies at once.  Nothing
 * here costs a call anything while "audit" is "off".
 */
#include "config.h"

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "audit.h"
#include "auditq.h"
#include "clock.h"
#include "conf.h"
#include "envelope.h"
#include "htoken.h"
#include "ident.h"
#include "router.h"
#include "router_int.h"

void
router_audit_begin(struct router *r, struct router_pending *p,
    const char *line, size_t len, const struct envelope *env)
{
	const struct conf_server *cs = r->up->conf(r->worker);
	enum audit_what		 what;

	if (cs->audit == CONF_AUDIT_OFF ||
	    (what = audit_method(p->method)) == AUDIT_NONE)
		return;
	p->audit = audit_call_new(what, env->params.type == ENVELOPE_OBJECT ?
	    line + env->params.off : NULL, env->params.len,
	    cs->audit == CONF_AUDIT_FULL, auditq_key(), len);
}

void
router_audit_reply(struct router_pending *p, const char *line, size_t len,
    const struct envelope *env)
{
	int64_t		 code;

	if (p->audit == NULL)
		return;
	p->audit->bytes_out = len;
	if (env->e_code.type == ENVELOPE_NUMBER &&
	    envelope_int64(line, &env->e_code, &code) == 0)
		p->audit->code = (long)code;
}

void
router_audit_gone(struct router_pending *p)
{
	if (p->audit != NULL)
		p->audit->gone = 1;
}

static enum audit_outcome
router_audit_outcome(enum router_outcome outcome, int gone)
{
	switch (outcome) {
	case ROUTER_OUTCOME_OK:
		return (AUDIT_OK);
	case ROUTER_OUTCOME_ERROR:
		return (AUDIT_ERROR);
	case ROUTER_OUTCOME_TIMEOUT:
		return (AUDIT_TIMEOUT);
	case ROUTER_OUTCOME_CANCELLED:
		return (gone ? AUDIT_GONE : AUDIT_CANCELLED);
	case ROUTER_OUTCOME_FAILED:
		return (AUDIT_FAILED);
	case ROUTER_OUTCOME_OVERSIZE:
	case ROUTER_OUTCOME_COUNT:
		break;
	}
	return (AUDIT_OVERSIZE);
}

/*
 * Who made the call: the attachment's peer and its app (router_app_name,
 * into app[size]: an HTTP client is "token:NAME").
 */
static void
router_audit_who(struct router *r, struct attachment *a,
    struct audit_end *end, char *app, size_t size)
{
	const struct ident	*id = NULL;

	end->server = r->up->name(r->worker);
	end->pid = a != NULL ? router_peer_pid(a) : 0;
	end->uid = a != NULL ? a->peer->uid(a->peer_arg) : (uid_t)-1;
	if (a != NULL && a->peer->ident != NULL)
		id = a->peer->ident(a->peer_arg);
	end->app = a != NULL ? router_app_name(a, app, size) : NULL;
	end->app_pid = id != NULL ? id->pid : 0;
	end->app_exe = id != NULL ? id->exe : NULL;
	end->app_unit = id != NULL ? id->unit : NULL;
	end->token = id != NULL ? id->token : NULL;
}

void
router_audit_end(struct router *r, struct router_pending *p,
    enum router_outcome outcome, uint64_t us)
{
	struct audit_end	 end;
	char			 app[ROUTER_APP_BUF];

	end.outcome = router_audit_outcome(outcome, p->audit->gone);
	end.duration_us = us;
	router_audit_who(r, p->att, &end, app, sizeof app);
	auditq_put(p->audit, &end);
	audit_call_free(p->audit);
	p->audit = NULL;
}

/*
 * A call mcpd answered with a refusal of its own (a client's policy, a
 * held pin, a filter): recorded at once, with no arguments' text even
 * with "full", since they went nowhere.
 */
void
router_audit_refused(struct attachment *a, const char *line, size_t len,
    const struct envelope *env, const char *method,
    const struct router_refusal *why)
{
	struct router		*r = a->router;
	const struct conf_server *cs = r->up->conf(r->worker);
	struct audit_call	*call;
	struct audit_end	 end;
	enum audit_what		 what;
	char			 app[ROUTER_APP_BUF];

	if (cs->audit == CONF_AUDIT_OFF ||
	    (what = audit_method(method)) == AUDIT_NONE)
		return;
	call = audit_call_new(what, env->params.type == ENVELOPE_OBJECT ?
	    line + env->params.off : NULL, env->params.len, 0, auditq_key(),
	    len);
	call->reason = why->reason;
	call->code = why->code;
	end.outcome = AUDIT_REFUSED;
	end.duration_us = 0;
	router_audit_who(r, a, &end, app, sizeof app);
	auditq_put(call, &end);
	audit_call_free(call);
}

void
router_refused_for(struct attachment *a, const char *line, size_t len,
    const char *reason, int code)
{
	struct router_refusal	 why = { reason, code };
	struct envelope		 env;
	char			 method[ROUTER_METHOD_MAX];
	size_t			 erroff;

	if (a == NULL || envelope_scan(line, len, &env, &erroff) != 0 ||
	    envelope_string_copy(line, &env.method, method,
	    sizeof method) < 0)
		return;
	router_apps_count(a, method, 1);
	router_audit_refused(a, line, len, &env, method, &why);
}
