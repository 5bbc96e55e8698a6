/*
 * test_rstate.c -- unit tests for mcpd's own requestState: its text, its
 * tag, the digest of a request and why a state does not fit a retry.
 */

#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "b64.h"
#include "rstate.h"
#include "unit.h"
#include "util.h"

static uint8_t	key[RSTATE_KEY_BYTES];

static void
key_setup(void)
{
	size_t	 i;

	for (i = 0; i < sizeof key; i++)
		key[i] = (uint8_t)i;
}

static struct rstate
sample(void)
{
	struct rstate	 rs;

	rs.principal = 1;
	rs.parked = 2;
	rs.round = 3;
	rs.expires_ms = 0x0102030405060708ULL;
	memset(rs.digest, 0xaa, sizeof rs.digest);
	return (rs);
}

/* Decoded from an exact copy: no NUL after it to lean on. */
static enum rstate_verdict
decode_copy(const uint8_t *k, const char *text, size_t len,
    struct rstate *out)
{
	enum rstate_verdict	 v;
	char			*copy;

	copy = malloc(len == 0 ? 1 : len);
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, text, len);
	v = rstate_decode(k, copy, len, out);
	free(copy);
	return (v);
}

static void
digest_of(const char *method, const char *json, uint8_t out[32])
{
	cJSON	*params = NULL;

	if (json != NULL) {
		params = cJSON_Parse(json);
		ck_assert_msg(params != NULL, "bad test JSON: %s", json);
	}
	rstate_digest(method, params, out);
	cJSON_Delete(params);
}

static int
same_digest(const char *m1, const char *j1, const char *m2, const char *j2)
{
	uint8_t	 a[RSTATE_DIGEST_BYTES], b[RSTATE_DIGEST_BYTES];

	digest_of(m1, j1, a);
	digest_of(m2, j2, b);
	return (memcmp(a, b, sizeof a) == 0);
}

/* The layout, pinned by a text made independently (Python's hmac). */
START_TEST(test_rstate_known_text)
{
	static const char	 want[] = "mcpd1.AQAAAAAAAAABAAAAAAAAAAIAAAAAAAA"
	    "AAwECAwQFBgcIqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqpcUk5MPF0"
	    "18kNtNNKe_D8UxIbNxIHmAPWAXNgnyA-qMw";
	struct rstate		 rs = sample(), got;
	char			*text;

	text = rstate_encode(key, &rs);
	ck_assert_str_eq(text, want);
	ck_assert_uint_eq(strlen(text), RSTATE_TEXT_BYTES);
	ck_assert_uint_eq(RSTATE_TEXT_BYTES, 136);
	ck_assert_int_eq(decode_copy(key, want, strlen(want), &got), RSTATE_OK);
	ck_assert(memcmp(&got, &rs, sizeof rs) == 0);
	free(text);
}
END_TEST

START_TEST(test_rstate_round_trip)
{
	static const uint64_t	 values[] = { 0, 1, 0x80, 0xff00ff00ff00ff00ULL,
	    UINT64_MAX };
	struct rstate		 rs, got;
	char			*text;
	size_t			 i, j;

	for (i = 0; i < nitems(values); i++) {
		rs.principal = values[i];
		rs.parked = values[(i + 1) % nitems(values)];
		rs.round = values[(i + 2) % nitems(values)];
		rs.expires_ms = values[(i + 3) % nitems(values)];
		for (j = 0; j < sizeof rs.digest; j++)
			rs.digest[j] = (uint8_t)(i * 31 + j * 7);
		text = rstate_encode(key, &rs);
		ck_assert_uint_eq(strlen(text), RSTATE_TEXT_BYTES);
		ck_assert(strncmp(text, "mcpd1.", 6) == 0);
		ck_assert(strchr(text, '=') == NULL);
		memset(&got, 0x5a, sizeof got);
		ck_assert_int_eq(decode_copy(key, text, strlen(text), &got),
		    RSTATE_OK);
		ck_assert_uint_eq(got.principal, rs.principal);
		ck_assert_uint_eq(got.parked, rs.parked);
		ck_assert_uint_eq(got.round, rs.round);
		ck_assert_uint_eq(got.expires_ms, rs.expires_ms);
		ck_assert(memcmp(got.digest, rs.digest, sizeof rs.digest) == 0);
		free(text);
	}
}
END_TEST

