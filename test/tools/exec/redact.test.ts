import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { inDecodedRuns } from '../../helpers/canaries.ts';
import { SECRET_MASK, type Credential } from '../../../src/egress/credential.ts';
import { credentialForms, MIN_CORE_CHARS, redactText, secretForms } from '../../../src/egress/redact.ts';
import { redactToolOutput } from '../../../src/tools/exec/redact.ts';
import { buildToolRequest, type ToolRequest } from '../../../src/tools/exec/request.ts';
import { shapeUpstreamResponse, type ToolOutput, type UpstreamResponse } from '../../../src/tools/exec/response.ts';

/** Every string in a value, keys included. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null) return [String(value)];
  return Object.entries(value).flatMap(([k, v]) => [k, ...strings(v)]);
}

/** Upstreams that echo the request back, each in its own way. */
const echoes: Record<string, (req: ToolRequest) => UpstreamResponse> = {
  'JSON (httpbin style), plus every header echoed back as a header': (req) => ({
    status: 200,
    headers: {
      'content-type': 'application/json',
      ...Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [`x-echo-${k}`, v])),
      'www-authenticate': `Bearer realm="x", error="invalid_token", token="${req.headers.authorization ?? ''}"`,
    },
    body: Buffer.from(JSON.stringify({ url: req.url, headers: req.headers, data: req.body ?? null, json: req.body ? JSON.parse(req.body) : null })),
  }),
  'a raw HTTP dump as text': (req) => ({
    status: 200,
    headers: { 'content-type': 'text/plain' },
    body: Buffer.from(`${req.method} ${req.url} HTTP/1.1\r\n${Object.entries(req.headers).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n${req.body ?? ''}`),
  }),
  'JSON with ASCII-only escapes, as text (Python json.dumps)': (req) => ({
    status: 400,
    headers: { 'content-type': 'text/plain' },
    body: Buffer.from(JSON.stringify({ headers: req.headers }).replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)),
  }),
  'a form-encoded and percent-encoded echo': (req) => ({
    status: 200,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: Buffer.from(Object.entries(req.headers).map(([k, v]) => `${k}=${encodeURIComponent(v)}&${k}_form=${new URLSearchParams({ v }).toString()}`).join('&')),
  }),
  'the credential as JSON keys, deep inside': (req) => {
    const values = Object.values(req.headers);
    let deep: unknown = Object.fromEntries(values.map((v) => [v, v]));
    for (let i = 0; i < 50; i++) deep = { [values[i % values.length]!]: [deep, values] };
    return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(deep)) };
  },
  'the auth header taken apart (scheme, credentials, decoded user and password)': (req) => {
    const [scheme = '', credentials = ''] = (req.headers.authorization ?? '').split(' ');
    const decoded = scheme === 'Basic' ? Buffer.from(credentials, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    return {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(
        JSON.stringify({
          scheme,
          credentials,
          unpadded: credentials.replace(/=+$/, ''),
          url_safe: Buffer.from(decoded).toString('base64url'),
          decoded,
          user: decoded.slice(0, colon),
          password: decoded.slice(colon + 1),
          key: req.headers['x-api-key'],
        }),
      ),
    };
  },
  'base64, base64url and hex of every header value (JSON)': (req) => {
    const of = (how: BufferEncoding) => Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Buffer.from(v).toString(how)]));
    const unpadded = Object.fromEntries(Object.entries(of('base64')).map(([k, v]) => [k, v.replace(/=+$/, '')]));
    const upper = Object.fromEntries(Object.entries(of('hex')).map(([k, v]) => [k, v.toUpperCase()]));
    return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ b64: of('base64'), unpadded, url: of('base64url'), hex: of('hex'), upper })) };
  },
  'the whole request as one base64 and base64url blob, at each byte alignment (text)': (req) => {
    const dump = `${req.method} ${req.url}\r\n${Object.entries(req.headers).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n${req.body ?? ''}`;
    const blobs = [0, 1, 2].flatMap((k) => (['base64', 'base64url'] as const).map((how) => Buffer.from(`${'#'.repeat(k)}${dump}`).toString(how)));
    return { status: 200, headers: { 'content-type': 'text/plain', 'x-echo': blobs[0]! }, body: Buffer.from(blobs.join('\n')) };
  },
  'JSON that does not parse': (req) => ({
    status: 500,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(`{"auth": ${JSON.stringify(req.headers.authorization ?? req.headers['x-api-key'])}, "b64": "${Buffer.from(JSON.stringify(req.headers)).toString('base64')}`),
  }),
};

