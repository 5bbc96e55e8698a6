# task-clients.sh -- sourced by tests (not a test): clients of the 1.x
# SDK (tasks-client.mjs, through `mcpctl connect`) driven one command at
# a time, each with a name.  Needs lib.sh and remote_setup first, and
# tasks-client.mjs copied into $T.
#
# Client NAME reads commands from $T/NAME.in and answers on $T/NAME.out;
# its stderr and its bridge's go to $T/NAME.err, what it sent and heard
# to $T/NAME.wire.

declare -A CL_IN CL_OUT CL_PID

# wires: the last messages of each client, for a failure.
wires() {
	local f
	for f in "$T"/*.wire; do
		[ -f "$f" ] || continue
		echo "--- last messages of client $(basename "$f" .wire) ($f) ---"
		tail -n 12 "$f" | cut -c 1-400
	done
}

# tfail MSG: fail, with what the clients sent and heard last.
tfail() {
	wires >&2
	fail "$@"
}

# cl_run NAME COMMAND...: start COMMAND as client NAME, its standard
# input and output the fifos $T/NAME.in and $T/NAME.out, its stderr
# $T/NAME.err; the first line it answers is read by cl_read.
cl_run() {
	local id=$1 fd
	shift
	rm -f "$T/$id.in" "$T/$id.out"
	mkfifo "$T/$id.in" "$T/$id.out" || hard_error "mkfifo failed"
	(
		# Not the other clients' pipes: their ends would stay open.
		for fd in "${CL_IN[@]}" "${CL_OUT[@]}"; do
			eval "exec $fd>&-"
		done
		MCPD_TEST_DIR=$T exec "$@"
	) <"$T/$id.in" >"$T/$id.out" 2>"$T/$id.err" &
	CL_PID[$id]=$!
	exec {fd}>"$T/$id.in"
	CL_IN[$id]=$fd
	exec {fd}<"$T/$id.out"
	CL_OUT[$id]=$fd
}

# cl_spawn NAME SERVER [ARGS...]: client NAME on SERVER, with
# tasks-client.mjs's ARGS.
cl_spawn() {
	local id=$1 server=$2
	shift 2
	cl_run "$id" "$NODE" "$T/tasks-client.mjs" --socket "$SOCK" \
		--server "$server" --name "$id" --trace "$T/$id.wire" "$@"
}

# cl_read NAME TIMEOUT_S: the client's next answer (stdout); 1 if it was
# not ok.  Fails the test if it does not answer in time.
cl_read() {
	local line
	IFS= read -r -t "$2" line <&"${CL_OUT[$1]}" ||
		tfail "client $1 did not answer within $2 s; it said: $(tail -5 "$T/$1.err")"
	printf '%s\n' "$line"
	jq -e .ok <<<"$line" >/dev/null
}

# cl_start NAME SERVER [ARGS...]: start client NAME; it must connect.
cl_start() {
	local id=$1 out
	cl_spawn "$@"
	out=$(cl_read "$id" 90) ||
		tfail "client $id could not connect to $2: $out; it said: $(tail -5 "$T/$id.err")"
}

# cl NAME CMD...: one command; its answer on stdout, 1 if it was not ok.
# (The write is in a subshell: a client that has died would otherwise
# end this shell with SIGPIPE.)  The client's own waits are at most
# 300 s (tasks/result).
cl() {
	local id=$1
	shift
	if ! (printf '%s\n' "$*" >&"${CL_IN[$id]}") 2>/dev/null; then
		jq -cn --arg id "$id" '{ok: false, error: "client \($id) has exited"}'
		return 1
	fi
	cl_read "$id" 330
}

# cl_ok NAME CMD...: the command must succeed.
cl_ok() {
	local out
	out=$(cl "$@") || tfail "client $1: $2 failed: $out"
	printf '%s\n' "$out"
}

# cl_close NAME: the client closes its session and exits.
cl_close() {
	local id=$1 pid=${CL_PID[$1]}
	cl "$id" close >/dev/null
	wait_for 30 eval '! pid_running '"$pid" ||
		tfail "client $id did not exit within 30 s of closing"
	wait "$pid" 2>/dev/null
	eval "exec ${CL_IN[$id]}>&- ${CL_OUT[$id]}<&-"
	unset "CL_IN[$id]" "CL_OUT[$id]" "CL_PID[$id]"
}

# task_id OUT: the taskId of a start or stream answer, which must be 32
# hex digits.
task_id() {
	local id
	id=$(jq -r '.taskId // empty' <<<"$1")
	[[ $id =~ ^[0-9a-f]{32}$ ]] || return 1
	printf '%s\n' "$id"
}

# heard NAME WORD: a message client NAME was sent (by mcpd) contains
# WORD.
heard() {
	grep -F ' S->C ' "$T/$1.wire" 2>/dev/null | grep -qF -- "$2"
}

# cl_close_all: every client closes its session and exits.
cl_close_all() {
	local id
	for id in "${!CL_PID[@]}"; do
		(printf 'close\n' >&"${CL_IN[$id]}") 2>/dev/null
	done
	for id in "${!CL_PID[@]}"; do
		wait_for 30 eval '! pid_running '"${CL_PID[$id]}" ||
			tfail "client $id did not exit within 30 s of closing"
		wait "${CL_PID[$id]}" 2>/dev/null
		eval "exec ${CL_IN[$id]}>&- ${CL_OUT[$id]}<&-"
	done
	CL_IN=() CL_OUT=() CL_PID=()
}
