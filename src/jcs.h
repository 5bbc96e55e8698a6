/*
 * jcs.h -- a JSON value in its canonical form (RFC 8785, the JSON
 * Canonicalization Scheme) and the SHA-256 of it (pure).
 *
 * Object members are sorted by their names' UTF-16 code units; numbers
 * are written as ECMAScript writes them (the shortest text that reads
 * back as the same double, "1e+30", "0.002", "-0" as "0"); strings are
 * escaped as RFC 8785 says: '"' and '\' and the control characters
 * (\b \f \n \r \t, the others as \u00xx in lower case), every other
 * character as its UTF-8 bytes.  Members a cJSON object repeats are kept
 * in their order (a stable sort), so that the text still tells them
 * apart.
 *
 * The value is untrusted (a server's tool definition): nesting deeper
 * than JCS_MAX_DEPTH, a number that is not finite, a raw value and a
 * text over the caller's bound are refused.
 */
#ifndef MCPD_JCS_H
#define MCPD_JCS_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define JCS_MAX_DEPTH		128
#define JCS_SHA256_BYTES	32
#define JCS_HEX_BYTES		(JCS_SHA256_BYTES * 2 + 1)

/*
 * The canonical text of v (malloc'd, NUL-ended, *len bytes if len is not
 * NULL), or NULL with *cause (a constant string) when it has none or it
 * would be longer than max_bytes.  With pretty, the same members in the
 * same order, one per line, indented by two spaces per level (for
 * people: the text a diff is made of; it is not hashed).
 */
char	*jcs_text(const cJSON *v, size_t max_bytes, int pretty, size_t *len,
	    const char **cause);
/* The ECMAScript text of a finite double into buf (at least 32 bytes). */
void	 jcs_number(double d, char *buf, size_t size);
/* SHA-256 of bytes, as 64 lower-case hex digits and a NUL. */
void	 jcs_sha256_hex(const void *p, size_t len, char hex[JCS_HEX_BYTES]);

#endif /* MCPD_JCS_H */
