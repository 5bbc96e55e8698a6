/*
 * fuzz_ident.c -- what /proc says of a client's process (src/ident_proc.c),
 * read from texts a process can shape: its comm and command line, its
 * executable's path, the cgroup names its user made, a sandbox's
 * /.flatpak-info.
 *
 * The whole input is each of /proc/PID/stat, status, cgroup and
 * .flatpak-info in turn; for identp_wrapper, its first line is the
 * executable and the rest the command line.
 *
 * Invariants:
 * - stat accepted: the text has a '(' before its last ')', the state is a
 *   letter, the PPid is not negative;
 * - a cgroup path is a piece of the text that starts with '/' and holds no
 *   newline; its unit is a piece of it without '/', ending in ".service"
 *   or ".scope"; its app id is not empty and holds no '/';
 * - a Flatpak name holds no newline;
 * - what identp_display gives holds no control character;
 * - identp_wrapper answers 0 or 1.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "ident_proc.h"
#include "xmalloc.h"

const char	*fuzz_target_name = "ident";

static int
ends(const char *s, const char *suffix)
{
	size_t	 n = strlen(s), m = strlen(suffix);

	return (n > m && strcmp(s + n - m, suffix) == 0);
}

static int
inside(const char *piece, const uint8_t *data, size_t size)
{
	size_t	 n = strlen(piece), i;

	for (i = 0; i + n <= size; i++)
		if (memcmp(data + i, piece, n) == 0)
			return (1);
	return (0);
}

static void
check_display(const char *s)
{
	char	*d;
	size_t	 i;

	d = identp_display(s);
	for (i = 0; d[i] != '\0'; i++)
		FUZZ_CHECK((unsigned char)d[i] >= 0x20 && d[i] != 0x7f,
		    "a control character in the display of %s", d);
	free(d);
}

static void
check_stat(const uint8_t *data, size_t size)
{
	struct identp_stat	 st;
	const char		*text = (const char *)data, *close;

	if (identp_stat(text, size, &st) != 0)
		return;
	close = NULL;
	for (size_t i = 0; i < size; i++)
		if (text[i] == ')')
			close = text + i;
	FUZZ_CHECK(close != NULL && memchr(text, '(',
	    (size_t)(close - text)) != NULL, "stat accepted without a comm");
	FUZZ_CHECK((st.state >= 'A' && st.state <= 'z'), "state %d",
	    st.state);
	FUZZ_CHECK(st.ppid >= 0, "a negative PPid %ld", (long)st.ppid);
}

static void
check_cgroup(const uint8_t *data, size_t size)
{
	char	*path, *unit, *app;

	if ((path = identp_cgroup_path((const char *)data, size)) == NULL)
		return;
	FUZZ_CHECK(path[0] == '/' && strchr(path, '\n') == NULL &&
	    inside(path, data, size), "cgroup path %s", path);
	if ((unit = identp_unit(path)) != NULL) {
		FUZZ_CHECK(strchr(unit, '/') == NULL && strstr(path, unit) !=
		    NULL && (ends(unit, ".service") || ends(unit, ".scope")),
		    "unit %s of %s", unit, path);
		check_display(unit);
		free(unit);
	}
	if ((app = identp_cgroup_app(path)) != NULL) {
		FUZZ_CHECK(app[0] != '\0' && strchr(app, '/') == NULL,
		    "app id %s of %s", app, path);
		free(app);
	}
	check_display(path);
	free(path);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*text = (const char *)data, *nl;
	char		*name, *exe;
	pid_t		 ppid;
	uid_t		 uid;
	int		 w;

	check_stat(data, size);
	if (identp_status_ppid(text, size, &ppid) == 0)
		FUZZ_CHECK(ppid >= 0, "a negative PPid");
	(void)identp_status_uid(text, size, &uid);
	check_cgroup(data, size);
	if ((name = identp_flatpak_info(text, size)) != NULL) {
		FUZZ_CHECK(strchr(name, '\n') == NULL, "flatpak name %s",
		    name);
		free(name);
	}
	if ((nl = memchr(text, '\n', size)) != NULL) {
		exe = xstrndup(text, (size_t)(nl - text));
		w = identp_wrapper(exe, nl + 1, size - (size_t)(nl - text) - 1);
		FUZZ_CHECK(w == 0 || w == 1, "wrapper %d", w);
		check_display(exe);
		free(exe);
	}
	return (0);
}
