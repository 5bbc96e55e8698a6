/*
 * test_envelope.c -- unit tests for the envelope scanner and splicer:
 * strict JSON syntax and UTF-8, escapes in keys and values, what is and
 * is not recorded at each level, duplicates, depth, splicing, and
 * agreement with cJSON on fixed and randomly generated messages.
 *
 * Every scan runs on a copy of exactly the input's length, so a read past
 * the end shows up under the address sanitizer.
 */

#include "config.h"

#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <cjson/cJSON.h>

#include "envelope.h"
#include "unit.h"
#include "util.h"
#include "xmalloc.h"

/* A literal and its length, for inputs holding NUL bytes. */
#define LIT(s)		s, sizeof s - 1
#define AT_END		((size_t)-1)	/* error offset: the input's length */

#define RANDOM_MESSAGES		3000
#define RANDOM_MUTATIONS	8

/* ---- helpers ---- */

/* The members of struct envelope, to loop over. */
static const struct {
	const char	*name;
	size_t		 off;
} fields[] = {
#define FIELD(f) { #f, offsetof(struct envelope, f) }
	FIELD(jsonrpc), FIELD(id), FIELD(method), FIELD(params),
	FIELD(result), FIELD(error), FIELD(meta), FIELD(progress_token),
	FIELD(p_progress_token), FIELD(p_request_id), FIELD(p_uri),
	FIELD(p_name), FIELD(p_level), FIELD(e_code),
#undef FIELD
};

static const struct envelope_value *
field(const struct envelope *env, size_t i)
{
	return ((const struct envelope_value *)((const char *)env +
	    fields[i].off));
}

static int
scan_len(const char *s, size_t len, struct envelope *env, size_t *off)
{
	char	*copy;
	int	 rc;

	copy = xmalloc(len);
	memcpy(copy, s, len);
	rc = envelope_scan(copy, len, env, off);
	free(copy);
	return (rc);
}

static void
scan_ok(const char *s, struct envelope *env)
{
	size_t	 off = 0;

	ck_assert_msg(scan_len(s, strlen(s), env, &off) == 0,
	    "scan failed at byte %zu: %s", off, s);
}

static void
fail_at(const char *s, size_t len, size_t want)
{
	struct envelope	 env;
	size_t		 off = 12345;

	if (want == AT_END)
		want = len;
	ck_assert_msg(scan_len(s, len, &env, &off) == -1, "accepted: %.*s",
	    (int)len, s);
	ck_assert_msg(off == want, "error at byte %zu, want %zu: %.*s", off,
	    want, (int)len, s);
}

static void
assert_span(const char *line, const struct envelope_value *v,
    enum envelope_type type, const char *text)
{
	ck_assert_msg(v->type == type, "type %d, want %d (%s) in %s", v->type,
	    type, text != NULL ? text : "-", line);
	if (text == NULL)
		return;
	ck_assert_msg(v->len == strlen(text) &&
	    memcmp(line + v->off, text, v->len) == 0,
	    "span '%.*s', want '%s' in %s", (int)v->len, line + v->off, text,
	    line);
}

static void
assert_absent(const char *line, const struct envelope_value *v)
{
	assert_span(line, v, ENVELOPE_ABSENT, NULL);
}

static size_t
offset_of_nth(const char *s, const char *needle, int nth)
{
	const char	*p = s;

	for (;;) {
		p = strstr(p, needle);
		ck_assert_ptr_nonnull(p);
		if (--nth == 0)
			return (p - s);
		p++;
	}
}

/* ---- cJSON as the reference ---- */

static cJSON *
cjson_parse(const char *s, size_t len)
{
	cJSON	*j;
	char	*copy;

	copy = xmalloc(len + 1);
	memcpy(copy, s, len);
	copy[len] = '\0';
	j = cJSON_ParseWithLengthOpts(copy, len + 1, NULL, 1);
	free(copy);
	return (j);
}

/* Same tree with members in the same order, duplicates included. */
static int
json_same(const cJSON *a, const cJSON *b)
{
	const cJSON	*x, *y;

	if ((a->type & 0xff) != (b->type & 0xff))
		return (0);
	switch (a->type & 0xff) {
	case cJSON_Number:
		return (a->valuedouble == b->valuedouble);
	case cJSON_String:
		return (strcmp(a->valuestring, b->valuestring) == 0);
	case cJSON_Array:
	case cJSON_Object:
		for (x = a->child, y = b->child; x != NULL && y != NULL;
		    x = x->next, y = y->next) {
			if (cJSON_IsObject(a) && strcmp(x->string, y->string))
				return (0);
			if (!json_same(x, y))
				return (0);
		}
		return (x == NULL && y == NULL);
	default:
		return (1);
	}
}

static enum envelope_type
cjson_type(const cJSON *j)
{
	if (cJSON_IsString(j))
		return (ENVELOPE_STRING);
	if (cJSON_IsNumber(j))
		return (ENVELOPE_NUMBER);
	if (cJSON_IsNull(j))
		return (ENVELOPE_NULL);
	if (cJSON_IsTrue(j))
		return (ENVELOPE_TRUE);
	if (cJSON_IsFalse(j))
		return (ENVELOPE_FALSE);
	if (cJSON_IsObject(j))
		return (ENVELOPE_OBJECT);
	if (cJSON_IsArray(j))
		return (ENVELOPE_ARRAY);
	return (ENVELOPE_ABSENT);
}

static const cJSON *
cjson_object_member(const cJSON *parent, const char *name)
{
	const cJSON	*item;

	if (parent == NULL || !cJSON_IsObject(parent))
		return (NULL);
	item = cJSON_GetObjectItemCaseSensitive(parent, name);
	return (item);
}

static unsigned int	 members_checked;

/* The recorded span of a member, parsed alone, is cJSON's member. */
static void
check_member(const char *line, const struct envelope_value *v,
    const cJSON *parent, const char *name)
{
	const cJSON	*item;
	cJSON		*span;
	char		*buf;
	int64_t		 i;
	int		 n;

	item = cjson_object_member(parent, name);
	if (item == NULL) {
		ck_assert_msg(v->type == ENVELOPE_ABSENT,
		    "%s recorded, cJSON has none: %s", name, line);
		return;
	}
	members_checked++;
	ck_assert_msg(v->type == cjson_type(item), "%s: type %d, want %d: %s",
	    name, v->type, cjson_type(item), line);
	span = cjson_parse(line + v->off, v->len);
	ck_assert_msg(span != NULL, "%s: span '%.*s' does not parse", name,
	    (int)v->len, line + v->off);
	ck_assert_msg(json_same(span, item), "%s: span '%.*s' differs", name,
	    (int)v->len, line + v->off);
	cJSON_Delete(span);

	if (v->type == ENVELOPE_STRING) {
		buf = xmalloc(v->len + 1);
		n = envelope_string_copy(line, v, buf, v->len + 1);
		if (n == -1) {
			/* cJSON cuts the string at a decoded NUL. */
			ck_assert_ptr_nonnull(memmem(line + v->off, v->len,
			    "\\u0000", 6));
		} else {
			ck_assert_str_eq(buf, item->valuestring);
			ck_assert(envelope_string_eq(line, v,
			    item->valuestring));
		}
		free(buf);
	}
	if (v->type == ENVELOPE_NUMBER && envelope_int64(line, v, &i) == 0) {
		ck_assert_msg(fabs((double)i - item->valuedouble) <=
		    fabs(item->valuedouble) * 1e-15, "%s: %lld != %.17g", name,
		    (long long)i, item->valuedouble);
	}
}

/* Everything the scan recorded agrees with cJSON's tree of the line. */
static void
crosscheck(const char *line, size_t len, const struct envelope *env)
{
	const cJSON	*params, *meta, *error;
	cJSON		*root;

	root = cjson_parse(line, len);
	ck_assert_msg(root != NULL && cJSON_IsObject(root),
	    "cJSON rejects %.*s", (int)len, line);
	check_member(line, &env->jsonrpc, root, "jsonrpc");
	check_member(line, &env->id, root, "id");
	check_member(line, &env->method, root, "method");
	check_member(line, &env->params, root, "params");
	check_member(line, &env->result, root, "result");
	check_member(line, &env->error, root, "error");
	params = cjson_object_member(root, "params");
	check_member(line, &env->meta, params, "_meta");
	check_member(line, &env->p_progress_token, params, "progressToken");
	check_member(line, &env->p_request_id, params, "requestId");
	check_member(line, &env->p_uri, params, "uri");
	check_member(line, &env->p_name, params, "name");
	check_member(line, &env->p_level, params, "level");
	meta = cjson_object_member(params, "_meta");
	check_member(line, &env->progress_token, meta, "progressToken");
	error = cjson_object_member(root, "error");
	check_member(line, &env->e_code, error, "code");
	cJSON_Delete(root);
}

static const char	 new_id[] = "\"mcpd:17\"";
static const char	 new_token[] = "918273645";

static unsigned int	 splices_checked;

static void
assert_same_text(const char *a, const struct envelope_value *va,
    const char *b, const struct envelope_value *vb)
{
	ck_assert_int_eq(va->type, vb->type);
	ck_assert_uint_eq(va->len, vb->len);
	ck_assert(memcmp(a + va->off, b + vb->off, va->len) == 0);
}

/*
 * Splice a new id and progress token into the line: the result parses to
 * the original tree with just those two values replaced, and the pieces
 * other than the new texts point into the line.
 */
static void
check_splice(const char *line, size_t len, const struct envelope *env)
{
	struct envelope_edit	 edits[2], tmp;
	struct iovec		 iov[ENVELOPE_SPLICE_IOV(2)];
	struct envelope		 env2;
	cJSON			*want, *got, *meta;
	const char		*base;
	char			*out;
	size_t			 nedits = 0, npieces, i, outlen = 0, off;

	if (env->id.type != ENVELOPE_ABSENT) {
		edits[nedits].off = env->id.off;
		edits[nedits].len = env->id.len;
		edits[nedits].text = new_id;
		edits[nedits++].text_len = strlen(new_id);
	}
	if (env->progress_token.type != ENVELOPE_ABSENT) {
		edits[nedits].off = env->progress_token.off;
		edits[nedits].len = env->progress_token.len;
		edits[nedits].text = new_token;
		edits[nedits++].text_len = strlen(new_token);
	}
	if (nedits == 2 && edits[0].off > edits[1].off) {
		tmp = edits[0];
		edits[0] = edits[1];
		edits[1] = tmp;
	}
	npieces = envelope_splice(line, len, edits, nedits, iov, nitems(iov));
	ck_assert_uint_gt(npieces, 0);
	for (i = 0; i < npieces; i++) {
		base = iov[i].iov_base;
		ck_assert_uint_gt(iov[i].iov_len, 0);
		ck_assert(base == new_id || base == new_token ||
		    (base >= line && base + iov[i].iov_len <= line + len));
		outlen += iov[i].iov_len;
	}
	out = xmalloc(outlen + 1);
	for (i = 0, outlen = 0; i < npieces; i++) {
		memcpy(out + outlen, iov[i].iov_base, iov[i].iov_len);
		outlen += iov[i].iov_len;
	}
	out[outlen] = '\0';

	want = cjson_parse(line, len);
	ck_assert_ptr_nonnull(want);
	if (env->id.type != ENVELOPE_ABSENT) {
		ck_assert(cJSON_ReplaceItemInObjectCaseSensitive(want, "id",
		    cJSON_CreateString("mcpd:17")));
	}
	if (env->progress_token.type != ENVELOPE_ABSENT) {
		meta = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(want, "params"), "_meta");
		ck_assert(cJSON_ReplaceItemInObjectCaseSensitive(meta,
		    "progressToken", cJSON_CreateNumber(918273645)));
	}
	got = cjson_parse(out, outlen);
	ck_assert_msg(got != NULL, "spliced text does not parse: %s", out);
	ck_assert_msg(json_same(got, want), "spliced tree differs: %s", out);
	cJSON_Delete(got);
	cJSON_Delete(want);

	ck_assert_msg(envelope_scan(out, outlen, &env2, &off) == 0,
	    "spliced text does not scan at %zu: %s", off, out);
	if (env->id.type != ENVELOPE_ABSENT)
		assert_span(out, &env2.id, ENVELOPE_STRING, new_id);
	if (env->progress_token.type != ENVELOPE_ABSENT) {
		assert_span(out, &env2.progress_token, ENVELOPE_NUMBER,
		    new_token);
	}
	assert_same_text(line, &env->jsonrpc, out, &env2.jsonrpc);
	assert_same_text(line, &env->method, out, &env2.method);
	assert_same_text(line, &env->result, out, &env2.result);
	assert_same_text(line, &env->error, out, &env2.error);
	assert_same_text(line, &env->p_uri, out, &env2.p_uri);
	assert_same_text(line, &env->p_name, out, &env2.p_name);
	free(out);
	splices_checked++;
}

/* ---- fixed messages ---- */

START_TEST(test_envelope_request)
{
	const char	*m = "{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":"
			    "\"tools/call\",\"params\":{\"name\":\"echo\","
			    "\"arguments\":{\"text\":\"hi\"},\"_meta\":"
			    "{\"progressToken\":\"tok-1\"}}}";
	struct envelope	 env;
	int64_t		 id;

	scan_ok(m, &env);
	assert_span(m, &env.jsonrpc, ENVELOPE_STRING, "\"2.0\"");
	assert_span(m, &env.id, ENVELOPE_NUMBER, "42");
	assert_span(m, &env.method, ENVELOPE_STRING, "\"tools/call\"");
	assert_span(m, &env.params, ENVELOPE_OBJECT, "{\"name\":\"echo\","
	    "\"arguments\":{\"text\":\"hi\"},\"_meta\":{\"progressToken\":"
	    "\"tok-1\"}}");
	assert_span(m, &env.meta, ENVELOPE_OBJECT,
	    "{\"progressToken\":\"tok-1\"}");
	assert_span(m, &env.progress_token, ENVELOPE_STRING, "\"tok-1\"");
	assert_span(m, &env.p_name, ENVELOPE_STRING, "\"echo\"");
	ck_assert(envelope_string_eq(m, &env.p_name, "echo"));
	assert_absent(m, &env.result);
	assert_absent(m, &env.error);
	assert_absent(m, &env.p_progress_token);
	assert_absent(m, &env.p_request_id);
	assert_absent(m, &env.p_uri);
	assert_absent(m, &env.p_level);
	assert_absent(m, &env.e_code);
	ck_assert(envelope_string_eq(m, &env.jsonrpc, "2.0"));
	ck_assert(envelope_string_eq(m, &env.method, "tools/call"));
	ck_assert(!envelope_string_eq(m, &env.method, "tools/cal"));
	ck_assert(!envelope_string_eq(m, &env.method, "tools/calls"));
	ck_assert(!envelope_string_eq(m, &env.id, "42"));
	ck_assert_int_eq(envelope_int64(m, &env.id, &id), 0);
	ck_assert_int_eq(id, 42);
	ck_assert_int_eq(envelope_int64(m, &env.method, &id), -1);
	ck_assert_int_eq(envelope_int64(m, &env.result, &id), -1);
	ck_assert_int_eq(id, 42);
}
END_TEST

