// oauth-server.mjs -- an OAuth 2.1 authorization server and a protected
// MCP server in one process, for the tests of mcpd-remote's client
// credentials and of the sign-in (`mcpctl login`): the authorization code
// grant with PKCE, dynamic client registration (RFC 7591), Client ID
// Metadata Documents, refresh tokens with rotation and reuse detection,
// revocation (RFC 7009) and step-up on insufficient scope.  Bound to
// 127.0.0.1 only; node:http and node:crypto, plus the MCP TypeScript SDK
// from the interop tests' node_modules.  Every authorization request is
// approved at once (no login page) unless --deny.
//
//   node oauth-server.mjs --modules DIR [options]
//
//   --modules DIR        the node_modules holding @modelcontextprotocol/sdk
//   --port N             0 (default): any; the port is printed either way
//   --client ID:SECRET   a client authenticating with its secret, basic
//                        or post (repeats)
//   --jwt-client ID:PEM  a client authenticating with private_key_jwt,
//                        PEM its public key file (repeats)
//   --public-client ID   a pre-registered public client: token endpoint
//                        auth "none" (repeats)
//   --redirect-uri URI   a redirect URI of the pre-registered clients
//                        (repeats; default http://127.0.0.1/callback); a
//                        loopback one matches any port (RFC 8252, 7.3)
//   --auth-methods LIST  comma-separated token endpoint auth methods,
//                        advertised and enforced (default:
//                        client_secret_basic,client_secret_post,
//                        private_key_jwt,none); "none-listed": enforce
//                        those but leave the list out of the metadata
//   --token-ttl S        access token lifetime in seconds (default 3600)
//   --token-grace S      an access token is still accepted S seconds
//                        after that lifetime (default 0), as resource
//                        servers allow for clock skew; expires_in says
//                        the lifetime alone
//   --refresh-ttl S      refresh token lifetime (default: no expiry)
//   --no-refresh         no refresh tokens, no refresh_token grant
//   --scopes "A B"       scopes_supported (default "mcp:tools"; "" leaves
//                        scopes_supported out of both metadata documents)
//   --challenge-scope "X"  the 401's WWW-Authenticate carries scope="X"
//   --admin-scope S      the scope the tool admin needs (mcp:admin)
//   --step-up-needed-only  the 403's scope names only the admin scope
//                        (default: the token's scopes and the admin scope,
//                        so that a new sign-in loses nothing)
//   --deny               every authorization request is answered
//                        error=access_denied
//   --no-s256            code_challenge_methods_supported ["plain"], and
//                        only plain accepted
//   --no-pkce-list       code_challenge_methods_supported left out (S256
//                        still required)
//   --no-cimd            no client_id_metadata_document_supported; URL
//                        client_ids are unknown clients
//   --no-dcr             no registration_endpoint (and no /register)
//   --dcr-auth METHOD    registration answers this token endpoint auth
//                        method whatever was asked for
//   --cimd-redirect URI  a redirect URI of the document at
//                        /cimd/client.json (repeats; default
//                        http://127.0.0.1/callback)
//   --no-iss             the authorization response carries no iss
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
// Endpoints (ISSUER_PATH is --issuer-path):
//   /mcp             Streamable HTTP (the SDK's transport, a session per
//                    client) with tools echo {text}, whoami (first text:
//                    the client_id the bearer token was issued to; second:
//                    "scope: " and the token's scopes) and admin (needs
//                    the admin scope: without it, HTTP 403 and a Bearer
//                    challenge with error="insufficient_scope"); without
//                    a valid token: 401 and a Bearer challenge
//   /.well-known/oauth-protected-resource/mcp (and at the root)
//   /.well-known/oauth-authorization-server[ISSUER_PATH]
//   /.well-known/openid-configuration[ISSUER_PATH]
//   GET ISSUER_PATH/authorize  the authorization endpoint: response_type
//                    code, a known client_id (pre-registered, registered
//                    here, or a Client ID Metadata Document's URL, fetched
//                    then), a redirect_uri registered for it, a
//                    code_challenge (S256), resource the /mcp URL, a known
//                    scope; answers 302 to redirect_uri with code, state
//                    and iss (or error); 400 and a page when the
//                    redirect_uri cannot be trusted
//   POST ISSUER_PATH/register  dynamic registration (RFC 7591)
//   POST ISSUER_PATH/token  client_credentials (resource must be the /mcp
//                    URL), authorization_code (single use, PKCE checked,
//                    redirect_uri, client and resource as authorized),
//                    refresh_token (rotated: each refresh token works
//                    once; one presented again revokes its whole grant)
//   POST ISSUER_PATH/revoke  RFC 7009: an access token, or a refresh token
//                    and with it its grant; 200 for any token
//   GET /cimd/client.json  a Client ID Metadata Document naming itself
//   POST /admin/revoke   every access token issued so far stops working
//                        (refresh tokens still work)
//   POST /admin/expire-refresh  every refresh token issued so far expires
//   GET /admin/tokens    the access tokens issued, then the refresh
//                        tokens, then the secrets of the clients registered
//                        here (one JSON list of strings), for leak checks
//   GET /stats           see `stats` below: requests and refusals of each
//                        endpoint, the last authorization, registration and
//                        token request's parameters

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

const AUTH_METHODS = ['client_secret_basic', 'client_secret_post',
    'private_key_jwt', 'none'];
const DEFAULT_REDIRECT = 'http://127.0.0.1/callback';

