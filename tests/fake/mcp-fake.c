/*
 * mcp-fake.c -- a small MCP server for the offline demo and the tests.
 *
 * Speaks newline-delimited JSON-RPC 2.0 on stdin and stdout (MCP 2025-11-25,
 * also answering 2025-06-18, 2025-03-26 and 2024-11-05). It offers the tools
 * echo, add, sleep, big, fail, crash and stderr, the resources fake://hello
 * and fake://status, and no prompts. Flags inject the faults a supervisor
 * has to survive; they combine freely:
 *
 *   --crash-at-start[=CODE]    exit CODE (3) before reading anything
 *   --exit-after-init[=CODE]   exit CODE (3) after replying to initialize
 *   --exit-after-ms=N          exit 0 once N ms have passed since start
 *   --no-init-reply            reply neither to initialize nor after it
 *   --ignore-sigterm           ignore SIGTERM, stay alive after stdin EOF
 *   --ignore-stdin-eof         stay alive after stdin EOF
 *   --grandchild=FILE          fork a sleeper in our process group and
 *                              write its pid to FILE
 *   --escapee=FILE             fork a sleeper that leaves our session
 *                              (setsid) and append its pid to FILE
 *   --pidfile=FILE             write our pid to FILE
 *   --startlog=FILE            append "PID MONOTONIC_MS" to FILE
 *   --garbage                  write three bad lines before every reply
 *   --flood-no-newline=BYTES   after the initialize reply, write BYTES 'x'
 *                              then one newline
 *   --close-stdout-after-init  close fd 1 after the initialize reply
 *   --close-stdin-after-init   close fd 0 after the initialize reply
 *   --flood-requests=N         after the initialize reply, write N
 *                              requests (--flood-method, "ping") and
 *                              never read stdin again
 *   --flood-method=NAME        the method of those requests
 *   --hang-after-init          answer initialize, then nothing more (yet
 *                              keep reading stdin)
 *   --tools-page=N             tools/list in pages of N tools, the cursor
 *                              being the index of the next one
 *   --extra-tools=N            offer N more tools, tool-1 ... tool-N, each
 *                              with a description of some 300 bytes
 *   --tool=NAME                offer one more tool named NAME (any bytes;
 *                              given up to 16 times): a call writes
 *                              "called NAME" to stderr and answers it
 *   --tools-file=FILE          offer the tools of FILE too: a JSON array
 *                              of whole tool definitions, read at start
 *                              (a call writes "called NAME" as --tool's)
 *   --slow-ms=N                take N ms over each request, and read
 *                              stdin 4 KiB at a time (a slow reader)
 *   --split-ms=N               write each message in two halves, N ms
 *                              apart (a half line waits in the pipe)
 *   --progress-pad=BYTES       sleep's progress messages BYTES longer
 *                              (a server that floods a slow client)
 *   --hang-closing-stdin       on a sleep call: close fd 0 and hang,
 *                              never replying
 *   --stderr-noise=N           write N lines "noise line K" to stderr
 *   --stderr-hex=HEX           write the bytes HEX spells to stderr
 *   --server-name=TEXT         serverInfo.name in the initialize reply
 *   --protocol-version=TEXT    protocolVersion in the initialize reply
 *   --file-resources           serve file: URIs: list the templates
 *                              file:///{+path} and file:///etc/{name},
 *                              and read the files they name, as a naive
 *                              server does (the path decoded, host
 *                              localhost or none)
 *   --request-log=FILE         append "METHOD PARAMS" to FILE for each
 *                              request (params as compact JSON)
 *   --init-first[=CODE]        exit CODE (3) if the first request is not
 *                              initialize (a server that cannot take
 *                              server/discover before it)
 *   --ignore-discover          never answer server/discover
 *   --help                     list the flags
 *
 * completion/complete is answered with one value, "mcp-fake", whatever
 * its ref names.
 *
 * Invariants: every outgoing message is handed to write(2) whole as soon as
 * it is made, so nothing waits in a buffer; a reply carries the request id
 * byte for byte as it was received; nothing read from stdin is fatal.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#define FAKE_NAME		"mcp-fake"
#define FAKE_VERSION		"1.0.0"
#define FAKE_LATEST_PROTOCOL	"2025-11-25"
#define FAKE_INSTRUCTIONS	"mcp-fake is a test server: try the echo, " \
				"add, sleep and big tools, or read " \
				"fake://hello."
#define FAKE_CAPABILITIES	"{\"tools\":{\"listChanged\":true}," \
				"\"resources\":{\"subscribe\":true," \
				"\"listChanged\":true},\"logging\":{}," \
				"\"prompts\":{}}"

#define FAKE_EXIT_CODE_DEFAULT	3
#define CRASH_CODE_DEFAULT	1
#define EXIT_CODE_MAX		255

#define FAKE_FILE_MAX_BYTES	65536	/* of a file read (--file-resources) */

#define INPUT_READ_BYTES	65536
#define INPUT_KEEP_BYTES	(1024 * 1024)
#define OUTPUT_CHUNK_BYTES	(1024 * 1024)

#define SLEEP_SLICE_MS		100
#define SLEEP_MAX_MS		(24LL * 60 * 60 * 1000)
#define BIG_MAX_BYTES		(1024LL * 1024 * 1024)
#define FLOOD_MAX_BYTES		(1LL << 40)
#define STDERR_MAX_LINES	10000000LL
#define FLOOD_MAX_REQUESTS	100000000LL
#define EXIT_AFTER_MAX_MS	(24LL * 60 * 60 * 1000)
#define EXTRA_TOOLS_MAX		100000
#define NAMED_TOOLS_MAX		16
#define EXTRA_TOOL_DESC_BYTES	300

#define RPC_PARSE_ERROR		(-32700)
#define RPC_INVALID_REQUEST	(-32600)
#define RPC_METHOD_NOT_FOUND	(-32601)
#define RPC_INVALID_PARAMS	(-32602)
#define RPC_INTERNAL_ERROR	(-32603)
#define RPC_RESOURCE_NOT_FOUND	(-32002)

/* One message read from stdin. */
struct fake_msg {
	cJSON			*json;		/* NULL: not JSON */
	char			*id_text;	/* "id" as received, or NULL */
	char			*token_text;	/* progressToken as received */
	TAILQ_ENTRY(fake_msg)	 entry;
};
TAILQ_HEAD(fake_msgs, fake_msg);

/* Line reader over fd 0; lines may be any length. */
struct fake_input {
	char		*buf;
	size_t		 size;
	size_t		 start;		/* first byte not yet handed out */
	size_t		 end;		/* bytes held */
	size_t		 scanned;	/* [start, scanned) has no newline */
	size_t		 read_max;	/* per read(2); 0: all there is room for */
	int		 eof;
};

struct fake {
	/* Flags. A code or count of -1 means the flag was not given. */
	int		 crash_at_start_code;
	int		 exit_after_init_code;
	long long	 exit_after_ms;
	int		 no_init_reply;
	int		 ignore_sigterm;
	int		 ignore_stdin_eof;
	const char	*grandchild_file;
	const char	*escapee_file;
	const char	*pidfile;
	const char	*startlog;
	int		 garbage;
	long long	 flood_bytes;
	long long	 flood_requests;
	int		 hang_after_init;
	long		 tools_page;		/* tools per page; 0: one page */
	long long	 extra_tools;		/* tool-1 ... tool-N */
	const char	*named_tools[NAMED_TOOLS_MAX];
	size_t		 nnamed_tools;
	cJSON		*file_tools;		/* --tools-file: an array */
	long long	 slow_ms;
	long long	 split_ms;	/* between a message's two halves */
	long long	 progress_pad;	/* bytes added to progress messages */
	const char	*flood_method;
	int		 close_stdout_after_init;
	int		 close_stdin_after_init;
	int		 hang_closing_stdin;
	long long	 stderr_noise;
	const char	*stderr_hex;
	const char	*server_name;
	const char	*protocol_version;
	int		 file_resources;
	const char	*request_log;
	int		 init_first_code;	/* -1: any first request */
	int		 ignore_discover;

	/* State. */
	struct fake_input in;
	struct fake_msgs queue;		/* sleeps that arrived during a sleep */
	struct fake_msg	*sleeping;	/* the sleep in progress */
	int		 sleep_cancelled;
	int		 initialized;	/* notifications/initialized seen */
	int		 hung;		/* --no-init-reply took effect */
	int		 stdout_closed;
	char		 protocol[16];
	long long	 requests;
	long long	 initializes;	/* initialize requests answered */
};

struct fake_method {
	const char	*name;
	void		 (*fn)(struct fake *, struct fake_msg *, cJSON *);
};

struct fake_tool {
	const char	*name;
	const char	*description;
	const char	*schema;	/* inputSchema as JSON text */
	void		 (*fn)(struct fake *, struct fake_msg *, cJSON *);
};

struct fake_resource {
	const char	*uri;
	const char	*name;
	const char	*description;
	const char	*mime_type;
};

static void	fake_tool_echo(struct fake *, struct fake_msg *, cJSON *);
static void	fake_tool_add(struct fake *, struct fake_msg *, cJSON *);
static void	fake_tool_sleep(struct fake *, struct fake_msg *, cJSON *);
static void	fake_tool_big(struct fake *, struct fake_msg *, cJSON *);
static void	fake_tool_fail(struct fake *, struct fake_msg *, cJSON *);
static void	fake_tool_crash(struct fake *, struct fake_msg *, cJSON *);
static void	fake_tool_stderr(struct fake *, struct fake_msg *, cJSON *);

