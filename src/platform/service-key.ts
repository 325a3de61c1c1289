/**
 * Services one capability offers others, resolved by a typed key the provider declares in its
 * own `contract.ts` (`export const VOICES = defineServiceKey<VoiceCatalogue>('voices')`). A
 * module lists the keys it `needs` (the service must start without it: no), those it `uses`
 * when present, and those it `provides`; the kernel orders the modules from these and hands
 * each one what it asked for. The kernel names no capability's service; it declares one of its
 * own, KEY_OWNERS (src/platform/caller.ts), which the users capability fills.
 */

/** A service's name, carrying its type. Two keys are the same service only if they are the same object. */
export interface ServiceKey<T> {
  readonly name: string;
  /** Never set: it only carries T (and keeps keys of different types apart for the compiler). */
  readonly type?: (value: T) => T;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyServiceKey = ServiceKey<any>;

/** The type a key carries. */
export type ServiceOf<K> = K extends ServiceKey<infer T> ? T : never;

export const defineServiceKey = <T>(name: string): ServiceKey<T> => Object.freeze({ name });

/** One service a module's instance offers: built with `provide(KEY, value)`, so its value is checked against the key. */
export interface Provision<K extends AnyServiceKey = AnyServiceKey> {
  key: K;
  value: ServiceOf<K>;
}

export const provide = <K extends AnyServiceKey>(key: K, value: ServiceOf<K>): Provision<K> => ({ key, value });

/**
 * What a module is given of the other modules' services: `get` for what it declared it
 * `needs` (always there: the service does not start otherwise), `find` for what it `uses`
 * (undefined when no listed module provides it).
 */
export interface ModuleServices<Needs extends AnyServiceKey = never, Uses extends AnyServiceKey = never> {
  get<K extends Needs>(key: K): ServiceOf<K>;
  find<K extends Uses>(key: K): ServiceOf<K> | undefined;
}
