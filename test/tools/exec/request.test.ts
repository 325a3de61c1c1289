import { describe, expect, it } from 'vitest';
import type { Credential } from '../../../src/egress/credential.ts';
import { ToolInputError } from '../../../src/tools/exec/errors.ts';
import { buildToolRequest } from '../../../src/tools/exec/request.ts';

const ACCEPT = 'application/json, text/plain;q=0.9, */*;q=0.8';

describe('buildToolRequest', () => {
  it('sends GET input left after placeholders as query parameters', () => {
    const req = buildToolRequest({
      url: 'https://api.example.com/cities/{city}?lang=en',
      method: 'get',
      input: { city: 'São Paulo', days: 3, metric: false, q: 'a&b=c d', tags: ['x', 'y z'], where: { lat: 1 }, none: null, mixed: [1, { a: 1 }, null] },
    });
    expect(req.method).toBe('GET');
    expect(req.body).toBeUndefined();
    expect(req.headers).toEqual({ accept: ACCEPT, 'accept-encoding': 'identity' });
    const url = new URL(req.url);
    expect(url.pathname).toBe('/cities/S%C3%A3o%20Paulo');
    expect([...url.searchParams]).toEqual([
      ['lang', 'en'],
      ['days', '3'],
      ['metric', 'false'],
      ['q', 'a&b=c d'],
      ['tags', 'x'],
      ['tags', 'y z'],
      ['where', '{"lat":1}'],
      ['none', 'null'],
      ['mixed', '1'],
      ['mixed', '{"a":1}'],
      ['mixed', 'null'],
    ]);
  });

  it('sends DELETE input in the query too, starting the query when there is none', () => {
    const req = buildToolRequest({ url: 'https://api.example.com/items/{id}', method: 'DELETE', input: { id: 7, hard: true } });
    expect(req).toEqual({ url: 'https://api.example.com/items/7?hard=true', method: 'DELETE', headers: { accept: ACCEPT, 'accept-encoding': 'identity' } });
  });

  it('leaves the URL alone when nothing remains for the query', () => {
    expect(buildToolRequest({ url: 'https://api.example.com/items/{id}?', method: 'GET', input: { id: 7 } }).url).toBe('https://api.example.com/items/7?');
    expect(buildToolRequest({ url: 'https://api.example.com/items?a=1&', method: 'GET', input: { b: 2 } }).url).toBe('https://api.example.com/items?a=1&b=2');
  });

  it.each(['POST', 'PUT', 'PATCH'])('sends %s input left after placeholders as a JSON object body', (method) => {
    const req = buildToolRequest({ url: 'https://api.example.com/users/{id}', method, input: { id: 'u 1', name: 'Zoë', nested: { deep: [1, null] } } });
    expect(req.url).toBe('https://api.example.com/users/u%201');
    expect(req.headers).toEqual({ accept: ACCEPT, 'accept-encoding': 'identity', 'content-type': 'application/json' });
    expect(JSON.parse(req.body!)).toEqual({ name: 'Zoë', nested: { deep: [1, null] } });
  });

  it('sends an empty JSON object when every key went into the URL', () => {
    expect(buildToolRequest({ url: 'https://api.example.com/users/{id}', method: 'POST', input: { id: 1 } }).body).toBe('{}');
  });

  it('keeps an input key named __proto__ as an ordinary key', () => {
    const input = JSON.parse('{"__proto__": {"admin": true}, "a": 1}') as Record<string, unknown>;
    expect(JSON.parse(buildToolRequest({ url: 'https://api.example.com/x', method: 'POST', input }).body!)).toEqual(JSON.parse('{"__proto__": {"admin": true}, "a": 1}'));
    expect(new URL(buildToolRequest({ url: 'https://api.example.com/x', method: 'GET', input }).url).searchParams.get('__proto__')).toBe('{"admin":true}');
  });

  it('encodes CR and LF in query keys and values, so they cannot split the request', () => {
    const req = buildToolRequest({ url: 'https://api.example.com/x', method: 'GET', input: { 'k\r\nX-A: 1': 'v\r\nHost: evil' } });
    expect(req.url).toBe('https://api.example.com/x?k%0D%0AX-A%3A%201=v%0D%0AHost%3A%20evil');
  });

  it('refuses query text that is not valid Unicode as tool input', () => {
    expect(() => buildToolRequest({ url: 'https://api.example.com/x', method: 'GET', input: { q: '\udc00' } })).toThrow(ToolInputError);
  });

  it('refuses a method a tool cannot use', () => {
    expect(() => buildToolRequest({ url: 'https://api.example.com/x', method: 'CONNECT', input: {} })).toThrow(expect.objectContaining({ kind: 'ConfigError' }));
  });

  describe('auth header, per secret type', () => {
    const url = 'https://api.example.com/x';
    it.each<[string, Credential, Record<string, string>]>([
      ['bearer', { type: 'bearer', token: 'tok_123' }, { authorization: 'Bearer tok_123' }],
      ['oauth2', { type: 'oauth2', accessToken: 'ya29.abc' }, { authorization: 'Bearer ya29.abc' }],
      ['basic', { type: 'basic', username: 'alice', password: 'p4ss' }, { authorization: `Basic ${Buffer.from('alice:p4ss').toString('base64')}` }],
      // UTF-8 before base64 (RFC 7617 with charset=UTF-8), not Latin-1.
      ['basic, non-ASCII', { type: 'basic', username: 'zoë', password: 'pässwörd' }, { authorization: 'Basic em/Dqzpww6Rzc3fDtnJk' }],
      ['api_key, default header', { type: 'api_key', apiKey: 'k-1', headerName: 'X-API-Key' }, { 'x-api-key': 'k-1' }],
      ['api_key, custom header', { type: 'api_key', apiKey: 'k-2', headerName: 'Ocp-Apim-Subscription-Key' }, { 'ocp-apim-subscription-key': 'k-2' }],
    ])('%s', (_, credential, auth) => {
      const req = buildToolRequest({ url, method: 'GET', input: {}, credential });
      expect(req.headers).toEqual({ accept: ACCEPT, 'accept-encoding': 'identity', ...auth });
    });

    it('sends no auth header at all without a credential', () => {
      const headers = buildToolRequest({ url, method: 'POST', input: {} }).headers;
      expect(Object.keys(headers).sort()).toEqual(['accept', 'accept-encoding', 'content-type']);
    });

    it.each(['Content-Type', 'host', 'Accept', 'bad header', 'x:y', ''])('refuses the api_key header name %j', (headerName) => {
      expect(() => buildToolRequest({ url, method: 'GET', input: {}, credential: { type: 'api_key', apiKey: 'k', headerName } })).toThrow(
        expect.objectContaining({ kind: 'ConfigError' }),
      );
    });

    it.each<Credential>([
      { type: 'bearer', token: 'tok\r\nX-Evil: 1' },
      { type: 'oauth2', accessToken: 'tok\n' },
      { type: 'api_key', apiKey: 'k\0', headerName: 'X-API-Key' },
    ])('refuses a $type credential that would split the header, without repeating it', (credential) => {
      try {
        buildToolRequest({ url, method: 'GET', input: {}, credential });
        expect.unreachable();
      } catch (err) {
        expect(err).toMatchObject({ kind: 'ConfigError' });
        expect(String((err as Error).message)).not.toMatch(/tok|k\0/);
      }
    });
  });
});
