/*
 * audit.c -- the record of a call (pure): its name, its arguments'
 * keyed hash and canonical text, and its journal entry (audit.h).
 */
#include "config.h"

#include <sys/types.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <cjson/cJSON.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "audit.h"
#include "esc.h"
#include "proto.h"
#include "rstate.h"
#include "util.h"
#include "xmalloc.h"

static const char *audit_outcome_names[] = {
	[AUDIT_OK] = "ok",
	[AUDIT_ERROR] = "error",
	[AUDIT_TIMEOUT] = "timeout",
	[AUDIT_CANCELLED] = "cancelled",
	[AUDIT_GONE] = "gone",
	[AUDIT_FAILED] = "failed",
	[AUDIT_OVERSIZE] = "oversize",
	[AUDIT_REFUSED] = "refused",
};

static const char *audit_method_names[] = {
	[AUDIT_NONE] = NULL,
	[AUDIT_TOOL] = "tools/call",
	[AUDIT_PROMPT] = "prompts/get",
	[AUDIT_RESOURCE] = "resources/read",
};

enum audit_what
audit_method(const char *method)
{
	size_t	 i;

	for (i = AUDIT_TOOL; i < nitems(audit_method_names); i++) {
		if (strcmp(method, audit_method_names[i]) == 0)
			return ((enum audit_what)i);
	}
	return (AUDIT_NONE);
}

const char *
audit_method_name(enum audit_what what)
{
	if ((size_t)what >= nitems(audit_method_names) || what == AUDIT_NONE)
		return ("unknown");
	return (audit_method_names[what]);
}

const char *
audit_outcome_name(enum audit_outcome outcome)
{
	if ((size_t)outcome >= nitems(audit_outcome_names))
		return ("unknown");
	return (audit_outcome_names[outcome]);
}

/*
 * rstate.c's canonical text, the one of the tree: of an object holding
 * the value alone (so that no member of the value is taken for one of
 * the request's own that it leaves out), less that object's braces.
 */
char *
audit_canonical(const cJSON *v)
{
	static const char	 head[] = "{\"a\":";
	cJSON			*wrap;
	char			*text, *inner;
	size_t			 len;

	wrap = cJSON_CreateObject();
	if (wrap == NULL || !cJSON_AddItemReferenceToObject(wrap, "a",
	    (cJSON *)v))
		abort();
	text = rstate_canonical(wrap);
	cJSON_Delete(wrap);
	len = strlen(text);
	if (len < sizeof head || memcmp(text, head, sizeof head - 1) != 0 ||
	    text[len - 1] != '}')
		abort();
	inner = xstrndup(text + sizeof head - 1, len - sizeof head);
	free(text);
	return (inner);
}

void
audit_hmac_hex(const uint8_t *key, const char *text, size_t len,
    char out[AUDIT_HMAC_HEX + 1])
{
	unsigned char	 mac[EVP_MAX_MD_SIZE];
	unsigned int	 maclen = 0, i;

	if (HMAC(EVP_sha256(), key, AUDIT_KEY_BYTES,
	    (const unsigned char *)text, len, mac, &maclen) == NULL ||
	    maclen != AUDIT_HMAC_HEX / 2)
		abort();
	for (i = 0; i < maclen; i++)
		snprintf(out + 2 * i, 3, "%02x", mac[i]);
	out[AUDIT_HMAC_HEX] = '\0';
}

struct audit_call *
audit_call_new(enum audit_what what, const char *params, size_t len,
    int full, const uint8_t *key, size_t bytes_in)
{
	struct audit_call	*call;
	cJSON			*p = NULL, *name, *args;
	char			*text;
	size_t			 tlen, keep;

	call = xcalloc(1, sizeof *call);
	call->what = what;
	call->bytes_in = bytes_in;
	if (params != NULL && len > 0)
		p = cJSON_ParseWithLength(params, len);
	if (!cJSON_IsObject(p)) {
		cJSON_Delete(p);
		p = NULL;
	}
	name = cJSON_GetObjectItemCaseSensitive(p,
	    what == AUDIT_RESOURCE ? "uri" : "name");
	if (cJSON_IsString(name))
		call->name = esc_text_max(name->valuestring,
		    strlen(name->valuestring), 0, AUDIT_NAME_MAX);
	if (what == AUDIT_RESOURCE) {
		cJSON_Delete(p);
		return (call);
	}
	/* No arguments hash as an empty object: a call is a call. */
	args = cJSON_GetObjectItemCaseSensitive(p, "arguments");
	text = args != NULL ? audit_canonical(args) : xstrdup("{}");
	tlen = strlen(text);
	audit_hmac_hex(key, text, tlen, call->hmac);
	if (full) {
		keep = esc_cut(text, tlen, AUDIT_ARGS_MAX);
		call->args_cut = keep < tlen;
		call->args = xmalloc(keep + sizeof AUDIT_CUT_NOTE);
		memcpy(call->args, text, keep);
		if (call->args_cut)
			memcpy(call->args + keep, AUDIT_CUT_NOTE,
			    sizeof AUDIT_CUT_NOTE);
		else
			call->args[keep] = '\0';
	}
	free(text);
	cJSON_Delete(p);
	return (call);
}

void
audit_call_free(struct audit_call *call)
{
	if (call == NULL)
		return;
	free(call->name);
	free(call->args);
	free(call);
}

const char *
audit_app_name(const char *exe, const char *unit, const char *app_id)
{
	const char	*slash;

	if (app_id != NULL && *app_id != '\0')
		return (app_id);
	if (unit != NULL && *unit != '\0')
		return (unit);
	if (exe == NULL || *exe == '\0')
		return (NULL);
	if ((slash = strrchr(exe, '/')) != NULL && slash[1] != '\0')
		return (slash + 1);
	return (exe);
}

