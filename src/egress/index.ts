export { EgressError, isEgressError, isPolicyRefusal, POLICY_REFUSALS, type EgressReason } from './errors.ts';
export { createEgressPolicy, parseEgressUrl, refusalOf, canonicalIp, classOf, parseIp, mappedV4, hasPrefix, type AddressClass, type AddressScope, type EgressPolicy, type EgressTarget } from './policy.ts';
export {
  createGuardedClient,
  type GuardedClient,
  type GuardedClientOptions,
  type GuardedResponse,
  type RequestInit,
  type DownloadOptions,
  type UploadOptions,
  type Resolver,
} from './client.ts';
