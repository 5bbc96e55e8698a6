/*
 * ident_proc.c -- what /proc says of a process, from texts mcpd cannot
 * trust (ident_proc.h).
 *
 * Numbers are read digit by digit with an overflow check, never with a
 * library call that skips spaces or takes a sign.  Lines are found with
 * memchr within the length given; a text with a NUL where the kernel
 * writes none is refused.
 */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "ident_proc.h"
#include "util.h"
#include "xmalloc.h"

#define IDENTP_DELETED		" (deleted)"
#define IDENTP_STAT_STARTTIME	20	/* its field after the comm's ')' */

/* A decimal number of s[0, len), whole; 0, or -1. */
static int
identp_number(const char *s, size_t len, unsigned long long max,
    unsigned long long *out)
{
	unsigned long long	 v = 0;
	size_t			 i;

	if (len == 0 || len > 20)
		return (-1);
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return (-1);
		if (v > (max - (unsigned long long)(s[i] - '0')) / 10)
			return (-1);
		v = v * 10 + (unsigned long long)(s[i] - '0');
	}
	*out = v;
	return (0);
}

int
identp_stat(const char *text, size_t len, struct identp_stat *st)
{
	const char		*p = NULL, *end = text + len, *f;
	unsigned long long	 v;
	size_t			 i, n;

	if (len > IDENTP_TEXT_MAX_BYTES)
		return (-1);
	/* The comm may hold ")": the fields follow the last one. */
	for (i = len; i > 0; i--) {
		if (text[i - 1] == ')') {
			p = text + i;
			break;
		}
	}
	if (p == NULL || memchr(text, '(', (size_t)(p - text)) == NULL)
		return (-1);
	memset(st, 0, sizeof *st);
	for (i = 1; i <= IDENTP_STAT_STARTTIME; i++) {
		if (p >= end || *p != ' ')
			return (-1);
		f = ++p;
		while (p < end && *p != ' ' && *p != '\n')
			p++;
		n = (size_t)(p - f);
		if (i == 1) {
			if (n != 1 || *f < 'A' || *f > 'z')
				return (-1);
			st->state = *f;
			continue;
		}
		if (i != 2 && i != IDENTP_STAT_STARTTIME)
			continue;
		if (identp_number(f, n, i == 2 ? INT_MAX : ULLONG_MAX,
		    &v) != 0)
			return (-1);
		if (i == 2)
			st->ppid = (pid_t)v;
		else
			st->starttime = v;
	}
	return (0);
}

/*
 * The value of the one line "key:\t..." of a status text; -1 when it is
 * missing or there twice.
 */
static int
identp_status_line(const char *text, size_t len, const char *key,
    const char **value, size_t *vlen)
{
	const char	*line = text, *end = text + len, *nl;
	size_t		 klen = strlen(key);
	int		 found = 0;

	if (len > IDENTP_TEXT_MAX_BYTES || memchr(text, '\0', len) != NULL)
		return (-1);
	for (; line < end; line = nl + 1) {
		if ((nl = memchr(line, '\n', (size_t)(end - line))) == NULL)
			nl = end;
		if ((size_t)(nl - line) <= klen || memcmp(line, key, klen) != 0 ||
		    line[klen] != ':')
			continue;
		if (found++)
			return (-1);
		*value = line + klen + 1;
		while (*value < nl && (**value == '\t' || **value == ' '))
			(*value)++;
		*vlen = (size_t)(nl - *value);
	}
	return (found == 1 ? 0 : -1);
}

int
identp_status_ppid(const char *text, size_t len, pid_t *ppid)
{
	const char		*v;
	size_t			 vlen;
	unsigned long long	 n;

	if (identp_status_line(text, len, "PPid", &v, &vlen) != 0 ||
	    identp_number(v, vlen, INT_MAX, &n) != 0)
		return (-1);
	*ppid = (pid_t)n;
	return (0);
}

