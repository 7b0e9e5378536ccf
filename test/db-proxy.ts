import net from 'node:net';

/**
 * A TCP proxy between the service and a PostgreSQL server, that a test can cut and restore: an
 * outage of the network between them without touching the server itself (never restart the
 * machine's PostgreSQL). `cut` destroys every connection through it and refuses new ones (each is
 * closed at once, as a dead network path looks to a client); `restore` lets connections through
 * again. `url(serverUrl)` is the same database URL through the proxy.
 */
export interface DbProxy {
  port: number;
  url(serverUrl: string): string;
  cut(): void;
  restore(): void;
  /** Connections made through the proxy so far (refused ones included). */
  readonly connections: number;
  close(): Promise<void>;
}

export async function startDbProxy(target: { host: string; port: number }): Promise<DbProxy> {
  const sockets = new Set<net.Socket>();
  let open = true;
  let connections = 0;
  const server = net.createServer((client) => {
    connections++;
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    sockets.add(client);
    sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const s of [client, upstream]) {
      s.setNoDelay(true);
      s.on('error', drop);
      s.on('close', drop);
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    url(serverUrl) {
      const u = new URL(serverUrl);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    restore() {
      open = true;
    },
    get connections() {
      return connections;
    },
    async close() {
      open = false;
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
