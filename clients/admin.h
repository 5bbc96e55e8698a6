/*
 * admin.h -- the commands that ask mcpd's control plane (mcpd/ methods)
 * over the connection admin_connect opens in the struct ctl.
 */
#ifndef MCPD_ADMIN_H
#define MCPD_ADMIN_H

#include "ctl.h"

/* Connect ctl to mcpd (exit code); quiet: no message if unreachable. */
int		admin_connect(struct ctl *, int quiet);
/* Close the connection, if any, and forget the last error. */
void		admin_close(struct ctl *);

ctl_command_fn	admin_status;	/* [NAME...] */
ctl_command_fn	admin_start;	/* NAME... */
ctl_command_fn	admin_stop;	/* NAME... */
ctl_command_fn	admin_restart;	/* NAME... */
ctl_command_fn	admin_reload;
ctl_command_fn	admin_logs;	/* NAME; ctl->lines, ctl->follow */
ctl_command_fn	admin_metrics;
/* Hand mcpd over to its binary as installed now, and wait for it. */
ctl_command_fn	admin_reexec;
/* What a server changed since approved; approving it (admin_pins.c). */
ctl_command_fn	admin_pins;	/* NAME */
ctl_command_fn	admin_approve;	/* NAME [NAME...] */
/* Connects itself, quietly: mcpctl's version is printed even then. */
ctl_command_fn	admin_version;

#endif /* MCPD_ADMIN_H */
