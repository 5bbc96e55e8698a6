/*
 * install_http.c -- mcpctl install --http: the address apps are given
 * (mcpd.json's, else the running front's) and the token's name
 * (install_http.h).  install.c writes the entries
 * (appshape_remote) with a token made for the app alone (token_new).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "admin.h"
#include "admin_int.h"
#include "conf.h"
#include "conf_http.h"
#include "diag.h"
#include "htoken.h"
#include "install_http.h"
#include "jsonc.h"
#include "out.h"
#include "proto.h"
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

/* The first TCP address of h, as a URL base; NULL if it has none. */
static char *
install_http_first_tcp(const struct conf_http *h)
{
	char	*url = NULL;
	size_t	 i;

	for (i = 0; h != NULL && i < h->nlisten && url == NULL; i++)
		if (h->listen[i].path == NULL)
			url = install_http_url(&h->listen[i]);
	return (url);
}

/* The addresses the running front serves (mcpd accepted them): a URL. */
static char *
install_http_served(const cJSON *served)
{
	struct conf_diags	 diags;
	struct conf_http	*h;
	cJSON			*o;
	char			*url;

	if (cJSON_GetArraySize(served) == 0)
		return (NULL);
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "listen", cJSON_Duplicate(served, 1));
	cJSON_AddTrueToObject(o, "behind_proxy");
	conf_diags_init(&diags);
	h = conf_http_parse(&diags, "mcpd.http", o);
	conf_diags_free(&diags);
	cJSON_Delete(o);
	url = install_http_first_tcp(h);
	conf_http_free(h);
	return (url);
}

cJSON *
install_http_front(struct ctl *ctl, char **token_dir)
{
	cJSON		*status = NULL, *listen = NULL;
	const char	*dir;
	int		 rc;

	*token_dir = NULL;
	if (admin_connect(ctl, 1) != DIAG_EXIT_OK)
		return (NULL);
	ctl->quiet_errors = 1;
	status = admin_call(ctl, MCPD_METHOD_STATUS, NULL, &rc);
	ctl->quiet_errors = 0;
	admin_close(ctl);
	if ((dir = out_str(cJSON_GetObjectItemCaseSensitive(status, "daemon"),
	    "token_dir")) != NULL)
		*token_dir = xstrdup(dir);
	listen = cJSON_DetachItemFromObjectCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(status, "http"), "listen");
	cJSON_Delete(status);
	return (listen);
}

char *
install_http_base(const char *path, const char *text, size_t len,
    const cJSON *served)
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
	url = install_http_first_tcp(h);
	conf_http_free(h);
	/* Else the front's sockets, systemd's among them (mcpd-http.socket). */
	if (url == NULL)
		url = install_http_served(served);
	if (url == NULL)
		diag_warnx(path, "mcpd has no TCP \"http\" listener (such "
		    "as \"mcpd\": {\"http\": {\"listen\": "
		    "[\"127.0.0.1:8931\"]}}, or mcpd-http.socket), and the "
		    "running mcpd serves none: --http needs one for the "
		    "app's URL; nothing written");
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
