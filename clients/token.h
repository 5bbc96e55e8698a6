/*
 * token.h -- mcpctl token: the HTTP front's bearer tokens, made, listed
 * and revoked in their store (src/htoken.h); mcpd need not run.
 */
#ifndef MCPD_TOKEN_H
#define MCPD_TOKEN_H

#include <stdint.h>

#include "ctl.h"

ctl_command_fn	token_run;

/*
 * Use the store of the mcpd at ctl's socket (its --token-dir) if it
 * answers, else the default one (paths_default_token_dir).
 */
void	token_store_of(struct ctl *);
/* Use the store in dir (mcpd's token_dir), or the default one if NULL. */
void	token_store_at(const char *dir);

/*
 * A new token named name (servers comma separated, or NULL for every
 * one; expires 0: never), its hash stored: DIAG_EXIT_OK with *token
 * malloc'd (wipe it when done), or an exit code after a message.
 */
int	token_new(const char *name, const char *servers, int64_t expires,
	    char **token);
/* The token named name taken out: 1, 0 if there was none, -1 (said). */
int	token_drop(const char *name);

#endif /* MCPD_TOKEN_H */
