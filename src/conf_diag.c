/*
 * conf_diag.c -- the configuration's diagnostics (conf.h, struct
 * conf_diags): each one "PATH: message", errors and warnings, kept in
 * the order found so that a user sees every problem in one go; and those
 * about the text itself rather than one key: where it is not JSON, and
 * which strings hold "\u0000".
 *
 * Invariant (conf.c): a diagnostic names JSON paths, keys and variable
 * names, never a string value from the file or the environment.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "conf_int.h"
#include "sbuf.h"
#include "xmalloc.h"

static void	conf_diag_add(struct conf_diags *, enum conf_level,
		    const char *, const char *, va_list)
		    __attribute__((format(printf, 4, 0)));

static void
conf_diag_add(struct conf_diags *diags, enum conf_level level,
    const char *path, const char *fmt, va_list ap)
{
	struct conf_diag	*d;
	char			*msg;

	xvasprintf(&msg, fmt, ap);
	diags->v = xreallocarray(diags->v, diags->n + 1, sizeof *diags->v);
	d = &diags->v[diags->n++];
	d->level = level;
	xasprintf(&d->text, "%s: %s", path, msg);
	free(msg);
	if (level == CONF_ERROR)
		diags->nerrors++;
}

void
conf_diag_error(struct conf_diags *diags, const char *path, const char *fmt,
    ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	conf_diag_add(diags, CONF_ERROR, path, fmt, ap);
	va_end(ap);
}

void
conf_diag_warn(struct conf_diags *diags, const char *path, const char *fmt,
    ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	conf_diag_add(diags, CONF_WARNING, path, fmt, ap);
	va_end(ap);
}

void
conf_error(struct conf_parse *cp, const char *path, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	conf_diag_add(cp->diags, CONF_ERROR, path, fmt, ap);
	va_end(ap);
}

void
conf_warn(struct conf_parse *cp, const char *path, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	conf_diag_add(cp->diags, CONF_WARNING, path, fmt, ap);
	va_end(ap);
}

void
conf_diags_init(struct conf_diags *diags)
{
	diags->v = NULL;
	diags->n = 0;
	diags->nerrors = 0;
}

void
conf_diags_free(struct conf_diags *diags)
{
	size_t	 i;

	for (i = 0; i < diags->n; i++)
		free(diags->v[i].text);
	free(diags->v);
	conf_diags_init(diags);
}


void
conf_filter_error(void *arg, const char *path, const char *message)
{
	conf_error(arg, path, "%s", message);
}

/*
 * 1 if the four characters after "\u" decode to a NUL in cJSON: "0000", or
 * anything that is not four hex digits, which cJSON takes for 0.
 */
static int
conf_nul_escape(const char *hex)
{
	return (memcmp(hex, "0000", 4) == 0 ||
	    strspn(hex, "0123456789abcdefABCDEF") < 4);
}

/*
 * Which strings hold a NUL: their numbers, counting every key and string
 * value of the text in document order from 0.  The text is JSON cJSON has
 * accepted, so every '"' outside a string opens one; as in cJSON, a string
 * ends at the first '"' that no backslash escapes, and within it "\u"
 * takes the four characters after it, whatever they are.
 */
size_t *
conf_nul_strings(const char *text, size_t len, size_t *nmarks)
{
	size_t	*marks = NULL, ordinal = 0, i, j, k;
	int	 marked;

	*nmarks = 0;
	for (i = 0; i < len; i++) {
		if (text[i] != '"')
			continue;
		for (j = i + 1; j < len && text[j] != '"'; j++) {
			if (text[j] == '\\')
				j++;
		}
		if (j > len)
			j = len;
		marked = 0;
		for (k = i + 1; k < j; k++) {
			if (text[k] != '\\')
				continue;
			if (k + 1 < j && text[k + 1] == 'u') {
				if (k + 6 <= j && conf_nul_escape(text + k + 2))
					marked = 1;
				k += 5;
			} else
				k++;
		}
		if (marked) {
			marks = xreallocarray(marks, *nmarks + 1,
			    sizeof *marks);
			marks[(*nmarks)++] = ordinal;
		}
		ordinal++;
		i = j;
	}
	return (marks);
}

/* Walking the tree in document order, beside conf_nul_strings' marks. */
struct conf_nul {
	struct conf_diags	*diags;
	const size_t		*marks;
	size_t			 nmarks;
	size_t			 next;		/* first mark not reached */
	size_t			 ordinal;	/* of the next string */
	struct sbuf		 path;
};

/* Count one string; 1 if it is marked. */
static int
conf_nul_next(struct conf_nul *cn)
{
	int	 marked;

	marked = cn->next < cn->nmarks && cn->marks[cn->next] == cn->ordinal;
	if (marked)
		cn->next++;
	cn->ordinal++;
	return (marked);
}

/* top: item is the document, whose keys start a path without a dot. */
static void
conf_nul_walk(struct conf_nul *cn, const cJSON *item, int top)
{
	const cJSON	*child;
	size_t		 keep, index = 0;
	char		 text[32];

	if (cJSON_IsString(item)) {
		if (conf_nul_next(cn))
			conf_diag_error(cn->diags, cn->path.p, "contains a "
			    "NUL character (\\u0000)");
		return;
	}
	for (child = item->child; child != NULL && cn->next < cn->nmarks;
	    child = child->next, index++) {
		keep = cn->path.len;
		if (cJSON_IsObject(item)) {
			if (!top)	/* even after an empty key */
				sbuf_add(&cn->path, ".", 1);
			sbuf_add(&cn->path, child->string,
			    strlen(child->string));
			if (conf_nul_next(cn))
				conf_diag_error(cn->diags, cn->path.p, "key "
				    "contains a NUL character (\\u0000)");
		} else {
			snprintf(text, sizeof text, "[%zu]", index);
			sbuf_add(&cn->path, text, strlen(text));
		}
		conf_nul_walk(cn, child, 0);
		cn->path.len = keep;
		cn->path.p[keep] = '\0';
	}
}

/*
 * cJSON decodes "\u0000" to a NUL, which ends the C string early: "a\u0000b"
 * would run as "a", and two keys could look the same.  Report each such
 * string by its JSON path; returns the number found.
 */
size_t
conf_check_nul(const char *text, size_t len, const cJSON *root,
    const char *file, struct conf_diags *diags)
{
	struct conf_nul	 cn;
	size_t		*marks, nmarks;

	if ((marks = conf_nul_strings(text, len, &nmarks)) == NULL)
		return (0);
	memset(&cn, 0, sizeof cn);
	cn.diags = diags;
	cn.marks = marks;
	cn.nmarks = nmarks;
	sbuf_add(&cn.path, "", 0);
	conf_nul_walk(&cn, root, 1);
	if (cn.next != nmarks) {
		/* Not found in the tree: still refused, if less precisely. */
		conf_diag_error(diags, file, "a string contains a NUL "
		    "character (\\u0000)");
	}
	free(cn.path.p);
	free(marks);
	return (nmarks);
}

void
conf_json_error(struct conf_diags *diags, const char *file, const char *text,
    size_t offset)
{
	size_t	 line = 1, column = 1, i;

	for (i = 0; i < offset; i++) {
		if (text[i] == '\n') {
			line++;
			column = 1;
		} else
			column++;
	}
	conf_diag_error(diags, file, "line %zu, column %zu: invalid JSON",
	    line, column);
}
