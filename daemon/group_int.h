/*
 * group_int.h -- a group session's insides, shared by its five files and
 * by nothing else.  Each calls only those below it:
 * - group.c: the session, its links to the members' routers, dispatch;
 * - group_route.c: calls, completions, resources and setLevel routed to
 *   a member; group_list.c: lists fanned out and merged (src/gmerge.c),
 *   the names given out;
 * - group_op.c: replies to the client, requests to members, ops;
 * - group_budget.c: what the session holds, counted and bounded.
 * Everything outside uses group.h.
 *
 * Every byte a session holds for its client beyond its fixed part (the
 * requests it has out, the requests it keeps to try on another member,
 * members' list pages waiting for the others, the names, URIs and
 * templates it gave out) is counted in gs->mem and in mcpd's one memory
 * budget, by whoever allocates it, through group_budget_add and
 * group_budget_sub.
 */
#ifndef MCPD_GROUP_INT_H
#define MCPD_GROUP_INT_H

#include <sys/queue.h>
#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "filter.h"
#include "pversion.h"

struct attachment;
struct client;
struct envelope;
struct envelope_edit;
struct hmap;
struct idtab;
struct mcpd;

/*
 * What a table entry costs beside its key and its value (the slot, the
 * allocator's header): counted with every entry.
 */
#define GROUP_ENTRY_BYTES	64
#define GROUP_URI_MAX		4096	/* as the router's */

enum group_list {
	GROUP_LIST_TOOLS,
	GROUP_LIST_PROMPTS,
	GROUP_LIST_RESOURCES,
	GROUP_LIST_TEMPLATES,
	GROUP_LIST_COUNT
};
/* A list is judged by its filter as the same filter_list. */
_Static_assert((int)GROUP_LIST_TEMPLATES == (int)FILTER_LIST_TEMPLATES &&
    (int)GROUP_LIST_RESOURCES == (int)FILTER_LIST_RESOURCES,
    "group_list and filter_list differ");

struct group_list_kind {
	const char	*method;
	const char	*key;		/* the array in the result */
	const char	*field;		/* an entry's name or uri */
	enum filter_kind filter;	/* the group's filter that narrows it */
};
extern const struct group_list_kind group_lists[GROUP_LIST_COUNT];

struct glink {
	struct group_session	*gs;
	size_t			 index;
	char			*member;	/* the server's name */
	struct attachment	*att;		/* NULL: not attached */
	int			 paused;
	int			 gone;		/* removed from the group */
	char			**templates;	/* resource templates listed */
	size_t			 ntemplates;
};

enum group_op_kind {
	GROUP_OP_LIST,
	GROUP_OP_LEVEL,
	GROUP_OP_SUBSCRIBE,	/* to every member: one that took it is enough */
	GROUP_OP_RESOURCE,	/* tried member after member on -32002 */
	GROUP_OP_QUIET,		/* initialize on a link: reply dropped */
};

/* A member's page of a list, as it sent it, until every member has. */
struct group_part {
	char		*text;		/* the result object; NULL: none */
	size_t		 len;
};

/* A client request answered by the session from its members' replies. */
struct group_op {
	TAILQ_ENTRY(group_op)	 entry;		/* gs->ops */
	enum group_op_kind	 kind;
	char			*id;		/* the client's, raw JSON */
	size_t			 id_len;
	size_t			 waiting;	/* replies still to come */
	size_t			 mem;		/* counted in gs->mem */
	enum group_list		 list;
	struct group_part	*parts;		/* LIST: per member */
	size_t			 nparts;
	int			 ok;		/* LEVEL: a member took it */
	char			*line;		/* RESOURCE: the request under
						   gid, while a member is left
						   to try */
	size_t			 len;
	int64_t			 gid;		/* RESOURCE: the last sent */
	size_t			 next;		/* RESOURCE: next member */
	int			 failed;	/* answered with an error; what
						   it held let go */
	int			 hidden;	/* RESOURCE: a member's filter
						   hides it */
	/* Once every reply is in: answers the client (NULL: nobody). */
	void			(*done)(struct group_session *,
				    struct group_op *);
};

/* A request the session passed to a member under a gid. */
struct group_sent {
	TAILQ_ENTRY(group_sent)	 entry;		/* gs->pending */
	int64_t			 gid;
	size_t			 link;
	char			*id;		/* the client's; NULL: op's */
	size_t			 id_len;
	struct group_op		*op;		/* NULL: nobody waits */
	int			 call;		/* tools/call: links to read */
	int			 prompt;	/* prompts/get */
};

