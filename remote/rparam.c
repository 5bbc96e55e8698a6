/*
 * rparam.c -- the Mcp-Param-* headers of a remote of MCP 2026-07-28.
 *
 * A tool of such a remote may ask, with "x-mcp-header" in its
 * inputSchema, for some of its arguments to be mirrored into headers of
 * every call (Streamable HTTP, "Custom Headers from Tool Parameters";
 * mcpparam.h reads and checks them).  What a tools/list result says is
 * kept here, by tool name, until the next list replaces it: a first page
 * (no cursor) starts afresh, later pages add.  A tool whose annotations
 * break the rules is taken out of the result on its way to mcpd, with a
 * warning that names it and says why, as the specification has a client
 * do; so is one past the bounds (RPARAM_TOOLS_MAX annotated tools,
 * RPARAM_BYTES_MAX bytes kept), which could not be called rightly.
 *
 * A tools/call costs a lookup of its tool's name; only a tool with
 * annotations has its arguments read.  A call to a tool no list showed
 * (or before any list) goes without Mcp-Param headers: the remote
 * answers -32020 (HeaderMismatch) if it wanted some, and that error
 * goes to the caller.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "envelope.h"
#include "esc.h"
#include "hmap.h"
#include "mcpparam.h"
#include "remote.h"
#include "rparam.h"
#include "xmalloc.h"

struct rparam {
	struct hmap	*tools;		/* name -> struct mcpparams */
	size_t		 bytes;		/* kept, roughly */
};

struct rparam *
rparam_new(void)
{
	struct rparam	*t;

	t = xcalloc(1, sizeof *t);
	t->tools = hmap_new(hmap_random_seed());
	return (t);
}

static size_t
rparam_size(const struct mcpparams *ps, size_t namelen)
{
	size_t	i, j, n = sizeof *ps + namelen;

	for (i = 0; i < ps->n; i++) {
		n += strlen(ps->p[i].name) + 1 + ps->p[i].depth * sizeof
		    (char *);
		for (j = 0; j < ps->p[i].depth; j++)
			n += strlen(ps->p[i].path[j]) + 1;
	}
	return (n);
}

static void
rparam_drop(struct rparam *t, const char *name, size_t len)
{
	struct mcpparams	*ps;

	if ((ps = hmap_del(t->tools, name, len)) == NULL)
		return;
	t->bytes -= rparam_size(ps, len);
	mcpparam_clear(ps);
	free(ps);
}

static void
rparam_clear(struct rparam *t)
{
	struct hmap_iter	 it;
	const void		*key;
	size_t			 len;

	hmap_iter_init(t->tools, &it);
	while (hmap_iter_next(&it, &key, &len, NULL))
		rparam_drop(t, key, len);
	t->bytes = 0;
}

void
rparam_free(struct rparam *t)
{
	if (t == NULL)
		return;
	rparam_clear(t);
	hmap_free(t->tools);
	free(t);
}

static void
rparam_warn(const char *name, const char *why)
{
	char	*e;

	e = esc_text_max(name, strlen(name), 0, 200);
	remote_log("warning: the remote's tool \"%s\" is left out of "
	    "tools/list: %s", e, why);
	free(e);
}

/* One tool of a list: 0 to keep it, -1 to take it out. */
static int
rparam_tool(struct rparam *t, const cJSON *tool)
{
	const cJSON		*name;
	struct mcpparams	 ps, *kept;
	char			*why;
	size_t			 len, size;

	name = cJSON_GetObjectItemCaseSensitive(tool, "name");
	if (!cJSON_IsString(name))
		return (0);		/* mcpd judges it */
	len = strlen(name->valuestring);
	rparam_drop(t, name->valuestring, len);
	if (mcpparam_scan(cJSON_GetObjectItemCaseSensitive(tool,
	    "inputSchema"), &ps, &why) == -1) {
		rparam_warn(name->valuestring, why);
		free(why);
		return (-1);
	}
	if (ps.n == 0)
		return (0);
	size = rparam_size(&ps, len);
	if (hmap_count(t->tools) >= RPARAM_TOOLS_MAX ||
	    t->bytes + size > RPARAM_BYTES_MAX) {
		rparam_warn(name->valuestring, "more tools with x-mcp-header "
		    "than mcpd-remote keeps (its headers could not be sent)");
		mcpparam_clear(&ps);
		return (-1);
	}
	kept = xmalloc(sizeof *kept);
	memcpy(kept, &ps, sizeof *kept);
	hmap_put(t->tools, name->valuestring, len, kept);
	t->bytes += size;
	return (0);
}

