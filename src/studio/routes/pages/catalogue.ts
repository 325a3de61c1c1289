/**
 * The studio's pages at fixed addresses, in one list: the navigation, the home page's cards,
 * `bench/studio.ts` and the accessibility test (`test/browser/studio-a11y.test.ts`) all read
 * it, so a new page is one entry here besides its routes. Pages under an id (a clip, an
 * agent) are reached from these and are not listed.
 */
export interface StudioPageInfo {
  /** Where it is served (`/studio/clips`). */
  path: string;
  /** What it is, in a few words (`clips`): the benchmark's row, a test's message. */
  name: string;
  /** Only for a signed-in person (else a visitor's page: sign-in, a reset). */
  signedIn: boolean;
  /** Its label in the navigation, when it has one. */
  nav?: string;
  /** In the header's corner with the person's own pages (keys, account), not among the studio's areas. */
  corner?: boolean;
  /** What a person does there, for its card on the home page. */
  summary?: string;
}

export const STUDIO_PAGES: readonly StudioPageInfo[] = [
  { name: 'sign-in', path: '/studio/sign-in', signedIn: false },
  { name: 'forgot password', path: '/studio/forgot-password', signedIn: false },
  { name: 'set password (invite link)', path: '/studio/invite?token=bench', signedIn: false },
  { name: 'home', path: '/studio/', signedIn: true, nav: 'Home' },
  {
    name: 'consents', path: '/studio/consents', signedIn: true, nav: 'Consents',
    summary: 'Record the statement that lets mimic make an avatar of you, with your camera and microphone in this page, and watch it being checked.',
  },
  { name: 'record a consent', path: '/studio/consents/new', signedIn: true },
  {
    name: 'avatars', path: '/studio/avatars', signedIn: true, nav: 'Avatars',
    summary: 'Train a premium-plus avatar from a verified consent and your footage; the upload resumes if the connection drops.',
  },
  { name: 'new avatar', path: '/studio/avatars/new', signedIn: true },
  {
    name: 'presenters', path: '/studio/presenters', signedIn: true, nav: 'Presenters',
    summary: 'The built-in presenters and your own, each with its talking preview.',
  },
  {
    name: 'clips', path: '/studio/clips', signedIn: true, nav: 'Clips',
    summary: 'Make a presenter speak your script or your recording, and watch the clip render.',
  },
  { name: 'new clip', path: '/studio/clips/new', signedIn: true },
  { name: 'talks', path: '/studio/talks', signedIn: true, nav: 'Talks' },
  { name: 'animations', path: '/studio/animations', signedIn: true, nav: 'Animations' },
  {
    name: 'agents', path: '/studio/agents', signedIn: true, nav: 'Agents',
    summary: 'Make an agent (presenter, voice, model, tools), talk to it live, and embed it in your site with a client key.',
  },
  { name: 'new agent', path: '/studio/agents/new', signedIn: true },
  {
    name: 'tools', path: '/studio/tools', signedIn: true, nav: 'Tools',
    summary: 'Define the calls your agents may make, check their parameters as you type, and try one.',
  },
  { name: 'new tool', path: '/studio/tools/new', signedIn: true },
  {
    name: 'secrets', path: '/studio/secrets', signedIn: true, nav: 'Secrets',
    summary: 'Store the credentials your tools and agents use, or connect an account over OAuth; no value is ever shown again.',
  },
  { name: 'connect an account', path: '/studio/secrets/connect', signedIn: true },
  {
    name: 'audit log', path: '/studio/audit', signedIn: true, nav: 'Audit log',
    summary: 'Who used which secret and tool, and every sign-in, with filters.',
  },
  {
    name: 'API keys', path: '/studio/keys', signedIn: true, nav: 'API keys', corner: true,
    summary: 'Create a key for a program (shown once), and revoke one you no longer trust.',
  },
  {
    name: 'account', path: '/studio/account', signedIn: true, nav: 'Account', corner: true,
    summary: 'Change your password, and sign out a browser you left signed in.',
  },
];
