import * as defaultParser from 'socket.io-parser';
import { isPreSerialized, payloadJson } from './preSerialized';

/**
 * Socket.IO's own parser (the server's `parser` option, its documented extension point) with one
 * addition: an event whose payload is pre-serialized (preSerialized.ts) is written by splicing its
 * JSON text into the packet, as `encodeAsString` would have written it (`2/nsp,["Event",{...}]`),
 * instead of walking and stringifying the object again. Every other packet, and every packet read,
 * goes through the parser unchanged, so clients see the same wire.
 */
class Encoder extends defaultParser.Encoder {
  override encode(packet: defaultParser.Packet): unknown[] {
    const data = packet.data as unknown[] | undefined;
    if (
      packet.type === defaultParser.PacketType.EVENT &&
      packet.id == null &&
      Array.isArray(data) &&
      data.length === 2 &&
      typeof data[0] === 'string' &&
      isPreSerialized(data[1])
    ) {
      const nsp = packet.nsp && packet.nsp !== '/' ? `${packet.nsp},` : '';
      return [`${defaultParser.PacketType.EVENT}${nsp}[${JSON.stringify(data[0])},${payloadJson(data[1])}]`];
    }
    return super.encode(packet) as unknown[];
  }
}

export const preSerializedParser = { ...defaultParser, Encoder };
