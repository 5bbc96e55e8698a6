/*
 * confvar.c -- the "${...}" forms of mcpd's configuration strings, read
 * one piece at a time (see confvar.h).  Each piece is found from where
 * the last one ended, so a string is read once.
 */
#include "config.h"

#include <string.h>

#include "confvar.h"

#define CONFVAR_CREDENTIAL_PREFIX	"credential:"
#define CONFVAR_CREDENTIAL_MAX_LEN	255

int
confvar_next(const char **sp, struct confvar_piece *p)
{
	const char	*s = *sp, *inner, *end, *sep;
	size_t		 plen = strlen(CONFVAR_CREDENTIAL_PREFIX);

	memset(p, 0, sizeof *p);
	if (*s == '\0')
		return (0);
	p->raw = s;
	if (*s != '$') {
		p->kind = CONFVAR_TEXT;
		p->text = s;
		p->text_len = strcspn(s, "$");
		p->raw_len = p->text_len;
	} else if (s[1] != '{') {
		/* "$$" is one '$'; a lone '$' stays itself. */
		p->kind = CONFVAR_TEXT;
		p->text = s;
		p->text_len = 1;
		p->raw_len = s[1] == '$' ? 2 : 1;
	} else if ((end = strchr(inner = s + 2, '}')) == NULL) {
		p->kind = CONFVAR_UNTERMINATED;
		p->raw_len = strlen(s);
	} else {
		p->raw_len = end + 1 - s;
		if (strncmp(inner, CONFVAR_CREDENTIAL_PREFIX, plen) == 0) {
			p->kind = CONFVAR_CREDENTIAL;
			p->name = inner + plen;
			p->name_len = end - p->name;
		} else {
			p->kind = CONFVAR_VARIABLE;
			for (sep = inner; sep < end; sep++) {
				if (sep[0] == ':' && sep[1] == '-')
					break;
			}
			p->name = inner;
			p->name_len = sep - inner;
			if (sep < end) {
				p->has_default = 1;
				p->text = sep + 2;
				p->text_len = end - p->text;
			}
		}
	}
	*sp = s + p->raw_len;
	return (1);
}

int
confvar_valid_variable(const char *name, size_t len)
{
	size_t	 i;
	char	 c;

	for (i = 0; i < len; i++) {
		c = name[i];
		if (c == '_' || (c >= 'A' && c <= 'Z') ||
		    (c >= 'a' && c <= 'z'))
			continue;
		if (i > 0 && c >= '0' && c <= '9')
			continue;
		return (0);
	}
	return (len > 0);
}

int
confvar_valid_credential(const char *name, size_t len)
{
	if (len == 0 || len > CONFVAR_CREDENTIAL_MAX_LEN ||
	    (len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return (0);
	return (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789._-@") >= len);
}

int
confvar_passed(const char *name, size_t len)
{
	static const char	*passed[] = CONFVAR_PASSED;
	size_t			 i;

	for (i = 0; passed[i] != NULL; i++) {
		if (strlen(passed[i]) == len &&
		    strncmp(passed[i], name, len) == 0)
			return (1);
	}
	return (0);
}
