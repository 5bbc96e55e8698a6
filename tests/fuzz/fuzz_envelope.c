/*
 * fuzz_envelope.c -- the envelope scanner and splicer, against cJSON and
 * against an independent strict parser.
 *
 * The input is one line.  envelope_scan must agree with the strict parser
 * below (RFC 8259 and RFC 3629, the nesting limit, duplicate recorded
 * members refused) on whether the line is valid and, if not, on the byte
 * where it stops being valid; the members it keeps on failure must end
 * before that byte.
 *
 * When it accepts, cJSON must parse the line too (once fuzz_json_tame has
 * covered the two places cJSON is stricter than RFC 8259), and each member
 * the scanner recorded must be the member cJSON finds at that path, with
 * the same type, its span alone parsing to the same value.  The string and
 * integer accessors are checked against cJSON and strtoll.  Then a new id
 * and progress token are spliced in, as the router does: the result must
 * scan again and be the same tree apart from the replaced values.
 *
 * envelope_splice is also checked on its own, with edits derived from the
 * input (unsorted, overlapping, out of range), against a reference.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envelope.h"
#include "fuzz.h"
#include "util.h"

const char	*fuzz_target_name = "envelope";

enum parent {
	AT_TOP,
	AT_PARAMS,
	AT_META,
	AT_ERROR,
};

static const struct member {
	const char	*name;
	enum parent	 parent;
	size_t		 field;
} members[] = {
	{ "jsonrpc", AT_TOP, offsetof(struct envelope, jsonrpc) },
	{ "id", AT_TOP, offsetof(struct envelope, id) },
	{ "method", AT_TOP, offsetof(struct envelope, method) },
	{ "params", AT_TOP, offsetof(struct envelope, params) },
	{ "result", AT_TOP, offsetof(struct envelope, result) },
	{ "error", AT_TOP, offsetof(struct envelope, error) },
	{ "_meta", AT_PARAMS, offsetof(struct envelope, meta) },
	{ "progressToken", AT_META, offsetof(struct envelope,
	    progress_token) },
	{ "progressToken", AT_PARAMS, offsetof(struct envelope,
	    p_progress_token) },
	{ "requestId", AT_PARAMS, offsetof(struct envelope, p_request_id) },
	{ "uri", AT_PARAMS, offsetof(struct envelope, p_uri) },
	{ "name", AT_PARAMS, offsetof(struct envelope, p_name) },
	{ "level", AT_PARAMS, offsetof(struct envelope, p_level) },
	{ "code", AT_ERROR, offsetof(struct envelope, e_code) },
};
#define NMEMBERS	nitems(members)

static const char *parent_names[] = { "", "params.", "params._meta.",
	"error." };

static const struct envelope_value *
member_value(const struct envelope *env, const struct member *m)
{
	return ((const struct envelope_value *)((const char *)env + m->field));
}

static cJSON *
member_json(cJSON *root, const struct member *m)
{
	cJSON	*params = fuzz_json_member(root, "params");

	switch (m->parent) {
	case AT_TOP:
		return (fuzz_json_member(root, m->name));
	case AT_PARAMS:
		return (fuzz_json_member(params, m->name));
	case AT_META:
		return (fuzz_json_member(fuzz_json_member(params, "_meta"),
		    m->name));
	case AT_ERROR:
		return (fuzz_json_member(fuzz_json_member(root, "error"),
		    m->name));
	}
	return (NULL);
}

static int
type_matches(enum envelope_type t, const cJSON *j)
{
	switch (t) {
	case ENVELOPE_STRING:
		return (cJSON_IsString(j));
	case ENVELOPE_NUMBER:
		return (cJSON_IsNumber(j));
	case ENVELOPE_NULL:
		return (cJSON_IsNull(j));
	case ENVELOPE_TRUE:
		return (cJSON_IsTrue(j));
	case ENVELOPE_FALSE:
		return (cJSON_IsFalse(j));
	case ENVELOPE_OBJECT:
		return (cJSON_IsObject(j));
	case ENVELOPE_ARRAY:
		return (cJSON_IsArray(j));
	case ENVELOPE_ABSENT:
		break;
	}
	return (0);
}

/* Every recorded span lies in text[0, limit) and has its type's shape. */
static void
check_spans(const struct envelope *env, const char *text, size_t limit)
{
	const struct envelope_value	*v;
	const struct member		*m;
	size_t				 i;
	char				 first, last;

	for (i = 0; i < NMEMBERS; i++) {
		m = &members[i];
		v = member_value(env, m);
		if (v->type == ENVELOPE_ABSENT)
			continue;
		FUZZ_CHECK(v->type <= ENVELOPE_ARRAY, "%s%s: type %d",
		    parent_names[m->parent], m->name, v->type);
		FUZZ_CHECK(v->len > 0 && v->off <= limit &&
		    v->len <= limit - v->off, "%s%s: span [%zu, +%zu) outside "
		    "[0, %zu)", parent_names[m->parent], m->name, v->off,
		    v->len, limit);
		first = text[v->off];
		last = text[v->off + v->len - 1];
		switch (v->type) {
		case ENVELOPE_STRING:
			FUZZ_CHECK(v->len >= 2 && first == '"' && last == '"',
			    "%s: string span without its quotes", m->name);
			break;
		case ENVELOPE_OBJECT:
			FUZZ_CHECK(first == '{' && last == '}',
			    "%s: object span not {...}", m->name);
			break;
		case ENVELOPE_ARRAY:
			FUZZ_CHECK(first == '[' && last == ']',
			    "%s: array span not [...]", m->name);
			break;
		case ENVELOPE_NUMBER:
			FUZZ_CHECK(first == '-' || (first >= '0' &&
			    first <= '9'), "%s: number span starts with %c",
			    m->name, first);
			break;
		default:
			break;
		}
	}
}

