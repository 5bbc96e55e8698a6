/*
 * promptargs.c -- a prompt's arguments from mcpctl prompt's command line.
 *
 * MCP's prompts take string arguments only, each named in the prompt's
 * entry of prompts/list ("arguments": name, description, required), so
 * a VALUE is never typed: city=42 is the text "42".  What the list says
 * is checked before the prompt is asked for, as a person wants it: a
 * misspelt KEY or a required argument left out is refused naming the
 * prompt's arguments, rather than sent to a server that may fill in
 * "undefined".  Entries of the list without a string name are skipped.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "diag.h"
#include "promptargs.h"
#include "sbuf.h"
#include "xmalloc.h"

/* The prompt's argument named key, or NULL. */
static const cJSON *
promptargs_find(const cJSON *prompt, const char *key)
{
	const cJSON	*arg, *name;

	cJSON_ArrayForEach(arg, cJSON_GetObjectItemCaseSensitive(prompt,
	    "arguments")) {
		name = cJSON_GetObjectItemCaseSensitive(arg, "name");
		if (cJSON_IsString(name) && strcmp(name->valuestring, key) == 0)
			return (arg);
	}
	return (NULL);
}

static int
promptargs_required(const cJSON *arg)
{
	return (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(arg,
	    "required")));
}

char *
promptargs_describe(const cJSON *prompt)
{
	struct sbuf	 b;
	const cJSON	*arg, *name;

	memset(&b, 0, sizeof b);
	cJSON_ArrayForEach(arg, cJSON_GetObjectItemCaseSensitive(prompt,
	    "arguments")) {
		name = cJSON_GetObjectItemCaseSensitive(arg, "name");
		if (!cJSON_IsString(name))
			continue;
		sbuf_printf(&b, "%s%s%s", b.len > 0 ? ", " : "",
		    name->valuestring, promptargs_required(arg) ?
		    " (required)" : "");
	}
	if (b.len == 0)
		sbuf_adds(&b, "none");
	return (b.p);
}

/* The required arguments not in args, refused; DIAG_EXIT_OK if none. */
static int
promptargs_missing(const char *label, const char *name, const cJSON *prompt,
    const cJSON *args)
{
	struct sbuf	 b;
	const cJSON	*arg, *aname;
	char		*all;
	int		 n = 0;

	memset(&b, 0, sizeof b);
	cJSON_ArrayForEach(arg, cJSON_GetObjectItemCaseSensitive(prompt,
	    "arguments")) {
		aname = cJSON_GetObjectItemCaseSensitive(arg, "name");
		if (!cJSON_IsString(aname) || !promptargs_required(arg) ||
		    cJSON_GetObjectItemCaseSensitive(args,
		    aname->valuestring) != NULL)
			continue;
		sbuf_printf(&b, "%s%s", n++ > 0 ? ", " : "",
		    aname->valuestring);
	}
	if (n == 0)
		return (DIAG_EXIT_OK);
	all = promptargs_describe(prompt);
	diag_warnx(label, "%s: missing required argument%s %s (as KEY=VALUE; "
	    "its arguments: %s)", name, n > 1 ? "s" : "", b.p, all);
	free(all);
	free(b.p);
	return (DIAG_EXIT_USAGE);
}

int
promptargs_parse(const char *label, const char *name, int argc, char **argv,
    const cJSON *prompt, cJSON **out)
{
	cJSON		*args;
	const char	*eq;
	char		*key, *all;
	int		 i;

	*out = NULL;
	args = cJSON_CreateObject();
	for (i = 0; i < argc; i++) {
		if ((eq = strchr(argv[i], '=')) == NULL || eq == argv[i]) {
			diag_warnx(label, "%s: expected KEY=VALUE, got \"%s\"",
			    name, argv[i]);
			goto usage;
		}
		key = xstrndup(argv[i], (size_t)(eq - argv[i]));
		if (cJSON_GetObjectItemCaseSensitive(args, key) != NULL) {
			diag_warnx(label, "%s: argument \"%s\" given twice",
			    name, key);
			free(key);
			goto usage;
		}
		if (prompt != NULL && promptargs_find(prompt, key) == NULL) {
			all = promptargs_describe(prompt);
			if (strcmp(all, "none") == 0)
				diag_warnx(label, "%s: unknown argument \"%s\" "
				    "(it takes no arguments)", name, key);
			else
				diag_warnx(label, "%s: unknown argument \"%s\" "
				    "(its arguments: %s)", name, key, all);
			free(all);
			free(key);
			goto usage;
		}
		cJSON_AddStringToObject(args, key, eq + 1);
		free(key);
	}
	if (prompt != NULL && promptargs_missing(label, name, prompt, args) !=
	    DIAG_EXIT_OK)
		goto usage;
	*out = args;
	return (DIAG_EXIT_OK);

usage:
	cJSON_Delete(args);
	return (DIAG_EXIT_USAGE);
}
