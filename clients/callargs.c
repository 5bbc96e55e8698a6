/*
 * callargs.c -- a tool's arguments from mcpctl call's command line.
 *
 * One JSON object is taken as it is.  KEY=VALUE words are typed from the
 * tool's inputSchema (its "properties"), as a person means them:
 * message=42 is the text "42" for a property of type string and the
 * number 42 for one of type number.  A property whose type the schema
 * does not say plainly (none, several, a $ref), or a VALUE that is not
 * what its type wants, falls back to guessing from the text, as when the
 * schema is unknown; the server judges what it gets.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "callargs.h"
#include "diag.h"
#include "xmalloc.h"

/* The JSON types a property takes, as bits. */
#define CALLARGS_STRING		0x01
#define CALLARGS_NUMBER		0x02	/* number or integer */
#define CALLARGS_BOOLEAN	0x04
#define CALLARGS_OBJECT		0x08
#define CALLARGS_ARRAY		0x10
#define CALLARGS_NULL		0x20
#define CALLARGS_OTHER		0x40	/* a type word mcpctl does not know */

/* Is text exactly a JSON number (so "007" or "1." stay strings)? */
static int
callargs_is_json_number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9') {
		while (*p >= '0' && *p <= '9')
			p++;
	} else
		return (0);
	if (*p == '.') {
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return (0);
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return (0);
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return (*p == '\0');
}

/*
 * A value guessed from its text: JSON if it parses, else the text as a
 * string.  Numbers keep their exact text, so big integers are not
 * rounded.
 */
static cJSON *
callargs_guess(const char *text)
{
	cJSON	*v;

	if (callargs_is_json_number(text))
		return (cJSON_CreateRaw(text));
	v = cJSON_ParseWithOpts(text, NULL, 1);
	if (v != NULL && !cJSON_IsNumber(v))
		return (v);
	cJSON_Delete(v);
	return (cJSON_CreateString(text));
}

static int
callargs_type_word(const char *word)
{
	if (strcmp(word, "string") == 0)
		return (CALLARGS_STRING);
	if (strcmp(word, "number") == 0 || strcmp(word, "integer") == 0)
		return (CALLARGS_NUMBER);
	if (strcmp(word, "boolean") == 0)
		return (CALLARGS_BOOLEAN);
	if (strcmp(word, "object") == 0)
		return (CALLARGS_OBJECT);
	if (strcmp(word, "array") == 0)
		return (CALLARGS_ARRAY);
	if (strcmp(word, "null") == 0)
		return (CALLARGS_NULL);
	return (CALLARGS_OTHER);
}

/* The types of a JSON value, for "enum" and "const". */
static int
callargs_value_type(const cJSON *v)
{
	if (cJSON_IsString(v))
		return (CALLARGS_STRING);
	if (cJSON_IsNumber(v))
		return (CALLARGS_NUMBER);
	if (cJSON_IsBool(v))
		return (CALLARGS_BOOLEAN);
	if (cJSON_IsObject(v))
		return (CALLARGS_OBJECT);
	if (cJSON_IsArray(v))
		return (CALLARGS_ARRAY);
	if (cJSON_IsNull(v))
		return (CALLARGS_NULL);
	return (CALLARGS_OTHER);
}

/*
 * The types a property's schema allows: "type" (a word or a list),
 * "enum", "const", and the alternatives of "anyOf" and "oneOf" (one
 * level).  0: it does not say.
 */
static int
callargs_types(const cJSON *prop, int depth)
{
	static const char *const alternatives[] = { "anyOf", "oneOf" };
	const cJSON	*type, *e, *v;
	size_t		 k;
	int		 types = 0, alt;

	if (!cJSON_IsObject(prop))
		return (0);
	type = cJSON_GetObjectItemCaseSensitive(prop, "type");
	if (cJSON_IsString(type))
		types |= callargs_type_word(type->valuestring);
	else if (cJSON_IsArray(type)) {
		cJSON_ArrayForEach(e, type)
			types |= cJSON_IsString(e) ?
			    callargs_type_word(e->valuestring) :
			    CALLARGS_OTHER;
	}
	if (types == 0 && cJSON_IsArray(e =
	    cJSON_GetObjectItemCaseSensitive(prop, "enum"))) {
		cJSON_ArrayForEach(v, e)
			types |= callargs_value_type(v);
	}
	if (types == 0 && (e = cJSON_GetObjectItemCaseSensitive(prop,
	    "const")) != NULL)
		types |= callargs_value_type(e);
	for (k = 0; types == 0 && depth == 0 && k < 2; k++) {
		cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(prop,
		    alternatives[k])) {
			if ((alt = callargs_types(e, 1)) == 0)
				return (0);	/* one says nothing */
			types |= alt;
		}
	}
	return (types);
}

