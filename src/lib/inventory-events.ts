import { appSingleton, type AppContext } from '../app-context.js';

type Listener = (sessionIds: readonly number[]) => void;
const listenersOf = appSingleton('inventory.listeners', () => new Set<Listener>());

/**
 * In-process notice that the inventory of some sessions changed (a hold, a release, a sale), so that
 * caches of seat availability drop what they hold. Writers call `inventoryChanged` after commit.
 */
export function onInventoryChanged(ctx: AppContext, listener: Listener): () => void {
  const set = listenersOf(ctx);
  set.add(listener);
  return () => set.delete(listener);
}

export function inventoryChanged(ctx: AppContext, sessionIds: Iterable<number>): void {
  const ids = [...new Set(sessionIds)];
  if (ids.length === 0) return;
  for (const listener of listenersOf(ctx)) listener(ids);
}
