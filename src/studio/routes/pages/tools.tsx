/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { StudioSession } from '../../../accounts/contract.ts';
import { Layout } from '../layout.tsx';

/**
 * The tools page: the person's tools (name, kind, method, the URL's host, the secret it
 * sends), a way to a new one, to each one's editor, and deleting one after a confirmation.
 * tools.js fills it from GET /tools and GET /secrets and deletes with DELETE /tools/{id},
 * with the session's token.
 */
export function ToolsPage({ session, csrf }: { session: StudioSession; csrf: string }) {
  return (
    <Layout title="Tools" session={session} csrf={csrf} scripts={['tools.js']} styles={['tools.css']} current="/studio/tools">
      <div class="title-row">
        <h1>Tools</h1>
        <a class="button" href="/studio/tools/new">
          New tool
        </a>
      </div>
      <p class="lead">
        A tool is a function an agent's model may call: a <strong>server</strong> tool is an HTTP request mimic makes for it (with a secret's credential attached, never
        shown), a <strong>client</strong> tool runs in your user's browser.
      </p>
      <p id="tools-status" class="status" role="status" aria-live="polite" tabindex={-1}></p>
      <p id="tools-error" class="error" role="alert"></p>
      <h2 id="tools-heading" tabindex={-1}>
        Your tools
      </h2>
      <table aria-labelledby="tools-heading" aria-busy="true">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Kind</th>
            <th scope="col">Method</th>
            <th scope="col">Host</th>
            <th scope="col">Secret</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody id="tools-rows">
          <tr>
            <td colspan={6}>Loading…</td>
          </tr>
        </tbody>
      </table>
      <p>
        <button id="tools-more" type="button" class="secondary" hidden>
          Show more tools
        </button>
      </p>
      <noscript>
        <p class="error">This page needs JavaScript: it calls the API from your browser.</p>
      </noscript>
      <dialog id="tool-delete-dialog" aria-labelledby="tool-delete-title" aria-describedby="tool-delete-text">
        <form method="dialog">
          <h2 id="tool-delete-title">Delete this tool?</h2>
          <p id="tool-delete-text">
            <code id="tool-delete-name"></code> is deleted at once: agents that list it can no longer call it. This cannot be undone.
          </p>
          <div class="row">
            <button value="cancel" class="secondary" autofocus>
              Cancel
            </button>
            <button value="delete" class="danger solid">
              Delete tool
            </button>
          </div>
        </form>
      </dialog>
    </Layout>
  );
}
