// A command's declaration is the kernel's (the module contract names it): src/platform/command.ts.
export { UsageError, type OptionSpec, type ArgumentSpec, type Command, type CommandContext } from '../platform/command.ts';
