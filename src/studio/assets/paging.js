// A list the API pages with a token: GET …?limit=&token= answers a page and the next page's
// token, or none on the last page.
import { api } from './api.js';

/** `path` (which has its query already) with the page token, when there is one. */
export function pagePath(path, token) {
  return token ? `${path}&token=${encodeURIComponent(token)}` : path;
}

/**
 * The list's "Show more" button: call what this returns with each page's next token; the button
 * shows while there is one, and a click loads that page with `load(token)`.
 */
export function showMore(button, load) {
  let next;
  button.addEventListener('click', () => load(next));
  return (token) => {
    next = token;
    button.hidden = !next;
  };
}

/**
 * Every page of a list, `key` naming the array in each page (GET `path`&token=… until no token
 * comes): `{ items }`, or with `failed`, the answer that was not a 200, and the items read before it.
 */
export async function allPages(path, key) {
  const items = [];
  let token;
  do {
    const res = await api('GET', pagePath(path, token));
    if (res.status !== 200) return { items, failed: res };
    items.push(...res.body[key]);
    token = res.body.token;
  } while (token);
  return { items };
}