const CASES: [string, Credential, canaries: string[]][] = [
  ['bearer', { type: 'bearer', token: 'tok_live_Ab+/9z==' }, ['tok_live_Ab+/9z==', 'Bearer tok_live_Ab+/9z==', 'tok_live_Ab%2B%2F9z%3D%3D']],
  ['oauth2', { type: 'oauth2', accessToken: 'ya29.a0Af-H_x~y' }, ['ya29.a0Af-H_x~y', 'Bearer ya29.a0Af-H_x~y']],
  [
    'basic',
    { type: 'basic', username: 'alice', password: 'pä"ss w\\rd/+=' },
    ['pä"ss w\\rd/+=', `Basic ${Buffer.from('alice:pä"ss w\\rd/+=').toString('base64')}`, Buffer.from('alice:pä"ss w\\rd/+=').toString('base64'), Buffer.from('alice:pä"ss w\\rd/+=').toString('base64url'), 'alice:pä"ss w\\rd/+='],
  ],
  ['api_key', { type: 'api_key', apiKey: 'sk-"quoted"\\ünïcode key', headerName: 'X-API-Key' }, ['sk-"quoted"\\ünïcode key', 'sk-%22quoted%22%5C%C3%BCn%C3%AFcode%20key', 'sk-\\"quoted\\"\\\\ünïcode key']],
  ['api_key, numeric', { type: 'api_key', apiKey: '8675309123', headerName: 'X-API-Key' }, ['8675309123']],
];

/** The secret part of a credential: what must not be found in any encoding. */
const secretOf = (c: Credential): string =>
  c.type === 'bearer' ? c.token : c.type === 'oauth2' ? c.accessToken : c.type === 'api_key' ? c.apiKey : c.password;

describe('leak canaries: an upstream that echoes the request is fully redacted', () => {
  for (const [type, credential, canaries] of CASES) {
    for (const [how, echo] of Object.entries(echoes)) {
      it(`${type}: ${how}`, () => {
        const req = buildToolRequest({ url: 'https://api.example.com/echo/{id}', method: 'POST', input: { id: 'alice', note: 'hello' }, credential });
        const output = redactToolOutput(shapeUpstreamResponse(echo(req)), credentialForms(credential));
        const seen = [...strings(output), JSON.stringify(output)];
        for (const canary of canaries) {
          for (const text of seen) expect(text).not.toContain(canary);
        }
        for (const text of seen) expect(inDecodedRuns(text, [secretOf(credential)])).toEqual([]);
        // The redaction did happen, and did not eat the rest of the answer.
        expect(JSON.stringify(output)).toContain(SECRET_MASK);
        if (how.startsWith('JSON (httpbin')) {
          expect(output.body).toMatchObject({ url: 'https://api.example.com/echo/alice', json: { note: 'hello' } });
        }
      });
    }
  }

  it('a numeric api key that comes back as a JSON number is masked', () => {
    const credential: Credential = { type: 'api_key', apiKey: '8675309123', headerName: 'X-API-Key' };
    const output = redactToolOutput({ status: 200, headers: {}, body: { key: 8675309123, other: 42 } }, credentialForms(credential));
    expect(output.body).toEqual({ key: SECRET_MASK, other: 42 });
  });
});

