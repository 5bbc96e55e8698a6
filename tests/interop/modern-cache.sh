#!/bin/bash
# modern-cache.sh -- a server of MCP 2026-07-28 whose lists and reads are
# public for a while (dual-server.mjs --strict --public-ttl 60000: ttlMs
# 60000, cacheScope "public"), reached through mcpd by 1.x SDK clients
# (tasks-client.mjs through `mcpctl connect`).  Both servers run under
# `sh -c 'tee FILE | node ...'`: FILE ($T/NAME.in) is every line mcpd
# sent the server.
#
#   1  A lists the tools twice, then B (another connection) once: the
#      three reach the server at most once.
#   2  A calls flip (the server's tools list_changed, on mcpd's listen
#      stream, reaches A): A's next list reaches the server, once, and
#      shows the tool extra.
#   3  A subscribes to test://r and reads it twice: once at the server.
#      A calls touch test://r (resources/updated reaches A): the next read
#      reaches the server.
#   4  priv, the same server without --public-ttl (ttlMs 0, "private"):
#      every list of C's reaches it.
# A daemon that asked the server every time, or kept a list past its
# change, or kept a private one, fails one of those.
#
# node_modules come from remote_setup (tests/remote/lib.sh).  Exit codes
# (automake): 0 pass, 1 fail, 77 skip, 99 hard error.  By hand, from the
# top of the source tree with the build in build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   bash tests/interop/modern-cache.sh

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: modern-cache: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
# npm ci may be slow.
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}

# shellcheck source=../integration/lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"
# shellcheck source=task-clients.sh
. "$TESTS_SRCDIR/interop/task-clients.sh"

remote_setup
for f in tasks-client.mjs dual-server.mjs; do
	cp "$TESTS_SRCDIR/interop/$f" "$T/" || hard_error "cannot copy $f"
done
export MCPCTL

config=$(jq -n --arg node "$NODE" --arg t "$T" '
	def lit: gsub("\\$"; "$$");
	def teed(name; extra): { command: "/bin/sh",
		args: (["-c", "tee -a \"$1\" | exec \"$2\" \"$3\" --strict " +
			extra, "sh", $t + "/" + name + ".in", $node,
			$t + "/dual-server.mjs"] | map(lit)),
		cwd: ($t | lit), env: { MCPD_TEST_DIR: ($t | lit) },
		# Unpinned: the list mcpd reads itself after a list_changed
		# would fill the cache before the list of the client, which
		# this counts.
		pin: "off" };
	{
		mcpd: { init_timeout_ms: 60000 },
		mcpServers: {
			pub: teed("pub"; "--public-ttl 60000"),
			priv: teed("priv"; "")
		}
	}') || hard_error "cannot build the configuration"
write_config "$T/mcpd.json" "$config"
start_mcpd "$T/mcpd.json"
wait_ready pub 90
wait_ready priv 90

# sent SERVER METHOD: how many requests of METHOD mcpd sent SERVER.
sent() {
	grep -c "\"method\":\"$2\"" "$T/$1.in"
}

# --- 1: lists of two clients, once at the server ------------------------------
cl_start A pub
cl_start B pub
n0=$(sent pub tools/list)
cl_ok A tools >/dev/null
cl_ok A tools >/dev/null
cl_ok B tools >/dev/null
n1=$(sent pub tools/list)
[ $((n1 - n0)) -le 1 ] ||
	tfail "1: three lists of a public tools/list (ttlMs 60000) reached the server $((n1 - n0)) times"
note "figure: 3 lists, $((n1 - n0)) at the server"

# --- 2: a list change drops it ---------------------------------------------
out=$(cl_ok A call flip) || exit 1
jq -e '.text == "extra enabled"' <<<"$out" >/dev/null ||
	tfail "2: flip did not enable extra: $out"
wait_for 20 heard A notifications/tools/list_changed ||
	tfail "2: A never heard the tools list_changed of flip"
n2=$(sent pub tools/list)
out=$(cl_ok A tools) || exit 1
n3=$(sent pub tools/list)
[ $((n3 - n2)) = 1 ] ||
	tfail "2: the list after a list_changed reached the server $((n3 - n2)) times, not once"
jq -e '.names | index("extra")' <<<"$out" >/dev/null ||
	tfail "2: the list after flip does not show extra: $out"

# --- 3: reads, and resources/updated ------------------------------------------
cl_ok A raw resources/subscribe '{"uri":"test://r"}' >/dev/null
r0=$(sent pub resources/read)
for i in 1 2; do
	out=$(cl_ok A raw resources/read '{"uri":"test://r"}') || exit 1
	jq -e '.result.contents[0].text == "r"' <<<"$out" >/dev/null ||
		tfail "3: read $i of test://r: $out"
done
r1=$(sent pub resources/read)
[ $((r1 - r0)) = 1 ] ||
	tfail "3: two reads of a public test://r reached the server $((r1 - r0)) times, not once"
cl_ok A call touch '{"uri":"test://r"}' >/dev/null
wait_for 20 heard A notifications/resources/updated ||
	tfail "3: A never heard the resources/updated of touch"
cl_ok A raw resources/read '{"uri":"test://r"}' >/dev/null
r2=$(sent pub resources/read)
[ $((r2 - r1)) = 1 ] ||
	tfail "3: the read after resources/updated reached the server $((r2 - r1)) times, not once"

# --- 4: private results are not kept ------------------------------------------
cl_start C priv
p0=$(sent priv tools/list)
cl_ok C tools >/dev/null
cl_ok C tools >/dev/null
p1=$(sent priv tools/list)
[ $((p1 - p0)) = 2 ] ||
	tfail "4: two lists of a private tools/list reached the server $((p1 - p0)) times, not twice"

cl_close_all
mcpd_running || fail "mcpd died"
stop_mcpd
exit 0
