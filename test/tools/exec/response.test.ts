import { describe, expect, it } from 'vitest';
import { shapeUpstreamResponse } from '../../../src/tools/exec/response.ts';

const shape = (headers: Record<string, string>, body: string | Buffer, status = 200) =>
  shapeUpstreamResponse({ status, headers, body: typeof body === 'string' ? Buffer.from(body) : body });

describe('shapeUpstreamResponse', () => {
  it('drops hop-by-hop headers, the ones Connection names, and cookies', () => {
    const out = shape(
      {
        connection: 'keep-alive, X-Hop',
        'keep-alive': 'timeout=5',
        'transfer-encoding': 'chunked',
        te: 'trailers',
        trailer: 'x-checksum',
        upgrade: 'h2c',
        'proxy-authenticate': 'Basic',
        'proxy-connection': 'keep-alive',
        'x-hop': 'gone',
        'set-cookie': 'session=abc; HttpOnly, other=def',
        'Content-Type': 'application/json',
        'X-Request-Id': 'r-1',
        'cache-control': 'no-store',
      },
      '{}',
    );
    expect(out.headers).toEqual({ 'content-type': 'application/json', 'x-request-id': 'r-1', 'cache-control': 'no-store' });
  });

  it('keeps the status, including errors and redirects', () => {
    expect(shape({}, '', 503).status).toBe(503);
    expect(shape({ location: 'https://elsewhere.example/' }, '', 302)).toEqual({ status: 302, headers: { location: 'https://elsewhere.example/' }, body: null });
  });

  it.each([
    ['application/json', '{"a":[1,{"b":null}]}', { a: [1, { b: null }] }],
    ['application/json; charset=utf-8', '{"city":"São Paulo"}', { city: 'São Paulo' }],
    ['Application/JSON', '[1,2]', [1, 2]],
    ['application/problem+json', '{"title":"Not Found"}', { title: 'Not Found' }],
    ['application/vnd.api+json; charset=utf-8', '{"data":[]}', { data: [] }],
    ['application/json', '\ufeff{"bom":true}', { bom: true }],
    ['application/json', '{"broken":', '{"broken":'],
    ['text/plain', '{"a":1}', '{"a":1}'],
    ['text/html; charset=utf-8', '<p>hé</p>', '<p>hé</p>'],
    ['application/xml', '<a/>', '<a/>'],
  ])('reads a %s body', (contentType, text, body) => {
    expect(shape({ 'content-type': contentType }, text).body).toEqual(body);
  });

  it('parses JSON when there is no content-type, and keeps other text as text', () => {
    expect(shape({}, '{"a":1}').body).toEqual({ a: 1 });
    expect(shape({}, '42').body).toBe(42);
    expect(shape({}, 'OK').body).toBe('OK');
  });

  it('gives null for an empty body, whatever the content-type', () => {
    expect(shape({ 'content-type': 'application/json' }, '').body).toBeNull();
    expect(shape({ 'content-type': 'text/plain' }, '').body).toBeNull();
  });

  it('replaces bytes that are not UTF-8 instead of failing', () => {
    expect(shape({ 'content-type': 'text/plain' }, Buffer.from([0x61, 0xff, 0x62])).body).toBe('a\ufffdb');
  });

  it('keeps a header named __proto__ as a header', () => {
    const out = shape(JSON.parse('{"__proto__": "x", "a": "b"}') as Record<string, string>, 'a');
    expect(Object.getPrototypeOf(out.headers)).toBe(Object.prototype);
    expect(Object.entries(out.headers)).toEqual([
      ['__proto__', 'x'],
      ['a', 'b'],
    ]);
  });
});
