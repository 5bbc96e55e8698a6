// recover-client.mjs -- an SDK client of a remote server run by mcpd, kept
// connected through `mcpctl connect NAME` while the HTTP server behind it
// dies and comes back.
//
//   MCPCTL=/abs/mcpctl node recover-client.mjs kill --kill-pid PID \
//       --dir DIR --server NAME --sock SOCKET
//   MCPCTL=/abs/mcpctl node recover-client.mjs expire \
//       --dir DIR --server NAME --sock SOCKET
//
// kill: starts server-everything's long-running operation and, once its
// first progress arrived, SIGKILLs the HTTP server (PID): the call must
// fail with a JSON-RPC error within CALL_ERROR_BOUND_MS, not hang, and the
// client's connection must stay up.  It then creates DIR/killed and waits
// for DIR/restarted (the test has restarted the server on the same port),
// and calls echo until one succeeds (each failure a clean error) within
// RECOVER_BOUND_MS; then echo, progress and ping must work as before.
//
// expire: after a first echo, creates DIR/ready and waits for
// DIR/restarted (the server was restarted: the session the worker holds
// is gone).  The very next call must succeed, as must tools/list and a
// call with progress, and the SDK must have reported no error at all.
//
// Prints one JSON object: {"scenario", "problems": [...], measurements};
// exits 0 when it could run (the problems are the test's to judge), 2 on
// bad usage.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// The bound the kill scenario checks: the call fails in milliseconds;
// hanging, it would wait out its 60 s timeout.  20 s tells them apart on
// a loaded machine.
const CALL_ERROR_BOUND_MS = 20000;
// Waits for conditions, generous for a loaded machine.
const RECOVER_BOUND_MS = 45000;
const WAIT_RESTART_MS = 150000;
const REQ = { timeout: 30000 };

function usage(msg) {
  process.stderr.write(`recover-client: ${msg}\n`);
  process.exit(2);
}

const argv = process.argv.slice(2);
const scenario = argv.shift();
if (scenario !== "kill" && scenario !== "expire") usage("scenario: kill or expire");
const opts = {};
for (let i = 0; i < argv.length; i++) {
  const v = argv[i + 1];
  if (v === undefined) usage(`${argv[i]} needs a value`);
  switch (argv[i]) {
    case "--kill-pid": opts.killPid = Number(v); break;
    case "--dir": opts.dir = v; break;
    case "--server": opts.server = v; break;
    case "--sock": opts.sock = v; break;
    default: usage(`unknown argument ${argv[i]}`);
  }
  i++;
}
if (!opts.dir || !opts.server || !opts.sock) usage("--dir, --server and --sock are required");
if (scenario === "kill" && !(opts.killPid > 1)) usage("kill needs --kill-pid");
const MCPCTL = process.env.MCPCTL;
if (!MCPCTL || !MCPCTL.startsWith("/")) usage("MCPCTL must be an absolute path");

const out = { scenario, problems: [] };
const problem = (msg) => out.problems.push(msg);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const describe = (err) => `${err && err.name ? err.name : "Error"}: ` +
  `${err && err.message ? err.message : String(err)}` +
  (err && err.code !== undefined ? ` (code ${err.code})` : "");

async function waitFile(name, ms) {
  const deadline = Date.now() + ms;
  while (!existsSync(join(opts.dir, name))) {
    if (Date.now() >= deadline) return false;
    await sleep(20);
  }
  return true;
}

