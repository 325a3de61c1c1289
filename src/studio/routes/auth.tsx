/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Context, Hono } from 'hono';
import { EMAIL_MAX_LENGTH, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, type SignIn, type StudioSession } from '../../accounts/contract.ts';
import { Layout } from './layout.tsx';
import type { StudioDeps, StudioEnv } from './env.ts';
import { ApiError } from '../../errors.ts';
import { clientAddress } from '../../http/client-address.ts';
import { clearSessionCookie, requireSession, safeNext, setSessionCookie } from './session.ts';
import { requireCsrf, requireSameOrigin } from './csrf.ts';

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
      <p>
        <a href="/studio/forgot-password">Forgot your password?</a>
      </p>
    </Layout>
  );
}

/**
 * What to do about a forgotten password. There is no mail and nothing to fill in: the page is
 * the same for everyone, so it tells no one whether an email has an account.
 */
export function ForgotPasswordPage({ session, csrf }: { session?: StudioSession; csrf?: string }) {
  return (
    <Layout title="Forgot your password?" session={session} csrf={csrf}>
      <h1>Forgot your password?</h1>
      <p>
        Ask your operator (whoever runs this mimic) for a link to set a new password. They make one with <code>users reset-password</code>. The link works once and not for long;
        setting a new password with it signs out every browser you were signed in on.
      </p>
      <p>
        <a href="/studio/sign-in">Back to sign in</a>
      </p>
    </Layout>
  );
}

/** Setting a password from an operator's one-time link (an invite or a reset). */
export function SetPasswordPage({ token, error }: { token: string; error?: string }) {
  return (
    <Layout title="Set your password">
      <h1>Set your password</h1>
      <form method="post" action="/studio/invite">
        <input type="hidden" name="token" value={token} />
        {error ? (
          <p id="password-error" role="alert">
            {error}
          </p>
        ) : null}
        <p>
          <label for="password">New password ({PASSWORD_MIN_LENGTH} characters or more)</label>
          <input id="password" name="password" type="password" autocomplete="new-password" required minlength={PASSWORD_MIN_LENGTH} maxlength={PASSWORD_MAX_LENGTH} aria-describedby={error ? 'password-error' : undefined} />
        </p>
        <p>
          <label for="password2">The same password again</label>
          <input id="password2" name="password2" type="password" autocomplete="new-password" required />
        </p>
        <button type="submit">Set password and sign in</button>
      </form>
    </Layout>
  );
}

/** The one answer to a wrong password and to an unknown email alike. */
export const SIGN_IN_FAILED = 'Wrong email or password.';

const field = (form: Record<string, unknown>, name: string): string | undefined => {
  const v = form[name];
  return typeof v === 'string' ? v : undefined;
};

/**
 * Sign-in, sign-out and the page's bearer token. Every POST is same-origin only; sign-out and
 * the token need the session's CSRF token too (sign-in has no session yet).
 */
export function authRoutes(app: Hono<StudioEnv>, deps: StudioDeps): void {
  const sameOrigin = requireSameOrigin(deps);
  const csrf = requireCsrf(deps);
  /** The session's cookie, for as long as the session may live, and on to the page asked for. */
  const signedIn = (c: Context, result: Extract<SignIn, { ok: true }>, next: string) => {
    setSessionCookie(c, deps, result.cookieToken, Math.floor((result.session.expiresAt - result.session.createdAt) / 1000));
    return c.redirect(next, 303);
  };

  app.get('/sign-in', (c) => {
    if (c.get('session')) return c.redirect(safeNext(c.req.query('next')), 303);
    return c.html(<SignInPage next={safeNext(c.req.query('next'))} />);
  });

  app.post('/sign-in', sameOrigin, async (c) => {
    const form = await c.req.parseBody();
    const email = field(form, 'email') ?? '';
    const password = field(form, 'password') ?? '';
    const next = safeNext(field(form, 'next'));
    if (email.trim() === '' || password === '' || email.length > EMAIL_MAX_LENGTH) {
      return c.html(<SignInPage next={next} email={email.slice(0, EMAIL_MAX_LENGTH)} error="Enter your email and your password." />, 400);
    }
    const result = await deps.accounts.signIn({ email, password, address: clientAddress(c, deps.trustedProxies), userAgent: c.req.header('user-agent') });
    if (result.ok) return signedIn(c, result, next);
    if (result.reason === 'throttled') {
      const seconds = result.retryAfterSeconds ?? 60;
      c.header('Retry-After', String(seconds));
      const minutes = Math.ceil(seconds / 60);
      return c.html(<SignInPage next={next} email={email} error={`Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`} />, 429);
    }
    return c.html(<SignInPage next={next} email={email} error={SIGN_IN_FAILED} />, 200);
  });

  app.get('/forgot-password', (c) => c.html(<ForgotPasswordPage session={c.get('session')} csrf={c.get('csrf')} />));

  app.get('/invite', (c) => c.html(<SetPasswordPage token={(c.req.query('token') ?? '').slice(0, 100)} />));

  app.post('/invite', sameOrigin, async (c) => {
    const form = await c.req.parseBody();
    const token = (field(form, 'token') ?? '').slice(0, 100);
    const password = field(form, 'password') ?? '';
    if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
      return c.html(<SetPasswordPage token={token} error={`The password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters.`} />, 400);
    }
    if (password !== field(form, 'password2')) return c.html(<SetPasswordPage token={token} error="The two passwords differ." />, 400);
    const result = await deps.accounts.acceptInvite({ token, password, address: clientAddress(c, deps.trustedProxies), userAgent: c.req.header('user-agent') });
    if (!result.ok) {
      throw new ApiError('BadRequestError', 'This link is not valid: it was used already, it expired, or it is incomplete. Ask your operator for a new one.');
    }
    return signedIn(c, result, '/studio/');
  });

  app.post('/sign-out', sameOrigin, async (c, next) => (c.get('session') ? next() : c.redirect('/studio/sign-in', 303)), csrf, async (c) => {
    await deps.accounts.signOut(c.get('session')!.id);
    clearSessionCookie(c, deps);
    return c.redirect('/studio/sign-in', 303);
  });

  app.post('/token', sameOrigin, async (c, next) => {
    if (!c.get('session')) throw new ApiError('AuthorizationError', 'Not signed in (or the session ended): sign in again');
    return next();
  }, csrf, async (c) => {
    c.header('cache-control', 'no-store');
    return c.json(await deps.accounts.issueToken(c.get('session')!));
  });
}
