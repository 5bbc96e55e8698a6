/*
 * test_promptargs.c -- unit tests for mcpctl prompt's arguments
 * (clients/promptargs.c): KEY=VALUE words as strings, checked against
 * the prompt as prompts/list describes it.
 */

#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "diag.h"
#include "promptargs.h"
#include "unit.h"

static const char *prompt_text =
    "{\"name\":\"args-prompt\",\"arguments\":["
    "{\"name\":\"city\",\"description\":\"Name of the city\","
    "\"required\":true},"
    "{\"name\":\"state\",\"required\":false},"
    "{\"name\":\"zip\"},"
    "{\"description\":\"no name: skipped\",\"required\":true},"
    "{\"name\":\"country\",\"required\":true}]}";

/*
 * The arguments' compact JSON for words (NULL-ended), or NULL on error;
 * prompt: its JSON, or NULL for none known.
 */
static char *
parse(const char *prompt, const char **words, int *rc)
{
	cJSON	*p = NULL, *out;
	char	*text;
	int	 argc = 0;

	while (words[argc] != NULL)
		argc++;
	if (prompt != NULL)
		ck_assert_ptr_nonnull(p = cJSON_Parse(prompt));
	*rc = promptargs_parse("srv", "args-prompt", argc, (char **)words, p,
	    &out);
	cJSON_Delete(p);
	if (out == NULL)
		return (NULL);
	text = cJSON_PrintUnformatted(out);
	cJSON_Delete(out);
	return (text);
}

START_TEST(test_promptargs_strings)
{
	const char	*words[] = { "city=42", "country=true", "state=",
	    "zip=a=b", NULL };
	char		*got;
	int		 rc;

	/* Every value a string, as written; "=" after the first is text. */
	got = parse(prompt_text, words, &rc);
	ck_assert_int_eq(rc, DIAG_EXIT_OK);
	ck_assert_str_eq(got, "{\"city\":\"42\",\"country\":\"true\","
	    "\"state\":\"\",\"zip\":\"a=b\"}");
	free(got);
	/* Unknown prompt: any key. */
	got = parse(NULL, words, &rc);
	ck_assert_int_eq(rc, DIAG_EXIT_OK);
	free(got);
}
END_TEST

START_TEST(test_promptargs_none)
{
	const char	*words[] = { NULL };
	const char	*one[] = { "x=1", NULL };
	char		*got;
	int		 rc;

	got = parse("{\"name\":\"simple\"}", words, &rc);
	ck_assert_int_eq(rc, DIAG_EXIT_OK);
	ck_assert_str_eq(got, "{}");
	free(got);
	got = parse("{\"name\":\"simple\",\"arguments\":[]}", one, &rc);
	ck_assert_int_eq(rc, DIAG_EXIT_USAGE);
	ck_assert_ptr_null(got);
}
END_TEST

START_TEST(test_promptargs_refused)
{
	static const char	*bad[][4] = {
		{ "city=a", NULL },		/* country missing */
		{ "country=a", NULL },		/* city missing */
		{ NULL },			/* both */
		{ "city=a", "country=b", "cty=c", NULL },	/* unknown */
		{ "city=a", "country=b", "city=c", NULL },	/* twice */
		{ "city=a", "country", NULL },	/* no '=' */
		{ "city=a", "=b", NULL },	/* no key */
	};
	size_t	 i;
	char	*got;
	int	 rc;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		got = parse(prompt_text, bad[i], &rc);
		ck_assert_msg(rc == DIAG_EXIT_USAGE && got == NULL,
		    "case %zu accepted", i);
	}
	/* The words themselves are checked without the prompt too. */
	got = parse(NULL, bad[5], &rc);
	ck_assert_int_eq(rc, DIAG_EXIT_USAGE);
	got = parse(NULL, bad[4], &rc);
	ck_assert_int_eq(rc, DIAG_EXIT_USAGE);
	got = parse(NULL, bad[0], &rc);
	ck_assert_int_eq(rc, DIAG_EXIT_OK);
	free(got);
}
END_TEST

START_TEST(test_promptargs_describe)
{
	cJSON	*p;
	char	*got;

	ck_assert_ptr_nonnull(p = cJSON_Parse(prompt_text));
	got = promptargs_describe(p);
	ck_assert_str_eq(got, "city (required), state, zip, country "
	    "(required)");
	free(got);
	cJSON_Delete(p);
	ck_assert_ptr_nonnull(p = cJSON_Parse("{\"name\":\"simple\"}"));
	got = promptargs_describe(p);
	ck_assert_str_eq(got, "none");
	free(got);
	cJSON_Delete(p);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("promptargs");
	tc = tcase_create("promptargs");
	tcase_add_test(tc, test_promptargs_strings);
	tcase_add_test(tc, test_promptargs_none);
	tcase_add_test(tc, test_promptargs_refused);
	tcase_add_test(tc, test_promptargs_describe);
	suite_add_tcase(s, tc);
	return (s);
}
