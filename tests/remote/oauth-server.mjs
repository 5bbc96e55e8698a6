// oauth-server.mjs -- an OAuth 2.1 authorization server and a protected
// MCP server in one process, for the tests of mcpd-remote's client
// credentials.  Bound to 127.0.0.1 only; node:http and node:crypto, plus
// the MCP TypeScript SDK from the interop tests' node_modules.
//
//   node oauth-server.mjs --modules DIR [options]
//
//   --modules DIR        the node_modules holding @modelcontextprotocol/sdk
//   --port N             0 (default): any; the port is printed either way
//   --client ID:SECRET   a client authenticating with its secret (repeats)
//   --jwt-client ID:PEM  a client authenticating with private_key_jwt,
//                        PEM its public key file (repeats)
//   --auth-methods LIST  comma-separated token endpoint auth methods,
//                        advertised and enforced (default: all three of
//                        client_secret_basic,client_secret_post,
//                        private_key_jwt); "none-listed": enforce all
//                        three but leave the list out of the metadata
//   --token-ttl S        access token lifetime in seconds (default 3600)
//   --scopes "A B"       scopes_supported (default "mcp:tools")
//   --issuer-path P      the issuer's path ("" default, e.g. "/as")
//   --openid-only        AS metadata only at openid-configuration
//   --prm-root-only      resource metadata only at the root well-known URL
//   --no-challenge-metadata  the 401's WWW-Authenticate names no metadata
//   --wrong-issuer       AS metadata says another issuer
//   --wrong-resource     resource metadata names another resource
//   --http-token-endpoint HOST  token_endpoint says http://HOST:PORT/...
//   --tls CERT:KEY       serve HTTPS with this certificate and key (PEM)
//   --pidfile FILE
//
// On start it prints one JSON line on stdout: {"port", "url" (the MCP
// endpoint), "issuer", "pid"}.
//
// Endpoints:
//   /mcp             Streamable HTTP (the SDK's transport, a session per
//                    client) with tools echo {text} and whoami (the
//                    client_id the bearer token was issued to); without a
//                    valid token: 401 and a Bearer challenge
//   /.well-known/oauth-protected-resource/mcp (and at the root)
//   /.well-known/oauth-authorization-server[ISSUER_PATH]
//   /.well-known/openid-configuration[ISSUER_PATH]
//   ISSUER_PATH/token  client_credentials; resource must be the /mcp URL
//   POST /admin/revoke   every token issued so far stops working
//   GET /admin/tokens    the tokens issued (JSON list), for leak checks
//   GET /stats           token requests by auth method, failures by
//                        error, 401s sent, bearer uses per token (in the
//                        order issued), tokens in URLs seen, requests for
//                        metadata, the last token request's client,
//                        method, resource and scope

import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

function usage(msg) {
	process.stderr.write(`oauth-server: ${msg}\n`);
	process.exit(2);
}

const opts = {
	port: 0, modules: null, clients: new Map(), jwtClients: new Map(),
	methods: ['client_secret_basic', 'client_secret_post',
	    'private_key_jwt'],
	listMethods: true, ttl: 3600, scopes: ['mcp:tools'], issuerPath: '',
	openidOnly: false, prmRootOnly: false, challengeMetadata: true,
	wrongIssuer: false, wrongResource: false, httpTokenHost: null,
	tls: null,
};
{
	const argv = process.argv.slice(2);
	for (let i = 0; i < argv.length; i++) {
		const want = () => {
			if (i + 1 >= argv.length)
				usage(`${argv[i]} needs a value`);
			return argv[++i];
		};
		const pair = (v) => {
			const k = v.indexOf(':');
			if (k <= 0)
				usage(`${argv[i - 1]} takes ID:VALUE`);
			return [v.slice(0, k), v.slice(k + 1)];
		};
		switch (argv[i]) {
		case '--modules': opts.modules = want(); break;
		case '--port': opts.port = Number(want()); break;
		case '--client': {
			const [id, secret] = pair(want());
			opts.clients.set(id, secret);
			break;
		}
		case '--jwt-client': {
			const [id, file] = pair(want());
			opts.jwtClients.set(id, crypto.createPublicKey(
			    fs.readFileSync(file)));
			break;
		}
		case '--auth-methods': {
			const v = want();
			if (v === 'none-listed')
				opts.listMethods = false;
			else
				opts.methods = v.split(',').filter(Boolean);
			break;
		}
		case '--token-ttl': opts.ttl = Number(want()); break;
		case '--scopes':
			opts.scopes = want().split(' ').filter(Boolean);
			break;
		case '--issuer-path': opts.issuerPath = want(); break;
		case '--openid-only': opts.openidOnly = true; break;
		case '--prm-root-only': opts.prmRootOnly = true; break;
		case '--no-challenge-metadata':
			opts.challengeMetadata = false;
			break;
		case '--wrong-issuer': opts.wrongIssuer = true; break;
		case '--wrong-resource': opts.wrongResource = true; break;
		case '--http-token-endpoint': opts.httpTokenHost = want(); break;
		case '--tls': {
			const [cert, key] = pair(want());
			opts.tls = { cert: fs.readFileSync(cert),
			    key: fs.readFileSync(key) };
			break;
		}
		case '--pidfile':
			fs.writeFileSync(want(), `${process.pid}\n`);
			break;
		default: usage(`unknown argument: ${argv[i]}`);
		}
	}
}
if (!opts.modules)
	usage('--modules DIR is required');
