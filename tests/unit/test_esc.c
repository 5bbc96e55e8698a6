/*
 * test_esc.c -- unit tests for escaping text for terminals, logs and JSON.
 */

#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "esc.h"
#include "unit.h"

/* esc_text(in, inlen, flags) must be exactly want. */
static void
assert_text(const char *in, size_t inlen, int flags, const char *want)
{
	char	*got;

	got = esc_text(in, inlen, flags);
	ck_assert_msg(strcmp(got, want) == 0, "esc_text: got \"%s\", want "
	    "\"%s\"", got, want);
	free(got);
}

/* esc_json_string(in, inlen) must be exactly want. */
static void
assert_json(const char *in, size_t inlen, const char *want)
{
	char	*got;

	got = esc_json_string(in, inlen);
	ck_assert_msg(strcmp(got, want) == 0, "esc_json_string: got %s, want "
	    "%s", got, want);
	free(got);
}

#define S(lit)	(lit), sizeof (lit) - 1

START_TEST(test_esc_text_printable_kept)
{
	assert_text(S(""), 0, "");
	assert_text(S("plain text: 100% {\"json\": [1]}"), 0,
	    "plain text: 100% {\"json\": [1]}");
	/* Two, three and four byte characters; a backslash stays one. */
	assert_text(S("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 C:\\x"), 0,
	    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 C:\\x");
	/* The highest scalar values of each length are characters too. */
	assert_text(S("\xdf\xbf\xef\xbf\xbd\xf4\x8f\xbf\xbf"), 0,
	    "\xdf\xbf\xef\xbf\xbd\xf4\x8f\xbf\xbf");
}
END_TEST

START_TEST(test_esc_text_controls)
{
	/* A forged log line and a terminal clear. */
	assert_text(S("x\nmcpd: github: ready -> failed\n\x1b[2J"), 0,
	    "x\\nmcpd: github: ready -> failed\\n\\x1b[2J");
	assert_text(S("a\rb\tc"), 0, "a\\rb\\tc");
	assert_text(S("a\rb\tc"), ESC_KEEP_TAB, "a\\rb\tc");
	assert_text(S("a\nb\r\n\x1b[2J"), ESC_KEEP_NEWLINE,
	    "a\nb\\r\n\\x1b[2J");
	assert_text(S("\x01\x07\x08\x0b\x0c\x1f\x7f"), 0,
	    "\\x01\\x07\\x08\\x0b\\x0c\\x1f\\x7f");
	/* NUL is a byte like any other, and what follows it is kept. */
	assert_text(S("before\0after"), 0, "before\\x00after");
	/* C1 controls (CSI U+009B, NEL U+0085) are escaped byte by byte. */
	assert_text(S("\xc2\x9b" "2J \xc2\x85 \xc2\xa0"), 0,
	    "\\xc2\\x9b" "2J \\xc2\\x85 \xc2\xa0");
	/* The length bounds the input, not a NUL. */
	assert_text("abc\x1b", 2, 0, "ab");
}
END_TEST

START_TEST(test_esc_text_invalid_utf8)
{
	/* Bytes that never start a character. */
	assert_text(S("\xff\xfe"), 0, "\\xff\\xfe");
	assert_text(S("a\x80z"), 0, "a\\x80z");
	assert_text(S("\xc0\xaf \xc1\xbf"), 0, "\\xc0\\xaf \\xc1\\xbf");
	/* Overlong three and four byte forms, a surrogate, above U+10FFFF. */
	assert_text(S("\xe0\x80\xaf"), 0, "\\xe0\\x80\\xaf");
	assert_text(S("\xf0\x80\x80\xaf"), 0, "\\xf0\\x80\\x80\\xaf");
	assert_text(S("\xed\xa0\x80"), 0, "\\xed\\xa0\\x80");
	assert_text(S("\xf4\x90\x80\x80"), 0, "\\xf4\\x90\\x80\\x80");
	/* Truncated sequences, at the end and before an ASCII byte. */
	assert_text(S("\xe2\x82"), 0, "\\xe2\\x82");
	assert_text(S("\xe2\x82z"), 0, "\\xe2\\x82z");
	assert_text(S("\xf0\x9f\x98"), 0, "\\xf0\\x9f\\x98");
	/* A cut sequence does not swallow the character after it. */
	assert_text(S("\xe2\xc3\xa9"), 0, "\\xe2\xc3\xa9");
	/* Nothing past len is read. */
	assert_text("\xe2\x82\xac", 2, 0, "\\xe2\\x82");
}
END_TEST

START_TEST(test_esc_text_idempotent)
{
	const char	 in[] = "a\x1b[2J\n\xff\0\xc2\x9b\\x41\t";
	char		*once, *twice;

	once = esc_text(in, sizeof in - 1, 0);
	twice = esc_text(once, strlen(once), 0);
	ck_assert_str_eq(once, twice);
	free(once);
	free(twice);
}
END_TEST

/* esc_text_max(in, inlen, flags, max) must be exactly want. */
static void
assert_text_max(const char *in, size_t inlen, size_t max, const char *want)
{
	char	*got;

	got = esc_text_max(in, inlen, 0, max);
	ck_assert_msg(strcmp(got, want) == 0, "esc_text_max %zu: got \"%s\", "
	    "want \"%s\"", max, got, want);
	ck_assert_uint_le(strlen(got), max);
	free(got);
}

START_TEST(test_esc_text_max)
{
	/* What fits is whole, to the last byte. */
	assert_text_max(S("0123456789"), 10, "0123456789");
	assert_text_max(S("0123456789"), 200, "0123456789");
	/* What does not ends with "..." within the bound. */
	assert_text_max(S("0123456789"), 9, "012345...");
	assert_text_max(S("0123456789"), 4, "0...");
	/* An escape or a character is never split. */
	assert_text_max(S("ab\x1b[2Jcdef"), 8, "ab...");
	assert_text_max(S("ab\x1b" "cdefgh"), 9, "ab\\x1b...");
	assert_text_max(S("a\xe2\x82\xac\xe2\x82\xac" "bcdef"), 8,
	    "a\xe2\x82\xac...");
	assert_text_max(S("ab\ncdefgh"), 7, "ab\\n...");
}
END_TEST

/* esc_redact(in, secrets, cut) must be exactly want. */
static void
assert_redact(const char *in, const char *const *secrets, int cut,
    const char *want)
{
	char	*got;
	size_t	 len;

	got = esc_redact(in, strlen(in), secrets, cut, &len);
	ck_assert_msg(strcmp(got, want) == 0, "esc_redact: got \"%s\", want "
	    "\"%s\"", got, want);
	ck_assert_uint_eq(len, strlen(want));
	free(got);
}

START_TEST(test_esc_redact)
{
	const char	*none[] = { NULL };
	const char	*keys[] = { "sk-12345", "sk-12345-long", "hunter2x",
			    "abc", NULL };

	assert_redact("boom: missing API key", none, 0,
	    "boom: missing API key");
	assert_redact("", keys, 0, "");
	/* Each occurrence, the longest where two start at one byte. */
	assert_redact("key sk-12345 refused", keys, 0,
	    "key " ESC_REDACTED " refused");
	assert_redact("sk-12345-long,hunter2xhunter2x", keys, 0,
	    ESC_REDACTED "," ESC_REDACTED ESC_REDACTED);
	/* Too short to look for. */
	assert_redact("abc abc", keys, 0, "abc abc");
	/* A cut line: its end may be the start of a secret. */
	assert_redact("token=sk-12", keys, 1, "token=" ESC_REDACTED);
	assert_redact("token=sk-12", keys, 0, "token=sk-12");
	/* Bytes as they are, a NUL included. */
	{
		char	*got;
		size_t	 len;

		got = esc_redact("a\0hunter2x\0b", 12, keys, 0, &len);
		ck_assert_uint_eq(len, 4 + sizeof ESC_REDACTED - 1);
		ck_assert(memcmp(got, "a\0" ESC_REDACTED "\0b", len) == 0);
		free(got);
	}
}
END_TEST

START_TEST(test_esc_json_escapes)
{
	assert_json(S(""), "\"\"");
	assert_json(S("say \"hi\" \\o/"), "\"say \\\"hi\\\" \\\\o/\"");
	assert_json(S("\b\f\n\r\t"), "\"\\b\\f\\n\\r\\t\"");
	assert_json(S("\x01\x1b[2J\x1f\x7f"), "\"\\u0001\\u001b[2J\\u001f"
	    "\\u007f\"");
	assert_json(S("\xc2\x9b \xc2\xa0"), "\"\\u009b \xc2\xa0\"");
	assert_json(S("caf\xc3\xa9 \xf0\x9f\x98\x80"),
	    "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"");
}
END_TEST

START_TEST(test_esc_json_replacement)
{
	/* One U+FFFD per ill-formed unit and per NUL; the rest is kept. */
	assert_json(S("\xff\xfe"), "\"\xef\xbf\xbd\xef\xbf\xbd\"");
	assert_json(S("a\x80z"), "\"a\xef\xbf\xbdz\"");
	assert_json(S("\xc0\xaf"), "\"\xef\xbf\xbd\xef\xbf\xbd\"");
	assert_json(S("\xe2\x82z"), "\"\xef\xbf\xbdz\"");
	assert_json(S("\xe0\x80\xaf"),
	    "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
	assert_json(S("before\0after"), "\"before\xef\xbf\xbd" "after\"");
}
END_TEST

/* Every byte string of up to 3 bytes gives a string cJSON reads back. */
START_TEST(test_esc_json_parses)
{
	unsigned char	 in[3];
	char		*json;
	cJSON		*v;
	unsigned	 a, b, c;

	for (a = 0; a < 256; a++) {
		for (b = 0; b < 256; b += 3) {
			for (c = 0; c < 256; c += 17) {
				in[0] = (unsigned char)a;
				in[1] = (unsigned char)b;
				in[2] = (unsigned char)c;
				json = esc_json_string((char *)in, sizeof in);
				v = cJSON_Parse(json);
				ck_assert_msg(cJSON_IsString(v), "%02x %02x "
				    "%02x: not a JSON string: %s", a, b, c,
				    json);
				ck_assert(strlen(v->valuestring) >= 3);
				cJSON_Delete(v);
				free(json);
			}
		}
	}
}
END_TEST

/* A quote cut where it may be: never inside a UTF-8 sequence. */
START_TEST(test_esc_cut)
{
	/* "ab" then U+00E9 (2 bytes) then U+20AC (3 bytes). */
	const char	*t = "ab\xc3\xa9\xe2\x82\xac";

	ck_assert_uint_eq(esc_cut(t, 7, 100), 7);
	ck_assert_uint_eq(esc_cut(t, 7, 7), 7);
	ck_assert_uint_eq(esc_cut(t, 7, 6), 4);
	ck_assert_uint_eq(esc_cut(t, 7, 5), 4);
	ck_assert_uint_eq(esc_cut(t, 7, 4), 4);
	ck_assert_uint_eq(esc_cut(t, 7, 3), 2);
	ck_assert_uint_eq(esc_cut(t, 7, 0), 0);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("esc");
	tc = tcase_create("text");
	tcase_add_test(tc, test_esc_text_printable_kept);
	tcase_add_test(tc, test_esc_text_controls);
	tcase_add_test(tc, test_esc_text_invalid_utf8);
	tcase_add_test(tc, test_esc_text_idempotent);
	tcase_add_test(tc, test_esc_text_max);
	tcase_add_test(tc, test_esc_redact);
	tcase_add_test(tc, test_esc_cut);
	suite_add_tcase(s, tc);
	tc = tcase_create("json");
	tcase_add_test(tc, test_esc_json_escapes);
	tcase_add_test(tc, test_esc_json_replacement);
	tcase_add_test(tc, test_esc_json_parses);
	suite_add_tcase(s, tc);
	return (s);
}
