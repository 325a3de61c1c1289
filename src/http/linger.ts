import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** How long a connection that ends after an answer keeps reading what the client still sends. */
export const LINGER_MS = 2000;

const lingering = new WeakSet<Socket>();

/**
 * Makes the connection of `incoming`, which ends after its answer (`Connection: close`), end
 * in stages (RFC 9112 section 9.6) instead of at once. Node closes the socket as soon as the
 * answer is written (`destroySoon`): a client still sending the body then meets a reset and
 * may lose the answer before reading it (undici: EPIPE, 2 of 8 over-limit POSTs in a row).
 * Here the answer and a FIN go out, the rest of the body is read and dropped (never held),
 * and the socket closes when the client closes its side, or after LINGER_MS at the most.
 */
export function lingerOnClose(incoming: IncomingMessage): void {
  const socket = incoming.socket as Socket | null;
  if (!socket || socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  // Node's server calls destroySoon once the answer is written on a connection that closes;
  // the adapter's own cut (@hono/node-server, 500 ms) calls it too, and then does nothing more.
  socket.destroySoon = function destroySoon(this: Socket) {
    socket.destroySoon = () => {};
    if (this.writable) this.end();
    if (this.readableEnded) {
      this.destroy();
      return;
    }
    const close = () => {
      clearTimeout(timer);
      this.destroy();
    };
    const timer = setTimeout(close, LINGER_MS);
    timer.unref();
    this.once('end', close);
    this.once('close', () => clearTimeout(timer));
    // A body that was read from is held paused by its reader: drop that reader and let the
    // rest of the body flow to nowhere.
    incoming.removeAllListeners('data');
    incoming.on('data', () => {});
    incoming.resume();
  };
}
