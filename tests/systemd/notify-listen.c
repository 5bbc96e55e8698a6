/*
 * notify-listen.c -- a stand-in for systemd's notification socket, for
 * tests/systemd/notify.sh.
 *
 *   notify-listen PATH
 *
 * Binds an AF_UNIX datagram socket at PATH (give it to a daemon as
 * $NOTIFY_SOCKET) and prints every datagram it receives as one line:
 *
 *   MONOTONIC_MS SENDER_PID ASSIGNMENT[<TAB>ASSIGNMENT...]
 *
 * MONOTONIC_MS is CLOCK_MONOTONIC when the datagram was read, in
 * milliseconds with three decimals.  SENDER_PID comes from the kernel
 * (SO_PASSCRED), whatever the sender claims, so a test can tell the
 * daemon's notifications from a child's; 0 if unknown.  The datagram's
 * newline-separated assignments ("READY=1\nSTATUS=...") are joined by tabs;
 * tabs, other control bytes and backslashes inside them are written as
 * \xHH, so one datagram is always one line.  File descriptors sent along
 * (FDSTORE=1) are closed.  Each line is flushed at once.
 *
 * The socket exists when bind(2) returns, so a caller may wait for PATH
 * to appear.  SIGTERM, SIGINT and SIGHUP remove PATH and end the program
 * with status 0; errors end it with status 1.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOTIFY_LISTEN_DGRAM_MAX	65536
#define NOTIFY_LISTEN_FDS_MAX	64

static volatile sig_atomic_t	notify_listen_quit;

static void
notify_listen_signal(int sig)
{
	notify_listen_quit = sig;
}

static double
notify_listen_now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6);
}

static void
notify_listen_print(const unsigned char *buf, size_t len, double at_ms,
    long pid)
{
	size_t	 i;

	/* libsystemd ends some messages with a newline: drop trailing ones. */
	while (len > 0 && buf[len - 1] == '\n')
		len--;
	printf("%.3f %ld ", at_ms, pid);
	for (i = 0; i < len; i++) {
		if (buf[i] == '\n')
			putchar('\t');
		else if (buf[i] < 0x20 || buf[i] == 0x7f || buf[i] == '\\')
			printf("\\x%02x", buf[i]);
		else
			putchar(buf[i]);
	}
	putchar('\n');
	fflush(stdout);
}

/* Close any descriptors that came with the datagram; return the pid. */
static long
notify_listen_control(struct msghdr *msg)
{
	struct cmsghdr	*cmsg;
	struct ucred	 cred;
	long		 pid = 0;
	size_t		 i, n;
	int		 fd;

	for (cmsg = CMSG_FIRSTHDR(msg); cmsg != NULL;
	    cmsg = CMSG_NXTHDR(msg, cmsg)) {
		if (cmsg->cmsg_level != SOL_SOCKET)
			continue;
		if (cmsg->cmsg_type == SCM_CREDENTIALS &&
		    cmsg->cmsg_len >= CMSG_LEN(sizeof cred)) {
			memcpy(&cred, CMSG_DATA(cmsg), sizeof cred);
			pid = (long)cred.pid;
		} else if (cmsg->cmsg_type == SCM_RIGHTS) {
			n = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof fd;
			for (i = 0; i < n; i++) {
				memcpy(&fd, CMSG_DATA(cmsg) + i * sizeof fd,
				    sizeof fd);
				close(fd);
			}
		}
	}
	return (pid);
}

int
main(int argc, char **argv)
{
	static unsigned char	 buf[NOTIFY_LISTEN_DGRAM_MAX];
	union {
		struct cmsghdr	 align;
		unsigned char	 space[CMSG_SPACE(sizeof(struct ucred)) +
		    CMSG_SPACE(sizeof(int) * NOTIFY_LISTEN_FDS_MAX)];
	} control;
	struct sockaddr_un	 sun;
	struct sigaction	 sa;
	struct iovec		 iov;
	struct msghdr		 msg;
	ssize_t			 n;
	long			 pid;
	int			 fd, one = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: notify-listen PATH\n");
		return (1);
	}
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (strlen(argv[1]) >= sizeof sun.sun_path) {
		fprintf(stderr, "notify-listen: path too long: %s\n", argv[1]);
		return (1);
	}
	strcpy(sun.sun_path, argv[1]);

	/* No SA_RESTART: a signal must interrupt recvmsg(). */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = notify_listen_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1) {
		fprintf(stderr, "notify-listen: socket: %s\n", strerror(errno));
		return (1);
	}
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) != 0) {
		fprintf(stderr, "notify-listen: SO_PASSCRED: %s\n",
		    strerror(errno));
		return (1);
	}
	if (bind(fd, (struct sockaddr *)&sun, sizeof sun) != 0) {
		fprintf(stderr, "notify-listen: bind %s: %s\n", argv[1],
		    strerror(errno));
		return (1);
	}

	while (!notify_listen_quit) {
		memset(&msg, 0, sizeof msg);
		iov.iov_base = buf;
		iov.iov_len = sizeof buf;
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = &control;
		msg.msg_controllen = sizeof control;
		n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "notify-listen: recvmsg: %s\n",
			    strerror(errno));
			unlink(argv[1]);
			return (1);
		}
		pid = notify_listen_control(&msg);
		notify_listen_print(buf, (size_t)n, notify_listen_now_ms(), pid);
	}
	unlink(argv[1]);
	close(fd);
	return (0);
}
