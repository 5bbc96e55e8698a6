/*
 * admin_pins.c -- mcpctl pins and mcpctl approve: what a server changed
 * since its definitions were approved, each change as a unified diff of
 * the definition's canonical JSON (mcpd sends it one member a line), and
 * the approval of some or all of them.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "admin.h"
#include "admin_int.h"
#include "diag.h"
#include "out.h"
#include "proto.h"
#include "udiff.h"
#include "xmalloc.h"

static void
admin_pins_change(const cJSON *c, const char *server)
{
	const char	*old, *new, *kind, *name;
	char		*diff, *ol, *nl, *o, *n;

	kind = out_str(c, "kind");
	name = out_str(c, "name");
	old = out_str(c, "old");
	new = out_str(c, "new");
	printf("%s %s %s: %s%s%s\n", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
	    c, "held")) ? "held" : "not held", kind != NULL ? kind : "?",
	    out_esc(name != NULL ? name : "?"), out_esc(out_str(c, "change")),
	    out_str(c, "why") != NULL ? "; " : "",
	    out_str(c, "why") != NULL ? out_esc(out_str(c, "why")) : "");
	xasprintf(&ol, "%s (approved)", name != NULL ? name : "?");
	xasprintf(&nl, "%s (now)", name != NULL ? name : "?");
	/* Whole lines: a definition that is not there is no line at all. */
	xasprintf(&o, "%s%s", old != NULL ? old : "", old != NULL ? "\n" : "");
	xasprintf(&n, "%s%s", new != NULL ? new : "", new != NULL ? "\n" : "");
	diff = udiff(o, strlen(o), n, strlen(n), ol, nl);
	out_text(stdout, diff);
	free(diff);
	free(o);
	free(n);
	free(ol);
	free(nl);
	(void)server;
}

/* f's member key for people: escaped, "?" if it has none. */
static const char *
admin_pins_str(const cJSON *f, const char *key)
{
	const char	*v = out_str(f, key);

	return (out_esc(v != NULL ? v : "?"));
}

/* One finding of shadowing: this server's text names another's tool. */
static void
admin_pins_shadow(const cJSON *f, const char *server)
{
	if (out_str(f, "skipped") != NULL)
		printf("shadowing: %s's descriptions not compared with %s's "
		    "tool names in group %s (%s)\n", out_esc(server),
		    admin_pins_str(f, "server"), admin_pins_str(f, "group"),
		    admin_pins_str(f, "skipped"));
	else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "more")))
		printf("shadowing: and more of %s's descriptions name %s's "
		    "tools in group %s\n", out_esc(server),
		    admin_pins_str(f, "server"), admin_pins_str(f, "group"));
	else
		printf("shadowing: %s's %s %s names %s's tool %s in group %s "
		    "(as %s)\n", out_esc(server), admin_pins_str(f, "kind"),
		    admin_pins_str(f, "name"), admin_pins_str(f, "server"),
		    admin_pins_str(f, "named"), admin_pins_str(f, "group"),
		    admin_pins_str(f, "spelling"));
}

/* One router's changes (a server, or one of a template's instances). */
static int
admin_pins_router(const cJSON *r)
{
	const cJSON	*c, *pinned, *n;
	const char	*server = out_str(r, "server");
	int		 changes = 0;

	printf("server %s: pin %s", out_esc(server != NULL ? server : "?"),
	    out_esc(out_str(r, "pin")));
	pinned = cJSON_GetObjectItemCaseSensitive(r, "pinned");
	cJSON_ArrayForEach(n, pinned)
		printf(", %d %s pinned", (int)n->valuedouble, n->string);
	if (out_str(r, "file") != NULL)
		printf(" (%s)", out_esc(out_str(r, "file")));
	printf("\n");
	if (out_str(r, "broken") != NULL)
		printf("its pins file cannot be read (%s): everything is held "
		    "until approved\n", out_esc(out_str(r, "broken")));
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(r, "shadowing"))
		admin_pins_shadow(c, server != NULL ? server : "?");
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(r, "changes")) {
		admin_pins_change(c, server);
		changes++;
	}
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(r, "gone"))
		printf("gone %s %s: pinned, not listed now\n",
		    out_esc(out_str(c, "kind")), out_esc(out_str(c, "name")));
	if (changes == 0)
		printf("nothing changed since approved\n");
	else
		printf("approve with: mcpctl approve %s [NAME...]\n",
		    out_esc(server != NULL ? server : "?"));
	return (changes);
}

/* A group's line, before its members' pins. */
static void
admin_pins_group(const cJSON *result)
{
	const cJSON	*s, *servers;

	servers = cJSON_GetObjectItemCaseSensitive(result, "servers");
	printf("group %s:", out_esc(out_str(result, "group")));
	cJSON_ArrayForEach(s, servers)
		if (cJSON_IsString(s))
			printf(" %s", out_esc(s->valuestring));
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(result,
	    "routers")) == 0)
		printf(" (none of them runs now)");
	printf("\n");
}

int
admin_pins(struct ctl *ctl, int argc, char **argv)
{
	cJSON		*params, *result;
	const cJSON	*r;
	int		 status;

	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "server", argv[0]);
	if ((result = admin_call(ctl, MCPD_METHOD_PINS, params,
	    &status)) == NULL)
		return (status);
	if (ctl->json)
		admin_print_json(result, 0);
	else {
		if (out_str(result, "group") != NULL)
			admin_pins_group(result);
		cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(result,
		    "routers"))
			admin_pins_router(r);
	}
	cJSON_Delete(result);
	return (DIAG_EXIT_OK);
}

int
admin_approve(struct ctl *ctl, int argc, char **argv)
{
	cJSON		*params, *result, *names;
	const cJSON	*n;
	int		 status, i, count = 0;

	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "server", argv[0]);
	names = cJSON_AddArrayToObject(params, "names");
	for (i = 1; i < argc; i++)
		cJSON_AddItemToArray(names, cJSON_CreateString(argv[i]));
	if ((result = admin_call(ctl, MCPD_METHOD_APPROVE, params,
	    &status)) == NULL)
		return (status);
	if (ctl->json)
		admin_print_json(result, 0);
	else {
		cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(result,
		    "approved")) {
			printf("approved %s\n", out_esc(n->valuestring));
			count++;
		}
		if (count == 0)
			printf("nothing to approve on %s\n", out_esc(argv[0]));
		if (out_str(result, "refused") != NULL)
			diag_warnx(NULL, "%s", out_esc(out_str(result,
			    "refused")));
	}
	cJSON_Delete(result);
	return (DIAG_EXIT_OK);
}
