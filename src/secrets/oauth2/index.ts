export { createOAuth2Refresher, type OAuth2Refresher, type OAuth2RefresherOptions, type OAuth2RefreshEvent } from './refresher.ts';
export { ReauthorizationRequired, RefreshFailed } from './errors.ts';
export { tryLock, unlock, newLockOwner } from './lock.ts';
export type { ClientAuthMethod, OAuth2Grant, RefreshedTokens, TokenStore } from './token-store.ts';
