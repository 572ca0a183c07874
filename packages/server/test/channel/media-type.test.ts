/**
 * The served type of an upload, from its first bytes alone (modules/media/media-type.ts).
 */
import { describe, expect, it } from 'vitest';
import { servedAs, sniffMediaType } from '../../src/modules/media/media-type.js';

const bytes = (...parts: Array<string | number[]>) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

describe('media type sniffing', () => {
  it.each([
    ['PNG', bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'rest'), 'image/png'],
    ['JPEG', bytes([0xff, 0xd8, 0xff, 0xe0], 'JFIF'), 'image/jpeg'],
    ['GIF89a', bytes('GIF89a', [1, 0, 1, 0]), 'image/gif'],
    ['GIF87a', bytes('GIF87a'), 'image/gif'],
    ['WebP', bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 '), 'image/webp'],
    ['WAV', bytes('RIFF', [0, 0, 0, 0], 'WAVEfmt '), 'audio/wav'],
    ['Ogg', bytes('OggS', [0, 2]), 'audio/ogg'],
    ['MP3 with ID3', bytes('ID3', [4, 0]), 'audio/mpeg'],
    ['MP3 frame', bytes([0xff, 0xfb, 0x90, 0x00]), 'audio/mpeg'],
    ['AAC (ADTS)', bytes([0xff, 0xf1, 0x50, 0x80]), 'audio/aac'],
    ['M4A', bytes([0, 0, 0, 0x20], 'ftypM4A ', [0, 0, 0, 0]), 'audio/mp4'],
    ['MP4', bytes([0, 0, 0, 0x18], 'ftypisom', [0, 0, 2, 0]), 'video/mp4'],
    ['WebM', bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x84], 'webm'), 'video/webm'],
    ['PDF', bytes('%PDF-1.7\n'), 'application/pdf'],
  ])('recognises %s', (_name, head, type) => {
    expect(sniffMediaType(head)).toBe(type);
    expect(servedAs(type)).toEqual({ type, disposition: 'inline' });
  });

  it.each([
    ['HTML', bytes('<!doctype html><script>alert(1)</script>')],
    ['SVG', bytes('<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>')],
    ['XML-prefixed SVG', bytes('<?xml version="1.0"?><svg/>')],
    ['plain text', bytes('hello')],
    ['JavaScript', bytes('alert(document.cookie)')],
    ['QuickTime', bytes([0, 0, 0, 0x14], 'ftypqt  ')],
    ['HEIC', bytes([0, 0, 0, 0x18], 'ftypheic')],
    ['Matroska that is not WebM', bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x88], 'matroska')],
    ['RIFF AVI', bytes('RIFF', [0, 0, 0, 0], 'AVI LIST')],
    ['a truncated PNG signature', bytes([0x89, 0x50, 0x4e, 0x47])],
    ['nothing', Buffer.alloc(0)],
  ])('serves %s as an octet-stream attachment', (_name, head) => {
    expect(sniffMediaType(head)).toBe('application/octet-stream');
    expect(servedAs(sniffMediaType(head))).toEqual({ type: 'application/octet-stream', disposition: 'attachment' });
  });

  it('never serves inline a type outside the allow-list, whatever a record says', () => {
    for (const type of ['text/html', 'image/svg+xml', 'application/xhtml+xml', 'text/javascript', 'application/xml', 'text/plain', 'video/quicktime']) {
      expect(servedAs(type)).toEqual({ type: 'application/octet-stream', disposition: 'attachment' });
    }
  });
});
