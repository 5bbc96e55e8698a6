// conformance-node.mjs -- preloaded (node --import) to run the pinned
// MCP conformance suite on a Node.js older than the one it asks for.
//
// @modelcontextprotocol/conformance 0.1.16 says node >= 22 and imports
// fs.globSync, which Node.js 22 added, at the top of its one bundled
// file; it calls it only in the "tier-check" command, never when it runs
// client scenarios.  On an older Node.js the import alone would stop it,
// so the suite's imports of fs get the real module with a globSync that
// says what is missing.  Nothing else is changed, and on Node.js 22 or
// later nothing at all.
import fs from 'node:fs';
import * as nodeModule from 'node:module';

if (typeof fs.globSync !== 'function') {
	const shim = 'data:text/javascript,' + encodeURIComponent(
		"import fs from 'node:fs';\n" +
		"export * from 'node:fs';\n" +
		"export default fs;\n" +
		"export function globSync() {\n" +
		"  throw new Error('fs.globSync needs Node.js 22 or later');\n" +
		"}\n");
	const hooks = 'data:text/javascript,' + encodeURIComponent(
		"export async function resolve(specifier, context, next) {\n" +
		"  if ((specifier === 'fs' || specifier === 'node:fs') &&\n" +
		"      context.parentURL !== undefined &&\n" +
		"      context.parentURL.includes('/@modelcontextprotocol/conformance/'))\n" +
		"    return { url: " + JSON.stringify(shim) + ", shortCircuit: true };\n" +
		"  return next(specifier, context);\n" +
		"}\n");
	if (typeof nodeModule.register !== 'function')
		throw new Error('Node.js ' + process.version + ' can load the ' +
		    'conformance suite neither as it is (22) nor shimmed (18.19, 20.6)');
	nodeModule.register(hooks);
}
