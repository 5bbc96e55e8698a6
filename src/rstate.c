/*
 * rstate.c -- mcpd's own requestState: a parked request's identity,
 * sealed with HMAC-SHA256 under a key of the daemon's, and the digest
 * that tells a retry of the same request from another (see rstate.h).
 *
 * The hashes, the MAC and the constant-time compare are libcrypto's;
 * base64url is b64.c's, strict, so that a state has one text only.
 */
#include "config.h"

#include <sys/random.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "b64.h"
#include "rstate.h"
#include "sbuf.h"
#include "util.h"
#include "xmalloc.h"

/* Where each part lies in the binary layout. */
#define RSTATE_OFF_FIELDS	1
#define RSTATE_OFF_DIGEST	(RSTATE_OFF_FIELDS + 4 * 8)
#define RSTATE_OFF_TAG		(RSTATE_OFF_DIGEST + RSTATE_DIGEST_BYTES)
_Static_assert(RSTATE_OFF_TAG + RSTATE_TAG_BYTES == RSTATE_BINARY_BYTES,
    "the layout's parts add up to its size");

/* The top-level members of params a retry may change. */
static const char *const rstate_ignored[] = {
	"_meta", "inputResponses", "requestState", "task",
};

int
rstate_key_new(uint8_t key[RSTATE_KEY_BYTES])
{
	size_t	 got = 0;
	ssize_t	 n;

	while (got < RSTATE_KEY_BYTES) {
		n = getrandom(key + got, RSTATE_KEY_BYTES - got, 0);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			return (-1);
		}
		got += (size_t)n;
	}
	return (0);
}

static void
rstate_put64(uint8_t *p, uint64_t v)
{
	int	 i;

	for (i = 7; i >= 0; i--) {
		p[i] = v & 0xff;
		v >>= 8;
	}
}

static uint64_t
rstate_get64(const uint8_t *p)
{
	uint64_t	 v = 0;
	int		 i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return (v);
}

static void
rstate_tag(const uint8_t key[RSTATE_KEY_BYTES], const uint8_t *bin,
    uint8_t tag[RSTATE_TAG_BYTES])
{
	unsigned int	 len = 0;

	if (HMAC(EVP_sha256(), key, RSTATE_KEY_BYTES, bin, RSTATE_OFF_TAG,
	    tag, &len) == NULL || len != RSTATE_TAG_BYTES)
		abort();
}

char *
rstate_encode(const uint8_t key[RSTATE_KEY_BYTES], const struct rstate *rs)
{
	uint8_t	 bin[RSTATE_BINARY_BYTES];
	char	*payload, *text;

	bin[0] = RSTATE_VERSION;
	rstate_put64(bin + RSTATE_OFF_FIELDS, rs->principal);
	rstate_put64(bin + RSTATE_OFF_FIELDS + 8, rs->parked);
	rstate_put64(bin + RSTATE_OFF_FIELDS + 16, rs->round);
	rstate_put64(bin + RSTATE_OFF_FIELDS + 24, rs->expires_ms);
	memcpy(bin + RSTATE_OFF_DIGEST, rs->digest, RSTATE_DIGEST_BYTES);
	rstate_tag(key, bin, bin + RSTATE_OFF_TAG);
	payload = b64url_encode(bin, sizeof bin);
	xasprintf(&text, "%s%s", RSTATE_PREFIX, payload);
	free(payload);
	return (text);
}

/* Only base64url's alphabet: no padding, no standard base64. */
static int
rstate_b64url_only(const char *s, size_t len)
{
	size_t	 i;
	char	 c;

	for (i = 0; i < len; i++) {
		c = s[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '_'))
			return (0);
	}
	return (1);
}

