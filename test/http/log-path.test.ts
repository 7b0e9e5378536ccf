import { describe, expect, it } from 'vitest';
import { logPath } from '../../src/http/log-path.js';

describe('logPath (no credential in logs)', () => {
  it('drops the query string, which can carry signatures and tokens', () => {
    expect(logPath('/api/sales-channel/v1/demo-d/es/events?x=1&signature=abc')).toBe('/api/sales-channel/v1/demo-d/es/events');
  });

  it('hides the ticket code of a ticket download path', () => {
    expect(logPath('/api/tickets/AbCdEf0123456789AbCdEf01.pdf?expires=1&signature=s')).toBe('/api/tickets/[redacted]');
    expect(logPath('/api/tickets/AbCdEf0123456789AbCdEf01.pdf')).not.toContain('AbCdEf');
  });

  it('leaves other paths as they are', () => {
    expect(logPath('/healthz')).toBe('/healthz');
  });
});
