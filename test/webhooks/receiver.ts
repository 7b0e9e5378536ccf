import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A real HTTP receiver on a free local port: it keeps every request it gets and answers with the
 * status `answer` chooses (200 unless told otherwise).
 */
export async function startReceiver(answer: (req: Received, index: number) => number = () => 200) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(r);
      const status = answer(r, received.length - 1);
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status >= 300 ? `answer ${status} ` + 'x'.repeat(2000) : 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