static void
check_string(const char *text, const char *tamed,
    const struct envelope_value *v, const cJSON *j, const char *name)
{
	char	*buf;
	int	 n, changed;

	buf = malloc(v->len + 1);
	if (buf == NULL)
		abort();
	n = envelope_string_copy(text, v, buf, v->len + 1);
	/* Only "\u0000" and lone surrogates make tame change a string. */
	changed = memcmp(text + v->off, tamed + v->off, v->len) != 0;
	FUZZ_CHECK((n < 0) == changed, "%s: envelope_string_copy returned %d "
	    "for a string %s \\u0000 or a lone surrogate", name, n,
	    changed ? "with" : "without");
	if (n >= 0) {
		FUZZ_CHECK((size_t)n == strlen(buf) &&
		    strcmp(buf, j->valuestring) == 0, "%s: decoded \"%s\", "
		    "cJSON says \"%s\"", name, buf, j->valuestring);
		FUZZ_CHECK(envelope_string_eq(text, v, buf) == 1,
		    "%s: envelope_string_eq refuses its own decoding", name);
		FUZZ_CHECK(n == 0 || envelope_string_eq(text, v,
		    buf + 1) == 0, "%s: equal to its own tail", name);
		FUZZ_CHECK(envelope_string_copy(text, v, buf,
		    (size_t)n) == -1, "%s: decoded into too small a buffer",
		    name);
	}
	/* plain: no escape in the text, which is then its own decoding. */
	FUZZ_CHECK(v->plain == (memchr(text + v->off + 1, '\\',
	    v->len - 2) == NULL), "%s: plain is %d", name, v->plain);
	if (v->plain)
		FUZZ_CHECK(n == (int)v->len - 2 && memcmp(buf,
		    text + v->off + 1, v->len - 2) == 0,
		    "%s: a plain string decodes to other text", name);
	free(buf);
}

static void
check_int64(const char *text, const struct envelope_value *v,
    const char *name)
{
	char		*copy, *end;
	long long	 want;
	int64_t		 got = 0;
	int		 rc, ok;

	copy = malloc(v->len + 1);
	if (copy == NULL)
		abort();
	memcpy(copy, text + v->off, v->len);
	copy[v->len] = '\0';
	errno = 0;
	want = strtoll(copy, &end, 10);
	ok = *end == '\0' && errno == 0;
	rc = envelope_int64(text, v, &got);
	FUZZ_CHECK((rc == 0) == ok, "%s: envelope_int64(%s) returned %d",
	    name, copy, rc);
	FUZZ_CHECK(rc != 0 || got == want, "%s: envelope_int64(%s) gave %lld",
	    name, copy, (long long)got);
	free(copy);
}

