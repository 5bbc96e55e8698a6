/*
 * sbprobe.c -- what a sandboxed process can do, tried one thing at a time
 * (the sandbox tests).  As a command: sbprobe WHAT [ARG], printing "ok"
 * (or what it read) or "error: REASON", exit 0 or 1.  With --mcp, an MCP
 * server on stdin and stdout whose tools are the same probes, each
 * called with {"arg": "..."}.
 *
 *   read PATH          open and read a file
 *   write PATH         create or truncate a file and write to it
 *   tcp PORT           connect to 127.0.0.1:PORT
 *   inet               create an AF_INET socket
 *   unix PATH          connect to a Unix socket at PATH
 *   socketpair         make a socketpair(AF_UNIX)
 *   iouring            io_uring_setup
 *   userns             unshare(CLONE_NEWUSER)
 *   signal PID         kill(PID, SIGCONT)
 *   nnp                print no_new_privs (0 or 1)
 *   listen PORTFILE    listen on 127.0.0.1, an ephemeral port written to
 *                      PORTFILE, answer "hi" to each connection, forever
 *   unix-listen PATH   the same on a Unix socket at PATH
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup	425
#endif

#define PROBE_OUT_MAX	512

static int
probe_fail(char *out, const char *what)
{
	snprintf(out, PROBE_OUT_MAX, "error: %s: %s", what, strerror(errno));
	return (-1);
}

static int
probe_read(const char *path, char *out)
{
	char	 buf[128];
	ssize_t	 n;
	int	 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (probe_fail(out, "open"));
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n < 0)
		return (probe_fail(out, "read"));
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	snprintf(out, PROBE_OUT_MAX, "ok: %s", buf);
	return (0);
}

static int
probe_write(const char *path, char *out)
{
	int	 fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) == -1)
		return (probe_fail(out, "open"));
	if (write(fd, "written\n", 8) != 8) {
		close(fd);
		return (probe_fail(out, "write"));
	}
	close(fd);
	snprintf(out, PROBE_OUT_MAX, "ok");
	return (0);
}

/* 127.0.0.1:port into sin. */
static socklen_t
probe_sin(struct sockaddr_in *sin, const char *port)
{
	memset(sin, 0, sizeof *sin);
	sin->sin_family = AF_INET;
	sin->sin_port = htons((unsigned short)atoi(port));
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return (sizeof *sin);
}

static socklen_t
probe_sun(struct sockaddr_un *sun, const char *path)
{
	memset(sun, 0, sizeof *sun);
	sun->sun_family = AF_UNIX;
	snprintf(sun->sun_path, sizeof sun->sun_path, "%s", path);
	return (sizeof *sun);
}

/* A stream socket of domain, connected to sa unless it is NULL. */
static int
probe_socket(int domain, const struct sockaddr *sa, socklen_t len,
    char *out)
{
	int	 s, rv = 0;

	if ((s = socket(domain, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return (probe_fail(out, "socket"));
	if (sa != NULL && connect(s, sa, len) == -1)
		rv = probe_fail(out, "connect");
	else
		snprintf(out, PROBE_OUT_MAX, "ok");
	close(s);
	return (rv);
}

static int
probe_tcp(const char *port, char *out)
{
	struct sockaddr_in	 sin;
	socklen_t		 len = probe_sin(&sin, port);

	return (probe_socket(AF_INET, (struct sockaddr *)&sin, len, out));
}

static int
probe_unix(const char *path, char *out)
{
	struct sockaddr_un	 sun;
	socklen_t		 len = probe_sun(&sun, path);

	return (probe_socket(AF_UNIX, (struct sockaddr *)&sun, len, out));
}

static int
probe_misc(const char *what, const char *arg, char *out)
{
	unsigned char	 params[120];
	int		 sv[2];
	long		 fd;

	snprintf(out, PROBE_OUT_MAX, "ok");
	if (strcmp(what, "socketpair") == 0) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1)
			return (probe_fail(out, "socketpair"));
		close(sv[0]);
		close(sv[1]);
	} else if (strcmp(what, "iouring") == 0) {
		memset(params, 0, sizeof params);
		if ((fd = syscall(__NR_io_uring_setup, 1, params)) == -1)
			return (probe_fail(out, "io_uring_setup"));
		close((int)fd);
	} else if (strcmp(what, "userns") == 0) {
		if (unshare(CLONE_NEWUSER) == -1)
			return (probe_fail(out, "unshare"));
	} else if (strcmp(what, "signal") == 0) {
		if (kill((pid_t)atol(arg), SIGCONT) == -1)
			return (probe_fail(out, "kill"));
	} else if (strcmp(what, "nnp") == 0)
		snprintf(out, PROBE_OUT_MAX, "ok: %d",
		    prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
	else {
		snprintf(out, PROBE_OUT_MAX, "error: unknown probe %s", what);
		return (-1);
	}
	return (0);
}

static int
probe(const char *what, const char *arg, char *out)
{
	if (strcmp(what, "read") == 0)
		return (probe_read(arg, out));
	if (strcmp(what, "write") == 0)
		return (probe_write(arg, out));
	if (strcmp(what, "tcp") == 0)
		return (probe_tcp(arg, out));
	if (strcmp(what, "inet") == 0)
		return (probe_socket(AF_INET, NULL, 0, out));
	if (strcmp(what, "unix") == 0)
		return (probe_unix(arg, out));
	return (probe_misc(what, arg, out));
}

/* A stream socket of domain bound to sa, listening; exits on failure. */
static int
listen_on(int domain, const struct sockaddr *sa, socklen_t len,
    const char *what)
{
	int	 s;

	if ((s = socket(domain, SOCK_STREAM, 0)) == -1 ||
	    bind(s, sa, len) == -1 || listen(s, 16) == -1) {
		perror(what);
		exit(1);
	}
	return (s);
}

static void __attribute__((noreturn))
serve(int s)
{
	int	 c;

	for (;;) {
		if ((c = accept(s, NULL, NULL)) == -1)
			continue;
		(void)!write(c, "hi\n", 3);
		close(c);
	}
}

static void __attribute__((noreturn))
listen_tcp(const char *portfile)
{
	struct sockaddr_in	 sin;
	socklen_t		 len = probe_sin(&sin, "0");
	FILE			*f;
	int			 s;

	s = listen_on(AF_INET, (struct sockaddr *)&sin, len, "listen");
	if (getsockname(s, (struct sockaddr *)&sin, &len) == -1 ||
	    (f = fopen(portfile, "w")) == NULL) {
		perror(portfile);
		exit(1);
	}
	fprintf(f, "%u\n", ntohs(sin.sin_port));
	fclose(f);
	serve(s);
}

static void __attribute__((noreturn))
listen_unix(const char *path)
{
	struct sockaddr_un	 sun;
	socklen_t		 len = probe_sun(&sun, path);

	serve(listen_on(AF_UNIX, (struct sockaddr *)&sun, len, path));
}

static cJSON *
mcp_tools(void)
{
	static const char *names[] = { "read", "write", "tcp", "inet",
	    "unix", "socketpair", "iouring", "userns", "signal", "nnp" };
	cJSON		*tools = cJSON_CreateArray(), *t, *schema, *props;
	size_t		 i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "name", names[i]);
		cJSON_AddStringToObject(t, "description", "a sandbox probe");
		schema = cJSON_AddObjectToObject(t, "inputSchema");
		cJSON_AddStringToObject(schema, "type", "object");
		props = cJSON_AddObjectToObject(schema, "properties");
		cJSON_AddObjectToObject(props, "arg");
		cJSON_AddStringToObject(cJSON_GetObjectItem(props, "arg"),
		    "type", "string");
		cJSON_AddItemToArray(tools, t);
	}
	return (tools);
}

