/*
 * tasktab.c -- the tasks a server runs for mcpd's clients, under mcpd's
 * own ids (tasktab.h).
 */
#include "config.h"

#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "hmap.h"
#include "sbuf.h"
#include "tasktab.h"
#include "xmalloc.h"

TAILQ_HEAD(task_list, task);

struct tasktab {
	struct hmap		*by_id;		/* mcpd's id -> task */
	struct hmap		*by_up;		/* server's id -> task */
	struct hmap		*by_progress;	/* server's token -> task */
	struct hmap		*counts;	/* principal -> count (as ptr) */
	struct task_list	 all;		/* in the order made */
	size_t			 max_per_principal;
	size_t			 max_total;
	size_t			 running;
	size_t			 unread;
	size_t			 mem;
};

static const char *task_status_names[] = {
	"working", "input_required", "completed", "failed", "cancelled"
};

int
task_status_parse(const char *s)
{
	size_t	 i;

	for (i = 0; i < sizeof task_status_names / sizeof *task_status_names;
	    i++) {
		if (strcmp(s, task_status_names[i]) == 0)
			return ((int)i);
	}
	return (-1);
}

char *
task_id_replace(const char *text, const char *from, const char *to)
{
	struct sbuf	 out = { NULL, 0, 0, 0 };
	const char	*at, *next;
	size_t		 len = strlen(from);

	if (len == 0 || strstr(text, from) == NULL)
		return (NULL);
	for (at = text; (next = strstr(at, from)) != NULL; at = next + len) {
		sbuf_add(&out, at, (size_t)(next - at));
		sbuf_adds(&out, to);
	}
	sbuf_adds(&out, at);
	return (out.p);
}

int
task_status_ended(enum task_status s)
{
	return (s == TASK_COMPLETED || s == TASK_FAILED ||
	    s == TASK_CANCELLED);
}

struct tasktab *
tasktab_new(uint64_t seed, size_t max_per_principal, size_t max_total)
{
	struct tasktab	*tt;

	tt = xcalloc(1, sizeof *tt);
	tt->by_id = hmap_new(seed);
	tt->by_up = hmap_new(seed ^ 0x7461736b73ULL);
	tt->counts = hmap_new(seed ^ 0x636f756e74ULL);
	tt->by_progress = hmap_new(seed ^ 0x70726f67ULL);
	TAILQ_INIT(&tt->all);
	tt->max_per_principal = max_per_principal;
	tt->max_total = max_total;
	return (tt);
}

static void
task_free(struct task *t)
{
	free(t->up_id);
	free(t->last);
	free(t->progress_token);
	free(t);
}

void
tasktab_free(struct tasktab *tt)
{
	struct task	*t;

	if (tt == NULL)
		return;
	while ((t = TAILQ_FIRST(&tt->all)) != NULL) {
		TAILQ_REMOVE(&tt->all, t, entry);
		task_free(t);
	}
	hmap_free(tt->by_id);
	hmap_free(tt->by_up);
	hmap_free(tt->counts);
	hmap_free(tt->by_progress);
	free(tt);
}

size_t
tasktab_count_principal(const struct tasktab *tt, uint64_t principal)
{
	return (hmap_count_of(tt->counts, &principal, sizeof principal));
}

enum tasktab_refusal
tasktab_room(const struct tasktab *tt, uint64_t principal)
{
	if (hmap_count(tt->by_id) >= tt->max_total)
		return (TASKTAB_FULL);
	if (tasktab_count_principal(tt, principal) >= tt->max_per_principal)
		return (TASKTAB_PRINCIPAL_FULL);
	return (TASKTAB_OK);
}

/*
 * The Task object kept for tasks/list: the server's, with mcpd's id, and
 * without what a list does not carry (_meta).  Trimmed to its known
 * members should it be larger than TASKTAB_TASK_MAX_BYTES.
 */
static char *
task_object_text(const struct task *t, const cJSON *task)
{
	static const char *keep[] = {
		"status", "statusMessage", "createdAt", "lastUpdatedAt",
		"ttl", "pollInterval"
	};
	cJSON		*copy;
	const cJSON	*item;
	char		*text;
	size_t		 i;

	copy = cJSON_CreateObject();
	cJSON_AddStringToObject(copy, "taskId", t->id);
	for (i = 0; i < sizeof keep / sizeof *keep; i++) {
		item = cJSON_GetObjectItemCaseSensitive(task, keep[i]);
		if (item != NULL)
			cJSON_AddItemToObject(copy, keep[i],
			    cJSON_Duplicate(item, 1));
	}
	text = cJSON_PrintUnformatted(copy);
	if (text != NULL && strlen(text) > TASKTAB_TASK_MAX_BYTES) {
		/* A long status message: the rest stays. */
		free(text);
		cJSON_DeleteItemFromObjectCaseSensitive(copy, "statusMessage");
		text = cJSON_PrintUnformatted(copy);
	}
	cJSON_Delete(copy);
	if (text == NULL)
		text = xstrdup("{}");
	return (text);
}

