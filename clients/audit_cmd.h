/*
 * audit_cmd.h -- mcpctl audit: the calls' records in the journal.
 */
#ifndef MCPD_AUDIT_CMD_H
#define MCPD_AUDIT_CMD_H

#include "ctl.h"

ctl_command_fn	audit_run;

#endif /* MCPD_AUDIT_CMD_H */
