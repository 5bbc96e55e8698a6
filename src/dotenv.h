/*
 * dotenv.h -- the environment files of VS Code's "envFile" and of mcpd's
 * own (a "dotenv" file), parsed (pure).
 *
 * One KEY=VALUE a line; blank lines and lines whose first non-blank
 * character is '#' are skipped; "export KEY=VALUE" is accepted.  KEY is
 * letters, digits and '_', not starting with a digit; blanks around the
 * '=' are ignored.  VALUE is
 * - "double quoted", with \n, \t, \r, \", \\ and \$ escapes (any other
 *   backslash is kept as it is),
 * - 'single quoted', taken as it is,
 * - or bare: up to a '#' that follows a blank, trailing blanks dropped.
 * After a closing quote only blanks or a '#' comment may follow.  Nothing
 * is expanded: "$HOME" stays "$HOME".  A later line for the same KEY
 * replaces an earlier one.  CR LF line ends are accepted.
 *
 * The values are often secrets: an error names the line only, never its
 * text ("line 3: expected KEY=VALUE").
 */
#ifndef MCPD_DOTENV_H
#define MCPD_DOTENV_H

#include <stddef.h>

/*
 * Parse text: 0 with *env a NULL-ended array of *n "KEY=VALUE" strings
 * (in the order of their first lines), or -1 with *cause set (and *env
 * NULL).  A NUL byte is an error.  Free with dotenv_free.
 */
int	dotenv_parse(const char *text, size_t len, char ***env, size_t *n,
	    char **cause);
/* Wipe (explicit_bzero) and free each string and the array. */
void	dotenv_free(char **env);

#endif /* MCPD_DOTENV_H */
