/*
 * uritmpl.h -- whether a URI is one a URI template (RFC 6570) could
 * expand to, read as a pattern (pure): so that mcpd can tell which
 * resources/read a held resource template would serve.
 *
 * Literal text matches itself, byte for byte.  An expression {var}
 * (level 1) matches any run of bytes, the empty one too, without '/',
 * '?' or '#' (its expansion escapes them); one with an operator ({+var},
 * {#var}, {/var}, {.var}, {;var}, {?var}, {&var}, levels 2 to 4) matches
 * any run at all.  That is looser than expansion (a value percent-
 * encodes more than those three), so a URI the template's server may
 * take as the template's is never missed.
 *
 * Promises: bounded work, counted in *work (bytes of the URI stepped
 * over, per piece of the template); past URITMPL_MAX_WORK, or with more
 * than URITMPL_MAX_PIECES pieces, or an unclosed '{', the answer is -1:
 * cannot tell, which a caller holding the template treats as a match.
 */
#ifndef MCPD_URITMPL_H
#define MCPD_URITMPL_H

#include <stddef.h>

#define URITMPL_MAX_PIECES	128
#define URITMPL_MAX_WORK	((size_t)8 * 1024 * 1024)

/* 1: uri matches tmpl; 0: it does not; -1: cannot tell (see above). */
int	 uritmpl_match(const char *tmpl, const char *uri, size_t len,
	    size_t *work);

#endif /* MCPD_URITMPL_H */
