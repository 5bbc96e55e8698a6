/*
 * sandbox_path.c -- the paths of the sandbox's rules in one spelling,
 * and how two of them relate (the same, one below the other), done on
 * the text alone: nothing here looks at the file system.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sandbox_int.h"
#include "xmalloc.h"

char *
sb_path_norm(const char *path)
{
	const char	*p, *end;
	char		*out;
	size_t		 len, n = 0;

	if (path == NULL || *path != '/')
		return (NULL);
	out = xmalloc(strlen(path) + 2);
	for (p = path; *p != '\0'; p = end) {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		end = strchr(p, '/');
		if (end == NULL)
			end = p + strlen(p);
		len = (size_t)(end - p);
		if (len == 1 && p[0] == '.')
			continue;
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			free(out);
			return (NULL);
		}
		out[n++] = '/';
		memcpy(out + n, p, len);
		n += len;
	}
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	return (out);
}

int
sb_path_below(const char *a, const char *b)
{
	size_t	 blen = strlen(b);

	if (strcmp(b, "/") == 0)
		return (strcmp(a, "/") != 0);
	return (strncmp(a, b, blen) == 0 && a[blen] == '/');
}

int
sb_path_within(const char *a, const char *b)
{
	return (strcmp(a, b) == 0 || sb_path_below(a, b));
}

char *
sb_path_join(const char *dir, const char *name)
{
	char	*out;

	if (strcmp(dir, "/") == 0)
		xasprintf(&out, "/%s", name);
	else
		xasprintf(&out, "%s/%s", dir, name);
	return (out);
}

char *
sb_path_dir(const char *path)
{
	const char	*slash;

	slash = strrchr(path, '/');
	if (slash == NULL || slash == path)
		return (xstrdup("/"));
	return (xstrndup(path, (size_t)(slash - path)));
}

const char *
sb_path_base(const char *path)
{
	const char	*slash;

	slash = strrchr(path, '/');
	return (slash == NULL ? path : slash + 1);
}