struct audit_fields {
	char	**v;
	size_t	  n;
	size_t	  cap;
};

static void __attribute__((format(printf, 2, 3)))
audit_add(struct audit_fields *f, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	if (f->n + 2 > f->cap) {
		f->cap = f->cap == 0 ? 24 : f->cap * 2;
		f->v = xreallocarray(f->v, f->cap, sizeof *f->v);
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) == -1)
		abort();
	va_end(ap);
	f->v[f->n++] = s;
	f->v[f->n] = NULL;
}

static const char *
audit_name_field(enum audit_what what)
{
	switch (what) {
	case AUDIT_TOOL:
		return (MCPD_FIELD_TOOL);
	case AUDIT_PROMPT:
		return (MCPD_FIELD_PROMPT);
	case AUDIT_RESOURCE:
		return (MCPD_FIELD_URI);
	case AUDIT_NONE:
		break;
	}
	return (NULL);
}

static void
audit_message(struct audit_fields *f, const struct audit_call *call,
    const struct audit_end *end, const char *outcome)
{
	char	*app;

	app = end->app != NULL ? esc_text_max(end->app, strlen(end->app), 0,
	    128) : NULL;
	audit_add(f, "MESSAGE=audit: %s %s%s%s from pid %ld%s%s%s: %s after "
	    "%.1f ms", end->server, audit_method_name(call->what),
	    call->name != NULL ? " " : "",
	    call->name != NULL ? call->name : "", (long)end->pid,
	    app != NULL ? " (" : "", app != NULL ? app : "",
	    app != NULL ? ")" : "", outcome,
	    (double)end->duration_us / 1000.0);
	free(app);
}

char **
audit_entry(const struct audit_call *call, const struct audit_end *end,
    size_t *n)
{
	struct audit_fields	 f = { NULL, 0, 0 };
	const char		*hash, *field;
	char			 outcome[48], said[96];

	if (end->outcome == AUDIT_ERROR)
		snprintf(outcome, sizeof outcome, "error %ld", call->code);
	else
		snprintf(outcome, sizeof outcome, "%s",
		    audit_outcome_name(end->outcome));
	if (end->outcome == AUDIT_REFUSED)
		snprintf(said, sizeof said, "refused by mcpd (%s, error %ld)",
		    call->reason != NULL ? call->reason : "?", call->code);
	else
		snprintf(said, sizeof said, "%s", outcome);
	audit_message(&f, call, end, said);
	audit_add(&f, "PRIORITY=%d", LOG_INFO);
	audit_add(&f, "SYSLOG_IDENTIFIER=mcpd");
	audit_add(&f, "MESSAGE_ID=%s", MCPD_MID_AUDIT);
	/* An instance: its server's name, and its own (log.c does so). */
	if ((hash = strchr(end->server, '#')) != NULL) {
		audit_add(&f, "%s=%.*s", MCPD_FIELD_SERVER,
		    (int)(hash - end->server), end->server);
		audit_add(&f, "%s=%s", MCPD_FIELD_INSTANCE, end->server);
	} else
		audit_add(&f, "%s=%s", MCPD_FIELD_SERVER, end->server);
	audit_add(&f, "%s=%s", MCPD_FIELD_METHOD,
	    audit_method_name(call->what));
	if ((field = audit_name_field(call->what)) != NULL &&
	    call->name != NULL)
		audit_add(&f, "%s=%s", field, call->name);
	audit_add(&f, "%s=%ld", MCPD_FIELD_CLIENT_PID, (long)end->pid);
	audit_add(&f, "%s=%lu", MCPD_FIELD_CLIENT_UID,
	    (unsigned long)end->uid);
	if (end->app_pid != 0 && end->app_pid != end->pid)
		audit_add(&f, "%s=%ld", MCPD_FIELD_APP_PID,
		    (long)end->app_pid);
	if (end->app != NULL)
		audit_add(&f, "%s=%s", MCPD_FIELD_APP, end->app);
	if (end->app_exe != NULL)
		audit_add(&f, "%s=%s", MCPD_FIELD_APP_EXE, end->app_exe);
	if (end->app_unit != NULL)
		audit_add(&f, "%s=%s", MCPD_FIELD_APP_UNIT, end->app_unit);
	if (end->token != NULL)
		audit_add(&f, "%s=%s", MCPD_FIELD_TOKEN, end->token);
	audit_add(&f, "%s=%llu", MCPD_FIELD_DURATION_US,
	    (unsigned long long)end->duration_us);
	audit_add(&f, "%s=%s", MCPD_FIELD_OUTCOME, outcome);
	if (end->outcome == AUDIT_REFUSED) {
		if (call->reason != NULL)
			audit_add(&f, "%s=%s", MCPD_FIELD_REASON,
			    call->reason);
		audit_add(&f, "%s=%ld", MCPD_FIELD_ERROR_CODE, call->code);
	}
	audit_add(&f, "%s=%zu", MCPD_FIELD_BYTES_IN, call->bytes_in);
	audit_add(&f, "%s=%zu", MCPD_FIELD_BYTES_OUT, call->bytes_out);
	if (call->hmac[0] != '\0')
		audit_add(&f, "%s=%s", MCPD_FIELD_ARGS_HMAC, call->hmac);
	if (call->args != NULL) {
		audit_add(&f, "%s=%s", MCPD_FIELD_ARGS, call->args);
		if (call->args_cut)
			audit_add(&f, "%s=1", MCPD_FIELD_ARGS_TRUNCATED);
	}
	*n = f.n;
	return (f.v);
}

void
audit_entry_free(char **v)
{
	size_t	 i;

	if (v == NULL)
		return;
	for (i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}
