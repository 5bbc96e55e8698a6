#!/bin/bash
# versions.sh -- every MCP protocol version a client asks for is answered.
# Three releases of the official TypeScript SDK's client side by side
# (npm aliases in tests/interop/package.json): 1.17.0 and 1.22.0, which
# ask for 2025-06-18 and refuse any other answer, and 1.32.2, which asks
# for 2025-11-25.  Each goes through `mcpctl connect` to server-everything
# (ev, whose session with mcpd is 2025-11-25) alone, and to group dev
# (ev and mcp-fake), with versions-client.mjs, which checks:
#   - the answer is the version the client asked for, and the SDK takes
#     it (before mcpd answered each client per its version, 1.17.0 and
#     1.22.0 threw "Server's protocol version is not supported");
#   - a 2025-06-18 client is declared no tasks capability;
#   - list, call, progress (trigger-long-running-operation), an
#     elicitation answered by the client that declared it (the form of
#     trigger-elicitation-request, whose 2025-11-25 multi-selects are
#     left out for a 2025-06-18 client and whose titled enum comes as
#     enum and enumNames; a 2025-11-25 client gets it as it is), and a
#     resource update (subscribe, toggle-subscriber-updates);
#   - get-resource-links: resource_link content for every one of them.
# Then 1.17.0 asking for 2025-03-26 (its SDK takes that answer too), to
# ev and to dev: get-resource-links' links come as text naming their
# URIs (2025-03-26 has no resource_link), and the elicitation is not sent
# to it (2025-03-26 has none): the tool fails at once.  And asking for
# 2024-11-05: no completions capability (2025-11-25's answer has it).
# Times are printed as "# figure:" lines.
#
# node_modules come from remote_setup (tests/remote/lib.sh).  Exit codes
# (automake): 0 pass, 1 fail, 77 skip, 99 hard error.  By hand, from the
# top of the source tree with the build in build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   bash tests/interop/versions.sh

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: versions: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
# npm ci may be slow; the checks take a minute or two on a loaded machine.
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}
CLIENT_TIMEOUT_S=${CLIENT_TIMEOUT_S:-180}

# shellcheck source=../integration/lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"

remote_setup
cp "$TESTS_SRCDIR/interop/versions-client.mjs" "$T/" ||
	hard_error "cannot copy versions-client.mjs"
for sdk in sdk-1-17 sdk-1-22; do
	[ -f "$W/node_modules/$sdk/package.json" ] ||
		hard_error "$W/node_modules/$sdk is missing (tests/interop/package.json names it)"
done
export MCPCTL

