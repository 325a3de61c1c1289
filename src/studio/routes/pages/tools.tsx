/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { StudioSession } from '../../../accounts/contract.ts';
import { ConfirmDialog, ListTable, NeedsScript, StatusLines } from '../components.tsx';
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
      <StatusLines status="tools-status" error="tools-error" focusable="status" />
      <ListTable
        heading={{ id: 'tools-heading', text: 'Your tools' }}
        rows="tools-rows"
        columns={['Name', 'Kind', 'Method', 'Host', 'Secret', { hidden: 'Actions' }]}
        more={{ id: 'tools-more', text: 'Show more tools' }}
      />
      <NeedsScript />
      <ConfirmDialog id="tool-delete" title="Delete this tool?" confirm="Delete tool" value="delete">
        <code id="tool-delete-name"></code> is deleted at once: agents that list it can no longer call it. This cannot be undone.
      </ConfirmDialog>
    </Layout>
  );
}
