import type { ClientSocket, SocketCaller, SocketRoute } from '../platform/module.ts';
import type { AuthUser } from '../platform/caller.ts';

/**
 * The notifications WebSocket the agents SDK opens beside its chat (docs/agents.md,
 * "Notifications"): `wsURL?authorization=<its Authorization header, URL-encoded>`. The SDK
 * sends the same `~<connection id>` suffix on that socket and on every HTTP call of one
 * connection, and that is what ties them: an answer to a chat request whose Authorization
 * ends in `~X` goes, as `partial` and `chat/answer` frames, to the caller's sockets opened
 * with `~X`. A socket or a request without a connection id is tied to nothing.
 */

export const NOTIFICATIONS_PATH = '/notifications';
/** Open notification sockets one user may hold; the next one is closed with 1013 (try again later). */
export const MAX_SOCKETS_PER_USER = 50;

/**
 * Whose sockets a caller's frames go to: the user, or for a browser's client key that key's
 * end user (`externalId`), so one end user never gets another's (or the owner's) frames
 * whatever connection id they send.
 */
export const notificationScope = (user: AuthUser): string =>
  user.client ? `${user.id}\u0001${user.client.clientKeyId}\u0001${user.client.externalId}` : user.id;

export type Notification = { event: 'partial'; content: string; sequence: number } | { event: 'chat/answer'; content: string };

export interface Notifications {
  socket: SocketRoute;
  /** Sends a frame to the sockets of this scope's (`notificationScope`) connection; answers how many got it (0 without a connection id). */
  send(scope: string, connectionId: string | undefined, frame: Notification): number;
}

export function createNotifications(): Notifications {
  const byConnection = new Map<string, Set<ClientSocket>>();
  const perUser = new Map<string, number>();
  const keyOf = (userId: string, connectionId: string) => `${userId}\u0000${connectionId}`;

  const open = (socket: ClientSocket, caller: SocketCaller) => {
    const userId = notificationScope(caller.user);
    const count = perUser.get(userId) ?? 0;
    if (count >= MAX_SOCKETS_PER_USER) return socket.close(1013, `at most ${MAX_SOCKETS_PER_USER} notification sockets per user`);
    perUser.set(userId, count + 1);
    const key = caller.connectionId === undefined ? undefined : keyOf(userId, caller.connectionId);
    if (key !== undefined) {
      const set = byConnection.get(key) ?? new Set();
      set.add(socket);
      byConnection.set(key, set);
    }
    socket.onClose(() => {
      const left = (perUser.get(userId) ?? 1) - 1;
      if (left > 0) perUser.set(userId, left);
      else perUser.delete(userId);
      if (key === undefined) return;
      const set = byConnection.get(key);
      set?.delete(socket);
      if (set?.size === 0) byConnection.delete(key);
    });
  };

  return {
    // The SDK sends nothing on this socket: a message is ignored (and bounded by the platform's size limit).
    socket: { path: NOTIFICATIONS_PATH, maxMessageBytes: 1024, clientKey: true, open },
    send(userId, connectionId, frame) {
      if (connectionId === undefined) return 0;
      const text = JSON.stringify(frame);
      let sent = 0;
      for (const socket of byConnection.get(keyOf(userId, connectionId)) ?? []) if (socket.send(text)) sent++;
      return sent;
    },
  };
}
