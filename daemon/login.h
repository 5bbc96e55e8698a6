/*
 * login.h -- `mcpctl login` and `mcpctl logout` on mcpd's side: the
 * sign-ins under way, each an mcpd-remote process in login or logout
 * mode (remote/signin.h) that mcpd talks to over a socketpair.
 *
 * mcpd holds no token: the process runs the OAuth flow and writes the
 * token file; mcpd relays the authorization URL to mcpctl and the
 * redirect's code and state back, then restarts the server.  A sign-in
 * belongs to the connection that began it (closing it ends the sign-in),
 * and there is one per server at a time.
 */
#ifndef MCPD_LOGIN_H
#define MCPD_LOGIN_H

#include <sys/types.h>

#include <cjson/cJSON.h>

struct client;
struct mcpd;

/* mcpd/login, mcpd/login-complete, mcpd/logout (admin; control.c). */
void	login_begin(struct mcpd *, struct client *, const cJSON *id,
	    const cJSON *params);
void	login_complete(struct mcpd *, struct client *, const cJSON *id,
	    const cJSON *params);
void	login_logout(struct mcpd *, struct client *, const cJSON *id,
	    const cJSON *params);
/* The SIGCHLD handler: 1 if pid was a sign-in's process. */
int	login_reaped(struct mcpd *, pid_t, int wstatus);
/* A connection went: its sign-in ends. */
void	login_client_gone(struct mcpd *, uint64_t serial);
/* mcpd exits: end them all. */
void	login_free_all(struct mcpd *);

#endif /* MCPD_LOGIN_H */
