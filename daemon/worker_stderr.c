/*
 * worker_stderr.c -- the line of a server's stderr that says why it
 * ended: the last it wrote in the run that failed, shown beside the exit
 * status in mcpctl status (to administrators: visible.h) and in the
 * journal entry of the exit.
 *
 * Each stderr line of a run is looked at as it comes (the ring, logs.c,
 * keeps them all); two are kept: the last that reads as a message, and
 * the last that is not blank at all.  A message is a line that is not
 * blank, not indented (a stack trace's frames, a continuation) and not
 * Node.js's closing "Node.js vN" line, so that a crash's own words
 * ("Error: boom", "ValueError: boom") are what is shown; the last line
 * of all when no line is a message.  When the run ends with a failure
 * (it was not asked to stop, and did not exit cleanly with status 0: the
 * restart policy's failure), that line becomes last_stderr: secrets
 * taken out, escaped, at most WORKER_STDERR_SHOWN_BYTES.
 *
 * The secrets are the values the configuration expanded for the server,
 * which mcpd never shows (conf.h): its env values (envFile and
 * "${credential:...}" ones included), header values, an expanded url,
 * command, argument or cwd that differs from what the file writes, and
 * an OAuth client secret.  A server may well print one of them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "worker.h"
#include "worker_int.h"
#include "xmalloc.h"

/* Of a line, what is kept to choose from (the rest is never shown). */
#define WORKER_STDERR_KEEP_BYTES	1024
/* What status and the journal show of it, escaped. */
#define WORKER_STDERR_SHOWN_BYTES	200
/* Node.js ends an uncaught exception's report with its version. */
#define WORKER_STDERR_NODE_TRAILER	"Node.js v"

static void
worker_errline_clear(struct worker_errline *e)
{
	free(e->p);
	e->p = NULL;
	e->len = 0;
	e->cut = 0;
}

/* Every line of a flood passes here: one buffer, taken once a run. */
static void
worker_errline_set(struct worker_errline *e, const char *line, size_t len,
    size_t total)
{
	if (e->p == NULL)
		e->p = xmalloc(WORKER_STDERR_KEEP_BYTES + 1);
	e->cut = total > len || len > WORKER_STDERR_KEEP_BYTES;
	e->len = len > WORKER_STDERR_KEEP_BYTES ? WORKER_STDERR_KEEP_BYTES :
	    len;
	memcpy(e->p, line, e->len);
	e->p[e->len] = '\0';
}

static int
worker_blank(const char *line, size_t len)
{
	size_t	 i;

	for (i = 0; i < len; i++) {
		if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
			return (0);
	}
	return (1);
}

/* A line of the run (transport's err_line): kept if it may say why. */
void
worker_stderr_line(struct worker *w, const char *line, size_t len,
    size_t total)
{
	size_t	 trailer = strlen(WORKER_STDERR_NODE_TRAILER);

	if (worker_blank(line, len))
		return;
	worker_sandbox_stderr(w, line, len);
	worker_errline_set(&w->err_any, line, len, total);
	if (line[0] == ' ' || line[0] == '\t')
		return;
	if (len > trailer && memcmp(line, WORKER_STDERR_NODE_TRAILER,
	    trailer) == 0 && line[trailer] >= '0' && line[trailer] <= '9')
		return;
	worker_errline_set(&w->err_said, line, len, total);
}

/* A new run: what the last one wrote is no longer its. */
void
worker_stderr_forget(struct worker *w)
{
	worker_errline_clear(&w->err_said);
	worker_errline_clear(&w->err_any);
}

static void
worker_secret_add(const char ***v, size_t *n, const char *s)
{
	if (s == NULL || strlen(s) < ESC_REDACT_MIN_BYTES)
		return;
	*v = xreallocarray(*v, *n + 2, sizeof **v);
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
}

/* The server's secrets (see above), pointing into its conf; NULL-ended. */
static const char **
worker_secrets(const struct conf_server *cs)
{
	const char	**v = NULL, *eq;
	size_t		  n = 0, i;

	v = xcalloc(1, sizeof *v);
	for (i = 0; i < cs->envc; i++) {
		if ((eq = strchr(cs->env[i], '=')) != NULL)
			worker_secret_add(&v, &n, eq + 1);
	}
	for (i = 0; i < cs->nheaders; i++) {
		if ((eq = strchr(cs->headers[i], ':')) != NULL)
			worker_secret_add(&v, &n, eq + 1 + strspn(eq + 1,
			    " \t"));
	}
	for (i = 0; i < cs->argc; i++) {
		if (strcmp(cs->argv[i], cs->argv_display[i]) != 0)
			worker_secret_add(&v, &n, cs->argv[i]);
	}
	if (cs->cwd != NULL && cs->cwd_display != NULL &&
	    strcmp(cs->cwd, cs->cwd_display) != 0)
		worker_secret_add(&v, &n, cs->cwd);
	if (cs->url != NULL && cs->url_display != NULL &&
	    strcmp(cs->url, cs->url_display) != 0)
		worker_secret_add(&v, &n, cs->url);
	if (cs->has_oauth)
		worker_secret_add(&v, &n, cs->oauth.client_secret);
	return (v);
}

/*
 * The run ended: with fail (it failed), its line becomes last_stderr;
 * otherwise there is none.  The run's lines are let go.
 */
void
worker_stderr_ended(struct worker *w, int fail)
{
	const struct worker_errline *e;
	const char	**secrets;
	char		 *clean;
	size_t		  len;

	free(w->last_stderr);
	w->last_stderr = NULL;
	e = w->err_said.p != NULL ? &w->err_said : &w->err_any;
	if (fail && e->p != NULL) {
		secrets = worker_secrets(w->conf);
		clean = esc_redact(e->p, e->len, secrets, e->cut, &len);
		w->last_stderr = esc_text_max(clean, len, 0,
		    WORKER_STDERR_SHOWN_BYTES);
		free(clean);
		free(secrets);
	}
	worker_stderr_forget(w);
}

const char *
worker_last_stderr(const struct worker *w)
{
	return (w->last_stderr);
}
