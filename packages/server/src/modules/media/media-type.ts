/**
 * What an uploaded file is, decided from its first bytes (magic numbers), never from the
 * uploader's Content-Type or file name. Only the types below are ever served inline: images
 * browsers cannot run script from (no SVG), audio, video and PDF. Anything else is
 * `application/octet-stream`, served as an attachment.
 */

export const OCTET_STREAM = 'application/octet-stream';

/** Bytes read from the start of a file to decide its type. */
export const SNIFF_BYTES = 64;

/** The types served inline, with `nosniff` and a sandboxing CSP. */
export const INLINE_TYPES: ReadonlySet<string> = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'audio/mpeg',
  'audio/ogg',
  'audio/wav',
  'audio/aac',
  'audio/mp4',
  'video/mp4',
  'video/webm',
  'application/pdf',
]);

const ascii = (head: Buffer, at: number, text: string) => head.length >= at + text.length && head.toString('latin1', at, at + text.length) === text;

const startsWith = (head: Buffer, bytes: readonly number[]) => head.length >= bytes.length && bytes.every((b, i) => head[i] === b);

/** ISO base media (MP4 family) brands: audio-only ones, and the common video ones. */
const MP4_AUDIO_BRANDS = new Set(['M4A ', 'M4B ', 'F4A ']);
const MP4_VIDEO_BRANDS = new Set(['isom', 'iso2', 'iso4', 'iso5', 'iso6', 'mp41', 'mp42', 'avc1', 'dash', 'M4V ', 'MSNV', 'mmp4', 'F4V ']);

function isoMedia(head: Buffer): string | undefined {
  if (!ascii(head, 4, 'ftyp') || head.length < 12) return undefined;
  const brand = head.toString('latin1', 8, 12);
  if (MP4_AUDIO_BRANDS.has(brand)) return 'audio/mp4';
  if (MP4_VIDEO_BRANDS.has(brand)) return 'video/mp4';
  return undefined; // QuickTime, HEIF, 3GP...: not on the list
}

/** MPEG audio frame sync: 11 set bits; layer bits 00 is AAC (ADTS), anything else MP3. */
function mpegAudio(head: Buffer): string | undefined {
  if (head.length < 2 || head[0] !== 0xff || ((head[1] ?? 0) & 0xe0) !== 0xe0) return undefined;
  const layer = ((head[1] ?? 0) >> 1) & 0x03;
  if (layer === 0) return ((head[1] ?? 0) & 0x10) === 0x10 ? 'audio/aac' : undefined;
  return 'audio/mpeg';
}

/** Matroska/WebM: the EBML header, with DocType "webm" inside it. */
function webm(head: Buffer): string | undefined {
  if (!startsWith(head, [0x1a, 0x45, 0xdf, 0xa3])) return undefined;
  return head.includes('webm', 4, 'latin1') ? 'video/webm' : undefined;
}

/** The served type of a file whose first bytes are `head`: one of INLINE_TYPES, or octet-stream. */
export function sniffMediaType(head: Buffer): string {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (ascii(head, 0, 'GIF87a') || ascii(head, 0, 'GIF89a')) return 'image/gif';
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WEBP')) return 'image/webp';
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WAVE')) return 'audio/wav';
  if (ascii(head, 0, 'OggS')) return 'audio/ogg';
  if (ascii(head, 0, 'ID3')) return 'audio/mpeg';
  if (ascii(head, 0, '%PDF-')) return 'application/pdf';
  return isoMedia(head) ?? webm(head) ?? mpegAudio(head) ?? OCTET_STREAM;
}

/** How a stored file is served: inline only when its recorded type is on the allow-list. */
export function servedAs(recordedType: string): { type: string; disposition: 'inline' | 'attachment' } {
  return INLINE_TYPES.has(recordedType) ? { type: recordedType, disposition: 'inline' } : { type: OCTET_STREAM, disposition: 'attachment' };
}
