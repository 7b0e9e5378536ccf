import { expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

/** A variable and an environment in which its value is bad. */
export type BadValue = [name: string, env: Record<string, string>];

/** One test per case: loading that environment stops with a ConfigError whose message starts with the variable's name. */
export function itStopsOnEach(bad: readonly BadValue[]): void {
  it.each(bad)('a bad %s stops with a message naming it (%o)', (name, env) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^${name} `));
  });
}