const opts = {
	port: 0, modules: null, clients: new Map(), jwtClients: new Map(),
	publicClients: [], redirectUris: null,
	methods: AUTH_METHODS.slice(),
	listMethods: true, ttl: 3600, grace: 0, refreshTtl: 0, refresh: true,
	scopes: ['mcp:tools'], challengeScope: null, adminScope: 'mcp:admin',
	stepUpNeededOnly: false, deny: false, pkce: ['S256'],
	listPkce: true, cimd: true, dcr: true, dcrAuth: null,
	cimdRedirects: null, iss: true, issuerPath: '',
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
		const seconds = (v) => {
			const n = Number(v);
			if (!(n > 0))
				usage(`${argv[i - 1]} must be a positive number`);
			return n;
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
		case '--public-client': opts.publicClients.push(want()); break;
		case '--redirect-uri':
			(opts.redirectUris ??= []).push(want());
			break;
		case '--auth-methods': {
			const v = want();
			if (v === 'none-listed')
				opts.listMethods = false;
			else
				opts.methods = v.split(',').filter(Boolean);
			for (const m of opts.methods)
				if (!AUTH_METHODS.includes(m))
					usage(`unknown auth method ${m}`);
			break;
		}
		case '--token-ttl': opts.ttl = Number(want()); break;
		case '--token-grace': opts.grace = Number(want()); break;
		case '--refresh-ttl': opts.refreshTtl = seconds(want()); break;
		case '--no-refresh': opts.refresh = false; break;
		case '--scopes':
			opts.scopes = want().split(' ').filter(Boolean);
			break;
		case '--challenge-scope': opts.challengeScope = want(); break;
		case '--admin-scope': opts.adminScope = want(); break;
		case '--step-up-needed-only': opts.stepUpNeededOnly = true; break;
		case '--deny': opts.deny = true; break;
		case '--no-s256': opts.pkce = ['plain']; break;
		case '--no-pkce-list': opts.listPkce = false; break;
		case '--no-cimd': opts.cimd = false; break;
		case '--no-dcr': opts.dcr = false; break;
		case '--dcr-auth':
			opts.dcrAuth = want();
			if (!['none', 'client_secret_basic',
			    'client_secret_post'].includes(opts.dcrAuth))
				usage('--dcr-auth takes none, client_secret_basic ' +
				    'or client_secret_post');
			break;
		case '--cimd-redirect':
			(opts.cimdRedirects ??= []).push(want());
			break;
		case '--no-iss': opts.iss = false; break;
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
if (!(opts.grace >= 0))
	usage('--token-grace must be zero or positive');
if (opts.issuerPath !== '' && !/^\/[A-Za-z0-9_\/-]*[A-Za-z0-9_-]$/.test(
    opts.issuerPath))
	usage('--issuer-path must look like /as');
if (!/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(opts.adminScope))
	usage('--admin-scope must be one scope token');
if (opts.challengeScope !== null &&
    !/^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/.test(
    opts.challengeScope))
	usage('--challenge-scope must be scope tokens separated by spaces');
opts.redirectUris ??= [DEFAULT_REDIRECT];
opts.cimdRedirects ??= [DEFAULT_REDIRECT];

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
const MAX_CIMD_BYTES = 64 * 1024;
// Generous: the document is this process's own, and takes milliseconds
// unless the machine is loaded.
const CIMD_TIMEOUT_MS = 30000;
const CODE_TTL_MS = 60 * 1000;

let base = '';			// http://127.0.0.1:PORT, once listening
const issuer = () => base + opts.issuerPath;
const resourceUrl = () => `${base}/mcp`;
const prmPath = '/.well-known/oauth-protected-resource/mcp';
const cimdPath = '/cimd/client.json';

// The clients: client_id -> {id, kind, secret, method, redirectUris,
// name}.  method is how it authenticates at the token endpoint: "secret"
// (a pre-registered one: client_secret_basic or client_secret_post),
// "client_secret_basic", "client_secret_post", "private_key_jwt" or
// "none".  Clients named by a metadata document are in cimdClients, as
// fetched last.
const clients = new Map();
const cimdClients = new Map();
for (const [id, secret] of opts.clients)
	clients.set(id, { id, kind: 'static', secret, method: 'secret',
	    redirectUris: opts.redirectUris, name: id });
for (const id of opts.jwtClients.keys())
	clients.set(id, { id, kind: 'static', secret: null,
	    method: 'private_key_jwt', redirectUris: opts.redirectUris,
	    name: id });
for (const id of opts.publicClients)
	clients.set(id, { id, kind: 'static', secret: null, method: 'none',
	    redirectUris: opts.redirectUris, name: id });
const secretList = [];		// the secrets of registered clients

// A grant: what one authorization code led to, with every token issued
// under it, so that it can be revoked whole.
let grantSeq = 0;
const codes = new Map();	// code -> {client, redirectUri, challenge,
				// method, resource, scope, expires, used, grant}
const tokens = new Map();	// token -> {client, method, expires, index,
				// scope, grant}
const tokenList = [];
const refreshTokens = new Map(); // token -> {client, grant, expires,
				// used, revoked}
const refreshList = [];
const usedJti = new Set();
const stats = {
	// Token requests by client authentication method (every grant); a
	// public client's (auth "none") are counted in token_requests_none.
	token_requests: { client_secret_basic: 0, client_secret_post: 0,
	    private_key_jwt: 0 },
	token_requests_none: 0,
	// Token requests by grant_type, and the refusals by error code.
	grant_requests: { client_credentials: 0, authorization_code: 0,
	    refresh_token: 0, other: 0 },
	token_failures: {},
	invalid_grant: 0,
	tokens_issued: 0,		// access tokens, of every grant
	code_grants: 0,			// authorization codes exchanged
	refresh_grants: 0,		// refresh tokens exchanged
	refresh_tokens_issued: 0,
	refresh_reuse: 0,		// a used refresh token presented again
	code_reuse: 0,			// a used code presented again
	grants_revoked: 0,
	unauthorized: 0,		// 401s of /mcp
	expired_presented: 0,		// of them, for a token out of its
					// lifetime and grace
	insufficient_scope: 0,		// 403s of /mcp (step-up)
	bearer_uses: [],
	revocations: 0,			// POST /admin/revoke
	token_in_url: 0,
	metadata_requests: 0,
	last_token_request: null,
	authorize_requests: 0,
	authorize_failures: {},		// by error code (page or redirect)
	codes_issued: 0,
	last_authorize: null,
	registrations: 0,
	registration_failures: 0,
	last_registration: null,
	cimd_fetches: 0,		// metadata documents fetched by the AS
	cimd_failures: 0,
	cimd_document_requests: 0,	// GET /cimd/client.json
	revoke_requests: 0,		// the revocation endpoint
	revoke_failures: 0,
	revoked_access: 0,
	revoked_refresh: 0,
	revoke_unknown: 0,
};
const sessions = new Map();	// Mcp-Session-Id -> transport

function log(msg) {
	process.stderr.write(`oauth-server: ${msg}\n`);
}

function count(obj, key) {
	obj[key] = (Object.hasOwn(obj, key) ? obj[key] : 0) + 1;
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

function randomToken() {
	return crypto.randomBytes(24).toString('base64url');
}

function scopeWords(s) {
	return s ? s.split(' ').filter(Boolean) : [];
}

// Every scope a client may ask for.
function knownScopes() {
	return new Set([...opts.scopes, ...scopeWords(opts.challengeScope),
	    opts.adminScope]);
}

// ---------------------------------------------------------------------------
// Metadata.

function protectedResourceMetadata() {
	const m = {
		resource: opts.wrongResource ? `${base}/elsewhere` :
		    resourceUrl(),
		authorization_servers: [issuer()],
		bearer_methods_supported: ['header'],
	};
	if (opts.scopes.length)
		m.scopes_supported = opts.scopes;
	return m;
}

function tokenEndpoint() {
	if (opts.httpTokenHost !== null) {
		const port = new URL(base).port;
		return `http://${opts.httpTokenHost}:${port}${opts.issuerPath}/token`;
	}
	return `${issuer()}/token`;
}

function authServerMetadata() {
	const grants = ['authorization_code'];
	if (opts.refresh)
		grants.push('refresh_token');
	grants.push('client_credentials');
	const m = {
		issuer: opts.wrongIssuer ? `${base}/not-the-issuer` : issuer(),
		authorization_endpoint: `${issuer()}/authorize`,
		token_endpoint: tokenEndpoint(),
		revocation_endpoint: `${issuer()}/revoke`,
		grant_types_supported: grants,
		response_types_supported: ['code'],
		response_modes_supported: ['query'],
		authorization_response_iss_parameter_supported: opts.iss,
	};
	if (opts.scopes.length)
		m.scopes_supported = opts.scopes;
	if (opts.dcr)
		m.registration_endpoint = `${issuer()}/register`;
	if (opts.listPkce)
		m.code_challenge_methods_supported = opts.pkce;
	if (opts.cimd)
		m.client_id_metadata_document_supported = true;
	if (opts.listMethods) {
		m.token_endpoint_auth_methods_supported = opts.methods;
		m.revocation_endpoint_auth_methods_supported = opts.methods;
		if (opts.methods.includes('private_key_jwt'))
			m.token_endpoint_auth_signing_alg_values_supported =
			    ['ES256', 'RS256'];
	}
	return m;
}

// ---------------------------------------------------------------------------
// Clients: authentication, and the metadata documents that name some.

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

function isLoopbackHost(h) {
	return h === '127.0.0.1' || h === '[::1]' || h === 'localhost';
}

// A client_id that is a URL: a metadata document's, if allowed here.
function isCimdId(id) {
	return /^https?:\/\//i.test(id);
}

// The client id names, its metadata document fetched (and checked) now;
// an Error saying why not.
async function fetchCimd(id) {
	let u;
	try {
		u = new URL(id);
	} catch {
		throw new Error('the client_id is not a URL');
	}
	if (u.protocol !== 'https:' && !(u.protocol === 'http:' &&
	    isLoopbackHost(u.hostname)))
		throw new Error('a client_id URL must be https (or http on ' +
		    'a loopback address here)');
	if (u.hash !== '' || u.username !== '' || u.password !== '' ||
	    u.pathname === '/')
		throw new Error('a client_id URL needs a path and no ' +
		    'fragment or credentials');
	stats.cimd_fetches++;
	let doc;
	try {
		const r = await fetch(u, { redirect: 'error',
		    signal: AbortSignal.timeout(CIMD_TIMEOUT_MS),
		    headers: { Accept: 'application/json' } });
		if (!r.ok)
			throw new Error(`HTTP ${r.status}`);
		const text = await r.text();
		if (text.length > MAX_CIMD_BYTES)
			throw new Error('the document is too large');
		doc = JSON.parse(text);
	} catch (e) {
		stats.cimd_failures++;
		throw new Error(`cannot fetch the client metadata document: ` +
		    `${e.message}`);
	}
	const bad = (why) => {
		stats.cimd_failures++;
		return new Error(`client metadata document: ${why}`);
	};
	if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
		throw bad('not a JSON object');
	if (doc.client_id !== id)
		throw bad(`its client_id ${JSON.stringify(doc.client_id)} is ` +
		    'not its URL');
	if (!Array.isArray(doc.redirect_uris) || doc.redirect_uris.length ===
	    0 || !doc.redirect_uris.every((x) => typeof x === 'string'))
		throw bad('no redirect_uris');
	const method = doc.token_endpoint_auth_method ?? 'none';
	if (method !== 'none')
		throw bad(`token_endpoint_auth_method ${method} is not ` +
		    'supported here (none only)');
	if ('client_secret' in doc)
		throw bad('it holds a client_secret');
	const c = { id, kind: 'cimd', secret: null, method: 'none',
	    redirectUris: doc.redirect_uris,
	    name: typeof doc.client_name === 'string' ? doc.client_name : id };
	cimdClients.set(id, c);
	log(`client metadata document ${id} fetched`);
	return c;
}

// The client id names: registered, or a metadata document (fetched when
// fetch is true or it was never fetched); undefined if unknown.
async function findClient(id, fetchNow) {
	if (clients.has(id))
		return clients.get(id);
	if (!opts.cimd || !isCimdId(id))
		return undefined;
	if (!fetchNow && cimdClients.has(id))
		return cimdClients.get(id);
	return fetchCimd(id);
}

// The client and how it authenticated, or an OAuthError.  A public
// client (no credentials, its client_id in the body) only where
// allowNone; the token requests are counted when countIt.
async function authenticate(req, form, allowNone, countIt) {
	const methods = [];
	const authz = req.headers.authorization;
	if (authz !== undefined && /^basic /i.test(authz))
		methods.push('client_secret_basic');
	if (form.has('client_secret'))
		methods.push('client_secret_post');
	if (form.has('client_assertion') ||
	    form.has('client_assertion_type'))
		methods.push('private_key_jwt');
	if (methods.length === 0 && allowNone && form.has('client_id'))
		methods.push('none');
	if (methods.length === 0)
		throw new OAuthError(401, 'invalid_client',
		    'no client authentication');
	if (methods.length > 1)
		throw new OAuthError(400, 'invalid_request',
		    'more than one client authentication method');
	const method = methods[0];
	if (countIt) {
		if (method === 'none')
			stats.token_requests_none++;
		else
			stats.token_requests[method]++;
	}
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
		const c = clients.get(id);
		if (c === undefined || c.secret === null ||
		    !sameSecret(c.secret, secret))
			throw new OAuthError(401, 'invalid_client',
			    'client authentication failed',
			    { 'WWW-Authenticate': 'Basic realm="token"' });
		if (form.has('client_id') && form.get('client_id') !== id)
			throw new OAuthError(400, 'invalid_request',
			    'client_id differs from the Basic credentials');
		client = id;
	} else if (method === 'client_secret_post') {
		const id = form.get('client_id');
		const c = clients.get(id ?? '');
		if (c === undefined || c.secret === null ||
		    !sameSecret(c.secret, form.get('client_secret')))
			throw new OAuthError(401, 'invalid_client',
			    'client authentication failed');
		client = id;
	} else if (method === 'private_key_jwt') {
		if (form.get('client_assertion_type') !==
		    'urn:ietf:params:oauth:client-assertion-type:jwt-bearer')
			throw new OAuthError(401, 'invalid_client',
			    'unsupported client_assertion_type');
		client = verifyAssertion(form.get('client_assertion') ?? '',
		    form.get('client_id') ?? undefined);
	} else {
		client = form.get('client_id');
		let c;
		try {
			c = await findClient(client, false);
		} catch (e) {
			throw new OAuthError(401, 'invalid_client', e.message);
		}
		if (c === undefined)
			throw new OAuthError(401, 'invalid_client',
			    'unknown client');
		if (c.method !== 'none')
			throw new OAuthError(401, 'invalid_client',
			    `client ${client} must authenticate ` +
			    `(${c.method === 'secret' ? 'with its secret' :
			    c.method})`);
	}
	// A registered client authenticates as it registered.
	const c = clients.get(client);
	if (c !== undefined && c.method !== 'secret' && c.method !== method)
		throw new OAuthError(401, 'invalid_client',
		    `client ${client} registered ${c.method}, not ${method}`);
	return { client, method };
}

// ---------------------------------------------------------------------------
// Tokens and grants.

function newGrant(client, scope) {
	return { id: ++grantSeq, client, scope, revoked: false, access: [],
	    refresh: [] };
}

function revokeGrant(g, why) {
	if (g.revoked)
		return;
	g.revoked = true;
	for (const t of g.access)
		tokens.delete(t);
	for (const r of g.refresh)
		refreshTokens.get(r).revoked = true;
	stats.grants_revoked++;
	log(`grant #${g.id} of ${g.client} revoked: ${why}`);
}

function issueAccess(client, method, scope, grant) {
	const token = randomToken();
	const index = tokenList.length;
	tokens.set(token, { client, method, index, scope, grant,
	    expires: Date.now() + opts.ttl * 1000 });
	tokenList.push(token);
	stats.tokens_issued++;
	stats.bearer_uses.push(0);
	if (grant !== null)
		grant.access.push(token);
	log(`token #${index} for ${client} by ${method}, ${opts.ttl} s` +
	    (grant !== null ? `, grant #${grant.id}` : ''));
	return token;
}

function issueRefresh(client, grant) {
	const token = randomToken();
	refreshTokens.set(token, { client, grant, used: false,
	    revoked: false, expires: opts.refreshTtl > 0 ?
	    Date.now() + opts.refreshTtl * 1000 : 0 });
	refreshList.push(token);
	grant.refresh.push(token);
	stats.refresh_tokens_issued++;
	return token;
}

// The answer to a grant: an access token, a refresh token (rotated).
function grantAnswer(res, client, method, grant, scope) {
	const body = { access_token: issueAccess(client, method, scope, grant),
	    token_type: 'Bearer', expires_in: opts.ttl };
	if (opts.refresh)
		body.refresh_token = issueRefresh(client, grant);
	if (scope !== '')
		body.scope = scope;
	sendJson(res, 200, body, { Pragma: 'no-cache' });
}

function pkceMatches(verifier, challenge, method) {
	if (method === 'plain')
		return verifier === challenge;
	return crypto.createHash('sha256').update(verifier).digest(
	    'base64url') === challenge;
}

function requireResource(form) {
	if (form.get('resource') !== resourceUrl())
		throw new OAuthError(400, 'invalid_target',
		    `resource must be ${resourceUrl()}`);
}

function codeGrant(res, form, client, method) {
	const code = form.get('code');
	const c = code !== null ? codes.get(code) : undefined;
	if (c === undefined)
		throw new OAuthError(400, 'invalid_grant',
		    'unknown authorization code');
	if (c.used) {
		stats.code_reuse++;
		if (c.grant !== null)
			revokeGrant(c.grant, 'its code was presented again');
		throw new OAuthError(400, 'invalid_grant',
		    'the authorization code was used before');
	}
	c.used = true;
	if (c.expires <= Date.now())
		throw new OAuthError(400, 'invalid_grant',
		    'the authorization code expired');
	if (c.client !== client)
		throw new OAuthError(400, 'invalid_grant',
		    'the authorization code was issued to another client');
	const redirect = form.get('redirect_uri');
	if (redirect === null)
		throw new OAuthError(400, 'invalid_request',
		    'redirect_uri is required: the authorization request ' +
		    'had one');
	if (redirect !== c.redirectUri)
		throw new OAuthError(400, 'invalid_grant',
		    'redirect_uri differs from the authorization request\'s');
	const verifier = form.get('code_verifier');
	if (verifier === null)
		throw new OAuthError(400, 'invalid_request',
		    'code_verifier is required');
	if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier))
		throw new OAuthError(400, 'invalid_request',
		    'code_verifier must be 43 to 128 unreserved characters');
	if (!pkceMatches(verifier, c.challenge, c.method))
		throw new OAuthError(400, 'invalid_grant',
		    'code_verifier does not match the code_challenge');
	requireResource(form);
	c.grant = newGrant(client, c.scope);
	stats.code_grants++;
	grantAnswer(res, client, method, c.grant, c.scope);
}