/* Is m (a list request) for a later page? */
static int
rparam_later_page(const struct rmsg *m)
{
	cJSON		*msg;
	const cJSON	*c;
	int		 later;

	msg = cJSON_ParseWithLength(m->line, m->len);
	c = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(msg, "params"), "cursor");
	later = c != NULL && !cJSON_IsNull(c);
	cJSON_Delete(msg);
	return (later);
}

char *
rparam_listed(struct rparam *t, const struct rmsg *m, const char *json,
    size_t len, size_t *outlen)
{
	cJSON		*msg, *result, *tools, *tool, *next;
	char		*printed, *out = NULL;
	int		 dropped = 0;

	if (m->mhdr[0] == NULL || m->method == NULL ||
	    strcmp(m->method, "tools/list") != 0 || m->id == NULL)
		return (NULL);
	if (!rparam_later_page(m))
		rparam_clear(t);
	/* The key may be spelt with escapes: then it is looked for. */
	if (memmem(json, len, MCPPARAM_KEY, sizeof MCPPARAM_KEY - 1) == NULL &&
	    memmem(json, len, "\\u", 2) == NULL)
		return (NULL);
	msg = cJSON_ParseWithLength(json, len);
	result = cJSON_GetObjectItemCaseSensitive(msg, "result");
	tools = cJSON_GetObjectItemCaseSensitive(result, "tools");
	if (cJSON_IsArray(tools)) {
		for (tool = tools->child; tool != NULL; tool = next) {
			next = tool->next;
			if (rparam_tool(t, tool) == 0)
				continue;
			cJSON_Delete(cJSON_DetachItemViaPointer(tools, tool));
			dropped++;
		}
	}
	if (dropped > 0 && (printed = cJSON_PrintUnformatted(result)) != NULL) {
		/* The id as it came: cJSON could round a large number. */
		*outlen = (size_t)xasprintf(&out, "{\"jsonrpc\":\"2.0\","
		    "\"id\":%s,\"result\":%s}", m->id, printed);
		cJSON_free(printed);
	}
	cJSON_Delete(msg);
	return (out);
}

int
rparam_call(struct rparam *t, struct rmsg *m, const char *line,
    const struct envelope *env, const char *name, char **why)
{
	const struct mcpparams	*ps;
	cJSON			*params;
	char			*out[MCPPARAM_MAX];
	int			 n, i;

	*why = NULL;
	if (t == NULL || name == NULL ||
	    (ps = hmap_get(t->tools, name, strlen(name))) == NULL)
		return (0);
	params = env->params.type == ENVELOPE_OBJECT ?
	    cJSON_ParseWithLength(line + env->params.off, env->params.len) :
	    NULL;
	n = mcpparam_headers(ps,
	    cJSON_GetObjectItemCaseSensitive(params, "arguments"), out, why);
	cJSON_Delete(params);
	if (n <= 0)
		return (n);
	m->phdr = xcalloc((size_t)n + 1, sizeof *m->phdr);
	for (i = 0; i < n; i++)
		m->phdr[i] = out[i];
	return (0);
}

void
rparam_free_headers(struct rmsg *m)
{
	size_t	i;

	if (m->phdr == NULL)
		return;
	for (i = 0; m->phdr[i] != NULL; i++)
		free(m->phdr[i]);
	free(m->phdr);
	m->phdr = NULL;
}
