/*
 * proto.h -- the wire contract between mcpd, mcpctl and the journal.
 *
 * Everything another program may depend on lives here: control method
 * names, JSON-RPC error codes, server state names, journal field names and
 * MESSAGE_IDs.  The daemon and mcpctl include this one header so they agree
 * by construction.  Bump MCPD_PROTO_VERSION when a change is not backwards
 * compatible.
 */
#ifndef MCPD_PROTO_H
#define MCPD_PROTO_H

#define MCPD_PROTO_VERSION		1

/*
 * The status channel between mcpd and mcpd-remote (its events: see
 * remote/rstatus.h): the format version both write and read, in every
 * line's "v".  One constant, so the two programs agree by construction.
 */
#define MCPD_STATUS_VERSION		1

/* The MCP revision mcpd offers to servers, and the ones it accepts. */
#define MCPD_MCP_VERSION		"2025-11-25"
#define MCPD_MCP_VERSIONS_ACCEPTED	\
	{ "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", NULL }

/* Control methods on the socket. */
#define MCPD_METHOD_PREFIX		"mcpd/"
#define MCPD_METHOD_STATUS		"mcpd/status"
#define MCPD_METHOD_START		"mcpd/start"
#define MCPD_METHOD_STOP		"mcpd/stop"
#define MCPD_METHOD_RESTART		"mcpd/restart"
#define MCPD_METHOD_VERSION		"mcpd/version"
/*
 * mcpd/attach {"server": NAME} turns the connection into a transparent MCP
 * session with that server.  Result: {"server", "state", "protocolVersion"
 * (null until initialized), "serverInfo" (null until initialized)}.
 */
#define MCPD_METHOD_ATTACH		"mcpd/attach"
/*
 * mcpd/reload: result {"changed", "added", "removed", "unchanged",
 * "warnings"}; on a bad file error MCPD_ERR_CONFIG_INVALID with data
 * {"errors": [...], "warnings": [...]} and nothing changed.
 */
#define MCPD_METHOD_RELOAD		"mcpd/reload"
/*
 * mcpd/logs {"server", "lines"?, "follow"?}: result {"server", "lines":
 * [{"seq", "time_us", "text"}]}; with follow, mcpd/log notifications
 * {"server", "seq", "time_us", "text"} follow for every new line.
 */
#define MCPD_METHOD_LOGS		"mcpd/logs"
#define MCPD_NOTIFY_LOG			"mcpd/log"
/* mcpd/metrics: result {"text": Prometheus text exposition}. */
#define MCPD_METHOD_METRICS		"mcpd/metrics"
/*
 * Signing in to a remote server (OAuth authorization code); admin only,
 * and the login belongs to the connection: closing it cancels the login.
 * mcpd/login {"server", "redirect_uri": "http://127.0.0.1:PORT/...",
 * "scope"?}: result {"server", "url" (to open in a browser),
 * "expires_in" (seconds)}.
 */
#define MCPD_METHOD_LOGIN		"mcpd/login"
/*
 * mcpd/login-complete {"server", "code", "state", "iss"?} or {"server",
 * "error", "error_description"?, "state"?}, what the browser came back with:
 * result {"server", "signed_in", "expires" (the access token's, seconds
 * since the Epoch, 0 if unknown), "refresh" (a refresh token is held),
 * "scope" (or null)}.
 */
#define MCPD_METHOD_LOGIN_COMPLETE	"mcpd/login-complete"
/*
 * mcpd/logout {"server"}: result {"server", "revoked" (the authorization
 * server's revocation endpoint took the token), "deleted" (a stored token
 * was removed)}; a running server restarts without the tokens.
 */
#define MCPD_METHOD_LOGOUT		"mcpd/logout"

/* JSON-RPC 2.0 and MCP error codes. */
#define RPC_PARSE_ERROR			-32700
#define RPC_INVALID_REQUEST		-32600
#define RPC_METHOD_NOT_FOUND		-32601
#define RPC_INVALID_PARAMS		-32602
#define RPC_INTERNAL_ERROR		-32603
#define RPC_CONNECTION_CLOSED		-32000	/* SDK convention */
#define RPC_REQUEST_TIMEOUT		-32001	/* SDK convention */
#define RPC_RESOURCE_NOT_FOUND		-32002
#define RPC_URL_ELICITATION_REQUIRED	-32042	/* MCP 2025-11-25 */
/* mcpd's own, in the implementation-defined server error range. */
#define MCPD_ERR_UNKNOWN_SERVER		-32010
#define MCPD_ERR_SERVER_UNAVAILABLE	-32011
#define MCPD_ERR_MESSAGE_TOO_LARGE	-32012
#define MCPD_ERR_ACCESS_DENIED		-32013
#define MCPD_ERR_CONFIG_INVALID		-32014
/*
 * A limit of mcpd's: a per-client cap or the memory budget; or of
 * mcpd-remote's, on what is in flight to a remote (remote/flow.h).
 */