static void	fake_initialize(struct fake *, struct fake_msg *, cJSON *);
static void	fake_empty(struct fake *, struct fake_msg *, cJSON *);
static void	fake_tools_list(struct fake *, struct fake_msg *, cJSON *);
static void	fake_tools_call(struct fake *, struct fake_msg *, cJSON *);
static void	fake_resources_list(struct fake *, struct fake_msg *, cJSON *);
static void	fake_templates_list(struct fake *, struct fake_msg *, cJSON *);
static void	fake_resources_read(struct fake *, struct fake_msg *, cJSON *);
static void	fake_subscribe(struct fake *, struct fake_msg *, cJSON *);
static void	fake_set_level(struct fake *, struct fake_msg *, cJSON *);
static void	fake_prompts_list(struct fake *, struct fake_msg *, cJSON *);
static void	fake_prompts_get(struct fake *, struct fake_msg *, cJSON *);
static void	fake_complete(struct fake *, struct fake_msg *, cJSON *);

static void	fake_dispatch(struct fake *, struct fake_msg *);
static void	fake_tool_error(struct fake *, struct fake_msg *, const char *,
		    ...) __attribute__((format(printf, 3, 4)));

static const char *fake_protocols[] = {
	"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"
};

static const char *fake_log_levels[] = {
	"debug", "info", "notice", "warning", "error", "critical", "alert",
	"emergency"
};

static const struct fake_method fake_methods[] = {
	{ "initialize", fake_initialize },
	{ "ping", fake_empty },
	{ "tools/list", fake_tools_list },
	{ "tools/call", fake_tools_call },
	{ "resources/list", fake_resources_list },
	{ "resources/templates/list", fake_templates_list },
	{ "resources/read", fake_resources_read },
	{ "resources/subscribe", fake_subscribe },
	{ "resources/unsubscribe", fake_subscribe },
	{ "logging/setLevel", fake_set_level },
	{ "prompts/list", fake_prompts_list },
	{ "prompts/get", fake_prompts_get },
	{ "completion/complete", fake_complete },
};

static const struct fake_tool fake_tools[] = {
	{ "echo", "Return the given text unchanged.",
	  "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\","
	  "\"description\":\"Text to send back\"}},\"required\":[\"text\"]}",
	  fake_tool_echo },
	{ "add", "Add two numbers and return the sum as text.",
	  "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"},"
	  "\"b\":{\"type\":\"number\"}},\"required\":[\"a\",\"b\"]}",
	  fake_tool_add },
	{ "sleep", "Sleep for ms milliseconds, reporting progress every "
	  "100 ms; can be cancelled.",
	  "{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\","
	  "\"minimum\":0,\"maximum\":86400000,"
	  "\"description\":\"How long to sleep\"}},\"required\":[\"ms\"]}",
	  fake_tool_sleep },
	{ "big", "Return a text of the given number of 'x' bytes.",
	  "{\"type\":\"object\",\"properties\":{\"bytes\":{"
	  "\"type\":\"integer\","
	  "\"minimum\":0,\"maximum\":1073741824,"
	  "\"description\":\"Length of the text\"}},\"required\":[\"bytes\"]}",
	  fake_tool_big },
	{ "fail", "Answer with a JSON-RPC internal error (-32603).",
	  "{\"type\":\"object\",\"properties\":{}}",
	  fake_tool_fail },
	{ "crash", "Exit the server at once with the given code, without "
	  "replying.",
	  "{\"type\":\"object\",\"properties\":{\"code\":{\"type\":\"integer\","
	  "\"minimum\":0,\"maximum\":255,\"default\":1,"
	  "\"description\":\"Exit status\"}}}",
	  fake_tool_crash },
	{ "stderr", "Write the given number of lines to the server's stderr.",
	  "{\"type\":\"object\",\"properties\":{\"lines\":{"
	  "\"type\":\"integer\","
	  "\"minimum\":0,\"maximum\":10000000,"
	  "\"description\":\"How many lines\"}},\"required\":[\"lines\"]}",
	  fake_tool_stderr },
};

static const struct fake_resource fake_resources[] = {
	{ "fake://hello", "hello", "A fixed greeting.", "text/plain" },
	{ "fake://status", "status", "The server's pid and counters.",
	  "application/json" },
};

#define FAKE_USAGE \
"usage: mcp-fake [flags]\n" \
"A small MCP server on stdin/stdout, with fault injection.\n" \
"  --crash-at-start[=CODE]    exit CODE (3) before reading stdin\n" \
"  --exit-after-init[=CODE]   exit CODE (3) after the initialize reply\n" \
"  --exit-after-ms=N          exit 0 when N ms have passed since start\n" \
"  --no-init-reply            never reply to initialize, nor after it\n" \
"  --ignore-sigterm           ignore SIGTERM; keep running after stdin EOF\n" \
"  --ignore-stdin-eof         keep running after stdin EOF\n" \
"  --grandchild=FILE          fork a sleeping grandchild, its pid to FILE\n" \
"  --escapee=FILE             fork a sleeper in a new session, append its\n" \
"                             pid to FILE\n" \
"  --pidfile=FILE             write our pid to FILE\n" \
"  --startlog=FILE            append \"PID MONOTONIC_MS\" to FILE at start\n" \
"  --garbage                  write three bad lines before each reply\n" \
"  --flood-no-newline=BYTES   after the init reply: BYTES 'x', then \\n\n" \
"  --close-stdout-after-init  close stdout after the initialize reply\n" \
"  --close-stdin-after-init   close stdin after the initialize reply\n" \
"  --flood-requests=N         after the init reply: N requests, then hang\n" \
"  --flood-method=NAME        their method (ping)\n" \
"  --hang-after-init          answer initialize, then nothing more\n" \
"  --tools-page=N             tools/list in pages of N tools (cursors)\n" \
"  --extra-tools=N            offer N more tools, tool-1 ... tool-N\n" \
"  --tool=NAME                offer a tool named NAME (up to 16 times)\n" \
"  --tools-file=FILE          offer the tools FILE defines (a JSON array)\n" \
"  --slow-ms=N                N ms per request; read stdin 4 KiB at a time\n" \
"  --split-ms=N               write each message in two halves, N ms apart\n" \
"  --progress-pad=BYTES       sleep's progress messages BYTES longer\n" \
"  --hang-closing-stdin       on a sleep call: close stdin, hang, no reply\n" \
"  --stderr-noise=N           write N lines \"noise line K\" to stderr\n" \
"  --stderr-hex=HEX           write the bytes HEX spells to stderr at start\n" \
"  --server-name=TEXT         serverInfo.name in the initialize reply\n" \
"  --protocol-version=TEXT    protocolVersion in the initialize reply\n" \
"  --file-resources           serve file: URIs (templates, reads)\n" \
"  --request-log=FILE         append each request's method and params\n" \
"  --init-first[=CODE]        exit CODE (3) if the first request is not\n" \
"                             initialize\n" \
"  --ignore-discover          never answer server/discover\n" \
"  --help                     show this list\n" \
"Tools: echo {text}, add {a,b}, sleep {ms}, big {bytes}, fail {},\n" \
"crash {code}, stderr {lines}. Resources: fake://hello, fake://status.\n"

static void __attribute__((noreturn))
fake_fatal(const char *what)
{
	fprintf(stderr, FAKE_NAME ": %s: %s\n", what, strerror(errno));
	exit(1);
}

static void * __attribute__((malloc))
fake_malloc(size_t size)
{
	void	*p;

	if ((p = malloc(size == 0 ? 1 : size)) == NULL) {
		fprintf(stderr, FAKE_NAME ": out of memory allocating %zu "
		    "bytes\n", size);
		abort();
	}
	return (p);
}

static void *
fake_realloc(void *old, size_t size)
{
	void	*p;

	if ((p = realloc(old, size == 0 ? 1 : size)) == NULL) {
		fprintf(stderr, FAKE_NAME ": out of memory allocating %zu "
		    "bytes\n", size);
		abort();
	}
	return (p);
}

static char *
fake_strndup(const char *s, size_t len)
{
	char	*p;

	p = fake_malloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return (p);
}

static long long
fake_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

static void __attribute__((noreturn))
fake_usage(FILE *fp, int status)
{
	fputs(FAKE_USAGE, fp);
	exit(status);
}

static long long
fake_flag_number(const char *flag, const char *text, long long min,
    long long max)
{
	char		*end;
	long long	 value;

	errno = 0;
	value = strtoll(text, &end, 10);
	if (*text == '\0' || *end != '\0' || errno != 0 || value < min ||
	    value > max) {
		fprintf(stderr, FAKE_NAME ": --%s: want a number from %lld to "
		    "%lld, not \"%s\"\n", flag, min, max, text);
		fake_usage(stderr, 2);
	}
	return (value);
}

/*
 * Write a whole file under a temporary name and rename it into place, so a
 * test polling for FILE never reads half of it.
 */
static void
fake_write_file(const char *path, const char *text)
{
	char	*tmp;
	size_t	 len = strlen(text);
	int	 fd;

	if (asprintf(&tmp, "%s.%ld.tmp", path, (long)getpid()) == -1)
		fake_fatal("asprintf");
	fd = open(tmp, O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644);
	if (fd == -1)
		fake_fatal(tmp);
	if (write(fd, text, len) != (ssize_t)len)
		fake_fatal(tmp);
	if (close(fd) == -1)
		fake_fatal(tmp);
	if (rename(tmp, path) == -1)
		fake_fatal(path);
	free(tmp);
}

static void
fake_write_startlog(const char *path)
{
	char	line[64];
	int	fd, len;

	len = snprintf(line, sizeof line, "%ld %lld\n", (long)getpid(),
	    fake_now_ms());
	fd = open(path, O_WRONLY|O_CREAT|O_APPEND|O_CLOEXEC, 0644);
	if (fd == -1)
		fake_fatal(path);
	if (write(fd, line, len) != len)
		fake_fatal(path);
	close(fd);
}