function refreshGrant(res, form, client, method) {
	const rt = form.get('refresh_token');
	const r = rt !== null ? refreshTokens.get(rt) : undefined;
	if (r === undefined)
		throw new OAuthError(400, 'invalid_grant',
		    'unknown refresh token');
	if (r.client !== client)
		throw new OAuthError(400, 'invalid_grant',
		    'the refresh token was issued to another client');
	if (r.used && !r.revoked) {
		stats.refresh_reuse++;
		revokeGrant(r.grant, 'a used refresh token was presented ' +
		    'again');
		throw new OAuthError(400, 'invalid_grant',
		    'the refresh token was used before: the grant is revoked');
	}
	if (r.revoked)
		throw new OAuthError(400, 'invalid_grant',
		    'the refresh token was revoked');
	if (r.expires !== 0 && r.expires <= Date.now())
		throw new OAuthError(400, 'invalid_grant',
		    'the refresh token expired');
	requireResource(form);
	let scope = r.grant.scope;
	if (form.has('scope')) {
		const want = scopeWords(form.get('scope'));
		const have = scopeWords(r.grant.scope);
		if (!want.every((s) => have.includes(s)))
			throw new OAuthError(400, 'invalid_scope',
			    'a refresh cannot widen the scope of the grant');
		scope = want.join(' ');
	}
	r.used = true;
	stats.refresh_grants++;
	grantAnswer(res, client, method, r.grant, scope);
}

