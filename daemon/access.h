/*
 * access.h -- who may connect to mcpd's socket (access.c).
 */
#ifndef MCPD_ACCESS_H
#define MCPD_ACCESS_H

#include <sys/types.h>

struct conf;
struct ucred;

/* mcpd's own uid and root administer mcpd. */
int		 access_uid_is_admin(uid_t);
/* Is the peer on fd (cred from SO_PEERCRED) a member of socket_group? */
int		 access_in_group(const struct conf *, int fd,
		    const struct ucred *);
/* Why a peer of this uid may not connect, and what to do (malloc'd). */
char		*access_denied(const struct conf *, uid_t);
/* One error line (id null) to a refused peer, its input read; closes fd. */
void		 access_refuse(int fd, int code, const char *message);

#endif /* MCPD_ACCESS_H */
