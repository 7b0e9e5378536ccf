import { writeFileSync } from 'node:fs';
import QRCode from 'qrcode';

/**
 * A Y4M video (Chromium's --use-file-for-fake-video-capture) that shows `text` as a QR code, black
 * on white in the middle of a 640x480 frame, as a phone would see a ticket held up to it. Y4M is
 * raw YUV 4:2:0 with a text header, so no video tool is needed.
 */
export function writeQrVideo(path: string, text: string, frames = 3): void {
  const width = 640;
  const height = 480;
  const qr = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const n = qr.modules.size;
  const cell = Math.floor((height - 40) / (n + 8));
  const side = cell * n;
  const x0 = Math.floor((width - side) / 2);
  const y0 = Math.floor((height - side) / 2);
  const luma = Buffer.alloc(width * height, 235);
  for (let my = 0; my < n; my++) {
    for (let mx = 0; mx < n; mx++) {
      if (!qr.modules.get(my, mx)) continue;
      for (let y = 0; y < cell; y++) luma.fill(16, (y0 + my * cell + y) * width + x0 + mx * cell, (y0 + my * cell + y) * width + x0 + (mx + 1) * cell);
    }
  }
  const chroma = Buffer.alloc((width / 2) * (height / 2) * 2, 128);
  const frame = Buffer.concat([Buffer.from('FRAME\n'), luma, chroma]);
  writeFileSync(path, Buffer.concat([Buffer.from(`YUV4MPEG2 W${width} H${height} F10:1 Ip A1:1 C420jpeg\n`), ...Array(frames).fill(frame)]));
}
