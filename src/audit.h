/*
 * audit.h -- the record of a call (pure): what mcpd writes to the
 * journal, with "audit" set, for each tools/call, prompts/get and
 * resources/read when it ends.
 *
 * A call is read when it starts (audit_call_new): the tool's or prompt's
 * name, or the resource's URI, and a keyed hash of its arguments,
 * HMAC-SHA256 under the install's key over their canonical text
 * (rstate.h's: every object's members sorted by the bytes of their
 * names, no whitespace, each number in the fewest digits that read back
 * as the same double), so that equal arguments hash alike
 * whatever their spelling and nobody without the key can test a guess.
 * With "full" the canonical text itself is kept, cut at AUDIT_ARGS_MAX
 * bytes (never inside a UTF-8 sequence) and said so.  The entry's
 * fields are made when it ends (audit_entry), as "NAME=value" strings
 * for sd_journal_sendv.  Promises: nothing here reads a byte past the
 * length it is given; params that are not a JSON object are recorded as
 * a call without a name, never refused.
 */
#ifndef MCPD_AUDIT_H
#define MCPD_AUDIT_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define AUDIT_KEY_BYTES		32
#define AUDIT_HMAC_HEX		64
#define AUDIT_ARGS_MAX		(64 * 1024)
#define AUDIT_NAME_MAX		1024	/* a name or URI kept, bytes */
/* What ends a cut MCPD_ARGS. */
#define AUDIT_CUT_NOTE		"...(truncated)"

enum audit_what {
	AUDIT_NONE,			/* a method not recorded */
	AUDIT_TOOL,			/* tools/call: MCPD_TOOL */
	AUDIT_PROMPT,			/* prompts/get: MCPD_PROMPT */
	AUDIT_RESOURCE,			/* resources/read: MCPD_URI */
};

enum audit_outcome {
	AUDIT_OK,
	AUDIT_ERROR,			/* "error CODE": the server's error */
	AUDIT_TIMEOUT,
	AUDIT_CANCELLED,		/* by the client, or it moved */
	AUDIT_GONE,			/* the client went away */
	AUDIT_FAILED,			/* the server went away */
	AUDIT_OVERSIZE,			/* the reply exceeded its limit */
	AUDIT_REFUSED,			/* by mcpd itself: never sent on */
};

struct audit_call {
	enum audit_what	 what;
	char		*name;		/* escaped, bounded; NULL: none */
	char		 hmac[AUDIT_HMAC_HEX + 1]; /* "": no arguments */
	char		*args;		/* "full": canonical, bounded */
	int		 args_cut;	/* args was cut */
	size_t		 bytes_in;
	/* Set by its caller as it ends. */
	size_t		 bytes_out;	/* the reply's length */
	long		 code;		/* an error reply's code */
	int		 gone;		/* cancelled: its client went */
	const char	*reason;	/* refused: why ("policy"...) */
};

/* What ends it, and who made it. */
struct audit_end {
	enum audit_outcome outcome;
	uint64_t	 duration_us;
	const char	*server;	/* NAME, or an instance's NAME#N */
	pid_t		 pid;
	uid_t		 uid;
	pid_t		 app_pid;	/* the app's, when not pid; 0 */
	const char	*app;		/* NULL: not known */
	const char	*app_exe;
	const char	*app_unit;
	const char	*token;		/* an HTTP client's; NULL */
};

enum audit_what	 audit_method(const char *method);
const char	*audit_method_name(enum audit_what);
/*
 * "ok", "error", "timeout", "cancelled", "gone", "failed", "oversize",
 * "refused" (MCPD_REASON says why, MCPD_ERROR_CODE what was answered).
 */
const char	*audit_outcome_name(enum audit_outcome);

/*
 * The call's record from its params text (NULL or len 0: none); full:
 * keep the arguments.  bytes_in is the request's length.
 */
struct audit_call *audit_call_new(enum audit_what, const char *params,
		    size_t len, int full, const uint8_t *key, size_t bytes_in);
void		 audit_call_free(struct audit_call *);

/* The canonical text of a JSON value (malloc'd). */
char		*audit_canonical(const cJSON *);
/* HMAC-SHA256 of text under key, as 64 lowercase hex digits and a NUL. */
void		 audit_hmac_hex(const uint8_t *key, const char *text,
		    size_t len, char out[AUDIT_HMAC_HEX + 1]);
/* The short name of an app: its app id, else its unit, else exe's base. */
const char	*audit_app_name(const char *exe, const char *unit,
		    const char *app_id);

/*
 * The journal entry: MESSAGE, PRIORITY, SYSLOG_IDENTIFIER, MESSAGE_ID and
 * the MCPD_ fields, each "NAME=value", in a NULL-ended malloc'd array of
 * *n malloc'd strings (audit_entry_free).
 */
char		**audit_entry(const struct audit_call *,
		    const struct audit_end *, size_t *n);
void		 audit_entry_free(char **);

#endif /* MCPD_AUDIT_H */
