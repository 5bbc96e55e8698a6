/*
 * router_audit.c -- a server's calls recorded ("audit"): a tools/call,
 * prompts/get or resources/read that goes upstream while its server's
 * "audit" is on gets a record (src/audit.c), its reply's length and
 * error code are noted as it comes, and the record goes to the queue
 * (auditq.c) with who made the call when it ends, whatever ends it.
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

void
router_audit_end(struct router *r, struct router_pending *p,
    enum router_outcome outcome, uint64_t us)
{
	const struct ident	*id = NULL;
	struct attachment	*a = p->att;
	struct audit_end	 end;
	char			 app[sizeof "token:" + HTOKEN_NAME_MAX];

	end.outcome = router_audit_outcome(outcome, p->audit->gone);
	end.duration_us = us;
	end.server = r->up->name(r->worker);
	end.pid = a != NULL ? router_peer_pid(a) : 0;
	end.uid = a != NULL ? a->peer->uid(a->peer_arg) : (uid_t)-1;
	if (a != NULL && a->peer->ident != NULL)
		id = a->peer->ident(a->peer_arg);
	end.app = id != NULL ? audit_app_name(id->exe, id->unit,
	    id->app_id) : NULL;
	end.app_pid = id != NULL ? id->pid : 0;
	end.app_exe = id != NULL ? id->exe : NULL;
	end.app_unit = id != NULL ? id->unit : NULL;
	/* An HTTP client is its token (ident_http.c). */
	end.token = id != NULL ? id->token : NULL;
	if (end.token != NULL) {
		snprintf(app, sizeof app, "token:%s", end.token);
		end.app = app;
	}
	auditq_put(p->audit, &end);
	audit_call_free(p->audit);
	p->audit = NULL;
}
