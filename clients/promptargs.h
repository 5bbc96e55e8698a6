/*
 * promptargs.h -- a prompt's arguments as mcpctl prompt takes them:
 * KEY=VALUE words, each VALUE a string (MCP's prompt arguments are
 * strings), checked against the prompt as prompts/list describes it
 * (pure: cJSON only).
 */
#ifndef MCPD_PROMPTARGS_H
#define MCPD_PROMPTARGS_H

#include <cjson/cJSON.h>

/*
 * The arguments object into *out (caller frees), or a usage error said
 * on stderr under label: DIAG_EXIT_OK or DIAG_EXIT_USAGE.  prompt: the
 * prompt named name as prompts/list describes it, or NULL when unknown
 * (then only the words are checked).  With it, a KEY that it does not
 * take, or a required argument left out, is refused, the message listing
 * the prompt's arguments.
 */
int	 promptargs_parse(const char *label, const char *name, int argc,
	    char **argv, const cJSON *prompt, cJSON **out);
/*
 * The prompt's arguments on one line, "city (required), state", or
 * "none" (caller frees).
 */
char	*promptargs_describe(const cJSON *prompt);

#endif /* MCPD_PROMPTARGS_H */