static void
task_set(struct tasktab *tt, struct task *t, const cJSON *task)
{
	const cJSON	*status;
	int		 s;
	int		 was = !task_status_ended(t->status);

	status = cJSON_GetObjectItemCaseSensitive(task, "status");
	if (cJSON_IsString(status) &&
	    (s = task_status_parse(status->valuestring)) != -1 &&
	    !task_status_ended(t->status))
		t->status = (enum task_status)s;
	tt->mem -= t->mem;
	free(t->last);
	t->last = task_object_text(t, task);
	t->mem = sizeof *t + t->up_len + 1 + strlen(t->last) + 1 +
	    t->progress_len;
	tt->mem += t->mem;
	if (was && task_status_ended(t->status))
		tt->running--;
	/* A cancelled task has no result to wait for. */
	if (t->status == TASK_CANCELLED)
		tasktab_set_read(tt, t);
}

void
tasktab_set_read(struct tasktab *tt, struct task *t)
{
	if (!t->read) {
		t->read = 1;
		tt->unread--;
	}
}

struct task *
tasktab_add(struct tasktab *tt, uint64_t principal,
    const unsigned char rnd[TASKTAB_RANDOM_BYTES], const char *up_id,
    size_t up_len, const cJSON *task, uint64_t now_ms,
    enum tasktab_refusal *why)
{
	struct task	*t;
	const cJSON	*ttl;
	uint64_t	 ttl_ms = TASKTAB_TTL_MAX_MS;
	size_t		 i;

	if ((*why = tasktab_room(tt, principal)) != TASKTAB_OK)
		return (NULL);
	if (up_len == 0 || up_len > TASKTAB_UP_ID_MAX) {
		*why = TASKTAB_BAD_ID;
		return (NULL);
	}
	if (hmap_get(tt->by_up, up_id, up_len) != NULL) {
		*why = TASKTAB_DUPLICATE;
		return (NULL);
	}
	t = xcalloc(1, sizeof *t);
	for (i = 0; i < TASKTAB_RANDOM_BYTES; i++)
		snprintf(t->id + 2 * i, 3, "%02x", rnd[i]);
	/* 128 random bits: a clash is a broken random source. */
	if (hmap_get(tt->by_id, t->id, TASKTAB_ID_LEN) != NULL)
		abort();
	t->principal = principal;
	t->up_id = xmalloc(up_len + 1);
	memcpy(t->up_id, up_id, up_len);
	t->up_id[up_len] = '\0';
	t->up_len = up_len;
	t->status = TASK_WORKING;
	t->created_ms = now_ms;
	ttl = cJSON_GetObjectItemCaseSensitive(task, "ttl");
	if (cJSON_IsNumber(ttl) && ttl->valuedouble >= 0 &&
	    ttl->valuedouble < (double)TASKTAB_TTL_MAX_MS)
		ttl_ms = (uint64_t)ttl->valuedouble;
	t->expires_ms = now_ms + ttl_ms;
	tt->running++;
	tt->unread++;
	task_set(tt, t, task);
	hmap_put(tt->by_id, t->id, TASKTAB_ID_LEN, t);
	hmap_put(tt->by_up, t->up_id, up_len, t);
	(void)hmap_count_add(tt->counts, &principal, sizeof principal, 1);
	TAILQ_INSERT_TAIL(&tt->all, t, entry);
	*why = TASKTAB_OK;
	return (t);
}

struct task *
tasktab_find(const struct tasktab *tt, uint64_t principal, const char *id,
    size_t len)
{
	struct task	*t;

	if (len != TASKTAB_ID_LEN)
		return (NULL);
	t = hmap_get(tt->by_id, id, len);
	if (t == NULL || (t->principal != principal &&
	    principal != TASKTAB_ANYONE))
		return (NULL);
	return (t);
}

struct task *
tasktab_find_up(const struct tasktab *tt, const char *up_id, size_t up_len)
{
	return (hmap_get(tt->by_up, up_id, up_len));
}

void
tasktab_set_progress(struct tasktab *tt, struct task *t, int64_t up,
    const char *token, size_t len)
{
	if (t->progress_token != NULL) {
		hmap_del_i64(tt->by_progress, t->progress_up);
		free(t->progress_token);
		tt->mem -= t->progress_len;
		t->mem -= t->progress_len;
	}
	t->progress_up = up;
	t->progress_token = xmalloc(len + 1);
	memcpy(t->progress_token, token, len);
	t->progress_token[len] = '\0';
	t->progress_len = len;
	tt->mem += len;
	t->mem += len;
	hmap_put_i64(tt->by_progress, up, t);
}

struct task *
tasktab_find_progress(const struct tasktab *tt, int64_t up)
{
	return (hmap_get_i64(tt->by_progress, up));
}