if (!(opts.ttl > 0))
	usage('--token-ttl must be positive');
if (opts.issuerPath !== '' && !/^\/[A-Za-z0-9_\/-]*[A-Za-z0-9_-]$/.test(
    opts.issuerPath))
	usage('--issuer-path must look like /as');

const sdk = (p) => import(pathToFileURL(path.join(opts.modules,
    '@modelcontextprotocol/sdk/dist/esm', p)).href);
const { McpServer } = await sdk('server/mcp.js');
const { StreamableHTTPServerTransport } = await sdk('server/streamableHttp.js');
const { z } = await import(pathToFileURL(path.join(opts.modules,
    'zod/index.js')).href);

// ---------------------------------------------------------------------------
// State.

const MAX_BODY_BYTES = 4 * 1024 * 1024;
const MAX_FORM_BYTES = 64 * 1024;

let base = '';			// http://127.0.0.1:PORT, once listening
const issuer = () => base + opts.issuerPath;
const resourceUrl = () => `${base}/mcp`;
const prmPath = '/.well-known/oauth-protected-resource/mcp';

const tokens = new Map();	// token -> {client, method, expires, index}
const tokenList = [];
const usedJti = new Set();
const stats = {
	token_requests: { client_secret_basic: 0, client_secret_post: 0,
	    private_key_jwt: 0 },
	token_failures: {},
	tokens_issued: 0,
	unauthorized: 0,
	bearer_uses: [],
	revocations: 0,
	token_in_url: 0,
	metadata_requests: 0,
	last_token_request: null,
};
const sessions = new Map();	// Mcp-Session-Id -> transport

function log(msg) {
	process.stderr.write(`oauth-server: ${msg}\n`);
}

function sendJson(res, status, obj, headers = {}) {
	const body = JSON.stringify(obj);
	res.writeHead(status, { 'Content-Type': 'application/json',
	    'Cache-Control': 'no-store', ...headers });
	res.end(body);
}

function readBody(req, max) {
	return new Promise((resolve, reject) => {
		const chunks = [];
		let n = 0;
		req.on('data', (c) => {
			n += c.length;
			if (n > max) {
				reject(new Error('body too large'));
				req.destroy();
				return;
			}
			chunks.push(c);
		});
		req.on('end', () => resolve(Buffer.concat(chunks)));
		req.on('error', reject);
	});
}

// ---------------------------------------------------------------------------
// Metadata.

function protectedResourceMetadata() {
	return {
		resource: opts.wrongResource ? `${base}/elsewhere` :
		    resourceUrl(),
		authorization_servers: [issuer()],
		scopes_supported: opts.scopes,
		bearer_methods_supported: ['header'],
	};
}

function tokenEndpoint() {
	if (opts.httpTokenHost !== null) {
		const port = new URL(base).port;
		return `http://${opts.httpTokenHost}:${port}${opts.issuerPath}/token`;
	}
	return `${issuer()}/token`;
}

function authServerMetadata() {
	const m = {
		issuer: opts.wrongIssuer ? `${base}/not-the-issuer` : issuer(),
		token_endpoint: tokenEndpoint(),
		grant_types_supported: ['client_credentials'],
		scopes_supported: opts.scopes,
		response_types_supported: ['token'],
	};
	if (opts.listMethods) {
		m.token_endpoint_auth_methods_supported = opts.methods;
		if (opts.methods.includes('private_key_jwt'))
			m.token_endpoint_auth_signing_alg_values_supported =
			    ['ES256', 'RS256'];
	}
	return m;
}

// ---------------------------------------------------------------------------
// The token endpoint.

