import { spawn } from 'node:child_process';
import path from 'node:path';

/**
 * Starts the example model B channel server (examples/channel-server/server.ts) as a real process
 * on a random port, pointed at the service. Its checkout page reads `order_token`, reads the order
 * through the public portal API and confirms from its own server (SPEC Redirects 1).
 */
export async function startModelBChannel(serviceUrl: string, slug = 'demo-b', serverKey = 'sk_demo_b') {
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('examples/channel-server/server.ts')], {
    env: { ...process.env, TAQUILLA_URL: serviceUrl, CHANNEL_SLUG: slug, SERVER_KEY: serverKey, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`channel server did not start: ${out}`)), 15_000);
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const m = /listening on http:\/\/localhost:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${m[1]}`);
      }
    });
    child.once('exit', (code) => reject(new Error(`channel server exited with ${code}: ${out}`)));
  });
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