START_TEST(test_envelope_params_members)
{
	const char	*m = "{\"method\":\"notifications/progress\","
			    "\"params\":{\"progressToken\":7,\"progress\":0.5,"
			    "\"total\":1,"
			    "\"requestId\":\"r-9\",\"uri\":\"file:///tmp/a b\","
			    "\"level\":\"debug\"},\"jsonrpc\":\"2.0\"}";
	const char	*e = "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"error\":{"
			    "\"data\":{\"code\":5},\"message\":\"nope\","
			    "\"code\":-32601}}";
	struct envelope	 env;
	char		 buf[64];
	int64_t		 code;

	scan_ok(m, &env);
	assert_absent(m, &env.id);
	assert_span(m, &env.p_progress_token, ENVELOPE_NUMBER, "7");
	assert_span(m, &env.p_request_id, ENVELOPE_STRING, "\"r-9\"");
	assert_span(m, &env.p_uri, ENVELOPE_STRING, "\"file:///tmp/a b\"");
	assert_span(m, &env.p_level, ENVELOPE_STRING, "\"debug\"");
	assert_absent(m, &env.p_name);
	assert_absent(m, &env.meta);
	assert_absent(m, &env.progress_token);
	ck_assert_int_eq(envelope_string_copy(m, &env.p_uri, buf, sizeof buf),
	    15);
	ck_assert_str_eq(buf, "file:///tmp/a b");
	ck_assert_int_eq(envelope_string_copy(m, &env.p_level, buf,
	    sizeof buf), 5);
	ck_assert_str_eq(buf, "debug");

	scan_ok(e, &env);
	assert_span(e, &env.error, ENVELOPE_OBJECT, "{\"data\":{\"code\":5},"
	    "\"message\":\"nope\",\"code\":-32601}");
	assert_span(e, &env.e_code, ENVELOPE_NUMBER, "-32601");
	ck_assert_int_eq(envelope_int64(e, &env.e_code, &code), 0);
	ck_assert_int_eq(code, -32601);
	assert_span(e, &env.id, ENVELOPE_STRING, "\"x\"");
}
END_TEST

START_TEST(test_envelope_member_order)
{
	static const char *msgs[] = {
		"{\"id\":1,\"jsonrpc\":\"2.0\",\"result\":{\"ok\":true}}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ok\":true}}",
		"{\"result\":{\"ok\":true},\"jsonrpc\":\"2.0\",\"id\":1}",
		"{\"result\":{\"ok\":true},\"id\":1,\"jsonrpc\":\"2.0\"}",
	};
	struct envelope	 env;
	size_t		 i;

	for (i = 0; i < nitems(msgs); i++) {
		scan_ok(msgs[i], &env);
		assert_span(msgs[i], &env.id, ENVELOPE_NUMBER, "1");
		assert_span(msgs[i], &env.jsonrpc, ENVELOPE_STRING, "\"2.0\"");
		assert_span(msgs[i], &env.result, ENVELOPE_OBJECT,
		    "{\"ok\":true}");
		ck_assert_uint_eq(env.id.off, strstr(msgs[i], ":1") + 1 -
		    msgs[i]);
		crosscheck(msgs[i], strlen(msgs[i]), &env);
	}
}
END_TEST

/* Members of the same names below the recorded levels are not picked up. */
START_TEST(test_envelope_nesting)
{
	struct envelope	 env;
	const char	*m;

	m = "{\"result\":{\"id\":9,\"params\":{}},\"id\":1}";
	scan_ok(m, &env);
	assert_span(m, &env.id, ENVELOPE_NUMBER, "1");
	assert_span(m, &env.result, ENVELOPE_OBJECT,
	    "{\"id\":9,\"params\":{}}");
	assert_absent(m, &env.params);

	m = "{\"params\":{\"x\":{\"progressToken\":5},\"a\":[{\"progressToken\""
	    ":6,\"_meta\":{\"progressToken\":1}}],\"id\":3},\"id\":1}";
	scan_ok(m, &env);
	assert_span(m, &env.id, ENVELOPE_NUMBER, "1");
	assert_absent(m, &env.p_progress_token);
	assert_absent(m, &env.progress_token);
	assert_absent(m, &env.meta);

	m = "{\"params\":{\"_meta\":{\"x\":{\"progressToken\":1}}}}";
	scan_ok(m, &env);
	assert_span(m, &env.meta, ENVELOPE_OBJECT,
	    "{\"x\":{\"progressToken\":1}}");
	assert_absent(m, &env.progress_token);

	m = "{\"params\":[{\"progressToken\":1,\"_meta\":{\"progressToken\""
	    ":2}}]}";
	scan_ok(m, &env);
	assert_span(m, &env.params, ENVELOPE_ARRAY, NULL);
	assert_absent(m, &env.p_progress_token);
	assert_absent(m, &env.progress_token);

	m = "{\"params\":{\"_meta\":[{\"progressToken\":1}]}}";
	scan_ok(m, &env);
	assert_span(m, &env.meta, ENVELOPE_ARRAY, "[{\"progressToken\":1}]");
	assert_absent(m, &env.progress_token);

	m = "{\"_meta\":{\"progressToken\":1},\"progressToken\":2,\"code\":3,"
	    "\"result\":{\"_meta\":{\"progressToken\":4},\"error\":{\"code\":"
	    "5}},\"params\":{\"params\":{\"progressToken\":6},\"error\":{"
	    "\"code\":7},\"code\":8}}";
	scan_ok(m, &env);
	assert_absent(m, &env.progress_token);
	assert_absent(m, &env.p_progress_token);
	assert_absent(m, &env.meta);
	assert_absent(m, &env.error);
	assert_absent(m, &env.e_code);

	m = "{\"error\":{\"code\":1},\"result\":{\"code\":2}}";
	scan_ok(m, &env);
	assert_span(m, &env.e_code, ENVELOPE_NUMBER, "1");

	m = "{\"error\":[{\"code\":1}]}";
	scan_ok(m, &env);
	assert_span(m, &env.error, ENVELOPE_ARRAY, "[{\"code\":1}]");
	assert_absent(m, &env.e_code);

	/* Both progress tokens are recorded; the router picks by method. */
	m = "{\"params\":{\"progressToken\":1,\"_meta\":{\"progressToken\":"
	    "\"two\"}}}";
	scan_ok(m, &env);
	assert_span(m, &env.p_progress_token, ENVELOPE_NUMBER, "1");
	assert_span(m, &env.progress_token, ENVELOPE_STRING, "\"two\"");

	/* A recorded value may itself be nested deeply. */
	m = "{\"params\":{\"_meta\":{\"progressToken\":[[[{\"a\":[[1]]}]]]}}}";
	scan_ok(m, &env);
	assert_span(m, &env.progress_token, ENVELOPE_ARRAY,
	    "[[[{\"a\":[[1]]}]]]");
	assert_span(m, &env.meta, ENVELOPE_OBJECT,
	    "{\"progressToken\":[[[{\"a\":[[1]]}]]]}");
	crosscheck(m, strlen(m), &env);
}
END_TEST

/* Ids of every JSON type: the exact text and type are recorded. */
START_TEST(test_envelope_id_types)
{
	static const struct {
		const char		*text;
		enum envelope_type	 type;
		int			 is_int64;
		int64_t			 value;
	} ids[] = {
		{ "\"abc\"", ENVELOPE_STRING, 0, 0 },
		{ "\"\"", ENVELOPE_STRING, 0, 0 },
		{ "\"1\"", ENVELOPE_STRING, 0, 0 },
		{ "0", ENVELOPE_NUMBER, 1, 0 },
		{ "-0", ENVELOPE_NUMBER, 1, 0 },
		{ "1", ENVELOPE_NUMBER, 1, 1 },
		{ "-1", ENVELOPE_NUMBER, 1, -1 },
		{ "1234567", ENVELOPE_NUMBER, 1, 1234567 },
		{ "1.5", ENVELOPE_NUMBER, 0, 0 },
		{ "1.0", ENVELOPE_NUMBER, 0, 0 },
		{ "-1.5e-3", ENVELOPE_NUMBER, 0, 0 },
		{ "1E10", ENVELOPE_NUMBER, 0, 0 },
		{ "1e+2", ENVELOPE_NUMBER, 0, 0 },
		{ "0e0", ENVELOPE_NUMBER, 0, 0 },
		{ "999999999999999999", ENVELOPE_NUMBER, 1, 999999999999999999LL },
		{ "-999999999999999999", ENVELOPE_NUMBER, 1,
		    -999999999999999999LL },
		{ "1000000000000000000", ENVELOPE_NUMBER, 1,
		    1000000000000000000LL },
		{ "9223372036854775807", ENVELOPE_NUMBER, 1, INT64_MAX },
		{ "-9223372036854775808", ENVELOPE_NUMBER, 1, INT64_MIN },
		{ "9223372036854775808", ENVELOPE_NUMBER, 0, 0 },
		{ "-9223372036854775809", ENVELOPE_NUMBER, 0, 0 },
		{ "18446744073709551616", ENVELOPE_NUMBER, 0, 0 },
		{ "123456789012345678901234567890", ENVELOPE_NUMBER, 0, 0 },
		{ "null", ENVELOPE_NULL, 0, 0 },
		{ "true", ENVELOPE_TRUE, 0, 0 },
		{ "false", ENVELOPE_FALSE, 0, 0 },
		{ "{}", ENVELOPE_OBJECT, 0, 0 },
		{ "{\"id\":2,\"a\":[1,{}]}", ENVELOPE_OBJECT, 0, 0 },
		{ "[]", ENVELOPE_ARRAY, 0, 0 },
		{ "[1,\"2\",[3],{\"id\":4}]", ENVELOPE_ARRAY, 0, 0 },
	};
	struct envelope	 env;
	char		 m[256];
	size_t		 i;
	int64_t		 v;

	for (i = 0; i < nitems(ids); i++) {
		snprintf(m, sizeof m, "{\"jsonrpc\":\"2.0\",\"id\":%s,"
		    "\"method\":\"ping\"}", ids[i].text);
		scan_ok(m, &env);
		assert_span(m, &env.id, ids[i].type, ids[i].text);
		assert_span(m, &env.method, ENVELOPE_STRING, "\"ping\"");
		v = 99;
		if (ids[i].is_int64) {
			ck_assert_int_eq(envelope_int64(m, &env.id, &v), 0);
			ck_assert_int_eq(v, ids[i].value);
		} else {
			ck_assert_int_eq(envelope_int64(m, &env.id, &v), -1);
			ck_assert_int_eq(v, 99);
		}
		crosscheck(m, strlen(m), &env);
		check_splice(m, strlen(m), &env);

		/* Last, as the Node SDK writes responses. */
		snprintf(m, sizeof m, "{\"result\":{},\"jsonrpc\":\"2.0\","
		    "\"id\":%s}", ids[i].text);
		scan_ok(m, &env);
		assert_span(m, &env.id, ids[i].type, ids[i].text);
	}
}
END_TEST

START_TEST(test_envelope_whitespace)
{
	const char	*m = " \t\r\n{ \t\r\n\"id\" \t\r\n: \t\r\n1 \t\r\n, "
			    "\"params\" : { \"_meta\" : { \"progressToken\" "
			    ": [ 1 , 2 ] } } , \"result\" : [ ] , \"error\" "
			    ": { \"code\"\n:\n\"x\"\n} , \"method\":\"m\" } "
			    "\t\r\n";
	struct envelope	 env;

	scan_ok(m, &env);
	assert_span(m, &env.id, ENVELOPE_NUMBER, "1");
	assert_span(m, &env.progress_token, ENVELOPE_ARRAY, "[ 1 , 2 ]");
	assert_span(m, &env.meta, ENVELOPE_OBJECT,
	    "{ \"progressToken\" : [ 1 , 2 ] }");
	assert_span(m, &env.result, ENVELOPE_ARRAY, "[ ]");
	assert_span(m, &env.error, ENVELOPE_OBJECT,
	    "{ \"code\"\n:\n\"x\"\n}");
	assert_span(m, &env.e_code, ENVELOPE_STRING, "\"x\"");
	assert_span(m, &env.method, ENVELOPE_STRING, "\"m\"");
	crosscheck(m, strlen(m), &env);
	check_splice(m, strlen(m), &env);

	scan_ok("{}", &env);
	scan_ok(" {\t}\n", &env);
	scan_ok("{\"a\":[ ],\"b\":{ },\"c\":[\n1\n]}", &env);

	/* Only space, tab, CR and LF are whitespace. */
	fail_at(LIT("\f{}"), 0);
	fail_at(LIT("{}\v"), 2);
	fail_at(LIT("{\"id\":\v1}"), 6);
	fail_at(LIT("{\"id\"\xc2\xa0:1}"), 5);
	fail_at(LIT("\xef\xbb\xbf{}"), 0);
	fail_at(LIT("{}\x00"), 2);
	fail_at(LIT("{\x1c}"), 1);
}
END_TEST

/* ---- escapes ---- */

START_TEST(test_envelope_escaped_keys)
{
	struct envelope	 env;
	const char	*m;

	m = "{\"\\u0069d\":1,\"m\\u0065thod\":\"x\",\"\\u006A\\u0073onrpc\":"
	    "\"2.0\"}";
	scan_ok(m, &env);
	assert_span(m, &env.id, ENVELOPE_NUMBER, "1");
	assert_span(m, &env.method, ENVELOPE_STRING, "\"x\"");
	assert_span(m, &env.jsonrpc, ENVELOPE_STRING, "\"2.0\"");
	crosscheck(m, strlen(m), &env);

	m = "{\"p\\u0061rams\":{\"\\u005fmeta\":{\"progress\\u0054oken\":"
	    "\"tok\"},\"\\u0072equestId\":4,\"\\/\":0}}";
	scan_ok(m, &env);
	assert_span(m, &env.progress_token, ENVELOPE_STRING, "\"tok\"");
	assert_span(m, &env.p_request_id, ENVELOPE_NUMBER, "4");
	crosscheck(m, strlen(m), &env);
	check_splice(m, strlen(m), &env);

	/* Near misses are other members. */
	static const char *others[] = {
		"{\"\\u0049D\":1}",		/* ID */
		"{\"id\\u0000\":1}",		/* id NUL */
		"{\"\\u0000id\":1}",
		"{\"\\\"id\\\"\":1}",		/* "id" with quotes */
		"{\"id\\/\":1}",
		"{\"i d\":1}",
		"{\"id \":1}",
		"{\"\\u0069dd\":1}",
		"{\"\\u0069\":1}",
		"{\"id\\ud800\":1}",		/* lone surrogate */
		"{\"\\ud800id\":1}",
		"{\"\\u0069ddddddddddddddddddddddddddddd\":1}",
		"{\"\\u0069\\u0069\\u0069\\u0069\\u0069\\u0069\":1}",
		"{\"\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\":1}",
		"{\"\\ud83d\\ude00\":1}",
		"{\"\\u0070rogressToken\":1}",
		"{\"params\":{\"Progresstoken\":1,\"_Meta\":{}}}",
	};
	size_t	 i;

	for (i = 0; i < nitems(others); i++) {
		scan_ok(others[i], &env);
		assert_absent(others[i], &env.id);
		assert_absent(others[i], &env.p_progress_token);
		assert_absent(others[i], &env.meta);
	}
}
END_TEST