/* Any byte of the text changed, to anything: never accepted. */
START_TEST(test_rstate_flipped)
{
	static const uint8_t	 with[] = { 0x01, 0x02, 0x20, 0x40, 0x80 };
	struct rstate		 rs = sample(), got, untouched;
	enum rstate_verdict	 v;
	char			*text;
	size_t			 i, j, len;
	char			 was;

	text = rstate_encode(key, &rs);
	len = strlen(text);
	memset(&untouched, 0x5a, sizeof untouched);
	for (i = 0; i < len; i++) {
		was = text[i];
		for (j = 0; j < nitems(with) + 3; j++) {
			if (j < nitems(with))
				text[i] = (char)(was ^ with[j]);
			else
				text[i] = "A\0="[j - nitems(with)];
			if (text[i] == was)
				continue;
			got = untouched;
			v = decode_copy(key, text, len, &got);
			ck_assert_msg(v == RSTATE_FORGED ||
			    v == RSTATE_MALFORMED, "byte %zu as 0x%02x: %s", i,
			    (unsigned char)text[i], rstate_verdict_name(v));
			ck_assert(memcmp(&got, &untouched, sizeof got) == 0);
		}
		text[i] = was;
	}
	/* A changed field is a forgery, told apart from noise. */
	text[10] = text[10] == 'A' ? 'B' : 'A';
	ck_assert_int_eq(decode_copy(key, text, len, &got), RSTATE_FORGED);
	free(text);
}
END_TEST

START_TEST(test_rstate_other_key)
{
	uint8_t		 other[RSTATE_KEY_BYTES];
	struct rstate	 rs = sample(), got;
	char		*text;

	memcpy(other, key, sizeof other);
	other[31] ^= 1;
	text = rstate_encode(other, &rs);
	ck_assert_int_eq(decode_copy(key, text, strlen(text), &got),
	    RSTATE_FORGED);
	ck_assert_int_eq(decode_copy(other, text, strlen(text), &got),
	    RSTATE_OK);
	free(text);
}
END_TEST

START_TEST(test_rstate_malformed)
{
	struct rstate	 rs = sample(), got;
	char		*text, *huge, buf[512];
	size_t		 len, i;

	text = rstate_encode(key, &rs);
	len = strlen(text);
	ck_assert_int_eq(decode_copy(key, "", 0, &got), RSTATE_MALFORMED);
	ck_assert_int_eq(rstate_decode(key, NULL, 0, &got), RSTATE_MALFORMED);
	ck_assert_int_eq(decode_copy(key, "mcpd1.", 6, &got),
	    RSTATE_MALFORMED);
	/* Every truncation, from either end. */
	for (i = 0; i < len; i++) {
		ck_assert_int_eq(decode_copy(key, text, i, &got),
		    RSTATE_MALFORMED);
		ck_assert_int_eq(decode_copy(key, text + len - i, i, &got),
		    RSTATE_MALFORMED);
	}
	/* Something after it: padding, a blank, a NUL, another state. */
	snprintf(buf, sizeof buf, "%s==", text);
	ck_assert_int_eq(decode_copy(key, buf, len + 2, &got),
	    RSTATE_MALFORMED);
	ck_assert_int_eq(decode_copy(key, buf, len + 1, &got),
	    RSTATE_MALFORMED);
	snprintf(buf, sizeof buf, "%s ", text);
	ck_assert_int_eq(decode_copy(key, buf, len + 1, &got),
	    RSTATE_MALFORMED);
	ck_assert_int_eq(decode_copy(key, text, len + 1, &got),
	    RSTATE_MALFORMED);
	snprintf(buf, sizeof buf, "%s%s", text, text);
	ck_assert_int_eq(decode_copy(key, buf, 2 * len, &got),
	    RSTATE_MALFORMED);
	/* Padding in place of the last characters, the length kept. */
	memcpy(buf, text, len);
	buf[len - 1] = '=';
	buf[len - 2] = '=';
	ck_assert_int_eq(decode_copy(key, buf, len, &got), RSTATE_MALFORMED);
	/* Standard base64's alphabet, a blank, another prefix or case. */
	memcpy(buf, text, len);
	buf[20] = '+';
	ck_assert_int_eq(decode_copy(key, buf, len, &got), RSTATE_MALFORMED);
	buf[20] = '/';
	ck_assert_int_eq(decode_copy(key, buf, len, &got), RSTATE_MALFORMED);
	buf[20] = ' ';
	ck_assert_int_eq(decode_copy(key, buf, len, &got), RSTATE_MALFORMED);
	memcpy(buf, text, len);
	buf[4] = '2';
	ck_assert_int_eq(decode_copy(key, buf, len, &got), RSTATE_MALFORMED);
	memcpy(buf, text, len);
	buf[0] = 'M';
	ck_assert_int_eq(decode_copy(key, buf, len, &got), RSTATE_MALFORMED);
	/* Not base64 at all, of the right length. */
	memset(buf, '.', len);
	memcpy(buf, "mcpd1.", 6);
	ck_assert_int_eq(decode_copy(key, buf, len, &got), RSTATE_MALFORMED);
	/* Huge: refused by its length. */
	huge = malloc(1 << 20);
	ck_assert_ptr_nonnull(huge);
	memset(huge, 'A', 1 << 20);
	memcpy(huge, "mcpd1.", 6);
	ck_assert_int_eq(rstate_decode(key, huge, 1 << 20, &got),
	    RSTATE_MALFORMED);
	ck_assert_int_eq(rstate_decode(key, huge, RSTATE_TEXT_MAX_BYTES + 1,
	    &got), RSTATE_MALFORMED);
	ck_assert_int_eq(rstate_decode(key, huge, RSTATE_TEXT_BYTES, &got),
	    RSTATE_FORGED);
	free(huge);
	free(text);
}
END_TEST