describe('credentialForms', () => {
  it('lists the forms of a basic credential, longest first, without the username alone', () => {
    const forms = credentialForms({ type: 'basic', username: 'alice', password: 'wonder land' });
    const b64 = Buffer.from('alice:wonder land').toString('base64');
    expect(forms).toEqual(expect.arrayContaining([`Basic ${b64}`, b64, 'alice:wonder land', 'wonder land', 'wonder%20land', 'wonder+land', 'alice%3Awonder%20land']));
    expect(forms).not.toContain('alice');
    expect(forms).not.toContain('');
    expect([...forms].sort((a, b) => b.length - a.length)).toEqual(forms);
    expect(new Set(forms).size).toBe(forms.length);
  });

  it('includes unpadded base64 and base64url of user:pass', () => {
    const forms = credentialForms({ type: 'basic', username: 'u', password: '~~~' });
    expect(Buffer.from('u:~~~').toString('base64')).toBe('dTp+fn4=');
    expect(forms).toEqual(expect.arrayContaining(['dTp+fn4=', 'dTp+fn4', 'dTp-fn4', 'dTp%2Bfn4%3D']));
  });

  const token = 'tok+/x=?~~Q7x9Lm2Pz4';
  const b64 = (v: string, how: BufferEncoding = 'base64') => Buffer.from(v).toString(how);
  const hex = (v: string) => Buffer.from(v).toString('hex');
  /** For each secret type, the encodings of it an upstream may echo (the secret holds + / = ? ~, so every escape differs). */
  const ENCODINGS: [string, Credential, string[]][] = [
    ['bearer', { type: 'bearer', token }, [token, `Bearer ${token}`]],
    ['oauth2', { type: 'oauth2', accessToken: token }, [token, `Bearer ${token}`]],
    ['api_key', { type: 'api_key', apiKey: token, headerName: 'X-Key' }, [token]],
    ['basic', { type: 'basic', username: 'alice', password: token }, [token, `alice:${token}`]],
  ];
  for (const [type, credential, values] of ENCODINGS) {
    it(`${type}: masks raw, percent- and JSON-escaped, base64 and base64url (padded or not), and hex (either case)`, () => {
      const forms = credentialForms(credential);
      for (const value of values) {
        const spellings = {
          raw: value,
          percent: encodeURIComponent(value),
          'percent, lower case': encodeURIComponent(value).replace(/%[0-9A-F]{2}/g, (x) => x.toLowerCase()),
          json: JSON.stringify(value).slice(1, -1),
          'json, slashes escaped': JSON.stringify(value).slice(1, -1).replaceAll('/', '\\/'),
          base64: b64(value),
          'base64 unpadded': b64(value).replace(/=+$/, ''),
          base64url: b64(value, 'base64url'),
          'base64url padded': b64(value).replaceAll('+', '-').replaceAll('/', '_'),
          'base64, percent-encoded': encodeURIComponent(b64(value)),
          hex: hex(value),
          HEX: hex(value).toUpperCase(),
        };
        for (const [how, spelling] of Object.entries(spellings)) {
          const out = redactText(`before ${spelling} after`, forms);
          expect(out, `${type} ${how} of ${value}`).not.toContain(spelling);
          expect(out, `${type} ${how} of ${value}`).toMatch(/^before .*•••••••••.* after$/);
          expect(inDecodedRuns(out, [token])).toEqual([]);
        }
      }
    });
  }

  it('masks a secret inside any larger base64 or base64url text, whatever comes before and after it', () => {
    for (const [, credential] of ENCODINGS) {
      const forms = credentialForms(credential);
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ maxLength: 64 }), fc.constantFrom<BufferEncoding>('base64', 'base64url'), (before, after, how) => {
          const blob = Buffer.concat([before, Buffer.from(token), after]).toString(how);
          expect(inDecodedRuns(redactText(blob, forms), [token])).toEqual([]);
        }),
        { numRuns: 300 },
      );
    }
  });

  it('masks a basic auth header inside a larger base64 or base64url text (an echoed header block), so one decode does not give base64 of user:pass', () => {
    const credential: Credential = { type: 'basic', username: 'alice', password: token };
    const forms = credentialForms(credential);
    const pair = b64(`alice:${token}`);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ maxLength: 64 }), fc.constantFrom<BufferEncoding>('base64', 'base64url'), (before, after, how) => {
        const blob = Buffer.concat([before, Buffer.from(`Authorization: Basic ${pair}\r\n`), after]).toString(how);
        // Only a few bits of its first and last character may stay, as for any secret inside a blob.
        expect(inDecodedRuns(redactText(blob, forms), [pair.slice(1, -1)])).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it(`gives a secret its base64 cores only when they are at least ${MIN_CORE_CHARS} characters long`, () => {
    // 5 bytes: each alignment's core is 6 characters, too short to mask inside other base64 without hiding innocent text.
    expect(secretForms(['abcde']).filter((f) => f.length < 7)).toEqual(['abcde']);
    expect(secretForms(['abcde'])).toEqual(expect.arrayContaining(['YWJjZGU=', 'YWJjZGU', '6162636465']));
    // 7 bytes: every core is long enough (alignments 0, 1 and 2).
    expect(secretForms(['abcdefg'])).toEqual(expect.arrayContaining(['YWJjZGVmZ', 'FiY2RlZm', 'hYmNkZWZn']));
  });

  it('adds percent- and JSON-escaped forms only when they differ', () => {
    expect(credentialForms({ type: 'api_key', apiKey: 'plain123', headerName: 'X-API-Key' }).filter((f) => f.includes('plain'))).toEqual(['plain123']);
    expect(credentialForms({ type: 'api_key', apiKey: 'a"é', headerName: 'X-API-Key' })).toEqual(
      expect.arrayContaining(['a"é', 'a%22%C3%A9', 'a%22%c3%a9', 'a\\"é', 'a\\"\\u00e9']),
    );
  });

  it('skips empty values', () => {
    expect(credentialForms({ type: 'basic', username: '', password: '' })).toEqual(expect.not.arrayContaining(['']));
    expect(credentialForms({ type: 'bearer', token: '' })).toEqual(expect.arrayContaining(['Bearer ']));
    expect(credentialForms({ type: 'bearer', token: '' })).not.toContain('');
  });
});

