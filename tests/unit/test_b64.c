/*
 * test_b64.c -- unit tests for base64, base64url and form escaping.
 */

#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "b64.h"
#include "unit.h"
#include "util.h"

/* RFC 4648 section 10. */
static const struct {
	const char	*in;
	const char	*std;
	const char	*url;
} vectors[] = {
	{ "", "", "" },
	{ "f", "Zg==", "Zg" },
	{ "fo", "Zm8=", "Zm8" },
	{ "foo", "Zm9v", "Zm9v" },
	{ "foob", "Zm9vYg==", "Zm9vYg" },
	{ "fooba", "Zm9vYmE=", "Zm9vYmE" },
	{ "foobar", "Zm9vYmFy", "Zm9vYmFy" },
};

START_TEST(test_b64_rfc4648)
{
	char	*got;
	void	*dec;
	size_t	 i, n;

	for (i = 0; i < nitems(vectors); i++) {
		got = b64_encode(vectors[i].in, strlen(vectors[i].in));
		ck_assert_str_eq(got, vectors[i].std);
		free(got);
		got = b64url_encode(vectors[i].in, strlen(vectors[i].in));
		ck_assert_str_eq(got, vectors[i].url);
		free(got);
		/* Both with and without padding decode. */
		dec = b64url_decode(vectors[i].url, strlen(vectors[i].url), &n);
		ck_assert_ptr_nonnull(dec);
		ck_assert_uint_eq(n, strlen(vectors[i].in));
		ck_assert(memcmp(dec, vectors[i].in, n) == 0);
		free(dec);
		dec = b64url_decode(vectors[i].std, strlen(vectors[i].std), &n);
		ck_assert_ptr_nonnull(dec);
		ck_assert_uint_eq(n, strlen(vectors[i].in));
		ck_assert(memcmp(dec, vectors[i].in, n) == 0);
		free(dec);
		dec = b64_decode(vectors[i].std, strlen(vectors[i].std), &n);
		ck_assert_ptr_nonnull(dec);
		ck_assert_uint_eq(n, strlen(vectors[i].in));
		ck_assert(memcmp(dec, vectors[i].in, n) == 0);
		free(dec);
		dec = b64_decode(vectors[i].url, strlen(vectors[i].url), &n);
		ck_assert_ptr_nonnull(dec);
		ck_assert_uint_eq(n, strlen(vectors[i].in));
		free(dec);
	}
}
END_TEST

START_TEST(test_b64_alphabets)
{
	static const unsigned char	 bin[] = { 0xfb, 0xff, 0xbf, 0x00 };
	char				*got;
	unsigned char			*dec;
	size_t				 n;

	got = b64_encode(bin, sizeof bin);
	ck_assert_str_eq(got, "+/+/AA==");
	free(got);
	got = b64url_encode(bin, sizeof bin);
	ck_assert_str_eq(got, "-_-_AA");
	free(got);
	dec = b64url_decode("-_-_AA", 6, &n);
	ck_assert_ptr_nonnull(dec);
	ck_assert_uint_eq(n, sizeof bin);
	ck_assert(memcmp(dec, bin, n) == 0);
	free(dec);
	dec = b64_decode("+/+/AA==", 8, &n);
	ck_assert_ptr_nonnull(dec);
	ck_assert_uint_eq(n, sizeof bin);
	ck_assert(memcmp(dec, bin, n) == 0);
	free(dec);
	/* Each alphabet alone. */
	ck_assert_ptr_null(b64_decode("-_-_AA", 6, &n));
	ck_assert_ptr_null(b64url_decode("+/+/AA==", 8, &n));
	/* The length given is the input: the rest is not read. */
	dec = b64url_decode("Zm9vYmFy", 4, &n);
	ck_assert_ptr_nonnull(dec);
	ck_assert_uint_eq(n, 3);
	ck_assert(memcmp(dec, "foo", 3) == 0);
	free(dec);
}
END_TEST

START_TEST(test_b64url_decode_rejects)
{
	static const char *const bad[] = {
		"Z",		/* no encoding is 1 mod 4 characters */
		"Zm9vY",
		"+/+/",		/* base64, not base64url */
		"Zm9v Yg",
		"Zm9v\nYg",
		"Zm9vYg=",	/* padding cut */
		"Zg=",
		"Zg===",
		"Z===",
		"====",
		"==",
		"=",
		"Zm=v",
		"Zm9vYmE=x",
		"Zh",		/* stray low bits */
		"Zm9",		/* "Zm8" is the one for "fo" */
		"Zh==",
		"Zm8.",
		"Zm8\x80",
	};
	size_t	 i, n;
	void	*dec;

	for (i = 0; i < nitems(bad); i++) {
		dec = b64url_decode(bad[i], strlen(bad[i]), &n);
		ck_assert_msg(dec == NULL, "\"%s\" decoded", bad[i]);
	}
	/* A NUL inside the given length is not base64. */
	ck_assert_ptr_null(b64url_decode("Zm\0v", 4, &n));
}
END_TEST

START_TEST(test_b64_roundtrip)
{
	unsigned char	 buf[300];
	unsigned char	*dec;
	char		*enc;
	size_t		 len, i, n;

	for (i = 0; i < sizeof buf; i++)
		buf[i] = (unsigned char)(i * 7 + 3);
	for (len = 0; len <= sizeof buf; len++) {
		enc = b64url_encode(buf, len);
		ck_assert_uint_eq(strlen(enc), (len * 4 + 2) / 3);
		ck_assert(strspn(enc, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijkl"
		    "mnopqrstuvwxyz0123456789-_") == strlen(enc));
		dec = b64url_decode(enc, strlen(enc), &n);
		ck_assert_ptr_nonnull(dec);
		ck_assert_uint_eq(n, len);
		ck_assert(len == 0 || memcmp(dec, buf, len) == 0);
		free(dec);
		free(enc);
		enc = b64_encode(buf, len);
		ck_assert_uint_eq(strlen(enc), (len + 2) / 3 * 4);
		dec = b64_decode(enc, strlen(enc), &n);
		ck_assert_ptr_nonnull(dec);
		ck_assert_uint_eq(n, len);
		ck_assert(len == 0 || memcmp(dec, buf, len) == 0);
		free(dec);
		free(enc);
	}
}
END_TEST

START_TEST(test_b64_form_escape)
{
	char	*got;

	got = b64_form_escape("AZaz09-._~");
	ck_assert_str_eq(got, "AZaz09-._~");
	free(got);
	got = b64_form_escape("a b+c&d=e%f/g?h#i\xc3\xa9*");
	ck_assert_str_eq(got, "a+b%2Bc%26d%3De%25f%2Fg%3Fh%23i%C3%A9%2A");
	free(got);
	got = b64_form_escape("\r\n\x7f\x01");
	ck_assert_str_eq(got, "%0D%0A%7F%01");
	free(got);
	got = b64_form_escape("");
	ck_assert_str_eq(got, "");
	free(got);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("b64");
	tc = tcase_create("b64");
	tcase_add_test(tc, test_b64_rfc4648);
	tcase_add_test(tc, test_b64_alphabets);
	tcase_add_test(tc, test_b64url_decode_rejects);
	tcase_add_test(tc, test_b64_roundtrip);
	tcase_add_test(tc, test_b64_form_escape);
	suite_add_tcase(s, tc);
	return (s);
}
