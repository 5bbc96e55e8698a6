/*
 * conf_expand.c -- the configuration's strings as a server gets them:
 * "${VAR}", "${VAR:-default}" and "${credential:NAME}" expanded (their
 * forms read by confvar.c), and the files the configuration names read
 * through the parse's reader.
 *
 * Invariant (conf.c): a diagnostic names the variable or the credential,
 * never its value: values are often secrets.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "conf_int.h"
#include "confvar.h"
#include "sbuf.h"
#include "xmalloc.h"

/*
 * A file the configuration names, through cp->readfile_fn: its text
 * (wipe it), or NULL after reporting why at path, what naming it.
 */
char *
conf_read_named(struct conf_parse *cp, const char *path, const char *what,
    const char *file, size_t *len)
{
	char	*text, *cause;

	if (cp->readfile_fn == NULL) {
		conf_error(cp, path, "%s: files are not read when the "
		    "configuration is parsed from memory", what);
		return (NULL);
	}
	if (cp->readfile_fn(file, &text, len, &cause) == -1) {
		conf_error(cp, path, "%s: %s", what, cause);
		free(cause);
		return (NULL);
	}
	return (text);
}

/*
 * "${credential:NAME}": the file NAME in $CREDENTIALS_DIRECTORY, where
 * systemd's LoadCredential= and LoadCredentialEncrypted= put a unit's
 * secrets, its one trailing newline dropped.  0 with the value added to
 * b, or -1 after reporting why.
 */
static int
conf_expand_credential(struct conf_parse *cp, const char *path,
    const char *name, size_t nlen, struct sbuf *b)
{
	const char	*dir;
	char		*file, *text, *what;
	size_t		 len, read_len;
	int		 rc = -1;

	if (!confvar_valid_credential(name, nlen)) {
		conf_error(cp, path, "invalid credential name in "
		    "\"${credential:}\": use letters, digits, '.', '_', '-' "
		    "and '@'");
		return (-1);
	}
	xasprintf(&what, "${credential:%.*s}", (int)nlen, name);
	dir = cp->getenv_fn != NULL ? cp->getenv_fn("CREDENTIALS_DIRECTORY",
	    cp->getenv_arg) : NULL;
	if (dir == NULL || *dir == '\0') {
		conf_error(cp, path, "%s: $CREDENTIALS_DIRECTORY is not set "
		    "(systemd sets it for a unit with LoadCredential= or "
		    "LoadCredentialEncrypted=)", what);
		free(what);
		return (-1);
	}
	xasprintf(&file, "%s/%.*s", dir, (int)nlen, name);
	if ((text = conf_read_named(cp, path, what, file, &len)) != NULL) {
		read_len = len;
		if (memchr(text, '\0', len) != NULL)
			conf_error(cp, path, "%s: holds a NUL byte", what);
		else {
			if (len > 0 && text[len - 1] == '\n')
				len--;
			if (len > 0 && text[len - 1] == '\r')
				len--;
			sbuf_add_secret(b, text, len);
			rc = 0;
		}
		explicit_bzero(text, read_len);
		free(text);
	}
	free(file);
	free(what);
	return (rc);
}

/*
 * Expand "${VAR}" and "${VAR:-default}" (default used when VAR is unset or
 * empty) and "${credential:NAME}"; "$$" is a literal '$', as is a '$' not
 * followed by '{'.  Returns NULL after reporting every problem in the
 * string.  Built with the wiping sbuf: a credential or a variable's value
 * may be a secret, and no outgrown copy of it is left in freed memory.
 */
static char *
conf_expand(struct conf_parse *cp, const char *path, const char *in)
{
	struct sbuf		 b = { NULL, 0, 0 };
	struct confvar_piece	 p;
	const char		*s, *value;
	char			*name;
	int			 failed = 0;

	sbuf_add_secret(&b, "", 0);
	s = in;
	while (confvar_next(&s, &p)) {
		switch (p.kind) {
		case CONFVAR_TEXT:
			sbuf_add_secret(&b, p.text, p.text_len);
			break;
		case CONFVAR_UNTERMINATED:
			conf_error(cp, path, "unterminated \"${\" (no closing "
			    "\"}\")");
			failed = 1;
			break;
		case CONFVAR_CREDENTIAL:
			if (conf_expand_credential(cp, path, p.name,
			    p.name_len, &b) == -1)
				failed = 1;
			break;
		case CONFVAR_VARIABLE:
			if (p.name_len == 0) {
				conf_error(cp, path, "empty variable name in "
				    "\"${}\"");
				failed = 1;
				break;
			}
			if (!confvar_valid_variable(p.name, p.name_len)) {
				conf_error(cp, path, "invalid variable name in "
				    "\"${}\": use letters, digits and '_'");
				failed = 1;
				break;
			}
			name = xstrndup(p.name, p.name_len);
			value = cp->getenv_fn(name, cp->getenv_arg);
			if (value != NULL && (*value != '\0' ||
			    !p.has_default))
				sbuf_add_secret(&b, value, strlen(value));
			else if (p.has_default)
				sbuf_add_secret(&b, p.text, p.text_len);
			else {
				conf_error(cp, path, "${%s} is not set", name);
				failed = 1;
			}
			free(name);
			break;
		}
	}
	if (failed) {
		sbuf_wipe(&b);
		return (NULL);
	}
	return (b.p);
}

/* A string member, expanded; NULL (reported) if not a string or bad. */
char *
conf_string(struct conf_parse *cp, const char *path, const cJSON *item)
{
	if (!cJSON_IsString(item)) {
		conf_error(cp, path, "expected a string");
		return (NULL);
	}
	return (conf_expand(cp, path, item->valuestring));
}
