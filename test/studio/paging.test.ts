import { describe, expect, it } from 'vitest';

interface Paging {
  pagePath(path: string, token?: string): string;
  showMore(button: { hidden: boolean; addEventListener(type: string, f: () => void): void }, load: (token?: string) => unknown): (token?: string) => void;
}
const { pagePath, showMore } = (await import(new URL('../../src/studio/assets/paging.js', import.meta.url).href)) as Paging;

describe('paging a list with the API\'s token (assets/paging.js)', () => {
  it('adds the token to the page path only when there is one, encoded', () => {
    expect(pagePath('/keys?limit=50', undefined)).toBe('/keys?limit=50');
    expect(pagePath('/keys?limit=50', 'a+b/c=')).toBe('/keys?limit=50&token=a%2Bb%2Fc%3D');
  });

  it('"Show more" shows while there is a next page, and loads that page on a click', () => {
    let click: () => void = () => {};
    const button = { hidden: true, addEventListener: (_: string, f: () => void) => (click = f) };
    const loaded: (string | undefined)[] = [];
    const paged = showMore(button, (token: string | undefined) => loaded.push(token));
    paged('next-1');
    expect(button.hidden).toBe(false);
    click();
    paged(undefined);
    expect(button.hidden).toBe(true);
    expect(loaded).toEqual(['next-1']);
  });
});
