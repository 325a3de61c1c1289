/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';
import type { StudioSession } from '../../accounts/contract.ts';
import { assetPath } from './assets.ts';
import { STUDIO_PAGES } from './pages/catalogue.ts';

export interface LayoutProps {
  title: string;
  /** The signed-in person: the navigation and the sign-out button show only with one. */
  session?: StudioSession;
  /** The session's CSRF token: in `<meta name="csrf-token">` for the page's scripts, and in the sign-out form. */
  csrf?: string;
  /** The page's modules by file name under src/studio/assets (`keys.js`); served under their hashed names, never inline. */
  scripts?: readonly string[];
  /** The page's own style sheets by file name under src/studio/assets (`clips.css`), after studio.css. */
  styles?: readonly string[];
  /** The path of the page, so that its navigation link says `aria-current="page"`. */
  current?: string;
  children?: Child;
}

type NavItem = { href: string; label: string };
const navOf = (corner: boolean): NavItem[] => STUDIO_PAGES.flatMap((p) => (p.nav && !!p.corner === corner ? [{ href: p.path, label: p.nav }] : []));
/** The navigation of a signed-in person: the studio's areas (pages/catalogue.ts). */
const NAV: readonly NavItem[] = navOf(false);
/** In the header's corner: the person's own pages, and the API reference. */
const CORNER: readonly NavItem[] = [...navOf(true), { href: '/docs', label: 'API reference' }];

function NavList({ items, current }: { items: readonly NavItem[]; current: string | undefined }) {
  return (
    <ul>
      {items.map((item) => (
        <li>
          <a href={item.href} aria-current={item.href === current ? 'page' : undefined}>
            {item.label}
          </a>
        </li>
      ))}
    </ul>
  );
}

/**
 * The frame of every studio page: a skip link, the header with its navigation, one `<main>`.
 * Text reaches it only as JSX children and attributes, which Hono escapes; the page's data
 * reaches its scripts through `data-*` attributes and the CSRF meta tag, never inline script.
 */
export function Layout({ title, session, csrf, scripts = [], styles = [], current, children }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {csrf ? <meta name="csrf-token" content={csrf} /> : null}
        <title>{`${title} · mimic studio`}</title>
        {/* No icon to fetch: a browser's /favicon.ico would be the API's 404. */}
        <link rel="icon" href="data:," />
        {/*
          Referer only to mimic itself, none elsewhere (the tokens of invite links stay here).
          Not the header's no-referrer: under it a browser sends a form POST with
          `Origin: null`, and over plain http to a host that is not loopback it sends no
          Sec-Fetch-Site either, so the same-origin check could not tell sign-in from a forgery.
        */}
        <meta name="referrer" content="same-origin" />
        <link rel="stylesheet" href={assetPath('studio.css')} />
        {styles.map((name) => (
          <link rel="stylesheet" href={assetPath(name)} />
        ))}
        {scripts.map((name) => (
          <script type="module" src={assetPath(name)} />
        ))}
      </head>
      <body>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <header class="site-header">
          <div class="site-top">
            <a class="brand" href="/studio/">
              mimic studio
            </a>
            {session ? (
              <nav class="corner-nav" aria-label="Your account">
                <NavList items={CORNER} current={current} />
              </nav>
            ) : null}
            {session && csrf ? (
              <form class="sign-out" method="post" action="/studio/sign-out">
                <input type="hidden" name="_csrf" value={csrf} />
                <span class="who">{session.name ?? session.email}</span>
                <button type="submit" class="secondary">
                  Sign out
                </button>
              </form>
            ) : null}
          </div>
          {session ? (
            <nav class="site-nav" aria-label="Studio">
              <NavList items={NAV} current={current} />
            </nav>
          ) : null}
        </header>
        <main id="main" tabindex={-1}>
          {children}
        </main>
      </body>
    </html>
  );
}
