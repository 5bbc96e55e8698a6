/*
 * test_ident_proc.c -- unit tests for reading what /proc says of a
 * process (src/ident_proc.c), on the texts a hostile process can shape.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "ident_proc.h"
#include "unit.h"

#define S(lit)	(lit), sizeof (lit) - 1

/* The rest of a stat line after the comm, as the kernel writes it. */
#define STAT_TAIL " S 321 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 " \
	"1 0 987654 1000 10 18446744073709551615\n"

START_TEST(test_stat_comm_hostile)
{
	struct identp_stat	 st;

	ck_assert_int_eq(identp_stat(S("4242 (bash)" STAT_TAIL), &st), 0);
	ck_assert_int_eq(st.ppid, 321);
	ck_assert_int_eq(st.state, 'S');
	ck_assert_uint_eq(st.starttime, 987654);
	/* ')', spaces and newlines in the comm: the last ')' ends it. */
	ck_assert_int_eq(identp_stat(S("4242 (a) S 1 (x)" STAT_TAIL), &st),
	    0);
	ck_assert_int_eq(st.ppid, 321);
	ck_assert_int_eq(identp_stat(S("4242 (a\n) Z 9\n)" STAT_TAIL), &st),
	    0);
	ck_assert_int_eq(st.ppid, 321);
	ck_assert_int_eq(identp_stat(S("4242 ())))" STAT_TAIL), &st), 0);
	ck_assert_int_eq(st.ppid, 321);
}
END_TEST

START_TEST(test_stat_refused)
{
	struct identp_stat	 st;

	ck_assert_int_eq(identp_stat(S(""), &st), -1);
	ck_assert_int_eq(identp_stat(S("4242 bash S 1 2"), &st), -1);
	/* Cut short, or a field that is not a number. */
	ck_assert_int_eq(identp_stat(S("4242 (bash) S 321 4242\n"), &st),
	    -1);
	ck_assert_int_eq(identp_stat(S("4242 (bash) S -1 4242 4242 0 -1 "
	    "4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000\n"), &st), -1);
	ck_assert_int_eq(identp_stat(S("4242 (bash) S 99999999999 4242 4242 "
	    "0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000\n"), &st),
	    -1);
	ck_assert_int_eq(identp_stat(S("4242 (bash)  S 321 4242 4242 0 -1 "
	    "4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000\n"), &st), -1);
}
END_TEST

START_TEST(test_status)
{
	const char	 text[] = "Name:\tevil\nPPid:\t12\nX\n"
	    "Uid:\t1000\t0\t0\t0\nGid:\t1\n";
	pid_t		 ppid;
	uid_t		 uid;

	ck_assert_int_eq(identp_status_ppid(S(text), &ppid), 0);
	ck_assert_int_eq(ppid, 12);
	/* The real uid, not the effective one. */
	ck_assert_int_eq(identp_status_uid(S(text), &uid), 0);
	ck_assert_uint_eq(uid, 1000);
	/* A comm of "x\nPPid: 1" gives a second line: refused. */
	ck_assert_int_eq(identp_status_ppid(S("Name:\tx\nPPid:\t1\n"
	    "PPid:\t12\n"), &ppid), -1);
	ck_assert_int_eq(identp_status_ppid(S("PPid:\t\n"), &ppid), -1);
	ck_assert_int_eq(identp_status_ppid(S("PPid:\t1x\n"), &ppid), -1);
	ck_assert_int_eq(identp_status_ppid(S("PPidX:\t1\n"), &ppid), -1);
	ck_assert_int_eq(identp_status_uid(S("Uid:\t-1\t0\n"), &uid), -1);
	ck_assert_int_eq(identp_status_ppid("PPid:\t1\0\n", 9, &ppid), -1);
}
END_TEST