class OAuthError extends Error {
	constructor(status, code, description, headers = {}) {
		super(description);
		this.status = status;
		this.code = code;
		this.headers = headers;
	}
}

function formDecode(s) {
	return decodeURIComponent(s.replace(/\+/g, ' '));
}

function sameSecret(a, b) {
	const x = crypto.createHash('sha256').update(a).digest();
	const y = crypto.createHash('sha256').update(b).digest();
	return crypto.timingSafeEqual(x, y);
}

function b64urlJson(part, what) {
	try {
		return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
	} catch {
		throw new OAuthError(401, 'invalid_client',
		    `client_assertion: the ${what} is not base64url JSON`);
	}
}

// RFC 7523 section 3, RFC 7521 section 5.2.
function verifyAssertion(jwt, bodyClientId) {
	const parts = jwt.split('.');
	if (parts.length !== 3)
		throw new OAuthError(401, 'invalid_client',
		    'client_assertion is not a compact JWS');
	const header = b64urlJson(parts[0], 'header');
	const claims = b64urlJson(parts[1], 'claims set');
	const clientId = claims.iss;
	if (typeof clientId !== 'string' || claims.sub !== clientId)
		throw new OAuthError(401, 'invalid_client',
		    'client_assertion: iss and sub must both be the client_id');
	if (bodyClientId !== undefined && bodyClientId !== clientId)
		throw new OAuthError(401, 'invalid_client',
		    'client_assertion: client_id differs from iss');
	const key = opts.jwtClients.get(clientId);
	if (key === undefined)
		throw new OAuthError(401, 'invalid_client',
		    'unknown client for private_key_jwt');
	const data = Buffer.from(`${parts[0]}.${parts[1]}`);
	const sig = Buffer.from(parts[2], 'base64url');
	let ok;
	if (header.alg === 'ES256' && key.asymmetricKeyType === 'ec')
		ok = crypto.verify('sha256', data,
		    { key, dsaEncoding: 'ieee-p1363' }, sig);
	else if (header.alg === 'RS256' && key.asymmetricKeyType === 'rsa')
		ok = crypto.verify('sha256', data, key, sig);
	else
		throw new OAuthError(401, 'invalid_client',
		    `client_assertion: alg ${String(header.alg)} does not fit ` +
		    'the registered key');
	if (!ok)
		throw new OAuthError(401, 'invalid_client',
		    'client_assertion: bad signature');
	const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
	if (!aud.includes(issuer()) && !aud.includes(tokenEndpoint()))
		throw new OAuthError(401, 'invalid_client',
		    `client_assertion: aud ${JSON.stringify(claims.aud)} is ` +
		    'neither the issuer nor the token endpoint');
	const now = Math.floor(Date.now() / 1000);
	if (typeof claims.exp !== 'number' || claims.exp <= now - 5)
		throw new OAuthError(401, 'invalid_client',
		    'client_assertion: expired or no exp');
	if (claims.exp > now + 3600)
		throw new OAuthError(401, 'invalid_client',
		    'client_assertion: exp too far ahead');
	if (typeof claims.jti !== 'string' || claims.jti === '')
		throw new OAuthError(401, 'invalid_client',
		    'client_assertion: no jti');
	if (usedJti.has(claims.jti))
		throw new OAuthError(401, 'invalid_client',
		    'client_assertion: jti used before');
	usedJti.add(claims.jti);
	return clientId;
}

// The client and how it authenticated, or an OAuthError.
function authenticate(req, form) {
	const methods = [];
	const authz = req.headers.authorization;
	if (authz !== undefined && /^basic /i.test(authz))
		methods.push('client_secret_basic');
	if (form.has('client_secret'))
		methods.push('client_secret_post');
	if (form.has('client_assertion') ||
	    form.has('client_assertion_type'))
		methods.push('private_key_jwt');
	if (methods.length === 0)
		throw new OAuthError(401, 'invalid_client',
		    'no client authentication');
	if (methods.length > 1)
		throw new OAuthError(400, 'invalid_request',
		    'more than one client authentication method');
	const method = methods[0];
	stats.token_requests[method]++;
	if (!opts.methods.includes(method))
		throw new OAuthError(401, 'invalid_client',
		    `${method} is not accepted here`);
	let client;
	if (method === 'client_secret_basic') {
		const raw = Buffer.from(authz.slice(6).trim(), 'base64')
		    .toString('utf8');
		const k = raw.indexOf(':');
		if (k < 0)
			throw new OAuthError(401, 'invalid_client',
			    'malformed Basic credentials',
			    { 'WWW-Authenticate': 'Basic realm="token"' });
		let id, secret;
		try {
			id = formDecode(raw.slice(0, k));
			secret = formDecode(raw.slice(k + 1));
		} catch {
			throw new OAuthError(401, 'invalid_client',
			    'Basic credentials not form-encoded');
		}
		const want = opts.clients.get(id);
		if (want === undefined || !sameSecret(want, secret))
			throw new OAuthError(401, 'invalid_client',
			    'client authentication failed',
			    { 'WWW-Authenticate': 'Basic realm="token"' });
		client = id;
	} else if (method === 'client_secret_post') {
		const id = form.get('client_id');
		const want = opts.clients.get(id ?? '');
		if (want === undefined ||
		    !sameSecret(want, form.get('client_secret')))
			throw new OAuthError(401, 'invalid_client',
			    'client authentication failed');
		client = id;
	} else {
		if (form.get('client_assertion_type') !==
		    'urn:ietf:params:oauth:client-assertion-type:jwt-bearer')
			throw new OAuthError(401, 'invalid_client',
			    'unsupported client_assertion_type');
		client = verifyAssertion(form.get('client_assertion') ?? '',
		    form.get('client_id') ?? undefined);
	}
	return { client, method };
}

