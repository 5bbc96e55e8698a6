/*
 * filter.c -- allow and deny lists: parsing them, matching names, and
 * narrowing the list results of a server (see filter.h).
 *
 * Matching is a loop, not a recursion: '*' remembers where it stood and,
 * when the rest fails, takes one byte more.  That is exact for glob
 * patterns (nothing else in them matches a varying length), so a name of
 * n bytes against a pattern of m costs at most n x m steps.
 *
 * A list result is first checked whole by envelope_scan (one strict pass,
 * no allocation); the walk that follows can then take the text for valid
 * JSON, but still never steps past its end.  Entries are judged where they
 * lie and the kept ones copied once, so nothing is parsed into a tree.
 *
 * URIs are judged in their normal form (urinorm.h), written into a buffer
 * the caller holds: a list costs one, however many entries it has.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "envelope.h"
#include "filter.h"
#include "urinorm.h"
#include "util.h"
#include "xmalloc.h"

struct filter {
	char	**allow;
	size_t	  nallow;
	int	  has_allow;	/* allow given: only its matches pass */
	char	**deny;
	size_t	  ndeny;
};

static const char *filter_kind_names[FILTER_KINDS] = {
	[FILTER_TOOLS] = "tools",
	[FILTER_PROMPTS] = "prompts",
	[FILTER_RESOURCES] = "resources",
};

static const struct {
	const char		*method;
	enum filter_kind	 kind;
	const char		*member;
	const char		*key;
} filter_lists[FILTER_LISTS] = {
	[FILTER_LIST_TOOLS] = { "tools/list", FILTER_TOOLS, "tools",
	    "name" },
	[FILTER_LIST_PROMPTS] = { "prompts/list", FILTER_PROMPTS, "prompts",
	    "name" },
	[FILTER_LIST_RESOURCES] = { "resources/list", FILTER_RESOURCES,
	    "resources", "uri" },
	[FILTER_LIST_TEMPLATES] = { "resources/templates/list",
	    FILTER_RESOURCES, "resourceTemplates", "uriTemplate" },
};

const char *
filter_kind_name(enum filter_kind kind)
{
	if ((size_t)kind >= FILTER_KINDS)
		return ("?");
	return (filter_kind_names[kind]);
}

int
filter_list_of_method(const char *method, enum filter_list *out)
{
	size_t	 i;

	for (i = 0; i < FILTER_LISTS; i++) {
		if (strcmp(filter_lists[i].method, method) == 0) {
			*out = (enum filter_list)i;
			return (0);
		}
	}
	return (-1);
}

enum filter_kind
filter_list_kind(enum filter_list list)
{
	return (filter_lists[list].kind);
}

const char *
filter_list_member(enum filter_list list)
{
	return (filter_lists[list].member);
}

const char *
filter_list_key(enum filter_list list)
{
	return (filter_lists[list].key);
}

/*
 * Patterns.
 */

/* The POSIX classes, in the C locale (ASCII only). */
static int
filter_class(const char *name, size_t len, unsigned char c)
{
#define FILTER_CLASS_IS(s) (len == sizeof s - 1 && memcmp(name, s, len) == 0)
	int	 upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z';
	int	 digit = c >= '0' && c <= '9';
	int	 graph = c > 0x20 && c < 0x7f;

	if (FILTER_CLASS_IS("alpha"))
		return (upper || lower);
	if (FILTER_CLASS_IS("digit"))
		return (digit);
	if (FILTER_CLASS_IS("alnum"))
		return (upper || lower || digit);
	if (FILTER_CLASS_IS("upper"))
		return (upper);
	if (FILTER_CLASS_IS("lower"))
		return (lower);
	if (FILTER_CLASS_IS("space"))
		return (c == ' ' || (c >= '\t' && c <= '\r'));
	if (FILTER_CLASS_IS("blank"))
		return (c == ' ' || c == '\t');
	if (FILTER_CLASS_IS("punct"))
		return (graph && !upper && !lower && !digit);
	if (FILTER_CLASS_IS("print"))
		return (graph || c == ' ');
	if (FILTER_CLASS_IS("graph"))
		return (graph);
	if (FILTER_CLASS_IS("cntrl"))
		return (c < 0x20 || c == 0x7f);
	if (FILTER_CLASS_IS("xdigit"))
		return (digit || (c >= 'a' && c <= 'f') ||
		    (c >= 'A' && c <= 'F'));
	return (-1);
#undef FILTER_CLASS_IS
}

