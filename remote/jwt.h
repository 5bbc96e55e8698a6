/*
 * jwt.h -- the signed client assertion of OAuth private_key_jwt
 * (RFC 7523 section 2.2, RFC 7521), with libcrypto.
 *
 * Header {"alg": ALG, "typ": "JWT"}; claims iss = sub = client_id, aud,
 * iat = now, exp = now + 300 s, jti = 128 random bits (hex).  ES256 signs
 * with a P-256 key (the signature as the raw 64-byte R || S of RFC 7518
 * section 3.4, not DER); RS256 with an RSA key of at least 2048 bits.
 */
#ifndef MCPD_JWT_H
#define MCPD_JWT_H

#include <time.h>

/*
 * Read a PEM private key (PKCS#8 or traditional) and sign the assertion.
 * alg is "ES256" or "RS256" and must fit the key.  Returns the compact
 * JWT (malloc'd), or NULL with *err (malloc'd) saying why, never holding
 * key material.
 */
char	*jwt_client_assertion(const char *key_file, const char *alg,
	    const char *client_id, const char *audience, time_t now,
	    char **err);

#endif /* MCPD_JWT_H */
