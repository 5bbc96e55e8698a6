/*
 * fuzz_audit.c -- a call's record (src/audit.c) made from whatever params
 * a client could send, its journal entry, and that entry read back
 * (src/auditfmt.c).
 *
 * The input is the params text of a tools/call, of a prompts/get and of
 * a resources/read, each recorded with "full".
 *
 * Invariants:
 * - the name, if any, is printable (no control character) and at most
 *   AUDIT_NAME_MAX bytes; the hash is 64 lowercase hex digits (none for
 *   a read); the arguments' text is at most AUDIT_ARGS_MAX bytes and the
 *   note, valid UTF-8 where the input was, and when not cut it is JSON
 *   that cJSON reads and its own canonical text;
 * - the entry's fields are "NAME=value" with an MCPD_ or upper-case
 *   name, MESSAGE holds no newline, and the same arguments in another
 *   order of members give the same hash;
 * - the entry read back as a record gives a row and a JSON line.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "auditfmt.h"
#include "fuzz.h"
#include "xmalloc.h"

const char	*fuzz_target_name = "audit";

static uint8_t	fuzz_key[AUDIT_KEY_BYTES];

static void
fuzz_check_call(const struct audit_call *c, enum audit_what what)
{
	const char	*p;
	cJSON		*back;
	char		*again;
	size_t		 i;

	if (c->name != NULL) {
		FUZZ_CHECK(strlen(c->name) <= AUDIT_NAME_MAX,
		    "a name of %zu bytes", strlen(c->name));
		for (p = c->name; *p != '\0'; p++)
			FUZZ_CHECK((unsigned char)*p >= 0x20 && *p != 0x7f,
			    "a control character in the name %s", c->name);
	}
	if (what == AUDIT_RESOURCE) {
		FUZZ_CHECK(c->hmac[0] == '\0' && c->args == NULL,
		    "a read with arguments");
		return;
	}
	FUZZ_CHECK(strlen(c->hmac) == AUDIT_HMAC_HEX, "hash %s", c->hmac);
	for (i = 0; i < AUDIT_HMAC_HEX; i++)
		FUZZ_CHECK(isxdigit((unsigned char)c->hmac[i]) &&
		    !isupper((unsigned char)c->hmac[i]), "hash %s", c->hmac);
	FUZZ_CHECK(c->args != NULL, "\"full\" without the arguments");
	FUZZ_CHECK(strlen(c->args) <= AUDIT_ARGS_MAX + strlen(AUDIT_CUT_NOTE),
	    "arguments of %zu bytes", strlen(c->args));
	if (c->args_cut)
		return;
	back = cJSON_Parse(c->args);
	FUZZ_CHECK(back != NULL, "arguments that are not JSON: %s", c->args);
	again = audit_canonical(back);
	FUZZ_CHECK(strcmp(again, c->args) == 0, "not canonical: %s, then %s",
	    c->args, again);
	free(again);
	cJSON_Delete(back);
}

static void
fuzz_check_entry(const struct audit_call *c)
{
	struct audit_end	 end;
	char			**v, *eq, *row;
	cJSON			*rec, *line;
	size_t			 n, i;

	memset(&end, 0, sizeof end);
	end.outcome = AUDIT_ERROR;
	end.server = "s#1";
	end.pid = 1;
	v = audit_entry(c, &end, &n);
	rec = cJSON_CreateObject();
	for (i = 0; i < n; i++) {
		eq = strchr(v[i], '=');
		FUZZ_CHECK(eq != NULL && eq != v[i], "field %s", v[i]);
		if (strncmp(v[i], "MESSAGE=", 8) == 0)
			FUZZ_CHECK(strchr(v[i], '\n') == NULL,
			    "a newline in %s", v[i]);
		*eq = '\0';
		for (const char *p = v[i]; *p != '\0'; p++)
			FUZZ_CHECK(isupper((unsigned char)*p) || *p == '_' ||
			    isdigit((unsigned char)*p), "name %s", v[i]);
		cJSON_AddStringToObject(rec, v[i], eq + 1);
		*eq = '=';
	}
	row = auditfmt_row(rec, 0);
	line = auditfmt_json(rec, 0);
	FUZZ_CHECK(row != NULL && line != NULL, "no row");
	(void)auditfmt_client_match(rec, "1");
	(void)auditfmt_client_match(rec, "node");
	free(row);
	cJSON_Delete(line);
	cJSON_Delete(rec);
	audit_entry_free(v);
}

/*
 * The arguments with their members reversed: the same canonical text,
 * whose keyed hash is the call's.  (Compared as values, not printed
 * again: cJSON prints a double in 15 digits, which need not read back.)
 */
static void
fuzz_check_order(const uint8_t *data, size_t size,
    const struct audit_call *c)
{
	cJSON	*p, *args, *e, *rev, *dup;
	char	*before, *after, hmac[AUDIT_HMAC_HEX + 1];

	if ((p = cJSON_ParseWithLength((const char *)data, size)) == NULL)
		return;
	args = cJSON_GetObjectItemCaseSensitive(p, "arguments");
	if (!cJSON_IsObject(args)) {
		cJSON_Delete(p);
		return;
	}
	before = audit_canonical(args);
	audit_hmac_hex(fuzz_key, before, strlen(before), hmac);
	FUZZ_CHECK(strcmp(hmac, c->hmac) == 0, "the hash is not of %s",
	    before);
	/* With a key twice, the order says which one a reader takes. */
	for (e = args->child; e != NULL; e = e->next) {
		for (dup = e->next; dup != NULL; dup = dup->next) {
			if (strcmp(e->string, dup->string) == 0)
				goto out;
		}
	}
	rev = cJSON_CreateObject();
	while ((e = args->child) != NULL) {
		cJSON_DetachItemViaPointer(args, e);
		if (rev->child == NULL)
			cJSON_AddItemToObject(rev, e->string, e);
		else {
			/* In front: the reverse order. */
			e->next = rev->child;
			e->prev = rev->child->prev;
			rev->child->prev = e;
			rev->child = e;
		}
	}
	after = audit_canonical(rev);
	FUZZ_CHECK(strcmp(before, after) == 0,
	    "members reversed, another text: %s, then %s", before, after);
	free(after);
	cJSON_Delete(rev);
out:
	free(before);
	cJSON_Delete(p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum audit_what whats[] = { AUDIT_TOOL, AUDIT_PROMPT,
	    AUDIT_RESOURCE };
	struct audit_call	*c;
	size_t			 i;

	for (i = 0; i < sizeof fuzz_key; i++)
		fuzz_key[i] = (uint8_t)i;
	for (i = 0; i < sizeof whats / sizeof whats[0]; i++) {
		c = audit_call_new(whats[i], (const char *)data, size, 1,
		    fuzz_key, size);
		fuzz_check_call(c, whats[i]);
		fuzz_check_entry(c);
		if (whats[i] == AUDIT_TOOL)
			fuzz_check_order(data, size, c);
		audit_call_free(c);
	}
	return (0);
}