/* Sealed with the key but of another version: not ours to read. */
START_TEST(test_rstate_other_version)
{
	uint8_t		 bin[RSTATE_BINARY_BYTES];
	unsigned int	 taglen;
	struct rstate	 got;
	char		*payload, text[256];

	memset(bin, 0, sizeof bin);
	bin[0] = 2;
	ck_assert_ptr_nonnull(HMAC(EVP_sha256(), key, sizeof key, bin,
	    RSTATE_BINARY_BYTES - 32, bin + RSTATE_BINARY_BYTES - 32,
	    &taglen));
	payload = b64url_encode(bin, sizeof bin);
	snprintf(text, sizeof text, "mcpd1.%s", payload);
	free(payload);
	ck_assert_int_eq(decode_copy(key, text, strlen(text), &got),
	    RSTATE_MALFORMED);
	/* The same with version 1 is a state of all zeros. */
	bin[0] = 1;
	ck_assert_ptr_nonnull(HMAC(EVP_sha256(), key, sizeof key, bin,
	    RSTATE_BINARY_BYTES - 32, bin + RSTATE_BINARY_BYTES - 32,
	    &taglen));
	payload = b64url_encode(bin, sizeof bin);
	snprintf(text, sizeof text, "mcpd1.%s", payload);
	free(payload);
	ck_assert_int_eq(decode_copy(key, text, strlen(text), &got),
	    RSTATE_OK);
	ck_assert_uint_eq(got.principal, 0);
	ck_assert_uint_eq(got.expires_ms, 0);
}
END_TEST

START_TEST(test_rstate_key_new)
{
	uint8_t	 a[RSTATE_KEY_BYTES], b[RSTATE_KEY_BYTES];

	ck_assert_int_eq(rstate_key_new(a), 0);
	ck_assert_int_eq(rstate_key_new(b), 0);
	ck_assert(memcmp(a, b, sizeof a) != 0);
}
END_TEST

/* The digest pinned by Python's SHA-256 over the canonical text. */
START_TEST(test_rstate_digest_known)
{
	static const uint8_t	 want[] = {
		0x9d, 0x88, 0x9f, 0xba, 0x14, 0x7a, 0x67, 0xcd, 0xbc, 0x5b,
		0x9d, 0x03, 0x9d, 0xdc, 0xb5, 0x0d, 0x21, 0x44, 0x35, 0x54,
		0x6a, 0xe8, 0x55, 0xe4, 0xb2, 0xea, 0xbf, 0xf5, 0xd7, 0xc6,
		0xa2, 0xd8,
	};
	uint8_t			 got[RSTATE_DIGEST_BYTES];

	digest_of("tools/call", "{\"name\": \"echo\", \"arguments\": "
	    "{\"b\": [true, null, \"x\"], \"a\": 1.0}, \"_meta\": "
	    "{\"progressToken\": 7}}", got);
	ck_assert(memcmp(got, want, sizeof want) == 0);
}
END_TEST