/* The grandchild keeps stderr so that it also holds that pipe open. */
static void
fake_spawn_grandchild(const char *path)
{
	char	text[32];
	pid_t	pid;
	int	fd;

	switch (pid = fork()) {
	case -1:
		fake_fatal("fork");
	case 0:
		signal(SIGPIPE, SIG_DFL);
		if ((fd = open("/dev/null", O_RDWR)) == -1)
			_exit(1);
		if (dup2(fd, STDIN_FILENO) == -1 ||
		    dup2(fd, STDOUT_FILENO) == -1)
			_exit(1);
		if (fd > STDERR_FILENO)
			close(fd);
		for (;;)
			pause();
	}
	snprintf(text, sizeof text, "%ld\n", (long)pid);
	fake_write_file(path, text);
}

/*
 * A child that escapes the process group the way daemons do: setsid(),
 * every standard descriptor on /dev/null.  Its pid is appended, one line
 * per start, so a test can count the ones left over from earlier starts.
 */
static void
fake_spawn_escapee(const char *path)
{
	char	text[32];
	pid_t	pid;
	int	fd, len;

	switch (pid = fork()) {
	case -1:
		fake_fatal("fork");
	case 0:
		signal(SIGPIPE, SIG_DFL);
		if (setsid() == -1)
			_exit(1);
		if ((fd = open("/dev/null", O_RDWR)) == -1)
			_exit(1);
		if (dup2(fd, STDIN_FILENO) == -1 ||
		    dup2(fd, STDOUT_FILENO) == -1 ||
		    dup2(fd, STDERR_FILENO) == -1)
			_exit(1);
		if (fd > STDERR_FILENO)
			close(fd);
		for (;;)
			pause();
	}
	len = snprintf(text, sizeof text, "%ld\n", (long)pid);
	fd = open(path, O_WRONLY|O_CREAT|O_APPEND|O_CLOEXEC, 0644);
	if (fd == -1)
		fake_fatal(path);
	if (write(fd, text, len) != len)
		fake_fatal(path);
	close(fd);
}

static void
fake_alarm_cb(int sig)
{
	_exit(0);
}

static void
fake_start_exit_timer(long long ms)
{
	struct sigaction	sa;
	struct itimerval	itv;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fake_alarm_cb;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) == -1)
		fake_fatal("sigaction");
	memset(&itv, 0, sizeof itv);
	itv.it_value.tv_sec = ms / 1000;
	itv.it_value.tv_usec = (ms % 1000) * 1000;
	if (setitimer(ITIMER_REAL, &itv, NULL) == -1)
		fake_fatal("setitimer");
}

/* Output. Failures are not fatal: the reader may be gone on purpose. */

static int
fake_write_all(struct fake *f, const char *buf, size_t len)
{
	struct pollfd	pfd;
	ssize_t		n;

	if (f->stdout_closed)
		return (-1);
	while (len > 0) {
		n = write(STDOUT_FILENO, buf, len);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				pfd.fd = STDOUT_FILENO;
				pfd.events = POLLOUT;
				poll(&pfd, 1, -1);
				continue;
			}
			return (-1);
		}
		buf += n;
		len -= n;
	}
	return (0);
}

static int
fake_write_x(struct fake *f, unsigned long long count)
{
	static char	 chunk[OUTPUT_CHUNK_BYTES];
	size_t		 n;

	if (chunk[0] != 'x')
		memset(chunk, 'x', sizeof chunk);
	while (count > 0) {
		n = count < sizeof chunk ? count : sizeof chunk;
		if (fake_write_all(f, chunk, n) == -1)
			return (-1);
		count -= n;
	}
	return (0);
}

static void
fake_send(struct fake *f, cJSON *msg)
{
	char	*text;
	size_t	 len;

	if ((text = cJSON_PrintUnformatted(msg)) == NULL)
		return;
	len = strlen(text);
	text = fake_realloc(text, len + 2);
	text[len++] = '\n';
	text[len] = '\0';
	if (f->split_ms > 0 && len > 1) {
		if (fake_write_all(f, text, len / 2) == 0) {
			usleep((useconds_t)f->split_ms * 1000);
			fake_write_all(f, text + len / 2, len - len / 2);
		}
	} else
		fake_write_all(f, text, len);
	free(text);
}

static void
fake_garbage(struct fake *f)
{
	static const char	garbage[] =
	    "this is not json\n"
	    "[1,2,3]\n"
	    "bad utf-8 \xc3\x28 \xff\xfe here\n";

	if (f->garbage)
		fake_write_all(f, garbage, sizeof garbage - 1);
}

static cJSON *
fake_envelope(const char *id_text)
{
	cJSON	*msg;

	msg = cJSON_CreateObject();
	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	if (id_text == NULL)
		cJSON_AddNullToObject(msg, "id");
	else
		cJSON_AddItemToObject(msg, "id", cJSON_CreateRaw(id_text));
	return (msg);
}

/* Send a result; takes result. */
static void
fake_reply(struct fake *f, struct fake_msg *m, cJSON *result)
{
	cJSON	*msg;

	if (f->hung) {
		cJSON_Delete(result);
		return;
	}
	msg = fake_envelope(m->id_text);
	cJSON_AddItemToObject(msg, "result", result);
	fake_garbage(f);
	fake_send(f, msg);
	cJSON_Delete(msg);
}

/* Send an error; takes data, which may be NULL. */
static void
fake_error(struct fake *f, const char *id_text, int code, const char *message,
    cJSON *data)
{
	cJSON	*msg, *error;

	if (f->hung) {
		cJSON_Delete(data);
		return;
	}
	msg = fake_envelope(id_text);
	error = cJSON_AddObjectToObject(msg, "error");
	cJSON_AddNumberToObject(error, "code", code);
	cJSON_AddStringToObject(error, "message", message);
	if (data != NULL)
		cJSON_AddItemToObject(error, "data", data);
	fake_garbage(f);
	fake_send(f, msg);
	cJSON_Delete(msg);
}

static cJSON *
fake_text_result(const char *text, int is_error)
{
	cJSON	*result, *content, *item;

	result = cJSON_CreateObject();
	content = cJSON_AddArrayToObject(result, "content");
	item = cJSON_CreateObject();
	cJSON_AddStringToObject(item, "type", "text");
	cJSON_AddStringToObject(item, "text", text);
	cJSON_AddItemToArray(content, item);
	if (is_error)
		cJSON_AddTrueToObject(result, "isError");
	return (result);
}

/* Bad tool arguments are a tool result with isError, not a protocol error. */
static void
fake_tool_error(struct fake *f, struct fake_msg *m, const char *fmt, ...)
{
	char	text[512];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	fake_reply(f, m, fake_text_result(text, 1));
}

static void
fake_progress(struct fake *f, const char *token_text, long long done,
    long long total)
{
	cJSON	*msg, *params;
	char	 text[96], *padded;
	size_t	 len;

	msg = cJSON_CreateObject();
	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	cJSON_AddStringToObject(msg, "method", "notifications/progress");
	params = cJSON_AddObjectToObject(msg, "params");
	cJSON_AddItemToObject(params, "progressToken",
	    cJSON_CreateRaw(token_text));
	cJSON_AddNumberToObject(params, "progress", (double)done);
	cJSON_AddNumberToObject(params, "total", (double)total);
	snprintf(text, sizeof text, "slept %lld of %lld ms", done, total);
	len = strlen(text);
	padded = fake_malloc(len + (size_t)f->progress_pad + 1);
	memcpy(padded, text, len);
	memset(padded + len, 'x', (size_t)f->progress_pad);
	padded[len + (size_t)f->progress_pad] = '\0';
	cJSON_AddStringToObject(params, "message", padded);
	free(padded);
	fake_send(f, msg);
	cJSON_Delete(msg);
}

/* Input. */

static void
fake_input_init(struct fake_input *in)
{
	memset(in, 0, sizeof *in);
	in->size = 2 * INPUT_READ_BYTES;
	in->buf = fake_malloc(in->size);
}

/* Read once from stdin; returns 0 at end of input. */
static ssize_t
fake_input_fill(struct fake_input *in)
{
	struct pollfd	pfd;
	size_t		size, read_max = in->read_max;
	ssize_t		n;

	if (in->eof)
		return (0);
	if (in->start == in->end && in->size > INPUT_KEEP_BYTES) {
		free(in->buf);
		fake_input_init(in);
		in->read_max = read_max;
	} else if (in->start > 0) {
		memmove(in->buf, in->buf + in->start, in->end - in->start);
		in->end -= in->start;
		in->scanned -= in->start;
		in->start = 0;
	}
	if (in->size - in->end < INPUT_READ_BYTES) {
		size = in->size * 2;
		while (size - in->end < INPUT_READ_BYTES)
			size *= 2;
		in->buf = fake_realloc(in->buf, size);
		in->size = size;
	}
	for (;;) {
		n = read(STDIN_FILENO, in->buf + in->end, in->read_max != 0 &&
		    in->read_max < in->size - in->end ? in->read_max :
		    in->size - in->end);
		if (n > 0) {
			in->end += n;
			return (n);
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			pfd.fd = STDIN_FILENO;
			pfd.events = POLLIN;
			poll(&pfd, 1, -1);
			continue;
		}
		/* A read error ends the input like EOF does. */
		in->eof = 1;
		return (0);
	}
}

/*
 * Return the next complete line, NUL-terminated in place and without its
 * "\n" or "\r\n", or NULL if none is held. At end of input a last line with
 * no newline still counts. Valid until the next fake_input_fill.
 */
