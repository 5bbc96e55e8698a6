/*
 * log.c -- journal and stderr telemetry.
 *
 * A message often quotes what a server said (its name, its stderr, its
 * protocol version), so its control characters are escaped (esc_text)
 * before it reaches either target: a server cannot start a line of its
 * own in mcpd's log nor send escape sequences to whoever reads it.  The
 * MCPD_ fields keep their exact bytes; journalctl escapes them on show.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/uio.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "esc.h"
#include "log.h"
#include "proto.h"
#include "xmalloc.h"

#define LOG_MAX_FIELDS	24

static int		 log_journal;
static int		 log_verbose;
static log_sink_fn	*log_sink_to;

int
log_target_parse(const char *s, enum log_target *target)
{
	if (strcmp(s, "auto") == 0)
		*target = LOG_TARGET_AUTO;
	else if (strcmp(s, "journal") == 0)
		*target = LOG_TARGET_JOURNAL;
	else if (strcmp(s, "stderr") == 0)
		*target = LOG_TARGET_STDERR;
	else
		return (-1);
	return (0);
}

/* stderr is the journal when $JOURNAL_STREAM names its device and inode. */
static int
log_stderr_is_journal(void)
{
	const char		*env;
	unsigned long long	 dev, ino;
	struct stat		 sb;

	if ((env = getenv("JOURNAL_STREAM")) == NULL)
		return (0);
	if (sscanf(env, "%llu:%llu", &dev, &ino) != 2)
		return (0);
	if (fstat(STDERR_FILENO, &sb) != 0)
		return (0);
	return (sb.st_dev == (dev_t)dev && sb.st_ino == (ino_t)ino);
}

void
log_open(enum log_target target)
{
	switch (target) {
	case LOG_TARGET_AUTO:
		log_journal = log_stderr_is_journal();
		break;
	case LOG_TARGET_JOURNAL:
		log_journal = 1;
		break;
	case LOG_TARGET_STDERR:
		log_journal = 0;
		break;
	}
	log_verbose = getenv("MCPD_DEBUG") != NULL;
}

int
log_to_journal(void)
{
	return (log_journal);
}

void
log_sink(log_sink_fn *fn)
{
	log_sink_to = fn;
}

static void __attribute__((format(printf, 5, 0)))
log_vevent(int priority, const char *message_id,
    const struct log_field *fields, size_t nfields, const char *fmt,
    va_list ap)
{
	struct iovec	 iov[LOG_MAX_FIELDS + 5];
	char		*strs[LOG_MAX_FIELDS + 5];
	char		*raw, *text;
	const char	*hash;
	size_t		 n = 0, i;

	if (priority == LOG_DEBUG && !log_verbose && !log_journal)
		return;
	xvasprintf(&raw, fmt, ap);
	text = esc_text(raw, strlen(raw), ESC_KEEP_TAB);
	free(raw);
	if (log_sink_to != NULL) {
		log_sink_to(priority, message_id, fields, nfields, text);
		free(text);
		return;
	}
	if (!log_journal) {
		fprintf(stderr, "mcpd: %s\n", text);
		free(text);
		return;
	}

	xasprintf(&strs[n++], "MESSAGE=%s", text);
	xasprintf(&strs[n++], "PRIORITY=%d", priority);
	xasprintf(&strs[n++], "SYSLOG_IDENTIFIER=mcpd");
	if (message_id != NULL)
		xasprintf(&strs[n++], "MESSAGE_ID=%s", message_id);
	for (i = 0; i < nfields && i < LOG_MAX_FIELDS; i++) {
		if (fields[i].value == NULL)
			continue;
		/*
		 * An instance (NAME#N) is logged as its server, NAME, with
		 * MCPD_INSTANCE=NAME#N: MCPD_SERVER=NAME finds them all.
		 */
		if (strcmp(fields[i].name, MCPD_FIELD_SERVER) == 0 &&
		    (hash = strchr(fields[i].value, '#')) != NULL) {
			xasprintf(&strs[n++], "%s=%.*s", fields[i].name,
			    (int)(hash - fields[i].value), fields[i].value);
			xasprintf(&strs[n++], "%s=%s", MCPD_FIELD_INSTANCE,
			    fields[i].value);
			continue;
		}
		xasprintf(&strs[n++], "%s=%s", fields[i].name, fields[i].value);
	}
	for (i = 0; i < n; i++) {
		iov[i].iov_base = strs[i];
		iov[i].iov_len = strlen(strs[i]);
	}
	if (sd_journal_sendv(iov, (int)n) < 0)
		fprintf(stderr, "mcpd: %s\n", text);
	for (i = 0; i < n; i++)
		free(strs[i]);
	free(text);
}

void
log_event(int priority, const char *message_id,
    const struct log_field *fields, size_t nfields, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	log_vevent(priority, message_id, fields, nfields, fmt, ap);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list	 ap;

	if (!log_verbose)
		return;
	va_start(ap, fmt);
	log_vevent(LOG_DEBUG, NULL, NULL, 0, fmt, ap);
	va_end(ap);
}

void
fatalx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	log_vevent(LOG_CRIT, NULL, NULL, 0, fmt, ap);
	va_end(ap);
	exit(1);
}