config=$(jq -n --arg node "$NODE" --arg ev "$EVERYTHING" --arg t "$T" \
	--arg fake "$MCP_FAKE" '
	def lit: gsub("\\$"; "$$");
	{
		mcpd: { init_timeout_ms: 60000 },
		mcpServers: {
			ev: { command: ($node | lit),
				args: ([$ev, "stdio"] | map(lit)),
				cwd: ($t | lit),
				env: { MCPD_TEST_DIR: ($t | lit) } },
			fk: { command: ($fake | lit),
				env: { MCPD_TEST_DIR: ($t | lit) } }
		},
		groups: { dev: { servers: ["ev", "fk"] } }
	}') || hard_error "cannot build the configuration"
write_config "$T/mcpd.json" "$config"
start_mcpd "$T/mcpd.json"
wait_ready ev 90
wait_ready fk 30

# run NAME SDK SERVER [ARGS...]: one client's run, its JSON to $T/NAME.json
# (its stderr, and its bridge's, to $T/NAME.err, the wire to
# $T/NAME.wire); fails the test if it did not connect.
run() {
	local name=$1 sdk=$2 server=$3 rc t
	shift 3
	t=$(now_ms)
	MCPD_TEST_DIR=$T "${_MCPD_GUARD[@]}" \
		timeout -k 5 "$CLIENT_TIMEOUT_S" "$NODE" "$T/versions-client.mjs" \
		--sdk "$sdk" --socket "$SOCK" --server "$server" \
		--trace "$T/$name.wire" "$@" </dev/null >"$T/$name.json" \
		2>"$T/$name.err" &
	CLIENT_PID=$!
	wait "$CLIENT_PID"
	rc=$?
	CLIENT_PID=
	note "figure: $name ($sdk on $server) took $(($(now_ms) - t)) ms"
	jq -e . "$T/$name.json" >/dev/null 2>&1 ||
		fail "$name: the client printed no result (exit $rc): $(tail -c 1500 "$T/$name.err")"
	[ "$rc" = 0 ] ||
		fail "$name: $sdk did not connect to $server: $(jq -r .error "$T/$name.json") (answered protocol version $(jq -r .version "$T/$name.json"))"
}

# check NAME JQ WHAT: the run's result satisfies JQ.
check() {
	jq -e "$2" "$T/$1.json" >/dev/null ||
		fail "$1: $3: $(jq -c "${4:-.}" "$T/$1.json" | head -c 3000)"
}

# common NAME VERSION PREFIX: what every client gets.
common() {
	local n=$1 v=$2 p=$3
	check "$n" ".version == \"$v\"" \
		"answered protocol version $(jq -r .version "$T/$n.json"), not $v" .version
	check "$n" '.steps | to_entries | map(select(.value.ok | not)) | length == 0' \
		"a step failed" '.steps | with_entries(select(.value.ok | not))'
	check "$n" ".steps.list.names | index(\"${p}echo\") != null" \
		"tools/list lacks ${p}echo" .steps.list
	check "$n" '.steps.call.text | contains("hello versions")' "echo" .steps.call
	check "$n" '(.steps.progress.progress | length) >= 1 and
		(.steps.progress.isError | not)' "no progress" .steps.progress
	check "$n" '.steps.update.heard' "no notifications/resources/updated" .steps.update
}

for target in ev:"" dev:ev__; do
	server=${target%%:*}
	prefix=${target#*:}
	for sdk in sdk-1-17 sdk-1-22 @modelcontextprotocol/sdk; do
		case $sdk in
		@*) n=new-$server v=2025-11-25 ;;
		*) n=${sdk#sdk-}-$server v=2025-06-18 ;;
		esac
		run "$n" "$sdk" "$server" --prefix "$prefix"
		common "$n" "$v" "$prefix"
		check "$n" '.steps.elicit.asked == 1 and
			(.steps.elicit.isError | not) and
			(.steps.elicit.text | contains("Name: Ada"))' \
			"the elicitation was not answered" .steps.elicit
		check "$n" '.steps.links.types | index("resource_link") != null' \
			"no resource_link" .steps.links
		if [ "$v" = 2025-06-18 ]; then
			check "$n" '.steps.caps.caps.tasks == null' \
				"a 2025-06-18 client was declared tasks" .steps.caps
			# 2025-06-18's forms: no array, enum and enumNames.
			check "$n" '(.steps.elicit.types | to_entries |
				map(select(.value == "array")) | length) == 0 and
				.steps.elicit.types.name == "string" and
				(.steps.elicit.hero.enum == ["hero-1", "hero-2", "hero-3"]) and
				(.steps.elicit.hero.enumNames | length) == 3 and
				.steps.elicit.hero.oneOf == null' \
				"the form is not 2025-06-18's" .steps.elicit
		else
			check "$n" '.steps.elicit.types.untitledMultipleSelectEnum == "array" and
				(.steps.elicit.hero.oneOf | length) == 3' \
				"a 2025-11-25 client did not get the form as it is" .steps.elicit
		fi
		note "$n: $(jq -r '"\(.sdkVersion) asked, got \(.version): \(.steps.list.n) tools, \(.steps.progress.progress | length) progress, elicitation \(.steps.elicit.types | length) fields, update after \(.steps.update.ms) ms, links \(.steps.links.types | join(","))"' "$T/$n.json")"
	done

	# A client of 2025-03-26: links as text; no elicitation for it.
	n=old-$server
	run "$n" sdk-1-17 "$server" --prefix "$prefix" --protocol 2025-03-26
	common "$n" 2025-03-26 "$prefix"
	check "$n" '.steps.links.types | index("resource_link") == null' \
		"a 2025-03-26 client got resource_link content" .steps.links
	check "$n" '.steps.links.second.type == "text" and
		(.steps.links.second.text | test("^Resource link \".*\": demo://resource/dynamic/"))' \
		"the link is not text naming its URI" .steps.links
	check "$n" '.steps.elicit.asked == 0 and .steps.elicit.isError' \
		"a 2025-03-26 client was asked to elicit, or the tool did not fail" .steps.elicit
	check "$n" '.steps.caps.caps.tasks == null' "tasks declared to 2025-03-26" .steps.caps
	note "$n: 1.17.0 asked 2025-03-26, got $(jq -r .version "$T/$n.json"): $(jq -c .steps.links.second.text "$T/$n.json")"
done

# The completions capability: 2025-03-26 and later, not 2024-11-05.
check new-ev '.steps.caps.caps.completions != null' \
	"server-everything's completions are not declared to 2025-11-25" .steps.caps
check old-ev '.steps.caps.caps.completions != null' \
	"completions not declared to 2025-03-26" .steps.caps
run oldest-ev sdk-1-17 ev --protocol 2024-11-05
check oldest-ev '.version == "2024-11-05" and .steps.caps.caps.completions == null' \
	"a 2024-11-05 client: not its version, or completions declared" '[.version, .steps.caps]'
run oldest-dev sdk-1-17 dev --protocol 2024-11-05 --prefix ev__
check oldest-dev '.version == "2024-11-05" and .steps.caps.caps.completions == null and
	.steps.caps.caps.tools != null' \
	"a 2024-11-05 client of the group: not its version, or completions declared" '[.version, .steps.caps]'
note "2024-11-05: no completions, alone and through the group"

stop_mcpd
exit 0
