/**
 * The built-in server's thread (see thread.ts): starts the server with the options
 * it is sent and answers with its URL; the main side ends the thread to close it.
 */
import { parentPort } from 'node:worker_threads';
import type { ServerOptions } from '../server/server.js';
import { startServer } from './start.js';

export type ToServerThread = { type: 'start'; options: Partial<ServerOptions> };
export type FromServerThread = { type: 'listening'; url: string; origin: string } | { type: 'error'; message: string };

const port = parentPort!;
const post = (message: FromServerThread): void => port.postMessage(message);
// Not an async handler: nothing holds the message, and with it the copied audio, once the server has indexed it.
port.once('message', (message: ToServerThread) => {
  startServer(message.options).then(
    (server) => post({ type: 'listening', url: server.url, origin: server.origin }),
    (err: Error) => post({ type: 'error', message: err.message }),
  );
});
