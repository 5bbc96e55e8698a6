/*
 * install_http.c -- mcpctl install --http: the address apps are given
 * and the token's name (install_http.h).  install.c writes the entries
 * (appshape_remote) with a token made for the app alone (token_new).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "conf_http.h"
#include "diag.h"
#include "htoken.h"
#include "install_http.h"
#include "jsonc.h"
#include "xmalloc.h"

/* An address apps can connect to: a wildcard is this host's loopback. */
static char *
install_http_url(const struct conf_http_listen *l)
{
	const char	*host = l->host;
	char		*url;

	if (strcmp(host, "0.0.0.0") == 0 || *host == '\0')
		host = "127.0.0.1";
	else if (strcmp(host, "::") == 0)
		host = "::1";
	if (strchr(host, ':') != NULL)
		xasprintf(&url, "http://[%s]:%s", host, l->port);
	else
		xasprintf(&url, "http://%s:%s", host, l->port);
	return (url);
}

char *
install_http_base(const char *path, const char *text, size_t len)
{
	struct conf_diags	 diags;
	struct conf_http	*h = NULL;
	const cJSON		*http = NULL;
	cJSON			*root;
	char			*cause, *url = NULL;
	size_t			 i;

	if ((root = jsonc_parse(text, len, &cause)) == NULL) {
		diag_warnx(path, "%s", cause);
		free(cause);
		return (NULL);
	}
	if (cJSON_IsObject(root))
		http = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(root, "mcpd"), "http");
	conf_diags_init(&diags);
	if (http != NULL && (h = conf_http_parse(&diags, "mcpd.http",
	    http)) == NULL) {
		for (i = 0; i < diags.n; i++)
			diag_warnx(path, "%s", diags.v[i].text);
	}
	conf_diags_free(&diags);
	cJSON_Delete(root);
	if (http != NULL && h == NULL)
		return (NULL);
	for (i = 0; h != NULL && i < h->nlisten && url == NULL; i++)
		if (h->listen[i].path == NULL)
			url = install_http_url(&h->listen[i]);
	conf_http_free(h);
	if (url == NULL)
		diag_warnx(path, "mcpd has no TCP \"http\" listener (such "
		    "as \"mcpd\": {\"http\": {\"listen\": "
		    "[\"127.0.0.1:8931\"]}}): --http needs one for the app's "
		    "URL; nothing written");
	return (url);
}

char *
install_http_token_name(const char *app)
{
	char	*name;

	xasprintf(&name, "app-%s", app);
	return (name);
}

void
install_http_mask(char *text, const char *token)
{
	size_t	 plen = strlen(HTOKEN_PREFIX), tlen = strlen(token);
	char	*p;

	if (tlen <= plen)
		return;
	for (p = text; (p = strstr(p, token)) != NULL; p += tlen)
		memset(p + plen, '*', tlen - plen);
}