START_TEST(test_rstate_canonical)
{
	cJSON	*params;
	char	*text;

	params = cJSON_Parse("{\"z\":\"q\\\"b\\\\s\\n\\u0001\\u00e9/\\u007f\","
	    "\"a\":[3,2.5,-0,1e300,{\"y\":false,\"x\":null}],\"B\":{},"
	    "\"\\u00e9\":[],\"task\":{\"ttl\":1},\"requestState\":\"s\","
	    "\"inputResponses\":{\"k\":{}},\"_meta\":{\"a\":1}}");
	ck_assert_ptr_nonnull(params);
	text = rstate_canonical(params);
	ck_assert_str_eq(text, "{\"B\":{},\"a\":[3,2.5,-0,1e+300,{\"x\":null,"
	    "\"y\":false}],\"z\":\"q\\\"b\\\\s\\u000a\\u0001\xc3\xa9/\x7f\","
	    "\"\xc3\xa9\":[]}");
	ck_assert(strchr(text, '\n') == NULL);
	free(text);
	cJSON_Delete(params);
	params = cJSON_Parse("[0.1,0.30000000000000004,1e999,123456789012345678,"
	    "1.7976931348623157e308,5e-324]");
	ck_assert_ptr_nonnull(params);
	text = rstate_canonical(params);
	ck_assert_str_eq(text, "[0.1,0.30000000000000004,null,"
	    "1.2345678901234568e+17,1.7976931348623157e+308,"
	    "4.94065645841247e-324]");
	free(text);
	cJSON_Delete(params);
	text = rstate_canonical(NULL);
	ck_assert_str_eq(text, "{}");
	free(text);
}
END_TEST

START_TEST(test_rstate_digest_same)
{
	/* Key order, at every depth. */
	ck_assert(same_digest("tools/call",
	    "{\"name\":\"t\",\"arguments\":{\"a\":1,\"b\":{\"c\":2,\"d\":3}}}",
	    "tools/call",
	    "{\"arguments\":{\"b\":{\"d\":3,\"c\":2},\"a\":1},\"name\":\"t\"}"));
	/* The members a retry adds or changes. */
	ck_assert(same_digest("tools/call",
	    "{\"name\":\"t\",\"arguments\":{\"a\":1}}", "tools/call",
	    "{\"inputResponses\":{\"k\":{\"action\":\"accept\"}},"
	    "\"name\":\"t\",\"requestState\":\"mcpd1.x\","
	    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
	    "\"2026-07-28\"},\"task\":{\"ttl\":60000},"
	    "\"arguments\":{\"a\":1}}"));
	/* No params, none but those, and {}. */
	ck_assert(same_digest("prompts/get", NULL, "prompts/get", "{}"));
	ck_assert(same_digest("prompts/get", NULL, "prompts/get",
	    "{\"requestState\":\"s\",\"inputResponses\":{}}"));
	/* Blanks and the spellings of one number or string. */
	ck_assert(same_digest("tools/call", "{ \"a\" : [ 1 , 2 ] }",
	    "tools/call", "{\"a\":[1.0,2e0]}"));
	ck_assert(same_digest("tools/call", "{\"a\":\"\\u00e9\\/\"}",
	    "tools/call", "{\"a\":\"\xc3\xa9/\"}"));
}
END_TEST

