#!/bin/bash
# man-options.sh -- the manual pages, --help and the programs agree on
# the options.
#
# For mcpd(8), mcpctl(1) and mcpd-remote(1), every option the page names
# in its SYNOPSIS and OPTIONS (for mcpctl, the options before the
# commands and each command's own, in its entry) is run, with an
# argument when the page gives it one, followed by --help: a program that
# accepts the option prints its help and exits 0, one that refuses it
# exits with a usage error (mcpd-remote -v was documented, used in the
# page's example, and refused: "invalid option -- 'v'").  That the check
# tells the two apart is shown first: an option no page names is refused
# by each program and each command.  mcpctl's options before the command
# may follow it too (except -V, and for import, install, uninstall, add
# and remove,
# which take -s alone), as mcpctl(1) says; that is run as well.
#
# The other way: every option that --help shows (mcpctl's, and each
# command's) is in the page, for the program or for that command.  And
# mcpd-remote -v says what its page says, against a remote (node).

. "$TESTS_SRCDIR/integration/lib.sh"

MCPD_REMOTE=${MCPD_REMOTE:-$(dirname "$MCPD")/mcpd-remote}
[ -x "$MCPD_REMOTE" ] || hard_error "MCPD_REMOTE=$MCPD_REMOTE is not an executable"
MAN=$TESTS_SRCDIR/../man
export HOME=$T

# man_options PAGE MODE: "SCOPE OPTION ARG" for each option of PAGE, one a
# line (ARG "-" when none).  MODE prog: SCOPE is "-", options from the
# SYNOPSIS and the OPTIONS section.  MODE commands (mcpctl): the SYNOPSIS
# and the options listed before the first command are "-"; a command's
# own are those of its entry's head (".It Cm NAME ...") and the option
# list nested in its entry, SCOPE the command.
man_options() {
	awk -v mode="$2" '
	function scan(line, scope,    n, t, i, opt, arg) {
		sub(/^\./, "", line)
		n = split(line, t, /[ \t]+/)
		for (i = 1; i < n; i++) {
			if (t[i] != "Fl")
				continue
			opt = t[i + 1]
			if (opt !~ /^-?[A-Za-z0-9]/ || opt ~ /^(Ns|Ar|Cm|Op|Oo|Oc|Pq)$/)
				continue
			arg = "-"
			if (i + 3 <= n && (t[i + 2] == "Ar" || t[i + 2] == "Cm"))
				arg = t[i + 3]
			print scope, "-" opt, arg
		}
	}
	/^\.Sh / { sec = $2; cmd = ""; next }
	/^\.Bl/ { depth++ }
	/^\.El/ { depth--; next }
	# A SYNOPSIS form of one command (".Cm NAME" after ".Nm"): its own.
	sec == "SYNOPSIS" && /^\.Nm / { scmd = "-"; next }
	sec == "SYNOPSIS" && mode == "commands" && /^\.Cm / { scmd = $2; next }
	sec == "SYNOPSIS" { scan($0, scmd == "" ? "-" : scmd); next }
	mode == "prog" && sec == "OPTIONS" { scan($0, "-"); next }
	# A command head spread over lines (.It Xo ... .Xc).
	mode == "commands" && sec == "DESCRIPTION" && depth == 1 && /^\.It Xo/ {
		inxo = 1; cmd = ""; seen = 1; next
	}
	inxo && /^\.Xc/ { inxo = 0; next }
	inxo {
		if (cmd == "" && /^\.Cm /)
			cmd = $2
		scan($0, cmd == "" ? "-" : cmd)
		next
	}
	mode == "commands" && sec == "DESCRIPTION" {
		if (depth == 1 && /^\.It Cm /) {
			cmd = $3
			scan($0, cmd)
		} else if (depth == 1 && /^\.It Fl / && cmd == "" && !seen)
			scan($0, "-")
		else if (depth == 2 && /^\.It Fl / && cmd != "")
			scan($0, cmd)
		if (/^\.It Cm /)
			seen = 1
	}' "$1" | awk '
	# One line per option: the argument of any mention that has one.
	{ k = $1 " " $2; if (!(k in a) || a[k] == "-") a[k] = $3; if (!(k in o)) o[k] = ++n }
	END { for (k in a) print o[k], k, a[k] }' | sort -n | cut -d' ' -f2-
}

