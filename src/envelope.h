/*
 * envelope.h -- find the JSON-RPC envelope of a message without parsing it.
 *
 * envelope_scan checks in one pass that a line is exactly one JSON object
 * (strict RFC 8259) and records where the few members the router needs lie:
 * their JSON type and the byte span of their raw text.  envelope_splice then
 * replaces some spans (a new id, a new progress token) by describing the
 * output as pieces to write, so a large payload is never copied or
 * reprinted.  Both are pure: no allocation, no I/O (envelope_string_dup
 * is the one function here that allocates).
 *
 * Invariants the router can rely on after a successful scan:
 * - Only the levels named below are recorded; members of the same names
 *   deeper in the message are validated and skipped.
 * - No recorded member occurs twice at its level (such a message is
 *   refused, since parsers disagree on which duplicate wins).
 * - Keys are matched after decoding escapes ("\u0069d" is "id").
 * - A STRING span includes its quotes; an OBJECT or ARRAY span runs from
 *   its opening to its closing bracket.
 * - Escaped lone surrogates ("\ud800") are valid JSON syntax and accepted;
 *   raw bytes must be valid UTF-8 (no overlongs, no encoded surrogates,
 *   nothing above U+10FFFF).
 */
#ifndef MCPD_ENVELOPE_H
#define MCPD_ENVELOPE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* Open objects and arrays, counting the top-level object. */
#define ENVELOPE_MAX_DEPTH	512

enum envelope_type {
	ENVELOPE_ABSENT = 0,
	ENVELOPE_STRING,
	ENVELOPE_NUMBER,
	ENVELOPE_NULL,
	ENVELOPE_TRUE,
	ENVELOPE_FALSE,
	ENVELOPE_OBJECT,
	ENVELOPE_ARRAY,
};

/*
 * A member's value: its type and raw JSON text, line[off, off + len).
 * plain is set by envelope_scan on a STRING without any escape, whose
 * text between the quotes is then its value as is (it holds no NUL);
 * 0 says nothing (a value built by hand may leave it so).
 */
struct envelope_value {
	enum envelope_type	 type;
	int			 plain;
	size_t			 off;
	size_t			 len;
};

struct envelope {
	/* Members of the top-level object. */
	struct envelope_value	 jsonrpc;
	struct envelope_value	 id;
	struct envelope_value	 method;
	struct envelope_value	 params;
	struct envelope_value	 result;
	struct envelope_value	 error;
	/*
	 * Members of params and of params._meta, when these are objects.
	 * All are recorded whatever the method; the router picks.
	 */
	struct envelope_value	 meta;		/* params._meta */
	/* params._meta.progressToken: set by a requester */
	struct envelope_value	 progress_token;
	/* params.progressToken: notifications/progress */
	struct envelope_value	 p_progress_token;
	/* params.requestId: notifications/cancelled */
	struct envelope_value	 p_request_id;
	/* params.uri: resources/read, subscribe, unsubscribe, updated */
	struct envelope_value	 p_uri;
	/* params.name: tools/call, prompts/get */
	struct envelope_value	 p_name;
	/* params.level: logging/setLevel, notifications/message */
	struct envelope_value	 p_level;
	/* error.code, when error is an object (for telemetry) */
	struct envelope_value	 e_code;
};

/*
 * Returns 0 when line[0, len) is one valid JSON object with only
 * whitespace around it, -1 otherwise with *error_off set to the offending
 * byte (len when the input ends too early; the second key of a duplicate).
 * On failure *env keeps the members whose value ended before the error.
 */
int	envelope_scan(const char *line, size_t len, struct envelope *env,
	    size_t *error_off);

/*
 * Bytes that may stand in a JSON string as they are: none of '"', '\\',
 * control characters and bytes >= 0x80.  A span of them, by offset.
 */
struct envelope_span {
	size_t	 off;
	size_t	 len;
};

/*
 * The same as envelope_scan, for a line where known (inside the line,
 * else ignored) holds only plain bytes, which the scanner then does not
 * read again inside a string: a reader that saw them while they were
 * still in the cache spares a second pass over a large message.
 */
int	envelope_scan_plain(const char *line, size_t len,
	    const struct envelope_span *known, struct envelope *env,
	    size_t *error_off);

/* How many bytes at the start, or at the end, of text are plain. */
size_t	envelope_plain_prefix(const char *text, size_t len);
size_t	envelope_plain_suffix(const char *text, size_t len);

