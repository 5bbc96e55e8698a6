// tcp-switch.mjs -- a TCP forwarder whose target can be switched, so that
// an HTTP server can be replaced by a new process without its address
// ever refusing a connection: what a client behind it sees is only that
// the server lost its sessions.
//
//   node tcp-switch.mjs TARGET_FILE
//
// Listens on 127.0.0.1 (a port the kernel picks) and prints "listening
// PORT" on stdout.  Each new connection goes to 127.0.0.1:N, N read from
// TARGET_FILE at that moment; connections already made stay with their
// server and end when it does.

import { createServer, connect } from "node:net";
import { readFileSync } from "node:fs";

const file = process.argv[2];
if (!file) {
  process.stderr.write("usage: node tcp-switch.mjs TARGET_FILE\n");
  process.exit(2);
}

const server = createServer((down) => {
  let port;
  try {
    port = Number(readFileSync(file, "utf8").trim());
  } catch {
    port = 0;
  }
  if (!(port > 0 && port < 65536)) {
    down.destroy();
    return;
  }
  const up = connect(port, "127.0.0.1");
  down.pipe(up);
  up.pipe(down);
  const end = () => { down.destroy(); up.destroy(); };
  down.on("error", end);
  up.on("error", end);
  down.on("close", end);
  up.on("close", end);
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.on("SIGTERM", () => process.exit(0));