static cJSON *
mcp_call(const cJSON *params)
{
	const cJSON	*name, *arg;
	cJSON		*result = cJSON_CreateObject(), *content, *text;
	char		 out[PROBE_OUT_MAX];
	int		 rv;

	name = cJSON_GetObjectItem(params, "name");
	arg = cJSON_GetObjectItem(cJSON_GetObjectItem(params, "arguments"),
	    "arg");
	rv = probe(cJSON_IsString(name) ? name->valuestring : "",
	    cJSON_IsString(arg) ? arg->valuestring : "", out);
	if (rv == -1)
		fprintf(stderr, "sbprobe: %s\n", out);
	content = cJSON_AddArrayToObject(result, "content");
	text = cJSON_CreateObject();
	cJSON_AddStringToObject(text, "type", "text");
	cJSON_AddStringToObject(text, "text", out);
	cJSON_AddItemToArray(content, text);
	cJSON_AddBoolToObject(result, "isError", rv == -1);
	return (result);
}

static cJSON *
mcp_result(const char *method, const cJSON *params)
{
	cJSON	*r;

	if (strcmp(method, "initialize") == 0) {
		r = cJSON_CreateObject();
		cJSON_AddStringToObject(r, "protocolVersion", "2025-06-18");
		cJSON_AddObjectToObject(cJSON_AddObjectToObject(r,
		    "capabilities"), "tools");
		cJSON_AddStringToObject(cJSON_AddObjectToObject(r,
		    "serverInfo"), "name", "sbprobe");
		cJSON_AddStringToObject(cJSON_GetObjectItem(r, "serverInfo"),
		    "version", "1");
		return (r);
	}
	if (strcmp(method, "tools/list") == 0) {
		r = cJSON_CreateObject();
		cJSON_AddItemToObject(r, "tools", mcp_tools());
		return (r);
	}
	if (strcmp(method, "tools/call") == 0)
		return (mcp_call(params));
	return (cJSON_CreateObject());
}

static int
mcp(void)
{
	char	*line = NULL, *text;
	size_t	 cap = 0;
	cJSON	*msg, *reply, *id, *method;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (getline(&line, &cap, stdin) != -1) {
		if ((msg = cJSON_Parse(line)) == NULL)
			continue;
		id = cJSON_GetObjectItem(msg, "id");
		method = cJSON_GetObjectItem(msg, "method");
		if (id != NULL && cJSON_IsString(method)) {
			reply = cJSON_CreateObject();
			cJSON_AddStringToObject(reply, "jsonrpc", "2.0");
			cJSON_AddItemToObject(reply, "id",
			    cJSON_Duplicate(id, 1));
			cJSON_AddItemToObject(reply, "result",
			    mcp_result(method->valuestring,
			    cJSON_GetObjectItem(msg, "params")));
			text = cJSON_PrintUnformatted(reply);
			printf("%s\n", text);
			free(text);
			cJSON_Delete(reply);
		}
		cJSON_Delete(msg);
	}
	free(line);
	return (0);
}

int
main(int argc, char *argv[])
{
	char	 out[PROBE_OUT_MAX];
	int	 rv;

	if (argc >= 2 && strcmp(argv[1], "--mcp") == 0)
		return (mcp());
	if (argc >= 3 && strcmp(argv[1], "listen") == 0)
		listen_tcp(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "unix-listen") == 0)
		listen_unix(argv[2]);
	if (argc < 2) {
		fprintf(stderr, "usage: sbprobe WHAT [ARG] | --mcp\n");
		return (2);
	}
	rv = probe(argv[1], argc >= 3 ? argv[2] : "", out);
	printf("%s\n", out);
	return (rv == 0 ? 0 : 1);
}
