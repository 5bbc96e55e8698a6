/*
 * fuzz_rstate.c -- mcpd's own requestState (src/rstate.c) on whatever a
 * client could echo back, and the digest of whatever params it could
 * send.
 *
 * The input is read three ways, each on its own:
 * - as a state text, decoded with a fixed key;
 * - its first 64 bytes as a state's fields (principal, parked, round,
 *   expires_ms, digest), the next two as a place in its text and a change
 *   made there;
 * - as JSON params (cJSON), whose digest is taken.
 *
 * Invariants:
 * - a text that decodes encodes back to the same bytes (one text per
 *   state), and a refused one leaves the state untouched;
 * - a state encodes to RSTATE_TEXT_BYTES of "mcpd1." and base64url,
 *   decodes to itself, and with any one byte changed is refused;
 * - the canonical text of params holds no newline, is JSON that cJSON
 *   reads, and is its own canonical text; params with every object's
 *   members reversed (where its keys are distinct), or with _meta,
 *   requestState, inputResponses and task added at the top, have the
 *   same digest; one more member, or another method, another digest.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "rstate.h"
#include "xmalloc.h"

const char	*fuzz_target_name = "rstate";

#define FUZZ_FIELDS_BYTES	(4 * 8 + RSTATE_DIGEST_BYTES)

static uint8_t	fuzz_key[RSTATE_KEY_BYTES];

static void
fuzz_key_init(void)
{
	size_t	 i;

	for (i = 0; i < sizeof fuzz_key; i++)
		fuzz_key[i] = (uint8_t)i;
}

static void
fuzz_decode(const uint8_t *data, size_t size)
{
	struct rstate		 rs, untouched;
	enum rstate_verdict	 v;
	char			*text;

	memset(&untouched, 0x5a, sizeof untouched);
	rs = untouched;
	v = rstate_decode(fuzz_key, (const char *)data, size, &rs);
	FUZZ_CHECK(v == RSTATE_OK || v == RSTATE_MALFORMED ||
	    v == RSTATE_FORGED, "verdict %d", (int)v);
	if (v != RSTATE_OK) {
		FUZZ_CHECK(memcmp(&rs, &untouched, sizeof rs) == 0,
		    "a %s state was filled in", rstate_verdict_name(v));
		return;
	}
	text = rstate_encode(fuzz_key, &rs);
	FUZZ_CHECK(strlen(text) == size && memcmp(text, data, size) == 0,
	    "decoded and encoded again, %.*s is %s", (int)size,
	    (const char *)data, text);
	FUZZ_CHECK(rstate_mismatch(&rs, rs.principal, rs.expires_ms,
	    rs.digest) == NULL, "the state does not fit its own retry");
	free(text);
}

static uint64_t
fuzz_get64(const uint8_t *p)
{
	uint64_t	 v = 0;
	size_t		 i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return (v);
}

static void
fuzz_encode(const uint8_t *data, size_t size)
{
	struct rstate	 rs, got;
	char		*text;
	size_t		 len, i, at;
	char		 was;

	if (size < FUZZ_FIELDS_BYTES)
		return;
	rs.principal = fuzz_get64(data);
	rs.parked = fuzz_get64(data + 8);
	rs.round = fuzz_get64(data + 16);
	rs.expires_ms = fuzz_get64(data + 24);
	memcpy(rs.digest, data + 32, RSTATE_DIGEST_BYTES);
	text = rstate_encode(fuzz_key, &rs);
	len = strlen(text);
	FUZZ_CHECK(len == RSTATE_TEXT_BYTES, "a text of %zu bytes", len);
	FUZZ_CHECK(memcmp(text, RSTATE_PREFIX, 6) == 0, "prefix: %s", text);
	for (i = 6; i < len; i++)
		FUZZ_CHECK((text[i] >= 'A' && text[i] <= 'Z') ||
		    (text[i] >= 'a' && text[i] <= 'z') ||
		    (text[i] >= '0' && text[i] <= '9') || text[i] == '-' ||
		    text[i] == '_', "not base64url: %s", text);
	FUZZ_CHECK(rstate_decode(fuzz_key, text, len, &got) == RSTATE_OK,
	    "%s does not decode", text);
	FUZZ_CHECK(got.principal == rs.principal && got.parked == rs.parked &&
	    got.round == rs.round && got.expires_ms == rs.expires_ms &&
	    memcmp(got.digest, rs.digest, sizeof rs.digest) == 0,
	    "%s decodes to another state", text);
	if (size >= FUZZ_FIELDS_BYTES + 2) {
		at = data[FUZZ_FIELDS_BYTES] % len;
		was = text[at];
		text[at] ^= (char)(data[FUZZ_FIELDS_BYTES + 1] | 1);
		FUZZ_CHECK(rstate_decode(fuzz_key, text, len, &got) !=
		    RSTATE_OK, "byte %zu changed from '%c': %s accepted", at,
		    was, text);
	}
	free(text);
}

static int
fuzz_key_cmp(const void *a, const void *b)
{
	return (strcmp(*(const char *const *)a, *(const char *const *)b));
}

/* Are an object's keys distinct?  (Then their order means nothing.) */
static int
fuzz_keys_distinct(const cJSON *obj)
{
	const cJSON	 *c;
	const char	**keys;
	size_t		  n = 0, i;
	int		  distinct = 1;

	for (c = obj->child; c != NULL; c = c->next)
		n++;
	keys = xreallocarray(NULL, n == 0 ? 1 : n, sizeof *keys);
	n = 0;
	for (c = obj->child; c != NULL; c = c->next)
		keys[n++] = c->string;
	qsort(keys, n, sizeof *keys, fuzz_key_cmp);
	for (i = 1; i < n && distinct; i++)
		distinct = strcmp(keys[i - 1], keys[i]) != 0;
	free(keys);
	return (distinct);
}