int
identp_status_uid(const char *text, size_t len, uid_t *uid)
{
	const char		*v;
	size_t			 vlen, n;
	unsigned long long	 u;

	if (identp_status_line(text, len, "Uid", &v, &vlen) != 0)
		return (-1);
	/* Real, effective, saved, filesystem: the first. */
	for (n = 0; n < vlen && v[n] != '\t' && v[n] != ' '; n++)
		;
	if (identp_number(v, n, UINT32_MAX - 1, &u) != 0)
		return (-1);
	*uid = (uid_t)u;
	return (0);
}

/*
 * A line "N:controllers:/path" of a cgroup text: is it the unified
 * hierarchy's (unified) or systemd's named one?  The path, or NULL.
 */
static const char *
identp_cgroup_line(const char *line, size_t len, int unified, size_t *plen)
{
	const char	*c1, *c2, *end = line + len;
	size_t		 n;

	if ((c1 = memchr(line, ':', len)) == NULL || c1 == line)
		return (NULL);
	if ((c2 = memchr(c1 + 1, ':', (size_t)(end - c1 - 1))) == NULL)
		return (NULL);
	for (n = 0; line + n < c1; n++)
		if (line[n] < '0' || line[n] > '9')
			return (NULL);
	if (unified && !(c1 - line == 1 && line[0] == '0' && c2 == c1 + 1))
		return (NULL);
	if (!unified && ((size_t)(c2 - c1 - 1) != strlen("name=systemd") ||
	    memcmp(c1 + 1, "name=systemd", (size_t)(c2 - c1 - 1)) != 0))
		return (NULL);
	if (c2 + 1 >= end || c2[1] != '/')
		return (NULL);
	*plen = (size_t)(end - c2 - 1);
	return (c2 + 1);
}

/* The path of the one line of that hierarchy; NULL if none, or two. */
static char *
identp_cgroup_find(const char *text, size_t len, int unified)
{
	const char	*line = text, *end = text + len, *nl, *p, *found = NULL;
	size_t		 plen, flen = 0;

	for (; line < end; line = nl + 1) {
		if ((nl = memchr(line, '\n', (size_t)(end - line))) == NULL)
			nl = end;
		if ((p = identp_cgroup_line(line, (size_t)(nl - line), unified,
		    &plen)) == NULL)
			continue;
		if (found != NULL)
			return (NULL);
		found = p;
		flen = plen;
	}
	return (found != NULL ? xstrndup(found, flen) : NULL);
}

char *
identp_cgroup_path(const char *text, size_t len)
{
	char	*path;

	if (len > IDENTP_TEXT_MAX_BYTES || memchr(text, '\0', len) != NULL)
		return (NULL);
	if ((path = identp_cgroup_find(text, len, 1)) != NULL)
		return (path);
	return (identp_cgroup_find(text, len, 0));
}

int
identp_cgroup_within(const char *path, const char *base)
{
	size_t	 blen = strlen(base);

	while (blen > 0 && base[blen - 1] == '/')
		blen--;
	if (blen == 0 || base[0] != '/' || strncmp(path, base, blen) != 0)
		return (0);
	return (path[blen] == '\0' || path[blen] == '/');
}

static int
identp_ends(const char *s, size_t len, const char *suffix)
{
	size_t	 n = strlen(suffix);

	return (len > n && memcmp(s + len - n, suffix, n) == 0);
}

/* The last component of path that fits want; NULL if none. */
static const char *
identp_component(const char *path, int (*want)(const char *, size_t),
    size_t *len)
{
	const char	*c, *slash, *last = NULL;
	size_t		 n;

	for (c = path; *c != '\0'; c = slash + (*slash != '\0')) {
		if ((slash = strchr(c, '/')) == NULL)
			slash = c + strlen(c);
		n = (size_t)(slash - c);
		if (n > 0 && want(c, n)) {
			last = c;
			*len = n;
		}
		if (*slash == '\0')
			break;
	}
	return (last);
}

static int
identp_is_unit(const char *c, size_t n)
{
	return (identp_ends(c, n, ".service") || identp_ends(c, n, ".scope"));
}

