/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { StudioSession } from '../../../accounts/contract.ts';
import { Layout } from '../layout.tsx';

/** The studio's home: who is signed in, and where to go from here. */
export function HomePage({ session, csrf }: { session: StudioSession; csrf: string }) {
  return (
    <Layout title="Home" session={session} csrf={csrf} current="/studio/">
      <h1>Welcome, {session.name ?? session.email}</h1>
      <p class="lead">
        The studio is mimic's web app for people. It calls the same public API your programs call, with a short-lived token for this session.
      </p>
      <ul class="cards">
        <li>
          <h2>
            <a href="/studio/keys">API keys</a>
          </h2>
          <p>Create a key for a program (shown once, copy it then), see your keys, and revoke one you no longer trust.</p>
        </li>
        <li>
          <h2>
            <a href="/studio/account">Account</a>
          </h2>
          <p>Change your password, and see where you are signed in: sign out a browser you left signed in.</p>
        </li>
        <li>
          <h2>
            <a href="/docs">API reference</a>
          </h2>
          <p>Every operation of the API with its schemas and examples; try one with an API key.</p>
        </li>
        <li>
          <h2>
            <a href="/examples/stream/">Live stream example</a>
          </h2>
          <p>A photo or an agent speaking live over WebRTC, in a page you can copy from.</p>
        </li>
      </ul>
    </Layout>
  );
}
