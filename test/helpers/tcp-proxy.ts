/**
 * A real TCP proxy on 127.0.0.1 in front of a server (PostgreSQL in the outage tests):
 *
 * - cut() drops every connection and refuses new ones, restore() listens again on the same port;
 * - freeze() makes the server look stopped (`kill -STOP`): connections stay open and new ones are
 *   accepted, but nothing is forwarded either way; bytes sent meanwhile wait in the proxy, as they would
 *   in a stopped server's socket buffers. thaw() delivers them in order and forwards again, and a side
 *   that closed meanwhile is closed towards the other one then, as the server would see it on resuming.
 */
import net from 'node:net';

export interface TcpProxy {
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

/** One direction of a connection: forwards, or while frozen holds what arrives (and an end) for later. */
class Direction {
  private held: Buffer[] = [];
  private ended = false;

  constructor(
    private readonly to: () => net.Socket | undefined,
    private readonly frozen: () => boolean,
  ) {}

  data(chunk: Buffer): void {
    const to = this.to();
    if (this.frozen() || !to) this.held.push(chunk);
    else to.write(chunk);
  }

  end(): void {
    const to = this.to();
    if (this.frozen() || !to) this.ended = true;
    else to.end();
  }

  /** Delivers what was held (and a held end). */
  flush(): void {
    const to = this.to();
    if (!to) return;
    for (const chunk of this.held) to.write(chunk);
    this.held = [];
    if (this.ended) to.end();
  }
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const flushers = new Set<() => void>();
  let frozen = false;
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };

  const makeServer = () =>
    net.createServer((client) => {
      track(client);
      let upstream: net.Socket | undefined;
      const up = new Direction(() => upstream, () => frozen);
      const down = new Direction(() => client, () => frozen);
      client.on('data', (chunk: Buffer) => up.data(chunk));
      client.on('end', () => up.end());
      // A stopped server accepts no connection: the upstream one is made once it runs again.
      const connect = () => {
        if (upstream || client.destroyed) return;
        upstream = net.connect(targetPort, targetHost);
        track(upstream);
        upstream.on('data', (chunk: Buffer) => down.data(chunk));
        upstream.on('end', () => down.end());
        upstream.on('close', () => client.destroy());
        up.flush();
      };
      const flush = () => {
        connect();
        up.flush();
        down.flush();
        if (client.destroyed) flushers.delete(flush);
      };
      flushers.add(flush);
      // A client gone while frozen: what it sent, and its end, reach the server once it runs again.
      client.on('close', () => {
        up.end();
        if (!frozen) flushers.delete(flush);
      });
      if (!frozen) connect();
    });
  let server = makeServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      flushers.clear();
      server.close(() => resolve());
    });
  return {
    port,
    cut: stop,
    async restore() {
      server = makeServer();
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    freeze() {
      frozen = true;
    },
    thaw() {
      frozen = false;
      for (const flush of [...flushers]) flush();
    },
    close: async () => {
      frozen = false;
      await stop();
    },
  };
}

/** A proxy in front of the PostgreSQL server of `databaseUrl`, and that URL leading through the proxy instead. */
export async function proxyPostgres(databaseUrl: string): Promise<{ proxy: TcpProxy; url: string }> {
  const target = new URL(databaseUrl);
  const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
  const viaProxy = new URL(databaseUrl);
  viaProxy.hostname = '127.0.0.1';
  viaProxy.port = String(proxy.port);
  return { proxy, url: viaProxy.toString() };
}