char *
identp_unit(const char *path)
{
	const char	*c;
	size_t		 n;

	if ((c = identp_component(path, identp_is_unit, &n)) == NULL)
		return (NULL);
	return (xstrndup(c, n));
}

#define IDENTP_FLATPAK_SCOPE	"app-flatpak-"
#define IDENTP_SNAP_UNIT	"snap."

static int
identp_is_flatpak(const char *c, size_t n)
{
	return (n > strlen(IDENTP_FLATPAK_SCOPE) && memcmp(c,
	    IDENTP_FLATPAK_SCOPE, strlen(IDENTP_FLATPAK_SCOPE)) == 0 &&
	    identp_ends(c, n, ".scope"));
}

static int
identp_is_snap(const char *c, size_t n)
{
	return (n > strlen(IDENTP_SNAP_UNIT) && memcmp(c, IDENTP_SNAP_UNIT,
	    strlen(IDENTP_SNAP_UNIT)) == 0 && identp_is_unit(c, n));
}

/* "app-flatpak-ID-NNN.scope": ID, or NULL. */
static char *
identp_flatpak_scope(const char *c, size_t n)
{
	const char	*id = c + strlen(IDENTP_FLATPAK_SCOPE);
	size_t		 end = n - strlen(".scope"), i;

	i = end;
	while (i > 0 && c[i - 1] >= '0' && c[i - 1] <= '9')
		i--;
	if (i == end || i == 0 || c[i - 1] != '-' ||
	    c + i - 1 <= id)
		return (NULL);
	return (xstrndup(id, (size_t)(c + i - 1 - id)));
}

/* "snap.NAME.APP...": "snap.NAME", or NULL. */
static char *
identp_snap_unit(const char *c, size_t n)
{
	const char	*name = c + strlen(IDENTP_SNAP_UNIT), *dot;

	dot = memchr(name, '.', (size_t)(c + n - name));
	if (dot == NULL || dot == name)
		return (NULL);
	return (xstrndup(c, (size_t)(dot - c)));
}

char *
identp_cgroup_app(const char *path)
{
	const char	*c;
	size_t		 n;

	if ((c = identp_component(path, identp_is_flatpak, &n)) != NULL)
		return (identp_flatpak_scope(c, n));
	if ((c = identp_component(path, identp_is_snap, &n)) != NULL)
		return (identp_snap_unit(c, n));
	return (NULL);
}

char *
identp_flatpak_info(const char *text, size_t len)
{
	const char	*line = text, *end = text + len, *nl, *v;
	char		*name = NULL;
	int		 in_app = 0;

	if (len > IDENTP_TEXT_MAX_BYTES || memchr(text, '\0', len) != NULL)
		return (NULL);
	for (; line < end; line = nl + 1) {
		if ((nl = memchr(line, '\n', (size_t)(end - line))) == NULL)
			nl = end;
		if (nl > line && line[0] == '[') {
			in_app = (size_t)(nl - line) == strlen("[Application]")
			    && memcmp(line, "[Application]", (size_t)(nl -
			    line)) == 0;
			continue;
		}
		if (!in_app || (size_t)(nl - line) <= strlen("name=") ||
		    memcmp(line, "name=", strlen("name=")) != 0)
			continue;
		v = line + strlen("name=");
		if (name != NULL) {
			free(name);	/* twice: not what flatpak writes */
			return (NULL);
		}
		name = xstrndup(v, (size_t)(nl - v));
	}
	return (name);
}

/* The basename of exe (" (deleted)" left off) is name. */
int
identp_exe_is(const char *exe, const char *name)
{
	const char	*base;
	size_t		 len;

	if (exe == NULL)
		return (0);
	base = strrchr(exe, '/') != NULL ? strrchr(exe, '/') + 1 : exe;
	len = strlen(base);
	if (identp_ends(base, len, IDENTP_DELETED))
		len -= strlen(IDENTP_DELETED);
	return (len == strlen(name) && memcmp(base, name, len) == 0);
}