async function tokenEndpointRequest(req, res) {
	if (req.method !== 'POST') {
		sendJson(res, 405, { error: 'invalid_request' },
		    { Allow: 'POST' });
		return;
	}
	let body;
	try {
		body = await readBody(req, MAX_FORM_BYTES);
	} catch {
		sendJson(res, 413, { error: 'invalid_request' });
		return;
	}
	const form = new URLSearchParams(body.toString('utf8'));
	const seen = { method: null, client: null,
	    resource: form.get('resource'), scope: form.get('scope') };
	stats.last_token_request = seen;
	try {
		if (!/^application\/x-www-form-urlencoded/i.test(
		    req.headers['content-type'] ?? ''))
			throw new OAuthError(400, 'invalid_request',
			    'not application/x-www-form-urlencoded');
		const { client, method } = authenticate(req, form);
		seen.method = method;
		seen.client = client;
		if (form.get('grant_type') !== 'client_credentials')
			throw new OAuthError(400, 'unsupported_grant_type',
			    'only client_credentials');
		if (form.get('resource') !== resourceUrl())
			throw new OAuthError(400, 'invalid_target',
			    `resource must be ${resourceUrl()}`);
		const scope = form.get('scope');
		if (scope !== null && !scope.split(' ').every((s) =>
		    opts.scopes.includes(s)))
			throw new OAuthError(400, 'invalid_scope',
			    'unknown scope');
		const token = crypto.randomBytes(24).toString('base64url');
		const index = tokenList.length;
		tokens.set(token, { client, method, index,
		    expires: Date.now() + opts.ttl * 1000 });
		tokenList.push(token);
		stats.tokens_issued++;
		stats.bearer_uses.push(0);
		log(`token #${index} for ${client} by ${method}, ` +
		    `${opts.ttl} s`);
		sendJson(res, 200, { access_token: token, token_type: 'Bearer',
		    expires_in: opts.ttl, scope: scope ?? undefined },
		    { Pragma: 'no-cache' });
	} catch (e) {
		if (!(e instanceof OAuthError))
			throw e;
		stats.token_failures[e.code] =
		    (stats.token_failures[e.code] ?? 0) + 1;
		log(`token request refused: ${e.code}: ${e.message}`);
		sendJson(res, e.status, { error: e.code,
		    error_description: e.message }, e.headers);
	}
}

// ---------------------------------------------------------------------------
// The MCP server.

function newMcpServer() {
	const server = new McpServer({ name: 'oauth-test-server',
	    version: '1.0.0' });
	server.registerTool('echo', {
		description: 'Echoes its text',
		inputSchema: { text: z.string() },
	}, async ({ text }) => ({ content: [{ type: 'text', text }] }));
	server.registerTool('whoami', {
		description: 'The client_id the bearer token was issued to',
		inputSchema: {},
	}, async (_args, extra) => ({ content: [{ type: 'text',
	    text: extra.authInfo?.clientId ?? '(nobody)' }] }));
	return server;
}

function challenge(res, presented) {
	stats.unauthorized++;
	let v = 'Bearer';
	const params = [];
	if (opts.challengeMetadata)
		params.push(`resource_metadata="${base}${prmPath}"`);
	if (presented)
		params.push('error="invalid_token"',
		    'error_description="the access token is not valid"');
	if (params.length)
		v += ' ' + params.join(', ');
	res.writeHead(401, { 'WWW-Authenticate': v,
	    'Content-Type': 'application/json' });
	res.end(JSON.stringify({ error: 'invalid_token' }));
}