function textOf(result) {
  if (!result || !Array.isArray(result.content) || result.isError)
    throw new Error(`bad tool result: ${JSON.stringify(result).slice(0, 200)}`);
  return result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

const client = new Client({ name: "mcpd-remote-recover", version: "1.0.0" },
  { capabilities: {} });
const sdkErrors = [];
let closed = false;
client.onerror = (err) => sdkErrors.push(describe(err));
client.onclose = () => { closed = true; };
const transport = new StdioClientTransport({
  command: MCPCTL,
  args: ["-s", opts.sock, "connect", opts.server],
  env: { ...process.env },
  stderr: "inherit",
});

let tools;
async function echo(msg, req = REQ) {
  const text = textOf(await client.callTool(
    { name: "echo", arguments: { message: msg } }, undefined, req));
  if (!text.includes(msg)) throw new Error(`echo returned ${JSON.stringify(text)}`);
}

// progressCall(): a short long-running operation; the progress it saw.
async function progressCall() {
  const seen = [];
  textOf(await client.callTool(
    { name: tools.long, arguments: { duration: 1, steps: 2 } }, undefined,
    { timeout: 30000, onprogress: (p) => seen.push(p.progress) }));
  return seen;
}

async function setUp() {
  await client.connect(transport, { timeout: 30000 });
  const { tools: list } = await client.listTools({}, REQ);
  const names = new Set(list.map((t) => t.name));
  tools = {
    long: ["trigger-long-running-operation", "longRunningOperation"]
      .find((n) => names.has(n)),
  };
  if (!names.has("echo") || !tools.long)
    throw new Error(`tools missing: ${[...names].join(", ")}`);
  await echo("before");
}

async function killScenario() {
  let progressed = 0;
  const call = client.callTool(
    { name: tools.long, arguments: { duration: 30, steps: 30 } }, undefined,
    { timeout: 60000, onprogress: () => { progressed++; } });
  const outcome = call.then(() => "resolved", (err) => err);
  const deadline = Date.now() + 25000;
  while (progressed === 0 && Date.now() < deadline) await sleep(10);
  if (progressed === 0) {
    problem("no progress within 25 s from the operation before the kill");
    return;
  }
  const t = Date.now();
  process.kill(opts.killPid, "SIGKILL");
  const res = await Promise.race([outcome, sleep(CALL_ERROR_BOUND_MS).then(() => "pending")]);
  out.call_error_ms = Date.now() - t;
  if (res === "pending")
    problem(`the call in progress was still pending ${CALL_ERROR_BOUND_MS} ms after the HTTP server died`);
  else if (res === "resolved")
    problem("the call in progress resolved although its server was killed");
  else {
    out.call_error = describe(res);
    if (typeof res.code !== "number" || res.code === -32001)
      problem(`the call failed with ${describe(res)}, not a JSON-RPC error from mcpd`);
  }
  if (closed) problem("the client's connection closed when the HTTP server died");
  writeFileSync(join(opts.dir, "killed"), "");
  if (!(await waitFile("restarted", WAIT_RESTART_MS))) {
    problem("the test did not restart the HTTP server");
    return;
  }
  const t1 = Date.now();
  let failures = 0, lastErr = "";
  for (;;) {
    try {
      await echo(`recovered-${failures}`, { timeout: 30000 });
      break;
    } catch (err) {
      failures++;
      lastErr = describe(err);
      if (closed || Date.now() - t1 >= RECOVER_BOUND_MS) {
        problem(`no echo succeeded within ${Date.now() - t1} ms of the restart ` +
          `(${failures} failed, last: ${lastErr})` + (closed ? "; connection closed" : ""));
        return;
      }
      await sleep(250);
    }
  }
  out.recover_ms = Date.now() - t1;
  out.failed_while_recovering = failures;
  out.last_error_while_recovering = lastErr;
}

async function expireScenario() {
  writeFileSync(join(opts.dir, "ready"), "");
  if (!(await waitFile("restarted", WAIT_RESTART_MS))) {
    problem("the test did not restart the HTTP server");
    return;
  }
  const t = Date.now();
  try {
    await echo("after-the-session-expired");
  } catch (err) {
    problem(`the first call after the server restart failed: ${describe(err)}`);
  }
  out.first_call_ms = Date.now() - t;
}

const watchdog = setTimeout(() => {
  problem("the whole scenario did not finish within 280 s");
  done();
}, 280000);

let finished = false;
function done() {
  if (finished) return;
  finished = true;
  clearTimeout(watchdog);
  process.stdout.write(JSON.stringify(out) + "\n");
  Promise.race([client.close().catch(() => {}), sleep(3000)])
    .then(() => process.exit(0));
}

let errorsBeforeAfterwards = 0;
try {
  await setUp();
  if (scenario === "kill") await killScenario();
  else await expireScenario();
  errorsBeforeAfterwards = sdkErrors.length;
  if (out.problems.length === 0) {
    // Everything works as before, on the same connection.
    await echo("afterwards");
    const seen = await progressCall();
    if (seen.length < 1) problem(`no progress from a call after recovery (${JSON.stringify(seen)})`);
    await client.listTools({}, REQ);
    await client.ping(REQ);
  }
} catch (err) {
  problem(`unexpected error: ${describe(err)}`);
}
if (closed) problem("the client's connection to mcpd closed");
// A late progress notification is no error of the session: of the killed
// call, or the last one of the call with progress afterwards (the server
// sends it just before the result, and the SDK dispatches notifications a
// tick later than responses).  Anything else the SDK reported is.
const unexpected = sdkErrors.filter((e, i) => !(/unknown token/.test(e) &&
  (scenario === "kill" || i >= errorsBeforeAfterwards)));
if (unexpected.length)
  problem(`the SDK reported: ${unexpected.slice(0, 3).join(" | ")}`);
out.sdk_errors = sdkErrors.length;
done();
