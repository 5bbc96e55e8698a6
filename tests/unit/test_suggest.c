/*
 * test_suggest.c -- unit tests for the near name of a mistyped one.
 */

#include "config.h"

#include <check.h>
#include <stddef.h>
#include <string.h>

#include "suggest.h"
#include "unit.h"
#include "util.h"

static const char *const top[] = {
	"mcpServers", "servers", "mcpd", "groups", "inputs", "$schema",
};

#define assert_near(word, want) do {					\
	const char *got_ = suggest_near((word), top, nitems(top));	\
	ck_assert_msg(got_ != NULL && strcmp(got_, (want)) == 0,	\
	    "suggest_near(\"%s\"): got %s, want \"%s\"", (word),	\
	    got_ != NULL ? got_ : "NULL", (want));			\
} while (0)

#define assert_none(word) do {						\
	const char *got_ = suggest_near((word), top, nitems(top));	\
	ck_assert_msg(got_ == NULL, "suggest_near(\"%s\"): got \"%s\", "\
	    "want none", (word), got_);					\
} while (0)

START_TEST(test_suggest_edits)
{
	assert_near("mcpServer", "mcpServers");		/* deletion */
	assert_near("mcpServerss", "mcpServers");	/* insertion */
	assert_near("mcpSorvers", "mcpServers");	/* substitution */
	assert_near("mcpSevrers", "mcpServers");	/* neighbours swapped */
	assert_near("mcp_servers", "mcpServers");	/* case, and one */
	assert_near("MCPSERVERS", "mcpServers");	/* case alone */
	assert_near("mcpSrvrs", "mcpServers");		/* two, long name */
	assert_near("server", "servers");
	assert_near("group", "groups");
	assert_near("mpcd", "mcpd");
	assert_near("input", "inputs");
}
END_TEST

START_TEST(test_suggest_none)
{
	assert_none("mcpServers");			/* known exactly */
	assert_none("theme");
	assert_none("");
	assert_none("mc");				/* two from mcpd: short */
	assert_none("mcpSrv");				/* four from mcpServers */
	assert_none("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
}
END_TEST

START_TEST(test_suggest_nearest_first)
{
	static const char *const names[] = { "abcdef", "abcdeg", "abcxyz" };

	/* Both one away: the first listed. */
	ck_assert_str_eq(suggest_near("abcdeh", names, nitems(names)),
	    "abcdef");
	/* One away from the second, two from the first: the nearest. */
	ck_assert_str_eq(suggest_near("abcdgg", names, nitems(names)),
	    "abcdeg");
	ck_assert_ptr_null(suggest_near("x", names, 0));
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("suggest");
	tc = tcase_create("near");
	tcase_add_test(tc, test_suggest_edits);
	tcase_add_test(tc, test_suggest_none);
	tcase_add_test(tc, test_suggest_nearest_first);
	suite_add_tcase(s, tc);
	return (s);
}
