/**
 * `vault rotate` in a process of its own, as an operator runs it beside the server:
 * node --import tsx test/vault/rotate-child.ts <database file> <master key hex> <batch size>
 */
import { dirname } from 'node:path';
import type { Config } from '../../src/config.ts';
import { VAULT_COMMANDS } from '../../src/vault-admin/cli.ts';

const [databaseFile, keyHex, batchSize] = process.argv.slice(2);
const config = { databaseFile, masterKey: Buffer.from(keyHex!, 'hex'), keyProvider: 'local' } as unknown as Config;
process.exitCode = await VAULT_COMMANDS['vault rotate']!.run(
  { config, settings: { dataDir: dirname(databaseFile!), databaseFile: databaseFile!, database: null, env: {} }, out: (l) => process.stdout.write(l + '\n'), err: (l) => process.stderr.write(l + '\n') },
  { 'batch-size': batchSize },
  [],
);
