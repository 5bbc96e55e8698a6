/*
 * confvar.h -- the "${...}" forms in the strings of mcpd's configuration,
 * read one piece at a time (pure).  One reader for the two that need it:
 * the configuration, which expands them (conf.c), and mcpctl import,
 * which says what an app's entry would take from mcpd (appconf.c).
 *
 * A string is a run of pieces: literal text, "$$" (a '$'), a '$' not
 * followed by '{' (itself), "${credential:NAME}", "${VAR}" and
 * "${VAR:-default}" (the default runs to the first "}"), or a "${" that
 * is never closed (the rest of the string).  Names are given as written;
 * confvar_valid_variable and confvar_valid_credential say whether they
 * are valid.
 */
#ifndef MCPD_CONFVAR_H
#define MCPD_CONFVAR_H

#include <stddef.h>

/*
 * The variables of mcpd's own environment that every server gets anyway
 * (child.h passes them on), so a reference to one reveals nothing.
 */
#define CONFVAR_PASSED \
	{ "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", NULL }

enum confvar_kind {
	CONFVAR_TEXT,		/* text: its value (a '$' for "$$") */
	CONFVAR_VARIABLE,	/* ${name} or ${name:-text} */
	CONFVAR_CREDENTIAL,	/* ${credential:name} */
	CONFVAR_UNTERMINATED,	/* "${" and no "}" after it */
};

struct confvar_piece {
	enum confvar_kind	 kind;
	const char		*raw;		/* the piece as written */
	size_t			 raw_len;
	const char		*name;		/* VARIABLE, CREDENTIAL */
	size_t			 name_len;
	const char		*text;		/* TEXT; a VARIABLE's default */
	size_t			 text_len;
	int			 has_default;	/* ":-" was written */
};

/* The piece at *s, *s moved past it: 1, or 0 at the end of the string. */
int	confvar_next(const char **s, struct confvar_piece *);
/* Letters, digits and '_', not starting with a digit. */
int	confvar_valid_variable(const char *, size_t);
/* What systemd's LoadCredential= may name: [A-Za-z0-9._@-], not . or .. */
int	confvar_valid_credential(const char *, size_t);
/* 1 if the variable is one of CONFVAR_PASSED. */
int	confvar_passed(const char *, size_t);

#endif /* MCPD_CONFVAR_H */
