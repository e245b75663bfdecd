/**
 * ALLOWED_HOSTS as configuration reads it: what a host looks like and the default list. Here, beside
 * config.ts and below the HTTP layer that applies it (src/http/origin.ts: which origin links may
 * name), because configuration imports nothing above it (docs/architecture.md, "Layers and folders").
 */

/** A host as the Host header and ALLOWED_HOSTS write it: a DNS name, an IPv4 address or [IPv6], and an optional port. */
export const HOST_PATTERN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]{2,45}\])(?::\d{1,5})?$/i;
export const DEFAULT_ALLOWED_HOSTS = ['localhost', '127.0.0.1', '[::1]'];
