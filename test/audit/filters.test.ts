/**
 * GET /audit's filters: an action or a family of them, the outcome, a time range, with the
 * secret and tool filters and paging; a bad filter is a 400 naming the field; another
 * person's events never show.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { AUDIT, auditRecord, type AuditEntry } from '../../src/audit/contract.ts';
import { randomId } from '../../src/clock.ts';

let h: Harness;
let key: string;
let other: string;
const T0 = Date.parse('2026-11-28T08:00:00Z');
const MIN = 60_000;

beforeAll(async () => {
  h = harness();
  const me = h.user();
  const them = h.user();
  key = me.key;
  other = them.key;
  await h.call('GET', '/health');
  const audit = h.services.find(AUDIT)!;
  const add = (minutes: number, entry: Omit<AuditEntry, 'userId'>, userId = me.id) => audit.append(auditRecord(randomId, T0 + minutes * MIN, { userId, ...entry }));
  await add(0, { action: 'account.sign_in', outcome: 'failure', detail: { reason: 'wrong_password' } });
  await add(1, { action: 'account.sign_in', outcome: 'success', detail: { session_id: 'ses_1' } });
  await add(2, { action: 'tool.created', outcome: 'success', toolId: 'tool_a' });
  await add(3, { action: 'tool.called', outcome: 'success', toolId: 'tool_a', callId: 'call_1' });
  await add(4, { action: 'secret.used', outcome: 'failure', toolId: 'tool_b', secretId: 'sec_1' });
  await add(5, { action: 'account.signed_out', outcome: 'success' });
  await add(6, { action: 'account_other.thing' as AuditEntry['action'], outcome: 'success' });
  await add(3, { action: 'account.sign_in', outcome: 'success' }, them.id);
});
afterAll(() => h.close());

const actions = async (query: string, k = key): Promise<string[]> => {
  const res = await h.call('GET', `/audit?${query}`, { key: k });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.events.map((e: { action: string; at: string }) => `${e.action}@${(Date.parse(e.at) - T0) / MIN}`);
};

describe('GET /audit filters', () => {
  it('an exact action, or a family by its prefix (account.* is not account_other.*)', async () => {
    expect(await actions('action=tool.called')).toEqual(['tool.called@3']);
    expect(await actions('action=account.*')).toEqual(['account.signed_out@5', 'account.sign_in@1', 'account.sign_in@0']);
    expect(await actions('action=tool.*')).toEqual(['tool.called@3', 'tool.created@2']);
  });

  it('the outcome, a time range (since inclusive, until exclusive, any zone or a date), and all of them with tool_id', async () => {
    expect(await actions('outcome=failure')).toEqual(['secret.used@4', 'account.sign_in@0']);
    expect(await actions('since=2026-11-28T08:02:00Z&until=2026-11-28T08:04:00Z')).toEqual(['tool.called@3', 'tool.created@2']);
    expect(await actions('since=2026-11-28T09:03:00%2B01:00')).toEqual(['account_other.thing@6', 'account.signed_out@5', 'secret.used@4', 'tool.called@3']);
    expect(await actions('until=2026-11-28')).toEqual([]);
    expect(await actions('since=2026-11-28&until=2026-11-29')).toHaveLength(7);
    expect(await actions('tool_id=tool_a&action=tool.*&since=2026-11-28T08:03:00Z')).toEqual(['tool.called@3']);
    expect(await actions('action=&outcome=&since=')).toHaveLength(7);
  });

  it('pages through a filtered list with the same filters', async () => {
    const first = await h.call('GET', '/audit?action=account.*&limit=2', { key });
    expect(first.body.events).toHaveLength(2);
    const second = await h.call('GET', `/audit?action=account.*&limit=2&token=${first.body.token}`, { key });
    expect(second.body.events.map((e: { action: string }) => e.action)).toEqual(['account.sign_in']);
    expect(second.body.token).toBeUndefined();
  });

  it("another person's events never show", async () => {
    expect(await actions('action=account.*', other)).toEqual(['account.sign_in@3']);
  });

  it.each([
    ['action=account', 'action'],
    ['action=Account.*', 'action'],
    ['action=*', 'action'],
    ['outcome=maybe', 'outcome'],
    ['since=yesterday', 'since'],
    ['since=2026-11-28T08:00:00', 'since'],
    ['until=2026-13-45', 'until'],
    ['since=2026-11-28T09:00:00Z&until=2026-11-28T08:00:00Z', 'until'],
    ['tool_id=a%20b', 'tool_id'],
  ])('refuses %s with a 400 naming %s', async (query, field) => {
    const res = await h.call('GET', `/audit?${query}`, { key });
    expect(res.status).toBe(400);
    expect(res.body.kind).toBe('BadRequestError');
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });
});
