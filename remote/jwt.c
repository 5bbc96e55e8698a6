/*
 * jwt.c -- the signed client assertion of OAuth private_key_jwt
 * (RFC 7523 section 2.2), with OpenSSL 3's libcrypto (EVP only).
 *
 * The key file is read whole (at most JWT_KEY_MAX_BYTES), checked to be
 * an unencrypted PEM private key that fits the algorithm (a P-256 EC key
 * for ES256, an RSA key of at least 2048 bits for RS256), and used for one
 * signature; the copy in memory is wiped before it is freed.  No passphrase
 * is ever asked for.  Error messages name the file and what is wrong with
 * it, never its contents, and never OpenSSL's own error text (which may
 * quote what it was parsing).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <openssl/bn.h>
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>

#include "b64.h"
#include "jwt.h"
#include "xmalloc.h"

#define JWT_KEY_MAX_BYTES	(64 * 1024)
#define JWT_LIFETIME_SECONDS	300
#define JWT_JTI_BYTES		16
#define JWT_ES256_HALF		32	/* bytes of R and of S */
#define JWT_RSA_MIN_BITS	2048

/* Never prompt for a passphrase: an encrypted key is refused. */
static int
jwt_no_passphrase(char *buf, int size, int rwflag, void *arg)
{
	return (-1);
}

