#!/bin/bash
# logs-json.sh -- a server's stderr is bytes, mcpd's log lines are JSON:
# a line with bytes that are not UTF-8 (0xff 0xfe, a lone continuation
# byte, overlong forms, a cut 3-byte sequence) and a NUL in the middle
# comes out of mcpd/logs, its follow notifications and `mcpctl logs
# --json` as valid UTF-8 that jq and JSON.parse read, with U+FFFD for each
# bad unit and for the NUL, and with the text after the NUL; time_us and
# seq are integers in the JSON text, never 1.79566115576201e+15.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
need_node
command -v iconv >/dev/null 2>&1 || skip "iconv is not installed"

# 100 noise lines: a time that cJSON would print as 1.7...e+15 ends in 0,
# so among 100 lines one nearly always does.
NOISE=100
BAD='bad \xff\xfe | cont \x80 | overlong \xc0\xaf \xe0\x80\xaf | cut \xe2\x82 | nul \x00 after the nul'
HEX=$(printf "$BAD\\nplain line\\n" | od -An -v -tx1 | tr -d ' \n')
R=$'\xef\xbf\xbd'	# U+FFFD
WANT="bad $R$R | cont $R | overlong $R$R $R$R$R | cut $R | nul $R after the nul"

CFG=$T/mcpd.json
write_config "$CFG" <<JSON
{"mcpServers": {"bin": {"command": "$MCP_FAKE",
	"args": ["--stderr-noise=$NOISE", "--stderr-hex=$HEX"]}}}
JSON
start_mcpd "$CFG"
wait_ready bin
LINES=$((1 + NOISE + 2))
wait_for 30 eval '[ "$(server_field bin stats | jq .stderr_lines)" -ge '"$LINES"' ]' ||
	fail "bin's stderr did not all arrive: $(server_field bin stats)"

# check_json FILE WHAT: every line of FILE is valid UTF-8 and a JSON value
# for jq and for JSON.parse, and every seq and time_us is written as an
# integer.
check_json() {
	local file=$1 what=$2 bad
	iconv -f UTF-8 -t UTF-8 "$file" >/dev/null 2>&1 ||
		fail "$what is not valid UTF-8: $(grep -a 'bad ' "$file" | head -1 | od -c | head -5)"
	jq -e . "$file" >/dev/null 2>&1 || fail "$what: jq cannot read it: $(head -c 500 "$file")"
	"$NODE" -e '
		const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(l => l !== "");
		for (const l of lines) JSON.parse(l);' "$file" 2>"$T/node.err" ||
		fail "$what: JSON.parse fails: $(head -3 "$T/node.err")"
	bad=$(grep -a -E -o '"(seq|time_us)": *[^,}]*' "$file" | grep -a -E -v ': *[0-9]+$' | head -3)
	[ -z "$bad" ] || fail "$what: numbers not written as integers: $bad"
}

# --- mcpctl --json logs ------------------------------------------------------------
ctl --json logs bin -n 1000 >"$T/logs.json" 2>"$T/logs.err" || fail "mcpctl --json logs bin failed: $(cat "$T/logs.err")"
check_json "$T/logs.json" "mcpctl --json logs bin"
n=$(jq -s length "$T/logs.json")
[ "$n" = "$LINES" ] || fail "mcpctl --json logs bin printed $n lines, expected $LINES"
got=$(jq -r 'select(.text | startswith("bad ")) | .text' "$T/logs.json")
[ "$got" = "$WANT" ] || fail "the bad line came back as: $(printf '%s' "$got" | od -c | head -8)"
[ "$(jq -r .text "$T/logs.json" | tail -1)" = "plain line" ] || fail "the line after the bad one is not \"plain line\": $(tail -1 "$T/logs.json")"
jq -se 'all(.[]; (.time_us | . == floor) and .time_us > 1500000000000000)' "$T/logs.json" >/dev/null ||
	fail "time_us is not an integer time in microseconds: $(head -2 "$T/logs.json")"
note "mcpctl --json logs: $(grep -a '"bad ' "$T/logs.json")"

