/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, type StudioSession } from '../../../accounts/contract.ts';
import { ListTable, NeedsScript, StatusLines } from '../components.tsx';
import { Layout } from '../layout.tsx';

/**
 * The account page: who is signed in, a new password, and the live sessions. Changing the
 * password and signing a session out are account.js calling PUT /account/password and
 * GET/DELETE /account/sessions with the session's token.
 */
export function AccountPage({ session, csrf }: { session: StudioSession; csrf: string }) {
  return (
    <Layout title="Account" session={session} csrf={csrf} scripts={['account.js']} current="/studio/account">
      <h1>Account</h1>
      <dl class="facts">
        <dt>Email</dt>
        <dd>{session.email}</dd>
        <dt>Name</dt>
        <dd>{session.name ?? 'none'}</dd>
      </dl>

      <section class="panel" aria-labelledby="password-heading">
        <h2 id="password-heading">Change your password</h2>
        <form id="password-form" novalidate>
          <label for="current-password">Current password</label>
          <input id="current-password" name="current_password" type="password" autocomplete="current-password" required aria-describedby="password-error" />
          <label for="new-password">New password</label>
          <input
            id="new-password"
            name="new_password"
            type="password"
            autocomplete="new-password"
            required
            minlength={PASSWORD_MIN_LENGTH}
            maxlength={PASSWORD_MAX_LENGTH}
            aria-describedby="new-password-hint password-error"
          />
          <p id="new-password-hint" class="hint">
            {PASSWORD_MIN_LENGTH} to {PASSWORD_MAX_LENGTH} characters. Your other sessions are signed out when it changes; this one stays.
          </p>
          <p id="password-error" class="error" role="alert"></p>
          <button type="submit">Change password</button>
        </form>
      </section>

      <StatusLines status="account-status" error="sessions-error" />
      <ListTable
        heading={{ id: 'sessions-heading', text: 'Where you are signed in' }}
        rows="sessions-rows"
        columns={['Browser', 'Address', 'Signed in', 'Last seen', { hidden: 'Actions' }]}
      />
      <NeedsScript />
    </Layout>
  );
}
