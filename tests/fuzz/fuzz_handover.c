/*
 * fuzz_handover.c -- the reader of the state one mcpd hands the next
 * across a re-exec (src/handover.c), on any text at all.
 *
 * Invariants:
 * - handover_parse returns 0, or -1 with a reason; after -1 the struct
 *   holds nothing (freeing it again is harmless);
 * - what it accepts is of this version, has a listening socket, names
 *   each server once, gives a running server its pipes and an initialize
 *   result that is one JSON object, holds only JSON-RPC ids where the
 *   server's requests are listed (they are written back to it), and
 *   keeps every number in its range;
 * - its lasting principals have a secret of 32 lowercase hex digits, a
 *   uid other than (uid_t)-1 and an id of at least 2^62, no two alike in
 *   either; each task has an id of 32 lowercase hex digits no other task
 *   has, a listed principal, a server id of 1 to 256 bytes no other task
 *   of its server has, and a Task object with its id as "taskId";
 * - printing what it accepted and reading that back gives the same text
 *   (handover_print and handover_parse agree), and the same principals
 *   and tasks member by member (ids past 2^53 kept exact).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "handover.h"

const char	*fuzz_target_name = "handover";

static int
is_hex32(const char *s)
{
	return (s != NULL && strlen(s) == 32 &&
	    strspn(s, "0123456789abcdef") == 32);
}

/* Quadratic, but fuzz inputs are small. */
static void
check_tasks(const struct handover *h)
{
	const struct handover_principal	*p;
	const struct handover_server	*s;
	const struct handover_task	*t;
	const cJSON			*task_id;
	cJSON				*v;
	size_t				 i, j, k, l;
	int				 found;

	FUZZ_CHECK(h->nprincipals <= HANDOVER_MAX_PRINCIPALS,
	    "%zu principals", h->nprincipals);
	for (i = 0; i < h->nprincipals; i++) {
		p = &h->principals[i];
		FUZZ_CHECK(is_hex32(p->sid), "principal %zu: secret %s", i,
		    p->sid != NULL ? p->sid : "(null)");
		FUZZ_CHECK(p->uid != (uid_t)-1, "principal %zu: uid -1", i);
		FUZZ_CHECK(p->id >= (1ULL << 62), "principal %zu: id %llu", i,
		    (unsigned long long)p->id);
		for (j = 0; j < i; j++) {
			FUZZ_CHECK(strcmp(h->principals[j].sid, p->sid) != 0,
			    "principals %zu and %zu: one secret", j, i);
			FUZZ_CHECK(h->principals[j].id != p->id,
			    "principals %zu and %zu: one id", j, i);
		}
	}
	for (i = 0; i < h->nservers; i++) {
		s = &h->servers[i];
		FUZZ_CHECK(s->ntasks <= HANDOVER_MAX_TASKS, "%zu tasks",
		    s->ntasks);
		for (j = 0; j < s->ntasks; j++) {
			t = &s->tasks[j];
			FUZZ_CHECK(is_hex32(t->id), "task id %s",
			    t->id != NULL ? t->id : "(null)");
			FUZZ_CHECK(t->up_id != NULL && *t->up_id != '\0' &&
			    strlen(t->up_id) <= 256, "a server's task id of "
			    "%zu bytes", t->up_id != NULL ? strlen(t->up_id) :
			    0);
			found = 0;
			for (k = 0; k < h->nprincipals; k++)
				found |= h->principals[k].id == t->principal;
			FUZZ_CHECK(found, "task %s: principal %llu not listed",
			    t->id, (unsigned long long)t->principal);
			FUZZ_CHECK(t->last != NULL, "task %s: no Task", t->id);
			v = cJSON_ParseWithOpts(t->last, NULL, 1);
			task_id = cJSON_GetObjectItemCaseSensitive(v, "taskId");
			FUZZ_CHECK(cJSON_IsObject(v) && cJSON_IsString(task_id) &&
			    strcmp(task_id->valuestring, t->id) == 0,
			    "task %s: its Task is %s", t->id, t->last);
			cJSON_Delete(v);
			for (k = 0; k < j; k++)
				FUZZ_CHECK(strcmp(s->tasks[k].up_id,
				    t->up_id) != 0, "server %s: two tasks of "
				    "server id %s", s->name, t->up_id);
			for (k = 0; k <= i; k++) {
				for (l = 0; l < (k == i ? j :
				    h->servers[k].ntasks); l++)
					FUZZ_CHECK(strcmp(h->servers[k].tasks[l].id,
					    t->id) != 0, "task %s twice", t->id);
			}
		}
	}
}