describe('redactToolOutput', () => {
  const forms = credentialForms({ type: 'bearer', token: 's3cr3t' });

  it('returns the very output when there is nothing to redact', () => {
    const output: ToolOutput = { status: 200, headers: { a: 's3cr3t' }, body: 's3cr3t' };
    expect(redactToolOutput(output, [])).toBe(output);
  });

  it('masks header names and values', () => {
    const out = redactToolOutput({ status: 401, headers: { 'x-token-s3cr3t': 'ok', 'www-authenticate': 'Bearer s3cr3t' }, body: null }, forms);
    expect(out).toEqual({ status: 401, headers: { [`x-token-${SECRET_MASK}`]: 'ok', 'www-authenticate': SECRET_MASK }, body: null });
  });

  it('masks every occurrence in a text body', () => {
    expect(redactToolOutput({ status: 200, headers: {}, body: 's3cr3t and s3cr3ts3cr3t, Bearer s3cr3t.' }, forms).body).toBe(
      `${SECRET_MASK} and ${SECRET_MASK}${SECRET_MASK}, ${SECRET_MASK}.`,
    );
  });

  it('masks keys and strings in nested JSON and leaves other values alone', () => {
    const body = { s3cr3t: { list: ['x', 'pre-s3cr3t-post', 1, true, null, { 'Bearer s3cr3t': ['s3cr3t'] }] }, n: 3 };
    expect(redactToolOutput({ status: 200, headers: {}, body }, forms).body).toEqual({
      [SECRET_MASK]: { list: ['x', `pre-${SECRET_MASK}-post`, 1, true, null, { [SECRET_MASK]: [SECRET_MASK] }] },
      n: 3,
    });
  });

  it('does not change the output it was given', () => {
    const body = { a: ['s3cr3t'] };
    const headers = { h: 's3cr3t' };
    redactToolOutput({ status: 200, headers, body }, forms);
    expect(body).toEqual({ a: ['s3cr3t'] });
    expect(headers).toEqual({ h: 's3cr3t' });
  });

  it('copies a JSON key __proto__ as a key', () => {
    const body = JSON.parse('{"__proto__": {"x": "s3cr3t"}}') as unknown;
    const out = redactToolOutput({ status: 200, headers: {}, body }, forms).body as object;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe(`{"__proto__":{"x":"${SECRET_MASK}"}}`);
  });

  it('handles JSON nested far deeper than the stack would allow recursion', () => {
    let body: unknown = 's3cr3t';
    for (let i = 0; i < 200_000; i++) body = i % 2 ? [body] : { k: body };
    let out = redactToolOutput({ status: 200, headers: {}, body }, forms).body;
    while (typeof out === 'object' && out !== null) out = Array.isArray(out) ? out[0] : (out as { k: unknown }).k;
    expect(out).toBe(SECRET_MASK);
  });

  it('redacts the end of a large body', () => {
    const text = `${'lorem ipsum '.repeat(200_000)}s3cr3t`;
    const out = redactToolOutput({ status: 200, headers: {}, body: text }, forms).body as string;
    expect(out).toBe(`${'lorem ipsum '.repeat(200_000)}${SECRET_MASK}`);
  });
});
