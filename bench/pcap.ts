/**
 * Just enough of a packet capture reader to rebuild WebSocket frames from loopback
 * traffic: a pcap file (Ethernet or Linux cooked link layer, IPv4, TCP), each TCP
 * connection reassembled per direction, and each WebSocket frame with the capture time
 * of the segment that completed it.
 */
import { readFile } from 'node:fs/promises';

/** One WebSocket frame as it crossed the wire. */
export interface WireFrame {
  opcode: number;
  /** Capture time of its last byte, ms since the Unix epoch (sub-ms precision). */
  t: number;
}

export interface Connection {
  /** The client's port. */
  clientPort: number;
  /** Frames the client sent, then those the server sent, in stream order (after the HTTP upgrade). */
  fromClient: WireFrame[];
  fromServer: WireFrame[];
}

interface Segment {
  seq: number;
  t: number;
  payload: Buffer;
}

interface Direction {
  /** Sequence number of the first payload byte (the SYN's plus one). */
  start?: number;
  segments: Segment[];
}

/** Reads `file` and returns every whole TCP connection to `serverPort` it holds (none the capture missed part of), by the client's port. */
export async function readConnections(file: string, serverPort: number): Promise<Map<number, Connection>> {
  const data = await readFile(file);
  const magic = data.readUInt32LE(0);
  const nano = magic === 0xa1b23c4d;
  if (!nano && magic !== 0xa1b2c3d4) throw new Error(`${file}: not a little-endian pcap file`);
  const linkType = data.readUInt32LE(20);
  const linkHeader = linkType === 1 ? 14 : linkType === 113 ? 16 : -1;
  if (linkHeader < 0) throw new Error(`${file}: link type ${linkType} is not Ethernet or Linux cooked`);

  const flows = new Map<number, { up: Direction; down: Direction }>();
  for (let at = 24; at + 16 <= data.length;) {
    const t = data.readUInt32LE(at) * 1000 + data.readUInt32LE(at + 4) / (nano ? 1e6 : 1e3);
    const length = data.readUInt32LE(at + 8);
    const packet = data.subarray(at + 16, at + 16 + length);
    at += 16 + length;
    const ip = packet.subarray(linkHeader);
    if (packet.readUInt16BE(linkHeader - 2) !== 0x0800 || ip[9] !== 6) continue; // IPv4 TCP only
    const tcp = ip.subarray((ip[0]! & 0x0f) * 4, ip.readUInt16BE(2));
    const source = tcp.readUInt16BE(0);
    const destination = tcp.readUInt16BE(2);
    if (source !== serverPort && destination !== serverPort) continue;
    const clientPort = destination === serverPort ? source : destination;
    let flow = flows.get(clientPort);
    if (!flow) flows.set(clientPort, (flow = { up: { segments: [] }, down: { segments: [] } }));
    const direction = destination === serverPort ? flow.up : flow.down;
    const seq = tcp.readUInt32BE(4);
    const syn = (tcp[13]! & 0x02) !== 0;
    if (syn) direction.start = (seq + 1) >>> 0;
    const payload = tcp.subarray((tcp[12]! >> 4) * 4);
    if (payload.length > 0) direction.segments.push({ seq, t, payload });
  }

  const connections = new Map<number, Connection>();
  for (const [clientPort, flow] of flows) {
    if (flow.up.start === undefined || flow.down.start === undefined) continue; // opened before the capture
    const fromClient = frames(flow.up);
    const fromServer = frames(flow.down);
    if (fromClient && fromServer) connections.set(clientPort, { clientPort, fromClient, fromServer });
  }
  return connections;
}

/** The direction's byte stream, with the capture time of each byte's first transmission; null when the capture missed a segment. */
function reassemble(direction: Direction): { bytes: Buffer; timeAt(offset: number): number } | null {
  const start = direction.start!;
  const pieces: Array<{ offset: number; t: number; payload: Buffer }> = direction.segments
    .map((s) => ({ offset: (s.seq - start) >>> 0, t: s.t, payload: s.payload }))
    .sort((a, b) => a.offset - b.offset || a.t - b.t);
  const kept: typeof pieces = [];
  let end = 0;
  for (const piece of pieces) {
    // A retransmission overlaps what was already seen: keep only bytes beyond it.
    if (piece.offset + piece.payload.length <= end) continue;
    if (piece.offset > end) return null;
    const skip = Math.max(0, end - piece.offset);
    kept.push({ offset: piece.offset + skip, t: piece.t, payload: piece.payload.subarray(skip) });
    end = piece.offset + piece.payload.length;
  }
  const bytes = Buffer.concat(kept.map((p) => p.payload));
  return {
    bytes,
    // Binary search for the piece holding `offset`.
    timeAt(offset) {
      let lo = 0;
      let hi = kept.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (kept[mid]!.offset <= offset) lo = mid;
        else hi = mid - 1;
      }
      return kept[lo]!.t;
    },
  };
}

/** The WebSocket frames after the HTTP upgrade's header block; null when the stream has a gap. */
function frames(direction: Direction): WireFrame[] | null {
  const stream = reassemble(direction);
  if (!stream) return null;
  const { bytes } = stream;
  const headerEnd = bytes.indexOf('\r\n\r\n');
  const out: WireFrame[] = [];
  if (headerEnd < 0) return out;
  for (let at = headerEnd + 4; at + 2 <= bytes.length;) {
    const opcode = bytes[at]! & 0x0f;
    const masked = (bytes[at + 1]! & 0x80) !== 0;
    let length = bytes[at + 1]! & 0x7f;
    let header = 2;
    if (length === 126) {
      length = bytes.readUInt16BE(at + 2);
      header = 4;
    } else if (length === 127) {
      length = Number(bytes.readBigUInt64BE(at + 2));
      header = 10;
    }
    const end = at + header + (masked ? 4 : 0) + length;
    if (end > bytes.length) break; // cut by the end of the capture
    out.push({ opcode, t: stream.timeAt(end - 1) });
    at = end;
  }
  return out;
}
