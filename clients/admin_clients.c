/*
 * admin_clients.c -- `mcpctl status --clients`: the connections to mcpd
 * the caller may see (its own uid's; an administrator, all) and the app
 * on each, as mcpd read it from the kernel (mcpd(8), "Identity"), or the
 * token of an HTTP client.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "admin_int.h"
#include "out.h"

static int
admin_clients_flag(const cJSON *app, const char *flag)
{
	const cJSON	*f;

	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(app, "flags"))
		if (cJSON_IsString(f) && strcmp(f->valuestring, flag) == 0)
			return (1);
	return (0);
}

/* What mcpd knows of the app, in words. */
static void
admin_clients_app(const cJSON *app)
{
	const char	*exe = out_str(app, "exe"), *unit = out_str(app, "unit");
	const char	*id = out_str(app, "app_id");
	const char	*token = out_str(app, "token");
	int		 bridge = admin_clients_flag(app, "bridge");

	if (token != NULL)
		printf("token %s, over HTTP (mcpd-http)", out_esc(token));
	else if (exe != NULL)
		printf("%s", out_esc(exe));
	else if (admin_clients_flag(app, "reparented"))
		printf("unknown: the parent of mcpctl connect was gone "
		    "(reparented)");
	else if (admin_clients_flag(app, "uid-only"))
		printf("identity: uid only");
	else
		printf("unknown");
	if (exe != NULL && out_num(app, "pid", 0) > 0)
		printf(" (pid %.0f)", out_num(app, "pid", 0));
	if (unit != NULL)
		printf(", unit %s", out_esc(unit));
	if (id != NULL)
		printf(", app id %s", out_esc(id));
	if (bridge)
		printf(", through mcpctl connect");
	if (admin_clients_flag(app, "pid-race"))
		printf(" (read by pid: no pidfd)");
	printf("\n");
}

void
admin_print_clients(const cJSON *clients)
{
	const cJSON	*c;

	printf("\n%-8s %-8s %-6s %s\n", "CLIENT", "PID", "UID", "APP");
	cJSON_ArrayForEach(c, clients) {
		printf("%-8.0f %-8.0f %-6.0f ", out_num(c, "client", 0),
		    out_num(c, "pid", 0), out_num(c, "uid", 0));
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "self"))) {
			printf("(this mcpctl status)\n");
			continue;
		}
		admin_clients_app(cJSON_GetObjectItemCaseSensitive(c, "app"));
	}
}