static void
assert_cgroup(const char *text, const char *path, const char *unit,
    const char *app)
{
	char	*p, *u, *a;

	p = identp_cgroup_path(text, strlen(text));
	if (path == NULL) {
		ck_assert_msg(p == NULL, "%s: path %s, want none", text, p);
		return;
	}
	ck_assert_msg(p != NULL && strcmp(p, path) == 0, "%s: path %s, want "
	    "%s", text, p, path);
	u = identp_unit(p);
	a = identp_cgroup_app(p);
	if (unit == NULL)
		ck_assert_msg(u == NULL, "%s: unit %s", path, u);
	else
		ck_assert_msg(u != NULL && strcmp(u, unit) == 0, "%s: unit %s, "
		    "want %s", path, u, unit);
	if (app == NULL)
		ck_assert_msg(a == NULL, "%s: app %s", path, a);
	else
		ck_assert_msg(a != NULL && strcmp(a, app) == 0, "%s: app %s, "
		    "want %s", path, a, app);
	free(p);
	free(u);
	free(a);
}

START_TEST(test_cgroup_v2)
{
	assert_cgroup("0::/system.slice/mcpd.service\n",
	    "/system.slice/mcpd.service", "mcpd.service", NULL);
	/* A user's unit, below its manager's. */
	assert_cgroup("0::/user.slice/user-1000.slice/user@1000.service/"
	    "app.slice/code.service\n", "/user.slice/user-1000.slice/"
	    "user@1000.service/app.slice/code.service", "code.service", NULL);
	assert_cgroup("0::/user.slice/user-1000.slice/session-2.scope\n",
	    "/user.slice/user-1000.slice/session-2.scope", "session-2.scope",
	    NULL);
	/* No unit at all; the root. */
	assert_cgroup("0::/\n", "/", NULL, NULL);
	assert_cgroup("0::/user.slice/x.slice\n", "/user.slice/x.slice", NULL,
	    NULL);
	/* A unit's own sub-cgroups (Delegate=yes): the unit above. */
	assert_cgroup("0::/system.slice/docker.service/payload/inner\n",
	    "/system.slice/docker.service/payload/inner", "docker.service",
	    NULL);
}
END_TEST

START_TEST(test_cgroup_hybrid)
{
	assert_cgroup("12:pids:/user.slice\n5:cpu,cpuacct:/\n"
	    "1:name=systemd:/user.slice/user-1000.slice/session-3.scope\n"
	    "0::/user.slice/user-1000.slice/session-3.scope\n",
	    "/user.slice/user-1000.slice/session-3.scope", "session-3.scope",
	    NULL);
	/* Legacy: systemd's named hierarchy alone. */
	assert_cgroup("11:memory:/\n1:name=systemd:/system.slice/a.service\n",
	    "/system.slice/a.service", "a.service", NULL);
	/* An empty unified line of a hybrid: systemd's is not looked at. */
	assert_cgroup("1:name=systemd:/system.slice/a.service\n0::/\n", "/",
	    NULL, NULL);
	/* Another named hierarchy is not systemd's. */
	assert_cgroup("2:name=elogind:/a.service\n", NULL, NULL, NULL);
}
END_TEST

START_TEST(test_cgroup_garbage)
{
	/* A name with a newline makes a second unified line: neither. */
	assert_cgroup("0::/user.slice/evil\n0::/system.slice/sshd.service\n",
	    NULL, NULL, NULL);
	assert_cgroup("", NULL, NULL, NULL);
	assert_cgroup("garbage\n::\n0:\n0::\n0::relative.service\n", NULL,
	    NULL, NULL);
	assert_cgroup("x::/a.service\n", NULL, NULL, NULL);
	assert_cgroup("0:x:/a.service\n", NULL, NULL, NULL);
	/* Not ended by a newline: taken as the kernel would end it. */
	assert_cgroup("0::/a.scope", "/a.scope", "a.scope", NULL);
	/* A suffix alone is no unit's name. */
	assert_cgroup("0::/.service/x\n", "/.service/x", NULL, NULL);
	ck_assert_ptr_null(identp_cgroup_path("0::/a.service\0\n", 15));
}
END_TEST