/*
 * envelope_string_eq compares in one pass while it meets no backslash: a
 * difference before, at or after an escape, and texts that are prefixes
 * of each other.
 */
START_TEST(test_envelope_string_eq_paths)
{
	static const struct {
		const char	*json;		/* the value, quoted */
		const char	*s;
		int		 eq;
	} cases[] = {
		{ "\"2.0\"", "2.0", 1 },
		{ "\"2.0\"", "2.1", 0 },
		{ "\"2.0\"", "2.", 0 },
		{ "\"2.0\"", "2.00", 0 },
		{ "\"2.0\"", "", 0 },
		{ "\"\"", "", 1 },
		{ "\"2.\\u0030\"", "2.0", 1 },	/* escape after a match */
		{ "\"2.\\u0030\"", "2.1", 0 },
		{ "\"\\u0032.0\"", "2.0", 1 },	/* escape first */
		{ "\"3.\\u0030\"", "2.0", 0 },	/* differs before it */
		{ "\"2.0\\n\"", "2.0", 0 },	/* escape past s's end */
		{ "\"2.0\\n\"", "2.0\n", 1 },
		{ "\"a\\\\b\"", "a\\b", 1 },	/* an escaped backslash */
		{ "\"a\\\\b\"", "a\\\\b", 0 },
		{ "\"a\\\\b\"", "a", 0 },
		/* 16 bytes and more: no block boundary matters here. */
		{ "\"notifications/cancelled\"", "notifications/cancelled",
		    1 },
		{ "\"notifications/cancelled\"", "notifications/cancellee",
		    0 },
		{ "\"notifications/cancelle\\u0064\"",
		    "notifications/cancelled", 1 },
	};
	struct envelope	 env;
	char		 m[128];
	size_t		 i;

	for (i = 0; i < nitems(cases); i++) {
		snprintf(m, sizeof m, "{\"method\":%s}", cases[i].json);
		scan_ok(m, &env);
		ck_assert_msg(envelope_string_eq(m, &env.method, cases[i].s) ==
		    cases[i].eq, "%s vs \"%s\"", cases[i].json, cases[i].s);
	}
}
END_TEST

/*
 * Every proper prefix of a valid object ends too early, compact or not:
 * the shortcuts for compact JSON look no further than the line.
 */
START_TEST(test_envelope_prefixes)
{
	static const char *const lines[] = {
		"{\"jsonrpc\":\"2.0\",\"id\":12345,\"method\":\"ping\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":\"r-1\",\"result\":{}}",
		"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\","
		    "\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":"
		    "\"caf\xc3\xa9 \\u00e9 \\\"x\\\" 0123456789abcdef\"}}}",
		"{ \"id\" : 1 , \"a\" : [ 1 , { \"b\" : null } ] , "
		    "\"c\" : true }",
		"{\"a\":[],\"b\":{},\"c\":[{}],\"d\":-1.5e+3,\"e\":false}",
	};
	struct envelope	 env;
	size_t		 i, n, len;

	for (i = 0; i < nitems(lines); i++) {
		len = strlen(lines[i]);
		scan_ok(lines[i], &env);
		for (n = 0; n < len; n++)
			fail_at(lines[i], n, AT_END);
	}
}
END_TEST

/*
 * The top-level keys that compact JSON writes are recognised without a
 * scan when enough of the line follows them: the same spans, the same
 * duplicates refused at the same byte, and near misses read the long way.
 */
START_TEST(test_envelope_top_keys)
{
	static const struct {
		const char	*m;
		size_t		 fail;		/* 0: valid */
	} cases[] = {
		/* Each key once, then twice (fast, then escaped, then fast). */
		{ "{\"id\":1,\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{},"
		    "\"x\":0}", 0 },
		{ "{\"result\":[],\"error\":{},\"jsonrpc\":\"2.0\",\"id\":\"a\""
		    ",\"x\":0}", 0 },
		{ "{\"id\":1,\"id\":2,\"xxxxxxxxxx\":0}", 8 },
		{ "{\"jsonrpc\":\"2.0\",\"jsonrpc\":\"2.0\",\"xxxxxxxx\":0}", 17 },
		{ "{\"method\":\"a\",\"method\":\"b\",\"xxxxxxxxxx\":0}", 14 },
		{ "{\"params\":{},\"params\":{},\"xxxxxxxxxx\":0}", 13 },
		{ "{\"result\":1,\"result\":1,\"xxxxxxxxxxx\":0}", 12 },
		{ "{\"error\":{},\"error\":{},\"xxxxxxxxxxxx\":0}", 12 },
		{ "{\"i\\u0064\":1,\"id\":2,\"xxxxxxxxxx\":0}", 13 },
		{ "{\"id\":1,\"i\\u0064\":2,\"xxxxxxxxxx\":0}", 8 },
		/* Near misses: other keys, or not compact. */
		{ "{\"idx\":1,\"ids\":3,\"jsonrpc2\":4,\"jsonrp\":5,"
		    "\"methods\":6,\"param\":7,\"results\":8,\"errors\":9,"
		    "\"id\":10,\"xxxxxxxxxx\":0}", 0 },
		{ "{\"id\" :1,\"id\":2,\"xxxxxxxxxx\":0}", 9 },
		{ "{\"id\":1,\"id\" :2,\"xxxxxxxxxx\":0}", 8 },
		{ "{\"id\": 1,\"method\":\n\"m\",\"xxxxxxxxxx\":0}", 0 },
		/* What follows the colon is read as a value, not trusted. */
		{ "{\"id\":,\"xxxxxxxxxxxxxxxx\":0}", 6 },
		{ "{\"id\":}xxxxxxxxxxxxxxxxxxxx", 6 },
		{ "{\"method\":\"\x01\",\"xxxxxxxxxx\":0}", 11 },
		/* Members of params named like top-level keys. */
		{ "{\"params\":{\"id\":1,\"id\":2,\"method\":3,\"method\":4},"
		    "\"xxxxxxxxxx\":0}", 0 },
	};
	struct envelope	 env;
	size_t		 i;

	for (i = 0; i < nitems(cases); i++) {
		if (cases[i].fail == 0) {
			scan_ok(cases[i].m, &env);
			crosscheck(cases[i].m, strlen(cases[i].m), &env);
		} else
			fail_at(cases[i].m, strlen(cases[i].m), cases[i].fail);
	}

	scan_ok(cases[0].m, &env);
	assert_span(cases[0].m, &env.id, ENVELOPE_NUMBER, "1");
	assert_span(cases[0].m, &env.jsonrpc, ENVELOPE_STRING, "\"2.0\"");
	assert_span(cases[0].m, &env.method, ENVELOPE_STRING, "\"m\"");
	assert_span(cases[0].m, &env.params, ENVELOPE_OBJECT, "{}");
	scan_ok(cases[1].m, &env);
	assert_span(cases[1].m, &env.result, ENVELOPE_ARRAY, "[]");
	assert_span(cases[1].m, &env.error, ENVELOPE_OBJECT, "{}");
	assert_span(cases[1].m, &env.id, ENVELOPE_STRING, "\"a\"");
	scan_ok(cases[10].m, &env);
	assert_span(cases[10].m, &env.id, ENVELOPE_NUMBER, "10");
	assert_absent(cases[10].m, &env.jsonrpc);
	assert_absent(cases[10].m, &env.method);
	assert_absent(cases[10].m, &env.params);
	assert_absent(cases[10].m, &env.result);
	assert_absent(cases[10].m, &env.error);
	scan_ok(cases[13].m, &env);
	assert_span(cases[13].m, &env.method, ENVELOPE_STRING, "\"m\"");
	scan_ok(cases[17].m, &env);
	assert_absent(cases[17].m, &env.id);
	assert_absent(cases[17].m, &env.method);
}
END_TEST

/*
 * The opening {"jsonrpc":"2.0", and an "id" right after it are taken in
 * one compare each: the same spans, errors and duplicates as the long
 * way, whatever follows them.
 */
START_TEST(test_envelope_leading_members)
{
	static const struct {
		const char	*m;
		size_t		 fail;		/* 0: valid */
	} cases[] = {
		{ "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", 0 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"result\":{}}", 0 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":{\"a\":[1]},\"result\":0}", 0 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":[],\"error\":{\"code\":1}}", 0 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":null}", 0 },
		{ "{\"jsonrpc\":\"2.0\", \"id\": 7 ,\"method\":\"m\"}", 0 },
		{ "{\"jsonrpc\":\"2.0\",\n\t\"id\":\n-0.5e3}", 0 },
		{ "{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\":1}", 0 },
		{ "{\"jsonrpc\":\"2.0\",\"id\" :1}", 0 },
		{ "{\"jsonrpc\":\"2.0\",\"idx\":1,\"id\":2}", 0 },
		{ "{\"jsonrpc\":\"2.0\",\"x\":1}", 0 },
		/* Errors at the same byte as the long way. */
		{ "{\"jsonrpc\":\"2.0\",}", 17 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":}", 22 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2}", 24 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1,\"jsonrpc\":\"2.0\"}", 24 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1,\"i\\u0064\":2}", 24 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":01}", 23 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1", AT_END },
		{ "{\"jsonrpc\":\"2.0\",\"id\":", AT_END },
		{ "{\"jsonrpc\":\"2.0\",", AT_END },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1}x", 24 },
	};
	struct envelope	 env;
	const char	*m;
	size_t		 i;

	for (i = 0; i < nitems(cases); i++) {
		m = cases[i].m;
		if (cases[i].fail == 0) {
			scan_ok(m, &env);
			crosscheck(m, strlen(m), &env);
		} else
			fail_at(m, strlen(m), cases[i].fail);
	}

	m = cases[0].m;
	scan_ok(m, &env);
	assert_span(m, &env.jsonrpc, ENVELOPE_STRING, "\"2.0\"");
	ck_assert_int_eq(env.jsonrpc.plain, 1);
	assert_span(m, &env.id, ENVELOPE_NUMBER, "1");
	assert_span(m, &env.method, ENVELOPE_STRING, "\"ping\"");
	m = cases[2].m;
	scan_ok(m, &env);
	assert_span(m, &env.id, ENVELOPE_OBJECT, "{\"a\":[1]}");
	assert_span(m, &env.result, ENVELOPE_NUMBER, "0");
	m = cases[5].m;
	scan_ok(m, &env);
	assert_span(m, &env.id, ENVELOPE_NUMBER, "7");
	m = cases[9].m;
	scan_ok(m, &env);
	assert_span(m, &env.id, ENVELOPE_NUMBER, "2");
}
END_TEST

static int
plain_byte(unsigned char c)
{
	return (c >= 0x20 && c < 0x80 && c != '"' && c != '\\');
}

/*
 * envelope_plain_prefix and _suffix against a byte loop, over every
 * length and position of one byte needing attention, in texts long
 * enough for the 16- and 64-byte blocks and the AVX2 path.
 */
START_TEST(test_envelope_plain_prefix_suffix)
{
	static const unsigned char odd[] = { '"', '\\', 0x00, 0x1f,
	    0x80, 0xc3, 0xff, '\n' };
	unsigned char	*t;
	size_t		 len, at, k, want, bad = 0;

	t = xmalloc(2100);
	for (len = 0; len <= 2100; len += (len < 200 ? 1 : 97)) {
		memset(t, 'a', len);
		ck_assert_uint_eq(envelope_plain_prefix((char *)t, len), len);
		ck_assert_uint_eq(envelope_plain_suffix((char *)t, len), len);
		for (at = 0; at < len; at += (len < 200 ? 1 : 13)) {
			for (k = 0; k < sizeof odd; k++) {
				memset(t, 'a', len);
				t[at] = odd[k];
				/* A second one later, for the suffix. */
				if (at + 7 < len)
					t[at + 7] = '"';
				for (want = 0; want < len && plain_byte(t[want]);
				    want++)
					;
				if (envelope_plain_prefix((char *)t, len) !=
				    want)
					bad++;
				for (want = 0; want < len &&
				    plain_byte(t[len - 1 - want]); want++)
					;
				if (envelope_plain_suffix((char *)t, len) !=
				    want)
					bad++;
			}
		}
		/* One assertion per length: check records each one. */
		ck_assert_msg(bad == 0, "%zu wrong spans at length %zu", bad,
		    len);
	}
	free(t);
}
END_TEST

/* tmpl with each "%s" replaced by pad. */
static char *
fill_in(const char *tmpl, const char *pad)
{
	const char	*p;
	char		*out;
	size_t		 n = 0, plen = strlen(pad);

	out = xmalloc(strlen(tmpl) + 3 * plen + 1);
	for (p = tmpl; *p != '\0'; p++) {
		if (p[0] == '%' && p[1] == 's') {
			memcpy(out + n, pad, plen);
			n += plen;
			p++;
		} else
			out[n++] = *p;
	}
	out[n] = '\0';
	return (out);
}

/*
 * A span known to be plain changes nothing the scanner says, wherever it
 * lies in the line (in a string, a key, between tokens, across the end
 * of a string): the same result, error offset and members.  A span
 * outside the line is ignored.
 */