# A value for the argument the page calls NAME.
arg_value() {
	case $1 in
	-) ;;
	MS) echo 1000 ;;
	N) echo 4096 ;;
	FD) echo 3 ;;
	seconds | S) echo 5 ;;
	"'Name:"*) echo 'Name: value' ;;
	URL | URI | url) echo 'https://example.com/mcp' ;;
	key) echo 'KEY=value' ;;
	auto | journal | stderr | http | sse | ES256 | RS256) echo "$1" ;;
	*) echo "$T/$1" ;;
	esac
}

CHECKS=0
# accepts DESCRIPTION CMD...: CMD, ending in --help, exits 0.
accepts() {
	local what=$1 rc
	shift
	CHECKS=$((CHECKS + 1))
	timeout 30 "$@" </dev/null >"$T/out" 2>&1
	rc=$?
	[ "$rc" = 0 ] && return 0
	sed 's/^/    /' "$T/out" | head -n 5 >&2
	fail "$what: documented, but refused (exit $rc): ${*}"
}

# refuses DESCRIPTION CMD...: the check can fail: CMD exits non-zero.
refuses() {
	local what=$1
	shift
	timeout 30 "$@" </dev/null >"$T/out" 2>&1 &&
		hard_error "$what: an option no page names was accepted: $*"
	return 0
}

# option_words: the options that the text on stdin names.
option_words() {
	grep -oE '(^|[^A-Za-z0-9_-])--?[A-Za-z][A-Za-z0-9-]*' |
		sed -E 's/^[^-]+//' | sort -u
}

# help_options CMD...: the options that CMD's help names.
help_options() {
	timeout 30 "$@" </dev/null 2>&1 | option_words
}

# in_page SCOPES OPTION: OPTION is in $T/opts for one of SCOPES.
in_page() {
	local s
	for s in $1; do
		awk -v s="$s" -v o="$2" '$1 == s && $2 == o { f = 1 } END { exit !f }' \
			"$T/opts" && return 0
	done
	return 1
}

# check_prog PROGRAM PAGE: mcpd and mcpd-remote.
check_prog() {
	local prog=$1 page=$2 name scope opt arg v
	name=$(basename "$prog")
	man_options "$MAN/$page" prog >"$T/opts"
	[ -s "$T/opts" ] || hard_error "no options found in $page"
	refuses "$name" "$prog" --no-such-option --help
	refuses "$name" "$prog" -Z --help
	while read -r scope opt arg; do
		v=$(arg_value "$arg")
		if [ -n "$v" ]; then
			accepts "$page: $opt $arg" "$prog" "$opt" "$v" --help
		else
			accepts "$page: $opt" "$prog" "$opt" --help
		fi
	done <"$T/opts"
	note "$page: $(wc -l <"$T/opts") options accepted: $(cut -d' ' -f2 "$T/opts" | tr '\n' ' ')"
	for opt in $(help_options "$prog" --help); do
		in_page - "$opt" || fail "$name --help shows $opt, which $page does not document"
	done
}

check_prog "$MCPD" mcpd.8
check_prog "$MCPD_REMOTE" mcpd-remote.1

# mcpctl: the options before the command, then each command's.
man_options "$MAN/mcpctl.1" commands >"$T/opts"
grep -q '^- --json ' "$T/opts" && grep -q '^logs -f ' "$T/opts" ||
	hard_error "mcpctl.1: the options were not found: $(tr '\n' ';' <"$T/opts")"
COMMANDS=$("$MCPCTL" help | awk '/^commands:/ { c = 1; next } c && /^  [a-z]/ { print $1 }')
[ -n "$COMMANDS" ] || hard_error "mcpctl help lists no commands"
refuses mcpctl "$MCPCTL" --no-such-option --help
for cmd in $COMMANDS; do
	refuses "mcpctl $cmd" "$MCPCTL" "$cmd" --no-such-option --help
