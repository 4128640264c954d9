import http from 'node:http';
import https from 'node:https';
import type { DecodedEvent, HttpDialect, HttpRequest } from '../dialects/dialect.js';
import { ProtocolViolation } from '../dialects/dialect.js';
import type { HttpExchange, HttpTransport, InputRecord, SentFrame } from '../timeline/types.js';
import { TextBudget } from './bounds.js';
import type { HttpAgents } from './http-agents.js';
import { AudioKeeper } from './received-audio.js';
import { CappedReceived } from './session-caps.js';
import { classifySocketError, Ending, newTimeline, type RunnerBase, type SessionResult } from './runner.js';
import { serverTimingOf } from './server-timing.js';

/** One input and its request, built before the clock starts. */
export interface PreparedRequest {
  input: InputRecord extends infer T ? (T extends unknown ? Omit<T, 'index'> : never) : never;
  request: HttpRequest;
}

export interface HttpPlan extends RunnerBase {
  /** The server's base URL; each request's path is resolved against it. */
  url: string;
  /** Headers added to every request (authentication). */
  headers: Record<string, string>;
  dialect: HttpDialect;
  inputs: PreparedRequest[];
  /** The keep-alive pool shared by the run's sessions, and new connections for a retry. */
  agents: HttpAgents;
}

/** How much of an error response's body is kept for its message. */
const ERROR_BODY_BYTES = 2048;

/**
 * Runs one HTTP session: the inputs' requests one after another, each stamped at its
 * start, at the last byte of its body written, at its response headers and at every
 * body chunk (before the dialect decodes it). The dialect's policy says when a response
 * is complete; a body that ends before that was cut. Requests reuse the run's pooled
 * connections, and one that finds its connection dead goes once more on a new one. It never throws.
 */
