/*
 * envelope.c -- single-pass JSON object scanner and splicer.
 *
 * envelope_scan is an iterative state machine over the line: the only
 * state besides the position is one bit per open container (object or
 * array) up to ENVELOPE_MAX_DEPTH, so any nesting fails cleanly instead of
 * exhausting the stack.  The levels that are recorded (the top-level
 * object, params, params._meta, error) are at most three deep; for those
 * levels the scanner also remembers which object it is in, and for a
 * recorded member whose value is a container, where that container began.
 * A recorded member's type is set only once its value has ended, so a
 * member is either complete or ABSENT, also after a failure.
 *
 * Skipping string contents dominates on large messages: the loop looks
 * for the bytes that need attention ('"', '\\', control characters and
 * bytes >= 0x80) 16 bytes at a time with SSE2 (8 at a time elsewhere), and
 * only non-ASCII sequences go through the byte-wise UTF-8 check.
 */

#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "envelope.h"
#include "xmalloc.h"

/*
 * Depths are counted from the top-level object (1).  The kinds of object
 * that record members sit at depths 1 (top), 2 (params, error) and 3
 * (params._meta), so a recorded container value opens at depth 4 at most.
 */
#define ENVELOPE_CTX_DEPTHS	4
#define ENVELOPE_SLOT_DEPTHS	5
#define ENVELOPE_KEY_MAX_BYTES	16	/* longer keys are never recorded */
#define ENVELOPE_DEPTH_WORDS	((ENVELOPE_MAX_DEPTH + 63) / 64)

enum envelope_ctx {
	ENVELOPE_CTX_NONE,		/* nothing recorded at this level */
	ENVELOPE_CTX_TOP,
	ENVELOPE_CTX_PARAMS,
	ENVELOPE_CTX_META,
	ENVELOPE_CTX_ERROR,
};

static inline __attribute__((always_inline)) const unsigned char *
envelope_ws(const unsigned char *p, const unsigned char *end)
{
	while (p < end && *p <= ' ' &&
	    (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return (p);
}

/* A byte a string holds as it is (envelope.h); SSE2 asks the same. */
static inline int
envelope_plain_byte(unsigned char c)
{
	return (c >= ' ' && c < 0x80 && c != '"' && c != '\\');
}

/* Where the token after p begins: most messages are compact. */
#define ENVELOPE_NEXT(p, end) \
	((p) < (end) && *(p) > ' ' ? (p) : envelope_ws((p), (end)))

#if defined(__SSE2__)
/*
 * A signed compare with ' ' catches both control characters and bytes
 * >= 0x80, which are negative as signed chars.
 */
#define ENVELOPE_SPECIAL(x) _mm_or_si128(_mm_or_si128(			\
	_mm_cmpeq_epi8((x), _mm_set1_epi8('"')),			\
	_mm_cmpeq_epi8((x), _mm_set1_epi8('\\'))),			\
	_mm_cmplt_epi8((x), _mm_set1_epi8(' ')))

/*
 * The bytes needing attention among the 16 from p on, as a bit mask; when
 * fewer than 16 are left, the block that ends at end, if the text is that
 * long, with the bytes before p shifted out.  -1 if neither is possible.
 */
static inline int
envelope_special16(const unsigned char *start, const unsigned char *p,
    const unsigned char *end)
{
	if (end - p >= 16)
		return (_mm_movemask_epi8(ENVELOPE_SPECIAL(
		    _mm_loadu_si128((const __m128i *)p))));
	if (end - start >= 16)
		return ((unsigned)_mm_movemask_epi8(ENVELOPE_SPECIAL(
		    _mm_loadu_si128((const __m128i *)(end - 16)))) >>
		    (16 - (end - p)));
	return (-1);
}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
/*
 * Long runs, 64 bytes at a time with AVX2 where the CPU has it (chosen
 * once, at the first long run): a large message's text is read at twice
 * the rate.  Returns the first byte needing attention, or where fewer than
 * 64 bytes are left.
 */
#define ENVELOPE_AVX2_MIN_BYTES	512

__attribute__((target("avx2"))) static const unsigned char *
envelope_skip_plain_avx2(const unsigned char *p, const unsigned char *end)
{
	const __m256i	 quote = _mm256_set1_epi8('"');
	const __m256i	 backslash = _mm256_set1_epi8('\\');
	const __m256i	 space = _mm256_set1_epi8(' ');
	__m256i		 x0, x1, m0, m1, any;
	uint64_t	 mask;

	while (end - p >= 64) {
		x0 = _mm256_loadu_si256((const __m256i *)(const void *)p);
		x1 = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
		/* Signed: control characters and bytes >= 0x80 are below ' '. */
		m0 = _mm256_or_si256(_mm256_or_si256(
		    _mm256_cmpeq_epi8(x0, quote), _mm256_cmpeq_epi8(x0, backslash)),
		    _mm256_cmpgt_epi8(space, x0));
		m1 = _mm256_or_si256(_mm256_or_si256(
		    _mm256_cmpeq_epi8(x1, quote), _mm256_cmpeq_epi8(x1, backslash)),
		    _mm256_cmpgt_epi8(space, x1));
		any = _mm256_or_si256(m0, m1);
		if (!_mm256_testz_si256(any, any)) {
			mask = (uint64_t)(uint32_t)_mm256_movemask_epi8(m0) |
			    (uint64_t)(uint32_t)_mm256_movemask_epi8(m1) << 32;
			return (p + __builtin_ctzll(mask));
		}
		p += 64;
	}
	return (p);
}

static int
envelope_has_avx2(void)
{
	static int	 has = -1;

	if (has == -1)
		has = __builtin_cpu_supports("avx2") ? 1 : 0;
	return (has);
}
#endif

