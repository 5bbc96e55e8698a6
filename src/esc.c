/*
 * esc.c -- escaping for terminals, log lines and JSON strings.
 *
 * Both escapers walk the input one unit at a time: a well-formed UTF-8
 * sequence, or the maximal subpart of an ill-formed one.  Nothing outside
 * the given length is read, and a NUL is a byte like any other.
 */
#include "config.h"

#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "esc.h"
#include "sbuf.h"

#define ESC_REPLACEMENT		"\xef\xbf\xbd"	/* U+FFFD in UTF-8 */

static void
esc_add_hex(struct sbuf *b, const char *prefix, unsigned char c)
{
	static const char	 hex[] = "0123456789abcdef";
	char			 out[2];

	sbuf_adds(b, prefix);
	out[0] = hex[c >> 4];
	out[1] = hex[c & 0xf];
	sbuf_add(b, out, 2);
}

/*
 * The unit at s: returns its code point, or -1 if it is ill-formed, and
 * sets *n to its length in bytes (at least 1).
 */
static int32_t
esc_utf8_unit(const unsigned char *s, size_t len, size_t *n)
{
	unsigned char	 lo = 0x80, hi = 0xbf;
	size_t		 want, i;
	int32_t		 cp;

	*n = 1;
	if (s[0] < 0x80)
		return (s[0]);
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		want = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		want = 3;
		cp = s[0] & 0x0f;
		if (s[0] == 0xe0)
			lo = 0xa0;		/* overlong */
		else if (s[0] == 0xed)
			hi = 0x9f;		/* surrogates */
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		want = 4;
		cp = s[0] & 0x07;
		if (s[0] == 0xf0)
			lo = 0x90;		/* overlong */
		else if (s[0] == 0xf4)
			hi = 0x8f;		/* above U+10FFFF */
	} else
		return (-1);	/* continuation, C0/C1 overlong, F5 to FF */

	for (i = 1; i < want; i++) {
		if (i >= len || s[i] < lo || s[i] > hi)
			return (-1);	/* *n: the valid prefix */
		cp = (cp << 6) | (s[i] & 0x3f);
		lo = 0x80;
		hi = 0xbf;
		*n = i + 1;
	}
	return (cp);
}

static int
esc_is_control(int32_t cp)
{
	return (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f));
}

/* The length of a unit's escape in esc_text. */
static size_t
esc_text_unit_len(int32_t cp, size_t n, int flags)
{
	if ((cp == '\t' && (flags & ESC_KEEP_TAB)) ||
	    (cp == '\n' && (flags & ESC_KEEP_NEWLINE)))
		return (1);
	if (cp == '\t' || cp == '\n' || cp == '\r')
		return (2);
	if (cp == -1 || esc_is_control(cp))
		return (4 * n);
	return (n);
}

/*
 * esc_text of at most max bytes: when a unit would not fit, the text goes
 * back to the longest run of whole units that leaves room for "...".
 */
static char *
esc_text_bounded(const char *text, size_t len, int flags, size_t max)
{
	const unsigned char	*s = (const unsigned char *)text;
	struct sbuf		 b;
	size_t			 off, n, i, keep = 0;
	int32_t			 cp;

	sbuf_init(&b, (len < max ? len : max) + len / 8 + 16);
	for (off = 0; off < len; off += n) {
		cp = esc_utf8_unit(s + off, len - off, &n);
		if (esc_text_unit_len(cp, n, flags) > max - b.len) {
			b.len = keep;
			sbuf_add(&b, "...", 3);
			break;
		}
		if (cp == '\t' && (flags & ESC_KEEP_TAB))
			sbuf_add(&b, "\t", 1);
		else if (cp == '\t')
			sbuf_add(&b, "\\t", 2);
		else if (cp == '\n' && (flags & ESC_KEEP_NEWLINE))
			sbuf_add(&b, "\n", 1);
		else if (cp == '\n')
			sbuf_add(&b, "\\n", 2);
		else if (cp == '\r')
			sbuf_add(&b, "\\r", 2);
		else if (cp == -1 || esc_is_control(cp)) {
			for (i = 0; i < n; i++)
				esc_add_hex(&b, "\\x", s[off + i]);
		} else
			sbuf_add(&b, text + off, n);
		if (b.len <= max - 3)
			keep = b.len;
	}
	return (b.p);
}

char *
esc_text(const char *text, size_t len, int flags)
{
	return (esc_text_bounded(text, len, flags, SIZE_MAX));
}

char *
esc_text_max(const char *text, size_t len, int flags, size_t max)
{
	return (esc_text_bounded(text, len, flags, max < 4 ? 4 : max));
}

/* The longest secret that starts at text (or, cut, that text's end begins). */
static size_t
esc_secret_at(const char *text, size_t len, const char *const *secrets,
    int cut)
{
	size_t	 i, n, best = 0;

	for (i = 0; secrets[i] != NULL; i++) {
		n = strlen(secrets[i]);
		if (n < ESC_REDACT_MIN_BYTES)
			continue;
		if (n <= len && memcmp(text, secrets[i], n) == 0) {
			if (n > best)
				best = n;
		} else if (cut && n > len && memcmp(text, secrets[i],
		    len) == 0)
			best = len;
	}
	return (best);
}

char *
esc_redact(const char *text, size_t len, const char *const *secrets,
    int cut, size_t *outlen)
{
	struct sbuf	 b;
	size_t		 off, n, plain = 0;

	sbuf_init(&b, len + 16);
	for (off = 0; off < len; off++) {
		if ((n = esc_secret_at(text + off, len - off, secrets,
		    cut)) == 0)
			continue;
		sbuf_add(&b, text + plain, off - plain);
		sbuf_adds(&b, ESC_REDACTED);
		off += n - 1;
		plain = off + 1;
	}
	sbuf_add(&b, text + plain, len - plain);
	*outlen = b.len;
	return (b.p);
}

char *
esc_json_string(const char *text, size_t len)
{
	const unsigned char	*s = (const unsigned char *)text;
	struct sbuf		 b;
	size_t			 off, n;
	int32_t			 cp;

	sbuf_init(&b, len + len / 8 + 16);
	sbuf_add(&b, "\"", 1);
	for (off = 0; off < len; off += n) {
		cp = esc_utf8_unit(s + off, len - off, &n);
		switch (cp) {
		case -1:
		case 0:
			sbuf_add(&b, ESC_REPLACEMENT, 3);
			break;
		case '"':
			sbuf_add(&b, "\\\"", 2);
			break;
		case '\\':
			sbuf_add(&b, "\\\\", 2);
			break;
		case '\b':
			sbuf_add(&b, "\\b", 2);
			break;
		case '\f':
			sbuf_add(&b, "\\f", 2);
			break;
		case '\n':
			sbuf_add(&b, "\\n", 2);
			break;
		case '\r':
			sbuf_add(&b, "\\r", 2);
			break;
		case '\t':
			sbuf_add(&b, "\\t", 2);
			break;
		default:
			if (esc_is_control(cp))
				esc_add_hex(&b, "\\u00", (unsigned char)cp);
			else
				sbuf_add(&b, text + off, n);
			break;
		}
	}
	sbuf_add(&b, "\"", 1);
	return (b.p);
}

size_t
esc_cut(const char *text, size_t len, size_t max)
{
	if (len <= max)
		return (len);
	while (max > 0 && ((unsigned char)text[max] & 0xc0) == 0x80)
		max--;
	return (max);
}