/*
 * A bracket expression at p (its '['), against c: 1 if it matches, 0 if
 * not, -1 if it is not one filter_pattern_error accepts.  *next is set
 * past its ']'.  With c -1 it is only checked.
 */
static int
filter_bracket(const unsigned char *p, int c, const unsigned char **next)
{
	const unsigned char	*name;
	unsigned char		 lo, hi;
	int			 negate = 0, matched = 0, first = 1, in;

	p++;
	if (*p == '!' || *p == '^') {
		negate = 1;
		p++;
	}
	for (;; first = 0) {
		if (*p == '\0')
			return (-1);
		if (*p == ']' && !first) {
			p++;
			break;
		}
		if (p[0] == '[' && (p[1] == '.' || p[1] == '='))
			return (-1);
		if (p[0] == '[' && p[1] == ':') {
			name = p + 2;
			for (p = name; *p >= 'a' && *p <= 'z'; p++)
				;
			if (p[0] != ':' || p[1] != ']')
				return (-1);
			in = filter_class((const char *)name,
			    (size_t)(p - name), c < 0 ? 0 : (unsigned char)c);
			if (in == -1)
				return (-1);
			if (in && c >= 0)
				matched = 1;
			p += 2;
			continue;
		}
		lo = *p++;
		if (lo == '\\' && (lo = *p++) == '\0')
			return (-1);
		if (p[0] == '-' && p[1] != ']' && p[1] != '\0') {
			/* A range cannot end in a class: fnmatch refuses it. */
			if (p[1] == '[' && (p[2] == ':' || p[2] == '.' ||
			    p[2] == '='))
				return (-1);
			hi = p[1];
			p += 2;
			if (hi == '\\' && (hi = *p++) == '\0')
				return (-1);
			if (c >= lo && c <= hi)
				matched = 1;
		} else if (c == lo)
			matched = 1;
	}
	*next = p;
	return (matched != negate);
}

const char *
filter_pattern_error(const char *pattern)
{
	const unsigned char	*p = (const unsigned char *)pattern, *next;

	if (*p == '\0')
		return ("empty pattern");
	if (strlen(pattern) > FILTER_MAX_PATTERN_BYTES)
		return ("pattern longer than 1024 bytes");
	while (*p != '\0') {
		if (*p == '\\') {
			if (p[1] == '\0')
				return ("pattern ends with an unescaped '\\'");
			p += 2;
		} else if (*p == '[') {
			if (filter_bracket(p, -1, &next) == -1)
				return ("unterminated '[', unknown class, or "
				    "unsupported \"[.\" or \"[=\" (write \\[ "
				    "for a literal '[')");
			p = next;
		} else
			p++;
	}
	return (NULL);
}

int
filter_glob(const char *pattern, const char *name)
{
	const unsigned char	*p = (const unsigned char *)pattern;
	const unsigned char	*s = (const unsigned char *)name;
	const unsigned char	*star_p = NULL, *star_s = NULL, *next;
	int			 m;

	for (;;) {
		if (*p == '*') {
			while (*p == '*')
				p++;
			star_p = p;
			star_s = s;
			continue;
		}
		if (*s == '\0') {
			if (*p == '\0')
				return (1);
			goto retry;
		}
		switch (*p) {
		case '?':
			p++;
			s++;
			continue;
		case '[':
			if ((m = filter_bracket(p, *s, &next)) == 1) {
				p = next;
				s++;
				continue;
			}
			if (m == 0)
				goto retry;
			break;		/* not a bracket: a literal '[' */
		case '\\':
			if (p[1] == '\0')
				return (0);	/* as fnmatch: it never matches */
			p++;
			break;
		}
		if (*p == *s) {
			p++;
			s++;
			continue;
		}
retry:
		/* The last '*' takes one byte more, if there is one. */
		if (star_p == NULL || *star_s == '\0')
			return (0);
		p = star_p;
		s = ++star_s;
	}
}

int
filter_allows(const struct filter *f, const char *name)
{
	return (filter_allows_any(f, &name, 1));
}

int
filter_allows_any(const struct filter *f, const char *const *names,
    size_t n)
{
	size_t	 i, j;

	if (f == NULL)
		return (1);
	for (i = 0; i < f->ndeny; i++)
		for (j = 0; j < n; j++)
			if (filter_glob(f->deny[i], names[j]))
				return (0);
	if (!f->has_allow)
		return (1);
	for (i = 0; i < f->nallow; i++)
		for (j = 0; j < n; j++)
			if (filter_glob(f->allow[i], names[j]))
				return (1);
	return (0);
}

