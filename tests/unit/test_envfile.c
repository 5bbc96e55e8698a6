/*
 * test_envfile.c -- unit tests for the files a configuration names for
 * their contents (src/conf.c, src/conf_file.c): a server's "envFile" and
 * "${credential:NAME}" from $CREDENTIALS_DIRECTORY.
 */

#include "config.h"

#include <sys/stat.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "unit.h"

static char	dir[] = "/tmp/test_envfile.XXXXXX";

static void
setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void
teardown(void)
{
	char	 cmd[256];

	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	strcpy(dir, "/tmp/test_envfile.XXXXXX");
	unsetenv("CREDENTIALS_DIRECTORY");
}

static void
put(const char *name, const char *text, mode_t mode)
{
	char	 path[512];
	FILE	*f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
	ck_assert_int_eq(chmod(path, mode), 0);
}

/* conf_load_text of json with "DIR" replaced by the temp directory. */
static struct conf *
load(const char *json, struct conf_diags *d)
{
	char	 text[4096], *p;
	size_t	 n = 0;

	for (p = (char *)json; *p != '\0' && n < sizeof text - 64; p++) {
		if (strncmp(p, "DIR", 3) == 0) {
			n += snprintf(text + n, sizeof text - n, "%s", dir);
			p += 2;
		} else
			text[n++] = *p;
	}
	text[n] = '\0';
	conf_diags_init(d);
	return (conf_load_text("mcpd.json", text, n, d));
}

static void
assert_error(const char *json, const char *want)
{
	struct conf_diags	 d;

	ck_assert_ptr_null(load(json, &d));
	ck_assert_uint_ge(d.n, 1);
	ck_assert_msg(strstr(d.v[0].text, want) != NULL, "got \"%s\", want "
	    "\"%s\"", d.v[0].text, want);
	ck_assert_ptr_null(strstr(d.v[0].text, "s3cret"));
	conf_diags_free(&d);
}

START_TEST(test_envfile_read)
{
	struct conf_diags	 d;
	struct conf		*c;

	put("env", "# the server's secrets\nTOKEN=s3cret\nB=file\n", 0600);
	c = load("{\"mcpServers\": {\"s\": {\"command\": \"x\", \"env\": "
	    "{\"B\": \"env\"}, \"envFile\": \"DIR/env\"}}}", &d);
	ck_assert_ptr_nonnull(c);
	/* env wins over the file; the file's others follow. */
	ck_assert_uint_eq(c->servers[0].envc, 2);
	ck_assert_str_eq(c->servers[0].env[0], "B=env");
	ck_assert_str_eq(c->servers[0].env[1], "TOKEN=s3cret");
	ck_assert_ptr_null(c->servers[0].env[2]);
	conf_free(c);
	conf_diags_free(&d);
}
END_TEST

START_TEST(test_envfile_reread)
{
	struct conf_diags	 d1, d2;
	struct conf		*a, *b;
	const char		*json = "{\"mcpServers\": {\"s\": {\"command\": "
	    "\"x\", \"envFile\": \"DIR/env\"}}}";

	put("env", "TOKEN=one\n", 0600);
	a = load(json, &d1);
	put("env", "TOKEN=two\n", 0600);
	b = load(json, &d2);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	/* A reload reads it again: a changed file restarts the server. */
	ck_assert_int_eq(conf_server_equal(&a->servers[0], &b->servers[0]),
	    0);
	conf_free(a);
	conf_free(b);
	conf_diags_free(&d1);
	conf_diags_free(&d2);
}
END_TEST

START_TEST(test_envfile_errors)
{
	struct conf_diags	 d;
	const char		*json = "{\"mcpServers\": {\"s\": {\"command\": "
	    "\"x\", \"envFile\": \"DIR/env\"}}}";

	assert_error(json, "mcpServers.s.envFile: envFile: No such file or "
	    "directory");
	put("env", "TOKEN=s3cret\n", 0620);
	assert_error(json, "mcpServers.s.envFile: envFile: is group- or "
	    "world-writable");
	put("env", "TOKEN=s3cret\nnot s3cret\n", 0600);
	assert_error(json, "mcpServers.s.envFile: line 2: expected KEY=VALUE");
	assert_error("{\"mcpServers\": {\"s\": {\"command\": \"x\", "
	    "\"envFile\": \"env\"}}}", "mcpServers.s.envFile: must be an "
	    "absolute path");
	/* From memory, no file is read. */
	json = "{\"mcpServers\": {\"s\": {\"command\": \"x\", \"envFile\": "
	    "\"/etc/passwd\"}}}";
	conf_diags_init(&d);
	ck_assert_ptr_null(conf_parse(json, strlen(json), NULL, NULL, &d));
	ck_assert_ptr_nonnull(strstr(d.v[0].text, "not read when the "
	    "configuration is parsed from memory"));
	conf_diags_free(&d);
}
END_TEST

START_TEST(test_credential)
{
	struct conf_diags	 d;
	struct conf		*c;

	put("github-token", "s3cret\n", 0400);
	setenv("CREDENTIALS_DIRECTORY", dir, 1);
	c = load("{\"mcpServers\": {\"s\": {\"command\": \"x\", \"args\": "
	    "[\"--token=${credential:github-token}\"], \"env\": {\"T\": "
	    "\"${credential:github-token}\"}}}}", &d);
	ck_assert_ptr_nonnull(c);
	/* The trailing newline dropped; what is shown stays unexpanded. */
	ck_assert_str_eq(c->servers[0].argv[1], "--token=s3cret");
	ck_assert_str_eq(c->servers[0].argv_display[1],
	    "--token=${credential:github-token}");
	ck_assert_str_eq(c->servers[0].env[0], "T=s3cret");
	conf_free(c);
	conf_diags_free(&d);

	assert_error("{\"mcpServers\": {\"s\": {\"command\": "
	    "\"${credential:nope}\"}}}", "mcpServers.s.command: "
	    "${credential:nope}: No such file or directory");
	assert_error("{\"mcpServers\": {\"s\": {\"command\": "
	    "\"${credential:../x}\"}}}", "invalid credential name");
	unsetenv("CREDENTIALS_DIRECTORY");
	assert_error("{\"mcpServers\": {\"s\": {\"command\": "
	    "\"${credential:github-token}\"}}}", "${credential:github-token}: "
	    "$CREDENTIALS_DIRECTORY is not set");
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("envfile");
	tc = tcase_create("files");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_envfile_read);
	tcase_add_test(tc, test_envfile_reread);
	tcase_add_test(tc, test_envfile_errors);
	tcase_add_test(tc, test_credential);
	suite_add_tcase(s, tc);
	return (s);
}
