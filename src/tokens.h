/*
 * tokens.h -- what a sign-in leaves for one remote server: the text of
 * its token file (pure; the file itself is remote/store.c's).
 *
 *   {"mcpd_tokens": 1,
 *    "server_url": "https://...",       the server signed in to
 *    "resource": "https://...",         RFC 8707 resource asked for
 *    "issuer": "https://...",           the authorization server
 *    "token_endpoint": "https://...",
 *    "revocation_endpoint": "https://...",                 optional
 *    "client": {"client_id": "...", "client_secret": "...",   optional
 *               "auth_method": "none" | "client_secret_basic" |
 *                              "client_secret_post",
 *               "source": "config" | "metadata-document" | "registered"},
 *    "access_token": "...", "refresh_token": "...",          optional
 *    "scope": "...",                                          optional
 *    "expires_at": 1767225600,  the access token's expiry, wall clock
 *                               seconds from expires_in; 0: unknown
 *    "obtained_at": 1767222000}
 *
 * Promises: tokens_parse refuses anything but that shape (a string too
 * long, a control character, a newer format) with a reason that quotes no
 * value; tokens_format's text and every copy tokens_clear frees are
 * wiped before they go.
 */
#ifndef MCPD_TOKENS_H
#define MCPD_TOKENS_H

#include <stddef.h>
#include <stdint.h>

#define TOKENS_VERSION		1
/* A token file larger than this is not one. */
#define TOKENS_MAX_BYTES	(256 * 1024)
#define TOKENS_MAX_STRING	16384

struct tokens {
	char	*server_url;
	char	*resource;
	char	*issuer;
	char	*token_endpoint;
	char	*revocation_endpoint;
	char	*client_id;
	char	*client_secret;
	char	*auth_method;
	char	*client_source;
	char	*access_token;
	char	*refresh_token;
	char	*scope;
	int64_t	 expires_at;
	int64_t	 obtained_at;
};

/* 0, or -1 with *err (malloc'd); t is cleared first either way. */
int	 tokens_parse(struct tokens *, const char *text, size_t len,
	    char **err);
/* The file's text, newline-ended; wipe it (explicit_bzero) when done. */
char	*tokens_format(const struct tokens *);
/* Wipe and free every string. */
void	 tokens_clear(struct tokens *);
/* A deep copy. */
void	 tokens_copy(struct tokens *, const struct tokens *);

#endif /* MCPD_TOKENS_H */