/*
 * Whether a STRING value, with escapes decoded, equals s.  False for any
 * other type and for strings holding lone surrogates.
 */
int	envelope_string_eq_text(const char *line,
	    const struct envelope_value *v, const char *s);

/*
 * The same; when s is a constant without a backslash (a method name,
 * "2.0"), a value with the same bytes is equal without a call: its length
 * and bytes are compared in a load or two.  Anything else is decided by
 * envelope_string_eq_text.
 */
static inline int
envelope_string_eq(const char *line, const struct envelope_value *v,
    const char *s)
{
#if defined(__GNUC__) && defined(__OPTIMIZE__)
	if (__builtin_constant_p(__builtin_strlen(s)) &&
	    __builtin_constant_p(__builtin_strchr(s, '\\') == NULL) &&
	    __builtin_strchr(s, '\\') == NULL &&
	    v->type == ENVELOPE_STRING && v->len == __builtin_strlen(s) + 2 &&
	    __builtin_memcmp(line + v->off + 1, s, __builtin_strlen(s)) == 0)
		return (1);
#endif
	return (envelope_string_eq_text(line, v, s));
}

/*
 * Decode a STRING value into buf as a NUL-terminated UTF-8 string.
 * Returns its length, or -1 if the value is not a string, does not fit in
 * size bytes, or holds "\u0000" or a lone surrogate (neither survives as
 * a C string).
 */
int	envelope_string_copy(const char *line, const struct envelope_value *v,
	    char *buf, size_t size);

/*
 * The same into a new string of at most max - 1 bytes, allocated no
 * larger than the value's text needs: NULL where envelope_string_copy
 * fails, else the string, its length in *len (if len is not NULL).
 */
char	*envelope_string_dup(const char *line, const struct envelope_value *v,
	    size_t max, size_t *len);

/*
 * Read a NUMBER value written as an integer (no fraction, no exponent)
 * in int64_t range.  Returns 0, or -1 with *out untouched.
 */
int	envelope_int64(const char *line, const struct envelope_value *v,
	    int64_t *out);

/* Room for any int64_t in decimal, with its sign and the NUL. */
#define ENVELOPE_INT64_BYTES	21

/*
 * Write v in decimal as JSON writes it, NUL-terminated, into buf (at least
 * ENVELOPE_INT64_BYTES); returns its length.  No printf: it is called for
 * every forwarded message.
 */
size_t	envelope_print_int64(int64_t v, char *buf);

/*
 * In text that is valid JSON, with p at the start of a value (or of a
 * string's opening quote): past that value's end, never past end.
 */
const char *envelope_skip_value(const char *p, const char *end);
const char *envelope_skip_string(const char *p, const char *end);

/*
 * Count up in place: text[0, len) is a positive integer as
 * envelope_print_int64 writes it (not INT64_MAX); it becomes the next one
 * (NUL-terminated when it grows by a digit).  Returns its length.  A
 * sender numbering its messages keeps the last id's text this way
 * instead of printing every id anew.
 */
size_t	envelope_count_up(char *text, size_t len);

/* Replace line[off, off + len) with text[0, text_len). */
struct envelope_edit {
	size_t		 off;
	size_t		 len;
	const char	*text;
	size_t		 text_len;
};

/* Whether one edit keeps envelope_splice's rules for a line of len bytes. */
static inline int
envelope_edit_ok(size_t len, const struct envelope_edit *e)
{
	return (e->off <= len && e->len <= len - e->off &&
	    (e->text_len == 0 || e->text != NULL));
}

/*
 * The same as one new NUL-terminated text (malloc'd, its length in
 * *outlen), for at most 4 edits; NULL where envelope_splice fails.
 */
char	*envelope_splice_dup(const char *line, size_t len,
	    const struct envelope_edit *edits, size_t nedits, size_t *outlen);

/* Pieces envelope_splice may need for n edits. */
#define ENVELOPE_SPLICE_IOV(n)	(2 * (n) + 1)

/*
 * Describe line[0, len) with the edits applied as pieces pointing into
 * line and into the edit texts; empty pieces are left out.  Edits must be
 * sorted by offset, must not overlap and must lie inside the line.
 * Returns the number of pieces used, or 0 if the edits break these rules
 * or need more than iovcnt pieces (or the result is empty).
 */
size_t	envelope_splice(const char *line, size_t len,
	    const struct envelope_edit *edits, size_t nedits, struct iovec *iov,
	    size_t iovcnt);

#endif /* MCPD_ENVELOPE_H */