/* The key file's bytes, NUL-ended; NULL with *err. */
static char *
jwt_read_file(const char *path, size_t *len, char **err)
{
	FILE	*f;
	char	*buf;
	size_t	 n;
	int	 saved;

	if ((f = fopen(path, "re")) == NULL) {
		xasprintf(err, "cannot open the private key file %s: %s",
		    path, strerror(errno));
		return (NULL);
	}
	buf = xmalloc(JWT_KEY_MAX_BYTES + 1);
	n = fread(buf, 1, JWT_KEY_MAX_BYTES + 1, f);
	saved = errno;
	if (ferror(f)) {
		xasprintf(err, "cannot read the private key file %s: %s",
		    path, strerror(saved));
		goto bad;
	}
	if (n > JWT_KEY_MAX_BYTES) {
		xasprintf(err, "the private key file %s is larger than %d "
		    "bytes", path, JWT_KEY_MAX_BYTES);
		goto bad;
	}
	if (n == 0) {
		xasprintf(err, "the private key file %s is empty", path);
		goto bad;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return (buf);

bad:
	fclose(f);
	OPENSSL_cleanse(buf, JWT_KEY_MAX_BYTES + 1);
	free(buf);
	return (NULL);
}

/* The private key in path, fit for alg; NULL with *err. */
static EVP_PKEY *
jwt_load_key(const char *path, const char *alg, char **err)
{
	EVP_PKEY	*pkey = NULL;
	BIO		*bio;
	char		*buf, group[64];
	size_t		 len, glen;

	if ((buf = jwt_read_file(path, &len, err)) == NULL)
		return (NULL);
	if (strstr(buf, "ENCRYPTED") != NULL) {
		xasprintf(err, "the private key in %s is encrypted: give an "
		    "unencrypted PEM key, readable only by this service", path);
		goto done;
	}
	if ((bio = BIO_new_mem_buf(buf, (int)len)) == NULL) {
		xasprintf(err, "out of memory reading %s", path);
		goto done;
	}
	pkey = PEM_read_bio_PrivateKey(bio, NULL, jwt_no_passphrase, NULL);
	BIO_free(bio);
	if (pkey == NULL) {
		xasprintf(err, "%s holds no PEM private key (PKCS#8 or "
		    "traditional)", path);
		goto done;
	}

	if (strcmp(alg, "ES256") == 0) {
		if (!EVP_PKEY_is_a(pkey, "EC") ||
		    EVP_PKEY_get_group_name(pkey, group, sizeof group,
		    &glen) != 1 || (strcmp(group, "prime256v1") != 0 &&
		    strcmp(group, "P-256") != 0)) {
			xasprintf(err, "ES256 needs an EC P-256 key, and the "
			    "key in %s is not one", path);
			EVP_PKEY_free(pkey);
			pkey = NULL;
		}
	} else {
		if (!EVP_PKEY_is_a(pkey, "RSA")) {
			xasprintf(err, "RS256 needs an RSA key, and the key in "
			    "%s is not one", path);
			EVP_PKEY_free(pkey);
			pkey = NULL;
		} else if (EVP_PKEY_get_bits(pkey) < JWT_RSA_MIN_BITS) {
			xasprintf(err, "the RSA key in %s has %d bits: RS256 "
			    "needs at least %d", path, EVP_PKEY_get_bits(pkey),
			    JWT_RSA_MIN_BITS);
			EVP_PKEY_free(pkey);
			pkey = NULL;
		}
	}

done:
	ERR_clear_error();
	OPENSSL_cleanse(buf, len);
	free(buf);
	return (pkey);
}

/* A cJSON object printed compactly and base64url-encoded. */
static char *
jwt_part(cJSON *obj)
{
	char	*text, *enc;

	if ((text = cJSON_PrintUnformatted(obj)) == NULL)
		abort();
	enc = b64url_encode(text, strlen(text));
	cJSON_free(text);
	return (enc);
}

/* base64url(header) "." base64url(claims); NULL with *err. */
static char *
jwt_signing_input(const char *alg, const char *client_id,
    const char *audience, time_t now, char **err)
{
	unsigned char	 rnd[JWT_JTI_BYTES];
	char		 jti[2 * JWT_JTI_BYTES + 1], *h, *c, *out;
	cJSON		*header, *claims;
	size_t		 i;

	if (RAND_bytes(rnd, sizeof rnd) != 1) {
		ERR_clear_error();
		*err = xstrdup("no random bytes for the assertion's jti");
		return (NULL);
	}
	for (i = 0; i < sizeof rnd; i++)
		snprintf(jti + 2 * i, 3, "%02x", rnd[i]);

	header = cJSON_CreateObject();
	claims = cJSON_CreateObject();
	if (header == NULL || claims == NULL ||
	    cJSON_AddStringToObject(header, "alg", alg) == NULL ||
	    cJSON_AddStringToObject(header, "typ", "JWT") == NULL ||
	    cJSON_AddStringToObject(claims, "iss", client_id) == NULL ||
	    cJSON_AddStringToObject(claims, "sub", client_id) == NULL ||
	    cJSON_AddStringToObject(claims, "aud", audience) == NULL ||
	    cJSON_AddNumberToObject(claims, "iat", (double)now) == NULL ||
	    cJSON_AddNumberToObject(claims, "exp",
	    (double)now + JWT_LIFETIME_SECONDS) == NULL ||
	    cJSON_AddStringToObject(claims, "jti", jti) == NULL)
		abort();
	h = jwt_part(header);
	c = jwt_part(claims);
	xasprintf(&out, "%s.%s", h, c);
	free(h);
	free(c);
	cJSON_Delete(header);
	cJSON_Delete(claims);
	return (out);
}

/* DER ECDSA-Sig-Value to the raw R || S of RFC 7518 section 3.4. */
static int
jwt_ecdsa_raw(const unsigned char *der, size_t len, unsigned char *raw)
{
	const unsigned char	*p = der;
	const BIGNUM		*r, *s;
	ECDSA_SIG		*sig;
	int			 ok;

	if ((sig = d2i_ECDSA_SIG(NULL, &p, (long)len)) == NULL)
		return (-1);
	ECDSA_SIG_get0(sig, &r, &s);
	ok = BN_bn2binpad(r, raw, JWT_ES256_HALF) == JWT_ES256_HALF &&
	    BN_bn2binpad(s, raw + JWT_ES256_HALF, JWT_ES256_HALF) ==
	    JWT_ES256_HALF;
	ECDSA_SIG_free(sig);
	return (ok ? 0 : -1);
}

char *
jwt_client_assertion(const char *key_file, const char *alg,
    const char *client_id, const char *audience, time_t now, char **err)
{
	EVP_PKEY	*pkey;
	EVP_MD_CTX	*ctx = NULL;
	unsigned char	*sig = NULL, raw[2 * JWT_ES256_HALF];
	char		*input, *enc, *jwt = NULL;
	size_t		 siglen = 0;

	*err = NULL;
	if (alg == NULL || (strcmp(alg, "ES256") != 0 &&
	    strcmp(alg, "RS256") != 0)) {
		xasprintf(err, "unknown signing algorithm %s: ES256 or RS256",
		    alg != NULL ? alg : "(none)");
		return (NULL);
	}
	if (key_file == NULL || client_id == NULL || audience == NULL) {
		*err = xstrdup("a client assertion needs a key file, a "
		    "client_id and an audience");
		return (NULL);
	}
	if ((pkey = jwt_load_key(key_file, alg, err)) == NULL)
		return (NULL);
	if ((input = jwt_signing_input(alg, client_id, audience, now,
	    err)) == NULL) {
		EVP_PKEY_free(pkey);
		return (NULL);
	}

	if ((ctx = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestSignInit(ctx, NULL, EVP_sha256(), NULL, pkey) != 1 ||
	    EVP_DigestSign(ctx, NULL, &siglen, (unsigned char *)input,
	    strlen(input)) != 1)
		goto fail;
	sig = xmalloc(siglen);
	if (EVP_DigestSign(ctx, sig, &siglen, (unsigned char *)input,
	    strlen(input)) != 1)
		goto fail;
	if (strcmp(alg, "ES256") == 0) {
		if (jwt_ecdsa_raw(sig, siglen, raw) == -1)
			goto fail;
		enc = b64url_encode(raw, sizeof raw);
	} else
		enc = b64url_encode(sig, siglen);
	xasprintf(&jwt, "%s.%s", input, enc);
	free(enc);
	goto done;

fail:
	xasprintf(err, "signing the client assertion with the key in %s "
	    "failed", key_file);
done:
	ERR_clear_error();
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(pkey);
	free(sig);
	free(input);
	return (jwt);
}