/*
 * The entry name of a list judged by f; norm has room for its normal
 * form (strlen(name) + URINORM_GROWTH_BYTES + 1 bytes) when list names
 * URIs or templates, else it may be NULL.  -1 (with *why) for a URI
 * without a normal form.
 */
static int
filter_judge(const struct filter *f, enum filter_list list, const char *name,
    char *norm, const char **why)
{
	const char	*ignored;

	switch (list) {
	case FILTER_LIST_RESOURCES:
		if (urinorm(name, norm, why) == -1)
			return (-1);
		return (filter_allows(f, norm));
	case FILTER_LIST_TEMPLATES:
		/* A template without a normal form is judged as written. */
		if (!filter_allows(f, name))
			return (0);
		return (urinorm(name, norm, &ignored) == -1 ||
		    filter_allows(f, norm));
	default:
		return (filter_allows(f, name));
	}
}

/* filter_judge with a buffer of its own. */
static int
filter_judge_alloc(const struct filter *f, enum filter_list list,
    const char *name, const char **why)
{
	char	*norm;
	int	 rc;

	if (f == NULL || filter_list_kind(list) != FILTER_RESOURCES)
		return (filter_allows(f, name));
	norm = xmalloc(strlen(name) + URINORM_GROWTH_BYTES + 1);
	rc = filter_judge(f, list, name, norm, why);
	free(norm);
	return (rc);
}

int
filter_check_uri(const struct filter *f, const char *uri, const char **why)
{
	return (filter_judge_alloc(f, FILTER_LIST_RESOURCES, uri, why));
}

int
filter_allows_uri(const struct filter *f, const char *uri)
{
	const char	*why;

	return (filter_check_uri(f, uri, &why) == 1);
}

int
filter_allows_template(const struct filter *f, const char *uri_template)
{
	const char	*why;

	return (filter_judge_alloc(f, FILTER_LIST_TEMPLATES, uri_template,
	    &why) == 1);
}

int
filter_allows_entry(const struct filter *f, enum filter_list list,
    const char *name)
{
	const char	*why;

	if ((size_t)list >= FILTER_LISTS)
		return (0);
	return (filter_judge_alloc(f, list, name, &why) == 1);
}

enum filter_result
filter_links_text(const struct filter *f, const char *text, size_t len,
    char **out, size_t *outlen)
{
	cJSON		*result, *content, *item, *next, *type, *uri;
	size_t		 removed = 0;

	*out = NULL;
	*outlen = 0;
	if (f == NULL || memmem(text, len, "resource_link", 13) == NULL ||
	    (result = cJSON_ParseWithLength(text, len)) == NULL)
		return (FILTER_KEPT);
	content = cJSON_GetObjectItemCaseSensitive(result, "content");
	for (item = cJSON_IsArray(content) ? content->child : NULL;
	    item != NULL; item = next) {
		next = item->next;
		type = cJSON_GetObjectItemCaseSensitive(item, "type");
		if (!cJSON_IsString(type) ||
		    strcmp(type->valuestring, "resource_link") != 0)
			continue;
		uri = cJSON_GetObjectItemCaseSensitive(item, "uri");
		if (cJSON_IsString(uri) && filter_allows_entry(f,
		    FILTER_LIST_RESOURCES, uri->valuestring))
			continue;
		cJSON_Delete(cJSON_DetachItemViaPointer(content, item));
		removed++;
	}
	if (removed > 0 && (*out = cJSON_PrintUnformatted(result)) != NULL)
		*outlen = strlen(*out);
	cJSON_Delete(result);
	return (*out != NULL ? FILTER_CHANGED : FILTER_KEPT);
}

/*
 * Configuration.
 */

static void
filter_report(filter_error_fn error, void *arg, const char *path,
    const char *suffix, const char *message)
{
	char	*full;

	xasprintf(&full, "%s%s", path, suffix);
	error(arg, full, message);
	free(full);
}

