import type { Command } from './command.ts';

export const PROGRAM = 'npm run -s mimic --';

/** `--credits N`: the option as it is written on the command line. */
function optionForm(name: string, spec: NonNullable<Command['options']>[string]): string {
  const short = spec.short ? `-${spec.short}, ` : '';
  return `${short}--${name}${spec.type === 'string' ? ` ${spec.value ?? 'VALUE'}` : ''}`;
}

/** Lines of `form  text`, the texts aligned and wrapped under each other. */
function table(rows: [string, string][]): string[] {
  const width = Math.max(...rows.map(([form]) => form.length)) + 3;
  return rows.flatMap(([form, text]) => {
    const [first, ...rest] = wrap(text, Math.max(40, 100 - width));
    return [`  ${form.padEnd(width)}${first}`, ...rest.map((l) => `  ${' '.repeat(width)}${l}`)];
  });
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}

/** The whole `--help` of a command, made from its declaration: usage, what it does, every argument and option with its default, examples. */
export function commandHelp(command: Command): string {
  const lines = [`usage: ${PROGRAM} ${command.usage}`, '', command.help];
  if (command.arguments?.length) {
    lines.push('', 'arguments:', ...table(command.arguments.map((a) => [a.name, a.description])));
  }
  const options = Object.entries(command.options ?? {});
  if (options.length) {
    lines.push('', 'options:', ...table(options.map(([name, spec]) => [optionForm(name, spec), `${spec.description} (${spec.default.startsWith('required') ? spec.default : `default: ${spec.default}`})`])));
  }
  lines.push('', command.examples.length > 1 ? 'examples:' : 'example:', ...command.examples.map((e) => `  ${PROGRAM} ${e}`));
  return lines.join('\n');
}
