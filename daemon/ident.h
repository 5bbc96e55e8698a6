/*
 * ident.h -- who the app on the other end of a client's connection is,
 * as the kernel tells mcpd: the uid always (SO_PEERCRED); where mcpd may
 * look into /proc, the executable, the systemd unit and a Flatpak or
 * Snap app id.  For mcpctl connect, the app is the bridge's parent (past
 * shells and wrappers), read by mcpd itself.  Never what a client says
 * of itself (clientInfo), nor what a bridge says of its parent.
 *
 * Between uids this is a boundary; within one uid it is not (any process
 * of the user can run an allowed binary with code of its own): see
 * mcpd(8).
 */
#ifndef MCPD_IDENT_H
#define MCPD_IDENT_H

#include <sys/types.h>

#include <stddef.h>

#define IDENT_UID_ONLY		0x01	/* /proc hidden: the uid alone */
#define IDENT_BRIDGE		0x02	/* mcpctl connect: the app its parent */
#define IDENT_REPARENTED	0x04	/* the bridge's parent was gone */
#define IDENT_PID_RACE		0x08	/* no pidfd: read by a recyclable pid */

struct ident {
	uid_t		 uid;
	pid_t		 pid;		/* the app's; 0: not known */
	char		*exe;		/* its executable; NULL: not known */
	char		*unit;		/* its systemd unit; NULL: none known */
	char		*app_id;	/* Flatpak or Snap; NULL: none */
	unsigned int	 flags;		/* IDENT_* */
};

#endif /* MCPD_IDENT_H */