START_TEST(test_envelope_scan_plain)
{
	static const char *const lines[] = {
		"{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"text\":\"%s\"}}",
		"{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"text\":\"%s\\n\"}}",
		"{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"text\":\"\\u00e9%s\"}}",
		"{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"text\":\"%s\x01\"}}",
		"{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"text\":\"%s",
		"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"%s\":1}}",
		"{\"a\":[\"%s\",\"%s\"],\"id\":\"%s\"}",
	};
	struct envelope		 e1, e2;
	struct envelope_span	 span;
	char			*pad, *line;
	size_t			 i, len, err1, err2, off, n, run, bad = 0;
	int			 rc1, rc2;

	pad = xmalloc(3000);
	memset(pad, 'p', 2999);
	pad[2999] = '\0';
	for (i = 0; i < nitems(lines); i++) {
		line = fill_in(lines[i], pad);
		len = strlen(line);
		rc1 = envelope_scan(line, len, &e1, &err1);
		for (off = 0; off < len; off += off % 400 < 80 ? 1 : 37) {
			for (run = 0; off + run < len &&
			    plain_byte(line[off + run]); run++)
				;
			/* Some lengths, and the whole run up to the byte after. */
			for (n = 0; n <= run; n = n == run ? n + 1 :
			    (n + 1 + run / 5 < run ? n + 1 + run / 5 : run)) {
				span.off = off;
				span.len = n;
				err2 = 12345;
				rc2 = envelope_scan_plain(line, len, &span, &e2,
				    &err2);
				if (rc1 != rc2 || (rc1 != 0 && err1 != err2) ||
				    memcmp(&e1, &e2, sizeof e1) != 0)
					bad++;
			}
		}
		ck_assert_msg(bad == 0, "line %zu: %zu spans change the scan",
		    i, bad);
		/* Outside the line, or past its end: ignored. */
		span.off = len;
		span.len = 1;
		ck_assert_int_eq(envelope_scan_plain(line, len, &span, &e2,
		    &err2), rc1);
		span.off = SIZE_MAX;
		span.len = 2;
		ck_assert_int_eq(envelope_scan_plain(line, len, &span, &e2,
		    &err2), rc1);
		ck_assert_int_eq(envelope_scan_plain(line, len, NULL, &e2,
		    &err2), rc1);
		ck_assert(memcmp(&e1, &e2, sizeof e1) == 0);
		free(line);
	}
	free(pad);
}
END_TEST

/* Digits are skipped eight at a time: numbers ending at every position. */
START_TEST(test_envelope_digit_runs)
{
	static const char *const tails[] = {
		"", "}", ",\"x\":1}", ".5}", "e3}", "/}", ":}", "a}",
		"\x80}",
	};
	struct envelope	 env;
	char		 m[128];
	size_t		 ndig, i, t, len, want;
	int64_t		 v;

	for (ndig = 1; ndig <= 40; ndig++) {
		for (t = 0; t < nitems(tails); t++) {
			len = (size_t)snprintf(m, sizeof m, "{\"id\":");
			for (i = 0; i < ndig; i++)
				m[len++] = (char)('1' + (i % 9));
			want = len;	/* where the number ends */
			len += (size_t)snprintf(m + len, sizeof m - len, "%s",
			    tails[t]);
			if (t == 1 || t == 2 || t == 3 || t == 4) {
				scan_ok(m, &env);
				if (t < 3)
					ck_assert_uint_eq(env.id.len, want - 6);
				if (t < 3 && ndig <= 18) {
					ck_assert_int_eq(envelope_int64(m,
					    &env.id, &v), 0);
					ck_assert(v > 0);
				}
			} else
				fail_at(m, len, t == 0 ? AT_END : want);
		}
	}
}
END_TEST

START_TEST(test_envelope_escaped_values)
{
	struct envelope	 env;
	char		 buf[64];
	const char	*m;

	m = "{\"method\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\u4E2D"
	    "\\ud83d\\ude00x\"}";
	scan_ok(m, &env);
	ck_assert_int_eq(envelope_string_copy(m, &env.method, buf,
	    sizeof buf), 18);
	ck_assert_str_eq(buf, "\"\\/\b\f\n\r\t\xc3\xa9\xe4\xb8\xad"
	    "\xf0\x9f\x98\x80x");
	ck_assert(envelope_string_eq(m, &env.method, "\"\\/\b\f\n\r\t"
	    "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80x"));
	/* Exactly fits, one byte short. */
	ck_assert_int_eq(envelope_string_copy(m, &env.method, buf, 19), 18);
	ck_assert_int_eq(envelope_string_copy(m, &env.method, buf, 18), -1);
	crosscheck(m, strlen(m), &env);

	m = "{\"method\":\"tools\\/call\"}";
	scan_ok(m, &env);
	ck_assert(envelope_string_eq(m, &env.method, "tools/call"));
	ck_assert(!envelope_string_eq(m, &env.method, "tools\\/call"));

	m = "{\"method\":\"\"}";
	scan_ok(m, &env);
	ck_assert(envelope_string_eq(m, &env.method, ""));
	ck_assert(!envelope_string_eq(m, &env.method, "a"));
	ck_assert_int_eq(envelope_string_copy(m, &env.method, buf, 1), 0);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(envelope_string_copy(m, &env.method, buf, 0), -1);

	/* A 2-byte character does not fit in 2 bytes with the NUL. */
	m = "{\"method\":\"\xc3\xa9\"}";
	scan_ok(m, &env);
	ck_assert_int_eq(envelope_string_copy(m, &env.method, buf, 2), -1);
	ck_assert_int_eq(envelope_string_copy(m, &env.method, buf, 3), 2);
	ck_assert(envelope_string_eq(m, &env.method, "\xc3\xa9"));
	ck_assert(!envelope_string_eq(m, &env.method, "\xc3"));

	m = "{\"method\":\"\\u00E9\"}";
	scan_ok(m, &env);
	ck_assert(envelope_string_eq(m, &env.method, "\xc3\xa9"));

	/* Boundaries of the \u encodings. */
	m = "{\"method\":\"\\u007f\\u0080\\u07FF\\u0800\\uFFFF\\ud800\\udc00"
	    "\\udbff\\udfff\"}";
	scan_ok(m, &env);
	ck_assert(envelope_string_eq(m, &env.method, "\x7f\xc2\x80\xdf\xbf"
	    "\xe0\xa0\x80\xef\xbf\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf"));

	/* "\u0000" cannot become a C string. */
	m = "{\"method\":\"a\\u0000b\"}";
	scan_ok(m, &env);
	ck_assert_int_eq(envelope_string_copy(m, &env.method, buf,
	    sizeof buf), -1);
	ck_assert(!envelope_string_eq(m, &env.method, "a"));
	ck_assert(!envelope_string_eq(m, &env.method, "ab"));

	/* Not strings. */
	m = "{\"method\":7,\"id\":null}";
	scan_ok(m, &env);
	ck_assert(!envelope_string_eq(m, &env.method, "7"));
	ck_assert_int_eq(envelope_string_copy(m, &env.method, buf,
	    sizeof buf), -1);
	ck_assert(!envelope_string_eq(m, &env.id, "null"));
	ck_assert(!envelope_string_eq(m, &env.result, ""));
	ck_assert_int_eq(envelope_string_copy(m, &env.result, buf,
	    sizeof buf), -1);
}
END_TEST

/*
 * Escaped lone surrogates are valid JSON syntax (RFC 8259 section 8.2), so
 * the scan accepts them; they cannot be decoded to UTF-8, so comparing
 * fails and copying refuses.
 */
START_TEST(test_envelope_lone_surrogates)
{
	static const char *lone[] = {
		"\\ud800", "\\udc00", "\\uDFFF", "\\ud800x", "x\\udbff",
		"\\ud800\\u0041", "\\udbff\\udbff", "\\udc00\\ud800",
		"\\ud800\\n", "\\ud83d\\u00e9", "\\ud83d\\\\",
	};
	struct envelope	 env;
	char		 m[128], buf[64];
	size_t		 i;

	for (i = 0; i < nitems(lone); i++) {
		snprintf(m, sizeof m, "{\"method\":\"%s\",\"id\":1}", lone[i]);
		scan_ok(m, &env);
		assert_span(m, &env.id, ENVELOPE_NUMBER, "1");
		ck_assert_int_eq(envelope_string_copy(m, &env.method, buf,
		    sizeof buf), -1);
		ck_assert(!envelope_string_eq(m, &env.method, ""));
		ck_assert(!envelope_string_eq(m, &env.method, "x"));
		ck_assert(!envelope_string_eq(m, &env.method, "A"));
		ck_assert(!envelope_string_eq(m, &env.method,
		    "\xed\xa0\x80"));
	}
}
END_TEST

/* ---- duplicates ---- */

START_TEST(test_envelope_duplicates)
{
	static const struct {
		const char	*m;
		const char	*second;	/* text at the error */
		int		 nth;
	} dups[] = {
		{ "{\"params\":{\"progressToken\":1,\"progressToken\":1}}",
		    "\"progressToken\"", 2 },
		{ "{\"params\":{\"requestId\":1,\"x\":0,\"requestId\":\"1\"}}",
		    "\"requestId\"", 2 },
		{ "{\"params\":{\"uri\":\"a\",\"uri\":\"b\"}}", "\"uri\"", 2 },
		{ "{\"params\":{\"name\":\"a\",\"n\\u0061me\":\"b\"}}",
		    "\"n\\u0061me\"", 1 },
		{ "{\"params\":{\"level\":\"a\",\"level\":\"a\"}}",
		    "\"level\"", 2 },
		{ "{\"params\":{\"_meta\":{},\"_meta\":{}}}", "\"_meta\"", 2 },
		{ "{\"params\":{\"_meta\":{\"progressToken\":1},\"_meta\":5}}",
		    "\"_meta\"", 2 },
		{ "{\"params\":{\"_meta\":{\"progressToken\":1,\"x\":{},"
		    "\"progressToken\":2}}}", "\"progressToken\"", 2 },
		{ "{\"error\":{\"code\":1,\"message\":\"m\",\"code\":2}}",
		    "\"code\"", 2 },
		{ "{\"id\":1,\"\\u0069d\":2}", "\"\\u0069d\"", 1 },
		{ "{\"i\\u0064\":1,\"id\":2}", "\"id\"", 1 },
		{ "{\"params\":1,\"params\":{\"progressToken\":1}}",
		    "\"params\"", 2 },
		{ "{\"params\":{\"progress\\u0054oken\":1,\"progressToken\":"
		    "2}}", "\"progressToken\"", 1 },
	};
	/* Members that are not recorded may repeat. */
	static const char *allowed[] = {
		"{\"result\":{\"a\":1,\"a\":2},\"x\":1,\"x\":2}",
		"{\"result\":{\"id\":1,\"id\":2,\"params\":1,\"params\":2}}",
		"{\"params\":{\"cursor\":1,\"cursor\":2,\"_meta\":{\"x\":1,"
		    "\"x\":2}}}",
		"{\"error\":{\"message\":\"a\",\"message\":\"b\",\"data\":1,"
		    "\"data\":2}}",
		"{\"params\":{\"x\":{\"progressToken\":1,\"progressToken\""
		    ":2}}}",
		"{\"params\":{\"_meta\":{\"a\":{\"progressToken\":1,"
		    "\"progressToken\":2}}}}",
		"{\"result\":[{\"id\":1,\"id\":1}],\"_meta\":1,\"_meta\":1}",
		"{\"ID\":1,\"Id\":2,\"id\":3}",
	};
	struct envelope	 env;
	char		 m[256], key[32];
	size_t		 i, off;

	/* The six top-level members come first in struct envelope. */
	for (i = 0; i < 6; i++) {
		snprintf(m, sizeof m, "{\"%s\":1,\"x\":{\"%s\":2},\"%s\":3}",
		    fields[i].name, fields[i].name, fields[i].name);
		snprintf(key, sizeof key, "\"%s\"", fields[i].name);
		fail_at(m, strlen(m), offset_of_nth(m, key, 3));
		/* The first occurrence stays recorded. */
		ck_assert_int_eq(scan_len(m, strlen(m), &env, &off), -1);
		assert_span(m, field(&env, i), ENVELOPE_NUMBER, "1");
	}
	for (i = 0; i < nitems(dups); i++) {
		fail_at(dups[i].m, strlen(dups[i].m), offset_of_nth(dups[i].m,
		    dups[i].second, dups[i].nth));
	}
	for (i = 0; i < nitems(allowed); i++) {
		scan_ok(allowed[i], &env);
		check_splice(allowed[i], strlen(allowed[i]), &env);
	}
}
END_TEST

/* A failed scan keeps the members that ended before the error. */
START_TEST(test_envelope_partial)
{
	struct envelope	 env;
	const char	*m;
	size_t		 off;

	m = "{\"id\":5,\"method\":\"x\",}";
	ck_assert_int_eq(scan_len(m, strlen(m), &env, &off), -1);
	ck_assert_uint_eq(off, strlen(m) - 1);
	assert_span(m, &env.id, ENVELOPE_NUMBER, "5");
	assert_span(m, &env.method, ENVELOPE_STRING, "\"x\"");

	m = "{\"id\":\"r1\",\"params\":{\"_meta\":{\"progressToken\":3},\"a\":";
	ck_assert_int_eq(scan_len(m, strlen(m), &env, &off), -1);
	ck_assert_uint_eq(off, strlen(m));
	assert_span(m, &env.id, ENVELOPE_STRING, "\"r1\"");
	assert_absent(m, &env.params);
	assert_span(m, &env.meta, ENVELOPE_OBJECT, "{\"progressToken\":3}");
	assert_span(m, &env.progress_token, ENVELOPE_NUMBER, "3");

	m = "{\"result\":{\"a\":[1,2,3],\"b\":\"\x01\"},\"id\":1}";
	ck_assert_int_eq(scan_len(m, strlen(m), &env, &off), -1);
	assert_absent(m, &env.result);
	assert_absent(m, &env.id);
}
END_TEST

/* ---- invalid input ---- */

