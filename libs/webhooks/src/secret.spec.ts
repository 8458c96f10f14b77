import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, newEventId, secretKeyBytes, signatureHeader } from './secret';
import { parseEncryptionKeys, SecretBox } from './secret-box';

describe('webhook secrets and signatures', () => {
  it('makes whsec_ secrets of 32 random bytes, and event ids msg_ + 24 base62', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secretKeyBytes(secret)).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
    expect(newEventId()).toMatch(/^msg_[0-9A-Za-z]{24}$/);
  });

  it('signs as the standardwebhooks package verifies, one signature per secret', () => {
    const [a, b] = [generateWebhookSecret(), generateWebhookSecret()];
    const body = JSON.stringify({ type: 'webhook.test', timestamp: new Date().toISOString(), data: { n: 'é' } });
    const ts = Math.floor(Date.now() / 1000);
    const headers = { 'webhook-id': 'msg_x', 'webhook-timestamp': String(ts), 'webhook-signature': signatureHeader('msg_x', ts, body, [a, b]) };
    expect(headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    for (const secret of [a, b]) expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(a).verify(`${body} `, headers)).toThrow();
  });
});

describe('the secret box', () => {
  const noDatabase = { webhookEncryptionKey: null as never };
  const key = Buffer.alloc(32, 7);

  it('opens what it sealed, for the same endpoint only', async () => {
    const box = new SecretBox(noDatabase, [key]);
    const sealed = await box.encrypt('whsec_abc', 'endpoint-1');
    expect(sealed).toMatch(/^v1:[0-9a-f]{8}:/);
    expect(sealed).not.toContain('abc');
    expect(await box.decrypt(sealed, 'endpoint-1')).toBe('whsec_abc');
    await expect(box.decrypt(sealed, 'endpoint-2')).rejects.toThrow();
  });

  it('decrypts with any configured key, encrypts with the first', async () => {
    const old = new SecretBox(noDatabase, [key]);
    const sealed = await old.encrypt('whsec_abc', 'e');
    const both = new SecretBox(noDatabase, [Buffer.alloc(32, 9), key]);
    expect(await both.decrypt(sealed, 'e')).toBe('whsec_abc');
    expect((await both.encrypt('whsec_abc', 'e')).split(':')[1]).not.toBe(sealed.split(':')[1]);
  });

  it('reads keys as base64 or hex, and refuses others without echoing them', () => {
    expect(parseEncryptionKeys('')).toEqual([]);
    expect(parseEncryptionKeys(`${key.toString('base64')},${key.toString('hex')}`)).toEqual([key, key]);
    expect(() => parseEncryptionKeys('short-secret-value')).toThrow('key 1 is not 32 bytes');
    try {
      parseEncryptionKeys('short-secret-value');
    } catch (err) {
      expect((err as Error).message).not.toContain('short-secret-value');
    }
  });
});
