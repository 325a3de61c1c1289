/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Hono } from 'hono';
import { Layout } from './layout.tsx';
import type { StudioDeps, StudioEnv } from './env.ts';
import { requireSession, safeNext } from './session.ts';

/** The sign-in form: email, password, and where to go after. The one message for every failed attempt. */
export function SignInPage({ next, email = '', error }: { next: string; email?: string; error?: string }) {
  return (
    <Layout title="Sign in">
      <h1>Sign in to mimic studio</h1>
      <form method="post" action="/studio/sign-in">
        <input type="hidden" name="next" value={next} />
        {error ? (
          <p id="sign-in-error" role="alert">
            {error}
          </p>
        ) : null}
        <p>
          <label for="email">Email</label>
          <input id="email" name="email" type="email" autocomplete="username" required value={email} aria-describedby={error ? 'sign-in-error' : undefined} />
        </p>
        <p>
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
        </p>
        <button type="submit">Sign in</button>
      </form>
    </Layout>
  );
}

/** Who is signed in, until the studio's home page (pages/) answers first. */
function SignedIn({ email }: { email: string }) {
  return (
    <Layout title="Studio">
      <h1>mimic studio</h1>
      <p>Signed in as {email}.</p>
    </Layout>
  );
}

/** GET /studio/sign-in, and the home page's last resort (mounted after the pages). */
export function authRoutes(app: Hono<StudioEnv>, deps: StudioDeps): void {
  void deps;
  app.get('/sign-in', (c) => {
    if (c.get('session')) return c.redirect(safeNext(c.req.query('next')), 303);
    return c.html(<SignInPage next={safeNext(c.req.query('next'))} />);
  });
}

export function fallbackHome(app: Hono<StudioEnv>): void {
  app.get('/', requireSession(), (c) => c.html(<SignedIn email={c.get('session')!.email} />));
}