START_TEST(test_cgroup_apps)
{
	assert_cgroup("0::/user.slice/user-1000.slice/user@1000.service/"
	    "app.slice/app-flatpak-org.mozilla.firefox-12345.scope\n",
	    "/user.slice/user-1000.slice/user@1000.service/app.slice/"
	    "app-flatpak-org.mozilla.firefox-12345.scope",
	    "app-flatpak-org.mozilla.firefox-12345.scope",
	    "org.mozilla.firefox");
	/* A hyphen in the id's last element. */
	assert_cgroup("0::/app-flatpak-com.example.my-app-7.scope\n",
	    "/app-flatpak-com.example.my-app-7.scope",
	    "app-flatpak-com.example.my-app-7.scope", "com.example.my-app");
	/* No number, or no id. */
	assert_cgroup("0::/app-flatpak-org.x.y.scope\n",
	    "/app-flatpak-org.x.y.scope", "app-flatpak-org.x.y.scope", NULL);
	assert_cgroup("0::/app-flatpak--1.scope\n", "/app-flatpak--1.scope",
	    "app-flatpak--1.scope", NULL);
	assert_cgroup("0::/user.slice/snap.firefox.firefox-3f2a9c.scope\n",
	    "/user.slice/snap.firefox.firefox-3f2a9c.scope",
	    "snap.firefox.firefox-3f2a9c.scope", "snap.firefox");
	assert_cgroup("0::/system.slice/snap.lxd.daemon.service\n",
	    "/system.slice/snap.lxd.daemon.service", "snap.lxd.daemon.service",
	    "snap.lxd");
	assert_cgroup("0::/snap..x.scope\n", "/snap..x.scope", "snap..x.scope",
	    NULL);
}
END_TEST

START_TEST(test_flatpak_info)
{
	char	*name;

	name = identp_flatpak_info(S("[Application]\nname=org.example.App\n"
	    "runtime=runtime/org.gnome.Platform/x86_64/45\n\n[Instance]\n"
	    "name=not.this\n"));
	ck_assert_str_eq(name, "org.example.App");
	free(name);
	ck_assert_ptr_null(identp_flatpak_info(S("[Runtime]\nname=x.y.z\n")));
	ck_assert_ptr_null(identp_flatpak_info(S("name=x.y.z\n")));
	/* Twice in its group: not flatpak's. */
	ck_assert_ptr_null(identp_flatpak_info(S("[Application]\nname=a.b.c"
	    "\nname=d.e.f\n")));
	ck_assert_ptr_null(identp_flatpak_info(S("[Application]\nname=\n")));
	ck_assert_ptr_null(identp_flatpak_info("[Application]\nname=a\0b\n",
	    22));
}
END_TEST

START_TEST(test_exe)
{
	char	*d;

	ck_assert(identp_exe_is("/usr/bin/mcpctl", "mcpctl"));
	ck_assert(identp_exe_is("/usr/bin/mcpctl (deleted)", "mcpctl"));
	ck_assert(identp_exe_is("mcpctl", "mcpctl"));
	ck_assert(!identp_exe_is("/usr/bin/mcpctl2", "mcpctl"));
	ck_assert(!identp_exe_is("/usr/bin/not-mcpctl", "mcpctl"));
	ck_assert(!identp_exe_is(NULL, "mcpctl"));
	/* A newline in a path: kept, escaped for a terminal. */
	d = identp_display("/tmp/a\nb (deleted)");
	ck_assert_str_eq(d, "/tmp/a\\nb (deleted)");
	free(d);
	d = identp_display("/tmp/\x1b[31mred");
	ck_assert_str_eq(d, "/tmp/\\x1b[31mred");
	free(d);
}
END_TEST

#define W(exe, argv)	identp_wrapper((exe), (argv), sizeof (argv) - 1)

