/*
 * appshape.h -- the shapes of the apps' own MCP server entries (pure):
 * the member of a file that holds them, an entry read into the one form
 * appconf.c converts, and the entry mcpctl install writes back in the
 * app's own shape.
 *
 * The one form is Claude Desktop's: "command" (a string), "args", "env",
 * "cwd", "url", "headers", "type" ("stdio", "http", "sse") and
 * "disabled".  Every other member of the app's entry is kept as it is,
 * for appconf_convert to drop with a note.  What the apps write instead:
 *
 *   windsurf    "serverUrl" for a remote server (or "url")
 *   cline       a "url" without "type" is SSE; the older "transportType"
 *   gemini-cli  "httpUrl" (Streamable HTTP), or "url" (SSE)
 *   zed         "context_servers": "source": "custom" (or none) with
 *               "command", "args" and "env", or "url" and "headers";
 *               "enabled": false; the older "command": {"path", "args",
 *               "env"}; "source": "extension" is a server an extension
 *               starts, not one the file describes
 *   opencode    "mcp": "type": "local" with "command" an array (the
 *               program first) and "environment", or "type": "remote"
 *               with "url" and "headers"; "enabled": false
 */
#ifndef MCPD_APPSHAPE_H
#define MCPD_APPSHAPE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "appconf.h"

/* The member of the file's top level that holds its servers. */
const char	*appshape_key(enum appconf_shape);

/*
 * An app's entry in the one form (a new object), or NULL when it is not
 * one mcpd could run, with a note appended to *notes saying why and what
 * was expected.
 */
cJSON	*appshape_common(enum appconf_shape, const cJSON *entry,
	    char ***notes, size_t *nnotes);

/*
 * The entry that runs argv[0] with argv[1..argc-1] in the app's shape,
 * disabled (in the app's words) if disabled is set.
 */
cJSON	*appshape_launch(enum appconf_shape, const char *const *argv,
	    size_t argc, int disabled);

/*
 * The apps whose files take a Streamable HTTP server as a URL with
 * headers: claude-code, cursor, vscode, windsurf, zed, cline, gemini-cli
 * and opencode (not claude-desktop, whose file takes commands only, nor
 * codex).
 */
int	 appshape_takes_url(const char *app);

/*
 * The entry that reaches url with "Authorization: Bearer token", in the
 * shape of app's file (app one appshape_takes_url accepts), disabled if
 * disabled is set: Claude Code's and VS Code's {"type": "http", "url",
 * "headers"}, Cursor's and Zed's {"url", "headers"}, Windsurf's
 * "serverUrl", Cline's "type" "streamableHttp", Gemini CLI's "httpUrl",
 * opencode's "type" "remote".
 */
cJSON	*appshape_remote(const struct appconf_file *, const char *url,
	    const char *token, int disabled);


#endif /* MCPD_APPSHAPE_H */
