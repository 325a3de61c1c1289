// A command's declaration is the kernel's (the module contract names it): src/platform/command.ts.
export type { OptionSpec, ArgumentSpec, Command, CommandContext } from '../platform/command.ts';

export class UsageError extends Error {}
