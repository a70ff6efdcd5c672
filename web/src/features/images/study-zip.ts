import { Inflate } from 'fflate';
import type { StudyFile } from './study-files';

// A ZIP is read through its central directory, one entry at a time, from the
// File itself (Blob.slice reads only the bytes asked for): a patient's CD can
// weigh gigabytes, and at most one entry is ever held in memory.

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
/** The end record (22 bytes) plus the longest comment a ZIP may carry. */
const EOCD_SEARCH = 22 + 0xffff;
/** How much compressed data one step of inflating reads. */
const CHUNK = 1024 * 1024;

interface Entry {
  name: string;
  method: number;
  encrypted: boolean;
  compressedSize: number;
  size: number;
  localOffset: number;
}

/** An entry the app cannot open, with the reason to list it under. */
export interface UnreadableEntry {
  path: string;
  reason: string;
}

async function bytesOf(blob: Blob, start: number, end: number): Promise<DataView> {
  return new DataView(await blob.slice(start, end).arrayBuffer());
}

async function centralDirectory(zip: Blob): Promise<Entry[]> {
  const tailStart = Math.max(0, zip.size - EOCD_SEARCH);
  const tail = await bytesOf(zip, tailStart, zip.size);
  let eocd = -1;
  for (let at = tail.byteLength - 22; at >= 0; at -= 1) {
    if (tail.getUint32(at, true) === EOCD_SIGNATURE) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) throw new Error('This is not a ZIP archive, or it is damaged.');
  const count = tail.getUint16(eocd + 10, true);
  const size = tail.getUint32(eocd + 12, true);
  const offset = tail.getUint32(eocd + 16, true);
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff) {
    throw new Error('ZIP64 archives (over 4 GB or 65,535 files) cannot be opened here; upload the folder instead.');
  }
  const directory = await bytesOf(zip, offset, offset + size);
  const decoder = new TextDecoder();
  const entries: Entry[] = [];
  let at = 0;
  for (let n = 0; n < count; n += 1) {
    if (at + 46 > directory.byteLength || directory.getUint32(at, true) !== CENTRAL_SIGNATURE) {
      throw new Error('The ZIP archive is damaged.');
    }
    const nameLength = directory.getUint16(at + 28, true);
    const extraLength = directory.getUint16(at + 30, true);
    const commentLength = directory.getUint16(at + 32, true);
    const name = decoder.decode(
      new Uint8Array(directory.buffer, directory.byteOffset + at + 46, nameLength),
    );
    entries.push({
      name,
      encrypted: (directory.getUint16(at + 8, true) & 1) === 1,
      method: directory.getUint16(at + 10, true),
      compressedSize: directory.getUint32(at + 20, true),
      size: directory.getUint32(at + 24, true),
      localOffset: directory.getUint32(at + 42, true),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Where an entry's data starts: after its local header, whose name and extra field may differ from the central one. */
async function dataStart(zip: Blob, entry: Entry): Promise<number> {
  const local = await bytesOf(zip, entry.localOffset, entry.localOffset + 30);
  if (local.byteLength < 30 || local.getUint32(0, true) !== LOCAL_SIGNATURE) throw new Error('The ZIP archive is damaged.');
  return entry.localOffset + 30 + local.getUint16(26, true) + local.getUint16(28, true);
}

/**
 * The entry's bytes from the start, chunk by chunk, stopping once `limit`
 * bytes came out (the header of a large file needs only its beginning).
 */
async function inflateEntry(zip: Blob, entry: Entry, limit = Infinity): Promise<Uint8Array<ArrayBuffer>[]> {
  const start = await dataStart(zip, entry);
  const end = start + entry.compressedSize;
  const out: Uint8Array<ArrayBuffer>[] = [];
  let produced = 0;
  if (entry.method === 0) {
    const stop = Math.min(end, start + limit);
    for (let at = start; at < stop; at += CHUNK) {
      out.push(new Uint8Array(await zip.slice(at, Math.min(stop, at + CHUNK)).arrayBuffer()));
    }
    return out;
  }
  const inflate = new Inflate((chunk) => {
    // fflate's output is always backed by a plain ArrayBuffer.
    out.push(chunk as Uint8Array<ArrayBuffer>);
    produced += chunk.length;
  });
  for (let at = start; at < end && produced < limit; at += CHUNK) {
    const next = Math.min(end, at + CHUNK);
    inflate.push(new Uint8Array(await zip.slice(at, next).arrayBuffer()), next === end);
  }
  return out;
}

function joined(chunks: Uint8Array[], limit: number): Uint8Array {
  const total = Math.min(limit, chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    if (at >= total) break;
    const part = chunk.subarray(0, total - at);
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}

/**
 * The files of a ZIP as study files (read lazily, each on its own), and the
 * entries that cannot be opened. `zipPath` prefixes the entries' paths.
 */
export async function zipFiles(zip: Blob, zipPath: string): Promise<{ files: StudyFile[]; unreadable: UnreadableEntry[] }> {
  const files: StudyFile[] = [];
  const unreadable: UnreadableEntry[] = [];
  for (const entry of await centralDirectory(zip)) {
    if (entry.name.endsWith('/')) continue;
    const path = `${zipPath}/${entry.name}`;
    if (entry.encrypted) {
      unreadable.push({ path, reason: 'Encrypted inside the ZIP.' });
      continue;
    }
    if (entry.method !== 0 && entry.method !== 8) {
      unreadable.push({ path, reason: 'Compressed in a way the browser cannot open.' });
      continue;
    }
    files.push({
      path,
      name: entry.name.slice(entry.name.lastIndexOf('/') + 1),
      size: entry.size,
      head: async (bytes) => joined(await inflateEntry(zip, entry, bytes), bytes),
      read: async () => new Blob(await inflateEntry(zip, entry), { type: 'application/dicom' }),
    });
  }
  return { files, unreadable };
}
