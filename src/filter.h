/*
 * filter.h -- allow and deny lists for the tools, prompts and resources a
 * server offers (pure: no I/O, no daemon state).
 *
 * A filter is one kind's rule, written {"allow": [GLOB...], "deny":
 * [GLOB...]}: a name passes when no deny pattern matches it and, if allow
 * is given, one of its patterns does; deny wins.  Tools and prompts are
 * matched by name, resources by URI: the "uri" of a resources/list entry,
 * the "uriTemplate" of a resources/templates/list entry, the params.uri
 * of resources/read and resources/subscribe, the params.ref of
 * completion/complete.
 *
 * A URI is matched in its normal form (urinorm.h), since the server reads
 * every spelling of it alike; one that has none cannot be judged and does
 * not pass.  A URI template is matched as it is written (servers compare
 * it so) and, when it also has a normal form, in that form too: it passes
 * only if both do.  filter_parse refuses a resource pattern that could
 * never match a normal form (urinorm_pattern_error).
 *
 * Patterns are fnmatch(3) patterns without flags, matched byte by byte as
 * in the C locale: '*' (any bytes, '/' and a leading '.' included), '?'
 * (one byte), bracket expressions ("[a-z]", "[!x]", "[^x]", "[]x]",
 * "[[:alpha:]]" and the other POSIX classes, ASCII only) and '\' quoting
 * the next character.  filter_parse refuses what fnmatch would read
 * strangely: an unterminated '[', a trailing '\', an unknown class, and
 * collating symbols or equivalence classes ("[[.a.]]", "[[=a=]]").  For
 * every pattern it accepts, filter_glob agrees with glibc's fnmatch(3) in
 * the C locale, in time O(pattern x name) whatever the input.
 *
 * The list functions take a server's reply, which is untrusted: they never
 * read outside it, use memory at most twice its size (three times for
 * resources, whose URIs are normalised), and answer
 * FILTER_BAD for anything that is not the expected shape.  An entry that
 * cannot be judged (not an object, no string name, a name holding
 * "\u0000" or a lone surrogate, a repeated name member) is removed.
 */
#ifndef MCPD_FILTER_H
#define MCPD_FILTER_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* Limits on a filter as configured. */
#define FILTER_MAX_PATTERNS		1024	/* in one allow or deny list */
#define FILTER_MAX_PATTERN_BYTES	1024

/* What a filter is about: its config key. */
enum filter_kind {
	FILTER_TOOLS,		/* "tools" */
	FILTER_PROMPTS,		/* "prompts" */
	FILTER_RESOURCES,	/* "resources" */
	FILTER_KINDS
};

/* The list replies a filter narrows. */
enum filter_list {
	FILTER_LIST_TOOLS,	/* tools/list: "tools", by "name" */
	FILTER_LIST_PROMPTS,	/* prompts/list: "prompts", by "name" */
	FILTER_LIST_RESOURCES,	/* resources/list: "resources", by "uri" */
	FILTER_LIST_TEMPLATES,	/* resources/templates/list:
				   "resourceTemplates", by "uriTemplate" */
	FILTER_LISTS
};

/* What became of a list result. */
enum filter_result {
	FILTER_KEPT,		/* nothing removed: pass it on as it is */
	FILTER_CHANGED,		/* entries removed: the new text */
	FILTER_BAD,		/* not a list result of the expected shape */
};

struct filter;

/* Reports one problem in a filter's configuration: its JSON path, what. */
typedef void (*filter_error_fn)(void *arg, const char *path,
		    const char *message);

/* "tools", "prompts", "resources". */
const char	*filter_kind_name(enum filter_kind);
/* The list a method returns ("tools/list"...); -1 if it returns none. */
int		 filter_list_of_method(const char *method, enum filter_list *);
enum filter_kind filter_list_kind(enum filter_list);
/* The member of a list result holding the entries ("tools"...). */
const char	*filter_list_member(enum filter_list);
/* The member of an entry its name is in ("name", "uri"...). */
const char	*filter_list_key(enum filter_list);

/*
 * Parse one kind's value (path names it, "mcpServers.x.tools").  Returns
 * 0 with *out set, NULL for a filter that lets everything pass ({}, or
 * only an empty deny list), or -1 after reporting every problem through
 * error (a path like "mcpServers.x.tools.allow[2]").
 */
