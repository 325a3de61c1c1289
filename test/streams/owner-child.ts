/**
 * An API process run as a child of a test, so the test can SIGKILL it (test/streams/across-processes.test.ts):
 * the real server from its environment (MIMIC_DATA_DIR, PORT...), the stream renderer's test double and
 * the tone voice. Prints `ready` once it listens.
 */
import { loadConfig } from '../../src/config.ts';
import { startServer } from '../../src/server.ts';
import { createLogger } from '../../src/log.ts';
import { createFakeStreamRenderer } from '../helpers/stream-renderer.ts';
import { toneCatalogue } from '../helpers/tone-voice.ts';

await startServer(loadConfig(process.env), { voices: toneCatalogue('local').catalogue, streamRenderer: createFakeStreamRenderer(), log: createLogger((line) => process.stderr.write(`${line}\n`)) });
process.stdout.write('ready\n');
