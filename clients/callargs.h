/*
 * callargs.h -- a tool's arguments as mcpctl call takes them: one JSON
 * object, or KEY=VALUE words, each VALUE typed from the tool's
 * inputSchema when mcpctl has it (pure: cJSON only).
 */
#ifndef MCPD_CALLARGS_H
#define MCPD_CALLARGS_H

#include <cjson/cJSON.h>

/* Are the words KEY=VALUE pairs (not one JSON object, not none)? */
int	callargs_keyvalue(int argc, char **argv);
/*
 * The arguments object into *out (caller frees), or a usage error said
 * on stderr: DIAG_EXIT_OK or DIAG_EXIT_USAGE.  schema: the tool's
 * inputSchema, or NULL when unknown.  A VALUE whose property the schema
 * types as a string is that string; as a number or integer, the number
 * as written; as a boolean, true or false; as an object or array, that
 * JSON.  A VALUE the schema does not type, or that is not what its type
 * wants, is guessed: a JSON number (exact text) or other valid JSON is
 * that value, anything else a string.
 */
int	callargs_parse(int argc, char **argv, const cJSON *schema,
	    cJSON **out);

#endif /* MCPD_CALLARGS_H */
