/**
 * A second service process for the cross-process refresh test: opens the same data
 * directory, waits for "go" on stdin, makes COUNT concurrent tool calls, prints their
 * upstream statuses as one JSON line. Trusts the test's upstream through NODE_EXTRA_CA_CERTS.
 */
import { createInterface } from 'node:readline';
import { loadConfig } from '../../src/config.ts';
import { createServices } from '../../src/services.ts';
import { silentLogger } from '../../src/log.ts';
import { callTool } from '../../src/tools/call.ts';

const config = loadConfig({ MIMIC_DATA_DIR: process.env.DATA_DIR!, MIMIC_EGRESS_ALLOW: 'localhost' });
const services = createServices(config, { log: silentLogger });
await services.vault.ready();
process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
await new Promise<void>((resolve) => lines.once('line', () => resolve()));
lines.close(); // an open stdin would keep this process alive
const statuses = await Promise.all(
  Array.from({ length: Number(process.env.COUNT) }, () =>
    callTool(services.modules.tools.deps, process.env.USER_ID!, process.env.TOOL_ID!, { input: { city: 'Oslo' } }).then(
      (r) => r.output.status,
      (e: Error) => e.message,
    ),
  ),
);
process.stdout.write(JSON.stringify(statuses) + '\n');
await services.close();
