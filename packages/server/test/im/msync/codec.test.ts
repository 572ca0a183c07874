/**
 * The msync codec, pure: frames and payloads round-trip, bytes that do not decode are a
 * FrameError (never another throw), and `ext` keeps every JSON type through KeyValue entries with
 * the SDK's typing rules, both ways.
 */
import { describe, expect, it } from 'vitest';
import {
  clientCodec,
  decodeFrame,
  decodeMessageBody,
  decodeProvision,
  decodeSyncUp,
  encodeNotice,
  encodeProvisionReply,
  encodeSyncDown,
  encodeUnreadReply,
  FrameError,
} from '../../../src/modules/im/msync/codec.js';
import { toContent, toMeta, toParleyBody } from '../../../src/modules/im/msync/contents.js';
import { fromKeyValues, toKeyValues } from '../../../src/modules/im/msync/key-values.js';
import { Command, ContentType, MessageType, Namespace, ValueType } from '../../../src/modules/im/msync/schema.js';

describe('msync frames', () => {
  it('a client PROVISION round-trips with its guid, auth and resource', () => {
    const payload = clientCodec.provision({ osType: 16, version: '4.21.1', resource: 'webim_web_1', deviceUuid: 'd-1' });
    const bytes = clientCodec.frame(Command.PROVISION, { guid: { appKey: 'acme#shop', name: 'ann' }, auth: '$t$tok' }, payload);
    const frame = decodeFrame(bytes);
    expect(frame).toMatchObject({ command: Command.PROVISION, guid: { appKey: 'acme#shop', name: 'ann' }, auth: '$t$tok' });
    expect(decodeProvision(frame.payload)).toMatchObject({ resource: 'webim_web_1', deviceUuid: 'd-1', version: '4.21.1' });
  });

  it('a frame without a command is a SYNC (proto2 leaves the default off the wire)', () => {
    expect(decodeFrame(clientCodec.frame(Command.SYNC, {})).command).toBe(Command.SYNC);
  });

  it('bytes that are not protobuf are a FrameError', () => {
    expect(() => decodeFrame(Uint8Array.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]))).toThrow(FrameError);
    expect(() => decodeSyncUp(Uint8Array.from([0x12, 0x05, 0x01]))).toThrow(FrameError);
  });

  it('server answers decode with the client side of the schema', () => {
    const provision = decodeFrame(encodeProvisionReply({ errorCode: 0 }, 'webim_web_1'));
    // Zero values are left off the wire; readers take them as the default (OK, TEXT).
    expect(clientCodec.decodeProvision(provision.payload)).toEqual({ status: {}, resource: 'webim_web_1' });
    const refused = decodeFrame(encodeProvisionReply({ errorCode: 2, reason: 'Auth failed' }));
    expect(clientCodec.decodeProvision(refused.payload)).toEqual({ status: { errorCode: 2, reason: 'Auth failed' } });
    const unread = decodeFrame(encodeUnreadReply([{ queue: { name: 'ben', domain: 'easemob.com' }, n: 2 }], 1767225600000));
    expect(unread.command).toBe(Command.UNREAD);
    expect(clientCodec.decodeUnread(unread.payload)).toMatchObject({ unread: [{ queue: { name: 'ben' }, n: 2 }], timestamp: '1767225600000' });
    const notice = decodeFrame(encodeNotice({ name: 'ben' }));
    expect(clientCodec.decodeNotice(notice.payload)).toEqual({ queue: { name: 'ben' } });
    const down = decodeFrame(encodeSyncDown({ status: { errorCode: 0 }, metaId: '42', serverId: '7354568607207424', timestamp: 5 }));
    expect(clientCodec.decodeSyncDown(down.payload)).toMatchObject({ metaId: '42', serverId: '7354568607207424', timestamp: '5' });
  });
});

