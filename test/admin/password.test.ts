import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../src/modules/admin/accounts.password.js';
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { Field, Select } from '../../src/modules/admin/dashboard/kit/dashboard.controls.js';

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
  it("the dashboard kit's controls escape every text and attribute they are given", () => {
    const name = `<img src=x onerror="alert('1')">&`;
    const escaped = `&lt;img src=x onerror=&quot;alert('1')&quot;>&amp;`;
    const field = renderToString(h(Field, { name: 'n', label: name, value: name, hint: name, errors: [name] }));
    expect(field).not.toContain('<img');
    // the value attribute, the label, the hint and the error message
    expect(field).toContain(`value="${escaped}"`);
    expect(field.split(escaped)).toHaveLength(5);
    const select = renderToString(h(Select, { name: 's', label: 'S', options: [[name, name]], selected: name }));
    expect(select).toContain(`<option value="${escaped}" selected>${escaped}</option>`);
  });
});
