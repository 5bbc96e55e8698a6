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
#include <stdint.h>

#include <cjson/cJSON.h>

#define IDENT_UID_ONLY		0x01	/* /proc hidden: the uid alone */
#define IDENT_BRIDGE		0x02	/* mcpctl connect: the app its parent */
#define IDENT_REPARENTED	0x04	/* the bridge's parent was gone */
#define IDENT_PID_RACE		0x08	/* no pidfd: read by a recyclable pid */
#define IDENT_HTTP_TOKEN	0x10	/* an HTTP client: its token (ident_http) */

struct ident {
	uid_t		 uid;
	pid_t		 pid;		/* the app's; 0: not known */
	char		*exe;		/* its executable; NULL: not known */
	char		*unit;		/* its systemd unit; NULL: none known */
	char		*app_id;	/* Flatpak or Snap; NULL: none */
	char		*token;		/* mcpd-http's token; NULL: none */
	unsigned int	 flags;		/* IDENT_* */
};

struct log_field;

#define IDENT_LOG_FIELDS	4	/* MCPD_APP_EXE, _UNIT, _ID, MCPD_TOKEN */

/*
 * At accept: who the peer on fd is, by SO_PEERCRED's pid and uid, read
 * through a pidfd (SO_PEERPIDFD, else pidfd_open, else the pid alone
 * with IDENT_PID_RACE) that is checked to be alive after every read.
 * When the peer is mcpctl, *bridge_app is the app above it (its parent,
 * past the wrappers of identp_wrapper), read the same way and at the
 * same time, for ident_bridge; else NULL.  Never NULL itself.
 */
struct ident	*ident_accept(int fd, pid_t, uid_t,
		    struct ident **bridge_app);
/*
 * The connection (serial) attached as mcpctl connect: *id becomes the
 * app ident_accept found above it, if it is mcpctl (else it stays the
 * app itself: a program that asks as a bridge does is not one).
 */
void		 ident_bridge(struct ident **id, struct ident **bridge_app,
		    uint64_t serial);
void		 ident_free(struct ident *);
/* Its JSON for status: pid, exe (escaped), unit, app_id, token, flags. */
cJSON		*ident_json(const struct ident *);
/*
 * Its journal fields (IDENT_LOG_FIELDS of them), the exe escaped into
 * *exe (to be freed); a field without a value is NULL, which log_event
 * leaves out.
 */
void		 ident_log_fields(const struct ident *,
		    struct log_field *f, char **exe);

/*
 * What reading a process takes, for insider.c: the peer on fd held by a
 * pidfd (SO_PEERPIDFD, else pidfd_open; -1 when neither can), whether
 * the pidfd's process is still alive (-1: assumed so), a /proc/PID file
 * whole up to IDENTP_TEXT_MAX_BYTES (NULL with errno).
 */
int		 ident_peer_pidfd(int fd, pid_t);
int		 ident_alive(int pidfd);
char		*ident_read_pid(pid_t, const char *what, size_t *len);

/*
 * ident_http.c: the identity of an HTTP client, "token NAME", claimed by
 * the connection (fd, its SO_PEERCRED pid and uid) in mcpd/attach's
 * "http_token".  Taken only from mcpd's own running mcpd-http (its pid,
 * held by the peer's pidfd, and mcpd's uid): NULL and why (malloc'd)
 * from any other peer.
 */
struct mcpd;
struct ident	*ident_http_claim(const struct mcpd *, int fd, pid_t, uid_t,
		    const char *token, char **why);

#endif /* MCPD_IDENT_H */