START_TEST(test_wrappers)
{
	ck_assert(W("/usr/bin/dash", "sh\0-c\0mcpctl connect x\0"));
	ck_assert(W("/bin/bash", "bash\0"));
	ck_assert(W("/usr/bin/zsh (deleted)", "zsh\0"));
	ck_assert(W("/usr/bin/env", "env\0FOO=1\0mcpctl\0"));
	ck_assert(W("/home/u/.cargo/bin/uvx", "uvx\0tool\0"));
	ck_assert(W("/usr/local/bin/uv", "uv\0run\0"));
	ck_assert(W("/usr/bin/node", "node\0/usr/lib/node_modules/npm/bin/"
	    "npx-cli.js\0-y\0pkg\0"));
	ck_assert(W("/usr/bin/node", "npx\0-y\0pkg\0"));
	ck_assert(W("/usr/bin/node", "npm exec pkg\0"));
	ck_assert(W("/usr/bin/node", "node\0/usr/bin/npm\0exec\0pkg\0"));
	ck_assert(W("/usr/bin/node20", "node\0/usr/bin/npx\0pkg\0"));
	ck_assert(W("/usr/bin/python3.11", "python3\0-m\0pipx\0run\0x\0"));
	ck_assert(W("/usr/bin/python3", "python3\0/usr/bin/pipx\0run\0x\0"));
	/* Apps, not wrappers. */
	ck_assert(!W("/usr/bin/node", "node\0/opt/app/main.js\0"));
	ck_assert(!W("/usr/bin/node", "node\0/usr/bin/npm\0install\0"));
	ck_assert(!W("/usr/bin/node", "node\0"));
	ck_assert(!W("/usr/bin/python3", "python3\0-m\0my_agent\0"));
	ck_assert(!W("/usr/bin/python3", "python3\0agent.py\0"));
	ck_assert(!W("/usr/share/code/code", "code\0"));
	ck_assert(!W("/tmp/shell", "sh\0"));
	ck_assert(!W("/usr/bin/nodemon", "node\0npx\0"));
	ck_assert(!W(NULL, "sh\0"));
	/* An argument not ended by a NUL is not the kernel's. */
	ck_assert(!identp_wrapper("/usr/bin/node", "node\0npx-cli.js", 15));
}
END_TEST

START_TEST(test_long)
{
	size_t	 n = IDENTP_TEXT_MAX_BYTES + 100;
	char	*text = malloc(n), *p;
	pid_t	 ppid;

	memset(text, 'a', n);
	memcpy(text, "0::/", 4);
	memcpy(text + n - 9, ".service\n", 9);
	ck_assert_ptr_null(identp_cgroup_path(text, n));
	ck_assert_int_eq(identp_status_ppid(text, n, &ppid), -1);
	/* A long name within the bound is read whole. */
	p = identp_cgroup_path(text + 100, n - 100 - 9);
	ck_assert_ptr_null(p);
	memcpy(text + 100, "0::/", 4);
	p = identp_cgroup_path(text + 100, n - 100);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(strlen(p), n - 100 - 4);
	free(p);
	free(text);
}
END_TEST

/* A cgroup within a server's: whole components, the base itself or below. */
START_TEST(test_cgroup_within)
{
	ck_assert_int_eq(identp_cgroup_within("/a/server-x", "/a/server-x"), 1);
	ck_assert_int_eq(identp_cgroup_within("/a/server-x/sub",
	    "/a/server-x"), 1);
	ck_assert_int_eq(identp_cgroup_within("/a/server-x", "/a/server-x/"),
	    1);
	ck_assert_int_eq(identp_cgroup_within("/a/server-xy", "/a/server-x"),
	    0);
	ck_assert_int_eq(identp_cgroup_within("/a", "/a/server-x"), 0);
	ck_assert_int_eq(identp_cgroup_within("/b/server-x", "/a/server-x"),
	    0);
	ck_assert_int_eq(identp_cgroup_within("/", "/"), 0);
	ck_assert_int_eq(identp_cgroup_within("/a", ""), 0);
	ck_assert_int_eq(identp_cgroup_within("", "/a"), 0);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("ident_proc");
	tc = tcase_create("proc");
	tcase_add_test(tc, test_stat_comm_hostile);
	tcase_add_test(tc, test_stat_refused);
	tcase_add_test(tc, test_status);
	tcase_add_test(tc, test_cgroup_v2);
	tcase_add_test(tc, test_cgroup_hybrid);
	tcase_add_test(tc, test_cgroup_garbage);
	tcase_add_test(tc, test_cgroup_apps);
	tcase_add_test(tc, test_flatpak_info);
	tcase_add_test(tc, test_exe);
	tcase_add_test(tc, test_wrappers);
	tcase_add_test(tc, test_long);
	tcase_add_test(tc, test_cgroup_within);
	suite_add_tcase(s, tc);
	return (s);
}
