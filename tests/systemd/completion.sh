#!/bin/bash
# completion.sh -- the bash completion of mcpctl (etc/bash-completion/mcpctl)
# completes commands, options and the names of the running servers.
#
# The completion function runs as bash would run it (COMP_WORDS, COMP_CWORD),
# with a PATH that holds mcpctl and the few standard tools it may use but
# no jq, against an mcpd supervising "alpha" and "b-2.x" (fake servers,
# whose serverInfo.name is "mcp-fake": a name that must not be offered)
# and the group "grp" of both.
# Asserted: every command of `mcpctl help` and nothing else; prefixes;
# options; server and group names (the built-in "all" too) for NAME
# arguments, found through -s PATH, --socket=PATH or $MCPD_SOCKET, and
# server names alone for login, logout and remove; for add nothing for
# its new NAME, its options, directories for --cwd, a program after it
# and files after that; nothing after a command's last NAME, nor for a
# prompt's name or a URI; files after read --output; the apps of install
# and uninstall; and nothing, quickly, when mcpd is not running.

# shellcheck source=../integration/lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

COMPLETION=$TESTS_SRCDIR/../etc/bash-completion/mcpctl
[ -r "$COMPLETION" ] || hard_error "cannot read $COMPLETION"
bash -n "$COMPLETION" || fail "$COMPLETION is not valid bash"

# A PATH without jq: the completion must do without it.
mkdir -p "$T/bin"
for tool in awk sed grep tr timeout cat sort head; do
	p=$(command -v "$tool") && ln -s "$p" "$T/bin/$tool"
done
[ ! -e "$T/bin/jq" ] || hard_error "jq in the test PATH"

write_config "$T/mcpd.json" <<JSON
{ "mcpServers": { "alpha": { "command": "$MCP_FAKE" },
                  "b-2.x": { "command": "$MCP_FAKE" } },
  "groups": { "grp": { "servers": ["alpha", "b-2.x"] } } }
JSON
start_mcpd "$T/mcpd.json"
wait_ready alpha
wait_ready b-2.x

# complete WORD...: the candidates for the last WORD, sorted, on one line.
# The first WORD is the program as typed; "mcpctl" stands for $MCPCTL.
complete_words() {
	local w words=()
	for w; do
		[ "$w" = mcpctl ] && [ ${#words[@]} = 0 ] && w=$MCPCTL
		words+=("$w")
	done
	env -i PATH="$T/bin" HOME="$T" ${MCPD_SOCKET_FOR_COMPLETION:+MCPD_SOCKET="$MCPD_SOCKET_FOR_COMPLETION"} \
		"$BASH" --norc --noprofile -c '
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		COMPREPLY=()
		_mcpctl
		printf "%s\n" "${COMPREPLY[@]}"' - "$COMPLETION" "${words[@]}" |
		grep . | sort | tr '\n' ' ' | sed 's/ $//'
}

# expect_completion WANT WORD...: the candidates are exactly WANT.
expect_completion() {
	local want=$1 got
	shift
	got=$(complete_words "$@")
	[ "$got" = "$want" ] ||
		fail "completing '$*': got '$got', expected '$want'"
	note "'$*' -> ${got:-(nothing)}"
}

COMMANDS=$("$MCPCTL" help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }' | sort | tr '\n' ' ' | sed 's/ $//')
[ -n "$COMMANDS" ] || hard_error "mcpctl help lists no commands"
ST=$(tr ' ' '\n' <<<"$COMMANDS" | grep '^st' | tr '\n' ' ' | sed 's/ $//')

expect_completion "$COMMANDS" mcpctl ""
expect_completion "$ST" mcpctl st
expect_completion "$COMMANDS" mcpctl -s "$SOCK" ""
got=$(complete_words mcpctl --)
for opt in --socket --json --no-block --help --version; do
	case " $got " in
	*" $opt "*) ;;
	*) fail "completing 'mcpctl --': '$opt' missing from '$got'" ;;
	esac
done
note "'mcpctl --' -> $got"

NAMES="all alpha b-2.x grp"
expect_completion "$NAMES" mcpctl -s "$SOCK" restart ""
expect_completion "$NAMES" mcpctl -s "$SOCK" stop alpha ""
expect_completion "$NAMES" mcpctl -s "$SOCK" logs ""
expect_completion "all alpha" mcpctl --socket="$SOCK" status al
expect_completion "grp" mcpctl -s "$SOCK" status g
expect_completion "$NAMES" mcpctl --json -s "$SOCK" ping ""
expect_completion "" mcpctl -s "$SOCK" ping alpha ""
expect_completion "$NAMES" mcpctl -s "$SOCK" call ""
expect_completion "" mcpctl -s "$SOCK" call alpha ""
expect_completion "alpha b-2.x" mcpctl -s "$SOCK" login ""
for cmd in prompts prompt resources read; do
	expect_completion "$NAMES" mcpctl -s "$SOCK" "$cmd" ""
done
expect_completion "" mcpctl -s "$SOCK" prompts alpha ""
expect_completion "" mcpctl -s "$SOCK" prompt grp ""
expect_completion "" mcpctl -s "$SOCK" read alpha ""
expect_completion "" mcpctl -s "$SOCK" read alpha fake://hello ""
: >"$T/saved-here.bin"
expect_completion "$T/saved-here.bin" mcpctl -s "$SOCK" read alpha fake://hello --output "$T/saved-"
expect_completion "--output" mcpctl -s "$SOCK" read alpha fake://hello --out
# remove takes a server, never a group; add a new name, then a command.
expect_completion "alpha b-2.x" mcpctl -s "$SOCK" remove ""
expect_completion "" mcpctl -s "$SOCK" remove alpha ""
expect_completion "" mcpctl -s "$SOCK" add ""
expect_completion "--cwd" mcpctl add x --cw
expect_completion "sort" mcpctl add x -- sor
expect_completion "sort" mcpctl add x --env K=V sor
expect_completion "" mcpctl add x sort --cw
mkdir -p "$T/tree/dir" && : >"$T/tree/file" || hard_error "mkdir $T/tree"
expect_completion "$T/tree/dir" mcpctl add x --cwd "$T/tree/"
expect_completion "$T/tree/dir $T/tree/file" mcpctl add x -- sort "$T/tree/"
MCPD_SOCKET_FOR_COMPLETION=$SOCK expect_completion "$NAMES" mcpctl start ""

# The apps of install and uninstall, every one mcpctl knows.
APPS="claude-code claude-desktop cline codex cursor gemini-cli opencode vscode windsurf zed"
expect_completion "$APPS" mcpctl install ""
expect_completion "zed" mcpctl install z
expect_completion "claude-code claude-desktop cline codex cursor" mcpctl uninstall c

# mcpd not running: nothing, and at once.
t0=$(now_ms)
expect_completion "" mcpctl -s "$T/nobody-here.sock" stop ""
elapsed=$(($(now_ms) - t0))
note "completing server names without an mcpd took $elapsed ms"
[ "$elapsed" -lt 3000 ] ||
	fail "completing server names without an mcpd took $elapsed ms"

exit 0
