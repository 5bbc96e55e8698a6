/*
 * ctl.h -- what each mcpctl command is given: the options from the
 * command line and, for the commands that ask mcpd's control plane
 * (admin.h), the connection to it.  Commands return an exit code
 * (diag.h) and print their own messages.
 */
#ifndef MCPD_CTL_H
#define MCPD_CTL_H

#include <stdint.h>

#include <cjson/cJSON.h>

struct line;

struct ctl {
	const char	*socket_path;
	int		 json;		/* --json */
	int		 no_block;	/* --no-block */
	int		 color;		/* stdout is a terminal for colour */
	long		 lines;		/* logs -n */
	int		 follow;	/* logs -f */
	int		 no_browser;	/* login --no-browser */
	int		 no_reconnect;	/* connect --no-reconnect */
	long		 reconnect_timeout_s; /* connect --reconnect-timeout */
	const char	*output;	/* read --output */
	int		 clients;	/* status --clients */

	/* admin.c's connection to mcpd. */
	struct line	*line;
	int64_t		 next_id;
	cJSON		*last_error_data;	/* the last error's data */
	char		*last_error_message;	/* its message, or NULL */
	int		 last_error_code;	/* its code, or 0 */
	int		 quiet_errors;	/* an error answered: kept, not said */
	/* Notifications that come while a call waits; NULL: dropped. */
	void		(*on_notification)(void *, const cJSON *);
	void		*notification_arg;
};

typedef int	ctl_command_fn(struct ctl *, int argc, char **argv);

#endif /* MCPD_CTL_H */