static void
check_members(const char *text, const char *tamed, size_t size,
    const struct envelope *env, cJSON *root)
{
	const struct envelope_value	*v;
	const struct member		*m;
	cJSON				*j, *alone;
	char				 name[64];
	size_t				 i;
	int64_t				 dummy;

	for (i = 0; i < NMEMBERS; i++) {
		m = &members[i];
		v = member_value(env, m);
		j = member_json(root, m);
		snprintf(name, sizeof name, "%s%s", parent_names[m->parent],
		    m->name);
		FUZZ_CHECK((v->type == ENVELOPE_ABSENT) == (j == NULL),
		    "%s: envelope says %s, cJSON says %s", name,
		    v->type == ENVELOPE_ABSENT ? "absent" : "present",
		    j == NULL ? "absent" : "present");
		if (j == NULL)
			continue;
		FUZZ_CHECK(type_matches(v->type, j), "%s: envelope type %d, "
		    "cJSON type %d", name, v->type, j->type);
		alone = fuzz_json_parse(tamed + v->off, v->len);
		FUZZ_CHECK(alone != NULL && fuzz_json_equal(alone, j),
		    "%s: span [%zu, +%zu) is not the member's value", name,
		    v->off, v->len);
		cJSON_Delete(alone);
		if (v->type == ENVELOPE_STRING)
			check_string(text, tamed, v, j, name);
		else {
			FUZZ_CHECK(envelope_string_copy(text, v, name, 1) ==
			    -1 && envelope_string_eq(text, v, "") == 0,
			    "%s: string accessors take a non-string", name);
		}
		if (v->type == ENVELOPE_NUMBER)
			check_int64(text, v, name);
		else {
			FUZZ_CHECK(envelope_int64(text, v, &dummy) == -1,
			    "%s: envelope_int64 takes a non-number", name);
		}
	}
	(void)size;
}

static char *
join(const struct iovec *iov, size_t n, size_t *len)
{
	char	*out;
	size_t	 i, total = 0;

	for (i = 0; i < n; i++)
		total += iov[i].iov_len;
	if ((out = malloc(total + 1)) == NULL)
		abort();
	*len = 0;
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(iov[i].iov_len > 0, "empty piece %zu", i);
		memcpy(out + *len, iov[i].iov_base, iov[i].iov_len);
		*len += iov[i].iov_len;
	}
	out[*len] = '\0';
	return (out);
}

/* Replace a member's value in a cJSON tree by the JSON text given. */
static void
replace_json(cJSON *parent, const char *key, const char *text)
{
	cJSON	*old, *repl;

	old = fuzz_json_member(parent, key);
	FUZZ_CHECK(old != NULL, "no %s to replace", key);
	if ((repl = cJSON_Parse(text)) == NULL ||
	    (repl->string = strdup(old->string)) == NULL)
		abort();
	cJSON_ReplaceItemViaPointer(parent, old, repl);
}