/* One list; returns -1 after reporting. */
static int
filter_parse_patterns(const cJSON *array, enum filter_kind kind,
    const char *path, filter_error_fn error, void *arg, char ***out,
    size_t *nout)
{
	const cJSON	*e;
	const char	*why;
	char		 index[32];
	size_t		 i = 0;
	int		 rc = 0;

	if (!cJSON_IsArray(array)) {
		filter_report(error, arg, path, "", "expected an array of "
		    "glob patterns (strings)");
		return (-1);
	}
	if (cJSON_GetArraySize(array) > FILTER_MAX_PATTERNS) {
		filter_report(error, arg, path, "", "more than 1024 patterns");
		return (-1);
	}
	cJSON_ArrayForEach(e, array) {
		snprintf(index, sizeof index, "[%zu]", i++);
		if (!cJSON_IsString(e))
			why = "expected a string (a glob pattern)";
		else if ((why = filter_pattern_error(e->valuestring)) ==
		    NULL && kind == FILTER_RESOURCES)
			why = urinorm_pattern_error(e->valuestring);
		if (why != NULL) {
			filter_report(error, arg, path, index, why);
			rc = -1;
		} else if (rc == 0) {
			*out = xreallocarray(*out, *nout + 1, sizeof **out);
			(*out)[(*nout)++] = xstrdup(e->valuestring);
		}
	}
	return (rc);
}

int
filter_parse(const cJSON *value, enum filter_kind kind, const char *path,
    filter_error_fn error, void *arg, struct filter **out)
{
	struct filter	*f;
	const cJSON	*item;
	char		*kpath;
	int		 rc = 0, seen_allow = 0, seen_deny = 0;

	*out = NULL;
	if (!cJSON_IsObject(value)) {
		filter_report(error, arg, path, "", "expected an object with "
		    "\"allow\" and/or \"deny\" (arrays of glob patterns)");
		return (-1);
	}
	f = xcalloc(1, sizeof *f);
	cJSON_ArrayForEach(item, value) {
		xasprintf(&kpath, "%s.%s", path, item->string);
		if (strcmp(item->string, "allow") == 0 && !seen_allow) {
			seen_allow = 1;
			f->has_allow = 1;
			if (filter_parse_patterns(item, kind, kpath, error,
			    arg, &f->allow, &f->nallow) != 0)
				rc = -1;
		} else if (strcmp(item->string, "deny") == 0 && !seen_deny) {
			seen_deny = 1;
			if (filter_parse_patterns(item, kind, kpath, error,
			    arg, &f->deny, &f->ndeny) != 0)
				rc = -1;
		} else if (strcmp(item->string, "allow") == 0 ||
		    strcmp(item->string, "deny") == 0) {
			error(arg, kpath, "duplicate key");
			rc = -1;
		} else {
			error(arg, kpath, "unknown key: a filter has only "
			    "\"allow\" and \"deny\"");
			rc = -1;
		}
		free(kpath);
	}
	if (rc != 0 || (!f->has_allow && f->ndeny == 0)) {
		filter_free(f);
		return (rc);
	}
	*out = f;
	return (0);
}

struct filter *
filter_dup(const struct filter *f)
{
	struct filter	*copy;

	if (f == NULL)
		return (NULL);
	copy = xcalloc(1, sizeof *copy);
	copy->has_allow = f->has_allow;
	copy->allow = xstrvdup(f->allow, f->nallow);
	copy->nallow = f->nallow;
	copy->deny = xstrvdup(f->deny, f->ndeny);
	copy->ndeny = f->ndeny;
	return (copy);
}

void
filter_free(struct filter *f)
{
	size_t	 i;

	if (f == NULL)
		return;
	for (i = 0; i < f->nallow; i++)
		free(f->allow[i]);
	free(f->allow);
	for (i = 0; i < f->ndeny; i++)
		free(f->deny[i]);
	free(f->deny);
	free(f);
}

int
filter_equal(const struct filter *a, const struct filter *b)
{
	if (a == NULL || b == NULL)
		return (a == b);
	return (a->has_allow == b->has_allow &&
	    strv_equal(a->allow, a->nallow, b->allow, b->nallow) &&
	    strv_equal(a->deny, a->ndeny, b->deny, b->ndeny));
}

/*
 * List results as text.  The text has passed envelope_scan, so strings
 * are closed and brackets balanced; every step still checks the end.
 */

static const char *
filter_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' ||
	    *p == '\r'))
		p++;
	return (p);
}


/*
 * The next member of the object whose text is at base: p is at its '{'
 * (first) or past the last member.  Sets *key (the key's span in base)
 * and *value (where the value starts), or *value to NULL at the end.
 * Returns where the value ends.
 */
static const char *
filter_member(const char *base, const char *p, const char *end, int first,
    struct envelope_value *key, const char **value)
{
	const char	*k;

