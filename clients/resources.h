/*
 * resources.h -- a server's resources through mcpd: `mcpctl resources
 * NAME` lists them and its resource templates, `mcpctl read NAME URI
 * [--output FILE]` prints one or writes its bytes.  With --json they
 * print machine-readable JSON on stdout.
 */
#ifndef MCPD_RESOURCES_H
#define MCPD_RESOURCES_H

#include "ctl.h"

/* argv: NAME */
ctl_command_fn	resources_list;
/* argv: NAME URI; ctl->output: the file for its bytes, "-" stdout */
ctl_command_fn	resources_read;

#endif /* MCPD_RESOURCES_H */