static char *
fake_input_line(struct fake_input *in, size_t *len)
{
	char	*line, *nl;

	nl = memchr(in->buf + in->scanned, '\n', in->end - in->scanned);
	if (nl == NULL) {
		in->scanned = in->end;
		if (!in->eof || in->start == in->end)
			return (NULL);
		nl = in->buf + in->end;	/* fill left room for this */
	}
	line = in->buf + in->start;
	*len = nl - line;
	*nl = '\0';
	in->start = nl - in->buf + 1;
	if (in->start > in->end)
		in->start = in->end;
	in->scanned = in->start;
	if (*len > 0 && line[*len - 1] == '\r')
		line[--*len] = '\0';
	return (line);
}

/* Raw JSON scanning over text already known to be valid JSON. */

static const char *
json_skip_space(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return (p);
}

static const char *
json_skip_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return (p + 1);
	}
	return (end);
}

static const char *
json_skip_value(const char *p, const char *end)
{
	int	depth = 0;

	if (p < end && *p == '"')
		return (json_skip_string(p, end));
	if (p < end && (*p == '{' || *p == '[')) {
		while (p < end) {
			if (*p == '"') {
				p = json_skip_string(p, end);
				continue;
			}
			if (*p == '{' || *p == '[')
				depth++;
			else if ((*p == '}' || *p == ']') && --depth == 0)
				return (p + 1);
			p++;
		}
		return (end);
	}
	while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' &&
	    *p != '\t' && *p != '\r' && *p != '\n')
		p++;
	return (p);
}

/* Find the text of the first member called key in the object at p. */
static int
json_member(const char **p, const char **end, const char *key)
{
	const char	*s = *p, *e = *end, *k, *v;
	size_t		 keylen = strlen(key);
	int		 match;

	s = json_skip_space(s, e);
	if (s >= e || *s != '{')
		return (-1);
	s++;
	for (;;) {
		s = json_skip_space(s, e);
		if (s >= e || *s != '"')
			return (-1);
		k = s + 1;
		s = json_skip_string(s, e);
		match = (size_t)(s - 1 - k) == keylen &&
		    memcmp(k, key, keylen) == 0;
		s = json_skip_space(s, e);
		if (s >= e || *s != ':')
			return (-1);
		v = s = json_skip_space(s + 1, e);
		s = json_skip_value(s, e);
		if (match) {
			*p = v;
			*end = s;
			return (0);
		}
		s = json_skip_space(s, e);
		if (s >= e || *s != ',')
			return (-1);
		s++;
	}
}

/*
 * Return the text of item exactly as it appears in line at path, so that it
 * can be sent back byte for byte. Falls back to printing item if the text
 * cannot be found or does not match it (escaped or repeated keys).
 */
static char *
fake_raw_text(const char *line, size_t len, const char **path,
    const cJSON *item)
{
	const char	*p = line, *end = line + len;
	cJSON		*check;
	int		 same;

	for (; *path != NULL; path++) {
		if (json_member(&p, &end, *path) != 0)
			return (cJSON_PrintUnformatted(item));
	}
	check = cJSON_ParseWithLength(p, end - p);
	same = check != NULL && cJSON_Compare(check, item, 1);
	cJSON_Delete(check);
	if (!same)
		return (cJSON_PrintUnformatted(item));
	return (fake_strndup(p, end - p));
}

static int
fake_id_valid(const cJSON *item)
{
	return (cJSON_IsString(item) || cJSON_IsNumber(item));
}

static struct fake_msg *
fake_msg_parse(const char *line, size_t len)
{
	static const char	*id_path[] = { "id", NULL };
	static const char	*token_path[] = {
		"params", "_meta", "progressToken", NULL
	};
	struct fake_msg		*m;
	const char		*end;
	cJSON			*id, *params, *meta, *token;

	m = fake_malloc(sizeof *m);
	memset(m, 0, sizeof *m);
	m->json = cJSON_ParseWithLengthOpts(line, len, &end, 0);
	if (m->json == NULL)
		return (m);
	if (json_skip_space(end, line + len) != line + len) {
		cJSON_Delete(m->json);
		m->json = NULL;
		return (m);
	}
	if (!cJSON_IsObject(m->json))
		return (m);

	id = cJSON_GetObjectItemCaseSensitive(m->json, "id");
	if (fake_id_valid(id))
		m->id_text = fake_raw_text(line, len, id_path, id);

	params = cJSON_GetObjectItemCaseSensitive(m->json, "params");
	meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
	token = cJSON_GetObjectItemCaseSensitive(meta, "progressToken");
	if (cJSON_IsObject(params) && cJSON_IsObject(meta) &&
	    fake_id_valid(token))
		m->token_text = fake_raw_text(line, len, token_path, token);
	return (m);
}

static void
fake_msg_free(struct fake_msg *m)
{
	cJSON_Delete(m->json);
	free(m->id_text);
	free(m->token_text);
	free(m);
}

static const char *
fake_msg_method(const struct fake_msg *m)
{
	cJSON	*method;

	method = cJSON_GetObjectItemCaseSensitive(m->json, "method");
	return (cJSON_IsString(method) ? method->valuestring : NULL);
}

static cJSON *
fake_msg_id(const struct fake_msg *m)
{
	return (cJSON_GetObjectItemCaseSensitive(m->json, "id"));
}

static int
fake_msg_is(const struct fake_msg *m, const char *method)
{
	const char	*name;

	name = fake_msg_method(m);
	return (name != NULL && strcmp(name, method) == 0);
}

static int
fake_msg_is_sleep(const struct fake_msg *m)
{
	cJSON	*params, *name;

	if (m->id_text == NULL || !fake_msg_is(m, "tools/call"))
		return (0);
	params = cJSON_GetObjectItemCaseSensitive(m->json, "params");
	name = cJSON_GetObjectItemCaseSensitive(params, "name");
	return (cJSON_IsString(name) &&
	    strcmp(name->valuestring, "sleep") == 0);
}

/* Tools. */

static int
fake_arg_integer(cJSON *args, const char *name, long long min, long long max,
    long long *value)
{
	cJSON	*item;
	double	 d;

	item = cJSON_GetObjectItemCaseSensitive(args, name);
	if (!cJSON_IsNumber(item))
		return (-1);
	d = item->valuedouble;
	if (!(d >= (double)min && d <= (double)max))
		return (-1);
	if (d != (double)(long long)d)
		return (-1);
	*value = (long long)d;
	return (0);
}

static void
fake_tool_echo(struct fake *f, struct fake_msg *m, cJSON *args)
{
	cJSON	*text;

	text = cJSON_GetObjectItemCaseSensitive(args, "text");
	if (!cJSON_IsString(text)) {
		fake_tool_error(f, m, "echo: \"text\" must be a string");
		return;
	}
	fake_reply(f, m, fake_text_result(text->valuestring, 0));
}

static void
fake_tool_add(struct fake *f, struct fake_msg *m, cJSON *args)
{
	cJSON	*a, *b;
	double	 sum;
	char	 text[64];

	a = cJSON_GetObjectItemCaseSensitive(args, "a");
	b = cJSON_GetObjectItemCaseSensitive(args, "b");
	if (!cJSON_IsNumber(a) || !cJSON_IsNumber(b)) {
		fake_tool_error(f, m, "add: \"a\" and \"b\" must be numbers");
		return;
	}
	sum = a->valuedouble + b->valuedouble;
	snprintf(text, sizeof text, "%.15g", sum);
	if (strtod(text, NULL) != sum)
		snprintf(text, sizeof text, "%.17g", sum);
	fake_reply(f, m, fake_text_result(text, 0));
}

/*
 * A message that arrives while a sleep runs: a cancel for the sleep ends it,
 * a cancel for a queued sleep drops that one, another sleep waits in the
 * queue and anything else is handled at once.
 */
static void
fake_sleep_msg(struct fake *f, struct fake_msg *m)
{
	struct fake_msg	*q, *next;
	cJSON		*params, *request_id;

	if (m->json != NULL && fake_msg_is(m, "notifications/cancelled")) {
		params = cJSON_GetObjectItemCaseSensitive(m->json, "params");
		request_id = cJSON_GetObjectItemCaseSensitive(params,
		    "requestId");
		if (!fake_id_valid(request_id))
			goto done;
		if (cJSON_Compare(request_id, fake_msg_id(f->sleeping), 1)) {
			f->sleep_cancelled = 1;
			goto done;
		}
		for (q = TAILQ_FIRST(&f->queue); q != NULL; q = next) {
			next = TAILQ_NEXT(q, entry);
			if (cJSON_Compare(request_id, fake_msg_id(q), 1)) {
				TAILQ_REMOVE(&f->queue, q, entry);
				fake_msg_free(q);
			}
		}
		goto done;
	}
	if (m->json != NULL && fake_msg_is_sleep(m)) {
		TAILQ_INSERT_TAIL(&f->queue, m, entry);
		return;
	}
	fake_dispatch(f, m);
done:
	fake_msg_free(m);
}

static void
fake_sleep_drain(struct fake *f)
{
	char	*line;
	size_t	 len;

	while (!f->sleep_cancelled &&
	    (line = fake_input_line(&f->in, &len)) != NULL) {
		if (len != 0)
			fake_sleep_msg(f, fake_msg_parse(line, len));
	}
}

/*
 * Sleep in slices, reading stdin meanwhile. Once stdin has ended the sleep
 * still runs to its end and replies, as a busy server would.
 */
