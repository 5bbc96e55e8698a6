/*
 * toml.h -- TOML 1.0 read without losing track of where each part of the
 * text is (pure), for the apps that keep their settings in it (Codex's
 * config.toml).
 *
 * toml_parse gives the document as a cJSON tree (tables and inline
 * tables as objects, in the order of the text; integers and floats as
 * numbers; dates and times as strings, as written) and its statements:
 * each table header and each key/value pair, with its absolute path of
 * keys and the whole lines it takes.  A TOML statement always ends its
 * line, so a caller can remove or replace statements and keep every
 * other byte, comments included.
 *
 * What TOML 1.0 allows is read, and nothing else: comments, bare and
 * quoted keys, dotted keys, [table] and [[array of tables]] headers,
 * basic and literal strings (one line or several) with their escapes,
 * integers (decimal, hexadecimal, octal, binary), floats, booleans, the
 * four kinds of dates and times, arrays and inline tables.  A table or
 * key defined twice, a table extended where TOML forbids it, text that
 * is not UTF-8, a NUL byte or another control character are refused,
 * with "line L, column C: what" (1-based, columns in bytes); messages
 * never quote the text.  So is a string holding "\u0000" (C strings
 * would end there), and a document past the bounds below.
 */
#ifndef MCPD_TOML_H
#define MCPD_TOML_H

#include <stddef.h>

#include <cjson/cJSON.h>

#define TOML_MAX_DEPTH		32	/* arrays and inline tables, nested */
#define TOML_MAX_VALUES		100000	/* tables, arrays and values */
#define TOML_MAX_KEY_PARTS	64	/* a.b.c... in one key or header */

enum toml_stmt_kind {
	TOML_STMT_TABLE,	/* [a.b] */
	TOML_STMT_ARRAY_TABLE,	/* [[a.b]] */
	TOML_STMT_KEYVAL,	/* c.d = value */
};

struct toml_stmt {
	enum toml_stmt_kind	 kind;
	char			**path;		/* keys from the top level */
	size_t			 npath;
	size_t			 nkey;		/* KEYVAL: its own key's part */
	int			 in_array;	/* under a [[...]] header */
	size_t			 start;		/* its first line's first byte */
	size_t			 key_start;	/* its '[' or its key's first */
	size_t			 end;		/* past its last line's end */
	size_t			 line;		/* of key_start, 1-based */
	const cJSON		*value;		/* KEYVAL: in the tree */
};

struct toml_doc {
	cJSON			*root;
	struct toml_stmt	*stmts;		/* in the order of the text */
	size_t			 nstmts;
};

/* 0 with *doc filled, or -1 with *cause set and *doc empty. */
int	 toml_parse(const char *text, size_t len, struct toml_doc *doc,
	    char **cause);
void	 toml_doc_free(struct toml_doc *);

/* 1 if the len bytes at s are UTF-8, else 0 with *bad the offending one. */
int	 toml_utf8(const char *s, size_t len, size_t *bad);
/*
 * s as a TOML basic string, quotes included (malloc'd): '"', '\\' and
 * control characters escaped.  s must be UTF-8 (toml_utf8).
 */
char	*toml_quote(const char *s);
/* A key as written in a statement: bare if it can be, else quoted. */
char	*toml_key(const char *s);

#endif /* MCPD_TOML_H */