#define MCPD_ERR_LIMIT			-32015
/* mcpd-remote: the remote failed a request (HTTP status, network, stream). */
#define MCPD_ERR_REMOTE			-32016
/* mcpd-remote: the remote wants credentials mcpd-remote does not have. */
#define MCPD_ERR_REMOTE_AUTH		-32017
/* mcpd/reexec: the new binary cannot be executed; this mcpd carries on. */
#define MCPD_ERR_REEXEC			-32018
/*
 * The end of the message of a request refused for a name or URI that a
 * server's filter hides ("unknown tool: NAME" and the like before it).
 */
#define MCPD_FILTER_HIDDEN_NOTE		" (hidden by a filter)"

/*
 * Server states, in the order of the lifecycle (SPEC 2); "needs-login": a
 * remote server waiting for `mcpctl login`; "idle": an on-demand server
 * that is not running and starts with its next client or request (no
 * process runs in either); "frozen": a ready server with nothing to do
 * whose process is frozen ("idle": "freeze"), thawed by its next
 * request.
 */
#define MCPD_STATE_NAMES \
	{ "starting", "initializing", "ready", "backoff", "stopping", \
	  "stopped", "failed", "needs-login", "idle", "frozen" }

/* Journal fields (all carry the MCPD_ prefix). */
#define MCPD_FIELD_SERVER		"MCPD_SERVER"
/* An instance of a server not shared globally: "NAME#N" (MCPD_SERVER NAME). */
#define MCPD_FIELD_INSTANCE		"MCPD_INSTANCE"
#define MCPD_FIELD_STATE		"MCPD_STATE"
#define MCPD_FIELD_PREV_STATE		"MCPD_PREV_STATE"
#define MCPD_FIELD_REASON		"MCPD_REASON"
#define MCPD_FIELD_PID			"MCPD_PID"
#define MCPD_FIELD_EXIT_STATUS		"MCPD_EXIT_STATUS"
#define MCPD_FIELD_EXIT_SIGNAL		"MCPD_EXIT_SIGNAL"
/* A failed server's last stderr line: escaped, bounded, secrets out. */
#define MCPD_FIELD_LAST_STDERR		"MCPD_LAST_STDERR"
#define MCPD_FIELD_RESTARTS		"MCPD_RESTARTS"
#define MCPD_FIELD_DELAY_MS		"MCPD_DELAY_MS"
/* A frozen server: how long the freeze took, the thaw until its answer. */
#define MCPD_FIELD_FREEZE_MS		"MCPD_FREEZE_MS"
#define MCPD_FIELD_THAW_MS		"MCPD_THAW_MS"
#define MCPD_FIELD_MEMORY		"MCPD_MEMORY"
#define MCPD_FIELD_METHOD		"MCPD_METHOD"
#define MCPD_FIELD_DURATION_US		"MCPD_DURATION_US"
#define MCPD_FIELD_CLIENT_PID		"MCPD_CLIENT_PID"
#define MCPD_FIELD_CLIENT_UID		"MCPD_CLIENT_UID"
#define MCPD_FIELD_APP_EXE		"MCPD_APP_EXE"
#define MCPD_FIELD_APP_UNIT		"MCPD_APP_UNIT"
#define MCPD_FIELD_APP_ID		"MCPD_APP_ID"
/* An HTTP client's token (mcpd-http), its identity. */
#define MCPD_FIELD_TOKEN		"MCPD_TOKEN"
#define MCPD_FIELD_BYTES		"MCPD_BYTES"
#define MCPD_FIELD_VIOLATION		"MCPD_VIOLATION"
#define MCPD_FIELD_CONFIG		"MCPD_CONFIG"
#define MCPD_FIELD_SOCKET		"MCPD_SOCKET"
#define MCPD_FIELD_BINARY		"MCPD_BINARY"
#define MCPD_FIELD_SUPPRESSED		"MCPD_SUPPRESSED"
/* Remote servers: what happened to the session (rlink.h). */
#define MCPD_FIELD_REMOTE_EVENT		"MCPD_REMOTE_EVENT"
/* A call's record ("audit", audit.h). */
#define MCPD_FIELD_TOOL			"MCPD_TOOL"
#define MCPD_FIELD_PROMPT		"MCPD_PROMPT"
#define MCPD_FIELD_URI			"MCPD_URI"
#define MCPD_FIELD_APP			"MCPD_APP"
/* The app's pid when it is not the connection's (mcpctl connect's parent). */
#define MCPD_FIELD_APP_PID		"MCPD_APP_PID"
#define MCPD_FIELD_APP_EXE		"MCPD_APP_EXE"
#define MCPD_FIELD_APP_UNIT		"MCPD_APP_UNIT"
#define MCPD_FIELD_OUTCOME		"MCPD_OUTCOME"
/* A call mcpd refused itself: the error code it answered. */
#define MCPD_FIELD_ERROR_CODE		"MCPD_ERROR_CODE"
#define MCPD_FIELD_BYTES_IN		"MCPD_BYTES_IN"
#define MCPD_FIELD_BYTES_OUT		"MCPD_BYTES_OUT"
#define MCPD_FIELD_ARGS_HMAC		"MCPD_ARGS_HMAC"
#define MCPD_FIELD_ARGS			"MCPD_ARGS"
#define MCPD_FIELD_ARGS_TRUNCATED	"MCPD_ARGS_TRUNCATED"
#define MCPD_FIELD_DROPPED		"MCPD_DROPPED"

