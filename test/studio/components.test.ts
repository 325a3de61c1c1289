import { describe, expect, it } from 'vitest';
import { ConfirmDialog, ListTable, NeedsScript, StatusLines } from '../../src/studio/routes/components.tsx';

// The studio's shared page pieces: the markup the pages' scripts and the browser tests find by
// id, role and text, the same on every page that uses them.
describe('the studio\'s shared page pieces', () => {
  it('a list table: its heading (focusable, or for screen readers only), headed columns, busy with a Loading row, and its Show more button hidden', async () => {
    const html = String(await ListTable({ heading: { id: 'keys-heading', text: 'Your keys' }, rows: 'keys-rows', columns: ['Key', { hidden: 'Actions' }], more: { id: 'keys-more', text: 'Show more keys' } }));
    expect(html).toBe(
      '<h2 id="keys-heading" tabindex="-1">Your keys</h2><table aria-labelledby="keys-heading" aria-busy="true"><thead><tr><th scope="col">Key</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>' +
        '<tbody id="keys-rows"><tr><td colspan="2">Loading…</td></tr></tbody></table>' +
        '<p><button id="keys-more" type="button" class="secondary" hidden="">Show more keys</button></p>',
    );
    expect(String(await ListTable({ heading: { id: 'h', text: 'Yours', hidden: true }, rows: 'r', columns: ['Name'] }))).toMatch(/^<h2 id="h" class="visually-hidden">Yours<\/h2><table aria-labelledby="h" aria-busy="true">/);
    expect(String(await ListTable({ labelledBy: 'keys-heading', rows: 'r', columns: ['Key'] }))).toMatch(/^<table aria-labelledby="keys-heading" aria-busy="true">.*<\/table>$/);
    expect(String(await ListTable({ id: 'list', label: 'Clips', rows: 'list-rows', columns: ['Clip'] }))).toMatch(/^<table id="list" aria-label="Clips" aria-busy="true">.*<\/table>$/);
  });

  it('status lines: role=status (polite) and role=alert, focusable when asked', async () => {
    expect(String(await StatusLines({ status: 's', error: 'e' }))).toBe('<p id="s" class="status" role="status" aria-live="polite"></p><p id="e" class="error" role="alert"></p>');
    expect(String(await StatusLines({ status: 's', error: 'e', focusable: 'both' }))).toBe(
      '<p id="s" class="status" role="status" aria-live="polite" tabindex="-1"></p><p id="e" class="error" role="alert" tabindex="-1"></p>',
    );
    expect(String(await StatusLines({ error: 'e' }))).toBe('<p id="e" class="error" role="alert"></p>');
  });

  it('the noscript notice, and a confirmation dialog whose Cancel has the focus', async () => {
    expect(String(await NeedsScript({}))).toBe('<noscript><p class="error">This page needs JavaScript: it calls the API from your browser.</p></noscript>');
    const dialog = String(await ConfirmDialog({ id: 'key-revoke', title: 'Revoke this key?', confirm: 'Revoke key', value: 'revoke', children: 'It stops working.' }));
    expect(dialog).toBe(
      '<dialog id="key-revoke-dialog" aria-labelledby="key-revoke-title" aria-describedby="key-revoke-text"><form method="dialog"><h2 id="key-revoke-title">Revoke this key?</h2>' +
        '<p id="key-revoke-text">It stops working.</p><div class="row"><button value="cancel" class="secondary" autofocus="">Cancel</button>' +
        '<button value="revoke" class="danger solid">Revoke key</button></div></form></dialog>',
    );
  });
});
