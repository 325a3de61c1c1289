/**
 * A script's options (`parse` calls node:util's parseArgs), or its usage instead of a stack
 * trace: an unknown option or a missing value says which and exits 2; `--help` (an option the
 * script declares) prints the usage and exits 0.
 */
export function scriptOptions<V>(parse: () => { values: V }, usage: string): V {
  let values: V;
  try {
    values = parse().values;
  } catch (e) {
    console.error(`${(e as Error).message.split('. ')[0]}\n${usage}`);
    process.exit(2);
  }
  if ((values as { help?: boolean }).help) {
    console.log(usage);
    process.exit(0);
  }
  return values;
}
