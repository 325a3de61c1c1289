/**
 * The agents pages as the server renders them (the browser test, test/browser/studio-agents.test.ts,
 * drives them): behind the session, in the shell with their scripts and style sheet, a label
 * on every control, errors tied to their fields, and an agent id that is not one a 404.
 */
import { describe, expect, it } from 'vitest';
import { fakeStudio } from './fake-accounts.ts';
import { studioAssets } from '../../src/studio/routes/assets.ts';
import { readFileSync } from 'node:fs';

const studio = fakeStudio();
const AGENT = 'agt_0mx03mpic0000f9db0916a7367c31';
const PAGES = [
  ['/studio/agents', 'Agents', ['agents.js']],
  ['/studio/agents/new', 'New agent', ['agent-form.js']],
  [`/studio/agents/${AGENT}`, 'Client keys', ['agent-talk.js', 'agent-keys.js']],
  [`/studio/agents/${AGENT}/edit`, 'Edit agent', ['agent-form.js']],
] as const;
const asset = (name: string) => studioAssets().get(name)!.path;

describe('the agents pages', () => {
  it.each(PAGES)('%s: 303 to sign-in without a session', async (path) => {
    const res = await studio.get(path, { signedIn: false });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/studio/sign-in?next=${encodeURIComponent(path)}`);
  });

  it.each(PAGES)('%s: 200 in the shell, its scripts and agents.css, Agents current in the navigation', async (path, heading, scripts) => {
    const res = await studio.get(path);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(heading);
    expect(html).toContain('<a href="/studio/agents" aria-current="page">Agents</a>');
    expect(html).toContain(`<link rel="stylesheet" href="${asset('agents.css')}"/>`);
    for (const s of scripts) expect(html).toContain(`<script type="module" src="${asset(s)}"></script>`);
  });

  it.each(PAGES)('%s: every control has a label', async (path) => {
    const html = await (await studio.get(path)).text();
    const controls = [...html.matchAll(/<(?:input|select|textarea)\b[^>]*\bid="([^"]+)"[^>]*>/g)].filter((m) => !/type="hidden"/.test(m[0]));
    for (const m of controls) expect(html, m[1]).toContain(`<label for="${m[1]}">`);
  });

  it('the form ties each field to the error the API may name it in', async () => {
    const html = await (await studio.get('/studio/agents/new')).text();
    const slots = [...html.matchAll(/<p id="([^"]+)" class="error field-error" data-error-for="([^"]+)">/g)].map((m) => [m[1]!, m[2]!]);
    expect(slots.map(([, field]) => field)).toEqual(expect.arrayContaining(['preview_name', 'presenter', 'presenter.voice', 'llm.model', 'llm.base_url', 'llm.secret_id', 'llm.temperature', 'llm.instructions', 'llm.tools']));
    // Each error is read with its control (aria-describedby names it).
    for (const [id] of slots) expect(html, id).toMatch(new RegExp(`aria-describedby="[^"]*\\b${id}\\b`));
    expect(html).toContain('novalidate=""');
    expect(html).toContain('data-agent-id=""');
  });

  it('the agent page carries the agent id and the public URL for its scripts, as data attributes only', async () => {
    const html = await (await studio.get(`/studio/agents/${AGENT}`)).text();
    expect(html).toContain(`<div id="agent-page" data-agent-id="${AGENT}" data-public-url="http://mimic.test" hidden=""></div>`);
    expect(html).toContain('<dialog id="ck-revoke-dialog" aria-labelledby="ck-revoke-title"');
    expect(html).toContain(`<a class="button secondary" href="/studio/agents/${AGENT}/edit">`);
  });

  it('deleting is on the edit page only, behind a confirmation', async () => {
    expect(await (await studio.get(`/studio/agents/${AGENT}/edit`)).text()).toContain('<dialog id="agent-delete-dialog" aria-labelledby="agent-delete-title"');
    expect(await (await studio.get('/studio/agents/new')).text()).not.toContain('agent-delete');
  });

  it.each(['/studio/agents/nope', '/studio/agents/agt_<x>', '/studio/agents/agt_a%22b/edit', `/studio/agents/${AGENT}/more`])('%s is the studio\'s 404', async (path) => {
    expect((await studio.get(path)).status).toBe(404);
  });

  it('the agent page\'s stream module is examples/stream/stream.js, the one the example page runs', () => {
    const stream = studioAssets().get('stream.js')!;
    expect(Buffer.from(stream.body).toString('utf8')).toBe(readFileSync(new URL('../../examples/stream/stream.js', import.meta.url), 'utf8'));
    const talk = Buffer.from(studioAssets().get('agent-talk.js')!.body).toString('utf8');
    expect(talk).toContain(`from './${stream.path.slice('/studio/assets/'.length)}'`);
  });
});
