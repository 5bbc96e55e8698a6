/*
 * prompts.h -- a server's prompts through mcpd: `mcpctl prompts NAME`
 * lists them with their arguments, `mcpctl prompt NAME PROMPT
 * [KEY=VALUE...]` gets one and prints its messages.  With --json they
 * print machine-readable JSON on stdout.
 */
#ifndef MCPD_PROMPTS_H
#define MCPD_PROMPTS_H

#include "ctl.h"

/* argv: NAME */
ctl_command_fn	prompts_list;
/* argv: NAME PROMPT, then KEY=VALUE pairs (promptargs.h) */
ctl_command_fn	prompts_get;

#endif /* MCPD_PROMPTS_H */
