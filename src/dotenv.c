/*
 * dotenv.c -- environment files: KEY=VALUE lines (see dotenv.h).
 *
 * The text is read line by line, each value built in a buffer of its own
 * that is wiped before it is freed: values are secrets.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dotenv.h"
#include "xmalloc.h"

static int
dotenv_blank(char c)
{
	return (c == ' ' || c == '\t');
}

static int
dotenv_key_char(char c, int first)
{
	if (c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))
		return (1);
	return (!first && c >= '0' && c <= '9');
}

void
dotenv_free(char **env)
{
	size_t	 i;

	if (env == NULL)
		return;
	for (i = 0; env[i] != NULL; i++) {
		explicit_bzero(env[i], strlen(env[i]));
		free(env[i]);
	}
	free(env);
}

/* Nothing but blanks, or a comment, in [p, end)? */
static int
dotenv_rest_empty(const char *p, const char *end)
{
	while (p < end && dotenv_blank(*p))
		p++;
	return (p == end || *p == '#');
}

/*
 * One line's value at [p, end) into out (room for end - p + 1 bytes):
 * NULL on success, else what is wrong.
 */
static const char *
dotenv_value(const char *p, const char *end, char *out)
{
	char	 quote, *o = out;

	if (p < end && (*p == '"' || *p == '\'')) {
		quote = *p++;
		for (; p < end && *p != quote; p++) {
			if (quote == '"' && *p == '\\' && p + 1 < end) {
				p++;
				switch (*p) {
				case 'n': *o++ = '\n'; break;
				case 't': *o++ = '\t'; break;
				case 'r': *o++ = '\r'; break;
				case '"': case '\\': case '$': *o++ = *p; break;
				default:
					*o++ = '\\';
					*o++ = *p;
					break;
				}
				continue;
			}
			*o++ = *p;
		}
		if (p == end)
			return ("unterminated quote");
		*o = '\0';
		if (!dotenv_rest_empty(p + 1, end))
			return ("text after the closing quote");
		return (NULL);
	}
	for (; p < end; p++) {
		if (*p == '#' && (o == out || dotenv_blank(o[-1])))
			break;
		*o++ = *p;
	}
	while (o > out && dotenv_blank(o[-1]))
		o--;
	*o = '\0';
	return (NULL);
}

int
dotenv_parse(const char *text, size_t len, char ***envp, size_t *np,
    char **cause)
{
	const char	*p, *end, *line_end, *key, *what;
	char		**env = NULL, *value = NULL, *entry;
	size_t		 n = 0, i, keylen, lineno = 0;

	*envp = NULL;
	*np = 0;
	*cause = NULL;
	if (memchr(text, '\0', len) != NULL) {
		xasprintf(cause, "a NUL byte");
		return (-1);
	}
	env = xcalloc(1, sizeof *env);
	for (p = text, end = text + len; p < end; p = line_end + 1) {
		lineno++;
		if ((line_end = memchr(p, '\n', end - p)) == NULL)
			line_end = end;
		while (p < line_end && dotenv_blank(*p))
			p++;
		if (line_end > p && line_end[-1] == '\r')
			line_end--;
		if (p == line_end || *p == '#') {
			if (line_end < end && *line_end == '\r')
				line_end++;
			continue;
		}
		if (line_end - p > 7 && memcmp(p, "export", 6) == 0 &&
		    dotenv_blank(p[6])) {
			for (p += 6; p < line_end && dotenv_blank(*p); p++)
				;
		}
		key = p;
		while (p < line_end && dotenv_key_char(*p, p == key))
			p++;
		keylen = p - key;
		while (p < line_end && dotenv_blank(*p))
			p++;
		if (keylen == 0 || p == line_end || *p != '=') {
			xasprintf(cause, "line %zu: expected KEY=VALUE (KEY "
			    "of letters, digits and '_')", lineno);
			goto fail;
		}
		for (p++; p < line_end && dotenv_blank(*p); p++)
			;
		value = xmalloc(line_end - p + 1);
		if ((what = dotenv_value(p, line_end, value)) != NULL) {
			xasprintf(cause, "line %zu: %s", lineno, what);
			goto fail;
		}
		xasprintf(&entry, "%.*s=%s", (int)keylen, key, value);
		explicit_bzero(value, line_end - p + 1);
		free(value);
		value = NULL;
		for (i = 0; i < n; i++) {
			if (strncmp(env[i], key, keylen) == 0 &&
			    env[i][keylen] == '=')
				break;
		}
		if (i < n) {
			explicit_bzero(env[i], strlen(env[i]));
			free(env[i]);
			env[i] = entry;
		} else {
			env = xreallocarray(env, n + 2, sizeof *env);
			env[n++] = entry;
			env[n] = NULL;
		}
		if (line_end < end && *line_end == '\r')
			line_end++;
	}
	*envp = env;
	*np = n;
	return (0);

fail:
	if (value != NULL) {
		explicit_bzero(value, line_end - p + 1);
		free(value);
	}
	dotenv_free(env);
	return (-1);
}