function clientCredentialsGrant(res, form, client, method) {
	requireResource(form);
	const scope = form.get('scope');
	if (scope !== null && !scope.split(' ').every((s) =>
	    opts.scopes.includes(s)))
		throw new OAuthError(400, 'invalid_scope', 'unknown scope');
	const token = issueAccess(client, method, scope ??
	    opts.scopes.join(' '), null);
	sendJson(res, 200, { access_token: token, token_type: 'Bearer',
	    expires_in: opts.ttl, scope: scope ?? undefined },
	    { Pragma: 'no-cache' });
}

function oauthFailure(res, e, what) {
	if (!(e instanceof OAuthError))
		throw e;
	if (e.code === 'invalid_grant')
		stats.invalid_grant++;
	log(`${what} refused: ${e.code}: ${e.message}`);
	sendJson(res, e.status, { error: e.code,
	    error_description: e.message }, e.headers);
}

// A form POST's body, or false once answered with an error.
async function readForm(req, res) {
	if (req.method !== 'POST') {
		sendJson(res, 405, { error: 'invalid_request' },
		    { Allow: 'POST' });
		return false;
	}
	let body;
	try {
		body = await readBody(req, MAX_FORM_BYTES);
	} catch {
		sendJson(res, 413, { error: 'invalid_request' });
		return false;
	}
	return new URLSearchParams(body.toString('utf8'));
}