START_TEST(test_rstate_digest_differs)
{
	static const char	 base[] =
	    "{\"name\":\"t\",\"arguments\":{\"a\":1,\"b\":[1,2]}}";

	ck_assert(!same_digest("tools/call", base, "tools/call",
	    "{\"name\":\"t\",\"arguments\":{\"a\":2,\"b\":[1,2]}}"));
	ck_assert(!same_digest("tools/call", base, "tools/call",
	    "{\"name\":\"t\",\"arguments\":{\"a\":1,\"b\":[2,1]}}"));
	ck_assert(!same_digest("tools/call", base, "tools/call",
	    "{\"name\":\"t\",\"arguments\":{\"a\":1,\"b\":[1,2],\"c\":0}}"));
	ck_assert(!same_digest("tools/call", base, "tools/call",
	    "{\"name\":\"u\",\"arguments\":{\"a\":1,\"b\":[1,2]}}"));
	ck_assert(!same_digest("tools/call", base, "tools/call",
	    "{\"name\":\"t\",\"arguments\":{\"a\":\"1\",\"b\":[1,2]}}"));
	ck_assert(!same_digest("tools/call", base, "tools/call",
	    "{\"name\":\"t\",\"arguments\":{\"a\":1,\"b\":[1,2]},\"x\":null}"));
	ck_assert(!same_digest("tools/call", base, "prompts/get", base));
	ck_assert(!same_digest("tools/call", base, "tools/cal", base));
	/* Those members count below the top. */
	ck_assert(!same_digest("tools/call", base, "tools/call",
	    "{\"name\":\"t\",\"arguments\":{\"a\":1,\"b\":[1,2],"
	    "\"task\":1}}"));
	ck_assert(!same_digest("tools/call", "{\"arguments\":{\"_meta\":1}}",
	    "tools/call", "{\"arguments\":{\"_meta\":2}}"));
	/* Where a key is repeated, the last one is the one read. */
	ck_assert(!same_digest("tools/call", "{\"a\":1,\"a\":2}",
	    "tools/call", "{\"a\":2,\"a\":1}"));
	ck_assert(same_digest("tools/call", "{\"a\":1,\"b\":0,\"a\":2}",
	    "tools/call", "{\"b\":0,\"a\":1,\"a\":2}"));
	/* Types, and where the method ends and params begin. */
	ck_assert(!same_digest("m", "{\"a\":null}", "m", "{\"a\":false}"));
	ck_assert(!same_digest("m", "{\"a\":[]}", "m", "{\"a\":{}}"));
	ck_assert(!same_digest("m", "[]", "m", "{}"));
	/* Neighbouring doubles, which cJSON's printing takes for one. */
	ck_assert(!same_digest("m", "[1.7976931348623157e308]", "m",
	    "[1.7976931348623155e308]"));
	ck_assert(!same_digest("m", "[0.30000000000000004]", "m", "[0.3]"));
	ck_assert(!same_digest("m", "{\"a\":\"x\\n{}\"}", "m\n{}",
	    "{\"a\":\"x\"}"));
}
END_TEST

START_TEST(test_rstate_mismatch)
{
	struct rstate	 rs = sample();
	uint8_t		 other[RSTATE_DIGEST_BYTES];

	memset(other, 0xab, sizeof other);
	ck_assert_ptr_null(rstate_mismatch(&rs, 1, 0, rs.digest));
	ck_assert_ptr_null(rstate_mismatch(&rs, 1, rs.expires_ms, rs.digest));
	ck_assert_str_eq(rstate_mismatch(&rs, 2, 0, rs.digest),
	    "it was issued to another client");
	ck_assert_str_eq(rstate_mismatch(&rs, 1, rs.expires_ms + 1,
	    rs.digest), "it has expired");
	ck_assert_str_eq(rstate_mismatch(&rs, 1, 0, other),
	    "it was issued for another request");
	/* Another client learns nothing more of it. */
	ck_assert_str_eq(rstate_mismatch(&rs, 2, UINT64_MAX, other),
	    "it was issued to another client");
	ck_assert_str_eq(rstate_mismatch(&rs, 1, UINT64_MAX, other),
	    "it has expired");
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("rstate");
	tc = tcase_create("rstate");
	tcase_add_checked_fixture(tc, key_setup, NULL);
	tcase_add_test(tc, test_rstate_known_text);
	tcase_add_test(tc, test_rstate_round_trip);
	tcase_add_test(tc, test_rstate_flipped);
	tcase_add_test(tc, test_rstate_other_key);
	tcase_add_test(tc, test_rstate_malformed);
	tcase_add_test(tc, test_rstate_other_version);
	tcase_add_test(tc, test_rstate_key_new);
	tcase_add_test(tc, test_rstate_digest_known);
	tcase_add_test(tc, test_rstate_canonical);
	tcase_add_test(tc, test_rstate_digest_same);
	tcase_add_test(tc, test_rstate_digest_differs);
	tcase_add_test(tc, test_rstate_mismatch);
	suite_add_tcase(s, tc);
	return (s);
}
