/*
 * test_jwt.c -- unit tests for the private_key_jwt client assertion:
 * keys made here with libcrypto, assertions checked with their public
 * keys, claims decoded, and the keys and files that must be refused.
 */

#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "b64.h"
#include "jwt.h"
#include "unit.h"
#include "util.h"

#define NOW		((time_t)1767225600)	/* 2026-01-01 */
#define CLIENT		"mcpd-client"
#define AUDIENCE	"https://auth.example.com/token"
#define S(lit)		(lit), sizeof (lit) - 1

static char		 dir[64];
static EVP_PKEY		*ec_key, *rsa_key;

/* The file NAME in the temporary directory (a static buffer). */
static const char *
path(const char *name)
{
	static char	 buf[128];

	snprintf(buf, sizeof buf, "%s/%s", dir, name);
	return (buf);
}

static void
write_text(const char *name, const char *text, size_t len)
{
	FILE	*f;

	f = fopen(path(name), "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

/* Write a key: PKCS#8 or the traditional form, encrypted if pass. */
static void
write_key(const char *name, EVP_PKEY *pkey, int traditional,
    const char *pass)
{
	BIO	*bio;
	int	 ok;

	bio = BIO_new_file(path(name), "w");
	ck_assert_ptr_nonnull(bio);
	if (traditional)
		ok = PEM_write_bio_PrivateKey_traditional(bio, pkey, NULL, NULL,
		    0, NULL, NULL);
	else if (pass != NULL)
		ok = PEM_write_bio_PrivateKey(bio, pkey, EVP_aes_128_cbc(),
		    (const unsigned char *)pass, strlen(pass), NULL, NULL);
	else
		ok = PEM_write_bio_PrivateKey(bio, pkey, NULL, NULL, 0, NULL,
		    NULL);
	ck_assert_int_eq(ok, 1);
	BIO_free(bio);
}

static const char *const files[] = {
	"ec.pem", "ec-trad.pem", "rsa.pem", "rsa-trad.pem", "rsa1024.pem",
	"p384.pem", "ed25519.pem", "ec-enc.pem", "garbage.pem", "empty.pem",
	"fake.pem", "cert-only.pem", "big.pem",
};

static void
setup(void)
{
	EVP_PKEY	*k;
	char		*big;
	size_t		 n = 70 * 1024;

	snprintf(dir, sizeof dir, "/tmp/test_jwt.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ec_key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	rsa_key = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
	ck_assert_ptr_nonnull(ec_key);
	ck_assert_ptr_nonnull(rsa_key);
	write_key("ec.pem", ec_key, 0, NULL);
	write_key("ec-trad.pem", ec_key, 1, NULL);
	write_key("rsa.pem", rsa_key, 0, NULL);
	write_key("rsa-trad.pem", rsa_key, 1, NULL);
	write_key("ec-enc.pem", ec_key, 0, "passphrase");

	k = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)1024);
	write_key("rsa1024.pem", k, 0, NULL);
	EVP_PKEY_free(k);
	k = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-384");
	write_key("p384.pem", k, 0, NULL);
	EVP_PKEY_free(k);
	k = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	write_key("ed25519.pem", k, 0, NULL);
	EVP_PKEY_free(k);

	write_text("garbage.pem", S("\x00\x01\x02 not a key at all\n"));
	write_text("empty.pem", S(""));
	/* Looks like a key and is not one: its text must not be echoed. */
	write_text("fake.pem", S("-----BEGIN PRIVATE KEY-----\n"
	    "U0VDUkVUU0VDUkVUU0VDUkVU\n-----END PRIVATE KEY-----\n"));
	write_text("cert-only.pem", S("-----BEGIN PUBLIC KEY-----\n"
	    "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n"
	    "-----END PUBLIC KEY-----\n"));
	big = malloc(n);
	ck_assert_ptr_nonnull(big);
	memset(big, 'A', n);
	write_text("big.pem", big, n);
	free(big);
}

static void
teardown(void)
{
	size_t	 i;

	for (i = 0; i < nitems(files); i++)
		unlink(path(files[i]));
	rmdir(dir);
	EVP_PKEY_free(ec_key);
	EVP_PKEY_free(rsa_key);
}

/* Decode a base64url part into a cJSON object. */
static cJSON *
decode_part(const char *s, size_t len)
{
	char	*text;
	cJSON	*j;
	size_t	 n;

	text = b64url_decode(s, len, &n);
	ck_assert_ptr_nonnull(text);
	ck_assert_uint_eq(strlen(text), n);
	j = cJSON_Parse(text);
	ck_assert_msg(j != NULL && cJSON_IsObject(j), "not a JSON object: %s",
	    text);
	free(text);
	return (j);
}

static const char *
str_member(const cJSON *o, const char *name)
{
	const cJSON	*m;

	m = cJSON_GetObjectItemCaseSensitive(o, name);
	ck_assert_msg(cJSON_IsString(m), "no string \"%s\"", name);
	return (m->valuestring);
}

static double
num_member(const cJSON *o, const char *name)
{
	const cJSON	*m;

	m = cJSON_GetObjectItemCaseSensitive(o, name);
	ck_assert_msg(cJSON_IsNumber(m), "no number \"%s\"", name);
	return (m->valuedouble);
}

/* Verify sig over input with pkey's public half; 1 if good. */
static int
verify(EVP_PKEY *pkey, const char *alg, const char *input, size_t len,
    const unsigned char *sig, size_t siglen)
{
	EVP_MD_CTX	*ctx;
	ECDSA_SIG	*es;
	unsigned char	*der = NULL;
	int		 derlen, ok;

	if (strcmp(alg, "ES256") == 0) {
		/* The raw R || S back to DER for libcrypto. */
		ck_assert_uint_eq(siglen, 64);
		es = ECDSA_SIG_new();
		ck_assert_int_eq(ECDSA_SIG_set0(es, BN_bin2bn(sig, 32, NULL),
		    BN_bin2bn(sig + 32, 32, NULL)), 1);
		derlen = i2d_ECDSA_SIG(es, &der);
		ck_assert_int_gt(derlen, 0);
		ECDSA_SIG_free(es);
		sig = der;
		siglen = derlen;
	} else
		ck_assert_uint_eq(siglen, 256);
	ctx = EVP_MD_CTX_new();
	ck_assert_int_eq(EVP_DigestVerifyInit(ctx, NULL, EVP_sha256(), NULL,
	    pkey), 1);
	ok = EVP_DigestVerify(ctx, sig, siglen, (const unsigned char *)input,
	    len) == 1;
	EVP_MD_CTX_free(ctx);
	OPENSSL_free(der);
	return (ok);
}

/* Sign with the key in file, check everything; returns the jti. */
static char *
check_assertion(const char *file, const char *alg, EVP_PKEY *pkey)
{
	cJSON		*header, *claims;
	char		*jwt, *err = NULL, *dot1, *dot2, *jti;
	unsigned char	*sig;
	size_t		 siglen;

	jwt = jwt_client_assertion(path(file), alg, CLIENT, AUDIENCE, NOW,
	    &err);
	ck_assert_msg(jwt != NULL, "%s with %s: %s", alg, file, err);
	ck_assert_ptr_null(err);
	ck_assert(strspn(jwt, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstu"
	    "vwxyz0123456789-_.") == strlen(jwt));
	dot1 = strchr(jwt, '.');
	ck_assert_ptr_nonnull(dot1);
	dot2 = strchr(dot1 + 1, '.');
	ck_assert_ptr_nonnull(dot2);
	ck_assert_ptr_null(strchr(dot2 + 1, '.'));

	header = decode_part(jwt, dot1 - jwt);
	ck_assert_str_eq(str_member(header, "alg"), alg);
	ck_assert_str_eq(str_member(header, "typ"), "JWT");
	ck_assert_int_eq(cJSON_GetArraySize(header), 2);
	claims = decode_part(dot1 + 1, dot2 - dot1 - 1);
	ck_assert_str_eq(str_member(claims, "iss"), CLIENT);
	ck_assert_str_eq(str_member(claims, "sub"), CLIENT);
	ck_assert_str_eq(str_member(claims, "aud"), AUDIENCE);
	ck_assert(num_member(claims, "iat") == (double)NOW);
	ck_assert(num_member(claims, "exp") == (double)NOW + 300);
	jti = strdup(str_member(claims, "jti"));
	ck_assert_uint_eq(strlen(jti), 32);
	ck_assert_uint_eq(strspn(jti, "0123456789abcdef"), 32);
	ck_assert_int_eq(cJSON_GetArraySize(claims), 6);

	sig = b64url_decode(dot2 + 1, strlen(dot2 + 1), &siglen);
	ck_assert_ptr_nonnull(sig);
	ck_assert_msg(verify(pkey, alg, jwt, dot2 - jwt, sig, siglen),
	    "the %s signature does not verify", alg);
	/* The check can fail: another input does not verify. */
	jwt[1] ^= 1;
	ck_assert_msg(!verify(pkey, alg, jwt, dot2 - jwt, sig, siglen),
	    "a changed header verifies");
	jwt[1] ^= 1;

	free(sig);
	cJSON_Delete(header);
	cJSON_Delete(claims);
	free(jwt);
	return (jti);
}

START_TEST(test_jwt_es256)
{
	char	*a, *b;

	a = check_assertion("ec.pem", "ES256", ec_key);
	b = check_assertion("ec-trad.pem", "ES256", ec_key);
	/* A fresh jti each time. */
	ck_assert_str_ne(a, b);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_jwt_rs256)
{
	char	*a, *b;

	a = check_assertion("rsa.pem", "RS256", rsa_key);
	b = check_assertion("rsa-trad.pem", "RS256", rsa_key);
	ck_assert_str_ne(a, b);
	free(a);
	free(b);
}
END_TEST

/* The assertion is refused with an error holding each of want[]. */
static void
assert_refused(const char *file, const char *alg, const char *want1,
    const char *want2)
{
	char	*jwt, *err = NULL;

	jwt = jwt_client_assertion(file, alg, CLIENT, AUDIENCE, NOW, &err);
	ck_assert_msg(jwt == NULL, "%s with %s: signed", alg, file);
	ck_assert_msg(err != NULL, "%s with %s: no error", alg, file);
	ck_assert_msg(strstr(err, want1) != NULL, "error \"%s\" lacks \"%s\"",
	    err, want1);
	ck_assert_msg(want2 == NULL || strstr(err, want2) != NULL,
	    "error \"%s\" lacks \"%s\"", err, want2);
	/* Never any key material, nor OpenSSL's text about it. */
	ck_assert_msg(strstr(err, "BEGIN") == NULL && strstr(err, "U0VD") ==
	    NULL && strstr(err, "MFkw") == NULL && strstr(err, "AAAA") ==
	    NULL && strstr(err, "error:") == NULL, "error \"%s\"", err);
	free(err);
}

START_TEST(test_jwt_wrong_key)
{
	char	 p[128];

	snprintf(p, sizeof p, "%s", path("ec.pem"));
	assert_refused(p, "RS256", "RS256 needs an RSA key", "ec.pem");
	snprintf(p, sizeof p, "%s", path("rsa.pem"));
	assert_refused(p, "ES256", "ES256 needs an EC P-256 key", "rsa.pem");
	snprintf(p, sizeof p, "%s", path("p384.pem"));
	assert_refused(p, "ES256", "ES256 needs an EC P-256 key", NULL);
	snprintf(p, sizeof p, "%s", path("rsa1024.pem"));
	assert_refused(p, "RS256", "1024 bits", "at least 2048");
	snprintf(p, sizeof p, "%s", path("ed25519.pem"));
	assert_refused(p, "ES256", "ES256 needs an EC P-256 key", NULL);
	assert_refused(p, "RS256", "RS256 needs an RSA key", NULL);
	/* Algorithms other than the two. */
	snprintf(p, sizeof p, "%s", path("ec.pem"));
	assert_refused(p, "HS256", "unknown signing algorithm HS256", NULL);
	assert_refused(p, "es256", "unknown signing algorithm", NULL);
	assert_refused(p, "none", "unknown signing algorithm", NULL);
	assert_refused(p, NULL, "unknown signing algorithm", NULL);
}
END_TEST

START_TEST(test_jwt_bad_files)
{
	char	 p[128];

	assert_refused("/nonexistent/key.pem", "ES256", "cannot open",
	    "/nonexistent/key.pem: No such file");
	assert_refused(dir, "ES256", "cannot read", dir);
	snprintf(p, sizeof p, "%s", path("garbage.pem"));
	assert_refused(p, "ES256", "holds no PEM private key", "garbage.pem");
	snprintf(p, sizeof p, "%s", path("fake.pem"));
	assert_refused(p, "ES256", "holds no PEM private key", "fake.pem");
	snprintf(p, sizeof p, "%s", path("cert-only.pem"));
	assert_refused(p, "ES256", "holds no PEM private key", NULL);
	snprintf(p, sizeof p, "%s", path("empty.pem"));
	assert_refused(p, "ES256", "is empty", "empty.pem");
	snprintf(p, sizeof p, "%s", path("big.pem"));
	assert_refused(p, "RS256", "is larger than", "big.pem");
	/* Encrypted: refused, and no passphrase asked for. */
	snprintf(p, sizeof p, "%s", path("ec-enc.pem"));
	assert_refused(p, "ES256", "is encrypted", "ec-enc.pem");
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("jwt");
	tc = tcase_create("jwt");
	/* Keys are made once, in the parent, before the tests fork. */
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_jwt_es256);
	tcase_add_test(tc, test_jwt_rs256);
	tcase_add_test(tc, test_jwt_wrong_key);
	tcase_add_test(tc, test_jwt_bad_files);
	suite_add_tcase(s, tc);
	return (s);
}