async function tokenEndpointRequest(req, res) {
	const form = await readForm(req, res);
	if (form === false)
		return;
	const grantType = form.get('grant_type');
	const seen = { grant_type: grantType, method: null, client: null,
	    resource: form.get('resource'), scope: form.get('scope') };
	stats.last_token_request = seen;
	count(stats.grant_requests, ['client_credentials',
	    'authorization_code', 'refresh_token'].includes(grantType) ?
	    grantType : 'other');
	try {
		if (!/^application\/x-www-form-urlencoded/i.test(
		    req.headers['content-type'] ?? ''))
			throw new OAuthError(400, 'invalid_request',
			    'not application/x-www-form-urlencoded');
		const user = grantType === 'authorization_code' ||
		    grantType === 'refresh_token';
		const { client, method } = await authenticate(req, form, user,
		    true);
		seen.method = method;
		seen.client = client;
		if (grantType === 'client_credentials')
			clientCredentialsGrant(res, form, client, method);
		else if (grantType === 'authorization_code')
			codeGrant(res, form, client, method);
		else if (grantType === 'refresh_token' && opts.refresh)
			refreshGrant(res, form, client, method);
		else
			throw new OAuthError(400, 'unsupported_grant_type',
			    opts.refresh ? 'only client_credentials, ' +
			    'authorization_code and refresh_token' :
			    'only client_credentials and authorization_code');
	} catch (e) {
		if (e instanceof OAuthError)
			count(stats.token_failures, e.code);
		oauthFailure(res, e, 'token request');
	}
}

