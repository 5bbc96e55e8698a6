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
 * - printing what it accepted and reading that back gives the same text
 *   (handover_print and handover_parse agree).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "handover.h"

const char	*fuzz_target_name = "handover";

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
		    h.config_file == NULL, "a refused state keeps members");
		free(cause);
		handover_free(&h);
		return (0);
	}
	FUZZ_CHECK(cause == NULL, "accepted with a reason: %s", cause);
	check_accepted(&h);
	text = handover_print(&h);
	FUZZ_CHECK(handover_parse(text, strlen(text), &again, &cause) == 0,
	    "its own print refused: %s", cause != NULL ? cause : "?");
	text2 = handover_print(&again);
	FUZZ_CHECK(strcmp(text, text2) == 0, "printed, read and printed "
	    "again, the state differs:\n%s\n%s", text, text2);
	free(text);
	free(text2);
	handover_free(&again);
	handover_free(&h);
	return (0);
}