enum rstate_verdict
rstate_decode(const uint8_t key[RSTATE_KEY_BYTES], const char *text,
    size_t len, struct rstate *out)
{
	const size_t	 plen = sizeof RSTATE_PREFIX - 1;
	uint8_t		*bin, tag[RSTATE_TAG_BYTES];
	size_t		 binlen;
	enum rstate_verdict v;

	if (len > RSTATE_TEXT_MAX_BYTES || len != RSTATE_TEXT_BYTES)
		return (RSTATE_MALFORMED);
	if (memcmp(text, RSTATE_PREFIX, plen) != 0 ||
	    !rstate_b64url_only(text + plen, len - plen))
		return (RSTATE_MALFORMED);
	bin = b64url_decode(text + plen, len - plen, &binlen);
	if (bin == NULL)
		return (RSTATE_MALFORMED);
	if (binlen != RSTATE_BINARY_BYTES) {
		v = RSTATE_MALFORMED;
		goto out;
	}
	rstate_tag(key, bin, tag);
	if (CRYPTO_memcmp(tag, bin + RSTATE_OFF_TAG, sizeof tag) != 0) {
		v = RSTATE_FORGED;
		goto out;
	}
	/* Sealed with this key, but of a layout this mcpd does not read. */
	if (bin[0] != RSTATE_VERSION) {
		v = RSTATE_MALFORMED;
		goto out;
	}
	out->principal = rstate_get64(bin + RSTATE_OFF_FIELDS);
	out->parked = rstate_get64(bin + RSTATE_OFF_FIELDS + 8);
	out->round = rstate_get64(bin + RSTATE_OFF_FIELDS + 16);
	out->expires_ms = rstate_get64(bin + RSTATE_OFF_FIELDS + 24);
	memcpy(out->digest, bin + RSTATE_OFF_DIGEST, RSTATE_DIGEST_BYTES);
	v = RSTATE_OK;
out:
	free(bin);
	return (v);
}

const char *
rstate_verdict_name(enum rstate_verdict v)
{
	switch (v) {
	case RSTATE_OK:
		return ("ok");
	case RSTATE_MALFORMED:
		return ("malformed");
	case RSTATE_FORGED:
		return ("forged");
	}
	return ("unknown");
}

static void
rstate_add_string(struct sbuf *sb, const char *s)
{
	static const char	 hex[] = "0123456789abcdef";
	const unsigned char	*p;
	char			 esc[6] = { '\\', 'u', '0', '0', 0, 0 };

	sbuf_add(sb, "\"", 1);
	for (p = (const unsigned char *)(s != NULL ? s : ""); *p != '\0';
	    p++) {
		if (*p == '"' || *p == '\\') {
			sbuf_add(sb, "\\", 1);
			sbuf_add(sb, (const char *)p, 1);
		} else if (*p < 0x20) {
			esc[4] = hex[*p >> 4];
			esc[5] = hex[*p & 0x0f];
			sbuf_add(sb, esc, sizeof esc);
		} else
			sbuf_add(sb, (const char *)p, 1);
	}
	sbuf_add(sb, "\"", 1);
}

static int
rstate_ignored_key(const char *key)
{
	size_t	 i;

	for (i = 0; i < nitems(rstate_ignored); i++)
		if (strcmp(key, rstate_ignored[i]) == 0)
			return (1);
	return (0);
}

/* An object's member and its place, for a stable sort by key. */
struct rstate_member {
	const cJSON	*item;
	size_t		 place;
};

static int
rstate_member_cmp(const void *a, const void *b)
{
	const struct rstate_member *ma = a, *mb = b;
	int		 c;

	/* strcmp compares as unsigned char: the keys' bytes. */
	c = strcmp(ma->item->string, mb->item->string);
	if (c != 0)
		return (c);
	return (ma->place < mb->place ? -1 : ma->place > mb->place);
}

static void	rstate_add_value(struct sbuf *, const cJSON *);

static void
rstate_add_object(struct sbuf *sb, const cJSON *obj, int top)
{
	struct rstate_member	*m;
	const cJSON		*c;
	size_t			 i, n = 0;

	for (c = obj->child; c != NULL; c = c->next)
		n++;
	m = xreallocarray(NULL, n == 0 ? 1 : n, sizeof *m);
	n = 0;
	for (c = obj->child; c != NULL; c = c->next) {
		/* cJSON leaves no key NULL when it parses; a caller might. */
		if (c->string == NULL || (top && rstate_ignored_key(c->string)))
			continue;
		m[n].item = c;
		m[n].place = n;
		n++;
	}
	qsort(m, n, sizeof *m, rstate_member_cmp);
	sbuf_add(sb, "{", 1);
	for (i = 0; i < n; i++) {
		if (i > 0)
			sbuf_add(sb, ",", 1);
		rstate_add_string(sb, m[i].item->string);
		sbuf_add(sb, ":", 1);
		rstate_add_value(sb, m[i].item);
	}
	sbuf_add(sb, "}", 1);
	free(m);
}

