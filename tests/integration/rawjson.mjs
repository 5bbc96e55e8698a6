// rawjson.mjs -- the raw JSON text of each member of an object, so that
// tests can compare ids and tokens as written ("1.0" is not "1"), which
// JSON.parse cannot.  Shared by the integration test clients and servers.

function skipWs(s, i) {
	while (i < s.length && (s[i] === ' ' || s[i] === '\t' || s[i] === '\r' || s[i] === '\n'))
		i++;
	return i;
}

function skipString(s, i) {
	for (i++; i < s.length; i++) {
		if (s[i] === '\\')
			i++;
		else if (s[i] === '"')
			return i + 1;
	}
	throw new Error('unterminated string');
}

function skipValue(s, i) {
	if (s[i] === '"')
		return skipString(s, i);
	if (s[i] === '{' || s[i] === '[') {
		let depth = 0;
		while (i < s.length) {
			const c = s[i];
			if (c === '"') {
				i = skipString(s, i);
				continue;
			}
			if (c === '{' || c === '[')
				depth++;
			else if (c === '}' || c === ']') {
				if (--depth === 0)
					return i + 1;
			}
			i++;
		}
		throw new Error('unterminated value');
	}
	let j = i;
	while (j < s.length && !',}] \t\r\n'.includes(s[j]))
		j++;
	if (j === i)
		throw new Error(`no value at ${i}`);
	return j;
}

// {key: raw text of the value} for a JSON object's text; null if not one.
export function rawMembers(s) {
	if (typeof s !== 'string')
		return null;
	try {
		const out = Object.create(null);
		let i = skipWs(s, 0);
		if (s[i] !== '{')
			return null;
		i = skipWs(s, i + 1);
		if (s[i] === '}')
			return out;
		for (;;) {
			i = skipWs(s, i);
			const ks = i;
			i = skipString(s, i);
			const key = JSON.parse(s.slice(ks, i));
			i = skipWs(s, i);
			if (s[i] !== ':')
				return null;
			const vs = skipWs(s, i + 1);
			i = skipValue(s, vs);
			out[key] = s.slice(vs, i);
			i = skipWs(s, i);
			if (s[i] === ',') {
				i++;
				continue;
			}
			return s[i] === '}' ? out : null;
		}
	} catch {
		return null;
	}
}
