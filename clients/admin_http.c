/*
 * admin_http.c -- `mcpctl status`: the HTTP front, mcpd-http, in one
 * line under the tables, when mcpd runs it.
 */
#include "config.h"

#include <stdio.h>

#include <cjson/cJSON.h>

#include "admin_int.h"
#include "out.h"

void
admin_print_http(const cJSON *http)
{
	const cJSON	*a;
	const char	*state, *sep = "";
	char		 uptime[24];

	if (!cJSON_IsObject(http))
		return;
	state = out_str(http, "state");
	printf("\nHTTP front: mcpd-http %s", state != NULL ? out_esc(state) :
	    "?");
	if (out_num(http, "pid", 0) > 0) {
		out_duration(uptime, sizeof uptime,
		    out_num(http, "uptime_ms", -1));
		printf(" (pid %.0f, up %s)", out_num(http, "pid", 0), uptime);
	}
	printf(", %.0f restarts", out_num(http, "restarts", 0));
	printf(", on");
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(http,
	    "listen")) {
		if (!cJSON_IsString(a))
			continue;
		printf("%s %s", sep, out_esc(a->valuestring));
		sep = ",";
	}
	if (*sep == '\0')
		printf(" nothing");
	printf("\n");
}
