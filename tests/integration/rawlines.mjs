// rawlines.mjs SOCK IN OUT [EXPECT] -- send the lines of file IN on one
// connection to mcpd at SOCK, one write each, and write to OUT what came
// back: a JSON array of {line, id} where id is the raw text of the reply's
// top-level "id" (byte for byte, as rawjson.mjs reads it) or null, plus
// whether the connection was closed.  Waits for EXPECT replies (default:
// one per line), for the close, or 100 s (a safety net: the caller's
// checks say what was missing).  Only Node's built-in modules and
// rawjson.mjs are used.
import fs from 'node:fs';
import net from 'node:net';
import { rawMembers } from './rawjson.mjs';

const [sock, inFile, outFile, expectArg] = process.argv.slice(2);
const lines = fs.readFileSync(inFile, 'latin1').split('\n').filter((l) => l.length > 0);
const expect = expectArg !== undefined ? Number(expectArg) : lines.length;
const got = [];
let buf = Buffer.alloc(0), closed = false, finished = false;

function finish(why) {
	if (finished)
		return;
	finished = true;
	fs.writeFileSync(outFile, JSON.stringify({ why, closed, replies: got }));
	c.destroy();
	process.exit(0);
}
const c = net.connect(sock);
setTimeout(() => finish('timeout'), 100000);
c.on('connect', async () => {
	for (const l of lines) {
		// latin1 round-trips every byte, so invalid UTF-8 goes out as is.
		c.write(Buffer.from(l + '\n', 'latin1'));
		await new Promise((r) => setTimeout(r, 20));
	}
});
c.on('data', (d) => {
	buf = Buffer.concat([buf, d]);
	let i;
	while ((i = buf.indexOf(10)) >= 0) {
		const line = buf.subarray(0, i).toString('utf8');
		buf = buf.subarray(i + 1);
		let id = null;
		try {
			id = (rawMembers(line) ?? {}).id ?? null;
		} catch {
			id = '(unreadable)';
		}
		got.push({ line: line.length > 2000 ? line.slice(0, 2000) + '...' : line, id });
		if (got.length >= expect)
			finish('replies');
	}
});
c.on('close', () => {
	closed = true;
	finish('closed');
});
c.on('error', () => {});
