/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';
import type { StudioSession } from '../../accounts/contract.ts';

export interface LayoutProps {
  title: string;
  session?: StudioSession;
  csrf?: string;
  /** Hashed asset names of the page's modules (served by mimic; no inline script). */
  scripts?: readonly string[];
  children?: Child;
}

/** The page frame every studio page renders in (engineer B's shell replaces this minimal one). */
export function Layout({ title, csrf, scripts = [], children }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {csrf ? <meta name="csrf-token" content={csrf} /> : null}
        <title>{`${title} · mimic studio`}</title>
        {scripts.map((src) => (
          <script type="module" src={src} />
        ))}
      </head>
      <body>
        <main id="main">{children}</main>
      </body>
    </html>
  );
}