// RFC 7009: 200 whatever the token was, once the client is known.
async function revocationRequest(req, res) {
	const form = await readForm(req, res);
	if (form === false)
		return;
	stats.revoke_requests++;
	try {
		if (!/^application\/x-www-form-urlencoded/i.test(
		    req.headers['content-type'] ?? ''))
			throw new OAuthError(400, 'invalid_request',
			    'not application/x-www-form-urlencoded');
		const { client } = await authenticate(req, form, true, false);
		const token = form.get('token');
		if (token === null)
			throw new OAuthError(400, 'invalid_request',
			    'no token');
		const a = tokens.get(token);
		const r = refreshTokens.get(token);
		if (a !== undefined && a.client === client) {
			tokens.delete(token);
			stats.revoked_access++;
			log(`access token #${a.index} revoked by ${client}`);
		} else if (r !== undefined && r.client === client) {
			stats.revoked_refresh++;
			revokeGrant(r.grant, 'its refresh token was revoked');
		} else {
			stats.revoke_unknown++;
			log(`revocation of an unknown token by ${client}`);
		}
		res.writeHead(200, { 'Cache-Control': 'no-store',
		    'Content-Length': '0' });
		res.end();
	} catch (e) {
		if (e instanceof OAuthError)
			stats.revoke_failures++;
		oauthFailure(res, e, 'revocation');
	}
}

// ---------------------------------------------------------------------------
// The authorization endpoint.

// Whether a redirect URI given matches one registered: the same string,
// or for http on a loopback host the same but for the port (RFC 8252,
// section 7.3).
function redirectMatches(registered, given) {
	if (registered === given)
		return true;
	let a, b;
	try {
		a = new URL(registered);
		b = new URL(given);
	} catch {
		return false;
	}
	return a.protocol === 'http:' && b.protocol === 'http:' &&
	    isLoopbackHost(a.hostname) && a.hostname === b.hostname &&
	    a.username === '' && b.username === '' && a.password === '' &&
	    b.password === '' && a.pathname === b.pathname &&
	    a.search === b.search && b.hash === '';
}

