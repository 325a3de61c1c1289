/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { StudioSession } from '../../../accounts/contract.ts';
import { ListTable, NeedsScript, StatusLines } from '../components.tsx';
import { Layout } from '../layout.tsx';

/**
 * The lists of renders (clips, talks, animations) and the page of one: the same page for the
 * three kinds, told apart by `data-kind`. lists.js fills a list from GET /{kind}?status=&token=,
 * clip.js follows one record live from GET /{kind}/{id}/events.
 */
export type RenderKind = 'clips' | 'talks' | 'animations';

const KINDS: Readonly<Record<RenderKind, { one: string; many: string; lead: string }>> = {
  clips: { one: 'Clip', many: 'Clips', lead: 'A presenter speaking your script.' },
  talks: { one: 'Talk', many: 'Talks', lead: 'A photo speaking a script (made with POST /talks).' },
  animations: { one: 'Animation', many: 'Animations', lead: 'A photo moved by a driver video (made with POST /animations).' },
};

/** The states a render's record goes through (every kind's status schema). */
export const RENDER_STATUSES = [
  { value: 'created', label: 'Waiting' },
  { value: 'started', label: 'Rendering' },
  { value: 'done', label: 'Done' },
  { value: 'error', label: 'Failed' },
] as const;

export function RenderListPage({ session, csrf, kind, status }: { session: StudioSession; csrf: string; kind: RenderKind; status?: string }) {
  const k = KINDS[kind];
  const chosen = RENDER_STATUSES.some((s) => s.value === status) ? status : '';
  return (
    <Layout title={k.many} session={session} csrf={csrf} scripts={['lists.js']} styles={['clips.css']} current={`/studio/${kind}`}>
      <div class="heading-row">
        <h1>{k.many}</h1>
        {kind === 'clips' ? (
          <a class="button" href="/studio/clips/new">
            New clip
          </a>
        ) : null}
      </div>
      <p class="lead">{k.lead}</p>
      <form id="list-filter" class="row filter" data-kind={kind} role="search" aria-label={`Filter ${k.many.toLowerCase()}`}>
        <label for="status-filter" class="inline">
          Status
        </label>
        <select id="status-filter" name="status">
          <option value="" selected={chosen === ''}>
            Any
          </option>
          {RENDER_STATUSES.map((s) => (
            <option value={s.value} selected={chosen === s.value}>
              {s.label}
            </option>
          ))}
        </select>
      </form>
      <StatusLines status="list-status" error="list-error" />
      <ListTable id="list" label={k.many} rows="list-rows" columns={[{ hidden: 'Picture' }, k.one, 'Status', 'Created']} more={{ id: 'list-more', text: 'Show more' }} />
      <NeedsScript />
    </Layout>
  );
}

export function RenderPage({ session, csrf, kind, id }: { session: StudioSession; csrf: string; kind: RenderKind; id: string }) {
  const k = KINDS[kind];
  return (
    <Layout title={k.one} session={session} csrf={csrf} scripts={['clip.js']} styles={['clips.css']} current={`/studio/${kind}`}>
      <p class="crumbs">
        <a href={`/studio/${kind}`}>{k.many}</a>
      </p>
      <h1 id="render-title">{k.one}</h1>
      <p class="hint">
        <code>{id}</code>
      </p>
      <section id="render" class="panel" data-kind={kind} data-id={id} aria-labelledby="render-state">
        <h2 id="render-state" tabindex={-1}>
          Loading…
        </h2>
        <StatusLines status="render-status" error="render-error" />
        <progress id="render-progress" max={1} value={0} aria-labelledby="render-state" hidden></progress>
        <div class="player">
          <video id="render-live" muted playsinline hidden aria-label="The video as it renders (muted)"></video>
          <video id="render-result" controls playsinline preload="metadata" hidden aria-label={`The finished ${k.one.toLowerCase()}`}></video>
        </div>
        <p id="render-live-note" class="hint" hidden></p>
        <p class="row">
          <a id="render-download" class="button" hidden download>
            Download
          </a>
          {kind === 'clips' ? (
            <a id="render-again" class="button secondary" href="/studio/clips/new" hidden>
              Make another
            </a>
          ) : null}
        </p>
        <dl id="render-facts" class="facts"></dl>
      </section>
      <NeedsScript />
    </Layout>
  );
}
