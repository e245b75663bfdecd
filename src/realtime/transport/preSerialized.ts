/**
 * Event payloads that cross Redis as JSON text, written once by the instance that presents them.
 *
 * Why: a roll's payload carries a proof of about 700 bytes per value (docs/fairness.md). Sent as an
 * object it was msgpack-encoded by the sender, msgpack-decoded by every instance's adapter (each
 * instance, the sender included, delivers what the shard channel carries), then JSON-encoded again
 * by Socket.IO's encoder for its sockets: a third of POST /roll's CPU in bench:http. Here the sender
 * runs `JSON.stringify` once; the message holds that text, and the `seq` the sending script writes in
 * place (sequenceLogRedis.ts: a msgpack uint64 beside the text, not inside it); the server's encoder
 * (preSerializedParser.ts) splices the text into the Socket.IO packet unchanged. Clients receive the
 * same bytes as before: `{"data": ..., "seq": n}`.
 *
 * Whatever reads a broadcast's payload as an object on the receiving side (the Pusher gateway's
 * members, the welcome's skip rules) goes through `livePayload()`, which parses the text once per
 * message, or reads `seqOf()` alone.
 */

/** The key of the JSON text: a NUL can never start a key of the service's own payloads. */
const JSON_TEXT = '\u0000json';

export interface PreSerialized {
  [JSON_TEXT]: string;
  seq?: number;
}

/**
 * `payload` (a plain object, or one already pre-serialized: its text is kept) as it travels: its JSON
 * text, and `seq` beside it when it is numbered.
 */
export function preSerialize(payload: object, seq?: number): PreSerialized {
  const text = isPreSerialized(payload) ? payload[JSON_TEXT] : JSON.stringify(payload);
  return seq === undefined ? { [JSON_TEXT]: text } : { [JSON_TEXT]: text, seq };
}

/** The JSON text a pre-serialized payload carries (without its `seq`). */
export function textOf(value: PreSerialized): string {
  return value[JSON_TEXT];
}

export function isPreSerialized(value: unknown): value is PreSerialized {
  return typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)[JSON_TEXT] === 'string';
}

/** The payload's JSON as a client receives it: the text with `"seq"` last when there is one. */
export function payloadJson(value: PreSerialized): string {
  const text = value[JSON_TEXT];
  if (value.seq === undefined) return text;
  return text === '{}' ? `{"seq":${value.seq}}` : `${text.slice(0, -1)},"seq":${value.seq}}`;
}

/** A payload's `seq`, without parsing a pre-serialized one (the welcome's skip rules read it for every event). */
export function seqOf(payload: unknown): unknown {
  return typeof payload === 'object' && payload !== null ? (payload as { seq?: unknown }).seq : undefined;
}

const parsed = new WeakMap<PreSerialized, unknown>();

/** A payload as an object, whichever way it travelled (parsed once per message: receivers share it). */
export function livePayload(payload: unknown): unknown {
  if (!isPreSerialized(payload)) return payload;
  let value = parsed.get(payload);
  if (value === undefined) {
    value = JSON.parse(payloadJson(payload)) as unknown;
    parsed.set(payload, value);
  }
  return value;
}
