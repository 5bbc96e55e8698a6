/*
 * signin.h -- a sign-in or a sign-out, when mcpd runs mcpd-remote for
 * `mcpctl login` or `mcpctl logout` (settings "login": {"mode"}) instead
 * of a session.
 *
 * A sign-in is the OAuth 2.1 authorization code grant with PKCE (S256)
 * of the MCP authorization spec 2025-11-25:
 *   1. an unauthenticated initialize, for the 401's WWW-Authenticate;
 *   2. discovery (oauth.h): protected resource metadata, authorization
 *      server metadata; a server that does not list S256 in
 *      code_challenge_methods_supported is refused;
 *   3. the client: the configured client_id (pre-registered), else the
 *      Client ID Metadata Document URL when the server supports them,
 *      else the client an earlier sign-in registered at the same
 *      authorization server, else dynamic registration (RFC 7591) for
 *      the redirect URI;
 *   4. the authorization URL (response_type=code, client_id,
 *      redirect_uri, code_challenge, state, resource (RFC 8707), scope:
 *      configured, else the challenge's, else scopes_supported, plus any
 *      a step-up asked for) goes to mcpd on the status channel
 *      ("login-url"), which hands it to mcpctl;
 *   5. mcpd sends back what reached mcpctl's listener: {"code","state",
 *      "iss"?} or {"error","error_description","state"}; the state must
 *      be this sign-in's (compared in constant time), and iss, if there
 *      (RFC 9207), the issuer's, or nothing is exchanged;
 *   6. the code is redeemed (oauth_exchange) and the tokens written to
 *      the token file; "login-done" or "login-failed" ends it.
 * A sign-out revokes and removes (oauth_sign_out): "logout-done".
 *
 * The process exits 0 when done, 77 when the sign-in failed, 69 when
 * mcpd's channel is gone; nothing of a token, the code, the verifier or a
 * secret is ever written to the channel or stderr.
 */
#ifndef MCPD_SIGNIN_H
#define MCPD_SIGNIN_H

struct remote;

/* Start it on r's event loop (r->oauth set); returns the exit code. */
int	signin_run(struct remote *, int channel_fd);

#endif /* MCPD_SIGNIN_H */
