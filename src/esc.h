/*
 * esc.h -- make text from outside (server stderr, server names, error
 * messages) safe for a terminal, a log line or a JSON string (pure).
 *
 * Input is a byte string with a length: it may hold NULs and bytes that
 * are not UTF-8.  Ill-formed UTF-8 is taken one maximal subpart at a time
 * (Unicode 15, 3.9: an incomplete but so far valid sequence is one unit,
 * any other bad byte is a unit of its own).
 */
#ifndef MCPD_ESC_H
#define MCPD_ESC_H

#include <stddef.h>

/* esc_text flags. */
#define ESC_KEEP_TAB	0x1	/* leave tabs as they are */
#define ESC_KEEP_NEWLINE 0x2	/* leave newlines (text of many lines) */

/*
 * Printable text, as systemctl and journalctl show it: valid UTF-8 other
 * than control characters is kept; newline, carriage return and tab become
 * "\n", "\r" and "\t", every other byte of a C0 control, DEL, a C1 control
 * (U+0080 to U+009F) or ill-formed UTF-8 becomes "\xNN".  A backslash is
 * kept, so escaping twice changes nothing more.  The flags keep tabs or
 * newlines for text that has columns or lines.  Returns a new string.
 */
char	*esc_text(const char *, size_t len, int flags);

/*
 * esc_text kept within max bytes (at least 4): when the escaped text
 * would be longer it ends, before the first unit that would not fit,
 * with "...".  A unit's escape is never split.
 */
char	*esc_text_max(const char *, size_t len, int flags, size_t max);

/*
 * Secrets taken out of text before it is shown (a server's stderr line
 * in mcpctl status, its journal entry).  Every occurrence of one of the
 * secrets (a NULL-ended array) becomes ESC_REDACTED, the longest secret
 * first where two start at the same byte.  With cut (text is the start of
 * a longer line), an end of text that begins a secret is redacted too.
 * A secret shorter than ESC_REDACT_MIN_BYTES is not looked for: it would
 * hide ordinary words and protects nothing.  Bytes in, bytes out: a new
 * buffer of *outlen bytes (NUL-ended), to be escaped before it is shown.
 */
#define ESC_REDACTED		"[redacted]"
#define ESC_REDACT_MIN_BYTES	4
char	*esc_redact(const char *, size_t len, const char *const *secrets,
	    int cut, size_t *outlen);

/*
 * A JSON string literal, quotes included, that is always valid UTF-8:
 * '"' and '\' are escaped, control characters (C0, DEL, C1) become \b, \f,
 * \n, \r, \t or \u00XX, and every ill-formed unit and every NUL becomes
 * U+FFFD, so a reader that keeps strings NUL-terminated (cJSON) sees all
 * of the text.  Returns a new string.
 */
char	*esc_json_string(const char *, size_t len);

/*
 * The length of the longest prefix of text (len bytes) of at most max
 * bytes that does not end inside a UTF-8 sequence: where to cut a quote.
 */
size_t	 esc_cut(const char *text, size_t len, size_t max);

#endif /* MCPD_ESC_H */