START_TEST(test_envelope_invalid)
{
	static const struct {
		const char	*s;
		size_t		 len;
		size_t		 off;
	} bad[] = {
		/* Not an object. */
		{ LIT(""), AT_END },
		{ LIT("   "), AT_END },
		{ LIT("[]"), 0 },
		{ LIT("[{\"id\":1}]"), 0 },
		{ LIT("1"), 0 },
		{ LIT("\"x\""), 0 },
		{ LIT("null"), 0 },
		{ LIT("  true"), 2 },
		/* Truncated. */
		{ LIT("{"), AT_END },
		{ LIT("{\"id"), AT_END },
		{ LIT("{\"id\""), AT_END },
		{ LIT("{\"id\":"), AT_END },
		{ LIT("{\"id\": "), AT_END },
		{ LIT("{\"id\":1"), AT_END },
		{ LIT("{\"id\":1,"), AT_END },
		{ LIT("{\"id\":\"abc}"), AT_END },
		{ LIT("{\"a\":{\"b\":1}"), AT_END },
		{ LIT("{\"a\":[1,[2]"), AT_END },
		{ LIT("{\"id\":tr"), AT_END },
		{ LIT("{\"id\":-"), AT_END },
		{ LIT("{\"id\":1."), AT_END },
		{ LIT("{\"id\":1e"), AT_END },
		{ LIT("{\"id\":\"\\"), AT_END },
		{ LIT("{\"id\":\"\\u12"), AT_END },
		/* After the object. */
		{ LIT("{\"id\":1}x"), 8 },
		{ LIT("{\"id\":1}{}"), 8 },
		{ LIT("{\"id\":1} ,"), 9 },
		{ LIT("{\"id\":1}}"), 8 },
		{ LIT("{}\x00"), 2 },
		/* Structure. */
		{ LIT("{id:1}"), 1 },
		{ LIT("{'id':1}"), 1 },
		{ LIT("{\"id\" 1}"), 6 },
		{ LIT("{\"id\"=1}"), 5 },
		{ LIT("{\"a\"::1}"), 5 },
		{ LIT("{\"a\":1:}"), 6 },
		{ LIT("{\"id\":1,}"), 8 },
		{ LIT("{,}"), 1 },
		{ LIT("{\"a\":1,,\"b\":2}"), 7 },
		{ LIT("{\"a\":\"x\"\"b\":1}"), 8 },
		{ LIT("{\"a\":[1,]}"), 8 },
		{ LIT("{\"a\":[,1]}"), 6 },
		{ LIT("{\"a\":[1 2]}"), 8 },
		{ LIT("{\"a\":[}"), 6 },
		{ LIT("{\"a\":{]}"), 6 },
		{ LIT("{\"a\":[1}"), 7 },
		{ LIT("{\"a\":{\"b\":1]}"), 11 },
		{ LIT("{\"a\":}"), 5 },
		{ LIT("{\"a\"}"), 4 },
		{ LIT("{1:2}"), 1 },
		{ LIT("{\"a\":/*c*/1}"), 5 },
		{ LIT("{\"a\":'x'}"), 5 },
		{ LIT("{\"a\":1\xc3\xa9}"), 6 },
		/* Literals. */
		{ LIT("{\"id\":tru}"), 9 },
		{ LIT("{\"id\":nul}"), 9 },
		{ LIT("{\"id\":fals}"), 10 },
		{ LIT("{\"id\":True}"), 6 },
		{ LIT("{\"id\":NULL}"), 6 },
		{ LIT("{\"id\":truex}"), 10 },
		{ LIT("{\"id\":nulll}"), 10 },
		{ LIT("{\"id\":undefined}"), 6 },
		/* Numbers. */
		{ LIT("{\"id\":01}"), 7 },
		{ LIT("{\"id\":00}"), 7 },
		{ LIT("{\"id\":-01}"), 8 },
		{ LIT("{\"id\":-}"), 7 },
		{ LIT("{\"id\":--1}"), 7 },
		{ LIT("{\"id\":- 1}"), 7 },
		{ LIT("{\"id\":+1}"), 6 },
		{ LIT("{\"id\":.5}"), 6 },
		{ LIT("{\"id\":1.}"), 8 },
		{ LIT("{\"id\":1.e5}"), 8 },
		{ LIT("{\"id\":1e}"), 8 },
		{ LIT("{\"id\":1e+}"), 9 },
		{ LIT("{\"id\":1e-+1}"), 9 },
		{ LIT("{\"id\":1.5.5}"), 9 },
		{ LIT("{\"id\":0x10}"), 7 },
		{ LIT("{\"id\":1_000}"), 7 },
		{ LIT("{\"id\":NaN}"), 6 },
		{ LIT("{\"id\":Infinity}"), 6 },
		{ LIT("{\"id\":-Infinity}"), 7 },
		/* Strings. */
		{ LIT("{\"id\":\"a\nb\"}"), 8 },
		{ LIT("{\"id\":\"a\tb\"}"), 8 },
		{ LIT("{\"id\":\"\x00\"}"), 7 },
		{ LIT("{\"id\":\"\x1f\"}"), 7 },
		{ LIT("{\"i\x01\":1}"), 3 },
		{ LIT("{\"id\":\"\\x\"}"), 8 },
		{ LIT("{\"id\":\"\\U0041\"}"), 8 },
		{ LIT("{\"id\":\"\\'\"}"), 8 },
		{ LIT("{\"id\":\"\\0\"}"), 8 },
		{ LIT("{\"id\":\"\\u12G4\"}"), 11 },
		{ LIT("{\"id\":\"\\u123\"}"), 12 },
		{ LIT("{\"id\":\"\\u\"}"), 9 },
		{ LIT("{\"id\":\"\\ \"}"), 8 },
		/* UTF-8. */
		{ LIT("{\"a\":\"\x80\"}"), 6 },
		{ LIT("{\"a\":\"\xbf\"}"), 6 },
		{ LIT("{\"a\":\"\xc0\xaf\"}"), 6 },
		{ LIT("{\"a\":\"\xc1\xbf\"}"), 6 },
		{ LIT("{\"a\":\"\xc2\"}"), 7 },
		{ LIT("{\"a\":\"\xc2\x41\"}"), 7 },
		{ LIT("{\"a\":\"\xc2\xc2\x80\"}"), 7 },
		{ LIT("{\"a\":\"\xe0\x80\xaf\"}"), 7 },
		{ LIT("{\"a\":\"\xe0\x9f\xbf\"}"), 7 },
		{ LIT("{\"a\":\"\xed\xa0\x80\"}"), 7 },
		{ LIT("{\"a\":\"\xed\xbf\xbf\"}"), 7 },
		{ LIT("{\"a\":\"\xed\xb0\x80\"}"), 7 },
		{ LIT("{\"a\":\"\xe2\x82\"}"), 8 },
		{ LIT("{\"a\":\"\xe2\x82\x41\"}"), 8 },
		{ LIT("{\"a\":\"\xf0\x80\x80\xaf\"}"), 7 },
		{ LIT("{\"a\":\"\xf0\x8f\xbf\xbf\"}"), 7 },
		{ LIT("{\"a\":\"\xf4\x90\x80\x80\"}"), 7 },
		{ LIT("{\"a\":\"\xf0\x9f\x98\"}"), 9 },
		{ LIT("{\"a\":\"\xf0\x9f\x98\x41\"}"), 9 },
		{ LIT("{\"a\":\"\xf5\x80\x80\x80\"}"), 6 },
		{ LIT("{\"a\":\"\xf8\x88\x80\x80\x80\"}"), 6 },
		{ LIT("{\"a\":\"\xfc\x84\x80\x80\x80\x80\"}"), 6 },
		{ LIT("{\"a\":\"\xfe\"}"), 6 },
		{ LIT("{\"a\":\"\xff\"}"), 6 },
		{ LIT("{\"\xff\":1}"), 2 },
		{ LIT("{\"a\":\"\xe2\x82"), AT_END },
		{ LIT("{\"a\":\"\xf0\x9f\x98"), AT_END },
		{ LIT("{\"a\":\"\xf0"), AT_END },
		{ LIT("\xc3\xa9"), 0 },
	};
	size_t	 i;

	for (i = 0; i < nitems(bad); i++)
		fail_at(bad[i].s, bad[i].len, bad[i].off);
}
END_TEST

/* Valid UTF-8 at the edges of each sequence length. */
START_TEST(test_envelope_utf8_valid)
{
	static const char *ok[] = {
		"\x7f", "\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xed\x9f\xbf",
		"\xee\x80\x80", "\xef\xbf\xbf", "\xf0\x90\x80\x80",
		"\xf4\x8f\xbf\xbf", "\xf3\xbf\xbf\xbf", "\xc3\xa9t\xc3\xa9",
		"\xe4\xb8\xad\xe6\x96\x87", "\xf0\x9f\x98\x80\xf0\x9f\x98\x80",
	};
	struct envelope	 env;
	char		 m[128], buf[32];
	size_t		 i;

	for (i = 0; i < nitems(ok); i++) {
		snprintf(m, sizeof m, "{\"%s\":0,\"method\":\"%s\"}", ok[i],
		    ok[i]);
		scan_ok(m, &env);
		ck_assert(envelope_string_eq(m, &env.method, ok[i]));
		ck_assert_int_eq(envelope_string_copy(m, &env.method, buf,
		    sizeof buf), (int)strlen(ok[i]));
		ck_assert_str_eq(buf, ok[i]);
		crosscheck(m, strlen(m), &env);
	}
}
END_TEST

/* Reference: decode by the bit patterns, then check the code point. */
static int
ref_utf8_valid(const unsigned char *s, size_t n)
{
	size_t		 i = 0, k, need;
	uint32_t	 cp, min;

	while (i < n) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if ((s[i] & 0xe0) == 0xc0) {
			need = 1;
			cp = s[i] & 0x1f;
			min = 0x80;
		} else if ((s[i] & 0xf0) == 0xe0) {
			need = 2;
			cp = s[i] & 0x0f;
			min = 0x800;
		} else if ((s[i] & 0xf8) == 0xf0) {
			need = 3;
			cp = s[i] & 0x07;
			min = 0x10000;
		} else
			return (0);
		for (k = 1; k <= need; k++) {
			if (i + k >= n || (s[i + k] & 0xc0) != 0x80)
				return (0);
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return (0);
		i += need + 1;
	}
	return (1);
}

/* Every lead byte with every second byte, and a spread of tails. */
START_TEST(test_envelope_utf8_exhaustive)
{
	static const unsigned char tails[] = {
		0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc3,
		0xf4,
	};
	struct envelope	 env;
	unsigned char	 m[12], *s = m + 6;
	unsigned int	 b0, b1, t2, t3, accepted = 0, refused = 0;
	size_t		 off;
	int		 rc, want;

	memcpy(m, "{\"a\":\"", 6);
	memcpy(m + 10, "\"}", 2);
	for (b0 = 0x80; b0 <= 0xff; b0++) {
		for (b1 = 0x20; b1 <= 0xff; b1++) {
			if (b1 == '"' || b1 == '\\')
				continue;
			for (t2 = 0; t2 < nitems(tails); t2++) {
				for (t3 = 0; t3 < nitems(tails); t3++) {
					s[0] = b0;
					s[1] = b1;
					s[2] = tails[t2];
					s[3] = tails[t3];
					want = ref_utf8_valid(s, 4);
					rc = envelope_scan((char *)m, sizeof m,
					    &env, &off);
					/* ck_assert costs a syscall. */
					if ((rc == 0) != want) {
						ck_abort_msg("%02x %02x %02x "
						    "%02x: %d", s[0], s[1],
						    s[2], s[3], rc);
					}
					if (rc == 0) {
						accepted++;
						continue;
					}
					refused++;
					if (off < 6 || off > 10) {
						ck_abort_msg("%02x %02x %02x "
						    "%02x: at %zu", s[0], s[1],
						    s[2], s[3], off);
					}
				}
			}
		}
	}
	ck_assert_uint_gt(accepted, 10000);
	ck_assert_uint_gt(refused, 100000);
}
END_TEST

/*
 * A byte needing attention at every position of a long string, so each
 * block size of the fast loop and the tail see it.
 */
START_TEST(test_envelope_long_strings)
{
	static const struct {
		const char	*insert;
		int		 valid;
	} cases[] = {
		{ "\x01", 0 }, { "\x1f", 0 }, { "\xff", 0 }, { "\x80", 0 },
		{ "\xc3\xa9", 1 }, { "\xf0\x9f\x98\x80", 1 }, { "\\n", 1 },
		{ "\\\"", 1 }, { "\\u00e9", 1 }, { "\x7f", 1 }, { "~", 1 },
	};
	static const size_t	 tails[] = { 0, 1, 15, 16, 17, 63, 64, 70 };
	struct envelope		 env;
	char			 m[512];
	size_t			 pre, c, t, len, off, k;
	int			 rc;

	for (pre = 0; pre < 150; pre++) {
		for (c = 0; c < nitems(cases); c++) {
			for (t = 0; t < nitems(tails); t++) {
				len = 0;
				memcpy(m, "{\"id\":\"", 7);
				len = 7;
				for (k = 0; k < pre; k++)
					m[len++] = 'a' + k % 26;
				memcpy(m + len, cases[c].insert,
				    strlen(cases[c].insert));
				len += strlen(cases[c].insert);
				for (k = 0; k < tails[t]; k++)
					m[len++] = 'Z';
				memcpy(m + len, "\"}", 2);
				len += 2;
				rc = scan_len(m, len, &env, &off);
				if (cases[c].valid) {
					ck_assert_int_eq(rc, 0);
					ck_assert_uint_eq(env.id.off, 6);
					ck_assert_uint_eq(env.id.len, len - 7);
				} else {
					ck_assert_int_eq(rc, -1);
					ck_assert_uint_eq(off, 7 + pre);
				}
			}
		}
	}

	/* Every length, closed and cut off before the closing quote. */
	for (len = 0; len < 300; len++) {
		memcpy(m, "{\"id\":\"", 7);
		memset(m + 7, 'q', len);
		memcpy(m + 7 + len, "\"}", 2);
		ck_assert_int_eq(scan_len(m, len + 9, &env, &off), 0);
		ck_assert_uint_eq(env.id.len, len + 2);
		fail_at(m, len + 7, AT_END);
		fail_at(m, len + 8, AT_END);
	}
}
END_TEST

/* ---- numbers and depth ---- */

START_TEST(test_envelope_int64)
{
	static const struct {
		const char	*text;
		int		 ok;
		int64_t		 value;
	} nums[] = {
		{ "0", 1, 0 },
		{ "-0", 1, 0 },
		{ "7", 1, 7 },
		{ "-7", 1, -7 },
		{ "9223372036854775807", 1, INT64_MAX },
		{ "-9223372036854775807", 1, -INT64_MAX },
		{ "-9223372036854775808", 1, INT64_MIN },
		{ "9223372036854775808", 0, 0 },
		{ "-9223372036854775809", 0, 0 },
		{ "9999999999999999999", 0, 0 },
		{ "99999999999999999999", 0, 0 },
		{ "1.0", 0, 0 },
		{ "1e3", 0, 0 },
		{ "-1E0", 0, 0 },
		{ "0.5", 0, 0 },
	};
	struct envelope	 env;
	struct envelope_value bogus;
	char		 m[128];
	size_t		 i;
	int64_t		 v;

	for (i = 0; i < nitems(nums); i++) {
		snprintf(m, sizeof m, "{\"error\":{\"code\":%s}}",
		    nums[i].text);
		scan_ok(m, &env);
		assert_span(m, &env.e_code, ENVELOPE_NUMBER, nums[i].text);
		v = 12345;
		ck_assert_int_eq(envelope_int64(m, &env.e_code, &v),
		    nums[i].ok ? 0 : -1);
		ck_assert_int_eq(v, nums[i].ok ? nums[i].value : 12345);
	}
	/* A value that did not come from a scan is checked, not trusted. */
	bogus.type = ENVELOPE_NUMBER;
	bogus.off = 0;
	bogus.len = 1;
	ck_assert_int_eq(envelope_int64("-", &bogus, &v), -1);
	ck_assert_int_eq(envelope_int64("x", &bogus, &v), -1);
	bogus.len = 0;
	ck_assert_int_eq(envelope_int64("", &bogus, &v), -1);
}
END_TEST

