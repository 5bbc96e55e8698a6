/*
 * confedit.h -- one server of mcpd's configuration text added or taken
 * out by its name, every other byte kept, and the text as a diff shows
 * it, the values of the servers' environments and headers masked (pure:
 * texts in, texts out; mcpctl add and remove do the I/O).
 *
 * A server is added as mcpctl import adds one (appconf_add_servers):
 * after the last member of "mcpServers", in the file's indentation.
 * Taking it out again gives back the text it was added to, byte for
 * byte, when "mcpServers" had members before; an object left without
 * members is written "{}".
 *
 * Messages name the server, groups and keys of the file, never a value.
 */
#ifndef MCPD_CONFEDIT_H
#define MCPD_CONFEDIT_H

#include <stddef.h>

#include <cjson/cJSON.h>

/*
 * server (in mcpd's form) added to the text (len 0: no file yet) as
 * name, which must be valid (conf_valid_name): 0 with *out, or -1 with
 * *cause when the text is not a configuration (not a JSON object,
 * "mcpServers", "servers" or "groups" not an object) or the name is
 * taken: by a server, by a group (servers and groups share one
 * namespace), or "all", the built-in group.
 */
int	 confedit_add(const char *text, size_t len, const char *name,
	    cJSON *server, char **out, size_t *outlen, char **cause);

/*
 * The server name taken out of "mcpServers" or "servers": its member
 * and the comma beside it, with the lines it had to itself.  -1 with
 * *cause when the text is not a configuration, there is no such server
 * (or the name is a group's), or a group lists it (mcpd would refuse the
 * file; *cause names the groups).
 */
int	 confedit_remove(const char *text, size_t len, const char *name,
	    char **out, size_t *outlen, char **cause);

/*
 * The text with each string of the servers' "env" and "headers" objects
 * written "[redacted]" (ESC_REDACTED), unless it is made of references
 * alone ("${VAR}" without a default, "${credential:NAME}"), which say
 * what mcpd will use without giving a secret away; every other byte
 * kept.  A text that is not a configuration comes back as it is.
 */
char	*confedit_mask(const char *text, size_t len, size_t *outlen);

#endif /* MCPD_CONFEDIT_H */
