import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real server, which a test can turn into a black hole: it
 * still accepts connections but forwards nothing and answers nothing (a network partition, or a
 * store that accepts and never replies), then heal again.
 */
export class TcpProxy {
  private server: Server | null = null;
  private blackholed = false;
  private readonly sockets = new Set<Socket>();

  private readonly target: { host: string; port: number };

  constructor(target: { host: string; port: number }) {
    this.target = target;
  }

  async start(): Promise<this> {
    this.server = createServer((client) => {
      this.sockets.add(client);
      client.on('close', () => this.sockets.delete(client));
      client.on('error', () => {});
      if (this.blackholed) return; // accepted, never answered
      const upstream = connect(this.target.port, this.target.host);
      this.sockets.add(upstream);
      upstream.on('close', () => this.sockets.delete(upstream));
      upstream.on('error', () => client.destroy());
      client.on('data', (chunk) => !this.blackholed && upstream.write(chunk));
      upstream.on('data', (chunk) => !this.blackholed && client.write(chunk));
      client.on('end', () => upstream.end());
      upstream.on('end', () => client.end());
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  /** From now on nothing passes, on new connections or open ones. */
  blackhole(): void {
    this.blackholed = true;
  }

  heal(): void {
    this.blackholed = false;
    // Connections opened during the partition stay dead, as after a real one.
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