/*
 * Eight digits are read at once when eight bytes of the line end with the
 * number: every length and offset, the bytes before it (digits too) left
 * out, a wrong byte at every position refused, against the plain loop.
 */
START_TEST(test_envelope_int64_block)
{
	struct envelope_value	 v;
	char			 line[64], want[32];
	int64_t			 got, expect;
	size_t			 off, n, bad, k;
	static const char	 wrong[] = { '/', ':', ' ', '.', 'e', '\x80',
	    '\xb9', '\xff', '\0', 'a' };

	v.type = ENVELOPE_NUMBER;
	for (off = 0; off < 12; off++) {
		for (n = 1; n <= 10; n++) {
			/* Digits before the number must not count. */
			memset(line, '9', sizeof line);
			for (k = 0; k < n; k++)
				line[off + k] = (char)('0' + (k * 7 + n) % 10);
			memcpy(want, line + off, n);
			want[n] = '\0';
			expect = strtoll(want, NULL, 10);
			v.off = off;
			v.len = n;
			got = -1;
			ck_assert_int_eq(envelope_int64(line, &v, &got), 0);
			ck_assert(got == expect);
			/* The same negative. */
			if (off > 0) {
				line[off - 1] = '-';
				v.off = off - 1;
				v.len = n + 1;
				ck_assert_int_eq(envelope_int64(line, &v,
				    &got), 0);
				ck_assert(got == -expect);
				line[off - 1] = '9';
				v.off = off;
				v.len = n;
			}
			for (bad = 0; bad < n; bad++) {
				for (k = 0; k < sizeof wrong; k++) {
					line[off + bad] = wrong[k];
					got = 77;
					ck_assert_int_eq(envelope_int64(line,
					    &v, &got), -1);
					ck_assert(got == 77);
				}
				line[off + bad] = want[bad];
			}
		}
	}
}
END_TEST

/* plain: a string without escapes, whose raw text is its value. */
START_TEST(test_envelope_plain)
{
	struct envelope	 env;
	const char	*m;

	m = "{\"jsonrpc\":\"2.0\",\"id\":\"a\\u0062\",\"method\":\"t\u00e9st\","
	    "\"params\":{\"name\":\"x\\\"y\",\"uri\":\"\",\"level\":7,"
	    "\"_meta\":{\"progressToken\":\"p\\/q\"}}}";
	scan_ok(m, &env);
	ck_assert_int_eq(env.jsonrpc.plain, 1);
	ck_assert_int_eq(env.id.plain, 0);
	ck_assert_int_eq(env.method.plain, 1);
	ck_assert_int_eq(env.p_name.plain, 0);
	ck_assert_int_eq(env.p_uri.plain, 1);
	ck_assert_int_eq(env.p_level.plain, 0);
	ck_assert_int_eq(env.params.plain, 0);
	ck_assert_int_eq(env.progress_token.plain, 0);
	ck_assert_int_eq(env.error.plain, 0);
	/* An escape in the last bytes before the closing quote. */
	m = "{\"method\":\"abcdefghijklmnopqrstuvwxyz\\n\",\"id\":\"x\"}";
	scan_ok(m, &env);
	ck_assert_int_eq(env.method.plain, 0);
	ck_assert_int_eq(env.id.plain, 1);
}
END_TEST

/*
 * envelope_string_eq with a constant: the same bytes are equal without a
 * call, but a constant holding a backslash, an escaped value and another
 * type still go the long way; the same answers with a string that is not
 * a constant.
 */
START_TEST(test_envelope_string_eq_const)
{
	struct envelope	 env;
	const char	*m;
	char		 two[8], slash[8];

	snprintf(two, sizeof two, "%s", "2.0");
	m = "{\"jsonrpc\":\"2.0\",\"method\":\"a\\nb\",\"id\":\"2\\u002e0\","
	    "\"result\":\"a\\\\b\"}";
	scan_ok(m, &env);
	ck_assert(envelope_string_eq(m, &env.jsonrpc, "2.0"));
	ck_assert(envelope_string_eq(m, &env.jsonrpc, two));
	ck_assert(!envelope_string_eq(m, &env.jsonrpc, "2.1"));
	ck_assert(!envelope_string_eq(m, &env.jsonrpc, "2.0 "));
	ck_assert(!envelope_string_eq(m, &env.jsonrpc, "2."));
	ck_assert(envelope_string_eq(m, &env.id, "2.0"));
	ck_assert(envelope_string_eq(m, &env.id, two));
	/* The raw text a\nb is not the constant a\nb: it holds a newline. */
	ck_assert(!envelope_string_eq(m, &env.method, "a\\nb"));
	ck_assert(envelope_string_eq(m, &env.method, "a\nb"));
	/* The raw text a\\b is a\b. */
	snprintf(slash, sizeof slash, "%s", "a\\b");
	ck_assert(envelope_string_eq(m, &env.result, "a\\b"));
	ck_assert(envelope_string_eq(m, &env.result, slash));
	ck_assert(!envelope_string_eq(m, &env.result, "a\\\\b"));
	/* Not a string: never equal, whatever its bytes. */
	m = "{\"jsonrpc\":20,\"id\":\"20\"}";
	scan_ok(m, &env);
	env.jsonrpc.type = ENVELOPE_NUMBER;
	env.jsonrpc.off = env.id.off;
	env.jsonrpc.len = env.id.len;
	ck_assert(!envelope_string_eq(m, &env.jsonrpc, "20"));
	ck_assert(envelope_string_eq(m, &env.id, "20"));
}
END_TEST

/*
 * The keys of params and params._meta as compact JSON writes them are
 * matched in a load or two, when 16 bytes or more follow: the same spans
 * as the general path (spaced or escaped keys), near the end of the line
 * too, duplicates across the two paths refused at the second key, a key
 * that only starts like one not taken for it, and every prefix refused at
 * its end.
 */
START_TEST(test_envelope_params_keys)
{
	static const char *forms[][2] = {
		/* compact, then the same members the general way */
		{ "\"name\":\"echo\",\"arguments\":{\"name\":1},\"uri\":\"u\","
		  "\"level\":\"info\",\"requestId\":7,\"progressToken\":\"t\","
		  "\"_meta\":{\"progressToken\":9}",
		  "\"name\" :\"echo\",\"argum\\u0065nts\":{\"name\":1},"
		  "\"ur\\u0069\":\"u\",\"level\"\t:\"info\",\"requestId\" : 7,"
		  "\"progress\\u0054oken\":\"t\","
		  "\"_meta\" :{\"progressToken\" :9}" },
	};
	struct envelope	 a, b;
	char		 m[512], pad[64];
	size_t		 i, j, k, n;

	for (i = 0; i < nitems(forms); i++) {
		for (k = 0; k < 40; k++) {
			memset(pad, 'x', k);
			pad[k] = '\0';
			snprintf(m, sizeof m, "{\"id\":1,\"params\":{%s},"
			    "\"p\":\"%s\"}", forms[i][0], pad);
			scan_ok(m, &a);
			assert_span(m, &a.p_name, ENVELOPE_STRING, "\"echo\"");
			assert_span(m, &a.p_uri, ENVELOPE_STRING, "\"u\"");
			assert_span(m, &a.p_level, ENVELOPE_STRING, "\"info\"");
			assert_span(m, &a.p_request_id, ENVELOPE_NUMBER, "7");
			assert_span(m, &a.p_progress_token, ENVELOPE_STRING,
			    "\"t\"");
			assert_span(m, &a.meta, ENVELOPE_OBJECT,
			    "{\"progressToken\":9}");
			assert_span(m, &a.progress_token, ENVELOPE_NUMBER,
			    "9");
			n = strlen(m);
			for (j = 0; j < n; j++)
				fail_at(m, j, AT_END);
			snprintf(m, sizeof m, "{\"id\":1,\"params\":{%s},"
			    "\"p\":\"%s\"}", forms[i][1], pad);
			scan_ok(m, &b);
			ck_assert_int_eq(b.p_name.type, a.p_name.type);
			ck_assert_int_eq(b.progress_token.type,
			    a.progress_token.type);
			ck_assert_int_eq(b.p_progress_token.type,
			    a.p_progress_token.type);
			ck_assert_int_eq(b.p_uri.type, a.p_uri.type);
		}
	}
	/* The key last in the line, fewer than 16 bytes left. */
	for (k = 0; k < 20; k++) {
		memset(pad, 'x', k);
		pad[k] = '\0';
		snprintf(m, sizeof m, "{\"params\":{\"p\":\"%s\",\"name\":1}}",
		    pad);
		scan_ok(m, &a);
		assert_span(m, &a.p_name, ENVELOPE_NUMBER, "1");
		snprintf(m, sizeof m, "{\"params\":{\"p\":\"%s\",\"_meta\":"
		    "{\"progressToken\":2}}}", pad);
		scan_ok(m, &a);
		assert_span(m, &a.progress_token, ENVELOPE_NUMBER, "2");
	}
	/* Duplicates, each way round. */
	snprintf(m, sizeof m, "{\"params\":{\"name\":1,\"n\\u0061me\":2,"
	    "\"xxxxxxxxxxxxxxxx\":0}}");
	fail_at(m, strlen(m), offset_of_nth(m, "\"n\\u0061me", 1));
	snprintf(m, sizeof m, "{\"params\":{\"name\" :1,\"name\":2,"
	    "\"xxxxxxxxxxxxxxxx\":0}}");
	fail_at(m, strlen(m), offset_of_nth(m, "\"name\"", 2));
	snprintf(m, sizeof m, "{\"params\":{\"_meta\":{\"progressToken\":1,"
	    "\"progressToken\":2,\"xxxxxxxxxxxxxxxx\":0}}}");
	fail_at(m, strlen(m), offset_of_nth(m, "\"progressToken\"", 2));
	/* arguments is not recorded: twice is allowed, as before. */
	snprintf(m, sizeof m, "{\"params\":{\"arguments\":{},\"arguments\":"
	    "[],\"xxxxxxxxxxxxxxxx\":0}}");
	scan_ok(m, &a);
	/* Keys that start like one are other keys. */
	snprintf(m, sizeof m, "{\"params\":{\"names\":1,\"name2\":2,"
	    "\"_metadata\":{\"progressToken\":3},\"uri\":4,"
	    "\"xxxxxxxxxxxxxxxx\":0}}");
	scan_ok(m, &a);
	assert_absent(m, &a.p_name);
	assert_absent(m, &a.meta);
	assert_absent(m, &a.progress_token);
	assert_span(m, &a.p_uri, ENVELOPE_NUMBER, "4");
	/* The keys of params mean nothing elsewhere. */
	snprintf(m, sizeof m, "{\"result\":{\"name\":1,\"_meta\":"
	    "{\"progressToken\":3},\"xxxxxxxxxxxxxxxx\":0},\"params\":[]}");
	scan_ok(m, &a);
	assert_absent(m, &a.p_name);
	assert_absent(m, &a.meta);
	assert_absent(m, &a.progress_token);
}
END_TEST

/* Counting up in place gives the text envelope_print_int64 would. */
START_TEST(test_envelope_count_up)
{
	static const int64_t starts[] = {
		1, 8, 9, 10, 98, 99, 100, 998, 999, 1999, 9999, 99999998,
		99999999, 999999999, 999999999999999998LL,
		999999999999999999LL, INT64_MAX - 2,
	};
	char		 text[ENVELOPE_INT64_BYTES];
	char		 want[ENVELOPE_INT64_BYTES];
	size_t		 i, k, len;
	int64_t		 v;

	for (i = 0; i < nitems(starts); i++) {
		v = starts[i];
		len = envelope_print_int64(v, text);
		for (k = 0; k < 2000 && v < INT64_MAX - 1; k++) {
			len = envelope_count_up(text, len);
			v++;
			ck_assert_uint_eq(len, envelope_print_int64(v, want));
			ck_assert(memcmp(text, want, len) == 0);
			ck_assert_int_eq(text[len], '\0');
		}
	}
	/* Every value from 1 to 1000000 in turn. */
	len = envelope_print_int64(1, text);
	for (v = 2; v <= 1000000; v++) {
		len = envelope_count_up(text, len);
		ck_assert_uint_eq(len, envelope_print_int64(v, want));
		ck_assert(memcmp(text, want, len + 1) == 0);
	}
}
END_TEST

/* The text of an int64_t, against printf and back through the scanner. */
START_TEST(test_envelope_print_int64)
{
	static const int64_t edges[] = {
		0, 1, -1, 9, 10, 11, -9, -10, 99, 100, 101, -100, 999, 1000,
		123456789, -123456789, 999999999999999999LL,
		1000000000000000000LL, INT64_MAX, INT64_MAX - 1, INT64_MIN,
		INT64_MIN + 1,
	};
	char		 buf[ENVELOPE_INT64_BYTES], want[32], m[64];
	struct envelope	 env;
	uint64_t	 x = 0x9e3779b97f4a7c15ULL;
	int64_t		 v, back;
	size_t		 i, n;

	for (i = 0; i < nitems(edges) + 200000; i++) {
		if (i < nitems(edges))
			v = edges[i];
		else if (i < nitems(edges) + 100000)
			v = (int64_t)i - 50000;
		else {
			/* xorshift: values of every length and sign */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			v = (int64_t)(x >> (x % 64));
			if (x & 1)
				v = -v;
		}
		memset(buf, 'x', sizeof buf);
		n = envelope_print_int64(v, buf);
		snprintf(want, sizeof want, "%lld", (long long)v);
		ck_assert_str_eq(buf, want);
		ck_assert_uint_eq(n, strlen(want));
		snprintf(m, sizeof m, "{\"id\":%s}", buf);
		scan_ok(m, &env);
		ck_assert_int_eq(envelope_int64(m, &env.id, &back), 0);
		ck_assert(back == v);
	}
}
END_TEST