export function runHttpSession(plan: HttpPlan): Promise<SessionResult> {
  const { dialect, clock, timeouts } = plan;
  const policy = dialect.policy();
  const transport: HttpTransport = { kind: 'http', requests: [] };
  const timeline = newTimeline(dialect.task, 'client', plan.plannedStartMs, clock.now(), transport);
  const { counters } = timeline;
  const ending = new Ending(clock);
  const text = new TextBudget();
  const audio = new AudioKeeper(plan.keepAudioBytes ?? 0);
  const capped = new CappedReceived(timeline.received, plan.caps);
  /** Counts body bytes; past `--max-session-mb` the session ends, and this says so. */
  const receivedBytes = (bytes: number): boolean => {
    counters.bytesReceived += bytes;
    const tooLarge = capped.overBytes(counters.bytesReceived);
    if (tooLarge) ending.fail(tooLarge);
    return tooLarge !== undefined;
  };
  const removeAbort = ending.onAbort(plan.signal);
  let current: http.ClientRequest | undefined;

  const exchange = (index: number, prepared: PreparedRequest): Promise<void> => {
    timeline.inputs.push({ ...prepared.input, index });
    const { request } = prepared;
    const url = new URL(request.path, plan.url);
    const record: HttpExchange = { input: index, startMs: clock.now() };
    transport.requests.push(record);
    const sent: SentFrame = { t: 0, input: index, bytes: request.body.length, kind: 'control', control: 'request' };
    const receive = (t: number, events: DecodedEvent[]): void => {
      for (const event of events) {
        const received = { t, input: index, ...text.bound(audio.take(event, index)) };
        capped.record(received, event.text);
        const verdict = policy.observe(received);
        if (verdict) ending.fail(verdict.end);
      }
      const textBomb = text.overReceived();
      if (textBomb) ending.fail(textBomb);
    };
    const onResponse = (res: http.IncomingMessage): void => {
      const headersMs = clock.now();
      record.headersMs = headersMs;
      record.status = res.statusCode ?? 0;
      const timing = serverTimingOf(res.headers);
      if (timing) record.serverTiming = timing;
      const status = record.status;
      if (status < 200 || status > 299) {
        const kept: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          receivedBytes(chunk.length);
          if (size < ERROR_BODY_BYTES) kept.push(chunk.subarray(0, ERROR_BODY_BYTES - size));
          size += chunk.length;
        });
        res.on('end', () => {
          record.endMs = clock.now();
          const body = Buffer.concat(kept).toString('utf8').trim();
          const code = errorCodeOf(body);
          ending.fail({
            class: 'http_status',
            httpStatus: status,
            ...(code ? { code } : {}),
            message: `server answered HTTP ${status}${body ? `: ${body}` : ''}`,
          });
        });
        return;
      }
      ending.stage = 'body';
      const decoder = dialect.bodyDecoder(status, String(res.headers['content-type'] ?? ''));
      const decode = (t: number, decodeStep: () => DecodedEvent[]): void => {
        try {
          receive(t, decodeStep());
        } catch (err) {
          ending.fail({ class: err instanceof ProtocolViolation ? err.failureClass : 'protocol_violation', message: (err as Error).message });
        }
      };
      res.on('data', (chunk: Buffer) => {
        const t = clock.now();
        counters.framesReceived++;
        if (receivedBytes(chunk.length)) return;
        decode(t, () => decoder.chunk(chunk));
        ending.recheck?.();
      });
      res.on('end', () => {
        const t = clock.now();
        record.endMs = t;
        decode(t, () => decoder.end());
        if (!policy.inputDone(index)) ending.fail({ class: 'stream_cut', message: 'the response body ended before the response was complete' });
        ending.recheck?.();
      });
      res.on('aborted', () => ending.fail({ class: 'stream_cut', message: 'the response body was cut' }));
    };
    /**
     * One attempt at the request. A pooled connection the server had already closed (it
     * closes after each answer without saying so, or its idle timeout won the race) fails
     * before any byte of the answer: the request goes once more, on a new connection, and
     * the record keeps that attempt's times.
     */
    const attempt = (agent: http.Agent): void => {
      record.startMs = clock.now();
      const req = (url.protocol === 'https:' ? https : http).request(url, {
        method: request.method,
        headers: { ...request.headers, ...plan.headers, 'content-length': String(request.body.length) },
        agent,
      });
      current = req;
      // Until the connection is up (TCP, and TLS for https), a failure is the connect stage's.
      let connected = false;
      let answered = (): boolean => true;
      req.on('socket', (socket) => {
        record.reusedConnection = req.reusedSocket;
        const readBefore = socket.bytesRead;
        answered = () => socket.bytesRead > readBefore;
        if (req.reusedSocket) connected = true;
        else socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => (connected = true));
      });
      req.on('finish', () => {
        record.uploadEndMs = clock.now();
        if (ending.stage === 'upload') ending.stage = 'status';
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (ending.stage === 'body') ending.fail({ class: 'stream_cut', message: `the response body was cut: ${err.message}` });
        else if (req.reusedSocket && !answered() && !ending.outcome && record.retries === undefined) {
          record.retries = 1;
          delete record.uploadEndMs;
          ending.stage = 'upload';
          attempt(plan.agents.fresh);
        } else {
          if (!connected) ending.stage = 'connect';
          ending.fail(classifySocketError(err, ending.stage, plan.url, 'http'));
        }
      });
      req.on('response', onResponse);
      req.end(request.body);
      sent.t = clock.now();
      counters.framesSent++;
      counters.bytesSent += request.body.length;
    };
    attempt(plan.agents.pooled);
    timeline.sent.push(sent);
    policy.controlSent(sent);
    return ending.until('upload', () => record.endMs !== undefined && policy.inputDone(index), timeouts.finalMs, 'the response');
  };

  const flow = async (): Promise<void> => {
    for (let index = 0; index < plan.inputs.length && !ending.outcome; index++) await exchange(index, plan.inputs[index]!);
    const unkept = capped.unkept();
    if (unkept) ending.fail(unkept);
    ending.end({ status: 'completed' });
  };

  return flow().then(() => {
    removeAbort();
    // The timeline is final from here: a request still open is abandoned.
    if (current && !current.destroyed && ending.outcome?.status !== 'completed') {
      current.removeAllListeners();
      current.on('error', () => {});
      current.destroy();
    }
    const kept = audio.result();
    const overflow = capped.result();
    if (overflow) timeline.overflow = overflow;
    return { timeline, outcome: ending.outcome!, ...(kept ? { audio: kept } : {}) };
  });
}

/** The code (else type) of an OpenAI-style error body, `{"error": {"code": ..., "type": ...}}`, when the body is one. */
function errorCodeOf(body: string): string | undefined {
  try {
    const error = (JSON.parse(body) as { error?: { code?: unknown; type?: unknown } }).error;
    const code = error?.code ?? error?.type;
    return typeof code === 'string' || typeof code === 'number' ? String(code).slice(0, 64) : undefined;
  } catch {
    return undefined;
  }
}
