/** oidc-provider ships no types: the little the tests use of it. */
declare module 'oidc-provider' {
  interface Token {
    grantId: string;
  }
  interface Grant {
    destroy(): Promise<void>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void;
    AccessToken: { find(value: string): Promise<Token | undefined> };
    Grant: { find(id: string): Promise<Grant | undefined> };
  }
}