/* Advance over string bytes that need no attention. */
static inline __attribute__((always_inline)) const unsigned char *
envelope_skip_plain(const unsigned char *start, const unsigned char *p,
    const unsigned char *end)
{
#if defined(__SSE2__)
	__m128i		 x0, x1, x2, x3, m0, m1, m2, m3;
	uint64_t	 mask;
	int		 tail;

	if (end - p >= 16) {
		/* Strings are often short: look at one block first. */
		x0 = _mm_loadu_si128((const __m128i *)p);
		mask = (unsigned)_mm_movemask_epi8(ENVELOPE_SPECIAL(x0));
		if (mask != 0)
			return (p + __builtin_ctzll(mask));
		p += 16;
	}
	while (end - p >= 64) {
		x0 = _mm_loadu_si128((const __m128i *)p);
		x1 = _mm_loadu_si128((const __m128i *)(p + 16));
		x2 = _mm_loadu_si128((const __m128i *)(p + 32));
		x3 = _mm_loadu_si128((const __m128i *)(p + 48));
		m0 = ENVELOPE_SPECIAL(x0);
		m1 = ENVELOPE_SPECIAL(x1);
		m2 = ENVELOPE_SPECIAL(x2);
		m3 = ENVELOPE_SPECIAL(x3);
		if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(m0, m1),
		    _mm_or_si128(m2, m3))) != 0) {
			mask = (uint64_t)(unsigned)_mm_movemask_epi8(m0) |
			    (uint64_t)(unsigned)_mm_movemask_epi8(m1) << 16 |
			    (uint64_t)(unsigned)_mm_movemask_epi8(m2) << 32 |
			    (uint64_t)(unsigned)_mm_movemask_epi8(m3) << 48;
			return (p + __builtin_ctzll(mask));
		}
		p += 64;
#if defined(__x86_64__) && defined(__GNUC__)
		/*
		 * A long run: the rest with AVX2.  Where it stops, at a byte
		 * needing attention or near the end, is seen below.
		 */
		if (end - p >= ENVELOPE_AVX2_MIN_BYTES && envelope_has_avx2()) {
			p = envelope_skip_plain_avx2(p, end);
			break;
		}
#endif
	}
	while (end - p >= 16) {
		x0 = _mm_loadu_si128((const __m128i *)p);
		mask = (unsigned)_mm_movemask_epi8(ENVELOPE_SPECIAL(x0));
		if (mask != 0)
			return (p + __builtin_ctzll(mask));
		p += 16;
	}
	/* Fewer than 16 bytes are left: the block that ends at end. */
	if (p < end && (tail = envelope_special16(start, p, end)) != -1)
		return (tail != 0 ? p + __builtin_ctz(tail) : end);
#else
	const uint64_t	 ones = 0x0101010101010101ULL;
	const uint64_t	 highs = 0x8080808080808080ULL;
	uint64_t	 x, q, b;

	(void)start;

	/*
	 * Exact when no byte needs attention; a borrow may flag more bytes
	 * after one that does, so the block is then looked at byte by byte.
	 */
	while (end - p >= 8) {
		memcpy(&x, p, sizeof x);
		q = x ^ (ones * '"');
		b = x ^ (ones * '\\');
		if ((((q - ones) & ~q) | ((b - ones) & ~b) |
		    (x - ones * ' ') | x) & highs)
			break;
		p += 8;
	}
#endif
	while (p < end && envelope_plain_byte(*p))
		p++;
	return (p);
}

size_t
envelope_plain_prefix(const char *text, size_t len)
{
	const unsigned char	*p = (const unsigned char *)text;

	return (envelope_skip_plain(p, p, p + len) - p);
}

size_t
envelope_plain_suffix(const char *text, size_t len)
{
	const unsigned char	*start = (const unsigned char *)text;
	const unsigned char	*e = start + len;
#if defined(__SSE2__)
	unsigned int		 mask;

	while (e - start >= 16) {
		mask = (unsigned)_mm_movemask_epi8(ENVELOPE_SPECIAL(
		    _mm_loadu_si128((const __m128i *)(e - 16))));
		if (mask != 0) {
			/* The last byte needing attention ends the run. */
			e = e - 16 + (31 - __builtin_clz(mask)) + 1;
			return (start + len - e);
		}
		e -= 16;
	}
#endif
	while (e > start && envelope_plain_byte(e[-1]))
		e--;
	return (start + len - e);
}

/*
 * Check one UTF-8 sequence starting with a byte >= 0x80 (RFC 3629: no
 * overlongs, no surrogates, nothing above U+10FFFF).  Returns the byte
 * after it, or NULL with *err at the first byte that cannot belong.
 */
static inline const unsigned char *
envelope_utf8(const unsigned char *p, const unsigned char *end,
    const unsigned char **err)
{
	unsigned int	 c = p[0], lo = 0x80, hi = 0xbf, n, i;

	if (c < 0xc2 || c > 0xf4) {
		*err = p;
		return (NULL);
	}
	if (c < 0xe0)
		n = 1;
	else if (c < 0xf0) {
		n = 2;
		if (c == 0xe0)
			lo = 0xa0;	/* overlong */
		else if (c == 0xed)
			hi = 0x9f;	/* surrogates */
	} else {
		n = 3;
		if (c == 0xf0)
			lo = 0x90;	/* overlong */
		else if (c == 0xf4)
			hi = 0x8f;	/* above U+10FFFF */
	}
	if ((size_t)(end - p) <= n) {
		/* Find the first missing or wrong byte. */
		for (i = 1; p + i < end; i++) {
			if (p[i] < (i == 1 ? lo : 0x80) ||
			    p[i] > (i == 1 ? hi : 0xbf))
				break;
		}
		*err = p + i;
		return (NULL);
	}
	if (p[1] < lo || p[1] > hi) {
		*err = p + 1;
		return (NULL);
	}
	for (i = 2; i <= n; i++) {
		if ((p[i] & 0xc0) != 0x80) {
			*err = p + i;
			return (NULL);
		}
	}
	return (p + n + 1);
}

static inline int
envelope_hex(unsigned int c)
{
	if (c >= '0' && c <= '9')
		return (c - '0');
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return (c - 'a' + 10);
	return (-1);
}