/* A value for a property of these types; NULL: guess it. */
static cJSON *
callargs_typed(const char *text, int types)
{
	cJSON	*v;

	/* Null allowed: "null" is null. */
	if ((types & CALLARGS_NULL) != 0) {
		if (strcmp(text, "null") == 0)
			return (cJSON_CreateNull());
		types &= ~CALLARGS_NULL;
	}
	switch (types) {
	case CALLARGS_STRING:
		return (cJSON_CreateString(text));
	case CALLARGS_NUMBER:
		return (callargs_is_json_number(text) ?
		    cJSON_CreateRaw(text) : NULL);
	case CALLARGS_BOOLEAN:
		if (strcmp(text, "true") == 0)
			return (cJSON_CreateTrue());
		if (strcmp(text, "false") == 0)
			return (cJSON_CreateFalse());
		return (NULL);
	case CALLARGS_OBJECT:
	case CALLARGS_ARRAY:
	case CALLARGS_OBJECT | CALLARGS_ARRAY:
		v = cJSON_ParseWithOpts(text, NULL, 1);
		if (v != NULL && (callargs_value_type(v) & types) != 0)
			return (v);
		cJSON_Delete(v);
		return (NULL);
	}
	return (NULL);
}

static cJSON *
callargs_value(const char *key, const char *text, const cJSON *schema)
{
	const cJSON	*prop;
	cJSON		*v;

	prop = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(schema, "properties"), key);
	if ((v = callargs_typed(text, callargs_types(prop, 0))) != NULL)
		return (v);
	return (callargs_guess(text));
}

/* The first word, after blanks, opens a JSON object. */
static int
callargs_is_object(int argc, char **argv)
{
	return (argc > 0 && argv[0][strspn(argv[0], " \t\r\n")] == '{');
}

int
callargs_keyvalue(int argc, char **argv)
{
	return (argc > 0 && !callargs_is_object(argc, argv));
}

static int
callargs_object(int argc, char **argv, cJSON **out)
{
	cJSON		*args;
	const char	*end = NULL;

	if (argc > 1) {
		diag_warnx("call", "a JSON object must be the only argument "
		    "after the tool name");
		return (DIAG_EXIT_USAGE);
	}
	args = cJSON_ParseWithOpts(argv[0], &end, 1);
	if (!cJSON_IsObject(args)) {
		diag_warnx("call", "the arguments are not a valid JSON object "
		    "(error at byte %zu)", args == NULL && end != NULL ?
		    (size_t)(end - argv[0]) : (size_t)0);
		cJSON_Delete(args);
		return (DIAG_EXIT_USAGE);
	}
	*out = args;
	return (DIAG_EXIT_OK);
}

int
callargs_parse(int argc, char **argv, const cJSON *schema, cJSON **out)
{
	cJSON		*args;
	const char	*eq;
	char		*key;
	int		 i;

	*out = NULL;
	if (callargs_is_object(argc, argv))
		return (callargs_object(argc, argv, out));

	args = cJSON_CreateObject();
	for (i = 0; i < argc; i++) {
		if ((eq = strchr(argv[i], '=')) == NULL || eq == argv[i]) {
			diag_warnx("call", "expected KEY=VALUE or one JSON "
			    "object, got \"%s\"", argv[i]);
			cJSON_Delete(args);
			return (DIAG_EXIT_USAGE);
		}
		key = xstrndup(argv[i], (size_t)(eq - argv[i]));
		if (cJSON_GetObjectItemCaseSensitive(args, key) != NULL) {
			diag_warnx("call", "argument \"%s\" given twice", key);
			free(key);
			cJSON_Delete(args);
			return (DIAG_EXIT_USAGE);
		}
		cJSON_AddItemToObject(args, key, callargs_value(key, eq + 1,
		    schema));
		free(key);
	}
	*out = args;
	return (DIAG_EXIT_OK);
}