/* A member's request passed to the client under a session number. */
struct group_down {
	int64_t			 did;
	size_t			 link;
	char			*id;		/* the member router's id */
	size_t			 id_len;
};

struct group_session {
	struct mcpd		*mcpd;
	const struct group_peer	*peer;		/* its client's table */
	void			*client;
	char			*name;
	char			*sep;
	struct filter		*filters[FILTER_KINDS];	/* the group's */
	/* Its client's app's (group_policy.c); out: not this group. */
	struct cpolicy		*policy;
	int			 policy_out;
	struct glink		**links;	/* never reordered */
	size_t			 nlinks;
	struct idtab		*reqs;		/* gid -> group_req */
	struct hmap		*by_client;	/* client id -> group_sent */
	struct hmap		*op_ids;	/* client id -> group_op */
	struct hmap		*downs;		/* did -> group_down */
	struct hmap		*names[2];	/* tools, prompts: name ->
						   gmerge_name */
	struct hmap		*uris;		/* uri -> link index + 1 */
	enum pversion		 version;	/* the client's (pversion.h) */
	int64_t			 next_gid;
	int64_t			 next_did;
	size_t			 npaused;
	size_t			 mem;		/* held, in the budget */
	uint64_t		 budget_logged_ms; /* group_check_limits */
	TAILQ_HEAD(, group_sent)	 pending;	/* sent, not answered */
	TAILQ_HEAD(, group_op)	 ops;
	TAILQ_ENTRY(group_session) entry;
};

/* group_op.c: replies to the client, requests to members, ops. */
void	group_send(struct group_session *, const char *text, size_t len);
void	group_result(struct group_session *, const char *id, size_t id_len,
	    const char *result);
void	group_error(struct group_session *, const char *id, size_t id_len,
	    int code, const char *fmt, ...)
	    __attribute__((format(printf, 5, 6)));
void	group_own_request(struct group_session *, size_t link,
	    struct group_op *, const char *method, cJSON *params);
int	group_link_usable(const struct group_session *, size_t link);
struct group_op *group_op_new(struct group_session *, enum group_op_kind,
	    const char *id, size_t id_len);
void	group_op_free(struct group_session *, struct group_op *);
void	group_op_part_done(struct group_session *, struct group_op *);
/*
 * Answer op's client with an error now and let go of what op holds; op
 * itself stays until its members' replies (then dropped) are in.
 */
void	group_op_fail(struct group_session *, struct group_op *, int code,
	    const char *message);

/* A request to a member under a fresh gid (id: the client's, or NULL). */
struct group_sent *group_sent_new(struct group_session *, size_t link,
	    const char *id, size_t id_len, struct group_op *);
void	group_sent_free(struct group_session *, struct group_sent *);
/*
 * Send a member line[0, len) with its id replaced by a gid (the edits,
 * if any, applied too; sorted, the id's among them).  Returns 0, or -1 if
 * the member is not attached (the caller answers).
 */
int	group_forward(struct group_session *, size_t link, const char *line,
	    size_t len, const struct envelope_edit *, size_t nedits);
/* The resource request op keeps, taken out of it (caller frees), or NULL. */
char	*group_op_take_line(struct group_session *, struct group_op *,
	    size_t *len);
void	group_op_drop_line(struct group_session *, struct group_op *);
/* A member's list page, taken out of op (the caller frees it), or NULL. */
char	*group_part_take(struct group_session *, struct group_op *,
	    size_t link, size_t *len);
void	group_part_clear(struct group_session *, struct group_op *,
	    size_t link);

/* group_tasks.c: requests about tasks routed by mcpd's id; list; caps. */
void	group_tasks(struct group_session *, const char *method,
	    const char *line, size_t len, const struct envelope *);
/* A member's tasks capability, merged into caps (the group's). */
void	group_tasks_caps(const cJSON *member_caps, cJSON *caps);

/*
 * A tools/call's result from a member: the resource links the group's
 * filter hides taken out, the others remembered with the member, so that
 * reading one reaches it (group_route.c).  Then passed to the client.
 */
void	group_call_reply(struct group_session *, struct group_sent *,
	    const char *line, size_t len, const struct envelope *);
/* A member's reply to the client, under the client's id (group.c). */
void	group_pass_reply(struct group_session *, const char *id,
	    size_t id_len, const char *line, size_t len,
	    const struct envelope *);
