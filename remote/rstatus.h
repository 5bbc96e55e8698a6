/*
 * rstatus.h -- what mcpd-remote tells mcpd about itself: one JSON object
 * per line on the descriptor named by MCPD_REMOTE_STATUS_FD, nothing when
 * the program runs on its own.  Every line has "v" (the format version,
 * MCPD_STATUS_VERSION in src/proto.h, the one mcpd reads) and "event":
 *
 *   {"v":1,"event":"transport","transport":"http"|"sse"}
 *   {"v":1,"event":"session","state":"established"|"lost"|"recovered"|
 *        "closed","protocol":"2025-11-25"}          (protocol when known)
 *   {"v":1,"event":"resume","stream":"get"|"post"}  an SSE stream resumed
 *   {"v":1,"event":"http","status":404,"method":"POST"}   a failed request
 *   {"v":1,"event":"http_counts","counts":{"200":12,"404":1}}  cumulative,
 *        at most once a second while they change
 *   {"v":1,"event":"auth","state":"ok"|"failed"|"needs-login",
 *        "reason":"...","expires":1767225600}   (expires: token, wall clock)
 *   {"v":1,"event":"auth","state":"ok","expires":T,"signed_in":true,
 *        "refresh":true}                        a sign-in's token
 *   {"v":1,"event":"auth","state":"step-up","scope":"a b","reason":"..."}
 *        a call needed more scope (HTTP 403 insufficient_scope)
 *
 * A sign-in or sign-out (signin.h) speaks on the same descriptor, and
 * mcpd answers there:
 *   {"v":1,"event":"login-url","url":"https://..."}
 *   {"v":1,"event":"login-done","expires":T,"refresh":true,"scope":"..."}
 *   {"v":1,"event":"login-failed","reason":"..."}
 *   {"v":1,"event":"logout-done","revoked":true,"deleted":true}
 *
 * Never a token, a secret, a header value or a session id.  mcpd ignores
 * events and members it does not know.  With -v (rstatus_verbose) each
 * event is also a line of the log, "session: state=established ...",
 * and each response's status "http: POST 200", whoever listens.
 */
#ifndef MCPD_RSTATUS_H
#define MCPD_RSTATUS_H

#include <time.h>

struct event_base;

void	rstatus_open(struct event_base *, int fd);
/* -v: every event, and every response's status, on stderr too. */
void	rstatus_verbose(void);
void	rstatus_close(void);
void	rstatus_transport(const char *name);
void	rstatus_session(const char *state, const char *protocol);
void	rstatus_resume(const char *stream);
/* A response's status: counted, and sent when it is a failure. */
void	rstatus_http(long status, const char *method);
void	rstatus_auth(const char *state, const char *reason, time_t expires);
void	rstatus_signed_in(time_t expires, int refresh);
void	rstatus_step_up(const char *scope, const char *reason);
/* {"v", "event", and the members of obj (taken over)}. */
struct cJSON;
void	rstatus_emit(const char *event, struct cJSON *members);

#endif /* MCPD_RSTATUS_H */