/* What the router does to a request: a new id and progress token. */
static void
check_rewrite(const char *text, size_t size, const struct envelope *env,
    cJSON *root, uint32_t hash)
{
	static const char	*new_ids[] = { "7", "9007199254740993",
		"\"up-1\"", "-0", "{\"x\":[1]}" };
	struct envelope_edit	 edits[2], tmp;
	struct iovec		 iov[ENVELOPE_SPLICE_IOV(2)];
	struct envelope		 out_env;
	const char		*new_id;
	cJSON			*out_json, *meta;
	char			*out;
	size_t			 n = 0, pieces, out_len, erroff, want_len;

	new_id = new_ids[hash % nitems(new_ids)];
	if (env->id.type != ENVELOPE_ABSENT) {
		edits[n].off = env->id.off;
		edits[n].len = env->id.len;
		edits[n].text = new_id;
		edits[n].text_len = strlen(new_id);
		n++;
	}
	if (env->progress_token.type != ENVELOPE_ABSENT) {
		edits[n].off = env->progress_token.off;
		edits[n].len = env->progress_token.len;
		edits[n].text = new_id;
		edits[n].text_len = strlen(new_id);
		n++;
	}
	if (n == 2 && edits[1].off < edits[0].off) {
		tmp = edits[0];
		edits[0] = edits[1];
		edits[1] = tmp;
	}
	if (n == 2)
		FUZZ_CHECK(edits[0].off + edits[0].len <= edits[1].off,
		    "id and progress token overlap");
	pieces = envelope_splice(text, size, edits, n, iov,
	    ENVELOPE_SPLICE_IOV(2));
	FUZZ_CHECK(pieces > 0 && pieces <= ENVELOPE_SPLICE_IOV(n),
	    "envelope_splice used %zu pieces for %zu edits", pieces, n);
	out = join(iov, pieces, &out_len);
	want_len = size;
	if (n > 0)
		want_len += edits[0].text_len - edits[0].len;
	if (n > 1)
		want_len += edits[1].text_len - edits[1].len;
	FUZZ_CHECK(out_len == want_len, "spliced %zu bytes, expected %zu",
	    out_len, want_len);

	FUZZ_CHECK(envelope_scan(out, out_len, &out_env, &erroff) == 0,
	    "the spliced message does not scan (byte %zu): %s", erroff, out);
	if (env->id.type != ENVELOPE_ABSENT)
		FUZZ_CHECK(out_env.id.len == strlen(new_id) &&
		    memcmp(out + out_env.id.off, new_id, out_env.id.len) == 0,
		    "the spliced id is not where the scanner finds it");
	if (env->progress_token.type != ENVELOPE_ABSENT)
		FUZZ_CHECK(out_env.progress_token.len == strlen(new_id) &&
		    memcmp(out + out_env.progress_token.off, new_id,
		    out_env.progress_token.len) == 0,
		    "the spliced progress token is not where the scanner finds "
		    "it");

	if (env->id.type != ENVELOPE_ABSENT)
		replace_json(root, "id", new_id);
	if (env->progress_token.type != ENVELOPE_ABSENT) {
		meta = fuzz_json_member(fuzz_json_member(root, "params"),
		    "_meta");
		replace_json(meta, "progressToken", new_id);
	}
	out_json = fuzz_json_parse(out, out_len);
	FUZZ_CHECK(out_json != NULL, "cJSON refuses the spliced message: %s",
	    out);
	FUZZ_CHECK(fuzz_json_equal(out_json, root), "splicing changed more "
	    "than the id and progress token: %s", out);
	cJSON_Delete(out_json);
	free(out);
}

/* envelope_splice on edits that may break its rules, against a reference. */
static void
check_splice_rules(const char *text, size_t size, uint32_t hash)
{
	static const char	*texts[] = { "", "1", "\"abc\"", NULL };
	struct envelope_edit	 edits[4];
	struct iovec		 iov[ENVELOPE_SPLICE_IOV(4)];
	char			*want, *got;
	size_t			 nedits, iovcnt, i, pos, pieces, want_pieces;
	size_t			 want_len, got_len;
	int			 valid = 1;

	nedits = hash & 3;
	iovcnt = ENVELOPE_SPLICE_IOV(nedits) - ((hash >> 2 & 7) == 0);
	hash >>= 5;
	for (i = 0; i < nedits; i++) {
		hash = hash * 1103515245u + 12345u;
		edits[i].off = (hash >> 8) % (size + 2);
		hash = hash * 1103515245u + 12345u;
		edits[i].len = (hash >> 8) % 5;
		edits[i].text = texts[(hash >> 4) & 3];
		edits[i].text_len = edits[i].text != NULL ?
		    strlen(edits[i].text) : (hash >> 12) & 1;
	}

	if ((want = malloc(size + 8 * nedits + 1)) == NULL)
		abort();
	want_len = 0;
	want_pieces = 0;
	pos = 0;
	for (i = 0; i < nedits && valid; i++) {
		if (edits[i].off < pos || edits[i].off > size ||
		    edits[i].len > size - edits[i].off ||
		    (edits[i].text_len != 0 && edits[i].text == NULL)) {
			valid = 0;
			break;
		}
		memcpy(want + want_len, text + pos, edits[i].off - pos);
		want_len += edits[i].off - pos;
		want_pieces += edits[i].off > pos;
		if (edits[i].text_len > 0)
			memcpy(want + want_len, edits[i].text,
			    edits[i].text_len);
		want_len += edits[i].text_len;
		want_pieces += edits[i].text_len > 0;
		pos = edits[i].off + edits[i].len;
	}
	if (valid) {
		memcpy(want + want_len, text + pos, size - pos);
		want_len += size - pos;
		want_pieces += size > pos;
		if (want_pieces > iovcnt)
			valid = 0;
	}
	pieces = envelope_splice(text, size, edits, nedits, iov, iovcnt);
	if (!valid || want_pieces == 0)
		FUZZ_CHECK(pieces == 0, "envelope_splice accepted edits that "
		    "break its rules (%zu pieces)", pieces);
	else {
		FUZZ_CHECK(pieces == want_pieces, "envelope_splice used %zu "
		    "pieces, the reference %zu", pieces, want_pieces);
		got = join(iov, pieces, &got_len);
		FUZZ_CHECK(got_len == want_len && memcmp(got, want,
		    want_len) == 0, "envelope_splice output differs from the "
		    "reference");
		free(got);
	}
	free(want);
}