	*value = NULL;
	p = filter_ws(first ? p + 1 : p, end);
	if (!first && p < end && *p == ',')
		p = filter_ws(p + 1, end);
	if (p >= end || *p != '"')
		return (p);
	k = p;
	p = envelope_skip_string(p, end);
	key->type = ENVELOPE_STRING;
	key->off = (size_t)(k - base);
	key->len = (size_t)(p - k);
	p = filter_ws(p, end);
	if (p >= end || *p != ':')
		return (end);
	*value = filter_ws(p + 1, end);
	return (envelope_skip_value(*value, end));
}

/*
 * 1 if the entry at [p, end) passes: an object with one string member
 * named by the list's key whose decoding keep lets pass.  name has room
 * for end - p bytes.
 */
static int
filter_entry_passes(enum filter_list list, const char *base, const char *p,
    const char *end, char *name, filter_keep_fn keep, void *arg)
{
	const char		*key = filter_lists[list].key;
	struct envelope_value	 k, v;
	const char		*value;
	int			 first = 1, found = 0;

	if (p >= end || *p != '{')
		return (0);
	for (;;) {
		p = filter_member(base, p, end, first, &k, &value);
		first = 0;
		if (value == NULL)
			break;
		if (!envelope_string_eq(base, &k, key))
			continue;
		if (found++ || value >= end || *value != '"')
			return (0);
		v.type = ENVELOPE_STRING;
		v.off = (size_t)(value - base);
		v.len = (size_t)(p - value);
	}
	if (!found || envelope_string_copy(base, &v, name, v.len) < 0)
		return (0);
	return (keep(arg, name));
}

/* A filter's judgement as a keep function; norm as for filter_judge. */
struct filter_keep_judge {
	const struct filter	*f;
	enum filter_list	 list;
	char			*norm;
};

static int
filter_keep_judge(void *arg, const char *name)
{
	struct filter_keep_judge	*j = arg;
	const char			*why;

	return (filter_judge(j->f, j->list, name, j->norm, &why) == 1);
}

enum filter_result
filter_list_text(const struct filter *f, enum filter_list list,
    const char *text, size_t len, char **out, size_t *outlen)
{
	struct filter_keep_judge	 j;
	enum filter_result		 res;

	*out = NULL;
	*outlen = 0;
	if (f == NULL)
		return (FILTER_KEPT);
	if ((size_t)list >= FILTER_LISTS)
		return (FILTER_BAD);
	j.f = f;
	j.list = list;
	/* A URI's normal form is at most this long. */
	j.norm = filter_list_kind(list) == FILTER_RESOURCES ?
	    xmalloc(len + URINORM_GROWTH_BYTES + 1) : NULL;
	res = filter_list_text_by(list, text, len, filter_keep_judge, &j, out,
	    outlen);
	free(j.norm);
	return (res);
}

enum filter_result
filter_list_text_by(enum filter_list list, const char *text, size_t len,
    filter_keep_fn keep, void *arg, char **out, size_t *outlen)
{
	struct envelope		 env;
	struct envelope_value	 k;
	const char		*end = text + len, *p, *value, *array = NULL;
	const char		*array_end = NULL, *elem, *elem_end;
	char			*buf = NULL, *name = NULL;
	size_t			 erroff, o = 0, kept = 0, dropped = 0;
	int			 first = 1;

	*out = NULL;
	*outlen = 0;
	if ((size_t)list >= FILTER_LISTS ||
	    envelope_scan(text, len, &env, &erroff) != 0)
		return (FILTER_BAD);
	p = filter_ws(text, end);
	for (;;) {
		p = filter_member(text, p, end, first, &k, &value);
		first = 0;
		if (value == NULL)
			break;
		if (!envelope_string_eq(text, &k, filter_lists[list].member))
			continue;
		if (array != NULL || value >= end || *value != '[')
			return (FILTER_BAD);
		array = value;
		array_end = p;
	}
	if (array == NULL || array_end - array < 2 || array_end[-1] != ']')
		return (FILTER_BAD);

	/* At most the text, and a name at most as long. */
	buf = xmalloc(len + 1);
	name = xmalloc(len + 1);
	o = (size_t)(array + 1 - text);
	memcpy(buf, text, o);
	elem = filter_ws(array + 1, array_end - 1);
	while (elem < array_end - 1) {
		elem_end = envelope_skip_value(elem, array_end - 1);
		if (filter_entry_passes(list, text, elem, elem_end, name,
		    keep, arg)) {
			if (kept++ > 0)
				buf[o++] = ',';
			memcpy(buf + o, elem, (size_t)(elem_end - elem));
			o += (size_t)(elem_end - elem);
		} else
			dropped++;
		elem = filter_ws(elem_end, array_end - 1);
		if (elem < array_end - 1 && *elem == ',')
			elem = filter_ws(elem + 1, array_end - 1);
		else if (elem < array_end - 1) {
			/* Not what envelope_scan lets through. */
			free(name);
			free(buf);
			return (FILTER_BAD);
		}
	}
	free(name);
	if (dropped == 0) {
		free(buf);
		return (FILTER_KEPT);
	}
	memcpy(buf + o, array_end - 1, (size_t)(end - (array_end - 1)));
	o += (size_t)(end - (array_end - 1));
	buf[o] = '\0';
	*out = buf;
	*outlen = o;
	return (FILTER_CHANGED);
}