/*
 * Scan a string whose opening quote is just before p, in a text that
 * starts at start.  Returns the position of the closing quote, or NULL
 * with *err set.  *escaped tells whether the string holds any escape.
 */
static inline __attribute__((always_inline)) const unsigned char *
envelope_string_rest(const unsigned char *start, const unsigned char *p,
    const unsigned char *end, const struct envelope_span *known,
    int *escaped, const unsigned char **err)
{
	unsigned int	 i;

	*escaped = 0;
	for (;;) {
		/*
		 * Bytes known to be plain are not read again: up to the span,
		 * then from its end.
		 */
		if (known != NULL && (size_t)(p - start) < known->off +
		    known->len) {
			if ((size_t)(p - start) < known->off)
				p = envelope_skip_plain(start, p,
				    start + known->off);
			if ((size_t)(p - start) >= known->off)
				p = start + known->off + known->len;
		}
		p = envelope_skip_plain(start, p, end);
		if (p == end) {
			*err = p;
			return (NULL);
		}
		if (*p == '"')
			return (p);
		if (*p == '\\') {
			*escaped = 1;
			if (++p == end) {
				*err = p;
				return (NULL);
			}
			switch (*p) {
			case '"':
			case '\\':
			case '/':
			case 'b':
			case 'f':
			case 'n':
			case 'r':
			case 't':
				p++;
				break;
			case 'u':
				for (i = 1; i <= 4; i++) {
					if (p + i == end ||
					    envelope_hex(p[i]) == -1) {
						*err = p + i;
						return (NULL);
					}
				}
				p += 5;
				break;
			default:
				*err = p;
				return (NULL);
			}
		} else if (*p < ' ') {
			*err = p;
			return (NULL);
		} else {
			/* Non-ASCII text tends to come in runs. */
			do {
				if ((p = envelope_utf8(p, end, err)) == NULL)
					return (NULL);
			} while (p < end && *p >= 0x80);
		}
	}
}

/* Out of line, where most strings do not go: with and without a span. */
static __attribute__((noinline)) const unsigned char *
envelope_string_slow(const unsigned char *start, const unsigned char *p,
    const unsigned char *end, int *escaped, const unsigned char **err)
{
	return (envelope_string_rest(start, p, end, NULL, escaped, err));
}

static __attribute__((noinline)) const unsigned char *
envelope_string_slow_known(const unsigned char *start, const unsigned char *p,
    const unsigned char *end, const struct envelope_span *known,
    int *escaped, const unsigned char **err)
{
	return (envelope_string_rest(start, p, end, known, escaped, err));
}

/*
 * The same, inline for the common case of a short plain string: its
 * closing quote is the first byte needing attention in one block.
 */
static inline const unsigned char *
envelope_string(const unsigned char *start, const unsigned char *p,
    const unsigned char *end, const struct envelope_span *known,
    int *escaped, const unsigned char **err)
{
#if defined(__SSE2__)
	int	 mask = envelope_special16(start, p, end);

	if (mask > 0 && p[__builtin_ctz(mask)] == '"') {
		*escaped = 0;
		return (p + __builtin_ctz(mask));
	}
#endif
	if (known != NULL)
		return (envelope_string_slow_known(start, p, end, known, escaped,
		    err));
	return (envelope_string_slow(start, p, end, escaped, err));
}

/*
 * Skip digits.  Eight at a time while eight bytes are left: a byte is a
 * digit when its high nibble is 3 and its low nibble plus 6 does not
 * carry into the high one (no carry crosses bytes: 0x0f + 6 < 0x100).
 */
static inline __attribute__((always_inline)) const unsigned char *
envelope_digits(const unsigned char *p, const unsigned char *end)
{
#if defined(__BYTE_ORDER__) && (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ || \
    __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
	uint64_t	 x, other;

	while (end - p >= 8) {
		memcpy(&x, p, sizeof x);
		other = ((x & 0xf0f0f0f0f0f0f0f0ULL) ^ 0x3030303030303030ULL) |
		    (((x & 0x0f0f0f0f0f0f0f0fULL) + 0x0606060606060606ULL) &
		    0xf0f0f0f0f0f0f0f0ULL);
		if (other != 0) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			return (p + __builtin_ctzll(other) / 8);
#else
			return (p + __builtin_clzll(other) / 8);
#endif
		}
		p += 8;
	}
#endif
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return (p);
}

/* Scan a number; returns the byte after it, or NULL with *err set. */
static inline __attribute__((always_inline)) const unsigned char *
envelope_number(const unsigned char *p, const unsigned char *end,
    const unsigned char **err)
{
	if (*p == '-')
		p++;
	if (p < end && *p == '0')
		p++;
	else if (p < end && *p >= '1' && *p <= '9')
		p = envelope_digits(p + 1, end);
	else
		goto fail;
	if (p < end && *p == '.') {
		p++;
		if (p == end || *p < '0' || *p > '9')
			goto fail;
		p = envelope_digits(p + 1, end);
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (p == end || *p < '0' || *p > '9')
			goto fail;
		p = envelope_digits(p + 1, end);
	}
	return (p);

fail:
	*err = p;
	return (NULL);
}

static inline __attribute__((always_inline)) const unsigned char *
envelope_literal(const unsigned char *p, const unsigned char *end,
    const char *word, size_t len, const unsigned char **err)
{
	size_t	 i;

	for (i = 0; i < len; i++) {
		if (p + i == end || p[i] != (unsigned char)word[i]) {
			*err = p + i;
			return (NULL);
		}
	}
	return (p + len);
}

/*
 * Decode the next character of string text at *pp (not at end) into out
 * as UTF-8.  Returns its length, or -1 for malformed text or a lone
 * surrogate.
 */