static void
fake_tool_sleep(struct fake *f, struct fake_msg *m, cJSON *args)
{
	struct pollfd	 pfd;
	long long	 ms, done, slice, slice_end, now;
	char		 text[64];
	int		 n;

	if (fake_arg_integer(args, "ms", 0, SLEEP_MAX_MS, &ms) != 0) {
		fake_tool_error(f, m, "sleep: \"ms\" must be an integer from "
		    "0 to %lld", SLEEP_MAX_MS);
		return;
	}
	if (f->hang_closing_stdin) {
		close(STDIN_FILENO);
		for (;;)
			pause();
	}
	f->sleeping = m;
	f->sleep_cancelled = 0;
	for (done = 0; done < ms; done += slice) {
		slice = ms - done < SLEEP_SLICE_MS ? ms - done : SLEEP_SLICE_MS;
		slice_end = fake_now_ms() + slice;
		for (;;) {
			fake_sleep_drain(f);
			if (f->sleep_cancelled)
				goto cancelled;
			if ((now = fake_now_ms()) >= slice_end)
				break;
			pfd.fd = STDIN_FILENO;
			pfd.events = POLLIN;
			n = poll(&pfd, f->in.eof ? 0 : 1, slice_end - now);
			if (n == -1 && errno != EINTR)
				fake_fatal("poll");
			if (n > 0)
				fake_input_fill(&f->in);
		}
		if (m->token_text != NULL)
			fake_progress(f, m->token_text, done + slice, ms);
	}
	f->sleeping = NULL;
	snprintf(text, sizeof text, "slept %lld ms", ms);
	fake_reply(f, m, fake_text_result(text, 0));
	return;

cancelled:
	f->sleeping = NULL;
	f->sleep_cancelled = 0;
}

/* Written by hand so the text is streamed and "id" comes last. */
static void
fake_tool_big(struct fake *f, struct fake_msg *m, cJSON *args)
{
	static const char	 head[] =
	    "{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"";
	static const char	 tail[] = "\"}]},\"jsonrpc\":\"2.0\",\"id\":";
	long long		 bytes;

	if (fake_arg_integer(args, "bytes", 0, BIG_MAX_BYTES, &bytes) != 0) {
		fake_tool_error(f, m, "big: \"bytes\" must be an integer from "
		    "0 to %lld", BIG_MAX_BYTES);
		return;
	}
	if (f->hung)
		return;
	fake_garbage(f);
	if (fake_write_all(f, head, sizeof head - 1) == -1 ||
	    fake_write_x(f, bytes) == -1 ||
	    fake_write_all(f, tail, sizeof tail - 1) == -1 ||
	    fake_write_all(f, m->id_text, strlen(m->id_text)) == -1)
		return;
	fake_write_all(f, "}\n", 2);
}

static void
fake_tool_fail(struct fake *f, struct fake_msg *m, cJSON *args)
{
	fake_error(f, m->id_text, RPC_INTERNAL_ERROR,
	    "Internal error: the fail tool always fails", NULL);
}

static void
fake_tool_crash(struct fake *f, struct fake_msg *m, cJSON *args)
{
	long long	code = CRASH_CODE_DEFAULT;

	if (cJSON_GetObjectItemCaseSensitive(args, "code") != NULL &&
	    fake_arg_integer(args, "code", 0, EXIT_CODE_MAX, &code) != 0) {
		fake_tool_error(f, m, "crash: \"code\" must be an integer "
		    "from 0 to %d", EXIT_CODE_MAX);
		return;
	}
	_exit((int)code);
}

static void
fake_tool_stderr(struct fake *f, struct fake_msg *m, cJSON *args)
{
	long long	lines, i;
	char		text[64];

	if (fake_arg_integer(args, "lines", 0, STDERR_MAX_LINES, &lines) != 0) {
		fake_tool_error(f, m, "stderr: \"lines\" must be an integer "
		    "from 0 to %lld", STDERR_MAX_LINES);
		return;
	}
	for (i = 1; i <= lines; i++)
		fprintf(stderr, FAKE_NAME ": stderr line %lld of %lld\n", i,
		    lines);
	snprintf(text, sizeof text, "wrote %lld lines to stderr", lines);
	fake_reply(f, m, fake_text_result(text, 0));
}

/* Methods. */

/* Requests mcpd must answer itself, written fast; stdin is never read. */
static void
fake_flood_requests(struct fake *f)
{
	char		 buf[65536];
	size_t		 used = 0;
	long long	 i;
	int		 n;

	for (i = 1; i <= f->flood_requests; i++) {
		if (sizeof buf - used < 512) {
			fake_write_all(f, buf, used);
			used = 0;
		}
		n = snprintf(buf + used, sizeof buf - used, "{\"jsonrpc\":"
		    "\"2.0\",\"id\":\"flood-%lld\",\"method\":\"%.200s\"}\n", i,
		    f->flood_method);
		used += (size_t)n;
	}
	fake_write_all(f, buf, used);
	for (;;)
		pause();
}

static void
fake_flood(struct fake *f)
{
	if (fake_write_x(f, f->flood_bytes) == 0)
		fake_write_all(f, "\n", 1);
}

static void
fake_initialize(struct fake *f, struct fake_msg *m, cJSON *params)
{
	cJSON		*result, *info, *requested;
	const char	*version = FAKE_LATEST_PROTOCOL;
	size_t		 i;

	f->initializes++;
	if (f->no_init_reply) {
		f->hung = 1;
		return;
	}
	requested = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
	for (i = 0; i < sizeof fake_protocols / sizeof *fake_protocols; i++) {
		if (cJSON_IsString(requested) &&
		    strcmp(requested->valuestring, fake_protocols[i]) == 0)
			version = fake_protocols[i];
	}
	if (f->protocol_version != NULL)
		version = f->protocol_version;
	snprintf(f->protocol, sizeof f->protocol, "%s", version);

	result = cJSON_CreateObject();
	cJSON_AddStringToObject(result, "protocolVersion", version);
	cJSON_AddItemToObject(result, "capabilities",
	    cJSON_Parse(FAKE_CAPABILITIES));
	info = cJSON_AddObjectToObject(result, "serverInfo");
	cJSON_AddStringToObject(info, "name", f->server_name != NULL ?
	    f->server_name : FAKE_NAME);
	cJSON_AddStringToObject(info, "version", FAKE_VERSION);
	cJSON_AddStringToObject(result, "instructions", FAKE_INSTRUCTIONS);
	fake_reply(f, m, result);

	if (f->flood_bytes >= 0)
		fake_flood(f);
	if (f->flood_requests > 0)
		fake_flood_requests(f);
	if (f->hang_after_init)
		f->hung = 1;
	if (f->close_stdout_after_init) {
		close(STDOUT_FILENO);
		f->stdout_closed = 1;
	}
	if (f->close_stdin_after_init) {
		close(STDIN_FILENO);
		f->in.eof = 1;
	}
	if (f->exit_after_init_code >= 0)
		_exit(f->exit_after_init_code);
}

static void
fake_empty(struct fake *f, struct fake_msg *m, cJSON *params)
{
	fake_reply(f, m, cJSON_CreateObject());
}

/* The fixed tools, then --tool's, then --extra-tools', then the file's. */
static size_t
fake_tools_count(const struct fake *f)
{
	return (sizeof fake_tools / sizeof *fake_tools + f->nnamed_tools +
	    (size_t)f->extra_tools + (size_t)cJSON_GetArraySize(f->file_tools));
}

/* --tools-file: its array of tool definitions, or exit 2. */
static cJSON *
fake_tools_file(const char *path)
{
	FILE	*fp;
	char	*text;
	long	 size;
	cJSON	*tools;

	if ((fp = fopen(path, "r")) == NULL || fseek(fp, 0, SEEK_END) != 0 ||
	    (size = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) != 0) {
		fprintf(stderr, FAKE_NAME ": --tools-file: cannot read %s\n",
		    path);
		exit(2);
	}
	text = fake_malloc((size_t)size + 1);
	text[fread(text, 1, (size_t)size, fp)] = '\0';
	fclose(fp);
	tools = cJSON_Parse(text);
	free(text);
	if (!cJSON_IsArray(tools)) {
		fprintf(stderr, FAKE_NAME ": --tools-file: %s is not a JSON "
		    "array\n", path);
		exit(2);
	}
	return (tools);
}

static void	fake_extra_name(size_t, char [32]);

static cJSON *
fake_tool_entry(const struct fake *f, size_t i)
{
	const size_t	 nfixed = sizeof fake_tools / sizeof *fake_tools;
	cJSON		*tool;
	char		 name[32], desc[EXTRA_TOOL_DESC_BYTES + 1];

	tool = cJSON_CreateObject();
	if (i < nfixed) {
		cJSON_AddStringToObject(tool, "name", fake_tools[i].name);
		cJSON_AddStringToObject(tool, "description",
		    fake_tools[i].description);
		cJSON_AddItemToObject(tool, "inputSchema",
		    cJSON_Parse(fake_tools[i].schema));
		return (tool);
	}
	if (i - nfixed >= f->nnamed_tools + (size_t)f->extra_tools) {
		cJSON_Delete(tool);
		return (cJSON_Duplicate(cJSON_GetArrayItem(f->file_tools,
		    (int)(i - nfixed - f->nnamed_tools -
		    (size_t)f->extra_tools)), 1));
	}
	if (i - nfixed < f->nnamed_tools) {
		cJSON_AddStringToObject(tool, "name",
		    f->named_tools[i - nfixed]);
		cJSON_AddStringToObject(tool, "description",
		    "A tool named on the command line: says it was called.");
	} else {
		fake_extra_name(i - nfixed - f->nnamed_tools, name);
		cJSON_AddStringToObject(tool, "name", name);
		memset(desc, 'd', EXTRA_TOOL_DESC_BYTES);
		desc[EXTRA_TOOL_DESC_BYTES] = '\0';
		memcpy(desc, "Generated tool ", 15);
		cJSON_AddStringToObject(tool, "description", desc);
	}
	cJSON_AddItemToObject(tool, "inputSchema",
	    cJSON_Parse("{\"type\":\"object\"}"));
	return (tool);
}

