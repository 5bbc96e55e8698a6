/*
 * fuzz_mcpparam.c -- a remote's tool schemas read for x-mcp-header
 * annotations, and a call's arguments made into Mcp-Param-* headers
 * (src/mcpparam.c).
 *
 * Input: A NUL B.  A is parsed as an inputSchema, B (when there is one)
 * as a call's arguments; with no B, the arguments are made from the
 * annotations found: "x" at each path, then 7, then true.
 *
 * Invariants:
 * - mcpparam_scan returns 0 or -1; -1 leaves nothing and says why (one
 *   line, no control character); 0 gives at most MCPPARAM_MAX
 *   annotations, each a non-empty token of at most MCPPARAM_NAME_MAX
 *   bytes, unique without regard to case, at a path of 1 to
 *   MCPPARAM_DEPTH_MAX properties.
 * - mcpparam_headers gives at most one header per annotation, each
 *   "Mcp-Param-NAME: VALUE" for one of them, in their order, with a
 *   value of visible ASCII, space and tab, no whitespace at either end,
 *   within MCPPARAM_VALUE_MAX bytes; or -1 with a reason and nothing.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fuzz.h"
#include "mcpparam.h"
#include "util.h"

const char	*fuzz_target_name = "mcpparam";

static void
check_reason(const char *why)
{
	const unsigned char *p;

	FUZZ_CHECK(why != NULL && *why != '\0', "no reason");
	for (p = (const unsigned char *)why; *p != '\0'; p++)
		FUZZ_CHECK(*p >= 0x20 && *p != 0x7f, "control byte in reason");
}

static void
check_scan(const struct mcpparams *ps)
{
	size_t	 i, j, len;

	FUZZ_CHECK(ps->n <= MCPPARAM_MAX, "%zu annotations", ps->n);
	for (i = 0; i < ps->n; i++) {
		len = strlen(ps->p[i].name);
		FUZZ_CHECK(len > 0 && len <= MCPPARAM_NAME_MAX, "name length");
		for (j = 0; j < len; j++)
			FUZZ_CHECK(mcpparam_tchar((unsigned char)
			    ps->p[i].name[j]), "name not a token");
		FUZZ_CHECK(ps->p[i].depth >= 1 &&
		    ps->p[i].depth <= MCPPARAM_DEPTH_MAX, "depth");
		for (j = 0; j < i; j++)
			FUZZ_CHECK(strcasecmp(ps->p[i].name,
			    ps->p[j].name) != 0, "names not unique");
	}
}

static int
check_headers(const struct mcpparams *ps, const cJSON *args)
{
	char	*out[MCPPARAM_MAX], *why, *v;
	size_t	 k = 0, nl, vl, j;
	int	 n, i;

	n = mcpparam_headers(ps, args, out, &why);
	if (n == -1) {
		check_reason(why);
		free(why);
		return (-1);
	}
	FUZZ_CHECK(why == NULL, "a reason with headers");
	FUZZ_CHECK((size_t)n <= ps->n, "more headers than annotations");
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(strncmp(out[i], MCPPARAM_PREFIX,
		    sizeof MCPPARAM_PREFIX - 1) == 0, "prefix");
		while (k < ps->n) {
			nl = strlen(ps->p[k].name);
			if (strncmp(out[i] + sizeof MCPPARAM_PREFIX - 1,
			    ps->p[k].name, nl) == 0 && strncmp(out[i] +
			    sizeof MCPPARAM_PREFIX - 1 + nl, ": ", 2) == 0)
				break;
			k++;
		}
		FUZZ_CHECK(k < ps->n, "header %d names no annotation", i);
		v = out[i] + sizeof MCPPARAM_PREFIX - 1 + nl + 2;
		vl = strlen(v);
		FUZZ_CHECK(vl > 0 && vl <= MCPPARAM_VALUE_MAX, "value length");
		FUZZ_CHECK(v[0] != ' ' && v[0] != '\t' && v[vl - 1] != ' ' &&
		    v[vl - 1] != '\t', "whitespace at an end");
		for (j = 0; j < vl; j++)
			FUZZ_CHECK((v[j] >= 0x20 && v[j] < 0x7f) ||
			    v[j] == '\t', "value byte");
		k++;
		free(out[i]);
	}
	return (n);
}

/* Arguments with value at every annotation's path. */
static cJSON *
make_args(const struct mcpparams *ps, cJSON *(*value)(void))
{
	cJSON	*args, *at, *next;
	size_t	 i, j;

	args = cJSON_CreateObject();
	for (i = 0; i < ps->n; i++) {
		at = args;
		for (j = 0; j + 1 < ps->p[i].depth; j++) {
			next = cJSON_GetObjectItemCaseSensitive(at,
			    ps->p[i].path[j]);
			if (!cJSON_IsObject(next)) {
				cJSON_DeleteItemFromObjectCaseSensitive(at,
				    ps->p[i].path[j]);
				next = cJSON_AddObjectToObject(at,
				    ps->p[i].path[j]);
			}
			at = next;
		}
		if (cJSON_GetObjectItemCaseSensitive(at,
		    ps->p[i].path[j]) == NULL)
			cJSON_AddItemToObject(at, ps->p[i].path[j], value());
	}
	return (args);
}

static cJSON	*v_string(void) { return (cJSON_CreateString("x")); }
static cJSON	*v_int(void) { return (cJSON_CreateNumber(7)); }
static cJSON	*v_bool(void) { return (cJSON_CreateTrue()); }

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcpparams ps;
	const char	*nul;
	cJSON		*schema, *args;
	cJSON		*(*const values[])(void) = { v_string, v_int, v_bool };
	char		*why;
	size_t		 alen, i;
	int		 rc;

	nul = memchr(data, '\0', size);
	alen = nul != NULL ? (size_t)(nul - (const char *)data) : size;
	schema = cJSON_ParseWithLength((const char *)data, alen);
	rc = mcpparam_scan(schema, &ps, &why);
	cJSON_Delete(schema);
	FUZZ_CHECK(rc == 0 || rc == -1, "scan returned %d", rc);
	if (rc == -1) {
		FUZZ_CHECK(ps.n == 0, "refused, yet annotations kept");
		check_reason(why);
		free(why);
		return (0);
	}
	FUZZ_CHECK(why == NULL, "a reason with success");
	check_scan(&ps);
	if (nul != NULL) {
		args = cJSON_ParseWithLength(nul + 1,
		    size - alen - 1);
		(void)check_headers(&ps, args);
		cJSON_Delete(args);
	} else {
		for (i = 0; i < nitems(values); i++) {
			args = make_args(&ps, values[i]);
			/* A path that is a prefix of another's has no leaf. */
			(void)check_headers(&ps, args);
			cJSON_Delete(args);
		}
	}
	mcpparam_clear(&ps);
	return (0);
}