static void
fuzz_reverse(cJSON *item)
{
	cJSON	**kids, *c;
	size_t	  n = 0, i;

	for (c = item->child; c != NULL; c = c->next) {
		fuzz_reverse(c);
		n++;
	}
	if (!cJSON_IsObject(item) || n < 2 || !fuzz_keys_distinct(item))
		return;
	kids = xreallocarray(NULL, n, sizeof *kids);
	n = 0;
	while ((c = item->child) != NULL)
		kids[n++] = cJSON_DetachItemViaPointer(item, c);
	for (i = n; i > 0; i--)
		cJSON_AddItemToArray(item, kids[i - 1]);
	free(kids);
}

static void
fuzz_params(const uint8_t *data, size_t size)
{
	cJSON	*params, *again, *copy;
	char	*canon, *canon2;
	uint8_t	 d[RSTATE_DIGEST_BYTES], d2[RSTATE_DIGEST_BYTES];

	if ((params = cJSON_ParseWithLength((const char *)data, size)) == NULL)
		return;
	canon = rstate_canonical(params);
	FUZZ_CHECK(strchr(canon, '\n') == NULL, "a newline in %s", canon);
	again = cJSON_Parse(canon);
	FUZZ_CHECK(again != NULL, "cJSON cannot read %s", canon);
	canon2 = rstate_canonical(again);
	FUZZ_CHECK(strcmp(canon, canon2) == 0, "canonical %s, then %s",
	    canon, canon2);
	free(canon2);
	cJSON_Delete(again);
	rstate_digest("tools/call", params, d);

	copy = cJSON_Duplicate(params, 1);
	FUZZ_CHECK(copy != NULL, "cJSON_Duplicate failed");
	fuzz_reverse(copy);
	if (cJSON_IsObject(copy)) {
		cJSON_AddItemToObject(copy, "task", cJSON_CreateObject());
		cJSON_AddStringToObject(copy, "requestState", "mcpd1.x");
		cJSON_AddItemToObject(copy, "inputResponses",
		    cJSON_CreateObject());
		cJSON_AddNumberToObject(copy, "_meta", 1);
	}
	rstate_digest("tools/call", copy, d2);
	FUZZ_CHECK(memcmp(d, d2, sizeof d) == 0, "reordered, or with a "
	    "retry's members, %s has another digest", canon);
	rstate_digest("prompts/get", copy, d2);
	FUZZ_CHECK(memcmp(d, d2, sizeof d) != 0, "another method, the same "
	    "digest: %s", canon);
	if (cJSON_IsObject(copy)) {
		cJSON_AddNullToObject(copy, "_meta ");
		rstate_digest("tools/call", copy, d2);
		FUZZ_CHECK(memcmp(d, d2, sizeof d) != 0, "a member more, the "
		    "same digest: %s", canon);
	}
	cJSON_Delete(copy);
	free(canon);
	cJSON_Delete(params);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fuzz_key[1] == 0)
		fuzz_key_init();
	fuzz_decode(data, size);
	fuzz_encode(data, size);
	fuzz_params(data, size);
	return (0);
}