async function mcpRequest(req, res) {
	const authz = req.headers.authorization ?? '';
	const m = /^Bearer ([A-Za-z0-9._~+\/-]+=*)$/i.exec(authz);
	const t = m ? tokens.get(m[1]) : undefined;
	if (t === undefined || t.expires <= Date.now()) {
		challenge(res, m !== null);
		return;
	}
	stats.bearer_uses[t.index]++;
	req.auth = { token: m[1], clientId: t.client, scopes: opts.scopes,
	    expiresAt: Math.floor(t.expires / 1000) };

	const sid = req.headers['mcp-session-id'];
	let body;
	if (req.method === 'POST') {
		try {
			body = JSON.parse((await readBody(req, MAX_BODY_BYTES))
			    .toString('utf8'));
		} catch {
			sendJson(res, 400, { jsonrpc: '2.0', id: null, error: {
			    code: -32700, message: 'Parse error' } });
			return;
		}
	}
	if (sid !== undefined) {
		const transport = sessions.get(sid);
		if (transport === undefined) {
			sendJson(res, 404, { jsonrpc: '2.0', id: null, error: {
			    code: -32001, message: 'Session not found' } });
			return;
		}
		await transport.handleRequest(req, res, body);
		return;
	}
	const isInit = (msg) => msg?.method === 'initialize';
	if (req.method !== 'POST' || !(Array.isArray(body) ?
	    body.some(isInit) : isInit(body))) {
		sendJson(res, 400, { jsonrpc: '2.0', id: null, error: {
		    code: -32000, message: 'Bad Request: no valid session ID' } });
		return;
	}
	const transport = new StreamableHTTPServerTransport({
		sessionIdGenerator: () => crypto.randomUUID(),
		onsessioninitialized: (id) => sessions.set(id, transport),
	});
	transport.onclose = () => {
		if (transport.sessionId !== undefined)
			sessions.delete(transport.sessionId);
	};
	await newMcpServer().connect(transport);
	await transport.handleRequest(req, res, body);
}

// ---------------------------------------------------------------------------
// Routing.

async function route(req, res) {
	const u = new URL(req.url, base);
	const p = u.pathname;
	if (/access_token=/i.test(u.search))
		stats.token_in_url++;
	const asmOauth = `/.well-known/oauth-authorization-server${opts.issuerPath}`;
	const asmOidc = `/.well-known/openid-configuration${opts.issuerPath}`;
	if (p === '/mcp')
		return mcpRequest(req, res);
	if (p.startsWith('/.well-known/'))
		stats.metadata_requests++;
	if (req.method === 'GET' && p === prmPath && !opts.prmRootOnly)
		return sendJson(res, 200, protectedResourceMetadata());
	if (req.method === 'GET' && p === '/.well-known/oauth-protected-resource')
		return sendJson(res, 200, protectedResourceMetadata());
	if (req.method === 'GET' && p === asmOauth && !opts.openidOnly)
		return sendJson(res, 200, authServerMetadata());
	if (req.method === 'GET' && p === asmOidc)
		return sendJson(res, 200, authServerMetadata());
	if (p === `${opts.issuerPath}/token`)
		return tokenEndpointRequest(req, res);
	if (req.method === 'POST' && p === '/admin/revoke') {
		tokens.clear();
		stats.revocations++;
		log('every token revoked');
		return sendJson(res, 200, { revoked: true });
	}
	if (req.method === 'GET' && p === '/admin/tokens')
		return sendJson(res, 200, tokenList);
	if (req.method === 'GET' && p === '/stats')
		return sendJson(res, 200, { ...stats,
		    sessions: sessions.size });
	sendJson(res, 404, { error: 'not found' });
}

const handler = (req, res) => {
	route(req, res).catch((e) => {
		log(`internal error: ${e.stack ?? e}`);
		if (!res.headersSent)
			sendJson(res, 500, { error: 'server_error' });
		else
			res.destroy();
	});
};
const httpServer = opts.tls ? https.createServer(opts.tls, handler) :
    http.createServer(handler);
httpServer.listen(opts.port, '127.0.0.1', () => {
	const { port } = httpServer.address();
	base = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
	process.stdout.write(JSON.stringify({ port, url: resourceUrl(),
	    issuer: issuer(), pid: process.pid }) + '\n');
});
for (const sig of ['SIGTERM', 'SIGINT'])
	process.on(sig, () => process.exit(0));
