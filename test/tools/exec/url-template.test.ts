import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/errors.ts';
import { ToolInputError } from '../../../src/tools/exec/errors.ts';
import { fillUrl, placeholdersOf } from '../../../src/tools/exec/url-template.ts';

/** The details of the ToolInputError that `fn` throws. */
function inputErrors(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ToolInputError);
    return (err as ToolInputError).details;
  }
  throw new Error('expected a ToolInputError');
}

describe('placeholdersOf', () => {
  it.each([
    ['https://api.example.com/weather', []],
    ['https://api.example.com/cities/{city}', ['city']],
    ['https://api.example.com/cities/{city}/days/{day_1}?units={units}&q={city}', ['city', 'day_1', 'units']],
    ['http://api.example.com:8080/v1/{_id}.json', ['_id']],
    ['https://api.example.com/{a}{b}', ['a', 'b']],
    ['https://api.example.com?q={q}', ['q']],
    ['https://api.example.com/x#frag', []],
    ['https://api.example.com/%7Bliteral%7D/{id}', ['id']],
    ['HTTPS://API.example.com/{id}', ['id']],
  ])('finds the placeholders of %s', (url, names) => {
    expect(placeholdersOf(url)).toEqual({ names });
  });

  it.each([
    ['https://{host}/x', /scheme, host or port/],
    ['https://api.{tenant}.com/x', /scheme, host or port/],
    ['https://api.example.com:{port}/x', /scheme, host or port/],
    ['https://{user}@api.example.com/x', /scheme, host or port/],
    ['{scheme}://api.example.com/x', /absolute http/],
    ['https://api.example.com{path}', /scheme, host or port/],
    ['https://api.example.com\\{x}', /scheme, host or port/],
    ['https://api.example.com/x#{frag}', /fragment/],
    ['https://api.example.com/{city', /unmatched "\{"/],
    ['https://api.example.com/city}', /unmatched "\}"/],
    ['https://api.example.com/{{city}}', /unmatched/],
    ['https://api.example.com/{}', /invalid placeholder \{\}/],
    ['https://api.example.com/{1city}', /invalid placeholder/],
    ['https://api.example.com/{city-name}', /invalid placeholder/],
    ['https://api.example.com/{ city }', /spaces or control/],
    ['https://api.example.com/\t{x}', /spaces or control/],
    ['https://api.exa\nmple.com/x', /spaces or control/],
    ['ftp://api.example.com/{x}', /absolute http/],
    ['/relative/{x}', /absolute http/],
    ['javascript:alert(1)', /absolute http/],
    ['https://user:pass@api.example.com/x', /user info/],
    ['https://user@api.example.com/x', /user info/],
    ['https:///{host}/x', /host right after/],
    ['https://\\{host}/x', /host right after/],
    ['https:///x', /host right after/],
    ['https://?q={q}', /host right after/],
    ['https://[::1/x', /absolute http/],
  ])('refuses %s', (url, reason) => {
    const result = placeholdersOf(url);
    expect(result).toHaveProperty('error');
    expect((result as { error: string }).error).toMatch(reason);
  });
});