function escapeHtml(s) {
	return String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// An error shown to the user: the redirect URI cannot be trusted.
function authorizePage(res, code, text) {
	count(stats.authorize_failures, code);
	log(`authorization request refused (page): ${code}: ${text}`);
	res.writeHead(400, { 'Content-Type': 'text/html; charset=utf-8',
	    'Cache-Control': 'no-store' });
	res.end('<!doctype html><title>Authorization failed</title>' +
	    `<h1>${escapeHtml(code)}</h1><p>${escapeHtml(text)}</p>\n`);
}

function redirectTo(res, redirectUri, params) {
	const u = new URL(redirectUri);
	for (const [k, v] of Object.entries(params))
		if (v !== null && v !== undefined)
			u.searchParams.set(k, v);
	if (opts.iss)
		u.searchParams.set('iss', issuer());
	res.writeHead(302, { Location: u.href, 'Cache-Control': 'no-store' });
	res.end();
}

async function authorizeRequest(req, res, u) {
	if (req.method !== 'GET') {
		sendJson(res, 405, { error: 'invalid_request' },
		    { Allow: 'GET' });
		return;
	}
	const q = u.searchParams;
	const one = (k) => q.get(k);
	stats.authorize_requests++;
	stats.last_authorize = {
		client_id: one('client_id'),
		response_type: one('response_type'),
		code_challenge_method: one('code_challenge_method'),
		code_challenge_present: q.has('code_challenge'),
		resource: one('resource'),
		scope: one('scope'),
		redirect_uri: one('redirect_uri'),
		state_present: q.has('state'),
	};
	for (const k of new Set(q.keys()))
		if (q.getAll(k).length > 1)
			return authorizePage(res, 'invalid_request',
			    `${k} is given more than once`);
	const clientId = one('client_id');
	if (clientId === null || clientId === '')
		return authorizePage(res, 'invalid_request', 'no client_id');
	let client;
	try {
		client = await findClient(clientId, true);
	} catch (e) {
		return authorizePage(res, 'invalid_client', e.message);
	}
	if (client === undefined)
		return authorizePage(res, 'invalid_client',
		    `unknown client ${clientId}`);
	const redirectUri = one('redirect_uri');
	if (redirectUri === null)
		return authorizePage(res, 'invalid_request',
		    'no redirect_uri');
	if (!client.redirectUris.some((r) => redirectMatches(r,
	    redirectUri)))
		return authorizePage(res, 'invalid_request',
		    `redirect_uri ${redirectUri} is not registered for ` +
		    `client ${clientId}`);

	const state = one('state');
	const refuse = (code, text) => {
		count(stats.authorize_failures, code);
		log(`authorization request refused: ${code}: ${text}`);
		redirectTo(res, redirectUri, { error: code,
		    error_description: text, state });
	};
	if (one('response_type') !== 'code')
		return refuse('unsupported_response_type',
		    'response_type must be code');
	const method = one('code_challenge_method');
	const challenge = one('code_challenge');
	if (challenge === null)
		return refuse('invalid_request', 'code_challenge is required');
	if (method === null)
		return refuse('invalid_request',
		    `code_challenge_method is required (${opts.pkce[0]})`);
	if (!opts.pkce.includes(method))
		return refuse('invalid_request',
		    `code_challenge_method ${method} is not supported ` +
		    `(${opts.pkce.join(', ')} only)`);
	if (!/^[A-Za-z0-9._~-]{43,128}$/.test(challenge))
		return refuse('invalid_request',
		    'code_challenge must be 43 to 128 unreserved characters');
	const resource = one('resource');
	if (resource !== resourceUrl())
		return refuse('invalid_target',
		    `resource must be ${resourceUrl()}`);
	const wanted = scopeWords(one('scope'));
	const known = knownScopes();
	const unknown = wanted.filter((s) => !known.has(s));
	if (unknown.length)
		return refuse('invalid_scope',
		    `unknown scope ${unknown.join(' ')}`);
	if (opts.deny)
		return refuse('access_denied',
		    'the resource owner denied the request');
	const code = randomToken();
	const scope = [...new Set(wanted)].join(' ');
	codes.set(code, { client: clientId, redirectUri, challenge, method,
	    resource, scope, expires: Date.now() + CODE_TTL_MS, used: false,
	    grant: null });
	stats.codes_issued++;
	log(`authorization code for ${clientId}, scope "${scope}"`);
	redirectTo(res, redirectUri, { code, state });
}

// ---------------------------------------------------------------------------
// Dynamic client registration (RFC 7591).

function validRedirect(s) {
	if (typeof s !== 'string')
		return false;
	let u;
	try {
		u = new URL(s);
	} catch {
		return false;
	}
	if (u.hash !== '')
		return false;
	if (u.protocol === 'http:')
		return isLoopbackHost(u.hostname);
	return u.protocol !== 'javascript:' && u.protocol !== 'data:';
}

async function registerRequest(req, res) {
	if (req.method !== 'POST') {
		sendJson(res, 405, { error: 'invalid_request' },
		    { Allow: 'POST' });
		return;
	}
	const fail = (code, text) => {
		stats.registration_failures++;
		log(`registration refused: ${code}: ${text}`);
		sendJson(res, 400, { error: code, error_description: text });
	};
	let md;
	try {
		md = JSON.parse((await readBody(req, MAX_FORM_BYTES))
		    .toString('utf8'));
	} catch {
		return fail('invalid_client_metadata', 'not JSON');
	}
	stats.registrations++;
	if (md === null || typeof md !== 'object' || Array.isArray(md))
		return fail('invalid_client_metadata', 'not a JSON object');
	stats.last_registration = {
		token_endpoint_auth_method: md.token_endpoint_auth_method ??
		    null,
		client_name: md.client_name ?? null,
		redirect_uris: md.redirect_uris ?? null,
		grant_types: md.grant_types ?? null,
		response_types: md.response_types ?? null,
		scope: md.scope ?? null,
		client_id: null,
	};
	if (!/^application\/json/i.test(req.headers['content-type'] ?? ''))
		return fail('invalid_client_metadata',
		    'not application/json');
	const grants = md.grant_types ?? ['authorization_code'];
	if (!Array.isArray(grants) || !grants.every((g) =>
	    ['authorization_code', 'refresh_token',
	    'client_credentials'].includes(g)))
		return fail('invalid_client_metadata',
		    'grant_types: authorization_code, refresh_token or ' +
		    'client_credentials');
	const types = md.response_types ?? ['code'];
	if (!Array.isArray(types) || !types.every((t) => t === 'code'))
		return fail('invalid_client_metadata',
		    'response_types: code only');
	const redirects = md.redirect_uris;
	if (grants.includes('authorization_code') &&
	    (!Array.isArray(redirects) || redirects.length === 0))
		return fail('invalid_redirect_uri', 'redirect_uris is required');
	if (redirects !== undefined && (!Array.isArray(redirects) ||
	    !redirects.every(validRedirect)))
		return fail('invalid_redirect_uri',
		    'a redirect URI is not an https URL, an http URL of a ' +
		    'loopback address or a private-use scheme');
	let method = md.token_endpoint_auth_method ?? 'none';
	if (opts.dcrAuth !== null)
		method = opts.dcrAuth;
	else if (!['none', 'client_secret_basic',
	    'client_secret_post'].includes(method) ||
	    !opts.methods.includes(method))
		return fail('invalid_client_metadata',
		    `token_endpoint_auth_method ${String(method)} is not ` +
		    'supported');
	const id = `dyn-${crypto.randomBytes(9).toString('base64url')}`;
	const secret = method === 'none' ? null :
	    crypto.randomBytes(24).toString('base64url');
	const name = typeof md.client_name === 'string' ? md.client_name :
	    id;
	clients.set(id, { id, kind: 'dynamic', secret, method,
	    redirectUris: redirects ?? [], name });
	if (secret !== null)
		secretList.push(secret);
	stats.last_registration.client_id = id;
	log(`client ${id} ("${name}") registered, ${method}`);
	const answer = { client_id: id,
	    client_id_issued_at: Math.floor(Date.now() / 1000),
	    client_name: name, redirect_uris: redirects ?? [],
	    token_endpoint_auth_method: method, grant_types: grants,
	    response_types: types };
	if (secret !== null) {
		answer.client_secret = secret;
		answer.client_secret_expires_at = 0;
	}
	if (typeof md.scope === 'string')
		answer.scope = md.scope;
	sendJson(res, 201, answer);
}

// The metadata document of a client whose client_id is its URL.
function cimdDocument() {
	return {
		client_id: `${base}${cimdPath}`,
		client_name: 'oauth-server test client',
		client_uri: base,
		redirect_uris: opts.cimdRedirects,
		grant_types: ['authorization_code', 'refresh_token'],
		response_types: ['code'],
		token_endpoint_auth_method: 'none',
	};
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
		description: 'The client_id the bearer token was issued to, ' +
		    'and its scopes',
		inputSchema: {},
	}, async (_args, extra) => ({ content: [
		{ type: 'text', text: extra.authInfo?.clientId ?? '(nobody)' },
		{ type: 'text', text: 'scope: ' +
		    (extra.authInfo?.scopes ?? []).join(' ') },
	] }));
	server.registerTool('admin', {
		description: `Needs the scope ${opts.adminScope}`,
		inputSchema: {},
	}, async (_args, extra) => ({ content: [{ type: 'text',
	    text: `admin: ok for ${extra.authInfo?.clientId}` }] }));
	return server;
}

