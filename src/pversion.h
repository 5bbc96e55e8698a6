/*
 * pversion.h -- the MCP revisions mcpd speaks with clients, and what each
 * has (pure: no I/O).
 *
 * A client's initialize names the revision it wants; mcpd answers with
 * that one when it speaks it, else with its newest (the MCP rule), and
 * keeps what the client is then sent valid for it, whatever revision the
 * server's session has: what a client gets follows the older of its
 * revision and the server's.  Newer servers send what older clients'
 * schemas refuse (content blocks, capabilities, elicitation forms);
 * pversion_convert turns that into what the older revision has, and
 * pversion_request_needs says which clients a server's request may go
 * to at all.
 *
 * One place for each rule: the router (a single server) and group
 * sessions call these alike.
 */
#ifndef MCPD_PVERSION_H
#define MCPD_PVERSION_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* In order: a later revision compares greater. */
enum pversion {
	PVERSION_2024_11_05,
	PVERSION_2025_03_26,
	PVERSION_2025_06_18,
	PVERSION_2025_11_25,
};
#define PVERSION_COUNT		4
#define PVERSION_NEWEST		PVERSION_2025_11_25

/* What a revision has: each came in one revision (batches also went). */
enum pversion_feature {
	PVERSION_AUDIO,			/* audio content (2025-03-26) */
	PVERSION_COMPLETIONS,		/* the completions capability */
	PVERSION_BATCH,			/* JSON-RPC batches: 2025-03-26 only */
	PVERSION_RESOURCE_LINK,		/* resource_link content (2025-06-18) */
	PVERSION_ELICITATION,		/* elicitation/create, form mode */
	PVERSION_TITLE,			/* title beside name */
	PVERSION_TASKS,			/* tasks (2025-11-25): capability,
					   requests, status notifications */
	PVERSION_ELICIT_URL,		/* URL mode, its completion notice */
	PVERSION_SAMPLING_TOOLS,	/* tools in sampling, tool_use and
					   tool_result content */
	PVERSION_ICONS,			/* icons, websiteUrl, description */
	PVERSION_ENUM_SCHEMAS,		/* elicitation: titled and multi-select
					   enums, defaults for every type */
	PVERSION_FEATURES
};

/* The revision's name ("2025-06-18"). */
const char	*pversion_name(enum pversion);
/* A name mcpd speaks: 0 and *v, or -1. */
int		 pversion_parse(const char *name, enum pversion *v);
/* The answer to a client that asked for this (NULL: nothing). */
enum pversion	 pversion_negotiate(const char *asked);
int		 pversion_has(enum pversion, enum pversion_feature);

/*
 * What a client can be asked (server requests), from the capabilities
 * of its initialize and its revision: a capability declared in a
 * revision that does not have it counts for nothing.
 */
#define PVERSION_CAN_SAMPLING		0x01
#define PVERSION_CAN_SAMPLING_TOOLS	0x02	/* sampling.tools */
#define PVERSION_CAN_ELICIT_FORM	0x04	/* elicitation, or .form */
#define PVERSION_CAN_ELICIT_URL		0x08	/* elicitation.url */
#define PVERSION_CAN_TASK_SAMPLING	0x10	/* tasks.requests.sampling.
						   createMessage */
#define PVERSION_CAN_TASK_ELICIT	0x20	/* tasks.requests.elicitation.
						   create */
unsigned int	 pversion_client_can(const cJSON *capabilities,
		    enum pversion);

/* What a server's request needs of the client it goes to. */
struct pversion_needs {
	unsigned int	 can;		/* every one of these bits */
	enum pversion	 version;	/* at least this revision */
};
/*
 * The needs of a request (method, its params or NULL).  A request of a
 * method that is not one mcpd passes to clients needs nothing.
 */
void		 pversion_request_needs(const char *method,
		    const cJSON *params, struct pversion_needs *);
/* Can a client of revision v and capabilities can take it? */
int		 pversion_satisfies(enum pversion v, unsigned int can,
		    const struct pversion_needs *);
/*
 * May a client of revision v be sent this notification?  No for the
 * ones a later revision brought (tasks' status, URL elicitations'
 * completion); yes for the rest.
 */
int		 pversion_notification(enum pversion v, const char *method);

/*
 * An initialize result made the answer to a client of revision v, in
 * place: its protocolVersion, and only the capabilities and serverInfo
 * members v has.
 */
void		 pversion_init_result(cJSON *result, enum pversion v);

/*
 * What a client of revision v may be sent, in place: the result of
 * method (tools/call, prompts/get) or the params of the request it is
 * (sampling/createMessage, elicitation/create).  Content blocks v has
 * not become text (resource_link, audio); an elicitation's form keeps
 * only what v's schema has (titled enums as enumNames, multi-selects
 * left out).  Returns the number of changes.
 */
int		 pversion_convert(cJSON *obj, const char *method,
		    enum pversion v);
/*
 * The same on JSON text, the object alone (a result or params): the new
 * text (malloc'd, its length in *outlen), or NULL when nothing changes,
 * or the text is over max bytes or not an object (left as it is).  Text
 * that cannot hold anything to change is not parsed.
 */
char		*pversion_convert_text(const char *text, size_t len,
		    const char *method, enum pversion v, size_t max,
		    size_t *outlen);
/* Might a method's result or params change for a client of v? */
int		 pversion_converts(const char *method, enum pversion v);

#endif /* MCPD_PVERSION_H */
