/*
 * appconf_toml.h -- Codex's config.toml for mcpctl import and install
 * (pure): its MCP servers, the tables [mcp_servers.NAME], read into the
 * entries appconf.c converts, and the tables of the servers install
 * points at mcpd rewritten in place.
 *
 * Codex's keys (its documentation, docs/config.md "MCP integration" in
 * github.com/openai/codex, and developers.openai.com/codex/mcp): a
 * server started by Codex has command, args, env (an inline table or an
 * [mcp_servers.NAME.env] table), env_vars (names of Codex's own
 * variables it passes on) and cwd; a streamable HTTP one has url,
 * bearer_token_env_var, http_headers and env_http_headers.  They become
 * mcpd's command, args, env, cwd, url (type "http") and headers, every
 * '$' of Codex's literal strings written "$$"; a variable Codex passes
 * on (env_vars, bearer_token_env_var, env_http_headers) becomes
 * "${VAR}", which mcpd reads from its own environment (appconf.h says
 * so in a note).  enabled = false is "disabled".  What governs Codex's
 * own use of a server (enabled, required, startup_timeout_sec,
 * startup_timeout_ms, tool_timeout_sec, enabled_tools, disabled_tools,
 * default_tools_approval_mode, tools) and anything else is Codex's own
 * setting, dropped from mcpd's entry with a note.
 *
 * install rewrites a server's statements, nothing else: the keys that
 * say how to reach it (every key but those of Codex's own use above)
 * and their subtables ([mcp_servers.NAME.env], with the comments inside
 * them) go; "command" and "args" running mcpctl connect take the place
 * of its command (or url), in the same indentation and key form; its
 * header, its comments, Codex's own settings and every other byte of
 * the file stay.  A server written as one inline table, or the whole
 * "mcp_servers" as one, is refused: there is no line of its own to
 * replace.  The new text is read again and must hold exactly the new
 * command and args for each server, else nothing is written.
 */
#ifndef MCPD_APPCONF_TOML_H
#define MCPD_APPCONF_TOML_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "appconf.h"

/*
 * The servers of a config.toml: an object (empty without any), each
 * member an entry in the form appconf_convert reads, with strings in
 * mcpd's syntax (APPCONF_SYNTAX_MCPD); or NULL with *cause ("line 3,
 * column 9: an unterminated string", "\"mcp_servers\" is not a table").
 */
cJSON	*appconf_toml_servers(const char *text, size_t len, char **cause);

/*
 * appconf_rewrite for a config.toml: each entry's table (its keys are
 * "mcp_servers", NAME) given with_entry[i]'s command and args (NULL:
 * left as it is).  The new text, or NULL with *cause.
 */
char	*appconf_toml_rewrite(const char *text, size_t len,
	    const struct appconf_entry *const *entries,
	    cJSON *const *with_entry, size_t n, size_t *outlen, char **cause);

#endif /* MCPD_APPCONF_TOML_H */
