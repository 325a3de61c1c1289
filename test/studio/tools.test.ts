/**
 * The tools, tool editor and audit pages as served: behind a session, in the shell with their
 * scripts and style sheet, a label on every control, errors tied to their fields, the
 * editor's data-tool-id, and the audit filter listing every action in words.
 */
import { describe, expect, it } from 'vitest';
import { fakeStudio } from './fake-accounts.ts';
import { studioAssets } from '../../src/studio/routes/assets.ts';
import { AUDIT_ACTIONS } from '../../src/audit/contract.ts';
import { ACTION_WORDS } from '../../src/studio/routes/pages/audit-words.ts';

const studio = fakeStudio();
const asset = (name: string) => studioAssets().get(name)!.path;

const PAGES = [
  ['/studio/tools', 'Your tools', 'tools.js'],
  ['/studio/tools/new', 'New tool', 'tool.js'],
  ['/studio/tools/tool_abc123', 'Edit tool', 'tool.js'],
  ['/studio/audit', 'Audit log', 'audit.js'],
] as const;

describe('the tools and audit pages', () => {
  it.each(PAGES)('%s: 303 to sign-in without a session', async (path) => {
    const res = await studio.get(path, { signedIn: false });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/studio/sign-in?next=${encodeURIComponent(path)}`);
  });

  it.each(PAGES)('%s: 200 in the shell with its script, tools.css, and a label on every control', async (path, heading, script) => {
    const res = await studio.get(path);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(heading);
    expect(html).toContain(`<script type="module" src="${asset(script)}"></script>`);
    expect(html).toContain(`<link rel="stylesheet" href="${asset('tools.css')}"/>`);
    expect(html).toContain('<meta name="csrf-token" content="csrf-ses_test"/>');
    const controls = [...html.matchAll(/<(?:input|select|textarea)\b[^>]*\bid="([^"]+)"[^>]*>/g)].filter((m) => !/type="hidden"/.test(m[0]));
    for (const m of controls) expect(html, m[1]).toMatch(new RegExp(`<label[^>]*for="${m[1]}"`));
    expect(html).not.toMatch(/<script>|style="/);
  });

  it('the navigation names both pages; the editor marks Tools as current', async () => {
    const html = await (await studio.get('/studio/tools/new')).text();
    expect(html).toContain('<a href="/studio/tools" aria-current="page">Tools</a>');
    expect(html).toContain('<a href="/studio/audit">Audit log</a>');
  });

  it('the editor: a new tool starts from a parameters schema; an existing one carries its id in data-tool-id only', async () => {
    const fresh = await (await studio.get('/studio/tools/new')).text();
    expect(fresh).toContain('data-tool-id=""');
    const parameters = (html: string) => /<textarea id="tool-parameters"[^>]*>([^<]*)<\/textarea>/.exec(html)?.[1];
    expect(parameters(fresh)).toContain('&quot;type&quot;: &quot;object&quot;');
    expect(fresh).toContain('aria-describedby="tool-parameters-hint parameters-check"');
    expect(fresh).toContain('<div id="parameters-check" class="check" role="status" aria-live="polite">');
    for (const field of ['tool-name', 'tool-description', 'tool-provider', 'tool-url', 'tool-method', 'tool-timeout', 'tool-secret']) {
      expect(fresh).toMatch(new RegExp(`id="${field}"[^>]*aria-describedby="[^"]*${field}-error"`));
      expect(fresh).toContain(`<p id="${field}-error" class="error field-error"></p>`);
    }
    const existing = await (await studio.get('/studio/tools/tool_abc123')).text();
    expect(existing).toContain('data-tool-id="tool_abc123"');
    expect(parameters(existing)).toBe('');
  });

  it('an id that cannot be a tool id is the 404 page', async () => {
    expect((await studio.get('/studio/tools/a%20b')).status).toBe(404);
    expect((await studio.get('/studio/tools/x/y')).status).toBe(404);
  });

  it('the audit filter lists every action in words, and the families', async () => {
    const html = await (await studio.get('/studio/audit')).text();
    for (const action of AUDIT_ACTIONS) expect(html).toContain(`<option value="${action}">${ACTION_WORDS[action]}</option>`);
    for (const family of ['account.*', 'secret.*', 'tool.*']) expect(html).toContain(`<option value="${family}">`);
    expect(html).toContain('<input id="filter-since" name="since" type="datetime-local"');
  });
});