START_TEST(test_envelope_numbers)
{
	static const char *ok[] = {
		"0", "-0", "1", "-1", "10", "0.5", "-0.0", "1e5", "1E5",
		"1e+5", "1e-5", "1.25e-05", "-0.0e0", "0E0", "1e0001",
		"123456789012345678901234567890.123456789e-100",
	};
	struct envelope	 env;
	char		 m[512];
	size_t		 i;

	for (i = 0; i < nitems(ok); i++) {
		snprintf(m, sizeof m, "{\"id\":%s,\"a\":[%s,%s]}", ok[i],
		    ok[i], ok[i]);
		scan_ok(m, &env);
		assert_span(m, &env.id, ENVELOPE_NUMBER, ok[i]);
		crosscheck(m, strlen(m), &env);
		snprintf(m, sizeof m, "{\"id\" : %s }", ok[i]);
		scan_ok(m, &env);
		assert_span(m, &env.id, ENVELOPE_NUMBER, ok[i]);
	}
}
END_TEST

static size_t
make_nest(char *m, size_t depth, int objects)
{
	size_t	 len = 0, i;

	memcpy(m, "{\"a\":", 5);
	len = 5;
	for (i = 0; i < depth; i++) {
		if (objects) {
			memcpy(m + len, "{\"k\":", 5);
			len += 5;
		} else
			m[len++] = '[';
	}
	m[len++] = '0';
	for (i = 0; i < depth; i++)
		m[len++] = objects ? '}' : ']';
	m[len++] = '}';
	return (len);
}

START_TEST(test_envelope_depth)
{
	struct envelope	 env;
	char		*m;
	size_t		 len, off;

	m = xmalloc(1000000);
	/* The top-level object is depth 1. */
	len = make_nest(m, ENVELOPE_MAX_DEPTH - 1, 0);
	ck_assert_int_eq(scan_len(m, len, &env, &off), 0);
	len = make_nest(m, ENVELOPE_MAX_DEPTH - 1, 1);
	ck_assert_int_eq(scan_len(m, len, &env, &off), 0);

	len = make_nest(m, ENVELOPE_MAX_DEPTH, 0);
	fail_at(m, len, 5 + ENVELOPE_MAX_DEPTH - 1);
	len = make_nest(m, ENVELOPE_MAX_DEPTH, 1);
	fail_at(m, len, 5 + 5 * (ENVELOPE_MAX_DEPTH - 1));

	/* Far deeper than any stack frame budget: still a clean failure. */
	len = make_nest(m, 190000, 0);
	fail_at(m, len, 5 + ENVELOPE_MAX_DEPTH - 1);
	len = make_nest(m, 100000, 1);
	fail_at(m, len, 5 + 5 * (ENVELOPE_MAX_DEPTH - 1));
	memset(m, '[', 1000000);
	fail_at(m, 1000000, 0);
	m[0] = '{';
	m[1] = '"';
	m[2] = '"';
	m[3] = ':';
	fail_at(m, 1000000, 4 + ENVELOPE_MAX_DEPTH - 1);
	free(m);
}
END_TEST

/* Random nestings of both kinds, then one closing bracket of the wrong kind. */
START_TEST(test_envelope_brackets)
{
	struct envelope	 env;
	char		 m[4096], kinds[600];
	uint64_t	 rng = 0x9e3779b97f4a7c15ULL;
	size_t		 len, depth, max, i, wrong, at, off, round;

	for (round = 0; round < 400; round++) {
		len = 0;
		depth = 0;
		m[len++] = '{';
		memcpy(m + len, "\"x\":", 4);
		len += 4;
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		max = 1 + rng % (ENVELOPE_MAX_DEPTH - 1);
		wrong = rng / 1000 % max;
		at = 0;
		for (i = 0; i < max; i++) {
			kinds[depth] = (rng >> (i % 61)) & 1 ? '{' : '[';
			m[len++] = kinds[depth];
			if (kinds[depth] == '{') {
				memcpy(m + len, "\"k\":", 4);
				len += 4;
			}
			depth++;
		}
		m[len++] = '1';
		while (depth > 0) {
			depth--;
			m[len++] = kinds[depth] == '{' ? '}' : ']';
			if (depth == wrong)
				at = len - 1;
		}
		m[len++] = '}';
		ck_assert_int_eq(scan_len(m, len, &env, &off), 0);
		m[at] = m[at] == '}' ? ']' : '}';
		fail_at(m, len, at);
	}
}
END_TEST

/* ---- splicing ---- */

static void
assert_pieces(const struct iovec *iov, size_t n, const char *want)
{
	char	 out[256];
	size_t	 len = 0, i;

	for (i = 0; i < n; i++) {
		ck_assert_uint_gt(iov[i].iov_len, 0);
		memcpy(out + len, iov[i].iov_base, iov[i].iov_len);
		len += iov[i].iov_len;
	}
	out[len] = '\0';
	ck_assert_str_eq(out, want);
}

START_TEST(test_envelope_splice)
{
	const char		*line = "abcdef";
	struct envelope_edit	 e[3];
	struct iovec		 iov[8];

	ck_assert_uint_eq(envelope_splice(line, 6, NULL, 0, iov, 8), 1);
	ck_assert_ptr_eq(iov[0].iov_base, line);
	assert_pieces(iov, 1, "abcdef");

	e[0] = (struct envelope_edit){ 1, 2, "XY", 2 };
	e[1] = (struct envelope_edit){ 4, 1, "", 0 };
	ck_assert_uint_eq(envelope_splice(line, 6, e, 2, iov, 8), 4);
	ck_assert_ptr_eq(iov[0].iov_base, line);
	ck_assert_ptr_eq(iov[2].iov_base, line + 3);
	assert_pieces(iov, 4, "aXYdf");

	/* At both ends; an edit replacing everything. */
	e[0] = (struct envelope_edit){ 0, 1, "Z", 1 };
	e[1] = (struct envelope_edit){ 5, 1, "W", 1 };
	ck_assert_uint_eq(envelope_splice(line, 6, e, 2, iov, 8), 3);
	assert_pieces(iov, 3, "ZbcdeW");
	e[0] = (struct envelope_edit){ 0, 6, "new", 3 };
	ck_assert_uint_eq(envelope_splice(line, 6, e, 1, iov, 8), 1);
	assert_pieces(iov, 1, "new");

	/* Insertions, also two at one offset, kept in order. */
	e[0] = (struct envelope_edit){ 3, 0, "I", 1 };
	e[1] = (struct envelope_edit){ 3, 0, "J", 1 };
	e[2] = (struct envelope_edit){ 6, 0, "!", 1 };
	ck_assert_uint_eq(envelope_splice(line, 6, e, 3, iov, 8), 5);
	assert_pieces(iov, 5, "abcIJdef!");

	/* Exactly ENVELOPE_SPLICE_IOV(n) pieces are enough. */
	e[0] = (struct envelope_edit){ 1, 1, "1", 1 };
	e[1] = (struct envelope_edit){ 3, 1, "3", 1 };
	e[2] = (struct envelope_edit){ 4, 1, "4", 1 };
	ck_assert_uint_eq(ENVELOPE_SPLICE_IOV(3), 7);
	ck_assert_uint_eq(envelope_splice(line, 6, e, 3, iov, 7), 6);
	assert_pieces(iov, 6, "a1c34f");
	ck_assert_uint_eq(envelope_splice(line, 6, e, 3, iov, 5), 0);

	/* Broken edits. */
	e[0] = (struct envelope_edit){ 4, 1, "x", 1 };
	e[1] = (struct envelope_edit){ 1, 1, "y", 1 };
	ck_assert_uint_eq(envelope_splice(line, 6, e, 2, iov, 8), 0);
	e[0] = (struct envelope_edit){ 1, 3, "x", 1 };
	e[1] = (struct envelope_edit){ 2, 1, "y", 1 };
	ck_assert_uint_eq(envelope_splice(line, 6, e, 2, iov, 8), 0);
	e[1] = (struct envelope_edit){ 3, 1, "y", 1 };
	ck_assert_uint_eq(envelope_splice(line, 6, e, 2, iov, 8), 0);
	e[1] = (struct envelope_edit){ 3, 0, "y", 1 };
	ck_assert_uint_eq(envelope_splice(line, 6, e, 2, iov, 8), 0);
	e[1] = (struct envelope_edit){ 4, 0, "y", 1 };
	ck_assert_uint_eq(envelope_splice(line, 6, e, 2, iov, 8), 4);
	assert_pieces(iov, 4, "axyef");
	e[0] = (struct envelope_edit){ 7, 0, "x", 1 };
	ck_assert_uint_eq(envelope_splice(line, 6, e, 1, iov, 8), 0);
	e[0] = (struct envelope_edit){ 5, 2, "x", 1 };
	ck_assert_uint_eq(envelope_splice(line, 6, e, 1, iov, 8), 0);
	e[0] = (struct envelope_edit){ 2, SIZE_MAX, "x", 1 };
	ck_assert_uint_eq(envelope_splice(line, 6, e, 1, iov, 8), 0);
	e[0] = (struct envelope_edit){ 2, 1, NULL, 1 };
	ck_assert_uint_eq(envelope_splice(line, 6, e, 1, iov, 8), 0);
	ck_assert_uint_eq(envelope_splice(line, 6, NULL, 0, iov, 0), 0);
}
END_TEST

/* ---- agreement with cJSON ---- */

static const char *table[] = {
	"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
	    "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"roots\":{"
	    "\"listChanged\":true},\"sampling\":{}},\"clientInfo\":{\"name\":"
	    "\"ed\",\"version\":\"1.0\"}}}",
	"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
	"{\"jsonrpc\":\"2.0\",\"id\":\"abc-1\",\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"read\",\"arguments\":{\"path\":\"/a\","
	    "\"id\":5},\"_meta\":{\"progressToken\":\"abc-1\"}}}",
	"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":"
	    "{\"progressToken\":\"abc-1\",\"progress\":50,\"total\":100,"
	    "\"message\":\"half\"}}",
	"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\""
	    ":{\"requestId\":17,\"reason\":\"user\"}}",
	"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/subscribe\","
	    "\"params\":{\"uri\":\"file:///home/u/%C3%A9t\\u00e9.txt\"}}",
	"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\","
	    "\"params\":{\"uri\":\"file:///x\"}}",
	"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"logging/setLevel\","
	    "\"params\":{\"level\":\"debug\"}}",
	"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":"
	    "{\"level\":\"warning\",\"logger\":\"db\",\"data\":{\"id\":1,"
	    "\"error\":{\"code\":3}}}}",
	"{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"line 1\\n"
	    "{\\\"id\\\": 7, \\\"params\\\": {}}\\n\\u2014 \xe2\x80\x94 \\ud83d"
	    "\\ude00\"}],\"isError\":false},\"jsonrpc\":\"2.0\",\"id\":5}",
	"{\"jsonrpc\":\"2.0\",\"id\":6,\"error\":{\"code\":-32601,\"message\":"
	    "\"Method not found\",\"data\":{\"method\":\"x/y\"}}}",
	"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,"
	    "\"message\":\"Parse error\"}}",
	"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"sampling/createMessage\","
	    "\"params\":{\"messages\":[{\"role\":\"user\",\"content\":{"
	    "\"type\":\"text\",\"text\":\"hi\"}}],\"maxTokens\":100,"
	    "\"_meta\":{}}}",
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"roots\":[{\"uri\":"
	    "\"file:///p\",\"name\":\"p\"}]}}",
	"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}",
	"{\"jsonrpc\":\"2.0\",\"id\":-12.5e3,\"result\":[1,2.5,-3e-7,true,"
	    "false,null,\"s\",[],{}]}",
	"{ \"jsonrpc\" : \"2.0\" , \"id\" : 9007199254740993 , \"method\" : "
	    "\"ping\" }",
	"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{"
	    "\"_meta\":{\"progressToken\":7,\"other\":[1]},\"name\":\"t\"}}",
	"{\"params\":{\"_meta\":{\"progressToken\":{\"odd\":true}}},\"id\":"
	    "[1],\"method\":null,\"result\":true,\"error\":false,\"jsonrpc\""
	    ":1}",
	"{\"\\u0069d\":\"\\u0069d\",\"method\":\"\\u0074ools/list\"}",
	"{\"method\":\"x\",\"params\":{\"uri\":\"\",\"level\":null,"
	    "\"requestId\":\"\",\"progressToken\":-0}}",
	"{\"error\":{\"code\":1.5e2},\"id\":\"\xe4\xb8\xad\"}",
	"{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{\"f\":[[[[[[{\"id\":1}]]]]]]}}}}},"
	    "\"id\":2}",
};

/*
 * One edit has a shorter path: it gives what the general one gives for
 * the same edit followed by an empty one at the end, also when broken.
 */
START_TEST(test_envelope_splice_one)
{
	const char		*line = "abcdef";
	struct envelope_edit	 e[2];
	struct iovec		 one[3], two[8];
	size_t			 off, len, tlen, n1, n2, i;
	int			 null_text;

	for (off = 0; off <= 8; off++)
	for (len = 0; len <= 8; len++)
	for (tlen = 0; tlen <= 2; tlen++)
	for (null_text = 0; null_text <= 1; null_text++) {
		e[0] = (struct envelope_edit){ off, len,
		    null_text ? NULL : "XY", tlen };
		e[1] = (struct envelope_edit){ 6, 0, "", 0 };
		n1 = envelope_splice(line, 6, e, 1, one, 3);
		n2 = envelope_splice(line, 6, e, 2, two, 8);
		if (off + len > 6 || (null_text && tlen != 0)) {
			ck_assert_uint_eq(n1, 0);
			continue;
		}
		ck_assert_uint_eq(n1, n2);
		for (i = 0; i < n1; i++) {
			ck_assert_ptr_eq(one[i].iov_base, two[i].iov_base);
			ck_assert_uint_eq(one[i].iov_len, two[i].iov_len);
		}
	}
}
END_TEST

START_TEST(test_envelope_cjson_table)
{
	struct envelope	 env;
	size_t		 i;

	members_checked = 0;
	for (i = 0; i < nitems(table); i++) {
		scan_ok(table[i], &env);
		crosscheck(table[i], strlen(table[i]), &env);
		check_splice(table[i], strlen(table[i]), &env);
	}
	ck_assert_uint_gt(members_checked, 90);
}
END_TEST

/* ---- random messages ---- */

struct gen {
	char		*p;
	size_t		 len;
	size_t		 cap;
	uint64_t	 rng;
};

static uint64_t
gen_rand(struct gen *g)
{
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return (g->rng * 0x2545f4914f6cdd1dULL);
}

static unsigned int
gen_below(struct gen *g, unsigned int n)
{
	return ((unsigned int)(gen_rand(g) >> 33) % n);
}

static void
gen_add(struct gen *g, const char *s, size_t len)
{
	if (g->len + len + 1 > g->cap) {
		while (g->len + len + 1 > g->cap)
			g->cap = g->cap ? g->cap * 2 : 256;
		g->p = xrealloc(g->p, g->cap);
	}
	memcpy(g->p + g->len, s, len);
	g->len += len;
	g->p[g->len] = '\0';
}

