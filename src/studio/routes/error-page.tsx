/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { Layout } from './layout.tsx';

/** The page of a refused or failed studio request: the error's own description, as text. */
export function ErrorPage({ status, title, description }: { status: number; title: string; description: string }) {
  return (
    <Layout title={title}>
      <h1>{title}</h1>
      <p>{description}</p>
      <p>
        <a href="/studio/">Back to the studio</a> ({status})
      </p>
    </Layout>
  );
}