/*
 * A second, independent strict parser, written from RFC 8259, RFC 3629,
 * the nesting limit and the duplicate rule in envelope.h: recursive
 * descent (the limit keeps the recursion shallow).  It fails at the first
 * byte that cannot continue a valid message, at the end when the text
 * stops early, and at the opening quote of a recorded key seen twice.
 * envelope_scan must agree on the verdict and on the offset.
 */
enum ref_ctx {
	REF_NONE,
	REF_TOP,
	REF_PARAMS,
	REF_META,
	REF_ERROR,
};

static const char *ref_keys[][8] = {
	[REF_NONE] = { NULL },
	[REF_TOP] = { "jsonrpc", "id", "method", "params", "result", "error",
	    NULL },
	[REF_PARAMS] = { "_meta", "progressToken", "requestId", "uri", "name",
	    "level", NULL },
	[REF_META] = { "progressToken", NULL },
	[REF_ERROR] = { "code", NULL },
};

#define REF_KEY_BYTES	32

struct ref {
	const unsigned char	*s;
	size_t			 n;
	size_t			 i;
};

static int	ref_value(struct ref *, size_t, enum ref_ctx);

static int
ref_fail(struct ref *r, size_t at)
{
	r->i = at;
	return (-1);
}

static void
ref_ws(struct ref *r)
{
	while (r->i < r->n && (r->s[r->i] == ' ' || r->s[r->i] == '\t' ||
	    r->s[r->i] == '\n' || r->s[r->i] == '\r'))
		r->i++;
}

static int
ref_hex4(const struct ref *r, size_t at, unsigned long *cp, size_t *bad)
{
	size_t	 k;
	int	 d;

	*cp = 0;
	for (k = 0; k < 4; k++) {
		if (at + k == r->n) {
			*bad = r->n;
			return (-1);
		}
		d = r->s[at + k];
		if (d >= '0' && d <= '9')
			d -= '0';
		else if ((d | 0x20) >= 'a' && (d | 0x20) <= 'f')
			d = (d | 0x20) - 'a' + 10;
		else {
			*bad = at + k;
			return (-1);
		}
		*cp = *cp << 4 | (unsigned long)d;
	}
	return (0);
}

