/*
 * install_http.h -- what mcpctl install --http needs beyond install.c:
 * the front's address from mcpd's configuration, the token's name, and
 * a diff with the token hidden.
 */
#ifndef MCPD_INSTALL_HTTP_H
#define MCPD_INSTALL_HTTP_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "ctl.h"

/*
 * "http://HOST:PORT" of the first TCP listen address of "mcpd"."http" in
 * mcpd's configuration text (path for messages), else of served (the
 * running front's addresses, install_http_front; may be NULL), malloc'd;
 * or NULL after a message when there is none.
 */
char	*install_http_base(const char *path, const char *text, size_t len,
	    const cJSON *served);
/*
 * One question to the running mcpd: the addresses its HTTP front serves
 * (or NULL), and its token store's directory in *token_dir (malloc'd, or
 * NULL when no mcpd answers).
 */
cJSON	*install_http_front(struct ctl *, char **token_dir);

/* The token made for app: "app-APP", malloc'd. */
char	*install_http_token_name(const char *app);

/* Every copy of token in text, bar its prefix, written over with '*'. */
void	 install_http_mask(char *text, const char *token);

#endif /* MCPD_INSTALL_HTTP_H */
