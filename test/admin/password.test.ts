import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../src/modules/admin/accounts.password.js';
import { escapeHtml, html } from '../../src/modules/admin/dashboard/kit/dashboard.html.js';

describe('password hashing (scrypt, per-user salt)', () => {
  it('verifies the right password only, and salts every hash', async () => {
    const a = await hashPassword('correct horse battery staple');
    const b = await hashPassword('correct horse battery staple');
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse battery staple', a)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', a)).toBe(false);
    expect(await verifyPassword('anything', 'not-a-hash')).toBe(false);
  });
});

describe('html escaping', () => {
  it('escapes interpolated values but not nested templates', () => {
    const name = `<img src=x onerror="alert('1')">&`;
    expect(escapeHtml(name)).toBe('&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;');
    expect(html`<p title="${name}">${[html`<b>${name}</b>`, null, false]}</p>`.value).toBe(
      `<p title="${escapeHtml(name)}"><b>${escapeHtml(name)}</b></p>`,
    );
  });
});
