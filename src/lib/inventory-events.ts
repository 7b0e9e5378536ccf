import type { AppContext } from '../app-context.js';

type Listener = (sessionIds: readonly number[]) => void;
const listeners = new WeakMap<AppContext, Set<Listener>>();

/**
 * In-process notice that the inventory of some sessions changed (a hold, a release, a sale), so that
 * caches of seat availability drop what they hold. Writers call `inventoryChanged` after commit.
 */
export function onInventoryChanged(ctx: AppContext, listener: Listener): () => void {
  let set = listeners.get(ctx);
  if (!set) listeners.set(ctx, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

export function inventoryChanged(ctx: AppContext, sessionIds: Iterable<number>): void {
  const ids = [...new Set(sessionIds)];
  if (ids.length === 0) return;
  for (const listener of listeners.get(ctx) ?? []) listener(ids);
}
