import { createServer, STATUS_CODES, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Sample } from '../data/dataset.js';
import { DEFAULT_LATENCY, LatencyModel, type LatencyModelOptions } from './latency-model.js';
import { buildReferences, ReferenceIndex } from './recognizer.js';
import { VllmSession, type Faults } from './vllm-session.js';

export const DEFAULT_MODEL = 'mistralai/Voxtral-Mini-4B-Realtime-2602';
export const REALTIME_PATH = '/v1/realtime';

export interface ServerOptions {
  /** Interface to listen on. Default 127.0.0.1. */
  host: string;
  /** Port; 0 picks a free one. Default 8000. */
  port: number;
  /** Model names `session.update` may name. Default the Voxtral realtime model. */
  models: string[];
  /** Samples the server recognizes and transcribes with their reference words. */
  references: Sample[];
  latency: LatencyModelOptions;
  /** Send Voxtral-style empty deltas. Default false. */
  emptyDeltas: boolean;
  /** Require `Authorization: Bearer <key>` on the upgrade, as `vllm serve --api-key` does. */
  apiKey?: string;
  /** Per-connection audio limit, MB. Default 25. */
  maxAudioMb: number;
  faults: Faults & {
    /** Refuse every upgrade with this HTTP status. */
    upgradeStatus?: number;
  };
}

export const DEFAULT_SERVER_OPTIONS: ServerOptions = {
  host: '127.0.0.1',
  port: 8000,
  models: [DEFAULT_MODEL],
  references: [],
  latency: DEFAULT_LATENCY,
  emptyDeltas: false,
  maxAudioMb: 25,
  faults: { neverFinalize: false },
};

export interface RunningServer {
  /** `ws://host:port/v1/realtime` */
  url: string;
  port: number;
  openSessions(): number;
  close(): Promise<void>;
}

/** The vLLM dialect's audio rate; the server recognizes references at this rate. */
const SAMPLE_RATE = 16_000;

/**
 * Starts the simulated realtime transcription server: vLLM's `/v1/realtime` dialect
 * over a latency and capacity model, no GPU and no network needed.
 */
export async function startServer(overrides: Partial<ServerOptions> = {}): Promise<RunningServer> {
  const options: ServerOptions = { ...DEFAULT_SERVER_OPTIONS, ...overrides };
  const references = new ReferenceIndex(await buildReferences(options.references, SAMPLE_RATE));
  const latency = new LatencyModel(options.latency);
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  let open = 0;

  const http = createServer((_, res) => {
    res.writeHead(426, { 'content-type': 'text/plain' }).end(`voxbench simulated server: connect a WebSocket to ${REALTIME_PATH}\n`);
  });
  http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path !== REALTIME_PATH) return refuse(socket, 404, { error: `Not Found: ${path}` });
    if (options.faults.upgradeStatus !== undefined) return refuse(socket, options.faults.upgradeStatus, { error: 'injected fault' });
    if (options.apiKey !== undefined && request.headers.authorization !== `Bearer ${options.apiKey}`) {
      return refuse(socket, 401, { error: 'Unauthorized' });
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      open++;
      ws.on('close', () => open--);
      new VllmSession(ws, {
        servedModels: options.models,
        latency,
        references,
        sampleRate: SAMPLE_RATE,
        openSessions: () => open,
        emptyDeltas: options.emptyDeltas,
        maxAudioBytes: options.maxAudioMb * 1024 * 1024,
        faults: options.faults,
      });
    });
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, resolve);
  });
  const { port } = http.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `ws://${host}:${port}${REALTIME_PATH}`,
    port,
    openSessions: () => open,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close();
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

function refuse(socket: Duplex, status: number, body: object): void {
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}
