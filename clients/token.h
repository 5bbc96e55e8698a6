/*
 * token.h -- mcpctl token: the HTTP front's bearer tokens, made, listed
 * and revoked in their store (src/htoken.h), without mcpd.
 */
#ifndef MCPD_TOKEN_H
#define MCPD_TOKEN_H

#include "ctl.h"

ctl_command_fn	token_run;

#endif /* MCPD_TOKEN_H */