/*
 * A member's reply to a tools/call or prompts/get (method) under the
 * client's id, its result made fit for the client's revision
 * (pversion.h) when that is older (group_route.c).
 */
void	group_version_reply(struct group_session *, const char *method,
	    const char *id, size_t id_len, const char *line, size_t len,
	    const struct envelope *);
/* A URI a member gave out, to route reads of it there (group_list.c). */
void	group_remember_uri(struct group_session *, size_t link,
	    const char *uri);

/* group_route.c: requests routed to a member, or to each in turn. */
void	group_call(struct group_session *, int kind, const char *line,
	    size_t len, const struct envelope *);
void	group_complete(struct group_session *, const char *line, size_t len,
	    const struct envelope *);
void	group_resource(struct group_session *, const char *line, size_t len,
	    const struct envelope *);
void	group_set_level(struct group_session *, const char *line,
	    const struct envelope *);
/*
 * Send op's resource request to the next member not tried; 0, or -1:
 * none is left (op's request let go).
 */
int	group_resource_next(struct group_session *, struct group_op *);
/* Does a member's error say the resource is not its? */
int	group_not_found(const char *line, const struct envelope *);

/* group_list.c: lists fanned out and merged; the names given out. */
void	group_list(struct group_session *, enum group_list,
	    const char *line, const struct envelope *);
/* A member's reply to a list op's request. */
void	group_list_reply(struct group_session *, struct group_op *,
	    size_t link, const char *line, const struct envelope *);
void	group_names_reset(struct group_session *, int kind);
void	group_names_free(struct group_session *, int kind);
void	group_uris_reset(struct group_session *);
void	group_uris_free(struct group_session *);
void	group_link_templates_clear(struct group_session *, struct glink *);
/*
 * The member and its own name for a name the group gives out (kind:
 * tools or prompts); NULL if no member offers it under that name, or the
 * group's filter hides it (then *hidden, if not NULL, is 1), or the
 * client's policy denies it (*hidden 2): then *link is the member that
 * offers it.
 */
const char *group_find_name(struct group_session *, int kind,
	    const char *name, size_t *link, int *hidden);
/* Which member a resource URI goes to first, or -1: try them all. */
ssize_t	group_route_uri(struct group_session *, const char *uri,
	    size_t len);

/*
 * group_policy.c: the client's policy (cpolicy.h).  Decided at attach,
 * again on reload (1 if what the client may see or reach changed), let
 * go at detach.  refuses_all answers a request (1) when the group is not
 * the policy's; allows_name judges a member's tool or prompt (kind: a
 * group list); uris is its resource filter; refuse answers a request for
 * what name, which it denies.
 */
void	group_policy_attach(struct group_session *);
int	group_policy_reload(struct group_session *);
void	group_policy_detach(struct group_session *);
int	group_policy_refuses_all(struct group_session *, const char *id,
	    size_t id_len);
int	group_policy_allows_name(const struct group_session *, int kind,
	    size_t link, const char *own);
const struct filter *group_policy_uris(const struct group_session *);
void	group_policy_refuse(struct group_session *, const char *id,
	    size_t id_len, const char *what, const char *name);

/* group_budget.c: what the session holds, counted and bounded. */
void	group_budget_add(struct group_session *, size_t);
void	group_budget_sub(struct group_session *, size_t);
/* The same for what one op holds (op->mem, let go with op). */
void	group_budget_op_add(struct group_session *, struct group_op *,
	    size_t);
/*
 * Take a buffer op holds (*text, *text_len bytes) out of it and out of
 * the count; the caller frees what is returned (NULL: none), of *len.
 */
char	*group_budget_op_take(struct group_session *, struct group_op *,
	    char **text, size_t *text_len, size_t *len);
/*
 * May the session hold n more bytes?  NULL if so, else why not (malloc'd,
 * naming the limit): client_max_group_bytes, or memory_budget_bytes that
 * n would pass while the session holds more than its share.
 */
char	*group_budget_refuses(const struct group_session *, size_t n);
/* The same, when nobody is told why. */
int	group_budget_fits(const struct group_session *, size_t n);
/* Is mcpd's budget used up?  Then a new request is refused. */
int	group_budget_exhausted(const struct group_session *);
/* The session is gone: what it still had counted leaves the budget. */
void	group_budget_end(struct group_session *);

#endif /* MCPD_GROUP_INT_H */
