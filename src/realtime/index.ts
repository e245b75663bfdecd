import type { Server } from 'socket.io';
import type { AppDeps } from '../http/deps';

// Placeholder: the realtime issue wires namespaces, presence and the domain-event listener here.
export function attachRealtime(_io: Server, _deps: AppDeps): () => void {
  return () => {};
}
