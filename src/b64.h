/*
 * b64.h -- base64 (RFC 4648 section 4) and base64url without padding
 * (section 5, as JWTs use it), and application/x-www-form-urlencoded
 * escaping (pure).
 */
#ifndef MCPD_B64_H
#define MCPD_B64_H

#include <stddef.h>

/* NUL-ended, malloc'd. */
char	*b64_encode(const void *, size_t len);
char	*b64url_encode(const void *, size_t len);
/*
 * Decode base64 or base64url (no padding, or padding); NULL if invalid.
 * The result is NUL-ended beyond *out_len, malloc'd.
 */
void	*b64_decode(const char *, size_t len, size_t *out_len);
void	*b64url_decode(const char *, size_t len, size_t *out_len);
/* Form-urlencode (unreserved characters kept, space as "+"). */
char	*b64_form_escape(const char *);

#endif /* MCPD_B64_H */
