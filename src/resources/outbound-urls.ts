import { ApiError } from '../errors.ts';
import { isPolicyRefusal } from '../egress/errors.ts';
import type { GuardedClient } from '../egress/client.ts';

/** Longest wait for DNS at request time; past it the URL is accepted and the fetch or delivery decides. */
const CHECK_TIMEOUT_MS = 3000;

/**
 * Every URL of a request that the service will contact later (an input it fetches, the
 * result it uploads, the webhook it calls), checked against the egress policy now, as the
 * guarded client would check it then: a 400 naming the first field refused, before anything
 * is stored or charged. URLs starting with one of `local` (the storage scheme, the driver
 * bank) are not contacted and not checked, nor is an empty one (none). A name that does not
 * resolve now, or not within 3 s, passes: it may resolve later, and the guard checks again
 * when the request is made.
 */
export async function checkOutboundUrls(
  client: Pick<GuardedClient, 'check'>,
  fields: readonly (readonly [field: string, url: string | undefined])[],
  local: readonly string[],
): Promise<void> {
  // An empty string is no URL: the hosted clients send `webhook: ""` for none.
  const contacted = fields.filter((f): f is readonly [string, string] => !!f[1] && !local.some((prefix) => f[1]!.startsWith(prefix)));
  const verdicts = await Promise.all(contacted.map(([, url]) => within(client.check(url).then(() => undefined, (err: unknown) => err))));
  verdicts.forEach((err, i) => {
    if (!isPolicyRefusal(err)) return;
    const field = contacted[i]![0];
    const message = `is refused by the egress policy: ${err.message}`;
    throw new ApiError('BadRequestError', `Invalid request body: ${field} ${message}`, [{ field, message }]);
  });
}

function within(check: Promise<unknown>): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), CHECK_TIMEOUT_MS);
    timer.unref();
  });
  return Promise.race([check, timeout]).finally(() => clearTimeout(timer));
}
