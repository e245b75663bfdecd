import test from 'ava';
import * as socketIoParser from 'socket.io-parser';
import { decode, encode } from 'notepack.io';
import { livePayload, preSerialize, textOf } from '../../src/realtime/transport/preSerialized';
import { preSerializedParser } from '../../src/realtime/transport/preSerializedParser';
import { placeholderOffset, SEQ_PLACEHOLDER } from '../../src/realtime/transport/sequenceLogRedis';

const roll = { data: { uuid: 'a-b', label: 'Fireball "big" \u2028 ✓', values: [{ value: 6, proof: { path: ['ab', 'cd'], secret: null } }], total: 6 } };
const EVENT = socketIoParser.PacketType.EVENT;

test('a pre-serialized payload is written to clients byte for byte as Socket.IO writes the object, seq last', (t) => {
  const ours = new preSerializedParser.Encoder();
  const stock = new socketIoParser.Encoder();
  for (const nsp of ['/room/abc', '/']) {
    t.deepEqual(
      ours.encode({ type: EVENT, nsp, data: ['RollCreateEvent', preSerialize(roll, 42)] }),
      stock.encode({ type: EVENT, nsp, data: ['RollCreateEvent', { ...roll, seq: 42 }] }),
    );
    t.deepEqual(
      ours.encode({ type: EVENT, nsp, data: ['RoomUpdateEvent', preSerialize(roll)] }),
      stock.encode({ type: EVENT, nsp, data: ['RoomUpdateEvent', roll] }),
    );
    t.deepEqual(ours.encode({ type: EVENT, nsp, data: ['X', preSerialize({}, 7)] }), stock.encode({ type: EVENT, nsp, data: ['X', { seq: 7 }] }));
  }
  // Anything else is the stock parser's business (acknowledgements, plain objects, binary).
  const plain = { type: EVENT, nsp: '/user', data: ['DiceBoxCreateEvent', { data: { id: 1 } }] };
  t.deepEqual(ours.encode(plain), stock.encode(plain));
  const withAck = { type: EVENT, nsp: '/user', id: 3, data: ['E', preSerialize(roll)] };
  t.not(
    (ours.encode(withAck) as string[])[0],
    (stock.encode({ ...withAck, data: ['E', roll] }) as string[])[0],
    'an emit with an acknowledgement is not spliced (none is sent this way)',
  );
});

test('the seq the sending script writes over the placeholder reaches the payload, and receivers read the object once', (t) => {
  const message = encode(['RollCreateEvent', preSerialize(roll, SEQ_PLACEHOLDER)]) as Buffer;
  const at = placeholderOffset(message);
  t.true(at > 0, 'the placeholder is found beside the JSON text, never inside it');
  const seq = Buffer.alloc(9);
  seq[0] = 0xcf;
  seq.writeBigUInt64BE(1234n, 1);
  seq.copy(message, at);
  const [, payload] = decode(message) as [string, unknown];
  const live = livePayload(payload);
  t.deepEqual(live, { ...roll, seq: 1234 });
  t.is(livePayload(payload), live, 'parsed once per message');
  t.is(livePayload(roll), roll, 'an object payload is itself');
});

test('a payload pre-serialized once keeps its text when the broadcaster numbers it', (t) => {
  const payload = { data: { uuid: 'r', values: [{ value: 3, proof: { secret: null } }] } };
  const once = preSerialize(payload);
  t.is(textOf(once), JSON.stringify(payload));
  const numbered = preSerialize(once, 42);
  t.is(textOf(numbered), JSON.stringify(payload));
  t.deepEqual(livePayload(numbered), { ...payload, seq: 42 });
});
