/*
 * jsonc.h -- JSON with comments and trailing commas, as editors write
 * their settings (VS Code's "JSONC"), read without losing track of where
 * each part of the text is (pure).
 *
 * jsonc_clean turns the text into strict JSON of the same length: every
 * byte of a comment ("//" to the end of the line, or from "/ *" to "* /")
 * and every trailing comma (one followed, past white space and
 * comments, by '}' or ']') becomes a space; line ends inside comments
 * stay.  So an offset in the clean text is the same offset in the
 * original, and a span found in one (jsonc_find) can be replaced in the
 * other without touching a byte around it.
 *
 * Refused, with "line L, column C: what" (1-based, columns in bytes): a
 * NUL byte; a control character outside a comment, other than space,
 * tab, CR and LF between values; "\u0000" in a string (C strings would
 * end there); an unterminated string or block comment; text that is not
 * one JSON value after cleaning.  Messages never quote the text.
 */
#ifndef MCPD_JSONC_H
#define MCPD_JSONC_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* The clean text (len bytes and a NUL), or NULL with *cause set. */
char	*jsonc_clean(const char *text, size_t len, char **cause);
/* Clean, then parse: the value, or NULL with *cause set. */
cJSON	*jsonc_parse(const char *text, size_t len, char **cause);

/* "line L, column C" of an offset in text. */
void	 jsonc_position(const char *text, size_t len, size_t offset,
	    size_t *line, size_t *column);

/*
 * Where a value is in clean text that jsonc_parse accepted: the bytes
 * [start, end) of the value, and key_start, the offset of the '"' that
 * opens its member's key (0 for the top level).
 */
struct jsonc_span {
	size_t	start;
	size_t	end;
	size_t	key_start;
};

/*
 * Follow path (npath object keys, from the top level) through clean
 * text: 1 with *span set if the value exists, 0 if a key is missing or a
 * value on the way is not an object.  The first of repeated keys is
 * taken.  The text must be one valid JSON value (from jsonc_clean and
 * accepted by cJSON).
 */
int	 jsonc_find(const char *clean, size_t len, const char *const *path,
	    size_t npath, struct jsonc_span *span);

/*
 * The last member of the object at [start, end) of clean text: 1 with
 * *span set, 0 if the object is empty.
 */
int	 jsonc_last_member(const char *clean, size_t start, size_t end,
	    struct jsonc_span *span);

/*
 * The member key of the object at [start, end) of clean text, with what
 * surrounds it: 1 with *m set, 0 if the object has no such member (the
 * first of repeated keys is taken).  prev_end is where the previous
 * member's value ends and next_key where the next member's key starts,
 * SIZE_MAX for none.
 */
struct jsonc_member {
	struct jsonc_span	span;
	size_t			prev_end;
	size_t			next_key;
};

int	 jsonc_member(const char *clean, size_t start, size_t end,
	    const char *key, struct jsonc_member *m);

#endif /* MCPD_JSONC_H */
