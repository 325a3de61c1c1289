import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/db/client.ts';
import { VAULT_COMMANDS } from '../../src/vault-admin/cli.ts';
import { addSecret, addUser, cliContext, KEY_A, KEY_B, makeVault, readFields, tempDataDir, writeFields } from '../vault/helpers.ts';

let data: ReturnType<typeof tempDataDir>;
let store: Store;

beforeEach(async () => {
  data = tempDataDir();
  store = openStore(data.file);
  const vault = makeVault(store);
  await vault.ready();
  addUser(store, 'usr_a');
  for (const id of ['sec_1', 'sec_2']) {
    addSecret(store, 'usr_a', id);
    writeFields(store, id, await vault.seal('usr_a', id, { token: `t-${id}`, refresh_token: `r-${id}` }));
  }
});
afterEach(() => {
  store.close();
  data.cleanup();
});

const run = async (name: string, masterKey: Buffer, values: Record<string, string | boolean | undefined> = {}) => {
  const io = cliContext(data.file, masterKey);
  const code = await VAULT_COMMANDS[name]!.run(io.ctx, values, []);
  return { code, ...io };
};

describe('vault commands', () => {
  it('vault status prints the keys with their data-key counts as one JSON line', async () => {
    const { code, out } = await run('vault status', KEY_A);
    expect(code).toBe(0);
    expect(out).toHaveLength(1);
    const status = JSON.parse(out[0]!);
    expect(status.keys).toEqual([
      { id: status.primary, provider: 'local', status: 'primary', created_at: expect.stringMatching(/Z$/), demoted_at: null, data_keys: 4 },
    ]);
  });

  it('vault rotate re-wraps everything, reports progress on stderr and the report on stdout', async () => {
    const before = JSON.parse((await run('vault status', KEY_A)).out[0]!).primary as string;
    const { code, out, err } = await run('vault rotate', KEY_A, { 'batch-size': '3' });
    expect(code).toBe(0);
    expect(out).toHaveLength(1);
    const report = JSON.parse(out[0]!);
    expect(report).toEqual({ primary: expect.stringMatching(/^kek_/), rewrapped: 4, retired: [before], unreadable: [] });
    expect(err.filter((l) => l.startsWith('vault rotate: re-wrapped'))).toEqual([
      'vault rotate: re-wrapped 3 data keys',
      'vault rotate: re-wrapped 4 data keys',
    ]);
    expect(readFields(store, 'sec_1').map((r) => r.kekId)).toEqual([report.primary, report.primary]);
    expect(err.join('\n')).not.toMatch(/t-sec_1|r-sec_1/);
  });

  it('refuses a wrong master key with the operator message and exit code 1', async () => {
    const { code, out, err } = await run('vault rotate', KEY_B);
    expect(code).toBe(1);
    expect(out).toEqual([]);
    expect(err).toEqual([expect.stringMatching(/^The master key is not the one this data directory was created with/)]);
    expect((await run('vault status', KEY_B)).code).toBe(1);
  });

  it('rejects a batch size that is not a positive whole number', async () => {
    for (const bad of ['0', '-1', '2.5', 'many']) {
      const { code, err } = await run('vault rotate', KEY_A, { 'batch-size': bad });
      expect(code).toBe(2);
      expect(err).toEqual(['--batch-size must be a positive whole number']);
    }
  });
});