static int
envelope_decode(const unsigned char **pp, const unsigned char *end,
    unsigned char out[4])
{
	const unsigned char	*p = *pp;
	uint32_t		 cp = 0, lo = 0;
	int			 i, d;

	if (*p != '\\') {
		out[0] = *p;
		*pp = p + 1;
		return (1);
	}
	if (end - p < 2)
		return (-1);
	switch (p[1]) {
	case '"':
	case '\\':
	case '/':
		out[0] = p[1];
		*pp = p + 2;
		return (1);
	case 'b':
		out[0] = '\b';
		*pp = p + 2;
		return (1);
	case 'f':
		out[0] = '\f';
		*pp = p + 2;
		return (1);
	case 'n':
		out[0] = '\n';
		*pp = p + 2;
		return (1);
	case 'r':
		out[0] = '\r';
		*pp = p + 2;
		return (1);
	case 't':
		out[0] = '\t';
		*pp = p + 2;
		return (1);
	case 'u':
		break;
	default:
		return (-1);
	}
	if (end - p < 6)
		return (-1);
	for (i = 2; i < 6; i++) {
		if ((d = envelope_hex(p[i])) == -1)
			return (-1);
		cp = cp << 4 | (uint32_t)d;
	}
	p += 6;
	if (cp >= 0xd800 && cp <= 0xdfff) {
		if (cp > 0xdbff || end - p < 6 || p[0] != '\\' || p[1] != 'u')
			return (-1);
		for (i = 2; i < 6; i++) {
			if ((d = envelope_hex(p[i])) == -1)
				return (-1);
			lo = lo << 4 | (uint32_t)d;
		}
		if (lo < 0xdc00 || lo > 0xdfff)
			return (-1);
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		p += 6;
	}
	*pp = p;
	if (cp < 0x80) {
		out[0] = (unsigned char)cp;
		return (1);
	}
	if (cp < 0x800) {
		out[0] = (unsigned char)(0xc0 | cp >> 6);
		out[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return (2);
	}
	if (cp < 0x10000) {
		out[0] = (unsigned char)(0xe0 | cp >> 12);
		out[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return (3);
	}
	out[0] = (unsigned char)(0xf0 | cp >> 18);
	out[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return (4);
}

/*
 * The slot recorded for key text [p, end) in an object of kind ctx, or
 * NULL.  Keys with escapes are decoded first.  The keys are a few short
 * words, told apart by their length and then compared whole: a compare
 * with a constant length compiles to a load or two, not a call.
 */
static struct envelope_value *
envelope_member(struct envelope *env, enum envelope_ctx ctx,
    const unsigned char *p, const unsigned char *end, int escaped)
{
	unsigned char			 key[ENVELOPE_KEY_MAX_BYTES + 4];
	const unsigned char		*name = p;
	size_t				 len = end - p;
	int				 n;

	if (escaped) {
		len = 0;
		while (p < end) {
			if ((n = envelope_decode(&p, end, key + len)) == -1)
				return (NULL);
			len += n;
			if (len > ENVELOPE_KEY_MAX_BYTES)
				return (NULL);
		}
		name = key;
	}
#define ENVELOPE_KEY_IS(s) (memcmp(name, s, sizeof s - 1) == 0)
	switch (ctx) {
	case ENVELOPE_CTX_TOP:
		switch (len) {
		case 2:
			return (ENVELOPE_KEY_IS("id") ? &env->id : NULL);
		case 5:
			return (ENVELOPE_KEY_IS("error") ? &env->error : NULL);
		case 6:
			if (ENVELOPE_KEY_IS("method"))
				return (&env->method);
			if (ENVELOPE_KEY_IS("params"))
				return (&env->params);
			if (ENVELOPE_KEY_IS("result"))
				return (&env->result);
			return (NULL);
		case 7:
			return (ENVELOPE_KEY_IS("jsonrpc") ? &env->jsonrpc :
			    NULL);
		}
		return (NULL);
	case ENVELOPE_CTX_PARAMS:
		switch (len) {
		case 3:
			return (ENVELOPE_KEY_IS("uri") ? &env->p_uri : NULL);
		case 4:
			return (ENVELOPE_KEY_IS("name") ? &env->p_name : NULL);
		case 5:
			if (ENVELOPE_KEY_IS("_meta"))
				return (&env->meta);
			if (ENVELOPE_KEY_IS("level"))
				return (&env->p_level);
			return (NULL);
		case 9:
			return (ENVELOPE_KEY_IS("requestId") ?
			    &env->p_request_id : NULL);
		case 13:
			return (ENVELOPE_KEY_IS("progressToken") ?
			    &env->p_progress_token : NULL);
		}
		return (NULL);
	case ENVELOPE_CTX_META:
		return (len == 13 && ENVELOPE_KEY_IS("progressToken") ?
		    &env->progress_token : NULL);
	case ENVELOPE_CTX_ERROR:
		return (len == 4 && ENVELOPE_KEY_IS("code") ? &env->e_code :
		    NULL);
	case ENVELOPE_CTX_NONE:
		break;
	}
#undef ENVELOPE_KEY_IS
	return (NULL);
}

/*
 * A top-level key as compact JSON writes it, with its colon: its slot,
 * with *after set past the colon, or NULL for anything else (which the
 * general path then reads).  p is at the opening quote, with more than
 * ENVELOPE_TOP_KEY_BYTES bytes from there on.  A compare with a constant
 * length compiles to a load or two.
 */
#define ENVELOPE_TOP_KEY_BYTES	10	/* "jsonrpc": */

static inline __attribute__((always_inline)) struct envelope_value *
envelope_top_key(struct envelope *env, const unsigned char *p,
    const unsigned char **after)
{
#define ENVELOPE_TOP_IS(s) (memcmp(p, s, sizeof s - 1) == 0 ?		\
	(*after = p + sizeof s - 1, 1) : 0)
	switch (p[1]) {
	case 'i':
		return (ENVELOPE_TOP_IS("\"id\":") ? &env->id : NULL);
	case 'j':
		return (ENVELOPE_TOP_IS("\"jsonrpc\":") ? &env->jsonrpc : NULL);
	case 'm':
		return (ENVELOPE_TOP_IS("\"method\":") ? &env->method : NULL);
	case 'p':
		return (ENVELOPE_TOP_IS("\"params\":") ? &env->params : NULL);
	case 'r':
		return (ENVELOPE_TOP_IS("\"result\":") ? &env->result : NULL);
	case 'e':
		return (ENVELOPE_TOP_IS("\"error\":") ? &env->error : NULL);
	}
	return (NULL);
#undef ENVELOPE_TOP_IS
}

/*
 * The same for the keys of params (and of params._meta): 1 with *slot
 * (NULL for "arguments", which is known but not recorded) and *after set
 * past the colon, or 0 for anything else.  p is at the opening quote,
 * with more than ENVELOPE_PARAMS_KEY_BYTES bytes from there on.
 */
#define ENVELOPE_PARAMS_KEY_BYTES	16	/* "progressToken": */

static inline __attribute__((always_inline)) int
envelope_params_key(struct envelope *env, enum envelope_ctx ctx,
    const unsigned char *p, const unsigned char **after,
    struct envelope_value **slot)
{
#define ENVELOPE_PARAMS_IS(s, v) (memcmp(p, s, sizeof s - 1) == 0 ?	\
	(*after = p + sizeof s - 1, *slot = (v), 1) : 0)
	if (ctx == ENVELOPE_CTX_META)
		return (p[1] == 'p' && ENVELOPE_PARAMS_IS("\"progressToken\":",
		    &env->progress_token));
	switch (p[1]) {
	case 'n':
		return (ENVELOPE_PARAMS_IS("\"name\":", &env->p_name));
	case 'a':
		return (ENVELOPE_PARAMS_IS("\"arguments\":", NULL));
	case '_':
		return (ENVELOPE_PARAMS_IS("\"_meta\":", &env->meta));
	case 'u':
		return (ENVELOPE_PARAMS_IS("\"uri\":", &env->p_uri));
	case 'l':
		return (ENVELOPE_PARAMS_IS("\"level\":", &env->p_level));
	case 'r':
		return (ENVELOPE_PARAMS_IS("\"requestId\":",
		    &env->p_request_id));
	case 'p':
		return (ENVELOPE_PARAMS_IS("\"progressToken\":",
		    &env->p_progress_token));
	}
	return (0);
#undef ENVELOPE_PARAMS_IS
}

/* The kind of an object opened at depth for the member recorded in slot. */
static enum envelope_ctx
envelope_child_ctx(struct envelope *env, size_t depth,
    const struct envelope_value *slot)
{
	if (depth == 1)
		return (ENVELOPE_CTX_TOP);
	if (slot == NULL)
		return (ENVELOPE_CTX_NONE);
	if (slot == &env->params)
		return (ENVELOPE_CTX_PARAMS);
	if (slot == &env->error)
		return (ENVELOPE_CTX_ERROR);
	if (slot == &env->meta)
		return (ENVELOPE_CTX_META);
	return (ENVELOPE_CTX_NONE);
}

/*
 * Every member ABSENT with a zero span.  With SSE2, in 16-byte stores: a
 * memset of this size becomes a string instruction that is slow to
 * start.  The empty asm hides that the value stored is zero, so that the
 * compiler does not turn the loop back into that memset.
 */
static inline void
envelope_clear(struct envelope *env)
{
#if defined(__SSE2__) && defined(__GNUC__)
	unsigned char	*w = (unsigned char *)env;
	__m128i		 zero = _mm_setzero_si128();
	size_t		 i;

	__asm__("" : "+x" (zero));
#pragma GCC unroll 32
	for (i = 0; i + 16 <= sizeof *env; i += 16)
		_mm_storeu_si128((__m128i *)(void *)(w + i), zero);
	if (i < sizeof *env)
		memset(w + i, 0, sizeof *env - i);
#else
	memset(env, 0, sizeof *env);
#endif
}

/* "jsonrpc":"2.0", as compact JSON writes it, and its value's place. */
#define ENVELOPE_LEAD			"\"jsonrpc\":\"2.0\","
#define ENVELOPE_LEAD_BYTES		(sizeof ENVELOPE_LEAD - 1)
#define ENVELOPE_LEAD_VALUE_OFF		10
#define ENVELOPE_LEAD_VALUE_BYTES	5
#define ENVELOPE_ID_KEY			"\"id\":"
#define ENVELOPE_ID_KEY_BYTES		(sizeof ENVELOPE_ID_KEY - 1)

#define ENVELOPE_IS_OBJECT(bits, d) \
	(((bits)[((d) - 1) / 64] >> (((d) - 1) % 64)) & 1)

/* The scanner; known is NULL when no span is known. */
static int
envelope_scan_known(const char *line, size_t len,
    const struct envelope_span *known, struct envelope *env,
    size_t *error_off)
{
	const unsigned char	*base = (const unsigned char *)line;
	const unsigned char	*end = base + len, *p, *q, *err;
	struct envelope_value	*slot = NULL, *open;
	struct envelope_value	*open_slot[ENVELOPE_SLOT_DEPTHS];
	enum envelope_ctx	 ctx[ENVELOPE_CTX_DEPTHS];
	uint64_t		 objects[ENVELOPE_DEPTH_WORDS];
	enum envelope_type	 type;
	enum envelope_ctx	 cur_ctx = ENVELOPE_CTX_NONE;
	size_t			 depth = 0;
	int			 escaped, plain, in_object = 0;

	envelope_clear(env);
	p = envelope_ws(base, end);
	if (p == end || *p != '{')
		goto fail;
	/*
	 * Nearly every message opens with {"jsonrpc":"2.0", and then "id":,
	 * each taken in one compare.  The state set here is what open_object
	 * sets for the top level (no slot, kind TOP), written out: going
	 * through open_object costs 25 more instructions a message.
	 */
	if (end - p > (ptrdiff_t)ENVELOPE_LEAD_BYTES &&
	    memcmp(p + 1, ENVELOPE_LEAD, ENVELOPE_LEAD_BYTES) == 0) {
		depth = 1;
		objects[0] = 1;
		in_object = 1;
		cur_ctx = ctx[1] = ENVELOPE_CTX_TOP;
		open_slot[1] = NULL;
		env->jsonrpc.off = p + 1 + ENVELOPE_LEAD_VALUE_OFF - base;
		env->jsonrpc.len = ENVELOPE_LEAD_VALUE_BYTES;
		env->jsonrpc.type = ENVELOPE_STRING;
		env->jsonrpc.plain = 1;
		p = ENVELOPE_NEXT(p + 1 + ENVELOPE_LEAD_BYTES, end);
		if (end - p > (ptrdiff_t)ENVELOPE_ID_KEY_BYTES &&
		    memcmp(p, ENVELOPE_ID_KEY, ENVELOPE_ID_KEY_BYTES) == 0) {
			slot = &env->id;
			p = ENVELOPE_NEXT(p + ENVELOPE_ID_KEY_BYTES, end);
			goto value;
		}
		goto member;
	}
	goto open_object;

value:
	/* p is at a value; slot is where to record it, if anywhere. */
	if (p == end)
		goto fail;
	plain = 0;
	switch (*p) {
	case '{':
		goto open_object;
	case '[':
		goto open_array;
	case '"':
		if ((q = envelope_string(base, p + 1, end, known, &escaped,
		    &err)) == NULL)
			goto fail_at_err;
		q++;
		type = ENVELOPE_STRING;
		plain = !escaped;
		break;
	case '-':
	case '0':
	case '1':
	case '2':
	case '3':
	case '4':
	case '5':
	case '6':
	case '7':
	case '8':
	case '9':
		if ((q = envelope_number(p, end, &err)) == NULL)
			goto fail_at_err;
		type = ENVELOPE_NUMBER;
		break;
	case 't':
		if ((q = envelope_literal(p, end, "true", 4, &err)) == NULL)
			goto fail_at_err;
		type = ENVELOPE_TRUE;
		break;
	case 'f':
		if ((q = envelope_literal(p, end, "false", 5, &err)) == NULL)
			goto fail_at_err;
		type = ENVELOPE_FALSE;
		break;
	case 'n':
		if ((q = envelope_literal(p, end, "null", 4, &err)) == NULL)
			goto fail_at_err;
		type = ENVELOPE_NULL;
		break;
	default:
		goto fail;
	}
	if (slot != NULL) {
		slot->off = p - base;
		slot->len = q - p;
		slot->type = type;
		slot->plain = plain;
	}
	p = q;
	goto after_value;

open_object:
	if (depth == ENVELOPE_MAX_DEPTH)
		goto fail;
	depth++;
	/* A word of bits is cleared when the first depth it holds opens. */
	if ((depth - 1) % 64 == 0)
		objects[(depth - 1) / 64] = 0;
	objects[(depth - 1) / 64] |= (uint64_t)1 << ((depth - 1) % 64);
	in_object = 1;
	cur_ctx = ENVELOPE_CTX_NONE;
	if (depth < ENVELOPE_CTX_DEPTHS)
		cur_ctx = ctx[depth] = envelope_child_ctx(env, depth, slot);
	if (depth < ENVELOPE_SLOT_DEPTHS) {
		open_slot[depth] = slot;
		if (slot != NULL)
			slot->off = p - base;
	}
	p = ENVELOPE_NEXT(p + 1, end);
	if (p < end && *p == '}')
		goto close;
	goto member;

open_array:
	if (depth == ENVELOPE_MAX_DEPTH)
		goto fail;
	depth++;
	if ((depth - 1) % 64 == 0)
		objects[(depth - 1) / 64] = 0;
	objects[(depth - 1) / 64] &= ~((uint64_t)1 << ((depth - 1) % 64));
	in_object = 0;
	cur_ctx = ENVELOPE_CTX_NONE;
	if (depth < ENVELOPE_CTX_DEPTHS)
		ctx[depth] = ENVELOPE_CTX_NONE;
	if (depth < ENVELOPE_SLOT_DEPTHS) {
		open_slot[depth] = slot;
		if (slot != NULL)
			slot->off = p - base;
	}
	slot = NULL;
	p = ENVELOPE_NEXT(p + 1, end);
	if (p < end && *p == ']')
		goto close;
	goto value;

member:
	/* p is where a key must start. */
	if (p == end || *p != '"')
		goto fail;
	/* The usual keys of the top level, compact, without a scan. */
	if (cur_ctx == ENVELOPE_CTX_TOP && end - p > ENVELOPE_TOP_KEY_BYTES &&
	    (slot = envelope_top_key(env, p, &q)) != NULL) {
		if (slot->type != ENVELOPE_ABSENT)
			goto fail;	/* a duplicate: p is at its key */
		p = ENVELOPE_NEXT(q, end);
		goto value;
	}
	/* The same for params and params._meta. */
	if ((cur_ctx == ENVELOPE_CTX_PARAMS || cur_ctx == ENVELOPE_CTX_META) &&
	    end - p > ENVELOPE_PARAMS_KEY_BYTES &&
	    envelope_params_key(env, cur_ctx, p, &q, &slot)) {
		if (slot != NULL && slot->type != ENVELOPE_ABSENT)
			goto fail;	/* a duplicate: p is at its key */
		p = ENVELOPE_NEXT(q, end);
		goto value;
	}
	if ((q = envelope_string(base, p + 1, end, known, &escaped,
	    &err)) == NULL)
		goto fail_at_err;
	slot = NULL;
	if (cur_ctx != ENVELOPE_CTX_NONE) {
		slot = envelope_member(env, cur_ctx, p + 1, q, escaped);
		if (slot != NULL && slot->type != ENVELOPE_ABSENT)
			goto fail;	/* a duplicate: p is at its key */
	}
	/* Compact JSON: the colon, then the value, right after the key. */
	if (end - q > 2 && q[1] == ':' && q[2] > ' ') {
		p = q + 2;
		goto value;
	}
	p = ENVELOPE_NEXT(q + 1, end);
	if (p == end || *p != ':')
		goto fail;
	p = ENVELOPE_NEXT(p + 1, end);
	goto value;

close:
	/* p is at the bracket closing the container at depth. */
	p++;
	if (depth < ENVELOPE_SLOT_DEPTHS && (open = open_slot[depth]) != NULL) {
		open->len = p - base - open->off;
		open->type = ENVELOPE_IS_OBJECT(objects, depth) ?
		    ENVELOPE_OBJECT : ENVELOPE_ARRAY;
	}
	if (--depth == 0)
		goto done;
	in_object = ENVELOPE_IS_OBJECT(objects, depth);
	cur_ctx = depth < ENVELOPE_CTX_DEPTHS ? ctx[depth] : ENVELOPE_CTX_NONE;
	/* FALLTHROUGH */

after_value:
	/* Compact JSON: a comma, then the next key, right after a value. */
	if (in_object && end - p > 1 && p[0] == ',' && p[1] == '"') {
		p++;
		goto member;
	}
	p = ENVELOPE_NEXT(p, end);
	if (p == end)
		goto fail;
	if (in_object) {
		if (*p == ',') {
			p = ENVELOPE_NEXT(p + 1, end);
			goto member;
		}
		if (*p == '}')
			goto close;
	} else {
		if (*p == ',') {
			slot = NULL;
			p = ENVELOPE_NEXT(p + 1, end);
			goto value;
		}
		if (*p == ']')
			goto close;
	}
	goto fail;

done:
	p = envelope_ws(p, end);
	if (p != end)
		goto fail;
	return (0);

fail_at_err:
	p = err;
fail:
	*error_off = p - base;
	return (-1);
}

int
envelope_scan(const char *line, size_t len, struct envelope *env,
    size_t *error_off)
{
	return (envelope_scan_known(line, len, NULL, env, error_off));
}

int
envelope_scan_plain(const char *line, size_t len,
    const struct envelope_span *known, struct envelope *env,
    size_t *error_off)
{
	if (known == NULL || known->len == 0 || known->off > len ||
	    known->len > len - known->off)
		return (envelope_scan_known(line, len, NULL, env, error_off));
	return (envelope_scan_known(line, len, known, env, error_off));
}

int
envelope_string_eq_text(const char *line, const struct envelope_value *v,
    const char *s)
{
	const unsigned char	*p, *end;
	unsigned char		 out[4];
	size_t			 slen, i = 0;
	int			 n;

	if (v->type != ENVELOPE_STRING || v->len < 2)
		return (0);
	p = (const unsigned char *)line + v->off + 1;
	end = (const unsigned char *)line + v->off + v->len - 1;
	/*
	 * One pass for the common case: the same bytes and no backslash
	 * among them is the same text.  It stops at the first difference
	 * or backslash.
	 */
	while (p + i < end && s[i] != '\0' && p[i] == (unsigned char)s[i] &&
	    p[i] != '\\')
		i++;
	if (p + i == end && s[i] == '\0')
		return (1);
	/* Without escapes the text is its own decoding: it differs. */
	if (p[i] != '\\' && (p + i == end ||
	    memchr(p + i, '\\', end - (p + i)) == NULL))
		return (0);
	slen = strlen(s);
	i = 0;
	while (p < end) {
		if ((n = envelope_decode(&p, end, out)) == -1)
			return (0);
		if ((size_t)n > slen - i || memcmp(s + i, out, n) != 0)
			return (0);
		i += n;
	}
	return (i == slen);
}

int
envelope_string_copy(const char *line, const struct envelope_value *v,
    char *buf, size_t size)
{
	const unsigned char	*p, *end;
	unsigned char		 out[4];
	size_t			 i = 0;
	int			 n;

	if (v->type != ENVELOPE_STRING || v->len < 2 || size == 0 ||
	    size - 1 > INT_MAX)
		return (-1);
	p = (const unsigned char *)line + v->off + 1;
	end = (const unsigned char *)line + v->off + v->len - 1;
	/* Without escapes the text is its own decoding: copied as is. */
	if ((size_t)(end - p) <= size - 1) {
		for (i = 0; p + i < end && p[i] != '\\' && p[i] != '\0'; i++)
			buf[i] = (char)p[i];
		if (p + i == end) {
			buf[i] = '\0';
			return ((int)i);
		}
		i = 0;
	}
	while (p < end) {
		if ((n = envelope_decode(&p, end, out)) == -1)
			return (-1);
		if ((size_t)n > size - 1 - i ||
		    memchr(out, '\0', n) != NULL)
			return (-1);
		memcpy(buf + i, out, n);
		i += n;
	}
	buf[i] = '\0';
	return ((int)i);
}

char *
envelope_string_dup(const char *line, const struct envelope_value *v,
    size_t max, size_t *len)
{
	char	*s;
	size_t	 size;
	int	 n;

	if (v->type != ENVELOPE_STRING || v->len < 2 || max == 0)
		return (NULL);
	/* Decoded, it is never longer than its text between the quotes. */
	size = v->len - 1 < max ? v->len - 1 : max;
	s = xmalloc(size);
	if ((n = envelope_string_copy(line, v, s, size)) < 0) {
		free(s);
		return (NULL);
	}
	if (len != NULL)
		*len = (size_t)n;
	return (s);
}

int
envelope_int64(const char *line, const struct envelope_value *v,
    int64_t *out)
{
	const unsigned char	*p, *end;
	uint64_t		 u = 0, limit = INT64_MAX;
	unsigned int		 digit;
	int			 negative = 0;

	if (v->type != ENVELOPE_NUMBER || v->len == 0)
		return (-1);
	p = (const unsigned char *)line + v->off;
	end = p + v->len;
	if (*p == '-') {
		negative = 1;
		limit = (uint64_t)INT64_MAX + 1;
		p++;
	}
	if (p == end)
		return (-1);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/*
	 * Up to eight digits at once when eight bytes of the line end with
	 * them: the bytes before the number are masked off, every digit is
	 * checked, then pairs, fours and the two halves are combined.
	 */
	if (end - p <= 8 && end - (const unsigned char *)line >= 8) {
		uint64_t	 x;

		memcpy(&x, end - 8, sizeof x);
		x = (x ^ 0x3030303030303030ULL) &
		    (~0ULL << (8 * (8 - (end - p))));
		/* A byte above 9 sets its high bit in one of the two. */
		if ((((x & 0x7f7f7f7f7f7f7f7fULL) + 0x7676767676767676ULL) |
		    x) & 0x8080808080808080ULL)
			return (-1);
		x = (x * 10 + (x >> 8)) & 0x00ff00ff00ff00ffULL;
		x = (x * 100 + (x >> 16)) & 0x0000ffff0000ffffULL;
		u = (x & 0xffffffffULL) * 10000 + (x >> 32);
		*out = negative ? -(int64_t)u : (int64_t)u;
		return (0);
	}
#endif
	/* 18 digits stay below 10^18, far from either limit: no checks. */
	if (end - p <= 18) {
		for (; p < end; p++) {
			if ((digit = *p - (unsigned int)'0') > 9)
				return (-1);
			u = u * 10 + digit;
		}
	} else {
		for (; p < end; p++) {
			if ((digit = *p - (unsigned int)'0') > 9 ||
			    u > (limit - digit) / 10)
				return (-1);
			u = u * 10 + digit;
		}
	}
	if (!negative)
		*out = (int64_t)u;
	else if (u == (uint64_t)INT64_MAX + 1)
		*out = INT64_MIN;
	else
		*out = -(int64_t)u;
	return (0);
}

size_t
envelope_print_int64(int64_t v, char *buf)
{
	static const char pairs[] =
	    "00010203040506070809101112131415161718192021222324"
	    "25262728293031323334353637383940414243444546474849"
	    "50515253545556575859606162636465666768697071727374"
	    "75767778798081828384858687888990919293949596979899";
	uint64_t	 u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	char		 tmp[ENVELOPE_INT64_BYTES];
	char		*q = tmp + sizeof tmp;
	size_t		 len;

	/*
	 * Two digits at a time from the last, into the end of tmp, then
	 * one copy: no pass to count the digits first.
	 */
	for (; u >= 100; u /= 100) {
		q -= 2;
		memcpy(q, pairs + 2 * (u % 100), 2);
	}
	if (u >= 10) {
		q -= 2;
		memcpy(q, pairs + 2 * u, 2);
	} else
		*--q = (char)('0' + u);
	if (v < 0)
		*--q = '-';
	len = tmp + sizeof tmp - q;
	memcpy(buf, q, len);
	buf[len] = '\0';
	return (len);
}

size_t
envelope_count_up(char *text, size_t len)
{
	size_t	 i;

	/* The trailing nines become zeros; the digit before them grows. */
	for (i = len; i > 0 && text[i - 1] == '9'; i--)
		text[i - 1] = '0';
	if (i > 0) {
		text[i - 1]++;
		return (len);
	}
	/* All nines: a one, then as many zeros. */
	text[0] = '1';
	text[len] = '0';
	text[len + 1] = '\0';
	return (len + 1);
}

size_t
envelope_splice(const char *line, size_t len,
    const struct envelope_edit *edits, size_t nedits, struct iovec *iov,
    size_t iovcnt)
{
	const struct envelope_edit	*e;
	size_t				 pos = 0, n = 0, i;

	/* One edit (an id): up to three pieces, with the same checks. */
	if (nedits == 1 && iovcnt >= 3) {
		e = edits;
		if (!envelope_edit_ok(len, e))
			return (0);
		if (e->off != 0) {
			iov[n].iov_base = (void *)(uintptr_t)line;
			iov[n++].iov_len = e->off;
		}
		if (e->text_len != 0) {
			iov[n].iov_base = (void *)(uintptr_t)e->text;
			iov[n++].iov_len = e->text_len;
		}
		if ((pos = e->off + e->len) != len) {
			iov[n].iov_base = (void *)(uintptr_t)(line + pos);
			iov[n++].iov_len = len - pos;
		}
		return (n);
	}

#define ENVELOPE_PIECE(base, size) do {					\
	if ((size) != 0) {						\
		if (n == iovcnt)					\
			return (0);					\
		iov[n].iov_base = (void *)(uintptr_t)(base);		\
		iov[n].iov_len = (size);				\
		n++;							\
	}								\
} while (0)

	for (i = 0; i < nedits; i++) {
		e = &edits[i];
		if (e->off < pos || e->off > len || e->len > len - e->off)
			return (0);
		if (e->text_len != 0 && e->text == NULL)
			return (0);
		ENVELOPE_PIECE(line + pos, e->off - pos);
		ENVELOPE_PIECE(e->text, e->text_len);
		pos = e->off + e->len;
	}
	ENVELOPE_PIECE(line + pos, len - pos);
#undef ENVELOPE_PIECE
	return (n);
}

/* p at a '"': past the closing one. */
const char *
envelope_skip_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return (p + 1);
	}
	return (end);
}

/* p at a value: past it. */
const char *
envelope_skip_value(const char *p, const char *end)
{
	size_t	 depth = 0;

	if (p < end && *p == '"')
		return (envelope_skip_string(p, end));
	if (p < end && *p != '{' && *p != '[') {
		while (p < end && strchr(",]} \t\r\n", *p) == NULL)
			p++;
		return (p);
	}
	while (p < end) {
		switch (*p) {
		case '"':
			p = envelope_skip_string(p, end);
			continue;
		case '{':
		case '[':
			depth++;
			break;
		case '}':
		case ']':
			if (--depth == 0)
				return (p + 1);
			break;
		}
		p++;
	}
	return (end);
}

char *
envelope_splice_dup(const char *line, size_t len,
    const struct envelope_edit *edits, size_t nedits, size_t *outlen)
{
	struct iovec	 iov[ENVELOPE_SPLICE_IOV(4)];
	size_t		 n;

	if ((n = envelope_splice(line, len, edits, nedits, iov,
	    sizeof iov / sizeof iov[0])) == 0)
		return (NULL);
	return (xiovdup(iov, (int)n, outlen));
}
