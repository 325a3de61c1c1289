/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { StudioSession } from '../../../accounts/contract.ts';
import { Layout } from '../layout.tsx';
import { STUDIO_PAGES } from './catalogue.ts';

/** Beyond the studio's own pages: the API reference and the live stream example. */
const ELSEWHERE: readonly { href: string; title: string; summary: string }[] = [
  { href: '/docs', title: 'API reference', summary: 'Every operation of the API with its schemas and examples; try one with an API key.' },
  { href: '/examples/stream/', title: 'Live stream example', summary: 'A photo or an agent speaking live over WebRTC, in a page you can copy from.' },
];

/** The studio's home: who is signed in, and a card for each page (pages/catalogue.ts). */
export function HomePage({ session, csrf }: { session: StudioSession; csrf: string }) {
  const cards = [
    ...STUDIO_PAGES.flatMap((p) => (p.summary ? [{ href: p.path, title: p.nav ?? p.name, summary: p.summary }] : [])),
    ...ELSEWHERE,
  ];
  return (
    <Layout title="Home" session={session} csrf={csrf} current="/studio/">
      <h1>Welcome, {session.name ?? session.email}</h1>
      <p class="lead">
        The studio is mimic's web app for people. It calls the same public API your programs call, with a short-lived token for this session.
      </p>
      <ul class="cards">
        {cards.map((card) => (
          <li>
            <h2>
              <a href={card.href}>{card.title}</a>
            </h2>
            <p>{card.summary}</p>
          </li>
        ))}
      </ul>
    </Layout>
  );
}