static void
gen_str(struct gen *g, const char *s)
{
	gen_add(g, s, strlen(s));
}

static void
gen_ws(struct gen *g)
{
	static const char *ws[] = { " ", "\t", "\n", "\r\n  ", "  \t " };

	if (gen_below(g, 4) == 0)
		gen_str(g, ws[gen_below(g, nitems(ws))]);
}

/* A key, with a character now and then written as a \u escape. */
static void
gen_key(struct gen *g, const char *name)
{
	char	 esc[8];

	gen_str(g, "\"");
	for (; *name != '\0'; name++) {
		if (gen_below(g, 10) == 0) {
			snprintf(esc, sizeof esc, gen_below(g, 2) ?
			    "\\u%04x" : "\\u%04X", (unsigned char)*name);
			gen_str(g, esc);
		} else if (*name == '/' && gen_below(g, 2) == 0)
			gen_str(g, "\\/");
		else
			gen_add(g, name, 1);
	}
	gen_str(g, "\"");
}

static void
gen_string(struct gen *g)
{
	static const char *pieces[] = {
		"a", "xyz", " ", "id", "params", "\\\"", "\\\\", "\\/", "\\b",
		"\\f", "\\n", "\\r", "\\t", "\\u00e9", "\\u4E2D",
		"\\ud83d\\ude00", "\\u0041", "\\u001f", "\xc3\xa9",
		"\xe4\xb8\xad", "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf", "\x7f",
		"{\\\"id\\\":1}", "}", "]", ",", ":", "{", "[",
	};
	unsigned int	 n, i, k;

	gen_str(g, "\"");
	n = gen_below(g, 8);
	for (i = 0; i < n; i++) {
		if (gen_below(g, 16) == 0) {
			k = 16 + gen_below(g, 200);
			while (k-- > 0)
				gen_add(g, &"abcdefghijklmnopqrstuvwxyz"[
				    k % 26], 1);
		} else
			gen_str(g, pieces[gen_below(g, nitems(pieces))]);
	}
	gen_str(g, "\"");
}

static void
gen_number(struct gen *g)
{
	static const char *nums[] = {
		"0", "-0", "1", "-1", "42", "1.5", "-0.25", "1e5", "2E-3",
		"-1.0e+2", "12345678901234567890123", "9223372036854775807",
		"-9223372036854775808", "0.000001", "3.14159",
	};
	char	 buf[32];

	if (gen_below(g, 2) == 0)
		gen_str(g, nums[gen_below(g, nitems(nums))]);
	else {
		snprintf(buf, sizeof buf, "%s%u", gen_below(g, 4) ? "" : "-",
		    gen_below(g, 1000000000));
		gen_str(g, buf);
	}
}

static const char *decoys[] = {
	"id", "params", "method", "result", "error", "jsonrpc",
	"progressToken", "_meta", "requestId", "uri", "level", "code", "x",
	"name", "content", "",
};

static void gen_value(struct gen *, unsigned int);

static void
gen_object(struct gen *g, unsigned int depth)
{
	unsigned int	 n, i;

	gen_str(g, "{");
	gen_ws(g);
	n = gen_below(g, 5);
	for (i = 0; i < n; i++) {
		if (i > 0) {
			gen_str(g, ",");
			gen_ws(g);
		}
		gen_key(g, decoys[gen_below(g, nitems(decoys))]);
		gen_ws(g);
		gen_str(g, ":");
		gen_ws(g);
		gen_value(g, depth + 1);
		gen_ws(g);
	}
	gen_str(g, "}");
}

static void
gen_value(struct gen *g, unsigned int depth)
{
	unsigned int	 n, i;

	switch (gen_below(g, depth < 5 ? 10 : 6)) {
	case 0:
	case 1:
		gen_string(g);
		break;
	case 2:
	case 3:
		gen_number(g);
		break;
	case 4:
		gen_str(g, gen_below(g, 2) ? "true" : "false");
		break;
	case 5:
		gen_str(g, "null");
		break;
	case 6:
	case 7:
		gen_object(g, depth);
		break;
	default:
		gen_str(g, "[");
		gen_ws(g);
		n = gen_below(g, 5);
		for (i = 0; i < n; i++) {
			if (i > 0) {
				gen_str(g, ",");
				gen_ws(g);
			}
			gen_value(g, depth + 1);
			gen_ws(g);
		}
		gen_str(g, "]");
		break;
	}
}

typedef void gen_member_fn(struct gen *, unsigned int);

struct gen_member {
	const char	*key;
	gen_member_fn	*value;
};

/* Write some of the members, each at most once, in a random order. */
static void
gen_members(struct gen *g, const struct gen_member *members, size_t n,
    unsigned int depth)
{
	size_t	 order[16], i, j, k, tmp, count = 0;

	for (i = 0; i < n; i++) {
		if (gen_below(g, 3) != 0)
			order[count++] = i;
	}
	for (i = count; i > 1; i--) {
		j = gen_below(g, i);
		tmp = order[i - 1];
		order[i - 1] = order[j];
		order[j] = tmp;
	}
	gen_str(g, "{");
	gen_ws(g);
	for (k = 0; k < count; k++) {
		if (k > 0) {
			gen_str(g, ",");
			gen_ws(g);
		}
		gen_key(g, members[order[k]].key);
		gen_ws(g);
		gen_str(g, ":");
		gen_ws(g);
		members[order[k]].value(g, depth + 1);
		gen_ws(g);
	}
	gen_str(g, "}");
}

/* Anything but an object, so no key can repeat at a recorded level. */
static void
gen_not_object(struct gen *g, unsigned int depth)
{
	size_t	 start;

	do {
		start = g->len;
		gen_value(g, depth);
		if (g->p[start] != '{')
			return;
		g->len = start;
	} while (1);
}

static void
gen_jsonrpc(struct gen *g, unsigned int depth)
{
	if (gen_below(g, 8) == 0)
		gen_value(g, depth);
	else
		gen_str(g, "\"2.0\"");
}

static void
gen_method(struct gen *g, unsigned int depth)
{
	static const char *methods[] = {
		"\"tools/call\"", "\"notifications/progress\"", "\"ping\"",
		"\"tools\\/list\"", "\"\\u0069nitialize\"",
	};

	if (gen_below(g, 6) == 0)
		gen_value(g, depth);
	else
		gen_str(g, methods[gen_below(g, nitems(methods))]);
}

static void
gen_meta(struct gen *g, unsigned int depth)
{
	static const struct gen_member members[] = {
		{ "progressToken", gen_value },
		{ "x", gen_value },
		{ "id", gen_value },
		{ "progresstoken", gen_value },
	};

	if (gen_below(g, 5) == 0)
		gen_not_object(g, depth);
	else
		gen_members(g, members, nitems(members), depth);
}

static void
gen_params(struct gen *g, unsigned int depth)
{
	static const struct gen_member members[] = {
		{ "_meta", gen_meta },
		{ "progressToken", gen_value },
		{ "requestId", gen_value },
		{ "uri", gen_value },
		{ "level", gen_value },
		{ "name", gen_value },
		{ "arguments", gen_object },
		{ "id", gen_value },
		{ "params", gen_object },
		{ "code", gen_value },
	};

	if (gen_below(g, 5) == 0)
		gen_not_object(g, depth);
	else
		gen_members(g, members, nitems(members), depth);
}

static void
gen_error(struct gen *g, unsigned int depth)
{
	static const struct gen_member members[] = {
		{ "code", gen_value },
		{ "message", gen_value },
		{ "data", gen_value },
		{ "id", gen_value },
	};

	if (gen_below(g, 5) == 0)
		gen_not_object(g, depth);
	else
		gen_members(g, members, nitems(members), depth);
}

static void
gen_message(struct gen *g)
{
	static const struct gen_member members[] = {
		{ "jsonrpc", gen_jsonrpc },
		{ "id", gen_value },
		{ "method", gen_method },
		{ "params", gen_params },
		{ "result", gen_value },
		{ "error", gen_error },
		{ "x", gen_value },
		{ "_meta", gen_meta },
		{ "progressToken", gen_value },
		{ "ID", gen_value },
	};

	g->len = 0;
	gen_ws(g);
	gen_members(g, members, nitems(members), 0);
	gen_ws(g);
}

/*
 * cJSON parses "\u0000" into a shorter C string and refuses lone
 * surrogates; a mutated message holding either cannot be compared.
 */
static int
cjson_comparable(const char *s, size_t len)
{
	size_t	 i;

	for (i = 0; i + 6 <= len; i++) {
		if (s[i] != '\\')
			continue;
		if (s[i + 1] != 'u') {
			i++;
			continue;
		}
		if (memcmp(s + i + 2, "0000", 4) == 0 ||
		    ((s[i + 2] == 'd' || s[i + 2] == 'D') &&
		    strchr("89abcdefABCDEF", s[i + 3]) != NULL))
			return (0);
	}
	return (1);
}

static void
mutate(struct gen *g, char *m, size_t *len)
{
	static const char special[] = "{}[]\":,\\ 0-e.tnu\x80\xc3\xff\x01";
	size_t	 at;

	if (*len == 0)
		return;
	at = gen_below(g, *len);
	switch (gen_below(g, 5)) {
	case 0:
		m[at] = (char)gen_below(g, 256);
		break;
	case 1:
		m[at] = special[gen_below(g, sizeof special - 1)];
		break;
	case 2:
		memmove(m + at, m + at + 1, *len - at - 1);
		(*len)--;
		break;
	case 3:
		memmove(m + at + 1, m + at, *len - at);
		m[at] = special[gen_below(g, sizeof special - 1)];
		(*len)++;
		break;
	default:
		*len = at;
		break;
	}
}

START_TEST(test_envelope_random)
{
	struct gen	 g;
	struct envelope	 env;
	cJSON		*j;
	char		*m;
	size_t		 i, k, len, off;
	unsigned int	 seen[nitems(fields)], mutants_ok = 0;
	unsigned int	 mutants_bad = 0, t;

	memset(&g, 0, sizeof g);
	memset(seen, 0, sizeof seen);
	g.rng = 0x5eed5eed12345678ULL;
	members_checked = 0;
	splices_checked = 0;
	for (i = 0; i < RANDOM_MESSAGES; i++) {
		gen_message(&g);
		ck_assert_msg(scan_len(g.p, g.len, &env, &off) == 0,
		    "message %zu fails at %zu: '%.*s' in %s", i, off,
		    (int)(g.len - off < 20 ? g.len - off : 20), g.p + off,
		    g.p);
		crosscheck(g.p, g.len, &env);
		check_splice(g.p, g.len, &env);
		for (t = 0; t < nitems(seen); t++) {
			if (field(&env, t)->type != ENVELOPE_ABSENT)
				seen[t]++;
		}

		m = xmalloc(g.len + RANDOM_MUTATIONS + 1);
		for (k = 0; k < RANDOM_MUTATIONS; k++) {
			memcpy(m, g.p, g.len);
			len = g.len;
			mutate(&g, m, &len);
			if (gen_below(&g, 2))
				mutate(&g, m, &len);
			if (scan_len(m, len, &env, &off) != 0) {
				ck_assert_uint_le(off, len);
				mutants_bad++;
				continue;
			}
			mutants_ok++;
			if (!cjson_comparable(m, len))
				continue;
			j = cjson_parse(m, len);
			ck_assert_msg(j != NULL, "cJSON rejects accepted %.*s",
			    (int)len, m);
			cJSON_Delete(j);
			crosscheck(m, len, &env);
		}
		free(m);
	}
	free(g.p);

	/* The generator reaches every member, with and without each. */
	for (t = 0; t < nitems(seen); t++) {
		ck_assert_msg(seen[t] > RANDOM_MESSAGES / 20,
		    "%s recorded only %u times", fields[t].name, seen[t]);
		ck_assert_msg(seen[t] < RANDOM_MESSAGES * 9 / 10,
		    "%s recorded %u times", fields[t].name, seen[t]);
	}
	ck_assert_uint_eq(splices_checked, RANDOM_MESSAGES);
	ck_assert_uint_gt(members_checked, RANDOM_MESSAGES * 3);
	ck_assert_uint_gt(mutants_ok, RANDOM_MESSAGES);
	ck_assert_uint_gt(mutants_bad, RANDOM_MESSAGES);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("envelope");
	tc = tcase_create("scan");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_envelope_request);
	tcase_add_test(tc, test_envelope_params_members);
	tcase_add_test(tc, test_envelope_member_order);
	tcase_add_test(tc, test_envelope_nesting);
	tcase_add_test(tc, test_envelope_id_types);
	tcase_add_test(tc, test_envelope_whitespace);
	tcase_add_test(tc, test_envelope_escaped_keys);
	tcase_add_test(tc, test_envelope_escaped_values);
	tcase_add_test(tc, test_envelope_string_eq_paths);
	tcase_add_test(tc, test_envelope_prefixes);
	tcase_add_test(tc, test_envelope_top_keys);
	tcase_add_test(tc, test_envelope_leading_members);
	tcase_add_test(tc, test_envelope_plain_prefix_suffix);
	tcase_add_test(tc, test_envelope_scan_plain);
	tcase_add_test(tc, test_envelope_digit_runs);
	tcase_add_test(tc, test_envelope_lone_surrogates);
	tcase_add_test(tc, test_envelope_duplicates);
	tcase_add_test(tc, test_envelope_partial);
	tcase_add_test(tc, test_envelope_invalid);
	tcase_add_test(tc, test_envelope_utf8_valid);
	tcase_add_test(tc, test_envelope_long_strings);
	tcase_add_test(tc, test_envelope_int64);
	tcase_add_test(tc, test_envelope_print_int64);
	tcase_add_test(tc, test_envelope_numbers);
	tcase_add_test(tc, test_envelope_depth);
	tcase_add_test(tc, test_envelope_brackets);
	tcase_add_test(tc, test_envelope_splice);
	tcase_add_test(tc, test_envelope_int64_block);
	tcase_add_test(tc, test_envelope_count_up);
	tcase_add_test(tc, test_envelope_plain);
	tcase_add_test(tc, test_envelope_string_eq_const);
	tcase_add_test(tc, test_envelope_params_keys);
	tcase_add_test(tc, test_envelope_splice_one);
	tcase_add_test(tc, test_envelope_cjson_table);
	suite_add_tcase(s, tc);

	/* The long-running ones. */
	tc = tcase_create("utf8");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_envelope_utf8_exhaustive);
	suite_add_tcase(s, tc);
	tc = tcase_create("random");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_envelope_random);
	suite_add_tcase(s, tc);
	return (s);
}
