/*
 * batch.c -- a JSON-RPC batch's messages, found where they lie (see
 * batch.h).
 *
 * The line is first checked whole by the strict scanner (rpc_json_valid),
 * so the walk that follows can take it for valid JSON: it only keeps
 * count of brackets outside strings to find where each message ends, and
 * never steps past the line's end.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "envelope.h"
#include "proto.h"
#include "rpc.h"
#include "xmalloc.h"

static int
batch_space(char c)
{
	return (c == ' ' || c == '\t' || c == '\n' || c == '\r');
}

int
batch_is(const char *line, size_t len)
{
	size_t	 i;

	for (i = 0; i < len && batch_space(line[i]); i++)
		continue;
	return (i < len && line[i] == '[');
}

/* Past the value that starts at line[i] (valid JSON). */
static size_t
batch_skip_value(const char *line, size_t len, size_t i)
{
	return ((size_t)(envelope_skip_value(line + i, line + len) - line));
}

int
batch_split(const char *line, size_t len, size_t max,
    struct batch_span **spans, size_t *n, int *code, char **why)
{
	struct batch_span	*out = NULL;
	size_t			 i, count = 0, end;

	*spans = NULL;
	*n = 0;
	if (!rpc_json_valid(line, len)) {
		*code = RPC_PARSE_ERROR;
		xasprintf(why, "parse error: the batch is not valid JSON");
		return (-1);
	}
	for (i = 0; i < len && batch_space(line[i]); i++)
		continue;
	if (i == len || line[i] != '[') {
		*code = RPC_INVALID_REQUEST;
		xasprintf(why, "invalid request: a batch is a JSON array");
		return (-1);
	}
	for (i++;;) {
		while (i < len && batch_space(line[i]))
			i++;
		if (i >= len || line[i] == ']')
			break;
		if (line[i] == ',') {
			i++;
			continue;
		}
		if (count == max) {
			free(out);
			*code = RPC_INVALID_REQUEST;
			xasprintf(why, "invalid request: a batch of more than "
			    "%zu messages, the most mcpd takes in one", max);
			return (-1);
		}
		end = batch_skip_value(line, len, i);
		out = xreallocarray(out, count + 1, sizeof *out);
		out[count].off = i;
		out[count].len = end - i;
		out[count].object = line[i] == '{';
		count++;
		i = end;
	}
	if (count == 0) {
		*code = RPC_INVALID_REQUEST;
		xasprintf(why, "invalid request: an empty batch");
		return (-1);
	}
	*spans = out;
	*n = count;
	return (0);
}