/* One MESSAGE_ID per event type (see the journal catalog). */
#define MCPD_MID_DAEMON_START		"4b27260f3c7842be981ffc53e93ec094"
#define MCPD_MID_DAEMON_STOP		"eab4730554e344d9b81e0dc27cc6c6d4"
#define MCPD_MID_STATE			"e360602b960845669a6be48ab53d5dd8"
#define MCPD_MID_SPAWN			"8c259a7d48aa4da29e2610e5ccc22ac9"
#define MCPD_MID_SPAWN_FAILED		"9cdcda0c194e4ac9b4e593381db43d8d"
#define MCPD_MID_EXIT			"899a6b0319084d748a851912c23baf50"
#define MCPD_MID_RESTART		"0914fe243c39450a99da9ebe19f44a76"
#define MCPD_MID_GIVE_UP		"47826fe83e1f4f448669808b63b864ec"
#define MCPD_MID_STDERR			"68393bc1b2134de280dfac652cc42133"
#define MCPD_MID_VIOLATION		"0f4882c07a7b4760baa395dd6898b2ee"
#define MCPD_MID_CLIENT_CONNECT		"28efe39dce5c455481b240db814136c8"
#define MCPD_MID_CLIENT_DISCONNECT	"74a4f271af0846c3b97baefbb1c14294"
#define MCPD_MID_REQUEST		"2c04d37ad026402ea187946ddb851b15"
#define MCPD_MID_CONFIG			"3007a676158c40b6953dd0d947cb5937"
#define MCPD_MID_REMOTE			"d56ee5bc0ee641a1a48377f8c65a2ac0"
/* On-demand servers: started for a client, stopped when idle. */
#define MCPD_MID_ON_DEMAND		"34dc4bc0e5cf45608b3d9595576bcfd1"
#define MCPD_MID_IDLE_STOP		"5ad8911dfa99460c92570720f223c4e6"
/* "idle": "freeze": a server frozen when idle, thawed when needed. */
#define MCPD_MID_FREEZE			"e1be2b8499884ab6ac1a8d29324266bf"
#define MCPD_MID_THAW			"492350a0df38488080c9c1eba316068b"
/* A live re-exec (mcpctl reexec): handing over, taking over. */
#define MCPD_MID_REEXEC			"e1fee44a64694826962ca77feb73290f"
/* "audit": a call's record; audit entries dropped (the queue was full). */
#define MCPD_MID_AUDIT			"5111187cf0134fc9bdc64a11d32966ef"
#define MCPD_MID_AUDIT_DROPPED		"45688eaa848240648ca7a4dd9b65b457"
/*
 * mcpd/reexec (admin): mcpd hands its servers to the binary installed now
 * and executes it.  No result on success: the connection closes with the
 * execve; the new mcpd answers on the socket.  An error if it cannot.
 */
#define MCPD_METHOD_REEXEC		"mcpd/reexec"
/*
 * mcpd/pins {"server": NAME} (admin): what a server changed since its
 * definitions were approved, held or not (daemon/router_pins.c); and
 * mcpd/approve {"server": NAME, "names": [NAME...]} (admin; no names:
 * all): the changes become the pinned definitions.
 */
#define MCPD_METHOD_PINS		"mcpd/pins"
#define MCPD_METHOD_APPROVE		"mcpd/approve"
/* A tool, prompt or template changed or new since approved (pins). */
#define MCPD_MID_PIN			"7af1b545b783464299d07e14e639eb67"
#define MCPD_FIELD_PIN_KIND		"MCPD_PIN_KIND"
#define MCPD_FIELD_PIN_NAME		"MCPD_PIN_NAME"
#define MCPD_FIELD_PIN_CHANGE		"MCPD_PIN_CHANGE"
/*
 * In a group, a member's tool or prompt whose description names another
 * member's tool (shadowing; daemon/router_shadow.c): flagged, not held.
 */
#define MCPD_MID_SHADOW			"864505455aa5496d8f360b5a747107c7"
#define MCPD_FIELD_GROUP		"MCPD_GROUP"
#define MCPD_FIELD_SHADOW_NAME		"MCPD_SHADOW_NAME"
#define MCPD_FIELD_SHADOWED_SERVER	"MCPD_SHADOWED_SERVER"
#define MCPD_FIELD_SHADOWED_TOOL	"MCPD_SHADOWED_TOOL"

#endif /* MCPD_PROTO_H */