static void
fake_tools_list(struct fake *f, struct fake_msg *m, cJSON *params)
{
	const cJSON		*cursor;
	cJSON			*result, *tools;
	size_t			 i, first = 0, total = fake_tools_count(f);
	size_t			 end = total;
	char			 next[24], *stop;

	cursor = cJSON_GetObjectItemCaseSensitive(params, "cursor");
	if (cursor != NULL) {
		if (!cJSON_IsString(cursor) || (first = strtoul(
		    cursor->valuestring, &stop, 10), *stop != '\0') ||
		    first >= end) {
			fake_error(f, m->id_text, RPC_INVALID_PARAMS,
			    "Invalid params: unknown cursor", NULL);
			return;
		}
	}
	if (f->tools_page > 0 && first + (size_t)f->tools_page < end)
		end = first + (size_t)f->tools_page;
	/* end is now this page's end; the list's is total. */
	result = cJSON_CreateObject();
	tools = cJSON_AddArrayToObject(result, "tools");
	if (end < total) {
		snprintf(next, sizeof next, "%zu", end);
		cJSON_AddStringToObject(result, "nextCursor", next);
	}
	for (i = first; i < end; i++)
		cJSON_AddItemToArray(tools, fake_tool_entry(f, i));
	fake_reply(f, m, result);
}

/* A tool of --tool or --extra-tools called: it says so. */
static void
fake_tool_named(struct fake *f, struct fake_msg *m, const char *name)
{
	char	*text;

	text = fake_malloc(strlen(name) + sizeof "called ");
	sprintf(text, "called %s", name);
	fprintf(stderr, "%s\n", text);
	fake_reply(f, m, fake_text_result(text, 0));
	free(text);
}

/* The name of extra tool i (from 0) in buf. */
static void
fake_extra_name(size_t i, char buf[32])
{
	snprintf(buf, 32, "tool-%zu", i + 1);
}

static void
fake_tools_call(struct fake *f, struct fake_msg *m, cJSON *params)
{
	const struct fake_tool	*t;
	cJSON			*name, *args, *empty = NULL, *data, *t_file;
	char			 extra[32], *stop;
	size_t			 i;

	name = cJSON_GetObjectItemCaseSensitive(params, "name");
	args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
	if (!cJSON_IsString(name) || (args != NULL && !cJSON_IsObject(args))) {
		fake_error(f, m->id_text, RPC_INVALID_PARAMS,
		    "Invalid params: tools/call wants a name and an arguments "
		    "object", NULL);
		return;
	}
	for (i = 0; i < sizeof fake_tools / sizeof *fake_tools; i++) {
		t = &fake_tools[i];
		if (strcmp(name->valuestring, t->name) != 0)
			continue;
		if (args == NULL)
			args = empty = cJSON_CreateObject();
		t->fn(f, m, args);
		cJSON_Delete(empty);
		return;
	}
	for (i = 0; i < f->nnamed_tools; i++)
		if (strcmp(name->valuestring, f->named_tools[i]) == 0) {
			fake_tool_named(f, m, name->valuestring);
			return;
		}
	cJSON_ArrayForEach(t_file, f->file_tools)
		if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(t_file,
		    "name")) && strcmp(name->valuestring,
		    cJSON_GetObjectItemCaseSensitive(t_file,
		    "name")->valuestring) == 0) {
			fake_tool_named(f, m, name->valuestring);
			return;
		}
	if (strncmp(name->valuestring, "tool-", 5) == 0) {
		i = strtoul(name->valuestring + 5, &stop, 10);
		if (*stop == '\0' && i >= 1 && i <= (size_t)f->extra_tools) {
			fake_extra_name(i - 1, extra);
			if (strcmp(extra, name->valuestring) == 0) {
				fake_tool_named(f, m, name->valuestring);
				return;
			}
		}
	}
	data = cJSON_CreateObject();
	cJSON_AddStringToObject(data, "name", name->valuestring);
	fake_error(f, m->id_text, RPC_INVALID_PARAMS, "Unknown tool", data);
}

static void
fake_resources_list(struct fake *f, struct fake_msg *m, cJSON *params)
{
	const struct fake_resource	*r;
	cJSON				*result, *list, *item;
	size_t				 i;

	result = cJSON_CreateObject();
	list = cJSON_AddArrayToObject(result, "resources");
	for (i = 0; i < sizeof fake_resources / sizeof *fake_resources; i++) {
		r = &fake_resources[i];
		item = cJSON_CreateObject();
		cJSON_AddStringToObject(item, "uri", r->uri);
		cJSON_AddStringToObject(item, "name", r->name);
		cJSON_AddStringToObject(item, "description", r->description);
		cJSON_AddStringToObject(item, "mimeType", r->mime_type);
		cJSON_AddItemToArray(list, item);
	}
	fake_reply(f, m, result);
}

static void
fake_templates_list(struct fake *f, struct fake_msg *m, cJSON *params)
{
	static const char	*templates[] = {
		"file:///{+path}", "file:///etc/{name}"
	};
	cJSON			*result, *list, *item;
	size_t			 i;

	result = cJSON_CreateObject();
	list = cJSON_AddArrayToObject(result, "resourceTemplates");
	for (i = 0; f->file_resources && i < sizeof templates /
	    sizeof *templates; i++) {
		item = cJSON_CreateObject();
		cJSON_AddStringToObject(item, "uriTemplate", templates[i]);
		cJSON_AddStringToObject(item, "name", templates[i] +
		    strlen("file://"));
		cJSON_AddStringToObject(item, "mimeType", "text/plain");
		cJSON_AddItemToArray(list, item);
	}
	fake_reply(f, m, result);
}

/*
 * The path of a file: URI as a naive server reads it: the scheme in any
 * case, "//" and a host of localhost or none, then the rest percent-
 * decoded, %2F included; the kernel resolves "." and "..".  -1 if it is
 * not a file: URI or the path does not fit.
 */
static int
fake_file_path(const char *uri, char *path, size_t size)
{
	const char	*p;
	size_t		 o = 0;
	unsigned int	 byte;

	if (strncasecmp(uri, "file:", 5) != 0)
		return (-1);
	p = uri + 5;
	if (p[0] == '/' && p[1] == '/') {
		p += 2;
		if (strncasecmp(p, "localhost", 9) == 0)
			p += 9;
	}
	for (; *p != '\0'; p++) {
		if (o + 1 >= size)
			return (-1);
		if (p[0] == '%' && isxdigit((unsigned char)p[1]) &&
		    isxdigit((unsigned char)p[2]) &&
		    sscanf(p + 1, "%2x", &byte) == 1) {
			path[o++] = (char)byte;
			p += 2;
		} else
			path[o++] = *p;
	}
	path[o] = '\0';
	return (o > 0 && path[0] == '/' ? 0 : -1);
}

/* --file-resources: a file's text (its first 64 KiB), or -32002. */
static void
fake_read_file(struct fake *f, struct fake_msg *m, const char *uri)
{
	char	 path[4096], *text;
	cJSON	*result, *contents, *item, *data;
	ssize_t	 n;
	int	 fd;

	if (fake_file_path(uri, path, sizeof path) == -1 ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		data = cJSON_CreateObject();
		cJSON_AddStringToObject(data, "uri", uri);
		cJSON_AddStringToObject(data, "error", strerror(errno));
		fake_error(f, m->id_text, RPC_RESOURCE_NOT_FOUND,
		    "Resource not found", data);
		return;
	}
	text = fake_malloc(FAKE_FILE_MAX_BYTES + 1);
	n = read(fd, text, FAKE_FILE_MAX_BYTES);
	close(fd);
	text[n < 0 ? 0 : n] = '\0';
	result = cJSON_CreateObject();
	contents = cJSON_AddArrayToObject(result, "contents");
	item = cJSON_CreateObject();
	cJSON_AddStringToObject(item, "uri", uri);
	cJSON_AddStringToObject(item, "mimeType", "text/plain");
	cJSON_AddStringToObject(item, "text", text);
	cJSON_AddItemToArray(contents, item);
	free(text);
	fake_reply(f, m, result);
}

static char *
fake_status_text(struct fake *f)
{
	cJSON	*status;
	char	*text;

	status = cJSON_CreateObject();
	cJSON_AddNumberToObject(status, "pid", (double)getpid());
	cJSON_AddBoolToObject(status, "initialized", f->initialized);
	cJSON_AddStringToObject(status, "protocolVersion", f->protocol);
	cJSON_AddNumberToObject(status, "requests", (double)f->requests);
	cJSON_AddNumberToObject(status, "initializes", (double)f->initializes);
	text = cJSON_PrintUnformatted(status);
	cJSON_Delete(status);
	return (text);
}

static void
fake_resources_read(struct fake *f, struct fake_msg *m, cJSON *params)
{
	const struct fake_resource	*r = NULL;
	cJSON				*uri, *result, *contents, *item, *data;
	char				*status;
	size_t				 i;

	uri = cJSON_GetObjectItemCaseSensitive(params, "uri");
	if (!cJSON_IsString(uri)) {
		fake_error(f, m->id_text, RPC_INVALID_PARAMS,
		    "Invalid params: resources/read wants a uri", NULL);
		return;
	}
	for (i = 0; i < sizeof fake_resources / sizeof *fake_resources; i++) {
		if (strcmp(uri->valuestring, fake_resources[i].uri) == 0)
			r = &fake_resources[i];
	}
	if (r == NULL && f->file_resources &&
	    strncasecmp(uri->valuestring, "file:", 5) == 0) {
		fake_read_file(f, m, uri->valuestring);
		return;
	}
	if (r == NULL) {
		data = cJSON_CreateObject();
		cJSON_AddStringToObject(data, "uri", uri->valuestring);
		fake_error(f, m->id_text, RPC_RESOURCE_NOT_FOUND,
		    "Resource not found", data);
		return;
	}

	result = cJSON_CreateObject();
	contents = cJSON_AddArrayToObject(result, "contents");
	item = cJSON_CreateObject();
	cJSON_AddStringToObject(item, "uri", r->uri);
	cJSON_AddStringToObject(item, "mimeType", r->mime_type);
	if (strcmp(r->uri, "fake://status") == 0) {
		status = fake_status_text(f);
		cJSON_AddStringToObject(item, "text", status);
		free(status);
	} else
		cJSON_AddStringToObject(item, "text", "Hello from mcp-fake.\n");
	cJSON_AddItemToArray(contents, item);
	fake_reply(f, m, result);
}

