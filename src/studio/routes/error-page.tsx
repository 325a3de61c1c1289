/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { StudioSession } from '../../accounts/contract.ts';
import { Layout } from './layout.tsx';

/**
 * The page of a refused or failed studio request: the error's own description, as text. A
 * signed-in person keeps the navigation and the sign-out button (session and its CSRF token).
 */
export function ErrorPage({ status, title, description, session, csrf }: { status: number; title: string; description: string; session?: StudioSession; csrf?: string }) {
  return (
    <Layout title={title} session={session} csrf={csrf}>
      <h1>{title}</h1>
      <p>{description}</p>
      <p>
        <a href="/studio/">Back to the studio</a> ({status})
      </p>
    </Layout>
  );
}