done
while read -r scope opt arg; do
	v=$(arg_value "$arg")
	set -- "$opt"
	[ -z "$v" ] || set -- "$opt" "$v"
	if [ "$scope" = - ]; then
		accepts "mcpctl.1: $opt" "$MCPCTL" "$@" --help
		case $opt in -V | -h | --help | --version) continue ;; esac
		for cmd in $COMMANDS; do
			case $cmd:$opt in
			import:-s | import:--socket | install:-s | install:--socket) ;;
			uninstall:-s | uninstall:--socket) ;;
			add:-s | add:--socket | remove:-s | remove:--socket) ;;
			import:* | install:* | uninstall:* | add:* | remove:*) continue ;;
			esac
			accepts "mcpctl.1: $opt after $cmd" "$MCPCTL" "$cmd" "$@" --help
		done
	else
		grep -qx "$scope" <<<"$COMMANDS" ||
			fail "mcpctl.1 documents a command $scope that mcpctl help does not list"
		accepts "mcpctl.1: $scope $opt" "$MCPCTL" "$scope" "$@" --help
	fi
done <"$T/opts"
note "mcpctl.1: $(wc -l <"$T/opts") options accepted: $(awk '{ printf "%s%s ", ($1 == "-" ? "" : $1 " "), $2 }' "$T/opts")"

for opt in $("$MCPCTL" --help 2>&1 | head -n 1 | option_words); do
	in_page - "$opt" || fail "mcpctl --help shows $opt, which mcpctl.1 does not document"
done
for cmd in $COMMANDS; do
	for opt in $("$MCPCTL" --help 2>&1 | awk -v c="$cmd" '$1 == c' |
		option_words) $(help_options "$MCPCTL" "$cmd" --help); do
		in_page "- $cmd" "$opt" ||
			fail "mcpctl help shows $opt for $cmd, which mcpctl.1 does not document for it"
	done
done

note "$CHECKS runs"

# mcpd-remote -v says more, as its page says: the transport, each
# response's status, the session and its protocol version; without -v,
# none of it.  (tests/remote/hostile-server.mjs, answering all but calls,
# plays the remote.)
if NODE=$(command -v node 2>/dev/null); then
	HS_PID=
	hs_stop() { [ -z "$HS_PID" ] || { kill -TERM "$HS_PID" 2>/dev/null; wait "$HS_PID" 2>/dev/null; }; }
	CLEANUP_HOOKS+=(hs_stop)
	MCPD_TEST_DIR=$T "$NODE" "$TESTS_SRCDIR/remote/hostile-server.mjs" --mode hang \
		</dev/null >"$T/hs.out" 2>"$T/hs.err" &
	HS_PID=$!
	wait_for 60 grep -q '"port"' "$T/hs.out" ||
		hard_error "hostile-server.mjs did not start: $(cat "$T/hs.err")"
	url=$(jq -r .url "$T/hs.out")
	init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
	for v in -v ''; do
		printf '%s\n' "$init" '{"jsonrpc":"2.0","method":"notifications/initialized"}' |
			timeout 60 "$MCPD_REMOTE" $v "$url" >"$T/mr.out" 2>"$T/mr$v.err" ||
			fail "mcpd-remote $v $url failed: $(cat "$T/mr$v.err")"
		jq -e '.result.serverInfo.name == "hostile"' "$T/mr.out" >/dev/null ||
			fail "mcpd-remote $v did not answer initialize: $(cat "$T/mr.out")"
	done
	for line in 'mcpd-remote: transport: http' 'mcpd-remote: http: POST 200' \
		'mcpd-remote: session: state=established protocol=2025-11-25'; do
		grep -qxF "$line" "$T/mr-v.err" ||
			fail "mcpd-remote -v did not say '$line': $(cat "$T/mr-v.err")"
		! grep -qxF "$line" "$T/mr.err" ||
			fail "mcpd-remote without -v said '$line'"
	done
	note "mcpd-remote -v: $(tr '\n' ';' <"$T/mr-v.err")"
	hs_stop
	HS_PID=
else
	note "node is not installed: mcpd-remote -v is not run against a server"
fi
echo "PASS: $TEST_NAME"