static void
fake_subscribe(struct fake *f, struct fake_msg *m, cJSON *params)
{
	if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(params, "uri"))) {
		fake_error(f, m->id_text, RPC_INVALID_PARAMS,
		    "Invalid params: a uri is needed", NULL);
		return;
	}
	fake_reply(f, m, cJSON_CreateObject());
}

static void
fake_set_level(struct fake *f, struct fake_msg *m, cJSON *params)
{
	cJSON	*level;
	size_t	 i;

	level = cJSON_GetObjectItemCaseSensitive(params, "level");
	for (i = 0; i < sizeof fake_log_levels / sizeof *fake_log_levels; i++) {
		if (cJSON_IsString(level) &&
		    strcmp(level->valuestring, fake_log_levels[i]) == 0) {
			fake_reply(f, m, cJSON_CreateObject());
			return;
		}
	}
	fake_error(f, m->id_text, RPC_INVALID_PARAMS,
	    "Invalid params: unknown log level", NULL);
}

static void
fake_prompts_list(struct fake *f, struct fake_msg *m, cJSON *params)
{
	cJSON	*result;

	result = cJSON_CreateObject();
	cJSON_AddArrayToObject(result, "prompts");
	fake_reply(f, m, result);
}

static void
fake_prompts_get(struct fake *f, struct fake_msg *m, cJSON *params)
{
	fake_error(f, m->id_text, RPC_INVALID_PARAMS,
	    "Invalid params: there are no prompts", NULL);
}

static void
fake_complete(struct fake *f, struct fake_msg *m, cJSON *params)
{
	cJSON	*result, *completion, *values;

	result = cJSON_CreateObject();
	completion = cJSON_AddObjectToObject(result, "completion");
	values = cJSON_AddArrayToObject(completion, "values");
	cJSON_AddItemToArray(values, cJSON_CreateString(FAKE_NAME));
	cJSON_AddNumberToObject(completion, "total", 1);
	cJSON_AddBoolToObject(completion, "hasMore", 0);
	fake_reply(f, m, result);
}

static void
fake_notification(struct fake *f, struct fake_msg *m, const char *method)
{
	/* Cancels outside a sleep name nothing still running: ignored. */
	if (strcmp(method, "notifications/initialized") == 0)
		f->initialized = 1;
}

/* --request-log: "METHOD PARAMS" appended, one line, params compact. */
static void
fake_log_request(struct fake *f, const char *method, const cJSON *params)
{
	char	*text, *line;
	int	 fd, len;

	text = params != NULL ? cJSON_PrintUnformatted(params) : NULL;
	len = asprintf(&line, "%s %s\n", method, text != NULL ? text : "{}");
	free(text);
	if (len < 0)
		fake_fatal("asprintf");
	if ((fd = open(f->request_log, O_WRONLY | O_APPEND | O_CREAT |
	    O_CLOEXEC, 0600)) == -1)
		fake_fatal(f->request_log);
	if (write(fd, line, (size_t)len) != len)
		fake_fatal(f->request_log);
	close(fd);
	free(line);
}

static void
fake_dispatch(struct fake *f, struct fake_msg *m)
{
	cJSON		*json = m->json, *method, *version, *params;
	size_t		 i;

	if (json == NULL) {
		fake_error(f, NULL, RPC_PARSE_ERROR, "Parse error", NULL);
		return;
	}
	if (!cJSON_IsObject(json)) {
		fake_error(f, NULL, RPC_INVALID_REQUEST,
		    "Invalid Request: not an object", NULL);
		return;
	}
	method = cJSON_GetObjectItemCaseSensitive(json, "method");
	if (method == NULL &&
	    (cJSON_HasObjectItem(json, "result") ||
	    cJSON_HasObjectItem(json, "error")))
		return;		/* a response; we never ask anything */
	version = cJSON_GetObjectItemCaseSensitive(json, "jsonrpc");
	if (!cJSON_IsString(method) || !cJSON_IsString(version) ||
	    strcmp(version->valuestring, "2.0") != 0) {
		fake_error(f, m->id_text, RPC_INVALID_REQUEST,
		    "Invalid Request", NULL);
		return;
	}
	if (fake_msg_id(m) == NULL) {
		fake_notification(f, m, method->valuestring);
		return;
	}
	if (m->id_text == NULL) {
		fake_error(f, NULL, RPC_INVALID_REQUEST,
		    "Invalid Request: id must be a string or a number", NULL);
		return;
	}

	f->requests++;
	params = cJSON_GetObjectItemCaseSensitive(json, "params");
	if (f->request_log != NULL)
		fake_log_request(f, method->valuestring, params);
	if (f->init_first_code >= 0 && f->requests == 1 &&
	    strcmp(method->valuestring, "initialize") != 0) {
		fprintf(stderr, FAKE_NAME ": the first request is %s, not "
		    "initialize: exiting\n", method->valuestring);
		exit(f->init_first_code);
	}
	if (f->ignore_discover &&
	    strcmp(method->valuestring, "server/discover") == 0)
		return;
	if (f->hung)
		return;
	if (f->slow_ms > 0)
		usleep((useconds_t)f->slow_ms * 1000);
	for (i = 0; i < sizeof fake_methods / sizeof *fake_methods; i++) {
		if (strcmp(method->valuestring, fake_methods[i].name) == 0) {
			fake_methods[i].fn(f, m, params);
			return;
		}
	}
	fake_error(f, m->id_text, RPC_METHOD_NOT_FOUND, "Method not found",
	    NULL);
}

/* The next message: queued sleeps first, then stdin. NULL at end of input. */
static struct fake_msg *
fake_next(struct fake *f)
{
	struct fake_msg	*m;
	char		*line;
	size_t		 len;

	if ((m = TAILQ_FIRST(&f->queue)) != NULL) {
		TAILQ_REMOVE(&f->queue, m, entry);
		return (m);
	}
	for (;;) {
		while ((line = fake_input_line(&f->in, &len)) != NULL) {
			if (len != 0)
				return (fake_msg_parse(line, len));
		}
		if (f->in.eof)
			return (NULL);
		fake_input_fill(&f->in);
	}
}

