/*
 * urinorm.h -- a resource URI in the one spelling that filters compare
 * (pure: no I/O, no allocation).
 *
 * A filter that names URIs is only as good as the spelling it sees: the
 * server reads "file:///tmp/../etc/shadow", "file:///%65tc/shadow",
 * "FILE:///etc/shadow" and "file://localhost/etc/shadow" as the same file,
 * so a pattern must see them as the same name.  urinorm writes a URI in
 * its normal form (RFC 3986, section 6.2.2, and the scheme-based rules of
 * 6.2.3 that URL parsers apply):
 *
 * - the scheme and the host in lower case, percent-encodings of
 *   unreserved characters (ALPHA DIGIT - . _ ~) decoded and the others
 *   written with upper-case hex digits, dot segments removed from a path
 *   that begins with '/' (remove_dot_segments, RFC 3986 5.2.4), an empty
 *   port dropped;
 * - for http, https, ws, wss and ftp also the default port dropped and an
 *   empty path written "/";
 * - for file, the path as the kernel reads it, after "file://":
 *   percent-decoded, with '.' and '..' resolved and "//" read as "/";
 *   only '%', '?', '#', control characters and a space that ends it stay
 *   encoded (%25, %3F, %23, %0A, %20), so that the normal form reads back
 *   as itself.  "file:/PATH" and "file://localhost/PATH" are
 *   "file:///PATH".
 *
 * What a server could read as another name than the normal form says is
 * refused with the reason (a constant string), never guessed at: no
 * scheme; a control character (URL parsers drop tabs and newlines); a
 * trailing space (they drop it); a '%' not followed by two hex digits;
 * two '@', a space or a port that is not a number in an authority; a
 * path that begins with "//" once its dot segments are removed, without
 * an authority (it would read as one); a backslash in an http, https,
 * ws, wss, ftp or file URI (they read it as '/'); an http, https, ws, wss
 * or ftp URI without "//" and a host (they read "https:h/x" as
 * "https://h/x"); and in a file URI a host other than localhost, a query
 * or a fragment (servers differ on whether it is part of the path), a
 * relative or empty path, and an encoded '/', NUL or backslash.
 *
 * Normalising a normal form gives it back unchanged, and the normal form
 * is at most URINORM_GROWTH_BYTES longer than the URI.
 */
#ifndef MCPD_URINORM_H
#define MCPD_URINORM_H

#include <stddef.h>
#include <sys/types.h>

/* The most a URI grows: "file:/p" is "file:///p". */
#define URINORM_GROWTH_BYTES	2

/*
 * Write uri's normal form, NUL-terminated, into out, which has room for
 * strlen(uri) + URINORM_GROWTH_BYTES + 1 bytes (out may not be uri).
 * Returns its length, or -1 with *why set.
 */
ssize_t		 urinorm(const char *uri, char *out, const char **why);

/*
 * Why a filter pattern for resources could never match a URI in normal
 * form (a constant string), or NULL.  A pattern without glob characters
 * must be its own normal form.  Otherwise what it writes before its
 * first glob character is looked at: an upper-case scheme or host, a dot
 * segment, "file://localhost/" or "file:/" instead of "file:///", "//"
 * in a file path, a default port; and its percent-encodings anywhere: of
 * an unreserved character or in lower-case hex, or in a file pattern
 * one that the path does not keep (file paths are compared decoded).
 */
const char	*urinorm_pattern_error(const char *pattern);

#endif /* MCPD_URINORM_H */
