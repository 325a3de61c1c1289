import { defineModule } from '../platform/module.ts';
import { USER_COMMANDS } from './cli.ts';

/** Users, their API keys and credits: operator commands only (the API authenticates with the platform's key verifier). */
export const usersModule = defineModule({
  name: 'users',
  commands: USER_COMMANDS,
  create: () => ({}),
});