/* Does exe's basename start with prefix, then digits and dots only? */
static int
identp_exe_family(const char *exe, const char *prefix)
{
	const char	*base;
	size_t		 len, n = strlen(prefix), i;

	base = strrchr(exe, '/') != NULL ? strrchr(exe, '/') + 1 : exe;
	len = strlen(base);
	if (identp_ends(base, len, IDENTP_DELETED))
		len -= strlen(IDENTP_DELETED);
	if (len < n || memcmp(base, prefix, n) != 0)
		return (0);
	for (i = n; i < len; i++)
		if ((base[i] < '0' || base[i] > '9') && base[i] != '.')
			return (0);
	return (1);
}

/* Argument i of a cmdline text, or NULL; its basename in *base. */
static const char *
identp_arg(const char *cmdline, size_t len, size_t want, const char **base)
{
	const char	*a = cmdline, *end = cmdline + len, *nul, *slash;
	size_t		 i;

	for (i = 0; a < end; i++, a = nul + 1) {
		if ((nul = memchr(a, '\0', (size_t)(end - a))) == NULL)
			return (NULL);	/* unended: not the kernel's */
		if (i != want)
			continue;
		slash = strrchr(a, '/');
		*base = slash != NULL ? slash + 1 : a;
		return (a);
	}
	return (NULL);
}

static int
identp_base_in(const char *base, const char *const *names, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (strcmp(base, names[i]) == 0)
			return (1);
	return (0);
}

/* node running npx, or npm's exec (its process title "npm exec ..."). */
static int
identp_node_wrapper(const char *cmdline, size_t len)
{
	static const char *const npx[] = { "npx", "npx-cli.js" };
	static const char *const npm[] = { "npm", "npm-cli.js" };
	static const char *const exec[] = { "exec", "x" };
	const char	*a0, *a1, *a2, *b;

	if ((a0 = identp_arg(cmdline, len, 0, &b)) == NULL)
		return (0);
	if (strcmp(b, "npx") == 0 || strncmp(a0, "npm exec ", 9) == 0 ||
	    strcmp(a0, "npm exec") == 0)
		return (1);
	if ((a1 = identp_arg(cmdline, len, 1, &b)) == NULL)
		return (0);
	if (identp_base_in(b, npx, nitems(npx)))
		return (1);
	return (identp_base_in(b, npm, nitems(npm)) &&
	    (a2 = identp_arg(cmdline, len, 2, &b)) != NULL &&
	    identp_base_in(a2, exec, nitems(exec)));
}

/* python running a launcher: pipx, uv or uvx, as a script or a module. */
static int
identp_python_wrapper(const char *cmdline, size_t len)
{
	static const char *const launchers[] = { "pipx", "uv", "uvx" };
	const char	*a1, *a2, *b;

	if ((a1 = identp_arg(cmdline, len, 1, &b)) == NULL)
		return (0);
	if (strcmp(a1, "-m") == 0)
		return ((a2 = identp_arg(cmdline, len, 2, &b)) != NULL &&
		    identp_base_in(a2, launchers, nitems(launchers)));
	return (identp_base_in(b, launchers, nitems(launchers)));
}

int
identp_wrapper(const char *exe, const char *cmdline, size_t len)
{
	static const char *const plain[] = {
		"sh", "bash", "dash", "zsh", "ksh", "mksh", "env",
		"npx", "uvx", "uv",
	};
	size_t	 i;

	if (exe == NULL || len > IDENTP_TEXT_MAX_BYTES)
		return (0);
	for (i = 0; i < nitems(plain); i++)
		if (identp_exe_is(exe, plain[i]))
			return (1);
	if (identp_exe_family(exe, "node") || identp_exe_family(exe,
	    "nodejs"))
		return (identp_node_wrapper(cmdline, len));
	if (identp_exe_family(exe, "python"))
		return (identp_python_wrapper(cmdline, len));
	return (0);
}

char *
identp_display(const char *s)
{
	return (esc_text(s, strlen(s), 0));
}
