/*
 * toml.c -- TOML 1.0, read into a cJSON tree and a list of statements
 * with their places in the text (see toml.h).
 *
 * One pass, by recursive descent over the text, bounded by
 * TOML_MAX_DEPTH (nesting) and TOML_MAX_VALUES.  Each table and key met
 * so far is a node in a hash map keyed by its parent and its name, so a
 * lookup costs its key's length however many keys a table has.  A node
 * remembers how its table came to be (a header, the parent of a header,
 * a dotted key, an inline table), which is what decides whether TOML
 * lets a later header or dotted key extend it.  Any error ends the
 * parse: nothing of a refused text is kept.  What needs no parser state
 * (numbers, dates, UTF-8, quoting) is in toml_lex.c.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "hmap.h"
#include "sbuf.h"
#include "toml.h"
#include "toml_int.h"
#include "xmalloc.h"

/* How a table or a key came to be: what may still extend it. */
#define TOML_HEADER	0x01	/* [a] defined it */
#define TOML_IMPLICIT	0x02	/* a header's parent: [a.b] made a */
#define TOML_DOTTED	0x04	/* a dotted key made it: a.b = 1 made a */
#define TOML_INLINE	0x08	/* an inline table, or a table inside one */
#define TOML_AOT	0x10	/* an array of tables: [[a]] */
#define TOML_VALUE	0x20	/* a value: a static array, a string... */

struct toml_node {
	cJSON			*v;
	int			 flags;
	const struct toml_node	*owner;		/* INLINE: its inline table */
	struct toml_node	*last;		/* AOT: its last table */
};

struct toml_p {
	const char		*text;
	size_t			 len;
	size_t			 at;
	char			*cause;
	struct hmap		*children;	/* parent's cJSON *, name: node */
	struct sbuf		 mapkey;
	struct toml_node	**nodes;
	size_t			 nnodes;
	size_t			 nodes_cap;
	size_t			 stmts_cap;
	size_t			 nvalues;
	size_t			 depth;
	struct toml_node	*root;
	struct toml_node	*cur;		/* the table of this section */
	char			**curpath;
	size_t			 ncurpath;
	int			 cur_in_array;
	size_t			 line_at;	/* the line of line_at: */
	size_t			 line;		/* statements come in order */
	struct toml_doc		*doc;
};

static int	toml_value(struct toml_p *, cJSON **, struct toml_node **);

static void
toml_position(const char *text, size_t at, size_t *line, size_t *column)
{
	size_t	 i, start = 0;

	*line = 1;
	for (i = 0; i < at; i++) {
		if (text[i] == '\n') {
			(*line)++;
			start = i + 1;
		}
	}
	*column = at - start + 1;
}