describe('msync KeyValue ext', () => {
  const ext = { obj: { a: [1, 'x'] }, arr: [true], nul: null, s: 'text', yes: true, no: false, n: 7, big: 2 ** 40, neg: -3, f: 1.5 };

  it('types each value as the SDK does', () => {
    const byKey = Object.fromEntries(toKeyValues(ext).map((kv) => [kv.key, kv]));
    expect(byKey.obj).toMatchObject({ type: ValueType.JSON_STRING, stringValue: '{"a":[1,"x"]}' });
    expect(byKey.arr).toMatchObject({ type: ValueType.JSON_STRING, stringValue: '[true]' });
    expect(byKey.nul).toMatchObject({ type: ValueType.JSON_STRING, stringValue: 'null' });
    expect(byKey.s).toMatchObject({ type: ValueType.STRING, stringValue: 'text' });
    expect(byKey.yes).toMatchObject({ type: ValueType.BOOL, varintValue: 1 });
    expect(byKey.no).toMatchObject({ type: ValueType.BOOL, varintValue: 0 });
    expect(byKey.n).toMatchObject({ type: ValueType.INT, varintValue: '7' });
    expect(byKey.big).toMatchObject({ type: ValueType.INT, varintValue: String(2 ** 40) });
    expect(byKey.f).toMatchObject({ type: ValueType.DOUBLE, doubleValue: 1.5 });
  });

  it('round-trips through the wire with every JSON type intact', () => {
    const body = clientCodec.syncUp({ meta: { id: '1', ns: Namespace.CHAT, ext: toKeyValues(ext) } });
    const up = decodeSyncUp(body);
    expect(fromKeyValues(up.meta?.ext)).toEqual(ext);
  });

  it('reads FLOAT, UINT and LLINT entries and keeps unparsable JSON text as a string', () => {
    expect(
      fromKeyValues([
        { key: 'fl', type: ValueType.FLOAT, floatValue: 0.5 },
        { key: 'u', type: ValueType.UINT, varintValue: '9' },
        { key: 'l', type: ValueType.LLINT, varintValue: '-9' },
        { key: 'j', type: ValueType.JSON_STRING, stringValue: '{oops' },
        { key: '__proto__', type: ValueType.STRING, stringValue: 'x' },
      ]),
    ).toEqual({ fl: 0.5, u: 9, l: -9, j: '{oops' });
  });
});

describe('msync message bodies', () => {
  const bodies = [
    { type: 'txt', msg: 'hi' },
    { type: 'img', url: 'https://cdn.example/a.png', filename: 'a.png', secret: 's', size: { width: 10, height: 20 } },
    { type: 'audio', url: 'https://cdn.example/a.amr', filename: 'a.amr', length: 3, secret: 's' },
    { type: 'video', url: 'https://cdn.example/v.mp4', filename: 'v.mp4', length: 9, thumb: 'https://cdn.example/t.jpg', secret: 's', thumb_secret: 't', file_length: 100 },
    { type: 'file', url: 'https://cdn.example/f.pdf', filename: 'f.pdf', secret: 's', file_length: 55 },
    { type: 'loc', lat: 1.25, lng: -2.5, addr: 'Main St' },
    { type: 'cmd', action: 'refresh' },
    { type: 'custom', customEvent: 'gift', customExts: { a: '1' } },
  ];

  it.each(bodies)('a $type body round-trips through Content', (body) => {
    expect(toParleyBody(toContent(body) as never)).toEqual(body);
  });

  it('a stored message becomes a CHAT meta whose id is the msg_id and whose body decodes back', () => {
    const meta = toMeta('acme#shop', { msgId: '7354568607207424', from: 'ann', to: '123', chatType: 'groupchat', timestamp: 9, payload: { bodies: [bodies[0]!], ext: { k: 1 } } });
    expect(meta).toMatchObject({ id: '7354568607207424', ns: Namespace.CHAT, to: { name: '123', domain: 'conference.easemob.com' } });
    const body = decodeMessageBody(meta.payload);
    expect(body.type).toBe(MessageType.GROUPCHAT);
    expect(body.contents?.[0]?.type ?? ContentType.TEXT).toBe(ContentType.TEXT);
    expect(body.contents?.[0]?.text).toBe('hi');
    expect(fromKeyValues(body.ext)).toEqual({ k: 1 });
  });
});
