#!/usr/bin/env node
/** The one entry point: `serve` and the operator commands (`users`, `keys`, `vault`, `secrets`, `workers`, `worker`, `migrate`). */
import { loadConfig, loadDataSettings, ConfigurationError, type Config } from './config.ts';
import { COMMANDS, UsageError, commandHelp, findCommand, findGroup, groupHelp, parseCommandArgs } from './cli/commands.ts';

const out = (line: string) => process.stdout.write(line + '\n');
const err = (line: string) => process.stderr.write(line + '\n');

function topHelp(): string {
  const lines = Object.values(COMMANDS).map((c) => `  ${c.usage}`);
  return [
    'usage: npm run -s mimic -- <command> [options]',
    '',
    'commands:',
    '  serve                        runs the HTTP service (npm start does this)',
    ...lines,
    '',
    'Every command takes --help. Configuration comes from the environment (docs/configuration.md); every command: docs/cli.md.',
  ].join('\n');
}

const SERVE_USAGE = 'npm start   (or: npm run -s mimic -- serve, or: mimic serve)';
const SERVE_HELP = [
  `usage: ${SERVE_USAGE}`,
  '',
  'Runs the HTTP service on HOST:PORT (default 0.0.0.0:8080) with its data in MIMIC_DATA_DIR (default .mimic), the job runner',
  'in the same process; stops gracefully on SIGTERM or SIGINT. It takes no options: every setting is an environment variable,',
  'checked at start (docs/configuration.md). On a data directory without a master key it generates a development one.',
  '',
  'example:',
  '  PORT=9000 MIMIC_DATA_DIR=/var/lib/mimic MIMIC_PUBLIC_URL=https://mimic.example.com npm start',
].join('\n');

/** parseArgs' own sentences are long and, for an unknown option, end in an unbalanced quote: one short line instead. */
function usageProblem(e: Error & { code?: string }): string {
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${/'([^']+)'/.exec(e.message)?.[1] ?? ''}`.trim();
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const option = /'(--?[\w-]+)/.exec(e.message)?.[1];
    if (option && / argument missing/.test(e.message)) return `${option} needs a value`;
    if (option) return `${option} takes no value`;
  }
  return e.message;
}

function warnDevKey(config: Config): void {
  if (config.masterKeySource !== 'generated') return;
  err(
    [
      '',
      '!!! WARNING: generated a DEVELOPMENT master key at ' + `${config.dataDir}/master.key`,
      '!!! Everything encrypted by this service depends on it. Back it up, keep it secret, and in',
      '!!! production set MIMIC_MASTER_KEY (or MIMIC_MASTER_KEY_FILE) from your secret manager.',
      '',
    ].join('\n'),
  );
}

async function main(argv: string[]): Promise<number> {
  const [first] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    out(topHelp());
    return first === undefined ? 2 : 0;
  }
  if (first === 'serve') {
    if (argv.includes('--help') || argv.includes('-h')) {
      out(SERVE_HELP);
      return 0;
    }
    const extra = argv[1];
    if (extra !== undefined) {
      err(`${extra.startsWith('-') ? 'unknown option' : 'unexpected argument'} ${extra}\nusage: ${SERVE_USAGE}`);
      return 2;
    }
    const config = loadConfig();
    warnDevKey(config);
    const { runServer } = await import('./server.ts');
    await runServer(config);
    return -1; // keeps running; exits from the signal handler
  }
  const found = findCommand(argv);
  const group = found ? null : findGroup(argv);
  if (group) {
    // `users --help` prints the group's commands; a bare `users` prints them as a usage error,
    // after naming what was not understood (`users frobnicate`, `users --bogus`).
    const asked = argv.includes('--help') || argv.includes('-h');
    if (asked) {
      out(groupHelp(group));
      return 0;
    }
    const wrong = argv[group.name.split(' ').length];
    const why = wrong === undefined ? '' : wrong.startsWith('-') ? `unknown option ${wrong}\n\n` : `unknown command: ${group.name} ${wrong}\n\n`;
    err(why + groupHelp(group));
    return 2;
  }
  if (!found) {
    err(`unknown command: ${argv.join(' ')}\n\n${topHelp()}`);
    return 2;
  }
  try {
    const { values, positionals } = parseCommandArgs(found.command, found.rest);
    if (values.help) {
      out(commandHelp(found.command));
      return 0;
    }
    // Loaded on first use: a remote `worker` needs no data directory and no master key.
    let config: Config | undefined;
    const ctx = {
      out,
      err,
      get config(): Config {
        if (!config) warnDevKey((config = loadConfig()));
        return config;
      },
      get settings() {
        return loadDataSettings();
      },
    };
    return await found.command.run(ctx, values, positionals);
  } catch (e) {
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      err(`${usageProblem(e as Error & { code?: string })}\nusage: npm run -s mimic -- ${found.command.usage}`);
      return 2;
    }
    throw e;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (e: unknown) => {
    err(e instanceof ConfigurationError ? `configuration error: ${e.message}` : `error: ${(e as Error).message}`);
    process.exitCode = 1;
  },
);
