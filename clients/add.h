/*
 * add.h -- mcpctl add and remove (add.c): one server of mcpd's
 * configuration, added or taken out by name.  Each parses its own
 * arguments (argv after the command's name).
 */
#ifndef MCPD_ADD_H
#define MCPD_ADD_H

#include "ctl.h"

ctl_command_fn	add_run;	/* NAME [--env K=V]... -- COMMAND ARGS... */
ctl_command_fn	add_remove;	/* NAME */

#endif /* MCPD_ADD_H */