function challenge(res, presented) {
	stats.unauthorized++;
	let v = 'Bearer';
	const params = [];
	if (opts.challengeMetadata)
		params.push(`resource_metadata="${base}${prmPath}"`);
	if (opts.challengeScope !== null)
		params.push(`scope="${opts.challengeScope}"`);
	if (presented)
		params.push('error="invalid_token"',
		    'error_description="the access token is not valid"');
	if (params.length)
		v += ' ' + params.join(', ');
	res.writeHead(401, { 'WWW-Authenticate': v,
	    'Content-Type': 'application/json' });
	res.end(JSON.stringify({ error: 'invalid_token' }));
}

// A call of the tool admin, in a message or a batch.
function callsAdmin(body) {
	const one = (m) => m?.method === 'tools/call' &&
	    m?.params?.name === 'admin';
	return Array.isArray(body) ? body.some(one) : one(body);
}

// 403: the token lacks the admin scope (step-up, RFC 6750 section 3.1).
function insufficientScope(res, scopes) {
	stats.insufficient_scope++;
	const need = opts.stepUpNeededOnly ? [opts.adminScope] :
	    [...new Set([...scopes, opts.adminScope])];
	const params = ['error="insufficient_scope"',
	    `scope="${need.join(' ')}"`];
	if (opts.challengeMetadata)
		params.push(`resource_metadata="${base}${prmPath}"`);
	params.push(`error_description="the tool admin needs the scope ` +
	    `${opts.adminScope}"`);
	log(`403: insufficient scope, needs ${need.join(' ')}`);
	res.writeHead(403, { 'WWW-Authenticate': 'Bearer ' +
	    params.join(', '), 'Content-Type': 'application/json' });
	res.end(JSON.stringify({ error: 'insufficient_scope' }));
}

async function mcpRequest(req, res) {
	const authz = req.headers.authorization ?? '';
	const m = /^Bearer ([A-Za-z0-9._~+\/-]+=*)$/i.exec(authz);
	const t = m ? tokens.get(m[1]) : undefined;
	if (t === undefined || t.expires + opts.grace * 1000 <= Date.now()) {
		if (t !== undefined)
			stats.expired_presented++;
		challenge(res, m !== null);
		return;
	}
	stats.bearer_uses[t.index]++;
	const scopes = scopeWords(t.scope);
	req.auth = { token: m[1], clientId: t.client, scopes,
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
		if (callsAdmin(body) && !scopes.includes(opts.adminScope)) {
			insufficientScope(res, scopes);
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
	if (p === `${opts.issuerPath}/authorize`)
		return authorizeRequest(req, res, u);
	if (p === `${opts.issuerPath}/register` && opts.dcr)
		return registerRequest(req, res);
	if (p === `${opts.issuerPath}/revoke`)
		return revocationRequest(req, res);
	if (req.method === 'GET' && p === cimdPath) {
		stats.cimd_document_requests++;
		return sendJson(res, 200, cimdDocument(),
		    { 'Cache-Control': 'max-age=0' });
	}
	if (req.method === 'POST' && p === '/admin/revoke') {
		tokens.clear();
		stats.revocations++;
		log('every access token revoked');
		return sendJson(res, 200, { revoked: true });
	}
	if (req.method === 'POST' && p === '/admin/expire-refresh') {
		for (const r of refreshTokens.values())
			r.expires = 1;
		log('every refresh token expired');
		return sendJson(res, 200, { expired: refreshTokens.size });
	}
	if (req.method === 'GET' && p === '/admin/tokens')
		return sendJson(res, 200, [...tokenList, ...refreshList,
		    ...secretList]);
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