/*
 * The one member named key of the object at [p, end) (text at base):
 * *value its span, type ABSENT if there is none.  -1 if key is repeated.
 */
static int
filter_member_once(const char *base, const char *p, const char *end,
    const char *key, struct envelope_value *value)
{
	struct envelope_value	 k;
	const char		*v, *v_end;
	int			 first = 1;

	value->type = ENVELOPE_ABSENT;
	for (;;) {
		v_end = filter_member(base, p, end, first, &k, &v);
		first = 0;
		p = v_end;
		if (v == NULL)
			return (0);
		if (!envelope_string_eq(base, &k, key))
			continue;
		if (value->type != ENVELOPE_ABSENT || v >= end)
			return (-1);
		switch (*v) {
		case '"':
			value->type = ENVELOPE_STRING;
			break;
		case '{':
			value->type = ENVELOPE_OBJECT;
			break;
		case '[':
			value->type = ENVELOPE_ARRAY;
			break;
		default:
			/* Only strings and objects are read here. */
			value->type = ENVELOPE_NULL;
			break;
		}
		value->plain = 0;
		value->off = (size_t)(v - base);
		value->len = (size_t)(v_end - v);
	}
}

enum filter_ref
filter_complete_ref(const char *params, size_t len, char **name)
{
	struct envelope_value	 ref, type, member;
	const char		*end = params + len, *key;
	enum filter_ref		 which;

	*name = NULL;
	if (len == 0 || params[0] != '{' ||
	    filter_member_once(params, params, end, "ref", &ref) == -1 ||
	    ref.type != ENVELOPE_OBJECT ||
	    filter_member_once(params, params + ref.off, params + ref.off +
	    ref.len, "type", &type) == -1 || type.type != ENVELOPE_STRING)
		return (FILTER_REF_BAD);
	if (envelope_string_eq(params, &type, "ref/prompt")) {
		which = FILTER_REF_PROMPT;
		key = "name";
	} else if (envelope_string_eq(params, &type, "ref/resource")) {
		which = FILTER_REF_RESOURCE;
		key = "uri";
	} else
		return (FILTER_REF_OTHER);
	if (filter_member_once(params, params + ref.off, params + ref.off +
	    ref.len, key, &member) == -1 || member.type != ENVELOPE_STRING)
		return (FILTER_REF_BAD);
	if ((*name = envelope_string_dup(params, &member, SIZE_MAX,
	    NULL)) == NULL)
		return (FILTER_REF_BAD);
	return (which);
}

/*
 * List results as trees.
 */

enum filter_result
filter_list_json(const struct filter *f, enum filter_list list,
    cJSON *result)
{
	cJSON		*array, *e, *next, *name;
	size_t		 dropped = 0;

	if (f == NULL)
		return (FILTER_KEPT);
	if ((size_t)list >= FILTER_LISTS || !cJSON_IsObject(result))
		return (FILTER_BAD);
	array = cJSON_GetObjectItemCaseSensitive(result,
	    filter_lists[list].member);
	if (!cJSON_IsArray(array))
		return (FILTER_BAD);
	for (e = array->child; e != NULL; e = next) {
		next = e->next;
		name = cJSON_GetObjectItemCaseSensitive(e,
		    filter_lists[list].key);
		if (cJSON_IsObject(e) && cJSON_IsString(name) &&
		    filter_allows_entry(f, list, name->valuestring))
			continue;
		cJSON_Delete(cJSON_DetachItemViaPointer(array, e));
		dropped++;
	}
	return (dropped > 0 ? FILTER_CHANGED : FILTER_KEPT);
}