int		 filter_parse(const cJSON *, enum filter_kind, const char *path,
		    filter_error_fn, void *arg, struct filter **out);
/* Why a pattern is refused (a constant string), or NULL if it is fine. */
const char	*filter_pattern_error(const char *pattern);
struct filter	*filter_dup(const struct filter *);
void		 filter_free(struct filter *);
/* 1 if both let the same names pass by the same patterns (NULL: none). */
int		 filter_equal(const struct filter *, const struct filter *);

/* 1 if pattern (as filter_pattern_error accepts) matches name. */
int		 filter_glob(const char *pattern, const char *name);
/* 1 if name passes f; a NULL filter lets everything pass. */
int		 filter_allows(const struct filter *f, const char *name);
/*
 * 1 if a thing known by several names (n of them) passes f: no deny
 * pattern matches any of them and, if allow is given, one of its patterns
 * matches one of them.  A group's tools are (gname.h).
 */
int		 filter_allows_any(const struct filter *f,
		    const char *const *names, size_t n);
/*
 * 1 if a resource's URI passes f, in its normal form; 0 if it does not;
 * -1 if it has no normal form (*why says why; it does not pass).  A NULL
 * filter lets everything pass without a look.
 */
int		 filter_check_uri(const struct filter *f, const char *uri,
		    const char **why);
/* 1 if filter_check_uri says the URI passes. */
int		 filter_allows_uri(const struct filter *f, const char *uri);
/* 1 if a URI template passes f: as written and in its normal form. */
int		 filter_allows_template(const struct filter *f,
		    const char *uri_template);
/* 1 if an entry of a list passes f by its name (or URI, or template). */
int		 filter_allows_entry(const struct filter *f, enum filter_list,
		    const char *name);

/* What the params of a completion/complete request refer to. */
enum filter_ref {
	FILTER_REF_BAD,		/* no ref object with a string "type", a
				   member repeated, or its name or uri not
				   a string (with no "\u0000") */
	FILTER_REF_OTHER,	/* a type mcpd does not know: the server's */
	FILTER_REF_PROMPT,	/* "ref/prompt": *name is its "name" */
	FILTER_REF_RESOURCE,	/* "ref/resource": *name is its "uri" (a URI
				   template or a URI) */
};

/*
 * Read params.ref from the params object's text (valid JSON, as after
 * envelope_scan), without building a tree.  For PROMPT and RESOURCE,
 * *name is set (malloc'd, decoded); else it is NULL.
 */
enum filter_ref	 filter_complete_ref(const char *params, size_t len,
		    char **name);

/*
 * Narrow a list result given as the JSON text of its result object.
 * FILTER_CHANGED sets *out (malloc'd, *outlen bytes, NUL-terminated) to
 * the same text without the entries f removes; the rest is kept byte for
 * byte (the cursor, _meta...).  A NULL filter keeps everything unread.
 */
enum filter_result filter_list_text(const struct filter *f,
		    enum filter_list, const char *text, size_t len,
		    char **out, size_t *outlen);
/*
 * The same with a judge of the caller's: keep(arg, name) is 1 for an
 * entry to keep, given the entry's name (or URI, or template) decoded.
 * Every entry that cannot be judged is removed as above.
 */
typedef int (*filter_keep_fn)(void *arg, const char *name);
enum filter_result filter_list_text_by(enum filter_list, const char *text,
		    size_t len, filter_keep_fn keep, void *arg, char **out,
		    size_t *outlen);
/* The same on a parsed result, in place. */
enum filter_result filter_list_json(const struct filter *f,
		    enum filter_list, cJSON *result);
/*
 * A tools/call result (text, an object) whose content holds resource
 * links ({"type": "resource_link", "uri": ...}) the resources filter f
 * does not let through: FILTER_CHANGED with the result without them in
 * *out (malloc'd), else FILTER_KEPT.  A link is a resource's name, so one
 * the client may not read is not shown to it.  Never FILTER_BAD: what is
 * not a result of that shape is passed on as it is.
 */
enum filter_result filter_links_text(const struct filter *f,
		    const char *text, size_t len, char **out, size_t *outlen);

#endif /* MCPD_FILTER_H */
