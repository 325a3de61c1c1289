/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { StudioSession } from '../../../accounts/contract.ts';
import { AUDIT_ACTIONS } from '../../../audit/contract.ts';
import { ListTable, NeedsScript, StatusLines } from '../components.tsx';
import { Layout } from '../layout.tsx';
import { ACTION_WORDS } from './audit-words.ts';

const FAMILIES = [
  ['account.*', 'Sign-ins and sessions'],
  ['secret.*', 'Secrets'],
  ['tool.*', 'Tools'],
] as const;

/**
 * The audit log: what happened to the person's secrets and tools, and their sign-ins, newest
 * first, with filters (what, outcome, a tool or a secret, a time range) and "Show more".
 * The filters live in the page's address (the same names GET /audit takes), so a filtered
 * view can be bookmarked; audit.js reads them, calls GET /audit with the session's token,
 * and fills the tool and secret choices from GET /tools and GET /secrets.
 */
export function AuditPage({ session, csrf }: { session: StudioSession; csrf: string }) {
  return (
    <Layout title="Audit log" session={session} csrf={csrf} scripts={['audit.js']} styles={['tools.css']} current="/studio/audit">
      <h1>Audit log</h1>
      <p class="lead">
        Everything done with your secrets and tools, and every sign-in to your account, newest first. No secret value, password or token is ever written here.
      </p>
      <form id="audit-filters" class="panel filters" method="get" action="/studio/audit">
        <h2 id="filters-heading" class="visually-hidden">
          Filters
        </h2>
        <div class="filter-grid">
          <div>
            <label for="filter-action">What</label>
            <select id="filter-action" name="action">
              <option value="">Everything</option>
              <optgroup label="Families">
                {FAMILIES.map(([value, label]) => (
                  <option value={value}>{label}</option>
                ))}
              </optgroup>
              <optgroup label="One action">
                {AUDIT_ACTIONS.map((a) => (
                  <option value={a}>{ACTION_WORDS[a]}</option>
                ))}
              </optgroup>
            </select>
          </div>
          <div>
            <label for="filter-outcome">Outcome</label>
            <select id="filter-outcome" name="outcome">
              <option value="">Any</option>
              <option value="success">Succeeded</option>
              <option value="failure">Failed</option>
            </select>
          </div>
          <div>
            <label for="filter-tool">Tool</label>
            <select id="filter-tool" name="tool_id">
              <option value="">Any tool</option>
            </select>
          </div>
          <div>
            <label for="filter-secret">Secret</label>
            <select id="filter-secret" name="secret_id">
              <option value="">Any secret</option>
            </select>
          </div>
          <div>
            <label for="filter-since">From</label>
            <input id="filter-since" name="since" type="datetime-local" step={1} aria-describedby="filter-time-hint" />
          </div>
          <div>
            <label for="filter-until">Until</label>
            <input id="filter-until" name="until" type="datetime-local" step={1} aria-describedby="filter-time-hint" />
          </div>
        </div>
        <p id="filter-time-hint" class="hint">
          Times are your device's local time.
        </p>
        <div class="row">
          <button type="submit">Show</button>
          <a id="filters-clear" href="/studio/audit">
            Clear filters
          </a>
        </div>
      </form>
      <StatusLines status="audit-status" error="audit-error" />
      <ListTable
        class="audit"
        heading={{ id: 'audit-heading', text: 'Events' }}
        rows="audit-rows"
        columns={['When', 'What', 'Outcome', 'About', 'Details']}
        more={{ id: 'audit-more', text: 'Show older events' }}
      />
      <NeedsScript />
    </Layout>
  );
}
