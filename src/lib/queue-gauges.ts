import type { GaugeSource } from '../platform/metrics.js';

/** A durable queue as its scrape sees it: how many items wait, and how long the oldest has waited. */
interface QueueStats {
  depth: number;
  oldestAgeSeconds: number;
}

/** A gauge's name and help text. */
interface GaugeName {
  name: string;
  help: string;
}

/**
 * The two gauges of a durable queue (docs/operations.md "Metrics"): its depth and the age of its
 * oldest item, each read from `stats` at each scrape.
 */
export function queueGauges(stats: () => Promise<QueueStats>, depth: GaugeName, oldestAge: GaugeName): GaugeSource[] {
  return [
    { ...depth, read: async () => [{ value: (await stats()).depth }] },
    { ...oldestAge, read: async () => [{ value: (await stats()).oldestAgeSeconds }] },
  ];
}
