/*
 * tasktab.h -- the tasks a server runs for mcpd's clients (MCP 2025-11-25
 * tasks), each under an id of mcpd's own (pure: the caller gives the
 * random bytes and the time).
 *
 * - A task is its principal's alone: tasktab_find answers NULL for an id
 *   another principal owns exactly as for one that never existed, so a
 *   caller that answers both alike gives nobody an oracle.
 * - Behind mcpd's id are the server's id (tasktab_find_up, for what the
 *   server says of it) and the Task object last seen, with mcpd's id in
 *   it, which tasks/list answers from.
 * - Entries are bounded per principal and in all (tasktab_add refuses at
 *   either cap, never evicting); each is forgotten when its ttl has passed
 *   since it was created (tasktab_expire), and a ttl of null or over
 *   TASKTAB_TTL_MAX_MS counts as that.
 * - tasks/list pages go in the order tasks were made, leaving out those
 *   mcpd made for plain calls (hidden); a cursor is the id of the last
 *   task on the page before, valid while it is the caller's.
 */
#ifndef MCPD_TASKTAB_H
#define MCPD_TASKTAB_H

#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define TASKTAB_RANDOM_BYTES	16
#define TASKTAB_ID_LEN		(2 * TASKTAB_RANDOM_BYTES)	/* hex */
#define TASKTAB_TTL_MAX_MS	(24ULL * 3600 * 1000)
#define TASKTAB_PAGE		50
#define TASKTAB_UP_ID_MAX	256	/* a longer server id is refused */
#define TASKTAB_TASK_MAX_BYTES	(16 * 1024) /* a larger Task is trimmed */
/* For tasktab_find and tasktab_list: whoever owns it (never a principal). */
#define TASKTAB_ANYONE		UINT64_MAX

enum task_status {
	TASK_WORKING,
	TASK_INPUT_REQUIRED,
	TASK_COMPLETED,
	TASK_FAILED,
	TASK_CANCELLED,
};

struct task {
	char			 id[TASKTAB_ID_LEN + 1];	/* mcpd's */
	uint64_t		 principal;
	char			*up_id;		/* the server's */
	size_t			 up_len;
	enum task_status	 status;
	char			*last;		/* Task object, mcpd's id */
	uint64_t		 created_ms;
	uint64_t		 expires_ms;
	int			 read;		/* its result was fetched, or
						   it has none (cancelled) */
	int			 hidden;	/* made by mcpd for a plain
						   call: its caller never
						   hears of it */
	size_t			 mem;		/* what the entry holds */
	/*
	 * The progress token of the call that made it, which stays valid
	 * while the task runs: the server's (mcpd's request id) and the
	 * client's (JSON text); progress_token NULL: none.
	 */
	int64_t			 progress_up;
	char			*progress_token;
	size_t			 progress_len;
	TAILQ_ENTRY(task)	 entry;		/* in the order made */
};

enum tasktab_refusal {
	TASKTAB_OK,
	TASKTAB_PRINCIPAL_FULL,
	TASKTAB_FULL,
	TASKTAB_BAD_ID,			/* the server's id: empty or too long */
	TASKTAB_DUPLICATE,		/* the server gave this id already */
};

struct tasktab;

struct tasktab	*tasktab_new(uint64_t seed, size_t max_per_principal,
		    size_t max_total);
void		 tasktab_free(struct tasktab *);
/*
 * A task the server made for principal, under its id up_id, from the
 * Task object it returned (status, ttl); rnd gives mcpd's id.  NULL, with
 * *why set, if refused.
 */
struct task	*tasktab_add(struct tasktab *, uint64_t principal,
		    const unsigned char rnd[TASKTAB_RANDOM_BYTES],
		    const char *up_id, size_t up_len, const cJSON *task,
		    uint64_t now_ms, enum tasktab_refusal *why);
/* May principal add one more?  TASKTAB_OK or the cap it is at. */
enum tasktab_refusal tasktab_room(const struct tasktab *, uint64_t principal);
struct task	*tasktab_find(const struct tasktab *, uint64_t principal,
		    const char *id, size_t len);
struct task	*tasktab_find_up(const struct tasktab *, const char *up_id,
		    size_t up_len);
/*
 * The call that made t had a progress token: the server's up, the
 * client's token (JSON text of len bytes, copied).  tasktab_find_progress
 * finds the task by the server's.
 */
void		 tasktab_set_progress(struct tasktab *, struct task *,
		    int64_t up, const char *token, size_t len);
struct task	*tasktab_find_progress(const struct tasktab *, int64_t up);
/*
 * What the server says of a task now (a Task object, or a tasks/get or
 * tasks/cancel result, which are one): its status, and the object kept
 * for tasks/list with mcpd's id in place of the server's.
 */
void		 tasktab_update(struct tasktab *, struct task *,
		    const cJSON *task);
void		 tasktab_remove(struct tasktab *, struct task *);
/* Remove the tasks whose time has passed; returns how many. */
size_t		 tasktab_expire(struct tasktab *, uint64_t now_ms);
/* Remove every task of principal; returns how many. */
size_t		 tasktab_drop_principal(struct tasktab *, uint64_t principal);
/* A tasks/list result for principal, or NULL for a cursor not its own. */
cJSON		*tasktab_list(const struct tasktab *, uint64_t principal,
		    const char *cursor);
/*
 * The next task on the tasks/list page cursor names (as tasktab_list
 * would list it for principal) that has not ended, after `after` (NULL:
 * from the page's first); NULL when there is none.
 */
struct task	*tasktab_next_running(const struct tasktab *, uint64_t principal,
		    const char *cursor, const struct task *after);
/* Every task, in the order made (a re-exec hands them over). */
struct task	*tasktab_first(const struct tasktab *);
struct task	*tasktab_next(const struct task *);
/* Its result was fetched (tasks/result answered it). */
void		 tasktab_set_read(struct tasktab *, struct task *);
/*
 * Tasks whose result nobody has fetched yet, running or ended (not
 * cancelled): while there are any, the server is busy.
 */
size_t		 tasktab_unread(const struct tasktab *);
/* Tasks not ended (working, input_required). */
size_t		 tasktab_running(const struct tasktab *);
size_t		 tasktab_count(const struct tasktab *);
size_t		 tasktab_count_principal(const struct tasktab *, uint64_t);
size_t		 tasktab_mem(const struct tasktab *);
/*
 * text with each from in it replaced by to (malloc'd), or NULL when from
 * is empty or not in it (a message naming a task id, made mcpd's).
 */
char		*task_id_replace(const char *text, const char *from,
		    const char *to);
/* "working" ... "cancelled" <-> the enum; -1 for another string. */
int		 task_status_parse(const char *);
int		 task_status_ended(enum task_status);

#endif /* MCPD_TASKTAB_H */
