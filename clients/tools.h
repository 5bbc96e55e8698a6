/*
 * tools.h -- the commands that speak MCP with a server through mcpd:
 * `mcpctl tools NAME`, `mcpctl call NAME TOOL [ARGS]` and `mcpctl ping
 * NAME`.  With --json they print machine-readable JSON on stdout.
 */
#ifndef MCPD_TOOLS_H
#define MCPD_TOOLS_H

#include "ctl.h"

/* argv: NAME */
ctl_command_fn	tools_list;
/* argv: NAME TOOL, then one JSON object or KEY=VALUE pairs (callargs.h) */
ctl_command_fn	tools_call;
/* argv: NAME */
ctl_command_fn	tools_ping;

#endif /* MCPD_TOOLS_H */
