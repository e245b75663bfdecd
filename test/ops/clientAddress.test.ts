import test from 'ava';
import { loadConfig, ConfigError } from '../../src/config';
import { clientAddress, compileTrust, parseTrustProxy } from '../../src/http/clientAddress';
import { freshDataDir, runMainExpectingExit } from '../helpers/process';

test('TRUST_PROXY is a hop count or a list of proxies; empty and false trust nobody', (t) => {
  t.deepEqual(loadConfig({}).trustProxy, { hops: 0 });
  for (const off of ['', 'false', 'no', 'off', '0']) t.deepEqual(parseTrustProxy(off), { hops: 0 }, off);
  t.deepEqual(loadConfig({ TRUST_PROXY: '1' }).trustProxy, { hops: 1 });
  t.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, ::1, loopback' }).trustProxy, { proxies: ['10.0.0.0/8', '::1', 'loopback'] });
  t.throws(() => loadConfig({ TRUST_PROXY: 'proxy.example' }), { instanceOf: ConfigError, message: /TRUST_PROXY is invalid .*"proxy.example" is neither/ });
  t.throws(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' }), { instanceOf: ConfigError, message: /TRUST_PROXY is invalid/ });
});

test('TRUST_PROXY=true stops start-up with one sentence pointing at the hop count', async (t) => {
  const { code, stderr } = await runMainExpectingExit({ TRUST_PROXY: 'true', DATA_DIR: freshDataDir() });
  t.is(code, 2);
  t.regex(
    stderr,
    /TRUST_PROXY is invalid \(must not be "true": trusting every hop lets each client choose its own address in X-Forwarded-For; set the number of proxies in front of the service \(1 behind the shipped nginx\)/,
  );
  t.notRegex(stderr, /\n\s+at /, 'no stack trace');
});

test('the client is the first untrusted hop, walking from the TCP peer leftwards', (t) => {
  const none = compileTrust({ hops: 0 });
  const one = compileTrust({ hops: 1 });
  const two = compileTrust({ hops: 2 });
  const lan = compileTrust({ proxies: ['10.0.0.0/8', 'loopback'] });
  // No proxy trusted: the header is the client's own words, ignored.
  t.is(clientAddress('203.0.113.9', '1.2.3.4', none), '203.0.113.9');
  // One proxy that appends: the entry it wrote is the rightmost; whatever the client wrote is left of it.
  t.is(clientAddress('10.0.0.2', '6.6.6.6, 203.0.113.9', one), '203.0.113.9');
  t.is(clientAddress('10.0.0.2', ['6.6.6.6', '203.0.113.9'], one), '203.0.113.9', 'repeated headers are one list');
  t.is(clientAddress('10.0.0.2', '203.0.113.9', two), '203.0.113.9', 'fewer entries than hops: the leftmost');
  t.is(clientAddress('10.0.0.2', undefined, one), '10.0.0.2', 'no header: the peer itself');
  // A list: trusted while the hop is in it, whatever the count.
  t.is(clientAddress('10.0.0.2', '6.6.6.6, 203.0.113.9, 10.1.2.3', lan), '203.0.113.9');
  t.is(clientAddress('::ffff:127.0.0.1', '203.0.113.9', lan), '203.0.113.9', 'an IPv4-mapped peer matches its IPv4 subnet');
  t.is(clientAddress('198.51.100.7', '203.0.113.9', lan), '198.51.100.7', 'a peer that is not one of our proxies is the client');
  t.is(clientAddress('10.0.0.2', 'not-an-address, 203.0.113.9', lan), '203.0.113.9');
  t.is(clientAddress('10.0.0.2', '10.0.0.3, not-an-address', lan), 'not-an-address', 'junk is never trusted');
});
