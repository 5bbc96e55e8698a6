/*
 * fuzz_pversion.c -- what an older client is sent instead
 * (src/pversion.c) and the messages of a batch (src/batch.c), on any
 * text a server or a client could send.
 *
 * The input's first byte picks the client's version (byte % 4) and the
 * method (byte / 4 % 5: tools/call, prompts/get, sampling/createMessage,
 * elicitation/create, or one that is never converted); the rest is the
 * text, taken as a result or params (when it is one JSON object, as
 * the router only ever hands over), and as a batch.
 *
 * Invariants:
 * - the converted text is one JSON object the strict scanner accepts,
 *   and converting it again changes nothing;
 * - a method that is never converted, or a version that lacks nothing
 *   of the method's, leaves the text alone;
 * - a batch's messages lie inside the line, in order, apart, each one
 *   valid JSON on its own, an object exactly when it starts with '{';
 *   there is at least one and at most the bound; a refused batch names
 *   a parse error or an invalid request.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "envelope.h"
#include "fuzz.h"
#include "proto.h"
#include "pversion.h"
#include "rpc.h"
#include "xmalloc.h"

const char	*fuzz_target_name = "pversion";

#define FUZZ_BATCH_MAX	8	/* messages: small, so the bound is reached */

static const char *methods[] = {
	"tools/call", "prompts/get", "sampling/createMessage",
	"elicitation/create", "resources/read",
};

static void
fuzz_convert(const char *text, size_t len, const char *method,
    enum pversion v)
{
	struct envelope	 env;
	char		*out, *again;
	size_t		 erroff, outlen, againlen;

	if (envelope_scan(text, len, &env, &erroff) != 0)
		return;
	out = pversion_convert_text(text, len, method, v, 1 << 20, &outlen);
	if (out == NULL)
		return;
	FUZZ_CHECK(pversion_converts(method, v), "%s changed for %s, which "
	    "lacks nothing of it", method, pversion_name(v));
	FUZZ_CHECK(outlen == strlen(out), "the length is not the text's");
	FUZZ_CHECK(envelope_scan(out, outlen, &env, &erroff) == 0,
	    "converted for %s, %s is not one JSON object: %s",
	    pversion_name(v), method, out);
	again = pversion_convert_text(out, outlen, method, v, 1 << 20,
	    &againlen);
	FUZZ_CHECK(again == NULL, "converting %s again changed it: %s -> %s",
	    method, out, again);
	free(out);
}

static void
fuzz_batch(const char *text, size_t len)
{
	struct batch_span	*spans;
	size_t			 i, n, end = 0;
	char			*why;
	int			 code;

	if (batch_split(text, len, FUZZ_BATCH_MAX, &spans, &n, &code,
	    &why) != 0) {
		FUZZ_CHECK(spans == NULL && n == 0, "a refused batch has "
		    "messages");
		FUZZ_CHECK(code == RPC_PARSE_ERROR ||
		    code == RPC_INVALID_REQUEST, "a batch refused with %d",
		    code);
		FUZZ_CHECK(why != NULL && why[0] != '\0', "no reason");
		free(why);
		return;
	}
	FUZZ_CHECK(batch_is(text, len), "a batch that is not an array");
	FUZZ_CHECK(n >= 1 && n <= FUZZ_BATCH_MAX, "%zu messages", n);
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(spans[i].off >= end && spans[i].len > 0 &&
		    spans[i].off + spans[i].len <= len, "message %zu at %zu "
		    "(%zu bytes) is out of place", i, spans[i].off,
		    spans[i].len);
		end = spans[i].off + spans[i].len;
		FUZZ_CHECK(rpc_json_valid(text + spans[i].off, spans[i].len),
		    "message %zu is not JSON: %.*s", i, (int)spans[i].len,
		    text + spans[i].off);
		FUZZ_CHECK(spans[i].object == (text[spans[i].off] == '{'),
		    "message %zu: object %d", i, spans[i].object);
	}
	free(spans);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	*text;
	size_t	 len;

	if (size < 1)
		return (0);
	len = size - 1;
	text = xmalloc(len + 1);
	memcpy(text, data + 1, len);
	text[len] = '\0';
	fuzz_convert(text, len, methods[data[0] / 4 % 5],
	    (enum pversion)(data[0] % 4));
	fuzz_batch(text, len);
	free(text);
	return (0);
}