static int
toml_error(struct toml_p *p, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
toml_error(struct toml_p *p, size_t at, const char *fmt, ...)
{
	va_list	 ap;
	char	*what;
	size_t	 line, column;

	if (p->cause != NULL)
		return (-1);
	va_start(ap, fmt);
	xvasprintf(&what, fmt, ap);
	va_end(ap);
	toml_position(p->text, at, &line, &column);
	xasprintf(&p->cause, "line %zu, column %zu: %s", line, column, what);
	free(what);
	return (-1);
}

/*
 * Nodes: the tables and keys met so far.
 */

static struct toml_node *
toml_node_new(struct toml_p *p, cJSON *v, int flags)
{
	struct toml_node	*node;

	node = xcalloc(1, sizeof *node);
	node->v = v;
	node->flags = flags;
	if (p->nnodes == p->nodes_cap) {
		p->nodes_cap = p->nodes_cap == 0 ? 64 : p->nodes_cap * 2;
		p->nodes = xreallocarray(p->nodes, p->nodes_cap,
		    sizeof *p->nodes);
	}
	p->nodes[p->nnodes++] = node;
	return (node);
}

static void
toml_mapkey(struct toml_p *p, const struct toml_node *parent,
    const char *name)
{
	p->mapkey.len = 0;
	sbuf_add(&p->mapkey, (const char *)&parent->v, sizeof parent->v);
	sbuf_adds(&p->mapkey, name);
}

static struct toml_node *
toml_child(struct toml_p *p, const struct toml_node *parent,
    const char *name)
{
	toml_mapkey(p, parent, name);
	return (hmap_get(p->children, p->mapkey.p, p->mapkey.len));
}

/* One more value: 0, or -1 past TOML_MAX_VALUES. */
static int
toml_count(struct toml_p *p, size_t at)
{
	if (++p->nvalues > TOML_MAX_VALUES)
		return (toml_error(p, at, "more than %d values",
		    TOML_MAX_VALUES));
	return (0);
}

/* v added to parent as name (which must be new there): its node. */
static struct toml_node *
toml_attach(struct toml_p *p, struct toml_node *parent, const char *name,
    cJSON *v, int flags)
{
	struct toml_node	*node;

	node = toml_node_new(p, v, flags);
	cJSON_AddItemToObject(parent->v, name, v);
	toml_mapkey(p, parent, name);
	hmap_put(p->children, p->mapkey.p, p->mapkey.len, node);
	return (node);
}

/* A new table under parent, or NULL past the bounds. */
static struct toml_node *
toml_new_table(struct toml_p *p, struct toml_node *parent, const char *name,
    int flags, size_t at)
{
	if (toml_count(p, at) == -1)
		return (NULL);
	return (toml_attach(p, parent, name, cJSON_CreateObject(), flags));
}

static int
toml_refuse(struct toml_p *p, const struct toml_node *c, size_t at)
{
	if (c->flags & TOML_INLINE)
		return (toml_error(p, at, "an inline table extended"));
	if (c->flags & TOML_AOT)
		return (toml_error(p, at, "an array of tables used as a "
		    "table"));
	if (c->flags & TOML_VALUE)
		return (toml_error(p, at, "a key that holds a value used as "
		    "a table"));
	if (c->flags & TOML_DOTTED)
		return (toml_error(p, at, "a table made by dotted keys "
		    "defined again by a header"));
	return (toml_error(p, at, "a table defined by a header extended "
	    "by dotted keys"));
}

/*
 * The table that part of a dotted key names under t, made if need be.
 * owner: the inline table being read, or NULL in a section.
 */
static struct toml_node *
toml_dotted(struct toml_p *p, struct toml_node *t, const char *part,
    const struct toml_node *owner, size_t at)
{
	struct toml_node	*c;

	if ((c = toml_child(p, t, part)) == NULL) {
		c = toml_new_table(p, t, part, owner != NULL ? TOML_INLINE :
		    TOML_DOTTED, at);
		if (c != NULL)
			c->owner = owner;
		return (c);
	}
	if (owner != NULL ? ((c->flags & TOML_INLINE) && c->owner == owner) :
	    (c->flags & (TOML_DOTTED | TOML_IMPLICIT)) != 0) {
		/* No header may define it now. */
		if (owner == NULL)
			c->flags = TOML_DOTTED;
		return (c);
	}
	toml_refuse(p, c, at);
	return (NULL);
}

/* The table that a part of a header names on the way to its last. */
static struct toml_node *
toml_header_part(struct toml_p *p, struct toml_node *t, const char *part,
    size_t at)
{
	struct toml_node	*c;

	if ((c = toml_child(p, t, part)) == NULL)
		return (toml_new_table(p, t, part, TOML_IMPLICIT, at));
	if (c->flags & TOML_AOT) {
		p->cur_in_array = 1;
		return (c->last);
	}
	if (c->flags & (TOML_HEADER | TOML_IMPLICIT | TOML_DOTTED))
		return (c);
	toml_refuse(p, c, at);
	return (NULL);
}

/*
 * Text: blanks, comments, line ends.
 */

static void
toml_blanks(struct toml_p *p)
{
	while (p->at < p->len && (p->text[p->at] == ' ' ||
	    p->text[p->at] == '\t'))
		p->at++;
}

/* 1 if a line end (LF or CRLF) is at p->at. */
static int
toml_at_eol(const struct toml_p *p)
{
	return (p->at < p->len && (p->text[p->at] == '\n' ||
	    (p->text[p->at] == '\r' && p->at + 1 < p->len &&
	    p->text[p->at + 1] == '\n')));
}

static void
toml_skip_eol(struct toml_p *p)
{
	p->at += p->text[p->at] == '\r' ? 2 : 1;
}

/* A comment, from its '#' to its line end (not included). */
static int
toml_comment(struct toml_p *p)
{
	for (p->at++; p->at < p->len && !toml_at_eol(p); p->at++) {
		if (toml_control(p->text[p->at]))
			return (toml_error(p, p->at, "a control character in "
			    "a comment"));
	}
	return (0);
}

/* The end of a statement's line: blanks, a comment, LF, CRLF or the end. */
static int
toml_eol(struct toml_p *p)
{
	toml_blanks(p);
	if (p->at < p->len && p->text[p->at] == '#' && toml_comment(p) == -1)
		return (-1);
	if (p->at == p->len)
		return (0);
	if (!toml_at_eol(p))
		return (toml_error(p, p->at, p->text[p->at] == '\r' ?
		    "a carriage return without a line feed" : "expected the "
		    "end of the line"));
	toml_skip_eol(p);
	return (0);
}

/* Inside an array: blanks, comments and line ends. */
static int
toml_gap(struct toml_p *p)
{
	for (;;) {
		toml_blanks(p);
		if (p->at < p->len && p->text[p->at] == '#') {
			if (toml_comment(p) == -1)
				return (-1);
		} else if (toml_at_eol(p))
			toml_skip_eol(p);
		else
			return (0);
	}
}

/*
 * Strings.
 */

static int
toml_hex(struct toml_p *p, size_t n, uint32_t *cp)
{
	size_t	 i;
	char	 c;

	*cp = 0;
	if (p->len - p->at < n)
		return (toml_error(p, p->at, "a short unicode escape"));
	for (i = 0; i < n; i++) {
		c = p->text[p->at + i];
		*cp <<= 4;
		if (c >= '0' && c <= '9')
			*cp |= c - '0';
		else if (c >= 'a' && c <= 'f')
			*cp |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			*cp |= c - 'A' + 10;
		else
			return (toml_error(p, p->at + i, "a unicode escape "
			    "with a character that is not a hex digit"));
	}
	p->at += n;
	return (0);
}

/* An escape, at its '\\'. */
static int
toml_escape(struct toml_p *p, struct sbuf *b)
{
	static const char	 from[] = "btnfr\"\\", to[] = "\b\t\n\f\r\"\\";
	const char		*e;
	size_t			 at = p->at;
	uint32_t		 cp;
	char			 c;

	if (++p->at == p->len)
		return (toml_error(p, at, "an unterminated escape"));
	c = p->text[p->at];
	if (c != '\0' && (e = strchr(from, c)) != NULL) {
		sbuf_add(b, &to[e - from], 1);
		p->at++;
		return (0);
	}
	if (c != 'u' && c != 'U')
		return (toml_error(p, at, "an escape TOML does not have"));
	p->at++;
	if (toml_hex(p, c == 'u' ? 4 : 8, &cp) == -1)
		return (-1);
	if (cp == 0)
		return (toml_error(p, at, "a string holding \\u0000"));
	if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return (toml_error(p, at, "an escape that is no unicode "
		    "scalar value"));
	toml_add_utf8(b, cp);
	return (0);
}

/*
 * A string at its opening quote: basic ('"') or literal ('\''), on one
 * line or (three quotes) several.
 */
static int
toml_string(struct toml_p *p, struct sbuf *b)
{
	size_t	 start = p->at, q, j;
	char	 quote = p->text[p->at];
	int	 multi;

	multi = p->len - p->at >= 3 && p->text[p->at + 1] == quote &&
	    p->text[p->at + 2] == quote;
	sbuf_add(b, "", 0);
	if (!multi)
		p->at++;
	else {
		p->at += 3;
		/* A line end right after the quotes is not the string's. */
		if (toml_at_eol(p))
			toml_skip_eol(p);
	}
	for (;;) {
		if (p->at == p->len)
			return (toml_error(p, start, "an unterminated string"));
		if (p->text[p->at] == quote) {
			if (!multi) {
				p->at++;
				return (0);
			}
			for (q = 0; p->at + q < p->len &&
			    p->text[p->at + q] == quote; q++)
				;
			if (q < 3) {
				sbuf_add(b, p->text + p->at, q);
				p->at += q;
				continue;
			}
			if (q > 5)
				return (toml_error(p, p->at, "too many quotes "
				    "at the end of a string"));
			sbuf_add(b, p->text + p->at, q - 3);
			p->at += q;
			return (0);
		}
		if (p->text[p->at] == '\\' && quote == '"') {
			/* A line ending backslash: the blanks after it go. */
			for (j = p->at + 1; multi && j < p->len &&
			    (p->text[j] == ' ' || p->text[j] == '\t'); j++)
				;
			if (multi && j < p->len && (p->text[j] == '\n' ||
			    (p->text[j] == '\r' && j + 1 < p->len &&
			    p->text[j + 1] == '\n'))) {
				p->at = j;
				while (toml_at_eol(p) || (p->at < p->len &&
				    (p->text[p->at] == ' ' ||
				    p->text[p->at] == '\t'))) {
					if (toml_at_eol(p))
						toml_skip_eol(p);
					else
						p->at++;
				}
				continue;
			}
			if (toml_escape(p, b) == -1)
				return (-1);
			continue;
		}
		if (toml_at_eol(p)) {
			if (!multi)
				return (toml_error(p, start, "an unterminated "
				    "string"));
			sbuf_add(b, "\n", 1);
			toml_skip_eol(p);
			continue;
		}
		if (toml_control(p->text[p->at]))
			return (toml_error(p, p->at, "a control character in "
			    "a string"));
		sbuf_add(b, p->text + p->at, 1);
		p->at++;
	}
}

/*
 * Keys.
 */

static void
toml_parts_free(char **parts, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		free(parts[i]);
	free(parts);
}

/* A key: its parts (a.b."c" is three), each malloc'd. */
static int
toml_key_parts(struct toml_p *p, char ***parts, size_t *n)
{
	struct sbuf	 b = { NULL, 0, 0 };
	size_t		 start;

	*parts = NULL;
	*n = 0;
	for (;;) {
		toml_blanks(p);
		start = p->at;
		if (*n == TOML_MAX_KEY_PARTS) {
			toml_error(p, start, "a key of more than %d parts",
			    TOML_MAX_KEY_PARTS);
			goto fail;
		}
		b.len = 0;
		if (p->at < p->len && (p->text[p->at] == '"' ||
		    p->text[p->at] == '\'')) {
			if (p->len - p->at >= 3 && p->text[p->at + 1] ==
			    p->text[p->at] && p->text[p->at + 2] ==
			    p->text[p->at]) {
				toml_error(p, start, "a multi-line string as "
				    "a key");
				goto fail;
			}
			if (toml_string(p, &b) == -1)
				goto fail;
		} else {
			while (p->at < p->len && toml_bare(p->text[p->at]))
				p->at++;
			if (p->at == start) {
				toml_error(p, start, "a key expected");
				goto fail;
			}
			sbuf_add(&b, p->text + start, p->at - start);
		}
		*parts = xreallocarray(*parts, *n + 1, sizeof **parts);
		(*parts)[(*n)++] = xstrndup(b.p, b.len);
		toml_blanks(p);
		if (p->at == p->len || p->text[p->at] != '.')
			break;
		p->at++;
	}
	free(b.p);
	return (0);

fail:
	free(b.p);
	toml_parts_free(*parts, *n);
	*parts = NULL;
	*n = 0;
	return (-1);
}

/*
 * Numbers, booleans, dates and times.
 */

/* A boolean, a number, a date or a time. */
static int
toml_scalar(struct toml_p *p, cJSON **out)
{
	const char	*s = p->text + p->at, *why;
	size_t		 start = p->at, n;
	double		 v;
	char		*str;

	while (p->at < p->len && toml_token_char(p->text[p->at]))
		p->at++;
	n = p->at - start;
	/* A date, a space and a time: one value. */
	if (n == 10 && toml_date(s, n) && p->len - p->at > 3 &&
	    p->text[p->at] == ' ' && toml_two(s + 11, 99) >= 0 &&
	    s[13] == ':') {
		for (p->at++; p->at < p->len &&
		    toml_token_char(p->text[p->at]); p->at++)
			;
		n = p->at - start;
	}
	if (n == 0)
		return (toml_error(p, start, "a value expected"));
	if (n > TOML_SCALAR_MAX_BYTES)
		return (toml_error(p, start, "a value longer than %d bytes "
		    "that is no string", TOML_SCALAR_MAX_BYTES));
	if ((n == 4 && memcmp(s, "true", 4) == 0) || (n == 5 &&
	    memcmp(s, "false", 5) == 0)) {
		*out = cJSON_CreateBool(n == 4);
		return (0);
	}
	if ((n >= 10 && s[4] == '-') || memchr(s, ':', n) != NULL) {
		if (!toml_datetime(s, n))
			return (toml_error(p, start, "not a valid date or "
			    "time"));
		str = xstrndup(s, n);
		*out = cJSON_CreateString(str);
		free(str);
		return (0);
	}
	if (toml_number(s, n, &v, &why) == -1)
		return (toml_error(p, start, "%s", why));
	*out = cJSON_CreateNumber(v);
	return (0);
}

/*
 * Arrays and inline tables.
 */

static int
toml_array(struct toml_p *p, cJSON **out)
{
	struct toml_node	*ignored;
	cJSON			*a, *v;

	a = cJSON_CreateArray();
	p->at++;
	for (;;) {
		if (toml_gap(p) == -1)
			goto fail;
		if (p->at < p->len && p->text[p->at] == ']')
			break;
		if (toml_value(p, &v, &ignored) == -1)
			goto fail;
		cJSON_AddItemToArray(a, v);
		if (toml_gap(p) == -1)
			goto fail;
		if (p->at < p->len && p->text[p->at] == ',') {
			p->at++;
			continue;
		}
		if (p->at < p->len && p->text[p->at] == ']')
			break;
		toml_error(p, p->at, p->at == p->len ? "an unterminated "
		    "array" : "expected ',' or ']' in an array");
		goto fail;
	}
	p->at++;
	*out = a;
	return (0);

fail:
	cJSON_Delete(a);
	return (-1);
}

/* A key and its value inside the inline table t. */
static int
toml_inline_member(struct toml_p *p, struct toml_node *t)
{
	struct toml_node	*at_table = t, *node;
	char			**parts;
	size_t			 n, i, start;
	cJSON			*v;
	int			 rc = -1;

	toml_blanks(p);
	start = p->at;
	if (toml_key_parts(p, &parts, &n) == -1)
		return (-1);
	if (p->at == p->len || p->text[p->at] != '=') {
		toml_error(p, p->at, "expected '=' after a key");
		goto out;
	}
	p->at++;
	toml_blanks(p);
	for (i = 0; i + 1 < n; i++) {
		if ((at_table = toml_dotted(p, at_table, parts[i], t,
		    start)) == NULL)
			goto out;
	}
	if (toml_child(p, at_table, parts[n - 1]) != NULL) {
		toml_error(p, start, "a key defined twice");
		goto out;
	}
	if (toml_value(p, &v, &node) == -1)
		goto out;
	toml_attach(p, at_table, parts[n - 1], v, node != NULL ?
	    node->flags : TOML_VALUE);
	rc = 0;

out:
	toml_parts_free(parts, n);
	return (rc);
}

/* An inline table: on one line, no comma after its last member. */
static int
toml_inline(struct toml_p *p, cJSON **out, struct toml_node **nodep)
{
	struct toml_node	*t;
	cJSON			*o;

	o = cJSON_CreateObject();
	t = toml_node_new(p, o, TOML_INLINE);
	t->owner = t;
	p->at++;
	toml_blanks(p);
	if (p->at < p->len && p->text[p->at] == '}')
		goto done;
	for (;;) {
		if (toml_inline_member(p, t) == -1)
			goto fail;
		toml_blanks(p);
		if (p->at < p->len && p->text[p->at] == ',') {
			p->at++;
			continue;
		}
		if (p->at < p->len && p->text[p->at] == '}')
			break;
		toml_error(p, p->at, p->at == p->len ? "an unterminated "
		    "inline table" : toml_at_eol(p) ? "a line end in an "
		    "inline table (TOML 1.0 keeps one on one line)" :
		    "expected ',' or '}' in an inline table");
		goto fail;
	}
done:
	p->at++;
	*out = o;
	*nodep = t;
	return (0);

fail:
	cJSON_Delete(o);
	return (-1);
}

/* A value: *node is its node for an inline table, else NULL. */
static int
toml_value(struct toml_p *p, cJSON **out, struct toml_node **node)
{
	struct sbuf	 b = { NULL, 0, 0 };
	size_t		 start = p->at;
	char		 c;
	int		 rc;

	*out = NULL;
	*node = NULL;
	if (toml_count(p, start) == -1)
		return (-1);
	if (p->at == p->len || toml_at_eol(p))
		return (toml_error(p, start, "a value expected"));
	c = p->text[p->at];
	if (c == '"' || c == '\'') {
		if (toml_string(p, &b) == -1) {
			free(b.p);
			return (-1);
		}
		*out = cJSON_CreateString(b.p);
		free(b.p);
		return (0);
	}
	if (c != '[' && c != '{')
		return (toml_scalar(p, out));
	if (++p->depth > TOML_MAX_DEPTH)
		return (toml_error(p, start, "arrays or inline tables nested "
		    "more than %d deep", TOML_MAX_DEPTH));
	rc = c == '[' ? toml_array(p, out) : toml_inline(p, out, node);
	p->depth--;
	return (rc);
}

/*
 * Statements.
 */

static struct toml_stmt *
toml_stmt_new(struct toml_p *p, enum toml_stmt_kind kind, size_t start,
    size_t key_start, char **parts, size_t nparts)
{
	struct toml_doc		*doc = p->doc;
	struct toml_stmt	*s;
	size_t			 i;

	if (doc->nstmts == p->stmts_cap) {
		p->stmts_cap = p->stmts_cap == 0 ? 64 : p->stmts_cap * 2;
		doc->stmts = xreallocarray(doc->stmts, p->stmts_cap,
		    sizeof *doc->stmts);
	}
	s = &doc->stmts[doc->nstmts++];
	memset(s, 0, sizeof *s);
	s->kind = kind;
	s->start = start;
	s->key_start = key_start;
	s->in_array = p->cur_in_array;
	for (; p->line_at < key_start; p->line_at++)
		p->line += p->text[p->line_at] == '\n';
	s->line = p->line;
	s->npath = nparts + (kind == TOML_STMT_KEYVAL ? p->ncurpath : 0);
	s->path = xreallocarray(NULL, s->npath, sizeof *s->path);
	i = 0;
	if (kind == TOML_STMT_KEYVAL) {
		for (; i < p->ncurpath; i++)
			s->path[i] = xstrdup(p->curpath[i]);
		s->nkey = nparts;
	}
	memcpy(s->path + i, parts, nparts * sizeof *parts);
	return (s);
}

static int
toml_keyval(struct toml_p *p, size_t line_start)
{
	struct toml_stmt	*s;
	struct toml_node	*t = p->cur, *node;
	char			**parts;
	size_t			 n, i, start = p->at;
	cJSON			*v;

	if (toml_key_parts(p, &parts, &n) == -1)
		return (-1);
	if (p->at == p->len || p->text[p->at] != '=') {
		toml_parts_free(parts, n);
		return (toml_error(p, p->at, "expected '=' after a key"));
	}
	p->at++;
	toml_blanks(p);
	for (i = 0; i + 1 < n; i++) {
		if ((t = toml_dotted(p, t, parts[i], NULL, start)) == NULL) {
			toml_parts_free(parts, n);
			return (-1);
		}
	}
	if (toml_child(p, t, parts[n - 1]) != NULL) {
		toml_parts_free(parts, n);
		return (toml_error(p, start, "a key defined twice"));
	}
	if (toml_value(p, &v, &node) == -1) {
		toml_parts_free(parts, n);
		return (-1);
	}
	toml_attach(p, t, parts[n - 1], v, node != NULL ? node->flags :
	    TOML_VALUE);
	s = toml_stmt_new(p, TOML_STMT_KEYVAL, line_start, start, parts, n);
	free(parts);
	s->value = v;
	if (toml_eol(p) == -1)
		return (-1);
	s->end = p->at;
	return (0);
}

/* The table a [header] or [[header]] names, as toml.h says TOML wants. */
static struct toml_node *
toml_header_table(struct toml_p *p, char **parts, size_t n, int aot,
    size_t start)
{
	struct toml_node	*t = p->root, *c;
	size_t			 i;

	p->cur_in_array = 0;
	for (i = 0; i + 1 < n; i++) {
		if ((t = toml_header_part(p, t, parts[i], start)) == NULL)
			return (NULL);
	}
	c = toml_child(p, t, parts[n - 1]);
	if (aot) {
		p->cur_in_array = 1;
		if (c == NULL) {
			if (toml_count(p, start) == -1)
				return (NULL);
			c = toml_attach(p, t, parts[n - 1],
			    cJSON_CreateArray(), TOML_AOT);
		} else if (!(c->flags & TOML_AOT)) {
			toml_error(p, start, (c->flags & TOML_VALUE) ?
			    "a key that holds a value defined again as an "
			    "array of tables" : "a table defined again as an "
			    "array of tables");
			return (NULL);
		}
		if (toml_count(p, start) == -1)
			return (NULL);
		c->last = toml_node_new(p, cJSON_CreateObject(), TOML_HEADER);
		cJSON_AddItemToArray(c->v, c->last->v);
		return (c->last);
	}
	if (c == NULL)
		return (toml_new_table(p, t, parts[n - 1], TOML_HEADER, start));
	if (c->flags & TOML_IMPLICIT) {
		c->flags = TOML_HEADER;
		return (c);
	}
	if (c->flags & TOML_HEADER)
		toml_error(p, start, "a table defined twice");
	else
		toml_refuse(p, c, start);
	return (NULL);
}

static int
toml_header(struct toml_p *p, size_t line_start)
{
	struct toml_stmt	*s;
	struct toml_node	*t;
	char			**parts;
	size_t			 n, i, start = p->at;
	int			 aot;

	aot = p->len - p->at >= 2 && p->text[p->at + 1] == '[';
	p->at += aot ? 2 : 1;
	if (toml_key_parts(p, &parts, &n) == -1)
		return (-1);
	if (p->at == p->len || p->text[p->at] != ']' || (aot &&
	    (p->len - p->at < 2 || p->text[p->at + 1] != ']'))) {
		toml_parts_free(parts, n);
		return (toml_error(p, p->at, "expected '%s' after a table's "
		    "name", aot ? "]]" : "]"));
	}
	p->at += aot ? 2 : 1;
	if ((t = toml_header_table(p, parts, n, aot, start)) == NULL) {
		toml_parts_free(parts, n);
		return (-1);
	}
	p->cur = t;
	toml_parts_free(p->curpath, p->ncurpath);
	p->curpath = xreallocarray(NULL, n, sizeof *p->curpath);
	for (i = 0; i < n; i++)
		p->curpath[i] = xstrdup(parts[i]);
	p->ncurpath = n;
	s = toml_stmt_new(p, aot ? TOML_STMT_ARRAY_TABLE : TOML_STMT_TABLE,
	    line_start, start, parts, n);
	free(parts);
	if (toml_eol(p) == -1)
		return (-1);
	s->end = p->at;
	return (0);
}

static int
toml_document(struct toml_p *p)
{
	size_t	 line_start, bad;

	if (memchr(p->text, '\0', p->len) != NULL)
		return (toml_error(p, (const char *)memchr(p->text, '\0',
		    p->len) - p->text, "a NUL byte"));
	if (!toml_utf8(p->text, p->len, &bad))
		return (toml_error(p, bad, "not UTF-8"));
	/* A byte order mark is no part of the document. */
	if (p->len >= 3 && memcmp(p->text, "\xef\xbb\xbf", 3) == 0)
		p->at = 3;
	while (p->at < p->len) {
		line_start = p->at;
		toml_blanks(p);
		if (p->at == p->len)
			break;
		if (p->text[p->at] == '[') {
			if (toml_header(p, line_start) == -1)
				return (-1);
		} else if (p->text[p->at] == '#' || toml_at_eol(p) ||
		    p->text[p->at] == '\r') {
			if (toml_eol(p) == -1)
				return (-1);
		} else if (toml_keyval(p, line_start) == -1)
			return (-1);
	}
	return (0);
}

int
toml_parse(const char *text, size_t len, struct toml_doc *doc, char **cause)
{
	struct toml_p	 p;
	size_t		 i;
	int		 rc;

	memset(doc, 0, sizeof *doc);
	memset(&p, 0, sizeof p);
	*cause = NULL;
	p.text = text;
	p.len = len;
	p.doc = doc;
	p.line = 1;
	p.children = hmap_new(hmap_random_seed());
	doc->root = cJSON_CreateObject();
	p.root = p.cur = toml_node_new(&p, doc->root, TOML_HEADER);
	rc = toml_document(&p);
	for (i = 0; i < p.nnodes; i++)
		free(p.nodes[i]);
	free(p.nodes);
	hmap_free(p.children);
	free(p.mapkey.p);
	toml_parts_free(p.curpath, p.ncurpath);
	if (rc == -1) {
		toml_doc_free(doc);
		*cause = p.cause;
	}
	return (rc);
}

void
toml_doc_free(struct toml_doc *doc)
{
	size_t	 i;

	for (i = 0; i < doc->nstmts; i++)
		toml_parts_free(doc->stmts[i].path, doc->stmts[i].npath);
	free(doc->stmts);
	cJSON_Delete(doc->root);
	memset(doc, 0, sizeof *doc);
}