describe('fillUrl', () => {
  const url = 'https://api.example.com/cities/{city}/days/{day}?units={units}';

  it('fills scalars and reports the consumed keys', () => {
    expect(fillUrl(url, { city: 'Lisbon', day: 3, units: true, other: 'x' })).toEqual({
      url: 'https://api.example.com/cities/Lisbon/days/3?units=true',
      consumed: ['city', 'day', 'units'],
    });
  });

  it.each([
    ['a/b', 'a%2Fb'],
    ['a?b=c', 'a%3Fb%3Dc'],
    ['a#b', 'a%23b'],
    ['100%', '100%25'],
    ['a\\b', 'a%5Cb'],
    ['a b', 'a%20b'],
    ['a\r\nX-Injected: 1', 'a%0D%0AX-Injected%3A%201'],
    ['São Paulo', 'S%C3%A3o%20Paulo'],
    ['東京', '%E6%9D%B1%E4%BA%AC'],
    ['🙂', '%F0%9F%99%82'],
    ['../admin', '..%2Fadmin'],
    ['...', '...'],
    ['a..b', 'a..b'],
  ])('encodes %j whole in the path', (value, encoded) => {
    const filled = fillUrl('https://api.example.com/cities/{city}/weather', { city: value });
    expect(filled.url).toBe(`https://api.example.com/cities/${encoded}/weather`);
    const parsed = new URL(filled.url);
    expect(parsed.host).toBe('api.example.com');
    expect(parsed.pathname).toBe(`/cities/${encoded}/weather`);
    expect(decodeURIComponent(parsed.pathname.split('/')[2]!)).toBe(value);
  });

  it('keeps a query value from adding parameters', () => {
    const filled = fillUrl('https://api.example.com/search?q={q}&limit=10', { q: 'x&limit=100000#' });
    const parsed = new URL(filled.url);
    expect(parsed.searchParams.getAll('limit')).toEqual(['10']);
    expect(parsed.searchParams.get('q')).toBe('x&limit=100000#');
  });

  it.each(['.', '..'])('refuses the dot segment %j in the path (it would climb out of /files/)', (value) => {
    expect(inputErrors(() => fillUrl('https://api.example.com/files/{name}/raw', { name: value }))).toEqual([
      { field: 'input.name', message: 'must not make a URL path segment "." or ".."' },
    ]);
  });

  it.each(['%2e%2e', '%2E.'])('encodes the escaped dot segment %j so the parser keeps it', (value) => {
    const filled = fillUrl('https://api.example.com/files/{name}/raw', { name: value });
    expect(new URL(filled.url).pathname).toBe(`/files/${encodeURIComponent(value)}/raw`);
  });

  it('refuses a dot segment made of two placeholders', () => {
    expect(inputErrors(() => fillUrl('https://api.example.com/files/{a}{b}', { a: '.', b: '.' }))).toEqual([
      { field: 'input.a', message: 'must not make a URL path segment "." or ".."' },
      { field: 'input.b', message: 'must not make a URL path segment "." or ".."' },
    ]);
  });

  it('allows dots where they cannot climb', () => {
    expect(fillUrl('https://api.example.com/files/{name}.json?path={p}', { name: '..', p: '..' }).url).toBe('https://api.example.com/files/...json?path=..');
  });

  it('refuses an empty path value, which would address a different resource', () => {
    expect(inputErrors(() => fillUrl('https://api.example.com/users/{id}', { id: '' }))).toEqual([{ field: 'input.id', message: 'must not be empty (it fills a URL path segment)' }]);
    expect(fillUrl('https://api.example.com/users?q={q}', { q: '' }).url).toBe('https://api.example.com/users?q=');
  });

  it('lists every missing or non-scalar value at once', () => {
    expect(inputErrors(() => fillUrl(url, { city: { name: 'Lisbon' }, units: null }))).toEqual([
      { field: 'input.city', message: 'must be a string, number or boolean (it fills a URL placeholder)' },
      { field: 'input.day', message: 'is required (it fills a URL placeholder)' },
      { field: 'input.units', message: 'must be a string, number or boolean (it fills a URL placeholder)' },
    ]);
    expect(inputErrors(() => fillUrl(url, { city: ['a'], day: 1, units: 'x' }))).toEqual([
      { field: 'input.city', message: 'must be a string, number or boolean (it fills a URL placeholder)' },
    ]);
  });

  it('does not read inherited properties as input', () => {
    expect(inputErrors(() => fillUrl('https://api.example.com/{constructor}/{toString}', {}))).toEqual([
      { field: 'input.constructor', message: 'is required (it fills a URL placeholder)' },
      { field: 'input.toString', message: 'is required (it fills a URL placeholder)' },
    ]);
  });

  it('refuses text that is not valid Unicode', () => {
    expect(inputErrors(() => fillUrl('https://api.example.com/{id}', { id: 'a\ud800' }))).toEqual([{ field: 'input.id', message: 'must be valid Unicode text' }]);
  });

  it('fills a repeated placeholder everywhere and consumes it once', () => {
    expect(fillUrl('https://api.example.com/{id}/x?id={id}', { id: 7 })).toEqual({ url: 'https://api.example.com/7/x?id=7', consumed: ['id'] });
  });

  it('drops the fragment, which is never sent', () => {
    expect(fillUrl('https://api.example.com/{id}#top', { id: 1 }).url).toBe('https://api.example.com/1');
  });

  it('turns input problems into a 400 ValidationError', () => {
    try {
      fillUrl(url, {});
      expect.unreachable();
    } catch (err) {
      const api = (err as ToolInputError).toApiError();
      expect(api).toBeInstanceOf(ApiError);
      expect(api.status).toBe(400);
      expect(api.kind).toBe('ValidationError');
      expect(api.details).toHaveLength(3);
    }
  });

  it('refuses a stored URL that could not be a tool URL as a ConfigError', () => {
    expect(() => fillUrl('https://{host}/x', { host: 'evil.example' })).toThrow(expect.objectContaining({ kind: 'ConfigError' }));
  });
});