/* What was read back from the print is what was printed. */
static void
check_same_tasks(const struct handover *a, const struct handover *b)
{
	const struct handover_principal	*p, *q;
	const struct handover_task	*t, *u;
	size_t				 i, j;

	FUZZ_CHECK(a->nprincipals == b->nprincipals, "%zu principals, then "
	    "%zu", a->nprincipals, b->nprincipals);
	for (i = 0; i < a->nprincipals; i++) {
		p = &a->principals[i];
		q = &b->principals[i];
		FUZZ_CHECK(strcmp(p->sid, q->sid) == 0 && p->uid == q->uid &&
		    p->id == q->id && p->idle_ms == q->idle_ms,
		    "principal %zu changed: %llu, then %llu", i,
		    (unsigned long long)p->id, (unsigned long long)q->id);
	}
	FUZZ_CHECK(a->nservers == b->nservers, "%zu servers, then %zu",
	    a->nservers, b->nservers);
	for (i = 0; i < a->nservers; i++) {
		FUZZ_CHECK(a->servers[i].ntasks == b->servers[i].ntasks,
		    "server %zu: %zu tasks, then %zu", i, a->servers[i].ntasks,
		    b->servers[i].ntasks);
		for (j = 0; j < a->servers[i].ntasks; j++) {
			t = &a->servers[i].tasks[j];
			u = &b->servers[i].tasks[j];
			FUZZ_CHECK(strcmp(t->id, u->id) == 0 &&
			    t->principal == u->principal &&
			    strcmp(t->up_id, u->up_id) == 0 &&
			    strcmp(t->last, u->last) == 0,
			    "task %s changed", t->id);
			/* Times past 2^52 may print inexactly (cJSON's %g). */
			FUZZ_CHECK(t->age_ms == u->age_ms ||
			    t->age_ms >= (1ULL << 52), "task %s: age %llu, "
			    "then %llu", t->id, (unsigned long long)t->age_ms,
			    (unsigned long long)u->age_ms);
			FUZZ_CHECK(t->left_ms == u->left_ms ||
			    t->left_ms >= (1ULL << 52), "task %s: left %llu, "
			    "then %llu", t->id, (unsigned long long)t->left_ms,
			    (unsigned long long)u->left_ms);
		}
	}
}

static void
check_accepted(const struct handover *h)
{
	const struct handover_server	*s;
	cJSON				*v;
	size_t				 i, j;

	FUZZ_CHECK(h->version == HANDOVER_VERSION, "version %d accepted",
	    h->version);
	FUZZ_CHECK(h->listen_fd >= 0, "no listening socket accepted");
	FUZZ_CHECK(h->config_file != NULL && h->socket_path != NULL,
	    "a state without its paths accepted");
	FUZZ_CHECK(h->nservers <= HANDOVER_MAX_SERVERS, "%zu servers",
	    h->nservers);
	for (i = 0; i < h->nservers; i++) {
		s = &h->servers[i];
		FUZZ_CHECK(s->name != NULL && s->state != NULL,
		    "server %zu without a name or state", i);
		for (j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(h->servers[j].name, s->name) != 0,
			    "server %s twice", s->name);
		if (!s->running)
			continue;
		FUZZ_CHECK(s->pid > 1 && s->exit_pid > 1, "pid %ld, %ld",
		    (long)s->pid, (long)s->exit_pid);
		FUZZ_CHECK(s->out_fd >= 0 && s->err_fd >= 0 && s->in_fd >= -1,
		    "a running server's pipes: %d %d %d", s->in_fd, s->out_fd,
		    s->err_fd);
		FUZZ_CHECK(s->next_upstream_id >= 1, "next id %lld",
		    (long long)s->next_upstream_id);
		FUZZ_CHECK(s->level >= -1 && s->level <= 7, "level %d",
		    s->level);
		FUZZ_CHECK(s->init_result != NULL, "no initialize result");
		v = cJSON_ParseWithOpts(s->init_result, NULL, 1);
		FUZZ_CHECK(cJSON_IsObject(v), "an initialize result that is "
		    "not an object: %s", s->init_result);
		cJSON_Delete(v);
		for (j = 0; j < s->nasks; j++) {
			v = cJSON_ParseWithOpts(s->asks[j], NULL, 1);
			FUZZ_CHECK(cJSON_IsString(v) || cJSON_IsNumber(v),
			    "an id that is none: %s", s->asks[j]);
			cJSON_Delete(v);
		}
		FUZZ_CHECK(s->nsubs <= HANDOVER_MAX_SUBS, "%zu subscriptions",
		    s->nsubs);
	}
	check_tasks(h);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct handover	 h, again;
	char		*cause = NULL, *text, *text2;

	if (handover_parse((const char *)data, size, &h, &cause) != 0) {
		FUZZ_CHECK(cause != NULL && *cause != '\0',
		    "refused without a reason");
		FUZZ_CHECK(h.nservers == 0 && h.servers == NULL &&
		    h.config_file == NULL && h.nprincipals == 0 &&
		    h.principals == NULL, "a refused state keeps members");
		free(cause);
		handover_free(&h);
		return (0);
	}
	FUZZ_CHECK(cause == NULL, "accepted with a reason: %s", cause);
	check_accepted(&h);
	text = handover_print(&h);
	FUZZ_CHECK(handover_parse(text, strlen(text), &again, &cause) == 0,
	    "its own print refused: %s", cause != NULL ? cause : "?");
	check_same_tasks(&h, &again);
	text2 = handover_print(&again);
	FUZZ_CHECK(strcmp(text, text2) == 0, "printed, read and printed "
	    "again, the state differs:\n%s\n%s", text, text2);
	free(text);
	free(text2);
	handover_free(&again);
	handover_free(&h);
	return (0);
}
