import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { PrismaClient } from '@tollgate/db';

/** The id of the database-kept key (used when WEBHOOK_ENCRYPTION_KEYS is unset). */
const DATABASE_KEY_ID = 'default';

/** A key's id in a ciphertext: 8 hex characters of its SHA-256 (says which key, reveals nothing of it). */
const keyIdOf = (key: Buffer) => createHash('sha256').update(key).digest('hex').slice(0, 8);

/**
 * Parses WEBHOOK_ENCRYPTION_KEYS: comma-separated keys of 32 bytes, each base64 (44 characters) or hex (64). The first
 * encrypts, every one decrypts (to change the key, put the new one first and keep the old one until every secret was
 * rotated). Throws a message naming the bad entry's position, never its value.
 */
export function parseEncryptionKeys(value: string): Buffer[] {
  if (value.trim() === '') return [];
  return value.split(',').map((entry, i) => {
    const text = entry.trim();
    const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : /^[A-Za-z0-9+/]{43}=$/.test(text) ? Buffer.from(text, 'base64') : null;
    if (!key || key.length !== 32) throw new Error(`key ${i + 1} is not 32 bytes in base64 (44 characters) or hex (64)`);
    return key;
  });
}

/**
 * Encrypts webhook signing secrets at rest with AES-256-GCM (docs/adr/0017-webhooks.md). A secret must be usable for
 * HMAC, so it cannot be hashed like API keys. Keys come from WEBHOOK_ENCRYPTION_KEYS; without it, from a key made on
 * first use and kept in Postgres (`webhook_encryption_keys`), so that an installation works with no configuration —
 * at the price that a copy of the database then holds both the ciphertexts and their key. Each ciphertext is bound to
 * its endpoint (additional authenticated data), so one endpoint's secret cannot be moved to another's row.
 * Format: `v1:<key id>:<iv base64>:<ciphertext+tag base64>`.
 */
export class SecretBox {
  private readonly keys = new Map<string, Buffer>();
  private databaseKey: Promise<{ id: string; key: Buffer }> | null = null;

  constructor(
    private readonly prisma: Pick<PrismaClient, 'webhookEncryptionKey'>,
    configured: readonly Buffer[],
  ) {
    for (const key of configured) this.keys.set(keyIdOf(key), key);
    this.current = configured[0] ? { id: keyIdOf(configured[0]), key: configured[0] } : null;
  }

  private readonly current: { id: string; key: Buffer } | null;

  /**
   * Loads the key that `encrypt` uses, if it comes from the database and is not loaded yet. Call it before a transaction
   * that encrypts: loading takes a connection of its own, and transactions that hold every connection of the pool while
   * they wait for the key would wait for ever (until their timeout).
   */
  async ready(): Promise<void> {
    if (!this.current) await this.fromDatabase();
  }

  async encrypt(secret: string, endpointId: string): Promise<string> {
    const { id, key } = this.current ?? (await this.fromDatabase());
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(`webhook-endpoint:${endpointId}`));
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `v1:${id}:${iv.toString('base64')}:${sealed.toString('base64')}`;
  }

  async decrypt(box: string, endpointId: string): Promise<string> {
    const [version, id, iv, sealed] = box.split(':');
    if (version !== 'v1' || !id || !iv || !sealed) throw new Error('not a sealed webhook secret');
    let key = this.keys.get(id);
    if (!key) {
      const stored = await this.fromDatabase();
      if (stored.id === id) key = stored.key;
    }
    if (!key) throw new Error(`the webhook secret was sealed with key ${id}, which is not in WEBHOOK_ENCRYPTION_KEYS`);
    const bytes = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
    decipher.setAAD(Buffer.from(`webhook-endpoint:${endpointId}`));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString('utf8');
  }

  /** The database's key, made once by whichever process needs it first (a concurrent maker's insert is a no-op). */
  private fromDatabase(): Promise<{ id: string; key: Buffer }> {
    this.databaseKey ??= (async () => {
      await this.prisma.webhookEncryptionKey.createMany({ data: [{ id: DATABASE_KEY_ID, key: randomBytes(32) }], skipDuplicates: true });
      const row = await this.prisma.webhookEncryptionKey.findUniqueOrThrow({ where: { id: DATABASE_KEY_ID } });
      const key = Buffer.from(row.key);
      return { id: keyIdOf(key), key };
    })().catch((err: unknown) => {
      this.databaseKey = null;
      throw err;
    });
    return this.databaseKey;
  }
}
