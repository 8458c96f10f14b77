import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { parseTrustProxy } from '@tollgate/domain';
import { describe, expect, it } from 'vitest';
import { clientAddressOf, compileTrust } from './client-address.mts';

/** A request as Node's HTTP server hands it over: a TCP peer and the headers the peer sent. */
function request(peer: string, forwardedFor?: string): IncomingMessage {
  const socket = new Socket();
  Object.defineProperty(socket, 'remoteAddress', { value: peer });
  return { socket, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } } as IncomingMessage;
}

const addressOf = (trust: string, peer: string, forwardedFor?: string) => clientAddressOf(request(peer, forwardedFor), compileTrust(parseTrustProxy(trust)));

describe('the browser address the dashboard signs', () => {
  it('is the TCP peer when no proxy is trusted, whatever X-Forwarded-For the browser sends', () => {
    expect(addressOf('', '203.0.113.7')).toBe('203.0.113.7');
    expect(addressOf('', '203.0.113.7', '198.51.100.1')).toBe('203.0.113.7');
    expect(addressOf('0', '203.0.113.7', '198.51.100.1, 198.51.100.2')).toBe('203.0.113.7');
  });

  it('is what the trusted proxy in front saw, not what the browser claimed before it', () => {
    // nginx's $proxy_add_x_forwarded_for: the browser's own header, then the address nginx saw.
    expect(addressOf('1', '10.0.0.5', '198.51.100.1, 203.0.113.7')).toBe('203.0.113.7');
    expect(addressOf('10.0.0.0/8', '10.0.0.5', '198.51.100.1, 203.0.113.7')).toBe('203.0.113.7');
    expect(addressOf('2', '10.0.0.5', '198.51.100.1, 203.0.113.7, 10.0.0.9')).toBe('203.0.113.7');
  });

  it('believes no header from a peer that is not a trusted proxy', () => {
    expect(addressOf('10.0.0.0/8', '203.0.113.7', '198.51.100.1')).toBe('203.0.113.7');
  });
});