# --- the human form keeps the text after the NUL --------------------------------------
ctl logs bin -n 2 >"$T/logs.txt" 2>&1 || fail "mcpctl logs bin failed: $(cat "$T/logs.txt")"
grep -aqF "nul $R after the nul" "$T/logs.txt" || fail "mcpctl logs bin lost the text after the NUL: $(cat -v "$T/logs.txt")"

# --- mcpd/logs straight from the socket, then its follow notifications --------------
cat >"$T/follow.mjs" <<'JS'
// Ask mcpd/logs with follow and append every line mcpd sends, raw.
import fs from 'node:fs';
import net from 'node:net';
const [sock, server, out] = process.argv.slice(2);
const c = net.createConnection(sock);
let buf = Buffer.alloc(0);
c.on('connect', () => c.write(JSON.stringify({ jsonrpc: '2.0', id: 1,
	method: 'mcpd/logs', params: { server, lines: 3, follow: true } }) + '\n'));
c.on('data', (d) => {
	buf = Buffer.concat([buf, d]);
	let i;
	while ((i = buf.indexOf(10)) >= 0) {
		fs.appendFileSync(out, buf.subarray(0, i + 1));
		buf = buf.subarray(i + 1);
	}
});
c.on('close', () => process.exit(0));
c.on('error', (e) => { console.error(String(e)); process.exit(1); });
JS
MCPD_TEST_DIR=$T "$NODE" "$T/follow.mjs" "$SOCK" bin "$T/raw.out" 2>"$T/raw.err" &
RAW_PID=$!
MCPD_TEST_DIR=$T "$MCPCTL" -s "$SOCK" --json logs -f bin -n 1 >"$T/f.out" 2>"$T/f.err" </dev/null &
F_PID=$!
wait_for 30 eval '[ -s "$T/raw.out" ] && [ -s "$T/f.out" ]' ||
	fail "the followers got nothing within 30 s: $(cat "$T/raw.err" "$T/f.err")"
check_json "$T/raw.out" "mcpd/logs"
[ "$(head -1 "$T/raw.out" | jq -r '.result.lines[1].text')" = "$WANT" ] ||
	fail "mcpd/logs sent the bad line as: $(head -1 "$T/raw.out" | od -c | head -8)"

# A restart: the new process writes the same lines, as notifications.
ctl restart bin >/dev/null 2>&1 || fail "mcpctl restart bin failed"
wait_for 30 eval '[ "$(grep -c "plain line" "$T/raw.out")" = 2 ] && [ "$(grep -c "plain line" "$T/f.out")" = 2 ]' ||
	fail "the followers did not get the restarted server's lines: $(tail -3 "$T/raw.out"; tail -3 "$T/f.out")"
for f in raw f; do
	check_json "$T/$f.out" "followed lines ($f)"
done
got=$(jq -r 'select(.method == "mcpd/log") | .params | select(.text | startswith("bad ")) | .text' "$T/raw.out")
[ "$got" = "$WANT" ] || fail "the mcpd/log notification carried: $(printf '%s' "$got" | od -c | head -8)"
got=$(jq -r 'select(.text | startswith("bad ")) | .text' "$T/f.out" | tail -1)
[ "$got" = "$WANT" ] || fail "mcpctl --json logs -f printed: $(printf '%s' "$got" | od -c | head -8)"
n=$(jq -s '[.[] | select(.method == "mcpd/log")] | length' "$T/raw.out")
[ "$n" -ge "$LINES" ] || fail "only $n notifications for the $LINES lines of the restarted server"
jq -se '[.[] | select(.method == "mcpd/log") | .params.seq] as $s | $s == [range($s[0]; $s[0] + ($s | length))]' "$T/raw.out" >/dev/null ||
	fail "notification seq numbers have gaps"
note "mcpd/log notification: $(grep -a '"bad ' "$T/raw.out" | tail -1)"

kill "$RAW_PID" "$F_PID" 2>/dev/null
wait "$RAW_PID" "$F_PID" 2>/dev/null
exit 0