/*
 * A number in the fewest significant digits, 15 to 17, that read back
 * as its double: 17 always do, so two doubles never print alike (cJSON's
 * own printing takes 15 digits when they come back within an epsilon,
 * and neighbouring doubles can print alike).  Infinity (from "1e999")
 * and NaN, which JSON cannot spell, print as cJSON prints them: null.
 */
static void
rstate_add_number(struct sbuf *sb, const cJSON *item)
{
	char	 buf[64];
	double	 d = item->valuedouble;
	int	 n = 0, i, digits;

	if (isnan(d) || isinf(d)) {
		sbuf_adds(sb, "null");
		return;
	}
	for (digits = 15; digits <= 17; digits++) {
		n = snprintf(buf, sizeof buf, "%.*g", digits, d);
		if (n <= 0 || (size_t)n >= sizeof buf)
			abort();
		if (strtod(buf, NULL) == d)
			break;
	}
	/* Whatever the locale's decimal point, the one JSON has. */
	for (i = 0; i < n; i++)
		if (!(buf[i] >= '0' && buf[i] <= '9') && buf[i] != 'e' &&
		    buf[i] != '-' && buf[i] != '+')
			buf[i] = '.';
	sbuf_add(sb, buf, (size_t)n);
}

static void
rstate_add_value(struct sbuf *sb, const cJSON *item)
{
	const cJSON	*c;

	if (cJSON_IsObject(item))
		rstate_add_object(sb, item, 0);
	else if (cJSON_IsArray(item)) {
		sbuf_add(sb, "[", 1);
		for (c = item->child; c != NULL; c = c->next) {
			if (c != item->child)
				sbuf_add(sb, ",", 1);
			rstate_add_value(sb, c);
		}
		sbuf_add(sb, "]", 1);
	} else if (cJSON_IsString(item))
		rstate_add_string(sb, item->valuestring);
	else if (cJSON_IsNumber(item))
		rstate_add_number(sb, item);
	else if (cJSON_IsTrue(item))
		sbuf_adds(sb, "true");
	else if (cJSON_IsFalse(item))
		sbuf_adds(sb, "false");
	else
		sbuf_adds(sb, "null");
}

char *
rstate_canonical(const cJSON *params)
{
	struct sbuf	 sb;

	sbuf_init(&sb, 256);
	if (params == NULL)
		sbuf_adds(&sb, "{}");
	else if (cJSON_IsObject(params))
		rstate_add_object(&sb, params, 1);
	else
		rstate_add_value(&sb, params);
	return (sb.p);
}

void
rstate_digest(const char *method, const cJSON *params,
    uint8_t out[RSTATE_DIGEST_BYTES])
{
	struct sbuf	 sb;
	char		*canon;
	unsigned int	 len = 0;

	canon = rstate_canonical(params);
	sbuf_init(&sb, strlen(canon) + 64);
	sbuf_adds(&sb, method != NULL ? method : "");
	sbuf_add(&sb, "\n", 1);
	sbuf_adds(&sb, canon);
	free(canon);
	if (EVP_Digest(sb.p, sb.len, out, &len, EVP_sha256(), NULL) != 1 ||
	    len != RSTATE_DIGEST_BYTES)
		abort();
	free(sb.p);
}

const char *
rstate_mismatch(const struct rstate *rs, uint64_t principal,
    uint64_t now_ms, const uint8_t digest[RSTATE_DIGEST_BYTES])
{
	if (rs->principal != principal)
		return ("it was issued to another client");
	if (now_ms > rs->expires_ms)
		return ("it has expired");
	if (memcmp(rs->digest, digest, RSTATE_DIGEST_BYTES) != 0)
		return ("it was issued for another request");
	return (NULL);
}