void
tasktab_update(struct tasktab *tt, struct task *t, const cJSON *task)
{
	task_set(tt, t, task);
}

void
tasktab_remove(struct tasktab *tt, struct task *t)
{
	hmap_del(tt->by_id, t->id, TASKTAB_ID_LEN);
	hmap_del(tt->by_up, t->up_id, t->up_len);
	if (t->progress_token != NULL)
		hmap_del_i64(tt->by_progress, t->progress_up);
	(void)hmap_count_add(tt->counts, &t->principal,
	    sizeof t->principal, -1);
	TAILQ_REMOVE(&tt->all, t, entry);
	if (!task_status_ended(t->status))
		tt->running--;
	if (!t->read)
		tt->unread--;
	tt->mem -= t->mem;
	task_free(t);
}

/* Remove the tasks whose time is up at now_ms, or principal's (if set). */
static size_t
tasktab_remove_if(struct tasktab *tt, uint64_t now_ms, int by_principal,
    uint64_t principal)
{
	struct task	*t, *next;
	size_t		 n = 0;

	for (t = TAILQ_FIRST(&tt->all); t != NULL; t = next) {
		next = TAILQ_NEXT(t, entry);
		if (by_principal ? t->principal == principal :
		    now_ms >= t->expires_ms) {
			tasktab_remove(tt, t);
			n++;
		}
	}
	return (n);
}

size_t
tasktab_expire(struct tasktab *tt, uint64_t now_ms)
{
	return (tasktab_remove_if(tt, now_ms, 0, 0));
}

size_t
tasktab_drop_principal(struct tasktab *tt, uint64_t principal)
{
	if (tasktab_count_principal(tt, principal) == 0)
		return (0);
	return (tasktab_remove_if(tt, 0, 1, principal));
}

/* Whether tasks/list shows t to principal. */
static int
task_listed(const struct task *t, uint64_t principal)
{
	return (!t->hidden && (t->principal == principal ||
	    principal == TASKTAB_ANYONE));
}

/* The first task of the page after cursor; *bad when it names none. */
static struct task *
task_page_first(const struct tasktab *tt, uint64_t principal,
    const char *cursor, int *bad)
{
	struct task	*t;

	*bad = 0;
	if (cursor == NULL)
		return (TAILQ_FIRST(&tt->all));
	if ((t = tasktab_find(tt, principal, cursor, strlen(cursor))) ==
	    NULL) {
		*bad = 1;
		return (NULL);
	}
	return (TAILQ_NEXT(t, entry));
}

struct task *
tasktab_next_running(const struct tasktab *tt, uint64_t principal,
    const char *cursor, const struct task *after)
{
	struct task	*t;
	size_t		 n = 0;
	int		 bad, seen = after == NULL;

	t = task_page_first(tt, principal, cursor, &bad);
	for (; t != NULL && n < TASKTAB_PAGE; t = TAILQ_NEXT(t, entry)) {
		if (!task_listed(t, principal))
			continue;
		n++;
		if (!seen) {
			seen = t == after;
			continue;
		}
		if (!task_status_ended(t->status))
			return (t);
	}
	return (NULL);
}

cJSON *
tasktab_list(const struct tasktab *tt, uint64_t principal,
    const char *cursor)
{
	struct task	*t;
	cJSON		*result, *tasks, *obj;
	size_t		 n = 0;
	int		 bad;

	t = task_page_first(tt, principal, cursor, &bad);
	if (bad)
		return (NULL);
	result = cJSON_CreateObject();
	tasks = cJSON_AddArrayToObject(result, "tasks");
	for (; t != NULL; t = TAILQ_NEXT(t, entry)) {
		if (!task_listed(t, principal))
			continue;
		if (n == TASKTAB_PAGE) {
			/* More to come: the cursor is the page's last. */
			obj = cJSON_GetArrayItem(tasks, (int)n - 1);
			cJSON_AddStringToObject(result, "nextCursor",
			    cJSON_GetStringValue(cJSON_GetObjectItem(obj,
			    "taskId")));
			break;
		}
		if ((obj = cJSON_Parse(t->last)) == NULL)
			continue;
		cJSON_AddItemToArray(tasks, obj);
		n++;
	}
	return (result);
}

struct task *
tasktab_first(const struct tasktab *tt)
{
	return (TAILQ_FIRST(&tt->all));
}

struct task *
tasktab_next(const struct task *t)
{
	return (TAILQ_NEXT(t, entry));
}

size_t
tasktab_unread(const struct tasktab *tt)
{
	return (tt->unread);
}

size_t
tasktab_running(const struct tasktab *tt)
{
	return (tt->running);
}

size_t
tasktab_count(const struct tasktab *tt)
{
	return (hmap_count(tt->by_id));
}

size_t
tasktab_mem(const struct tasktab *tt)
{
	return (tt->mem);
}
