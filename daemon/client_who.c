/*
 * client_who.c -- who a connection is, as mcpd/attach may change it
 * (control.c): a bridge's principal, presented again or new; the app
 * above mcpctl connect; an HTTP token's session, said by mcpd's own
 * mcpd-http alone (ident_http.c).
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>

#include "client.h"
#include "client_int.h"
#include "ident.h"
#include "log.h"
#include "principal.h"

/*
 * mcpd/attach with "principal": the bridge's, or a new one; the secret to
 * present again goes in hex.  -1: none given (at the cap, or it has one),
 * the connection stays its own.
 */
int
client_claim_principal(struct client *c, const char *presented,
    char hex[PRINCIPAL_HEX_LEN + 1])
{
	struct client_who	*w = client_who(c);
	uint64_t		 id;

	if (w->principal_lasts || (id = principal_claim(client_mcpd(c),
	    client_uid(c), presented, hex)) == 0)
		return (-1);
	w->principal = id;
	w->principal_lasts = 1;
	return (0);
}

/*
 * mcpd/attach with "http_token": the connection is an HTTP session of
 * that token, if its peer is mcpd's own mcpd-http; its identity becomes
 * the token and its principal the token's.  0, or -1 and why (malloc'd).
 */
int
client_claim_http_token(struct client *c, const char *token, char **why)
{
	struct client_who	*w = client_who(c);
	struct ident		*id;
	uint64_t		 p;

	if ((id = ident_http_claim(client_mcpd(c), client_fd(c),
	    client_pid(c), client_uid(c), token, why)) == NULL)
		return (-1);
	ident_free(w->ident);
	ident_free(w->bridge_app);
	w->bridge_app = NULL;
	w->ident = id;
	if (!w->principal_lasts && (p = principal_token(client_mcpd(c),
	    client_uid(c), token)) != 0) {
		w->principal = p;
		w->principal_lasts = 1;
	}
	log_debug("client %llu is an HTTP session of token %s",
	    (unsigned long long)client_serial(c), token);
	return (0);
}

/* It attached as mcpctl connect: the app above it (ident_bridge). */
void
client_ident_bridge(struct client *c)
{
	struct client_who	*w = client_who(c);

	ident_bridge(&w->ident, &w->bridge_app, client_serial(c));
}