static void
fake_parse_flags(struct fake *f, int argc, char **argv)
{
	enum {
		OPT_CRASH_AT_START = 256,
		OPT_EXIT_AFTER_INIT,
		OPT_EXIT_AFTER_MS,
		OPT_NO_INIT_REPLY,
		OPT_IGNORE_SIGTERM,
		OPT_IGNORE_STDIN_EOF,
		OPT_GRANDCHILD,
		OPT_ESCAPEE,
		OPT_PIDFILE,
		OPT_STARTLOG,
		OPT_GARBAGE,
		OPT_FLOOD_NO_NEWLINE,
		OPT_CLOSE_STDOUT_AFTER_INIT,
		OPT_CLOSE_STDIN_AFTER_INIT,
		OPT_FLOOD_REQUESTS,
		OPT_FLOOD_METHOD,
		OPT_HANG_AFTER_INIT,
		OPT_TOOLS_PAGE,
		OPT_EXTRA_TOOLS,
		OPT_TOOL,
		OPT_TOOLS_FILE,
		OPT_SLOW_MS,
		OPT_SPLIT_MS,
		OPT_PROGRESS_PAD,
		OPT_HANG_CLOSING_STDIN,
		OPT_STDERR_NOISE,
		OPT_STDERR_HEX,
		OPT_SERVER_NAME,
		OPT_PROTOCOL_VERSION,
		OPT_FILE_RESOURCES,
		OPT_REQUEST_LOG,
		OPT_INIT_FIRST,
		OPT_IGNORE_DISCOVER,
	};
	static const struct option	options[] = {
		{ "crash-at-start", optional_argument, NULL,
		  OPT_CRASH_AT_START },
		{ "exit-after-init", optional_argument, NULL,
		  OPT_EXIT_AFTER_INIT },
		{ "exit-after-ms", required_argument, NULL, OPT_EXIT_AFTER_MS },
		{ "no-init-reply", no_argument, NULL, OPT_NO_INIT_REPLY },
		{ "ignore-sigterm", no_argument, NULL, OPT_IGNORE_SIGTERM },
		{ "ignore-stdin-eof", no_argument, NULL, OPT_IGNORE_STDIN_EOF },
		{ "grandchild", required_argument, NULL, OPT_GRANDCHILD },
		{ "escapee", required_argument, NULL, OPT_ESCAPEE },
		{ "pidfile", required_argument, NULL, OPT_PIDFILE },
		{ "startlog", required_argument, NULL, OPT_STARTLOG },
		{ "garbage", no_argument, NULL, OPT_GARBAGE },
		{ "flood-no-newline", required_argument, NULL,
		  OPT_FLOOD_NO_NEWLINE },
		{ "close-stdout-after-init", no_argument, NULL,
		  OPT_CLOSE_STDOUT_AFTER_INIT },
		{ "close-stdin-after-init", no_argument, NULL,
		  OPT_CLOSE_STDIN_AFTER_INIT },
		{ "flood-requests", required_argument, NULL,
		  OPT_FLOOD_REQUESTS },
		{ "flood-method", required_argument, NULL, OPT_FLOOD_METHOD },
		{ "hang-after-init", no_argument, NULL, OPT_HANG_AFTER_INIT },
		{ "tools-page", required_argument, NULL, OPT_TOOLS_PAGE },
		{ "extra-tools", required_argument, NULL, OPT_EXTRA_TOOLS },
		{ "tool", required_argument, NULL, OPT_TOOL },
		{ "tools-file", required_argument, NULL, OPT_TOOLS_FILE },
		{ "slow-ms", required_argument, NULL, OPT_SLOW_MS },
		{ "split-ms", required_argument, NULL, OPT_SPLIT_MS },
		{ "progress-pad", required_argument, NULL, OPT_PROGRESS_PAD },
		{ "hang-closing-stdin", no_argument, NULL,
		  OPT_HANG_CLOSING_STDIN },
		{ "stderr-noise", required_argument, NULL, OPT_STDERR_NOISE },
		{ "stderr-hex", required_argument, NULL, OPT_STDERR_HEX },
		{ "server-name", required_argument, NULL, OPT_SERVER_NAME },
		{ "protocol-version", required_argument, NULL,
		  OPT_PROTOCOL_VERSION },
		{ "file-resources", no_argument, NULL, OPT_FILE_RESOURCES },
		{ "request-log", required_argument, NULL, OPT_REQUEST_LOG },
		{ "init-first", optional_argument, NULL, OPT_INIT_FIRST },
		{ "ignore-discover", no_argument, NULL, OPT_IGNORE_DISCOVER },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int				opt;

	f->crash_at_start_code = -1;
	f->exit_after_init_code = -1;
	f->init_first_code = -1;
	f->exit_after_ms = -1;
	f->flood_bytes = -1;
	f->flood_method = "ping";

	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (opt) {
		case OPT_CRASH_AT_START:
			f->crash_at_start_code = FAKE_EXIT_CODE_DEFAULT;
			if (optarg != NULL)
				f->crash_at_start_code = fake_flag_number(
				    "crash-at-start", optarg, 0, EXIT_CODE_MAX);
			break;
		case OPT_EXIT_AFTER_INIT:
			f->exit_after_init_code = FAKE_EXIT_CODE_DEFAULT;
			if (optarg != NULL)
				f->exit_after_init_code = fake_flag_number(
				    "exit-after-init", optarg, 0,
				    EXIT_CODE_MAX);
			break;
		case OPT_EXIT_AFTER_MS:
			f->exit_after_ms = fake_flag_number("exit-after-ms",
			    optarg, 0, EXIT_AFTER_MAX_MS);
			break;
		case OPT_NO_INIT_REPLY:
			f->no_init_reply = 1;
			break;
		case OPT_IGNORE_SIGTERM:
			f->ignore_sigterm = 1;
			break;
		case OPT_IGNORE_STDIN_EOF:
			f->ignore_stdin_eof = 1;
			break;
		case OPT_GRANDCHILD:
			f->grandchild_file = optarg;
			break;
		case OPT_ESCAPEE:
			f->escapee_file = optarg;
			break;
		case OPT_PIDFILE:
			f->pidfile = optarg;
			break;
		case OPT_STARTLOG:
			f->startlog = optarg;
			break;
		case OPT_GARBAGE:
			f->garbage = 1;
			break;
		case OPT_FLOOD_NO_NEWLINE:
			f->flood_bytes = fake_flag_number("flood-no-newline",
			    optarg, 0, FLOOD_MAX_BYTES);
			break;
		case OPT_CLOSE_STDOUT_AFTER_INIT:
			f->close_stdout_after_init = 1;
			break;
		case OPT_CLOSE_STDIN_AFTER_INIT:
			f->close_stdin_after_init = 1;
			break;
		case OPT_FLOOD_REQUESTS:
			f->flood_requests = fake_flag_number("flood-requests",
			    optarg, 0, FLOOD_MAX_REQUESTS);
			break;
		case OPT_FLOOD_METHOD:
			f->flood_method = optarg;
			break;
		case OPT_HANG_AFTER_INIT:
			f->hang_after_init = 1;
			break;
		case OPT_FILE_RESOURCES:
			f->file_resources = 1;
			break;
		case OPT_INIT_FIRST:
			f->init_first_code = FAKE_EXIT_CODE_DEFAULT;
			if (optarg != NULL)
				f->init_first_code = fake_flag_number(
				    "init-first", optarg, 0, EXIT_CODE_MAX);
			break;
		case OPT_IGNORE_DISCOVER:
			f->ignore_discover = 1;
			break;
		case OPT_REQUEST_LOG:
			f->request_log = optarg;
			break;
		case OPT_TOOLS_PAGE:
			f->tools_page = fake_flag_number("tools-page", optarg, 1,
			    100);
			break;
		case OPT_EXTRA_TOOLS:
			f->extra_tools = fake_flag_number("extra-tools", optarg,
			    0, EXTRA_TOOLS_MAX);
			break;
		case OPT_TOOL:
			if (f->nnamed_tools == NAMED_TOOLS_MAX) {
				fprintf(stderr, FAKE_NAME ": --tool: at most %d\n",
				    NAMED_TOOLS_MAX);
				fake_usage(stderr, 2);
			}
			f->named_tools[f->nnamed_tools++] = optarg;
			break;
		case OPT_TOOLS_FILE:
			f->file_tools = fake_tools_file(optarg);
			break;
		case OPT_SLOW_MS:
			f->slow_ms = fake_flag_number("slow-ms", optarg, 0,
			    SLEEP_MAX_MS);
			break;
		case OPT_SPLIT_MS:
			f->split_ms = fake_flag_number("split-ms", optarg, 0,
			    SLEEP_MAX_MS);
			break;
		case OPT_PROGRESS_PAD:
			f->progress_pad = fake_flag_number("progress-pad",
			    optarg, 0, 16 * 1024 * 1024);
			break;
		case OPT_HANG_CLOSING_STDIN:
			f->hang_closing_stdin = 1;
			break;
		case OPT_STDERR_NOISE:
			f->stderr_noise = fake_flag_number("stderr-noise",
			    optarg, 0, STDERR_MAX_LINES);
			break;
		case OPT_STDERR_HEX:
			if (strlen(optarg) % 2 != 0 || strspn(optarg,
			    "0123456789abcdefABCDEF") != strlen(optarg)) {
				fprintf(stderr, FAKE_NAME ": --stderr-hex: want "
				    "pairs of hex digits, not \"%s\"\n",
				    optarg);
				fake_usage(stderr, 2);
			}
			f->stderr_hex = optarg;
			break;
		case OPT_SERVER_NAME:
			f->server_name = optarg;
			break;
		case OPT_PROTOCOL_VERSION:
			f->protocol_version = optarg;
			break;
		case 'h':
			fake_usage(stdout, 0);
		default:
			fake_usage(stderr, 2);
		}
	}
	if (optind != argc) {
		fprintf(stderr, FAKE_NAME ": unexpected argument: %s\n",
		    argv[optind]);
		fake_usage(stderr, 2);
	}
}

/* Write the bytes a string of hex digit pairs spells (checked already). */
static void
fake_write_hex(int fd, const char *hex)
{
	size_t		 n = strlen(hex) / 2, i, off;
	unsigned char	*bytes;
	unsigned int	 byte;
	ssize_t		 w;

	bytes = fake_malloc(n);
	for (i = 0; i < n; i++) {
		sscanf(hex + 2 * i, "%2x", &byte);
		bytes[i] = (unsigned char)byte;
	}
	for (off = 0; off < n; off += (size_t)w) {
		if ((w = write(fd, bytes + off, n - off)) == -1) {
			if (errno == EINTR) {
				w = 0;
				continue;
			}
			break;
		}
	}
	free(bytes);
}

/* Start-up effects, in this order, all before a crash flag exits. */
static void
fake_start(struct fake *f)
{
	char		text[32];
	long long	i;

	signal(SIGPIPE, SIG_IGN);
	if (f->startlog != NULL)
		fake_write_startlog(f->startlog);
	fprintf(stderr, FAKE_NAME ": started pid %ld\n", (long)getpid());
	if (f->pidfile != NULL) {
		snprintf(text, sizeof text, "%ld\n", (long)getpid());
		fake_write_file(f->pidfile, text);
	}
	if (f->grandchild_file != NULL)
		fake_spawn_grandchild(f->grandchild_file);
	if (f->escapee_file != NULL)
		fake_spawn_escapee(f->escapee_file);
	if (f->ignore_sigterm)
		signal(SIGTERM, SIG_IGN);
	for (i = 1; i <= f->stderr_noise; i++)
		fprintf(stderr, "noise line %lld\n", i);
	if (f->stderr_hex != NULL)
		fake_write_hex(STDERR_FILENO, f->stderr_hex);
	if (f->crash_at_start_code >= 0)
		_exit(f->crash_at_start_code);
	if (f->exit_after_ms == 0)
		_exit(0);
	if (f->exit_after_ms > 0)
		fake_start_exit_timer(f->exit_after_ms);
}

int
main(int argc, char **argv)
{
	static struct fake	 fake;
	struct fake		*f = &fake;
	struct fake_msg		*m;
	cJSON_Hooks		 hooks = { fake_malloc, free };

	fake_parse_flags(f, argc, argv);
	fake_start(f);

	cJSON_InitHooks(&hooks);
	TAILQ_INIT(&f->queue);
	fake_input_init(&f->in);
	if (f->slow_ms > 0)
		f->in.read_max = 4096;
	snprintf(f->protocol, sizeof f->protocol, "%s", FAKE_LATEST_PROTOCOL);

	while ((m = fake_next(f)) != NULL) {
		fake_dispatch(f, m);
		fake_msg_free(m);
	}
	free(f->in.buf);

	if (f->ignore_stdin_eof || f->ignore_sigterm) {
		for (;;)
			pause();
	}
	return (0);
}
