/*
 * log.h -- telemetry: structured journal entries, or readable stderr lines.
 *
 * Every event carries a MESSAGE_ID (proto.h) and MCPD_ fields.  With the
 * journal target they go through sd_journal_send; with the stderr target
 * the message text is printed as "mcpd: TEXT" and the fields are dropped
 * (the text already names the server and what happened).  The auto target
 * picks the journal when stderr is connected to it ($JOURNAL_STREAM).
 */
#ifndef MCPD_LOG_H
#define MCPD_LOG_H

#include <stddef.h>
#include <syslog.h>

enum log_target {
	LOG_TARGET_AUTO,
	LOG_TARGET_JOURNAL,
	LOG_TARGET_STDERR,
};

struct log_field {
	const char	*name;		/* MCPD_... */
	const char	*value;
};

int	log_target_parse(const char *, enum log_target *);
void	log_open(enum log_target);
int	log_to_journal(void);

/*
 * Where every message goes instead, for a program that checks what is
 * logged (the unit and fuzz harnesses): its priority, MESSAGE_ID (NULL for
 * a plain message), fields as given and text as escaped.  NULL: the
 * target log_open chose.  Debug messages come only with MCPD_DEBUG set.
 */
typedef void	log_sink_fn(int priority, const char *message_id,
		    const struct log_field *, size_t nfields, const char *text);
void	log_sink(log_sink_fn *);

/* An event with a MESSAGE_ID and fields (nfields may be 0). */
void	log_event(int priority, const char *message_id,
	    const struct log_field *fields, size_t nfields, const char *fmt, ...)
	    __attribute__((format(printf, 5, 6)));
/* Plain messages without an event type; debug ones only with MCPD_DEBUG. */
#define log_info(...)	log_event(LOG_INFO, NULL, NULL, 0, __VA_ARGS__)
#define log_warnx(...)	log_event(LOG_WARNING, NULL, NULL, 0, __VA_ARGS__)
void	log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	fatalx(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2), noreturn));

#endif /* MCPD_LOG_H */