/* Key bytes, or a length of SIZE_MAX when the key cannot be decoded. */
static void
ref_key_add(unsigned char *key, size_t *len, unsigned long cp)
{
	unsigned char	 b[4];
	size_t		 n, k;

	if (*len == SIZE_MAX)
		return;
	if (cp < 0x80) {
		b[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (unsigned char)(0xc0 | cp >> 6);
		b[1] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (unsigned char)(0xe0 | cp >> 12);
		b[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (unsigned char)(0xf0 | cp >> 18);
		b[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		b[3] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	if (*len + n > REF_KEY_BYTES) {
		*len = SIZE_MAX;
		return;
	}
	for (k = 0; k < n; k++)
		key[(*len)++] = b[k];
}

/* A string at r->i (its quote); key, if given, gets it decoded. */
static int
ref_string(struct ref *r, unsigned char *key, size_t *keylen)
{
	unsigned char	 scratch[REF_KEY_BYTES];
	unsigned long	 cp, lo;
	size_t		 len = 0, need, k, bad;
	unsigned int	 c, min2, max2;

	if (key == NULL)
		key = scratch;
	r->i++;
	for (;;) {
		if (r->i == r->n)
			return (ref_fail(r, r->n));
		c = r->s[r->i];
		if (c == '"') {
			r->i++;
			if (keylen != NULL)
				*keylen = len;
			return (0);
		}
		if (c < 0x20)
			return (ref_fail(r, r->i));
		if (c == '\\') {
			if (++r->i == r->n)
				return (ref_fail(r, r->n));
			switch (r->s[r->i]) {
			case '"': case '\\': case '/':
				ref_key_add(key, &len, r->s[r->i]);
				break;
			case 'b':
				ref_key_add(key, &len, '\b');
				break;
			case 'f':
				ref_key_add(key, &len, '\f');
				break;
			case 'n':
				ref_key_add(key, &len, '\n');
				break;
			case 'r':
				ref_key_add(key, &len, '\r');
				break;
			case 't':
				ref_key_add(key, &len, '\t');
				break;
			case 'u':
				if (ref_hex4(r, r->i + 1, &cp, &bad) != 0)
					return (ref_fail(r, bad));
				r->i += 4;
				if (cp >= 0xdc00 && cp <= 0xdfff)
					len = SIZE_MAX;		/* lone low */
				else if (cp >= 0xd800 && cp <= 0xdbff) {
					/* Decoded only as a pair. */
					if (r->i + 2 < r->n &&
					    r->s[r->i + 1] == '\\' &&
					    r->s[r->i + 2] == 'u' &&
					    ref_hex4(r, r->i + 3, &lo, &bad) == 0 &&
					    lo >= 0xdc00 && lo <= 0xdfff) {
						ref_key_add(key, &len, 0x10000 +
						    ((cp - 0xd800) << 10) +
						    (lo - 0xdc00));
						r->i += 6;
					} else
						len = SIZE_MAX;
				} else
					ref_key_add(key, &len, cp);
				break;
			default:
				return (ref_fail(r, r->i));
			}
			r->i++;
			continue;
		}
		if (c < 0x80) {
			ref_key_add(key, &len, c);
			r->i++;
			continue;
		}
		/* RFC 3629, section 4. */
		min2 = 0x80;
		max2 = 0xbf;
		if (c >= 0xc2 && c <= 0xdf)
			need = 1;
		else if (c >= 0xe0 && c <= 0xef) {
			need = 2;
			if (c == 0xe0)
				min2 = 0xa0;
			if (c == 0xed)
				max2 = 0x9f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			need = 3;
			if (c == 0xf0)
				min2 = 0x90;
			if (c == 0xf4)
				max2 = 0x8f;
		} else
			return (ref_fail(r, r->i));
		for (k = 1; k <= need; k++) {
			if (r->i + k == r->n)
				return (ref_fail(r, r->n));
			c = r->s[r->i + k];
			if (c < (k == 1 ? min2 : 0x80) ||
			    c > (k == 1 ? max2 : 0xbf))
				return (ref_fail(r, r->i + k));
		}
		if (len != SIZE_MAX && len + need + 1 <= REF_KEY_BYTES) {
			memcpy(key + len, r->s + r->i, need + 1);
			len += need + 1;
		} else
			len = SIZE_MAX;
		r->i += need + 1;
	}
}

static int
ref_digits(struct ref *r)
{
	if (r->i == r->n)
		return (ref_fail(r, r->n));
	if (r->s[r->i] < '0' || r->s[r->i] > '9')
		return (ref_fail(r, r->i));
	while (r->i < r->n && r->s[r->i] >= '0' && r->s[r->i] <= '9')
		r->i++;
	return (0);
}

static int
ref_number(struct ref *r)
{
	if (r->s[r->i] == '-')
		r->i++;
	if (r->i < r->n && r->s[r->i] == '0')
		r->i++;
	else if (ref_digits(r) != 0)
		return (-1);
	if (r->i < r->n && r->s[r->i] == '.') {
		r->i++;
		if (ref_digits(r) != 0)
			return (-1);
	}
	if (r->i < r->n && (r->s[r->i] == 'e' || r->s[r->i] == 'E')) {
		r->i++;
		if (r->i < r->n && (r->s[r->i] == '+' || r->s[r->i] == '-'))
			r->i++;
		if (ref_digits(r) != 0)
			return (-1);
	}
	return (0);
}

static int
ref_literal(struct ref *r, const char *word)
{
	for (; *word != '\0'; word++, r->i++) {
		if (r->i == r->n || r->s[r->i] != (unsigned char)*word)
			return (ref_fail(r, r->i));
	}
	return (0);
}

static int
ref_object(struct ref *r, size_t depth, enum ref_ctx ctx)
{
	unsigned char	 key[REF_KEY_BYTES];
	unsigned int	 seen = 0;
	size_t		 key_at, keylen, k;
	enum ref_ctx	 child;
	int		 slot;

	if (depth > ENVELOPE_MAX_DEPTH)
		return (ref_fail(r, r->i));
	r->i++;
	ref_ws(r);
	if (r->i < r->n && r->s[r->i] == '}') {
		r->i++;
		return (0);
	}
	for (;;) {
		if (r->i == r->n || r->s[r->i] != '"')
			return (ref_fail(r, r->i));
		key_at = r->i;
		if (ref_string(r, key, &keylen) != 0)
			return (-1);
		slot = -1;
		for (k = 0; ref_keys[ctx][k] != NULL; k++) {
			if (keylen == strlen(ref_keys[ctx][k]) &&
			    memcmp(key, ref_keys[ctx][k], keylen) == 0)
				slot = (int)k;
		}
		if (slot >= 0) {
			if (seen & 1U << slot)
				return (ref_fail(r, key_at));
			seen |= 1U << slot;
		}
		child = REF_NONE;
		if (ctx == REF_TOP && slot == 3)
			child = REF_PARAMS;
		else if (ctx == REF_TOP && slot == 5)
			child = REF_ERROR;
		else if (ctx == REF_PARAMS && slot == 0)
			child = REF_META;
		ref_ws(r);
		if (r->i == r->n || r->s[r->i] != ':')
			return (ref_fail(r, r->i));
		r->i++;
		ref_ws(r);
		if (ref_value(r, depth, child) != 0)
			return (-1);
		ref_ws(r);
		if (r->i < r->n && r->s[r->i] == ',') {
			r->i++;
			ref_ws(r);
			continue;
		}
		if (r->i < r->n && r->s[r->i] == '}') {
			r->i++;
			return (0);
		}
		return (ref_fail(r, r->i));
	}
}

static int
ref_array(struct ref *r, size_t depth)
{
	if (depth > ENVELOPE_MAX_DEPTH)
		return (ref_fail(r, r->i));
	r->i++;
	ref_ws(r);
	if (r->i < r->n && r->s[r->i] == ']') {
		r->i++;
		return (0);
	}
	for (;;) {
		if (ref_value(r, depth, REF_NONE) != 0)
			return (-1);
		ref_ws(r);
		if (r->i < r->n && r->s[r->i] == ',') {
			r->i++;
			ref_ws(r);
			continue;
		}
		if (r->i < r->n && r->s[r->i] == ']') {
			r->i++;
			return (0);
		}
		return (ref_fail(r, r->i));
	}
}

/* A value at r->i, inside depth containers; ctx if it is an object. */
static int
ref_value(struct ref *r, size_t depth, enum ref_ctx ctx)
{
	if (r->i == r->n)
		return (ref_fail(r, r->n));
	switch (r->s[r->i]) {
	case '{':
		return (ref_object(r, depth + 1, ctx));
	case '[':
		return (ref_array(r, depth + 1));
	case '"':
		return (ref_string(r, NULL, NULL));
	case 't':
		return (ref_literal(r, "true"));
	case 'f':
		return (ref_literal(r, "false"));
	case 'n':
		return (ref_literal(r, "null"));
	default:
		if (r->s[r->i] == '-' || (r->s[r->i] >= '0' &&
		    r->s[r->i] <= '9'))
			return (ref_number(r));
		return (ref_fail(r, r->i));
	}
}

/* 0 if text is one valid message, else -1 with *error_off. */
static int
ref_scan(const char *text, size_t len, size_t *error_off)
{
	struct ref	 r = { (const unsigned char *)text, len, 0 };

	ref_ws(&r);
	if (r.i == r.n || r.s[r.i] != '{' ||
	    ref_object(&r, 1, REF_TOP) != 0) {
		*error_off = r.i;
		return (-1);
	}
	ref_ws(&r);
	if (r.i != r.n) {
		*error_off = r.i;
		return (-1);
	}
	return (0);
}

static int
plain_byte(unsigned char c)
{
	return (c >= 0x20 && c < 0x80 && c != '"' && c != '\\');
}

/*
 * The plain spans: envelope_plain_prefix and _suffix against a byte loop,
 * and a span of plain bytes chosen by the hash, which envelope_scan_plain
 * must take without changing anything it says.
 */
static void
check_plain(const char *text, size_t size, uint32_t hash, int rc,
    size_t erroff, const struct envelope *env)
{
	struct envelope_span	 span;
	struct envelope		 env2;
	size_t			 n, err2 = 0;
	int			 rc2;

	for (n = 0; n < size && plain_byte(text[n]); n++)
		;
	FUZZ_CHECK(envelope_plain_prefix(text, size) == n, "plain prefix %zu, "
	    "want %zu", envelope_plain_prefix(text, size), n);
	for (n = 0; n < size && plain_byte(text[size - 1 - n]); n++)
		;
	FUZZ_CHECK(envelope_plain_suffix(text, size) == n, "plain suffix %zu, "
	    "want %zu", envelope_plain_suffix(text, size), n);
	if (size == 0)
		return;
	span.off = hash % size;
	for (n = 0; span.off + n < size && plain_byte(text[span.off + n]); n++)
		;
	/* The whole run up to the next byte needing attention, or part. */
	span.len = (hash >> 16) & 1 ? n : n / 2;
	rc2 = envelope_scan_plain(text, size, &span, &env2, &err2);
	FUZZ_CHECK(rc2 == rc && (rc == 0 || err2 == erroff) &&
	    memcmp(env, &env2, sizeof env2) == 0, "a plain span [%zu, +%zu) "
	    "changes the scan: %d at %zu, without it %d at %zu", span.off,
	    span.len, rc2, err2, rc, erroff);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*text = (const char *)data;
	struct envelope	 env, prefix_env;
	size_t		 erroff, prefix_off, ref_off, i;
	int		 rc, ref_rc;
	uint32_t	 hash = 2166136261u;
	cJSON		*root;
	char		*tamed;

	for (i = 0; i < size; i++)
		hash = (hash ^ data[i]) * 16777619u;
	check_splice_rules(text, size, hash);

	rc = envelope_scan(text, size, &env, &erroff);
	check_plain(text, size, hash, rc, erroff, &env);
	ref_rc = ref_scan(text, size, &ref_off);
	FUZZ_CHECK(rc == ref_rc, "envelope_scan %s what a strict parser %s "
	    "(at byte %zu)", rc == 0 ? "accepts" : "refuses",
	    ref_rc == 0 ? "accepts" : "refuses", rc == 0 ? ref_off : erroff);
	FUZZ_CHECK(rc == 0 || erroff == ref_off, "envelope_scan fails at byte "
	    "%zu, a strict parser at %zu", erroff, ref_off);
	if (rc != 0) {
		FUZZ_CHECK(erroff <= size, "error offset %zu past the end %zu",
		    erroff, size);
		check_spans(&env, text, erroff);
		/* Everything before the error is a viable start. */
		if (envelope_scan(text, erroff, &prefix_env,
		    &prefix_off) != 0)
			FUZZ_CHECK(prefix_off == erroff, "error at byte %zu, "
			    "but the %zu bytes before it fail at %zu", erroff,
			    erroff, prefix_off);
		return (0);
	}
	check_spans(&env, text, size);

	root = fuzz_json_parse(text, size);
	FUZZ_CHECK(root != NULL, "cJSON refuses what envelope_scan accepted");
	FUZZ_CHECK(cJSON_IsObject(root), "envelope_scan accepted a non-object");
	tamed = fuzz_json_tame(text, size);
	check_members(text, tamed, size, &env, root);
	check_rewrite(text, size, &env, root, hash);
	free(tamed);
	cJSON_Delete(root);
	return (0);
}
