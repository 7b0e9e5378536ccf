import { deflateSync, crc32 } from 'node:zlib';

// Build-time assets of the scanner: its web app manifest and PNG icons (drawn here, so no binary
// files live in the repository): three QR finder squares, white on the app's dark blue.

function png(size: number, pixel: (x: number, y: number) => [number, number, number]): Buffer {
  const raw = Buffer.alloc(size * (size * 3 + 1));
  for (let y = 0; y < size; y++) {
    const row = y * (size * 3 + 1);
    raw[row] = 0; // filter: none
    for (let x = 0; x < size; x++) raw.set(pixel(x, y), row + 1 + x * 3);
  }
  const chunk = (type: string, data: Buffer) => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, 'ascii');
    data.copy(out, 8);
    out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

const DARK: [number, number, number] = [0x14, 0x21, 0x3d];
const LIGHT: [number, number, number] = [0xff, 0xff, 0xff];
const GREEN: [number, number, number] = [0x2e, 0xd1, 0x6b];

/** The icon on a 21-module grid inside the maskable safe zone (the middle 60 %). */
export function icon(size: number): Buffer {
  const cell = (size * 0.6) / 21;
  const origin = size * 0.2;
  const finder = (mx: number, my: number, ox: number, oy: number) => {
    const dx = mx - ox;
    const dy = my - oy;
    if (dx < 0 || dy < 0 || dx > 6 || dy > 6) return false;
    return dx === 0 || dy === 0 || dx === 6 || dy === 6 || (dx >= 2 && dx <= 4 && dy >= 2 && dy <= 4);
  };
  return png(size, (x, y) => {
    const mx = Math.floor((x - origin) / cell);
    const my = Math.floor((y - origin) / cell);
    if (mx < 0 || my < 0 || mx > 20 || my > 20) return DARK;
    if (finder(mx, my, 0, 0) || finder(mx, my, 14, 0) || finder(mx, my, 0, 14)) return LIGHT;
    // A check mark in the free corner: the scanner says yes.
    const cx = mx - 13;
    const cy = my - 13;
    if ((cy === 4 - Math.abs(cx - 3) && cx <= 3 && cx >= 0) || (cy === 7 - cx && cx >= 3 && cx <= 7)) return GREEN;
    return DARK;
  });
}

export const ICON_SIZES = [192, 512] as const;

export function manifest(): string {
  return JSON.stringify(
    {
      name: 'Taquilla check-in',
      short_name: 'Check-in',
      description: 'Ticket scanner for the door: works offline.',
      id: '/checkin/',
      start_url: '/checkin/',
      scope: '/checkin/',
      display: 'standalone',
      orientation: 'portrait',
      background_color: '#eef1f6',
      theme_color: '#14213d',
      icons: ICON_SIZES.map((s) => ({ src: `/checkin/icon-${s}.png`, sizes: `${s}x${s}`, type: 'image/png', purpose: 'any maskable' })),
    },
    null,
    2,
  );
}
