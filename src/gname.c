/*
 * gname.c -- the names a group gives its members' tools and prompts (see
 * gname.h).  The hash is 64-bit FNV-1a over the member, a NUL and the
 * name, folded to 32 bits: stable, and spread enough that two names of one
 * group colliding is a matter of chance (the group then keeps the first
 * and logs the other).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gname.h"
#include "util.h"
#include "xmalloc.h"

#define GNAME_HASH_CHARS	9	/* '-' and 8 hex digits */

/* The characters of a name before '.' was allowed. */
static int
gname_char_ok_nodot(unsigned char c)
{
	return ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '-');
}

/* MCP 2025-11-25's. */
static int
gname_char_ok(unsigned char c)
{
	return (gname_char_ok_nodot(c) || c == '.');
}

int
gname_valid(const char *s)
{
	size_t	 i;

	for (i = 0; s[i] != '\0'; i++)
		if (i == GNAME_MAX || !gname_char_ok((unsigned char)s[i]))
			return (0);
	return (i > 0);
}

static uint32_t
gname_hash(const char *member, const char *name)
{
	uint64_t	 h = 0xcbf29ce484222325ULL;
	const char	*p;

	for (p = member; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	h = (h ^ 0) * 0x100000001b3ULL;
	for (p = name; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	return ((uint32_t)(h ^ (h >> 32)));
}

static int
gname_build(const char *member, const char *sep, const char *name,
    int (*char_ok)(unsigned char), char out[GNAME_MAX + 1])
{
	const char	*parts[3], *p;
	size_t		 n = 0, i;
	int		 plain = 1;

	parts[0] = member;
	parts[1] = sep;
	parts[2] = name;
	for (i = 0; i < nitems(parts); i++) {
		for (p = parts[i]; *p != '\0'; p++) {
			if (!char_ok((unsigned char)*p))
				plain = 0;
			if (n == GNAME_MAX) {
				plain = 0;
				break;
			}
			out[n++] = char_ok((unsigned char)*p) ? *p : '_';
		}
	}
	out[n] = '\0';
	if (plain && n > 0)
		return (1);
	if (n > GNAME_MAX - GNAME_HASH_CHARS)
		n = GNAME_MAX - GNAME_HASH_CHARS;
	snprintf(out + n, GNAME_HASH_CHARS + 1, "-%08x",
	    (unsigned int)gname_hash(member, name));
	return (0);
}

int
gname_make(const char *member, const char *sep, const char *name,
    char out[GNAME_MAX + 1])
{
	return (gname_build(member, sep, name, gname_char_ok, out));
}

int
gname_split(const char *name, const char *member, const char *sep,
    const char **rest)
{
	size_t	 mlen = strlen(member), slen = strlen(sep);

	if (strncmp(name, member, mlen) != 0 ||
	    strncmp(name + mlen, sep, slen) != 0 ||
	    name[mlen + slen] == '\0')
		return (0);
	*rest = name + mlen + slen;
	return (1);
}

int
gname_plain_split(const char *name, const char *member, const char *sep,
    const char **rest)
{
	/* Within the rules, MEMBER SEP REST is what gname_make gives back. */
	return (gname_valid(name) && gname_split(name, member, sep, rest));
}

static void
gname_spelling_add(struct gname_spellings *sp, const char *s)
{
	size_t	 i;

	for (i = 0; i < sp->n; i++)
		if (strcmp(sp->v[i], s) == 0)
			return;
	sp->v[sp->n++] = s;
}

void
gname_spellings(struct gname_spellings *sp, const char *member,
    const char *sep, const char *name)
{
	size_t	 mlen = strlen(member), slen = strlen(sep), nlen = strlen(name);

	sp->n = 0;
	gname_make(member, sep, name, sp->listed);
	gname_build(member, sep, name, gname_char_ok_nodot, sp->nodot);
	sp->qualified = xmalloc(mlen + slen + nlen + 1);
	memcpy(sp->qualified, member, mlen);
	memcpy(sp->qualified + mlen, sep, slen);
	memcpy(sp->qualified + mlen + slen, name, nlen + 1);
	gname_spelling_add(sp, sp->listed);
	gname_spelling_add(sp, name);
	gname_spelling_add(sp, sp->qualified);
	gname_spelling_add(sp, sp->nodot);
}

void
gname_spellings_free(struct gname_spellings *sp)
{
	free(sp->qualified);
	sp->qualified = NULL;
	sp->n = 0;
}
