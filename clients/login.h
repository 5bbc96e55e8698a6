/*
 * login.h -- signing in to a hosted server and out again: `mcpctl login`
 * and `mcpctl logout`, over the admin connection (admin.h).  mcpd runs
 * the OAuth flow and keeps the tokens; mcpctl carries the browser's part.
 */
#ifndef MCPD_LOGIN_H
#define MCPD_LOGIN_H

#include "ctl.h"

ctl_command_fn	login_login;	/* NAME; ctl->no_browser */
ctl_command_fn	login_logout;	/* NAME */

#endif /* MCPD_LOGIN_H */
